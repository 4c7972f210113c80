//! A condition stated twice, once in a `min`/`max` subquery: `… WHERE G AND x op ( SELECT
//! min( B.y ) FROM … WHERE G' AND R )`, where `G'` is a group of the subquery's conjuncts
//! over aliases of its own that nothing else in the subquery reads (`G'` may read the outer
//! block's columns: it is correlated), and `G'` with those aliases renamed is `G`, conjuncts of
//! the outer WHERE (ATIS: the date a flight flies on, asked in the outer block and again in
//! the subquery that finds the earliest flight).
//!
//! The subquery's rows are then those of `R` times those of `G'`, so its `min` is `R`'s when
//! `G'` holds for some rows and NULL (no comparison holds) when it holds for none: the gold
//! asks `G'` of the outer row once more. The outer row's own `G` answers it, so loosening a
//! conjunct of `G'` changes nothing. The other way round: where `G`'s aliases are read
//! nowhere else and the block selects `DISTINCT` (no aggregate), loosening a conjunct of `G`
//! keeps the answer too: `G'` still asks the same of the outer row, and which rows of `G`'s
//! aliases stand beside it only changes how often a row repeats.
//!
//! **Within one block** the same holds where no subquery comes into it: aliases `K` of a
//! `SELECT DISTINCT` block (no aggregate, no GROUP BY), read only by some of its conjuncts, each
//! standing for another alias of its table outside `K` so that every one of those conjuncts,
//! renamed, is a conjunct of the block (ATIS gold 500: "a flight using this fare flies from
//! Washington to Denver", asked of a second flight beside the outer flight that already does).
//! The rest of the block then holds with `K`'s rows taken from the aliases they stand for, so
//! those conjuncts, or looser ones, ask nothing more; only how often a row repeats changes.
//!
//! The loosenings ([`Query::restated_loosenings`]): a conjunct dropped (with the `AND` after
//! or before it), `=` made `<=` or `>=`, `= 'c'` made `LIKE '%c%'` or `LIKE 'c%'`, and a
//! conjunct made another conjunct of its group by changing one token (`DAY_NUMBER = 8` →
//! `MONTH_NUMBER = 8` beside `MONTH_NUMBER = 8`): a copy adds nothing. And a span dropped
//! inside a run of the copy's conjuncts that leaves it no stricter
//! ([`Query::spans_dropped_no_stricter`]: `DAY_NUMBER = 8` → `DAY_NUMBER`, true where it was).

use std::collections::{BTreeSet, HashMap};

use super::extremum::Conjunction;
use super::from_clause::FromList;
use super::{normalize, Query, AGGREGATES, CLAUSE_WORDS, MAX_DROP_SPAN};
use sqlsuite::sql_tokens::{quote, splice, TokenKind};

/// A group of conjuncts stated in both blocks: the copy whose conjuncts may be loosened.
struct Restated {
    /// The conjuncts (token ranges) of the copy.
    copy: Vec<(usize, usize)>,
}

