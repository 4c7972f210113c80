//! From a manifest to the schemas to distil: its golds (read by its format, `[dataset] subset`
//! applied) grouped by `db_id`, each schema from the manifest's `tables` file or else from the
//! database `[distill] schema` names, the original database (`[distill] original`, or where the
//! `[databases]` pattern finds one), and the constraints to generate within (induced, merged
//! with the dataset author's file).

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use super::constraints::{self, Constraints};
use super::distill::{GoldInput, SchemaInput};
use super::induce::induce;
use super::profile::Profile;
use super::schema::{from_database, read_tables_json};
use super::SuiteError;
use sqlsuite::backend::Naming;
use sqlsuite::dataset::DatabaseLocator;
use sqlsuite::manifest::Manifest;
use sqlsuite::registry::Composition;

/// The schemas of `manifest` (composed as `composition`) to distil (all, or those named in
/// `only`), in `db_id` order.
pub fn schema_inputs(
    manifest: &Manifest,
    composition: &Composition,
    only: &[String],
) -> Result<Vec<SchemaInput>, SuiteError> {
    let bad = |message: String| SuiteError::Schema {
        db_id: manifest.path.display().to_string(),
        message,
    };
    let tables = match &manifest.tables {
        Some(tables) => Some((tables, read_tables_json(tables)?)),
        None if !manifest.distill.schema.is_empty() => None,
        None => {
            return Err(bad(
                "distillation needs the schemas: [dataset] tables (a Spider tables.json) or \
                 [distill] schema (databases that define them)"
                    .into(),
            ))
        }
    };
    let items = (composition.format.read_gold)(&composition.inputs)
        .and_then(|items| sqlsuite::dataset::subset(items, &composition.inputs))
        .map_err(|e| bad(e.to_string()))?;
    let locator = match composition.databases.as_ref().map(|d| &d.naming) {
        Some(naming @ Naming::Files(_)) if manifest.distill.original.is_none() => {
            Some(DatabaseLocator::of(naming).map_err(|e| bad(e.to_string()))?)
        }
        _ => None,
    };
    // Per schema, its distinct golds: items that share a gold (a question asked in other
    // words) share its neighbors and suite.
    let mut golds: BTreeMap<String, Vec<GoldInput>> = BTreeMap::new();
    let mut first: HashMap<(String, String), usize> = HashMap::new();
    for item in items {
        if only.is_empty() || only.contains(&item.db_id) {
            let schema = golds.entry(item.db_id.clone()).or_default();
            match first.entry((item.db_id, item.gold)) {
                Entry::Occupied(e) => schema[*e.get()].same_gold.push(item.index),
                Entry::Vacant(e) => {
                    schema.push(GoldInput {
                        index: item.index,
                        gold: e.key().1.clone(),
                        same_gold: Vec::new(),
                    });
                    e.insert(schema.len() - 1);
                }
            }
        }
    }
    if let Some(missing) = only.iter().find(|d| !golds.contains_key(*d)) {
        return Err(bad(format!("no gold uses db_id {missing:?}")));
    }
    let profile = match &manifest.distill.profile {
        Some(path) => Some(Profile::read(path)?),
        None => None,
    };
    let mut out = Vec::new();
    for (db_id, golds) in golds {
        let schema = match &tables {
            Some((path, schemas)) => {
                schemas
                    .get(&db_id)
                    .cloned()
                    .ok_or_else(|| SuiteError::Schema {
                        db_id: db_id.clone(),
                        message: format!("not in {}", path.display()),
                    })?
            }
            None => {
                let candidates: Vec<PathBuf> = manifest
                    .distill
                    .schema
                    .iter()
                    .map(|p| PathBuf::from(p.replace("{db_id}", &db_id)))
                    .collect();
                let Some(path) = candidates.iter().find(|p| p.is_file()) else {
                    return Err(SuiteError::Schema {
                        db_id: db_id.clone(),
                        message: format!(
                            "no [distill] schema file: none of {} exists",
                            candidates
                                .iter()
                                .map(|p| p.display().to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    });
                };
                from_database(&db_id, path)?
            }
        };
        let original = match &manifest.distill.original {
            Some(pattern) => {
                Some(PathBuf::from(pattern.replace("{db_id}", &db_id))).filter(|p| p.is_file())
            }
            None => locator
                .as_ref()
                .filter(|l| !l.is_suite())
                .and_then(|l| l.resolve(&db_id).ok())
                .and_then(|dbs| dbs.into_iter().next())
                .and_then(|db| db.as_file().map(|p| p.to_path_buf())),
        };
        // Without the original, a published profile stands for its data.
        let profiled = profile
            .as_ref()
            .filter(|_| original.is_none())
            .and_then(|p| p.database(&db_id));
        let schema = match (&original, profiled) {
            (Some(path), _) => schema.with_original(path)?,
            (None, Some(p)) => p.apply(schema),
            (None, None) => schema,
        }
        .with_joins(golds.iter().map(|g| g.gold.as_str()))
        .with_text_comparisons(golds.iter().map(|g| g.gold.as_str()));
        let data = original.as_deref().filter(|_| manifest.distill.induce);
        let mut rules = induce(&schema, data, golds.iter().map(|g| g.gold.as_str()))?;
        let mut origin = "induced constraints".to_owned();
        if let Some(p) = profiled {
            rules.merge(&p.constraints(&schema));
            origin = format!(
                "the profile {}",
                manifest
                    .distill
                    .profile
                    .as_ref()
                    .map_or(String::new(), |p| p.display().to_string())
            );
        }
        if let Some(pattern) = &manifest.distill.constraints {
            let path = constraints::override_path(pattern, &db_id);
            if path.is_file() {
                rules.merge(&Constraints::read(&path)?);
                origin = path.display().to_string();
            }
        }
        let schema = schema.with_constraints(&rules, &origin)?;
        out.push(SchemaInput {
            schema,
            original,
            golds,
            constraints: rules,
        });
    }
    Ok(out)
}
