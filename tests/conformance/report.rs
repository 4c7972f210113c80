//! `sqlsuite report`: one self-contained HTML file; flipped items first; every value escaped;
//! accuracy per hardness; and, in headless Chromium (`report::chromium::*`), for the demo (v2
//! against v1, and every set on one page) and for Spider (dev_9 against dev_1): the summary
//! numbers in the rendered DOM are the command line's (`sqlsuite eval --format jsonl`), the
//! flipped items are listed, a failing item shows its differing rows, the search box and
//! filters leave the expected rows, and a screenshot is written to
//! `target/tmp/report-screenshots/` for people to look at.
//!
//! The browser trials need Debian's `chromium` (`.ci/run` installs it), the Spider one the
//! shared data too: without them they are reported as ignored with the reason, and with
//! `SQLSUITE_REQUIRE_SHARED=1` (as in CI) they fail.

mod chromium;
mod cli_numbers;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use libtest_mimic::{Completion, Failed, Trial};
use sqlsuite::metric::Status;
use sqlsuite::report::diff::Diff;
use sqlsuite::trials;
use sqlsuite::Evaluation;

use crate::Trials;

pub fn trials() -> Trials {
    let mut trials = vec![
        Trial::test("report::self_contained_with_flipped_items_first", || {
            a_self_contained_page_with_flipped_items_first();
            Ok(())
        }),
        Trial::test("report::against_the_accepted_snapshot", || {
            against_the_accepted_snapshot();
            Ok(())
        }),
        Trial::test("report::every_value_is_escaped", || {
            every_value_is_escaped();
            Ok(())
        }),
        Trial::test(
            "report::accuracy_per_hardness_in_the_official_order",
            || {
                accuracy_per_hardness_in_the_official_order();
                Ok(())
            },
        ),
    ];
    // The pages each browser trial opens; the Spider one is ignorable (it needs the shared data).
    let pages: [(&str, Page); 6] = [
        (
            "report::chromium::demo_search_and_filters",
            search_and_filters,
        ),
        ("report::chromium::demo_v2_against_v1", |b| {
            pair_page(b, &demo(), "v2", "v1", "demo_v2_against_v1")
        }),
        ("report::chromium::demo_every_set", |b| {
            every_set_page(b, &demo(), "demo_every_set")
        }),
        ("report::chromium::gold_checks_section", gold_checks_section),
        ("report::chromium::demo_counterexamples", counterexamples),
        ("report::chromium::sortable_tables", sortable_tables),
    ];
    let spider = "report::chromium::spider_dev_2_against_dev_1";
    match chromium::find() {
        None => trials.extend(pages.map(|(name, _)| name).into_iter().chain([spider]).map(
            |name| {
                trials::unavailable_trial(
                    name,
                    "chromium is not installed (Debian's `chromium` package; .ci/run installs it)"
                        .to_owned(),
                )
            },
        )),
        Some(browser) => {
            for (name, page) in pages {
                let b = browser.clone();
                trials.push(Trial::test(name, move || {
                    page(&b);
                    Ok(())
                }));
            }
            trials.push(Trial::ignorable_test(spider, move || spider_pair(&browser)));
        }
    }
    (trials, Vec::new())
}

/// A browser trial's body, given the browser.
type Page = fn(&Path);

fn sqlsuite(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sqlsuite"))
        .args(args)
        .output()
        .expect("run sqlsuite")
}

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/demo/demo.toml")
}

