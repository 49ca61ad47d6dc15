//! `racer::task`: a future run as a logical thread of its own under any executor (futures'
//! `block_on` and thread pools, smol, a hand-written one); `racer::tokio` is built on it.
//!
//! ```text
//! let task = racer::task::Tracked::new(async move { ... });   // the spawn
//! let handle = my_executor.spawn(task);                       // any executor's spawn
//! let output = handle.join().join();                          // its join, then racer's
//! ```
//!
//! [`Tracked::new`] is the spawn: the task's clock is the caller's there. Each poll of the
//! tracked future (and the drop of the user's future) runs as the task. Its output is a
//! [`Finished`], whose [`join`](Finished::join) is the join: everything the task did happens
//! before what follows it. Without `race-detect`, `Tracked<F>` polls `F` and `Finished<T>`
//! holds `T`: nothing else.

use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::task::{Context, Poll};

#[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
use racer_core::task::{Task, TaskEnd};

/// A future run as a task of its own (see the module's documentation).
///
/// Invariant: `future` is `Some` until the user's future completed or was dropped, which
/// happens in place (it is pinned); the task ends right after.
pub struct Tracked<F> {
    future: Option<F>,
    #[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
    task: Task,
    #[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
    end: Option<TaskEnd>,
    site: &'static Location<'static>,
}

/// A task's output; [`join`](Finished::join) takes it as a join of the task.
#[must_use = "`join` takes the output and orders the task's accesses before what follows"]
pub struct Finished<T> {
    value: T,
    #[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
    end: Option<TaskEnd>,
    site: &'static Location<'static>,
}

impl<T> Finished<T> {
    /// The task's output, and the join: everything the task did happens before what the caller
    /// does next.
    #[inline]
    pub fn join(self) -> T {
        #[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
        if let Some(end) = &self.end {
            end.joined(self.site);
        }
        let _ = self.site;
        self.value
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Finished<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Finished").field(&self.value).finish()
    }
}

impl<F> std::fmt::Debug for Tracked<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tracked").field("site", &self.site).finish_non_exhaustive()
    }
}

impl<F: Future> Tracked<F> {
    /// The spawn of `future` as a task: its clock starts from the caller's.
    #[track_caller]
    pub fn new(future: F) -> Tracked<F> {
        let site = Location::caller();
        #[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
        {
            let (task, end) = Task::spawn(None, site);
            Tracked { future: Some(future), task, end: Some(end), site }
        }
        #[cfg(not(all(feature = "race-detect", not(any(doc, rust_analyzer)))))]
        Tracked { future: Some(future), site }
    }
}

#[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
#[cfg_attr(not(any(feature = "tokio", feature = "futures")), allow(dead_code))]
impl<F> Tracked<F> {
    /// A task (with its `TaskEnd` kept by the caller, `racer::tokio`'s join handles).
    pub(crate) fn with_task(future: F, task: Task, site: &'static Location<'static>) -> Tracked<F> {
        Tracked { future: Some(future), task, end: None, site }
    }

    /// Polls the user's future as the task; once it completes, the task ends.
    pub(crate) fn poll_as_task(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output>
    where
        F: Future,
    {
        // SAFETY: `future` is never moved out of the pinned `Tracked`: it is polled pinned and
        // dropped in place (`Option` assignment); the other fields are not structurally pinned.
        let this = unsafe { self.get_unchecked_mut() };
        __racer_task_poll(&mut this.future, &mut this.task, cx)
    }
}

impl<F: Future> Future for Tracked<F> {
    type Output = Finished<F::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Finished<F::Output>> {
        #[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
        {
            let (end, site) = (self.end.clone(), self.site);
            self.poll_as_task(cx).map(|value| Finished { value, end, site })
        }
        #[cfg(not(all(feature = "race-detect", not(any(doc, rust_analyzer)))))]
        {
            let site = self.site;
            // SAFETY: `future` is pinned with `self` and never moved out.
            let future = unsafe { self.map_unchecked_mut(|t| t.future.as_mut().expect("polled after completion")) };
            future.poll(cx).map(|value| Finished { value, site })
        }
    }
}

/// A [`Tracked`] whose output is its future's (the join is the caller's own, as
/// `racer::tokio`'s join handles make it).
#[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
#[cfg_attr(not(any(feature = "tokio", feature = "futures")), allow(dead_code))]
pub(crate) struct AsTask<F>(pub(crate) Tracked<F>);

#[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
impl<F: Future> Future for AsTask<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        // SAFETY: the `Tracked` is structurally pinned: projected, never moved.
        unsafe { self.map_unchecked_mut(|t| &mut t.0) }.poll_as_task(cx)
    }
}

/// One poll of a task's future, as the task. Its name ends the task's stacks in reports
/// (`racer_core::stack::TASK_POLL`): what polled it is the executor's.
#[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
#[inline(never)]
fn __racer_task_poll<F: Future>(future: &mut Option<F>, task: &mut Task, cx: &mut Context<'_>) -> Poll<F::Output> {
    let poll = task.run(|| {
        let Some(inner) = future.as_mut() else { panic!("racer: a task's future polled after it completed") };
        // SAFETY: see `Tracked::poll_as_task`: the future stays where it is until dropped in place.
        let poll = unsafe { Pin::new_unchecked(inner) }.poll(cx);
        if poll.is_ready() {
            *future = None;
        }
        poll
    });
    if poll.is_ready() {
        task.end();
    }
    poll
}

#[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
impl<F> Drop for Tracked<F> {
    fn drop(&mut self) {
        if self.future.is_some() {
            __racer_task_drop(&mut self.future, &mut self.task);
        }
    }
}

/// The drop of an unfinished task's future (an abort, the executor's shutdown), as the task.
#[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
#[inline(never)]
fn __racer_task_drop<F>(future: &mut Option<F>, task: &mut Task) {
    task.run(|| *future = None);
    task.end();
}

/// A blocking closure run as its task (`spawn_blocking`).
#[cfg(all(feature = "race-detect", not(any(doc, rust_analyzer))))]
#[cfg_attr(not(feature = "tokio"), allow(dead_code))]
#[inline(never)]
pub(crate) fn __racer_task_poll_blocking<R>(mut task: Task, f: impl FnOnce() -> R) -> R {
    let out = task.run(f);
    task.end();
    out
}
