//! `racer::rayon` with `race-detect`: rayon with every closure it runs a task of its own.
//!
//! Each closure handed to rayon here (`join`'s two, a scope's op and spawned bodies, `spawn`,
//! `install`, each thread's call of `broadcast`) runs as a task (`racer_core::task::Task`)
//! forked from its caller where the call is made, on whichever worker runs it; the call joins
//! the tasks it waits for when it returns (`join`, `scope`, `install`, `broadcast`), so what
//! the closures did happens before what follows the call, and closures of one call are
//! unordered with each other. A task keeps its spawner's `racer::check`, so a race on a worker
//! goes into the check that started the work. Tasks are named in reports after the call
//! (`task 'rayon::join oper_a'`, `'rayon::Scope::spawn'`, `'rayon parallel iterator'`...).
//!
//! Parallel iterators started through `prelude` (or `iter`, `slice`, `str`) are [`Tracked`]:
//! their consuming call forks each piece of work rayon splits off, and each reduction, as a
//! task from that call, and joins them all when it returns; a sort's comparisons run as a task
//! per worker. A task per piece, not per item: the items of one piece are in order.
//!
//! What racer does not fork is not checked: the workers of racer's pools (the global one too,
//! which racer builds before its first use) ignore their own accesses, so a job rayon forks by
//! itself (the halves of a `chain`, driven inside rayon's own `join`; closures handed to rayon's
//! API directly) races with nothing, where it would otherwise be reported against its caller
//! falsely. A `Tracked` iterator driven anywhere but where it was started (a `chain`'s half)
//! runs its pieces unchecked for the same reason. Everything else is rayon's own.

pub use rayon_crate::*;

mod pool;
mod scope;
mod tracked;
mod workers;

pub use pool::{ThreadPool, ThreadPoolBuilder};
pub use scope::{in_place_scope, in_place_scope_fifo, scope, scope_fifo, Scope, ScopeFifo};

/// The builder's spawn handlers, named by `ThreadPoolBuilder`'s type parameter.
#[doc(hidden)]
pub mod spawn_handler {
    pub use super::pool::{CustomSpawn, DefaultSpawn, ThreadSpawn};
}

/// rayon's prelude, with the traits that start a parallel iterator replaced by racer's: each
/// parallel iterator they make is a [`Tracked`] one, whose pieces of work run as
/// tasks forked from the consuming call and joined when it returns.
pub mod prelude {
    pub use rayon_crate::prelude::*;

    pub use super::tracked::{
        IntoParallelIterator, IntoParallelRefIterator, IntoParallelRefMutIterator, ParallelBridge, ParallelDrainFull,
        ParallelDrainRange, ParallelSlice, ParallelSliceMut, ParallelString,
    };
}

pub use tracked::Tracked;

/// rayon's `iter`, with the traits that start a parallel iterator racer's (as in `prelude`).
pub mod iter {
    pub use rayon_crate::iter::*;

    pub use super::tracked::{
        Bridged, IntoParallelIterator, IntoParallelRefIterator, IntoParallelRefMutIterator, ParallelBridge,
        ParallelDrainFull, ParallelDrainRange,
    };
}

/// rayon's `slice`, with `ParallelSlice` and `ParallelSliceMut` racer's (as in `prelude`).
pub mod slice {
    pub use rayon_crate::slice::*;

    pub use super::tracked::{ParallelSlice, ParallelSliceMut};
}

/// rayon's `str`, with `ParallelString` racer's (as in `prelude`).
pub mod str {
    pub use rayon_crate::str::*;

    pub use super::tracked::ParallelString;
}

/// The patterns `prelude::ParallelString`'s methods take (char, `&[char]`, `[char; N]`,
/// `&[char; N]`, `Fn(char) -> bool`), as rayon's.
#[doc(hidden)]
pub mod patterns {
    pub use super::tracked::Pattern;
}

use std::panic::Location;
use std::sync::Mutex;

use racer_core::task::{Task, TaskEnd};

/// Names of the tasks in reports (`task 'rayon::join oper_a'`).
pub(crate) mod names {
    pub const JOIN_A: &str = "rayon::join oper_a";
    pub const JOIN_B: &str = "rayon::join oper_b";
    pub const SCOPE_OP: &str = "rayon::scope op";
    pub const SCOPE_SPAWN: &str = "rayon::Scope::spawn";
    pub const SCOPE_FIFO_SPAWN: &str = "rayon::ScopeFifo::spawn_fifo";
    pub const SCOPE_BROADCAST: &str = "rayon::Scope::spawn_broadcast";
    pub const SPAWN: &str = "rayon::spawn";
    pub const BROADCAST: &str = "rayon::broadcast";
    pub const INSTALL: &str = "rayon::ThreadPool::install";
    pub const ITER: &str = "rayon parallel iterator";
}

/// A closure and the task it runs as: forked from the caller at `new`, ended when the closure
/// returns (or unwinds).
pub(crate) struct Forked<F> {
    f: F,
    task: Task,
}

impl<F> Forked<F> {
    pub(crate) fn new(f: F, name: &str, site: &'static Location<'static>) -> (Forked<F>, TaskEnd) {
        workers::global_pool();
        let (task, end) = if racer_core::task::ignoring_accesses() {
            Task::ignoring(site)
        } else {
            Task::spawn(Some(name.to_owned()), site)
        };
        (Forked { f, task }, end)
    }

