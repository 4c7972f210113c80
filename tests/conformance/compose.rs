//! SpiderCompose on the real Spider dev set (`${SQLSUITE_SHARED:-../shared}/data/spider`).
//!
//! Trials:
//! * `compose::clause_split`: hand-written queries split into the clauses `spec/compose.md`
//!   names (no data needed).
//! * `compose::splice`: the splicing algorithm on a hand-made tag sequence (no data needed).
//! * `compose::spider_dev::executes`: every emitted pair's SQL runs on its database.
//! * `compose::spider_dev::shape`: every pair is well formed (clause kinds, counts, split).
//! * `compose::spider_dev::counts`: pairs per clause count, test pairs with 3–4 clauses and
//!   alignment coverage within the ranges `spec/compose.md` records.
//! * `compose::spider_dev::deterministic`: two runs on the first 150 pairs write byte-identical
//!   files.
//! * `compose::spider_dev::reads_as_sql2text`: `compose.json` is a `sql2text` gold: its own
//!   questions as predictions score corpus BLEU 100 and all pass, per clause count too; the
//!   questions of pairs half the file away score low and almost all fail.
//!
//! The full composition of dev runs once and is shared by the trials that read it.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use libtest_mimic::{Failed, Trial};
use sqlsuite::backend::{sqlite, Limits};
use sqlsuite::trials;
use sqlsuite_compose::clauses::{split_clauses, ClauseKind};
use sqlsuite_compose::{
    self as compose, quality, splice, Composed, NaturalNames, Options, SourcePair,
};

use crate::Trials;

struct Data {
    dir: PathBuf,
    sources: Vec<SourcePair>,
    schemas: BTreeMap<String, NaturalNames>,
}

type Shared = Arc<OnceLock<Result<(Data, Composed), String>>>;

fn spider_dir() -> PathBuf {
    trials::shared_dir().join("data/spider")
}

fn build() -> Result<(Data, Composed), String> {
    let dir = spider_dir();
    let sources = compose::read_sources(&dir.join("dev.json")).map_err(|e| e.to_string())?;
    let schemas = compose::read_schemas(&dir.join("tables.json")).map_err(|e| e.to_string())?;
    let c = compose::compose(
        &sources,
        &schemas,
        &dir.join("database"),
        Options::default(),
        &|| {},
    );
    Ok((
        Data {
            dir,
            sources,
            schemas,
        },
        c,
    ))
}

fn with<T>(
    shared: &Shared,
    f: impl FnOnce(&Data, &Composed) -> Result<T, Failed>,
) -> Result<T, Failed> {
    match shared.get_or_init(build) {
        Ok((d, c)) => f(d, c),
        Err(e) => Err(e.clone().into()),
    }
}

pub fn trials() -> Trials {
    let mut trials = vec![
        Trial::test("compose::clause_split", clause_split),
        Trial::test("compose::splice", splice_hand_made),
    ];
    let dir = spider_dir();
    if !dir.join("dev.json").is_file() || !dir.join("tables.json").is_file() {
        let why = format!("data unavailable: {}/dev.json is missing", dir.display());
        trials.push(trials::unavailable_trial("compose::spider_dev::data", why));
    } else {
        let shared: Shared = Arc::new(OnceLock::new());
        let s = shared.clone();
        trials.push(Trial::test("compose::spider_dev::executes", move || {
            with(&s, executes)
        }));
        let s = shared.clone();
        trials.push(Trial::test("compose::spider_dev::shape", move || {
            with(&s, shape)
        }));
        let s = shared.clone();
        trials.push(Trial::test("compose::spider_dev::counts", move || {
            with(&s, counts)
        }));
        let s = shared.clone();
        trials.push(Trial::test(
            "compose::spider_dev::deterministic",
            move || with(&s, deterministic),
        ));
        let s = shared;
        trials.push(Trial::test(
            "compose::spider_dev::reads_as_sql2text",
            move || with(&s, reads_as_sql2text),
        ));
    }
    (trials, Vec::new())
}

fn clause_split() -> Result<(), Failed> {
    let cases: &[(&str, &[ClauseKind])] = &[
        (
            "SELECT first_name, last_name FROM players WHERE hand = 'L' ORDER BY birth_date",
            &[ClauseKind::Select, ClauseKind::Where, ClauseKind::OrderBy],
        ),
        (
            "SELECT T1.name FROM a AS T1 JOIN b AS T2 ON T1.id = T2.id GROUP BY T1.id \
             HAVING count(*) > 2",
            &[ClauseKind::Select, ClauseKind::GroupBy],
        ),
        (
            "SELECT name FROM t WHERE id NOT IN (SELECT id FROM u WHERE x = 'order by') \
             EXCEPT SELECT name FROM v WHERE y = 1",
            &[ClauseKind::Select, ClauseKind::Where, ClauseKind::Except],
        ),
        (
            "SELECT name FROM t UNION SELECT name FROM u",
            &[ClauseKind::Select, ClauseKind::Union],
        ),
    ];
    for (sql, want) in cases {
        let got: Vec<ClauseKind> = split_clauses(sql)
            .map_err(|e| e.to_string())?
            .iter()
            .map(|c| c.kind)
            .collect();
        if got != *want {
            return Err(format!("{sql}: {got:?}, expected {want:?}").into());
        }
    }
    Ok(())
}

