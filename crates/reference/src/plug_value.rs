//! Candidate generation for the Spider evaluator's `--plug_value` mode.
//!
//! With `--plug_value`, the official test-suite evaluator
//! (`taoyds/test-suite-sql-eval`) does not hold a prediction's literal
//! values against it: it executes the prediction as written and then, one
//! after another, every way of filling the prediction's value slots with
//! values taken from the gold query, and counts the prediction correct if
//! any of these executions matches the gold's result.
//!
//! The reference derives both sides with the same extraction (in its
//! `parse.py`): the query is re-joined from sqlparse tokens (its
//! `reformat_query`), passed through `sqlparse.format(…,
//! keyword_case='upper')` (reproduced as far as it can matter), a
//! white-space character after `T<digits>.` is dropped, string literals
//! become slots, the text is split at white space, tokens that some number
//! pattern matched become slots as well, and every other token is
//! lower-cased (`t1.name` is split into `t1 . name`). The gold contributes
//! the *set* of its values; the prediction contributes its token list with
//! slots. A candidate is that list with every slot replaced by some gold
//! value, joined with single spaces; there are `|values| ^ slots` of them
//! (one when there is no slot, none when there are slots but no gold value).
//!
//! [`plug`] reproduces the extraction and [`Plug::candidates`] enumerates
//! exactly the reference's candidate strings, each once, lazily, and in an
//! order meant to find a match early (see [`Plug::candidates`]). The
//! reference iterates a Python `set`, whose order of strings changes from
//! run to run, so only the set of candidates — and hence the verdict — is
//! reproducible, not the order.
//!
//! Inputs are the texts the reference works on at that point: gold and
//! prediction after `postprocess` ([`super::spider_text::fix_tokenized_operators`])
//! and, unless `--keep_distinct`, [`sqlparse::remove_distinct`].
//!
//! Known divergences, all from the sqlparse port: where sqlparse raises
//! (a statement too deeply nested for its grouping limits, or an empty
//! query) the reference crashes, while this module carries on; and a keyword
//! spelled with a non-ASCII letter that upper-cases to ASCII (`ſelect`)
//! keeps its spelling here.

use std::collections::HashSet;

use super::sqlparse;
use crate::python;

/// The placeholder the reference writes in place of a value before
/// splitting the query into tokens.
const VALUE_MARK: &str = "VALUERARE";

/// A value slot in a lower-cased token list: [`VALUE_MARK`] lower-cased.
/// Any token equal to it is a slot, even one that was written that way.
const SLOT: &str = "valuerare";

/// The value slots of a prediction and the values of its gold query, from
/// which the `--plug_value` candidates are generated. Built by [`plug`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plug {
    /// The prediction's lower-cased tokens; slots are [`SLOT`].
    tokens: Vec<String>,
    /// Indices into `tokens` of the slots, ascending.
    slot_positions: Vec<usize>,
    /// The gold's distinct values, in order of first appearance.
    values: Vec<String>,
    /// Whether two different assignments can produce the same text, in
    /// which case [`Plug::candidates`] has to remember what it yielded.
    may_collide: bool,
    /// Why no candidate is generated: a query with more string literals than
    /// [`MAX_LITERALS`].
    unread: Option<String>,
}

/// The most string literals a query may have for its values to be read: each
/// literal is replaced throughout the text in turn (the reference's
/// `str.replace` loop), so the work grows with their number times the text's
/// length. A query with more yields no candidate ([`Plug::unread`]). The real
/// predictions and golds of Spider have at most a few dozen.
pub const MAX_LITERALS: usize = 1_000;

