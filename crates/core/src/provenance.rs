//! Provenance: what a run's verdicts depend on besides the code, fingerprinted so that two
//! reports can be told to come from the same inputs or not. Reports (snapshots, JSON lines,
//! JUnit) print it; [`Evaluation::provenance`](crate::Evaluation::provenance) computes it once
//! per run, so every file is hashed once however many reports read it.
//!
//! It holds: the sqlsuite and SQLite versions, the PostgreSQL server's version when that backend
//! runs the queries, the SHA-256 of the gold file, the tables file and each prediction file, a
//! digest of the database files the items use, and each metric's options as the manifest
//! writes them, and the clock queries read (`[dataset] clock`: `pinned <moment>`, or `system
//! <the machine's time when the evaluation began>`, each followed by ` (server: <its now()>)`
//! when a server runs the queries). It is deterministic when the clock is pinned and no server
//! runs the queries (a snapshot leaves the server's clock out): no time then, and never an
//! absolute path. A gold, tables or prediction
//! file is named by its file name (the same wherever the manifest that names it lies); a
//! database file by its path relative to the fixed directory of the `[databases]` pattern
//! (`concert_singer/concert_singer.sqlite`), which tells the databases of a suite apart. The database digest is the SHA-256 of the lines
//! `<name>\t<sha256 of the file>\n`, sorted by name. `spec/report.md` specifies it.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::backend::{Backend, Database, Databases, Naming};
use crate::clock::Moment;
use crate::dataset::Dataset;
use crate::manifest::Manifest;

/// One input file and its SHA-256 (lowercase hex), or why it could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileDigest {
    /// The file's name (a database file's: its path below the pattern's fixed directory).
    pub file: String,
    /// Its SHA-256, lowercase hex (or why it could not be read).
    pub sha256: String,
}

/// The databases the items run on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum DatabaseDigest {
    /// Database files: each file's digest (sorted by name) and the digest of that list.
    Files {
        /// The SHA-256 of the sorted `name\tsha256` lines.
        sha256: String,
        /// Each file's digest, sorted by name.
        files: Vec<FileDigest>,
    },
    /// Databases on a server, by name: their content is not hashed.
    Named {
        /// The databases' names.
        names: Vec<String>,
    },
}

/// A metric and its options as the manifest's `[metrics.<name>]` writes them (empty: its
/// defaults).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricOptions {
    /// The metric.
    pub metric: String,
    /// Its table as the manifest writes it.
    pub options: toml::Table,
}

/// The provenance of one evaluation; [`Provenance::of_set`] picks one prediction set's file.
#[derive(Debug, Clone, PartialEq)]
pub struct Provenance {
    /// The sqlsuite library's version.
    pub sqlsuite: &'static str,
    /// The bundled SQLite library's version.
    pub sqlite: &'static str,
    /// The database server's name and version (`postgres 15.8`), when a server runs the
    /// queries; `None` for files.
    pub server: Option<String>,
    /// The clock queries read: `pinned <moment>`, or `system <the time the run began>`; with a
    /// server, followed by ` (server: <its clock>)`, read when the provenance is computed (a
    /// pinned moment's date, checked when the backend opened).
    pub clock: String,
    /// The gold file.
    pub gold: FileDigest,
    /// The tables file, where there is one.
    pub tables: Option<FileDigest>,
    /// Per prediction set, in the manifest's order.
    pub predictions: Vec<FileDigest>,
    /// Per prediction set, its extraction rule (`[[predictions]] extract`), if any.
    pub extract: Vec<Option<String>>,
    /// `None` without `[databases]`.
    pub databases: Option<DatabaseDigest>,
    /// Each enabled metric's options.
    pub metrics: Vec<MetricOptions>,
}

