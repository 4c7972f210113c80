//! One cell of a result table, with the equality the official evaluator gets from Python.
//!
//! The reference fetches rows through Python's `sqlite3` module, so a cell is an `int`, a `float`,
//! a `str`, a `bytes` or `None`, and two cells are equal exactly when Python says so:
//! `1 == 1.0` (integers and floats compare by exact numeric value), a number never equals a
//! string, `None == None`. [`Value`]'s `Eq` and `Hash` follow those rules so that rows can be put in
//! hash-based multisets just as the reference puts them in `set`s and `dict`s.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};

use sqlsuite_reference::python::{python_bytes_repr, python_float_repr};

/// A typed cell value as SQLite returns it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Value {
    /// SQL NULL (Python `None`).
    Null,
    /// An integer.
    Int(i64),
    /// A floating-point number.
    Real(f64),
    /// Text.
    Text(String),
    /// Bytes (Python `bytes`).
    Blob(Vec<u8>),
}

/// The i64 an integral, in-range float stands for, if any (`-0.0` stands for `0`).
fn integral(f: f64) -> Option<i64> {
    // 2^63 as f64; every f64 in [-2^63, 2^63) that has no fraction is an exact i64.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if f.is_finite() && f.fract() == 0.0 && (-LIMIT..LIMIT).contains(&f) {
        Some(f as i64)
    } else {
        None
    }
}

/// Exact numeric ordering of an i64 against an f64, as Python compares `int` with `float`.
fn cmp_int_real(i: i64, f: f64) -> Ordering {
    if f.is_nan() {
        // NaN never comes out of SQLite (it turns NaN into NULL); order it after every number.
        return Ordering::Less;
    }
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if f >= LIMIT {
        return Ordering::Less;
    }
    if f < -LIMIT {
        return Ordering::Greater;
    }
    let whole = f.trunc();
    match i.cmp(&(whole as i64)) {
        Ordering::Equal => {
            let frac = f - whole;
            if frac > 0.0 {
                Ordering::Less
            } else if frac < 0.0 {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        }
        other => other,
    }
}

impl Value {
    /// Python's `str(x) + str(type(x))`: the key by which the reference sorts the cells of a row
    /// before its quick rejection test. Ties keep their order (Python's sort is stable).
    pub(crate) fn python_sort_key(&self) -> String {
        match self {
            Value::Null => "None<class 'NoneType'>".to_owned(),
            Value::Int(i) => format!("{i}<class 'int'>"),
            Value::Real(f) => format!("{}<class 'float'>", python_float_repr(*f)),
            Value::Text(s) => format!("{s}<class 'str'>"),
            Value::Blob(b) => format!("{}<class 'bytes'>", python_bytes_repr(b)),
        }
    }

    /// A total order consistent with [`Value`]'s equality: NULL, then numbers by exact value
    /// (integers and floats interleaved), then text, then blobs.
    pub fn total_cmp(&self, other: &Value) -> Ordering {
        fn rank(v: &Value) -> u8 {
            match v {
                Value::Null => 0,
                Value::Int(_) | Value::Real(_) => 1,
                Value::Text(_) => 2,
                Value::Blob(_) => 3,
            }
        }
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a.cmp(b),
            // `total_cmp` puts -0.0 before 0.0; Python says they are equal.
            (Value::Real(a), Value::Real(b)) if a == b => Ordering::Equal,
            (Value::Real(a), Value::Real(b)) => a.total_cmp(b),
            (Value::Int(a), Value::Real(b)) => cmp_int_real(*a, *b),
            (Value::Real(a), Value::Int(b)) => cmp_int_real(*b, *a).reverse(),
            (Value::Text(a), Value::Text(b)) => a.cmp(b),
            (Value::Blob(a), Value::Blob(b)) => a.cmp(b),
            _ => rank(self).cmp(&rank(other)),
        }
    }

    /// Equality with a relative tolerance on floats: `|a - b| <= tol * max(1, |a|, |b|)`.
    /// With `tol == 0` this is exactly `==`.
    pub(crate) fn approx_eq(&self, other: &Value, tol: f64) -> bool {
        if tol == 0.0 {
            return self == other;
        }
        let as_f64 = |v: &Value| match v {
            Value::Int(i) => Some(*i as f64),
            Value::Real(f) => Some(*f),
            _ => None,
        };
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a == b,
            _ => match (as_f64(self), as_f64(other)) {
                (Some(a), Some(b)) => {
                    let scale = 1f64.max(a.abs()).max(b.abs());
                    (a - b).abs() <= tol * scale
                }
                _ => self == other,
            },
        }
    }

    /// Rough heap size, for the result-size bound.
    pub fn weight(&self) -> usize {
        16 + match self {
            Value::Text(s) => s.len(),
            Value::Blob(b) => b.len(),
            _ => 0,
        }
    }

    /// The same type and the same value, bit for bit for floats (`1` is not `1.0`, nor `0.0`
    /// `-0.0`): what no test of the comparison can tell apart.
    pub fn identical(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Real(a), Value::Real(b)) => a.to_bits() == b.to_bits(),
            (Value::Text(a), Value::Text(b)) => a == b,
            (Value::Blob(a), Value::Blob(b)) => a == b,
            _ => false,
        }
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Null, Value::Null) => true,
            (Value::Int(a), Value::Int(b)) => a == b,
            // NaN never comes out of SQLite; treating it as equal to itself keeps `Eq` lawful.
            (Value::Real(a), Value::Real(b)) => a == b || (a.is_nan() && b.is_nan()),
            (Value::Int(a), Value::Real(b)) | (Value::Real(b), Value::Int(a)) => {
                integral(*b) == Some(*a)
            }
            (Value::Text(a), Value::Text(b)) => a == b,
            (Value::Blob(a), Value::Blob(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Value {}

impl Hash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            Value::Null => state.write_u8(0),
            Value::Int(i) => {
                state.write_u8(1);
                state.write_i64(*i);
            }
            Value::Real(f) => match integral(*f) {
                // Equal to an Int: hash like it.
                Some(i) => {
                    state.write_u8(1);
                    state.write_i64(i);
                }
                None => {
                    state.write_u8(2);
                    state.write_u64(if f.is_nan() { u64::MAX } else { f.to_bits() });
                }
            },
            Value::Text(s) => {
                state.write_u8(3);
                s.hash(state);
            }
            Value::Blob(b) => {
                state.write_u8(4);
                b.hash(state);
            }
        }
    }
}

