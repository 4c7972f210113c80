//! Rewrites of the gold that answer as it does on every database within the constraints: a
//! generated edit that comes to one of them is no neighbor, whichever edit made it.
//!
//! - **A conjunct written twice** (`X = Y AND … AND X = Y`, or with the sides swapped): the
//!   gold without one copy, and with `=` → `<=`, `>=` in one copy. The other copy still holds.
//! - **A join to an enforced reference's parent that nothing else reads**
//!   (`P.k = C.f` where `C.f` references `P.k`, is never NULL and `P` appears nowhere else), in
//!   a block that does not count duplicates, in `WHERE` or as a join's whole `ON` (BIRD's item
//!   20): the gold without the conjunct (or the `ON`), and with `=` → `<=`, `>=`. Each row of the other tables has exactly one parent, and with the condition
//!   dropped or loosened still at least one, so only how often a row repeats changes.
//! - **Rows that are all alike** ([`Query::rows_alike`]): every selected column is pinned to
//!   one string by a conjunct, so every row of the answer is the same and its ORDER BY orders
//!   nothing. [`Query::without_order_by`] compares such edits.
//! - **An ORDER BY that repeats the GROUP BY keys, ascending** ([`Query::orders_as_it_groups`]):
//!   on SQLite, which returns groups in ascending key order, the gold without its ORDER BY.
//! - **`x IS NOT NULL` written `x NOT NULL`**: SQLite's postfix form of the same test, where
//!   the test is a whole predicate on a column.
//! - **An answer that is its column's extremum alone** ([`Query::extremum_answers_alone`]):
//!   `SELECT DISTINCT A.x … WHERE … AND A.x = ( SELECT max( B.x ) … )` with the subquery over
//!   exactly the outer rows; loosening another outer conjunct keeps the answer.
//! - **A condition stated twice, once in a `min`/`max` subquery** ([`Query::restated_loosenings`]):
//!   a group of the subquery's conjuncts over aliases of its own is, renamed, conjuncts of the
//!   outer block; loosening one copy keeps the answer (the outer one only where its aliases
//!   are read nowhere else and the block selects `DISTINCT`).

use std::collections::{BTreeSet, HashMap};

use super::{
    normalize, unquote_ident, ColumnFacts, Query, TableColumns, AGGREGATES, CLAUSE_WORDS, ON_ENDS,
};
use sqlsuite::sql_tokens::{splice, TokenKind};

