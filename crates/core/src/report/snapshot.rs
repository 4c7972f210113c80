//! Snapshot reports: per prediction set, the summary and one line per item, kept with insta in
//! the manifest's snapshot directory, so a new model version shows up as a diff of exactly the
//! items that flipped. The accepted snapshot is also read back, for the regression gate.
//!
//! Item lines look like `0007 concert_singer exec=correct` or `0012 flight_2 exec=row_count`:
//! the metric's reason code, `correct` (or a kind of correct, `correct_subset`), `gold_error`,
//! or the skip code.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::summary::Summary;
use crate::manifest::Manifest;
use crate::metric::{is_correct_code, Status, SKIP_CODES};
use crate::run::{ItemResult, Run, SetRun};

/// The snapshot's name for a prediction set: `<dataset>__<set>`.
pub fn name(manifest: &Manifest, set: &str) -> String {
    format!("{}__{set}", manifest.name)
}

/// The accepted snapshot file of the manifest's prediction set `set`.
pub fn path(manifest: &Manifest, set: &str) -> PathBuf {
    manifest
        .snapshots
        .join(format!("{}.snap", name(manifest, set)))
}

/// The snapshot text of a prediction set.
pub fn render(run: &Run, set: &SetRun) -> String {
    let mut out = format!(
        "dataset: {}\npredictions: {}\n\n{}",
        run.dataset,
        set.name,
        run.provenance_of(set).render_for_snapshot()
    );
    out.push('\n');
    out.push_str(&super::gold_checks::line(&run.gold_checks));
    out.push('\n');
    for metric in &run.metrics {
        out.push('\n');
        out.push_str(&Summary::of(run, set, metric).render());
    }
    if let Some(table) = super::spider_table::table(run, set) {
        out.push_str("\nofficial table (as evaluation.py prints it):\n");
        out.push_str(&table);
    }
    out.push_str("\nitems:\n");
    let width = run.index_width();
    for (i, (item, result)) in run.items.iter().zip(&set.results).enumerate() {
        out.push_str(&format!("{i:0width$} {} {}\n", item.db_id, result.codes()));
    }
    out
}

/// Per item, per metric: the code recorded in an accepted snapshot.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Accepted {
    /// Item position → metric → code.
    pub codes: BTreeMap<usize, BTreeMap<String, String>>,
}

impl Accepted {
    /// Reads the accepted snapshot; `None` if there is none.
    pub fn read(path: &Path) -> Option<Accepted> {
        let text = std::fs::read_to_string(path).ok()?;
        Some(Accepted::parse(&text))
    }

    /// Parses snapshot text (insta's header, if present, is skipped).
    pub fn parse(text: &str) -> Accepted {
        let mut codes = BTreeMap::new();
        let Some(start) = text.find("\nitems:\n") else {
            return Accepted { codes };
        };
        for line in text[start + "\nitems:\n".len()..].lines() {
            let mut parts = line.split_whitespace();
            let (Some(index), Some(_db)) = (parts.next(), parts.next()) else {
                continue;
            };
            let Ok(index) = index.parse::<usize>() else {
                continue;
            };
            let per_metric = parts
                .filter_map(|kv| kv.split_once('='))
                .map(|(m, c)| (m.to_owned(), c.to_owned()))
                .collect();
            codes.insert(index, per_metric);
        }
        Accepted { codes }
    }

    /// The code the accepted snapshot records for an item under a metric.
    pub fn code(&self, index: usize, metric: &str) -> Option<&str> {
        self.codes.get(&index)?.get(metric).map(String::as_str)
    }

    /// The metrics under which the item was correct in the accepted snapshot and is not now
    /// (a metric the snapshot does not have cannot regress).
    pub fn regressions(&self, index: usize, result: &ItemResult) -> Vec<&'static str> {
        result
            .verdicts
            .iter()
            .filter(|(m, v)| {
                v.status != Status::Correct && self.code(index, m).is_some_and(is_correct_code)
            })
            .map(|(m, _)| *m)
            .collect()
    }

    /// Whether the accepted snapshot holds the item as a known failure: it records the item,
    /// under no metric as correct, and under some metric as incorrect or a gold error (not only
    /// skipped). Such an item cannot regress, whatever it predicts now, so a runner may leave
    /// it out ([`crate::trials`] lists it as ignored).
    pub fn is_known_failure(&self, index: usize) -> bool {
        self.codes.get(&index).is_some_and(|per_metric| {
            per_metric.values().all(|c| !is_correct_code(c))
                && per_metric
                    .values()
                    .any(|c| !SKIP_CODES.contains(&c.as_str()))
        })
    }

    /// The metrics under which the item is correct now and was judged not correct before.
    pub fn fixes(&self, index: usize, result: &ItemResult) -> Vec<&'static str> {
        result
            .verdicts
            .iter()
            .filter(|(m, v)| {
                v.status == Status::Correct
                    && self
                        .code(index, m)
                        .is_some_and(|c| !is_correct_code(c) && !SKIP_CODES.contains(&c))
            })
            .map(|(m, _)| *m)
            .collect()
    }
}

