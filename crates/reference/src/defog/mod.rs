//! Defog SQL-Eval's database-independent part: gold expansion ([`expand_gold`]) and result
//! comparison ([`compare`]), in two modes.
//!
//! * [`Mode::Compat`] reproduces Defog's `compare_query_results` (pandas 2.3) verdict for verdict,
//!   including its quirks: a broadcasting fast path, `ORDER BY` without a direction read as
//!   descending, errors on duplicate column names and on sorting a single column of mixed types,
//!   exact float equality in the exact match but `rtol=1e-5` in the subset match, nulls filled with
//!   `-99999` before comparing, columns lined up by sorted name (an alias can break an exact match).
//! * [`Mode::Default`] fixes those quirks (see [`compare`]); [`Fixes`] toggles them one by one.
//!
//! Gold expansion ([`expand_gold`]) is the reference's naive one by default (a `;` or brace
//! inside a string literal is structure); [`expand_gold_literal_aware`] is the literal-aware
//! variant.
//!
//! Tables are plain values ([`Table`]): columns, pandas-style dtypes and typed cells.

mod compare;
mod expand;

pub use compare::{compare, compare_with_fixes, compare_with_gold_sql, Comparison, Fixes, Mode};
pub use expand::{expand_gold, expand_gold_literal_aware};

use serde_json::Value;

/// One cell of a result table.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// SQL NULL (pandas `None`, `NaN` or `NaT` depending on the column's dtype).
    Null,
    /// An integer (pandas `int64`).
    Int(i64),
    /// A float (pandas `float64`).
    Float(f64),
    /// A boolean (pandas `bool`).
    Bool(bool),
    /// Text, and every other value pandas holds as an `object`.
    Text(String),
    /// A timestamp as ISO text (`2023-01-01T00:00:00`, `+00:00` when time-zone aware); ordered
    /// and compared as text, which is chronological for one format.
    DateTime(String),
    /// A duration in nanoseconds (pandas `timedelta64[ns]`).
    Duration(i64),
}

/// A result table independent of any database.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    /// The query that produced the table, when known (its `ORDER BY` steers normalisation).
    pub sql: Option<String>,
    /// The column names, in the result's order (duplicates possible).
    pub columns: Vec<String>,
    /// pandas dtype names (`int64`, `float64`, `bool`, `object`, `datetime64[ns]`,
    /// `datetime64[ns, UTC]`, `timedelta64[ns]`); one per column.
    pub dtypes: Vec<String>,
    /// The rows, each one cell per column, in the result's order.
    pub rows: Vec<Vec<Cell>>,
}

impl Table {
    /// A table whose dtypes are inferred from its cells the way pandas would (all ints:
    /// `int64`; ints/floats/nulls: `float64`; all bools: `bool`; else `object`).
    pub fn new(columns: Vec<String>, rows: Vec<Vec<Cell>>) -> Table {
        let dtypes = (0..columns.len())
            .map(|j| infer_dtype(rows.iter().filter_map(|r| r.get(j))))
            .collect();
        Table {
            sql: None,
            columns,
            dtypes,
            rows,
        }
    }

    /// Sets the producing SQL.
    pub fn with_sql(mut self, sql: impl Into<String>) -> Table {
        self.sql = Some(sql.into());
        self
    }

    /// The number of rows.
    pub(crate) fn n_rows(&self) -> usize {
        self.rows.len()
    }

    /// The number of columns.
    pub(crate) fn n_cols(&self) -> usize {
        self.columns.len()
    }

    pub(crate) fn dtype(&self, j: usize) -> &str {
        self.dtypes.get(j).map_or("object", String::as_str)
    }
}

fn infer_dtype<'a>(cells: impl Iterator<Item = &'a Cell>) -> String {
    let (mut ints, mut floats, mut nulls, mut bools, mut other, mut dt, mut td) =
        (0, 0, 0, 0, 0, 0, 0);
    for c in cells {
        match c {
            Cell::Null => nulls += 1,
            Cell::Int(_) => ints += 1,
            Cell::Float(_) => floats += 1,
            Cell::Bool(_) => bools += 1,
            Cell::Text(_) => other += 1,
            Cell::DateTime(_) => dt += 1,
            Cell::Duration(_) => td += 1,
        }
    }
    let total = ints + floats + nulls + bools + other + dt + td;
    let name = if total == 0 || other > 0 {
        "object"
    } else if ints == total {
        "int64"
    } else if bools == total {
        "bool"
    } else if ints + floats + nulls == total && ints + floats > 0 {
        "float64"
    } else if dt + nulls == total && dt > 0 {
        "datetime64[ns]"
    } else if td + nulls == total && td > 0 {
        "timedelta64[ns]"
    } else {
        "object"
    };
    name.to_owned()
}

