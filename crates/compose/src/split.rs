//! Train and test: by clause count (the paper's split) or by query template (its baseline).

use std::collections::BTreeMap;

use super::clauses::template;
use super::{Pair, SplitMode};

/// Pairs with fewer clauses than this go to train.
pub const TEST_MIN_CLAUSES: usize = 3;

/// Sets each pair's `split`. The template split sends a template's pairs to test when a
/// seeded hash of the template, as a fraction of 2^64, is below the clause split's test
/// share (so both splits have about the same test size); it returns that share.
pub fn assign(pairs: &mut [Pair], mode: SplitMode, seed: u64) -> Option<f64> {
    let by_clauses = |p: &Pair| {
        if p.clause_count < TEST_MIN_CLAUSES {
            "train"
        } else {
            "test"
        }
    };
    match mode {
        SplitMode::Clauses => {
            for p in pairs.iter_mut() {
                p.split = by_clauses(p);
            }
            None
        }
        SplitMode::Template => {
            let test = pairs.iter().filter(|p| by_clauses(p) == "test").count();
            let share = if pairs.is_empty() {
                0.0
            } else {
                test as f64 / pairs.len() as f64
            };
            let mut sides: BTreeMap<String, &'static str> = BTreeMap::new();
            for p in pairs.iter_mut() {
                let key = template(&p.query).unwrap_or_else(|_| p.query.clone());
                p.split = sides.entry(key).or_insert_with_key(|t| {
                    if hash_fraction(seed, t) < share {
                        "test"
                    } else {
                        "train"
                    }
                });
            }
            Some(share)
        }
    }
}

/// A template's place in [0, 1): BLAKE3 of the seed (little-endian) and the template.
pub fn hash_fraction(seed: u64, template: &str) -> f64 {
    let mut h = blake3::Hasher::new();
    h.update(&seed.to_le_bytes());
    h.update(template.as_bytes());
    let bytes = h.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&bytes.as_bytes()[..8]);
    (u64::from_le_bytes(first) >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(query: &str, n: usize) -> Pair {
        Pair {
            db_id: "d".into(),
            query: query.into(),
            question: "q".into(),
            clauses: vec![],
            clause_count: n,
            source_index: 0,
            split: "train",
        }
    }

    #[test]
    fn clause_split_and_template_sides() {
        let mut pairs = vec![
            pair("SELECT a FROM t WHERE b = 1", 2),
            pair("SELECT a FROM t WHERE b = 2 ORDER BY a", 3),
            pair("SELECT a FROM t WHERE b = 'x' ORDER BY a", 3),
        ];
        assign(&mut pairs, SplitMode::Clauses, 0);
        assert_eq!(
            pairs.iter().map(|p| p.split).collect::<Vec<_>>(),
            ["train", "test", "test"]
        );
        let share = assign(&mut pairs, SplitMode::Template, 7);
        assert_eq!(share, Some(2.0 / 3.0));
        // One template: the same side.
        assert_eq!(pairs[1].split, pairs[2].split);
    }
}