impl Query<'_> {
    /// The normalized texts of the loosenings in the module doc, for every group the gold
    /// states twice.
    pub(super) fn restated_loosenings(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let groups = (0..self.toks.len())
            .flat_map(|open| self.restated_at(open))
            .chain(self.implied_groups());
        for group in groups {
            out.extend(self.loosenings(&group.copy));
            out.extend(self.spans_dropped_no_stricter(&group.copy));
        }
        out
    }

    /// Runs of at most [`MAX_DROP_SPAN`] tokens dropped inside a run of the copy's consecutive
    /// conjuncts (`a AND b AND …`) that leave each piece of it (split at its `AND`s) implied by
    /// a conjunct of the copy ([`implied`]): the copy is then no stricter, and asks nothing.
    fn spans_dropped_no_stricter(&self, copy: &[(usize, usize)]) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let mut sorted = copy.to_vec();
        sorted.sort_unstable();
        let words = |(a, b): (usize, usize)| -> Vec<String> {
            (a..b).map(|k| self.toks[k].lower()).collect()
        };
        let originals: Vec<Vec<String>> = sorted.iter().map(|&r| words(r)).collect();
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for &(a, b) in &sorted {
            match runs.last_mut() {
                Some(run) if run.1 + 1 == a && self.toks[run.1].is_word("and") => run.1 = b,
                _ => runs.push((a, b)),
            }
        }
        for (start, end) in runs {
            let depth = self.depth[start];
            let lower = words((start, end));
            for i in start..end {
                for j in i + 1..=end.min(i + MAX_DROP_SPAN) {
                    let rest: Vec<usize> = (start..i).chain(j..end).collect();
                    let pieces: Vec<Vec<String>> = rest
                        .split(|&k| self.depth[k] == depth && self.toks[k].is_word("and"))
                        .map(|piece| piece.iter().map(|&k| lower[k - start].clone()).collect())
                        .collect();
                    if pieces.iter().all(|p| implied(p, &originals)) {
                        out.insert(self.spliced(i, j, ""));
                    }
                }
            }
        }
        out
    }

    /// The groups of a `SELECT DISTINCT` block's conjuncts that its other conjuncts imply
    /// (module doc, "within one block"): aliases `K` read only by those conjuncts, each standing
    /// for another alias of its table outside `K` so that every one of them, renamed, is a
    /// conjunct of the block. Candidates for `K`: the groups the block's conjuncts join its
    /// aliases into once one alias (or none) is taken out, at most [`MAX_IMPLIED`] aliases.
    fn implied_groups(&self) -> Vec<Restated> {
        let mut found = Vec::new();
        for w in (0..self.toks.len()).filter(|&k| self.toks[k].is_word("where")) {
            let Some(list) = self.block_from(w).filter(|l| l.on.is_empty()) else {
                continue;
            };
            if !self.selects_distinct_rows(w) {
                continue;
            }
            let end = self.clause_end(w, CLAUSE_WORDS);
            let Some(Conjunction { conjuncts, .. }) = self.flat_conjuncts(w + 1, end) else {
                continue;
            };
            let names: BTreeSet<String> = list.items.iter().map(|(_, n)| n.clone()).collect();
            let reads: Vec<BTreeSet<String>> = conjuncts
                .iter()
                .map(|&r| self.names_in(r).intersection(&names).cloned().collect())
                .collect();
            let texts: BTreeSet<String> = conjuncts
                .iter()
                .flat_map(|&r| self.spellings(r, &HashMap::new()))
                .collect();
            let mut tried: BTreeSet<BTreeSet<String>> = BTreeSet::new();
            let cuts = std::iter::once(None).chain(names.iter().map(Some));
            for cut in cuts {
                for group in groups_without(&names, &reads, cut) {
                    if group.len() > MAX_IMPLIED || group.len() == names.len() {
                        continue;
                    }
                    if !tried.insert(group.clone()) {
                        continue;
                    }
                    let copy: Vec<(usize, usize)> = conjuncts
                        .iter()
                        .zip(&reads)
                        .filter(|(_, r)| !r.is_disjoint(&group))
                        .map(|(&c, _)| c)
                        .collect();
                    let plain = copy.iter().all(|&(a, b)| {
                        self.all_qualified((a, b))
                            && !(a..b).any(|k| self.toks[k].is_word("select"))
                    });
                    let mine: BTreeSet<&str> = group.iter().map(String::as_str).collect();
                    if !plain || !self.read_only_within(&mine, &copy) {
                        continue;
                    }
                    let items: Vec<&(String, String)> = list
                        .items
                        .iter()
                        .filter(|(_, n)| group.contains(n))
                        .collect();
                    let others = FromList {
                        items: list
                            .items
                            .iter()
                            .filter(|(_, n)| !group.contains(n))
                            .cloned()
                            .collect(),
                        on: Vec::new(),
                    };
                    let holds = |rename: &HashMap<String, String>| {
                        copy.iter()
                            .all(|&r| self.spellings(r, rename).iter().any(|s| texts.contains(s)))
                    };
                    if self.assign(&items, &others, &mut HashMap::new(), &holds) {
                        found.push(Restated { copy });
                    }
                }
            }
        }
        found
    }

    /// The groups stated twice through the subquery opening at token `open`, if it is
    /// `x op ( SELECT min( … ) FROM … WHERE … )`, a conjunct of its block's WHERE: the
    /// subquery's copy of each, and the outer block's where loosening it keeps the answer
    /// (module doc).
    fn restated_at(&self, open: usize) -> Vec<Restated> {
        let mut found = Vec::new();
        let Some(sub) = self.extremum_subquery(open) else {
            return found;
        };
        let Some(outer_where) = self.clause_of_block(open - 1, "where") else {
            return found;
        };
        let outer_end = self.clause_end(outer_where, CLAUSE_WORDS);
        let Some(Conjunction {
            conjuncts: outer_conjuncts,
            ..
        }) = self.flat_conjuncts(outer_where + 1, outer_end)
        else {
            return found;
        };
        let Some(&comparison) = outer_conjuncts
            .iter()
            .find(|&&(a, b)| a < open && sub.close < b)
        else {
            return found;
        };
        let Some(outer) = self.block_from(open - 1) else {
            return found;
        };
        let inner_names: BTreeSet<&str> = sub.from.items.iter().map(|(_, n)| n.as_str()).collect();
        let outer_names: BTreeSet<&str> = outer.items.iter().map(|(_, n)| n.as_str()).collect();
        if !outer.on.is_empty() || !inner_names.is_disjoint(&outer_names) {
            return found;
        }
        let others: Vec<(usize, usize)> = outer_conjuncts
            .iter()
            .copied()
            .filter(|&c| c != comparison)
            .collect();
        let outer_texts: BTreeSet<String> = others
            .iter()
            .flat_map(|&r| self.spellings(r, &HashMap::new()))
            .collect();
        for component in self.private_groups(&sub, &inner_names, &outer_names) {
            let copy: Vec<(usize, usize)> = sub
                .conjuncts
                .iter()
                .copied()
                .filter(|&r| self.names_in(r).iter().any(|n| component.contains(n)))
                .collect();
            let items: Vec<&(String, String)> = sub
                .from
                .items
                .iter()
                .filter(|(_, n)| component.contains(n))
                .collect();
            let holds = |rename: &HashMap<String, String>| {
                copy.iter().all(|&r| {
                    self.spellings(r, rename)
                        .iter()
                        .any(|s| outer_texts.contains(s))
                })
            };
            let mut rename = HashMap::new();
            if !self.assign(&items, &outer, &mut rename, &holds) {
                continue;
            }
            // The outer copy: the renamed conjuncts, where its aliases are its own.
            let images: BTreeSet<String> = copy
                .iter()
                .flat_map(|&r| self.spellings(r, &rename))
                .collect();
            let outer_copy: Vec<(usize, usize)> = others
                .iter()
                .copied()
                .filter(|&r| {
                    self.spellings(r, &HashMap::new())
                        .iter()
                        .any(|s| images.contains(s))
                })
                .collect();
            let mapped: BTreeSet<&str> = rename.values().map(String::as_str).collect();
            let one_to_one = mapped.len() == rename.len();
            if one_to_one
                && self.selects_distinct_rows(open - 1)
                && self.read_only_within(&mapped, &outer_copy)
            {
                found.push(Restated { copy: outer_copy });
            }
            found.push(Restated { copy });
        }
        found
    }

    /// Token `open` opens `( SELECT min( … ) FROM … WHERE … )` (or `max`), compared by the
    /// token before it, with nothing after its WHERE and no join conditions.
    fn extremum_subquery(&self, open: usize) -> Option<Subquery> {
        let t = |k: usize| self.toks.get(k);
        if open == 0
            || !t(open)?.is_symbol("(")
            || !t(open + 1)?.is_word("select")
            || !self.is_comparison(open - 1)
            || !matches!(t(open + 2)?.lower().as_str(), "min" | "max")
            || !t(open + 3)?.is_symbol("(")
        {
            return None;
        }
        let close = self.partner(open)?;
        let arg_close = self.partner(open + 3)?;
        let argument = match arg_close - (open + 3) {
            4 if t(open + 5)?.is_symbol(".") => t(open + 4)?.lower(),
            _ => return None,
        };
        if !t(arg_close + 1)?.is_word("from") {
            return None;
        }
        let from_end = self.clause_end(arg_close + 1, CLAUSE_WORDS);
        let from = self.tables_read(arg_close + 2, from_end)?;
        if !from.on.is_empty() || !t(from_end)?.is_word("where") {
            return None;
        }
        let end = self.clause_end(from_end, CLAUSE_WORDS);
        if end != close {
            return None;
        }
        let conjuncts = self.flat_conjuncts(from_end + 1, end)?.conjuncts;
        Some(Subquery {
            close,
            from,
            argument,
            conjuncts,
        })
    }

    /// The groups of the subquery's aliases that its conjuncts join to each other and to no
    /// other of its aliases, without the aggregated one, each read by fully qualified
    /// conjuncts only (of its own aliases and the outer block's).
    fn private_groups(
        &self,
        sub: &Subquery,
        inner: &BTreeSet<&str>,
        outer: &BTreeSet<&str>,
    ) -> Vec<BTreeSet<String>> {
        let mut groups: Vec<BTreeSet<String>> = Vec::new();
        for &r in &sub.conjuncts {
            let names = self.names_in(r);
            if !self.all_qualified(r)
                || names
                    .iter()
                    .any(|n| !inner.contains(n.as_str()) && !outer.contains(n.as_str()))
            {
                return Vec::new();
            }
            let mine: BTreeSet<String> = names
                .into_iter()
                .filter(|n| inner.contains(n.as_str()))
                .collect();
            let (joined, rest): (Vec<_>, Vec<_>) =
                groups.into_iter().partition(|g| !g.is_disjoint(&mine));
            let mut merged = mine;
            for g in joined {
                merged.extend(g);
            }
            groups = rest;
            if !merged.is_empty() {
                groups.push(merged);
            }
        }
        groups.retain(|g| !g.contains(&sub.argument));
        groups
    }

    /// The qualifiers (`Q` of `Q . x`, lower case) condition `r` reads.
    fn names_in(&self, (from, to): (usize, usize)) -> BTreeSet<String> {
        (from..to)
            .filter(|&k| {
                self.toks[k].kind == TokenKind::Word
                    && self.toks.get(k + 1).is_some_and(|n| n.is_symbol("."))
            })
            .map(|k| self.toks[k].lower())
            .collect()
    }

    /// True if the block of token `i` selects `DISTINCT` and calls no aggregate in its select
    /// list, and has no GROUP BY: how often a row repeats does not show.
    fn selects_distinct_rows(&self, i: usize) -> bool {
        let Some(select) = self.clause_of_block(i, "select") else {
            return false;
        };
        let end = self.clause_end(select, CLAUSE_WORDS);
        self.toks
            .get(select + 1)
            .is_some_and(|t| t.is_word("distinct"))
            && !(select..end).any(|k| AGGREGATES.contains(&self.toks[k].lower().as_str()))
            && self.clause_of_block(i, "group").is_none()
    }

    /// True if every column of the aliases `names` the query reads is read within one of
    /// `ranges`.
    fn read_only_within(&self, names: &BTreeSet<&str>, ranges: &[(usize, usize)]) -> bool {
        (0..self.toks.len()).all(|k| {
            let qualifier = self.toks[k].kind == TokenKind::Word
                && self.toks.get(k + 1).is_some_and(|n| n.is_symbol("."));
            !qualifier
                || !names.contains(self.toks[k].lower().as_str())
                || ranges.iter().any(|&(a, b)| a <= k && k < b)
        })
    }

    /// The text of the query with tokens `from..to` replaced by `with`, normalized.
    pub(super) fn spliced(&self, from: usize, to: usize, with: &str) -> String {
        normalize(&splice(
            self.sql,
            self.byte_start(from),
            self.byte_end(to - 1),
            with,
        ))
    }

    /// The query without the conjunct (or parenthesized conjunction) `a..b`, with the `AND`
    /// after it or before it.
    pub(super) fn dropped(&self, (a, b): (usize, usize)) -> Vec<String> {
        let mut out = Vec::new();
        if self.toks.get(b).is_some_and(|t| t.is_word("and")) {
            out.push(self.spliced(a, b + 1, ""));
        }
        if a > 0 && self.toks[a - 1].is_word("and") {
            out.push(self.spliced(a - 1, b, ""));
        }
        out
    }

    /// The loosenings of the module doc, of each conjunct of `copy`.
    pub(super) fn loosenings(&self, copy: &[(usize, usize)]) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let text = |from: usize, to: usize, with: &str| self.spliced(from, to, with);
        for &(a, b) in copy {
            out.extend(self.dropped((a, b)));
            if let Some(eq) = self.only_equality((a, b)) {
                for op in ["<=", ">="] {
                    out.insert(text(eq, eq + 1, op));
                }
                let last = &self.toks[b - 1];
                if let (true, Some(c)) = (eq + 2 == b, last.string_content()) {
                    let qc = last.text.chars().next().unwrap_or('\'');
                    if !c.is_empty() && !c.contains('%') && !c.contains('_') {
                        for pattern in [format!("%{c}%"), format!("{c}%")] {
                            out.insert(text(eq, b, &format!("LIKE {}", quote(&pattern, qc))));
                        }
                    }
                }
            }
            // One token changed makes it another conjunct of the copy.
            for &(c, d) in copy {
                if (c, d) == (a, b) || d - c != b - a {
                    continue;
                }
                let differ: Vec<usize> = (0..b - a)
                    .filter(|&k| self.toks[a + k].lower() != self.toks[c + k].lower())
                    .collect();
                if let [k] = differ.as_slice() {
                    out.insert(text(a + k, a + k + 1, &self.toks[c + k].text));
                }
            }
        }
        out
    }
}

