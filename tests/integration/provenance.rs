//! Provenance in snapshots: it names every input by a hash, it changes when one byte of a
//! database file changes, and it is the same wherever the dataset lies.

use std::path::Path;

use sha2::{Digest, Sha256};
use sqlsuite::report::snapshot;
use sqlsuite::Evaluation;

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A tiny dataset in `dir`: one SQLite database file, two golds, one prediction set.
fn tiny_dataset(dir: &Path) {
    std::fs::create_dir_all(dir.join("db/shop")).unwrap();
    let db = rusqlite::Connection::open(dir.join("db/shop/shop.sqlite")).unwrap();
    db.execute_batch(
        "CREATE TABLE item(id INTEGER, name TEXT);
         INSERT INTO item VALUES (1, 'pen'), (2, 'ink');",
    )
    .unwrap();
    drop(db);
    std::fs::write(
        dir.join("gold.sql"),
        "SELECT name FROM item WHERE id = 1\tshop\nSELECT count(*) FROM item\tshop\n",
    )
    .unwrap();
    std::fs::create_dir(dir.join("predictions")).unwrap();
    std::fs::write(
        dir.join("predictions/p.txt"),
        "SELECT name FROM item WHERE id = 1\nSELECT count(*) FROM item\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("m.toml"),
        "[dataset]\nname = \"tiny\"\nformat = \"spider\"\ngold = \"gold.sql\"\n\n\
         [databases]\npath = \"db/{db_id}/{db_id}.sqlite\"\n\n\
         [[predictions]]\nname = \"p\"\nfile = \"predictions/p.txt\"\n\n\
         [metrics.exec]\ntimeout_ms = 1500\nkeep_distinct = true\n",
    )
    .unwrap();
}

/// The snapshot's provenance block (from `provenance:` to the blank line after it).
fn provenance_block(manifest: &Path) -> String {
    let run = Evaluation::open(manifest).unwrap().run(&[0]);
    let text = snapshot::render(&run, &run.sets[0]);
    let start = text.find("provenance:\n").expect("a provenance block");
    let end = text[start..].find("\n\n").expect("a blank line after it") + start;
    text[start..=end].to_owned()
}

#[test]
fn provenance_names_each_input_by_its_sha256() {
    let dir = tempfile::tempdir().unwrap();
    tiny_dataset(dir.path());
    let block = provenance_block(&dir.path().join("m.toml"));
    let gold = sha256(&std::fs::read(dir.path().join("gold.sql")).unwrap());
    let predictions = sha256(&std::fs::read(dir.path().join("predictions/p.txt")).unwrap());
    let db = sha256(&std::fs::read(dir.path().join("db/shop/shop.sqlite")).unwrap());
    let databases = sha256(format!("shop/shop.sqlite\t{db}\n").as_bytes());
    let expected = format!(
        "provenance:\n  sqlsuite {}, SQLite {}\n  clock: system\n  gold: gold.sql sha256:{gold}\n  \
         predictions: p.txt sha256:{predictions}\n  \
         databases: 1 file sha256:{databases}\n  \
         metrics.exec: keep_distinct = true, timeout_ms = 1500\n",
        env!("CARGO_PKG_VERSION"),
        rusqlite::version()
    );
    assert_eq!(block, expected);
}

