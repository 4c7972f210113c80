//! What SQLite's date functions give, where only part of it counts ([`super::edit_alike`]):
//!
//! - **Now, written another way**: in `date(…)`, or in `strftime(f, …)` whose format reads the
//!   date only (`%Y %m %d %j %W %w`), the time value `'now'`, `CURRENT_TIMESTAMP`,
//!   `CURRENT_DATE`, `date('now')`, `datetime('now')`, the same in parentheses, or none at all
//!   (which is `'now'`) is one day (BIRD's items 105, 114: `STRFTIME('%Y', CURRENT_TIMESTAMP)`
//!   and `STRFTIME('%Y')`).
//! - **A year read as a number**: where `strftime('%Y', t)` is an operand of arithmetic
//!   (`- + * /`, no `||` beside it), SQLite reads its text's leading number. A format with
//!   more after `%Y` (`'%Yab'`, no `%`, not starting with a digit, `.`, `e`) gives the same
//!   leading number; so does `strftime(t)` without the format, where `t` is a dated "now"
//!   (`CURRENT_TIMESTAMP`, `date('now')`, …): a format without `%` is its own text, which
//!   starts with the year and a `-` (BIRD's items 83, 106, 499: ages as the current year less
//!   the year of birth). Not a column of dates: its layout is a constraint the golds' own
//!   numbers can break (a database of the suites holds a birthday `195`).

use super::edit_alike::Edit;
use super::Query;
use sqlsuite::sql_tokens::{Token, TokenKind};

/// The date functions whose arguments the rules read.
const DATE_FUNCTIONS: &[&str] = &["strftime", "date"];

impl Query<'_> {
    /// True if `edit` (which makes `neighbor`) changes a date function's arguments only as
    /// the module doc allows.
    pub(super) fn year_text_alike(&self, edit: &Edit, neighbor: &Query) -> bool {
        // The innermost date function call whose arguments hold the edit.
        let Some(open) = (1..edit.from).rev().find(|&o| {
            self.toks[o].is_symbol("(")
                && DATE_FUNCTIONS.iter().any(|f| self.toks[o - 1].is_word(f))
                && self.partner(o).is_some_and(|c| edit.to <= c)
        }) else {
            return false;
        };
        let (Some(close), Some(new_close)) = (self.partner(open), neighbor.partner(open)) else {
            return false;
        };
        let old = self.arguments(open, close);
        let new = neighbor.arguments(open, new_close);
        let function = self.toks[open - 1].lower();
        let now_swapped = match (function.as_str(), old.as_slice(), new.as_slice()) {
            ("date", [], [t]) | ("date", [t], []) => is_now(t),
            ("date", [a], [b]) => is_now(a) && is_now(b),
            ("strftime", [f, rest @ ..], [g, others @ ..]) if same(f, g) && date_only(f) => {
                let time = |r: &[&[Token]]| match r {
                    [] => Some(true),
                    [t] => Some(is_now(t)),
                    _ => None,
                };
                time(rest) == Some(true) && time(others) == Some(true)
            }
            _ => false,
        };
        let year_read = function == "strftime"
            && self.arithmetic_operand(open - 1, close)
            && match (old.as_slice(), new.as_slice()) {
                ([f, t], [g, u]) if same(t, u) => is_year(f) && year_and_more(g),
                ([f, t], [u]) if same(t, u) => is_year(f) && dated_now(t),
                _ => false,
            };
        now_swapped || year_read
    }

    /// The arguments of the call whose parentheses are `open` and `close`, as token runs.
    fn arguments(&self, open: usize, close: usize) -> Vec<&[Token]> {
        if close == open + 1 {
            return Vec::new();
        }
        self.comma_items(open + 1, close)
            .into_iter()
            .map(|(a, b)| &self.toks[a..b])
            .collect()
    }

    /// The call from token `name` to `close` is an operand of `-`, `+`, `*`, `/` (a binary
    /// `+`: SQLite's unary `+` reads no number), with no `||` beside it.
    fn arithmetic_operand(&self, name: usize, close: usize) -> bool {
        let before = name.checked_sub(1).map(|j| &self.toks[j]);
        let after = self.toks.get(close + 1);
        let concatenated = |t: Option<&Token>| t.is_some_and(|t| t.is_symbol("||"));
        if concatenated(before) || concatenated(after) {
            return false;
        }
        let operand_end = |j: usize| {
            self.toks.get(j).is_some_and(|t| {
                t.is_symbol(")")
                    || matches!(t.kind, TokenKind::Int | TokenKind::Float | TokenKind::Str)
                    || (t.kind == TokenKind::Word && !self.is_keyword(j))
            })
        };
        let arithmetic_before = before.is_some_and(|t| {
            t.is_symbol("-")
                || t.is_symbol("*")
                || t.is_symbol("/")
                || (t.is_symbol("+") && name >= 2 && operand_end(name - 2))
        });
        let arithmetic_after = after.is_some_and(|t| {
            t.is_symbol("-") || t.is_symbol("+") || t.is_symbol("*") || t.is_symbol("/")
        });
        arithmetic_before || arithmetic_after
    }
}

fn same(a: &[Token], b: &[Token]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.kind == y.kind && x.text == y.text)
}

