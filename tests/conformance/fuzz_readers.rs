//! Reader fuzzing: every reader of an untrusted input file — the manifest, `tables.json`, each
//! format's gold and prediction files, a test suite's `exclusions.json`, a schema CSV — is fed
//! seeded random inputs, and must answer each with a value or an error that names the file
//! (with a line in range where it gives one), never a panic (`spec/manifest.md`, "Reading
//! untrusted files").
//!
//! One trial per reader, `fuzz::<reader>`. Each case is drawn from its own seed, one of:
//! * `bytes`: arbitrary bytes, from all 256 values, printable ASCII, or chunks of the reader's
//!   valid seed documents;
//! * `mutation`: a seed document with 1–4 mutations stacked (bit flips, truncation at a
//!   boundary or inside a UTF-8 character, deleted, duplicated and swapped chunks, invalid
//!   UTF-8, NUL bytes, huge and odd numbers, 100,000 `[` or `{"a":`, very long lines, line-end
//!   changes, a BOM, tokens such as `null`, `${`, `\ud800`);
//! * `shape`: a structurally valid document of the reader's kind (JSON, JSON lines, TOML, CSV,
//!   TSV, lines) with wrong types, missing, unknown and misspelt keys, odd values, dropped and
//!   repeated rows.
//!
//! The first cases of each trial are fixed: the seed documents themselves (which must read
//! without error), an empty file, deep nesting, a 1 MB line.
//!
//! Environment: `SQLSUITE_FUZZ_CASES` (cases per reader, default 5,000 in a release build, 2,000 in a debug build), `SQLSUITE_FUZZ_SEED`
//! (the campaign's base seed), `SQLSUITE_FUZZ_CASE_SEED` (run only the case of that seed, as a
//! failure reports it), `SQLSUITE_FUZZ_WORK` (where inputs are written, default
//! `/dev/shm/sqlsuite-fuzz-<pid>`, else `target/tmp/fuzz-work`). A failing case is written to
//! `target/tmp/fuzz-failures/<reader>-<seed>.bin`; the input being read is always in the work
//! directory's `<reader>/` (what a crash that cannot be caught, such as a stack overflow, leaves
//! behind; it is removed after a trial without failures).

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use libtest_mimic::{Failed, Trial};
use serde_json::{Map, Value};
use sqlsuite::dataset::{self, DatabaseLocator, Inputs, Item, PredictionInput};
use sqlsuite::{manifest::Manifest, metric::exact_match, registry};

use crate::Trials;

/// Cases per reader without `SQLSUITE_FUZZ_CASES`: a sample for every test run (fewer in the
/// unoptimised build `cargo test --workspace` makes).
const DEFAULT_CASES: u64 = if cfg!(debug_assertions) { 2_000 } else { 5_000 };
const DEFAULT_SEED: u64 = 0x5EED_F022_2026_0017;
/// Inputs are cut to this size after mutation.
const MAX_INPUT: usize = 2 << 20;

type Read = Box<dyn Fn(&Path) -> Result<(), String> + Send + Sync>;

/// One reader under test.
struct Reader {
    name: &'static str,
    /// The input's file name (its extension selects the format).
    file: &'static str,
    shape: Shape,
    /// Valid documents: every one must read without error.
    seeds: Vec<String>,
    /// Writes the files the reader needs beside the input (a gold for a prediction reader),
    /// and gives the reading of the input.
    make: fn(&Path) -> Read,
}

/// The kind of document a reader takes, for structure-aware variants.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Shape {
    Json,
    JsonLines,
    Toml,
    /// CSV with this separator (`,`, or `\t` with backslash escapes).
    Table(u8),
    /// Lines of tab-separated fields, blank lines between groups.
    Lines,
    /// The schema CSV: comma-separated lines, blocks separated by `-` lines.
    SchemaCsv,
}

pub fn trials() -> Trials {
    install_panic_hook();
    let readers = readers();
    let trials = readers
        .into_iter()
        .map(|r| {
            let name = format!("fuzz::{}", r.name);
            Trial::test(name, move || fuzz(&r))
        })
        .collect();
    (trials, Vec::new())
}

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    let v = v.trim().replace(['_', ','], "");
    match v.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => v.parse().ok(),
    }
}

// ---------------------------------------------------------------------------------------------
// The campaign

thread_local! {
    /// The last panic's message and location on this thread (the hook keeps the output quiet).
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    /// A case is being read on this thread: its panics are recorded, not printed.
    static IN_CASE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn install_panic_hook() {
    let default = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if !IN_CASE.with(|c| c.get()) {
            return default(info);
        }
        let message = match (
            info.payload().downcast_ref::<&str>(),
            info.payload().downcast_ref::<String>(),
        ) {
            (Some(s), _) => (*s).to_owned(),
            (_, Some(s)) => s.clone(),
            _ => "(non-string payload)".to_owned(),
        };
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        PANIC.with(|p| *p.borrow_mut() = Some(format!("{message}{at}")));
    }));
}

fn tmp_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
}

/// What went wrong with one case.
struct Failure {
    seed: u64,
    class: &'static str,
    what: String,
    reproducer: PathBuf,
}

/// Where the inputs are written: `SQLSUITE_FUZZ_WORK`, else a directory in `/dev/shm` (a
/// memory file system: on a disk, writing each case costs more than reading it), else
/// `target/tmp/fuzz-work`.
fn work_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("SQLSUITE_FUZZ_WORK") {
        return PathBuf::from(dir);
    }
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        return shm.join(format!("sqlsuite-fuzz-{}", std::process::id()));
    }
    tmp_dir().join("fuzz-work")
}

