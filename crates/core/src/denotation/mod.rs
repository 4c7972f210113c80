//! Denotations: the result tables queries produce, and when two of them are "the same answer".
//!
//! [`compare`] reproduces the official test-suite evaluator's `result_eq` (see `spec/exec.md`):
//! both empty → equal; otherwise equal row counts, equal column counts, the reference's quick
//! rejection test, and then some permutation of the predicted columns under which the rows are
//! equal — as a list when order matters, as a multiset (bag) otherwise.
//!
//! The reference enumerates column permutations (all of them up to three columns, a sampled
//! subset above); we search the same space with exact pruning (a predicted column can only stand
//! for a gold column holding the same values, and interchangeable identical columns are tried
//! once), so the answer is the same without the factorial blow-up.

mod ties;
mod value;

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;

use serde::{Deserialize, Serialize};

pub use ties::TieGroups;
pub use value::Value;

/// A result table: column names (for display only; never compared) and rows of typed values.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ResultTable {
    /// The column names the query gave (empty where the backend gives none).
    pub columns: Vec<String>,
    /// The rows, in the order the query returned them.
    pub rows: Vec<Vec<Value>>,
    /// What the engine said each column holds, where a [`Value`] alone does not tell (a boolean
    /// stored as `Int`, a timestamp as ISO `Text`). Empty when the backend has no such types
    /// (SQLite); denotation comparison ignores it, metrics that mimic a client library's typing
    /// (SQL-Eval's pandas dtypes) read it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub column_types: Vec<ColumnType>,
    /// The work the query did, where the backend counts it (SQLite: virtual-machine steps,
    /// exact below 2³², in blocks of 2,000 beyond); 0 otherwise. Deterministic for a query, a database and an engine version.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub steps: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A column's engine type, where it matters beyond the [`Value`]s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ColumnType {
    /// Nothing beyond the values (numbers, text, bytes).
    #[default]
    Plain,
    /// A boolean, held as `Int(0 | 1)`.
    Bool,
    /// A calendar date, held as `Text` (`2024-01-31`).
    Date,
    /// A time of day, held as `Text` (`13:45:00`).
    Time,
    /// A timestamp without time zone, held as ISO `Text` (`2024-01-31T13:45:00`).
    Timestamp,
    /// A timestamp with time zone, held as ISO `Text` in UTC with `+00:00`.
    TimestampTz,
    /// An interval, held as `Int` nanoseconds (months count 30 days, years 365, as psycopg2).
    Interval,
}

impl ResultTable {
    /// The number of columns: the names', or the first row's where there are no names.
    pub fn column_count(&self) -> usize {
        self.rows.first().map_or(self.columns.len(), Vec::len)
    }
}

/// How two denotations are compared.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CompareOptions {
    /// Rows must come in the same order (the official rule: the gold contains `order by`).
    pub order_matters: bool,
    /// Relative tolerance for numbers; 0 means exact Python equality (official).
    pub float_tolerance: f64,
    /// The rows are compared as sets of tuples, each column in its place (BIRD's EX:
    /// `set(prediction) == set(gold)`): duplicates and order do not count, and no column
    /// permutation is tried. `order_matters` and `float_tolerance` do not apply.
    pub as_sets: bool,
}

/// Why two denotations differ.
#[derive(Clone, Debug, PartialEq)]
pub enum Difference {
    /// They have different numbers of rows.
    RowCount {
        /// The gold's rows.
        gold: usize,
        /// The prediction's rows.
        predicted: usize,
    },
    /// They have different numbers of columns.
    ColumnCount {
        /// The gold's columns.
        gold: usize,
        /// The prediction's columns.
        predicted: usize,
    },
    /// The same rows, in another order, where the gold's order counts.
    Order,
    /// Values differ. The rows are the multiset differences under the identity column order
    /// (at most a few of each, for the failure message).
    Rows {
        /// Rows only the gold has (as many times as it has them more).
        only_gold: Vec<Vec<Value>>,
        /// Rows only the prediction has.
        only_predicted: Vec<Vec<Value>>,
    },
}