/// A string format whose directives read the date only.
fn date_only(f: &[Token]) -> bool {
    let [t] = f else { return false };
    let Some(s) = t.string_content() else {
        return false;
    };
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '%' && !chars.next().is_some_and(|d| "YmdjWw%".contains(d)) {
            return false;
        }
    }
    true
}

/// `'%Y'`.
fn is_year(f: &[Token]) -> bool {
    matches!(f, [t] if t.string_content().as_deref() == Some("%Y"))
}

/// `'%Y'` and more text after it, no `%`, that a number cannot continue.
fn year_and_more(f: &[Token]) -> bool {
    let [t] = f else { return false };
    let Some(s) = t.string_content() else {
        return false;
    };
    s.strip_prefix("%Y").is_some_and(|rest| {
        !rest.contains('%')
            && rest
                .chars()
                .next()
                .is_some_and(|c| !c.is_ascii_digit() && !matches!(c, '.' | 'e' | 'E'))
    })
}

/// A time value that is now: `'now'`, `CURRENT_TIMESTAMP`, `CURRENT_DATE`, `date(…)` or
/// `datetime(…)` of now or of nothing, any of them in parentheses.
fn is_now(t: &[Token]) -> bool {
    match t {
        [s] if s
            .string_content()
            .is_some_and(|s| s.eq_ignore_ascii_case("now")) =>
        {
            true
        }
        [open, inner @ .., close] if open.is_symbol("(") && close.is_symbol(")") => is_now(inner),
        _ => dated_now(t),
    }
}

/// A now whose text starts with the year and a `-`: `CURRENT_TIMESTAMP`, `CURRENT_DATE`,
/// `date(now)`, `datetime(now)` (or of nothing), in parentheses or not.
fn dated_now(t: &[Token]) -> bool {
    match t {
        [w] => w.is_word("current_timestamp") || w.is_word("current_date"),
        [open, inner @ .., close] if open.is_symbol("(") && close.is_symbol(")") => {
            dated_now(inner)
        }
        [f, open, inner @ .., close]
            if (f.is_word("date") || f.is_word("datetime"))
                && open.is_symbol("(")
                && close.is_symbol(")") =>
        {
            inner.is_empty() || is_now(inner)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::alike;

    #[test]
    fn now_written_another_way_is_the_same_day() {
        let gold = "SELECT Name FROM singer WHERE STRFTIME('%Y', CURRENT_TIMESTAMP) - Age > 1950";
        for n in [
            gold.replace("STRFTIME('%Y', CURRENT_TIMESTAMP)", "STRFTIME('%Y')"),
            gold.replace("CURRENT_TIMESTAMP", "date('now')"),
            gold.replace("CURRENT_TIMESTAMP", "'NOW'"),
        ] {
            assert!(alike(gold, &n), "{n}");
        }
        let date = "SELECT Name FROM singer WHERE Age < STRFTIME('%Y', date('NOW'))";
        assert!(alike(date, &date.replace("date('NOW')", "date()")));
        assert!(alike(date, &date.replace("date('NOW')", "('NOW')")));
        // A format that reads the time, another day, a column: neighbors.
        let hour = gold.replace("'%Y'", "'%H'");
        assert!(!alike(
            &hour,
            &hour.replace("CURRENT_TIMESTAMP", "CURRENT_DATE")
        ));
        assert!(!alike(
            gold,
            &gold.replace("CURRENT_TIMESTAMP", "'2001-01-01'")
        ));
        assert!(!alike(gold, &gold.replace("CURRENT_TIMESTAMP", "Country")));
    }

    #[test]
    fn a_year_read_as_a_number_keeps_its_leading_number() {
        let gold = "SELECT Name FROM singer WHERE STRFTIME('%Y', CURRENT_TIMESTAMP) - STRFTIME('%Y', Country) > 50";
        for n in [
            gold.replace("STRFTIME('%Y', Country)", "STRFTIME('%Yab', Country)"),
            gold.replace(
                "STRFTIME('%Y', CURRENT_TIMESTAMP)",
                "STRFTIME('%Yx', CURRENT_TIMESTAMP)",
            ),
            gold.replace(
                "STRFTIME('%Y', CURRENT_TIMESTAMP)",
                "STRFTIME(CURRENT_TIMESTAMP)",
            ),
        ] {
            assert!(alike(gold, &n), "{n}");
        }
        // A suffix a number continues, a directive after the year, the format dropped before a
        // column (its text may be anything), a comparison of text: neighbors.
        for n in [
            gold.replace("STRFTIME('%Y', Country)", "STRFTIME('%Ye5', Country)"),
            gold.replace("STRFTIME('%Y', Country)", "STRFTIME('%Y%m', Country)"),
            gold.replace("STRFTIME('%Y', Country)", "STRFTIME(Country)"),
            gold.replace("STRFTIME('%Y', CURRENT_TIMESTAMP)", "STRFTIME('now')"),
        ] {
            assert!(!alike(gold, &n), "{n}");
        }
        let compared = "SELECT Name FROM singer WHERE STRFTIME('%Y', Country) = '2001'";
        assert!(!alike(compared, &compared.replace("'%Y'", "'%Yab'")));
        let joined = "SELECT Name FROM singer WHERE 'x' || STRFTIME('%Y', Country) - 1 > 0";
        assert!(!alike(joined, &joined.replace("'%Y'", "'%Yab'")));
    }
}
