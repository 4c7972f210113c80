//! `sqlsuite eval --journal FILE`: every verdict written the moment it is known, one JSON object
//! per line, so a run that dies keeps what it judged and names what was running.
//!
//! `{"event":"started","predictions":"dev_1","item":3,"index":3}` as a prediction starts, then
//! `{"event":"finished","predictions":"dev_1","item":3,"index":3,"db_id":"…","elapsed_ms":1.25,
//!   "verdicts":[{"metric":"exec","verdict":"incorrect","reason":"timeout","message":"…",
//!   "steps":null}]}` (`steps` as in `--format jsonl`, null where none are counted).
//! `item` is the position in the dataset, `index` the dataset's own index; `elapsed_ms` is the
//! wall time of all the item's metrics (zero for a result known before the run), so unlike the
//! `--format jsonl` output a journal depends on the machine.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

use serde_json::json;
use sqlsuite::evaluation::Watch;
use sqlsuite::{Evaluation, ItemResult};

/// Writes the journal; each line reaches the file (one `write`) before the next starts.
pub struct Journal<'a> {
    eval: &'a Evaluation,
    file: Mutex<File>,
}

impl<'a> Journal<'a> {
    pub fn create(path: &Path, eval: &'a Evaluation) -> anyhow::Result<Journal<'a>> {
        let file = File::create(path)
            .map_err(|e| anyhow::anyhow!("cannot write the journal {}: {e}", path.display()))?;
        Ok(Journal {
            eval,
            file: Mutex::new(file),
        })
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
        let verdicts: Vec<serde_json::Value> = result
            .verdicts
            .iter()
            .map(|(metric, v)| {
                json!({
                    "metric": metric,
                    "verdict": v.status,
                    "reason": v.code,
                    "message": v.reason,
                    "steps": v.steps,
                })
            })
            .collect();
        self.write(json!({
            "event": "finished",
            "predictions": self.eval.dataset.predictions[set].name,
            "item": item,
            "index": self.eval.items()[item].index,
            "db_id": self.eval.items()[item].db_id,
            "elapsed_ms": elapsed.as_secs_f64() * 1e3,
            "verdicts": verdicts,
        }));
    }
}

/// The (prediction set name, item position) pairs a journal shows started and not finished:
/// what was running when the process writing it died. A torn last line is ignored.
pub fn in_flight(path: &Path) -> anyhow::Result<Vec<(String, usize)>> {
    let file = File::open(path)
        .map_err(|e| anyhow::anyhow!("cannot read the journal {}: {e}", path.display()))?;
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
            _ => {
                running.remove(&key);
            }
        }
    }
    Ok(running.into_iter().collect())
}