fn fuzz(reader: &Reader) -> Result<(), Failed> {
    let work = work_root().join(reader.name);
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    let read = (reader.make)(&work);
    let input = work.join(reader.file);
    let input_name = input.display().to_string();

    // The seeds must read.
    for (k, seed) in reader.seeds.iter().enumerate() {
        write(&input, seed.as_bytes())?;
        if let Err(e) = read(&input) {
            return Err(format!("seed document {k} does not read: {e}").into());
        }
    }

    let cases = env_u64("SQLSUITE_FUZZ_CASES").unwrap_or(DEFAULT_CASES);
    let base = env_u64("SQLSUITE_FUZZ_SEED").unwrap_or(DEFAULT_SEED);
    let only = env_u64("SQLSUITE_FUZZ_CASE_SEED");
    let gen = Generator::new(reader);
    let fixed = gen.fixed();

    let start = Instant::now();
    let mut failures: Vec<Failure> = Vec::new();
    let mut failed = 0u64;
    let (mut oks, mut errs) = (0u64, 0u64);
    let mut by_class = [0u64; 4];
    let mut slowest = (Duration::ZERO, 0u64, 0usize);
    let mut run = 0u64;
    for i in 0..cases {
        // A fixed case's seed is its index.
        let seed = match only {
            Some(s) => s,
            None if (i as usize) < fixed.len() => i,
            None => case_seed(base, reader.name, i),
        };
        let (class, bytes) = match fixed.get(seed as usize) {
            Some((class, bytes)) => (*class, bytes.clone()),
            None => gen.case(seed),
        };
        by_class[CLASSES.iter().position(|c| *c == class).unwrap_or(0)] += 1;
        write(&input, &bytes)?;
        let t = Instant::now();
        PANIC.with(|p| p.borrow_mut().take());
        IN_CASE.with(|c| c.set(true));
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| read(&input)));
        IN_CASE.with(|c| c.set(false));
        let took = t.elapsed();
        if took > slowest.0 {
            slowest = (took, seed, bytes.len());
        }
        run += 1;
        let problem = match outcome {
            Err(_) => Some(format!(
                "panicked: {}",
                PANIC
                    .with(|p| p.borrow_mut().take())
                    .unwrap_or_else(|| "(no message)".into())
            )),
            Ok(Ok(())) => {
                oks += 1;
                None
            }
            Ok(Err(message)) => {
                errs += 1;
                check_error(&message, &input_name, &bytes)
            }
        };
        if let Some(what) = problem {
            failed += 1;
            if failures.len() < 10 {
                let dir = tmp_dir().join("fuzz-failures");
                let _ = std::fs::create_dir_all(&dir);
                let reproducer = dir.join(format!("{}-{seed}.bin", reader.name));
                let _ = std::fs::write(&reproducer, &bytes);
                failures.push(Failure {
                    seed,
                    class,
                    what,
                    reproducer,
                });
            }
        }
        if only.is_some() {
            break;
        }
    }
    let elapsed = start.elapsed();
    eprintln!(
        "fuzz::{}: {run} cases ({} fixed, {} bytes, {} mutation, {} shape) in {:.1} s: \
         {oks} read, {errs} errors, {failed} failures; slowest {:.1} ms (seed {}, {} bytes)",
        reader.name,
        by_class[0],
        by_class[1],
        by_class[2],
        by_class[3],
        elapsed.as_secs_f64(),
        slowest.0.as_secs_f64() * 1e3,
        slowest.1,
        slowest.2,
    );
    if failures.is_empty() {
        let _ = std::fs::remove_dir_all(&work);
        if let Some(root) = work.parent() {
            // The last trial to finish removes the process's directory.
            let _ = std::fs::remove_dir(root);
        }
        return Ok(());
    }
    let mut report = format!("{failed} of {run} cases failed (base seed {base:#x}):\n");
    for f in &failures {
        let what: String = f.what.chars().take(600).collect();
        report.push_str(&format!(
            "  seed {} ({}): {what}\n    input: {} (rerun: SQLSUITE_FUZZ_CASE_SEED={} cargo test --release --test fuzz_readers -- --exact fuzz::{})\n",
            f.seed,
            f.class,
            f.reproducer.display(),
            f.seed,
            reader.name
        ));
    }
    Err(report.into())
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), Failed> {
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()).into())
}

/// An error must name the input file, and a line it gives (`file:N:`) must be one of the
/// input's lines (or the one after the last).
fn check_error(message: &str, path: &str, bytes: &[u8]) -> Option<String> {
    if !message.contains(path) {
        return Some(format!("the error does not name {path}: {message}"));
    }
    let lines = bytes.iter().filter(|&&b| b == b'\n').count() + 1;
    let needle = format!("{path}:");
    for (at, _) in message.match_indices(&needle) {
        let digits: String = message[at + needle.len()..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        if digits.is_empty() {
            continue;
        }
        match digits.parse::<usize>() {
            Ok(n) if (1..=lines).contains(&n) => {}
            _ => {
                return Some(format!(
                    "line {digits} is not a line of the input ({lines} lines): {message}"
                ))
            }
        }
    }
    None
}

fn case_seed(base: u64, reader: &str, i: u64) -> u64 {
    let h = reader.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    });
    splitmix(base ^ h ^ splitmix(i))
}

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

// ---------------------------------------------------------------------------------------------
// Generating inputs

const CLASSES: [&str; 4] = ["fixed", "bytes", "mutation", "shape"];

struct Generator<'r> {
    reader: &'r Reader,
    /// Chunks of the seeds (the `bytes` class's dictionary).
    chunks: Vec<Vec<u8>>,
    /// Keys and words of the seeds, plus misspellings (for shapes).
    words: Vec<String>,
}

const INTERESTING_BYTES: &[u8] = b"\0\xff\x80\xc3\"'[]{}:,=\n\r\t\\#$ -.0";
const INVALID_UTF8: &[&[u8]] = &[
    b"\xff",
    b"\xc3",
    b"\xe2\x82",
    b"\xed\xa0\x80",
    b"\xc0\xaf",
    b"\xf4\x90\x80\x80",
    b"\x80\x80",
];
const TOKENS: &[&str] = &[
    "null",
    "true",
    "false",
    "-1",
    "0",
    "\"\"",
    "[]",
    "{}",
    "\"\\u0000\"",
    "\"\\ud800\"",
    "\\ud800",
    "1e999",
    "-0",
    "NaN",
    "inf",
    "nan",
    "${",
    "${X}",
    "${SQLSUITE_NOPE}",
    "$${X}",
    "{db_id}",
    "..",
    "/",
    "*",
    "[[",
    "]]",
    "\"\"\"",
    "'''",
    "\\",
    "\t",
    "\r",
    "\u{feff}",
    "é",
    "𝄞",
    "\u{202e}",
    "18446744073709551616",
    "-9223372036854775809",
    "9999999999999999999999999999999999",
    "1.7976931348623157e309",
    "0x10",
    "1979-05-27T07:32:00Z",
];
const NUMBERS: &[&str] = &[
    "-1",
    "0",
    "-0",
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775807",
    "-9223372036854775808",
    "-9223372036854775809",
    "99999999999999999999999999999999999999",
    "1e308",
    "1e999",
    "-1e999",
    "1.5",
    "0.000000000000000000000001",
    "4294967296",
    "nan",
    "inf",
    "+1",
    "01",
];

