//! `COUNT(CASE WHEN … THEN r … END)`: what the count cannot see ([`super::edit_alike`]). The
//! count counts the rows whose `CASE` gives something other than NULL, so
//!
//! - where every branch, `ELSE` included, gives a constant that is not NULL
//!   (`COUNT(CASE WHEN T2.PT >= 14 THEN 1 ELSE 0 END)`, BIRD's item 114), it counts every row,
//!   whatever a `WHEN` condition says: a change inside a condition answers alike;
//! - where a branch gives a column that is never NULL (`THEN T2.driverId`, item 196), another
//!   column of the same table that is never NULL counts the same rows, in a query without outer
//!   joins (which could give a row of NULLs).

use super::edit_alike::{Edit, Schema};
use super::{unquote_ident, Query};
use sqlsuite::sql_tokens::{Token, TokenKind};

/// The words that shape a `CASE`.
const CASE_WORDS: &[&str] = &["case", "when", "then", "else", "end"];

/// One `COUNT( CASE … END )`: where its conditions and results are (token ranges).
struct CountCase {
    /// Per `WHEN`: its condition.
    conditions: Vec<(usize, usize)>,
    /// Per `THEN`, and the `ELSE` if there is one: its result.
    results: Vec<(usize, usize)>,
    /// It has an `ELSE`.
    has_else: bool,
}

impl Query<'_> {
    /// True if `edit` changes, inside a `COUNT( CASE … END )`, only what the count cannot see
    /// (module doc).
    pub(super) fn count_case_alike(&self, edit: &Edit, schema: &Schema) -> bool {
        let Some(case) = self.count_case_around(edit) else {
            return false;
        };
        let inside = |&(a, b): &(usize, usize)| a <= edit.from && edit.to <= b;
        let constant = |&(a, b): &(usize, usize)| self.non_null_constant(a, b);
        if case.has_else
            && case.results.iter().all(constant)
            && case.conditions.iter().any(inside)
            && self.balanced_run(edit.from, edit.to)
            && plain_run(&edit.with)
        {
            return true;
        }
        case.results.iter().any(|&(a, b)| {
            b == edit.to && edit.to == edit.from + 1 && self.column_swap_alike(a, b, edit, schema)
        })
    }

    /// The `COUNT( CASE WHEN … END )` whose conditions or results hold all of `edit`.
    fn count_case_around(&self, edit: &Edit) -> Option<CountCase> {
        let count = (0..edit.from).rev().find(|&c| {
            self.toks[c].is_word("count")
                && self.toks.get(c + 1).is_some_and(|t| t.is_symbol("("))
                && self.toks.get(c + 2).is_some_and(|t| t.is_word("case"))
                && self.partner(c + 1).is_some_and(|close| edit.to < close)
        })?;
        let close = self.partner(count + 1)?;
        let case = count + 2;
        let body = &self.toks[case + 1..close];
        let nested = body.iter().filter(|t| t.is_word("case")).count();
        if nested > 0
            || !self.toks[case + 1].is_word("when")
            || !self.toks[close - 1].is_word("end")
        {
            return None;
        }
        let d = self.depth[case];
        let marks: Vec<usize> = (case + 1..close)
            .filter(|&j| self.depth[j] == d && CASE_WORDS.iter().any(|w| self.toks[j].is_word(w)))
            .collect();
        let mut out = CountCase {
            conditions: Vec::new(),
            results: Vec::new(),
            has_else: false,
        };
        for pair in marks.windows(2) {
            let range = (pair[0] + 1, pair[1]);
            match self.toks[pair[0]].lower().as_str() {
                "when" => out.conditions.push(range),
                "then" => out.results.push(range),
                "else" => {
                    out.has_else = true;
                    out.results.push(range);
                }
                _ => return None,
            }
        }
        Some(out)
    }

    /// Tokens `a..b` are one constant that is not NULL (a number, maybe negative, or a
    /// string).
    fn non_null_constant(&self, a: usize, b: usize) -> bool {
        let literal =
            |t: &Token| matches!(t.kind, TokenKind::Int | TokenKind::Float | TokenKind::Str);
        match &self.toks[a..b] {
            [t] => literal(t),
            [minus, t] => minus.is_symbol("-") && literal(t),
            _ => false,
        }
    }

    /// Tokens `a..b` open no parenthesis they do not close, and close none they did not open.
    fn balanced_run(&self, a: usize, b: usize) -> bool {
        (a..b).all(|j| {
            let t = &self.toks[j];
            !(t.is_symbol("(") || t.is_symbol(")"))
                || self.partner(j).is_some_and(|p| (a..b).contains(&p))
        })
    }

    /// The result `a..b` is a column `[X .] c` that is never NULL, and `edit` replaces `c` by
    /// another column of the same table that is never NULL, in a query without outer joins.
    fn column_swap_alike(&self, a: usize, b: usize, edit: &Edit, schema: &Schema) -> bool {
        let column = b - 1;
        let shape = match b - a {
            1 => true,
            3 => self.toks[a + 1].is_symbol("."),
            _ => false,
        };
        let outer = self.outer_joins();
        let (Some(new), Some(k)) = (edit.new_word(), schema.table_of(self, column)) else {
            return false;
        };
        let old = unquote_ident(&self.toks[column].text);
        let qualified = b - a == 3;
        // Unqualified, the new name must still be of that table alone.
        let resolves = qualified || schema.only_owner(&new) == Some(k);
        shape
            && !outer
            && !self.is_keyword(column)
            && resolves
            && schema.has_column(k, &new)
            && schema.not_null(k, old)
            && schema.not_null(k, &new)
    }
}

