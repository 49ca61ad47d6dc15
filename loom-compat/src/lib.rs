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
//! Acquire/Release operations are happens-before edges), and its threads are racer's.
//!
//! This is **not** loom: nothing is permuted or explored. [`model()`] runs its closure once, on
//! real threads, under [`racer::check`], and fails if racer found a data race in that run.
//! Enable the `race-detect` feature (`race-detect = ["loom/race-detect"]` in the test crate)
//! to check; without it every item here is std's (through racer's zero-cost feature-off
//! build) and `model` just runs the closure.
//!
//! What differs from loom, on purpose:
//! - [`model()`] runs its closure once (`RACER_LOOM_RUNS=N`: N times), on a real thread racer
//!   spawned (named after the calling thread, so reports name the test), and fails with racer's
//!   report when racer found a data race. [`model::Builder`]'s fields and loom's `LOOM_*` environment variables bound loom's
//!   exhaustive search; they are accepted and ignored here (one run; racer needs no unlucky
//!   timing to find a race in it).
//! - No leak check at the end of a model: [`alloc`] is std's allocator and [`alloc::Track`] a
//!   plain wrapper.
//! - `thread::park_timeout`, `thread::sleep`, `yield_now` and `hint::spin_loop` are the real
//!   ones: a thread really sleeps or yields (loom's `yield_now` switches to another of its
//!   threads instead).
//!
//! Only the part of loom's API that the crates run so far need is here: [`cell::UnsafeCell`]
//! (`new`, `with`, `with_mut`, `get`/`get_mut` with their [`cell::ConstPtr`]/[`cell::MutPtr`]
//! guards, `into_inner`), [`cell::Cell`], [`sync::atomic`] with loom's
//! `with_mut` and `unsync_load`, [`sync`]'s `Arc`, `Mutex`, `Condvar`, `RwLock`, `Barrier`,
//! `mpsc`, [`thread`], [`hint`], [`alloc`], [`future`], [`model()`] and
//! [`model::Builder`], `sync::Notify`, `lazy_static!` and `thread::LocalKey`. An item it
//! lacks is named by `cargo racer test --loom` when a crate's build needs it.
//!
//! [loom]: https://docs.rs/loom/0.7

#![warn(missing_docs)]

pub mod alloc;
pub mod cell;
// loom has it behind its `futures` feature; it needs no dependency here, so it is always built
// (the feature exists so that crates asking for it resolve).
pub mod future;
pub mod hint;
pub mod sync;
pub mod thread;

pub use std::thread_local;

/// loom's `lazy_static!`: each `static ref NAME: T = init;` is a static that derefs to a `T`
/// made by `init` on first use (racer's `LazyLock`, whose initialisation happens before every
/// use).
#[macro_export]
macro_rules! lazy_static {
    ($(#[$attr:meta])* $vis:vis static ref $name:ident : $t:ty = $init:expr; $($rest:tt)*) => {
        $(#[$attr])* $vis static $name: $crate::__private::LazyLock<$t> = $crate::__private::LazyLock::new(|| $init);
        $crate::lazy_static!($($rest)*);
    };
    () => {};
}

#[doc(hidden)]
pub mod __private {
    pub use racer::sync::LazyLock;
}

/// Runs `f` once, on a real thread racer spawns (named after the calling thread), under
/// [`racer::check`], as loom's `model` runs it under its scheduler; the threads `f` spawns
/// through [`thread`] are real threads.
///
/// # Panics
/// When racer found data races while `f` ran (in it or in any thread it spawned), with the full
/// report as the message; and when `f` panics, with its panic. Without the `race-detect`
/// feature nothing is checked and only `f`'s own panics fail.
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

    /// loom's model configuration. Every field bounds loom's exhaustive search of
    /// interleavings; racer runs the model once on real threads, so they are accepted (and
    /// may be set, as with loom) but change nothing. loom's `LOOM_*` environment variables are
    /// ignored likewise.
    #[derive(Debug, Clone, Default)]
    #[non_exhaustive]
    pub struct Builder {
        /// loom: threads at most in a model. Ignored.
        pub max_threads: usize,
        /// loom: branches per execution. Ignored.
        pub max_branches: usize,
        /// loom: permutations to explore. Ignored.
        pub max_permutations: Option<usize>,
        /// loom: wall-clock bound on the exploration. Ignored.
        pub max_duration: Option<Duration>,
        /// loom: preemption bound. Ignored.
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

    /// Runs of each model: `RACER_LOOM_RUNS` (a positive integer), 1 by default. Each run is
    /// a fresh execution on real threads; more runs see more of the interleavings the OS
    /// happens to produce (racer finds a race in any run that executes both accesses, whatever
    /// their timing).
    fn runs() -> usize {
        match std::env::var("RACER_LOOM_RUNS") {
            Err(_) => 1,
            Ok(v) => match v.trim().parse::<usize>() {
                Ok(n) if n > 0 => n,
                _ => panic!("RACER_LOOM_RUNS: bad value '{v}' (expected a positive integer)"),
            },
        }
    }

    impl Builder {
        /// loom's defaults (loom reads them from `LOOM_*` variables; they change nothing here).
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

        /// Runs `f` once on a racer thread under [`racer::check`]; see [`crate::model()`].
        #[track_caller]
        pub fn check<F>(&self, f: F)
        where
            F: Fn() + Sync + Send + 'static,
        {
            let name = std::thread::current().name().unwrap_or("loom::model").to_owned();
            let f = std::sync::Arc::new(f);
            for run in 1..=runs() {
                let (name, f) = (name.clone(), f.clone());
                let report = racer::check(move || {
                    let t = racer::thread::Builder::new()
                        .name(name)
                        .spawn(move || f())
                        .expect("loom::model: spawning its thread");
                    if let Err(panic) = t.join() {
                        std::panic::resume_unwind(panic);
                    }
                });
                if !report.is_empty() {
                    panic!("racer (loom::model): {} data race(s) found (run {run})\n{report}", report.len());
                }
            }
        }
    }
}
