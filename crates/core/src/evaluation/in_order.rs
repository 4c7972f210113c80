//! Judged pairs handed on in a deterministic order while the run goes on: a reorder buffer.
//!
//! Workers finish (set, item) pairs in whatever order the machine makes; [`InOrder`], a
//! [`Watch`], hands each to a [`Sink`] in the order of the sets asked for and, within a set, of
//! its items, as soon as it and every pair before it are judged. What a sink is given
//! therefore does not depend on the number of workers or on timing, only on the verdicts; a
//! sink writing JSON lines streams them, byte-identical from run to run
//! (`sqlsuite eval --format jsonl`).

use std::sync::Mutex;
use std::time::Duration;

use super::{Evaluation, Watch};
use crate::run::{ItemResult, Judged};

/// Where [`InOrder`] hands judged pairs, one at a time (under its lock: a sink does no
/// evaluation work, it writes).
pub trait Sink: Send {
    /// Set `set` (a position among the manifest's prediction sets) begins: before its first
    /// item, and for a set without items before the next set begins or at
    /// [`InOrder::finish`].
    fn set_begins(&mut self, set: usize);
    /// Item `item` of set `set`, judged.
    fn judged(&mut self, set: usize, item: usize, judged: Judged<'_>);
}

/// The reorder buffer's state: which pairs are judged, and how far the sink has been told.
struct State<S> {
    /// Per position `k` (the `k / items`-th set asked for, item `k % items`): judged.
    done: Vec<bool>,
    /// The first position the sink has not been told.
    next: usize,
    /// Sets (positions among those asked for) whose beginning the sink has been told.
    begun: usize,
    sink: S,
}

/// A [`Watch`] handing judged pairs of `sets` to a [`Sink`] in order.
pub struct InOrder<'a, S> {
    eval: &'a Evaluation,
    sets: Vec<usize>,
    items: usize,
    state: Mutex<State<S>>,
}

impl<'a, S: Sink> InOrder<'a, S> {
    /// A buffer for a run of `sets` (in that order) of `eval`.
    pub fn new(eval: &'a Evaluation, sets: &[usize], sink: S) -> InOrder<'a, S> {
        let items = eval.items().len();
        InOrder {
            eval,
            sets: sets.to_vec(),
            items,
            state: Mutex::new(State {
                done: vec![false; sets.len() * items],
                next: 0,
                begun: 0,
                sink,
            }),
        }
    }

    /// Tells the sink what it has not been told (sets without items), and gives it back.
    /// Pairs never judged (the run stopped early) are not told.
    pub fn finish(self) -> S {
        let mut state = self
            .state
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if state.done.iter().all(|&d| d) {
            while state.begun < self.sets.len() {
                state.sink.set_begins(self.sets[state.begun]);
                state.begun += 1;
            }
        }
        state.sink
    }

    /// Marks the pair at position `k` judged, and tells the sink every pair now in order.
    fn advance(&self, k: usize) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let state = &mut *state;
        if let Some(done) = state.done.get_mut(k) {
            *done = true;
        }
        while state.done.get(state.next).copied().unwrap_or(false) {
            let (position, item) = (state.next / self.items, state.next % self.items);
            // Sets before this one that have no item, then this one.
            while state.begun <= position {
                state.sink.set_begins(self.sets[state.begun]);
                state.begun += 1;
            }
            let set = self.sets[position];
            if let Some(result) = self.eval.computed(set, item) {
                let judged = Judged {
                    item: &self.eval.items()[item],
                    prediction: self.eval.prediction(set, item),
                    result,
                };
                state.sink.judged(set, item, judged);
            }
            state.next += 1;
        }
    }
}

impl<S: Sink> Watch for InOrder<'_, S> {
    fn finished(&self, set: usize, item: usize, _: &ItemResult, _: Duration) {
        // A set asked for twice is told in its first place only.
        if let Some(position) = self.sets.iter().position(|&s| s == set) {
            self.advance(position * self.items + item);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::Evaluation;

    /// What a sink was told, and when the watch saw each pair finish, in one list.
    #[derive(Default)]
    struct Events(Vec<String>);

    impl Sink for std::sync::Arc<Mutex<Events>> {
        fn set_begins(&mut self, set: usize) {
            self.lock().unwrap().0.push(format!("begin {set}"));
        }
        fn judged(&mut self, set: usize, item: usize, _: Judged<'_>) {
            self.lock().unwrap().0.push(format!("told {set}:{item}"));
        }
    }

    /// Records each pair's finish, then hands it on (as the command line chains its watches).
    struct Recording<'a> {
        events: std::sync::Arc<Mutex<Events>>,
        inner: &'a InOrder<'a, std::sync::Arc<Mutex<Events>>>,
    }

    impl Watch for Recording<'_> {
        fn finished(&self, set: usize, item: usize, r: &ItemResult, elapsed: Duration) {
            let event = format!("judged {set}:{item}");
            self.events.lock().unwrap().0.push(event);
            self.inner.finished(set, item, r, elapsed);
        }
    }

    fn demo() -> Evaluation {
        let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../../datasets/demo/demo.toml");
        Evaluation::open(manifest).expect("the demo dataset opens")
    }

    #[test]
    fn pairs_are_told_in_order_as_soon_as_their_prefix_is_judged() {
        let eval = demo();
        let events = std::sync::Arc::new(Mutex::new(Events::default()));
        let buffer = InOrder::new(&eval, &[1, 0], std::sync::Arc::clone(&events));
        let watch = Recording {
            events: std::sync::Arc::clone(&events),
            inner: &buffer,
        };
        let n = eval.items().len();
        assert!(n >= 2, "the demo has {n} items");
        // Out of order, as workers finish: item 1 before item 0, set 0 before set 1.
        let mut order: Vec<(usize, usize)> = vec![(1, 1), (0, 0), (1, 0)];
        order.extend((2..n).map(|i| (1, i)));
        order.extend((1..n).map(|i| (0, i)));
        for (set, item) in order {
            let result = eval.judge(set, item);
            watch.finished(set, item, result, Duration::ZERO);
        }
        let told = buffer.finish();
        let events = told.lock().unwrap().0.clone();
        let at = |e: &str| events.iter().position(|x| x == e).expect(e);
        // Item 1 waits for item 0; set 1 (asked for first) begins before anything is told.
        assert!(at("begin 1") < at("told 1:0"));
        assert!(at("judged 1:0") < at("told 1:0") && at("told 1:0") < at("told 1:1"));
        assert!(at("judged 1:1") < at("judged 1:0"));
        // Streamed: set 1's first item is told before its last item is judged...
        assert!(at("told 1:0") < at(&format!("judged 1:{}", n - 1)));
        // ...and set 0, judged early, is told only after set 1's last item.
        assert!(at(&format!("told 1:{}", n - 1)) < at("begin 0"));
        assert!(at("judged 0:0") < at(&format!("judged 1:{}", n - 1)));
        let told: Vec<&String> = events.iter().filter(|e| e.starts_with("told")).collect();
        assert_eq!(told.len(), 2 * n);
    }

    #[test]
    fn nothing_is_told_past_a_pair_never_judged() {
        let eval = demo();
        let events = std::sync::Arc::new(Mutex::new(Events::default()));
        let buffer = InOrder::new(&eval, &[0], std::sync::Arc::clone(&events));
        let n = eval.items().len();
        for item in 1..n {
            buffer.finished(0, item, eval.judge(0, item), Duration::ZERO);
        }
        let told = buffer.finish();
        assert!(told.lock().unwrap().0.is_empty());
    }
}