/// One prediction set's provenance, as JSON lines and JUnit properties carry it.
#[derive(Debug, Clone, Serialize)]
pub struct SetProvenance<'a> {
    /// The sqlsuite version.
    pub sqlsuite: &'a str,
    /// The bundled SQLite's version.
    pub sqlite: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The database server, when one runs the queries.
    pub server: Option<&'a str>,
    /// The clock queries read ([`Provenance::clock`]).
    pub clock: &'a str,
    /// The gold file.
    pub gold: &'a FileDigest,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The tables file.
    pub tables: Option<&'a FileDigest>,
    /// This set's prediction file.
    pub predictions: &'a FileDigest,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// How the SQL was taken out of each answer (`[[predictions]] extract`).
    pub extract: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The databases.
    pub databases: Option<&'a DatabaseDigest>,
    /// Each enabled metric's options.
    pub metrics: &'a [MetricOptions],
}

impl Provenance {
    /// Computes the provenance of an evaluation's inputs: `metrics` are the enabled metrics'
    /// names, `backend` the one that runs the queries, `started` when the evaluation began (the
    /// machine's clock, recorded when the clock is not pinned).
    pub fn compute(
        manifest: &Manifest,
        dataset: &Dataset,
        databases: Option<&Databases>,
        backend: &dyn Backend,
        metrics: &[&str],
        started: Moment,
    ) -> Provenance {
        let digest = |path: &Path| FileDigest {
            file: file_name(path),
            sha256: file_sha256(path).unwrap_or_else(|e| format!("unreadable ({e})")),
        };
        let used: BTreeSet<&Database> = dataset
            .databases
            .iter()
            .filter_map(|dbs| dbs.as_ref().ok())
            .flatten()
            .collect();
        let database_digest = databases.map(|d| match &d.naming {
            Naming::Files(pattern) => {
                let root = fixed_dir(pattern);
                let mut files: Vec<FileDigest> = used
                    .iter()
                    .filter_map(|db| db.as_file())
                    .map(|path| FileDigest {
                        file: name_in(&root, path),
                        sha256: file_sha256(path).unwrap_or_else(|e| format!("unreadable ({e})")),
                    })
                    .collect();
                files.sort_by(|a, b| a.file.cmp(&b.file));
                DatabaseDigest::Files {
                    sha256: list_sha256(&files),
                    files,
                }
            }
            Naming::Names(_) | Naming::Suite { .. } => DatabaseDigest::Named {
                names: used.iter().map(|db| db.label()).collect(),
            },
        });
        let server = match databases.map(|d| &d.naming) {
            Some(Naming::Names(_) | Naming::Suite { .. }) => used.first().map(|db| {
                let version = backend
                    .server_version(db)
                    .unwrap_or_else(|e| format!("unknown ({e})"));
                format!("{} {version}", backend.name())
            }),
            _ => None,
        };
        // With a server, its clock as read (a pinned moment is checked against it at open).
        let server_now = || {
            used.first()
                .map(|db| {
                    backend
                        .server_clock(db)
                        .unwrap_or_else(|e| format!("unknown ({e})"))
                })
                .unwrap_or_default()
        };
        let clock = match server {
            Some(_) => format!(
                "{} (server: {})",
                manifest.clock.describe(started),
                server_now()
            ),
            None => manifest.clock.describe(started),
        };
        let metrics = metrics
            .iter()
            .map(|&metric| MetricOptions {
                metric: metric.to_owned(),
                options: manifest
                    .source()
                    .section(&["metrics", metric])
                    .ok()
                    .flatten()
                    .and_then(|s| s.read::<toml::Table>().ok())
                    .unwrap_or_default(),
            })
            .collect();
        Provenance {
            sqlsuite: env!("CARGO_PKG_VERSION"),
            sqlite: rusqlite::version(),
            server,
            clock,
            gold: digest(&manifest.gold),
            tables: manifest.tables.as_deref().map(digest),
            predictions: manifest
                .predictions
                .iter()
                .map(|p| digest(&p.file))
                .collect(),
            extract: manifest
                .predictions
                .iter()
                .map(|p| p.extract.map(|r| r.to_string()))
                .collect(),
            databases: database_digest,
            metrics,
        }
    }

