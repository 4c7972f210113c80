//! An equality with the least (or greatest) value a column can hold ([`super::edit_alike`]):
//! `label = '+'` where `label` holds `'+'` or `'-'` is `label <= '+'`. Where the column's
//! values are an enumeration of texts, the least and greatest text a database may hold there
//! are known ([`super::ColumnFacts::text_bounds`]: the values, the golds' constants for the
//! column and the near misses beside them); `x = 'c'` with `c` the least is `x <= 'c'`, with
//! `c` the greatest `x >= 'c'` (NULL fails both alike).

use super::edit_alike::{Edit, Schema};
use super::{unquote_ident, Query};
use sqlsuite::sql_tokens::TokenKind;

impl Query<'_> {
    /// True if `edit` turns `x = 'c'` into `x <= 'c'` where `c` is the least text `x` can
    /// hold, or into `x >= 'c'` where it is the greatest (module doc).
    pub(super) fn enumerated_bound_alike(&self, edit: &Edit, schema: &Schema) -> bool {
        let f = edit.from;
        let ([op], true) = (edit.with.as_slice(), edit.to == f + 1) else {
            return false;
        };
        if f == 0 || !self.toks[f].is_symbol("=") {
            return false;
        }
        let Some(c) = self.toks.get(f + 1).and_then(|t| t.string_content()) else {
            return false;
        };
        let column = f - 1;
        let t = &self.toks[column];
        if t.kind != TokenKind::Word || self.is_keyword(column) {
            return false;
        }
        let start = if column >= 2 && self.toks[column - 1].is_symbol(".") {
            column - 2
        } else {
            column
        };
        let whole_operand = start == 0 || {
            let b = &self.toks[start - 1];
            ["where", "and", "or", "on", "having", "when", "not"]
                .iter()
                .any(|w| b.is_word(w))
                || b.is_symbol("(")
                || b.is_symbol(",")
        };
        let Some(k) = schema.table_of(self, column) else {
            return false;
        };
        let Some((least, greatest)) = schema.text_bounds(k, unquote_ident(&t.text)) else {
            return false;
        };
        whole_operand
            && ((op.is_symbol("<=") && c == *least) || (op.is_symbol(">=") && c == *greatest))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{alike_on, tables};
    use super::super::ColumnFacts;

    #[test]
    fn an_equality_with_the_least_value_a_column_holds_is_at_most_it() {
        let tables = tables();
        let bounds = |b: Option<(&str, &str)>| ColumnFacts {
            text_bounds: vec![
                vec![
                    None,
                    None,
                    None,
                    b.map(|(l, g)| (l.to_owned(), g.to_owned())),
                ],
                vec![None, None, None],
            ],
            ..ColumnFacts::default()
        };
        let facts = bounds(Some(("+", "-x")));
        let gold = "SELECT Name FROM singer WHERE Country = '+' AND Age > 3";
        assert!(alike_on(
            &tables,
            &facts,
            gold,
            &gold.replace("= '+'", "<= '+'")
        ));
        let top = "SELECT Name FROM singer WHERE T.Country = '-x'".replace("T.", "");
        assert!(alike_on(
            &tables,
            &facts,
            &top,
            &top.replace("= '-x'", ">= '-x'")
        ));
        // The other direction, another constant, a column without bounds, an operand the
        // column is only part of: neighbors.
        assert!(!alike_on(
            &tables,
            &facts,
            gold,
            &gold.replace("= '+'", ">= '+'")
        ));
        let other = gold.replace("'+'", "'-'");
        assert!(!alike_on(
            &tables,
            &facts,
            &other,
            &other.replace("= '-'", "<= '-'")
        ));
        assert!(!alike_on(
            &tables,
            &bounds(None),
            gold,
            &gold.replace("= '+'", "<= '+'")
        ));
        let joined = "SELECT Name FROM singer WHERE Name || Country = '+'";
        assert!(!alike_on(
            &tables,
            &facts,
            joined,
            &joined.replace("= '+'", "<= '+'")
        ));
    }
}
