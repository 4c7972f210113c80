//! An edit inside an expression of one column whose values all have one layout
//! ([`super::edit_alike`]). Where a profile's samples of a text column all have one layout of
//! digit runs (`1:23.794`, `#:#.#`: lap times) and no date, the column's values have it
//! ([`super::ColumnFacts::layouts`]; the generator draws them from those samples, their extremes
//! of the layout and their digits recombined). An expression that reads that column alone
//! (no other column, subquery or aggregate) is a function of its value: where the edited
//! expression gives the same value as the gold's on every text of the layout — each digit run
//! of each sample made all zeros, all nines, five and zeros and random digits, one digit
//! narrower and wider — on the texts the golds' constants bring into the column beside its
//! layout ([`super::ColumnFacts::gold_texts`]: the generator's one exception), and on NULL
//! where the column may be NULL, the edit answers alike. The edited expression may read one
//! more column, a number never NULL, as a function's argument: then on every pair of a text
//! of the layout and a number of a few (item 244's guard `SUBSTR(raceId, 1, INSTR(time,
//! ':') - 1) <> ''` holds wherever `SUBSTR(time, …)` does: a number's text is never empty).
//!
//! BIRD's lap-time golds guard each `CAST(SUBSTR(time, …))` against an empty part, cut more
//! characters than the number has (`CAST('1:2' AS INTEGER)` is 1) or compare a sum no time of
//! the layout brings near the bound (item 228's `… * 60 + … < 120`, where `* 61` gives the
//! same truth).
//!
//! The expressions tried are the parenthesized groups (with the function before them) and the
//! `CASE … END`s that hold the edit, innermost first, and each of them followed by a
//! comparison with a constant.

use std::cell::RefCell;

use rusqlite::types::Value;
use rusqlite::Connection;

use super::edit_alike::{Edit, Schema};
use super::{is_reserved, unquote_ident, Query, AGGREGATES};
use crate::text_shape::digit_run_ranges;
use sqlsuite::sql_tokens::{Token, TokenKind};

/// The name the domain's column has in the evaluated expressions.
const COLUMN: &str = "layout_value";

/// The name a column of numbers the edit brings in has there ([`number_column`]), and the
/// numbers it takes: zero, whole numbers of one digit and more, a negative one, fractions.
const NUMBER: &str = "number_value";
const NUMBERS: &str = "(0), (1), (7), (42), (903), (1234567), (-3), (2.5), (-0.125)";

/// Steps one comparison of two expressions over the domain may take.
const MAX_STEPS: u64 = 20_000_000;

thread_local! {
    static CONN: RefCell<Option<Connection>> = const { RefCell::new(None) };
}

impl Query<'_> {
    /// True if `edit` (which makes `neighbor`) changes an expression of one column of one
    /// layout into one that gives the same value on every text of the layout (module doc).
    pub(super) fn layout_alike(&self, edit: &Edit, neighbor: &Query, schema: &Schema) -> bool {
        if schema.facts.layouts.is_empty() {
            return false;
        }
        let grown = neighbor.toks.len() as isize - self.toks.len() as isize;
        for (a, b) in self.expressions_holding(edit) {
            let nb = b as isize + grown;
            if nb < a as isize || nb as usize > neighbor.toks.len() {
                continue;
            }
            let (old, new) = (&self.toks[a..b], &neighbor.toks[a..nb as usize]);
            let Some((at, column)) = one_column(old) else {
                continue;
            };
            if !only_as_argument(old, &column) || !only_as_argument(new, &column) {
                continue;
            }
            let Some(number) = number_column(new, &column, schema) else {
                continue;
            };
            let Some(k) = schema.table_of(self, a + at) else {
                continue;
            };
            let Some(examples) = schema.layout(k, &column.1).filter(|e| never_a_number(e)) else {
                continue;
            };
            let nullable = !schema.not_null(k, &column.1);
            let mut values = domain(examples);
            values.extend(with_literal_runs(examples, old.iter().chain(new)));
            values.extend(schema.gold_texts(k, &column.1).iter().cloned());
            values.sort_unstable();
            values.dedup();
            if same_on_layout(old, new, &column, number.as_ref(), &values, nullable) == Some(true) {
                return true;
            }
        }
        false
    }

    /// The token ranges (`a..b`) of the expressions that hold all of `edit`, smallest first:
    /// parenthesized groups (with a function's name before them), `CASE … END`, and each of
    /// them with a comparison to a constant after it.
    fn expressions_holding(&self, edit: &Edit) -> Vec<(usize, usize)> {
        let t = &self.toks;
        let mut units = Vec::new();
        for o in 0..t.len() {
            let end = if t[o].is_symbol("(") {
                self.partner(o).map(|c| c + 1)
            } else if t[o].is_word("case") {
                self.case_end(o).map(|e| e + 1)
            } else {
                None
            };
            let Some(end) = end else { continue };
            let function = o > 0
                && t[o].is_symbol("(")
                && t[o - 1].kind == TokenKind::Word
                && !is_reserved(&t[o - 1].lower());
            let start = if function { o - 1 } else { o };
            units.push((start, end));
            let compared = t.get(end).is_some_and(|c| {
                ["=", "!=", "<>", "<", "<=", ">", ">="].contains(&c.text.as_str())
            }) && t.get(end + 1).is_some_and(|l| {
                matches!(l.kind, TokenKind::Int | TokenKind::Float | TokenKind::Str)
            });
            if compared {
                units.push((start, end + 2));
            }
        }
        units.retain(|&(a, b)| a <= edit.from && edit.to <= b && edit.from < b);
        units.sort_by_key(|&(a, b)| (b - a, a));
        units.dedup();
        units
    }
}

