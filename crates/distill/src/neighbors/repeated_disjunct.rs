//! A copy of a condition written twice ([`super::edit_alike`]). BIRD's item 347 filters
//! `… AND (cardKingdomId IS NULL OR cardKingdomId IS NULL)`: the group is its one condition,
//! and an edit that leaves that condition in it while the rest can never hold answers alike —
//! one copy dropped, the `OR` made `AND`, or a copy made a condition that is never true
//! (`NULL`, a NOT NULL column `IS NULL`). In a `WHERE` or `ON` read without `NOT` a condition
//! that is NULL drops the row as one that is false does, so both count as never true.

use super::edit_alike::{Edit, Schema};
use super::{unquote_ident, Query};
use sqlsuite::sql_tokens::{Token, TokenKind};

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
        let Some(copy) = one_condition_repeated(&self.toks[open + 1..close]) else {
            return false;
        };
        let grown = neighbor.toks.len() as isize - self.toks.len() as isize;
        let new_close = close as isize + grown;
        if new_close <= open as isize || !neighbor.toks[new_close as usize].is_symbol(")") {
            return false;
        }
        let inside = &neighbor.toks[open + 1..new_close as usize];
        let (terms, and) = match (split_top(inside, "or"), split_top(inside, "and")) {
            (or, _) if or.len() > 1 => (or, false),
            (_, and) => (and, true),
        };
        let same = |t: &[Token]| same_tokens(t, copy);
        if and {
            // `A AND A`, or `A` alone.
            return terms.iter().all(|t| same(t));
        }
        terms.iter().any(|t| same(t)) && terms.iter().all(|t| same(t) || never_true(t, schema))
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
            let qualified = t.len() == 5 && t[1].is_symbol(".");
            let table = match (t.len(), qualified) {
                (3, _) => schema.only_owner(&name),
                (5, true) => schema
                    .aliases
                    .get(&unquote_ident(&t[0].text).to_lowercase())
                    .copied()
                    .filter(|&k| schema.has_column(k, &name)),
                _ => None,
            };
            table.is_some_and(|k| schema.not_null(k, &name))
        }
        _ => false,
    }
}

/// The condition `ts` is made of, where it is one condition written two times or more joined
/// by `OR` (`A OR A`).
fn one_condition_repeated(ts: &[Token]) -> Option<&[Token]> {
    let terms = split_top(ts, "or");
    let first = *terms.first()?;
    (terms.len() > 1 && terms.iter().all(|t| same_tokens(t, first)) && !first.is_empty())
        .then_some(first)
}

/// `ts` split at `word` outside parentheses and `BETWEEN … AND`.
fn split_top<'t>(ts: &'t [Token], word: &str) -> Vec<&'t [Token]> {
    let (mut out, mut depth, mut start, mut between) = (Vec::new(), 0usize, 0, false);
    for (j, t) in ts.iter().enumerate() {
        if t.is_symbol("(") {
            depth += 1;
        } else if t.is_symbol(")") {
            depth = depth.saturating_sub(1);
        } else if depth == 0 && t.is_word("between") {
            between = true;
        } else if depth == 0 && t.is_word(word) {
            if word == "and" && between {
                between = false;
                continue;
            }
            out.push(&ts[start..j]);
            start = j + 1;
        }
    }
    out.push(&ts[start..]);
    out
}

fn same_tokens(a: &[Token], b: &[Token]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.kind == y.kind
                && match x.kind {
                    TokenKind::Word => x.text.eq_ignore_ascii_case(&y.text),
                    _ => x.text == y.text,
                }
        })
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
