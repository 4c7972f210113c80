//! `COUNT(x)` counts the rows of its block where `x` is not NULL ([`super::edit_alike`]). Where
//! `x` and the column an edit puts in its place are both never NULL on those rows, the two
//! counts are one: `COUNT(Virtual)` → `COUNT(County)` under `WHERE County = 'San Diego' AND
//! Virtual = 'F'` (BIRD's item 463). `COUNT(*)` counts every row, as does a count of a column
//! that is never NULL there.
//!
//! A column is never NULL on the rows of a block where the constraints say NOT NULL, or where
//! a conjunct of the block's `WHERE` (all of whose connectives are `AND`) or of an `ON` reads
//! it so that NULL fails: compared, `LIKE`, `BETWEEN` or `IN` something, tested `IS NOT NULL`,
//! directly or inside a function that gives NULL for NULL (`STRFTIME('%Y', Birthday) =
//! '1980'`). Only in a query without outer joins (which make rows of NULLs), and never for
//! `COUNT(DISTINCT …)`.

use super::edit_alike::{Edit, Schema};
use super::{unquote_ident, Query, CLAUSE_WORDS};
use sqlsuite::sql_tokens::TokenKind;

/// Functions that give NULL where an argument is NULL.
const NULL_PRESERVING: &[&str] = &[
    "strftime",
    "date",
    "datetime",
    "julianday",
    "substr",
    "substring",
    "length",
    "upper",
    "lower",
    "trim",
    "ltrim",
    "rtrim",
    "instr",
    "cast",
    "abs",
    "round",
    "replace",
];

/// Words that end an `ON` condition.
const JOIN_WORDS: &[&str] = &[
    "join", "inner", "left", "right", "full", "cross", "natural", "on",
];