/// Extracts the gold's values and the prediction's slots, like the
/// reference's `get_all_preds_for_execution(gold, pred)`.
pub fn plug(gold: &str, pred: &str) -> Plug {
    let gold_extraction = extract_query_values(gold);
    let pred_extraction = extract_query_values(pred);
    let tokens = pred_extraction.tokens;
    let slot_positions = tokens
        .iter()
        .enumerate()
        .filter(|(_, token)| token.as_str() == SLOT)
        .map(|(i, _)| i)
        .collect();
    // Only the gold's values are ever plugged: the prediction's are not ordered (a prediction
    // of 100,000 numbers would cost that squared).
    let gold_extraction_over = gold_extraction.over;
    let values = gold_extraction.values();
    let may_collide = values.iter().any(|short| {
        values.iter().any(|long| {
            long.len() > short.len()
                && long.starts_with(short.as_str())
                && long[short.len()..].starts_with(' ')
        })
    });
    let unread = [
        ("gold", &gold_extraction_over),
        ("prediction", &pred_extraction.over),
    ]
    .into_iter()
    .find_map(|(side, over)| {
        over.map(|n| {
            format!(
                "the {side} has {n} string literals, more than the {MAX_LITERALS} plug_value \
                     reads; no candidate tried"
            )
        })
    });
    Plug {
        tokens,
        slot_positions,
        values,
        may_collide,
        unread,
    }
}

impl Plug {
    /// Why no candidate is generated at all ([`MAX_LITERALS`]), if so.
    pub fn unread(&self) -> Option<&str> {
        self.unread.as_deref()
    }

    /// The number of value slots in the prediction.
    pub fn slots(&self) -> usize {
        self.slot_positions.len()
    }

    /// The gold's distinct values (string literals with their quotes,
    /// numbers as written), in order of first appearance in the gold.
    pub fn gold_values(&self) -> &[String] {
        &self.values
    }

    /// The reference's number of alternatives, `|values| ^ slots` (so 1
    /// without slots), saturating at `u128::MAX`. Every alternative is a
    /// distinct string except in contrived cases (see
    /// [`Plug::candidates`]), so this is also the number of candidates.
    pub fn count(&self) -> u128 {
        if self.unread.is_some() {
            return 0;
        }
        let base = self.values.len() as u128;
        u32::try_from(self.slots())
            .ok()
            .and_then(|slots| base.checked_pow(slots))
            .unwrap_or(u128::MAX)
    }

    /// The reference's candidate strings, each exactly once, generated
    /// lazily.
    ///
    /// Order (the reference's order is not reproducible anyway): first the
    /// assignments that use as many different gold values as possible —
    /// for as many slots as values, the permutations — and among those
    /// lexicographically by value index, so the very first candidate puts
    /// the gold's values into the slots in the gold's order. Then the
    /// assignments with one value fewer, and so on down to those that use a
    /// single value everywhere.
    ///
    /// Different assignments give different strings unless some value is
    /// another value followed by a space and more (only possible with
    /// contrived quoting such as `'a\'` next to `'a\' b'`): the tokens
    /// between slots contain no white space and values are never empty, so
    /// the first slot where two assignments differ would otherwise tell
    /// their strings apart. Only in that case are yielded strings
    /// remembered to skip repeats.
    ///
    /// Every candidate comes after a bounded amount of work (about `slots × values` steps),
    /// whatever the number of assignments: the assignments using exactly `k` values are
    /// enumerated directly, not filtered out of all `values ^ slots`, and
    /// nothing is materialised but the current assignment (and, in the contrived colliding
    /// case, the texts already yielded). A caller may therefore take the first few of
    /// `2 ^ 24` candidates at the cost of those few.
    pub fn candidates(&self) -> impl Iterator<Item = String> + '_ {
        let slots = self.slots();
        let n = self.values.len();
        let most_distinct = if slots == 0 { 0 } else { slots.min(n) };
        let mut seen = self.may_collide.then(HashSet::new);
        let read = self.unread.is_none();
        (0..=most_distinct)
            .filter(move |_| read)
            .rev()
            .filter(move |&distinct| distinct > 0 || slots == 0)
            .flat_map(move |distinct| ExactlyDistinct::new(slots, n, distinct))
            .map(move |assignment| self.render(&assignment))
            .filter(move |text| match seen.as_mut() {
                Some(seen) => seen.insert(text.clone()),
                None => true,
            })
    }

    /// The prediction with slot `i` filled by value `assignment[i]`.
    fn render(&self, assignment: &[usize]) -> String {
        let mut filled: Vec<&str> = self.tokens.iter().map(String::as_str).collect();
        for (&position, &value) in self.slot_positions.iter().zip(assignment) {
            if let (Some(slot), Some(value)) = (filled.get_mut(position), self.values.get(value)) {
                *slot = value;
            }
        }
        filled.join(" ")
    }
}

