//! Edits of names that leave every value ([`super::edit_alike`]):
//!
//! - **A select item's alias dropped** (`COUNT(t1.id) percent` → `COUNT(t1.id)`, `AS age`),
//!   where no other word of the query is that alias: it names a column of the answer, which is
//!   compared by its values (BIRD's items 132, 136, 143, 163, 178).
//! - **A qualifier dropped** (`colour.colour` → `colour`) in a query of one `SELECT` whose
//!   one FROM item with that column is the qualified one: the bare name means the same column
//!   (BIRD's item 250).

use super::edit_alike::{Edit, Schema};
use super::{unquote_ident, Query};
use sqlsuite::sql_tokens::TokenKind;

impl Query<'_> {
    /// True if `edit` drops an alias nothing reads or a qualifier the column does not need
    /// (module doc).
    pub(super) fn naming_alike(&self, edit: &Edit, schema: &Schema) -> bool {
        edit.with.is_empty() && (self.alias_dropped(edit) || self.qualifier_dropped(edit, schema))
    }

    fn alias_dropped(&self, edit: &Edit) -> bool {
        let (f, t) = (edit.from, edit.to);
        let alias = t - 1;
        let shape = match t - f {
            1 => true,
            2 => self.toks[f].is_word("as"),
            _ => false,
        };
        let word = |j: usize| self.toks[j].kind == TokenKind::Word && !self.is_keyword(j);
        if !shape || f == 0 || !word(alias) {
            return false;
        }
        let before = &self.toks[f - 1];
        let ends_expression = before.is_symbol(")")
            || matches!(
                before.kind,
                TokenKind::Int | TokenKind::Float | TokenKind::Str | TokenKind::Word
            );
        let item_ends = self
            .toks
            .get(t)
            .is_some_and(|n| n.is_symbol(",") || n.is_word("from"));
        let in_select = self
            .clause_of(f)
            .is_some_and(|c| self.toks[c].is_word("select"));
        let name = unquote_ident(&self.toks[alias].text).to_lowercase();
        let read_elsewhere = self.toks.iter().enumerate().any(|(j, w)| {
            j != alias
                && w.kind == TokenKind::Word
                && unquote_ident(&w.text).eq_ignore_ascii_case(&name)
        });
        ends_expression && item_ends && in_select && !read_elsewhere
    }

    fn qualifier_dropped(&self, edit: &Edit, schema: &Schema) -> bool {
        let (f, t) = (edit.from, edit.to);
        t == f + 2 && self.toks[f + 1].is_symbol(".") && self.needs_no_qualifier(t, schema)
    }

    /// The column named at token `c` (qualified) means the same without its qualifier: the
    /// query has one `SELECT`, one FROM item over the column's table, and no other FROM item
    /// with a column of that name.
    pub(super) fn needs_no_qualifier(&self, c: usize, schema: &Schema) -> bool {
        let Some(column) = self.toks.get(c).filter(|w| w.kind == TokenKind::Word) else {
            return false;
        };
        let t = c;
        let one_block = self.toks.iter().filter(|w| w.is_word("select")).count() == 1;
        let name = unquote_ident(&column.text);
        let Some(k) = schema.table_of(self, t) else {
            return false;
        };
        let table = schema.tables[k].0.as_str();
        let items = (1..self.toks.len())
            .filter(|&j| {
                unquote_ident(&self.toks[j].text).eq_ignore_ascii_case(table)
                    && (self.toks[j - 1].is_word("from")
                        || self.toks[j - 1].is_word("join")
                        || self.toks[j - 1].is_symbol(","))
            })
            .count();
        one_block && items == 1 && schema.only_owner(&name.to_lowercase()) == Some(k)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::alike;

    #[test]
    fn names_that_leave_every_value_are_no_edit() {
        let gold = "SELECT COUNT(T1.Age) percent, T1.Name AS n FROM singer AS T1 WHERE T1.Age > 3";
        for n in [
            gold.replace(" percent,", ","),
            gold.replace(" AS n FROM", " FROM"),
            gold.replace("T1.Name", "Name"),
        ] {
            assert!(alike(gold, &n), "{n}");
        }
        // An alias read elsewhere, a qualifier two FROM items need, another column: neighbors.
        let ordered = "SELECT T1.Name AS n FROM singer AS T1 ORDER BY n";
        assert!(!alike(ordered, &ordered.replace(" AS n FROM", " FROM")));
        let joined = "SELECT T1.Singer_ID FROM singer AS T1 JOIN concert AS T2 ON T1.Singer_ID = T2.Singer_ID";
        assert!(!alike(
            joined,
            &joined.replacen("T1.Singer_ID", "Singer_ID", 1)
        ));
        let twice = "SELECT T1.Name FROM singer AS T1 JOIN singer AS T2 ON T1.Age = T2.Age";
        assert!(!alike(twice, &twice.replacen("T1.Name", "Name", 1)));
    }
}