impl<'r> Generator<'r> {
    fn new(reader: &'r Reader) -> Generator<'r> {
        let mut rng = fastrand::Rng::with_seed(7);
        let mut chunks = Vec::new();
        for s in &reader.seeds {
            let b = s.as_bytes();
            let mut at = 0;
            while at < b.len() {
                let n = rng.usize(1..=8).min(b.len() - at);
                chunks.push(b[at..at + n].to_vec());
                at += n;
            }
        }
        let mut words: Vec<String> = Vec::new();
        for s in &reader.seeds {
            for w in s.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                if !w.is_empty() && !words.iter().any(|x| x == w) {
                    words.push(w.to_owned());
                }
            }
        }
        let typos: Vec<String> = words
            .iter()
            .filter(|w| w.len() > 2)
            .flat_map(|w| {
                [
                    w.to_uppercase(),
                    format!("{w}s"),
                    w.chars().skip(1).collect(),
                ]
            })
            .collect();
        words.extend(typos);
        Generator {
            reader,
            chunks,
            words,
        }
    }

    /// The fixed first cases.
    fn fixed(&self) -> Vec<(&'static str, Vec<u8>)> {
        let mut out: Vec<Vec<u8>> = vec![
            Vec::new(),
            b"\0".to_vec(),
            b"\n".to_vec(),
            b"\xef\xbb\xbf".to_vec(),
            b"\xff\xfe".to_vec(),
            "[".repeat(100_000).into_bytes(),
            "{\"a\":".repeat(100_000).into_bytes(),
            format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes(),
            "a=[".repeat(100_000).into_bytes(),
            "a={b=".repeat(50_000).into_bytes(),
            "[a.".repeat(100_000).into_bytes(),
            "x".repeat(1 << 20).into_bytes(),
            "\n".repeat(200_000).into_bytes(),
            "\t".repeat(100_000).into_bytes(),
            ",".repeat(100_000).into_bytes(),
            "\"".repeat(100_001).into_bytes(),
        ];
        for seed in &self.reader.seeds {
            let b = seed.as_bytes();
            // Truncation at every byte of the first seed is fixed too (a sample of offsets
            // for long seeds).
            let step = (b.len() / 400).max(1);
            for cut in (0..b.len()).step_by(step) {
                out.push(b[..cut].to_vec());
            }
            // The seed with its first line repeated 10,000 times.
            let first = b.split(|&c| c == b'\n').next().unwrap_or_default();
            let mut many = b.to_vec();
            for _ in 0..10_000 {
                many.extend_from_slice(first);
                many.push(b'\n');
            }
            out.push(many);
            // A deep array where the document's first value starts.
            if let Some(p) = b.iter().position(|&c| c == b'[' || c == b'{') {
                let mut deep = b[..p].to_vec();
                deep.extend(std::iter::repeat_n(b'[', 100_000));
                deep.extend_from_slice(&b[p..]);
                out.push(deep);
            }
        }
        out.into_iter().map(|b| ("fixed", b)).collect()
    }

    fn case(&self, seed: u64) -> (&'static str, Vec<u8>) {
        let mut rng = fastrand::Rng::with_seed(seed);
        let (class, mut bytes) = match rng.u8(0..10) {
            0 | 1 => ("bytes", self.arbitrary(&mut rng)),
            2..=6 => {
                let mut b = self.pick_seed(&mut rng).as_bytes().to_vec();
                for _ in 0..rng.usize(1..=4) {
                    self.mutate(&mut rng, &mut b);
                }
                ("mutation", b)
            }
            _ => {
                let mut b = self.shape(&mut rng);
                if rng.u8(0..5) == 0 {
                    self.mutate(&mut rng, &mut b);
                }
                ("shape", b)
            }
        };
        bytes.truncate(MAX_INPUT);
        (class, bytes)
    }

    fn pick_seed(&self, rng: &mut fastrand::Rng) -> &str {
        &self.reader.seeds[rng.usize(0..self.reader.seeds.len())]
    }

    fn arbitrary(&self, rng: &mut fastrand::Rng) -> Vec<u8> {
        let len = match rng.u8(0..4) {
            0 => rng.usize(0..16),
            1 | 2 => rng.usize(0..256),
            _ => rng.usize(0..4096),
        };
        match rng.u8(0..3) {
            0 => (0..len).map(|_| rng.u8(..)).collect(),
            1 => (0..len)
                .map(|_| match rng.u8(0..20) {
                    0 => b'\n',
                    1 => b'\t',
                    _ => rng.u8(0x20..0x7f),
                })
                .collect(),
            _ => {
                let mut out = Vec::new();
                while out.len() < len {
                    out.extend_from_slice(&self.chunks[rng.usize(0..self.chunks.len())]);
                }
                out
            }
        }
    }

