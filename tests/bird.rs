//! BIRD mini-dev as a model's repository runs it (`cargo test --test bird`): the 13 published
//! SQLite prediction sets of `datasets/bird.toml`, each prediction a named trial
//! (`bird::<set>::<index>_<db_id>`, failing with the reason), each set's verdicts an insta
//! snapshot (`snapshots/bird__<set>.snap`: which items flipped) and its gate.
//!
//! The databases are the test suites sqlsuite distils from BIRD's published profile
//! (spec/bird.md §6), in `target/suites/bird`, where `sqlsuite distill datasets/bird.toml`
//! writes them. This target distils them first when they are missing, or when they were
//! distilled from other sources than these (a fingerprint of the distiller's and the core's
//! sources, `Cargo.lock`, the manifest, BIRD's schemas and profile, written beside the suites):
//! a few minutes, with progress. `-- --list` lists the trials without distilling.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use sha2::{Digest, Sha256};
use sqlsuite::Manifest;

const MANIFEST: &str = "datasets/bird.toml";
const SUITES: &str = "target/suites/bird";
/// Beside the suites: the fingerprint of what they were distilled from.
const FINGERPRINT: &str = "sources.sha256";
/// The directories whose sources make the suites (recursively).
const SOURCES: &[&str] = &["crates/distill/src", "crates/core/src"];

fn main() -> ExitCode {
    let listing = std::env::args().any(|a| a == "--list");
    if !listing {
        if let Err(e) = fresh_suites() {
            eprintln!("bird: cannot distil the suites into {SUITES}: {e}");
            return ExitCode::FAILURE;
        }
    }
    sqlsuite::trials::run(&[MANIFEST])
}

/// Distils the suites unless they exist and were distilled from the sources here. Without the
/// shared data there is nothing to distil: the trials report it.
fn fresh_suites() -> Result<(), String> {
    let manifest = Manifest::load(MANIFEST).map_err(|e| e.to_string())?;
    if !manifest.gold.is_file() {
        return Ok(());
    }
    let wanted = fingerprint(&manifest)?;
    let stamp = Path::new(SUITES).join(FINGERPRINT);
    let report = Path::new(SUITES).join("report.json");
    if report.is_file() && std::fs::read_to_string(&stamp).is_ok_and(|s| s.trim() == wanted) {
        return Ok(());
    }
    eprintln!(
        "bird: distilling the test suites into {SUITES} (missing or from other sources; \
         `sqlsuite distill {MANIFEST}` does the same)"
    );
    // A partial suite from an interrupted run must not be taken for a whole one.
    let _ = std::fs::remove_file(&stamp);
    let status = Command::new(env!("CARGO_BIN_EXE_sqlsuite"))
        .args(["distill", MANIFEST, "--out", SUITES])
        .status()
        .map_err(|e| format!("sqlsuite distill: {e}"))?;
    if !status.success() {
        return Err(format!("sqlsuite distill {MANIFEST}: {status}"));
    }
    std::fs::write(&stamp, format!("{wanted}\n")).map_err(|e| format!("{}: {e}", stamp.display()))
}

/// SHA-256 over the path and bytes of every file the suites depend on, in path order.
fn fingerprint(manifest: &Manifest) -> Result<String, String> {
    let mut files: Vec<PathBuf> = vec![PathBuf::from("Cargo.lock"), manifest.path.clone()];
    for dir in SOURCES {
        files_under(Path::new(dir), &mut files)?;
    }
    if let Some(profile) = &manifest.distill.profile {
        files.push(profile.clone());
    }
    for pattern in &manifest.distill.schema {
        if let Some(dir) = Path::new(pattern).parent() {
            files_under(dir, &mut files)?;
        }
    }
    files.sort();
    files.dedup();
    let mut hash = Sha256::new();
    for file in &files {
        let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
        hash.update(file.to_string_lossy().as_bytes());
        hash.update((bytes.len() as u64).to_le_bytes());
        hash.update(&bytes);
    }
    Ok(hash.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.is_dir() {
            files_under(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}