/// True if `piece` (lower-case tokens) holds wherever one of `conjuncts` does: it is one of
/// them; or a nonzero number (true); or a column `q.x` that one of them sets to a nonzero
/// number (true there); or `q.x = q.x` where one of them compares `q.x` by `=` (true where
/// `q.x` is not NULL). An unqualified column is none of these (another table may have it).
fn implied(piece: &[String], conjuncts: &[Vec<String>]) -> bool {
    let nonzero = |t: &String| {
        t.starts_with(|c: char| c.is_ascii_digit() || c == '.')
            && t.parse::<f64>().is_ok_and(|v| v != 0.0)
    };
    let column = |c: &[String]| matches!(c, [_, dot, _] if dot == ".");
    let equated = |c: &[String], side: &[String]| {
        c.len() > 4
            && ((c[..3] == *side && c[3] == "=")
                || (c[c.len() - 3..] == *side && c[c.len() - 4] == "="))
    };
    match piece {
        [] => false,
        _ if conjuncts.iter().any(|c| c.as_slice() == piece) => true,
        [n] => nonzero(n),
        p if column(p) => conjuncts.iter().any(|c| {
            c.len() == 5
                && ((c[..3] == *p && c[3] == "=" && nonzero(&c[4]))
                    || (c[2..] == *p && c[1] == "=" && nonzero(&c[0])))
        }),
        p if p.len() == 7 && p[3] == "=" && column(&p[..3]) && p[..3] == p[4..] => {
            conjuncts.iter().any(|c| equated(c, &p[..3]))
        }
        _ => false,
    }
}

