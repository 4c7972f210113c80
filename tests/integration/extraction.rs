//! `[[predictions]] extract`: the fixture of answers as language models write them
//! (`tests/fixtures/llm_answers.jsonl`, each line with the SQL the rule must take out and where
//! it is), and a prediction set read with a rule end to end (the SQL judged, the extraction in
//! the JSON lines and the provenance).

use std::path::Path;

use sqlsuite::dataset::extract::{extract, Rule};

const FIXTURE: &str = "tests/fixtures/llm_answers.jsonl";

#[test]
fn every_fixture_answer_gives_its_expected_sql() {
    let text = std::fs::read_to_string(FIXTURE).unwrap();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (n, line) in text.lines().enumerate() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let Some(answer) = v["answer"].as_str() else {
            continue; // the comment line
        };
        let rule: Rule = v["rule"].as_str().unwrap().parse().unwrap();
        let expected = v["expected"].as_str().unwrap();
        let got = extract(rule, answer);
        let (sql, found, lines) = match &got {
            Some((sql, e)) => (
                sql.as_str(),
                serde_json::json!(e.found),
                serde_json::json!([e.lines.0, e.lines.1]),
            ),
            None => (answer, serde_json::Value::Null, serde_json::Value::Null),
        };
        if sql != expected || found != v["found"] || lines != v["lines"] {
            wrong.push(format!(
                "line {}: {}: got {sql:?} ({found}, {lines}), expected {expected:?} ({}, {})",
                n + 1,
                v["why"],
                v["found"],
                v["lines"]
            ));
        }
        checked += 1;
    }
    assert!(checked >= 100, "{checked} answers");
    assert!(
        wrong.is_empty(),
        "{} of {checked}:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn a_set_read_with_a_rule_is_judged_on_the_sql_and_says_what_it_took() {
    let dir = tempfile::tempdir().unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/demo");
    let gold: Vec<String> = std::fs::read_to_string(demo.join("gold.sql"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    // Item 0's gold in a fence after prose, the other items as written.
    let answers: Vec<serde_json::Value> = gold
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let sql = g.split('\t').next().unwrap();
            let answer = match i {
                0 => format!("Sure:\n```sql\n{sql}\n```"),
                _ => sql.to_owned(),
            };
            serde_json::json!({"index": i, "prediction": answer})
        })
        .collect();
    let jsonl: String = answers.iter().map(|a| format!("{a}\n")).collect();
    std::fs::write(dir.path().join("p.jsonl"), jsonl).unwrap();
    let manifest = |extract: &str| {
        let path = dir.path().join(format!("m{}.toml", extract.len()));
        std::fs::write(
            &path,
            format!(
                "[dataset]\nname = \"t\"\nformat = \"spider\"\ngold = \"{}\"\n\n[databases]\n\
                 path = \"{}/db/{{db_id}}/{{db_id}}.sql\"\n\n[[predictions]]\nname = \"p\"\n\
                 file = \"p.jsonl\"\n{extract}\n[metrics.exec]\n",
                demo.join("gold.sql").display(),
                demo.display()
            ),
        )
        .unwrap();
        path
    };
    let eval = |extract: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_sqlsuite"))
            .args([
                "eval",
                manifest(extract).to_str().unwrap(),
                "--format",
                "jsonl",
            ])
            .output()
            .unwrap();
        let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        lines
    };
    let as_written = eval("");
    let item0 =
        |lines: &[serde_json::Value]| lines.iter().find(|l| l["index"] == 0).cloned().unwrap();
    assert_eq!(item0(&as_written)["reason"], "sql_error", "{as_written:?}");
    assert!(item0(&as_written).get("extracted").is_none());
    let taken = eval("extract = \"answer\"");
    assert_eq!(item0(&taken)["verdict"], "correct", "{taken:?}");
    assert_eq!(
        item0(&taken)["extracted"],
        serde_json::json!({"found": "fence", "lines": [3, 3]})
    );
    // Items without a fence are judged as written, with nothing recorded.
    assert!(taken
        .iter()
        .filter(|l| l["index"] == 1)
        .all(|l| l.get("extracted").is_none()));
    assert_eq!(
        taken[0]["provenance"]["extract"], "answer",
        "{:?}",
        taken[0]
    );
    let bad = std::process::Command::new(env!("CARGO_BIN_EXE_sqlsuite"))
        .args(["eval", manifest("extract = \"fences\"").to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("unknown extraction rule \"fences\": one of fence, prefix, answer")
            && err.contains(":12:"),
        "{err}"
    );
}
