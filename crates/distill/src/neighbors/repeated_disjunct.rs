//! A copy of a condition written twice ([`super::edit_alike`]). BIRD's item 347 filters
//! `… AND (cardKingdomId IS NULL OR cardKingdomId IS NULL)`: the group is its one condition,
//! and an edit that leaves that condition in it while the rest can never hold answers alike —
//! one copy dropped, the `OR` made `AND`, or a copy made a condition that is never true
//! (`NULL`, a NOT NULL column `IS NULL`). In a `WHERE` or `ON` read without `NOT` a condition
//! that is NULL drops the row as one that is false does, so both count as never true.

use super::edit_alike::{Edit, Schema};
use super::{unquote_ident, Query};
use sqlsuite::sql_tokens::{same_tokens_up_to_case, Token, TokenKind};

impl Query<'_> {
    /// True if `edit` changes a parenthesized group of one condition written more than once
    /// into one that still holds it and otherwise never holds (module doc).
    pub(super) fn repeated_disjunct_alike(
        &self,
        edit: &Edit,
        neighbor: &Query,
        schema: &Schema,
    ) -> bool {
        let Some((open, close)) = self.filtering_group(edit) else {
            return false;
        };
        let Some(copy) = self.one_condition_repeated(open + 1, close) else {
            return false;
        };
        let grown = neighbor.toks.len() as isize - self.toks.len() as isize;
        let new_close = close as isize + grown;
        if new_close <= open as isize || !neighbor.toks[new_close as usize].is_symbol(")") {
            return false;
        }
        let terms = neighbor.predicates(open + 1, new_close as usize);
        let joined_by = |w: &str| {
            terms
                .iter()
                .all(|&(_, _, c)| c.is_none_or(|c| neighbor.toks[c].is_word(w)))
        };
        let same = |&(a, b, _): &(usize, usize, Option<usize>)| {
            same_tokens_up_to_case(&neighbor.toks[a..b], copy)
        };
        if joined_by("and") {
            // `A AND A`, or `A` alone.
            return terms.iter().all(same);
        }
        joined_by("or")
            && terms.iter().any(same)
            && terms
                .iter()
                .all(|t| same(t) || never_true(&neighbor.toks[t.0..t.1], schema))
    }

    /// The condition the group's inside `from..to` is made of, where it is one condition
    /// written two times or more joined by `OR` (`A OR A`).
    fn one_condition_repeated(&self, from: usize, to: usize) -> Option<&[Token]> {
        let terms = self.predicates(from, to);
        let &(a, b, _) = terms.first()?;
        let first = &self.toks[a..b];
        let repeated = terms.len() > 1
            && !first.is_empty()
            && terms.iter().all(|&(x, y, c)| {
                c.is_none_or(|c| self.toks[c].is_word("or"))
                    && same_tokens_up_to_case(&self.toks[x..y], first)
            });
        repeated.then_some(first)
    }

    /// The innermost parenthesized group around `edit` that is a condition of a `WHERE` or
    /// `ON` joined by `AND`, with no `NOT` before it in its clause: its `(` and `)`.
    fn filtering_group(&self, edit: &Edit) -> Option<(usize, usize)> {
        let open = (0..=edit.from.min(self.toks.len().saturating_sub(1)))
            .rev()
            .find(|&o| {
                self.toks[o].is_symbol("(")
                    && self
                        .partner(o)
                        .is_some_and(|c| c >= edit.to && edit.from > o)
            })?;
        let close = self.partner(open)?;
        let before = self.toks.get(open.checked_sub(1)?)?;
        if !(before.is_word("and") || before.is_word("where") || before.is_word("on")) {
            return None;
        }
        let clause = self.clause_of(open)?;
        if !(self.toks[clause].is_word("where") || self.toks[clause].is_word("on")) {
            return None;
        }
        let negated = (clause..open).any(|j| self.toks[j].is_word("not"));
        let after = self.toks.get(close + 1);
        let ends = after.is_none_or(|a| {
            a.is_word("and")
                || a.is_symbol(")")
                || ["order", "group", "limit", "union", "except", "intersect"]
                    .iter()
                    .any(|w| a.is_word(w))
        });
        (!negated && ends).then_some((open, close))
    }
}

/// The condition `t` never holds: `NULL`, or a NOT NULL column `IS NULL`.
fn never_true(t: &[Token], schema: &Schema) -> bool {
    match t {
        [n] => n.is_word("null"),
        [.., c, is, null] if is.is_word("is") && null.is_word("null") => {
            if c.kind != TokenKind::Word {
                return false;
            }
            let name = unquote_ident(&c.text).to_lowercase();
            let qualifier = match t {
                [_, _, _] => None,
                [q, dot, _, _, _] if dot.is_symbol(".") => {
                    Some(unquote_ident(&q.text).to_lowercase())
                }
                _ => return false,
            };
            let table = schema.table_named(qualifier.as_deref(), &name);
            table.is_some_and(|k| schema.not_null(k, &name))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{alike_on, tables};
    use super::super::ColumnFacts;

    /// singer's Singer_ID and Name never NULL, Age and Country may be.
    fn facts() -> ColumnFacts {
        ColumnFacts {
            not_null: vec![vec![true, true, false, false], vec![true, true, true]],
            ..ColumnFacts::default()
        }
    }

    fn alike(gold: &str, neighbor: &str) -> bool {
        alike_on(&tables(), &facts(), gold, neighbor)
    }

    #[test]
    fn a_copy_of_a_repeated_condition_is_no_condition() {
        let gold = "SELECT Name FROM singer WHERE Age > 3 AND (Country IS NULL OR Country IS NULL)";
        let with = |group: &str| gold.replace("(Country IS NULL OR Country IS NULL)", group);
        for same in [
            "(Country IS NULL)",
            "(Country IS NULL AND Country IS NULL)",
            "(Country IS NULL OR Name IS NULL)",
            "(Singer_ID IS NULL OR Country IS NULL)",
            "(Country IS NULL OR NULL)",
            "(NULL OR Country IS NULL)",
        ] {
            assert!(alike(gold, &with(same)), "{same}");
        }
        // A copy that may hold; the condition gone; a group under NOT; a condition said once.
        for other in [
            "(Country IS NULL OR Age IS NULL)",
            "(Country IS NOT NULL OR Country IS NULL)",
            "(Name IS NULL OR Singer_ID IS NULL)",
            "(Country IS NULL OR 1)",
        ] {
            assert!(!alike(gold, &with(other)), "{other}");
        }
        let negated = gold.replace("AND (", "AND NOT (");
        assert!(!alike(
            &negated,
            &negated.replace("OR Country IS NULL)", "OR NULL)")
        ));
        let once = "SELECT Name FROM singer WHERE Age > 3 AND (Country IS NULL OR Age IS NULL)";
        assert!(!alike(once, &once.replace("OR Age IS NULL", "OR NULL")));
        let shown = "SELECT (Country IS NULL OR Country IS NULL) FROM singer";
        assert!(!alike(
            shown,
            &shown.replace("OR Country IS NULL", "OR NULL")
        ));
    }
}