    fn mutate(&self, rng: &mut fastrand::Rng, b: &mut Vec<u8>) {
        let pos = |rng: &mut fastrand::Rng, b: &Vec<u8>| rng.usize(0..=b.len());
        let chunk = |rng: &mut fastrand::Rng, b: &Vec<u8>| {
            let start = rng.usize(0..=b.len());
            let max = (b.len() - start).min(if rng.bool() { 16 } else { 512 });
            start..start + rng.usize(0..=max)
        };
        match rng.u8(0..17) {
            0 if !b.is_empty() => {
                for _ in 0..rng.usize(1..=8) {
                    let i = rng.usize(0..b.len());
                    b[i] ^= 1 << rng.u8(0..8);
                }
            }
            1 if !b.is_empty() => {
                let i = rng.usize(0..b.len());
                b[i] = INTERESTING_BYTES[rng.usize(0..INTERESTING_BYTES.len())];
            }
            2 => {
                let p = pos(rng, b);
                b.truncate(p);
            }
            3 => {
                // At a boundary: after (or before) a structural byte, or inside a UTF-8
                // character.
                let cuts: Vec<usize> = b
                    .iter()
                    .enumerate()
                    .filter(|(_, &c)| b"\n,\"[]{}:=\t\\".contains(&c) || c >= 0x80)
                    .map(|(i, _)| i + usize::from(rng.bool()))
                    .collect();
                if !cuts.is_empty() {
                    let c = cuts[rng.usize(0..cuts.len())];
                    b.truncate(c);
                }
            }
            4 => {
                let r = chunk(rng, b);
                b.drain(r);
            }
            5 => {
                let r = chunk(rng, b);
                let copy = b[r.clone()].to_vec();
                let at = if rng.bool() { r.end } else { pos(rng, b) };
                let times = if rng.u8(0..10) == 0 { 1000 } else { 1 };
                b.splice(at..at, copy.repeat(times));
            }
            6 => {
                let p = pos(rng, b);
                let bad = INVALID_UTF8[rng.usize(0..INVALID_UTF8.len())];
                b.splice(p..p, bad.iter().copied());
            }
            7 => {
                let p = pos(rng, b);
                let n = rng.usize(1..=4);
                b.splice(p..p, std::iter::repeat_n(0u8, n));
            }
            8 => {
                // Replace a run of digits by an odd number.
                let digits: Vec<usize> = (0..b.len()).filter(|&i| b[i].is_ascii_digit()).collect();
                let n = NUMBERS[rng.usize(0..NUMBERS.len())].as_bytes();
                if digits.is_empty() {
                    let p = pos(rng, b);
                    b.splice(p..p, n.iter().copied());
                } else {
                    let start = digits[rng.usize(0..digits.len())];
                    let end = (start..b.len())
                        .find(|&i| !b[i].is_ascii_digit())
                        .unwrap_or(b.len());
                    b.splice(start..end, n.iter().copied());
                }
            }
            9 => {
                // Deep nesting.
                let unit: &[u8] = match rng.u8(0..5) {
                    0 => b"[",
                    1 => b"{\"a\":",
                    2 => b"a=[",
                    3 => b"[{",
                    _ => b"{",
                };
                let n = if rng.u8(0..4) == 0 {
                    100_000
                } else {
                    rng.usize(100..300)
                };
                let p = pos(rng, b);
                let deep: Vec<u8> = unit.iter().copied().cycle().take(unit.len() * n).collect();
                b.splice(p..p, deep);
            }
            10 => {
                // A very long line, or very many lines.
                let p = pos(rng, b);
                let (byte, n) = match rng.u8(0..3) {
                    0 => (b'x', rng.usize(10_000..300_000)),
                    1 => (b'\n', rng.usize(1_000..100_000)),
                    _ => (b' ', rng.usize(10_000..100_000)),
                };
                b.splice(p..p, std::iter::repeat_n(byte, n));
            }
            11 => {
                let other = self.pick_seed(rng).as_bytes();
                let from = rng.usize(0..=other.len());
                let to = rng.usize(from..=other.len());
                let p = pos(rng, b);
                b.splice(p..p, other[from..to].iter().copied());
            }
            12 => {
                let text = std::mem::take(b);
                *b = match rng.u8(0..4) {
                    0 => replace(&text, b"\n", b"\r\n"),
                    1 => replace(&text, b"\n", b"\r"),
                    2 => replace(&text, b"\n", b""),
                    _ => replace(&text, b"\n", b"\n\n"),
                };
            }
            13 => {
                let p = if rng.bool() { 0 } else { pos(rng, b) };
                b.splice(p..p, "\u{feff}".bytes());
            }
            14 => {
                let r1 = chunk(rng, b);
                let r2 = chunk(rng, b);
                if r1.end <= r2.start {
                    let (a, c) = (b[r1.clone()].to_vec(), b[r2.clone()].to_vec());
                    b.splice(r2, a);
                    b.splice(r1, c);
                }
            }
            15 => {
                let p = pos(rng, b);
                let t = TOKENS[rng.usize(0..TOKENS.len())];
                b.splice(p..p, t.bytes());
            }
            _ => {
                // Replace a word by another of the seeds' words (keys, values).
                let w = &self.words[rng.usize(0..self.words.len())];
                let starts: Vec<usize> = (0..b.len())
                    .filter(|&i| {
                        b[i].is_ascii_alphabetic() && (i == 0 || !b[i - 1].is_ascii_alphanumeric())
                    })
                    .collect();
                if !starts.is_empty() {
                    let s = starts[rng.usize(0..starts.len())];
                    let e = (s..b.len())
                        .find(|&i| !(b[i].is_ascii_alphanumeric() || b[i] == b'_'))
                        .unwrap_or(b.len());
                    b.splice(s..e, w.bytes());
                }
            }
        }
    }

    fn shape(&self, rng: &mut fastrand::Rng) -> Vec<u8> {
        let seed = self.pick_seed(rng);
        match self.reader.shape {
            Shape::Json => {
                let mut v: Value = serde_json::from_str(seed).expect("JSON seed");
                for _ in 0..rng.usize(1..=5) {
                    self.mutate_value(rng, &mut v);
                }
                json_text(rng, &v)
            }
            Shape::JsonLines => {
                let mut lines: Vec<Value> = seed
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(|l| serde_json::from_str(l).expect("JSON-lines seed"))
                    .collect();
                self.mutate_rows(rng, &mut lines);
                for _ in 0..rng.usize(1..=4) {
                    if !lines.is_empty() {
                        let k = rng.usize(0..lines.len());
                        self.mutate_value(rng, &mut lines[k]);
                    }
                }
                let sep: &[u8] = match rng.u8(0..4) {
                    0 => b"\r\n",
                    1 => b"\n\n",
                    _ => b"\n",
                };
                let mut out = Vec::new();
                for v in &lines {
                    out.extend(serde_json::to_vec(v).unwrap_or_default());
                    out.extend_from_slice(sep);
                }
                out
            }
            Shape::Toml => {
                let t: toml::Value = toml::from_str(seed).expect("TOML seed");
                let mut v = serde_json::to_value(&t).unwrap_or(Value::Null);
                for _ in 0..rng.usize(1..=4) {
                    self.mutate_value(rng, &mut v);
                }
                strip_nulls(&mut v);
                match toml::Value::try_from(&v)
                    .ok()
                    .and_then(|t| toml::to_string(&t).ok())
                {
                    Some(text) => text.into_bytes(),
                    None => seed.as_bytes().to_vec(),
                }
            }
            Shape::Table(sep) => self.table(rng, seed, sep),
            Shape::Lines | Shape::SchemaCsv => self.lines(rng, seed),
        }
    }

    fn word(&self, rng: &mut fastrand::Rng) -> String {
        self.words[rng.usize(0..self.words.len())].clone()
    }

    fn odd_string(&self, rng: &mut fastrand::Rng) -> String {
        match rng.u8(0..10) {
            0 => String::new(),
            1 => "x".repeat(rng.usize(1000..100_000)),
            2 => "\u{0}\u{1}\t\n\r\u{7f}".into(),
            3 => "é𝄞\u{202e}\u{feff}\u{ffff}".into(),
            4 => TOKENS[rng.usize(0..TOKENS.len())].into(),
            5 => NUMBERS[rng.usize(0..NUMBERS.len())].into(),
            6 => " ".repeat(rng.usize(1..5)),
            _ => self.word(rng),
        }
    }

