//! A comparison with the column's own extremum over rows that include the row compared:
//! `A.x = ( SELECT max( B.x ) FROM T AS B … WHERE … )`, where every alias of the subquery
//! stands for an alias of the outer block over the same table and every condition of the
//! subquery, so renamed, is a conjunct of the outer block. Each outer row that passes the
//! other conjuncts is then one of the rows the subquery ranges over, so its `x` is never above
//! the maximum (never below the minimum): `=` and `>=` (`<=` for min) mean the same there,
//! and such an edit is no neighbor.

use std::collections::{BTreeSet, HashMap};

use super::from_clause::FromList;
use super::{Query, CLAUSE_WORDS};
use crate::sql_tokens::TokenKind;

impl Query<'_> {
    /// For comparison `i` of the form `col op ( SELECT min( col ) FROM … )` (or `max`) where
    /// the outer row compared is always among the subquery's rows (module doc): which extremum.
    pub(super) fn compared_with_own_extremum(&self, i: usize) -> Option<&'static str> {
        let t = |k: usize| self.toks.get(k);
        // The outer column: `x` or `A . x`.
        let column = i.checked_sub(1)?;
        let (outer_name, lhs_start) = if i >= 3 && t(i - 2)?.is_symbol(".") {
            (Some(t(i - 3)?.lower()), i - 3)
        } else {
            (None, column)
        };
        if t(column)?.kind != TokenKind::Word || self.is_keyword(column) {
            return None;
        }
        // The subquery: `( SELECT max ( [B .] x ) FROM … [WHERE …] )`.
        let open = i + 1;
        let close = t(open)?.is_symbol("(").then(|| self.partner(open))??;
        let extremum = match t(i + 3)?.lower().as_str() {
            "min" => "min",
            "max" => "max",
            _ => return None,
        };
        if !t(i + 2)?.is_word("select") || !t(i + 4)?.is_symbol("(") {
            return None;
        }
        let arg_close = self.partner(i + 4)?;
        let (inner_name, arg) = match arg_close - (i + 4) {
            2 => (None, i + 5),
            4 if t(i + 6)?.is_symbol(".") => (Some(t(i + 5)?.lower()), i + 7),
            _ => return None,
        };
        if !t(arg)?.text.eq_ignore_ascii_case(&t(column)?.text)
            || !t(arg_close + 1)?.is_word("from")
        {
            return None;
        }
        let inner_from_end = self.clause_end(arg_close + 1, CLAUSE_WORDS);
        let inner = self.tables_read(arg_close + 2, inner_from_end)?;
        let mut inner_conjuncts = inner.on.clone();
        if inner_from_end != close {
            if !t(inner_from_end)?.is_word("where") {
                return None;
            }
            let end = self.clause_end(inner_from_end, CLAUSE_WORDS);
            inner_conjuncts.extend(self.conjuncts(inner_from_end + 1, end)?);
            if end != close {
                return None;
            }
        }
        // The outer block: the comparison is one of its WHERE's conjuncts.
        let where_at = self
            .clause_of(lhs_start)
            .filter(|&w| self.toks[w].is_word("where"))?;
        let where_end = self.clause_end(where_at, CLAUSE_WORDS);
        let outer_where = self.conjuncts(where_at + 1, where_end)?;
        if !outer_where.contains(&(lhs_start, close + 1)) {
            return None;
        }
        let from_at = self.clause_of_block(i, "from")?;
        let outer = self.tables_read(from_at + 1, where_at)?;
        // The aggregated alias stands for the compared one, over the same table.
        let outer_name = outer_name.or_else(|| outer.only().map(str::to_string))?;
        let inner_name = inner_name.or_else(|| inner.only().map(str::to_string))?;
        if outer.table_of(&outer_name)? != inner.table_of(&inner_name)? {
            return None;
        }
        let single = inner.items.len() == 1 && outer.items.len() == 1;
        let outer_texts: BTreeSet<String> = outer_where
            .iter()
            .chain(&outer.on)
            .filter(|&&r| r != (lhs_start, close + 1))
            .flat_map(|&r| self.spellings(r, &HashMap::new()))
            .collect();
        let mut rename: HashMap<String, String> = HashMap::new();
        rename.insert(inner_name.clone(), outer_name);
        let holds = |rename: &HashMap<String, String>| {
            inner_conjuncts.iter().all(|&r| {
                (single || self.all_qualified(r))
                    && self
                        .spellings(r, rename)
                        .iter()
                        .any(|s| outer_texts.contains(s))
            })
        };
        let others: Vec<&(String, String)> = inner
            .items
            .iter()
            .filter(|(_, n)| *n != inner_name)
            .collect();
        self.assign(&others, &outer, &mut rename, &holds)
            .then_some(extremum)
    }

    /// Tries every way to stand each of `others` (inner items) for an outer item over the
    /// same table; true if one makes `holds` true.
    fn assign(
        &self,
        others: &[&(String, String)],
        outer: &FromList,
        rename: &mut HashMap<String, String>,
        holds: &dyn Fn(&HashMap<String, String>) -> bool,
    ) -> bool {
        let Some(((table, name), rest)) = others.split_first() else {
            return holds(rename);
        };
        for (outer_table, outer_name) in &outer.items {
            if outer_table == table {
                rename.insert(name.clone(), outer_name.clone());
                if self.assign(rest, outer, rename, holds) {
                    return true;
                }
            }
        }
        rename.remove(name);
        false
    }

    /// Every column of the condition `r` is qualified (`T . x`): its meaning does not hang on
    /// which block's tables it is read against.
    fn all_qualified(&self, (from, to): (usize, usize)) -> bool {
        (from..to).all(|k| {
            let t = &self.toks[k];
            t.kind != TokenKind::Word
                || self.is_keyword(k)
                || self
                    .toks
                    .get(k + 1)
                    .is_some_and(|n| n.is_symbol(".") || n.is_symbol("("))
                || (k > from && self.toks[k - 1].is_symbol("."))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{gen, has};
    use super::super::NeighborKind;

    /// `>=` for `=` is no neighbor exactly where the rule above holds.
    fn loosened(gold: &str) -> bool {
        let ns = gen(gold);
        let edited = gold.replacen("= ( SELECT", ">= ( SELECT", 1);
        has(&ns, NeighborKind::Comparison, &edited)
    }

    #[test]
    fn a_comparison_with_the_columns_own_extremum_over_the_same_rows_is_no_neighbor() {
        // Aliases of one table, no WHERE in the subquery (geography).
        let same = [
            "SELECT T1.name FROM singer AS T1 WHERE T1.age = ( SELECT MAX( T2.age ) FROM singer AS T2 ) ;",
            "SELECT name FROM singer WHERE age = ( SELECT MAX( age ) FROM singer ) ;",
            // The subquery's conditions, renamed, are the outer block's (restaurants).
            "SELECT T1.name FROM singer AS T1 , concert AS T3 WHERE T1.country = \"France\" AND T1.singer_id = T3.singer_id AND T1.age = ( SELECT MAX( T2.age ) FROM singer AS T2 , concert AS T4 WHERE T4.singer_id = T2.singer_id AND T2.country = \"France\" ) ;",
            // The outer block may join more tables and filter more.
            "SELECT T1.name FROM singer AS T1 JOIN concert AS T3 ON T1.singer_id = T3.singer_id WHERE T3.year = 2014 AND T1.age = ( SELECT MAX( T2.age ) FROM singer AS T2 ) ;",
        ];
        for gold in same {
            assert!(!loosened(gold), "{gold}");
        }
        // Each a real neighbor: a condition of the subquery the outer row need not meet, a
        // disjunction, another table's column of the same name, a correlated subquery whose
        // renamed condition is not the outer block's.
        let differ = [
            "SELECT T1.name FROM singer AS T1 WHERE T1.age = ( SELECT MAX( T2.age ) FROM singer AS T2 WHERE T2.country = \"France\" ) ;",
            "SELECT T1.name FROM singer AS T1 WHERE T1.country = \"Spain\" AND T1.age = ( SELECT MAX( T2.age ) FROM singer AS T2 WHERE T2.country = \"France\" ) ;",
            "SELECT T1.name FROM singer AS T1 WHERE T1.country = \"France\" OR T1.age = ( SELECT MAX( T2.age ) FROM singer AS T2 WHERE T2.country = \"France\" ) ;",
            "SELECT T1.name FROM concert AS T1 WHERE T1.year = ( SELECT MAX( year ) FROM singer ) ;",
            "SELECT T1.name FROM singer AS T1 WHERE T1.age = ( SELECT MAX( T2.age ) FROM singer AS T2 WHERE T2.country = T1.country AND T2.year > 2000 ) ;",
            "SELECT T1.name FROM singer AS T1 LEFT JOIN concert AS T3 ON T1.singer_id = T3.singer_id WHERE T1.age = ( SELECT MAX( T2.age ) FROM singer AS T2 , concert AS T4 WHERE T4.singer_id = T2.singer_id ) ;",
        ];
        for gold in differ {
            assert!(loosened(gold), "{gold}");
        }
    }
}
