//! The report (`report.md`): counts per clause count and split, length distributions, the
//! composed SQL that failed, alignment coverage, the rule measurements and alignment examples.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

use super::clauses::ClauseKind;
use super::quality::{self, Quality};
use super::recombine::render as render_words;
use super::Composed;

/// SQL and question token counts of a group of pairs.
type Lengths = (Vec<usize>, Vec<usize>);

/// Alignment examples shown per clause kind.
const EXAMPLES_PER_KIND: usize = 3;

fn pct(x: f64) -> String {
    format!("{:.1} %", 100.0 * x)
}

/// Min, mean and max of `values` as a table cell triple.
fn min_mean_max(values: &[usize]) -> String {
    match (values.iter().min(), values.iter().max()) {
        (Some(min), Some(max)) => {
            let mean = values.iter().sum::<usize>() as f64 / values.len() as f64;
            format!("{min} | {mean:.1} | {max}")
        }
        _ => "– | – | –".to_owned(),
    }
}

/// Tokens of a text: its whitespace-separated pieces.
pub fn token_count(text: &str) -> usize {
    text.split_whitespace().count()
}

/// Renders the report of `c`, built from the file `input` (named by its file name only).
pub fn render(c: &Composed, input: &Path) -> String {
    let mut s = String::new();
    let name = input.file_name().map_or_else(
        || input.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let _ = writeln!(s, "# SpiderCompose report: {name}\n");
    counts(&mut s, c);
    lengths(&mut s, c);
    failures(&mut s, c);
    coverage(&mut s, c);
    examples(&mut s, c);
    s
}

fn counts(s: &mut String, c: &Composed) {
    let sources = c.alignments.len() + c.skipped.len();
    let _ = writeln!(s, "## Counts\n");
    let _ = writeln!(s, "- source pairs: {sources}");
    let _ = writeln!(
        s,
        "- source pairs split into clauses: {}",
        c.alignments.len()
    );
    let _ = writeln!(s, "- source pairs skipped: {}", c.skipped.len());
    let mut reasons: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, why) in &c.skipped {
        reasons.entry(why.as_str()).or_default().push(*i);
    }
    for (why, items) in &reasons {
        let _ = writeln!(s, "  - {} × {why} (#{:?})", items.len(), items);
    }
    let _ = writeln!(
        s,
        "- composed SQL that failed to execute (not emitted): {}",
        c.failures.len()
    );
    let _ = writeln!(
        s,
        "- combinations with an empty question (not emitted): {}",
        c.empty_questions
    );
    let _ = writeln!(
        s,
        "- duplicate pairs (same database, SQL and question; not emitted): {}",
        c.duplicates
    );
    let _ = writeln!(
        s,
        "- combinations whose question another combination of the same pair with more clauses \
         has (the text cannot tell them apart; not emitted): {}",
        c.ambiguous_questions
    );
    let _ = writeln!(s, "- pairs emitted: {}", c.pairs.len());
    if let Some(share) = c.template_test_share {
        let _ = writeln!(
            s,
            "- template split: test share {share:.4} (the clause split's)"
        );
    }
    let mut table: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    for p in &c.pairs {
        let e = table.entry(p.clause_count).or_default();
        if p.split == "test" {
            e.1 += 1;
        } else {
            e.0 += 1;
        }
    }
    let _ = writeln!(
        s,
        "\n| clauses | train | test | total |\n| --- | ---: | ---: | ---: |"
    );
    let (mut tr, mut te) = (0, 0);
    for (n, (a, b)) in &table {
        let _ = writeln!(s, "| {n} | {a} | {b} | {} |", a + b);
        tr += a;
        te += b;
    }
    let _ = writeln!(s, "| all | {tr} | {te} | {} |", tr + te);
    let test34 = c
        .pairs
        .iter()
        .filter(|p| p.split == "test" && (3..=4).contains(&p.clause_count))
        .count();
    let _ = writeln!(
        s,
        "\nTest pairs with 3–4 clauses: {test34} (the paper: 200 from Spider dev).\n"
    );
}