    fn random_value(&self, rng: &mut fastrand::Rng, depth: usize) -> Value {
        match rng.u8(0..if depth > 2 { 6 } else { 8 }) {
            0 => Value::Null,
            1 => Value::Bool(rng.bool()),
            2 => serde_json::json!(rng.i64(..)),
            3 => serde_json::from_str(NUMBERS[rng.usize(0..NUMBERS.len())])
                .unwrap_or_else(|_| serde_json::json!(-1)),
            4 => serde_json::json!(rng.f64() * 1e6 - 5e5),
            5 => Value::String(self.odd_string(rng)),
            6 => Value::Array(
                (0..rng.usize(0..4))
                    .map(|_| self.random_value(rng, depth + 1))
                    .collect(),
            ),
            _ => Value::Object(
                (0..rng.usize(0..4))
                    .map(|_| (self.word(rng), self.random_value(rng, depth + 1)))
                    .collect(),
            ),
        }
    }

    /// Changes one node of `v`: its type, a key, an element.
    fn mutate_value(&self, rng: &mut fastrand::Rng, v: &mut Value) {
        let mut pointers = Vec::new();
        collect_pointers(v, String::new(), &mut pointers);
        let p = &pointers[rng.usize(0..pointers.len())];
        let Some(node) = v.pointer_mut(p) else {
            return;
        };
        match node {
            Value::Object(map) if rng.u8(0..3) > 0 => match rng.u8(0..4) {
                0 if !map.is_empty() => {
                    let k = map.keys().nth(rng.usize(0..map.len())).cloned();
                    if let Some(k) = k {
                        map.remove(&k);
                    }
                }
                1 if !map.is_empty() => {
                    // Rename a key (a misspelling or another key of the seeds).
                    let k = map.keys().nth(rng.usize(0..map.len())).cloned();
                    if let Some(k) = k {
                        if let Some(val) = map.remove(&k) {
                            map.insert(self.word(rng), val);
                        }
                    }
                }
                2 => {
                    let val = self.random_value(rng, 1);
                    map.insert(self.word(rng), val);
                }
                _ => *map = Map::new(),
            },
            Value::Array(items) if rng.u8(0..3) > 0 => match rng.u8(0..5) {
                0 if !items.is_empty() => {
                    items.remove(rng.usize(0..items.len()));
                }
                1 if !items.is_empty() => {
                    let k = rng.usize(0..items.len());
                    let copy = items[k].clone();
                    for _ in 0..rng.usize(1..50) {
                        items.insert(k, copy.clone());
                    }
                }
                2 => items.push(self.random_value(rng, 1)),
                3 => items.clear(),
                _ => rng.shuffle(items),
            },
            _ => {
                *node = match rng.u8(0..4) {
                    0 => Value::Array(vec![node.take()]),
                    _ => self.random_value(rng, 0),
                }
            }
        }
    }

    /// Drops, repeats and reorders rows.
    fn mutate_rows<T: Clone>(&self, rng: &mut fastrand::Rng, rows: &mut Vec<T>) {
        match rng.u8(0..6) {
            0 if !rows.is_empty() => {
                rows.remove(rng.usize(0..rows.len()));
            }
            1 if !rows.is_empty() => {
                let k = rng.usize(0..rows.len());
                let copy = rows[k].clone();
                rows.insert(k, copy);
            }
            2 => rng.shuffle(rows),
            3 => rows.clear(),
            _ => {}
        }
    }

    /// A CSV or TSV table: the seed's header (columns dropped, repeated, renamed, reordered)
    /// and rows of fields drawn from the seed and odd values, with random quoting.
    fn table(&self, rng: &mut fastrand::Rng, seed: &str, sep: u8) -> Vec<u8> {
        let sep = sep as char;
        let mut header: Vec<String> = seed
            .lines()
            .next()
            .unwrap_or_default()
            .split(sep)
            .map(str::to_owned)
            .collect();
        match rng.u8(0..5) {
            0 if !header.is_empty() => {
                header.remove(rng.usize(0..header.len()));
            }
            1 => {
                let k = rng.usize(0..header.len().max(1));
                header.insert(k, self.word(rng));
            }
            2 => rng.shuffle(&mut header),
            _ => {}
        }
        let fields: Vec<String> = seed
            .lines()
            .skip(1)
            .flat_map(|l| l.split(sep).map(str::to_owned).collect::<Vec<_>>())
            .collect();
        let field = |rng: &mut fastrand::Rng| -> String {
            let raw = if rng.u8(0..3) == 0 || fields.is_empty() {
                self.odd_string(rng)
            } else {
                fields[rng.usize(0..fields.len())].clone()
            };
            if sep == ',' {
                match rng.u8(0..4) {
                    0 => format!("\"{}\"", raw.replace('"', "\"\"")),
                    1 => format!("\"{raw}"),
                    _ => raw.replace(['\n', ','], " "),
                }
            } else {
                match rng.u8(0..4) {
                    0 => format!("{raw}\\"),
                    _ => raw.replace(['\n', '\t'], "\\n"),
                }
            }
        };
        let mut out = String::new();
        if rng.u8(0..10) == 0 {
            out.push('\u{feff}');
        }
        out.push_str(&header.join(&sep.to_string()));
        out.push('\n');
        for _ in 0..rng.usize(0..8) {
            let n = match rng.u8(0..4) {
                0 => rng.usize(0..header.len() + 3),
                _ => header.len(),
            };
            let row: Vec<String> = (0..n).map(|_| field(rng)).collect();
            out.push_str(&row.join(&sep.to_string()));
            out.push_str(match rng.u8(0..6) {
                0 => "\r\n",
                1 => "\n\n",
                _ => "\n",
            });
        }
        out.into_bytes()
    }