    /// The provenance of prediction set `set`.
    pub fn of_set(&self, set: usize) -> SetProvenance<'_> {
        SetProvenance {
            sqlsuite: self.sqlsuite,
            sqlite: self.sqlite,
            server: self.server.as_deref(),
            clock: &self.clock,
            gold: &self.gold,
            tables: self.tables.as_ref(),
            predictions: &self.predictions[set],
            extract: self.extract.get(set).and_then(|e| e.as_deref()),
            databases: self.databases.as_ref(),
            metrics: &self.metrics,
        }
    }
}

impl SetProvenance<'_> {
    /// The snapshot's block: a `provenance:` line, then one indented line per input.
    ///
    /// ```text
    /// provenance:
    ///   sqlsuite 0.1.0, SQLite 3.46.0
    ///   clock: pinned 2024-05-01T12:00:00Z
    ///   gold: gold.sql sha256:…
    ///   predictions: v1.txt sha256:…
    ///   databases: 2 files sha256:…
    ///   metrics.exec: timeout_ms = 2000
    /// ```
    pub fn render(&self) -> String {
        self.render_clock(self.clock)
    }

    /// [`SetProvenance::render`] for a snapshot, which is compared with the accepted one:
    /// `clock: system` without the time the run began (the time is in the other reports).
    pub fn render_for_snapshot(&self) -> String {
        let clock = if self.clock.starts_with("system") {
            "system"
        } else {
            // Without the server's clock as read (pinned: a moment of the pinned date).
            self.clock.split(" (server: ").next().unwrap_or(self.clock)
        };
        self.render_clock(clock)
    }

    fn render_clock(&self, clock: &str) -> String {
        let mut out = String::from("provenance:\n");
        let _ = write!(out, "  sqlsuite {}, SQLite {}", self.sqlsuite, self.sqlite);
        if let Some(server) = self.server {
            let _ = write!(out, ", {server}");
        }
        out.push('\n');
        let _ = writeln!(out, "  clock: {clock}");
        let file = |out: &mut String, label: &str, f: &FileDigest| {
            let _ = writeln!(out, "  {label}: {} sha256:{}", f.file, f.sha256);
        };
        file(&mut out, "gold", self.gold);
        if let Some(t) = self.tables {
            file(&mut out, "tables", t);
        }
        file(&mut out, "predictions", self.predictions);
        if let Some(rule) = self.extract {
            let _ = writeln!(out, "  extract: {rule}");
        }
        match self.databases {
            Some(DatabaseDigest::Files { sha256, files }) => {
                let unit = if files.len() == 1 { "file" } else { "files" };
                let _ = writeln!(out, "  databases: {} {unit} sha256:{sha256}", files.len());
            }
            Some(DatabaseDigest::Named { names }) => {
                let _ = writeln!(
                    out,
                    "  databases: {} on the server (content not hashed): {}",
                    names.len(),
                    names.join(", ")
                );
            }
            None => {}
        }
        for m in self.metrics {
            let options: Vec<String> = m
                .options
                .iter()
                .map(|(key, value)| format!("{key} = {value}"))
                .collect();
            let options = if options.is_empty() {
                "(defaults)".to_owned()
            } else {
                options.join(", ")
            };
            let _ = writeln!(out, "  metrics.{}: {options}", m.metric);
        }
        out
    }
}