/// Writes the report of `args` to `dir/report.html` and returns its text.
fn report(dir: &Path, manifest: &Path, args: &[&str]) -> (PathBuf, String) {
    let out = dir.join("report.html");
    let mut all = vec![
        "report",
        manifest.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    all.extend(args);
    let o = sqlsuite(&all);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let html = std::fs::read_to_string(&out).unwrap();
    (out, html)
}

/// The demo's v2 against v1, under its one metric: the items regressed (in the diff's order)
/// and the items newly correct (in item order).
fn demo_flips(eval: &Evaluation) -> (Vec<usize>, Vec<usize>) {
    let run = eval.run(&[0, 1]);
    let diff = Diff::of(&run, &run.sets[0], &run.sets[1]);
    let regressed = diff.metrics[0]
        .regressed
        .values()
        .flatten()
        .copied()
        .collect();
    let mut fixed: Vec<usize> = diff.metrics[0]
        .newly_correct
        .values()
        .flatten()
        .copied()
        .collect();
    fixed.sort();
    (regressed, fixed)
}

/// The item rows' indices, in page order.
fn row_indices(html: &str) -> Vec<usize> {
    html.split("<tr class=\"item ")
        .skip(1)
        .map(|row| {
            let cell = row.split("<td class=\"n\">").nth(1).expect("an index cell");
            cell[..cell.find('<').unwrap()].trim().parse().unwrap()
        })
        .collect()
}

fn a_self_contained_page_with_flipped_items_first() {
    let dir = tempfile::tempdir().unwrap();
    let (_, html) = report(
        dir.path(),
        &demo(),
        &["--predictions", "v2", "--against", "v1"],
    );
    // Self-contained: nothing is fetched from anywhere (links only within the page: the gold
    // checks' rows link to their items, `href="#item-…"`).
    for external in ["src=", "@import", "url("] {
        assert!(!html.contains(external), "{external} in the page");
    }
    for link in html.split("href=").skip(1) {
        assert!(
            link.starts_with("\"#"),
            "a link out of the page: href={}",
            &link[..link.len().min(60)]
        );
    }
    let eval = Evaluation::open(demo()).unwrap();
    let (regressed, fixed) = demo_flips(&eval);
    let rows = row_indices(&html);
    assert_eq!(rows.len(), eval.items().len());
    // Regressions, then fixes, then the others in item order.
    let flipped = regressed.len() + fixed.len();
    assert_eq!(rows[..regressed.len()], regressed[..]);
    assert_eq!(rows[regressed.len()..flipped], fixed[..]);
    assert!(rows[flipped..].windows(2).all(|w| w[0] < w[1]));
    assert!(html.contains(&format!("{} regressed</span>", regressed.len())));
    // A failing item's gold, prediction and message are in the page; the summary too.
    // (minijinja escapes `/` too.)
    assert!(
        html.contains("exec: 15&#x2f;20 correct = 75.00%"),
        "summary"
    );
    assert!(
        html.contains("<pre id=\"provenance\">provenance:"),
        "provenance"
    );
}

fn against_the_accepted_snapshot() {
    // The demo's v1, now predicting what v2 predicts, against v1's accepted snapshot: the
    // flipped items are v2's flips against v1.
    let dir = tempfile::tempdir().unwrap();
    let demo_dir = demo().parent().unwrap().to_path_buf();
    let manifest = dir.path().join("demo.toml");
    std::fs::write(
        &manifest,
        format!(
            "[dataset]\nname = \"demo\"\nformat = \"spider\"\ngold = \"{}\"\n\
             [databases]\npath = \"{}/db/{{db_id}}/{{db_id}}.sql\"\n\
             [[predictions]]\nname = \"v1\"\nfile = \"{}\"\n\
             [metrics.exec]\ntimeout_ms = 2000\n[report]\nsnapshots = \"{}\"\n",
            demo_dir.join("gold.sql").display(),
            demo_dir.display(),
            demo_dir.join("predictions/v2.txt").display(),
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("snapshots")
                .display(),
        ),
    )
    .unwrap();
    let (_, html) = report(dir.path(), &manifest, &["--against-snapshot"]);
    let eval = Evaluation::open(demo()).unwrap();
    let (regressed, fixed) = demo_flips(&eval);
    assert!(!regressed.is_empty() && !fixed.is_empty());
    let rows = row_indices(&html);
    let flipped = regressed.len() + fixed.len();
    assert_eq!(rows[..regressed.len()], regressed[..]);
    assert_eq!(rows[regressed.len()..flipped], fixed[..]);
    assert!(html.contains(&format!(
        "{} regressed</span> <span class=\"badge badge-fixed\">{} newly correct</span> against the accepted snapshot",
        regressed.len(),
        fixed.len()
    )));
    // Without an accepted snapshot: an error naming the file.
    let other = dir.path().join("other.toml");
    std::fs::write(
        &other,
        std::fs::read_to_string(&manifest)
            .unwrap()
            .replace("name = \"demo\"", "name = \"nowhere\""),
    )
    .unwrap();
    let o = sqlsuite(&[
        "report",
        other.to_str().unwrap(),
        "--against-snapshot",
        "-o",
        dir.path().join("x.html").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("nowhere__v1.snap") && err.contains("other.toml"),
        "{err}"
    );
}

fn every_value_is_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let demo_dir = demo().parent().unwrap().to_path_buf();
    let mut lines: Vec<String> = std::fs::read_to_string(demo_dir.join("predictions/v1.txt"))
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    lines[1] = "SELECT '<script>alert(1)</script>' & \"x\"".to_owned();
    let predictions = dir.path().join("p.txt");
    std::fs::write(&predictions, lines.join("\n") + "\n").unwrap();
    let manifest = dir.path().join("m.toml");
    std::fs::write(
        &manifest,
        format!(
            "[dataset]\nname = \"t\"\nformat = \"spider\"\ngold = \"{}\"\n\
             [databases]\npath = \"{}/db/{{db_id}}/{{db_id}}.sql\"\n\
             [[predictions]]\nname = \"p\"\nfile = \"{}\"\n",
            demo_dir.join("gold.sql").display(),
            demo_dir.display(),
            predictions.display()
        ),
    )
    .unwrap();
    let (_, html) = report(dir.path(), &manifest, &[]);
    assert!(!html.contains("<script>alert"), "an unescaped prediction");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;&#x2f;script&gt;"));
    assert_eq!(
        html.matches("<script>").count(),
        1,
        "only the page's own script"
    );
}

fn accuracy_per_hardness_in_the_official_order() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("db/shop")).unwrap();
    std::fs::write(
        d.join("db/shop/shop.sql"),
        "CREATE TABLE item(id INT, name TEXT, price REAL);
         INSERT INTO item VALUES (1, 'pen', 1.5), (2, 'ink', 3.0);",
    )
    .unwrap();
    std::fs::write(
        d.join("tables.json"),
        r#"[{"db_id": "shop", "table_names_original": ["item"], "table_names": ["item"],
             "column_names_original": [[-1, "*"], [0, "id"], [0, "name"], [0, "price"]],
             "column_names": [[-1, "*"], [0, "id"], [0, "name"], [0, "price"]],
             "column_types": ["text", "number", "text", "number"],
             "primary_keys": [1], "foreign_keys": []}]"#,
    )
    .unwrap();
    // Two easy items (one right), one medium (right).
    std::fs::write(
        d.join("gold.sql"),
        "SELECT count(*) FROM item\tshop\nSELECT name FROM item\tshop\n\
         SELECT name, price FROM item WHERE price > 2\tshop\n",
    )
    .unwrap();
    std::fs::write(
        d.join("p.txt"),
        "SELECT count(*) FROM item\nSELECT id FROM item\nSELECT name, price FROM item WHERE price > 2\n",
    )
    .unwrap();
    std::fs::write(
        d.join("m.toml"),
        "[dataset]\nname = \"t\"\nformat = \"spider\"\ngold = \"gold.sql\"\ntables = \"tables.json\"\n\
         [databases]\npath = \"db/{db_id}/{db_id}.sql\"\n\
         [[predictions]]\nname = \"p\"\nfile = \"p.txt\"\n[metrics.exec]\n",
    )
    .unwrap();
    let (_, html) = report(d, &d.join("m.toml"), &[]);
    let start = html
        .find("data-group=\"hardness\"")
        .expect("a hardness table");
    let table = &html[start..start + html[start..].find("</table>").unwrap()];
    let rows: Vec<String> = table
        .split("<tr><td>")
        .skip(1)
        .map(|r| r[..r.find("</td></tr>").unwrap()].replace("</td><td class=\"n\">", " "))
        .collect();
    assert_eq!(rows, ["easy 2 2 1 50.00%", "medium 1 1 1 100.00%"]);
    // The same numbers as an inline SVG bar chart: one bar per row, its width the accuracy.
    let start = html
        .find("<svg class=\"chart\" data-metric=\"exec\" data-group=\"hardness\"")
        .expect("a hardness chart");
    let chart = &html[start..start + html[start..].find("</svg>").unwrap()];
    let bars: Vec<&str> = chart
        .split("<rect class=\"bar\" x=\"132\" y=\"4\" width=\"")
        .skip(1)
        .map(|r| &r[..r.find('"').unwrap()])
        .collect();
    assert_eq!(bars, ["90.0", "180.0"], "{chart}");
    assert!(
        chart.contains("<title>easy: 50.00% (1/2)</title>"),
        "{chart}"
    ); // The hardness filter offers the items' hardnesses, in the official order.
    assert!(
        html.contains(
            "<select id=\"hardness\">\n<option value=\"\">all</option><option value=\"easy\">easy</option><option value=\"medium\">medium</option>\n</select>"
        ),
        "a hardness filter"
    );
    assert!(
        html.contains("data-hardness=\"medium\""),
        "rows carry their hardness"
    );
}