impl Difference {
    /// A short, stable code for reports.
    pub fn code(&self) -> &'static str {
        match self {
            Difference::RowCount { .. } => "row_count",
            Difference::ColumnCount { .. } => "column_count",
            Difference::Order => "order",
            Difference::Rows { .. } => "rows_differ",
        }
    }
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Difference::RowCount { gold, predicted } => {
                write!(
                    f,
                    "row count differs: gold has {gold}, prediction has {predicted}"
                )
            }
            Difference::ColumnCount { gold, predicted } => write!(
                f,
                "column count differs: gold has {gold}, prediction has {predicted}"
            ),
            Difference::Order => f.write_str(
                "same rows in a different order (the gold has ORDER BY, so order counts)",
            ),
            Difference::Rows {
                only_gold,
                only_predicted,
            } => {
                if only_gold.is_empty() && only_predicted.is_empty() {
                    f.write_str(
                        "no column order makes the rows equal (each column matches some column, \
                         but not row by row)",
                    )
                } else {
                    f.write_str("values differ")
                }
            }
        }
    }
}

/// Formats a row as a Python tuple, the way the reference's users read rows.
pub(crate) fn format_row(row: &[Value]) -> String {
    let cells: Vec<String> = row.iter().map(ToString::to_string).collect();
    if cells.len() == 1 {
        format!("({},)", cells[0])
    } else {
        format!("({})", cells.join(", "))
    }
}

/// Compares a gold and a predicted denotation. `Ok(())` means the prediction is correct.
pub fn compare(
    gold: &ResultTable,
    pred: &ResultTable,
    options: CompareOptions,
) -> Result<(), Difference> {
    let (g, p) = (&gold.rows, &pred.rows);
    if options.as_sets {
        return compare_sets(g, p);
    }
    if g.is_empty() && p.is_empty() {
        return Ok(());
    }
    if g.len() != p.len() {
        return Err(Difference::RowCount {
            gold: g.len(),
            predicted: p.len(),
        });
    }
    let ncols = g[0].len();
    if p[0].len() != ncols {
        return Err(Difference::ColumnCount {
            gold: ncols,
            predicted: p[0].len(),
        });
    }
    if same_answer(g, p, options) {
        return Ok(());
    }
    Err(describe_difference(g, p, options))
}

/// [`compare`]'s verdict without the explanation: `true` iff `compare` returns `Ok`. For
/// callers that only need the verdict (distillation runs millions of comparisons), it skips
/// building the [`Difference`].
pub fn equivalent(gold: &ResultTable, pred: &ResultTable, options: CompareOptions) -> bool {
    let (g, p) = (&gold.rows, &pred.rows);
    if options.as_sets {
        return compare_sets(g, p).is_ok();
    }
    if g.is_empty() && p.is_empty() {
        return true;
    }
    g.len() == p.len() && g[0].len() == p[0].len() && same_answer(g, p, options)
}

/// The rows as sets of Python tuples (`CompareOptions::as_sets`): equal when every distinct row
/// of each is a row of the other, under Python's equality (`1 == 1.0`). The difference names
/// the distinct rows only one side has, each side in its own order.
fn compare_sets(g: &[Vec<Value>], p: &[Vec<Value>]) -> Result<(), Difference> {
    let gold: HashSet<&[Value]> = g.iter().map(Vec::as_slice).collect();
    let pred: HashSet<&[Value]> = p.iter().map(Vec::as_slice).collect();
    if gold == pred {
        return Ok(());
    }
    let only = |rows: &[Vec<Value>], other: &HashSet<&[Value]>| {
        let mut seen = HashSet::new();
        rows.iter()
            .filter(|r| !other.contains(r.as_slice()) && seen.insert(r.as_slice()))
            .cloned()
            .collect::<Vec<_>>()
    };
    Err(Difference::Rows {
        only_gold: only(g, &pred),
        only_predicted: only(p, &gold),
    })
}

