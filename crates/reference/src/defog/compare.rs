//! Result comparison: Defog's exact and subset matches.
//!
//! Length: about 850 lines of code and 270 of unit tests, which pin down Defog's quirks one by
//! one and so stay beside the code they test.

use std::cmp::Ordering;

use super::{Cell, Table};

/// Which behaviour [`compare`] follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Defog's `compare_query_results` (pandas 2.3.3, `decimal_points=None`), quirks included.
    Compat,
    /// The quirks fixed: see [`compare`].
    #[default]
    Default,
}

/// The individual fixes of [`Mode::Default`]; [`Mode::Compat`] is [`Fixes::none`], `Default`
/// has every fix. Used to attribute a changed verdict to a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fixes {
    /// Fast path only for identical shapes (quirk 1).
    pub no_broadcast: bool,
    /// `ORDER BY` without a direction sorts ascending (quirk 2).
    pub order_by_ascending: bool,
    /// Every gold alternative is normalised by its own SQL, not the whole gold text.
    pub own_gold_sql: bool,
    /// Exact cells within tolerance; a null equals only a null (quirk 3).
    pub tolerant_exact: bool,
    /// Duplicate column names and mixed-type columns do not raise (quirks 4, 5).
    pub no_raise: bool,
    /// Exact match ignores column names: any column bijection, not the name-sorted order
    /// (quirk 6).
    pub column_bijection: bool,
}

impl Fixes {
    /// No fix: the reference's behaviour.
    pub fn none() -> Fixes {
        Fixes {
            no_broadcast: false,
            order_by_ascending: false,
            own_gold_sql: false,
            tolerant_exact: false,
            no_raise: false,
            column_bijection: false,
        }
    }

    /// Every fix.
    pub(crate) fn all() -> Fixes {
        Fixes {
            no_broadcast: true,
            order_by_ascending: true,
            own_gold_sql: true,
            tolerant_exact: true,
            no_raise: true,
            column_bijection: true,
        }
    }
}

impl From<Mode> for Fixes {
    fn from(mode: Mode) -> Fixes {
        match mode {
            Mode::Compat => Fixes::none(),
            Mode::Default => Fixes::all(),
        }
    }
}

/// The outcome of comparing one candidate with a gold's alternatives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    /// Some gold alternative equals the candidate (Defog's `exact_match`).
    pub exact_match: bool,
    /// An exact match, or some gold alternative is a subset of the candidate (Defog's
    /// `correct`).
    pub correct: bool,
    /// Which alternative decided the verdict and how, or why the reference raised.
    pub reason: String,
    /// The reference raises here (compat mode); the pair scores 0/0.
    pub raised: bool,
}

/// The value the reference fills nulls with before the exact comparison.
const NULL_FILL: i64 = -99_999;
/// `assert_series_equal`'s default tolerances for inexact columns.
const RTOL: f64 = 1e-5;
const ATOL: f64 = 1e-8;

/// Compares `candidate` with every gold alternative, in order: the first exact match gives
/// `exact_match = correct = true`; otherwise `correct` is true when some alternative's columns
/// are a subset of the candidate's. The `ORDER BY` that steers ordered normalisation is read from
/// each table's own `sql`; use [`compare_with_gold_sql`] to pass the gold text the reference
/// reads (it reads the whole unexpanded gold for every alternative).
///
/// Rules (both modes unless noted):
/// * *ordered* when `query_category == "order_by"` or the lower-cased question contains the word
///   `order`, `sort` or `arrange`;
/// * exact: duplicate rows dropped, columns sorted by name, rows sorted by all columns unless
///   ordered; when ordered and the table's SQL has an `ORDER BY`, rows are sorted by the
///   `ORDER BY` columns found among the output names, then the others, and those columns moved to
///   the end; then equal shapes and equal cells (column names ignored);
/// * subset: every gold column equals (sorted values) a distinct candidate column; then the matched
///   candidate columns, renamed to the gold names, normalised as above (no SQL, so ordered tables
///   keep their row order) must equal the gold; floats within `rtol=1e-5, atol=1e-8` unless a
///   side is an integer/bool column; an empty gold is never a subset.
///
/// Compat quirks that [`Mode::Default`] fixes:
/// 1. fast path: the unnormalised tables are compared element-wise with numpy broadcasting, so a
///    1-row gold equals n identical rows, a 0-row table equals a 1-row one, a 1-column gold equals
///    every column of a candidate (Default: only identical shapes);
/// 2. `ORDER BY` without `ASC`/`DESC` sorts descending, one direction for all keys (Default:
///    ascending);
/// 3. exact cells: floats compared exactly (`0.1+0.2 != 0.3`) and nulls filled with `-99999`, so
///    a null equals -99999 (Default: `rtol/atol` as in subset, null equals only null);
/// 4. duplicate column names make normalisation raise, and so does sorting a single column that
///    mixes numbers and text (verdict 0/0) (Default: names deduplicated, numbers sort before text);
/// 5. in subset, a candidate with duplicate column names raises when a duplicated column is
///    matched (Default: matched by position);
/// 6. exact match lines columns up by sorted name, so an aliased column that sorts elsewhere
///    breaks it (Default: any column bijection under which the rows are equal).
///
/// Default also reads every gold alternative's `ORDER BY` from its own SQL.
pub fn compare(
    gold_alternatives: &[Table],
    candidate: &Table,
    question: &str,
    query_category: &str,
    mode: Mode,
) -> Comparison {
    compare_with_gold_sql(
        gold_alternatives,
        None,
        candidate,
        question,
        query_category,
        mode,
    )
}