/// The assignments of `values` value indices to `slots` slots that use exactly `distinct`
/// different values, in lexicographic order (the last slot turns fastest). With no slots
/// there is exactly one, empty, assignment (for `distinct` 0); none when `distinct` exceeds
/// the slots or the values.
///
/// Each next assignment costs at most about `slots × values` steps: a prefix is only ever
/// extended while it can still be completed (at most `distinct` values used, and enough slots
/// left to reach `distinct`), so no dead branch is walked. Only the current assignment and its
/// value counts are held.
struct ExactlyDistinct {
    /// The next assignment to yield.
    next: Option<Vec<usize>>,
    values: usize,
    distinct: usize,
}

impl ExactlyDistinct {
    fn new(slots: usize, values: usize, distinct: usize) -> Self {
        let mut first = vec![0; slots];
        let mut counts = vec![0; values];
        let feasible = distinct <= slots
            && distinct <= values
            && (distinct > 0 || slots == 0)
            && complete(&mut first, 0, &mut counts, 0, distinct);
        Self {
            next: feasible.then_some(first),
            values,
            distinct,
        }
    }

    /// The assignment after `current` in lexicographic order, if any.
    fn successor(&self, current: &[usize]) -> Option<Vec<usize>> {
        let mut a = current.to_vec();
        let mut counts = vec![0usize; self.values];
        for &v in &a {
            *counts.get_mut(v)? += 1;
        }
        let mut used = counts.iter().filter(|&&c| c > 0).count();
        for i in (0..a.len()).rev() {
            // Take slot `i` out: `used` and `counts` describe the prefix `a[..i]`.
            let old = a[i];
            counts[old] -= 1;
            if counts[old] == 0 {
                used -= 1;
            }
            let left = a.len() - i - 1;
            for v in old + 1..self.values {
                let with = used + usize::from(counts[v] == 0);
                if with <= self.distinct && with + left >= self.distinct {
                    a[i] = v;
                    counts[v] += 1;
                    if complete(&mut a, i + 1, &mut counts, with, self.distinct) {
                        return Some(a);
                    }
                    return None;
                }
            }
        }
        None
    }
}

/// Fills `a[from..]` with the lexicographically smallest values such that the whole uses
/// exactly `distinct` values, given the prefix `a[..from]` that uses `used` of them (`counts`
/// per value). False if the prefix cannot be completed.
fn complete(
    a: &mut [usize],
    from: usize,
    counts: &mut [usize],
    mut used: usize,
    distinct: usize,
) -> bool {
    for i in from..a.len() {
        let left = a.len() - i - 1;
        let Some(v) = (0..counts.len()).find(|&v| {
            let with = used + usize::from(counts[v] == 0);
            with <= distinct && with + left >= distinct
        }) else {
            return false;
        };
        if counts[v] == 0 {
            used += 1;
        }
        counts[v] += 1;
        a[i] = v;
    }
    used == distinct
}

impl Iterator for ExactlyDistinct {
    type Item = Vec<usize>;

    fn next(&mut self) -> Option<Vec<usize>> {
        let current = self.next.take()?;
        self.next = self.successor(&current);
        Some(current)
    }
}

/// What the reference's `extract_query_values` yields for one query.
struct Extraction {
    /// Lower-cased tokens, slots written [`SLOT`].
    tokens: Vec<String>,
    /// The text the values were taken from.
    text: String,
    /// Its string literals, in order.
    literals: Vec<String>,
    /// The tokens taken as numbers, in order.
    numbers: Vec<String>,
    /// The number of string literals, where over [`MAX_LITERALS`] (nothing
    /// else was extracted).
    over: Option<usize>,
}

impl Extraction {
    /// The distinct values in order of first appearance in the query.
    fn values(self) -> Vec<String> {
        order_values(&self.text, self.literals, self.numbers)
    }
}

/// The reference's `extract_query_values`: `reformat_query`, then
/// `replace_values` (sqlparse formatting, the `T<n>.` white-space fix and
/// `strip_query`).
fn extract_query_values(sql: &str) -> Extraction {
    let reformatted = sqlparse::spider_reformat_query(sql);
    let formatted = sqlparse::sqlparse_format_keywords_upper(&reformatted);
    strip_query(&join_table_prefixes(&formatted))
}

