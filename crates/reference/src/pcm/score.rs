//! F1 per category between a prediction's and a gold's elements, and PCM-F1 / PCM-EM over the
//! categories (`spec/pcm.md`, "Scoring").

use super::components::{Category, Components, Element};

/// How predicted elements are matched to gold elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Matching {
    /// Multiset intersection: an element matches an equal element (a sub-tree an identical
    /// sub-tree), each used once.
    Multiset,
    /// The reference's list helper, known defects included: a sub-tree searched in a list of
    /// terminals "matches" when all its terminals occur there, and removes the list's first
    /// element; searched in a list holding sub-trees, it is compared with the first sub-tree
    /// only, and matches it when any one of its elements occurs in it.
    Reference,
}

/// One category's score.
#[derive(Debug, Clone, PartialEq)]
pub struct CategoryScore {
    /// The category scored.
    pub category: Category,
    /// The share of predicted elements that matched a gold element.
    pub precision: f64,
    /// The share of gold elements that a predicted element matched.
    pub recall: f64,
    /// The harmonic mean of precision and recall; 0 when both are 0 or when only one side has
    /// elements in this category.
    pub f1: f64,
    /// How many elements the gold has in this category.
    pub gold: usize,
    /// How many elements the prediction has in this category.
    pub predicted: usize,
    /// Gold elements no predicted element matched.
    pub unmatched_gold: Vec<Element>,
    /// Predicted elements that matched no gold element.
    pub unmatched_predicted: Vec<Element>,
}

/// A prediction's PCM scores against its gold.
#[derive(Debug, Clone, PartialEq)]
pub struct PcmScore {
    /// The scored categories (present on at least one side), in report order.
    pub categories: Vec<CategoryScore>,
    /// Mean F1 over the scored categories.
    pub f1: f64,
    /// Every scored category has F1 = 1.
    pub exact: bool,
}

/// Scores `predicted` against `gold`. With no category on either side, the reference scores 0;
/// multiset matching scores two empty queries as equal (1).
pub(super) fn score(gold: &Components, predicted: &Components, matching: Matching) -> PcmScore {
    let categories: Vec<CategoryScore> = Category::ALL
        .iter()
        .filter_map(|&c| category_score(c, gold.get(c), predicted.get(c), matching))
        .collect();
    if categories.is_empty() {
        let same = matching == Matching::Multiset;
        return PcmScore {
            categories,
            f1: if same { 1.0 } else { 0.0 },
            exact: same,
        };
    }
    let f1 = categories.iter().map(|c| c.f1).sum::<f64>() / categories.len() as f64;
    let exact = categories.iter().all(|c| c.f1 == 1.0);
    PcmScore {
        categories,
        f1,
        exact,
    }
}

fn category_score(
    category: Category,
    gold: &[Element],
    predicted: &[Element],
    matching: Matching,
) -> Option<CategoryScore> {
    if gold.is_empty() && predicted.is_empty() {
        return None;
    }
    let mut s = CategoryScore {
        category,
        precision: 0.0,
        recall: 0.0,
        f1: 0.0,
        gold: gold.len(),
        predicted: predicted.len(),
        unmatched_gold: gold.to_vec(),
        unmatched_predicted: predicted.to_vec(),
    };
    if gold.is_empty() || predicted.is_empty() {
        return Some(s);
    }
    let (precise, left_gold) = matched(predicted, gold, matching);
    let (recalled, left_predicted) = matched(gold, predicted, matching);
    s.precision = precise as f64 / predicted.len() as f64;
    s.recall = recalled as f64 / gold.len() as f64;
    s.f1 = if s.precision + s.recall == 0.0 {
        0.0
    } else {
        2.0 * s.recall * s.precision / (s.recall + s.precision)
    };
    s.unmatched_gold = left_gold;
    s.unmatched_predicted = left_predicted;
    Some(s)
}

/// How many of `searched` are found in `pool` (each found element removes one from the pool),
/// and what is left of the pool.
fn matched(searched: &[Element], pool: &[Element], matching: Matching) -> (usize, Vec<Element>) {
    let mut pool = pool.to_vec();
    let mut count = 0;
    for e in searched {
        let found = match matching {
            Matching::Multiset => pool.iter().position(|p| p == e),
            Matching::Reference => reference_index(&pool, e),
        };
        if let Some(i) = found.filter(|&i| i < pool.len()) {
            pool.remove(i);
            count += 1;
        }
    }
    (count, pool)
}

/// The reference's `get_item_index_in_list`.
fn reference_index(items: &[Element], search: &Element) -> Option<usize> {
    match search {
        Element::Leaf(_) => items.iter().position(|e| e == search),
        Element::Group(inner) => {
            if items.iter().all(|e| matches!(e, Element::Leaf(_))) {
                return inner
                    .iter()
                    .all(|x| reference_index(items, x).is_some())
                    .then_some(0);
            }
            let (i, first_group) = items.iter().enumerate().find_map(|(i, e)| match e {
                Element::Group(g) => Some((i, g)),
                Element::Leaf(_) => None,
            })?;
            inner
                .iter()
                .any(|x| reference_index(first_group, x).is_some())
                .then_some(i)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf(s: &str) -> Element {
        Element::Leaf(s.into())
    }

    #[test]
    fn multiset_matching_counts_each_element_once() {
        let gold = [leaf("a"), leaf("a"), leaf("b")];
        let pred = [leaf("a"), leaf("c")];
        let (n, left) = matched(&pred, &gold, Matching::Multiset);
        assert_eq!(n, 1);
        assert_eq!(left, vec![leaf("a"), leaf("b")]);
    }

    #[test]
    fn reference_helper_defects() {
        // A sub-tree searched among terminals matches if its terminals occur, and index 0 goes.
        let pool = [leaf("x"), leaf("a"), leaf("b")];
        let g = Element::Group(vec![leaf("a"), leaf("b")]);
        assert_eq!(reference_index(&pool, &g), Some(0));
        let (n, left) = matched(std::slice::from_ref(&g), &pool, Matching::Reference);
        assert_eq!((n, left), (1, vec![leaf("a"), leaf("b")]));
        assert_eq!(
            matched(std::slice::from_ref(&g), &pool, Matching::Multiset).0,
            0
        );
        // Among sub-trees, only the first is compared, and one shared element is enough.
        let pool = [
            leaf("a"),
            Element::Group(vec![leaf("a"), leaf("z")]),
            Element::Group(vec![leaf("a"), leaf("b")]),
        ];
        assert_eq!(reference_index(&pool, &g), Some(1));
        let other = Element::Group(vec![leaf("q")]);
        assert_eq!(reference_index(&pool, &other), None);
    }
}
