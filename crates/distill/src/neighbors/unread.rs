//! A derived table's column the outer query never reads ([`super::edit_alike`]):
//! `SELECT date FROM ( SELECT t2.crossing, t2.date FROM … )` (BIRD's item 159) answers alike
//! whatever column stands where `crossing` does, or without it. Only where the derived table
//! keeps every row whatever its columns are (no `DISTINCT`, no set operation, no `ORDER BY` or
//! `GROUP BY` by position), the item is a plain column `[X .] c` without an alias, and neither
//! its name nor the new one is a word of the outer query, which reads no `*` (other than
//! `COUNT(*)`). A common table expression (`WITH t AS ( SELECT … )`) is such a table too, and
//! there a word the outer query qualifies with the alias of a table it reads by name
//! (`FROM results AS T1 … T1.FastestLapTime`) is that table's column, not the expression's
//! (BIRD's item 245: its `WITH` table's `T1.FastestLapTime`, which the outer query reads of
//! `results` only).

use std::collections::BTreeSet;

use super::edit_alike::Edit;
use super::{is_reserved, unquote_ident, Query, AGGREGATES, CLAUSE_WORDS};
use sqlsuite::sql_tokens::{Token, TokenKind};

impl Query<'_> {
    /// True if `edit` (which makes `neighbor`) replaces or drops a column of a derived table's
    /// select list that the outer query never reads (module doc).
    pub(super) fn unread_column(&self, edit: &Edit, neighbor: &[Token]) -> bool {
        let Some((open, close)) = self.derived_table_around(edit) else {
            return false;
        };
        let outer = match self.common_table_name(open) {
            Some(name) => self.outer_words_beside(open, close, &self.base_aliases(&name)),
            None => self.outer_words(open, close),
        };
        let Some(outer) = outer else {
            return false;
        };
        let select = open + 1;
        let end = self.clause_end(select, CLAUSE_WORDS);
        let items = self.comma_items(select + 1, end);
        let plain = |&(a, b): &(usize, usize)| {
            let shape = b == a + 1 || (b == a + 3 && self.toks[a + 1].is_symbol("."));
            let c = b - 1;
            shape
                && self.toks[c].kind == TokenKind::Word
                && !self.is_keyword(c)
                && !outer.contains(&unquote_ident(&self.toks[c].text).to_lowercase())
        };
        let swapped = items.iter().any(|&(a, b)| {
            plain(&(a, b))
                && (edit.from, edit.to) == (b - 1, b)
                && edit.new_word().is_some_and(|w| !outer.contains(&w))
        });
        let dropped = self.drops_item(&items, neighbor, plain);
        swapped || dropped || self.unread_aggregate(edit, neighbor, &items, &outer)
    }

    /// `neighbor` is the gold without one of the select list's `items` that `which` takes
    /// (with the comma after it; the last one, with the comma before it).
    fn drops_item(
        &self,
        items: &[(usize, usize)],
        neighbor: &[Token],
        which: impl Fn(&(usize, usize)) -> bool,
    ) -> bool {
        items.len() > 1
            && items.iter().enumerate().any(|(k, &(a, b))| {
                let (x, y) = if k + 1 < items.len() {
                    (a, b + 1)
                } else {
                    (a - 1, b)
                };
                which(&(a, b)) && self.same_without(x, y, neighbor)
            })
    }

    /// An aggregate item of a grouped derived table (`COUNT(bond_id)`, no alias) that the
    /// outer query never reads, rewritten inside (`SUM(bond_id)`, `(bond_id)`) or dropped:
    /// the groups make the rows, whatever the items are (BIRD's item 398).
    fn unread_aggregate(
        &self,
        edit: &Edit,
        neighbor: &[Token],
        items: &[(usize, usize)],
        outer: &BTreeSet<String>,
    ) -> bool {
        let Some(&(first, _)) = items.first() else {
            return false;
        };
        let select = first - 1;
        let d = self.depth[select];
        let block_end = self.partner(select - 1).unwrap_or(self.toks.len());
        let grouped =
            (select..block_end).any(|j| self.depth[j] == d && self.toks[j].is_word("group"));
        let aggregate = |&(a, b): &(usize, usize)| {
            b >= a + 3
                && AGGREGATES.iter().any(|w| self.toks[a].is_word(w))
                && self.toks[a + 1].is_symbol("(")
                && self.partner(a + 1) == Some(b - 1)
                && !outer.contains(
                    &self.toks[a..b]
                        .iter()
                        .map(|t| t.lower())
                        .collect::<String>(),
                )
        };
        // The words the new item names (not its qualifiers, keywords or functions): none the
        // outer query reads, and no alias.
        let unread_words = |ts: &[Token]| {
            ts.iter().enumerate().all(|(k, t)| {
                let w = unquote_ident(&t.text).to_lowercase();
                let qualifier = ts.get(k + 1).is_some_and(|n| n.is_symbol("."));
                let function = ts.get(k + 1).is_some_and(|n| n.is_symbol("("));
                t.kind != TokenKind::Word
                    || (!t.is_word("as")
                        && (qualifier || function || is_reserved(&w) || !outer.contains(&w)))
            })
        };
        let rewritten = items.iter().any(|&(a, b)| {
            let grown = neighbor.len() as isize - self.toks.len() as isize;
            let new_end = (b as isize + grown) as usize;
            aggregate(&(a, b))
                && a <= edit.from
                && edit.to <= b
                && new_end <= neighbor.len()
                && unread_words(&neighbor[a..new_end])
        });
        grouped && (rewritten || self.drops_item(items, neighbor, aggregate))
    }

    /// The derived table (`FROM ( SELECT …` or `JOIN ( SELECT …`) whose select list holds all
    /// of `edit`, if it keeps every row whatever its columns: its `(` and `)`.
    fn derived_table_around(&self, edit: &Edit) -> Option<(usize, usize)> {
        let (open, close) = self.table_expression_holding(edit)?;
        let select = open + 1;
        if edit.to > self.clause_end(select, CLAUSE_WORDS)
            || self
                .toks
                .get(select + 1)
                .is_some_and(|t| t.is_word("distinct"))
        {
            return None;
        }
        let d = self.depth[select];
        let at_depth = |j: &usize| self.depth[*j] == d;
        let set_operation = (select..close).filter(at_depth).any(|j| {
            ["union", "intersect", "except"]
                .iter()
                .any(|w| self.toks[j].is_word(w))
        });
        let by_position = (select..close).filter(at_depth).any(|j| {
            self.toks[j].kind == TokenKind::Int
                && (self.toks[j - 1].is_word("by") || self.toks[j - 1].is_symbol(","))
        });
        (!set_operation && !by_position).then_some((open, close))
    }

    /// The innermost derived table or common table expression whose parentheses hold all of
    /// `edit` and no other `SELECT` block around it: its `(` and `)`.
    fn table_expression_holding(&self, edit: &Edit) -> Option<(usize, usize)> {
        let derived = self.derived_table_holding(edit);
        let common = (1..edit.from).rev().find(|&o| {
            self.common_table_name(o).is_some() && self.partner(o).is_some_and(|c| edit.to <= c)
        });
        match (derived, common) {
            (Some((d, c)), Some(o)) if d > o => Some((d, c)),
            (_, Some(o)) => Some((o, self.partner(o)?)),
            (d, None) => d,
        }
    }

    /// The name of the common table expression whose `(` is token `open` (`WITH t AS (` or
    /// `, t AS (` at depth 0, before the main `SELECT`), lower case.
    fn common_table_name(&self, open: usize) -> Option<String> {
        let t = &self.toks;
        let opens_select = t[open].is_symbol("(") && t.get(open + 1)?.is_word("select");
        let named = open >= 3
            && t[open - 1].is_word("as")
            && t[open - 2].kind == TokenKind::Word
            && (t[open - 3].is_word("with") || t[open - 3].is_symbol(","))
            && self.depth[open - 2] == 0;
        if !(opens_select && named) {
            return None;
        }
        let before_main = (0..open - 2)
            .filter(|&j| self.depth[j] == 0)
            .all(|j| !t[j].is_word("select"));
        before_main.then(|| unquote_ident(&t[open - 2].text).to_lowercase())
    }

    /// The aliases (and names) of the tables the query reads by a name other than `name`
    /// (`FROM results AS T1`, `JOIN races T2`), lower case.
    fn base_aliases(&self, name: &str) -> BTreeSet<String> {
        let t = &self.toks;
        let word = |j: usize| {
            t.get(j)
                .filter(|w| w.kind == TokenKind::Word && !self.is_keyword(j))
                .map(|w| unquote_ident(&w.text).to_lowercase())
        };
        let mut out = BTreeSet::new();
        for j in 0..t.len() {
            if !(t[j].is_word("from") || t[j].is_word("join")) {
                continue;
            }
            let Some(table) = word(j + 1).filter(|w| w != name) else {
                continue;
            };
            let alias = if t.get(j + 2).is_some_and(|w| w.is_word("as")) {
                word(j + 3)
            } else {
                word(j + 2)
            };
            out.insert(table);
            out.extend(alias);
        }
        out
    }

    /// The innermost derived table (`FROM ( SELECT …` or `JOIN ( SELECT …`) whose parentheses
    /// hold all of `edit`: its `(` and `)`.
    pub(super) fn derived_table_holding(&self, edit: &Edit) -> Option<(usize, usize)> {
        let open = (1..edit.from).rev().find(|&o| {
            self.toks[o].is_symbol("(")
                && self.toks.get(o + 1).is_some_and(|t| t.is_word("select"))
                && (self.toks[o - 1].is_word("from") || self.toks[o - 1].is_word("join"))
                && self.partner(o).is_some_and(|c| edit.to <= c)
        })?;
        Some((open, self.partner(open)?))
    }

    /// The words (unquoted, lower case) of the query outside `open..=close`, or `None` where
    /// it reads a `*` there (a select item; not `COUNT(*)`, not a product).
    fn outer_words(&self, open: usize, close: usize) -> Option<BTreeSet<String>> {
        let mut words = BTreeSet::new();
        for (j, t) in self.toks.iter().enumerate() {
            if (open..=close).contains(&j) {
                continue;
            }
            // A `*` that reads every column: a select item (`SELECT *`, `, *`, `T.*`), not
            // `COUNT(*)` nor a product.
            let star = t.is_symbol("*")
                && j >= 1
                && (self.toks[j - 1].is_word("select")
                    || self.toks[j - 1].is_word("distinct")
                    || self.toks[j - 1].is_symbol(",")
                    || self.toks[j - 1].is_symbol("."));
            if star {
                return None;
            }
            if t.kind == TokenKind::Word {
                words.insert(unquote_ident(&t.text).to_lowercase());
            }
        }
        Some(words)
    }

    /// As [`Query::outer_words`], without the words qualified by one of `aliases` (`T1.c`,
    /// `T1` an alias of another table).
    fn outer_words_beside(
        &self,
        open: usize,
        close: usize,
        aliases: &BTreeSet<String>,
    ) -> Option<BTreeSet<String>> {
        let mut words = self.outer_words(open, close)?;
        let unqualified: BTreeSet<String> = (0..self.toks.len())
            .filter(|j| !(open..=close).contains(j))
            .filter(|&j| self.toks[j].kind == TokenKind::Word)
            .filter(|&j| {
                !(j >= 2
                    && self.toks[j - 1].is_symbol(".")
                    && aliases.contains(&unquote_ident(&self.toks[j - 2].text).to_lowercase()))
            })
            .map(|j| unquote_ident(&self.toks[j].text).to_lowercase())
            .collect();
        words.retain(|w| unqualified.contains(w));
        Some(words)
    }

    /// `neighbor` is the gold without its tokens `x..y`.
    fn same_without(&self, x: usize, y: usize, neighbor: &[Token]) -> bool {
        let kept = self.toks[..x].iter().chain(&self.toks[y..]);
        neighbor.len() + (y - x) == self.toks.len()
            && kept
                .zip(neighbor)
                .all(|(a, b)| a.kind == b.kind && a.text == b.text)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{alike_on, gen, generated, tables};
    use super::super::ColumnFacts;

    #[test]
    fn an_aggregate_of_a_grouped_derived_table_the_outer_query_never_reads_is_no_neighbor() {
        let alike = |g: &str, n: &str| alike_on(&tables(), &ColumnFacts::default(), g, n);
        let gold = "SELECT T.Country FROM ( SELECT Country, COUNT(Singer_ID) FROM singer GROUP BY Country ORDER BY COUNT(Singer_ID) DESC LIMIT 1 ) AS T";
        for n in [
            gold.replacen("COUNT(Singer_ID) FROM", "sum (Singer_ID) FROM", 1),
            gold.replacen("COUNT(Singer_ID) FROM", "(Singer_ID) FROM", 1),
            gold.replacen("COUNT(Singer_ID) FROM", "COUNT( Age ) FROM", 1),
            gold.replacen("Country, COUNT(Singer_ID) FROM", "Country FROM", 1),
        ] {
            assert!(alike(gold, &n), "{n}");
        }
        // Ungrouped, its aggregate makes the one row; a name the outer query reads; a `*`.
        let ungrouped =
            "SELECT T.Country FROM ( SELECT Country, COUNT(Singer_ID) FROM singer ) AS T";
        assert!(!alike(
            ungrouped,
            &ungrouped.replace("COUNT(Singer_ID) FROM", "(Singer_ID) FROM")
        ));
        assert!(!alike(
            gold,
            &gold.replacen("COUNT(Singer_ID) FROM", "( Country ) FROM", 1)
        ));
        let star = gold.replace("SELECT T.Country FROM", "SELECT * FROM");
        assert!(!alike(
            &star,
            &star.replacen("COUNT(Singer_ID) FROM", "sum (Singer_ID) FROM", 1)
        ));
    }

    #[test]
    fn a_column_of_a_derived_table_the_outer_query_never_reads_is_no_neighbor() {
        let gold = "SELECT Name FROM ( SELECT T1.Age, T1.Name FROM singer AS T1 WHERE T1.Country = 'x' ) ORDER BY Name LIMIT 1";
        let ns = gen(gold);
        for n in [
            gold.replace("T1.Age,", "T1. Country,"),
            gold.replace("T1.Age, ", ""),
        ] {
            assert!(!generated(&ns, &n), "{n}");
        }
        // The column it reads, a column the outer query names, a DISTINCT and a `*` keep them.
        assert!(generated(
            &ns,
            &gold.replace("T1.Age, T1.Name", "T1.Age, T1. Country")
        ));
        let named = gold.replace("ORDER BY Name", "ORDER BY Name, Country");
        assert!(generated(
            &gen(&named),
            &named.replace("T1.Age,", "T1. Country,")
        ));
        let distinct = gold.replace("( SELECT T1.Age", "( SELECT DISTINCT T1.Age");
        assert!(generated(
            &gen(&distinct),
            &distinct.replace("T1.Age,", "T1. Country,")
        ));
        // A common table expression: a word the outer query reads of another table only
        // (`T1.Age`, `T1` being `singer`) is not the expression's.
        let with = "WITH t AS ( SELECT T1.Age, T1.Name FROM singer AS T1 ) SELECT t.Name FROM t \
                    JOIN singer AS T1 ON t.Name = T1.Name ORDER BY T1.Age LIMIT 1";
        let ns = gen(with);
        for n in [
            with.replace("T1.Age, T1.Name FROM", "T1. Country , T1.Name FROM"),
            with.replace("T1.Age, T1.Name FROM", "T1.Name FROM"),
        ] {
            assert!(!generated(&ns, &n), "{n}");
        }
        // Read through the expression's name, or unqualified, it is read.
        let read = with.replace("ORDER BY T1.Age", "ORDER BY t.Age");
        assert!(generated(
            &gen(&read),
            &read.replace("T1.Age, T1.Name FROM", "T1. Country , T1.Name FROM")
        ));
        let bare = with.replace("ORDER BY T1.Age", "ORDER BY Age");
        assert!(generated(
            &gen(&bare),
            &bare.replace("T1.Age, T1.Name FROM", "T1. Country , T1.Name FROM")
        ));
        // A product outside the derived table reads no column (BIRD's item 245 multiplies
        // minutes by 60 in its outer `ON`).
        let product = with.replace("ORDER BY T1.Age", "ORDER BY T1.Age * 60");
        assert!(!generated(
            &gen(&product),
            &product.replace("T1.Age, T1.Name FROM", "T1. Country , T1.Name FROM")
        ));
        let star = gold.replace("SELECT Name FROM", "SELECT * FROM");
        assert!(generated(
            &gen(&star),
            &star.replace("T1.Age,", "T1. Country,")
        ));
    }
}
