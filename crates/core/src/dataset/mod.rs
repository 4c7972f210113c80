//! Dataset readers turn files into [`Item`]s and prediction sets. They know file formats and
//! nothing about SQL semantics. A new format is one module here that defines its
//! [`FormatEntry`] (`pub const ENTRY`), and one line in [`crate::registry::FORMATS`].

pub mod bird;
pub mod classical;

pub mod extract;

pub mod interactions;

pub mod predictions;

pub mod sede;

pub mod spider;

pub mod sql2text;

pub mod sqleval;

use std::fmt;
use std::path::{Path, PathBuf};

/// Spider's `tables.json`, read as the reference evaluators read it.
pub use sqlsuite_reference::tables;

use crate::backend::{Database, Naming};

/// Reads one prediction file of a dataset whose gold gave these items.
pub type ReadPredictions =
    fn(&PredictionInput, &Inputs, &[Item]) -> Result<Vec<String>, DatasetError>;

/// What the composition root ([`crate::registry`]) knows of a gold file format. Each format
/// module defines one as `pub const ENTRY`.
#[derive(Clone, Copy)]
pub struct FormatEntry {
    /// The value of `[dataset] format` that selects it.
    pub name: &'static str,
    /// Its gold and prediction files are tables read by column name (`gold_column` and a
    /// prediction set's `column` apply).
    pub table_columns: bool,
    /// The metric a manifest without `[metrics]` gets.
    pub default_metric: &'static str,
    /// Reads the gold file.
    pub read_gold: fn(&Inputs) -> Result<Vec<Item>, DatasetError>,
    /// Reads one prediction file, aligned with the gold's items.
    pub read_predictions: ReadPredictions,
    /// What one prediction is in a prediction file, for messages: `lines`, `rows`.
    pub unit: fn(&Path) -> &'static str,
}

impl fmt::Debug for FormatEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FormatEntry")
            .field("name", &self.name)
            .finish()
    }
}

/// The files a dataset is read from.
#[derive(Debug, Clone, PartialEq)]
pub struct Inputs {
    /// The dataset's name (`[dataset] name`).
    pub name: String,
    /// The gold file.
    pub gold: PathBuf,
    /// For table-shaped gold files: the column holding the gold query.
    pub gold_column: Option<String>,
    /// Only the items of these `db_id`s (empty: all), before predictions are aligned.
    pub subset: Vec<String>,
    /// The prediction files, in the manifest's order.
    pub predictions: Vec<PredictionInput>,
}

/// One prediction file and its set's name.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictionInput {
    /// The set's name (`[[predictions]] name`).
    pub name: String,
    /// The prediction file.
    pub file: PathBuf,
    /// For table-shaped prediction files: the field holding the query.
    pub column: Option<String>,
    /// How the SQL is taken out of each answer (`[[predictions]] extract`).
    pub extract: Option<extract::Rule>,
}

/// `unit` for files with one prediction per line.
pub fn lines(_: &Path) -> &'static str {
    "lines"
}

/// One gold item.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// Position in the gold file (0-based), the index the reference evaluators use.
    pub index: usize,
    /// The database the gold runs on.
    pub db_id: String,
    /// The gold: a SQL query, or for text-generation datasets the reference text.
    pub gold: String,
    /// The natural-language question, where the dataset has one.
    pub question: Option<String>,
    /// The external knowledge the model is given with the question (BIRD's `evidence`).
    pub evidence: Option<String>,
    /// Where the item comes from, for messages: `file:line` or `file#index`.
    pub source: String,
    /// For conversational datasets (SParC, CoSQL): the interaction and the turn in it.
    pub turn: Option<Turn>,
    /// The groups the item belongs to, by grouping (`("hardness", "easy")`): set when the
    /// evaluation is opened, from the registry's groupings (`registry::GROUPINGS`), not by
    /// readers.
    pub groups: Vec<(&'static str, String)>,
    /// The dataset's own category of the question (SQL-Eval's `query_category`), if it has one.
    pub category: Option<String>,
    /// The values the gold was written with, where the dataset records them (the classical
    /// datasets' `variables`).
    pub variables: Vec<Variable>,
    /// Text-generation datasets (SQL-to-text): every reference text, `gold` being the first;
    /// empty elsewhere.
    pub references: Vec<String>,
    /// Text-generation datasets: the SQL the references describe (the model's input).
    pub described_sql: Option<String>,
}