impl Query<'_> {
    /// True if `edit` replaces the argument of a `COUNT( … )` (a column, `*` or `1`) by a
    /// column, both never NULL on the rows counted (module doc).
    pub(super) fn count_column_alike(&self, edit: &Edit, schema: &Schema) -> bool {
        let (f, t) = (edit.from, edit.to);
        if t != f + 1 || f < 2 || self.outer_joins() {
            return false;
        }
        let Some(new) = edit.new_word() else {
            return false;
        };
        // `COUNT ( [X .] c )`: where the argument starts, and the token after it.
        let qualified = f >= 4 && self.toks[f - 1].is_symbol(".");
        let start = if qualified { f - 2 } else { f };
        let shaped = start >= 2
            && self.toks[start - 1].is_symbol("(")
            && self.toks[start - 2].is_word("count")
            && self.toks.get(f + 1).is_some_and(|t| t.is_symbol(")"));
        if !shaped {
            return false;
        }
        let count = start - 2;
        let old = &self.toks[f];
        let every_row = !qualified && (old.is_symbol("*") || old.kind == TokenKind::Int);
        let old_never_null = every_row
            || (old.kind == TokenKind::Word
                && !self.is_keyword(f)
                && schema
                    .table_of(self, f)
                    .is_some_and(|k| self.never_null(count, k, unquote_ident(&old.text), schema)));
        let new_table = if qualified {
            schema
                .table_of(self, f)
                .filter(|&k| schema.has_column(k, &new))
        } else {
            schema.only_owner(&new)
        };
        old_never_null && new_table.is_some_and(|k| self.never_null(count, k, &new, schema))
    }

    /// The query has an outer join.
    pub(super) fn outer_joins(&self) -> bool {
        self.toks.iter().any(|t| {
            ["left", "right", "full", "outer"]
                .iter()
                .any(|w| t.is_word(w))
        })
    }

    /// Column `name` of table `k` is never NULL on the rows of the block of token `i`: by the
    /// constraints, or by a conjunct of that block's `WHERE` or `ON` (module doc).
    fn never_null(&self, i: usize, k: usize, name: &str, schema: &Schema) -> bool {
        if schema.not_null(k, name) {
            return true;
        }
        self.condition_bodies(i).into_iter().any(|(a, b)| {
            let predicates = self.predicates(a, b);
            let all_and = predicates
                .iter()
                .all(|&(_, _, c)| c.is_none_or(|c| self.toks[c].is_word("and")));
            all_and
                && predicates
                    .iter()
                    .any(|&(p, q, _)| self.rejects_null(p, q, k, name, schema))
        })
    }

    /// The bodies of the `WHERE` and of each `ON` of the block of token `i`, at its depth.
    pub(super) fn condition_bodies(&self, i: usize) -> Vec<(usize, usize)> {
        let (from, to) = self.block(i);
        let d = self.depth[i];
        let mut bodies = Vec::new();
        for j in (from..to).filter(|&j| self.depth[j] == d) {
            if self.toks[j].is_word("where") {
                bodies.push((j + 1, self.clause_end(j, CLAUSE_WORDS).min(to)));
            } else if self.toks[j].is_word("on") {
                let end = (j + 1..to)
                    .find(|&e| {
                        self.depth[e] == d
                            && (JOIN_WORDS.contains(&self.toks[e].lower().as_str())
                                || CLAUSE_WORDS.contains(&self.toks[e].lower().as_str()))
                    })
                    .unwrap_or(to);
                bodies.push((j + 1, end));
            }
        }
        bodies
    }

    /// The predicate `p..q` is false or NULL wherever column `name` of table `k` is NULL.
    fn rejects_null(&self, p: usize, q: usize, k: usize, name: &str, schema: &Schema) -> bool {
        let d = self.depth[p];
        let words: Vec<String> = self.toks[p..q].iter().map(|t| t.lower()).collect();
        let has = |w: &str| words.iter().any(|x| x == w);
        if has("or") || has("not") || has("case") || has("coalesce") || has("ifnull") {
            // `IS NOT NULL` alone, on the column itself.
            return q == p + 4
                && self.toks[p + 1].is_word("is")
                && self.toks[p + 2].is_word("not")
                && self.toks[p + 3].is_word("null")
                && self.is_column(p, k, name, schema);
        }
        let tested = (p..q).any(|j| {
            self.depth[j] == d
                && (self.is_comparison(j)
                    || ["like", "between", "in", "glob"]
                        .iter()
                        .any(|w| self.toks[j].is_word(w)))
        });
        if !tested || has("is") {
            return false;
        }
        // The column as an operand at the predicate's depth, or inside a function that keeps
        // NULL, itself at that depth.
        (p..q).any(|j| {
            self.is_column(j, k, name, schema)
                && (self.depth[j] == d || self.inside_null_preserving(j, d))
        })
    }

    /// Token `j` (the last of `[X .] c`) is column `name` of table `k`.
    fn is_column(&self, j: usize, k: usize, name: &str, schema: &Schema) -> bool {
        let t = &self.toks[j];
        t.kind == TokenKind::Word
            && !self.is_keyword(j)
            && unquote_ident(&t.text).eq_ignore_ascii_case(name)
            && !self.toks.get(j + 1).is_some_and(|n| n.is_symbol("."))
            && schema.table_of(self, j) == Some(k)
    }

    /// Every parenthesis around token `j`, down to depth `d`, is a call of a function that
    /// gives NULL for NULL.
    fn inside_null_preserving(&self, j: usize, d: usize) -> bool {
        let mut at = j;
        while self.depth[at] > d {
            let Some(open) = (0..at)
                .rev()
                .find(|&o| self.toks[o].is_symbol("(") && self.depth[o] == self.depth[at] - 1)
            else {
                return false;
            };
            let function = open
                .checked_sub(1)
                .map(|f| self.toks[f].lower())
                .unwrap_or_default();
            if !NULL_PRESERVING.contains(&function.as_str()) {
                return false;
            }
            at = open;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{alike_on, tables};
    use super::super::ColumnFacts;

    /// `neighbor` answers as `gold` by the rules, on singer(Singer_ID, Name, Age, Country),
    /// concert(concert_ID, Singer_ID, Year), the IDs and `Name` never NULL.
    fn alike(gold: &str, neighbor: &str) -> bool {
        let facts = ColumnFacts {
            not_null: vec![vec![true, true, false, false], vec![true, true, false]],
            ..ColumnFacts::default()
        };
        alike_on(&tables(), &facts, gold, neighbor)
    }

    #[test]
    fn a_count_of_a_column_never_null_on_its_rows_counts_as_any_other_such() {
        let gold = "SELECT Country, COUNT(Age) FROM singer WHERE Age > 20 AND STRFTIME('%Y', Country) = '1980' GROUP BY Country";
        // Name is NOT NULL; Age is compared and Country holds a year, so neither is NULL on
        // the rows counted.
        for other in ["Name", "Country", "Singer_ID"] {
            assert!(alike(
                gold,
                &gold.replace("COUNT(Age)", &format!("COUNT( {other} )"))
            ));
        }
        let star = "SELECT COUNT(*) FROM singer AS T1 WHERE T1.Age > 20";
        assert!(alike(star, &star.replace("COUNT(*)", "COUNT( Age )")));
        assert!(alike(star, &star.replace("COUNT(*)", "COUNT( Name )")));
        // A column that may be NULL there; one compared under an OR, through COALESCE or by
        // `IS NULL`; a count of distinct values: still neighbors.
        let unlike = [
            (star.to_owned(), "COUNT( Country )"),
            (
                star.replace("T1.Age > 20", "(T1.Age > 20 OR Name = 'x')"),
                "COUNT( Age )",
            ),
            (
                star.replace("T1.Age > 20", "T1.Age > 20 OR Name = 'x'"),
                "COUNT( Age )",
            ),
            (
                star.replace("T1.Age > 20", "COALESCE(T1.Age, 30) > 20"),
                "COUNT( Age )",
            ),
            (
                star.replace("T1.Age > 20", "T1.Age IS NULL"),
                "COUNT( Age )",
            ),
        ];
        for (g, count) in unlike {
            assert!(!alike(&g, &g.replace("COUNT(*)", count)), "{g} → {count}");
        }
        let distinct = "SELECT COUNT(DISTINCT Age) FROM singer WHERE Age > 20";
        assert!(!alike(
            distinct,
            &distinct.replace("DISTINCT Age", "DISTINCT Name")
        ));
        // Under an outer join, a row of NULLs counts for neither; under an inner join, alike.
        let outer = "SELECT COUNT(T1.Age) FROM singer AS T1 LEFT JOIN concert AS T2 ON T1.Singer_ID = T2.Singer_ID WHERE T1.Age > 20";
        let swapped = |g: &str| g.replace("COUNT(T1.Age)", "COUNT(T1.Name)");
        assert!(!alike(outer, &swapped(outer)));
        let inner = outer.replace("LEFT JOIN", "JOIN");
        assert!(alike(&inner, &swapped(&inner)));
        // A join's `ON` holds too: concert's Year compared there.
        let on = "SELECT COUNT(T2.Year) FROM singer AS T1 JOIN concert AS T2 ON T1.Singer_ID = T2.Singer_ID AND T2.Year > 2000";
        assert!(alike(
            on,
            &on.replace("COUNT(T2.Year)", "COUNT(T2.concert_ID)")
        ));
    }
}
