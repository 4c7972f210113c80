//! A block's FROM clause, a condition's conjuncts and their spellings, read off the tokens:
//! what the rules about which rows a block reads (`extremum`, an idle `DISTINCT`, a repeated
//! conjunct) look at.

use std::collections::HashMap;

use super::Query;
use sqlsuite::sql_tokens::TokenKind;

/// A block's FROM clause read off the tokens.
pub(super) struct FromList {
    /// Per item: its table and the name its columns are qualified by (the alias, else the
    /// table), lower case.
    pub(super) items: Vec<(String, String)>,
    /// The conjuncts of its inner joins' ON conditions (token ranges).
    pub(super) on: Vec<(usize, usize)>,
}

impl FromList {
    pub(super) fn table_of(&self, name: &str) -> Option<&str> {
        self.items
            .iter()
            .find(|(_, n)| n == name)
            .map(|(t, _)| t.as_str())
    }

    /// The name of the only item, if there is one item.
    pub(super) fn only(&self) -> Option<&str> {
        match self.items.as_slice() {
            [(_, n)] => Some(n),
            _ => None,
        }
    }
}

/// A conjunct `a . x = b . y` (either way round): the two qualified columns, lower case.
type ColumnEquality = ((String, String), (String, String));

const JOIN_WORDS: &[&str] = &["join", "inner", "left", "right", "full", "outer", "cross"];