/// A value of the gold (a classical dataset's variable): its name and type, the example value the
/// gold holds, and the columns (table, column) it is compared with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    /// The variable's name in the gold (`city_name0`).
    pub name: String,
    /// The value the gold holds.
    pub example: String,
    /// Its type as the dataset writes it.
    pub kind: String,
    /// The `(table, column)` pairs it is compared with.
    pub columns: Vec<(String, String)>,
}

impl Item {
    /// An item with what every dataset has; a reader sets the optional fields it knows
    /// (`Item { question, ..Item::new(…) }`).
    pub fn new(
        index: usize,
        db_id: impl Into<String>,
        gold: impl Into<String>,
        source: impl Into<String>,
    ) -> Item {
        Item {
            index,
            db_id: db_id.into(),
            gold: gold.into(),
            question: None,
            evidence: None,
            source: source.into(),
            turn: None,
            groups: Vec::new(),
            category: None,
            variables: Vec::new(),
            references: Vec::new(),
            described_sql: None,
        }
    }

    /// The item's group under `grouping` (`item.group("hardness")`: `Some("easy")`).
    pub fn group(&self, grouping: &str) -> Option<&str> {
        self.groups
            .iter()
            .find(|(g, _)| *g == grouping)
            .map(|(_, label)| label.as_str())
    }
}

/// A turn of an interaction (both 0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Turn {
    /// The interaction's position in the file.
    pub interaction: usize,
    /// The turn's position in its interaction.
    pub turn: usize,
}

/// One model version's predictions, aligned with the items.
#[derive(Debug, Clone, PartialEq)]
pub struct PredictionSet {
    /// The set's name.
    pub name: String,
    /// The prediction file.
    pub file: PathBuf,
    /// One prediction per item: as the file has it, or the SQL the set's extraction rule
    /// took out of it.
    pub queries: Vec<String>,
    /// Per item, what the extraction rule took and from where (`None`: judged as written).
    pub extracted: Vec<Option<extract::Extracted>>,
}

/// A loaded dataset: items, prediction sets and where each item's databases are.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// The dataset's name.
    pub name: String,
    /// The gold items, in the gold file's order.
    pub items: Vec<Item>,
    /// The prediction sets, in the manifest's order.
    pub predictions: Vec<PredictionSet>,
    /// Per item: the databases to run on, or why there are none (the item is skipped).
    pub databases: Vec<Result<Vec<Database>, String>>,
}

/// Errors reading dataset files; each names the file (and line where there is one).
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    // `error`, not `source`: the message says it already, a chain would say it twice.
    /// The file could not be read.
    #[error("cannot read {}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        error: std::io::Error,
    },
    /// A line of the file is wrong.
    #[error("{}:{line}: {message}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// 1-based.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// The file as a whole is wrong (the message locates it where the parser can).
    #[error("{}: {message}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A prediction file does not have one prediction per item.
    #[error(
        "prediction file {} has {predictions} {} but gold file {} has {gold} items; \
         predictions must be aligned one per item with the gold",
        prediction_file.display(), unit, gold_file.display()
    )]
    CountMismatch {
        /// The prediction file.
        prediction_file: PathBuf,
        /// How many predictions it has.
        predictions: usize,
        /// What a prediction is in that file: `lines` or `rows`.
        unit: &'static str,
        /// The gold file.
        gold_file: PathBuf,
        /// How many items it has.
        gold: usize,
    },
    /// The `[databases]` pattern cannot be used.
    #[error("database pattern {pattern}: {message}")]
    Pattern {
        /// The pattern.
        pattern: String,
        /// Why.
        message: String,
    },
}