/// `re.sub(r"(T\d+\.)\s", r"\1", sql)`: drops the one white-space
/// character that follows an upper-case `T`, decimal digits and a dot.
fn join_table_prefixes(sql: &str) -> String {
    let chars: Vec<char> = sql.chars().collect();
    let mut out = String::with_capacity(sql.len());
    let mut pos = 0;
    while pos < chars.len() {
        let digits_end = if chars[pos] == 'T' {
            pos + 1
                + chars[pos + 1..]
                    .iter()
                    .take_while(|&&c| python::is_python_decimal(c))
                    .count()
        } else {
            pos
        };
        let matched = digits_end > pos + 1
            && chars.get(digits_end) == Some(&'.')
            && chars
                .get(digits_end + 1)
                .is_some_and(|&c| python::is_python_whitespace(c));
        if matched {
            out.extend(&chars[pos..=digits_end]);
            pos = digits_end + 2;
        } else {
            out.push(chars[pos]);
            pos += 1;
        }
    }
    out
}

/// The reference's `strip_query`: replaces string literals, then tokens
/// that are float matches, then tokens that are integer matches, by slots;
/// lower-cases the other tokens and splits those containing a `T<n>.`
/// table prefix at their dots.
fn strip_query(sql: &str) -> Extraction {
    let literals = sqlparse::sqlparse_string_literals(sql);
    if literals.len() > MAX_LITERALS {
        return Extraction {
            tokens: Vec::new(),
            text: String::new(),
            literals: Vec::new(),
            numbers: Vec::new(),
            over: Some(literals.len()),
        };
    }
    let mut text = sql.to_owned();
    for literal in &literals {
        text = text.replace(python::python_strip(literal), VALUE_MARK);
    }
    let mut tokens: Vec<&str> = text
        .split(python::is_python_whitespace)
        .filter(|token| !token.is_empty())
        .collect();

    let mut numbers = Vec::new();
    let floats = float_matches(&text);
    for token in &mut tokens {
        if floats.contains(*token) {
            numbers.push(token.to_string());
            *token = VALUE_MARK;
        }
    }
    let joined = tokens.join(" ");
    let integers = integer_matches(&joined);
    for token in &mut tokens {
        if integers.contains(*token) {
            numbers.push(token.to_string());
            *token = VALUE_MARK;
        }
    }

    let mut lowered = Vec::with_capacity(tokens.len());
    for token in &tokens {
        if token.contains('.') && has_table_prefix(token) {
            let spaced = token.replace('.', " . ");
            lowered.extend(
                spaced
                    .split(python::is_python_whitespace)
                    .filter(|piece| !piece.is_empty())
                    .map(str::to_lowercase),
            );
        } else {
            lowered.push(token.to_lowercase());
        }
    }

    Extraction {
        tokens: lowered,
        text: sql.to_owned(),
        literals,
        numbers,
        over: None,
    }
}

/// The distinct values, ordered by where they first occur in `sql`:
/// a literal where its text first occurs, a number where it first occurs
/// as a white-space-delimited token (else after everything).
fn order_values(sql: &str, literals: Vec<String>, numbers: Vec<String>) -> Vec<String> {
    let mut token_offsets: Vec<(usize, &str)> = Vec::new();
    let mut start = None;
    for (i, c) in sql.char_indices().chain([(sql.len(), ' ')]) {
        match (start, python::is_python_whitespace(c)) {
            (Some(s), true) => {
                token_offsets.push((s, &sql[s..i]));
                start = None;
            }
            (None, false) => start = Some(i),
            _ => {}
        }
    }
    let mut keyed: Vec<(usize, String)> = Vec::new();
    for literal in literals {
        let offset = sql.find(literal.as_str()).unwrap_or(usize::MAX);
        keyed.push((offset, literal));
    }
    // Each token's first offset, looked up once per number (not a scan per number).
    let mut first_offset = std::collections::HashMap::new();
    for (offset, token) in token_offsets {
        first_offset.entry(token).or_insert(offset);
    }
    for number in numbers {
        let offset = first_offset
            .get(number.as_str())
            .copied()
            .unwrap_or(usize::MAX);
        keyed.push((offset, number));
    }
    keyed.sort_by_key(|(offset, _)| *offset);
    let mut seen = HashSet::new();
    keyed
        .into_iter()
        .filter(|(_, value)| seen.insert(value.clone()))
        .map(|(_, value)| value)
        .collect()
}