/// How the current results compare with the accepted snapshot.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Flips {
    /// Items correct under some metric in the accepted snapshot and not now.
    pub regressed: Vec<usize>,
    /// Items (not regressed) correct now under some metric that judged them not correct before.
    pub fixed: Vec<usize>,
    /// The other items that are not correct now (skipped items are not counted).
    pub known_failures: usize,
}

/// Compares a set's results with the accepted snapshot, metric by metric.
pub fn flips(set: &SetRun, accepted: &Accepted) -> Flips {
    let mut f = Flips::default();
    for (i, result) in set.results.iter().enumerate() {
        if !accepted.regressions(i, result).is_empty() {
            f.regressed.push(i);
        } else if !accepted.fixes(i, result).is_empty() {
            f.fixed.push(i);
        } else if matches!(result.status(), Status::Incorrect | Status::GoldError) {
            f.known_failures += 1;
        }
    }
    f
}

/// Checks `content` against the accepted snapshot of the manifest's set `set` through insta (so
/// `INSTA_UPDATE` and `cargo insta review` work as usual). Returns insta's complaint if it
/// rejects the content.
pub fn assert_with_insta(manifest: &Manifest, set: &str, content: &str) -> Result<(), String> {
    assert_named(
        &manifest.snapshots,
        &name(manifest, set),
        &manifest.path,
        content,
    )
}

/// Checks `content` against the snapshot `snapshot_name` in `dir` (a report of a dataset that is
/// not one prediction set's, e.g. a gold parse report); `input_file` is recorded in its header.
pub fn assert_named(
    dir: &Path,
    snapshot_name: &str,
    input_file: &Path,
    content: &str,
) -> Result<(), String> {
    quiet_insta_output();
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(absolute(dir));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_input_file(input_file);
    quiet_panics::install();
    let outcome = quiet_panics::catch(|| {
        settings.bind(|| {
            insta::assert_snapshot!(snapshot_name, content);
        })
    });
    outcome.map_err(|payload| {
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_else(|| "snapshot assertion failed".to_owned())
    })
}

/// insta prints each mismatch as a diff of the whole snapshot with its own lines ("Source:" the
/// assertion in this file); the trial's message says what changed instead, flipped items first
/// ([`super::snapshot_change`]). So insta's output is `minimal` (the new snapshot's path and how
/// to review it) unless the user chose another with `INSTA_OUTPUT`. Set once, before insta
/// reads its settings (on its first assertion in the process).
fn quiet_insta_output() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if std::env::var_os("INSTA_OUTPUT").is_none() {
            std::env::set_var("INSTA_OUTPUT", "minimal");
        }
    });
}

/// insta reports a mismatch by panicking after printing its diff; the trial turns that panic
/// into a failure message, so the panic hook's own report (and backtrace) is noise. This hook
/// stays silent for panics raised inside [`catch`] on the same thread and defers to the previous
/// hook for every other panic.
mod quiet_panics {
    use std::cell::Cell;
    use std::sync::Once;

    thread_local! {
        static QUIET: Cell<bool> = const { Cell::new(false) };
    }

    pub fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                if !QUIET.with(Cell::get) {
                    previous(info);
                }
            }));
        });
    }

    pub fn catch<T>(f: impl FnOnce() -> T) -> std::thread::Result<T> {
        QUIET.with(|q| q.set(true));
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        QUIET.with(|q| q.set(false));
        out
    }
}

fn absolute(p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(p))
            .unwrap_or_else(|_| p.to_path_buf())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_failures_are_items_recorded_only_as_not_correct() {
        let text = "items:\n00 a exec=correct em=select\n01 b exec=row_count em=select\n\
                    02 c exec=missing_database\n03 d exec=gold_error\n";
        let a = Accepted::parse(&format!("x\n{text}"));
        // Correct under one metric: it can regress.
        assert!(!a.is_known_failure(0));
        assert!(a.is_known_failure(1));
        // Only skipped: not a failure.
        assert!(!a.is_known_failure(2));
        assert!(a.is_known_failure(3));
        // Not recorded: nothing is known.
        assert!(!a.is_known_failure(4));
    }

    #[test]
    fn accepted_snapshots_parse_back() {
        let text = "---\nsource: x\n---\ndataset: d\n\nitems:\n00 a exec=correct\n01 b exec=row_count\n02 c exec=missing_database\n";
        let a = Accepted::parse(text);
        assert_eq!(a.code(0, "exec"), Some("correct"));
        assert_eq!(a.code(1, "exec"), Some("row_count"));
        assert_eq!(a.code(2, "exec"), Some("missing_database"));
        assert_eq!(a.code(3, "exec"), None);
        assert_eq!(a.code(0, "exact_match"), None);
        assert_eq!(a.codes[&1]["exec"], "row_count");
    }
}
