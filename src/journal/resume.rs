//! Reading back the journal of an interrupted run (`sqlsuite eval --journal FILE --resume`):
//! the verdicts it holds, if it was written by the same evaluation ([`super::identity`]).
//!
//! A process killed while writing leaves at most its last line torn: bytes after the last
//! newline. They are ignored, said so, and cut off before the journal is appended to. Any other
//! line that cannot be read is an error naming its line number: the file was damaged some
//! other way, and guessing could give the resumed run verdicts no run gave.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;
use sqlsuite::{Evaluation, ItemResult};

use super::{identity, record};

/// What an earlier run's journal gives the run that resumes it.
pub struct Earlier {
    /// The verdicts it holds, by (set, item): `set` the position among the manifest's sets.
    pub results: BTreeMap<(usize, usize), ItemResult>,
    /// Pairs it shows started and never finished (judged again).
    pub unfinished: usize,
    /// The length of its complete lines: what is kept when appending.
    pub complete_bytes: u64,
    /// The bytes of a torn last line (none: the file ends with a newline).
    pub torn_bytes: usize,
    /// Whether it has its first line, the evaluation's identity (without it nothing was
    /// judged: the journal is written afresh).
    pub has_header: bool,
}

impl Earlier {
    /// The lines read past: the torn last one, if any.
    pub fn ignored_lines(&self) -> usize {
        usize::from(self.torn_bytes > 0)
    }

    /// One line for stderr: what is kept, what is judged again, what was ignored and why.
    pub fn describe(&self, path: &Path, total: usize) -> String {
        let mut text = format!(
            "sqlsuite: resuming from the journal {}: {} of {total} verdicts kept, {} judged now",
            path.display(),
            self.results.len(),
            total - self.results.len()
        );
        if self.unfinished > 0 {
            text.push_str(&format!(
                " ({} started and not finished: judged again)",
                self.unfinished
            ));
        }
        if self.torn_bytes > 0 {
            text.push_str(&format!(
                "; 1 journal line ignored and cut off: the last, {} bytes without a newline \
                 (the process writing it was killed mid-line)",
                self.torn_bytes
            ));
        }
        text
    }
}

/// Reads the journal at `path` for the evaluation of `sets` of `eval`, whose identity is
/// `expected`. `None` if there is no such file.
pub fn read(
    path: &Path,
    eval: &Evaluation,
    sets: &[usize],
    expected: &Value,
) -> anyhow::Result<Option<Earlier>> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => anyhow::bail!("cannot read the journal {}: {e}", path.display()),
    };
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut earlier = Earlier {
        results: BTreeMap::new(),
        unfinished: 0,
        complete_bytes: complete as u64,
        torn_bytes: bytes.len() - complete,
        has_header: false,
    };
    let mut reader = Reader {
        eval,
        sets,
        started: BTreeSet::new(),
        earlier: &mut earlier,
    };
    for (n, line) in bytes[..complete]
        .split_inclusive(|&b| b == b'\n')
        .enumerate()
    {
        let line = &line[..line.len() - 1];
        reader.line(n, line, expected).map_err(|e| {
            anyhow::anyhow!(
                "cannot resume from the journal {}: line {}: {e}",
                path.display(),
                n + 1
            )
        })?;
    }
    let unfinished = reader
        .started
        .iter()
        .filter(|k| !reader.earlier.results.contains_key(*k))
        .count();
    earlier.unfinished = unfinished;
    Ok(Some(earlier))
}

/// The state of reading one journal.
struct Reader<'a> {
    eval: &'a Evaluation,
    sets: &'a [usize],
    started: BTreeSet<(usize, usize)>,
    earlier: &'a mut Earlier,
}

impl Reader<'_> {
    fn line(&mut self, n: usize, line: &[u8], expected: &Value) -> Result<(), String> {
        let value: Value = serde_json::from_slice(line).map_err(|e| {
            format!("not a journal line ({e}); only the last line may be torn, by a kill")
        })?;
        match (n, value["event"].as_str()) {
            (0, Some("evaluation")) => {
                self.earlier.has_header = true;
                let found = &value["identity"];
                let differences = identity::differences(found, expected);
                if differences.is_empty() {
                    Ok(())
                } else {
                    Err(format!(
                        "it was written by another evaluation; what differs:\n  {}",
                        differences.join("\n  ")
                    ))
                }
            }
            (0, _) => Err(
                "the first line is not the evaluation's identity (a journal of an older \
                 sqlsuite, or not a journal)"
                    .into(),
            ),
            (_, Some("resumed")) => Ok(()),
            (_, Some("started")) => {
                let key = self.pair(&value)?;
                self.started.insert(key);
                Ok(())
            }
            (_, Some("finished")) => self.finished(&value),
            (_, other) => Err(format!("an unknown event {other:?}")),
        }
    }

    /// The (set, item) a line names, checked against the evaluation.
    fn pair(&self, value: &Value) -> Result<(usize, usize), String> {
        let name = value["predictions"].as_str().ok_or("no \"predictions\"")?;
        let set = self
            .eval
            .set_named(name)
            .filter(|s| self.sets.contains(s))
            .ok_or_else(|| format!("the prediction set {name:?} is not evaluated"))?;
        let item = value["item"]
            .as_u64()
            .and_then(|i| usize::try_from(i).ok())
            .filter(|&i| i < self.eval.items().len())
            .ok_or_else(|| format!("no item {}", value["item"]))?;
        let expected = self.eval.items()[item].index;
        if value["index"].as_u64() != Some(expected as u64) {
            return Err(format!(
                "item {item} has the index {expected}, not {}",
                value["index"]
            ));
        }
        Ok((set, item))
    }

    fn finished(&mut self, value: &Value) -> Result<(), String> {
        let (set, item) = self.pair(value)?;
        let metrics: Vec<&'static str> = self.eval.metrics().collect();
        let result = record::decode(&value["verdicts"], &metrics)?;
        match self.earlier.results.get(&(set, item)) {
            // Compared as written: a score that is not a number is not equal to itself.
            Some(known) if record::encode(known) != value["verdicts"] => Err(format!(
                "a second, different verdict for {} item {item}",
                self.eval.dataset.predictions[set].name
            )),
            Some(_) => Ok(()),
            None => {
                self.earlier.results.insert((set, item), result);
                Ok(())
            }
        }
    }
}
