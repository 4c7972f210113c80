//! Edits judged one at a time: a generated neighbor that differs from the gold in one run of
//! tokens ([`Edit`]) where that change cannot alter the answer on any database within the
//! constraints is no neighbor. The rules look at the changed run and what surrounds it:
//!
//! - **`= 'c'` → `LIKE 'c%'` or `LIKE '%c%'` on an operand no longer than `c`**
//!   ([`Query::fixed_length`]): `SUBSTR(x, s, n)` (at most `n` characters), `SUBSTR(x, -n)`,
//!   `STRFTIME('%Y', …)` and other formats of a fixed width, or a column whose values all have
//!   one date layout (the constraints' `format`) as long as `c`. A value no longer than `c` that
//!   starts with (or holds) `c` is `c`; `c` holds no letter (`LIKE` ignores their case) and no
//!   wildcard.
//! - **Inside `COUNT(CASE … END)`** (`count_case`): a change of a `WHEN` condition where every
//!   branch gives a constant that is not NULL (the count counts every row either way), and a
//!   NOT NULL column the branch gives replaced by another NOT NULL column of the same table.
//! - **A derived table's column the outer query never reads** (`unread`): a plain column of
//!   its select list replaced by another, or dropped.
//! - **A derived table's `ORDER BY` the answer cannot see** (`inner_order`): the query around
//!   it sorts again or answers a bag, and the derived table has no `LIMIT`.
//! - **A count's column for another never NULL on the rows counted** (`count_column`):
//!   `COUNT(x)` → `COUNT(y)`, or `COUNT(*)` → `COUNT(y)`, by the constraints or the block's
//!   own conditions.
//! - **A `GROUP BY` key the other keys determine** (`group_key`): replaced by another such
//!   column, or dropped, where each list determines the other's keys through a key and
//!   equalities to unique columns.
//! - **An `ORDER BY` over a row the conditions pin** (`pinned_order`): its keys, before and
//!   after, columns of aliases whose one row a key equality names; every row ties, and the
//!   tie-aware comparison takes any.
//! - **An `ELSE` that gives what no `ELSE` gives** (`case_else`): `ELSE NULL` dropped, and
//!   `ELSE 0` dropped from a `SUM` that divides.
//! - **What an `EXISTS` subquery selects** (`exists_list`), and `EXISTS` dropped before one
//!   selecting a non-zero number in a condition without `NOT`.
//! - **A guard that only keeps an empty string from a cast** (`cast_guard`): `CASE WHEN s <>
//!   '' THEN CAST(s AS REAL) … ELSE 0 END` with another guard false only where the cast is 0.
//! - **Dates where only part counts** (`year_text`): now written another way; a year read as
//!   a number with more text after it.
//! - **An equality with the least or greatest value a column holds** (`enumerated_bound`):
//!   `x = 'c'` → `x <= 'c'` / `x >= 'c'` over an enumeration of texts.
//! - **An expression of one column of one layout** (`layout`): the same value on every text
//!   of the column's layout of digit runs (lap times).
//! - **Names that leave every value** (`naming`): an alias nothing reads, a qualifier the
//!   column does not need.
//! - **A copy of a condition written twice** (`repeated_disjunct`): in `(A OR A)`, a copy
//!   dropped, `OR` made `AND`, or a copy made a condition that never holds.

use std::collections::HashMap;

use super::{unquote_ident, ColumnFacts, Query, TableColumns};
use sqlsuite::sql_tokens::{Token, TokenKind};

/// Where a neighbor differs from the gold: gold tokens `from..to` became `with`.
pub(super) struct Edit {
    /// The first changed gold token.
    pub(super) from: usize,
    /// Past the last changed gold token.
    pub(super) to: usize,
    /// The neighbor's tokens in their place.
    pub(super) with: Vec<Token>,
}

impl Edit {
    /// The one run of tokens `neighbor` changes in `gold` (the longest common prefix and
    /// suffix kept), or `None` where they are the same tokens.
    pub(super) fn between(gold: &[Token], neighbor: &[Token]) -> Option<Edit> {
        let same = |a: &Token, b: &Token| a.kind == b.kind && a.text == b.text;
        let prefix = gold
            .iter()
            .zip(neighbor)
            .take_while(|(a, b)| same(a, b))
            .count();
        let room = gold.len().min(neighbor.len()) - prefix;
        let suffix = gold
            .iter()
            .rev()
            .zip(neighbor.iter().rev())
            .take(room)
            .take_while(|(a, b)| same(a, b))
            .count();
        if prefix == gold.len() && prefix == neighbor.len() {
            return None;
        }
        Some(Edit {
            from: prefix,
            to: gold.len() - suffix,
            with: neighbor[prefix..neighbor.len() - suffix].to_vec(),
        })
    }

