#![deny(missing_docs)]
//! SpiderCompose: a Spider-format dataset turned into one whose test pairs combine SQL clauses
//! in ways training does not show (`spec/compose.md`).
//!
//! The pipeline, one file per step: [`clauses`] splits each query at its top-level clause
//! keywords; [`tagging`] tags the question's words with the clauses they speak of; [`splice`]
//! cuts each clause's question fragment out of the tags; [`recombine`] forms every valid
//! sub-query of the same source query with the union of its fragments; [`execute`] keeps the
//! composed SQL that runs on its database; [`split`] assigns train and test; [`summary`]
//! describes the result.

pub mod clauses;
pub mod execute;
pub mod quality;
pub mod recombine;
pub mod splice;
pub mod split;
pub mod summary;
pub mod tagging;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use clauses::{Clause, ClauseKind};
use tagging::{Normalizer, Rules, TagSet};

/// Why a composition could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ComposeError {
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A JSON file is malformed or lacks a field (the message names line and column).
    #[error("{}: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The underlying error, with its line and column.
        source: serde_json::Error,
    },
    /// A query could not be tokenized or does not start with SELECT.
    #[error("cannot split {sql:?} into clauses: {message}")]
    Sql {
        /// The query.
        sql: String,
        /// What is wrong.
        message: String,
    },
}

/// One source pair of the input (a Spider-format item).
#[derive(Clone, Debug, Deserialize)]
pub struct SourcePair {
    /// The database.
    pub db_id: String,
    /// The gold SQL.
    pub query: String,
    /// The question.
    pub question: String,
    /// The question's words (Spider's tokenization); split from `question` when absent.
    #[serde(default)]
    pub question_toks: Option<Vec<String>>,
}

impl SourcePair {
    /// The question's words.
    pub fn words(&self) -> Vec<String> {
        match &self.question_toks {
            Some(t) if !t.is_empty() => t.clone(),
            _ => split_question(&self.question),
        }
    }
}

/// Splits a question into words and single punctuation marks.
pub fn split_question(question: &str) -> Vec<String> {
    let mut words = Vec::new();
    for piece in question.split_whitespace() {
        let mut cur = String::new();
        for c in piece.chars() {
            if c.is_alphanumeric() || c == '\'' || c == '-' || c == '.' && !cur.is_empty() {
                cur.push(c);
            } else {
                if !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
                words.push(c.to_string());
            }
        }
        if let Some(stripped) = cur.strip_suffix('.') {
            words.push(stripped.to_owned());
            words.push(".".to_owned());
        } else if !cur.is_empty() {
            words.push(cur);
        }
    }
    words.retain(|w| !w.is_empty());
    words
}

/// A database's table and column names: as in SQL (lower case) and in natural language.
#[derive(Clone, Debug, Default)]
pub struct NaturalNames {
    names: BTreeMap<String, BTreeSet<String>>,
}

impl NaturalNames {
    /// The natural-language names of a table or column named `ident` in SQL.
    pub fn natural_names(&self, ident: &str) -> impl Iterator<Item = &str> {
        self.names
            .get(&ident.to_lowercase())
            .into_iter()
            .flatten()
            .map(String::as_str)
    }
}

#[derive(Deserialize)]
struct TablesEntry {
    db_id: String,
    table_names: Vec<String>,
    table_names_original: Vec<String>,
    column_names: Vec<(i64, String)>,
    column_names_original: Vec<(i64, String)>,
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, ComposeError> {
    let text = std::fs::read_to_string(path).map_err(|source| ComposeError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| ComposeError::Json {
        path: path.to_path_buf(),
        source,
    })
}

/// Reads a Spider-format JSON array of pairs.
pub fn read_sources(path: &Path) -> Result<Vec<SourcePair>, ComposeError> {
    read_json(path)
}

/// Reads Spider's `tables.json`: each database's names.
pub fn read_schemas(path: &Path) -> Result<BTreeMap<String, NaturalNames>, ComposeError> {
    let entries: Vec<TablesEntry> = read_json(path)?;
    let mut out = BTreeMap::new();
    for e in entries {
        let mut schema = NaturalNames::default();
        let pairs = e.table_names_original.iter().zip(&e.table_names).chain(
            e.column_names_original
                .iter()
                .map(|c| &c.1)
                .zip(e.column_names.iter().map(|c| &c.1)),
        );
        for (original, natural) in pairs {
            schema
                .names
                .entry(original.to_lowercase())
                .or_default()
                .insert(natural.clone());
        }
        out.insert(e.db_id, schema);
    }
    Ok(out)
}

/// How the dataset is split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitMode {
    /// Fewer than three clauses: train; three or more: test.
    Clauses,
    /// By query template (literals anonymized), each template to one side by a seeded hash.
    Template,
}