/// At most this many aliases in a group [`Query::implied_groups`] tries to stand elsewhere.
const MAX_IMPLIED: usize = 8;

/// The groups the conjuncts (their qualifiers `reads`) join `names` into, without `cut`.
fn groups_without(
    names: &BTreeSet<String>,
    reads: &[BTreeSet<String>],
    cut: Option<&String>,
) -> Vec<BTreeSet<String>> {
    let mut groups: Vec<BTreeSet<String>> = names
        .iter()
        .filter(|n| Some(*n) != cut)
        .map(|n| BTreeSet::from([n.clone()]))
        .collect();
    for read in reads {
        let mine: BTreeSet<String> = read.iter().filter(|n| Some(*n) != cut).cloned().collect();
        let (joined, rest): (Vec<_>, Vec<_>) =
            groups.into_iter().partition(|g| !g.is_disjoint(&mine));
        groups = rest;
        groups.push(joined.into_iter().flatten().collect());
    }
    groups.retain(|g| !g.is_empty());
    groups
}

/// A `min`/`max` subquery read off the tokens ([`Query::extremum_subquery`]).
struct Subquery {
    /// Its closing parenthesis.
    close: usize,
    from: FromList,
    /// The qualifier of the aggregated column (lower case).
    argument: String,
    /// Its WHERE read through parentheses.
    conjuncts: Vec<(usize, usize)>,
}

