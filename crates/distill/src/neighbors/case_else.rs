//! A `CASE`'s `ELSE` that gives what no `ELSE` gives ([`super::edit_alike`]):
//!
//! - **`ELSE NULL` dropped**: a `CASE` without `ELSE` gives NULL where no `WHEN` holds
//!   (`COUNT(CASE WHEN element = 'c' THEN atom_id ELSE NULL END)`, BIRD's items 267–436).
//! - **`ELSE 0` dropped from a `SUM` that divides** (`x / SUM(CASE WHEN … THEN 1 ELSE 0 END)`):
//!   the sum is 0 with the `ELSE`, NULL without, only where rows exist and none has a value
//!   from a `THEN`; a division by 0 and by NULL are both NULL in SQLite, and so is everything
//!   the quotient enters.

use super::edit_alike::Edit;
use super::Query;
use sqlsuite::sql_tokens::TokenKind;

impl Query<'_> {
    /// True if `edit` drops `ELSE NULL`, or `ELSE 0` of a divisor's `SUM` (module doc).
    pub(super) fn implied_else(&self, edit: &Edit) -> bool {
        let (f, t) = (edit.from, edit.to);
        if !edit.with.is_empty() || t != f + 2 || !self.toks[f].is_word("else") {
            return false;
        }
        if !self.toks.get(t).is_some_and(|e| e.is_word("end")) {
            return false;
        }
        let value = &self.toks[f + 1];
        if value.is_word("null") {
            return true;
        }
        let zero = matches!(value.kind, TokenKind::Int | TokenKind::Float)
            && value.text.parse::<f64>().is_ok_and(|x| x == 0.0);
        zero && self.divisor_sum_ending_at(t)
    }

    /// The `END` at token `end` closes a `CASE` that is all of a `SUM(…)` right after `/`.
    fn divisor_sum_ending_at(&self, end: usize) -> bool {
        if !self.toks.get(end + 1).is_some_and(|t| t.is_symbol(")")) {
            return false;
        }
        let Some(open) = self.partner(end + 1) else {
            return false;
        };
        open >= 2
            && self.toks[open - 1].is_word("sum")
            && self.toks[open - 2].is_symbol("/")
            && self.toks.get(open + 1).is_some_and(|t| t.is_word("case"))
            && self.case_end(open + 1) == Some(end)
    }

    /// The `END` of the `CASE` at token `case`.
    pub(super) fn case_end(&self, case: usize) -> Option<usize> {
        let d = self.depth[case];
        let mut open = 0usize;
        for j in case..self.toks.len() {
            if self.depth[j] != d {
                continue;
            }
            if self.toks[j].is_word("case") {
                open += 1;
            } else if self.toks[j].is_word("end") {
                open -= 1;
                if open == 0 {
                    return Some(j);
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::alike;

    #[test]
    fn an_else_that_gives_what_no_else_gives_is_no_edit() {
        let count = "SELECT COUNT(CASE WHEN Country = 'x' THEN Name ELSE NULL END) FROM singer";
        assert!(alike(count, &count.replace(" ELSE NULL", "")));
        let ratio = "SELECT CAST(SUM(Age) AS REAL) / SUM(CASE WHEN Country = 'x' THEN 1 ELSE 0 END) FROM singer";
        assert!(alike(ratio, &ratio.replace(" ELSE 0 END", " END")));
        // A sum that is no divisor gives 0 or NULL to the answer; another ELSE is an ELSE.
        let total = "SELECT SUM(CASE WHEN Country = 'x' THEN 1 ELSE 0 END) / COUNT(*) FROM singer";
        assert!(!alike(total, &total.replace(" ELSE 0 END", " END")));
        let other = count.replace("ELSE NULL", "ELSE 1");
        assert!(!alike(&other, &other.replace(" ELSE 1", "")));
        let outer = "SELECT CAST(SUM(Age) AS REAL) / SUM(CASE WHEN Country = 'x' THEN 1 ELSE 0 END + 1) FROM singer";
        assert!(!alike(outer, &outer.replace(" ELSE 0 END", " END")));
    }
}