/// Parses pandas' `timedelta64` text (`1462 days 14:45:00`, `-1 days +23:00:00.5`) into
/// nanoseconds.
fn parse_timedelta(text: &str) -> Option<i64> {
    let text = text.trim();
    let (days, clock) = match text.find(" days") {
        Some(at) => (
            text[..at].trim().parse::<i64>().ok()?,
            text[at + 5..].trim().trim_start_matches('+'),
        ),
        None => match text.find(" day") {
            Some(at) => (
                text[..at].trim().parse::<i64>().ok()?,
                text[at + 4..].trim().trim_start_matches('+'),
            ),
            None => (0, text),
        },
    };
    let mut nanos = days.checked_mul(86_400_000_000_000)?;
    if !clock.is_empty() {
        let parts: Vec<&str> = clock.split(':').collect();
        if parts.len() != 3 {
            return None;
        }
        let h: i64 = parts[0].parse().ok()?;
        let m: i64 = parts[1].parse().ok()?;
        let (s, frac) = match parts[2].split_once('.') {
            Some((s, f)) => (s, f),
            None => (parts[2], ""),
        };
        let s: i64 = s.parse().ok()?;
        let mut frac_ns: i64 = 0;
        for (i, ch) in frac.chars().take(9).enumerate() {
            let d = i64::from(ch.to_digit(10)?);
            frac_ns += d * 10_i64.pow(8 - i as u32);
        }
        nanos = nanos.checked_add(((h * 60 + m) * 60 + s) * 1_000_000_000 + frac_ns)?;
    }
    Some(nanos)
}

fn cell_from_json(value: &Value, dtype: &str) -> Result<Cell, String> {
    Ok(match value {
        Value::Null => Cell::Null,
        Value::Bool(b) => Cell::Bool(*b),
        Value::Number(n) => {
            if dtype != "float64" {
                if let Some(i) = n.as_i64() {
                    return Ok(Cell::Int(i));
                }
            }
            Cell::Float(
                n.as_f64()
                    .ok_or_else(|| format!("number {n} out of range"))?,
            )
        }
        Value::String(s) if dtype.starts_with("datetime64") => Cell::DateTime(s.clone()),
        Value::String(s) if dtype.starts_with("timedelta64") => {
            parse_timedelta(s).map_or_else(|| Cell::Text(s.clone()), Cell::Duration)
        }
        Value::String(s) => Cell::Text(s.clone()),
        other => Cell::Text(other.to_string()),
    })
}

/// Builds a table from the reference's JSON form: an object with `columns`, `dtypes`, `rows`
/// (nulls for `NaN`/`None`/`NaT`) and optionally `sql`.
fn table_from_reference_json(value: &Value) -> Result<Table, String> {
    let obj = value.as_object().ok_or("table is not a JSON object")?;
    let columns: Vec<String> = obj
        .get("columns")
        .and_then(Value::as_array)
        .ok_or("table has no `columns` array")?
        .iter()
        .map(|c| match c {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    let dtypes: Vec<String> = match obj.get("dtypes").and_then(Value::as_array) {
        Some(d) => d
            .iter()
            .map(|t| t.as_str().unwrap_or("object").to_owned())
            .collect(),
        None => vec!["object".to_owned(); columns.len()],
    };
    if dtypes.len() != columns.len() {
        return Err(format!(
            "{} dtypes for {} columns",
            dtypes.len(),
            columns.len()
        ));
    }
    let mut rows = Vec::new();
    for row in obj
        .get("rows")
        .and_then(Value::as_array)
        .ok_or("table has no `rows` array")?
    {
        let cells = row.as_array().ok_or("row is not an array")?;
        if cells.len() != columns.len() {
            return Err(format!(
                "row of {} cells for {} columns",
                cells.len(),
                columns.len()
            ));
        }
        rows.push(
            cells
                .iter()
                .zip(&dtypes)
                .map(|(v, d)| cell_from_json(v, d))
                .collect::<Result<Vec<_>, _>>()?,
        );
    }
    Ok(Table {
        sql: obj.get("sql").and_then(Value::as_str).map(str::to_owned),
        columns,
        dtypes,
        rows,
    })
}

/// Parses a JSON document holding one table (object) or several (array of objects).
pub fn tables_from_reference_json(text: &str) -> Result<Vec<Table>, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    match &value {
        Value::Array(items) => items.iter().map(table_from_reference_json).collect(),
        Value::Null => Ok(Vec::new()),
        other => Ok(vec![table_from_reference_json(other)?]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_tables_keep_dtypes_and_nulls() {
        let t = tables_from_reference_json(
            r#"{"sql": "SELECT 1", "columns": ["a", "b", "c", "d"], "dtypes": ["int64", "float64", "object", "timedelta64[ns]"], "rows": [[1, 2.0, "x", "1 days 01:00:00"], [2, null, null, "0 days 00:00:00.5"]]}"#,
        )
        .unwrap();
        assert_eq!(t.len(), 1);
        let t = &t[0];
        assert_eq!(t.sql.as_deref(), Some("SELECT 1"));
        assert_eq!(t.rows[0][1], Cell::Float(2.0));
        assert_eq!(t.rows[1][1], Cell::Null);
        assert_eq!(t.rows[0][3], Cell::Duration(90_000_000_000_000));
        assert_eq!(t.rows[1][3], Cell::Duration(500_000_000));
        assert!(tables_from_reference_json("[1]").is_err());
    }

    #[test]
    fn inferred_dtypes() {
        let t = Table::new(
            vec!["a".into(), "b".into(), "c".into()],
            vec![
                vec![Cell::Int(1), Cell::Int(1), Cell::Text("x".into())],
                vec![Cell::Int(2), Cell::Null, Cell::Int(3)],
            ],
        );
        assert_eq!(t.dtypes, vec!["int64", "float64", "object"]);
    }
}