/// The SHA-256 of a file's bytes, lowercase hex; read in blocks.
pub fn file_sha256(path: &Path) -> std::io::Result<String> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 1 << 16];
    loop {
        let n = file.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

/// The digest of a list of file digests: SHA-256 over `<file>\t<sha256>\n` lines in list order.
fn list_sha256(files: &[FileDigest]) -> String {
    let mut hasher = Sha256::new();
    for f in files {
        hasher.update(f.file.as_bytes());
        hasher.update(b"\t");
        hasher.update(f.sha256.as_bytes());
        hasher.update(b"\n");
    }
    hex(&hasher.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

/// A file's name (the whole path if it has none).
fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// `path` relative to `dir` with `/` separators if it lies inside it, else its file name.
fn name_in(dir: &Path, path: &Path) -> String {
    let inside = match (std::path::absolute(dir), std::path::absolute(path)) {
        (Ok(d), Ok(p)) => crate::config::clean(&p)
            .strip_prefix(crate::config::clean(&d))
            .ok()
            .map(Path::to_path_buf),
        _ => None,
    };
    let name = inside
        .filter(|rel| !rel.as_os_str().is_empty())
        .or_else(|| path.file_name().map(PathBuf::from))
        .unwrap_or_else(|| path.to_path_buf());
    name.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// The directory a database path pattern fixes: everything before the first `{` or glob
/// character, up to its last separator (`db/{db_id}/{db_id}.sql` → `db`).
fn fixed_dir(pattern: &str) -> PathBuf {
    let fixed = pattern
        .find(['{', '*', '?', '['])
        .map_or(pattern, |at| &pattern[..at]);
    match fixed.rfind(['/', '\\']) {
        Some(at) => PathBuf::from(&fixed[..at.max(1)]),
        None => PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_relative_inside_the_directory_and_file_names_outside() {
        assert_eq!(file_name(Path::new("/a/b/dev_gold.sql")), "dev_gold.sql");
        let dir = Path::new("datasets/demo");
        assert_eq!(
            name_in(dir, Path::new("datasets/demo/predictions/v1.txt")),
            "predictions/v1.txt"
        );
        assert_eq!(
            name_in(dir, Path::new("../shared/data/spider/dev_gold.sql")),
            "dev_gold.sql"
        );
        assert_eq!(name_in(dir, Path::new("/elsewhere/x.sql")), "x.sql");
    }

    #[test]
    fn a_pattern_fixes_the_directory_before_its_first_placeholder() {
        assert_eq!(fixed_dir("db/{db_id}/{db_id}.sql"), Path::new("db"));
        assert_eq!(
            fixed_dir("/a/suites/{db_id}/*.sqlite"),
            Path::new("/a/suites")
        );
        assert_eq!(fixed_dir("/a/b/c_*.sqlite"), Path::new("/a/b"));
        assert_eq!(fixed_dir("{db_id}.sqlite"), Path::new("."));
        assert_eq!(fixed_dir("/{db_id}.sqlite"), Path::new("/"));
    }

    #[test]
    fn file_digests_are_sha256() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("abc.txt");
        std::fs::write(&path, "abc").unwrap();
        // FIPS 180-2's example.
        assert_eq!(
            file_sha256(&path).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(file_sha256(&dir.path().join("none")).is_err());
    }

    #[test]
    fn a_snapshot_leaves_out_the_time_and_the_servers_clock() {
        let file = FileDigest {
            file: "gold.sql".into(),
            sha256: "00".into(),
        };
        let clock_line = |clock: &str| {
            let set = SetProvenance {
                sqlsuite: "0",
                sqlite: "3",
                server: Some("postgres 15.18"),
                clock,
                gold: &file,
                tables: None,
                predictions: &file,
                extract: None,
                databases: None,
                metrics: &[],
            };
            let (full, snapshot) = (set.render(), set.render_for_snapshot());
            let line = |text: &str| text.lines().nth(2).unwrap_or_default().to_owned();
            (line(&full), line(&snapshot))
        };
        let pinned = "pinned 2026-11-21T12:00:00Z (server: 2026-11-21T12:03:13Z)";
        assert_eq!(
            clock_line(pinned),
            (
                format!("  clock: {pinned}"),
                "  clock: pinned 2026-11-21T12:00:00Z".to_owned()
            )
        );
        let system = "system 2026-11-29T20:00:00Z (server: 2026-11-29T20:00:01Z)";
        assert_eq!(
            clock_line(system),
            (format!("  clock: {system}"), "  clock: system".to_owned())
        );
    }
}
