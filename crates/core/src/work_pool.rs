//! The one pool of worker threads that judges predictions and distils suites.
//!
//! Untrusted SQL can make SQLite recurse deeply (a JSON path 50,000 levels deep, nested
//! subqueries), which overflows a thread's usual 2 or 8 MiB of stack and aborts the process.
//! The pool's threads reserve [`QUERY_STACK`] (address space, touched only as far as a query
//! recurses), so queries run on them need no fresh stack. A query run elsewhere still gets one
//! (the SQLite backend's `run_query`), at the price of mapping it for every query: library callers
//! reach the pool through [`run`], which [`Evaluation`](crate::Evaluation) and the distiller do
//! for all their work.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use rayon::{ThreadPool, ThreadPoolBuilder};

use crate::backend::QUERY_STACK;

/// Requested number of workers; 0: one per core.
static THREADS: AtomicUsize = AtomicUsize::new(0);
static POOL: OnceLock<ThreadPool> = OnceLock::new();

/// Sets the number of worker threads (0: one per core). Takes effect only before the pool's
/// first use; afterwards a different count is an error.
pub fn set_threads(n: usize) -> Result<(), String> {
    THREADS.store(n, Ordering::SeqCst);
    let built = pool().current_num_threads();
    if n != 0 && n != built {
        return Err(format!(
            "the work pool already runs {built} threads; {n} requested after its first use"
        ));
    }
    Ok(())
}

/// The number of worker threads.
pub fn threads() -> usize {
    pool().current_num_threads()
}

/// Runs `f` on a worker thread, waiting for it (directly if this is a worker already); rayon's
/// parallel iterators inside `f` use the pool's threads.
pub fn run<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    pool().install(f)
}

fn pool() -> &'static ThreadPool {
    POOL.get_or_init(|| {
        ThreadPoolBuilder::new()
            .num_threads(THREADS.load(Ordering::SeqCst))
            .thread_name(|i| format!("sqlsuite-worker-{i}"))
            .stack_size(QUERY_STACK + (16 << 20))
            .build()
            // Spawning threads fails only when the process cannot create any.
            .unwrap_or_else(|e| panic!("cannot start the work pool: {e}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_runs_on_threads_with_the_query_stack() {
        let name = run(|| std::thread::current().name().map(str::to_owned));
        assert!(name.is_some_and(|n| n.starts_with("sqlsuite-worker-")));
        // A worker has the reserved stack: well over the red zone below which a query moves.
        let left = run(|| stacker::remaining_stack().unwrap_or(0));
        assert!(left > QUERY_STACK / 2, "{left} bytes of stack left");
    }
}
