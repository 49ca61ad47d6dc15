//! A task spawned through `racer::tokio` inside a `racer::model`: a model thread of its own,
//! running the task's future under `racer_core::explore::TaskRun` (a pending task waits as a
//! pending member of the schedule until its waker runs), so that the scheduler interleaves the
//! model's tasks at their points as it does its threads. No tokio runtime runs: the spawn is
//! the thread's spawn (its clock forked), and the join handle's completion the thread's join.
//!
//! Invariant: `Slot::output` is set once, by the task's thread, after the future completed or
//! was dropped; the joiner's waker (if any) is woken after it is set.

use std::any::Any;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe, Location};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use racer_core::explore::TaskRun;
use racer_core::thread;
use tokio_crate::task::JoinError;

/// What a model task's thread and its join handle share.
struct Slot<T> {
    output: Mutex<Option<Result<T, JoinError>>>,
    /// The waker of whoever awaits the join handle.
    joiner: Mutex<Option<Waker>>,
    /// The task's own waker, once its thread made it (an abort wakes the task with it).
    task: Mutex<Option<Waker>>,
    aborted: AtomicBool,
}

impl<T> Slot<T> {
    fn new() -> Arc<Slot<T>> {
        Arc::new(Slot {
            output: Mutex::new(None),
            joiner: Mutex::new(None),
            task: Mutex::new(None),
            aborted: AtomicBool::new(false),
        })
    }

    fn finish(&self, output: Result<T, JoinError>) {
        *self.output.lock().unwrap_or_else(PoisonError::into_inner) = Some(output);
        if let Some(waker) = self.joiner.lock().unwrap_or_else(PoisonError::into_inner).take() {
            waker.wake();
        }
    }
}

/// The join side of a model task.
pub(crate) struct ModelJoin<T> {
    slot: Arc<Slot<T>>,
    thread: Option<thread::JoinHandle<()>>,
    /// Where the task was spawned: a model's messages name it for the task's waits and joins.
    site: &'static Location<'static>,
}

/// The name of a task's model thread, as reports and the model's messages show it.
fn task_name(site: &'static Location<'static>) -> String {
    format!("task spawned at {}:{}", site.file(), site.line())
}

/// Spawns `future` as a model task: a model thread forked from the caller at the caller's site.
#[track_caller]
pub(crate) fn spawn<F>(future: F) -> ModelJoin<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let (slot, site) = (Slot::new(), Location::caller());
    let filled = slot.clone();
    let thread = thread::Builder::new()
        .name(task_name(site))
        .spawn(move || {
            let run = TaskRun::new(true);
            *filled.task.lock().unwrap_or_else(PoisonError::into_inner) = Some(run.waker());
            let output = match catch_unwind(AssertUnwindSafe(|| run.run_at(future, &filled.aborted, site))) {
                Ok(Some(value)) => Ok(value),
                Ok(None) => Err(join_error(None)),
                Err(panic) => Err(join_error(Some(panic))),
            };
            filled.finish(output);
        })
        .expect("racer (model): spawning a task's thread");
    ModelJoin { slot, thread: Some(thread), site }
}

/// Runs the blocking closure `f` as a model task (`spawn_blocking` inside a model).
#[track_caller]
pub(crate) fn spawn_blocking<F, R>(f: F) -> ModelJoin<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let (slot, site) = (Slot::new(), Location::caller());
    let filled = slot.clone();
    let thread = thread::Builder::new()
        .name(task_name(site))
        .spawn(move || {
            let output = catch_unwind(AssertUnwindSafe(f)).map_err(|panic| join_error(Some(panic)));
            filled.finish(output);
        })
        .expect("racer (model): spawning a blocking task's thread");
    ModelJoin { slot, thread: Some(thread), site }
}

impl<T> ModelJoin<T> {
    /// Aborts the task: it drops its future before its next poll (a blocking task runs on).
    pub(crate) fn abort(&self) {
        self.slot.aborted.store(true, Ordering::Release);
        if let Some(waker) = self.slot.task.lock().unwrap_or_else(PoisonError::into_inner).as_ref() {
            waker.wake_by_ref();
        }
    }

    pub(crate) fn is_finished(&self) -> bool {
        self.slot.output.lock().unwrap_or_else(PoisonError::into_inner).is_some()
    }

    /// The task's output once it ended; its end is then joined (everything the task did happens
    /// before what the caller does next).
    pub(crate) fn poll_output(&mut self, cx: &mut Context<'_>) -> Poll<Result<T, JoinError>> {
        let mut output = self.slot.output.lock().unwrap_or_else(PoisonError::into_inner).take();
        if output.is_none() {
            *self.slot.joiner.lock().unwrap_or_else(PoisonError::into_inner) = Some(cx.waker().clone());
            output = self.slot.output.lock().unwrap_or_else(PoisonError::into_inner).take();
        }
        let Some(output) = output else { return Poll::Pending };
        if let Some(thread) = self.thread.take() {
            // Its closure has caught every panic: the join is the happens-before edge.
            let _ = thread.join_at(self.site);
        }
        Poll::Ready(output)
    }
}

/// tokio's `JoinError` for a task that panicked (`Some`) or was cancelled (`None`). tokio has
/// no constructor, so a throwaway current-thread runtime makes one; it runs only for a model
/// task that panicked or was aborted, and nothing racer checks runs in it.
fn join_error(panic: Option<Box<dyn Any + Send>>) -> JoinError {
    let runtime = tokio_crate::runtime::Builder::new_current_thread()
        .build()
        .expect("racer (model): building a runtime to make a task's JoinError");
    let handle: tokio_crate::task::JoinHandle<()> = match panic {
        Some(panic) => runtime.spawn(async move { std::panic::resume_unwind(panic) }),
        None => {
            let handle = runtime.spawn(std::future::pending::<()>());
            handle.abort();
            handle
        }
    };
    match runtime.block_on(handle) {
        Err(error) => error,
        Ok(()) => unreachable!("racer (model): the throwaway task ended well"),
    }
}
