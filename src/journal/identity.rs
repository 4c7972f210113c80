//! What a journal's first line says of the evaluation that wrote it, so that `--resume` keeps
//! verdicts only from the same evaluation: the sqlsuite version and the SHA-256 of the
//! executable (another build may judge otherwise), the manifest's file name and SHA-256, the
//! prediction sets chosen (`--predictions`), and the provenance of each chosen set (versions,
//! the gold, tables, prediction and database files' hashes, each metric's options; one set's
//! in full, the others' only where they differ from it). `--format` and `--jobs` are not part
//! of it: verdicts do not depend on them.

use std::path::Path;

use serde_json::{json, Map, Value};
use sqlsuite::provenance::file_sha256;
use sqlsuite::Evaluation;

/// The identity of evaluating `sets` of `eval`, opened from `manifest`.
pub fn of(eval: &Evaluation, manifest: &Path, sets: &[usize]) -> anyhow::Result<Value> {
    let build = std::env::current_exe()
        .and_then(|exe| file_sha256(&exe))
        .map_err(|e| anyhow::anyhow!("cannot hash the sqlsuite executable: {e}"))?;
    let manifest_sha = file_sha256(manifest)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", manifest.display()))?;
    let provenance: Vec<Value> = sets
        .iter()
        .map(|&s| serde_json::to_value(eval.provenance().of_set(s)).unwrap_or(Value::Null))
        .map(without_start_time)
        .collect();
    let first = provenance.first().cloned().unwrap_or(Value::Null);
    let differing = |p: &Value| -> Map<String, Value> {
        match (p, &first) {
            (Value::Object(p), Value::Object(f)) => p
                .iter()
                .filter(|(k, v)| f.get(*k) != Some(*v))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            _ => Map::new(),
        }
    };
    let per_set: Map<String, Value> = sets
        .iter()
        .zip(&provenance)
        .map(|(&s, p)| {
            (
                eval.dataset.predictions[s].name.clone(),
                Value::Object(differing(p)),
            )
        })
        .collect();
    Ok(json!({
        "sqlsuite": env!("CARGO_PKG_VERSION"),
        "build": build,
        "manifest": {
            "file": manifest.file_name().map(|n| n.to_string_lossy().into_owned()),
            "sha256": manifest_sha,
        },
        "predictions": sets.iter().map(|&s| &eval.dataset.predictions[s].name).collect::<Vec<_>>(),
        "provenance": first,
        "sets": per_set,
    }))
}

/// A provenance whose clock is the machine's names it `system`, without the time the run began:
/// a resumed run begins at another time and is still the same evaluation (a pinned clock is
/// kept whole: another moment is another evaluation).
fn without_start_time(mut provenance: Value) -> Value {
    if let Some(clock) = provenance.get_mut("clock") {
        if clock.as_str().is_some_and(|c| c.starts_with("system")) {
            *clock = Value::String("system".into());
        }
    }
    provenance
}

/// At most this many differences are named.
const SHOWN: usize = 8;

/// Where `journal` and `now` differ, one `path: value in the journal, value now` line each.
pub fn differences(journal: &Value, now: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk("", journal, now, &mut out);
    if out.len() > SHOWN {
        let more = out.len() - SHOWN;
        out.truncate(SHOWN);
        out.push(format!("… and {more} more"));
    }
    out
}

fn walk(path: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    let join = |key: &str| {
        if path.is_empty() {
            key.to_owned()
        } else {
            format!("{path}.{key}")
        }
    };
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            for key in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
                let (x, y) = (a.get(key), b.get(key));
                let (x, y) = (x.unwrap_or(&Value::Null), y.unwrap_or(&Value::Null));
                walk(&join(key), x, y, out);
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                walk(&join(&i.to_string()), x, y, out);
            }
        }
        _ if a != b => out.push(format!("{path}: {a} in the journal, {b} now")),
        _ => {}
    }
}