/// Options of [`compose`].
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// The split.
    pub split: SplitMode,
    /// Seed of the template split's hash.
    pub seed: u64,
    /// The adjustment rules.
    pub rules: Rules,
    /// Time limit of each composed query.
    pub timeout: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            split: SplitMode::Clauses,
            seed: 0,
            rules: Rules::default(),
            timeout: Duration::from_secs(10),
        }
    }
}

/// One composed pair, as written to `compose.json` (field order is the file's).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Pair {
    /// The database.
    pub db_id: String,
    /// The composed SQL.
    pub query: String,
    /// The composed question.
    pub question: String,
    /// The kinds of its clauses, in order.
    pub clauses: Vec<&'static str>,
    /// How many clauses.
    pub clause_count: usize,
    /// Index of its source pair in the input.
    pub source_index: usize,
    /// `train` or `test`.
    pub split: &'static str,
}

/// A composed query that did not execute (not emitted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// Index of its source pair.
    pub source_index: usize,
    /// The database.
    pub db_id: String,
    /// The composed SQL.
    pub query: String,
    /// The database's error.
    pub error: String,
}

/// A source pair's alignment: its words, their tags, its clauses and their fragments.
#[derive(Clone, Debug)]
pub struct Alignment {
    /// Index of the source pair.
    pub source_index: usize,
    /// The question's words.
    pub words: Vec<String>,
    /// The tags of each word.
    pub tags: Vec<TagSet>,
    /// The query's clauses.
    pub clauses: Vec<Clause>,
    /// Each clause's fragment (word positions).
    pub fragments: Vec<Vec<usize>>,
}

/// Everything [`compose`] found.
#[derive(Clone, Debug, Default)]
pub struct Composed {
    /// The pairs emitted, in input order, then combination order.
    pub pairs: Vec<Pair>,
    /// Composed SQL that failed to execute.
    pub failures: Vec<Failure>,
    /// SourcePair pairs not used, with why.
    pub skipped: Vec<(usize, String)>,
    /// Combinations whose composed question was empty (not emitted).
    pub empty_questions: usize,
    /// Combinations equal (db, SQL, question) to one emitted before (not emitted again).
    pub duplicates: usize,
    /// Combinations whose question is that of another combination of the same source pair
    /// with more clauses (the text cannot tell their SQL apart): not emitted, only the one
    /// with the most clauses is.
    pub ambiguous_questions: usize,
    /// Alignments of the source pairs that were split.
    pub alignments: Vec<Alignment>,
    /// Alignment quality with the default rules and with each rule switched.
    pub ablation: Vec<quality::Variant>,
    /// The template split's test share (the clause split's), where used.
    pub template_test_share: Option<f64>,
}

/// Aligns one source pair.
pub fn align(
    source_index: usize,
    source: &SourcePair,
    schema: Option<&NaturalNames>,
    norm: &Normalizer,
    rules: Rules,
) -> Result<Alignment, ComposeError> {
    let clauses = clauses::split_clauses(&source.query)?;
    let words = source.words();
    let tags = tagging::tag(&words, &clauses, schema, norm, rules);
    let fragments = clauses
        .iter()
        .map(|c| splice::fragment(&tags, c.kind.bit()))
        .collect();
    Ok(Alignment {
        source_index,
        words,
        tags,
        clauses,
        fragments,
    })
}