impl From<sqlsuite_reference::ReadError> for DatasetError {
    fn from(e: sqlsuite_reference::ReadError) -> Self {
        use sqlsuite_reference::ReadError;
        match e {
            ReadError::Io { path, error } => DatasetError::Io { path, error },
            ReadError::Utf8 { path, line } => DatasetError::Line {
                path,
                line,
                message: "invalid UTF-8".into(),
            },
            ReadError::Invalid { path, message } => DatasetError::File { path, message },
        }
    }
}

pub(crate) fn read_text(path: &Path) -> Result<String, DatasetError> {
    let bytes = std::fs::read(path).map_err(|error| DatasetError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let valid = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        DatasetError::Line {
            path: path.to_path_buf(),
            line: valid.iter().filter(|&&b| b == b'\n').count() + 1,
            message: "invalid UTF-8".into(),
        }
    })
}

impl Dataset {
    /// Reads the gold and the prediction sets in `format`, and finds each item's databases as
    /// `databases` names them (none: every item is without databases).
    pub fn load(
        format: &FormatEntry,
        inputs: &Inputs,
        databases: Option<&Naming>,
    ) -> Result<Dataset, DatasetError> {
        let items = subset((format.read_gold)(inputs)?, inputs)?;
        let mut sets = Vec::new();
        for p in &inputs.predictions {
            let mut queries = (format.read_predictions)(p, inputs, &items)?;
            if queries.len() != items.len() {
                return Err(DatasetError::CountMismatch {
                    prediction_file: p.file.clone(),
                    predictions: queries.len(),
                    unit: (format.unit)(&p.file),
                    gold_file: inputs.gold.clone(),
                    gold: items.len(),
                });
            }
            let extracted = match p.extract {
                Some(rule) => queries
                    .iter_mut()
                    .map(|q| {
                        let (sql, taken) = extract::extract(rule, q)?;
                        *q = sql;
                        Some(taken)
                    })
                    .collect(),
                None => vec![None; queries.len()],
            };
            sets.push(PredictionSet {
                name: p.name.clone(),
                file: p.file.clone(),
                queries,
                extracted,
            });
        }
        let databases = if let Some(naming) = databases {
            let locator = DatabaseLocator::of(naming)?;
            // Per db_id: its databases and the suite's exclusions.
            type Resolved = Result<(Vec<Database>, Exclusions), String>;
            let mut resolved: std::collections::HashMap<&str, Resolved> =
                std::collections::HashMap::new();
            items
                .iter()
                .map(|item| {
                    let found = resolved
                        .entry(item.db_id.as_str())
                        .or_insert_with(|| locator.resolve_suite(&item.db_id));
                    match found {
                        Ok((dbs, exclusions)) => Ok(exclude(dbs.clone(), exclusions, &item.gold)),
                        Err(e) => Err(e.clone()),
                    }
                })
                .collect()
        } else {
            let none = Err("the manifest names no databases".to_owned());
            vec![none; items.len()]
        };
        Ok(Dataset {
            name: inputs.name.clone(),
            items,
            predictions: sets,
            databases,
        })
    }
}

/// The items of `inputs.subset`'s `db_id`s (all without a subset), keeping their gold-file
/// indexes; a subset name no item has is an error.
pub fn subset(items: Vec<Item>, inputs: &Inputs) -> Result<Vec<Item>, DatasetError> {
    if inputs.subset.is_empty() {
        return Ok(items);
    }
    if let Some(unknown) = inputs
        .subset
        .iter()
        .find(|s| !items.iter().any(|i| &i.db_id == *s))
    {
        let mut known: Vec<&str> = items.iter().map(|i| i.db_id.as_str()).collect();
        known.sort_unstable();
        known.dedup();
        return Err(DatasetError::File {
            path: inputs.gold.clone(),
            message: format!(
                "subset {unknown:?}: no item has that db_id (they are: {})",
                known.join(", ")
            ),
        });
    }
    Ok(items
        .into_iter()
        .filter(|i| inputs.subset.contains(&i.db_id))
        .collect())
}

/// The file beside a suite's databases that names, per gold, the databases that are no part of
/// its suite: those on which its question has no natural answer, and those respelled for other
/// golds (`spec/test_suite.md`, "Ambiguous answers", "Respelled databases").
pub const SUITE_EXCLUSIONS: &str = "exclusions.json";

