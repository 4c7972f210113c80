//! Two prediction sets' accuracy side by side: per metric, all items and then each group
//! (hardness, `db_id`, category), with set A's tally, set B's and B − A in percentage points.
//!
//! One computation for every place that shows it: `sqlsuite diff` prints these rows
//! ([`super::diff`]), and the HTML report of B against A (`report --against`) renders the same
//! rows with the same cells ([`cell`], [`AccuracyRow::delta_cell`]), so the page and the command
//! line cannot disagree.

use super::summary::{Summary, Tally};

/// A grouping of the items that a comparison shows rows for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Grouping {
    /// Spider's hardness (with `[dataset] tables`), in the official order.
    Hardness,
    /// The database the item runs on.
    DbId,
    /// The dataset's own category of the question (BIRD's difficulty, SQL-Eval's
    /// `query_category`).
    Category,
}

impl Grouping {
    /// Its name as a heading: `hardness`, `db_id`, `category`.
    pub fn name(self) -> &'static str {
        match self {
            Grouping::Hardness => "hardness",
            Grouping::DbId => "db_id",
            Grouping::Category => "category",
        }
    }
}

/// One row of the accuracy comparison: the items of one group (or all of them) in A and in B.
#[derive(Debug, Clone, PartialEq)]
pub struct AccuracyRow {
    /// `None` for all items; else the grouping and the group (`easy`, `concert_singer`).
    pub group: Option<(Grouping, String)>,
    /// The group's tally in A.
    pub a: Tally,
    /// The group's tally in B.
    pub b: Tally,
}

impl AccuracyRow {
    /// B's accuracy minus A's, in percentage points.
    pub fn delta_points(&self) -> f64 {
        100.0 * (self.b.accuracy() - self.a.accuracy())
    }

    /// `+6.69`, `-12.28`, `+0.00`; `-` when either side scored nothing.
    pub fn delta_cell(&self) -> String {
        if self.a.scored() == 0 || self.b.scored() == 0 {
            "-".to_owned()
        } else {
            format!("{:+.2}", self.delta_points())
        }
    }
}

/// `65.00% (13/20)`: accuracy, correct and scored; `-` when nothing was scored.
pub fn cell(t: &Tally) -> String {
    if t.scored() == 0 {
        "-".to_owned()
    } else {
        format!(
            "{:.2}% ({}/{})",
            100.0 * t.accuracy(),
            t.correct,
            t.scored()
        )
    }
}

/// The rows comparing one metric's summaries of set A (`a`) and set B (`b`): all items first,
/// then per hardness (official order), per `db_id` (by name) and per category (by name), each
/// grouping only when the items have it. The items are the same in both sets, so both have the
/// same groups.
pub fn rows(a: &Summary, b: &Summary) -> Vec<AccuracyRow> {
    let mut rows = vec![AccuracyRow {
        group: None,
        a: a.total.clone(),
        b: b.total.clone(),
    }];
    for (name, ta) in &a.by_hardness {
        let tb = b
            .by_hardness
            .iter()
            .find(|(g, _)| g == name)
            .map(|(_, t)| t.clone());
        rows.push(row(Grouping::Hardness, name, ta, tb));
    }
    for (name, ta) in &a.by_db {
        rows.push(row(Grouping::DbId, name, ta, b.by_db.get(name).cloned()));
    }
    for (name, ta) in &a.by_category {
        rows.push(row(
            Grouping::Category,
            name,
            ta,
            b.by_category.get(name).cloned(),
        ));
    }
    rows
}

fn row(grouping: Grouping, name: &str, a: &Tally, b: Option<Tally>) -> AccuracyRow {
    AccuracyRow {
        group: Some((grouping, name.to_owned())),
        a: a.clone(),
        b: b.unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(correct: usize, incorrect: usize) -> Tally {
        Tally {
            items: correct + incorrect,
            correct,
            incorrect,
            ..Tally::default()
        }
    }

    #[test]
    fn cells_and_the_difference() {
        let r = AccuracyRow {
            group: None,
            a: tally(13, 7),
            b: tally(15, 5),
        };
        assert_eq!(cell(&r.a), "65.00% (13/20)");
        assert_eq!(cell(&r.b), "75.00% (15/20)");
        assert_eq!(r.delta_cell(), "+10.00");
        let back = AccuracyRow {
            group: None,
            a: r.b.clone(),
            b: r.a.clone(),
        };
        assert_eq!(back.delta_cell(), "-10.00");
        // Nothing scored on a side: no accuracy and no difference.
        let empty = AccuracyRow {
            group: None,
            a: Tally {
                items: 3,
                skipped: 3,
                ..Tally::default()
            },
            b: tally(1, 1),
        };
        assert_eq!(cell(&empty.a), "-");
        assert_eq!(empty.delta_cell(), "-");
    }
}