/// The quick rejection and the column permutation search, on tables of equal, non-zero size.
fn same_answer(g: &[Vec<Value>], p: &[Vec<Value>], options: CompareOptions) -> bool {
    // Rows identical cell for cell (same types, same values, same order) pass every test
    // below; most right answers are, so they skip the sort keys and the permutation search.
    let identical = |a: &[Value], b: &[Value]| {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.identical(y))
    };
    if g.iter().zip(p).all(|(a, b)| identical(a, b)) {
        return true;
    }
    let tol = options.float_tolerance;
    // The reference's quick rejection is part of its verdict (it is not always implied by the
    // permutation search: see `python_sort_key`), so it is reproduced exactly in official mode.
    let passes_quick_rejection = tol != 0.0 || quick_rejection_passes(g, p, options.order_matters);
    passes_quick_rejection && column_permutation_exists(g, p, options.order_matters, tol)
}

/// The reference's `quick_rej`: sort the cells of each row by Python's `str(x) + str(type(x))`
/// and compare the lists (order matters) or the sets (otherwise) of those unordered rows.
fn quick_rejection_passes(g: &[Vec<Value>], p: &[Vec<Value>], order_matters: bool) -> bool {
    fn unorder(row: &[Value]) -> Vec<Value> {
        let mut keyed: Vec<(String, &Value)> =
            row.iter().map(|v| (v.python_sort_key(), v)).collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        keyed.into_iter().map(|(_, v)| v.clone()).collect()
    }
    let g: Vec<Vec<Value>> = g.iter().map(|r| unorder(r)).collect();
    let p: Vec<Vec<Value>> = p.iter().map(|r| unorder(r)).collect();
    if order_matters {
        g == p
    } else {
        let gs: HashSet<&Vec<Value>> = g.iter().collect();
        let ps: HashSet<&Vec<Value>> = p.iter().collect();
        gs == ps
    }
}

fn cmp_rows(a: &[Value], b: &[Value]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        match x.total_cmp(y) {
            Ordering::Equal => continue,
            other => return other,
        }
    }
    a.len().cmp(&b.len())
}

fn rows_eq(a: &[Value], b: &[Value], tol: f64) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.approx_eq(y, tol))
}

/// Multiset equality of two lists of rows: sort both by a total order consistent with value
/// equality, then compare pairwise. Exact for `tol == 0`.
fn bags_eq(mut a: Vec<Vec<Value>>, mut b: Vec<Vec<Value>>, tol: f64) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.sort_by(|x, y| cmp_rows(x, y));
    b.sort_by(|x, y| cmp_rows(x, y));
    a.iter().zip(&b).all(|(x, y)| rows_eq(x, y, tol))
}

fn column(rows: &[Vec<Value>], j: usize) -> Vec<Value> {
    rows.iter().map(|r| r[j].clone()).collect()
}

fn project(rows: &[Vec<Value>], cols: &[usize]) -> Vec<Vec<Value>> {
    rows.iter()
        .map(|r| cols.iter().map(|&c| r[c].clone()).collect())
        .collect()
}

/// Is there a bijection `perm` (gold column j ↦ predicted column perm[j]) under which the rows
/// are equal — as lists if `order_matters`, as multisets otherwise?
fn column_permutation_exists(
    g: &[Vec<Value>],
    p: &[Vec<Value>],
    order_matters: bool,
    tol: f64,
) -> bool {
    let n = g[0].len();
    let gcols: Vec<Vec<Value>> = (0..n).map(|j| column(g, j)).collect();
    let pcols: Vec<Vec<Value>> = (0..n).map(|k| column(p, k)).collect();
    // A predicted column can stand for a gold column only if it holds the same values:
    // the same sequence when order matters, the same multiset otherwise.
    let compatible = |j: usize, k: usize| -> bool {
        if order_matters {
            rows_eq(&gcols[j], &pcols[k], tol)
        } else {
            let wrap = |c: &Vec<Value>| c.iter().map(|v| vec![v.clone()]).collect::<Vec<_>>();
            bags_eq(wrap(&gcols[j]), wrap(&pcols[k]), tol)
        }
    };
    let candidates: Vec<Vec<usize>> = (0..n)
        .map(|j| (0..n).filter(|&k| compatible(j, k)).collect())
        .collect();
    if candidates.iter().any(Vec::is_empty) {
        return false;
    }
    // Identical predicted columns are interchangeable: try one representative per class.
    let class: Vec<usize> = (0..n)
        .map(|k| (0..=k).find(|&m| pcols[m] == pcols[k]).unwrap_or(k))
        .collect();
    if order_matters {
        // Column-wise equal sequences for every gold column make the row lists equal, so any
        // bijection through the candidate sets will do.
        return bijection(&candidates, &class, &mut Vec::new(), &mut |_| true);
    }
    bijection(
        &candidates,
        &class,
        &mut Vec::new(),
        &mut |perm: &[usize]| {
            let cols: Vec<usize> = (0..perm.len()).collect();
            bags_eq(project(g, &cols), project(p, perm), tol)
        },
    )
}