/// A replacement run that keeps a `CASE`'s shape: no `CASE` word, and its parentheses close.
fn plain_run(with: &[Token]) -> bool {
    let mut depth = 0i64;
    for t in with {
        if CASE_WORDS.iter().any(|w| t.is_word(w)) {
            return false;
        }
        depth += i64::from(t.is_symbol("(")) - i64::from(t.is_symbol(")"));
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

#[cfg(test)]
mod tests {
    use super::super::tests::tables;
    use super::super::{neighbors, ColumnFacts, Neighbor};

    /// singer(Singer_ID, Name, Age, Country), concert(concert_ID, Singer_ID, Year): the IDs and
    /// `Name` never NULL.
    fn facts() -> ColumnFacts {
        ColumnFacts {
            not_null: vec![vec![true, true, false, false], vec![true, true, false]],
            ..ColumnFacts::default()
        }
    }

    fn gen(sql: &str) -> Vec<Neighbor> {
        neighbors(sql, &tables(), &facts(), &mut fastrand::Rng::with_seed(7))
    }

    fn has(ns: &[Neighbor], sql: &str) -> bool {
        ns.iter().any(|n| n.sql == sql)
    }

    #[test]
    fn a_condition_a_count_of_constants_cannot_see_is_no_neighbor() {
        let gold = "SELECT COUNT(CASE WHEN T1.Age >= 14 THEN 1 ELSE 0 END) FROM singer AS T1";
        let ns = gen(gold);
        for n in [
            gold.replace(">= 14", "< 14"),
            gold.replace("T1.Age >= 14", "T1. Country >= 14"),
        ] {
            assert!(!has(&ns, &n), "{n}");
        }
        // Without the ELSE (NULL where the condition fails), or a SUM: the condition counts.
        for gold in [
            "SELECT COUNT(CASE WHEN T1.Age >= 14 THEN 1 END) FROM singer AS T1",
            "SELECT SUM(CASE WHEN T1.Age >= 14 THEN 1 ELSE 0 END) FROM singer AS T1",
        ] {
            assert!(has(&gen(gold), &gold.replace(">= 14", "< 14")), "{gold}");
        }
    }

    #[test]
    fn a_never_null_column_a_count_gives_is_as_good_as_another() {
        let gold = "SELECT COUNT(CASE WHEN T1.Age > 9 THEN T1.Singer_ID ELSE NULL END) FROM singer AS T1 JOIN concert AS T2 ON T1.Singer_ID = T2.Singer_ID";
        let ns = gen(gold);
        assert!(!has(
            &ns,
            &gold.replace("THEN T1.Singer_ID", "THEN T1. Name")
        ));
        // A column that may be NULL, or the same under an outer join, stays.
        assert!(has(
            &ns,
            &gold.replace("THEN T1.Singer_ID", "THEN T1. Country")
        ));
        let outer = gold.replace(" JOIN ", " LEFT JOIN ");
        assert!(has(
            &gen(&outer),
            &outer.replace("THEN T1.Singer_ID", "THEN T1. Name")
        ));
    }
}