/// The indices of the item rows the script left visible, and the count it shows.
fn visible(dom: &str) -> (Vec<usize>, String) {
    let rows = dom
        .split("<tr class=\"item ")
        .skip(1)
        .filter(|row| !row[..row.find('>').unwrap()].contains("hidden"))
        .map(|row| {
            let cell = row.split("<td class=\"n\">").nth(1).expect("an index cell");
            cell[..cell.find('<').unwrap()].trim().parse().unwrap()
        })
        .collect();
    let shown = dom
        .split("<span id=\"shown\">")
        .nth(1)
        .and_then(|s| s.split('<').next())
        .unwrap_or_default()
        .to_owned();
    (rows, shown)
}

fn search_and_filters(browser: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let (page, _) = report(
        dir.path(),
        &demo(),
        &["--predictions", "v2", "--against", "v1"],
    );
    let eval = Evaluation::open(demo()).unwrap();

    // Search "school" and status "incorrect": v2's incorrect school items.
    let dom = chromium::dom(browser, &page, "q=school&status=incorrect");
    let (mut rows, shown) = visible(&dom);
    rows.sort();
    let expected: Vec<usize> = (0..eval.items().len())
        .filter(|&i| {
            eval.items()[i].db_id == "school" && eval.judge(1, i).status() == Status::Incorrect
        })
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(rows, expected);
    assert_eq!(shown, expected.len().to_string());

    // Verdict code "exec=sql_error": exactly v2's items with that code.
    let dom = chromium::dom(browser, &page, "code=exec%3Dsql_error");
    let (mut rows, shown) = visible(&dom);
    rows.sort();
    let expected: Vec<usize> = (0..eval.items().len())
        .filter(|&i| {
            eval.judge(1, i)
                .verdicts
                .iter()
                .any(|(m, v)| *m == "exec" && v.code == "sql_error")
        })
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(rows, expected);
    assert_eq!(shown, expected.len().to_string());

    // "Flipped only": the items whose verdict changed between v1 and v2.
    let dom = chromium::dom(browser, &page, "flipped=1");
    let (mut rows, shown) = visible(&dom);
    rows.sort();
    let run = eval.run(&[0, 1]);
    let d = Diff::of(&run, &run.sets[0], &run.sets[1]);
    let mut flipped: Vec<usize> = d.metrics[0]
        .regressed
        .values()
        .chain(d.metrics[0].newly_correct.values())
        .flatten()
        .copied()
        .collect();
    flipped.sort();
    assert_eq!(rows, flipped);
    assert_eq!(shown, flipped.len().to_string());

    // No filter: every row visible.
    let dom = chromium::dom(browser, &page, "");
    let (rows, shown) = visible(&dom);
    assert_eq!(rows.len(), eval.items().len());
    assert_eq!(shown, eval.items().len().to_string());
}

