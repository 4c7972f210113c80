//! A comparison of a prefix or a suffix of a cell's text with a constant, read as atoms of the
//! cell itself for the witness ([`super::witness`]), which otherwise leaves functions to chance.
//! BIRD's golds filter dates so: `SUBSTR(T2.date, 1, 10) = '2016-06-23'`, `STRFTIME('%Y', dob)
//! = '1971'`, `STRFTIME('%Y', OpenDate) BETWEEN '2009' AND '2010'`; and identifiers by their
//! end: `SUBSTR(T.atom_id, -2) = '19'`.
//!
//! The prefix: `SUBSTR(c, 1, n)` (or `SUBSTRING`) of a text cell; `STRFTIME(f, c)` with `f`
//! one of `%Y`, `%Y-%m`, `%Y-%m-%d` on a column whose values are dates in a layout that begins
//! so (`%Y-%m-%d`, `%Y-%m-%d %H:%M:%S`): the first 4, 7 or 10 characters. The suffix:
//! `SUBSTR(c, -n)` or `SUBSTR(c, -n, n)` of a text cell, its last `n` characters (all of a
//! shorter text). For a text constant `v` of the affix's length `n` (SQLite compares text
//! byte by byte):
//!
//! - `prefix = v` holds where `c LIKE 'v%'` does, and `suffix = v` where `c LIKE '%v'` does,
//!   when `v` has neither letters (`LIKE` ignores their case, `=` does not) nor wildcards (a
//!   text shorter than `n` is its own suffix, and differs from `v` as it is no `LIKE` match);
//! - `prefix >= v` holds where `c >= v` does (the first `n` characters decide, and a longer
//!   text is after its prefix), `prefix < v` where `c < v`;
//! - `prefix > v` holds where `c >= v⁺` does, `prefix <= v` where `c < v⁺`, with `v⁺` the next
//!   text of `n` digits (`1985` → `1986`); `BETWEEN` is the pair.
//!
//! Anything else (another start, a number for a constant, a letter in an equality, a suffix
//! compared by order) gives no atom.

use rusqlite::types::Value;
use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, FunctionArguments};

use super::atoms::{Atom, Cell, Cmp};

/// Which end of the text an [`Affix`] takes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Side {
    Start,
    End,
}

/// A prefix or a suffix of a cell's text: the cell, the affix's length in characters and its
/// side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Affix {
    pub cell: Cell,
    pub len: usize,
    pub side: Side,
}

/// What the witness knows of an expression (a cell, a constant) and of a cell (whether it
/// holds text, the date layout of its column).
pub trait Cells {
    fn cell(&self, e: &Expr) -> Option<Cell>;
    fn constant(&self, e: &Expr) -> Option<Value>;
    fn is_text(&self, cell: Cell) -> bool;
    fn date_layout(&self, cell: Cell) -> Option<&str>;
}

/// The affix `e` answers, if it is one.
pub fn affix(e: &Expr, cells: &dyn Cells) -> Option<Affix> {
    match e {
        Expr::Nested(inner) => affix(inner, cells),
        Expr::Substring {
            expr,
            substring_from: Some(from),
            substring_for,
            ..
        } => {
            let cell = cells.cell(expr)?;
            let length = match substring_for {
                Some(length) => match cells.constant(length)? {
                    Value::Integer(n) => Some(usize::try_from(n).ok().filter(|&n| n > 0)?),
                    _ => return None,
                },
                None => None,
            };
            let (side, len) = match (cells.constant(from)?, length) {
                (Value::Integer(1), Some(len)) => (Side::Start, len),
                (Value::Integer(from), length) if from < 0 => {
                    let len = usize::try_from(from.unsigned_abs()).ok()?;
                    length
                        .is_none_or(|n| n == len)
                        .then_some((Side::End, len))?
                }
                _ => return None,
            };
            cells.is_text(cell).then_some(Affix { cell, len, side })
        }
        Expr::Function(f) if f.name.to_string().eq_ignore_ascii_case("strftime") => {
            let FunctionArguments::List(list) = &f.args else {
                return None;
            };
            let [format, date] = list.args.as_slice() else {
                return None;
            };
            let (
                FunctionArg::Unnamed(FunctionArgExpr::Expr(format)),
                FunctionArg::Unnamed(FunctionArgExpr::Expr(date)),
            ) = (format, date)
            else {
                return None;
            };
            let Some(Value::Text(format)) = cells.constant(format) else {
                return None;
            };
            let len = match format.as_str() {
                "%Y" => 4,
                "%Y-%m" => 7,
                "%Y-%m-%d" => 10,
                _ => return None,
            };
            let cell = cells.cell(date)?;
            cells
                .date_layout(cell)?
                .starts_with("%Y-%m-%d")
                .then_some(())?;
            Some(Affix {
                cell,
                len,
                side: Side::Start,
            })
        }
        _ => None,
    }
}