fn splice_hand_made() -> Result<(), Failed> {
    let (s, w, o) = (
        ClauseKind::Select.bit(),
        ClauseKind::Where.bit(),
        ClauseKind::OrderBy.bit(),
    );
    // Show(S) names(S) of(-) players(S|W) who(W) are(-) left(W) handed(-) ,(-) ordered(O) by(O) birth(O|S)
    let tags = [s, s, 0, s | w, w, 0, w, 0, 0, o, o, o | s];
    let got = [
        splice::intervals(&tags, s),
        splice::intervals(&tags, w),
        splice::intervals(&tags, o),
    ];
    let want = [vec![(0, 4), (11, 12)], vec![(3, 9)], vec![(9, 12)]];
    if got != want {
        return Err(format!("{got:?}, expected {want:?}").into());
    }
    Ok(())
}

fn executes(data: &Data, c: &Composed) -> Result<(), Failed> {
    let mut conns = BTreeMap::new();
    let mut bad = Vec::new();
    for p in &c.pairs {
        let conn = conns.entry(p.db_id.clone()).or_insert_with(|| {
            let db = &p.db_id;
            sqlite::open(
                &data
                    .dir
                    .join("database")
                    .join(db)
                    .join(format!("{db}.sqlite")),
            )
        });
        let result = match conn {
            Ok(conn) => sqlite::run_query(conn, &p.query, &Limits::default()).map(|_| ()),
            Err(e) => Err(sqlsuite::backend::QueryError::Sql(e.to_string())),
        };
        if let Err(e) = result {
            bad.push(format!("{} {}: {e}", p.db_id, p.query));
        }
    }
    if bad.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} emitted pairs do not execute:\n{}",
            bad.len(),
            bad.join("\n")
        )
        .into())
    }
}

fn shape(data: &Data, c: &Composed) -> Result<(), Failed> {
    for p in &c.pairs {
        let ok = p.clause_count == p.clauses.len()
            && p.clauses.first() == Some(&"select")
            && !p.question.is_empty()
            && p.source_index < data.sources.len()
            && p.db_id == data.sources[p.source_index].db_id
            && (p.split == "test") == (p.clause_count >= 3)
            && p.clauses.iter().all(|k| compose::kind_named(k).is_some());
        if !ok {
            return Err(format!("malformed pair: {p:?}").into());
        }
    }
    // No text stands for two queries of one source pair: a model could not know which.
    let mut texts = BTreeMap::new();
    for p in &c.pairs {
        if let Some(q) = texts.insert((p.source_index, p.question.as_str()), p.query.as_str()) {
            return Err(format!("{:?} stands for both {q:?} and {:?}", p.question, p.query).into());
        }
    }
    if c.ambiguous_questions == 0 {
        return Err("no combination was dropped for an ambiguous text: the check is idle".into());
    }
    Ok(())
}

/// The ranges `spec/compose.md` records for Spider dev (the measured value sits inside).
/// Measured: 1,938 pairs, 176 test pairs with 3–4 clauses, 93 failures (all "misuse of
/// aggregate"), 57.8 % of words tagged, 62 source pairs skipped (wta_1's database is absent).
const PAIRS: (usize, usize) = (1_900, 2_200);
const TEST_3_4: (usize, usize) = (160, 200);
const MAX_FAILURES: usize = 100;
const MIN_COVERAGE: f64 = 0.55;
const MAX_SKIPPED: usize = 62;