/// A column reference: its qualifier (if any) and name, lower case.
type ColumnRef = (Option<String>, String);

/// The column references of `ts` (words that are no keyword, function, qualifier or type).
fn column_refs(ts: &[Token]) -> Vec<(usize, ColumnRef)> {
    let mut out = Vec::new();
    for (j, t) in ts.iter().enumerate() {
        if t.kind != TokenKind::Word || is_reserved(&t.lower()) {
            continue;
        }
        let next = ts.get(j + 1);
        let function = next.is_some_and(|n| n.is_symbol("("));
        let qualifier = next.is_some_and(|n| n.is_symbol("."));
        let type_name = j > 0 && ts[j - 1].is_word("as");
        if function || qualifier || type_name {
            continue;
        }
        let q = (j >= 2 && ts[j - 1].is_symbol("."))
            .then(|| unquote_ident(&ts[j - 2].text).to_lowercase());
        out.push((j, (q, unquote_ident(&t.text).to_lowercase())));
    }
    out
}

/// The one column `ts` reads (the position of its name's first mention), where it reads one
/// column only and no subquery or aggregate.
fn one_column(ts: &[Token]) -> Option<(usize, ColumnRef)> {
    let nested = ts.iter().enumerate().any(|(j, t)| {
        t.is_word("select")
            || t.is_word("over")
            || (AGGREGATES.iter().any(|a| t.is_word(a))
                && ts.get(j + 1).is_some_and(|n| n.is_symbol("(")))
    });
    if nested {
        return None;
    }
    let refs = column_refs(ts);
    let (at, first) = refs.first()?.clone();
    refs.iter().all(|(_, c)| *c == first).then_some((at, first))
}

/// Every mention of `column` in `ts` is a whole argument of a function (`SUBSTR(time, …)`,
/// `INSTR(time, ':')`, `CAST(time AS REAL)`): there a value is read as it is stored, where a
/// comparison would apply the column's affinity to the other side, which the domain has not.
fn only_as_argument(ts: &[Token], column: &ColumnRef) -> bool {
    column_refs(ts)
        .into_iter()
        .filter(|(_, c)| c == column)
        .all(|(j, _)| {
            let start = if column.0.is_some() && j >= 2 {
                j - 2
            } else {
                j
            };
            let before = start.checked_sub(1).map(|b| &ts[b]);
            let opens = before.is_some_and(|b| b.is_symbol("(") || b.is_symbol(","));
            let cast = start >= 2 && ts[start - 2].is_word("cast");
            let after = ts.get(j + 1);
            let closes = after
                .is_some_and(|a| a.is_symbol(",") || a.is_symbol(")") || (cast && a.is_word("as")));
            opens && closes
        })
}

/// Every text of the layout holds a character no number has (`:` of `1:23.794`): SQLite
/// stores it as text under any column type, as the domain holds it.
fn never_a_number(examples: &[String]) -> bool {
    examples.iter().all(|e| {
        e.chars()
            .any(|c| !c.is_ascii_digit() && !matches!(c, '.' | '+' | '-' | 'e' | 'E' | ' '))
    })
}

