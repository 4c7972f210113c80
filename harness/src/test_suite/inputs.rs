//! From a manifest to the schemas to distil: its golds grouped by `db_id`, each schema from the
//! manifest's `tables` file, the original database where the `[databases]` pattern finds one,
//! and the constraints to generate within (induced, merged with the dataset author's file).

use std::collections::BTreeMap;

use super::constraints::{self, Constraints};
use super::distill::{GoldInput, SchemaInput};
use super::schema::read_tables_json;
use super::SuiteError;
use crate::backend::Naming;
use crate::dataset::{spider, DatabaseLocator};
use crate::manifest::Manifest;
use crate::registry::Composition;

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
    if composition.format.name != spider::ENTRY.name {
        return Err(bad("distillation reads a spider-format gold".into()));
    }
    let tables = manifest
        .tables
        .as_ref()
        .ok_or_else(|| bad("distillation needs [dataset] tables (a Spider tables.json)".into()))?;
    let schemas = read_tables_json(tables)?;
    let items = spider::read_gold(&manifest.gold).map_err(|e| bad(e.to_string()))?;
    let locator = match composition.databases.as_ref().map(|d| &d.naming) {
        Some(naming @ Naming::Files(_)) => {
            Some(DatabaseLocator::of(naming).map_err(|e| bad(e.to_string()))?)
        }
        _ => None,
    };
    let mut golds: BTreeMap<String, Vec<GoldInput>> = BTreeMap::new();
    for item in items {
        if only.is_empty() || only.contains(&item.db_id) {
            golds
                .entry(item.db_id.clone())
                .or_default()
                .push(GoldInput {
                    index: item.index,
                    gold: item.gold,
                });
        }
    }
    if let Some(missing) = only.iter().find(|d| !golds.contains_key(*d)) {
        return Err(bad(format!("no gold uses db_id {missing:?}")));
    }
    let mut out = Vec::new();
    for (db_id, golds) in golds {
        let schema = schemas
            .get(&db_id)
            .cloned()
            .ok_or_else(|| SuiteError::Schema {
                db_id: db_id.clone(),
                message: format!("not in {}", tables.display()),
            })?;
        let original = locator
            .as_ref()
            .filter(|l| !l.is_suite())
            .and_then(|l| l.resolve(&db_id).ok())
            .and_then(|dbs| dbs.into_iter().next())
            .and_then(|db| db.as_file().map(|p| p.to_path_buf()));
        let schema = match &original {
            Some(path) => schema.with_original(path)?,
            None => schema,
        }
        .with_joins(golds.iter().map(|g| g.gold.as_str()));
        let data = original.as_deref().filter(|_| manifest.distill.induce);
        let mut rules = constraints::induce(&schema, data, golds.iter().map(|g| g.gold.as_str()))?;
        let mut origin = "induced constraints".to_owned();
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