impl Query<'_> {
    /// True if no row of FROM item `root` (of the block of token `i`, whose FROM is `list`)
    /// comes more than once out of the block's joins: every other item is reached from
    /// `root` by an equality, a conjunct of the block's WHERE or of an inner join's ON,
    /// between a column of an item already reached and a column that identifies the new
    /// item's rows (unique and NOT NULL by the constraints), so each joins at most one of its
    /// rows to each row. One item alone repeats none.
    pub(super) fn repeats_no_row_of(
        &self,
        i: usize,
        list: &FromList,
        root: &str,
        tables: &super::TableColumns,
        facts: &super::ColumnFacts,
        aliases: &HashMap<String, usize>,
    ) -> bool {
        if list.items.len() == 1 {
            return true;
        }
        let mut conjuncts = list.on.clone();
        if let Some(w) = self.clause_of_block(i, "where") {
            let end = self.clause_end(w, super::CLAUSE_WORDS);
            match self.conjuncts(w + 1, end) {
                Some(c) => conjuncts.extend(c),
                None => return false,
            }
        }
        let equalities: Vec<ColumnEquality> = conjuncts
            .iter()
            .filter_map(|&c| self.column_equality(c))
            .collect();
        let identifies = |(name, column): &(String, String)| {
            list.table_of(name)
                .and_then(|table| aliases.get(table))
                .is_some_and(|&t| facts.identifies_rows(t, column, tables))
        };
        let mut reached = vec![root.to_owned()];
        loop {
            let next = list.items.iter().map(|(_, n)| n).find(|n| {
                !reached.contains(n)
                    && equalities.iter().any(|(a, b)| {
                        [(a, b), (b, a)].iter().any(|(from, to)| {
                            reached.contains(&from.0) && to.0 == **n && identifies(to)
                        })
                    })
            });
            match next {
                Some(n) => reached.push(n.clone()),
                None => break,
            }
        }
        // Each FROM item once (an item named twice is two rows per row).
        list.items.iter().all(|(_, n)| reached.contains(n)) && list.items.len() == reached.len()
    }

    /// The two columns of conjunct `(a, b)` if it is `q1 . x = q2 . y`.
    pub(super) fn column_equality(&self, (a, b): (usize, usize)) -> Option<ColumnEquality> {
        let t = &self.toks[a..self.before_semicolons(a, b)];
        let column = |q: &sqlsuite::sql_tokens::Token,
                      dot: &sqlsuite::sql_tokens::Token,
                      c: &sqlsuite::sql_tokens::Token| {
            (q.kind == TokenKind::Word && dot.is_symbol(".") && c.kind == TokenKind::Word)
                .then(|| (q.lower(), super::unquote_ident(&c.text).to_lowercase()))
        };
        match t {
            [q1, d1, c1, eq, q2, d2, c2] if matches!(eq.text.as_str(), "=" | "==") => {
                Some((column(q1, d1, c1)?, column(q2, d2, c2)?))
            }
            _ => None,
        }
    }

    /// The FROM clause of the block of token `i` ([`Query::tables_read`]).
    pub(super) fn block_from(&self, i: usize) -> Option<FromList> {
        let from = self.clause_of_block(i, "from")?;
        let end = self.before_semicolons(from, self.clause_end(from, super::CLAUSE_WORDS));
        self.tables_read(from + 1, end)
    }

    /// The items of the FROM clause `from..to`: `T`, `T a`, `T AS a`, separated by `,` or a
    /// join (with an ON condition). None for anything else (a subquery, `USING`) or for an
    /// outer join (its ON does not filter the preserved side).
    pub(super) fn tables_read(&self, from: usize, to: usize) -> Option<FromList> {
        let mut list = FromList {
            items: Vec::new(),
            on: Vec::new(),
        };
        let mut j = from;
        while j < to {
            let t = &self.toks[j];
            if t.is_symbol(",") || t.is_word("join") || t.is_word("inner") || t.is_word("cross") {
                j += 1;
                continue;
            }
            if t.is_word("on") {
                let end = (j + 1..to)
                    .find(|&k| {
                        self.depth[k] == self.depth[j]
                            && (self.toks[k].is_symbol(",")
                                || JOIN_WORDS.iter().any(|w| self.toks[k].is_word(w)))
                    })
                    .unwrap_or(to);
                list.on.extend(self.conjuncts(j + 1, end)?);
                j = end;
                continue;
            }
            if t.kind != TokenKind::Word || self.is_keyword(j) {
                return None;
            }
            let table = t.lower();
            let mut k = j + 1;
            if self.toks.get(k).is_some_and(|n| n.is_word("as")) {
                k += 1;
            }
            let name = match self.toks.get(k) {
                Some(a) if k < to && a.kind == TokenKind::Word && !self.is_keyword(k) => {
                    k += 1;
                    a.lower()
                }
                _ => table.clone(),
            };
            list.items.push((table, name));
            j = k;
        }
        (!list.items.is_empty()).then_some(list)
    }

    /// The conjuncts of the condition `from..to`, if it is a conjunction (no `OR` at its
    /// level).
    pub(super) fn conjuncts(&self, from: usize, to: usize) -> Option<Vec<(usize, usize)>> {
        let predicates = self.predicates(from, self.before_semicolons(from, to));
        predicates
            .iter()
            .all(|&(_, _, conn)| conn.is_none_or(|c| self.toks[c].is_word("and")))
            .then(|| predicates.iter().map(|&(a, b, _)| (a, b)).collect())
    }

    /// The condition `r` as text, its qualifiers renamed by `rename`; an equality also with
    /// its sides swapped.
    pub(super) fn spellings(
        &self,
        (from, to): (usize, usize),
        rename: &HashMap<String, String>,
    ) -> Vec<String> {
        let words: Vec<String> = (from..to)
            .map(|k| {
                let w = self.toks[k].lower();
                let qualifier = self.toks.get(k + 1).is_some_and(|n| n.is_symbol("."));
                match rename.get(&w) {
                    Some(to) if qualifier => to.clone(),
                    _ => w,
                }
            })
            .collect();
        let d = self.depth[from];
        let equals: Vec<usize> = (from..to)
            .filter(|&k| self.depth[k] == d && self.toks[k].is_symbol("="))
            .map(|k| k - from)
            .collect();
        let mut out = vec![words.join(" ")];
        if let [e] = equals.as_slice() {
            let swapped: Vec<&str> = words[e + 1..]
                .iter()
                .chain([&words[*e]])
                .chain(&words[..*e])
                .map(String::as_str)
                .collect();
            out.push(swapped.join(" "));
        }
        out
    }

    /// True if conjunct `r` (a token range) of the conjunction `from..to` (no `OR` at its
    /// level) is written again there, as it is or with an equality's sides swapped: it adds
    /// nothing to the other copy.
    pub(super) fn repeated_conjunct(&self, r: (usize, usize), from: usize, to: usize) -> bool {
        let Some(all) = self.conjuncts(from, to) else {
            return false;
        };
        let Some(&mine) = all.iter().find(|c| c.0 == r.0) else {
            return false;
        };
        let none = HashMap::new();
        let spelled = self.spellings(mine, &none);
        all.iter()
            .filter(|c| c.0 != mine.0)
            .any(|&c| spelled.contains(&self.spellings(c, &none)[0]))
    }
}