/// Displays a value as a Python literal would read (`None`, `1`, `2.5`, `'text'`, `b'..'`),
/// the form users of the reference evaluator are used to seeing.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str("None"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Real(x) => f.write_str(&python_float_repr(*x)),
            Value::Text(s) => {
                let quote = if s.contains('\'') && !s.contains('"') {
                    '"'
                } else {
                    '\''
                };
                write!(f, "{quote}")?;
                for c in s.chars() {
                    match c {
                        '\\' => f.write_str("\\\\")?,
                        '\n' => f.write_str("\\n")?,
                        '\t' => f.write_str("\\t")?,
                        '\r' => f.write_str("\\r")?,
                        c if c == quote => write!(f, "\\{c}")?,
                        c => write!(f, "{c}")?,
                    }
                }
                write!(f, "{quote}")
            }
            Value::Blob(b) => f.write_str(&python_bytes_repr(b)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::hash_map::DefaultHasher;

    fn hash(v: &Value) -> u64 {
        let mut h = DefaultHasher::new();
        v.hash(&mut h);
        h.finish()
    }

    #[test]
    fn integers_equal_integral_floats_as_in_python() {
        assert_eq!(Value::Int(1), Value::Real(1.0));
        assert_eq!(hash(&Value::Int(1)), hash(&Value::Real(1.0)));
        assert_eq!(Value::Int(0), Value::Real(-0.0));
        assert_ne!(Value::Int(1), Value::Real(1.5));
        // 2^53 + 1 is not representable: Python compares exactly, so they differ.
        assert_ne!(
            Value::Int(9_007_199_254_740_993),
            Value::Real(9_007_199_254_740_992.0)
        );
        assert_ne!(
            Value::Int(i64::MAX),
            Value::Real(9_223_372_036_854_775_808.0)
        );
    }

    #[test]
    fn text_never_equals_a_number_and_null_equals_null() {
        assert_ne!(Value::Text("1".into()), Value::Int(1));
        assert_ne!(Value::Text("1".into()), Value::Blob(b"1".to_vec()));
        assert_eq!(Value::Null, Value::Null);
        assert_ne!(Value::Null, Value::Int(0));
    }

    #[test]
    fn total_order_agrees_with_equality() {
        let vals = [
            Value::Null,
            Value::Int(-3),
            Value::Real(-2.5),
            Value::Int(1),
            Value::Real(1.0),
            Value::Real(1.5),
            Value::Int(2),
            Value::Text("a".into()),
            Value::Blob(vec![0]),
        ];
        for a in &vals {
            for b in &vals {
                assert_eq!(a.total_cmp(b) == Ordering::Equal, a == b, "{a:?} vs {b:?}");
                assert_eq!(a.total_cmp(b), b.total_cmp(a).reverse(), "{a:?} vs {b:?}");
            }
        }
        assert_eq!(Value::Int(1).total_cmp(&Value::Real(1.5)), Ordering::Less);
        assert_eq!(Value::Real(0.5).total_cmp(&Value::Int(1)), Ordering::Less);
        assert_eq!(
            Value::Real(-0.0).total_cmp(&Value::Real(0.0)),
            Ordering::Equal
        );
    }

    #[test]
    fn python_sort_keys() {
        assert_eq!(Value::Int(5).python_sort_key(), "5<class 'int'>");
        assert_eq!(Value::Real(5.0).python_sort_key(), "5.0<class 'float'>");
        assert_eq!(Value::Null.python_sort_key(), "None<class 'NoneType'>");
        assert_eq!(Value::Text("x".into()).python_sort_key(), "x<class 'str'>");
    }

    #[test]
    fn tolerance_applies_to_numbers_only() {
        assert!(Value::Real(0.1 + 0.2).approx_eq(&Value::Real(0.3), 1e-9));
        assert!(!Value::Real(0.1 + 0.2).approx_eq(&Value::Real(0.3), 0.0));
        assert!(!Value::Real(1.0).approx_eq(&Value::Real(1.1), 1e-9));
        assert!(!Value::Text("a".into()).approx_eq(&Value::Text("b".into()), 1.0));
    }
}