    /// Lines rebuilt from the seed's fields: rows dropped, repeated, reordered; fields changed,
    /// added and removed; blank lines between groups.
    fn lines(&self, rng: &mut fastrand::Rng, seed: &str) -> Vec<u8> {
        let sep = if self.reader.shape == Shape::SchemaCsv {
            ","
        } else {
            "\t"
        };
        let mut rows: Vec<Vec<String>> = seed
            .lines()
            .map(|l| l.split(sep).map(str::to_owned).collect())
            .collect();
        // Keep a schema CSV's header, mostly.
        let header =
            if self.reader.shape == Shape::SchemaCsv && rng.u8(0..8) > 0 && !rows.is_empty() {
                Some(rows.remove(0))
            } else {
                None
            };
        self.mutate_rows(rng, &mut rows);
        let words: Vec<String> = rows.iter().flatten().cloned().collect();
        for _ in 0..rng.usize(0..6) {
            if rows.is_empty() {
                break;
            }
            let k = rng.usize(0..rows.len());
            let row = &mut rows[k];
            match rng.u8(0..5) {
                0 if !row.is_empty() => {
                    row.remove(rng.usize(0..row.len()));
                }
                1 => row.push(self.odd_string(rng)),
                2 => row.clear(),
                3 if !row.is_empty() && !words.is_empty() => {
                    let i = rng.usize(0..row.len());
                    row[i] = words[rng.usize(0..words.len())].clone();
                }
                _ if !row.is_empty() => {
                    let i = rng.usize(0..row.len());
                    row[i] = self.odd_string(rng).replace('\n', " ");
                }
                _ => {}
            }
        }
        let mut out = String::new();
        for row in header.iter().chain(&rows) {
            out.push_str(&row.join(sep));
            out.push('\n');
            if rng.u8(0..6) == 0 {
                out.push('\n');
            }
        }
        out.into_bytes()
    }
}

fn replace(text: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

fn json_text(rng: &mut fastrand::Rng, v: &Value) -> Vec<u8> {
    if rng.bool() {
        serde_json::to_vec(v).unwrap_or_default()
    } else {
        serde_json::to_vec_pretty(v).unwrap_or_default()
    }
}

fn collect_pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, x) in map {
                let key = k.replace('~', "~0").replace('/', "~1");
                collect_pointers(x, format!("{at}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                collect_pointers(x, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

/// TOML has no null: nulls are left out.
fn strip_nulls(v: &mut Value) {
    match v {
        Value::Object(map) => {
            map.retain(|_, x| !x.is_null());
            map.values_mut().for_each(strip_nulls);
        }
        Value::Array(items) => {
            items.retain(|x| !x.is_null());
            items.iter_mut().for_each(strip_nulls);
        }
        _ => {}
    }
}

// ---------------------------------------------------------------------------------------------
// The readers and their seed documents

const GOLD_SQL: &str = "SELECT count(*) FROM singer\tconcert_singer\n\
    SELECT name, country, age FROM singer ORDER BY age DESC\tconcert_singer\n\
    SELECT T1.name FROM pets AS T1 WHERE T1.weight > 10 AND T1.name = \"Lucky\"\tpets_1\n";

const INTERACTIONS: &str = "SELECT count(*) FROM singer\tconcert_singer\n\
    SELECT name FROM singer WHERE age > 20\tconcert_singer\n\
    \n\
    SELECT * FROM pets\tpets_1\n";

const TABLES_JSON: &str = r#"[
  {"db_id": "concert_singer",
   "table_names": ["stadium", "singer", "singer in concert"],
   "table_names_original": ["stadium", "singer", "singer_in_concert"],
   "column_names": [[-1, "*"], [0, "stadium id"], [0, "name"], [1, "singer id"], [1, "name"], [1, "age"], [2, "singer id"], [2, "stadium id"]],
   "column_names_original": [[-1, "*"], [0, "Stadium_ID"], [0, "Name"], [1, "Singer_ID"], [1, "Name"], [1, "Age"], [2, "Singer_ID"], [2, "Stadium_ID"]],
   "column_types": ["text", "number", "text", "number", "text", "number", "number", "number"],
   "primary_keys": [1, 3, [6, 7]],
   "foreign_keys": [[6, 3], [7, 1]]},
  {"db_id": "pets_1", "table_names_original": ["Pets"],
   "column_names_original": [[-1, "*"], [0, "PetID"], [0, "weight"], [0, "name"]],
   "column_types": ["text", "number", "number", "time"], "primary_keys": [1], "foreign_keys": []}
]"#;

const SPIDER_JSON: &str = r#"[
  {"db_id": "concert_singer", "query": "SELECT count(*) FROM singer", "question": "How many singers do we have?",
   "query_toks": ["SELECT", "count", "(", "*", ")", "FROM", "singer"], "sql": {"select": [false, []]}},
  {"db_id": "pets_1", "query": "SELECT name FROM pets WHERE weight > 10 ", "question": "Pets över 10 kg?"}
]"#;

const CLASSICAL_JSON: &str = r#"[
 {"text": "homepage of PVLDB", "query": "SELECT J.HOMEPAGE FROM JOURNAL AS J WHERE J.NAME = \"PVLDB\" ;",
  "variables": [{"example": "PVLDB", "location": "both", "name": "journal_name0", "type": "journal_name",
                 "ancestor_of_occuring_column": [["journal", "NAME"]]}],
  "orig_id": ["academic", 0], "db_id": "academic", "db_path": "x", "testsuite": ["y"]},
 {"text": "cities", "query": "SELECT CITY_NAME FROM CITY ;", "variables": [], "db_id": "geo"}
]"#;

const QUESTIONS_CSV: &str = "db_name,query_category,query,question,instructions\n\
    academic,group_by,\"SELECT {a,b} FROM t;SELECT c FROM t\",\"Which \"\"x\"\"?\nMore\",\n\
    geo,order_by,SELECT 1,Q2,use x\n";

const PAIRS_TSV: &str = "question\tgold\tdb_name\tcandidate\n\
    q\\tx\tSELECT '\\\\n'\\nFROM t\tacademic\tSELECT 2\n\
    r\tSELECT 3\tgeo\tSELECT 4\n";

const SEDE_JSONL: &str = r#"{"QuerySetId":7,"Title":"Top users","Description":"by rep\n","QueryBody":"SELECT TOP 10 Id\nFROM Users"}
{"QuerySetId":"9","Title":"T","Description":null,"QueryBody":"SELECT 1"}
"#;

const SQL2TEXT_JSON: &str = r#"[
  {"db_id": "concert_singer", "query": "SELECT count(*) FROM singer", "question": "How many singers?", "clause_count": 2},
  {"query": "SELECT 1", "question": ["one", "the number one"], "clause_count": null}
]"#;

const SQL2TEXT_JSONL: &str = r#"{"db_id": "concert_singer", "query": "SELECT count(*) FROM singer", "references": ["How many singers?"], "clause_count": 3}
{"question": "one"}
"#;