impl Query<'_> {
    /// The normalized texts of the rewrites in the module doc (conjuncts written twice, idle
    /// reference joins, an ORDER BY that repeats the grouping, loosenings beside an extremum
    /// that is the whole answer or of a condition stated twice, `IS NOT NULL` written
    /// `NOT NULL`).
    pub(super) fn equivalents(
        &self,
        tables: &TableColumns,
        facts: &ColumnFacts,
        aliases: &HashMap<String, usize>,
    ) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let clauses = (0..self.toks.len()).filter(|&c| {
            ["where", "having", "on"]
                .iter()
                .any(|w| self.toks[c].is_word(w))
        });
        for clause in clauses {
            let end = if self.toks[clause].is_word("on") {
                self.clause_end(clause, ON_ENDS)
            } else {
                self.clause_end(clause, CLAUSE_WORDS)
            };
            let Some(all) = self.conjuncts(clause + 1, end) else {
                continue;
            };
            for &conjunct in &all {
                let idle_join = !self.toks[clause].is_word("having")
                    && self.idle_reference_join(conjunct, tables, facts, aliases);
                if !idle_join && !self.repeated_conjunct(conjunct, clause + 1, end) {
                    continue;
                }
                out.insert(self.without_conjunct(conjunct, all.len(), clause, end));
                if let Some(eq) = self.only_equality(conjunct) {
                    for op in ["<=", ">="] {
                        let t = &self.toks[eq];
                        out.insert(normalize(&splice(self.sql, t.start, t.end, op)));
                    }
                }
            }
        }
        if self.orders_as_it_groups() {
            out.insert(self.without_order_by());
        }
        out.extend(self.extremum_answers_alone());
        out.extend(self.restated_loosenings());
        out.extend(self.postfix_not_null());
        out
    }

    /// `x IS NOT NULL` written `x NOT NULL` (SQLite's postfix form of the same test), where
    /// the test is a whole predicate on a column (`[A .] x`, between `WHERE`/`AND`/`OR`/`(`/`ON`
    /// /`HAVING` and `AND`/`OR`/`)`/a clause/the end), so no operator's precedence comes into it.
    fn postfix_not_null(&self) -> Vec<String> {
        let word = |k: usize, ws: &[&str]| {
            self.toks
                .get(k)
                .is_some_and(|t| ws.iter().any(|w| t.is_word(w)))
        };
        let mut out = Vec::new();
        for i in 1..self.toks.len() {
            if !self.toks[i].is_word("is") || !word(i + 1, &["not"]) || !word(i + 2, &["null"]) {
                continue;
            }
            let column = |k: usize| self.toks[k].kind == TokenKind::Word && !self.is_keyword(k);
            if !column(i - 1) {
                continue;
            }
            let qualified = i >= 3 && self.toks[i - 2].is_symbol(".") && column(i - 3);
            let start = if qualified { i - 3 } else { i - 1 };
            let before = start.checked_sub(1).is_some_and(|k| {
                self.toks[k].is_symbol("(") || word(k, &["where", "and", "or", "on", "having"])
            });
            let after = match self.toks.get(i + 3) {
                None => true,
                Some(t) => {
                    t.is_symbol(")")
                        || t.is_symbol(";")
                        || word(i + 3, &["and", "or"])
                        || CLAUSE_WORDS.contains(&t.lower().as_str())
                }
            };
            if before && after {
                out.push(normalize(&splice(
                    self.sql,
                    self.toks[i].start,
                    self.toks[i + 1].start,
                    "",
                )));
            }
        }
        out
    }

    /// True if the query is one block whose ORDER BY lists its GROUP BY keys, in their order,
    /// ascending: SQLite returns groups in ascending key order, so the ORDER BY reorders
    /// nothing there and the query without it answers alike, row order included.
    pub(super) fn orders_as_it_groups(&self) -> bool {
        let top = |w: &str| {
            (0..self.toks.len())
                .filter(|&k| self.depth[k] == 0 && self.toks[k].is_word(w))
                .count()
        };
        if top("select") != 1 || ["union", "intersect", "except"].iter().any(|w| top(w) > 0) {
            return false;
        }
        let Some(order) = self.top_order_by() else {
            return false;
        };
        let Some(keys) = self.group_keys(order) else {
            return false;
        };
        let end = self.before_semicolons(order, self.clause_end(order, CLAUSE_WORDS));
        let items: Vec<String> = self
            .comma_items(order + 2, end)
            .into_iter()
            .map(|(a, b)| {
                let b = if b > a + 1 && self.toks[b - 1].is_word("asc") {
                    b - 1
                } else {
                    b
                };
                self.text_of((a, b))
            })
            .collect();
        items == keys
    }

    /// The gold without conjunct `(a, b)` of the condition `clause..end` (of `count`
    /// conjuncts) and the `AND` beside it; without the clause if it is the only one.
    fn without_conjunct(
        &self,
        (a, b): (usize, usize),
        count: usize,
        clause: usize,
        end: usize,
    ) -> String {
        let (from, to) = if count == 1 {
            (clause, self.before_semicolons(clause, end))
        } else if self.toks.get(b).is_some_and(|t| t.is_word("and")) {
            (a, b + 1)
        } else {
            (a - 1, b)
        };
        normalize(&splice(
            self.sql,
            self.byte_start(from),
            self.byte_end(to - 1),
            "",
        ))
    }

    /// The `=` of conjunct `(a, b)` if it is the conjunct's only comparison at its level.
    pub(super) fn only_equality(&self, (a, b): (usize, usize)) -> Option<usize> {
        let d = self.depth[a];
        let mut comparisons = (a..b).filter(|&k| self.depth[k] == d && self.is_comparison(k));
        let only = comparisons.next()?;
        (comparisons.next().is_none() && matches!(self.toks[only].text.as_str(), "=" | "=="))
            .then_some(only)
    }

    /// True if conjunct `r` of a one-block query is `P.k = C.f` (either way round) where
    /// `C.f` references `P.k` (enforced), is never NULL, `P` is read nowhere else, and the
    /// block does not count duplicates ([`Query::ignores_duplicates`]).
    fn idle_reference_join(
        &self,
        (a, b): (usize, usize),
        tables: &TableColumns,
        facts: &ColumnFacts,
        aliases: &HashMap<String, usize>,
    ) -> bool {
        let one_block = self.toks.iter().filter(|t| t.is_word("select")).count() == 1;
        if !one_block || !self.ignores_duplicates(a) {
            return false;
        }
        let Some(list) = self.block_from(a) else {
            return false;
        };
        let Some((left, right)) = self.column_equality((a, b)) else {
            return false;
        };
        let column = |(name, column): (String, String)| -> Option<(String, usize, String)> {
            list.table_of(&name)?;
            let t = *aliases.get(&name)?;
            Some((name, t, column))
        };
        let (Some(left), Some(right)) = (column(left), column(right)) else {
            return false;
        };
        let idle = |(parent, pt, pc): &(String, usize, String),
                    (child, ct, cc): &(String, usize, String)| {
            parent != child
                && facts.references((*ct, cc), (*pt, pc), tables)
                && facts.is_not_null(*ct, cc, tables)
                && list.items.iter().filter(|(_, n)| n == parent).count() == 1
                && self.reads_only_in(parent, (a, b), tables[*pt].1.as_slice())
        };
        idle(&left, &right) || idle(&right, &left)
    }

    /// True if the FROM item `name` (over a table with `columns`) is read by no token outside
    /// `(a, b)` and its FROM entry: no `name.` qualifier, no unqualified column of its table,
    /// no `*` outside `count( * )`.
    fn reads_only_in(&self, name: &str, (a, b): (usize, usize), columns: &[String]) -> bool {
        (0..self.toks.len())
            .filter(|k| !(a..b).contains(k))
            .all(|k| {
                let t = &self.toks[k];
                let prev = |w: &str| k > 0 && self.toks[k - 1].is_symbol(w);
                let next = |w: &str| self.toks.get(k + 1).is_some_and(|n| n.is_symbol(w));
                if t.is_symbol("*") {
                    return prev("(") && k >= 2 && self.toks[k - 2].is_word("count");
                }
                if t.kind != TokenKind::Word || self.is_keyword(k) || next("(") {
                    return true;
                }
                if next(".") {
                    return t.lower() != name;
                }
                prev(".")
                    || !columns
                        .iter()
                        .any(|c| c.eq_ignore_ascii_case(unquote_ident(&t.text)))
            })
    }

    /// True if the block of token `i` answers the same whatever the multiplicity of its rows:
    /// every aggregate call is `min`/`max` or takes `DISTINCT`, and the block selects
    /// `DISTINCT`, groups, or aggregates without grouping (one row).
    fn ignores_duplicates(&self, i: usize) -> bool {
        let (from, to) = self.block(i);
        let calls: Vec<usize> = (from..to)
            .filter(|&j| {
                AGGREGATES.contains(&self.toks[j].lower().as_str())
                    && self.toks.get(j + 1).is_some_and(|t| t.is_symbol("("))
            })
            .collect();
        let insensitive = calls.iter().all(|&j| {
            matches!(self.toks[j].lower().as_str(), "min" | "max")
                || self.toks.get(j + 2).is_some_and(|t| t.is_word("distinct"))
        });
        let distinct = self
            .clause_of_block(i, "select")
            .is_some_and(|s| self.toks.get(s + 1).is_some_and(|t| t.is_word("distinct")));
        insensitive && (distinct || self.group_keys(i).is_some() || !calls.is_empty())
    }

    /// True if every row of the answer is the same: a one-block query that neither groups nor
    /// aggregates, whose WHERE is a conjunction in which every selected column is equated
    /// with a string constant (`T.name = "x"`).
    pub(super) fn rows_alike(&self) -> bool {
        let selects: Vec<usize> = (0..self.toks.len())
            .filter(|&k| self.toks[k].is_word("select"))
            .collect();
        let &[select] = selects.as_slice() else {
            return false;
        };
        if self.group_keys(select).is_some() || self.aggregates(select) {
            return false;
        }
        let Some(clause) = self.clause_of_block(select, "where") else {
            return false;
        };
        let end = self.clause_end(clause, CLAUSE_WORDS);
        let Some(all) = self.conjuncts(clause + 1, end) else {
            return false;
        };
        let pinned: Vec<String> = all
            .iter()
            .filter_map(|&(a, b)| {
                let eq = self.only_equality((a, b))?;
                let string = |k: usize| self.toks[k].kind == TokenKind::Str;
                if eq + 2 == b && string(b - 1) {
                    Some(self.text_of((a, eq)))
                } else if eq == a + 1 && string(a) {
                    Some(self.text_of((eq + 1, b)))
                } else {
                    None
                }
            })
            .collect();
        let items = self.select_items(select);
        !items.is_empty() && items.iter().all(|item| pinned.contains(item))
    }

    /// The query without its ORDER BY clause (the one of its outermost block), normalized.
    pub(super) fn without_order_by(&self) -> String {
        match self.top_order_by() {
            Some(k) => {
                let end = self.before_semicolons(k, self.clause_end(k, CLAUSE_WORDS));
                normalize(&splice(
                    self.sql,
                    self.byte_start(k),
                    self.byte_end(end - 1),
                    "",
                ))
            }
            None => normalize(self.sql),
        }
    }

    /// The `ORDER` of the outermost block's `ORDER BY`, if it has one.
    fn top_order_by(&self) -> Option<usize> {
        (0..self.toks.len()).find(|&k| {
            self.depth[k] == 0
                && self.toks[k].is_word("order")
                && self.toks.get(k + 1).is_some_and(|t| t.is_word("by"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{gen, generated, tables};
    use super::super::{neighbors, ColumnFacts, Neighbor};

    /// singer(Singer_ID, Name, Age, Country), concert(concert_ID, Singer_ID, Year):
    /// `concert.Singer_ID` references `singer.Singer_ID` (enforced) and is never NULL, unless
    /// `nullable`.
    fn referencing_facts(nullable: bool) -> ColumnFacts {
        ColumnFacts {
            not_null: vec![vec![true, true, true, false], vec![true, !nullable, true]],
            unique: vec![vec![true, false, false, false], vec![true, false, false]],
            numeric: Vec::new(),
            numbers: Vec::new(),
            references: vec![((1, 1), (0, 0))],
            formats: Vec::new(),
            text_bounds: Vec::new(),
            layouts: Vec::new(),
            gold_texts: Vec::new(),
        }
    }

    fn gen_with(sql: &str, facts: &ColumnFacts) -> Vec<Neighbor> {
        neighbors(sql, &tables(), facts, &mut fastrand::Rng::with_seed(7))
    }

    /// The gold's join condition dropped, and loosened to `<=` and `>=`.
    fn join_edits(gold: &str, join: &str) -> Vec<String> {
        let dropped = gold
            .replace(&format!("{join} AND "), "")
            .replace(&format!(" AND {join}"), "");
        let mut out = vec![dropped];
        for op in ["<=", ">="] {
            out.push(gold.replace(join, &join.replace(" = ", &format!(" {op} "))));
        }
        out
    }

    #[test]
    fn a_join_whose_whole_on_reaches_a_referenced_row_nothing_else_reads_is_idle() {
        let facts = referencing_facts(false);
        // BIRD's item 20: a DISTINCT answer over a join whose ON is the reference alone.
        let gold = "SELECT DISTINCT T2.Year FROM concert AS T2 INNER JOIN singer AS T1 ON T1.Singer_ID = T2.Singer_ID WHERE T2.Year > 2000";
        let ns = gen_with(gold, &facts);
        let join = "T1.Singer_ID = T2.Singer_ID";
        let mut idle = vec![gold.replace(&format!(" ON {join}"), "")];
        for op in ["<=", ">="] {
            idle.push(gold.replace(join, &join.replace(" = ", &format!(" {op} "))));
        }
        for edit in idle {
            assert!(!generated(&ns, &edit), "kept {edit}");
        }
        // Duplicates counted, or a NULL-able reference: neighbors.
        let counted = gold.replace("SELECT DISTINCT T2.Year", "SELECT T2.Year");
        assert!(generated(
            &gen_with(&counted, &facts),
            &counted.replace(&format!(" ON {join}"), "")
        ));
        let nullable = gen_with(gold, &referencing_facts(true));
        assert!(generated(
            &nullable,
            &gold.replace(&format!(" ON {join}"), "")
        ));
    }

    #[test]
    fn a_join_to_a_referenced_row_nothing_else_reads_is_idle_where_duplicates_do_not_count() {
        let join = "T1.Singer_ID = T2.Singer_ID";
        let facts = referencing_facts(false);
        let idle = [
            // IMDB's golds 2664 (a distinct count) and 2679 (a grouping ranked by one).
            "SELECT COUNT( DISTINCT T2.Year ) FROM singer AS T1 , concert AS T2 WHERE T1.Singer_ID = T2.Singer_ID AND T2.Year > 2000 ;",
            "SELECT T2.Year FROM singer AS T1 , concert AS T2 WHERE T2.Year > 2000 AND T1.Singer_ID = T2.Singer_ID GROUP BY T2.Year ORDER BY COUNT( DISTINCT T2.concert_ID ) DESC LIMIT 1",
            "SELECT DISTINCT T2.Year FROM singer AS T1 , concert AS T2 WHERE T1.Singer_ID = T2.Singer_ID AND T2.Year > 2000",
            "SELECT max( T2.Year ) FROM singer AS T1 , concert AS T2 WHERE T1.Singer_ID = T2.Singer_ID AND T2.Year > 2000",
        ];
        for gold in idle {
            let ns = gen_with(gold, &facts);
            for edit in join_edits(gold, join) {
                assert!(!generated(&ns, &edit), "{gold}\n  kept {edit}");
            }
            // `<` and `!=` can leave a row without its parent: real neighbors.
            let stricter = gold.replace(join, &join.replace(" = ", " < "));
            assert!(generated(&ns, &stricter), "{gold}\n  lost {stricter}");
        }
        // The join the last conjunct before the closing `;` (IMDB's gold 2664): dropping it
        // drops the `;` too, the same query.
        let last = "SELECT COUNT( DISTINCT T2.Year ) FROM singer AS T1 , concert AS T2 WHERE T2.Year > 2000 AND T1.Singer_ID = T2.Singer_ID ;";
        let bare = |sql: &str| {
            sql.trim_end()
                .trim_end_matches(';')
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase()
        };
        let dropped = bare("SELECT COUNT( DISTINCT T2.Year ) FROM singer AS T1 , concert AS T2 WHERE T2.Year > 2000");
        assert!(
            !gen_with(last, &facts)
                .iter()
                .any(|n| bare(&n.sql) == dropped),
            "{last}\n  kept the join dropped with its `;`"
        );
        // The sides swapped, and the join the only condition (dropping it drops the WHERE).
        let swapped = "SELECT DISTINCT T2.Year FROM singer AS T1 , concert AS T2 WHERE T2.Singer_ID = T1.Singer_ID";
        let ns = gen_with(swapped, &facts);
        assert!(!generated(
            &ns,
            "SELECT DISTINCT T2.Year FROM singer AS T1 , concert AS T2"
        ));
        assert!(!generated(&ns, &swapped.replace(" = ", " >= ")));

        let keep = |gold: &str, facts: &ColumnFacts, why: &str| {
            let ns = gen_with(gold, facts);
            for edit in join_edits(gold, join) {
                assert!(generated(&ns, &edit), "{why}: {gold}\n  lost {edit}");
            }
        };
        let distinct = idle[2];
        keep(
            distinct,
            &referencing_facts(true),
            "a NULL reference joins no row",
        );
        keep(distinct, &ColumnFacts::default(), "no reference");
        keep(
            &distinct.replace("T2.Year > 2000", "T1.Age > 30"),
            &facts,
            "the parent is read",
        );
        keep(
            &distinct.replace("T2.Year > 2000", "Age > 30"),
            &facts,
            "the parent's column unqualified",
        );
        keep(
            &distinct.replace("DISTINCT T2.Year", "DISTINCT T2.Year , T1.Name"),
            &facts,
            "the parent is selected",
        );
        keep(
            &distinct.replace("SELECT DISTINCT", "SELECT"),
            &facts,
            "duplicates count",
        );
        keep(
            &idle[0].replace("DISTINCT T2.Year", "T2.Year"),
            &facts,
            "a count of rows",
        );
        keep(
            &idle[1].replace("COUNT( DISTINCT T2.concert_ID )", "COUNT( * )"),
            &facts,
            "a count of rows per group",
        );
        let other_way = "SELECT DISTINCT T1.Name FROM singer AS T1 , concert AS T2 WHERE T1.Singer_ID = T2.Singer_ID AND T1.Age > 30";
        keep(
            other_way,
            &facts,
            "the child is the table read nowhere else",
        );
    }

    #[test]
    fn an_order_by_that_repeats_the_grouping_keys_ascending_is_no_neighbor_dropped() {
        // Scholar's golds 3324 and 3355: `GROUP BY PAPERalias0.YEAR ORDER BY
        // PAPERalias0.YEAR [ASC]`; SQLite returns the groups in that order anyway.
        for gold in [
            "SELECT T2.Year , COUNT( * ) FROM concert AS T2 GROUP BY T2.Year ORDER BY T2.Year ;",
            "SELECT DISTINCT T2.Year FROM concert AS T2 GROUP BY T2.Year ORDER BY T2.Year ASC ;",
            "SELECT T2.Year , T2.Singer_ID , COUNT( * ) FROM concert AS T2 GROUP BY T2.Year , T2.Singer_ID ORDER BY T2.Year , T2.Singer_ID ASC ;",
        ] {
            let ns = gen(gold);
            let order = gold.find(" ORDER BY").unwrap();
            let dropped = format!("{} ;", &gold[..order]);
            assert!(!generated(&ns, &dropped), "{gold}\n  kept {dropped}");
        }
        // Another direction, another key, the keys in another order, or a compound query:
        // the ORDER BY orders something, and dropping it stays a neighbor.
        for gold in [
            "SELECT T2.Year , COUNT( * ) FROM concert AS T2 GROUP BY T2.Year ORDER BY T2.Year DESC ;",
            "SELECT T2.Year , COUNT( * ) FROM concert AS T2 GROUP BY T2.Year ORDER BY COUNT( * ) ;",
            "SELECT T2.Year , T2.Singer_ID , COUNT( * ) FROM concert AS T2 GROUP BY T2.Year , T2.Singer_ID ORDER BY T2.Singer_ID , T2.Year ;",
            "SELECT Age FROM singer UNION SELECT T2.Year FROM concert AS T2 GROUP BY T2.Year ORDER BY T2.Year ;",
        ] {
            let ns = gen(gold);
            let order = gold.find(" ORDER BY").unwrap();
            let dropped = format!("{} ;", &gold[..order]);
            assert!(generated(&ns, &dropped), "{gold}\n  lost {dropped}");
        }
    }

    #[test]
    fn where_every_row_is_alike_the_order_by_is_no_neighbor() {
        // IMDB's gold 2687: the name the gold filters by, from the latest movie.
        let gold = r#"SELECT T1.Name FROM singer AS T1 , concert AS T2 WHERE T1.Name = "Joe" AND T1.Singer_ID = T2.Singer_ID ORDER BY T2.Year DESC LIMIT 1 ;"#;
        let ns = gen(gold);
        for same in [
            gold.replace("T2.Year DESC", "T2.Year ASC"),
            gold.replace("T2.Year DESC", "T2.concert_ID DESC"),
            gold.replace("T2.Year DESC", "T2.Year"),
            gold.replace("ORDER BY T2.Year DESC ", ""),
        ] {
            assert!(!generated(&ns, &same), "{same}");
        }
        // Its other edits stay: the limit, the join, the constant.
        for other in [
            gold.replace("LIMIT 1", "LIMIT 2"),
            gold.replace(
                "T1.Singer_ID = T2.Singer_ID",
                "T1.Singer_ID <= T2.Singer_ID",
            ),
            gold.replace(r#"T1.Name = "Joe""#, r#"T1.Name LIKE "%Joe%""#),
        ] {
            assert!(generated(&ns, &other), "{other}");
        }
        // Rows that can differ keep their ORDER BY edits.
        let direction = |gold: &str| {
            let ns = gen(gold);
            generated(&ns, &gold.replace("T2.Year DESC", "T2.Year ASC"))
        };
        for differ in [
            gold.replace("SELECT T1.Name", "SELECT T1.Name , T2.Year"),
            gold.replace(r#"T1.Name = "Joe""#, r#"T1.Name LIKE "Joe%""#),
            gold.replace(r#"T1.Name = "Joe" AND"#, r#"T1.Name = "Joe" OR"#),
            gold.replace(r#"T1.Name = "Joe""#, r#"T1.Age = "Joe""#),
        ] {
            assert!(direction(&differ), "{differ}");
        }
    }

    #[test]
    fn is_not_null_written_postfix_is_no_neighbor_where_it_is_a_whole_predicate() {
        let gold = "SELECT T1.Name FROM singer AS T1 WHERE T1.Age IS NOT NULL AND ( Country IS NOT NULL ) ;";
        let ns = gen(gold);
        for postfix in [
            "SELECT T1.Name FROM singer AS T1 WHERE T1.Age NOT NULL AND ( Country IS NOT NULL ) ;",
            "SELECT T1.Name FROM singer AS T1 WHERE T1.Age IS NOT NULL AND ( Country NOT NULL ) ;",
        ] {
            assert!(!generated(&ns, postfix), "{postfix}");
        }
        // Dropping the `NOT` is a neighbor; and where the test is an operand (here of `=`),
        // the postfix form is left to the databases.
        assert!(generated(
            &ns,
            "SELECT T1.Name FROM singer AS T1 WHERE T1.Age IS NULL AND ( Country IS NOT NULL ) ;"
        ));
        let operand = "SELECT T1.Name FROM singer AS T1 WHERE 1 = T1.Age IS NOT NULL ;";
        assert!(generated(
            &gen(operand),
            "SELECT T1.Name FROM singer AS T1 WHERE 1 = T1.Age NOT NULL ;"
        ));
        // The two forms answer alike on SQLite, NULLs included.
        let db = rusqlite::Connection::open_in_memory().unwrap();
        db.execute_batch(
            "CREATE TABLE singer (Singer_ID, Name, Age, Country); \
             INSERT INTO singer VALUES (1, 'a', NULL, 'x'), (2, 'b', 3, NULL), (3, 'c', 4, 'y');",
        )
        .unwrap();
        let names = |sql: &str| -> Vec<String> {
            let mut stmt = db.prepare(sql).unwrap();
            let rows = stmt.query_map([], |r| r.get::<_, String>(0)).unwrap();
            rows.map(|r| r.unwrap()).collect()
        };
        let alike = super::super::Query::new(gold).postfix_not_null();
        assert_eq!(alike.len(), 2);
        for sql in &alike {
            assert_eq!(names(sql), names(gold), "{sql}");
        }
        assert_eq!(names(gold), vec!["c".to_string()]);
    }
}
