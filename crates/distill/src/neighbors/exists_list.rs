//! What an `EXISTS` subquery selects ([`super::edit_alike`]): `EXISTS (SELECT 1 FROM …)` asks
//! whether a row exists, whatever the row holds (BIRD's items 251, 256).
//!
//! - **Its select list changed** (`SELECT 0`, `SELECT 4`, `SELECT T2.name`), where neither list
//!   aggregates (an aggregate makes one row of none).
//! - **`EXISTS` dropped before a subquery selecting a non-zero number** (`WHERE (SELECT 1 FROM
//!   …)`): the scalar subquery is that number where a row exists and NULL where none does, and
//!   a condition of `WHERE`, `ON` or `HAVING` joined by `AND`/`OR` alone (no `NOT` in it) keeps
//!   a row on a true value only, so NULL and false keep the same rows.

use super::edit_alike::Edit;
use super::{Query, AGGREGATES, CLAUSE_WORDS};
use sqlsuite::sql_tokens::{Token, TokenKind};

impl Query<'_> {
    /// True if `edit` changes only what an `EXISTS` subquery selects, or drops an `EXISTS`
    /// whose subquery selects a non-zero number in a condition without `NOT` (module doc).
    pub(super) fn exists_list_alike(&self, edit: &Edit) -> bool {
        self.exists_select_list(edit) || self.exists_dropped(edit)
    }

    fn exists_select_list(&self, edit: &Edit) -> bool {
        let Some(open) = (1..edit.from).rev().find(|&o| {
            self.toks[o].is_symbol("(")
                && self.toks[o - 1].is_word("exists")
                && self.toks.get(o + 1).is_some_and(|t| t.is_word("select"))
                && self.partner(o).is_some_and(|c| edit.to <= c)
        }) else {
            return false;
        };
        let list_end = self.clause_end(open + 1, CLAUSE_WORDS);
        let aggregates = |ts: &[Token]| {
            ts.iter()
                .any(|t| AGGREGATES.iter().any(|w| t.is_word(w)) || t.is_word("from"))
        };
        open + 1 < edit.from
            && edit.to <= list_end
            && self.toks[list_end].is_word("from")
            && !aggregates(&self.toks[open + 2..list_end])
            && !aggregates(&edit.with)
    }

    fn exists_dropped(&self, edit: &Edit) -> bool {
        let f = edit.from;
        if !edit.with.is_empty() || edit.to != f + 1 || !self.toks[f].is_word("exists") || f == 0 {
            return false;
        }
        let open = f + 1;
        let (Some(close), true) = (
            self.partner(open),
            self.toks.get(open + 1).is_some_and(|t| t.is_word("select")),
        ) else {
            return false;
        };
        let nonzero = |t: &Token| {
            matches!(t.kind, TokenKind::Int | TokenKind::Float)
                && t.text.parse::<f64>().is_ok_and(|x| x != 0.0)
        };
        let one_number = self.toks.get(open + 2).is_some_and(nonzero)
            && self.toks.get(open + 3).is_some_and(|t| t.is_word("from"));
        let d = self.depth[open + 1];
        let limited = (open + 1..close).any(|j| {
            self.depth[j] == d && (self.toks[j].is_word("limit") || self.toks[j].is_word("offset"))
        });
        let before = &self.toks[f - 1];
        let after_ok = self.toks.get(close + 1).is_none_or(|t| {
            t.is_word("and")
                || t.is_word("or")
                || t.is_symbol(")")
                || t.is_symbol(";")
                || CLAUSE_WORDS.iter().any(|w| t.is_word(w))
        });
        let connective = ["where", "and", "or", "on", "having"]
            .iter()
            .any(|w| before.is_word(w));
        one_number && !limited && connective && after_ok && self.condition_without_not(f)
    }

    /// The `WHERE`/`ON`/`HAVING` condition holding token `i` has no `NOT` (and no `CASE`, whose
    /// `WHEN` would tell NULL from false only as a value).
    fn condition_without_not(&self, i: usize) -> bool {
        let start = (0..i).rev().find(|&j| {
            self.depth[j] <= self.depth[i]
                && ["where", "on", "having"]
                    .iter()
                    .any(|w| self.toks[j].is_word(w))
        });
        let Some(start) = start.filter(|&s| self.depth[s] == self.depth[i]) else {
            return false;
        };
        let end = self.clause_end(start, CLAUSE_WORDS);
        !(start..end).any(|j| {
            self.depth[j] == self.depth[i]
                && (self.toks[j].is_word("not") || self.toks[j].is_word("case"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::alike;

    #[test]
    fn what_an_exists_subquery_selects_is_no_edit() {
        let gold = "SELECT Name FROM singer AS T1 WHERE EXISTS (SELECT 1 FROM concert AS T2 WHERE T2.Singer_ID = T1.Singer_ID) AND T1.Age > 20";
        for n in [
            gold.replace("SELECT 1 FROM concert", "SELECT 0 FROM concert"),
            gold.replace("SELECT 1 FROM concert", "SELECT T2.Year FROM concert"),
            gold.replace("WHERE EXISTS (", "WHERE  ("),
        ] {
            assert!(alike(gold, &n), "{n}");
        }
        // An aggregate makes a row of none; a zero selected or a NOT tell NULL from false.
        assert!(!alike(
            gold,
            &gold.replace("SELECT 1 FROM concert", "SELECT COUNT(*) FROM concert")
        ));
        let zero = gold.replace("SELECT 1 FROM concert", "SELECT 0 FROM concert");
        assert!(!alike(&zero, &zero.replace("WHERE EXISTS (", "WHERE  (")));
        let not = gold.replace("WHERE EXISTS", "WHERE NOT EXISTS");
        assert!(!alike(&not, &not.replace("NOT EXISTS (", "NOT  (")));
        // Outside a condition the value shows: 1 or NULL is not 1 or 0.
        let selected =
            "SELECT EXISTS (SELECT 1 FROM concert AS T2 WHERE T2.Year = 2000) FROM singer";
        assert!(!alike(
            selected,
            &selected.replace("SELECT EXISTS (", "SELECT  (")
        ));
    }
}