/// Per gold text, the file names of the databases excluded from its suite.
pub type Exclusions = std::collections::BTreeMap<String, Vec<String>>;

/// `databases` without those `exclusions` list for `gold`.
pub(crate) fn exclude(
    databases: Vec<Database>,
    exclusions: &Exclusions,
    gold: &str,
) -> Vec<Database> {
    let Some(excluded) = exclusions.get(gold) else {
        return databases;
    };
    let kept: Vec<Database> = databases
        .iter()
        .filter(|d| !excluded.iter().any(|x| *x == d.label()))
        .cloned()
        .collect();
    // A suite never excludes its first database (the original); should a file say otherwise,
    // the gold keeps them all rather than none.
    if kept.is_empty() {
        databases
    } else {
        kept
    }
}

/// Finds an item's databases from the manifest's pattern. A pattern with glob characters
/// (`*`, `?`, `[`) after substitution is a test suite: every matching file is one database.
#[derive(Debug, Clone)]
pub struct DatabaseLocator {
    pattern: String,
    /// The pattern names server-side databases (PostgreSQL), not files: no file checks.
    names: bool,
    /// For a suite of files copied to a server ([`Naming::Suite`]): how each file's copy is
    /// named (`pattern` is then the files' glob).
    copies: Option<String>,
}

impl DatabaseLocator {
    /// The locator of databases a backend names so.
    pub fn of(naming: &Naming) -> Result<DatabaseLocator, DatasetError> {
        match naming {
            Naming::Files(pattern) => DatabaseLocator::new(pattern),
            Naming::Names(pattern) => Ok(DatabaseLocator::names(pattern)),
            Naming::Suite { files, names } => DatabaseLocator::copies(files, names),
        }
    }

    /// A locator of database files.
    pub fn new(pattern: &str) -> Result<DatabaseLocator, DatasetError> {
        glob::Pattern::new(&pattern.replace("{db_id}", "x")).map_err(|e| {
            DatasetError::Pattern {
                pattern: pattern.to_owned(),
                message: e.to_string(),
            }
        })?;
        Ok(DatabaseLocator {
            pattern: pattern.to_owned(),
            names: false,
            copies: None,
        })
    }

    /// A locator of named databases on a server (`{db_id}` substituted, nothing checked here:
    /// a missing database is an execution error naming it).
    pub fn names(pattern: &str) -> DatabaseLocator {
        DatabaseLocator {
            pattern: pattern.to_owned(),
            names: true,
            copies: None,
        }
    }

    /// A locator of a suite's files copied to a server: the suite is the files `files` matches
    /// (and its exclusions theirs), each database named by `names` with `{file}`, the file's
    /// stem, and `{db_id}` substituted.
    pub fn copies(files: &str, names: &str) -> Result<DatabaseLocator, DatasetError> {
        Ok(DatabaseLocator {
            copies: Some(names.to_owned()),
            ..DatabaseLocator::new(files)?
        })
    }

    /// True if the pattern names several databases per schema.
    pub fn is_suite(&self) -> bool {
        !self.names && self.pattern.contains(['*', '?', '['])
    }

