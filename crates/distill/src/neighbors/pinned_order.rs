//! An `ORDER BY` over a row the conditions pin ([`super::edit_alike`]): `… WHERE T2.district_id
//! = ( SELECT district_id … LIMIT 1 ) ORDER BY T2.A11 DESC LIMIT 1` (BIRD's item 471) sorts rows
//! that all join the one district the key equality names, so every row ties on `T2.A11`, and
//! the tie-aware comparison takes any of them as the gold's answer (`spec/exec.md`, §4b): an
//! edit of the `ORDER BY` to other columns of such rows, another direction, or no `ORDER BY`,
//! answers alike.
//!
//! An alias is pinned where the block's conjunction equates a column identifying its table's
//! rows (unique, never NULL) with a constant or a scalar subquery, and an alias reached from a
//! pinned one by equalities `Y.u = X.v` with `Y.u` unique is pinned too (its one row per row of
//! `X`). Only where every `ORDER BY` key of the gold and of the neighbor is a qualified column of
//! a pinned alias (with `ASC` or `DESC` or neither), the block does not group, its conditions
//! have no `OR`, and the query no outer join.

use std::collections::BTreeSet;

use super::edit_alike::{Edit, Schema};
use super::group_key::one_row_from;
use super::{Query, CLAUSE_WORDS};

impl Query<'_> {
    /// True if `edit`, which makes `neighbor`, changes only the `ORDER BY` of a block whose
    /// keys, before and after, are columns of pinned rows (module doc).
    pub(super) fn pinned_order_alike(
        &self,
        edit: &Edit,
        neighbor: &Query,
        schema: &Schema,
    ) -> bool {
        let Some(&d) = self.depth.get(edit.from) else {
            return false;
        };
        let (from, _) = self.block(edit.from);
        let Some(order) = (from..=edit.from).rev().find(|&j| {
            self.depth[j] == d
                && self.toks[j].is_word("order")
                && self.toks.get(j + 1).is_some_and(|t| t.is_word("by"))
        }) else {
            return false;
        };
        let end = self.before_semicolons(order, self.clause_end(order, CLAUSE_WORDS));
        if edit.to > end || self.outer_joins() || self.group_by_before(order).is_some() {
            return false;
        }
        let Some(pinned) = self.pinned_aliases(order, schema) else {
            return false;
        };
        let keys_pinned = |q: &Query, end: usize| {
            q.comma_items(order + 2, end).into_iter().all(|(a, b)| {
                let b = match b.checked_sub(1).map(|l| q.toks[l].lower()) {
                    Some(w) if w == "asc" || w == "desc" => b - 1,
                    _ => b,
                };
                q.qualified_column(a, b)
                    .is_some_and(|(alias, _)| pinned.contains(&alias))
            })
        };
        // The neighbor's `ORDER BY`, if it still has one there.
        let n_ordered = neighbor.toks.get(order).is_some_and(|t| t.is_word("order"))
            && neighbor
                .toks
                .get(order + 1)
                .is_some_and(|t| t.is_word("by"));
        let n_keys = !n_ordered || {
            let n_end = neighbor.before_semicolons(order, neighbor.clause_end(order, CLAUSE_WORDS));
            n_end > order + 2 && keys_pinned(neighbor, n_end)
        };
        end > order + 2 && keys_pinned(self, end) && n_keys
    }

    /// The pinned aliases of the block of token `i` (module doc); `None` where its conditions
    /// have an `OR`.
    fn pinned_aliases(&self, i: usize, schema: &Schema) -> Option<BTreeSet<String>> {
        let mut pinned = BTreeSet::new();
        for (a, b) in self.condition_bodies(i) {
            for (p, q, _) in self.predicates(a, b) {
                let Some((alias, column)) = self.qualified_column(p, p + 3) else {
                    continue;
                };
                if !self.toks.get(p + 3).is_some_and(|t| t.is_symbol("=")) {
                    continue;
                }
                let constant = q == p + 5 && self.is_literal(p + 4);
                let scalar = self.toks.get(p + 4).is_some_and(|t| t.is_symbol("("))
                    && self.toks.get(p + 5).is_some_and(|t| t.is_word("select"))
                    && self.partner(p + 4) == Some(q - 1);
                let identifies = schema
                    .aliases
                    .get(&alias)
                    .is_some_and(|&k| schema.facts.identifies_rows(k, &column, schema.tables));
                if (constant || scalar) && identifies {
                    pinned.insert(alias);
                }
            }
        }
        let joins = self.key_equalities(i, schema)?;
        let pinned = one_row_from(pinned, &joins, schema);
        Some(pinned)
    }

    /// Token `j` is a literal: a number or a string.
    fn is_literal(&self, j: usize) -> bool {
        use sqlsuite::sql_tokens::TokenKind;
        matches!(
            self.toks[j].kind,
            TokenKind::Int | TokenKind::Float | TokenKind::Str
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{alike_on, keyed_by_first_columns, tables_of};

    /// `neighbor` answers as `gold` by the rules, over account, district and client, each keyed by its first column.
    fn alike(gold: &str, neighbor: &str) -> bool {
        let tables = tables_of(&[
            ("account", &["account_id", "district_id"]),
            ("district", &["district_id", "A2", "A11"]),
            ("client", &["client_id", "gender", "birth_date"]),
        ]);
        alike_on(&tables, &keyed_by_first_columns(&tables), gold, neighbor)
    }

    #[test]
    fn an_order_by_over_a_pinned_row_orders_ties_only() {
        // BIRD's item 471, shortened: every row joins the one district the subquery names.
        let gold = "SELECT T1.account_id FROM account AS T1 INNER JOIN district AS T2 ON \
                    T1.district_id = T2.district_id WHERE T2.district_id = ( SELECT district_id \
                    FROM client WHERE gender = 'F' ORDER BY birth_date ASC LIMIT 1 ) \
                    ORDER BY T2.A11 DESC LIMIT 1";
        for n in [
            gold.replace("ORDER BY T2.A11 DESC", "ORDER BY T2. A2 DESC"),
            gold.replace("T2.A11 DESC", "T2.A11 ASC"),
            gold.replace("ORDER BY T2.A11 DESC ", ""),
        ] {
            assert!(alike(gold, &n), "{n}");
        }
        // A column of the rows that differ (each account its own), another LIMIT: neighbors.
        for n in [
            gold.replace("ORDER BY T2.A11 DESC", "ORDER BY T1. account_id DESC"),
            gold.replace("DESC LIMIT 1", "DESC LIMIT 2"),
        ] {
            assert!(!alike(gold, &n), "{n}");
        }
        // Pinned by a column that does not identify the district's rows: no rule.
        let loose = gold.replace("WHERE T2.district_id = (", "WHERE T2.A2 = (");
        assert!(!alike(
            &loose,
            &loose.replace("ORDER BY T2.A11 DESC", "ORDER BY T2. A2 DESC")
        ));
        // Pinned by a constant: the same.
        let constant = "SELECT T1.account_id FROM account AS T1 INNER JOIN district AS T2 ON \
                        T1.district_id = T2.district_id WHERE T2.district_id = 7 \
                        ORDER BY T2.A11 DESC LIMIT 1";
        assert!(alike(
            constant,
            &constant.replace("ORDER BY T2.A11 DESC", "ORDER BY T2. A2 DESC")
        ));
    }
}
