//! Shrinking on small database files: what is kept, the foreign keys, the bound, the file
//! left as it was.

use std::path::Path;

use super::*;
use crate::backend::Database;

/// A database file with `script`'s tables and rows.
fn database(dir: &Path, script: &str) -> Database {
    let path = dir.join("db.sqlite");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(script).unwrap();
    drop(conn);
    Database::file(path)
}

fn question<'a>(db: &'a Database, gold: &'a str, prediction: &'a str) -> Question<'a> {
    Question {
        database: db,
        clock: Clock::System,
        gold,
        prediction,
        plugged: false,
        compare: CompareOptions::default(),
        order: None,
        limits: Limits::default(),
        relative: None,
    }
}

/// 40 people aged 20 to 59; `>` and `>=` differ on the one aged 30 only.
const PEOPLE: &str = "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT, age INT);
    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 39)
    INSERT INTO person SELECT i, 'p' || i, 20 + i FROM n;";

/// [`PEOPLE`] and a note for each person.
fn people_with_notes() -> String {
    format!(
        "{PEOPLE}
        CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT);
        INSERT INTO note SELECT id, name FROM person;"
    )
}

/// Three teams and five players, each player's team a declared foreign key.
const TEAMS: &str = "CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT);
    CREATE TABLE player(id INTEGER PRIMARY KEY, team INT REFERENCES team(id), goals INT);
    INSERT INTO team VALUES (1, 'a'), (2, 'b'), (3, 'c');
    INSERT INTO player VALUES (1, 1, 5), (2, 2, 7), (3, 3, 0), (4, 1, 2), (5, 2, 1);";

fn shown(found: Found) -> Counterexample {
    match found {
        Found::Shown(c) => *c,
        Found::NotShown(why) => panic!("no counterexample: {why}"),
    }
}

#[test]
fn a_boundary_row_is_all_that_is_kept_and_the_file_is_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), PEOPLE);
    let path = db.as_file().unwrap().to_path_buf();
    let before = std::fs::read(&path).unwrap();
    let q = question(
        &db,
        "SELECT name FROM person WHERE age > 30",
        "SELECT name FROM person WHERE age >= 30",
    );
    let c = shown(find(&q, Budget::default()));
    assert!(c.minimal && c.not_minimal.is_none(), "{c:?}");
    assert_eq!((c.original_rows, c.rows, c.other_rows), (40, 1, 0));
    assert_eq!(c.tables.len(), 1);
    assert_eq!(c.tables[0].table, "person");
    // The name is simplified (it only has to be there); the age, the boundary, stays.
    assert_eq!(
        c.tables[0].rows.rows,
        vec![vec![
            Value::Int(10),
            Value::Text(String::new()),
            Value::Int(30)
        ]]
    );
    assert_eq!((c.gold.count, c.predicted.count), (Some(0), Some(1)));
    let text = c.render();
    assert!(
        text.contains("1 of db.sqlite's 40 rows") && text.contains("1-minimal"),
        "{text}"
    );
    // The database file is byte for byte what it was.
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn a_parent_row_a_kept_child_references_is_kept_too() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), TEAMS);
    // They differ on any player of a team other than 1: the player reads no team, but a
    // kept player keeps its team (deleting it would leave the reference dangling).
    let q = question(
        &db,
        "SELECT count(*) FROM player",
        "SELECT count(*) FROM player WHERE team = 1",
    );
    let c = shown(find(&q, Budget::default()));
    assert!(c.minimal, "{c:?}");
    assert_eq!((c.rows, c.other_rows), (1, 1), "{}", c.render());
    let player = &c.tables[0].rows.rows[0];
    assert_ne!(player[1], Value::Int(1));
    // Without the foreign key the team goes too.
    let dir = tempfile::tempdir().unwrap();
    let db = database(
        dir.path(),
        "CREATE TABLE team(id INTEGER PRIMARY KEY, name TEXT);
         CREATE TABLE player(id INTEGER PRIMARY KEY, team INT, goals INT);
         INSERT INTO team VALUES (1, 'a'), (2, 'b');
         INSERT INTO player VALUES (1, 1, 5), (2, 2, 7);",
    );
    let q = question(
        &db,
        "SELECT count(*) FROM player",
        "SELECT count(*) FROM player WHERE team = 1",
    );
    let c = shown(find(&q, Budget::default()));
    assert_eq!((c.rows, c.other_rows), (1, 0), "{}", c.render());
}