/// The columns `ts` reads beside `column`: none (`Some(None)`), or one column of numbers
/// never NULL, read only as a function's argument (`Some(Some(c))`: item 244's guard
/// `SUBSTR(raceId, 1, INSTR(time, ':') - 1) <> ''`); `None` for anything else.
fn number_column(ts: &[Token], column: &ColumnRef, schema: &Schema) -> Option<Option<ColumnRef>> {
    let mut others: Vec<ColumnRef> = column_refs(ts)
        .into_iter()
        .map(|(_, c)| c)
        .filter(|c| c != column)
        .collect();
    others.sort();
    others.dedup();
    let other = match others.as_slice() {
        [] => return Some(None),
        [other] => other.clone(),
        _ => return None,
    };
    let table = schema.table_named(other.0.as_deref(), &other.1)?;
    let number = schema.holds_numbers(table, &other.1) && schema.not_null(table, &other.1);
    (number && only_as_argument(ts, &other)).then_some(Some(other))
}

/// The expression `ts` as SQL over the domain, each of `columns` read as the domain's column
/// named beside it.
fn over_domain(ts: &[Token], columns: &[(&ColumnRef, &str)]) -> String {
    let mut out = Vec::new();
    let mut j = 0;
    'token: while j < ts.len() {
        let t = &ts[j];
        for (column, as_name) in columns {
            let name = |k: usize| {
                ts.get(k)
                    .is_some_and(|w| unquote_ident(&w.text).eq_ignore_ascii_case(&column.1))
            };
            let qualified = column.0.as_ref().is_some_and(|q| {
                unquote_ident(&t.text).eq_ignore_ascii_case(q)
                    && ts.get(j + 1).is_some_and(|d| d.is_symbol("."))
                    && name(j + 2)
            });
            if qualified {
                out.push((*as_name).to_owned());
                j += 3;
                continue 'token;
            }
            let bare = column.0.is_none()
                && t.kind == TokenKind::Word
                && name(j)
                && !ts
                    .get(j + 1)
                    .is_some_and(|n| n.is_symbol("(") || n.is_symbol("."));
            if bare {
                out.push((*as_name).to_owned());
                j += 1;
                continue 'token;
            }
        }
        out.push(t.text.clone());
        j += 1;
    }
    out.join(" ")
}

/// Whether `old` and `new` give the same value on every text of `domain` (and on NULL,
/// where the column is `nullable`); `None` where either fails to run.
fn same_on_layout(
    old: &[Token],
    new: &[Token],
    column: &ColumnRef,
    number: Option<&ColumnRef>,
    domain: &[String],
    nullable: bool,
) -> Option<bool> {
    let mut values: Vec<String> = domain
        .iter()
        .map(|v| format!("('{}')", v.replace('\'', "''")))
        .collect();
    if nullable {
        values.push("(NULL)".to_owned());
    }
    let mut columns = vec![(column, COLUMN)];
    columns.extend(number.map(|n| (n, NUMBER)));
    // The numbers only where a column reads them: each is another pass over the domain.
    let (numbers, from) = match number {
        Some(_) => (format!(", n({NUMBER}) AS (VALUES {NUMBERS})"), "d, n"),
        None => (String::new(), "d"),
    };
    let sql = format!(
        "WITH d({COLUMN}) AS (VALUES {}){numbers} SELECT {}, {} FROM {from}",
        values.join(", "),
        over_domain(old, &columns),
        over_domain(new, &columns)
    );
    CONN.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            *slot = Connection::open_in_memory().ok();
        }
        let conn = slot.as_ref()?;
        let steps = std::cell::Cell::new(0u64);
        conn.progress_handler(
            1000,
            Some(move || {
                steps.set(steps.get() + 1000);
                steps.get() > MAX_STEPS
            }),
        );
        let mut stmt = conn.prepare(&sql).ok()?;
        let mut rows = stmt.query([]).ok()?;
        let mut same = true;
        while let Some(row) = rows.next().ok()? {
            let a: Value = row.get(0).ok()?;
            let b: Value = row.get(1).ok()?;
            same &= a == b;
        }
        Some(same)
    })
}