    /// The databases of a suite that are no part of one gold's suite, by gold (its text as in
    /// the gold file), from the [`SUITE_EXCLUSIONS`] file beside the suite's databases (none
    /// without that file, or for a pattern that is no suite).
    pub fn exclusions(&self, databases: &[Database]) -> Result<Exclusions, String> {
        let Some(dir) = databases
            .first()
            .filter(|_| self.is_suite())
            .and_then(|d| d.as_file()?.parent())
        else {
            return Ok(Exclusions::default());
        };
        let path = dir.join(SUITE_EXCLUSIONS);
        match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Exclusions::default()),
            Err(e) => Err(format!("{}: {e}", path.display())),
        }
    }

    /// The databases of `gold`'s item on `db_id`: [`DatabaseLocator::resolve`], without those
    /// the suite excludes for that gold.
    pub fn resolve_for(&self, db_id: &str, gold: &str) -> Result<Vec<Database>, String> {
        let (dbs, exclusions) = self.resolve_suite(db_id)?;
        Ok(exclude(dbs, &exclusions, gold))
    }

    /// The databases for `db_id` and its suite's exclusions (named as the databases are).
    pub fn resolve_suite(&self, db_id: &str) -> Result<(Vec<Database>, Exclusions), String> {
        let files = self.resolve_files(db_id)?;
        let exclusions = self.exclusions(&files)?;
        let Some(names) = &self.copies else {
            return Ok((files, exclusions));
        };
        let copy = |label: &str| {
            let stem = Path::new(label)
                .file_stem()
                .map_or_else(|| label.to_owned(), |s| s.to_string_lossy().into_owned());
            names.replace("{db_id}", db_id).replace("{file}", &stem)
        };
        let databases = files
            .iter()
            .map(|f| Database::Named(copy(&f.label())))
            .collect();
        let exclusions = exclusions
            .into_iter()
            .map(|(gold, labels)| (gold, labels.iter().map(|l| copy(l)).collect()))
            .collect();
        Ok((databases, exclusions))
    }

    /// The databases for `db_id`, or the reason there are none.
    pub fn resolve(&self, db_id: &str) -> Result<Vec<Database>, String> {
        Ok(self.resolve_suite(db_id)?.0)
    }

    /// The files (or, for [`DatabaseLocator::names`], the names) `pattern` gives `db_id`.
    fn resolve_files(&self, db_id: &str) -> Result<Vec<Database>, String> {
        if db_id.contains(['/', '\\']) || db_id == ".." || db_id.is_empty() {
            return Err(format!("invalid db_id {db_id:?}"));
        }
        let path = self.pattern.replace("{db_id}", db_id);
        if self.names {
            return Ok(vec![Database::Named(path)]);
        }
        if !self.is_suite() {
            return if Path::new(&path).is_file() {
                Ok(vec![Database::file(path)])
            } else {
                Err(format!("database file {path} not found"))
            };
        }
        let escaped_id = glob::Pattern::escape(db_id);
        let pattern = self.pattern.replace("{db_id}", &escaped_id);
        let mut found: Vec<Database> = glob::glob(&pattern)
            .map_err(|e| format!("bad database pattern {pattern}: {e}"))?
            .filter_map(Result::ok)
            .filter(|p| p.is_file())
            .map(Database::file)
            .collect();
        found.sort();
        if found.is_empty() {
            Err(format!("no database matches {path}"))
        } else {
            Ok(found)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subset_keeps_its_items_and_their_indexes() {
        let items: Vec<Item> = ["a", "b", "a", "c"]
            .iter()
            .enumerate()
            .map(|(i, db)| Item::new(i, *db, format!("SELECT {i}"), "t"))
            .collect();
        let inputs = |subset: &[&str]| Inputs {
            name: "d".into(),
            gold: PathBuf::from("gold.json"),
            gold_column: None,
            subset: subset.iter().map(|s| s.to_string()).collect(),
            predictions: Vec::new(),
        };
        let all = subset(items.clone(), &inputs(&[])).unwrap();
        assert_eq!(all.len(), 4);
        let a = subset(items.clone(), &inputs(&["a"])).unwrap();
        assert_eq!(a.iter().map(|i| i.index).collect::<Vec<_>>(), vec![0, 2]);
        let ac = subset(items.clone(), &inputs(&["c", "a"])).unwrap();
        assert_eq!(
            ac.iter().map(|i| i.index).collect::<Vec<_>>(),
            vec![0, 2, 3]
        );
        let e = subset(items, &inputs(&["x"])).unwrap_err().to_string();
        assert_eq!(
            e,
            "gold.json: subset \"x\": no item has that db_id (they are: a, b, c)"
        );
    }

    #[test]
    fn single_and_suite_patterns() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("a")).unwrap();
        for f in ["a/a.sqlite", "a/a_1.sqlite", "a/a_2.sqlite", "a/notes.txt"] {
            std::fs::write(d.join(f), b"").unwrap();
        }
        let single =
            DatabaseLocator::new(&format!("{}/{{db_id}}/{{db_id}}.sqlite", d.display())).unwrap();
        assert!(!single.is_suite());
        assert_eq!(single.resolve("a").unwrap().len(), 1);
        assert!(single.resolve("b").unwrap_err().contains("not found"));
        assert!(single.resolve("../a").is_err());

        let suite = DatabaseLocator::new(&format!("{}/{{db_id}}/*.sqlite", d.display())).unwrap();
        assert!(suite.is_suite());
        let dbs = suite.resolve("a").unwrap();
        assert_eq!(dbs.len(), 3);
        assert!(dbs.windows(2).all(|w| w[0] < w[1]));
        assert!(suite
            .resolve("b")
            .unwrap_err()
            .contains("no database matches"));
    }

    #[test]
    fn a_suite_copied_to_a_server_is_named_per_file_with_its_exclusions() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("a");
        std::fs::create_dir_all(&d).unwrap();
        for f in ["a_1.sqlite", "a_2.sqlite", "a_3.sqlite"] {
            std::fs::write(d.join(f), b"").unwrap();
        }
        std::fs::write(d.join(SUITE_EXCLUSIONS), r#"{"SELECT 1": ["a_2.sqlite"]}"#).unwrap();
        let files = format!("{}/{{db_id}}/*.sqlite", dir.path().display());
        let locator = DatabaseLocator::copies(&files, "x_{file}").unwrap();
        let names = |dbs: Vec<Database>| -> Vec<String> { dbs.iter().map(|x| x.label()).collect() };
        assert_eq!(
            names(locator.resolve("a").unwrap()),
            ["x_a_1", "x_a_2", "x_a_3"]
        );
        assert!(locator
            .resolve("a")
            .unwrap()
            .iter()
            .all(|d| matches!(d, Database::Named(_))));
        assert_eq!(
            names(locator.resolve_for("a", "SELECT 1").unwrap()),
            ["x_a_1", "x_a_3"]
        );
        assert_eq!(locator.resolve_for("a", "SELECT 2").unwrap().len(), 3);
        assert!(locator
            .resolve("b")
            .unwrap_err()
            .contains("no database matches"));
    }

    #[test]
    fn a_suite_leaves_out_what_its_exclusions_name_for_a_gold() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("a");
        std::fs::create_dir_all(&d).unwrap();
        for f in ["a_0.sqlite", "a_1.sqlite", "a_2.sqlite"] {
            std::fs::write(d.join(f), b"").unwrap();
        }
        let suite =
            DatabaseLocator::new(&format!("{}/{{db_id}}/*.sqlite", dir.path().display())).unwrap();
        let names = |dbs: Vec<Database>| -> Vec<String> { dbs.iter().map(|x| x.label()).collect() };
        // No file: every database for every gold.
        assert_eq!(suite.resolve_for("a", "SELECT 1").unwrap().len(), 3);
        std::fs::write(
            d.join(SUITE_EXCLUSIONS),
            r#"{"SELECT 1": ["a_1.sqlite"], "SELECT 2": ["a_0.sqlite", "a_1.sqlite", "a_2.sqlite"]}"#,
        )
        .unwrap();
        assert_eq!(
            names(suite.resolve_for("a", "SELECT 1").unwrap()),
            ["a_0.sqlite", "a_2.sqlite"]
        );
        assert_eq!(suite.resolve_for("a", "SELECT 3").unwrap().len(), 3);
        // A file that would leave a gold nothing leaves it everything.
        assert_eq!(suite.resolve_for("a", "SELECT 2").unwrap().len(), 3);
        // A single database is no suite: no exclusions apply.
        let single =
            DatabaseLocator::new(&format!("{}/{{db_id}}/a_1.sqlite", dir.path().display()))
                .unwrap();
        assert_eq!(single.resolve_for("a", "SELECT 1").unwrap().len(), 1);
        // A broken file is an error that names it.
        std::fs::write(d.join(SUITE_EXCLUSIONS), "{not json").unwrap();
        let e = suite.resolve_for("a", "SELECT 1").unwrap_err();
        assert!(e.contains(SUITE_EXCLUSIONS), "{e}");
    }
}