/// An item that set `set` gets wrong under `exec` with differing rows to show (`rows_differ`,
/// else `row_count`; the first of `preferred` that is one, else the first of all), and those
/// rows' lines (the verdict's reason and details, from the library).
fn failing_item(
    manifest: &Path,
    numbers: &cli_numbers::Numbers,
    set: &str,
    preferred: &[usize],
) -> (usize, Vec<String>) {
    let exec = &numbers[set]["exec"];
    let shows_rows = |i: &usize| {
        exec.verdicts.get(i).is_some_and(|(verdict, reason)| {
            verdict == "incorrect" && (reason == "rows_differ" || reason == "row_count")
        })
    };
    let index = preferred
        .iter()
        .copied()
        .find(shows_rows)
        .or_else(|| exec.verdicts.keys().copied().find(shows_rows))
        .expect("an item with differing rows");
    let eval = Evaluation::open(manifest).unwrap();
    let s = eval
        .dataset
        .predictions
        .iter()
        .position(|p| p.name == set)
        .unwrap();
    let v = eval.judge(s, index).verdict("exec").unwrap();
    assert!(!v.details.is_empty(), "item {index} has no details");
    let mut lines = vec![format!("exec: {}", v.reason)];
    lines.extend(
        v.details
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_owned),
    );
    (index, lines)
}

/// The page of `a` against `b` in Chromium: the summary numbers and the `db_id` table are the
/// command line's, the flipped items are listed first (regressions, then fixes), a failing item
/// expands to its differing rows (`#open=`), and a screenshot of that is written.
fn pair_page(browser: &Path, manifest: &Path, a: &str, b: &str, name: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (page, _) = report(dir.path(), manifest, &["--predictions", a, "--against", b]);
    let numbers = cli_numbers::of(manifest, &[a, b]);
    let dom = chromium::dom(browser, &page, "");
    assert!(
        chromium::render_ms(&dom).is_some(),
        "the script did not finish"
    );

    // (a) The summary numbers are the command line's.
    for (metric, m) in &numbers[a] {
        let summary = chromium::element(
            &dom,
            &format!("<pre class=\"summary\">{metric}: "),
            "</pre>",
        )
        .unwrap_or_else(|| panic!("no {metric} summary"));
        let headline = format!("{metric}: {}/{} correct", m.total.correct, m.total.scored);
        assert!(summary.contains(&headline), "{headline:?} not in {summary}");
        assert!(
            summary.contains(&format!("({} items", m.total.items)),
            "{summary}"
        );
        let table = chromium::element(
            &dom,
            &format!(
                "<table class=\"group sortable\" data-metric=\"{metric}\" data-group=\"db_id\">"
            ),
            "</table>",
        )
        .unwrap_or_else(|| panic!("no {metric} db_id table"));
        let rendered: Vec<(String, [usize; 3])> = chromium::rows(table)
            .into_iter()
            .map(|r| (r[0].clone(), [1, 2, 3].map(|k| r[k].parse().unwrap())))
            .collect();
        let cli: Vec<(String, [usize; 3])> = m
            .by_db
            .iter()
            .map(|(db, c)| (db.clone(), [c.items, c.scored, c.correct]))
            .collect();
        assert_eq!(rendered, cli, "{metric} per db_id");
    }

    // (b) The flipped items are listed first, badged: regressions, then fixes.
    let (regressed, fixed) = cli_numbers::flips(&numbers, a, b);
    assert!(
        !regressed.is_empty() && !fixed.is_empty(),
        "{a} vs {b}: nothing flipped both ways"
    );
    let flip_rows = |kind: &str| -> Vec<usize> {
        dom.split("<tr class=\"item ")
            .skip(1)
            .filter(|r| r[..r.find('>').unwrap()].contains(&format!("data-flip=\"{kind}\"")))
            .map(|r| {
                let cell = r.split("<td class=\"n\">").nth(1).unwrap();
                cell[..cell.find('<').unwrap()].trim().parse().unwrap()
            })
            .collect()
    };
    assert_eq!(flip_rows("regressed"), regressed);
    assert_eq!(flip_rows("fixed"), fixed);
    let all = row_indices(&dom);
    assert_eq!(all[..regressed.len()], regressed[..]);
    assert!(dom.contains(&format!(">{} regressed</span>", regressed.len())));
    assert!(dom.contains(&format!(">{} newly correct</span>", fixed.len())));

    // (c) A failing item (a regression if one shows rows, so that it is on the first screen of
    // the screenshot) expands to its differing rows.
    let (index, lines) = failing_item(manifest, &numbers, a, &regressed);
    let eval = Evaluation::open(manifest).unwrap();
    let id = format!("{index:0w$}", w = eval.index_width());
    let fragment = format!("open={id}");
    let dom = chromium::dom(browser, &page, &fragment);
    let row =
        chromium::element(&dom, &format!("id=\"item-{id}\""), "</tr>").expect("the item's row");
    assert!(row.contains("<details open=\"\">"), "not expanded: {row}");
    let text = chromium::unescape(row);
    for line in &lines {
        assert!(
            text.contains(line.as_str()),
            "{line:?} not in item {index}'s row:\n{text}"
        );
    }

    // (d) A screenshot, the failing item expanded.
    chromium::screenshot(browser, &page, &fragment, &chromium::screenshot_path(name));

    // (e) The comparison: A/B/Δ as `sqlsuite diff` prints them, the flipped items on the first
    // screen, `#open=` with a plain index, both predictions.
    comparison(browser, &page, manifest, a, b, &regressed, name);
}