#[test]
fn a_tiny_budget_keeps_the_smallest_database_so_far_and_says_it_is_not_minimal() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), PEOPLE);
    let q = question(
        &db,
        "SELECT name FROM person WHERE age > 30",
        "SELECT name FROM person WHERE age >= 30",
    );
    let tiny = Budget {
        probes: 3,
        ..Budget::default()
    };
    let c = shown(find(&q, tiny));
    assert!(!c.minimal, "{c:?}");
    let why = c.not_minimal.as_deref().unwrap_or_default();
    assert!(why.contains("probe budget, 3 probes"), "{why}");
    assert!(c.rows >= 1 && c.rows < 40, "{}", c.rows);
    assert!(c.render().contains("not minimal"));
    // Shown only re-checked: the queries still differ on what is kept.
    assert_eq!(c.predicted.count.unwrap(), c.gold.count.unwrap() + 1);
}

#[test]
fn queries_that_agree_get_none_and_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), PEOPLE);
    let q = question(
        &db,
        "SELECT name FROM person WHERE age > 30",
        "SELECT name FROM person WHERE age >= 31",
    );
    match find(&q, Budget::default()) {
        Found::NotShown(why) => assert!(why.contains("do not differ"), "{why}"),
        Found::Shown(c) => panic!("{c:?}"),
    }
}

#[test]
fn a_step_budget_stops_it_the_same_way_every_time() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), PEOPLE);
    let q = question(
        &db,
        "SELECT name FROM person WHERE age > 30",
        "SELECT name FROM person WHERE age >= 30",
    );
    // A few probes' worth of steps: stopped, not minimal, and why.
    let few = Budget {
        steps: 50,
        ..Budget::default()
    };
    let c = shown(find(&q, few));
    let why = c.not_minimal.clone().unwrap_or_default();
    assert!(why.contains("step budget, 50 SQLite steps"), "{c:?}");
    assert!(c.steps >= 50 && c.rows < 40, "{c:?}");
    // Deterministic: the same counterexample again, stopped or not (no clock decides).
    assert_eq!(find(&q, few), Found::Shown(Box::new(c)));
    assert_eq!(find(&q, Budget::default()), find(&q, Budget::default()));
}

#[test]
fn a_table_neither_query_reads_is_emptied_without_running_them() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), &people_with_notes());
    let q = question(
        &db,
        "SELECT name FROM person WHERE age > 30",
        "SELECT name FROM person WHERE age >= 30",
    );
    let c = shown(find(&q, Budget::default()));
    assert!(c.minimal, "{c:?}");
    assert_eq!((c.original_rows, c.rows, c.other_rows), (80, 1, 0));
    // Emptying `note` ran no query: the steps are those of the same shrinking without it.
    let other = tempfile::tempdir().unwrap();
    let alone = database(other.path(), PEOPLE);
    let without = shown(find(
        &question(&alone, q.gold, q.prediction),
        Budget::default(),
    ));
    assert_eq!(c.steps, without.steps);
    assert_eq!(c.probes, without.probes + 1);
}

#[test]
fn a_value_is_simplified_and_one_the_queries_need_stays() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), PEOPLE);
    let q = question(
        &db,
        "SELECT name FROM person WHERE age > 30",
        "SELECT name FROM person WHERE age >= 30",
    );
    let c = shown(find(&q, Budget::default()));
    // `name` 'p10' becomes '' (the queries still differ: one row against none); `age` 30
    // would make them agree as 0 or 1 (both empty), so it stays; `id` is the primary key.
    assert_eq!(
        c.simplified,
        vec![Simplified {
            table: "person".into(),
            row: 0,
            column: "name".into(),
            was: Value::Text("p10".into()),
            now: Value::Text(String::new()),
        }]
    );
    assert_eq!(c.tables[0].rows.rows[0][2], Value::Int(30));
    assert_eq!(c.predicted.rows, vec![vec![Value::Text(String::new())]]);
    let text = c.render();
    assert!(
        text.contains("values simplified: person row 1 name: '' (was 'p10')"),
        "{text}"
    );
    // Only re-checked values are shown, and the same ones every time.
    assert!(c.minimal);
    assert_eq!(find(&q, Budget::default()), Found::Shown(Box::new(c)));
}

