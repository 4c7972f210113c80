//! A `GROUP BY` key the other keys already determine ([`super::edit_alike`]): `GROUP BY
//! T4.A11, T1.account_id`, with `T1.account_id` the key of `account` and `T4` the district
//! joined by `T4.district_id = T1.district_id` (its key), makes one group per account whatever
//! column of `T1` or `T4` stands where `T4.A11` does, or without it (BIRD's item 472).
//!
//! An edit that changes the block's `GROUP BY` list `G` into `G'` (an item replaced by another,
//! or dropped) answers alike where each list determines every item of the other: a column is
//! determined by a list that holds a column identifying its table's rows (unique and never
//! NULL) of an alias from which the column's alias is reached through equalities `Y.u = X.v`
//! of the block's `WHERE` and `ON` conjunctions with `Y.u` unique (each row of `X` meets at
//! most one row of `Y`). The groups are then the same rows, so are their aggregates. Only
//! where every item of both lists is a qualified column (`X . c`), the conjunctions have no
//! `OR`, the query has no outer join, and every column the block's select list reads outside
//! an aggregate is determined by both lists too (SQLite takes such a bare column from some row
//! of its group, which the grouping order might choose otherwise).

use std::collections::BTreeSet;

use super::edit_alike::{Edit, Schema};
use super::{unquote_ident, Query, AGGREGATES, CLAUSE_WORDS};
use sqlsuite::sql_tokens::TokenKind;

/// A qualified column: its qualifier and name, lower case.
pub(super) type Column = (String, String);

impl Query<'_> {
    /// True if `edit`, which makes `neighbor`, changes a `GROUP BY` list into one that makes
    /// the same groups (module doc).
    pub(super) fn group_key_alike(&self, edit: &Edit, neighbor: &Query, schema: &Schema) -> bool {
        let Some(group) = self.group_by_before(edit.from) else {
            return false;
        };
        let end = self.before_semicolons(group, self.clause_end(group, CLAUSE_WORDS));
        if edit.to > end || self.outer_joins() {
            return false;
        }
        // The neighbor's list: the same `GROUP BY`, to its own clause's end.
        let n_end = neighbor.before_semicolons(group, neighbor.clause_end(group, CLAUSE_WORDS));
        let (Some(old), Some(new)) = (
            self.plain_columns(group + 2, end),
            neighbor.plain_columns(group + 2, n_end),
        ) else {
            return false;
        };
        if old == new || new.is_empty() {
            return false;
        }
        let Some(joins) = self.key_equalities(group, schema) else {
            return false;
        };
        let bare = self.bare_select_columns(group);
        let determined = |c: &Column, list: &[Column]| determines(list, c, &joins, schema);
        bare.as_ref().is_some_and(|bare| {
            old.iter().chain(bare).all(|c| determined(c, &new))
                && new.iter().chain(bare).all(|c| determined(c, &old))
        })
    }

    /// The `GROUP BY` (its `group` token) of the block of token `i`, at its depth and before it.
    pub(super) fn group_by_before(&self, i: usize) -> Option<usize> {
        let d = *self.depth.get(i)?;
        let (from, _) = self.block(i);
        (from..i).rev().find(|&j| {
            self.depth[j] == d
                && self.toks[j].is_word("group")
                && self.toks.get(j + 1).is_some_and(|t| t.is_word("by"))
        })
    }

    /// The items of the comma list `from..to`, if every one is a qualified column `X . c`.
    fn plain_columns(&self, from: usize, to: usize) -> Option<Vec<Column>> {
        self.comma_items(from, to)
            .into_iter()
            .map(|(a, b)| self.qualified_column(a, b))
            .collect()
    }

    /// The tokens `a..b` as a qualified column `X . c`.
    pub(super) fn qualified_column(&self, a: usize, b: usize) -> Option<Column> {
        let word = |j: usize| {
            let t = self.toks.get(j)?;
            (t.kind == TokenKind::Word && !self.is_keyword(j))
                .then(|| unquote_ident(&t.text).to_lowercase())
        };
        let dot = self.toks.get(a + 1).is_some_and(|t| t.is_symbol("."));
        (b == a + 3 && dot).then_some(())?;
        Some((word(a)?, word(a + 2)?))
    }

    /// The equalities `X . a = Y . b` of the block of token `i`'s `WHERE` and `ON`
    /// conjunctions, as (`X`, `a`, `Y`, `b`); `None` where one of them has an `OR`.
    pub(super) fn key_equalities(
        &self,
        i: usize,
        schema: &Schema,
    ) -> Option<Vec<(Column, Column)>> {
        let mut out = Vec::new();
        for (a, b) in self.condition_bodies(i) {
            let predicates = self.predicates(a, b);
            if predicates
                .iter()
                .any(|&(_, _, c)| c.is_some_and(|c| !self.toks[c].is_word("and")))
            {
                return None;
            }
            for (p, q, _) in predicates {
                if q != p + 7 || !self.toks[p + 3].is_symbol("=") {
                    continue;
                }
                if let (Some(l), Some(r)) = (
                    self.qualified_column(p, p + 3),
                    self.qualified_column(p + 4, q),
                ) {
                    if schema.aliases.contains_key(&l.0) && schema.aliases.contains_key(&r.0) {
                        out.push((l, r));
                    }
                }
            }
        }
        Some(out)
    }

    /// The columns the select list of the block of token `i` reads outside aggregates, if
    /// each is a qualified column (`None` where one is not, or for a `*`).
    fn bare_select_columns(&self, i: usize) -> Option<Vec<Column>> {
        let (from, to) = self.block(i);
        let d = self.depth[i];
        let select = (from..to).find(|&j| self.depth[j] == d && self.toks[j].is_word("select"))?;
        let end = self.clause_end(select, CLAUSE_WORDS).min(to);
        let mut out = Vec::new();
        let mut j = select + 1;
        while j < end {
            let t = &self.toks[j];
            if t.is_symbol("*") {
                return None;
            }
            let aggregate = AGGREGATES.iter().any(|a| t.is_word(a))
                && self.toks.get(j + 1).is_some_and(|n| n.is_symbol("("));
            if aggregate {
                j = self.partner(j + 1)? + 1;
                continue;
            }
            let qualifier_or_call = self
                .toks
                .get(j + 1)
                .is_some_and(|n| n.is_symbol(".") || n.is_symbol("("));
            let alias = j >= 1 && self.toks[j - 1].is_word("as");
            if t.kind == TokenKind::Word && !self.is_keyword(j) && !qualifier_or_call && !alias {
                // A bare column must be qualified (`X . c`).
                let start = j.checked_sub(2)?;
                out.push(self.qualified_column(start, j + 1)?);
            }
            j += 1;
        }
        Some(out)
    }
}