/// [`compare`], with `gold_sql` (when given) as the SQL whose `ORDER BY` normalises every gold
/// alternative in [`Mode::Compat`] — the reference passes the verbatim gold, braces and all
/// alternatives included. [`Mode::Default`] always reads each alternative's own `sql`.
pub fn compare_with_gold_sql(
    gold_alternatives: &[Table],
    gold_sql: Option<&str>,
    candidate: &Table,
    question: &str,
    query_category: &str,
    mode: Mode,
) -> Comparison {
    compare_with_fixes(
        gold_alternatives,
        gold_sql,
        candidate,
        question,
        query_category,
        mode.into(),
    )
}

/// [`compare_with_gold_sql`] with an explicit set of fixes (between compat and default).
pub fn compare_with_fixes(
    gold_alternatives: &[Table],
    gold_sql: Option<&str>,
    candidate: &Table,
    question: &str,
    query_category: &str,
    fixes: Fixes,
) -> Comparison {
    let mode = fixes;
    let ordered = asks_for_order(question, query_category);
    let mut subset_of = None;
    for (i, gold) in gold_alternatives.iter().enumerate() {
        let gsql = match gold_sql {
            Some(text) if !mode.own_gold_sql => Some(text),
            _ => gold.sql.as_deref(),
        };
        let outcome = exact(
            gold,
            candidate,
            ordered,
            gsql,
            candidate.sql.as_deref(),
            mode,
        )
        .and_then(|e| {
            if e {
                Ok((true, true))
            } else {
                subset(gold, candidate, ordered, mode).map(|s| (false, s))
            }
        });
        match outcome {
            Ok((true, _)) => {
                return Comparison {
                    exact_match: true,
                    correct: true,
                    reason: format!("exact match with gold alternative {i}"),
                    raised: false,
                }
            }
            Ok((false, true)) => {
                subset_of.get_or_insert(i);
            }
            Ok(_) => {}
            Err(e) => {
                return Comparison {
                    exact_match: false,
                    correct: false,
                    reason: format!("reference raises on gold alternative {i}: {e}"),
                    raised: true,
                }
            }
        }
    }
    match subset_of {
        Some(i) => Comparison {
            exact_match: false,
            correct: true,
            reason: format!("gold alternative {i} is a subset of the candidate"),
            raised: false,
        },
        None => Comparison {
            exact_match: false,
            correct: false,
            reason: format!(
                "no match with any of {} gold alternatives",
                gold_alternatives.len()
            ),
            raised: false,
        },
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `\b(order|sort|arrange)\b` in the lower-cased question, or the `order_by` category.
fn asks_for_order(question: &str, category: &str) -> bool {
    if category == "order_by" {
        return true;
    }
    let q = question.to_lowercase();
    ["order", "sort", "arrange"].iter().any(|word| {
        q.match_indices(word).any(|(at, _)| {
            let before = boundary(q[..at].chars().next_back());
            let after = boundary(q[at + word.len()..].chars().next());
            before && after
        })
    })
}

/// True when there is a word boundary on this side: no character or a non-word one.
fn boundary(c: Option<char>) -> bool {
    !c.is_some_and(is_word_char)
}

// ---------------------------------------------------------------- cell semantics

fn as_number(c: &Cell) -> Option<f64> {
    match c {
        Cell::Int(i) => Some(*i as f64),
        Cell::Float(f) => Some(*f),
        Cell::Bool(b) => Some(f64::from(u8::from(*b))),
        _ => None,
    }
}

fn int_of(c: &Cell) -> Option<i64> {
    match c {
        Cell::Int(i) => Some(*i),
        Cell::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
}

/// Python `==` between two non-null cells.
fn py_eq(a: &Cell, b: &Cell) -> bool {
    match (a, b) {
        (Cell::Text(x), Cell::Text(y)) | (Cell::DateTime(x), Cell::DateTime(y)) => x == y,
        (Cell::Duration(x), Cell::Duration(y)) => x == y,
        (Cell::Null, _) | (_, Cell::Null) => false,
        _ => match (int_of(a), int_of(b)) {
            (Some(x), Some(y)) => x == y,
            _ => match (a, b) {
                (Cell::Float(f), other) | (other, Cell::Float(f)) => match other {
                    Cell::Float(g) => f == g,
                    _ => match int_of(other) {
                        // exact int/float equality, as Python compares them
                        Some(i) => {
                            f.fract() == 0.0
                                && *f >= -9.223_372_036_854_776e18
                                && *f < 9.223_372_036_854_776e18
                                && (*f as i64) == i
                        }
                        None => false,
                    },
                },
                _ => false,
            },
        },
    }
}

fn is_number(c: &Cell) -> bool {
    matches!(c, Cell::Int(_) | Cell::Float(_) | Cell::Bool(_))
}

/// `math.isclose` with pandas' default tolerances.
fn close(a: f64, b: f64) -> bool {
    if a == b {
        return true;
    }
    if !a.is_finite() || !b.is_finite() {
        return false;
    }
    (a - b).abs() <= (RTOL * a.abs().max(b.abs())).max(ATOL)
}

/// pandas' `assert_almost_equal` on two cells (nulls match nulls).
fn almost_eq(a: &Cell, b: &Cell) -> bool {
    match (a, b) {
        (Cell::Null, Cell::Null) => true,
        (Cell::Null, _) | (_, Cell::Null) => false,
        (Cell::Text(_), _) | (_, Cell::Text(_)) => py_eq(a, b),
        _ if py_eq(a, b) => true,
        _ => match (as_number(a), as_number(b)) {
            (Some(x), Some(y)) if is_number(a) && is_number(b) => close(x, y),
            _ => false,
        },
    }
}

/// `is_numeric_dtype and not is_float_dtype`: pandas compares such columns exactly.
fn exact_dtype(dtype: &str) -> bool {
    dtype.starts_with("int") || dtype.starts_with("uint") || dtype == "bool"
}

/// `assert_series_equal(check_dtype=False, check_names=False)` on two value lists.
fn series_eq(a: &[&Cell], adtype: &str, b: &[&Cell], bdtype: &str) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let exact = exact_dtype(adtype) || exact_dtype(bdtype);
    a.iter().zip(b).all(|(x, y)| {
        if exact {
            matches!((x, y), (Cell::Null, Cell::Null)) || py_eq(x, y)
        } else {
            almost_eq(x, y)
        }
    })
}

/// Sort class: numbers before text (pandas' `_sort_mixed`), nulls handled by callers.
fn class(c: &Cell) -> u8 {
    match c {
        Cell::Text(_) | Cell::DateTime(_) => 1,
        _ => 0,
    }
}

/// Ascending order of two non-null cells.
fn value_cmp(a: &Cell, b: &Cell) -> Ordering {
    match class(a).cmp(&class(b)) {
        Ordering::Equal => {}
        other => return other,
    }
    match (a, b) {
        (Cell::Text(x) | Cell::DateTime(x), Cell::Text(y) | Cell::DateTime(y)) => x.cmp(y),
        (Cell::Duration(x), Cell::Duration(y)) => x.cmp(y),
        _ => {
            if py_eq(a, b) {
                return Ordering::Equal;
            }
            match (int_of(a), int_of(b)) {
                (Some(x), Some(y)) => x.cmp(&y),
                _ => {
                    let x = as_number(a).or(duration_f(a)).unwrap_or(f64::NAN);
                    let y = as_number(b).or(duration_f(b)).unwrap_or(f64::NAN);
                    x.partial_cmp(&y).unwrap_or(Ordering::Equal)
                }
            }
        }
    }
}

fn duration_f(c: &Cell) -> Option<f64> {
    match c {
        Cell::Duration(d) => Some(*d as f64),
        _ => None,
    }
}

/// Order with nulls last whatever the direction.
fn key_cmp(a: &Cell, b: &Cell, ascending: bool) -> Ordering {
    match (a, b) {
        (Cell::Null, Cell::Null) => Ordering::Equal,
        (Cell::Null, _) => Ordering::Greater,
        (_, Cell::Null) => Ordering::Less,
        _ if ascending => value_cmp(a, b),
        _ => value_cmp(b, a),
    }
}

fn mixes_number_and_text<'a>(cells: impl Iterator<Item = &'a Cell>) -> bool {
    let (mut num, mut text) = (false, false);
    for c in cells {
        match c {
            Cell::Null => {}
            c if class(c) == 1 => text = true,
            _ => num = true,
        }
    }
    num && text
}

// ---------------------------------------------------------------- frames

#[derive(Debug, Clone)]
struct Frame {
    columns: Vec<String>,
    dtypes: Vec<String>,
    rows: Vec<Vec<Cell>>,
}

impl Frame {
    fn of(t: &Table) -> Frame {
        Frame {
            columns: t.columns.clone(),
            dtypes: (0..t.n_cols()).map(|j| t.dtype(j).to_owned()).collect(),
            // ragged rows (a hand-built table) are padded with nulls / cut to the columns
            rows: t
                .rows
                .iter()
                .map(|r| {
                    let mut r = r.clone();
                    r.resize(t.n_cols(), Cell::Null);
                    r
                })
                .collect(),
        }
    }

    fn column(&self, j: usize) -> Vec<&Cell> {
        self.rows.iter().filter_map(|r| r.get(j)).collect()
    }

    fn select(&self, idx: &[usize]) -> Frame {
        Frame {
            columns: idx.iter().map(|&j| self.columns[j].clone()).collect(),
            dtypes: idx.iter().map(|&j| self.dtypes[j].clone()).collect(),
            rows: self
                .rows
                .iter()
                .map(|r| idx.iter().map(|&j| r[j].clone()).collect())
                .collect(),
        }
    }

    fn has_duplicate_names(&self) -> bool {
        self.columns
            .iter()
            .enumerate()
            .any(|(i, c)| self.columns[..i].contains(c))
    }

    /// `deduplicate_columns`: every member of a duplicated name becomes `name_<position>`.
    fn dedupe_names(&mut self) {
        let original = self.columns.clone();
        for (i, c) in self.columns.iter_mut().enumerate() {
            if original.iter().filter(|o| *o == c).count() > 1 {
                *c = format!("{c}_{i}");
            }
        }
    }

    /// `drop_duplicates`: keeps the first of equal rows (nulls equal nulls).
    fn drop_duplicate_rows(&mut self) {
        let mut kept: Vec<Vec<Cell>> = Vec::with_capacity(self.rows.len());
        for row in self.rows.drain(..) {
            let dup = kept.iter().any(|k| {
                k.iter()
                    .zip(&row)
                    .all(|(a, b)| matches!((a, b), (Cell::Null, Cell::Null)) || py_eq(a, b))
            });
            if !dup {
                kept.push(row);
            }
        }
        self.rows = kept;
    }

    /// `sort_values(by=keys, ascending)`: one key sorts with `argsort` (raises on mixed types
    /// in Compat), several keys sort by category codes (numbers before text). Nulls last.
    fn sort_rows(&mut self, keys: &[usize], ascending: bool, mode: Fixes) -> Result<(), String> {
        if keys.len() == 1
            && !mode.no_raise
            && mixes_number_and_text(self.rows.iter().map(|r| &r[keys[0]]))
        {
            return Err(
                "TypeError: '<' not supported between instances of 'str' and a number".to_owned(),
            );
        }
        self.rows.sort_by(|a, b| {
            keys.iter()
                .map(|&k| key_cmp(&a[k], &b[k], ascending))
                .find(|o| *o != Ordering::Equal)
                .unwrap_or(Ordering::Equal)
        });
        Ok(())
    }
}

/// The `ORDER BY` reading of the reference: the text after the first `ORDER BY` (one space, any
/// case) up to the first `;`, `,`, `)` or end (a line break before them voids that occurrence and
/// the next `ORDER BY` is tried), split on whitespace, each word cut after its last `.`; the
/// direction is DESC if any word is `DESC`, else ASC if any is `ASC`, else `default_asc`.
fn parse_order_by(sql: &str, default_asc: bool) -> Option<(Vec<String>, bool)> {
    let lower = sql.to_ascii_lowercase();
    let first = lower.find("order by")?;
    let clause = &sql[first..];
    let lclause = &lower[first..];
    let mut text: Option<&str> = None;
    for (at, _) in lclause.match_indices("order by") {
        let start = at + "order by".len();
        let bytes = clause.as_bytes();
        let mut p = start;
        let found = loop {
            if p == bytes.len() || (bytes[p] == b'\n' && p + 1 == bytes.len()) {
                break true;
            }
            match bytes[p] {
                b';' | b',' | b')' => break true,
                b'\n' => break false,
                _ => p += 1,
            }
        };
        if found {
            text = Some(&clause[start..p]);
            break;
        }
    }
    let words: Vec<String> = text
        .unwrap_or("")
        .split_whitespace()
        .map(|w| w.rsplit('.').next().unwrap_or(w).to_owned())
        .collect();
    let upper: Vec<String> = words.iter().map(|w| w.to_uppercase()).collect();
    let ascending = if upper.iter().any(|w| w == "DESC") {
        false
    } else if upper.iter().any(|w| w == "ASC") {
        true
    } else {
        default_asc
    };
    let columns = words
        .iter()
        .map(|w| w.replace([',', '('], ""))
        .filter(|w| {
            !["desc", "asc", "nulls", "last", "first", "limit"].contains(&w.to_lowercase().as_str())
        })
        .collect();
    Some((columns, ascending))
}

/// `normalize_table`.
fn normalize(mut f: Frame, ordered: bool, sql: Option<&str>, mode: Fixes) -> Result<Frame, String> {
    f.drop_duplicate_rows();
    if f.has_duplicate_names() {
        if !mode.no_raise {
            return Err("ValueError: cannot reindex on an axis with duplicate labels".into());
        }
        f.dedupe_names();
    }
    let mut idx: Vec<usize> = (0..f.columns.len()).collect();
    idx.sort_by(|&a, &b| f.columns[a].cmp(&f.columns[b]));
    let mut f = f.select(&idx);
    let all: Vec<usize> = (0..f.columns.len()).collect();
    if ordered {
        if let Some((names, ascending)) =
            sql.and_then(|s| parse_order_by(s, mode.order_by_ascending))
        {
            let others: Vec<usize> = all
                .iter()
                .copied()
                .filter(|&j| !names.contains(&f.columns[j]))
                .collect();
            let keys: Vec<usize> = names
                .iter()
                .filter_map(|n| f.columns.iter().position(|c| c == n))
                .collect();
            let by: Vec<usize> = keys.iter().chain(&others).copied().collect();
            if !by.is_empty() {
                f.sort_rows(&by, ascending, mode)?;
            }
            let order: Vec<usize> = others.iter().chain(&keys).copied().collect();
            f = f.select(&order);
        }
    } else if !all.is_empty() {
        f.sort_rows(&all, true, mode)?;
    }
    if f.has_duplicate_names() {
        f.dedupe_names();
    }
    Ok(f)
}

/// The reference's fast path: `(gold.values == gen.values).all()` with numpy broadcasting.
fn fast_equal(g: &Frame, c: &Frame, mode: Fixes) -> bool {
    let (gr, gc) = (g.rows.len(), g.columns.len());
    let (cr, cc) = (c.rows.len(), c.columns.len());
    let fits = |a: usize, b: usize| a == b || (!mode.no_broadcast && (a == 1 || b == 1));
    if !fits(gr, cr) || !fits(gc, cc) {
        return false;
    }
    let rows = if gr == cr {
        gr
    } else if gr == 1 {
        cr
    } else {
        gr
    };
    let cols = if gc == cc {
        gc
    } else if gc == 1 {
        cc
    } else {
        gc
    };
    let pick = |n: usize, i: usize| if n == 1 { 0 } else { i };
    (0..rows).all(|i| {
        (0..cols).all(|j| {
            let (gi, gj) = (pick(gr, i), pick(gc, j));
            let (ci, cj) = (pick(cr, i), pick(cc, j));
            let a = &g.rows[gi][gj];
            let b = &c.rows[ci][cj];
            match (a, b) {
                // None == None in object arrays; NaN/NaT never equal
                (Cell::Null, Cell::Null) => {
                    mode.tolerant_exact || (g.dtypes[gj] == "object" && c.dtypes[cj] == "object")
                }
                _ => py_eq(a, b),
            }
        })
    })
}

/// `compare_df`.
fn exact(
    gold: &Table,
    cand: &Table,
    ordered: bool,
    gold_sql: Option<&str>,
    cand_sql: Option<&str>,
    mode: Fixes,
) -> Result<bool, String> {
    let g = Frame::of(gold);
    let c = Frame::of(cand);
    if fast_equal(&g, &c, mode) {
        return Ok(true);
    }
    let g = normalize(g, ordered, gold_sql, mode)?;
    let c = normalize(c, ordered, cand_sql, mode)?;
    if g.rows.len() != c.rows.len() || g.columns.len() != c.columns.len() {
        return Ok(false);
    }
    if mode.column_bijection {
        return Ok(equal_under_bijection(&g, &c, ordered));
    }
    let fill = Cell::Int(NULL_FILL);
    Ok(g.rows.iter().zip(&c.rows).all(|(gr, cr)| {
        gr.iter().zip(cr).all(|(a, b)| {
            if mode.tolerant_exact {
                almost_eq(a, b)
            } else {
                let a = if *a == Cell::Null { &fill } else { a };
                let b = if *b == Cell::Null { &fill } else { b };
                py_eq(a, b)
            }
        })
    }))
}

/// Limit on the column assignments tried by [`equal_under_bijection`].
const MAX_ASSIGNMENTS: usize = 10_000;

/// Whether some bijection of `c`'s columns onto `g`'s makes the tables equal (cells within
/// tolerance, nulls equal nulls): rows in order when `ordered`, else as sorted row lists.
fn equal_under_bijection(g: &Frame, c: &Frame, ordered: bool) -> bool {
    let n = g.columns.len();
    if n != c.columns.len() || g.rows.len() != c.rows.len() {
        return false;
    }
    fn sorted(f: &Frame, j: usize) -> Vec<&Cell> {
        let mut col = f.column(j);
        col.sort_by(|a, b| key_cmp(a, b, true));
        col
    }
    let gcols: Vec<Vec<&Cell>> = (0..n).map(|j| sorted(g, j)).collect();
    let ccols: Vec<Vec<&Cell>> = (0..n).map(|j| sorted(c, j)).collect();
    let options: Vec<Vec<usize>> = (0..n)
        .map(|j| {
            (0..n)
                .filter(|&k| {
                    gcols[j].len() == ccols[k].len()
                        && gcols[j].iter().zip(&ccols[k]).all(|(a, b)| almost_eq(a, b))
                })
                .collect()
        })
        .collect();
    let rows_equal = |perm: &[usize]| {
        let mut rows: Vec<Vec<Cell>> = c
            .rows
            .iter()
            .map(|r| perm.iter().map(|&k| r[k].clone()).collect())
            .collect();
        let mut grows = g.rows.clone();
        if !ordered {
            let all: Vec<usize> = (0..n).collect();
            let by = |a: &Vec<Cell>, b: &Vec<Cell>| {
                all.iter()
                    .map(|&k| key_cmp(&a[k], &b[k], true))
                    .find(|o| *o != Ordering::Equal)
                    .unwrap_or(Ordering::Equal)
            };
            rows.sort_by(by);
            grows.sort_by(by);
        }
        grows
            .iter()
            .zip(&rows)
            .all(|(a, b)| a.iter().zip(b).all(|(x, y)| almost_eq(x, y)))
    };
    fn search(
        j: usize,
        options: &[Vec<usize>],
        used: &mut Vec<bool>,
        perm: &mut Vec<usize>,
        budget: &mut usize,
        check: &dyn Fn(&[usize]) -> bool,
    ) -> bool {
        if j == options.len() {
            *budget = budget.saturating_sub(1);
            return check(perm);
        }
        for &k in &options[j] {
            if used[k] || *budget == 0 {
                continue;
            }
            used[k] = true;
            perm.push(k);
            if search(j + 1, options, used, perm, budget, check) {
                return true;
            }
            perm.pop();
            used[k] = false;
        }
        false
    }
    let mut budget = MAX_ASSIGNMENTS;
    search(
        0,
        &options,
        &mut vec![false; n],
        &mut Vec::with_capacity(n),
        &mut budget,
        &rows_equal,
    )
}

fn sorted_column(f: &Frame, j: usize, mode: Fixes) -> Result<Vec<&Cell>, String> {
    let mut col = f.column(j);
    if !mode.no_raise && mixes_number_and_text(col.iter().copied()) {
        return Err("TypeError: '<' not supported between instances of 'str' and a number".into());
    }
    col.sort_by(|a, b| key_cmp(a, b, true));
    Ok(col)
}

/// `subset_df(gold, candidate)`.
fn subset(gold: &Table, cand: &Table, ordered: bool, mode: Fixes) -> Result<bool, String> {
    if gold.n_rows() == 0 || gold.n_cols() == 0 {
        return Ok(false);
    }
    let mut g = Frame::of(gold);
    g.dedupe_names();
    let original = Frame::of(cand);
    let mut c = original.clone();
    c.dedupe_names();
    let mut remaining: Vec<usize> = (0..c.columns.len()).collect();
    let mut matched: Vec<usize> = Vec::new();
    for j in 0..g.columns.len() {
        let gcol = sorted_column(&g, j, mode)?;
        let mut hit = None;
        for (pos, &k) in remaining.iter().enumerate() {
            let ccol = sorted_column(&c, k, mode)?;
            if series_eq(&gcol, &g.dtypes[j], &ccol, &c.dtypes[k]) {
                hit = Some(pos);
                break;
            }
        }
        match hit {
            Some(pos) => matched.push(remaining.remove(pos)),
            None => return Ok(false),
        }
    }
    // the reference selects the matched (deduplicated) names from the original candidate
    let (selected, names): (Vec<usize>, Vec<String>) = match mode.no_raise {
        true => (matched.clone(), g.columns.clone()),
        false => {
            let mut sel = Vec::new();
            let mut names = Vec::new();
            for (gi, &k) in matched.iter().enumerate() {
                let name = &c.columns[k];
                let found: Vec<usize> = (0..original.columns.len())
                    .filter(|&o| &original.columns[o] == name)
                    .collect();
                if found.is_empty() {
                    return Err(format!("KeyError: \"['{name}'] not in index\""));
                }
                for o in found {
                    sel.push(o);
                    names.push(g.columns[gi].clone());
                }
            }
            (sel, names)
        }
    };
    let mut sup = original.select(&selected);
    sup.columns = names;
    let sub = normalize(g, ordered, None, mode)?;
    let sup = normalize(sup, ordered, None, mode)?;
    if sub.rows.len() != sup.rows.len() || sub.columns != sup.columns {
        return Ok(false);
    }
    Ok((0..sub.columns.len()).all(|j| {
        series_eq(
            &sub.column(j),
            &sub.dtypes[j],
            &sup.column(j),
            &sup.dtypes[j],
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(cols: &[&str], rows: Vec<Vec<Cell>>) -> Table {
        Table::new(cols.iter().map(|c| (*c).to_owned()).collect(), rows)
    }
    fn i(v: i64) -> Cell {
        Cell::Int(v)
    }
    fn f(v: f64) -> Cell {
        Cell::Float(v)
    }
    fn s(v: &str) -> Cell {
        Cell::Text(v.to_owned())
    }
    fn both(g: &[Table], c: &Table, q: &str, cat: &str) -> ((bool, bool), (bool, bool)) {
        let a = compare(g, c, q, cat, Mode::Compat);
        let b = compare(g, c, q, cat, Mode::Default);
        ((a.exact_match, a.correct), (b.exact_match, b.correct))
    }

    #[test]
    fn exact_ignores_names_and_row_order() {
        let g = t(&["a", "b"], vec![vec![i(1), s("x")], vec![i(2), s("y")]]);
        let c = t(&["a", "b"], vec![vec![i(2), s("y")], vec![i(1), s("x")]]);
        assert_eq!(
            both(&[g], &c, "List them", "group_by"),
            ((true, true), (true, true))
        );
    }

    #[test]
    fn exact_drops_duplicate_rows_and_int_equals_float() {
        let g = t(&["n"], vec![vec![i(1)], vec![i(2)]]);
        let c = t(&["n"], vec![vec![f(2.0)], vec![f(1.0)], vec![f(1.0)]]);
        assert_eq!(both(&[g], &c, "q", "x").0, (true, true));
    }

    #[test]
    fn renamed_columns_break_exact_in_compat_only() {
        // columns sorted by name: gold (a, b), candidate (b, z): values no longer line up
        let g = t(&["a", "b"], vec![vec![i(1), s("x")], vec![i(2), s("y")]]);
        let c = t(&["z", "b"], vec![vec![i(2), s("y")], vec![i(1), s("x")]]);
        assert_eq!(both(&[g], &c, "q", "x"), ((false, true), (true, true)));
    }

    #[test]
    fn subset_allows_extra_columns_and_aliases() {
        let g = t(&["name"], vec![vec![s("a")], vec![s("b")]]);
        let c = t(&["id", "nm"], vec![vec![i(1), s("b")], vec![i(2), s("a")]]);
        assert_eq!(both(&[g], &c, "q", "x"), ((false, true), (false, true)));
    }

    #[test]
    fn subset_needs_same_row_count_and_rows() {
        let g = t(&["a", "b"], vec![vec![i(1), i(2)], vec![i(2), i(1)]]);
        // same column multisets, different rows
        let c = t(
            &["a", "b", "c"],
            vec![vec![i(1), i(1), i(0)], vec![i(2), i(2), i(0)]],
        );
        assert_eq!(both(&[g], &c, "q", "x"), ((false, false), (false, false)));
    }

    #[test]
    fn empty_gold_is_never_a_subset() {
        let g = t(&["a"], vec![]);
        let c = t(&["a", "b"], vec![vec![i(1), i(2)], vec![i(3), i(4)]]);
        assert_eq!(both(&[g], &c, "q", "x"), ((false, false), (false, false)));
    }

    #[test]
    fn fast_path_broadcasts_in_compat_only() {
        // 1-row gold vs n identical rows
        let g = t(&["a"], vec![vec![i(5)]]);
        let c = t(&["a"], vec![vec![i(5)], vec![i(5)]]);
        assert_eq!(both(&[g], &c, "q", "x"), ((true, true), (true, true)));
        let g = t(&["a", "b"], vec![vec![i(5), i(6)]]);
        let c = t(&["a", "b"], vec![vec![i(5), i(6)], vec![i(5), i(6)]]);
        // duplicates are dropped anyway, so both agree here; in an ordered question they don't
        assert_eq!(both(&[g], &c, "q", "x"), ((true, true), (true, true)));
        // 0-row result equals a 1-row one
        let g = t(&["a"], vec![]);
        let c = t(&["a"], vec![vec![i(7)]]);
        assert_eq!(both(&[g], &c, "q", "x"), ((true, true), (false, false)));
        // 1-column gold equals every column of the candidate
        let g = t(&["a"], vec![vec![i(1)], vec![i(2)]]);
        let c = t(&["x", "y"], vec![vec![i(1), i(1)], vec![i(2), i(2)]]);
        assert_eq!(both(&[g], &c, "q", "x"), ((true, true), (false, true)));
    }

    #[test]
    fn order_by_without_direction_sorts_descending_in_compat() {
        let q = "List in order";
        let g = t(&["a"], vec![vec![i(1)], vec![i(2)]]).with_sql("SELECT a FROM t ORDER BY a");
        let c = t(&["a"], vec![vec![i(1)], vec![i(2)], vec![i(3)]])
            .with_sql("SELECT a FROM t ORDER BY a ASC");
        let _ = both(std::slice::from_ref(&g), &c, q, "order_by");
        // identical results, one spelled ASC: compat sorts gold descending, candidate ascending
        let c = t(&["a"], vec![vec![i(1)], vec![i(2)]]).with_sql("SELECT a FROM t ORDER BY a ASC");
        // the fast path already matches identical tables, so compare a reversed gold input
        let g2 = t(&["a"], vec![vec![i(2)], vec![i(1)]]).with_sql("SELECT a FROM t ORDER BY a");
        assert_eq!(
            both(&[g2], &c, q, "order_by"),
            ((false, false), (true, true))
        );
        let _ = g;
    }

    #[test]
    fn ordered_question_keeps_order_in_subset() {
        let g = t(&["a"], vec![vec![i(1)], vec![i(2)]]);
        let c = t(&["a", "b"], vec![vec![i(2), i(0)], vec![i(1), i(0)]]);
        assert_eq!(
            both(std::slice::from_ref(&g), &c, "sort them", "x"),
            ((false, false), (false, false))
        );
        assert_eq!(
            both(&[g], &c, "sorted them", "x"),
            ((false, true), (false, true))
        );
    }

    #[test]
    fn order_words_need_boundaries() {
        assert!(asks_for_order("Sort by x", "y"));
        assert!(asks_for_order("in ORDER", "y"));
        assert!(!asks_for_order("ordered", "y"));
        assert!(!asks_for_order("arrangement", "y"));
        assert!(asks_for_order("anything", "order_by"));
    }

    #[test]
    fn order_by_parse_quirks() {
        assert_eq!(
            parse_order_by("SELECT a FROM t ORDER BY t.a DESC, b", false),
            Some((vec!["a".to_owned()], false))
        );
        assert_eq!(
            parse_order_by("SELECT a FROM t ORDER BY a NULLS LAST", false),
            Some((vec!["a".to_owned()], false))
        );
        assert_eq!(
            parse_order_by("x order by a asc limit 3", false),
            Some((vec!["a".into(), "3".into()], true))
        );
        // a line break before any stop character voids the occurrence
        assert_eq!(
            parse_order_by("x ORDER BY a\nLIMIT 3", false),
            Some((vec![], false))
        );
        assert_eq!(parse_order_by("x ORDER  BY a", false), None);
    }

    #[test]
    fn float_exact_vs_tolerance() {
        let g = t(&["a", "b"], vec![vec![s("x"), f(0.3)]]);
        let c = t(
            &["a", "b"],
            vec![vec![s("x"), f(0.1 + 0.2)], vec![s("y"), f(1.0)]],
        );
        let g2 = t(
            &["a", "b"],
            vec![vec![s("x"), f(0.3)], vec![s("y"), f(1.0)]],
        );
        // exact needs equal floats in compat; subset uses rtol
        assert_eq!(both(&[g2], &c, "q", "x"), ((false, true), (true, true)));
        let _ = g;
    }

    #[test]
    fn int_column_compares_exactly_in_subset() {
        let g = t(&["a"], vec![vec![i(1)], vec![i(2)]]);
        let c = t(
            &["a", "z"],
            vec![vec![f(1.000_000_1), i(0)], vec![f(2.0), i(1)]],
        );
        assert_eq!(both(&[g], &c, "q", "x").0, (false, false));
        let g = t(&["a"], vec![vec![f(1.0)], vec![f(2.0)]]);
        assert_eq!(both(&[g], &c, "q", "x").0, (false, true));
    }

    #[test]
    fn null_fill_equals_minus_99999_in_compat() {
        let g = t(
            &["a", "b"],
            vec![vec![i(1), Cell::Null], vec![i(2), f(1.0)]],
        );
        let c = t(
            &["a", "b"],
            vec![vec![i(1), f(-99_999.0)], vec![i(2), f(1.0)]],
        );
        assert!(both(&[g], &c, "q", "x").0 .0);
        let g = t(
            &["a", "b"],
            vec![vec![i(1), Cell::Null], vec![i(2), f(1.0)]],
        );
        let c = t(
            &["a", "b"],
            vec![vec![i(2), f(1.0)], vec![i(1), Cell::Null]],
        );
        assert_eq!(both(&[g], &c, "q", "x"), ((true, true), (true, true)));
    }

    #[test]
    fn duplicate_column_names_raise_in_compat() {
        let g = t(&["a", "b"], vec![vec![s("x"), i(1)], vec![s("y"), i(2)]]);
        let c = t(
            &["a", "a"],
            vec![vec![s("y"), s("y")], vec![s("x"), s("x")]],
        );
        let v = compare(std::slice::from_ref(&g), &c, "q", "x", Mode::Compat);
        assert!(!v.correct && v.reason.contains("duplicate labels"), "{v:?}");
        let v = compare(&[g], &c, "q", "x", Mode::Default);
        assert!(!v.correct);
    }

    #[test]
    fn mixed_types_single_column_raise_in_compat() {
        let g = t(&["a"], vec![vec![s("x")], vec![i(1)]]);
        let c = t(&["a"], vec![vec![i(1)], vec![s("y")]]);
        let v = compare(std::slice::from_ref(&g), &c, "q", "x", Mode::Compat);
        assert!(v.reason.contains("TypeError"), "{v:?}");
        let v = compare(&[g], &c, "q", "x", Mode::Default);
        assert!(!v.correct && !v.reason.contains("raises"));
    }

    #[test]
    fn ragged_rows_do_not_panic() {
        let g = t(&["a", "b"], vec![vec![i(1)], vec![i(2), i(3), i(4)]]);
        let v = compare(std::slice::from_ref(&g), &g, "q", "x", Mode::Compat);
        assert!(v.exact_match);
        assert!(!compare(&[], &g, "q", "x", Mode::Default).correct);
    }

    #[test]
    fn first_exact_alternative_wins_and_subset_of_any_counts() {
        let g1 = t(&["a", "b"], vec![vec![i(1), i(2)]]);
        let g2 = t(&["a"], vec![vec![i(1)]]);
        let c = t(&["a", "c"], vec![vec![i(1), i(3)]]);
        let v = compare(&[g1, g2], &c, "q", "x", Mode::Default);
        assert!(!v.exact_match && v.correct, "{v:?}");
    }

    #[test]
    fn compat_reads_gold_text_for_order_by() {
        let q = "in order";
        let g = t(&["a"], vec![vec![i(1)], vec![i(2)]]).with_sql("SELECT a FROM t");
        let c = t(&["a"], vec![vec![i(2)], vec![i(1)]]).with_sql("SELECT a FROM t ORDER BY a");
        let gold = "SELECT a FROM t;SELECT a FROM t ORDER BY a";
        // compat: the gold text's ORDER BY a (read as descending) sorts the gold like the candidate
        let v = compare_with_gold_sql(
            std::slice::from_ref(&g),
            Some(gold),
            &c,
            q,
            "x",
            Mode::Compat,
        );
        assert!(v.exact_match, "{v:?}");
        // the alternative's own SQL has no ORDER BY: its row order is kept
        let v = compare(std::slice::from_ref(&g), &c, q, "x", Mode::Compat);
        assert!(!v.exact_match && !v.correct, "{v:?}");
        // default reads each alternative's own SQL (no ORDER BY: row order kept, 1, 2) and the
        // candidate's ORDER BY a as ascending (1, 2)
        let v = compare_with_gold_sql(&[g], Some(gold), &c, q, "x", Mode::Default);
        assert!(v.exact_match, "{v:?}");
    }
}