#[cfg(test)]
mod tests {
    use super::super::tests::{answers_alike, gen, generated};

    /// Singers of the year-2014 concerts, the youngest of France among singers of a 2014
    /// concert too: the concert asked in both blocks, `T4` in the subquery standing for `T3`.
    const TWICE: &str = "SELECT DISTINCT T1.Name FROM singer AS T1 , concert AS T3 WHERE T3.Singer_ID = T1.Singer_ID AND T3.Year = 2014 AND T1.Age = ( SELECT MIN( T2.Age ) FROM singer AS T2 , concert AS T4 WHERE T4.Singer_ID = T1.Singer_ID AND T4.Year = 2014 AND T2.Country = 'France' ) ;";

    fn neighbor(gold: &str, from: &str, to: &str) -> bool {
        let edited = gold.replacen(from, to, 1);
        assert_ne!(edited, gold, "{from}");
        generated(&gen(gold), &edited)
    }

    #[test]
    fn loosening_one_copy_of_a_condition_stated_twice_is_no_neighbor() {
        // Either copy, dropped, its equality loosened.
        for (from, to) in [
            ("AND T4.Year = 2014 ", ""),
            ("T4.Year = 2014", "T4.Year >= 2014"),
            (
                "T4.Singer_ID = T1.Singer_ID",
                "T4.Singer_ID <= T1.Singer_ID",
            ),
            ("AND T3.Year = 2014 ", ""),
            ("T3.Year = 2014", "T3.Year <= 2014"),
        ] {
            assert!(!neighbor(TWICE, from, to), "{from} -> {to}");
        }
        // Changing a copy (not loosening it) and loosening what only one block asks are
        // neighbors.
        for (from, to) in [
            ("T4.Year = 2014", "T4.Year != 2014"),
            ("T3.Year = 2014", "T3.Year < 2014"),
            ("AND T2.Country = 'France' ", ""),
        ] {
            assert!(neighbor(TWICE, from, to), "{from} -> {to}");
        }
    }

