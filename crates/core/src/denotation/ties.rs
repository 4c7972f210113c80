//! Tie-aware comparison of ordered results (`spec/exec.md`, "Tie-aware ORDER BY / LIMIT").
//!
//! A gold `… ORDER BY keys [LIMIT k]` fixes the order of rows with different keys only: rows
//! with equal keys (a *tie group*) may come in any order, and where `LIMIT k` cuts through a
//! tie group any of its rows may be the ones kept. [`TieGroups`] holds the gold's rows in key
//! order, split into tie groups (the last one whole, also past the limit); a prediction is
//! equivalent iff, under some permutation of its columns, its rows consume the groups in
//! order — each group whole as a bag, the last one as a sub-bag of the size that is left.

use super::{bijection, cmp_rows, rows_eq, Value};

/// The gold's rows in key order, split into tie groups, as far as the answer reaches.
#[derive(Debug, Clone, PartialEq)]
pub struct TieGroups {
    /// The rows of each group (the gold's columns only), in key order. Every group is whole:
    /// the last may hold more rows than the answer takes from it.
    groups: Vec<Vec<Vec<Value>>>,
    /// Rows the answer has (the gold's row count).
    take: usize,
}

impl TieGroups {
    /// Splits `rows` (in the gold's key order) into groups of consecutive rows with equal
    /// `keys` (Python equality, NULL equal to NULL, as SQLite's sort puts them together) and
    /// keeps the groups that the first `take` rows reach. `None` if there are fewer than
    /// `take` rows or `keys` is not one key tuple per row.
    pub fn new(rows: Vec<Vec<Value>>, keys: &[Vec<Value>], take: usize) -> Option<TieGroups> {
        if rows.len() < take || keys.len() != rows.len() {
            return None;
        }
        let mut groups: Vec<Vec<Vec<Value>>> = Vec::new();
        // Row `i` starts a new group past the answer's rows: the groups end there.
        for (i, row) in rows.into_iter().enumerate() {
            let same = i > 0 && rows_eq(&keys[i - 1], &keys[i], 0.0);
            if !same {
                if i >= take {
                    break;
                }
                groups.push(Vec::new());
            }
            if let Some(g) = groups.last_mut() {
                g.push(row);
            }
        }
        Some(TieGroups { groups, take })
    }

    /// How many rows the answer takes from each group.
    fn taken(&self) -> Vec<usize> {
        let mut left = self.take;
        self.groups
            .iter()
            .map(|g| {
                let n = g.len().min(left);
                left -= n;
                n
            })
            .collect()
    }

    /// The limit cuts through a group of rows that are not all the same: which rows the
    /// answer holds depends on how the tie is broken.
    pub(crate) fn limit_is_tied(&self) -> bool {
        self.groups
            .iter()
            .zip(self.taken())
            .any(|(g, n)| n < g.len() && n > 0 && !all_same(g))
    }

    /// Some group the answer takes two or more rows from holds rows that are not all the
    /// same: their order in the answer depends on how the tie is broken.
    pub(crate) fn order_is_tied(&self) -> bool {
        self.groups
            .iter()
            .zip(self.taken())
            .any(|(g, n)| n >= 2 && !all_same(g))
    }

    /// Is `pred` (as many rows as the answer, as many columns as the gold) the gold's answer
    /// up to the order within tie groups, the choice of rows from a group the limit cuts, and
    /// a permutation of its columns?
    pub fn admits(&self, pred: &[Vec<Value>], tol: f64) -> bool {
        if pred.len() != self.take {
            return false;
        }
        let Some(ncols) = self.groups.first().and_then(|g| g.first()).map(Vec::len) else {
            return pred.is_empty();
        };
        if pred.iter().any(|r| r.len() != ncols) {
            return false;
        }
        // The prediction's consecutive segments, one per group.
        let mut segments = Vec::new();
        let mut at = 0;
        for (g, n) in self.groups.iter().zip(self.taken()) {
            segments.push((g, &pred[at..at + n], n == g.len()));
            at += n;
        }
        let fits = |gcols: &[usize], pcols: &[usize]| {
            segments.iter().all(|(g, p, whole)| {
                let g: Vec<Vec<Value>> = g.iter().map(|r| pick(r, gcols)).collect();
                let p: Vec<Vec<Value>> = p.iter().map(|r| pick(r, pcols)).collect();
                sub_bag(p, g, tol, *whole)
            })
        };
        let candidates: Vec<Vec<usize>> = (0..ncols)
            .map(|j| (0..ncols).filter(|&k| fits(&[j], &[k])).collect())
            .collect();
        if candidates.iter().any(Vec::is_empty) {
            return false;
        }
        let pcol = |k: usize| pred.iter().map(|r| &r[k]).collect::<Vec<_>>();
        let class: Vec<usize> = (0..ncols)
            .map(|k| (0..=k).find(|&m| pcol(m) == pcol(k)).unwrap_or(k))
            .collect();
        bijection(
            &candidates,
            &class,
            &mut Vec::new(),
            &mut |perm: &[usize]| {
                let gcols: Vec<usize> = (0..perm.len()).collect();
                fits(&gcols, perm)
            },
        )
    }
}