const SCHEMA_CSV_FLAGS: &str =
    "Table Name, Field Name, Is Primary Key, Is Foreign Key, Type, Other info\n\
    CITY, CITY_CODE, y, n, varchar(4), NOT NULL\n\
    CITY, NAME, n, n, \"decimal(1,1)\",\n\
    -, -, -, -, -, -\n\
    AIRPORT, AIRPORT_CODE, y, n, varchar(3),\n\
    AIRPORT, CITY_CODE, n, y, varchar(4),\n";

const SCHEMA_CSV_DESCRIBE: &str = "Table Name, Field Name, Type, Is Foreign Key, Is Primary Key\n\
    COURSE, COURSE_ID, int(11), NO, PRI, 0, -\n\
    COURSE, GPA, float(3,2), YES, -, NULL, -\n\
    -, -, -, -, -, -, -\n\
    OFFERING, COURSE_ID, int(11), YES, MUL, NULL, -\n";

const EXCLUSIONS_JSON: &str =
    r#"{"SELECT 1": ["db_1.sqlite"], "SELECT 2": ["db_0.sqlite", "db_1.sqlite"]}"#;

const MANIFEST_SPIDER: &str = r#"# a comment
[dataset]
name = "fuzz"
format = "spider"
gold = "gold.sql"
tables = "tables.json"
subset = ["concert_singer"]
when_missing = "fail"

[databases]
backend = "sqlite"
path = "db/{db_id}.sqlite"

[[predictions]]
name = "v1"
file = "p.txt"

[[predictions]]
name = "v2"
file = "${SQLSUITE_FUZZ_NOPE:-p.txt}"

[metrics.exec]
timeout_ms = 500
float_tolerance = 1e-6
gold_relative_budget = { floor = 1000, multiplier = 3 }

[metrics.exact_match]
mode = "official"

[gate]
mode = "regression"
min_accuracy = { exec = 0.5, exact_match = 0.25 }

[report]
snapshots = "snaps"

[cache]
dir = "cache"

[distill]
constraints = "c/{db_id}.toml"
schema = ["db/{db_id}.sql"]
original = "db/{db_id}.sqlite"
induce = false
"#;

const MANIFEST_SQLEVAL: &str = r#"[dataset]
name = "sqleval"
format = "sqleval"
gold = "questions.csv"
gold_column = "query"

[databases]
backend = "postgres"
name = "{db_id}"
connection_env = "PATH"

[[predictions]]
name = "a"
file = "p.csv"
column = "generated_query"

[metrics.sqleval]
compat = "sqleval"
timeout_ms = 1000
"#;

const MANIFEST_SEDE: &str = r#"[dataset]
name = "sede"
format = "sede"
gold = "val.jsonl"
when_missing = "ignore"

[[predictions]]
name = "a"
file = "p.txt"

[metrics.pcm]
compat = "sede"

[metrics.bleu]
lowercase = true
pass_bleu = 40
"#;

fn gold_items(format: &str, gold: &Path, column: Option<&str>) -> (Inputs, Vec<Item>) {
    let inputs = Inputs {
        name: "fuzz".into(),
        gold: gold.to_path_buf(),
        gold_column: column.map(str::to_owned),
        subset: Vec::new(),
        predictions: Vec::new(),
    };
    let entry = format_entry(format);
    let items = (entry.read_gold)(&inputs).expect("the fuzz gold reads");
    (inputs, items)
}

fn format_entry(name: &str) -> &'static dataset::FormatEntry {
    registry::FORMATS
        .iter()
        .find(|f| f.name == name)
        .expect("a registered format")
}

fn put(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).expect("fuzz work directory");
    }
    std::fs::write(&p, text).expect("fuzz work file");
    p
}

/// A prediction reader: `format`'s `read_predictions`, with a gold of that format beside it.
fn predictions(format: &'static str, gold_name: &str, gold: &str, dir: &Path) -> Read {
    let gold = put(dir, gold_name, gold);
    let column = (format == "sqleval" && gold_name.ends_with(".tsv")).then_some("gold");
    let (inputs, items) = gold_items(format, &gold, column);
    let entry = format_entry(format);
    Box::new(move |path: &Path| {
        let p = PredictionInput {
            name: "fuzz".into(),
            file: path.to_path_buf(),
            column: None,
            extract: None,
        };
        (entry.read_predictions)(&p, &inputs, &items)
            .map(|_| ())
            .map_err(|e| e.to_string())
    })
}

fn gold(format: &'static str, column: Option<&'static str>) -> Read {
    let entry = format_entry(format);
    Box::new(move |path: &Path| {
        let inputs = Inputs {
            name: "fuzz".into(),
            gold: path.to_path_buf(),
            gold_column: column.map(str::to_owned),
            subset: Vec::new(),
            predictions: Vec::new(),
        };
        (entry.read_gold)(&inputs)
            .map(|_| ())
            .map_err(|e| e.to_string())
    })
}