    /// Calls the closure (given `arg`) as the task, then ends the task.
    pub(crate) fn call<A, R>(self, arg: A) -> R
    where
        F: FnOnce(A) -> R,
    {
        let Forked { f, mut task } = self;
        task.run(move || f(arg))
    }

    pub(crate) fn call0<R>(self) -> R
    where
        F: FnOnce() -> R,
    {
        let Forked { f, mut task } = self;
        task.run(f)
    }
}

/// One task per thread of a broadcast, forked up front on the caller; each thread's call takes
/// the one of its index.
pub(crate) struct PerThread {
    tasks: Vec<Mutex<Option<Task>>>,
}

impl PerThread {
    pub(crate) fn new(threads: usize, name: &str, site: &'static Location<'static>) -> (PerThread, Vec<TaskEnd>) {
        workers::global_pool();
        let (tasks, ends) = (0..threads)
            .map(|_| {
                let (task, end) = Task::spawn(Some(name.to_owned()), site);
                (Mutex::new(Some(task)), end)
            })
            .unzip();
        (PerThread { tasks }, ends)
    }

    /// Runs `f` as the task of thread `index`, which then ends (as the thread itself when there
    /// is none: a pool larger than counted at the call).
    pub(crate) fn run<R>(&self, index: usize, f: impl FnOnce() -> R) -> R {
        let task = self.tasks.get(index).and_then(|t| t.lock().unwrap_or_else(|e| e.into_inner()).take());
        match task {
            Some(mut task) => task.run(f),
            None => f(),
        }
    }
}

pub(crate) fn join_all(ends: &[TaskEnd], site: &'static Location<'static>) {
    for end in ends {
        end.joined(site);
    }
}

/// `rayon::join`: `oper_a` and `oper_b` each run as a task forked here, unordered with each
/// other; both are joined when it returns. On a worker, where rayon runs `oper_a` right here,
/// `oper_a` runs as the caller itself, after `oper_b`'s fork: the same order, one task less (a
/// recursion of joins needs a slot per task, and a clock is as wide as the slots).
#[track_caller]
pub fn join<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let site = Location::caller();
    if rayon_crate::current_thread_index().is_some() {
        let (b, end_b) = Forked::new(oper_b, names::JOIN_B, site);
        let out = rayon_crate::join(oper_a, move || b.call0());
        join_all(&[end_b], site);
        return out;
    }
    let (a, end_a) = Forked::new(oper_a, names::JOIN_A, site);
    let (b, end_b) = Forked::new(oper_b, names::JOIN_B, site);
    let out = rayon_crate::join(move || a.call0(), move || b.call0());
    join_all(&[end_a, end_b], site);
    out
}

/// `rayon::join_context`: as [`join`], each closure given rayon's `FnContext`.
#[track_caller]
pub fn join_context<A, B, RA, RB>(oper_a: A, oper_b: B) -> (RA, RB)
where
    A: FnOnce(FnContext) -> RA + Send,
    B: FnOnce(FnContext) -> RB + Send,
    RA: Send,
    RB: Send,
{
    let site = Location::caller();
    if rayon_crate::current_thread_index().is_some() {
        let (b, end_b) = Forked::new(oper_b, names::JOIN_B, site);
        let out = rayon_crate::join_context(oper_a, move |cx| b.call(cx));
        join_all(&[end_b], site);
        return out;
    }
    let (a, end_a) = Forked::new(oper_a, names::JOIN_A, site);
    let (b, end_b) = Forked::new(oper_b, names::JOIN_B, site);
    let out = rayon_crate::join_context(move |cx| a.call(cx), move |cx| b.call(cx));
    join_all(&[end_a, end_b], site);
    out
}

/// `rayon::spawn`: `func` runs as a task forked here, which nothing joins.
#[track_caller]
pub fn spawn<F>(func: F)
where
    F: FnOnce() + Send + 'static,
{
    let (f, _) = Forked::new(func, names::SPAWN, Location::caller());
    rayon_crate::spawn(move || f.call0());
}

/// `rayon::spawn_fifo`: as [`spawn`].
#[track_caller]
pub fn spawn_fifo<F>(func: F)
where
    F: FnOnce() + Send + 'static,
{
    let (f, _) = Forked::new(func, names::SPAWN, Location::caller());
    rayon_crate::spawn_fifo(move || f.call0());
}

/// `rayon::broadcast`: each thread's call of `op` runs as a task forked here, all joined when it
/// returns.
#[track_caller]
pub fn broadcast<OP, R>(op: OP) -> Vec<R>
where
    OP: Fn(BroadcastContext<'_>) -> R + Sync,
    R: Send,
{
    let site = Location::caller();
    let (tasks, ends) = PerThread::new(rayon_crate::current_num_threads(), names::BROADCAST, site);
    let out = rayon_crate::broadcast(|cx| tasks.run(cx.index(), || op(cx)));
    join_all(&ends, site);
    out
}

/// `rayon::spawn_broadcast`: each thread's call of `op` runs as a task forked here, which
/// nothing joins.
#[track_caller]
pub fn spawn_broadcast<OP>(op: OP)
where
    OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
{
    let (tasks, _) = PerThread::new(rayon_crate::current_num_threads(), names::BROADCAST, Location::caller());
    rayon_crate::spawn_broadcast(move |cx| tasks.run(cx.index(), || op(cx)));
}