/// Depth-first search for a bijection through `candidates`; `accept` is asked at every depth
/// with the partial assignment, so it can prune (a projection that already differs).
fn bijection(
    candidates: &[Vec<usize>],
    class: &[usize],
    perm: &mut Vec<usize>,
    accept: &mut dyn FnMut(&[usize]) -> bool,
) -> bool {
    let j = perm.len();
    if j == candidates.len() {
        return true;
    }
    let mut tried_classes = Vec::new();
    for &k in &candidates[j] {
        if perm.contains(&k) || tried_classes.contains(&class[k]) {
            continue;
        }
        // Only skip a class once one of its members was tried at this depth *and* the others
        // are unused: members of a class are interchangeable only among themselves.
        tried_classes.push(class[k]);
        perm.push(k);
        if accept(perm) && bijection(candidates, class, perm, accept) {
            return true;
        }
        perm.pop();
    }
    false
}

/// Explains a rejection for the failure message.
fn describe_difference(g: &[Vec<Value>], p: &[Vec<Value>], options: CompareOptions) -> Difference {
    if options.order_matters && column_permutation_exists(g, p, false, options.float_tolerance) {
        return Difference::Order;
    }
    let (only_gold, only_predicted) = bag_difference(g, p, options.float_tolerance);
    Difference::Rows {
        only_gold,
        only_predicted,
    }
}