#[test]
fn a_referenced_key_and_its_references_are_left_as_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(
        dir.path(),
        "CREATE TABLE team(id INTEGER PRIMARY KEY, code TEXT UNIQUE, name TEXT);
         CREATE TABLE player(id INTEGER PRIMARY KEY, team TEXT REFERENCES team(code), goals INT);
         INSERT INTO team VALUES (1, 'ALP', 'Alpha'), (2, 'BET', 'Beta');
         INSERT INTO player VALUES (1, 'ALP', 7), (2, 'BET', 3), (3, 'ALP', 5);",
    );
    // Neither query joins on the key: only the declared foreign key ties the two rows kept, so
    // simplifying `team.code` or `player.team` would keep them differing but leave the
    // reference dangling.
    let q = question(
        &db,
        "SELECT t.name, p.goals FROM player p, team t",
        "SELECT t.name, p.goals + 1 FROM player p, team t",
    );
    let c = shown(find(&q, Budget::default()));
    assert!(c.minimal, "{}", c.render());
    let rows = |table: &str| {
        let t = c.tables.iter().find(|t| t.table == table).unwrap();
        t.rows.rows.clone()
    };
    let (team, player) = (rows("team"), rows("player"));
    assert_eq!((team.len(), player.len()), (1, 1), "{}", c.render());
    // The key (`team.code`) and the reference (`player.team`) keep the database's value, the
    // same on both sides; the other cells are simplified.
    assert_eq!(team[0][1], player[0][1]);
    assert!(
        matches!(&team[0][1], Value::Text(code) if code.len() == 3),
        "{team:?}"
    );
    assert_eq!(
        (&team[0][2], &player[0][2]),
        (&Value::Text(String::new()), &Value::Int(0))
    );
    let columns: Vec<&str> = c.simplified.iter().map(|s| s.column.as_str()).collect();
    assert_eq!(columns, ["name", "goals"], "{}", c.render());
    assert_eq!(
        c.gold.rows,
        vec![vec![Value::Text(String::new()), Value::Int(0)]]
    );
}

/// `db` shrunk for `q` with the gold's reads known (`gold_known`) or taken as every table: the
/// rowids kept in each table, and what it spent.
fn shrunk_with(
    db: &Database,
    q: &Question<'_>,
    gold_known: bool,
) -> (Vec<Option<Vec<i64>>>, shrink::Shrinking) {
    let path = Path::new(db.as_file().unwrap());
    let mut scratch = Scratch::open(path, Clock::System).unwrap();
    let gold = scratch.tables_read(q.gold).unwrap();
    let mut either = gold.clone();
    either.extend(scratch.tables_read(q.prediction).unwrap());
    let reads = shrink::Reads {
        either: Some(&either),
        gold: gold_known.then_some(&gold),
    };
    let spent = shrink::shrink(
        q,
        &mut scratch,
        &reads,
        Budget::default(),
        Default::default(),
    );
    (
        scratch.tables.iter().map(|t| t.rowids.clone()).collect(),
        spent,
    )
}

#[test]
fn a_probe_in_a_table_the_gold_does_not_read_reuses_the_gold_result() {
    // Only the prediction reads `note`: deleting notes leaves the gold's rows as they were.
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), &people_with_notes());
    let q = question(
        &db,
        "SELECT name FROM person WHERE age > 30",
        "SELECT name FROM person WHERE age > 30 AND id NOT IN (SELECT id FROM note)",
    );
    let c = shown(find(&q, Budget::default()));
    // One person over 30 and the note that hides them from the prediction.
    assert!(c.minimal, "{c:?}");
    assert_eq!((c.rows, c.other_rows), (2, 0), "{}", c.render());
    // The same rows kept, probes and steps counted, with the gold run on every probe or not.
    let (kept, reusing) = shrunk_with(&db, &q, true);
    let (kept_running, running) = shrunk_with(&db, &q, false);
    assert_eq!(kept, kept_running);
    assert_eq!(
        (reusing.probes, reusing.steps),
        (running.probes, running.steps)
    );
    assert_eq!(running.gold_reused, 0);
    assert!(reusing.gold_reused > 0, "{}", reusing.gold_reused);
    assert!(reusing.gold_reused < reusing.probes);
}

