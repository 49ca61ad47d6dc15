//! `racer::model::block_on`, and the executor of a task inside a model: a future polled on the
//! calling thread until it is ready.
//!
//! Outside a model a pending future parks the thread until its waker unparks it (as futures'
//! `block_on`). Inside one the thread is a member of the model's schedule: a pending future
//! waits as a pending member (`schedule::Waiter::wait`), which the scheduler passes over until
//! the waker runs, so the scheduler chooses among tasks at their points as among threads, and a
//! task that nothing will wake is the iteration's deadlock (a lost wake-up). A wake-up orders
//! nothing: only the synchronisation that woke the task does.

use std::future::Future;
use std::panic::Location;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;

use crate::schedule::Waiter;

/// Runs `future` to its end on the calling thread and returns its output; inside a model, its
/// interleavings with the model's other threads and tasks are the schedule's.
#[track_caller]
pub fn block_on<F: Future>(future: F) -> F::Output {
    let never = AtomicBool::new(false);
    match TaskRun::new(false).run(future, &never) {
        Some(output) => output,
        // Only a task is shut down, never a thread's `block_on`.
        None => unreachable!("racer: a block_on shut down"),
    }
}

/// What wakes a pending future.
///
/// Invariant: outside a model `woken` is set by every wake-up since the last poll began and
/// taken before each wait; inside one the scheduler keeps that token (`Scheduler::wake`).
struct Signal {
    woken: AtomicBool,
    thread: Thread,
    model: Option<Waiter>,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        match &self.model {
            Some(waiter) => waiter.wake(),
            None => {
                self.woken.store(true, Ordering::Release);
                self.thread.unpark();
            }
        }
    }
}

/// One future's run on the calling thread (made there): a task's, whose waker its join handle
/// also keeps to wake it for an abort, or a `block_on`'s.
pub struct TaskRun {
    signal: Arc<Signal>,
    task: bool,
}

impl TaskRun {
    /// The run of a future on the calling thread; `task`: a task's, dropped unfinished when
    /// the model's first thread has ended and only pending tasks are left (a runtime's
    /// shutdown).
    pub fn new(task: bool) -> TaskRun {
        let model = Waiter::current();
        if let (true, Some(waiter)) = (task, &model) {
            waiter.mark_task();
        }
        TaskRun {
            signal: Arc::new(Signal { woken: AtomicBool::new(false), thread: std::thread::current(), model }),
            task,
        }
    }

    /// The waker of the future this runs.
    pub fn waker(&self) -> Waker {
        Waker::from(self.signal.clone())
    }

    /// Polls `future` until it is ready (its output), or until `cancelled` is seen set before a
    /// poll or the model shuts its tasks down (`None`; the future is dropped first).
    #[track_caller]
    pub fn run<F: Future>(&self, future: F, cancelled: &AtomicBool) -> Option<F::Output> {
        self.run_at(future, cancelled, Location::caller())
    }

    /// As `run`, its waits named at `at` where the future passed no point before (a task's
    /// spawn site).
    pub fn run_at<F: Future>(
        &self,
        future: F,
        cancelled: &AtomicBool,
        at: &'static Location<'static>,
    ) -> Option<F::Output> {
        let waker = self.waker();
        let mut cx = Context::from_waker(&waker);
        let mut future = pin!(future);
        loop {
            if cancelled.load(Ordering::Acquire) {
                return None;
            }
            let poll = match &self.signal.model {
                Some(_) => poll_in_model(future.as_mut(), &mut cx),
                None => future.as_mut().poll(&mut cx),
            };
            if let Poll::Ready(output) = poll {
                return Some(output);
            }
            match &self.signal.model {
                Some(waiter) => {
                    if !waiter.wait(at) {
                        debug_assert!(self.task);
                        return None;
                    }
                }
                None => {
                    while !self.signal.woken.swap(false, Ordering::Acquire) && !cancelled.load(Ordering::Acquire) {
                        std::thread::park();
                    }
                }
            }
        }
    }
}

/// A poll inside a model. A panic that says no tokio runtime is there (a timer, I/O, a
/// runtime handle) gets racer's line saying why at once: a model runs no runtime.
fn poll_in_model<F: Future>(future: std::pin::Pin<&mut F>, cx: &mut Context<'_>) -> Poll<F::Output> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| future.poll(cx))) {
        Ok(poll) => poll,
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("");
            if message.contains("Tokio 1.x runtime") || message.contains("no reactor") || message.contains("timer") {
                let note = format!(
                    "{message}\nracer: inside racer::model no tokio runtime runs, so tokio's timers and I/O (and a \
                     runtime's handle) cannot be used there: the model met the panic above. Check such code with \
                     #[racer::test] on an async fn (a real runtime, every task a logical thread), or keep the timer \
                     outside the model"
                );
                eprintln!("{}", note.lines().last().unwrap_or_default());
                std::panic::resume_unwind(Box::new(note))
            }
            std::panic::resume_unwind(panic)
        }
    }
}
