//! Database schemas (from Spider's `tables.json`) in the form the reference
//! parser and evaluator use them.

use std::collections::HashMap;
use std::path::Path;

use crate::tables::{self, TablesEntry};
use crate::ReadError;

/// One database schema as the reference's parser and evaluator use it (read
/// by [`load_schemas`]): lower-cased table and column names, the identifier
/// map used to name columns (`__table.column__`) and tables (`__table__`),
/// and the foreign-key canonicalisation map.
#[derive(Debug, Clone, Default)]
pub struct Schema {
    /// Tables in declaration order, each with its lower-cased columns.
    pub(super) tables: Vec<(String, Vec<String>)>,
    /// Position of each table in `tables`, by lower-cased name.
    table_index: HashMap<String, usize>,
    /// `*` → `__all__`, `table.col` → `__table.col__`, `table` → `__table__`.
    id_map: HashMap<String, String>,
    /// The values of `id_map` (the reference scans them in order).
    id_values: Vec<String>,
    /// Foreign-key map: column id → canonical column id of its key group.
    pub(super) foreign_keys: HashMap<String, String>,
}

impl Schema {
    /// Builds a schema from a table list (names are lower-cased here) and a
    /// foreign-key map whose keys and values are column ids.
    pub(super) fn new(
        tables: Vec<(String, Vec<String>)>,
        foreign_keys: HashMap<String, String>,
    ) -> Schema {
        let tables: Vec<(String, Vec<String>)> = tables
            .into_iter()
            .map(|(t, cols)| {
                (
                    t.to_lowercase(),
                    cols.into_iter().map(|c| c.to_lowercase()).collect(),
                )
            })
            .collect();
        let mut id_map = HashMap::new();
        let mut id_values = vec!["__all__".to_string()];
        id_map.insert("*".to_string(), "__all__".to_string());
        for (t, cols) in &tables {
            for c in cols {
                let id = format!("__{t}.{c}__");
                id_map.insert(format!("{t}.{c}"), id.clone());
                id_values.push(id);
            }
        }
        for (t, _) in &tables {
            let id = format!("__{t}__");
            id_map.insert(t.clone(), id.clone());
            id_values.push(id);
        }
        let table_index = tables
            .iter()
            .enumerate()
            .map(|(i, (t, _))| (t.clone(), i))
            .collect();
        Schema {
            tables,
            table_index,
            id_map,
            id_values,
            foreign_keys,
        }
    }

    /// The identifier for a `*`, `table.column` or `table` key.
    pub(super) fn id_of(&self, key: &str) -> Option<&str> {
        self.id_map.get(key).map(String::as_str)
    }

    /// The columns of a table (by lower-cased name).
    pub(super) fn columns_of(&self, table: &str) -> Option<&[String]> {
        self.table_index
            .get(table)
            .map(|&i| self.tables[i].1.as_slice())
    }

    /// All identifiers, in the order the reference enumerates them.
    pub(super) fn id_values(&self) -> &[String] {
        &self.id_values
    }
}

/// Builds the reference's foreign-key canonicalisation map for one entry.
fn foreign_key_map(entry: &TablesEntry) -> Result<HashMap<String, String>, String> {
    let mut cols = Vec::with_capacity(entry.column_names_original.len());
    for (t, c) in &entry.column_names_original {
        if *t >= 0 {
            let table = usize::try_from(*t)
                .ok()
                .and_then(|i| entry.table_names_original.get(i))
                .ok_or_else(|| format!("{}: bad table index {t}", entry.db_id))?;
            cols.push(format!("__{}.{}__", table.to_lowercase(), c.to_lowercase()));
        } else {
            cols.push("__all__".to_string());
        }
    }
    // Group key pairs: a pair joins the first group containing either end,
    // otherwise it starts a new group (groups are never merged).
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &(a, b) in &entry.foreign_keys {
        let pos = groups.iter().position(|g| g.contains(&a) || g.contains(&b));
        let g = match pos {
            Some(p) => &mut groups[p],
            None => {
                groups.push(Vec::new());
                let last = groups.len() - 1;
                &mut groups[last]
            }
        };
        for k in [a, b] {
            if !g.contains(&k) {
                g.push(k);
            }
        }
    }
    let mut map = HashMap::new();
    for g in &mut groups {
        g.sort_unstable();
        let canon = cols
            .get(g[0])
            .ok_or_else(|| format!("{}: bad column index {}", entry.db_id, g[0]))?
            .clone();
        for &k in g.iter() {
            let col = cols
                .get(k)
                .ok_or_else(|| format!("{}: bad column index {k}", entry.db_id))?;
            map.insert(col.clone(), canon.clone());
        }
    }
    Ok(map)
}

/// Parses the text of a Spider `tables.json` file into schemas keyed by
/// `db_id`, using the original (not normalised) table and column names.
#[cfg(test)]
pub(super) fn schemas_from_json(text: &str) -> Result<HashMap<String, Schema>, String> {
    let entries = tables::parse(text).map_err(|e| format!("tables.json: {e}"))?;
    schemas_from_entries(&entries)
}

/// Builds the schemas of `tables.json` entries, keyed by `db_id`.
fn schemas_from_entries(entries: &[TablesEntry]) -> Result<HashMap<String, Schema>, String> {
    let mut out = HashMap::new();
    for entry in entries {
        let mut tables: Vec<(String, Vec<String>)> = entry
            .table_names_original
            .iter()
            .map(|t| (t.clone(), Vec::new()))
            .collect();
        for (t, c) in &entry.column_names_original {
            if *t < 0 {
                continue;
            }
            let slot = usize::try_from(*t)
                .ok()
                .and_then(|i| tables.get_mut(i))
                .ok_or_else(|| format!("{}: bad table index {t}", entry.db_id))?;
            slot.1.push(c.clone());
        }
        let fks = foreign_key_map(entry)?;
        out.insert(entry.db_id.clone(), Schema::new(tables, fks));
    }
    Ok(out)
}

/// Loads every schema of a Spider `tables.json` file, keyed by `db_id`.
pub fn load_schemas(path: &Path) -> Result<HashMap<String, Schema>, ReadError> {
    let entries = tables::read(path)?;
    schemas_from_entries(&entries).map_err(|message| ReadError::Invalid {
        path: path.to_path_buf(),
        message,
    })
}
