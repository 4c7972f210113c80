//! Recombination: every valid sub-query of one source query (SELECT kept, clause order kept)
//! with the union of its clauses' question fragments.

use super::clauses::{Clause, ClauseKind};

/// One combination of a source query's clauses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Combination {
    /// Indices of the chosen clauses, ascending; the first is always the SELECT clause.
    pub chosen: Vec<usize>,
    /// The composed SQL: the chosen clauses' texts joined by single spaces.
    pub sql: String,
    /// Question word positions of the composed question, ascending, each once.
    pub positions: Vec<usize>,
    /// Whether every clause was chosen (the source pair itself).
    pub whole: bool,
}

/// Every combination of `clauses` that keeps the SELECT clause (index 0), in a fixed order
/// (by the bit mask of the other clauses), with `fragments[i]` the positions of clause `i`.
pub fn combinations(clauses: &[Clause], fragments: &[Vec<usize>]) -> Vec<Combination> {
    if clauses.first().map(|c| c.kind) != Some(ClauseKind::Select) {
        return Vec::new();
    }
    let others = clauses.len() - 1;
    let mut out = Vec::with_capacity(1 << others);
    for mask in 0u32..(1u32 << others) {
        let chosen: Vec<usize> = std::iter::once(0)
            .chain((1..clauses.len()).filter(|i| mask & (1 << (i - 1)) != 0))
            .collect();
        let sql = chosen
            .iter()
            .map(|&i| clauses[i].text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        let mut positions: Vec<usize> = chosen
            .iter()
            .flat_map(|&i| fragments.get(i).into_iter().flatten().copied())
            .collect();
        positions.sort_unstable();
        positions.dedup();
        out.push(Combination {
            whole: chosen.len() == clauses.len(),
            chosen,
            sql,
            positions,
        });
    }
    out
}

/// Renders question words: joined by spaces, punctuation and clitics (`'s`) attached to the
/// word before, no punctuation at the start.
pub fn render(words: &[String], positions: &[usize]) -> String {
    let mut out = String::new();
    for &p in positions {
        let Some(w) = words.get(p) else { continue };
        let attaches = w.chars().all(|c| !c.is_alphanumeric()) || w.starts_with('\'');
        if attaches && out.is_empty() {
            continue;
        }
        let glued = attaches && w != "(" && w != "\"";
        if !out.is_empty() && !glued {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clauses::split_clauses;

    #[test]
    fn every_subset_with_select_in_order_and_shared_words_once() {
        let clauses = split_clauses("SELECT a FROM players WHERE b = 1 ORDER BY c").unwrap();
        let fragments = vec![vec![0, 1, 2], vec![2, 3, 4], vec![5, 6]];
        let combos = combinations(&clauses, &fragments);
        let sqls: Vec<&str> = combos.iter().map(|c| c.sql.as_str()).collect();
        assert_eq!(
            sqls,
            vec![
                "SELECT a FROM players",
                "SELECT a FROM players WHERE b = 1",
                "SELECT a FROM players ORDER BY c",
                "SELECT a FROM players WHERE b = 1 ORDER BY c",
            ]
        );
        // "players" (position 2) is in the SELECT and the WHERE fragment: once.
        assert_eq!(combos[1].positions, vec![0, 1, 2, 3, 4]);
        assert_eq!(combos[2].positions, vec![0, 1, 2, 5, 6]);
        assert!(combos[3].whole && !combos[2].whole);
    }

    #[test]
    fn rendering_attaches_punctuation() {
        let words: Vec<String> = ["?", "Show", "teacher", "'s", "name", ",", "age", "?"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        assert_eq!(
            render(&words, &[0, 1, 2, 3, 4, 5, 6, 7]),
            "Show teacher's name, age?"
        );
    }
}
