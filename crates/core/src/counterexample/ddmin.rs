//! Delta debugging: Zeller and Hildebrandt's `ddmin` ("Simplifying and Isolating
//! Failure-Inducing Input", 2002), generic over what is reduced.
//!
//! Given items on which a property holds, it looks for a subset on which it still holds: first
//! the empty set, then each of `n` chunks, then each chunk's complement, doubling `n` when
//! neither helps, until the chunks are single items. What it returns is **1-minimal**: taking
//! away any one item makes the property fail (the last round tried each). A test may stop the
//! reduction (a budget ran out): the smallest set found so far is returned, not minimal.

/// What a test says of a candidate subset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// The property holds on it: keep it.
    Holds,
    /// It does not.
    Fails,
    /// Stop reducing (a budget is spent); the candidate was not tested.
    Stop,
}

/// What [`ddmin`] kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reduced<T> {
    /// The smallest subset found on which the property holds, in the items' order.
    pub kept: Vec<T>,
    /// Whether it is 1-minimal (false: a test said [`Probe::Stop`] first).
    pub minimal: bool,
}

/// The items split into `n` chunks of nearly equal length, in order.
fn chunks<T: Clone>(items: &[T], n: usize) -> Vec<Vec<T>> {
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for i in 0..n {
        let end = items.len() * (i + 1) / n;
        out.push(items[start..end].to_vec());
        start = end;
    }
    out
}

/// Reduces `items`, on which the property holds (not tested again), with `test`.
pub fn ddmin<T: Clone>(items: Vec<T>, test: &mut dyn FnMut(&[T]) -> Probe) -> Reduced<T> {
    let mut kept = items;
    let stopped = |kept| Reduced {
        kept,
        minimal: false,
    };
    if kept.is_empty() {
        return Reduced {
            kept,
            minimal: true,
        };
    }
    match test(&[]) {
        Probe::Holds => {
            return Reduced {
                kept: Vec::new(),
                minimal: true,
            }
        }
        Probe::Stop => return stopped(kept),
        Probe::Fails => {}
    }
    let mut n = 2;
    while kept.len() >= 2 {
        let parts = chunks(&kept, n);
        let mut next = None;
        for part in &parts {
            match test(part) {
                Probe::Holds => {
                    next = Some((part.clone(), 2));
                    break;
                }
                Probe::Stop => return stopped(kept),
                Probe::Fails => {}
            }
        }
        // With two chunks, each complement is the other chunk: tried already.
        if next.is_none() && n > 2 {
            for i in 0..n {
                let complement: Vec<T> = parts
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .flat_map(|(_, p)| p.iter().cloned())
                    .collect();
                match test(&complement) {
                    Probe::Holds => {
                        next = Some((complement, (n - 1).max(2)));
                        break;
                    }
                    Probe::Stop => return stopped(kept),
                    Probe::Fails => {}
                }
            }
        }
        match next {
            Some((smaller, granularity)) => {
                kept = smaller;
                n = granularity.min(kept.len().max(2));
            }
            None if n >= kept.len() => break,
            None => n = (2 * n).min(kept.len()),
        }
    }
    Reduced {
        kept,
        minimal: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The property "contains every one of `needed`", counting the tests.
    fn contains_all(needed: &[u32]) -> impl FnMut(&[u32]) -> Probe + '_ {
        move |c: &[u32]| match needed.iter().all(|x| c.contains(x)) {
            true => Probe::Holds,
            false => Probe::Fails,
        }
    }

    #[test]
    fn finds_the_items_a_monotone_property_needs() {
        let items: Vec<u32> = (0..100).collect();
        for needed in [vec![], vec![42], vec![3, 97], vec![0, 1, 2, 50, 99]] {
            let r = ddmin(items.clone(), &mut contains_all(&needed));
            assert!(r.minimal);
            assert_eq!(r.kept, needed, "needed {needed:?}");
        }
    }

    #[test]
    fn what_it_keeps_is_one_minimal_for_a_property_that_is_not_monotone() {
        // Holds on sets whose sum is even and at least 30: many minimal sets, none monotone.
        let holds = |c: &[u32]| c.iter().sum::<u32>() % 2 == 0 && c.iter().sum::<u32>() >= 30;
        let items: Vec<u32> = (1..=20).collect();
        assert!(holds(&items));
        let mut tests = 0;
        let r = ddmin(items, &mut |c| {
            tests += 1;
            if holds(c) {
                Probe::Holds
            } else {
                Probe::Fails
            }
        });
        assert!(r.minimal && holds(&r.kept), "{r:?}");
        // 1-minimal: without any one item it fails.
        for i in 0..r.kept.len() {
            let mut without = r.kept.clone();
            without.remove(i);
            assert!(!holds(&without), "{:?} without {}", r.kept, r.kept[i]);
        }
        assert!(tests < 200, "{tests} tests");
    }

    #[test]
    fn a_stop_keeps_the_smallest_set_so_far_and_says_it_is_not_minimal() {
        let items: Vec<u32> = (0..64).collect();
        let needed = [5u32, 60];
        let mut budget = 3;
        let r = ddmin(items.clone(), &mut |c| {
            if budget == 0 {
                return Probe::Stop;
            }
            budget -= 1;
            contains_all(&needed)(c)
        });
        assert!(!r.minimal);
        assert!(needed.iter().all(|x| r.kept.contains(x)), "{:?}", r.kept);
        assert!(r.kept.len() <= items.len());
        // No budget at all: the items as given.
        let r = ddmin(items.clone(), &mut |_| Probe::Stop);
        assert_eq!((r.kept, r.minimal), (items, false));
    }
}