/// The accuracy table `sqlsuite diff <manifest> A B --by-db` prints: per metric, its rows
/// `[label, A, B, Δ]` (all items first, then each group's).
fn diff_table(manifest: &Path, a: &str, b: &str) -> Vec<(String, Vec<[String; 4]>)> {
    let o = sqlsuite(&["diff", manifest.to_str().unwrap(), a, b, "--by-db"]);
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let mut metrics: Vec<(String, Vec<[String; 4]>)> = Vec::new();
    // The table: from the header line to the first empty line.
    for line in text.lines().skip(3).take_while(|l| !l.is_empty()) {
        let cells: Vec<String> = line
            .split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_owned)
            .collect();
        let row: [String; 4] = cells
            .clone()
            .try_into()
            .unwrap_or_else(|_| panic!("4 cells in {line:?}: {cells:?}"));
        if line.starts_with(' ') {
            metrics.last_mut().expect("a metric line first").1.push(row);
        } else {
            metrics.push((row[0].clone(), vec![row]));
        }
    }
    assert!(!metrics.is_empty(), "no accuracy table in:\n{text}");
    metrics
}

/// Prediction `set`'s text of item `i`, from its file.
fn prediction(manifest: &Path, set: &str, i: usize) -> String {
    let eval = Evaluation::open(manifest).unwrap();
    let p = eval.dataset.predictions.iter().find(|p| p.name == set);
    p.expect("the set").queries[i].clone()
}

/// The text without its whitespace: what formatting the SQL may not change (it breaks lines
/// and may drop the space before a comma).
fn collapsed(text: &str) -> String {
    text.split_whitespace().collect()
}

/// The page of `b` against `a` (`report --predictions b --against a`) as a comparison:
/// (1) each metric's A, B and Δ overall and per group are the rows `sqlsuite diff a b --by-db`
/// prints, cell for cell; (2) on a 1280 × 800 first screen, flipped items' rows are drawn;
/// (3) `#open=<index>` without padding opens a regressed item, which shows both sets' predictions
/// (their texts, line breaks aside) and the gold; a 1280 × 800 screenshot of that.
fn comparison(
    browser: &Path,
    page: &Path,
    manifest: &Path,
    b: &str,
    a: &str,
    regressed: &[usize],
    name: &str,
) {
    let dom = chromium::dom(browser, page, "");
    for (metric, cli) in diff_table(manifest, a, b) {
        let overall = chromium::element(&dom, "<table id=\"comparison\"", "</table>")
            .expect("the comparison table");
        let mut rendered: Vec<[String; 4]> = chromium::rows(overall)
            .into_iter()
            .filter(|r| r[0] == metric)
            .map(|r| [r[0].clone(), r[2].clone(), r[3].clone(), r[4].clone()])
            .collect();
        assert_eq!(rendered.len(), 1, "{metric} in the comparison table");
        let mut at = 0;
        let start = format!("<table class=\"compare sortable\" data-metric=\"{metric}\"");
        while let Some(table) = chromium::element(&dom[at..], &start, "</table>") {
            at += dom[at..].find(&start).unwrap() + start.len();
            rendered.extend(
                chromium::rows(table)
                    .into_iter()
                    .map(|r| [r[0].clone(), r[2].clone(), r[3].clone(), r[4].clone()]),
            );
        }
        assert_eq!(
            rendered, cli,
            "{metric}: the page's A, B, Δ against `diff --by-db`"
        );
        assert!(rendered.len() > 2, "{metric}: groups compared");
    }

    // (2) The first screen.
    let probe = "var r = Array.prototype.filter.call(document.querySelectorAll('#items tr.item'), \
        function (t) { return t.dataset.flip !== ''; }).map(function (t) { return t.cells[0].getBoundingClientRect(); }); \
        document.documentElement.setAttribute('data-probe', JSON.stringify({flipped: r.length, \
        first_screen: r.filter(function (b) { return b.top >= 0 && b.bottom <= innerHeight; }).length, height: innerHeight}));";
    let dom = chromium::dom_after(browser, page, "", probe, (1280, 800));
    let probe: serde_json::Value =
        serde_json::from_str(&chromium::html_attribute(&dom, "data-probe").expect("the probe"))
            .unwrap();
    let (flipped, first) = (
        probe["flipped"].as_u64().unwrap(),
        probe["first_screen"].as_u64().unwrap(),
    );
    assert!(
        flipped > 0 && first >= flipped.min(3) && probe["height"].as_u64() <= Some(800),
        "flipped items on the first screen: {probe}"
    );

    // (3) `#open=6`: both predictions and the gold.
    let eval = Evaluation::open(manifest).unwrap();
    let index = regressed[0];
    let dom = chromium::dom(browser, page, &format!("open={index}"));
    let id = format!("{index:0w$}", w = eval.index_width());
    let row = chromium::element(&dom, &format!("id=\"item-{id}\""), "</details>").expect("the row");
    assert!(
        row.contains("<details open=\"\">"),
        "not expanded by open={index}: {row}"
    );
    for (set, role) in [(a, "A"), (b, "B")] {
        let side = chromium::element(row, &format!("data-set=\"{set}\""), "</pre>")
            .unwrap_or_else(|| panic!("no {set} side in {row}"));
        assert!(side.contains(&format!("{role}: {set}")), "{side}");
        let shown =
            chromium::unescape(&side[side.find("<pre class=\"sql prediction\">").unwrap()..]);
        let shown = &shown[shown.find('>').unwrap() + 1..];
        assert_eq!(
            collapsed(shown),
            collapsed(&prediction(manifest, set, index)),
            "{set}'s prediction of {index}"
        );
    }
    let gold = chromium::element(row, "<pre class=\"sql gold\">", "</pre>").expect("the gold");
    assert_eq!(
        collapsed(&chromium::unescape(&gold[gold.find('>').unwrap() + 1..])),
        collapsed(&eval.items()[index].gold)
    );
    chromium::screenshot_sized(
        browser,
        page,
        &format!("open={index}"),
        &chromium::screenshot_path(&format!("report-compare-{name}")),
        (1280, 800),
    );
}