/// The rows of `g` left unmatched and the rows of `p` left unmatched, each in its own order,
/// when every gold row in turn takes the first unmatched predicted row equal to it.
fn bag_difference(
    g: &[Vec<Value>],
    p: &[Vec<Value>],
    tol: f64,
) -> (Vec<Vec<Value>>, Vec<Vec<Value>>) {
    let mut taken = vec![false; p.len()];
    let mut only_gold = Vec::new();
    if tol == 0.0 {
        // Exact equality is an equivalence that `Value`'s hash respects: per distinct row, the
        // predicted positions holding it, first unmatched first (linear, where a scan per gold
        // row is quadratic on large results).
        let mut positions: HashMap<&[Value], VecDeque<usize>> = HashMap::new();
        for (i, row) in p.iter().enumerate() {
            positions.entry(row.as_slice()).or_default().push_back(i);
        }
        for row in g {
            match positions
                .get_mut(row.as_slice())
                .and_then(VecDeque::pop_front)
            {
                Some(i) => taken[i] = true,
                None => only_gold.push(row.clone()),
            }
        }
    } else {
        for row in g {
            match (0..p.len()).find(|&i| !taken[i] && rows_eq(row, &p[i], tol)) {
                Some(i) => taken[i] = true,
                None => only_gold.push(row.clone()),
            }
        }
    }
    let only_predicted = p
        .iter()
        .zip(&taken)
        .filter(|(_, &t)| !t)
        .map(|(row, _)| row.clone())
        .collect();
    (only_gold, only_predicted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: Vec<Vec<Value>>) -> ResultTable {
        ResultTable {
            columns: Vec::new(),
            rows,
            ..ResultTable::default()
        }
    }
    fn i(v: i64) -> Value {
        Value::Int(v)
    }
    fn r(v: f64) -> Value {
        Value::Real(v)
    }
    fn t(v: &str) -> Value {
        Value::Text(v.into())
    }
    const BAG: CompareOptions = CompareOptions {
        order_matters: false,
        float_tolerance: 0.0,
        as_sets: false,
    };
    const ORDERED: CompareOptions = CompareOptions {
        order_matters: true,
        float_tolerance: 0.0,
        as_sets: false,
    };
    const TOLERANT: CompareOptions = CompareOptions {
        order_matters: false,
        float_tolerance: 1e-9,
        as_sets: false,
    };

    #[test]
    fn as_sets_duplicates_and_order_do_not_count_but_columns_do() {
        let sets = CompareOptions {
            as_sets: true,
            ..BAG
        };
        let g = table(vec![
            vec![Value::Int(1), t("a")],
            vec![Value::Int(2), t("b")],
        ]);
        // BIRD's EX: duplicates, order and 1 == 1.0 are all the same set.
        let p = table(vec![
            vec![Value::Real(2.0), t("b")],
            vec![Value::Int(1), t("a")],
            vec![Value::Int(2), t("b")],
        ]);
        assert_eq!(compare(&g, &p, sets), Ok(()));
        assert!(equivalent(&g, &p, sets));
        // Columns in another order are other tuples.
        let swapped = table(vec![
            vec![t("a"), Value::Int(1)],
            vec![t("b"), Value::Int(2)],
        ]);
        assert_eq!(compare(&g, &swapped, BAG), Ok(()));
        match compare(&g, &swapped, sets) {
            Err(Difference::Rows {
                only_gold,
                only_predicted,
            }) => {
                assert_eq!(only_gold.len(), 2);
                assert_eq!(only_predicted.len(), 2);
            }
            other => panic!("{other:?}"),
        }
        // A missing row, and a repeated one listed once.
        let fewer = table(vec![
            vec![Value::Int(1), t("a")],
            vec![Value::Int(1), t("a")],
        ]);
        assert_eq!(
            compare(&g, &fewer, sets),
            Err(Difference::Rows {
                only_gold: vec![vec![Value::Int(2), t("b")]],
                only_predicted: vec![],
            })
        );
        assert!(equivalent(&table(vec![]), &table(vec![]), sets));
    }

    #[test]
    fn both_empty_are_equal_even_with_different_columns() {
        let mut a = table(vec![]);
        a.columns = vec!["x".into()];
        assert_eq!(compare(&a, &table(vec![]), BAG), Ok(()));
    }

    #[test]
    fn counts_are_checked_first() {
        let g = table(vec![vec![i(1)]]);
        let p = table(vec![vec![i(1)], vec![i(1)]]);
        assert_eq!(
            compare(&g, &p, BAG),
            Err(Difference::RowCount {
                gold: 1,
                predicted: 2
            })
        );
        let p = table(vec![vec![i(1), i(2)]]);
        assert_eq!(
            compare(&g, &p, BAG),
            Err(Difference::ColumnCount {
                gold: 1,
                predicted: 2
            })
        );
    }

    #[test]
    fn bag_semantics_count_duplicates() {
        let g = table(vec![vec![i(1)], vec![i(1)], vec![i(2)]]);
        let p = table(vec![vec![i(1)], vec![i(2)], vec![i(2)]]);
        assert!(matches!(compare(&g, &p, BAG), Err(Difference::Rows { .. })));
        let p = table(vec![vec![i(2)], vec![i(1)], vec![i(1)]]);
        assert_eq!(compare(&g, &p, BAG), Ok(()));
    }

    #[test]
    fn order_counts_only_when_asked() {
        let g = table(vec![vec![i(1)], vec![i(2)]]);
        let p = table(vec![vec![i(2)], vec![i(1)]]);
        assert_eq!(compare(&g, &p, BAG), Ok(()));
        assert_eq!(compare(&g, &p, ORDERED), Err(Difference::Order));
    }

    #[test]
    fn columns_may_be_permuted() {
        let g = table(vec![vec![i(1), t("a"), r(2.5)], vec![i(2), t("b"), r(3.5)]]);
        let p = table(vec![vec![r(3.5), i(2), t("b")], vec![r(2.5), i(1), t("a")]]);
        assert_eq!(compare(&g, &p, BAG), Ok(()));
        // Ordered: the rows must also come in the gold's order.
        assert_eq!(compare(&g, &p, ORDERED), Err(Difference::Order));
        let p2 = table(vec![vec![r(2.5), i(1), t("a")], vec![r(3.5), i(2), t("b")]]);
        assert_eq!(compare(&g, &p2, ORDERED), Ok(()));
    }

    #[test]
    fn a_permutation_must_be_consistent_across_rows() {
        // Each predicted column matches some gold column as a multiset, but no single column
        // order makes the rows equal.
        let g = table(vec![vec![i(1), i(1)], vec![i(2), i(2)]]);
        let p = table(vec![vec![i(1), i(2)], vec![i(2), i(1)]]);
        assert!(compare(&g, &p, BAG).is_err());
    }

    #[test]
    fn many_identical_columns_do_not_blow_up() {
        let row: Vec<Value> = (0..12).map(|_| i(7)).collect();
        let mut prow = row.clone();
        prow[11] = i(8);
        let g = table(vec![row.clone(); 50]);
        assert_eq!(compare(&g, &table(vec![row; 50]), BAG), Ok(()));
        assert!(compare(&g, &table(vec![prow; 50]), BAG).is_err());
    }

    #[test]
    fn wide_permutation_is_found() {
        let g: Vec<Vec<Value>> = (0..20)
            .map(|k| (0..8).map(|c| i((k * c) % 5)).collect())
            .collect();
        let p: Vec<Vec<Value>> = g
            .iter()
            .rev()
            .map(|row| row.iter().rev().cloned().collect())
            .collect();
        assert_eq!(compare(&table(g), &table(p), BAG), Ok(()));
    }

    #[test]
    fn python_equality_of_values() {
        let g = table(vec![vec![i(1)]]);
        assert_eq!(compare(&g, &table(vec![vec![r(1.0)]]), BAG), Ok(()));
        assert!(compare(&g, &table(vec![vec![t("1")]]), BAG).is_err());
        let g = table(vec![vec![Value::Null]]);
        assert_eq!(compare(&g, &table(vec![vec![Value::Null]]), BAG), Ok(()));
    }

    #[test]
    fn quick_rejection_quirk_is_reproduced() {
        // Python sorts the cells of (5, 50) as (50, 5) by their text "5<class 'int'>" and
        // "50<class 'int'>", but (5.0, 50) as (5.0, 50): the unordered rows differ, so the
        // reference rejects although 5 == 5.0 column by column.
        let g = table(vec![vec![i(5), i(50)]]);
        let p = table(vec![vec![r(5.0), i(50)]]);
        assert!(compare(&g, &p, BAG).is_err());
        assert_eq!(compare(&g, &p, TOLERANT), Ok(()));
    }

    #[test]
    fn only_identical_rows_skip_the_reference_tests() {
        // Equal as Python compares them, but not identical: the quick rejection still runs.
        assert!(i(5).identical(&i(5)) && r(-0.0).identical(&r(-0.0)));
        assert!(!i(5).identical(&r(5.0)) && !r(0.0).identical(&r(-0.0)));
        assert!(!t("5").identical(&i(5)) && !Value::Null.identical(&i(0)));
        let g = table(vec![vec![i(5), i(50)], vec![t("a"), Value::Null]]);
        assert_eq!(compare(&g, &g.clone(), ORDERED), Ok(()));
        let p = table(vec![vec![r(5.0), i(50)], vec![t("a"), Value::Null]]);
        assert!(compare(&g, &p, ORDERED).is_err());
    }

    #[test]
    fn float_tolerance_is_opt_in() {
        let g = table(vec![vec![r(0.3)], vec![r(1.0)]]);
        let p = table(vec![vec![r(1.0)], vec![r(0.1 + 0.2)]]);
        assert!(compare(&g, &p, BAG).is_err());
        assert_eq!(compare(&g, &p, TOLERANT), Ok(()));
    }

    #[test]
    fn differences_name_the_rows() {
        let g = table(vec![vec![i(1)], vec![i(2)]]);
        let p = table(vec![vec![i(1)], vec![i(3)]]);
        assert_eq!(
            compare(&g, &p, BAG),
            Err(Difference::Rows {
                only_gold: vec![vec![i(2)]],
                only_predicted: vec![vec![i(3)]],
            })
        );
        assert_eq!(format_row(&[i(1), t("it's")]), "(1, \"it's\")");
        assert_eq!(format_row(&[r(2.0)]), "(2.0,)");
    }

    /// The first-unmatched-row pairing, written the direct (quadratic) way.
    fn bag_difference_by_scanning(
        g: &[Vec<Value>],
        p: &[Vec<Value>],
    ) -> (Vec<Vec<Value>>, Vec<Vec<Value>>) {
        let mut only_predicted = p.to_vec();
        let mut only_gold = Vec::new();
        for row in g {
            match only_predicted.iter().position(|q| q == row) {
                Some(k) => {
                    only_predicted.remove(k);
                }
                None => only_gold.push(row.clone()),
            }
        }
        (only_gold, only_predicted)
    }

    #[test]
    fn the_fast_paths_agree_with_the_direct_ones_on_random_tables() {
        // Small value domains (ints, integral reals equal to them, texts, nulls) so that rows
        // repeat and tables are often equal up to order or columns.
        let mut rng = fastrand::Rng::with_seed(7);
        let value = |rng: &mut fastrand::Rng| match rng.u8(0..5) {
            0 => Value::Null,
            1 => i(rng.i64(0..3)),
            2 => r(rng.i64(0..3) as f64),
            3 => r(0.5),
            _ => t(["a", "b"][rng.usize(0..2)]),
        };
        let (mut equal, mut differ) = (0, 0);
        for _ in 0..4000 {
            let rows = rng.usize(1..7);
            let cols = rng.usize(1..4);
            let g: Vec<Vec<Value>> = (0..rows)
                .map(|_| (0..cols).map(|_| value(&mut rng)).collect())
                .collect();
            // The prediction: a shuffle of the gold's rows and columns, sometimes a cell changed.
            let mut perm: Vec<usize> = (0..cols).collect();
            rng.shuffle(&mut perm);
            let mut p: Vec<Vec<Value>> = g
                .iter()
                .map(|row| perm.iter().map(|&c| row[c].clone()).collect())
                .collect();
            if rng.bool() {
                rng.shuffle(&mut p);
            }
            if rng.u8(0..3) == 0 {
                let (a, b) = (rng.usize(0..rows), rng.usize(0..cols));
                p[a][b] = value(&mut rng);
            }
            for options in [BAG, ORDERED] {
                let verdict = compare(&table(g.clone()), &table(p.clone()), options);
                assert_eq!(
                    equivalent(&table(g.clone()), &table(p.clone()), options),
                    verdict.is_ok(),
                    "{g:?} vs {p:?}"
                );
                if verdict.is_ok() {
                    equal += 1;
                } else {
                    differ += 1;
                }
            }
            assert_eq!(
                bag_difference(&g, &p, 0.0),
                bag_difference_by_scanning(&g, &p),
                "{g:?} vs {p:?}"
            );
        }
        // Both sides are exercised.
        assert!(
            equal > 1000 && differ > 1000,
            "{equal} equal, {differ} differ"
        );
    }

    #[test]
    fn differences_of_large_results_are_found_in_linear_time() {
        // 200,000 rows: a scan per gold row would take minutes.
        let g: Vec<Vec<Value>> = (0..200_000).map(|k| vec![i(k), t("x")]).collect();
        let mut p = g.clone();
        p.reverse();
        p[0] = vec![i(-1), t("x")];
        let Err(Difference::Rows {
            only_gold,
            only_predicted,
        }) = compare(&table(g), &table(p), BAG)
        else {
            panic!("the tables differ in one row");
        };
        assert_eq!(only_gold, vec![vec![i(199_999), t("x")]]);
        assert_eq!(only_predicted, vec![vec![i(-1), t("x")]]);
    }
}