fn readers() -> Vec<Reader> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        Reader {
            name: "manifest",
            file: "m.toml",
            shape: Shape::Toml,
            seeds: s(&[MANIFEST_SPIDER, MANIFEST_SQLEVAL, MANIFEST_SEDE]),
            make: |dir| {
                put(dir, "gold.sql", GOLD_SQL);
                put(dir, "p.txt", "SELECT 1\n");
                put(dir, "tables.json", TABLES_JSON);
                put(dir, "db/concert_singer.sqlite", "");
                put(dir, "questions.csv", QUESTIONS_CSV);
                put(dir, "p.csv", "generated_query\nSELECT 1\nSELECT 2\n");
                put(dir, "val.jsonl", SEDE_JSONL);
                Box::new(|path: &Path| {
                    let m = Manifest::load(path).map_err(|e| e.to_string())?;
                    match registry::compose(&m) {
                        Ok(_) => Ok(()),
                        // Unavailable data is how a valid manifest ends without the
                        // environment it names.
                        Err(e) => Err(e.to_string()),
                    }
                })
            },
        },
        Reader {
            name: "tables_json",
            file: "tables.json",
            shape: Shape::Json,
            seeds: s(&[TABLES_JSON]),
            make: |_| {
                Box::new(|path: &Path| {
                    dataset::tables::read(path).map_err(|e| e.to_string())?;
                    exact_match::load_schemas(path).map_err(|e| e.to_string())?;
                    sqlsuite_distill::check_tables_json(path)
                        .map(|_| ())
                        .map_err(|e| e.to_string())
                })
            },
        },
        Reader {
            name: "spider_dev_json",
            file: "dev.json",
            shape: Shape::Json,
            seeds: s(&[SPIDER_JSON]),
            make: |_| gold("spider", None),
        },
        Reader {
            name: "spider_gold_sql",
            file: "dev_gold.sql",
            shape: Shape::Lines,
            seeds: s(&[GOLD_SQL]),
            make: |_| gold("spider", None),
        },
        Reader {
            name: "interactions_gold",
            file: "dev_gold.txt",
            shape: Shape::Lines,
            seeds: s(&[INTERACTIONS]),
            make: |_| gold("interactions", None),
        },
        Reader {
            name: "classical_json",
            file: "classical_test.json",
            shape: Shape::Json,
            seeds: s(&[CLASSICAL_JSON]),
            make: |_| gold("classical", None),
        },
        Reader {
            name: "sqleval_csv",
            file: "questions.csv",
            shape: Shape::Table(b','),
            seeds: s(&[QUESTIONS_CSV]),
            make: |_| gold("sqleval", None),
        },
        Reader {
            name: "sqleval_tsv",
            file: "pairs.tsv",
            shape: Shape::Table(b'\t'),
            seeds: s(&[PAIRS_TSV]),
            make: |_| gold("sqleval", Some("gold")),
        },
        Reader {
            name: "sede_jsonl",
            file: "val.jsonl",
            shape: Shape::JsonLines,
            seeds: s(&[SEDE_JSONL]),
            make: |_| gold("sede", None),
        },
        Reader {
            name: "sql2text_json",
            file: "gold.json",
            shape: Shape::Json,
            seeds: s(&[SQL2TEXT_JSON]),
            make: |_| gold("sql2text", None),
        },
        Reader {
            name: "sql2text_jsonl",
            file: "gold.jsonl",
            shape: Shape::JsonLines,
            seeds: s(&[SQL2TEXT_JSONL]),
            make: |_| gold("sql2text", None),
        },
        Reader {
            name: "schema_csv",
            file: "schema.csv",
            shape: Shape::SchemaCsv,
            seeds: s(&[SCHEMA_CSV_FLAGS, SCHEMA_CSV_DESCRIBE]),
            make: |_| {
                Box::new(|path: &Path| {
                    sqlsuite::backend::sqlite::script_of(path)
                        .expect("a .csv is a script")?;
                    match sqlsuite::backend::sqlite::load_script(path) {
                        Some(Ok(_)) => Ok(()),
                        Some(Err(e)) => Err(e.to_string()),
                        None => Err("not a script".into()),
                    }
                })
            },
        },
        Reader {
            name: "exclusions_json",
            file: "suite/db/exclusions.json",
            shape: Shape::Json,
            seeds: s(&[EXCLUSIONS_JSON]),
            make: |dir| {
                put(dir, "suite/db/db_0.sqlite", "");
                put(dir, "suite/db/db_1.sqlite", "");
                let pattern = format!("{}/suite/{{db_id}}/*.sqlite", dir.display());
                let locator = DatabaseLocator::new(&pattern).expect("suite pattern");
                Box::new(move |_: &Path| {
                    for gold in ["SELECT 1", "SELECT 2", "x"] {
                        locator.resolve_for("db", gold)?;
                    }
                    Ok(())
                })
            },
        },
        Reader {
            name: "predictions_lines",
            file: "p.txt",
            shape: Shape::Lines,
            seeds: s(&["SELECT 1\n\nSELECT a\tdb_x\r\nNO PREDICTION\n", "SELECT 1"]),
            make: |_| {
                Box::new(|path: &Path| {
                    dataset::predictions::read_lines(path)
                        .map(|_| ())
                        .map_err(|e| e.to_string())
                })
            },
        },
        Reader {
            name: "predictions_interactions",
            file: "p.txt",
            shape: Shape::Lines,
            seeds: s(&["a\nb\t db\n\nc\n\n"]),
            make: |dir| predictions("interactions", "gold.txt", INTERACTIONS, dir),
        },
        Reader {
            name: "predictions_classical_jsonl",
            file: "p.jsonl",
            shape: Shape::JsonLines,
            seeds: s(&["{\"index\": 1, \"query\": \"SELECT 1\"}\n{\"index\": 0, \"query\": \"x\"}\n"]),
            make: |dir| predictions("classical", "classical_test.json", CLASSICAL_JSON, dir),
        },
        Reader {
            name: "predictions_sqleval_csv",
            file: "p.csv",
            shape: Shape::Table(b','),
            seeds: s(&[
                "index,generated_query\n1,\"SELECT a,\nb\"\n0,SELECT 2\n",
                "question,generated_query\nq,SELECT 1\nr,\n",
            ]),
            make: |dir| predictions("sqleval", "questions.csv", QUESTIONS_CSV, dir),
        },
        Reader {
            name: "predictions_sqleval_tsv",
            file: "p.tsv",
            shape: Shape::Table(b'\t'),
            seeds: s(&["index\tgenerated_query\n1\tSELECT\\t1\n0\tSELECT 2\\\\\n"]),
            make: |dir| predictions("sqleval", "pairs.tsv", PAIRS_TSV, dir),
        },
        Reader {
            name: "predictions_sqleval_jsonl",
            file: "p.jsonl",
            shape: Shape::JsonLines,
            seeds: s(&[
                "{\"index\": 1, \"generated_query\": \"SELECT 1\"}\n{\"index\": 0, \"generated_query\": null}\n",
            ]),
            make: |dir| predictions("sqleval", "questions.csv", QUESTIONS_CSV, dir),
        },
        Reader {
            name: "predictions_sede_jsonl",
            file: "p.jsonl",
            shape: Shape::JsonLines,
            seeds: s(&[
                "{\"QuerySetId\": \"9\", \"prediction\": \"SELECT 2\"}\n{\"QuerySetId\": 7, \"QueryBody\": \"SELECT 3\"}\n",
            ]),
            make: |dir| predictions("sede", "val.jsonl", SEDE_JSONL, dir),
        },
        Reader {
            name: "predictions_sql2text_jsonl",
            file: "p.jsonl",
            shape: Shape::JsonLines,
            seeds: s(&[
                "{\"index\": 1, \"prediction\": \"one\"}\n{\"index\": 0, \"text\": \"How many?\"}\n",
            ]),
            make: |dir| predictions("sql2text", "gold.json", SQL2TEXT_JSON, dir),
        },
    ]
}
