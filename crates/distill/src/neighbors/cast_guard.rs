//! A guard that only keeps an empty string from a cast ([`super::edit_alike`]):
//! `CASE WHEN SUBSTR(…) <> '' THEN CAST(SUBSTR(…) AS REAL) * 60 ELSE 0 END` (BIRD's item 244
//! parses lap times so). SQLite casts text without a leading number to 0, so the `ELSE 0`
//! gives what the `THEN` gives wherever the guard fails on a text without one, and a NULL
//! fails every guard alike. The guard is a non-empty test (`<> ''`, `!= ''`, `> ''` of a
//! `SUBSTR`, which gives text or NULL); an edit of its comparison or constant into another
//! non-empty test, `>= ''` (always true for text), or `<> 'w'` with `w` starting with a letter
//! (false on `''` and `'w'` only, both cast to 0) answers alike. The `THEN` casts the same
//! `SUBSTR`, times or divides it by a non-zero number at most, and the `ELSE` is 0.

use super::edit_alike::Edit;
use super::Query;
use sqlsuite::sql_tokens::{Token, TokenKind};

impl Query<'_> {
    /// True if `edit` turns a cast's non-empty guard into another guard that fails only on
    /// texts the cast makes 0 (module doc).
    pub(super) fn cast_guard_alike(&self, edit: &Edit) -> bool {
        let t = &self.toks;
        let Some(&d) = self.depth.get(edit.from) else {
            return false;
        };
        let Some(when) = (1..edit.from)
            .rev()
            .find(|&j| self.depth[j] == d && t[j].is_word("when"))
        else {
            return false;
        };
        let Some(then) = (when..t.len()).find(|&j| self.depth[j] == d && t[j].is_word("then"))
        else {
            return false;
        };
        if !t[when - 1].is_word("case") || then < when + 4 || edit.to > then {
            return false;
        }
        let (op, empty) = (then - 2, then - 1);
        if edit.from < op || !non_empty_test(&t[op], &t[empty]) {
            return false;
        }
        let operand = &t[when + 1..op];
        let substr = operand.len() >= 3
            && (operand[0].is_word("substr") || operand[0].is_word("substring"))
            && self.partner(when + 2) == Some(op - 1);
        let mut guard: Vec<Token> = t[op..edit.from].to_vec();
        guard.extend(edit.with.iter().cloned());
        guard.extend(t[edit.to..then].iter().cloned());
        let alike = match guard.as_slice() {
            [o, c] => non_empty_test(o, c) || fails_on_zero_casts(o, c),
            _ => false,
        };
        substr && alike && self.casts_or_zero(then, operand)
    }

    /// After `then`: `CAST(operand AS <number type>) [* n | / n] ELSE 0 END`, `n` no zero.
    fn casts_or_zero(&self, then: usize, operand: &[Token]) -> bool {
        let t = &self.toks;
        let same = |a: &[Token], b: &[Token]| {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(x, y)| x.kind == y.kind && x.text.eq_ignore_ascii_case(&y.text))
        };
        let open = then + 2;
        if !t.get(then + 1).is_some_and(|c| c.is_word("cast")) {
            return false;
        }
        let Some(close) = self.partner(open) else {
            return false;
        };
        let inner = &t[open + 1..close];
        let n = operand.len();
        let cast = inner.len() == n + 2
            && same(&inner[..n], operand)
            && inner[n].is_word("as")
            && ["real", "integer", "int", "float", "numeric", "double"]
                .iter()
                .any(|w| inner[n + 1].is_word(w));
        let number = |k: &Token| {
            matches!(k.kind, TokenKind::Int | TokenKind::Float)
                && k.text.parse::<f64>().is_ok_and(|x| x != 0.0)
        };
        let mut j = close + 1;
        if t.get(j)
            .is_some_and(|o| o.is_symbol("*") || o.is_symbol("/"))
            && t.get(j + 1).is_some_and(number)
        {
            j += 2;
        }
        let zero = |k: &Token| {
            matches!(k.kind, TokenKind::Int | TokenKind::Float)
                && k.text.parse::<f64>().is_ok_and(|x| x == 0.0)
        };
        cast && t.get(j).is_some_and(|e| e.is_word("else"))
            && t.get(j + 1).is_some_and(zero)
            && t.get(j + 2).is_some_and(|e| e.is_word("end"))
    }
}

/// `<> ''`, `!= ''` or `> ''`: true for every text but `''`.
fn non_empty_test(op: &Token, c: &Token) -> bool {
    let op_ok = op.is_symbol("<>") || op.is_symbol("!=") || op.is_symbol(">");
    op_ok && c.string_content().is_some_and(|s| s.is_empty())
}

/// `>= ''` (true for every text), or `<> 'w'` / `!= 'w'` with `w` starting with a letter
/// (false on `'w'` only, which casts to 0).
fn fails_on_zero_casts(op: &Token, c: &Token) -> bool {
    let Some(s) = c.string_content() else {
        return false;
    };
    let always = op.is_symbol(">=") && s.is_empty();
    let but_a_word = (op.is_symbol("<>") || op.is_symbol("!="))
        && s.chars().next().is_some_and(|ch| ch.is_ascii_alphabetic());
    always || but_a_word
}

#[cfg(test)]
mod tests {
    use super::super::tests::alike;

    #[test]
    fn a_guard_that_only_keeps_an_empty_string_from_a_cast_is_any_such_guard() {
        let gold = "SELECT Name FROM singer ORDER BY CASE WHEN SUBSTR(Country, 1, 2) <> '' THEN CAST(SUBSTR(Country, 1, 2) AS REAL) * 60 ELSE 0 END + Age";
        for guard in ["> ''", ">= ''", "<> 'abc'", "!= ''"] {
            let n = gold.replace("<> ''", guard);
            assert!(alike(gold, &n), "{n}");
        }
        // A guard false on other texts, a constant with a number in front, another ELSE, a
        // cast of something else, a division by zero: neighbors.
        for guard in ["= ''", "< ''", "<> '7a'", "> 'abc'"] {
            let n = gold.replace("<> ''", guard);
            assert!(!alike(gold, &n), "{n}");
        }
        for kept in [
            gold.replace("ELSE 0 END", "ELSE 1 END"),
            gold.replace(
                "THEN CAST(SUBSTR(Country, 1, 2)",
                "THEN CAST(SUBSTR(Name, 1, 2)",
            ),
            gold.replace("* 60", "/ 0"),
        ] {
            assert!(!alike(&kept, &kept.replace("<> ''", ">= ''")), "{kept}");
        }
    }
}
