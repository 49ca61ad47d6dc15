//! The statics of loom's `lazy_static!`: as in loom, each model iteration has its own value,
//! made on first use in that iteration (a crate may rely on it: sharded-slab hands out thread
//! ids from one, fresh in every loom execution). Outside a model there is one value.

use std::ops::Deref;
use std::sync::{Mutex, PoisonError};

use racer::sync::OnceLock;

/// The iterations whose values a static keeps reachable: more than the models that can run at
/// once (one per test thread). Values of older iterations are leaked, not dropped, as a model's
/// threads may outlive it.
const KEPT: usize = 32;

/// A `lazy_static!` value per model iteration. Each value is a racer `OnceLock`, so its
/// initialisation happens before every use.
pub struct PerIteration<T: 'static> {
    init: fn() -> T,
    outside: OnceLock<T>,
    iterations: Mutex<Vec<(u64, &'static OnceLock<T>)>>,
}

impl<T: 'static> PerIteration<T> {
    /// A static made by `init` in each iteration.
    pub const fn new(init: fn() -> T) -> PerIteration<T> {
        PerIteration { init, outside: OnceLock::new(), iterations: Mutex::new(Vec::new()) }
    }
}

impl<T: Send + Sync + 'static> Deref for PerIteration<T> {
    type Target = T;

    fn deref(&self) -> &T {
        let Some(iteration) = racer::model::current_iteration() else {
            return self.outside.get_or_init(self.init);
        };
        let cell = {
            let mut kept = self.iterations.lock().unwrap_or_else(PoisonError::into_inner);
            match kept.iter().find(|(i, _)| *i == iteration) {
                Some((_, cell)) => *cell,
                None => {
                    let cell: &'static OnceLock<T> = Box::leak(Box::new(OnceLock::new()));
                    if kept.len() == KEPT {
                        kept.remove(0);
                    }
                    kept.push((iteration, cell));
                    cell
                }
            }
        };
        cell.get_or_init(self.init)
    }
}