/// Texts of the layout of `examples`: each example, and for each of its digit runs that run
/// made all zeros, all nines, a five and zeros, and random digits, at its width and one
/// narrower and one wider, the other runs as they are; and every run of each example random at
/// once. Deterministic; the caller removes repeats.
fn domain(examples: &[String]) -> Vec<String> {
    let mut rng = fastrand::Rng::with_seed(0x6c61_796f_7574);
    let mut out: Vec<String> = Vec::new();
    for e in examples {
        let runs = digit_run_ranges(e);
        out.push(e.clone());
        for &(a, b) in &runs {
            let width = b - a;
            for w in [width.saturating_sub(1).max(1), width, width + 1] {
                let fills = [
                    "0".repeat(w),
                    "9".repeat(w),
                    format!("5{}", "0".repeat(w - 1)),
                    (0..w)
                        .map(|_| char::from(b'0' + rng.u8(..10)))
                        .collect::<String>(),
                ];
                for fill in fills {
                    out.push(format!("{}{fill}{}", &e[..a], &e[b..]));
                }
            }
        }
        for _ in 0..4 {
            let mut s = String::new();
            let mut last = 0;
            for &(a, b) in &runs {
                s.push_str(&e[last..a]);
                s.extend((a..b).map(|_| char::from(b'0' + rng.u8(..10))));
                last = b;
            }
            s.push_str(&e[last..]);
            out.push(s);
        }
    }
    out
}

