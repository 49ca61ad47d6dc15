//! `racer::sync::LazyLock`: a value initialised on first access, as `std::sync::LazyLock`,
//! built on racer's `OnceLock`: the initialisation posts, every access waits on it.

use std::fmt;
use std::ops::Deref;
use std::panic::{Location, RefUnwindSafe, UnwindSafe};

use super::once_lock::OnceLock;

/// A value initialised on first access, as `std::sync::LazyLock`.
///
/// Invariant: `init` holds the initialiser until the one call that runs it takes it; if that
/// call panics, `value` stays empty with `init` gone, and every later access panics, as std's
/// poisoned `LazyLock` does.
pub struct LazyLock<T, F = fn() -> T> {
    value: OnceLock<T>,
    init: std::sync::Mutex<Option<F>>,
}

impl<T: UnwindSafe, F: UnwindSafe> UnwindSafe for LazyLock<T, F> {}
impl<T: RefUnwindSafe + UnwindSafe, F: UnwindSafe> RefUnwindSafe for LazyLock<T, F> {}

impl<T, F: FnOnce() -> T> LazyLock<T, F> {
    #[track_caller]
    pub const fn new(f: F) -> LazyLock<T, F> {
        LazyLock { value: OnceLock::new(), init: std::sync::Mutex::new(Some(f)) }
    }

    /// Forces the evaluation and returns the value, as std's `LazyLock::force`.
    #[track_caller]
    pub fn force(this: &LazyLock<T, F>) -> &T {
        this.value.get_or_init_at(Location::caller(), || {
            // The guard is a temporary: the initialiser runs without it.
            let f = this.init.lock().unwrap_or_else(|p| p.into_inner()).take();
            match f {
                Some(f) => f(),
                None => panic!("LazyLock instance has previously been poisoned"),
            }
        })
    }
}

impl<T, F: FnOnce() -> T> Deref for LazyLock<T, F> {
    type Target = T;

    #[track_caller]
    fn deref(&self) -> &T {
        LazyLock::force(self)
    }
}

impl<T: Default> Default for LazyLock<T> {
    #[track_caller]
    fn default() -> LazyLock<T> {
        LazyLock::new(T::default)
    }
}

/// Prints the value if initialised, without forcing or observing it.
impl<T: fmt::Debug, F> fmt::Debug for LazyLock<T, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_tuple("LazyLock");
        match self.value.peek() {
            Some(v) => d.field(v),
            None => d.field(&format_args!("<uninit>")),
        };
        d.finish()
    }
}
