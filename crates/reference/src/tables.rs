//! Spider's `tables.json`: a list of database schemas, one entry per `db_id`, each with its
//! tables, columns (`[table index, name]`, the first being `[-1, "*"]`), column types, primary
//! and foreign keys. Exact match parses queries against it; test-suite distillation draws random
//! databases from it. Each builds its own schema type from the [`TablesEntry`]s read here.
//!
//! Only the fields some user needs are read: the normalised names (`table_names`,
//! `column_names`) are ignored. `db_id`, `table_names_original` and `column_names_original` are
//! required; the keys default to none, and `column_types` is optional (datasets that only need
//! exact match may leave it out).

use std::path::Path;

use serde::Deserialize;

use crate::ReadError;

/// One entry of `tables.json`: the schema of one database.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct TablesEntry {
    /// The database's id, which items name their database by.
    pub db_id: String,
    /// Table names as the database spells them.
    pub table_names_original: Vec<String>,
    /// `(table index, column name)` as the database spells it; table index `-1` is the `*`
    /// column.
    pub column_names_original: Vec<(i64, String)>,
    /// One type per column (`text`, `number`, `time`, `boolean`, `others`), in the order of
    /// `column_names_original`.
    pub column_types: Option<Vec<String>>,
    /// Primary keys, each a column index or (in later releases) a list of column indices for a
    /// composite key.
    #[serde(default)]
    pub primary_keys: Vec<serde_json::Value>,
    /// `(column index, referenced column index)` pairs.
    #[serde(default)]
    pub foreign_keys: Vec<(usize, usize)>,
}

/// Reads a `tables.json` file; errors name the file (and the line of invalid UTF-8).
pub fn read(path: &Path) -> Result<Vec<TablesEntry>, ReadError> {
    let text = crate::read_text(path)?;
    parse(&text).map_err(|e| ReadError::Invalid {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// Parses the text of a `tables.json` file.
pub fn parse(text: &str) -> Result<Vec<TablesEntry>, serde_json::Error> {
    serde_json::from_str(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_fields_default_and_normalised_names_are_ignored() {
        let json = r#"[{"db_id": "x", "table_names": ["t"], "table_names_original": ["T"],
            "column_names": [[-1, "*"], [0, "a"]], "column_names_original": [[-1, "*"], [0, "A"]]}]"#;
        let entries = parse(json).unwrap();
        assert_eq!(entries[0].db_id, "x");
        assert_eq!(entries[0].column_names_original[1], (0, "A".to_owned()));
        assert_eq!(entries[0].column_types, None);
        assert!(entries[0].primary_keys.is_empty() && entries[0].foreign_keys.is_empty());
    }

    #[test]
    fn errors_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tables.json");
        std::fs::write(&path, r#"[{"db_id": "x"}]"#).unwrap();
        let message = read(&path).unwrap_err().to_string();
        assert!(
            message.starts_with(&path.display().to_string()),
            "{message}"
        );
        assert!(message.contains("table_names_original"), "{message}");
    }
}
