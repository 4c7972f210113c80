//! Unit tests for the Spider ESM reimplementation. Expected hardness levels
//! and verdicts were checked against the official evaluator.

use super::eval::FROM_COMPONENT;
use super::parser::MAX_DEPTH;
use super::schema::schemas_from_json;
use super::*;

const TABLES: &str = r#"[{
  "db_id": "concert_singer",
  "table_names_original": ["stadium", "singer", "concert", "singer_in_concert"],
  "column_names_original": [
    [-1, "*"],
    [0, "Stadium_ID"], [0, "Name"], [0, "Capacity"],
    [1, "Singer_ID"], [1, "Name"], [1, "Country"], [1, "Age"],
    [2, "concert_ID"], [2, "concert_Name"], [2, "Stadium_ID"], [2, "Year"],
    [3, "concert_ID"], [3, "Singer_ID"]
  ],
  "foreign_keys": [[10, 1], [13, 4], [12, 8]]
}]"#;

fn schema() -> Schema {
    let mut all = schemas_from_json(TABLES).expect("test schema parses");
    all.remove("concert_singer").expect("test schema present")
}

fn official(gold: &str, pred: &str) -> EsmOutcome {
    exact_match(&schema(), gold, pred, Mode::Official).expect("gold parses")
}

fn strict(gold: &str, pred: &str) -> EsmOutcome {
    exact_match(&schema(), gold, pred, Mode::Strict).expect("gold parses")
}

fn level(sql: &str) -> &'static str {
    hardness(&parse(&schema(), sql).expect("parses")).as_str()
}

/// Nests `depth` IN-subqueries.
fn nested(depth: usize) -> String {
    let mut q = String::from("SELECT name FROM singer");
    for _ in 0..depth {
        q = format!("SELECT name FROM singer WHERE name IN ({q})");
    }
    q
}

#[test]
fn hardness_levels() {
    assert_eq!(level("SELECT count(*) FROM singer"), "easy");
    assert_eq!(
        level("SELECT name, country, age FROM singer ORDER BY age DESC"),
        "medium"
    );
    assert_eq!(
        level("SELECT name FROM singer WHERE age > (SELECT avg(age) FROM singer)"),
        "hard"
    );
    assert_eq!(
        level(
            "SELECT T2.name, count(*) FROM singer_in_concert AS T1 JOIN singer AS T2 \
             ON T1.singer_id = T2.singer_id GROUP BY T2.name HAVING count(*) > 1 OR count(*) < 5"
        ),
        "hard"
    );
    assert_eq!(
        level(
            "SELECT name FROM singer WHERE age > 20 ORDER BY name \
             UNION SELECT name FROM singer WHERE age < 10"
        ),
        "extra"
    );
    assert_eq!(Hardness::Extra.to_string(), "extra");
}

#[test]
fn aliases_and_foreign_keys_are_canonicalised() {
    let gold = "SELECT T1.Name FROM singer AS T1 JOIN singer_in_concert AS T2 \
                ON T1.Singer_ID = T2.Singer_ID WHERE T2.concert_ID = 3";
    let pred = "select singer.name from singer join singer_in_concert \
                on singer.singer_id = singer_in_concert.singer_id \
                where singer_in_concert.concert_id = 5";
    let out = official(gold, pred);
    assert!(out.exact, "{:?}", out.differing_components);
    // singer_in_concert.singer_id is a foreign key of singer.singer_id.
    let out = official(
        "SELECT T2.singer_id FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.singer_id = T2.singer_id",
        "SELECT T1.singer_id FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.singer_id = T2.singer_id",
    );
    assert!(out.exact);
    let out = official("SELECT name FROM singer", "SELECT country FROM singer");
    assert!(!out.exact);
    assert_eq!(out.differing_components, vec!["select", "select(no AGG)"]);
}

#[test]
fn alias_named_like_a_table_is_an_error() {
    assert!(parse(&schema(), "SELECT name FROM singer AS concert").is_err());
}

#[test]
fn on_conditions_official_vs_strict() {
    let gold = "SELECT T1.name FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.singer_id = T2.singer_id";
    let wrong_on =
        "SELECT T1.name FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.age = T2.concert_id";
    assert!(official(gold, wrong_on).exact);
    let out = strict(gold, wrong_on);
    assert!(!out.exact);
    assert_eq!(out.differing_components, vec!["join(on)"]);
    let swapped = "SELECT T1.name FROM singer AS T1 JOIN singer_in_concert AS T2 ON T2.singer_id = T1.singer_id";
    assert!(strict(gold, swapped).exact);
}

