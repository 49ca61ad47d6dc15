//! racer's stand-in for [loom] 0.7.
//!
//! Many lock-free crates have a `cfg(loom)` seam: built with `RUSTFLAGS="--cfg loom"` they take
//! their `UnsafeCell`, atomics, `thread::yield_now`, ... from the `loom` crate instead of
//! `core`/`std`. This package is named `loom` (version 0.7.99, which satisfies `loom = "0.7"`)
//! so that a test crate can substitute it with
//!
//! ```toml
//! [patch.crates-io]
//! loom = { path = "path/to/racer/loom-compat" }
//! ```
//!
//! and the crate under test then runs, unchanged, on racer's types: its `UnsafeCell`s are
//! [`racer::Shared`] cells whose every access is checked, its atomics are racer's (whose
//! Acquire/Release operations are happens-before edges) behind loom's one-word handles, whose
//! creation is a checked write as in loom, and its threads are racer's. Layout, auto traits and
//! bounds are loom's (`UnsafeCell` is not `Sync`; `thread::spawn` needs no `Send`). (In the
//! registry, where `loom` is taken, the same package is `racer-loom`, library `loom`;
//! `cargo racer test --loom` puts it in loom's place with no edit to the crate.)
//!
//! Like loom, [`model()`] explores interleavings: it runs its closure many times, and in each
//! iteration the model's threads take turns at every operation racer sees (atomics, locks,
//! spawn/join, yields...), in an order racer's scheduler picks (PCT and random schedules; see
//! [`model::Builder`] for how loom's bounds map onto it). Unlike loom, every iteration runs on
//! real threads and is checked by racer's happens-before detector, which reports a race
//! whenever two accesses are unordered, whatever the values they happened to read. A failing
//! iteration names its seed and the `RACER_REPLAY=...` line that runs it again. Enable the
//! `race-detect` feature (`race-detect = ["loom/race-detect"]` in the test crate) to check;
//! without it every item here is std's and `model` runs the closure once.
//!
//! What differs from loom, on purpose:
//! - A search is a budget of iterations (1000 within 1 s by default), not an exhaustive
//!   enumeration: racer needs no exact interleaving to see an unordered pair, only one that
//!   reaches both accesses.
//! - No leak check at the end of a model: [`alloc`] is std's allocator and [`alloc::Track`] a
//!   plain wrapper.
//! - Memory orderings are simulated inside a model, as in loom, on real threads: a load reads
//!   one of the stores the C/C++ model allows it (racer's store history of the atomic, the
//!   scheduler choosing); a Relaxed hand-off is also found, whatever value the load read, as the
//!   data race it makes possible. Outside a model a load reads what the hardware gives.
//!
//! Only the part of loom's API that the crates run so far need is here: [`cell::UnsafeCell`]
//! (`new`, `with`, `with_mut`, `get`/`get_mut` with their [`cell::ConstPtr`]/[`cell::MutPtr`]
//! guards, `into_inner`), [`cell::Cell`], [`sync::atomic`] with loom's
//! `with_mut` and `unsync_load`, [`sync`]'s `Arc`, `Mutex`, `Condvar`, `RwLock`, `Barrier`,
//! `mpsc`, [`thread`], [`hint`], [`alloc`], [`future`], [`model()`] and
//! [`model::Builder`], `sync::Notify`, `lazy_static!`, `MAX_THREADS`, `thread::LocalKey` and its `AccessError`
//! (in [`thread`] and [`lazy_static`](mod@lazy_static)). An item it lacks is named by
//! `cargo racer test --loom` when a crate's build needs it.
//!
//! [loom]: https://docs.rs/loom/0.7

#![warn(missing_docs)]

pub mod alloc;
pub mod cell;
mod outside;
// loom has it behind its `futures` feature; it needs no dependency here, so it is always built
// (the feature exists so that crates asking for it resolve).
pub mod future;
pub mod hint;
pub mod sync;
pub mod thread;

pub use std::thread_local;

mod lazy;

/// loom's limit on the threads of one model, the main thread included, kept at loom's value so
/// that a test sized by it (`for _ in 0..loom::MAX_THREADS - 1 { thread::spawn(..) }`) runs the
/// same model here. racer itself has no such limit.
pub const MAX_THREADS: usize = 5;

/// loom's `lazy_static` module (next to the [`lazy_static!`] macro, which is exported at the
/// crate root): `AccessError`, the error of `LocalKey::try_with`, which here is std's, as
/// `thread_local!` and [`thread::LocalKey`] are.
pub mod lazy_static {
    pub use std::thread::AccessError;
}