/// `db` (one table `t`) shrunk for `q`, then its values simplified: the changes and the probes
/// the simplification alone spent.
fn simplified_alone(db: &Database, q: &Question<'_>) -> (Vec<(String, Value)>, usize) {
    let path = Path::new(db.as_file().unwrap());
    let mut scratch = Scratch::open(path, Clock::System).unwrap();
    let read: BTreeSet<String> = ["t".to_owned()].into();
    let reads = shrink::Reads {
        either: Some(&read),
        gold: Some(&read),
    };
    let mut spent = shrink::shrink(
        q,
        &mut scratch,
        &reads,
        Budget::default(),
        Default::default(),
    );
    assert_eq!(scratch.tables[0].rowids.as_ref().map(Vec::len), Some(1));
    let before = spent.probes;
    let changes = simplify::simplify(q, &mut scratch, Some(&read), Budget::default(), &mut spent);
    let changes = changes.into_iter().map(|c| (c.column, c.now)).collect();
    (changes, spent.probes - before)
}

#[test]
fn every_cell_at_its_simplest_at_once_takes_one_probe_and_else_each_cell_is_tried() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(
        dir.path(),
        "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b INT);
         INSERT INTO t VALUES (1, 'x y', 4), (2, 'z', 9), (3, 'w', 12);",
    );
    // Any one row tells these apart, with any values: '' and 0 at once, one probe.
    let apart = question(&db, "SELECT a, b FROM t", "SELECT a, b + 1 FROM t");
    let (changes, probes) = simplified_alone(&db, &apart);
    assert_eq!(
        changes,
        [
            ("a".to_owned(), Value::Text(String::new())),
            ("b".to_owned(), Value::Int(0))
        ]
    );
    assert_eq!(probes, 1);
    // Only b = 4 tells these apart: all at once (b = 0) makes them agree, so cell by cell,
    // the text to '' (1 probe), then b to 0 and to 1 (2 probes), neither kept.
    let boundary = question(
        &db,
        "SELECT a FROM t WHERE b > 3",
        "SELECT a FROM t WHERE b > 4",
    );
    let (changes, probes) = simplified_alone(&db, &boundary);
    assert_eq!(changes, [("a".to_owned(), Value::Text(String::new()))]);
    assert_eq!(probes, 1 + 1 + 2);
}

#[test]
fn queries_too_costly_to_shrink_get_none_and_say_why_without_running_again() {
    // 4,000 rows: the empty table makes the counts agree (0 and 0), and half of them still
    // make a join of 4 million pairs, past a probe's step limit, so the second probe ends the
    // shrinking with every row kept.
    let dir = tempfile::tempdir().unwrap();
    let db = database(
        dir.path(),
        "CREATE TABLE t(id INTEGER PRIMARY KEY, v INT);
         WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)
         INSERT INTO t SELECT i, i % 7 FROM n;",
    );
    let q = question(
        &db,
        "SELECT count(*) FROM t a, t b WHERE a.v + b.v = 3",
        "SELECT count(*) FROM t a, t b WHERE a.v + b.v = 4",
    );
    let Found::NotShown(why) = find(&q, Budget::default()) else {
        panic!("a counterexample shown");
    };
    assert!(
        why.contains("no row of the tables the queries read could be deleted")
            && why.contains("stopped at its step limit")
            && why.contains("db.sqlite"),
        "{why}"
    );
}

#[test]
fn rows_put_back_after_emptying_a_table_are_as_they_were_and_no_trigger_fires() {
    let dir = tempfile::tempdir().unwrap();
    // Every storage class in the kept row; `person` without a trigger is emptied and refilled,
    // `guarded` (an insert would log a row) is reduced row by row.
    let db = database(
        dir.path(),
        "CREATE TABLE person(id INTEGER PRIMARY KEY, name TEXT, age INT, score REAL, tag BLOB);
         WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 39)
         INSERT INTO person SELECT i * 3, 'p' || i, 20 + i, i / 4.0, x'00ff' FROM n;
         CREATE TABLE guarded(id INTEGER PRIMARY KEY, age INT);
         INSERT INTO guarded SELECT id, age FROM person;
         CREATE TABLE log(id INT);
         CREATE TRIGGER logged AFTER INSERT ON guarded BEGIN INSERT INTO log VALUES (new.id); END;",
    );
    let q = question(
        &db,
        "SELECT p.id, p.age, p.score, p.tag FROM person p, guarded g WHERE p.age > 30 AND g.age > 30",
        "SELECT p.id, p.age, p.score, p.tag FROM person p, guarded g WHERE p.age >= 30 AND g.age >= 30",
    );
    let c = shown(find(&q, Budget::default()));
    assert!(c.minimal, "{}", c.render());
    assert_eq!((c.rows, c.other_rows), (2, 0), "{}", c.render());
    // The boundary row, rowid 30 (i = 10), with its own values: the blob as it was, the
    // score as it was before it was simplified.
    assert_eq!(
        c.predicted.rows,
        vec![vec![
            Value::Int(30),
            Value::Int(30),
            Value::Real(0.0),
            Value::Blob(vec![0, 255])
        ]]
    );
    let score = c.simplified.iter().find(|s| s.column == "score");
    assert_eq!(
        score.map(|s| &s.was),
        Some(&Value::Real(2.5)),
        "{}",
        c.render()
    );
}