#[test]
fn limit_values_official_vs_strict() {
    let gold = "SELECT name FROM singer ORDER BY age DESC LIMIT 3";
    let pred = "SELECT name FROM singer ORDER BY age DESC LIMIT 5";
    assert!(official(gold, pred).exact);
    let out = strict(gold, pred);
    assert!(!out.exact);
    assert_eq!(out.differing_components, vec!["limit"]);
    assert!(strict(gold, "SELECT name FROM singer ORDER BY age DESC LIMIT 3").exact);
    // Presence of LIMIT is compared in both modes.
    assert!(!official(gold, "SELECT name FROM singer ORDER BY age DESC").exact);
}

#[test]
fn value_placeholder_official_vs_strict() {
    let gold = "SELECT name FROM singer WHERE age > 30";
    let pred = "SELECT name FROM singer WHERE age > value";
    let out = official(gold, pred);
    assert!(out.exact);
    assert!(out.pred_parse_error.is_none());
    let out = strict(gold, pred);
    assert!(!out.exact);
    assert!(out.pred_parse_error.is_some());
}

#[test]
fn unparsable_prediction_scores_zero() {
    let out = official("SELECT count(*) FROM singer", "NO PREDICTION");
    assert!(!out.exact);
    assert!(out.pred_parse_error.is_some());
    assert_eq!(out.hardness, Hardness::Easy);
    assert_eq!(out.partial.len(), COMPONENTS.len());
    assert!(out.differing_components.contains(&"select"));
    assert!(out.differing_components.contains(&FROM_COMPONENT));
    // Comma joins and LEFT JOIN are rejected by the reference parser.
    assert!(official(
        "SELECT count(*) FROM singer",
        "SELECT count(*) FROM singer, concert"
    )
    .pred_parse_error
    .is_some());
}

#[test]
fn parse_error_says_where_it_stopped() {
    let err = parse(&schema(), "SELECT name FROM singer, concert").expect_err("comma join");
    assert_eq!(err.token_index, Some(4));
    assert_eq!(err.token.as_deref(), Some(","));
    assert!(err.to_string().contains("at token 4"), "{err}");
    let err = parse(&schema(), "SELECT nme FROM singer").expect_err("bad column");
    assert_eq!(err.token.as_deref(), Some("nme"));
    assert!(parse(&schema(), "SELECT name FROM singer WHERE name = 'x").is_err());
}

#[test]
fn gold_parse_failure_is_an_error() {
    assert!(exact_match(
        &schema(),
        "SELECT bogus FROM singer",
        "SELECT name FROM singer",
        Mode::Official
    )
    .is_err());
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = nested(300);
    assert!(parse(&schema(), &deep).is_err());
    let out = official("SELECT name FROM singer", &deep);
    assert!(!out.exact);
    assert!(out.pred_parse_error.is_some());
    assert!(exact_match(&schema(), &deep, "SELECT name FROM singer", Mode::Official).is_err());
    let ok = nested(MAX_DEPTH);
    assert!(official(&ok, &ok).exact);
}

#[test]
fn missing_conjunction_follows_the_reference() {
    // `[unit, unit]`: parsed; the second unit is treated as a "conjunction".
    let out = official(
        "SELECT name FROM singer WHERE age = 1 OR age = 2",
        "SELECT name FROM singer WHERE age = 1 age = 2",
    );
    assert!(!out.exact);
    assert!(out.pred_parse_error.is_none());
    // `[unit, unit, and, unit]` makes the reference crash: rejected.
    let crash = "SELECT name FROM singer WHERE age = 1 age = 2 AND age = 3";
    assert!(exact_match(&schema(), crash, "SELECT name FROM singer", Mode::Official).is_err());
}

#[test]
fn values_are_ignored_but_structure_is_not() {
    assert!(
        official(
            "SELECT name FROM singer WHERE country = 'France' AND age > 20",
            "SELECT name FROM singer WHERE age > 99 AND country = \"Japan\""
        )
        .exact
    );
    let out = official(
        "SELECT name FROM singer WHERE country = 'France' AND age > 20",
        "SELECT name FROM singer WHERE country = 'France' OR age > 20",
    );
    assert_eq!(out.differing_components, vec!["and/or", "keywords"]);
}

#[test]
fn legacy_sparc_compares_tables_only_for_joins() {
    let legacy = |gold: &str, pred: &str| {
        exact_match(&schema(), gold, pred, Mode::LegacySparc).expect("gold parses")
    };
    // One table in the gold: the SParC-era evaluator did not look at FROM.
    let (gold, other_table) = (
        "SELECT count(*) FROM singer",
        "SELECT count(*) FROM stadium",
    );
    assert!(!official(gold, other_table).exact);
    assert_eq!(
        official(gold, other_table).differing_components,
        vec!["from"]
    );
    assert!(legacy(gold, other_table).exact);
    // A join in the gold: tables are compared in both.
    let join = "SELECT T1.name FROM singer AS T1 JOIN singer_in_concert AS T2 ON T1.singer_id = T2.singer_id";
    let single = "SELECT name FROM singer";
    assert!(!official(join, single).exact);
    assert!(!legacy(join, single).exact);
}