    /// The single word the edit puts in place of a single gold token, unquoted, lower case.
    pub(super) fn new_word(&self) -> Option<String> {
        match self.with.as_slice() {
            [t] if self.to == self.from + 1 && t.kind == TokenKind::Word => {
                Some(unquote_ident(&t.text).to_lowercase())
            }
            _ => None,
        }
    }
}

/// The facts the rules read: the schema's columns, their constraints, the query's aliases.
pub(super) struct Schema<'a> {
    pub(super) tables: &'a TableColumns,
    pub(super) facts: &'a ColumnFacts,
    pub(super) aliases: &'a HashMap<String, usize>,
}

impl Schema<'_> {
    /// The table the column at gold token `i` belongs to: its qualifier's, else the one table
    /// of the query that has a column of that name.
    pub(super) fn table_of(&self, q: &Query, i: usize) -> Option<usize> {
        let name = unquote_ident(&q.toks[i].text).to_lowercase();
        let qualifier = (i >= 2 && q.toks[i - 1].is_symbol("."))
            .then(|| unquote_ident(&q.toks[i - 2].text).to_lowercase());
        self.table_named(qualifier.as_deref(), &name)
    }

    /// The table of column `name` (lower case) under `qualifier` (an alias, lower case), or
    /// without one the one table of the query that has such a column.
    pub(super) fn table_named(&self, qualifier: Option<&str>, name: &str) -> Option<usize> {
        match qualifier {
            Some(q) => self
                .aliases
                .get(q)
                .copied()
                .filter(|&k| self.has_column(k, name)),
            None => self.only_owner(name),
        }
    }

    /// Table `k` has a column `name`.
    pub(super) fn has_column(&self, k: usize, name: &str) -> bool {
        self.tables[k]
            .1
            .iter()
            .any(|c| c.eq_ignore_ascii_case(name))
    }

    /// The one table of the query that has a column `name`, if only one has it.
    pub(super) fn only_owner(&self, name: &str) -> Option<usize> {
        let mut owners: Vec<usize> = self
            .aliases
            .values()
            .copied()
            .filter(|&k| self.has_column(k, name))
            .collect();
        owners.sort_unstable();
        owners.dedup();
        match owners.as_slice() {
            [k] => Some(*k),
            _ => None,
        }
    }

    /// Column `name` of table `k` is never NULL by the constraints.
    pub(super) fn not_null(&self, k: usize, name: &str) -> bool {
        self.facts.is_not_null(k, name, self.tables)
    }

    /// Column `name` of table `k` is declared a number.
    pub(super) fn holds_numbers(&self, k: usize, name: &str) -> bool {
        self.facts.holds_numbers(k, name, self.tables)
    }

    /// The samples of column `name` of table `k` whose layout of digit runs all its values
    /// have, if they have one.
    pub(super) fn layout(&self, k: usize, name: &str) -> Option<&[String]> {
        let ci = self.tables[k]
            .1
            .iter()
            .position(|c| c.eq_ignore_ascii_case(name))?;
        self.facts.layouts.get(k)?.get(ci)?.as_deref()
    }

    /// The texts the golds' constants bring into column `name` of table `k`.
    pub(super) fn gold_texts(&self, k: usize, name: &str) -> &[String] {
        let ci = self.tables[k]
            .1
            .iter()
            .position(|c| c.eq_ignore_ascii_case(name));
        ci.and_then(|ci| self.facts.gold_texts.get(k)?.get(ci))
            .map_or(&[], Vec::as_slice)
    }

    /// The least and greatest text column `name` of table `k` may hold, where its values are
    /// an enumeration of texts.
    pub(super) fn text_bounds(&self, k: usize, name: &str) -> Option<&(String, String)> {
        let ci = self.tables[k]
            .1
            .iter()
            .position(|c| c.eq_ignore_ascii_case(name))?;
        self.facts.text_bounds.get(k)?.get(ci)?.as_ref()
    }

    /// The date layout every value of column `name` of table `k` has, if the constraints give
    /// one.
    pub(super) fn format(&self, k: usize, name: &str) -> Option<&str> {
        let ci = self.tables[k]
            .1
            .iter()
            .position(|c| c.eq_ignore_ascii_case(name))?;
        self.facts.formats.get(k)?.get(ci)?.as_deref()
    }
}