fn lengths(s: &mut String, c: &Composed) {
    let _ = writeln!(
        s,
        "## Lengths (tokens: whitespace-separated pieces)\n\n\
         | split | clauses | pairs | SQL min | SQL mean | SQL max | NL min | NL mean | NL max |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    let mut groups: BTreeMap<(&str, usize), Lengths> = BTreeMap::new();
    for p in &c.pairs {
        let g = groups.entry((p.split, p.clause_count)).or_default();
        g.0.push(token_count(&p.query));
        g.1.push(token_count(&p.question));
    }
    for ((split, n), (sql, nl)) in &groups {
        let _ = writeln!(
            s,
            "| {split} | {n} | {} | {} | {} |",
            sql.len(),
            min_mean_max(sql),
            min_mean_max(nl)
        );
    }
    let _ = writeln!(s);
}

fn failures(s: &mut String, c: &Composed) {
    let _ = writeln!(s, "## Composed SQL that failed to execute\n");
    if c.failures.is_empty() {
        let _ = writeln!(s, "None.\n");
        return;
    }
    let mut by_error: BTreeMap<String, usize> = BTreeMap::new();
    for f in &c.failures {
        *by_error.entry(error_kind(&f.error)).or_default() += 1;
    }
    for (kind, n) in &by_error {
        let _ = writeln!(s, "- {n} × {kind}");
    }
    let _ = writeln!(s);
    for f in &c.failures {
        let _ = writeln!(
            s,
            "- #{} `{}`: `{}` — {}",
            f.source_index,
            f.db_id,
            f.query.replace('`', "'"),
            f.error
        );
    }
    let _ = writeln!(s);
}

/// An error message without the names in it (for counting errors by kind).
fn error_kind(error: &str) -> String {
    error.split(':').next().unwrap_or(error).trim().to_owned()
}

fn quality_row(s: &mut String, label: &str, q: &Quality) {
    let _ = writeln!(
        s,
        "| {label} | {} | {} | {} | {} | {} | {} |",
        q.words,
        q.tagged,
        pct(1.0 - q.coverage()),
        pct(q.fragment_coverage()),
        q.clauses,
        pct(q.empty_share())
    );
}

fn coverage(s: &mut String, c: &Composed) {
    let header = "| | words | tagged | untagged | in a fragment | clauses | empty fragments |\n\
                  | --- | ---: | ---: | ---: | ---: | ---: | ---: |";
    let _ = writeln!(
        s,
        "## Alignment coverage\n\nWords are question tokens with a letter or digit. Per clause \
         kind: the source pairs whose query has a clause of that kind.\n\n{header}"
    );
    let (all, per) = quality::by_kind(&c.alignments);
    quality_row(s, "all", &all);
    for (kind, q) in &per {
        quality_row(s, kind.name(), q);
    }
    let _ = writeln!(s, "\n### Adjustment rules, each switched\n\n{header}");
    for v in &c.ablation {
        quality_row(s, &v.name, &v.quality);
    }
    let _ = writeln!(
        s,
        "\n| | words whose tags change | clause fragments that change |\n| --- | ---: | ---: |"
    );
    for v in &c.ablation {
        let _ = writeln!(
            s,
            "| {} | {} | {} |",
            v.name, v.tags_changed, v.fragments_changed
        );
    }
    let _ = writeln!(s);
    for v in &c.ablation {
        if let Some([q, clause, run, variant]) = &v.example {
            let _ = writeln!(
                s,
                "- {}: {q}\n  - clause: `{clause}`\n  - as run: {run}\n  - switched: {variant}",
                v.name
            );
        }
    }
    let _ = writeln!(s);
}

fn examples(s: &mut String, c: &Composed) {
    let _ = writeln!(s, "## Alignment examples\n");
    for kind in ClauseKind::ALL {
        let _ = writeln!(s, "### {}\n", kind.name());
        let mut shown = 0;
        for a in &c.alignments {
            if shown == EXAMPLES_PER_KIND {
                break;
            }
            let Some(ci) = a.clauses.iter().position(|cl| cl.kind == kind) else {
                continue;
            };
            if a.fragments[ci].is_empty() {
                continue;
            }
            shown += 1;
            let _ = writeln!(
                s,
                "- #{}: {}\n  - clause: `{}`\n  - fragment: {}",
                a.source_index,
                render_words(&a.words, &(0..a.words.len()).collect::<Vec<_>>()),
                a.clauses[ci].text,
                render_words(&a.words, &a.fragments[ci])
            );
        }
        if shown == 0 {
            let _ = writeln!(s, "None.");
        }
        let _ = writeln!(s);
    }
}