fn pick(row: &[Value], cols: &[usize]) -> Vec<Value> {
    cols.iter().map(|&c| row[c].clone()).collect()
}

fn all_same(rows: &[Vec<Value>]) -> bool {
    rows.windows(2).all(|w| rows_eq(&w[0], &w[1], 0.0))
}

/// Is `small` a sub-multiset of `big` (`equal`: the same multiset)? Both sorted by a total
/// order consistent with value equality, then matched greedily.
fn sub_bag(mut small: Vec<Vec<Value>>, mut big: Vec<Vec<Value>>, tol: f64, equal: bool) -> bool {
    if small.len() > big.len() || (equal && small.len() != big.len()) {
        return false;
    }
    small.sort_by(|x, y| cmp_rows(x, y));
    big.sort_by(|x, y| cmp_rows(x, y));
    let mut b = big.iter();
    'rows: for row in &small {
        for candidate in b.by_ref() {
            if rows_eq(row, candidate, tol) {
                continue 'rows;
            }
            if equal || cmp_rows(candidate, row).is_gt() {
                return false;
            }
        }
        return false;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(v: i64) -> Value {
        Value::Int(v)
    }
    fn t(v: &str) -> Value {
        Value::Text(v.into())
    }

    /// Singers (name, age) ordered by age: b and c tie at 40, d and e at 50.
    fn singers(take: usize) -> TieGroups {
        let rows = vec![
            vec![t("a"), i(30)],
            vec![t("b"), i(40)],
            vec![t("c"), i(40)],
            vec![t("d"), i(50)],
            vec![t("e"), i(50)],
            vec![t("f"), i(60)],
        ];
        let keys: Vec<Vec<Value>> = rows.iter().map(|r| vec![r[1].clone()]).collect();
        TieGroups::new(rows, &keys, take).unwrap()
    }

    fn rows(names: &[(&str, i64)]) -> Vec<Vec<Value>> {
        names.iter().map(|(n, a)| vec![t(n), i(*a)]).collect()
    }

    #[test]
    fn rows_with_equal_keys_may_come_in_any_order() {
        let g = singers(6);
        assert!(g.order_is_tied() && !g.limit_is_tied());
        let swapped = rows(&[
            ("a", 30),
            ("c", 40),
            ("b", 40),
            ("e", 50),
            ("d", 50),
            ("f", 60),
        ]);
        assert!(g.admits(&swapped, 0.0));
        // Columns may still be permuted.
        let permuted: Vec<Vec<Value>> = swapped
            .iter()
            .map(|r| vec![r[1].clone(), r[0].clone()])
            .collect();
        assert!(g.admits(&permuted, 0.0));
    }

    #[test]
    fn any_choice_of_the_tied_rows_at_the_limit() {
        // LIMIT 2: a, then one of b and c.
        let g = singers(2);
        assert!(g.limit_is_tied());
        assert!(g.admits(&rows(&[("a", 30), ("b", 40)]), 0.0));
        assert!(g.admits(&rows(&[("a", 30), ("c", 40)]), 0.0));
        // LIMIT 4: a, b, c (any order), one of d and e.
        let g = singers(4);
        assert!(g.admits(&rows(&[("a", 30), ("c", 40), ("b", 40), ("e", 50)]), 0.0));
        // LIMIT 3 cuts between groups: nothing is tied at the limit.
        assert!(!singers(3).limit_is_tied());
    }

    #[test]
    fn wrong_order_across_keys_wrong_rows_and_wrong_counts_fail() {
        let g = singers(4);
        // Order across distinct keys.
        assert!(!g.admits(&rows(&[("b", 40), ("a", 30), ("c", 40), ("d", 50)]), 0.0));
        // A row that is in no tie group at the limit (f is past it, untied).
        assert!(!g.admits(&rows(&[("a", 30), ("b", 40), ("c", 40), ("f", 60)]), 0.0));
        // A row taken twice.
        assert!(!g.admits(&rows(&[("a", 30), ("b", 40), ("c", 40), ("a", 30)]), 0.0));
        assert!(!g.admits(&rows(&[("a", 30), ("b", 40), ("b", 40), ("d", 50)]), 0.0));
        // Wrong count.
        assert!(!g.admits(&rows(&[("a", 30), ("b", 40), ("c", 40)]), 0.0));
        // A group taken whole must be whole: c missing, d in its place.
        assert!(!singers(6).admits(
            &rows(&[
                ("a", 30),
                ("b", 40),
                ("d", 40),
                ("c", 50),
                ("e", 50),
                ("f", 60)
            ]),
            0.0
        ));
    }

    #[test]
    fn identical_tied_rows_are_no_tie() {
        let rows = vec![vec![t("x")], vec![t("x")], vec![t("y")]];
        let keys = vec![vec![i(1)], vec![i(1)], vec![i(2)]];
        let g = TieGroups::new(rows, &keys, 1).unwrap();
        assert!(!g.limit_is_tied() && !g.order_is_tied());
        assert!(TieGroups::new(vec![], &[], 1).is_none());
    }
}
