//! A concurrent memo: a value computed once per key, however many threads ask for it at once
//! (the executor's gold and prediction results, the exec metric's counterexamples).

use std::hash::Hash;
use std::sync::{Arc, Mutex, OnceLock};

use hashbrown::{Equivalent, HashMap};

/// The memo: the first caller computes, concurrent callers for the same key wait. Looked up by a borrowed form of the key (no key is built for a hit), with a fast hash: a
/// lookup costs little beside the query it saves.
#[derive(Debug)]
pub(crate) struct Memo<K, V> {
    map: Mutex<HashMap<K, Arc<OnceLock<V>>>>,
}

impl<K: Eq + Hash, V: Clone> Memo<K, V> {
    pub(crate) fn new() -> Self {
        Memo {
            map: Mutex::new(HashMap::new()),
        }
    }

    /// The value for `key` (of which `owned` makes the key to keep), computed by `init` on
    /// first need.
    pub(crate) fn get_or_init<Q: Hash + Equivalent<K> + ?Sized>(
        &self,
        key: &Q,
        owned: impl FnOnce() -> K,
        init: impl FnOnce() -> V,
    ) -> V {
        let cell = {
            let mut map = self.map.lock().unwrap_or_else(|p| p.into_inner());
            match map.get(key) {
                Some(cell) => Arc::clone(cell),
                None => Arc::clone(map.entry(owned()).or_default()),
            }
        };
        // Computed outside the map's lock: other keys proceed meanwhile.
        cell.get_or_init(init).clone()
    }
}
