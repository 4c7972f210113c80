//! `sqlsuite eval --journal FILE`: every verdict written the moment it is known, one JSON object
//! per line, so a run that dies keeps what it judged, names what was running, and can be
//! resumed (`--resume`: [`resume`]).
//!
//! The first line is the evaluation's identity ([`identity`]):
//! `{"event":"evaluation","journal":1,"identity":{"sqlsuite":"0.1.0","build":"…",…}}`; then
//! `{"event":"started","predictions":"dev_1","item":3,"index":3}` as a prediction starts, and
//! `{"event":"finished","predictions":"dev_1","item":3,"index":3,"db_id":"…","elapsed_ms":1.25,
//!   "verdicts":[{"metric":"exec","verdict":"incorrect","reason":"timeout","message":"…",…}]}`
//! with every field of every verdict ([`record`]; `steps` as in `--format jsonl`, null where
//! none are counted) as it finishes. A resumed run appends
//! `{"event":"resumed","kept":1234,"ignored_lines":1}` and its own lines.
//! `item` is the position in the dataset, `index` the dataset's own index; `elapsed_ms` is the
//! wall time of all the item's metrics (zero for a result known before the run), so unlike the
//! `--format jsonl` output a journal depends on the machine.

pub mod identity;
mod record;
pub mod resume;

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::json;
use sqlsuite::evaluation::Watch;
use sqlsuite::{Evaluation, ItemResult};

/// The version of the journal's format, in its first line.
const FORMAT: u32 = 1;

/// Writes the journal; each line reaches the file (one `write`) before the next starts.
pub struct Journal<'a> {
    eval: &'a Evaluation,
    file: Mutex<File>,
}

impl<'a> Journal<'a> {
    /// A new journal at `path` (replacing any file there), its first line `identity`.
    pub fn create(
        path: &Path,
        eval: &'a Evaluation,
        identity: &serde_json::Value,
    ) -> anyhow::Result<Journal<'a>> {
        let file = File::create(path)
            .map_err(|e| anyhow::anyhow!("cannot write the journal {}: {e}", path.display()))?;
        let journal = Journal {
            eval,
            file: Mutex::new(file),
        };
        journal.write(json!({"event": "evaluation", "journal": FORMAT, "identity": identity}));
        Ok(journal)
    }

    /// The journal at `path` continued after what `earlier` read of it: a torn last line cut
    /// off, a `resumed` line appended.
    pub fn resume(
        path: &Path,
        eval: &'a Evaluation,
        earlier: &resume::Earlier,
    ) -> anyhow::Result<Journal<'a>> {
        let cannot = |e: std::io::Error| {
            anyhow::anyhow!("cannot append to the journal {}: {e}", path.display())
        };
        let file = OpenOptions::new().append(true).open(path).map_err(cannot)?;
        file.set_len(earlier.complete_bytes).map_err(cannot)?;
        let journal = Journal {
            eval,
            file: Mutex::new(file),
        };
        journal.write(json!({
            "event": "resumed",
            "kept": earlier.results.len(),
            "ignored_lines": earlier.ignored_lines(),
        }));
        Ok(journal)
    }

    fn write(&self, line: serde_json::Value) {
        let mut text = line.to_string();
        text.push('\n');
        // A journal that cannot be written loses only itself: the run's output is unaffected.
        if let Ok(mut file) = self.file.lock() {
            let _ = file.write_all(text.as_bytes());
        }
    }
}

impl Watch for Journal<'_> {
    fn started(&self, set: usize, item: usize) {
        self.write(json!({
            "event": "started",
            "predictions": self.eval.dataset.predictions[set].name,
            "item": item,
            "index": self.eval.items()[item].index,
        }));
    }

    fn finished(&self, set: usize, item: usize, result: &ItemResult, elapsed: Duration) {
        self.write(json!({
            "event": "finished",
            "predictions": self.eval.dataset.predictions[set].name,
            "item": item,
            "index": self.eval.items()[item].index,
            "db_id": self.eval.items()[item].db_id,
            "elapsed_ms": elapsed.as_secs_f64() * 1e3,
            "verdicts": record::encode(result),
        }));
    }
}

/// The (prediction set name, item position) pairs a journal shows started and not finished:
/// what was running when the process writing it died. A torn last line is ignored; no journal
/// (the process died before writing one) shows nothing running.
pub fn in_flight(path: &Path) -> anyhow::Result<Vec<(String, usize)>> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => anyhow::bail!("cannot read the journal {}: {e}", path.display()),
    };
    let mut running = BTreeSet::new();
    for line in BufReader::new(file).lines() {
        let Ok(line) = line else { break };
        let Ok(value) = serde_json::from_str::<serde_json::Value>(&line) else {
            continue;
        };
        let (Some(event), Some(set), Some(item)) = (
            value["event"].as_str(),
            value["predictions"].as_str(),
            value["item"].as_u64(),
        ) else {
            continue;
        };
        let key = (set.to_owned(), item as usize);
        match event {
            "started" => {
                running.insert(key);
            }
            "finished" => {
                running.remove(&key);
            }
            _ => {}
        }
    }
    Ok(running.into_iter().collect())
}
