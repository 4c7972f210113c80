//! A derived table's `ORDER BY` that orders nothing the answer keeps ([`super::edit_alike`]):
//! `SELECT date FROM ( SELECT … ORDER BY t2.crossing DESC ) ORDER BY date DESC LIMIT 1`
//! (BIRD's item 159). The derived table keeps every row whatever its order (it has no `LIMIT`
//! or `OFFSET`), and the query around it either sorts the rows itself or has no order at all
//! (no `ORDER BY`, no `LIMIT`: the answer is compared as a bag). Rows the outer `ORDER BY`
//! leaves tied are compared as a bag too, and where the tie decides a superlative's `LIMIT`,
//! the gold's question has no natural answer there and the database is left out of its suite.
//! So an edit inside that `ORDER BY` (a key, its direction, or the whole clause dropped)
//! answers alike. Only for a derived table in the top-level block of a query that calls no
//! function whose value depends on the order of its rows (`GROUP_CONCAT`, a window).

use super::edit_alike::Edit;
use super::{Query, CLAUSE_WORDS};
use sqlsuite::sql_tokens::Token;

/// Words that make an answer depend on the order rows arrive in.
const ORDER_SENSITIVE: &[&str] = &["group_concat", "string_agg", "over", "row_number"];

impl Query<'_> {
    /// True if `edit` changes only the `ORDER BY` of a derived table whose order the answer
    /// cannot see (module doc).
    pub(super) fn inner_order_alike(&self, edit: &Edit) -> bool {
        let Some((order, end)) = self.derived_order_by_around(edit) else {
            return false;
        };
        let plain = edit.with.iter().all(|t| {
            !t.is_symbol("(")
                && !t.is_symbol(")")
                && !t.is_symbol(";")
                && !CLAUSE_WORDS.contains(&t.lower().as_str())
        });
        // The edit stays inside the clause: from its `ORDER` on, up to its end.
        let inside = order <= edit.from && edit.to <= end;
        plain && inside && !self.reads_order(edit)
    }

    /// The `ORDER BY` clause (its `ORDER` and its end) of a derived table in the top-level
    /// block that holds all of `edit`, where that derived table has no `LIMIT`/`OFFSET` and
    /// the top-level block sorts its rows or answers a bag.
    fn derived_order_by_around(&self, edit: &Edit) -> Option<(usize, usize)> {
        let (open, close) = self
            .derived_table_holding(edit)
            .filter(|&(open, _)| self.depth[open] == 0)?;
        let d = self.depth[open + 1];
        let at_depth =
            |w: &str| (open + 1..close).find(|&j| self.depth[j] == d && self.toks[j].is_word(w));
        let order = at_depth("order")?;
        if at_depth("limit").is_some() || at_depth("offset").is_some() {
            return None;
        }
        let end = self.clause_end(order, CLAUSE_WORDS).min(close);
        // The top-level block: an ORDER BY of its own, or neither ORDER BY nor LIMIT.
        let top = |w: &str| {
            (0..self.toks.len()).any(|j| self.depth[j] == 0 && j > close && self.toks[j].is_word(w))
        };
        let set_operation = (0..self.toks.len()).any(|j| {
            self.depth[j] == 0
                && ["union", "intersect", "except"]
                    .iter()
                    .any(|w| self.toks[j].is_word(w))
        });
        let sorted_or_bag = top("order") || !top("limit");
        (sorted_or_bag && !set_operation).then_some((order, end))
    }

    /// The query (outside the edit) calls something whose value depends on row order.
    fn reads_order(&self, edit: &Edit) -> bool {
        let sensitive = |t: &Token| ORDER_SENSITIVE.contains(&t.lower().as_str());
        self.toks.iter().any(sensitive) || edit.with.iter().any(sensitive)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{gen, generated};

    #[test]
    fn an_order_by_inside_a_derived_table_the_outer_query_sorts_again_is_no_neighbor() {
        let gold = "SELECT Name FROM ( SELECT T1.Age, T1.Name FROM singer AS T1 WHERE T1.Country = 'x' ORDER BY T1.Age DESC ) ORDER BY Name LIMIT 1";
        let ns = gen(gold);
        for n in [
            gold.replace("ORDER BY T1.Age DESC", "ORDER BY T1. Country DESC"),
            gold.replace("T1.Age DESC", "T1.Age ASC"),
            gold.replace(" ORDER BY T1.Age DESC", ""),
        ] {
            assert!(!generated(&ns, &n), "{n}");
        }
        // The outer ORDER BY is still a neighbor's to change.
        assert!(generated(
            &ns,
            &gold.replace("ORDER BY Name", "ORDER BY Name DESC")
        ));
        // A LIMIT inside keeps the rows the order picks; an outer LIMIT without an ORDER BY
        // takes the first rows in the inner order; GROUP_CONCAT reads them in order.
        let kept = [
            gold.replace("DESC )", "DESC LIMIT 3 )"),
            gold.replace(") ORDER BY Name LIMIT 1", ") LIMIT 1"),
            gold.replace("SELECT Name FROM", "SELECT GROUP_CONCAT(Name) FROM")
                .replace(" ORDER BY Name LIMIT 1", ""),
        ];
        for g in kept {
            let n = g.replace("T1.Age DESC", "T1.Age ASC");
            assert!(generated(&gen(&g), &n), "{n}");
        }
        // No outer order and no LIMIT: the answer is a bag, whatever the inner order.
        let bag = gold.replace(" ORDER BY Name LIMIT 1", "");
        assert!(!generated(
            &gen(&bag),
            &bag.replace("T1.Age DESC", "T1.Age ASC")
        ));
    }
}
