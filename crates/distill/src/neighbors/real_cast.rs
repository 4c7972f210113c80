//! `CAST( n AS REAL )` dropped where `n` is a whole number and the query divides: a ratio
//! written `CAST(COUNT(…) AS REAL) * 100 / COUNT(…)` becomes SQLite's integer division,
//! which truncates (BIRD's items 99, 196, 201; a bug models make). Only where the cast's
//! argument is an integer by its form — `COUNT(…)`, or `SUM`/`TOTAL` of a `CASE` whose every
//! branch is an integer literal — so that the neighbor never answers alike by the column's
//! type: a cast of a sum of REAL amounts changes nothing and is not made a neighbor.

use super::Query;
use sqlsuite::sql_tokens::TokenKind;

impl Query<'_> {
    /// The gold with the `CAST` at token `i` replaced by its argument, where the argument is
    /// a whole number by its form and the query divides (module doc).
    pub(super) fn real_cast_dropped(&self, i: usize) -> Option<String> {
        let toks = &self.toks;
        let open = i + 1;
        let close = self.partner(open)?;
        // `CAST ( argument AS REAL )`
        let as_at = close.checked_sub(2)?;
        if !(toks[i].is_word("cast")
            && toks[as_at].is_word("as")
            && toks[as_at + 1].is_word("real")
            && self.depth[as_at] == self.depth[open] + 1
            && toks.iter().any(|t| t.is_symbol("/")))
        {
            return None;
        }
        if !self.whole_number(open + 1, as_at) {
            return None;
        }
        let argument = &self.sql[toks[open + 1].start..toks[as_at - 1].end];
        Some(format!(
            "{}{}{}",
            &self.sql[..toks[i].start],
            argument,
            &self.sql[toks[close].end..]
        ))
    }

    /// Tokens `from..to` are one call that answers a whole number by its form: `COUNT(…)`,
    /// or `SUM`/`TOTAL( CASE … END )` with integer literals after every `THEN` and `ELSE`.
    fn whole_number(&self, from: usize, to: usize) -> bool {
        let toks = &self.toks;
        if to < from + 3 || !toks[from + 1].is_symbol("(") || self.partner(from + 1) != Some(to - 1)
        {
            return false;
        }
        let call = toks[from].lower();
        if call == "count" {
            return true;
        }
        if call != "sum" || !toks[from + 2].is_word("case") {
            return false;
        }
        let branches: Vec<usize> = (from + 2..to - 1)
            .filter(|&j| toks[j].is_word("then") || toks[j].is_word("else"))
            .collect();
        !branches.is_empty()
            && branches
                .iter()
                .all(|&j| toks.get(j + 1).is_some_and(|v| v.kind == TokenKind::Int))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_whole_number_cast_before_a_division_is_dropped() {
        let gold = "SELECT CAST(SUM(CASE WHEN SEX = 'F' THEN 1 ELSE 0 END) AS REAL) * 100 / COUNT(ID) FROM Patient";
        let q = Query::new(gold);
        let at = q.toks.iter().position(|t| t.is_word("cast")).unwrap();
        assert_eq!(
            q.real_cast_dropped(at).as_deref(),
            Some(
                "SELECT SUM(CASE WHEN SEX = 'F' THEN 1 ELSE 0 END) * 100 / COUNT(ID) FROM Patient"
            )
        );
        let counted = "SELECT CAST(COUNT(CASE WHEN x IS NOT NULL THEN id END) AS REAL) * 100 / COUNT(id) FROM t";
        let q = Query::new(counted);
        let at = q.toks.iter().position(|t| t.is_word("cast")).unwrap();
        assert!(q.real_cast_dropped(at).is_some());
        // A sum of a column (REAL amounts divide alike), a THEN of a column, no division,
        // another type: no neighbor.
        for other in [
            "SELECT CAST(SUM(amount) AS REAL) / COUNT(id) FROM t",
            "SELECT CAST(SUM(CASE WHEN a = 1 THEN amount ELSE 0 END) AS REAL) / COUNT(id) FROM t",
            "SELECT CAST(COUNT(id) AS REAL) FROM t",
            "SELECT CAST(COUNT(id) AS TEXT) / 2 FROM t",
        ] {
            let q = Query::new(other);
            let at = q.toks.iter().position(|t| t.is_word("cast")).unwrap();
            assert_eq!(q.real_cast_dropped(at), None, "{other}");
        }
    }
}
