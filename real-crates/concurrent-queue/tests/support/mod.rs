//! A stand-in for `easy_parallel::Parallel` (the upstream tests' dev-dependency) on racer's
//! scoped threads, so that the ported tests keep their upstream shape and every thread they
//! run is one racer knows (spawn and join are happens-before edges).
//!
//! Same behaviour as the upstream tests rely on: `add` queues one closure, `each` one closure
//! per item of an iterator, `run` runs them all in parallel — the last one on the calling
//! thread, the others on scoped threads — joins them, resumes any panic, and returns their
//! results in order.

use racer::sync::Arc;
use racer::thread;

type Job<'a, T> = Box<dyn FnOnce() -> T + Send + 'a>;

/// A set of closures to run in parallel.
#[must_use]
pub struct Parallel<'a, T> {
    jobs: Vec<Job<'a, T>>,
}

impl<'a, T: Send + 'a> Parallel<'a, T> {
    pub fn new() -> Self {
        Parallel { jobs: Vec::new() }
    }

    /// Adds one closure.
    pub fn add<F: FnOnce() -> T + Send + 'a>(mut self, f: F) -> Self {
        self.jobs.push(Box::new(f));
        self
    }

    /// Adds one closure per item of `items`, each calling `f` with its item.
    pub fn each<A, I, F>(mut self, items: I, f: F) -> Self
    where
        I: IntoIterator<Item = A>,
        A: Send + 'a,
        F: Fn(A) -> T + Send + Sync + 'a,
    {
        let f = Arc::new(f);
        for item in items {
            let f = f.clone();
            self.jobs.push(Box::new(move || f(item)));
        }
        self
    }

    /// Runs every closure in parallel (the last one on this thread) and returns their results.
    pub fn run(mut self) -> Vec<T> {
        let last = match self.jobs.pop() {
            Some(last) => last,
            None => return Vec::new(),
        };
        thread::scope(|s| {
            let handles: Vec<_> = self.jobs.drain(..).map(|job| s.spawn(job)).collect();
            let last = last();
            let mut results: Vec<T> = handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                .collect();
            results.push(last);
            results
        })
    }
}