    #[test]
    fn the_outer_copy_is_loosened_only_where_its_rows_show_nowhere_else() {
        // Without DISTINCT the outer concert's rows repeat the answer; selected, they are the
        // answer; both still leave the subquery's copy to loosen.
        let repeated = TWICE.replace("SELECT DISTINCT T1.Name", "SELECT T1.Name");
        let shown = TWICE.replace("SELECT DISTINCT T1.Name", "SELECT DISTINCT T3.concert_ID");
        for gold in [&repeated, &shown] {
            assert!(neighbor(gold, "AND T3.Year = 2014 ", ""), "{gold}");
            assert!(!neighbor(gold, "AND T4.Year = 2014 ", ""), "{gold}");
        }
    }

    #[test]
    fn a_condition_the_outer_block_does_not_ask_is_no_copy() {
        // Another year outside; the aggregated singer's own condition; a count, not an
        // extremum (no rows count 0).
        let other_year = TWICE.replace("T3.Year = 2014", "T3.Year = 2015");
        let aggregated =
            TWICE.replace("T4.Singer_ID = T1.Singer_ID", "T4.Singer_ID = T2.Singer_ID");
        let counted = TWICE.replace(
            "T1.Age = ( SELECT MIN( T2.Age )",
            "T1.Age = ( SELECT COUNT( T2.Age )",
        );
        for gold in [&other_year, &aggregated, &counted] {
            assert!(neighbor(gold, "AND T4.Year = 2014 ", ""), "{gold}");
        }
    }