/// Builds the composed dataset: aligns every source pair, recombines, executes each composed
/// query on `databases/<db_id>/<db_id>.sqlite`, and splits. `progress` is called once per
/// source pair executed.
pub fn compose(
    sources: &[SourcePair],
    schemas: &BTreeMap<String, NaturalNames>,
    databases: &Path,
    options: Options,
    progress: &(dyn Fn() + Sync),
) -> Composed {
    let norm = Normalizer::default();
    let mut out = Composed::default();
    let mut used: Vec<(usize, &SourcePair)> = Vec::new();
    for (i, source) in sources.iter().enumerate() {
        let db = &source.db_id;
        let path = databases.join(db).join(format!("{db}.sqlite"));
        if !path.is_file() {
            out.skipped
                .push((i, format!("database missing: {}", path.display())));
            continue;
        }
        match align(i, source, schemas.get(db), &norm, options.rules) {
            Ok(a) => {
                out.alignments.push(a);
                used.push((i, source));
            }
            Err(e) => out.skipped.push((i, e.to_string())),
        }
    }
    out.ablation = quality::ablation(&used, schemas, &norm, options.rules);

    let mut candidates: Vec<(usize, recombine::Combination, String)> = Vec::new();
    for a in &out.alignments {
        for combo in recombine::combinations(&a.clauses, &a.fragments) {
            let question = if combo.whole {
                sources[a.source_index].question.trim().to_owned()
            } else {
                recombine::render(&a.words, &combo.positions)
            };
            candidates.push((a.source_index, combo, question));
        }
    }
    let jobs: Vec<(String, String)> = candidates
        .iter()
        .map(|(i, c, _)| (sources[*i].db_id.clone(), c.sql.clone()))
        .collect();
    let results = execute::run_all(&jobs, databases, options.timeout, progress);

    // Per (source, question): the most clauses a combination with that question has. Two
    // combinations with one text but different SQL would teach a model that the text describes
    // either; the text describes the larger one (it holds the other clauses' words).
    let mut most: BTreeMap<(usize, &str), usize> = BTreeMap::new();
    for ((i, combo, question), result) in candidates.iter().zip(&results) {
        if result.is_ok() && !question.is_empty() {
            let m = most.entry((*i, question.as_str())).or_default();
            *m = (*m).max(combo.chosen.len());
        }
    }
    let most: BTreeMap<(usize, String), usize> = most
        .into_iter()
        .map(|((i, q), n)| ((i, q.to_owned()), n))
        .collect();
    let mut kept: BTreeSet<(usize, String)> = BTreeSet::new();
    let mut seen: BTreeSet<(String, String, String)> = BTreeSet::new();
    for ((source_index, combo, question), result) in candidates.into_iter().zip(results) {
        let db_id = sources[source_index].db_id.clone();
        if let Err(error) = result {
            out.failures.push(Failure {
                source_index,
                db_id,
                query: combo.sql,
                error,
            });
            continue;
        }
        if question.is_empty() {
            out.empty_questions += 1;
            continue;
        }
        if !seen.insert((db_id.clone(), combo.sql.clone(), question.clone())) {
            out.duplicates += 1;
            continue;
        }
        let key = (source_index, question.clone());
        if most.get(&key) != Some(&combo.chosen.len()) || !kept.insert(key) {
            out.ambiguous_questions += 1;
            continue;
        }
        let a = out
            .alignments
            .binary_search_by_key(&source_index, |a| a.source_index)
            .ok()
            .map(|k| &out.alignments[k]);
        let kinds: Vec<&'static str> = a
            .map(|a| {
                combo
                    .chosen
                    .iter()
                    .map(|&c| a.clauses[c].kind.name())
                    .collect()
            })
            .unwrap_or_default();
        out.pairs.push(Pair {
            db_id,
            query: combo.sql,
            question,
            clause_count: kinds.len(),
            clauses: kinds,
            source_index,
            split: "train",
        });
    }
    out.template_test_share = split::assign(&mut out.pairs, options.split, options.seed);
    out
}

/// Writes `dir/compose.json` and `dir/report.md`.
pub fn write(dir: &Path, composition: &Composed, input: &Path) -> Result<(), ComposeError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ComposeError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let json_path = dir.join("compose.json");
    let mut json =
        serde_json::to_string_pretty(&composition.pairs).map_err(|source| ComposeError::Json {
            path: json_path.clone(),
            source,
        })?;
    json.push('\n');
    std::fs::write(&json_path, json).map_err(io(&json_path))?;
    let report_path = dir.join("report.md");
    std::fs::write(&report_path, summary::render(composition, input)).map_err(io(&report_path))?;
    Ok(())
}

/// The kind of a clause-kind name in `compose.json`.
pub fn kind_named(name: &str) -> Option<ClauseKind> {
    ClauseKind::ALL.into_iter().find(|k| k.name() == name)
}