/// The page of every set in Chromium: each set's numbers per metric are the command line's,
/// "sets disagree" leaves the items that flipped between the sets, a failing item expands to
/// its differing rows, and a screenshot of that is written.
fn every_set_page(browser: &Path, manifest: &Path, name: &str) {
    let dir = tempfile::tempdir().unwrap();
    let (page, html) = report(dir.path(), manifest, &[]);
    for external in ["src=", "href=", "@import", "url("] {
        assert!(!html.contains(external), "{external} in the page");
    }
    let numbers = cli_numbers::of(manifest, &[]);
    let sets: Vec<&str> = numbers.keys().map(String::as_str).collect();
    assert!(sets.len() > 1);
    let dom = chromium::dom(browser, &page, "");
    assert!(
        chromium::render_ms(&dom).is_some(),
        "the script did not finish"
    );
    for metric in numbers[sets[0]].keys() {
        let table = chromium::element(
            &dom,
            &format!("<table class=\"sets sortable\" data-metric=\"{metric}\">"),
            "</table>",
        )
        .unwrap_or_else(|| panic!("no {metric} table"));
        let rendered: Vec<(String, [usize; 3])> = chromium::rows(table)
            .into_iter()
            .map(|r| (r[0].clone(), [1, 2, 3].map(|k| r[k].parse().unwrap())))
            .collect();
        let mut cli: Vec<(String, [usize; 3])> = sets
            .iter()
            .map(|s| {
                let c = numbers[*s][metric].total;
                ((*s).to_owned(), [c.items, c.scored, c.correct])
            })
            .collect();
        // The page lists the sets in the manifest's order.
        cli.sort_by_key(|(s, _)| rendered.iter().position(|(r, _)| r == s));
        assert_eq!(rendered, cli, "{metric} per set");
    }
    let items = |dom: &str| -> Vec<usize> {
        dom.split("<tr class=\"item\" data-index=\"")
            .skip(1)
            .map(|r| r[..r.find('"').unwrap()].parse().unwrap())
            .collect()
    };
    // The first page of rows: 50 items (or all of them).
    let first_page = items(&dom);
    assert_eq!(
        first_page.len(),
        numbers[sets[0]]["exec"].verdicts.len().min(50)
    );

    // "Sets disagree" (two sets): the items that flipped between them.
    if let [a, b] = sets[..] {
        let dom = chromium::dom(browser, &page, "disagree=1");
        let (regressed, fixed) = cli_numbers::flips(&numbers, b, a);
        let mut flipped: Vec<usize> = regressed.into_iter().chain(fixed).collect();
        flipped.sort();
        assert!(!flipped.is_empty());
        assert_eq!(items(&dom), flipped);
    }

    // A failing item expands to its differing rows.
    let (index, lines) = failing_item(manifest, &numbers, sets[0], &[]);
    let fragment = format!("open={index}");
    let dom = chromium::dom(browser, &page, &fragment);
    let detail = chromium::element(
        &dom,
        &format!("<tr class=\"detail\" data-index=\"{index}\">"),
        "</tr>",
    )
    .expect("the item's details");
    let part = chromium::element(detail, &format!("data-set=\"{}\"", sets[0]), "</div>")
        .expect("the set's part");
    let text = chromium::unescape(part);
    for line in &lines {
        assert!(
            text.contains(line.as_str()),
            "{line:?} not in item {index}'s details:\n{text}"
        );
    }
    chromium::screenshot(browser, &page, &fragment, &chromium::screenshot_path(name));
}