/// Whether `re.findall(r"[Tt]\d+\.", token)` finds anything.
fn has_table_prefix(token: &str) -> bool {
    let chars: Vec<char> = token.chars().collect();
    (0..chars.len()).any(|pos| {
        if !matches!(chars[pos], 'T' | 't') {
            return false;
        }
        let digits = chars[pos + 1..]
            .iter()
            .take_while(|&&c| python::is_python_decimal(c))
            .count();
        digits > 0 && chars.get(pos + 1 + digits) == Some(&'.')
    })
}

/// The strings `re.findall(r"[-+]?\d*\.\d+", text)` returns.
fn float_matches(text: &str) -> HashSet<String> {
    let chars: Vec<char> = text.chars().collect();
    let is_digit = |pos: usize| {
        chars
            .get(pos)
            .is_some_and(|&c| python::is_python_decimal(c))
    };
    let digits_end = |mut pos: usize| {
        while is_digit(pos) {
            pos += 1;
        }
        pos
    };
    let mut found = HashSet::new();
    let mut pos = 0;
    while pos < chars.len() {
        let body = if matches!(chars[pos], '-' | '+') {
            pos + 1
        } else {
            pos
        };
        let dot = digits_end(body);
        let end = digits_end(dot + 1);
        if chars.get(dot) == Some(&'.') && end > dot + 1 {
            found.insert(chars[pos..end].iter().collect());
            pos = end;
        } else {
            pos += 1;
        }
    }
    found
}

