//! The vocabulary of a gold's conjunction, below the witness that parses and solves it
//! ([`super::witness`]) and the parents implied by enforced references
//! ([`super::witness_refs`]): cells (a column of one FROM alias), comparisons with a constant,
//! atoms, and SQLite's own ordering, text form and `LIKE` of values, by which a comparison holds;
//! the comparison and the constant a parsed operator and literal make.

use std::cmp::Ordering;

use rusqlite::types::Value;
use sqlparser::ast::{BinaryOperator, Value as SqlValue};

/// A column of one FROM alias: (alias, column position in the alias's table).
pub type Cell = (usize, usize);

/// A comparison of a cell with a constant.
#[derive(Debug, Clone, PartialEq)]
pub enum Cmp {
    Eq(Value),
    Ne(Value),
    Lt(Value),
    Le(Value),
    Gt(Value),
    Ge(Value),
    /// A LIKE pattern (`%`, `_`; case-insensitive for ASCII, as SQLite's).
    Like(String),
    NotLike(String),
}

impl Cmp {
    /// The comparison that holds exactly where this one does not (NULL aside).
    pub fn negated(&self) -> Cmp {
        match self.clone() {
            Cmp::Eq(v) => Cmp::Ne(v),
            Cmp::Ne(v) => Cmp::Eq(v),
            Cmp::Lt(v) => Cmp::Ge(v),
            Cmp::Le(v) => Cmp::Gt(v),
            Cmp::Gt(v) => Cmp::Le(v),
            Cmp::Ge(v) => Cmp::Lt(v),
            Cmp::Like(p) => Cmp::NotLike(p),
            Cmp::NotLike(p) => Cmp::Like(p),
        }
    }

    /// Does `v` satisfy it (SQLite's ordering: numbers before text, text bytewise)?
    pub fn holds(&self, v: &Value) -> bool {
        let ord = |c: &Value| compare(v, c);
        match self {
            Cmp::Eq(c) => ord(c) == Some(Ordering::Equal),
            Cmp::Ne(c) => ord(c).is_some_and(|o| o != Ordering::Equal),
            Cmp::Lt(c) => ord(c) == Some(Ordering::Less),
            Cmp::Le(c) => ord(c).is_some_and(|o| o != Ordering::Greater),
            Cmp::Gt(c) => ord(c) == Some(Ordering::Greater),
            Cmp::Ge(c) => ord(c).is_some_and(|o| o != Ordering::Less),
            Cmp::Like(p) => like(p, &text_of(v)),
            Cmp::NotLike(p) => !matches!(v, Value::Null) && !like(p, &text_of(v)),
        }
    }
}

/// One atom of the conjunction.
#[derive(Debug, Clone, PartialEq)]
pub enum Atom {
    /// `a.x = b.y`
    Join(Cell, Cell),
    /// `a.x op constant`
    Compare(Cell, Cmp),
    /// `NOT ( B OR … )` whose chosen branch `B` (the one [`Branches`] picks, as for any `OR`) is
    /// a conjunction of simple atoms (these): the witness leaves it to chance (random rows
    /// seldom meet `B`); its near miss holds `B`.
    Not(Vec<Atom>),
}

/// A value as SQLite reads it as text (`LIKE`): numbers written out, NULL and blobs empty.
pub fn text_of(v: &Value) -> String {
    match v {
        Value::Integer(n) => n.to_string(),
        Value::Real(x) => x.to_string(),
        Value::Text(s) => s.clone(),
        Value::Blob(_) | Value::Null => String::new(),
    }
}

