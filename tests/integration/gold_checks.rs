//! The gold checks (`spec/gold_checks.md`) on both sides: the fixture's golds that a check must
//! flag are flagged with that check and no other, its clean golds are not
//! (`tests/fixtures/gold_checks/expected.tsv`, a reason each); the demo's golds are clean but
//! item 18, whose empty result is deliberate (`datasets/demo/README.md`); and every report shows
//! what was found: the text summary's count line, the snapshot, the JSON lines header, the HTML
//! report's "Gold checks" section, the every-set page's count line.

use std::collections::{BTreeMap, BTreeSet};

use sqlsuite::report::{gold_checks, html, jsonl, overview, snapshot};
use sqlsuite::Evaluation;

const FIXTURE: &str = "tests/fixtures/gold_checks/gold_checks.toml";
const EXPECTED: &str = "tests/fixtures/gold_checks/expected.tsv";

/// Item → the checks it is expected to be flagged by.
fn expected() -> BTreeMap<usize, BTreeSet<String>> {
    let text = std::fs::read_to_string(EXPECTED).expect("expected.tsv");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut cols = l.split('\t');
            let index: usize = cols.next().and_then(|c| c.parse().ok()).expect("an index");
            let checks = cols.next().expect("the checks");
            let checks = checks
                .split(',')
                .filter(|c| *c != "-")
                .map(str::to_owned)
                .collect();
            (index, checks)
        })
        .collect()
}

fn found(eval: &Evaluation) -> BTreeMap<usize, BTreeSet<String>> {
    let mut out: BTreeMap<usize, BTreeSet<String>> = (0..eval.items().len())
        .map(|i| (i, BTreeSet::new()))
        .collect();
    for f in &eval.gold_checks().findings {
        out.entry(f.item).or_default().insert(f.check.to_owned());
    }
    out
}

#[test]
fn fixture_golds_flagged_as_expected_and_clean_ones_not() {
    let eval = Evaluation::open(FIXTURE).expect("the fixture opens");
    let expected = expected();
    assert_eq!(expected.len(), eval.items().len(), "one line per item");
    let found = found(&eval);
    let mut wrong = Vec::new();
    for (i, want) in &expected {
        if found.get(i) != Some(want) {
            wrong.push(format!(
                "item {i}: expected {want:?}, found {:?}",
                found.get(i)
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{}\nall findings:\n{:#?}",
        wrong.join("\n"),
        eval.gold_checks().findings
    );
    // Both sides are there: flagged golds of every check, and clean ones.
    let checks: BTreeSet<&String> = expected.values().flatten().collect();
    assert!(checks.len() >= 8, "{checks:?}");
    assert!(expected.values().filter(|c| c.is_empty()).count() >= 4);
}

#[test]
fn reasons_name_the_database_and_the_earlier_item() {
    let eval = Evaluation::open(FIXTURE).expect("the fixture opens");
    let reason = |item: usize, check: &str| {
        eval.gold_checks()
            .of_item(item)
            .find(|f| f.check == check)
            .map(|f| f.reason.clone())
            .unwrap_or_default()
    };
    // Empty on the second suite database only.
    assert!(
        reason(5, "empty_result").contains("shop_1.sql (1 of 2 databases)"),
        "{}",
        reason(5, "empty_result")
    );
    assert!(reason(4, "empty_result").contains("only NULL"));
    assert!(reason(2, "gold_error").contains("and 1 more of 2 databases"));
    assert!(reason(9, "duplicate").contains("repeats item 1"));
    assert!(reason(12, "unreliable").contains("price <= 10"));
}

#[test]
fn demo_golds_are_clean_but_the_deliberately_empty_one() {
    let eval = Evaluation::open("datasets/demo/demo.toml").expect("the demo opens");
    let flagged: Vec<(usize, &str)> = eval
        .gold_checks()
        .findings
        .iter()
        .map(|f| (f.item, f.check))
        .collect();
    // datasets/demo/README.md: item 18 is "an empty result" by design.
    assert_eq!(flagged, [(18, "empty_result")]);
}

#[test]
fn every_report_shows_the_gold_checks() {
    let eval = Evaluation::open(FIXTURE).expect("the fixture opens");
    let run = eval.run_all();
    let set = &run.sets[0];
    let line = gold_checks::line(&run.gold_checks);
    assert!(
        line.starts_with("gold checks: 10 of 14 golds flagged (duplicate 1, empty_result 3,"),
        "{line}"
    );
    // The snapshot carries the count line.
    assert!(snapshot::render(&run, set).contains(&line));
    // The JSON lines header: counts and every finding.
    let header: serde_json::Value =
        serde_json::from_str(&jsonl::lines(&run, set)[0]).expect("JSON");
    let checks = &header["gold_checks"];
    assert_eq!(checks["flagged"], 10);
    assert_eq!(checks["counts"]["empty_result"], 3);
    assert_eq!(
        checks["findings"].as_array().map(Vec::len),
        Some(run.gold_checks.findings.len())
    );
    // The HTML report: the section, a row per finding, a mark on the item's row.
    let page = html::render(&run, set, None).expect("renders");
    assert!(page.contains("<h2>Gold checks</h2>"));
    assert_eq!(
        page.matches("<tr class=\"finding\"").count(),
        run.gold_checks.findings.len()
    );
    assert!(page.contains("gold: duplicate"));
    // The every-set page: the count line.
    let all = overview::render(&run).expect("renders");
    assert!(all.contains(&format!("<p id=\"gold-checks\">{line}")));
}