/// Spider, dev_2 against dev_1 (the shared data: ignored without it, failed under
/// `SQLSUITE_REQUIRE_SHARED=1`): the pair the issue's comparison is measured on. The sets are
/// evaluated four times (the report, `eval --format jsonl`, `diff --by-db`, the failing item);
/// with Spider's step budget no prediction waits for a wall clock (about 25 s each, debug).
fn spider_pair(browser: &Path) -> Result<Completion, Failed> {
    let gold = trials::shared_dir().join("data/spider/dev_gold.sql");
    if !gold.is_file() {
        let why = format!(
            "Spider data unavailable: {} not found (set {})",
            gold.display(),
            trials::SHARED_ENV
        );
        return if trials::data_required() {
            Err(format!("{why} ({}=1)", trials::REQUIRE_DATA_ENV).into())
        } else {
            Ok(Completion::ignored_with(why))
        };
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/spider.toml");
    pair_page(
        browser,
        &manifest,
        "dev_2",
        "dev_1",
        "spider_dev_2_against_dev_1",
    );
    Ok(Completion::Completed)
}

/// The "Gold checks" section of the gold-check fixture's report, as Chromium shows it: the count
/// line the command line prints, one row per finding linking to the item's row, and a mark on
/// each flagged row (tests/fixtures/gold_checks, spec/gold_checks.md); a screenshot for people.
fn gold_checks_section(browser: &Path) {
    let manifest =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/gold_checks/gold_checks.toml");
    let eval = Evaluation::open(&manifest).expect("the fixture opens");
    let checks = eval.gold_checks();
    let line = sqlsuite::report::gold_checks::line(checks);
    let dir = tempfile::tempdir().unwrap();
    let (page, _) = report(dir.path(), &manifest, &["--predictions", "gold"]);
    let dom = chromium::dom(browser, &page, "");
    let section = dom
        .split("<section id=\"gold-checks\">")
        .nth(1)
        .and_then(|s| s.split("</section>").next())
        .expect("a gold-checks section");
    assert!(
        section.contains(&line),
        "the count line {line:?} in:\n{section}"
    );
    assert_eq!(
        section.matches("<tr class=\"finding\"").count(),
        checks.findings.len()
    );
    for f in &checks.findings {
        let anchor = format!("href=\"#item-{:02}\"", f.item);
        assert!(section.contains(&anchor), "{anchor} for {f:?}");
        assert!(dom.contains(&format!("id=\"item-{:02}\"", f.item)));
    }
    assert_eq!(
        dom.matches("class=\"badge badge-gold\" title=").count(),
        checks.findings.len(),
        "one mark per finding on the items' rows"
    );
    chromium::screenshot(
        browser,
        &page,
        "gold-checks",
        &chromium::screenshot_path("gold_checks_fixture.png"),
    );
}

/// The demo with `[metrics.exec] counterexamples = true` (a manifest in a temporary directory),
/// v2 against v1: the regressed item with differing rows, opened by `#open=<index>`, shows both
/// predictions and its counterexample as tables — one per table the library's counterexample
/// keeps, then both results — and a 1280 × 800 screenshot of it.
fn counterexamples(browser: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let demo_dir = demo().parent().unwrap().to_path_buf();
    let manifest = dir.path().join("demo.toml");
    std::fs::write(
        &manifest,
        format!(
            "[dataset]\nname = \"demo\"\nformat = \"spider\"\ngold = \"{d}/gold.sql\"\n\
             [databases]\npath = \"{d}/db/{{db_id}}/{{db_id}}.sql\"\n\
             [[predictions]]\nname = \"v1\"\nfile = \"{d}/predictions/v1.txt\"\n\
             [[predictions]]\nname = \"v2\"\nfile = \"{d}/predictions/v2.txt\"\n\
             [metrics.exec]\ntimeout_ms = 2000\ncounterexamples = true\n",
            d = demo_dir.display()
        ),
    )
    .unwrap();
    let eval = Evaluation::open(&manifest).unwrap();
    let (regressed, _) = demo_flips(&eval);
    // The library's counterexample of v2's regressed item.
    let (index, shown) = regressed
        .iter()
        .find_map(|&i| {
            let v = eval.judge(1, i).verdict("exec")?;
            match v.counterexample.as_deref()? {
                sqlsuite::counterexample::Found::Shown(c) => Some((i, c.clone())),
                _ => None,
            }
        })
        .expect("a regressed item with a counterexample");
    let (page, _) = report(
        dir.path(),
        &manifest,
        &["--predictions", "v2", "--against", "v1"],
    );
    let dom = chromium::dom(browser, &page, &format!("open={index}"));
    let id = format!("{index:0w$}", w = eval.index_width());
    let row = chromium::element(&dom, &format!("id=\"item-{id}\""), "</details>").expect("the row");
    assert!(row.contains("<details open=\"\">"), "not expanded: {row}");
    for (set, i) in [("v1", 0), ("v2", 1)] {
        let side = chromium::element(row, &format!("data-set=\"{set}\""), "</pre>")
            .unwrap_or_else(|| panic!("no {set} side"));
        assert!(
            collapsed(&chromium::unescape(side))
                .contains(&collapsed(&eval.dataset.predictions[i].queries[index])),
            "{set}'s prediction in {side}"
        );
    }
    let block = chromium::element(row, "<div class=\"cx-block\" data-set=\"v2\">", "</div>")
        .expect("v2's counterexample");
    let captions: Vec<String> = block
        .split("<caption>")
        .skip(1)
        .map(|c| chromium::unescape(&c[..c.find("</caption>").unwrap()]))
        .collect();
    let mut expected: Vec<String> = shown
        .tables
        .iter()
        .map(|t| format!("counterexample: table {}", t.table))
        .collect();
    expected.extend(["gold on it".to_owned(), "prediction on it".to_owned()]);
    assert_eq!(captions.len(), expected.len(), "{captions:?}");
    for (caption, start) in captions.iter().zip(&expected) {
        assert!(
            caption.starts_with(start.as_str()),
            "{caption:?} vs {start:?}"
        );
    }
    // Each table's rows are the counterexample's (the first table's cells, as text).
    let first =
        chromium::rows(chromium::element(block, "<table class=\"cx\">", "</table>").unwrap());
    let want: Vec<Vec<String>> = shown.tables[0]
        .rows
        .rows
        .iter()
        .map(|r| r.iter().map(ToString::to_string).collect())
        .collect();
    assert_eq!(first, want);
    // Each simplified cell is shaded, the value the database had as its tooltip, and only those.
    let shaded: Vec<String> = block
        .split("<td class=\"simplified\" title=\"")
        .skip(1)
        .map(|c| chromium::unescape(&c[..c.find('"').unwrap()]))
        .collect();
    let simplified: Vec<String> = shown
        .simplified
        .iter()
        .map(|s| format!("simplified: the database had {}", s.was))
        .collect();
    assert!(
        !simplified.is_empty(),
        "the demo's counterexample has simpler values"
    );
    let (mut shaded, mut simplified) = (shaded, simplified);
    shaded.sort();
    simplified.sort();
    assert_eq!(shaded, simplified);
    assert!(block.contains("Shaded cells were simplified"), "{block}");
    chromium::screenshot_sized(
        browser,
        &page,
        &format!("open={index}"),
        &chromium::screenshot_path("report-compare-demo_counterexample"),
        (1280, 800),
    );
}

/// The numbers of column `col` of each body row of a table (`-` as none).
fn column(table: &str, col: usize) -> Vec<Option<f64>> {
    chromium::rows(table)
        .iter()
        .map(|r| r[col].split(['%', ' ']).next().and_then(|n| n.parse().ok()))
        .collect()
}

/// Clicking a header sorts: the comparison page's per-`db_id` table by Δ (ascending, then
/// descending on a second click), and on the page of every set, the sets' table by accuracy and
/// the items by `db_id` (the script's rows, page one). Also, on the comparison page, no chart
/// label is cut: every label's box starts inside its chart.
fn sortable_tables(browser: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let (page, _) = report(
        dir.path(),
        &demo(),
        &["--predictions", "v2", "--against", "v1"],
    );
    let table = "table.compare[data-group=\"db_id\"]";
    for (clicks, ascending) in [(1, true), (2, false)] {
        let script = format!(
            "var th = document.querySelector('{table} th:nth-child(5)'); for (var k = 0; k < {clicks}; k++) {{ th.click(); }}"
        );
        let dom = chromium::dom_after(browser, &page, "", &script, (1280, 800));
        let t = chromium::element(
            &dom,
            "<table class=\"compare sortable\" data-metric=\"exec\" data-group=\"db_id\"",
            "</table>",
        )
        .unwrap();
        let deltas = column(t, 4);
        let mut sorted = deltas.clone();
        sorted.sort_by(|x, y| x.partial_cmp(y).unwrap());
        if !ascending {
            sorted.reverse();
        }
        assert!(deltas.len() > 1);
        assert_eq!(deltas, sorted, "{clicks} click(s)");
        assert!(t.contains(if ascending {
            "aria-sort=\"ascending\""
        } else {
            "aria-sort=\"descending\""
        }));
    }
    // Chart labels whole (the charts are in the closed "v2 alone" part: opened first).
    let script = "document.getElementById('summary-b').open = true; var xs = Array.prototype.map.call(\
        document.querySelectorAll('svg.chart text[text-anchor=\"end\"]'), function (t) { return t.getBBox().x; }); \
        document.documentElement.setAttribute('data-probe', JSON.stringify(xs));";
    let dom = chromium::dom_after(browser, &page, "", script, (1280, 800));
    let xs: Vec<f64> =
        serde_json::from_str(&chromium::html_attribute(&dom, "data-probe").unwrap()).unwrap();
    assert!(
        !xs.is_empty() && xs.iter().all(|x| *x >= 0.0),
        "label boxes start at {xs:?}"
    );

    // The page of every set.
    let (page, _) = report(dir.path(), &demo(), &[]);
    let script = "document.querySelector('table.sets th:nth-child(5)').click(); \
        var h = document.querySelectorAll('#items > thead th')[1]; h.click(); h.click();";
    let dom = chromium::dom_after(browser, &page, "", script, (1280, 800));
    let sets = chromium::element(&dom, "<table class=\"sets sortable\"", "</table>").unwrap();
    let accuracy = column(sets, 4);
    assert!(accuracy.windows(2).all(|w| w[0] <= w[1]), "{accuracy:?}");
    let items = chromium::element(&dom, "<table id=\"items\">", "</table>").unwrap();
    let dbs: Vec<String> = chromium::rows(items)
        .into_iter()
        .map(|r| r[1].clone())
        .collect();
    assert!(
        dbs.len() > 1 && dbs.windows(2).all(|w| w[0] >= w[1]),
        "db_id descending: {dbs:?}"
    );
    assert!(
        dbs.first() != dbs.last(),
        "both databases on page one: {dbs:?}"
    );
}