/// SQLite's order of two values (NULL compares with nothing; numbers before text).
pub fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    let num = |v: &Value| match v {
        Value::Integer(n) => Some(*n as f64),
        Value::Real(x) => Some(*x),
        _ => None,
    };
    match (a, b) {
        (Value::Null, _) | (_, Value::Null) => None,
        (Value::Text(x), Value::Text(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        _ => match (num(a), num(b)) {
            (Some(x), Some(y)) => x.partial_cmp(&y),
            (Some(_), None) => Some(Ordering::Less),
            (None, Some(_)) => Some(Ordering::Greater),
            (None, None) => None,
        },
    }
}

/// SQLite's LIKE: `%` any run, `_` one character, ASCII letters without regard to case.
pub fn like(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().map(|c| c.to_ascii_lowercase()).collect();
    let t: Vec<char> = text.chars().map(|c| c.to_ascii_lowercase()).collect();
    // Classic two-pointer wildcard match.
    let (mut i, mut j) = (0, 0);
    let (mut star, mut mark) = (None, 0);
    while j < t.len() {
        if i < p.len() && (p[i] == '_' || p[i] == t[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '%' {
            star = Some(i);
            i += 1;
            mark = j;
        } else if let Some(s) = star {
            i = s + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '%')
}

/// A text matching the `LIKE` pattern `p` that keeps what it can of `template`: `p`'s
/// characters over the template's first ones (a `_` keeps the template's character), then,
/// when `p` ends in `%`, the rest of the template. `1971%` over `1990-01-08 00:00:00` is
/// `1971-01-08 00:00:00`, a date of the column's layout where `1971` alone is none. None when
/// `p` has a `%` before its end.
pub fn like_over(p: &str, template: &str) -> Option<String> {
    let (body, open) = match p.strip_suffix('%') {
        Some(body) => (body.trim_end_matches('%'), true),
        None => (p, false),
    };
    if body.contains('%') {
        return None;
    }
    let mut rest = template.chars();
    let mut out: String = body
        .chars()
        .map(|c| match (c, rest.next()) {
            ('_', Some(t)) => t,
            ('_', None) => 'a',
            (c, _) => c,
        })
        .collect();
    if open {
        out.extend(rest);
    }
    Some(out)
}

/// The comparison `cell op v` (or `v op cell` when `flipped`).
pub fn cmp(op: &BinaryOperator, v: Value, flipped: bool) -> Option<Cmp> {
    Some(match (op, flipped) {
        (BinaryOperator::Eq, _) => Cmp::Eq(v),
        (BinaryOperator::NotEq, _) => Cmp::Ne(v),
        (BinaryOperator::Lt, false) | (BinaryOperator::Gt, true) => Cmp::Lt(v),
        (BinaryOperator::LtEq, false) | (BinaryOperator::GtEq, true) => Cmp::Le(v),
        (BinaryOperator::Gt, false) | (BinaryOperator::Lt, true) => Cmp::Gt(v),
        (BinaryOperator::GtEq, false) | (BinaryOperator::LtEq, true) => Cmp::Ge(v),
        _ => return None,
    })
}

/// A literal as a value: a number (an integer where it is one), a quoted string.
pub fn constant(v: &SqlValue) -> Option<Value> {
    match v {
        SqlValue::Number(n, _) => {
            let n = n.to_string();
            n.parse::<i64>()
                .map(Value::Integer)
                .or_else(|_| n.parse::<f64>().map(Value::Real))
                .ok()
        }
        SqlValue::SingleQuotedString(s) | SqlValue::DoubleQuotedString(s) => {
            Some(Value::Text(s.clone()))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_and_order_as_sqlite() {
        assert!(like("%VLDB%", "pvldb journal"));
        assert!(like("a_c", "ABC"));
        assert!(!like("a_c", "abbc"));
        assert!(like("%", ""));
        assert!(!like("x%", ""));
        assert_eq!(
            compare(&Value::Integer(3), &Value::Text("1".into())),
            Some(Ordering::Less)
        );
        assert_eq!(
            compare(&Value::Real(2.5), &Value::Integer(2)),
            Some(Ordering::Greater)
        );
        assert!(Cmp::Gt(Value::Integer(2005)).holds(&Value::Integer(2006)));
        assert!(!Cmp::Gt(Value::Integer(2005)).holds(&Value::Integer(2005)));
        assert!(!Cmp::Ne(Value::Integer(1)).holds(&Value::Null));
    }

    #[test]
    fn a_prefix_pattern_over_a_template_keeps_the_templates_layout() {
        let date = "1990-01-08 00:00:00";
        assert_eq!(
            like_over("1971%", date).as_deref(),
            Some("1971-01-08 00:00:00")
        );
        assert_eq!(
            like_over("1981-11-%", date).as_deref(),
            Some("1981-11-08 00:00:00")
        );
        assert_eq!(
            like_over("2015-05-01%%", date).as_deref(),
            Some("2015-05-01 00:00:00")
        );
        assert_eq!(
            like_over("__70%", date).as_deref(),
            Some("1970-01-08 00:00:00")
        );
        // Without a final `%` the pattern's length stands; a template too short leaves `_` to
        // a letter; an inner `%` is no prefix.
        assert_eq!(like_over("a_c", "xyz").as_deref(), Some("ayc"));
        assert_eq!(like_over("ab__", "x").as_deref(), Some("abaa"));
        assert_eq!(like_over("%1971%", date), None);
        for p in ["1971%", "1981-11-%", "__70%", "a_c"] {
            let v = like_over(p, date).expect("a prefix pattern");
            assert!(like(p, &v), "{p} {v}");
        }
    }
}