    #[test]
    fn a_span_dropped_inside_a_copy_that_leaves_it_no_stricter_is_no_neighbor() {
        // The year tested for truth, the year alone (true), a join of a column with itself,
        // two conjuncts at once.
        let reordered = TWICE.replace(
            "T4.Singer_ID = T1.Singer_ID AND T4.Year = 2014",
            "T4.Year = 2014 AND T1.Singer_ID = T4.Singer_ID",
        );
        for (gold, from, to) in [
            (TWICE, "T4.Year = 2014", "T4.Year"),
            (TWICE, "AND T4.Year = 2014", "AND 2014"),
            (TWICE, "T3.Year = 2014", "T3.Year"),
            (
                &reordered,
                "T4.Year = 2014 AND T1.Singer_ID",
                "T4.Singer_ID",
            ),
            (
                TWICE,
                "T4.Singer_ID = T1.Singer_ID AND T4.Year = 2014 AND",
                "",
            ),
        ] {
            assert!(!neighbor(gold, from, to), "{from} -> {to}");
        }
        // Stricter (`( a = b ) = 2014`), a column unqualified (another table may have it), and
        // a span that reaches past the copy stay neighbors.
        for (gold, from, to) in [
            (TWICE, "T1.Singer_ID AND T4.Year", "T1.Singer_ID"),
            (&reordered, "T4.Year = 2014 AND T1.Singer_ID", "Singer_ID"),
            (TWICE, "2014 AND T2.Country", "T2.Country"),
        ] {
            assert!(neighbor(gold, from, to), "{from} -> {to}");
        }
    }

    /// Singers with a 2014 concert and a concert: the second concert stands for the first.
    const IMPLIED: &str = "SELECT DISTINCT T1.Name FROM singer AS T1 , concert AS T2 , concert AS T3 WHERE T2.Singer_ID = T1.Singer_ID AND T2.Year = 2014 AND T3.Singer_ID = T1.Singer_ID ;";

    #[test]
    fn loosening_conjuncts_the_others_imply_is_no_neighbor() {
        for (from, to) in [
            ("AND T3.Singer_ID = T1.Singer_ID ", ""),
            (
                "T3.Singer_ID = T1.Singer_ID",
                "T3.Singer_ID >= T1.Singer_ID",
            ),
        ] {
            assert!(!neighbor(IMPLIED, from, to), "{from} -> {to}");
        }
        // The first concert's year has no other concert to stand for it; without DISTINCT
        // the second concert repeats rows.
        assert!(neighbor(IMPLIED, "T2.Year = 2014", "T2.Year >= 2014"));
        assert!(neighbor(
            IMPLIED,
            "T2.Singer_ID = T1.Singer_ID",
            "T2.Singer_ID >= T1.Singer_ID"
        ));
        let repeated = IMPLIED.replace("SELECT DISTINCT", "SELECT");
        assert!(neighbor(
            &repeated,
            "T3.Singer_ID = T1.Singer_ID",
            "T3.Singer_ID >= T1.Singer_ID"
        ));
    }

    #[test]
    fn the_loosened_texts_answer_as_the_gold_on_random_databases() {
        let edited = |gold: &str, from: &str, to: &str| gold.replacen(from, to, 1);
        let cases = [
            (
                TWICE,
                vec![
                    edited(TWICE, "T4.Year = 2014", "T4.Year != 2014"),
                    edited(TWICE, "AND T2.Country = 'France' ", ""),
                    edited(TWICE, "T3.Year = 2014 AND", "T3.Year = 2014 OR"),
                    // Both copies loosened at once: no longer the gold's question.
                    edited(TWICE, "AND T3.Year = 2014 ", "").replacen("AND T4.Year = 2014 ", "", 1),
                ],
            ),
            (
                IMPLIED,
                vec![
                    edited(IMPLIED, "T2.Year = 2014", "T2.Year >= 2014"),
                    edited(IMPLIED, "AND T3.Singer_ID", "OR T3.Singer_ID"),
                ],
            ),
        ];
        for (gold, unlike) in cases {
            let alike = super::super::Query::new(gold).restated_loosenings();
            assert!(alike.len() >= 3, "{alike:?}");
            answers_alike(gold, &alike, &unlike, 13, 400);
        }
    }
}