impl Query<'_> {
    /// True if `neighbor` is the gold with one change that answers alike on every database
    /// within the constraints (the module doc's rules).
    pub(super) fn edit_answers_alike(&self, neighbor: &str, schema: &Schema) -> bool {
        let n = Query::new(neighbor);
        let Some(edit) = Edit::between(&self.toks, &n.toks) else {
            return false;
        };
        self.fixed_length(&edit, schema)
            || self.count_case_alike(&edit, schema)
            || self.unread_column(&edit, &n.toks)
            || self.inner_order_alike(&edit)
            || self.count_column_alike(&edit, schema)
            || self.group_key_alike(&edit, &n, schema)
            || self.pinned_order_alike(&edit, &n, schema)
            || self.implied_else(&edit)
            || self.exists_list_alike(&edit)
            || self.cast_guard_alike(&edit)
            || self.year_text_alike(&edit, &n)
            || self.enumerated_bound_alike(&edit, schema)
            || self.layout_alike(&edit, &n, schema)
            || self.naming_alike(&edit, schema)
            || self.repeated_disjunct_alike(&edit, &n, schema)
    }

    /// `= 'c'` → `LIKE 'c%'` / `LIKE '%c%'` where the operand before `=` is never longer than
    /// `c` (module doc).
    fn fixed_length(&self, edit: &Edit, schema: &Schema) -> bool {
        let (f, t) = (edit.from, edit.to);
        if t != f + 2 || f == 0 || !self.toks[f].is_symbol("=") {
            return false;
        }
        let Some(c) = self.toks[f + 1].string_content() else {
            return false;
        };
        let [like, pattern] = edit.with.as_slice() else {
            return false;
        };
        let Some(p) = pattern.string_content() else {
            return false;
        };
        let plain = !c.is_empty()
            && !c
                .chars()
                .any(|ch| ch.is_ascii_alphabetic() || ch == '%' || ch == '_');
        let loosened = p == format!("{c}%") || p == format!("%{c}%");
        plain
            && like.is_word("like")
            && loosened
            && self.operand_width(f - 1, schema) == Some(c.chars().count())
    }

    /// The most characters the operand ending at token `end` can have, where that is known:
    /// `SUBSTR(x, s, n)` with a positive `n`, `SUBSTR(x, -n)`, `STRFTIME` of a fixed-width
    /// format, or a column all of whose values have one date layout.
    fn operand_width(&self, end: usize, schema: &Schema) -> Option<usize> {
        let t = &self.toks[end];
        if t.kind == TokenKind::Word && !self.is_keyword(end) {
            let k = schema.table_of(self, end)?;
            let format = schema.format(k, unquote_ident(&t.text))?;
            return layout_width(format);
        }
        if !t.is_symbol(")") {
            return None;
        }
        let open = self.partner(end)?;
        let function = self.toks.get(open.checked_sub(1)?)?.lower();
        let args = self.comma_items(open + 1, end);
        let arg = |k: usize| -> Option<&[Token]> { args.get(k).map(|&(a, b)| &self.toks[a..b]) };
        let positive = |ts: &[Token]| match ts {
            [n] if n.kind == TokenKind::Int => n.text.parse::<usize>().ok().filter(|&n| n > 0),
            _ => None,
        };
        match (function.as_str(), args.len()) {
            ("substr" | "substring", 3) => positive(arg(2)?),
            ("substr" | "substring", 2) => match arg(1)? {
                [minus, rest @ ..] if minus.is_symbol("-") => positive(rest),
                _ => None,
            },
            ("strftime", n) if n >= 2 => strftime_width(&arg(0)?.first()?.string_content()?),
            _ => None,
        }
    }
}

/// The width of every text `strftime` gives for `format`, where it is fixed.
fn strftime_width(format: &str) -> Option<usize> {
    let mut width = 0;
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        width += match c {
            '%' => match chars.next()? {
                'Y' => 4,
                'm' | 'd' | 'H' | 'M' | 'S' | 'W' => 2,
                'j' => 3,
                'w' | '%' => 1,
                'f' => 6,
                _ => return None,
            },
            _ => 1,
        };
    }
    Some(width)
}