/// loom's `lazy_static!`: each `static ref NAME: T = init;` is a static that derefs to a `T`
/// made by `init` on first use, as in loom once per model iteration (outside a model, once),
/// and whose initialisation happens before every use.
#[macro_export]
macro_rules! lazy_static {
    ($(#[$attr:meta])* $vis:vis static ref $name:ident : $t:ty = $init:expr; $($rest:tt)*) => {
        $(#[$attr])* $vis static $name: $crate::__private::PerIteration<$t> = $crate::__private::PerIteration::new(|| $init);
        $crate::lazy_static!($($rest)*);
    };
    () => {};
}

#[doc(hidden)]
pub mod __private {
    pub use crate::lazy::PerIteration;
}

/// Runs `f` under racer's controlled schedules (see [`model::Builder`]), as loom's `model`
/// explores `f`'s interleavings: each iteration is a real execution on real threads, checked
/// by racer, whose threads take turns at every operation racer sees.
///
/// # Panics
/// When racer found a data race, a deadlock or a model that does not end in an iteration (with
/// the report, the seed and the line that replays it), and when `f` panics. Without the
/// `race-detect` feature nothing is checked and `f` runs once.
#[track_caller]
pub fn model<F>(f: F)
where
    F: Fn() + Sync + Send + 'static,
{
    model::Builder::new().check(f)
}

/// loom's `model` module: [`Builder`](model::Builder).
pub mod model {
    use std::path::PathBuf;
    use std::time::Duration;

    /// loom's model configuration, mapped onto racer's schedules (`racer::model::Builder`):
    ///
    /// - `preemption_bound` (or `LOOM_MAX_PREEMPTIONS`) `b` bounds the preemptions of racer's
    ///   complete search, which runs first, within half the budget (unset: 2, loom's CI setting):
    ///   a model it explores whole ends there, saying "explored all N schedules under preemption
    ///   bound b". A larger model then gets racer's portfolio, random schedules and PCT, whose
    ///   depth `b` also sets to `b + 1` (PCT's `d - 1` priority change points are the
    ///   preemptions it places).
    /// - `max_permutations` bounds the iterations, `max_duration` the time (racer's defaults:
    ///   1000 iterations within 1 s, `RACER_ITERATIONS`/`RACER_TIME` override).
    /// - The other fields bound loom's exhaustive search and change nothing here.
    #[derive(Debug, Clone, Default)]
    #[non_exhaustive]
    pub struct Builder {
        /// loom: threads at most in a model. Ignored.
        pub max_threads: usize,
        /// loom: branches per execution. Ignored (racer bounds steps per iteration itself).
        pub max_branches: usize,
        /// The iterations at most.
        pub max_permutations: Option<usize>,
        /// The time budget.
        pub max_duration: Option<Duration>,
        /// The complete search's preemption bound (PCT's depth minus one).
        pub preemption_bound: Option<usize>,
        /// loom: checkpoint file of the exploration. Ignored.
        pub checkpoint_file: Option<PathBuf>,
        /// loom: checkpoint interval. Ignored.
        pub checkpoint_interval: usize,
        /// loom: track source locations. Ignored (racer always does).
        pub location: bool,
        /// loom: log executions. Ignored.
        pub log: bool,
        /// loom: expect the model to explore every branch. Ignored.
        pub expect_explicit_explore: bool,
    }

    /// A positive integer from the environment variable `name`, if set.
    fn env_count(name: &str) -> Option<usize> {
        let v = std::env::var(name).ok()?;
        match v.trim().parse::<usize>() {
            Ok(n) => Some(n),
            _ => panic!("{name}: bad value '{v}' (expected a non-negative integer)"),
        }
    }

    impl Builder {
        /// loom's defaults.
        pub fn new() -> Builder {
            Builder {
                max_threads: 5,
                max_branches: 1_000,
                max_permutations: None,
                max_duration: None,
                preemption_bound: None,
                checkpoint_file: None,
                checkpoint_interval: 20_000,
                location: false,
                log: false,
                expect_explicit_explore: false,
            }
        }

        /// loom: sets the checkpoint file. Ignored.
        pub fn checkpoint_file(&mut self, file: &str) -> &mut Builder {
            self.checkpoint_file = Some(file.into());
            self
        }

        /// Runs `f` under racer's schedules with these settings; see [`crate::model()`].
        #[track_caller]
        pub fn check<F>(&self, f: F)
        where
            F: Fn() + Sync + Send + 'static,
        {
            let mut b = racer::model::Builder::new();
            let bound = self.preemption_bound.or_else(|| env_count("LOOM_MAX_PREEMPTIONS"));
            if let Some(bound) = bound {
                b.depth(bound.saturating_add(1).min(8) as u32);
                b.preemption_bound(bound.min(u32::MAX as usize) as u32);
            }
            // Before racer had schedules, `RACER_LOOM_RUNS` repeated the model on the OS's.
            if let Some(n) = self.max_permutations.or_else(|| env_count("RACER_LOOM_RUNS")).filter(|n| *n > 0) {
                b.iterations(n);
            }
            if let Some(d) = self.max_duration {
                b.time(Some(d));
            }
            b.check(f)
        }
    }
}
