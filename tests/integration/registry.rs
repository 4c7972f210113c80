//! A new metric is one file and one registry line: `Chars` below is a whole metric (its options,
//! its judgement, its `ENTRY`), and `WITH_CHARS` is the registry line. Composed with it, a
//! manifest's `[metrics.chars]` is read, checked and located like any built-in metric's table.

use sqlsuite::backend::Database;
use sqlsuite::dataset::Item;
use sqlsuite::executor::Executor;
use sqlsuite::metric::{self, Metric, MetricEntry, Verdict};
use sqlsuite::registry::{compose, Registry, STANDARD};
use sqlsuite::{Evaluation, Manifest};

/// `[metrics.chars]`: correct when the prediction is at most `max` characters long.
#[derive(Debug)]
struct Chars {
    max: usize,
}

#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields, default)]
struct CharsOptions {
    max: usize,
}

impl Metric for Chars {
    fn name(&self) -> &'static str {
        "chars"
    }

    fn needs_database(&self) -> bool {
        false
    }

    fn evaluate(&self, _: &Item, prediction: &str, _: &[Database], _: &Executor) -> Verdict {
        if prediction.chars().count() <= self.max {
            Verdict::correct()
        } else {
            Verdict::incorrect("too_long", format!("longer than {}", self.max), "")
        }
    }
}

const CHARS: MetricEntry = MetricEntry {
    name: "chars",
    runs_queries: false,
    build: |section, _| {
        let options: CharsOptions = section.read()?;
        Ok(Box::new(Chars { max: options.max }))
    },
};

/// The registry line.
const WITH_CHARS: Registry = Registry {
    metrics: &[metric::exec::ENTRY, CHARS],
    ..STANDARD
};

#[test]
fn a_new_metric_is_one_entry_and_one_registry_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("gold.sql"), "SELECT 1\tdb\nSELECT 2\tdb\n").unwrap();
    std::fs::write(dir.path().join("p.txt"), "SELECT 1\nSELECT 22222\n").unwrap();
    let text = "[dataset]\nname = \"t\"\nformat = \"spider\"\ngold = \"gold.sql\"\n\
                [[predictions]]\nname = \"v1\"\nfile = \"p.txt\"\n\
                [metrics.chars]\nmax = 10\n[gate]\nmin_accuracy = { chars = 0.5 }\n";
    let manifest = Manifest::parse(&dir.path().join("m.toml"), text).unwrap();
    // The standard registry does not know it, and says which it knows.
    let e = compose(&manifest).unwrap_err().to_string();
    assert!(
        e.contains("unknown metric \"chars\" (known: \"exec\""),
        "{e}"
    );
    assert!(e.contains("m.toml:8:10"), "{e}");
    // With it, its options are read and located like any other's ...
    let typo = Manifest::parse(
        &dir.path().join("m.toml"),
        &text.replace("max = 10", "max = \"ten\""),
    )
    .unwrap();
    let e = WITH_CHARS.compose(&typo).unwrap_err().to_string();
    assert!(e.contains("m.toml:9:7: invalid type"), "{e}");
    // ... and it judges.
    let composition = WITH_CHARS.compose(&manifest).unwrap();
    let eval = Evaluation::composed(manifest, composition).unwrap();
    let codes: Vec<&str> = (0..2)
        .map(|i| eval.judge(0, i).verdicts[0].1.code.as_str())
        .collect();
    assert_eq!(codes, ["correct", "too_long"]);
}