/// The atoms of `affix k`, the comparison as the witness reads it (constant on the right,
/// [`super::witness`]'s `cmp`).
pub fn compared(a: Affix, k: &Cmp) -> Vec<Atom> {
    let (Cmp::Eq(Value::Text(v))
    | Cmp::Ge(Value::Text(v))
    | Cmp::Lt(Value::Text(v))
    | Cmp::Gt(Value::Text(v))
    | Cmp::Le(Value::Text(v))) = k
    else {
        return Vec::new();
    };
    if v.chars().count() != a.len {
        return Vec::new();
    }
    let at = |k: Cmp| vec![Atom::Compare(a.cell, k)];
    let next = || successor(v).map(Value::Text);
    let plain = !v.contains(['%', '_']) && v.to_lowercase() == v.to_uppercase();
    match (a.side, k) {
        (Side::Start, Cmp::Eq(_)) if plain => at(Cmp::Like(format!("{v}%"))),
        (Side::End, Cmp::Eq(_)) if plain => at(Cmp::Like(format!("%{v}"))),
        (Side::Start, Cmp::Ge(_)) => at(Cmp::Ge(Value::Text(v.clone()))),
        (Side::Start, Cmp::Lt(_)) => at(Cmp::Lt(Value::Text(v.clone()))),
        (Side::Start, Cmp::Gt(_)) => next().map_or(Vec::new(), |n| at(Cmp::Ge(n))),
        (Side::Start, Cmp::Le(_)) => next().map_or(Vec::new(), |n| at(Cmp::Lt(n))),
        _ => Vec::new(),
    }
}

/// The atoms of `affix BETWEEN lo AND hi`.
pub fn between(a: Affix, lo: &Value, hi: &Value) -> Vec<Atom> {
    let low = compared(a, &Cmp::Ge(lo.clone()));
    let high = compared(a, &Cmp::Le(hi.clone()));
    if low.is_empty() || high.is_empty() {
        return Vec::new();
    }
    low.into_iter().chain(high).collect()
}