fn counts(_data: &Data, c: &Composed) -> Result<(), Failed> {
    let mut per: BTreeMap<usize, usize> = BTreeMap::new();
    for p in &c.pairs {
        *per.entry(p.clause_count).or_default() += 1;
    }
    let test34 = c
        .pairs
        .iter()
        .filter(|p| p.split == "test" && (3..=4).contains(&p.clause_count))
        .count();
    let (all, _) = quality::by_kind(&c.alignments);
    println!(
        "pairs {} per clause count {per:?}; test 3–4: {test34}; failures {}; skipped {}; \
         coverage {:.4}; in fragments {:.4}; empty fragments {:.4}",
        c.pairs.len(),
        c.failures.len(),
        c.skipped.len(),
        all.coverage(),
        all.fragment_coverage(),
        all.empty_share()
    );
    let mut problems = Vec::new();
    if !(PAIRS.0..=PAIRS.1).contains(&c.pairs.len()) {
        problems.push(format!("{} pairs, expected {PAIRS:?}", c.pairs.len()));
    }
    if !(TEST_3_4.0..=TEST_3_4.1).contains(&test34) {
        problems.push(format!(
            "{test34} test pairs with 3–4 clauses, expected {TEST_3_4:?}"
        ));
    }
    if c.failures.len() > MAX_FAILURES {
        problems.push(format!("{} composed queries failed", c.failures.len()));
    }
    if let Some(f) = c
        .failures
        .iter()
        .find(|f| !f.error.starts_with("misuse of aggregate"))
    {
        problems.push(format!("unexpected failure: {f:?}"));
    }
    if c.skipped.len() > MAX_SKIPPED
        || c.skipped
            .iter()
            .any(|(_, why)| !why.starts_with("database missing"))
    {
        problems.push(format!("skipped source pairs: {:?}", c.skipped));
    }
    if all.coverage() < MIN_COVERAGE {
        problems.push(format!("coverage {:.4} < {MIN_COVERAGE}", all.coverage()));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; ").into())
    }
}

fn deterministic(data: &Data, _c: &Composed) -> Result<(), Failed> {
    let sources = &data.sources[..150.min(data.sources.len())];
    let input = data.dir.join("dev.json");
    let mut outputs = Vec::new();
    for _ in 0..2 {
        let dir = tempfile::tempdir()?;
        let c = compose::compose(
            sources,
            &data.schemas,
            &data.dir.join("database"),
            Options::default(),
            &|| {},
        );
        compose::write(dir.path(), &c, &input)?;
        outputs.push((
            std::fs::read(dir.path().join("compose.json"))?,
            std::fs::read(dir.path().join("report.md"))?,
        ));
    }
    if outputs[0] != outputs[1] {
        return Err("two runs wrote different files".into());
    }
    Ok(())
}

fn reads_as_sql2text(data: &Data, c: &Composed) -> Result<(), Failed> {
    use sqlsuite::report::summary::Summary;
    let dir = tempfile::tempdir()?;
    compose::write(dir.path(), c, &data.dir.join("dev.json"))?;
    let questions: Vec<&str> = c.pairs.iter().map(|p| p.question.as_str()).collect();
    let own = questions.join("\n") + "\n";
    // Other pairs' questions: half the file away, so mostly of other source pairs (neighbors
    // come from the same source and share its words).
    let mut shifted = questions.clone();
    shifted.rotate_left(questions.len() / 2);
    // Texts are one per line: a composed question has no newline.
    if questions.iter().any(|q| q.contains('\n')) {
        return Err("a composed question spans lines".into());
    }
    std::fs::write(dir.path().join("own.txt"), own)?;
    std::fs::write(dir.path().join("shifted.txt"), shifted.join("\n") + "\n")?;
    let manifest = dir.path().join("compose.toml");
    std::fs::write(
        &manifest,
        "[dataset]\nname = \"compose\"\nformat = \"sql2text\"\ngold = \"compose.json\"\n\
         [[predictions]]\nname = \"own\"\nfile = \"own.txt\"\n\
         [[predictions]]\nname = \"shifted\"\nfile = \"shifted.txt\"\n",
    )?;
    let eval = sqlsuite::Evaluation::new(sqlsuite::Manifest::load(&manifest)?)?;
    if eval.items().len() != c.pairs.len() {
        return Err(format!("{} items for {} pairs", eval.items().len(), c.pairs.len()).into());
    }
    let corpus = |s: &Summary| s.corpus.first().map_or(-1.0, |(_, v)| *v);
    let run = eval.run_all();
    let own = Summary::of(&run, &run.sets[0], "bleu");
    let shifted = Summary::of(&run, &run.sets[1], "bleu");
    eprintln!(
        "own questions: {}/{} pass, corpus BLEU {:.2}; shifted: {}/{} pass, corpus BLEU {:.2}",
        own.total.correct,
        own.total.items,
        100.0 * corpus(&own),
        shifted.total.correct,
        shifted.total.items,
        100.0 * corpus(&shifted)
    );
    if own.total.correct != own.total.items || (corpus(&own) - 1.0).abs() > 1e-9 {
        return Err("its own questions do not all pass with corpus BLEU 100".into());
    }
    if !own.corpus_by_category.contains_key("3 clauses") {
        return Err("no corpus BLEU for 3 clauses".into());
    }
    if corpus(&shifted) > 0.2 || shifted.total.correct * 20 > shifted.total.items {
        return Err("questions of other items score too high".into());
    }
    Ok(())
}