#[test]
fn one_changed_byte_of_a_database_file_changes_the_provenance() {
    let dir = tempfile::tempdir().unwrap();
    tiny_dataset(dir.path());
    let manifest = dir.path().join("m.toml");
    let before = provenance_block(&manifest);

    // 'pen' → 'pan' inside the database file: one byte, the file still a valid database.
    let db = dir.path().join("db/shop/shop.sqlite");
    let mut bytes = std::fs::read(&db).unwrap();
    let at = bytes
        .windows(3)
        .position(|w| w == b"pen")
        .expect("the value is stored as written");
    bytes[at + 1] = b'a';
    std::fs::write(&db, &bytes).unwrap();
    let after = provenance_block(&manifest);

    assert_ne!(before, after);
    let changed: Vec<(&str, &str)> = before
        .lines()
        .zip(after.lines())
        .filter(|(b, a)| b != a)
        .collect();
    assert_eq!(changed.len(), 1, "{before}\n{after}");
    assert!(changed[0].1.starts_with("  databases: 1 file sha256:"));
    let expected = sha256(format!("shop/shop.sqlite\t{}\n", sha256(&bytes)).as_bytes());
    assert!(changed[0].1.ends_with(&expected), "{}", changed[0].1);
    // The query sees the change too: the provenance described the data that was judged.
    let eval = Evaluation::open(&manifest).unwrap();
    let gold_rows = eval.executor().gold(
        &eval.dataset.databases[0].as_ref().unwrap()[0],
        "SELECT name FROM item",
        &Default::default(),
    );
    assert!(format!("{gold_rows:?}").contains("pan"), "{gold_rows:?}");
}

#[test]
fn provenance_is_the_same_wherever_the_dataset_lies() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    tiny_dataset(a.path());
    // The same files, byte for byte, elsewhere (SQLite files are not rewritten on open).
    for rel in [
        "gold.sql",
        "predictions/p.txt",
        "db/shop/shop.sqlite",
        "m.toml",
    ] {
        std::fs::create_dir_all(b.path().join(rel).parent().unwrap()).unwrap();
        std::fs::copy(a.path().join(rel), b.path().join(rel)).unwrap();
    }
    let block = provenance_block(&a.path().join("m.toml"));
    assert_eq!(block, provenance_block(&b.path().join("m.toml")));
    let a_dir = a.path().display().to_string();
    assert!(!block.contains(&a_dir), "{block}");
}

#[test]
fn the_clock_is_in_the_provenance_pinned_or_with_the_machines_time() {
    let dir = tempfile::tempdir().unwrap();
    tiny_dataset(dir.path());
    let manifest = dir.path().join("m.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    // Without the key: the machine's clock, its time in the provenance (not in the snapshot).
    let eval = Evaluation::open(&manifest).unwrap();
    let clock = eval.provenance().clock.clone();
    assert!(clock.starts_with("system 2"), "{clock}");
    assert!(provenance_block(&manifest).contains("\n  clock: system\n"));
    let pinned = text.replace(
        "gold = \"gold.sql\"\n",
        "gold = \"gold.sql\"\nclock = \"2024-05-01T12:00:00Z\"\n",
    );
    std::fs::write(&manifest, pinned).unwrap();
    assert!(provenance_block(&manifest).contains("\n  clock: pinned 2024-05-01T12:00:00Z\n"));
    let run = Evaluation::open(&manifest).unwrap().run(&[0]);
    let header = sqlsuite::report::jsonl::lines(&run, &run.sets[0]).remove(0);
    assert!(
        header.contains("\"clock\":\"pinned 2024-05-01T12:00:00Z\""),
        "{header}"
    );
}

#[test]
fn a_malformed_clock_is_an_error_naming_the_file_and_the_key() {
    let dir = tempfile::tempdir().unwrap();
    tiny_dataset(dir.path());
    let manifest = dir.path().join("m.toml");
    let text = std::fs::read_to_string(&manifest).unwrap();
    for bad in ["2024-05-01", "2024-05-01T12:00:00+02:00", "now"] {
        let with = text.replace(
            "gold = \"gold.sql\"\n",
            &format!("gold = \"gold.sql\"\nclock = \"{bad}\"\n"),
        );
        std::fs::write(&manifest, with).unwrap();
        let error = Evaluation::open(&manifest).unwrap_err().to_string();
        assert!(
            error.contains("m.toml:5:") && error.contains("[dataset] clock") && error.contains(bad),
            "{error}"
        );
    }
}