/// The next text of as many digits (`1985` → `1986`, `0999` → `1000`); none for a text that
/// is not all digits or is all nines.
fn successor(v: &str) -> Option<String> {
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut digits = v.as_bytes().to_vec();
    for d in digits.iter_mut().rev() {
        if *d == b'9' {
            *d = b'0';
        } else {
            *d += 1;
            return String::from_utf8(digits).ok();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atoms::like;
    use crate::atoms::{cmp, constant};
    use sqlparser::ast::UnaryOperator;
    use sqlparser::dialect::SQLiteDialect;
    use sqlparser::parser::Parser;

    /// One text column `x` (cell (0, 0)) with ISO dates, one integer column `n` (cell (0, 1)).
    struct OneTable;

    impl Cells for OneTable {
        fn cell(&self, e: &Expr) -> Option<Cell> {
            match e {
                Expr::Identifier(id) if id.value == "x" => Some((0, 0)),
                Expr::Identifier(id) if id.value == "n" => Some((0, 1)),
                _ => None,
            }
        }
        fn constant(&self, e: &Expr) -> Option<Value> {
            match e {
                Expr::Value(v) => constant(&v.value),
                Expr::UnaryOp {
                    op: UnaryOperator::Minus,
                    expr,
                } => match self.constant(expr)? {
                    Value::Integer(n) => Some(Value::Integer(-n)),
                    _ => None,
                },
                _ => None,
            }
        }
        fn is_text(&self, cell: Cell) -> bool {
            cell == (0, 0)
        }
        fn date_layout(&self, cell: Cell) -> Option<&str> {
            (cell == (0, 0)).then_some("%Y-%m-%d %H:%M:%S")
        }
    }

    fn expr(sql: &str) -> Expr {
        Parser::new(&SQLiteDialect {})
            .try_with_sql(sql)
            .and_then(|mut p| p.parse_expr())
            .expect("parses")
    }

    /// The atoms of a comparison written `prefix op constant` or `constant op prefix`.
    fn atoms_of(sql: &str) -> Vec<Atom> {
        let Expr::BinaryOp { left, op, right } = expr(sql) else {
            panic!("{sql}: not a comparison")
        };
        let (p, v, flipped) = match (affix(&left, &OneTable), affix(&right, &OneTable)) {
            (Some(p), None) => (p, OneTable.constant(&right), false),
            (None, Some(p)) => (p, OneTable.constant(&left), true),
            _ => return Vec::new(),
        };
        v.and_then(|v| cmp(&op, v, flipped))
            .map_or(Vec::new(), |k| compared(p, &k))
    }

    fn text_value(s: &str) -> Value {
        Value::Text(s.into())
    }

    #[test]
    fn substr_and_strftime_equalities_are_prefix_patterns() {
        let like = |p: &str| vec![Atom::Compare((0, 0), Cmp::Like(p.into()))];
        assert_eq!(atoms_of("SUBSTR(x, 1, 7) = '1970-10'"), like("1970-10%"));
        assert_eq!(atoms_of("SUBSTRING(x, 1, 4) = '2012'"), like("2012%"));
        assert_eq!(atoms_of("STRFTIME('%Y', x) = '1971'"), like("1971%"));
        assert_eq!(
            atoms_of("'2016-06' = strftime('%Y-%m', x)"),
            like("2016-06%")
        );
        // Another start, a length that is not the constant's, letters, a number, an integer
        // column, a format that is no prefix: no atom.
        for sql in [
            "SUBSTR(x, 2, 4) = '2012'",
            "SUBSTR(x, 1, 4) = '201'",
            "SUBSTR(x, 1, 2) = 'ab'",
            "SUBSTR(x, 1, 4) = 2012",
            "SUBSTR(n, 1, 4) = '2012'",
            "STRFTIME('%m', x) = '10'",
            "SUBSTR(x, 1, 4) = '20_2'",
        ] {
            assert_eq!(atoms_of(sql), Vec::new(), "{sql}");
        }
    }

    #[test]
    fn substr_from_the_end_equal_to_a_constant_is_a_suffix_pattern() {
        let like = |p: &str| vec![Atom::Compare((0, 0), Cmp::Like(p.into()))];
        assert_eq!(atoms_of("SUBSTR(x, -2) = '19'"), like("%19"));
        assert_eq!(atoms_of("'_1' = SUBSTR(x, -2, 2)"), Vec::new());
        assert_eq!(atoms_of("SUBSTR(x, -3, 3) = '-01'"), like("%-01"));
        // A length that is not the constant's or not the suffix's, letters, an order, an
        // integer column: no atom.
        for sql in [
            "SUBSTR(x, -2) = '199'",
            "SUBSTR(x, -3, 2) = '19'",
            "SUBSTR(x, -2) = 'ab'",
            "SUBSTR(x, -2) >= '19'",
            "SUBSTR(n, -2) = '19'",
        ] {
            assert_eq!(atoms_of(sql), Vec::new(), "{sql}");
        }
    }

    #[test]
    fn year_ranges_become_ranges_of_the_date_text() {
        let on = |k: Cmp| Atom::Compare((0, 0), k);
        assert_eq!(
            atoms_of("STRFTIME('%Y', x) >= '1980'"),
            vec![on(Cmp::Ge(text_value("1980")))]
        );
        assert_eq!(
            atoms_of("STRFTIME('%Y', x) > '1999'"),
            vec![on(Cmp::Ge(text_value("2000")))]
        );
        assert_eq!(
            atoms_of("'1985' >= STRFTIME('%Y', x)"),
            vec![on(Cmp::Lt(text_value("1986")))]
        );
        assert_eq!(
            atoms_of("STRFTIME('%Y', x) < '1980'"),
            vec![on(Cmp::Lt(text_value("1980")))]
        );
        let Expr::Between {
            expr: e, low, high, ..
        } = expr("STRFTIME('%Y', x) BETWEEN '2009' AND '2010'")
        else {
            panic!("not a BETWEEN")
        };
        let p = affix(&e, &OneTable).expect("a prefix");
        let (lo, hi) = (OneTable.constant(&low), OneTable.constant(&high));
        assert_eq!(
            between(p, &lo.expect("a constant"), &hi.expect("a constant")),
            vec![
                on(Cmp::Ge(text_value("2009"))),
                on(Cmp::Lt(text_value("2011")))
            ]
        );
        assert_eq!(successor("9999"), None);
        assert_eq!(successor("0999").as_deref(), Some("1000"));
    }

    /// Each atom holds on a date exactly where SQLite's comparison of the affix does.
    #[test]
    fn the_atoms_hold_where_sqlite_compares_the_prefix_so() {
        let conn = rusqlite::Connection::open_in_memory().expect("in memory");
        let dates = [
            "1979-12-31 23:59:59",
            "1980-01-01 00:00:00",
            "1985-06-30 12:00:00",
            "1985-12-31 23:59:59",
            "1986-01-01 00:00:00",
            "2009-05-01 00:00:00",
            "2010-12-31 00:00:00",
            "2011-01-01 00:00:00",
        ];
        for sql in [
            "STRFTIME('%Y', x) = '1985'",
            "STRFTIME('%Y', x) >= '1980'",
            "STRFTIME('%Y', x) > '1985'",
            "STRFTIME('%Y', x) <= '1985'",
            "STRFTIME('%Y', x) < '1986'",
            "SUBSTR(x, 1, 7) = '1985-06'",
            "STRFTIME('%Y-%m-%d', x) = '2010-12-31'",
            "SUBSTR(x, -2) = '59'",
            "SUBSTR(x, -5, 5) = '31 23'",
        ] {
            let atoms = atoms_of(sql);
            assert_eq!(atoms.len(), 1, "{sql}");
            for date in dates {
                let sqlite: bool = conn
                    .query_row(&format!("SELECT {}", sql.replace('x', "?1")), [date], |r| {
                        r.get(0)
                    })
                    .expect("runs");
                let ours = atoms.iter().all(|a| match a {
                    Atom::Compare(_, k) => k.holds(&text_value(date)),
                    _ => false,
                });
                assert_eq!(ours, sqlite, "{sql} on {date}");
                if let [Atom::Compare(_, Cmp::Like(p))] = atoms.as_slice() {
                    assert_eq!(like(p, date), sqlite, "{sql} on {date}");
                }
            }
        }
    }
}