/// The strings `[i.strip() for i in re.findall(r"[^tT]\d+", text)]`.
fn integer_matches(text: &str) -> HashSet<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut found = HashSet::new();
    let mut pos = 0;
    while pos + 1 < chars.len() {
        let digits = chars[pos + 1..]
            .iter()
            .take_while(|&&c| python::is_python_decimal(c))
            .count();
        if !matches!(chars[pos], 't' | 'T') && digits > 0 {
            let end = pos + 1 + digits;
            let matched: String = chars[pos..end].iter().collect();
            found.insert(python::python_strip(&matched).to_owned());
            pos = end;
        } else {
            pos += 1;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    //! Expected token lists, value sets and candidate sets were printed by
    //! the reference's `parse.py` (CPython 3.11, sqlparse 0.6.1).

    use super::*;

    #[test]
    fn a_query_of_too_many_string_literals_yields_no_candidate_and_says_why() {
        let many: Vec<String> = (0..=MAX_LITERALS).map(|i| format!("('{i}')")).collect();
        let pred = format!("SELECT * FROM (VALUES {})", many.join(","));
        let p = plug("SELECT a FROM t WHERE b = 'x'", &pred);
        assert_eq!((p.candidates().count(), p.count()), (0, 0));
        assert!(
            p.unread()
                .is_some_and(|why| why.contains("prediction has 1001")),
            "{p:?}"
        );
        let few: Vec<String> = (0..MAX_LITERALS).map(|i| format!("('{i}')")).collect();
        let p = plug(
            "SELECT a FROM t WHERE b = 'x'",
            &format!("SELECT * FROM (VALUES {})", few.join(",")),
        );
        assert_eq!((p.unread(), p.slots()), (None, MAX_LITERALS));
        assert!(p.candidates().next().is_some());
        // Numbers are not bounded: 100,000 of them are read in linear time.
        let numbers: Vec<String> = (0..100_000).map(|i| format!("({i})")).collect();
        let p = plug(
            "SELECT a FROM t WHERE b = 3",
            &format!("SELECT * FROM (VALUES {})", numbers.join(",")),
        );
        assert_eq!((p.unread(), p.slots()), (None, 100_000));
    }

    fn sorted(mut v: Vec<String>) -> Vec<String> {
        v.sort();
        v
    }

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn plugs_gold_values_into_prediction_slots() {
        let p = plug(
            "SELECT name FROM singer WHERE age > 20 AND country = 'France'",
            "SELECT name FROM singer WHERE age > 30 AND country = \"USA\"",
        );
        assert_eq!(p.slots(), 2);
        assert_eq!(p.gold_values(), ["20", "'France'"]);
        assert_eq!(p.count(), 4);
        assert_eq!(
            p.tokens.join(" "),
            "select name from singer where age > valuerare and country = valuerare"
        );
        let all: Vec<String> = p.candidates().collect();
        // Gold values in gold order come first, then the other permutation.
        assert_eq!(
            all[..2],
            strings(&[
                "select name from singer where age > 20 and country = 'France'",
                "select name from singer where age > 'France' and country = 20",
            ])
        );
        assert_eq!(
            sorted(all),
            strings(&[
                "select name from singer where age > 'France' and country = 'France'",
                "select name from singer where age > 'France' and country = 20",
                "select name from singer where age > 20 and country = 'France'",
                "select name from singer where age > 20 and country = 20",
            ])
        );
    }

    #[test]
    fn splits_table_prefixes_and_lower_cases() {
        let p = plug(
            "SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.id = T2.id \
             WHERE T2.year = 2014",
            "select t1.name from singer as t1 join concert as t2 on t1.id = t2.id \
             where t2.year = 2015",
        );
        assert_eq!(p.gold_values(), ["2014"]);
        assert_eq!(
            p.candidates().collect::<Vec<_>>(),
            [
                "select t1 . name from singer as t1 join concert as t2 on t1 . id = t2 . id \
                 where t2 . year = 2014"
            ]
        );
    }

    #[test]
    fn counts_follow_the_reference() {
        // Slots but no gold values: no candidate at all.
        let p = plug(
            "SELECT count(*) FROM singer",
            "SELECT count(*) FROM singer WHERE age > 1",
        );
        assert_eq!((p.slots(), p.count()), (1, 0));
        assert_eq!(p.candidates().count(), 0);
        // No slots: exactly one candidate, the re-joined prediction.
        let p = plug("SELECT a FROM t WHERE x = 1", "SELECT T1.* FROM t AS T1");
        assert_eq!((p.slots(), p.count()), (0, 1));
        assert_eq!(
            p.candidates().collect::<Vec<_>>(),
            ["select t1 . * from t as t1"]
        );
    }

    #[test]
    fn extracts_signed_floats_and_integer_lookalikes() {
        let p = plug(
            "SELECT avg(age) FROM dogs WHERE weight > 2.5 OR weight < -1.5",
            "SELECT avg(age) FROM dogs WHERE weight > 1",
        );
        assert_eq!(sorted(p.gold_values().to_vec()), ["-1.5", "2.5"]);
        assert_eq!(
            sorted(p.candidates().collect()),
            [
                "select avg ( age ) from dogs where weight > -1.5",
                "select avg ( age ) from dogs where weight > 2.5",
            ]
        );
        // `x1` and `a5` match `[^tT]\d+`, so they are slots too; both
        // statements of the gold count, since `;` is deleted first.
        let p = plug(
            "SELECT a FROM t WHERE b = 'x' ; SELECT 'y'",
            "SELECT a FROM t WHERE x1 = 'q' AND a5 = 2",
        );
        assert_eq!(p.gold_values(), ["'x'", "'y'"]);
        assert_eq!((p.slots(), p.count()), (4, 16));
        let all: Vec<String> = p.candidates().collect();
        assert_eq!(all.len(), 16);
        assert_eq!(all[0], "select a from t where 'x' = 'x' and 'x' = 'y'");
        assert_eq!(all[15], "select a from t where 'y' = 'y' and 'y' = 'y'");
    }

    #[test]
    fn formatting_quirks_match_sqlparse() {
        // A lower-case `go` ends a statement only after keyword upper-casing,
        // and trailing white space before it disappears.
        let p = plug(
            "SELECT a FROM t WHERE b = 'a b' go  \n select 'c'",
            "select a go  select 'b' , 3",
        );
        assert_eq!(p.gold_values(), ["'a b'"]);
        assert_eq!(
            p.candidates().collect::<Vec<_>>(),
            ["select a goselect 'a b' , 'a b'"]
        );
        // A literal `valuerare` is a slot; tabs vanish before `T1.`.
        let p = plug(
            "SELECT T1. name FROM t AS T1 WHERE T1.\tx = 'v'",
            "SELECT valuerare FROM t WHERE y='z'",
        );
        assert_eq!(p.gold_values(), ["'v'"]);
        assert_eq!(
            p.candidates().collect::<Vec<_>>(),
            ["select 'v' from t where y = 'v'"]
        );
    }

    #[test]
    fn orders_by_distinct_values_and_covers_every_assignment() {
        let p = Plug {
            tokens: strings(&[SLOT, "x", SLOT, SLOT]),
            slot_positions: vec![0, 2, 3],
            values: strings(&["a", "b"]),
            may_collide: false,
            unread: None,
        };
        let all: Vec<String> = p.candidates().collect();
        assert_eq!(p.count(), 8);
        assert_eq!(all.len(), 8);
        assert_eq!(all[0], "a x a b");
        assert_eq!(all[5], "b x b a");
        assert_eq!(all[6..], strings(&["a x a a", "b x b b"]));
        let unique: HashSet<&String> = all.iter().collect();
        assert_eq!(unique.len(), 8);
    }

    /// The assignments with exactly `k` values, by filtering every assignment (the
    /// definition [`ExactlyDistinct`] must agree with).
    fn filtered(slots: usize, values: usize, k: usize) -> Vec<Vec<usize>> {
        let total = values.pow(slots as u32);
        (0..total)
            .map(|mut code| {
                let mut a = vec![0; slots];
                for digit in a.iter_mut().rev() {
                    *digit = code % values;
                    code /= values;
                }
                a
            })
            .filter(|a| a.iter().collect::<HashSet<_>>().len() == k)
            .collect()
    }

    #[test]
    fn exactly_distinct_enumerates_the_filtered_assignments_in_order() {
        for slots in 0..=5 {
            for values in 0..=4 {
                for k in 0..=6 {
                    let expected = if slots == 0 {
                        if k == 0 {
                            vec![vec![]]
                        } else {
                            vec![]
                        }
                    } else if values == 0 {
                        vec![]
                    } else {
                        filtered(slots, values, k)
                    };
                    let got: Vec<Vec<usize>> = ExactlyDistinct::new(slots, values, k).collect();
                    assert_eq!(got, expected, "slots {slots}, values {values}, k {k}");
                }
            }
        }
    }

    #[test]
    fn candidates_come_lazily_whatever_the_number_of_assignments() {
        // 24 slots and 24 values: 24^24 assignments, of which the first (all 24 values used)
        // lie beyond 10^30 odometer steps; filtering would never reach them.
        let many = Plug {
            tokens: vec![SLOT.to_owned(); 24],
            slot_positions: (0..24).collect(),
            values: (0..24).map(|v| v.to_string()).collect(),
            may_collide: false,
            unread: None,
        };
        assert_eq!(many.count(), 24u128.pow(24));
        let start = std::time::Instant::now();
        let first: Vec<String> = many.candidates().take(1000).collect();
        assert_eq!(first.len(), 1000);
        assert!(first[0].starts_with("0 1 2 3 "), "{}", first[0]);
        // The state is one assignment, never the product: after 100,000 assignments of
        // 2^24, the enumerator holds a vector of 24 indices and its value counts.
        let mut it = ExactlyDistinct::new(24, 2, 2);
        for _ in 0..100_000 {
            assert!(it.next().is_some());
        }
        let held = it.next.as_ref().map_or(0, Vec::capacity);
        assert!(held <= 24, "{held}");
        assert!(
            start.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
    }

    #[test]
    fn deduplicates_when_values_can_collide() {
        let p = Plug {
            tokens: strings(&[SLOT, SLOT]),
            slot_positions: vec![0, 1],
            values: strings(&["a", "a a"]),
            may_collide: true,
            unread: None,
        };
        // ("a", "a a") and ("a a", "a") both read "a a a".
        assert_eq!(p.count(), 4);
        assert_eq!(
            p.candidates().collect::<Vec<_>>(),
            ["a a a", "a a", "a a a a"]
        );
        assert!(plug("SELECT 'a\\' b' , 'a\\'", "SELECT 1").may_collide);
        assert!(!plug("SELECT 'a b' , 'a'", "SELECT 1").may_collide);
    }
}
