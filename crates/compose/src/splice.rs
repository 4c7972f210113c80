//! Word splicing (the paper's Algorithm 1): a clause's question fragment from the tags, in one
//! left-to-right pass.

use super::tagging::TagSet;

/// The intervals `[start, end)` of `tags` that belong to the clause with bit `bit`: the first
/// position tagged with it opens an interval, the next position tagged but not with it closes
/// it (untagged positions between stay inside), and an interval still open at the end closes
/// there.
pub fn intervals(tags: &[TagSet], bit: TagSet) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut open: Option<usize> = None;
    for (i, &t) in tags.iter().enumerate() {
        if t & bit != 0 {
            open.get_or_insert(i);
        } else if t != 0 {
            if let Some(start) = open.take() {
                out.push((start, i));
            }
        }
    }
    if let Some(start) = open {
        out.push((start, tags.len()));
    }
    out
}

/// The word positions of the clause's fragment, in order.
pub fn fragment(tags: &[TagSet], bit: TagSet) -> Vec<usize> {
    intervals(tags, bit)
        .into_iter()
        .flat_map(|(a, b)| a..b)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: TagSet = 1;
    const W: TagSet = 2;
    const O: TagSet = 8;

    #[test]
    fn intervals_open_close_and_reopen() {
        // Find(S) names(S) of(-) players(S|W) whose(W) hand(W) is(-) L(W) sorted(O) by(O) date(O)
        let tags = [S, S, 0, S | W, W, W, 0, W, O, O, O];
        assert_eq!(intervals(&tags, S), vec![(0, 4)]);
        assert_eq!(intervals(&tags, W), vec![(3, 8)]);
        assert_eq!(intervals(&tags, O), vec![(8, 11)]);
    }

    #[test]
    fn an_interval_open_at_the_end_closes_there() {
        let tags = [S, W, 0, S, 0];
        assert_eq!(intervals(&tags, S), vec![(0, 1), (3, 5)]);
        assert_eq!(fragment(&tags, S), vec![0, 3, 4]);
        assert_eq!(intervals(&tags, O), vec![]);
    }

    #[test]
    fn untagged_words_before_the_first_tag_are_left_out() {
        let tags = [0, 0, W, 0];
        assert_eq!(fragment(&tags, W), vec![2, 3]);
    }
}