#[test]
fn a_parent_row_is_pinned_only_where_a_child_references_it_by_a_key_no_other_row_has() {
    let dir = tempfile::tempdir().unwrap();
    // Codes 'a' (twice), 'b' and 'c': the children reference 'a' and 'b'. A boss references
    // the first employee; the third references only itself. (A key that is not unique is a
    // "foreign key mismatch" where SQLite enforces keys; shrinking does not.)
    let db = database(
        dir.path(),
        "PRAGMA foreign_keys = OFF;
         CREATE TABLE team(code TEXT);
         INSERT INTO team(rowid, code) VALUES (1, 'a'), (2, 'a'), (3, 'b'), (4, 'c');
         CREATE TABLE player(id INTEGER PRIMARY KEY, team TEXT REFERENCES team(code));
         INSERT INTO player VALUES (1, 'a'), (2, 'b'), (3, NULL);
         CREATE TABLE employee(id INTEGER PRIMARY KEY, boss INT REFERENCES employee(id));
         INSERT INTO employee VALUES (1, NULL), (2, 1), (3, 3);",
    );
    let scratch = Scratch::open(Path::new(db.as_file().unwrap()), Clock::System).unwrap();
    let position = |name: &str| scratch.tables.iter().position(|t| t.name == name).unwrap();
    // Either 'a' row alone may go (the other still holds the key); 'b' may not; 'c' has no child.
    assert_eq!(scratch.pinned(position("team")), BTreeSet::from([3]));
    assert_eq!(scratch.pinned(position("employee")), BTreeSet::from([1]));
    assert_eq!(scratch.pinned(position("player")), BTreeSet::new());
}

#[test]
fn a_layout_read_once_gives_what_a_fresh_copy_gives() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path(), TEAMS);
    // They differ on the player of team 'a' with 2 goals.
    let q = question(
        &db,
        "SELECT t.name FROM team t JOIN player p ON p.team = t.id WHERE p.goals > 4",
        "SELECT t.name FROM team t JOIN player p ON p.team = t.id WHERE p.goals > 1",
    );
    let fresh = find(&q, Budget::default());
    let layouts = Layouts::default();
    // The second copy takes the first one's layout, read before any of its rows was deleted.
    let first = find_in(&q, Budget::default(), &layouts);
    let again = find_in(&q, Budget::default(), &layouts);
    assert!(matches!(fresh, Found::Shown(_)), "{}", fresh.render());
    assert_eq!(first, fresh);
    assert_eq!(again, fresh);
}

#[test]
fn without_is_the_set_difference_in_order() {
    use super::scratch::without;
    assert_eq!(without(&[1, 2, 4, 7, 9], &[0, 2, 3, 9, 12]), vec![1, 4, 7]);
    assert_eq!(without(&[], &[1]), Vec::<i64>::new());
    assert_eq!(without(&[5, 6], &[]), vec![5, 6]);
    // Against a set lookup, on every subset of ten ids.
    let all: Vec<i64> = (0..10).map(|i| i * 3 - 7).collect();
    for mask in 0u32..1 << 10 {
        let removed: Vec<i64> = (0..10)
            .filter(|i| mask & (1 << i) != 0)
            .map(|i| all[i])
            .collect();
        let set: BTreeSet<i64> = removed.iter().copied().collect();
        let expected: Vec<i64> = all.iter().copied().filter(|x| !set.contains(x)).collect();
        assert_eq!(without(&all, &removed), expected);
    }
}