/// `list` determines column `c` (module doc): through an item that identifies its table's rows,
/// from whose alias `c`'s alias is reached by `joins` to unique columns.
fn determines(list: &[Column], c: &Column, joins: &[(Column, Column)], schema: &Schema) -> bool {
    list.iter().any(|item| {
        let identifies = schema
            .aliases
            .get(&item.0)
            .is_some_and(|&k| schema.facts.identifies_rows(k, &item.1, schema.tables));
        item == c
            || (identifies
                && one_row_from(BTreeSet::from([item.0.clone()]), joins, schema).contains(&c.0))
    })
}

/// The aliases with at most one row per row of `from`'s: `from` itself, and those reached from
/// it by `joins` (`Y.u = X.v`) to a unique column `Y.u`.
pub(super) fn one_row_from(
    mut from: BTreeSet<String>,
    joins: &[(Column, Column)],
    schema: &Schema,
) -> BTreeSet<String> {
    let unique = |(alias, name): &Column| {
        schema
            .aliases
            .get(alias)
            .is_some_and(|&k| schema.facts.is_unique(k, name, schema.tables))
    };
    loop {
        let before = from.len();
        for (l, r) in joins {
            for (x, y) in [(l, r), (r, l)] {
                if from.contains(&x.0) && unique(y) {
                    from.insert(y.0.clone());
                }
            }
        }
        if from.len() == before {
            return from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{alike_on, keyed_by_first_columns, tables_of};

    /// `neighbor` answers as `gold` by the rules, over account, district and disp, each keyed by its first column.
    fn alike(gold: &str, neighbor: &str) -> bool {
        let tables = tables_of(&[
            ("account", &["account_id", "district_id", "frequency"]),
            ("district", &["district_id", "A2", "A11"]),
            ("disp", &["disp_id", "account_id", "type"]),
        ]);
        alike_on(&tables, &keyed_by_first_columns(&tables), gold, neighbor)
    }

    #[test]
    fn a_group_key_the_other_keys_determine_may_be_another_or_none() {
        // BIRD's item 472, shortened.
        let gold = "SELECT T1.account_id FROM account AS T1 INNER JOIN district AS T4 ON \
                    T4.district_id = T1.district_id GROUP BY T4.A11, T1.account_id";
        // An edit past the last token (a clause added at the end) is none of these.
        assert!(!alike(gold, &format!("{gold} LIMIT 1")));
        for n in [
            gold.replace("T4.A11,", "T4. A2 ,"),
            gold.replace("T4.A11,", "t1.frequency ,"),
            gold.replace("T4.A11, ", ""),
        ] {
            assert!(alike(gold, &n), "{n}");
        }
        // Without the key, or with another column for it: neighbors still.
        for n in [
            gold.replace("GROUP BY T4.A11, T1.account_id", "GROUP BY T4.A11"),
            gold.replace("T4.A11, T1.account_id", "T4.A11, T1. frequency"),
        ] {
            assert!(!alike(gold, &n), "{n}");
        }
        // A bare column of the select list neither list determines: SQLite takes it from
        // some row of the group.
        let bare = "SELECT T2.type FROM account AS T1 INNER JOIN disp AS T2 ON \
                    T2.account_id = T1.account_id GROUP BY T1.account_id, T1.frequency";
        assert!(!alike(bare, &bare.replace(", T1.frequency", "")));
        let keyed = bare.replace("T1.account_id, T1.frequency", "T2.disp_id, T1.frequency");
        assert!(alike(&keyed, &keyed.replace(", T1.frequency", "")));
        let many = "SELECT T1.account_id FROM account AS T1 INNER JOIN disp AS T2 ON \
                    T2.account_id = T1.account_id GROUP BY T1.frequency, T1.account_id";
        assert!(!alike(many, &many.replace("T1.frequency,", "T2. type ,")));
        assert!(alike(
            many,
            &many.replace("T1.frequency,", "T1. district_id ,")
        ));
        // An `OR` in the conditions, an outer join: no rule.
        let or = gold.replace(
            "T4.district_id = T1.district_id",
            "T4.district_id = T1.district_id OR T4.A2 = 'x'",
        );
        assert!(!alike(&or, &or.replace("T4.A11,", "T4. A2 ,")));
        let left = gold.replace("INNER JOIN", "LEFT JOIN");
        assert!(!alike(&left, &left.replace("T4.A11,", "T4. A2 ,")));
    }
}