/// Texts of the layout of `examples` that hold the digits the expressions compare or cut
/// with: each example with each of its digit runs replaced by each digit run of a constant of
/// `tokens` (`'19'` of `SUBSTR(atom_id, -2) = '19'` gives `TR000_19`), which random digits
/// seldom draw.
fn with_literal_runs<'t>(
    examples: &[String],
    tokens: impl Iterator<Item = &'t Token>,
) -> Vec<String> {
    let mut runs: Vec<String> = Vec::new();
    for t in tokens {
        let text = match t.kind {
            TokenKind::Str => t.string_content().unwrap_or_default(),
            TokenKind::Int | TokenKind::Float => t.text.clone(),
            _ => continue,
        };
        for (a, b) in digit_run_ranges(&text) {
            let run = text[a..b].to_owned();
            if !runs.contains(&run) {
                runs.push(run);
            }
        }
    }
    let mut out = Vec::new();
    for e in examples {
        for &(a, b) in &digit_run_ranges(e) {
            for run in &runs {
                out.push(format!("{}{run}{}", &e[..a], &e[b..]));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::tests::{alike_on, tables};
    use super::super::ColumnFacts;
    use super::*;

    /// singer.Country holds lap times, never NULL.
    fn lap_times() -> ColumnFacts {
        let times = ["1:23.794", "1:21.571", "1:19.613", "10:32.179"];
        ColumnFacts {
            not_null: vec![vec![false, false, false, true], vec![false, false, false]],
            layouts: vec![
                vec![
                    None,
                    None,
                    None,
                    Some(times.iter().map(|s| s.to_string()).collect()),
                ],
                vec![None, None, None],
            ],
            ..ColumnFacts::default()
        }
    }

    #[test]
    fn an_edit_that_gives_the_same_value_on_every_text_of_the_layout_is_no_edit() {
        let (tables, facts) = (tables(), lap_times());
        let alike = |g: &str, n: &str| alike_on(&tables, &facts, g, n);
        let sum = "SELECT Name FROM singer WHERE (CAST(SUBSTR(Country, 1, 2) AS INTEGER) * 60 + CAST(SUBSTR(Country, 4, 2) AS INTEGER)) < 120";
        for n in [
            sum.replace("SUBSTR(Country, 1, 2)", "SUBSTR(Country, 1, 3)"),
            sum.replace("* 60", "* 61"),
            sum.replace("< 120", "< 119"),
        ] {
            assert!(alike(sum, &n), "{n}");
        }
        let guard = "SELECT Name FROM singer ORDER BY CASE WHEN SUBSTR(Country, 1, INSTR(Country, ':') - 1) <> '' THEN CAST(SUBSTR(Country, 1, INSTR(Country, ':') - 1) AS REAL) * 60 ELSE 0 END";
        for n in [
            guard.replace("ELSE 0", "ELSE 7"),
            guard.replace("INSTR(Country, ':') - 1) AS", "INSTR(Country, ':') - 0) AS"),
        ] {
            assert!(alike(guard, &n), "{n}");
        }
        // Another value on some time of the layout, another column, a column of no layout.
        for n in [
            sum.replace("* 60", "* 59"),
            sum.replace("SUBSTR(Country, 4, 2)", "SUBSTR(Country, 3, 2)"),
            sum.replace("SUBSTR(Country, 4, 2)", "SUBSTR(Name, 4, 2)"),
        ] {
            assert!(!alike(sum, &n), "{n}");
        }
        let name = sum.replace("Country", "Name");
        assert!(!alike(&name, &name.replace("* 60", "* 61")));
        // The column compared as it is (its type would convert the constant), or a layout of
        // digits alone (stored as a number under a numeric type): not judged here.
        let bare = "SELECT Name FROM singer WHERE CASE WHEN Country = 54 THEN 1 ELSE 0 END = 1";
        assert!(!alike(bare, &bare.replace("= 54", "= 53")));
        let digits = ColumnFacts {
            layouts: vec![
                vec![None, None, None, Some(vec!["54".into(), "52".into()])],
                vec![None, None, None],
            ],
            ..lap_times()
        };
        let cut = "SELECT Name FROM singer WHERE CAST(SUBSTR(Country, 1, 2) AS INTEGER) < 100";
        assert!(!alike_on(
            &tables,
            &digits,
            cut,
            &cut.replace("< 100", "< 101")
        ));
        // Where the column may be NULL, the guard's ELSE shows.
        let nullable = ColumnFacts {
            not_null: Vec::new(),
            ..lap_times()
        };
        let n = guard.replace("ELSE 0", "ELSE 7");
        assert!(!alike_on(&tables, &nullable, guard, &n));
        // The digits a constant compares with are among the values; so is a gold's constant
        // the column takes beside its layout (`'a:1'`).
        let tail = "SELECT Name FROM singer WHERE SUBSTR(Country, -3) = '.19'";
        let edit = tail.replace("'.19'", "'.1'");
        assert!(
            !alike_on(&tables, &lap_times(), tail, &edit),
            "1:23.19 tells them apart"
        );
        let tail = "SELECT Name FROM singer WHERE SUBSTR(Country, -2) = ':1'";
        let edit = tail.replace("':1'", "'1'");
        assert!(
            alike_on(&tables, &lap_times(), tail, &edit),
            "no time ends so"
        );
        let with_constant = ColumnFacts {
            gold_texts: vec![vec![vec![], vec![], vec![], vec!["a:1".into()]], vec![]],
            ..lap_times()
        };
        assert!(!alike_on(&tables, &with_constant, tail, &edit));
    }

    #[test]
    fn a_column_of_numbers_in_a_guard_the_layout_always_passes_is_no_edit() {
        let tables = tables();
        // Singer_ID and Age hold numbers; Singer_ID is never NULL.
        let facts = ColumnFacts {
            not_null: vec![vec![true, false, false, true], vec![false, false, false]],
            numbers: vec![vec![true, false, true, false], vec![true, true, true]],
            ..lap_times()
        };
        let guard = "SELECT Name FROM singer ORDER BY CASE WHEN SUBSTR(Country, 1, INSTR(Country, ':') - 1) <> '' THEN CAST(SUBSTR(Country, 1, INSTR(Country, ':') - 1) AS REAL) * 60 ELSE 0 END";
        let with = |column: &str| {
            guard.replacen(
                "WHEN SUBSTR(Country, 1,",
                &format!("WHEN SUBSTR({column}, 1,"),
                1,
            )
        };
        assert!(alike_on(&tables, &facts, guard, &with("Singer_ID")));
        // A number column that may be NULL, a text column, the number's value itself read.
        assert!(!alike_on(&tables, &facts, guard, &with("Age")));
        assert!(!alike_on(&tables, &facts, guard, &with("Name")));
        let read = guard.replacen(
            "THEN CAST(SUBSTR(Country, 1,",
            "THEN CAST(SUBSTR(Singer_ID, 1,",
            1,
        );
        assert!(!alike_on(&tables, &facts, guard, &read));
    }

    #[test]
    fn the_domain_varies_each_digit_run() {
        let d = domain(&["1:23.794".to_string()]);
        for v in [
            "1:23.794",
            "0:23.794",
            "9:23.794",
            "1:00.794",
            "1:99.794",
            "50:23.794",
        ] {
            assert!(d.iter().any(|x| x == v), "{v} in {d:?}");
        }
        assert!(d
            .iter()
            .all(|v| crate::text_shape::digit_runs(v).as_deref() == Some("#:#.#")));
    }
}