/// The width of a date layout (the constraints' `format`: `%Y` four digits, `%m %d %H %M %S`
/// two, the rest as written), where it holds a character other than a digit: its values are
/// then text, never a number, in any column.
fn layout_width(format: &str) -> Option<usize> {
    let literal = format
        .split('%')
        .enumerate()
        .any(|(k, part)| part.chars().nth(usize::from(k > 0)).is_some());
    let known = format
        .split('%')
        .skip(1)
        .all(|part| part.chars().next().is_some_and(|c| "YmdHMS".contains(c)));
    (literal && known).then(|| strftime_width(format)).flatten()
}

#[cfg(test)]
mod tests {
    use super::super::tests::{gen, generated};
    use super::super::{neighbors, ColumnFacts};
    use super::*;

    #[test]
    fn a_loosened_equality_on_an_operand_as_long_as_its_constant_is_no_neighbor() {
        let gold = "SELECT Name FROM singer WHERE SUBSTR(Country, 1, 4) = '2012'";
        let ns = gen(gold);
        for p in ["'2012%'", "'%2012%'"] {
            let n = gold.replace("= '2012'", &format!("LIKE {p}"));
            assert!(!generated(&ns, &n), "{n}");
        }
        let year = "SELECT Name FROM singer WHERE STRFTIME('%Y', Country) = '1997'";
        assert!(!generated(
            &gen(year),
            &year.replace("= '1997'", "LIKE '1997%'")
        ));
        let tail = "SELECT Name FROM singer WHERE SUBSTR(Country, -2) = '19'";
        assert!(!generated(
            &gen(tail),
            &tail.replace("= '19'", "LIKE '%19%'")
        ));
        // Longer than the constant, a letter (`LIKE` ignores case), an open-ended SUBSTR, a
        // format of no fixed width: still neighbors.
        let kept = [
            (
                "SELECT Name FROM singer WHERE SUBSTR(Country, 1, 5) = '2012'",
                "'2012%'",
            ),
            (
                "SELECT Name FROM singer WHERE SUBSTR(Country, 1, 2) = 'ab'",
                "'ab%'",
            ),
            (
                "SELECT Name FROM singer WHERE SUBSTR(Country, 2) = '12'",
                "'12%'",
            ),
            (
                "SELECT Name FROM singer WHERE STRFTIME('%s', Country) = '1997'",
                "'1997%'",
            ),
            ("SELECT Name FROM singer WHERE Country = '2012'", "'2012%'"),
        ];
        for (gold, p) in kept {
            let c = &p[..p.len() - 2];
            let n = gold.replace(&format!("= {c}'"), &format!("LIKE {p}"));
            assert!(generated(&gen(gold), &n), "{n}");
        }
    }

    #[test]
    fn a_column_of_one_date_layout_is_as_long_as_its_dates() {
        let tables = super::super::tests::tables();
        let facts = ColumnFacts {
            formats: vec![
                vec![None, None, None, Some("%Y-%m-%d".into())],
                vec![None, None, Some("%Y".into())],
            ],
            ..ColumnFacts::default()
        };
        let ns = |sql: &str| neighbors(sql, &tables, &facts, &mut fastrand::Rng::with_seed(7));
        let gold = "SELECT Name FROM singer WHERE Country = '2012-08-24'";
        assert!(!generated(
            &ns(gold),
            &gold.replace("= '2012-08-24'", "LIKE '2012-08-24%'")
        ));
        // A shorter date, and a layout of digits alone (a number, whose text may be longer).
        let short = "SELECT Name FROM singer WHERE Country = '2012-08'";
        assert!(generated(
            &ns(short),
            &short.replace("= '2012-08'", "LIKE '2012-08%'")
        ));
        let year = "SELECT Year FROM concert WHERE Year = '2012'";
        assert!(generated(
            &ns(year),
            &year.replace("= '2012'", "LIKE '2012%'")
        ));
    }

    #[test]
    fn widths_of_formats() {
        assert_eq!(strftime_width("%Y-%m-%d"), Some(10));
        assert_eq!(strftime_width("%s"), None);
        assert_eq!(layout_width("%Y-%m-%d %H:%M:%S"), Some(19));
        assert_eq!(layout_width("%Y%m"), None);
        assert_eq!(layout_width("%H:%M"), Some(5));
    }
}
