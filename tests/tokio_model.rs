//! Tasks inside a model: each task spawned through `racer::tokio` inside `racer::model` (or
//! `#[racer::test(model)]` on an `async fn`) is a model thread of its own, so the interleavings
//! of tasks at their await points are explored as those of threads: a lost wake-up is a
//! deadlock with a replay line, a check-then-act across an `.await` fails an iteration, and the
//! fixed versions pass every iteration. Detached, aborted and panicking tasks end as on tokio;
//! a timer says at once that no runtime runs in a model.
//!
//! Every model runs on a watched thread (`model_support::outcome`): a hang fails the test after
//! a time limit of the harness, not a timing assertion. The feature-off build runs each model
//! once, on `racer::model::block_on`, where `racer::tokio::spawn` (tokio's own) has no runtime:
//! only the tests that need no spawn are in it.
#![cfg(feature = "tokio")]
// The feature-off build runs only the tests that spawn nothing: the helpers of the others rest.
#![cfg_attr(not(feature = "race-detect"), allow(dead_code, unused_imports))]

use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

use racer::sync::atomic::{AtomicBool, Ordering};
use racer::sync::Arc;
use racer::tokio::sync::{Mutex, Notify};

#[path = "model_support/mod.rs"]
mod model_support;
use model_support::{outcome, replay_token};

/// How the waiter of `wake_up` waits for the notifier's flag.
#[derive(Clone, Copy)]
enum Wait {
    /// Checks the flag, yields, then registers: a `notify_waiters` in between is lost.
    CheckThenRegister,
    /// As `CheckThenRegister`, but the notifier calls `notify_one`, which stores a permit.
    NotifyOne,
    /// Registers (`enable`) before the check, as tokio's docs say, with `notify_waiters`.
    EnableFirst,
}

/// A waiter task waits until the notifier (the model's first task) set `ready`.
async fn wake_up(wait: Wait) {
    let notify = Arc::new(Notify::new());
    let ready = Arc::new(AtomicBool::new(false));
    let (n, r) = (notify.clone(), ready.clone());
    let waiter = racer::tokio::spawn(async move {
        match wait {
            Wait::CheckThenRegister | Wait::NotifyOne => {
                if !r.load(Ordering::Acquire) {
                    racer::tokio::task::yield_now().await;
                    n.notified().await;
                }
            }
            Wait::EnableFirst => {
                let mut notified = pin!(n.notified());
                notified.as_mut().enable();
                if !r.load(Ordering::Acquire) {
                    notified.await;
                }
            }
        }
    });
    ready.store(true, Ordering::Release);
    match wait {
        Wait::NotifyOne => notify.notify_one(),
        Wait::CheckThenRegister | Wait::EnableFirst => notify.notify_waiters(),
    }
    waiter.await.unwrap();
}

#[cfg(feature = "race-detect")]
#[test]
fn a_lost_wake_up_between_tasks_is_a_deadlock_in_every_run_and_replays() {
    for run in 0..10 {
        let message = outcome(|| racer::model(|| racer::model::block_on(wake_up(Wait::CheckThenRegister))))
            .unwrap_or_else(|| panic!("run {run}: the lost wake-up was not found"));
        assert!(message.contains("racer (model): deadlock in iteration"), "run {run}: {message}");
        assert!(message.contains("a pending task: nothing will wake it"), "run {run}: {message}");
        assert!(message.contains("task spawned at tests/tokio_model.rs:"), "run {run}: names the waiter: {message}");
        let token = replay_token(&message);
        let again = outcome(move || {
            racer::model::Builder::new()
                .replay(&token)
                .check(|| racer::model::block_on(wake_up(Wait::CheckThenRegister)))
        })
        .unwrap_or_else(|| panic!("run {run}: the replay passed"));
        assert!(again.contains("racer (model): deadlock in iteration"), "run {run}: the replay: {again}");
    }
}

#[cfg(feature = "race-detect")]
#[test]
fn the_fixed_wake_ups_pass_every_run() {
    for wait in [Wait::NotifyOne, Wait::EnableFirst] {
        for run in 0..10 {
            let message = outcome(move || racer::model(move || racer::model::block_on(wake_up(wait))));
            assert_eq!(message, None, "run {run}");
        }
    }
}

/// Two tasks add one to a counter, each reading it and writing it back under two separate
/// locks with an `.await` between: an update can be lost.
async fn counter_increments(atomic: bool) {
    let counter = Arc::new(Mutex::new(0u32));
    let tasks: Vec<_> = (0..2)
        .map(|_| {
            let c = counter.clone();
            racer::tokio::spawn(async move {
                if atomic {
                    *c.lock().await += 1;
                } else {
                    let seen = *c.lock().await;
                    racer::tokio::task::yield_now().await;
                    *c.lock().await = seen + 1;
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    assert_eq!(*counter.lock().await, 2, "an increment was lost");
}

#[cfg(feature = "race-detect")]
#[test]
fn a_check_then_act_across_an_await_fails_an_iteration_and_the_fix_passes() {
    let message = outcome(|| racer::model(|| racer::model::block_on(counter_increments(false))))
        .expect("some schedule loses an increment");
    assert!(message.contains("an increment was lost"), "{message}");
    assert_eq!(outcome(|| racer::model(|| racer::model::block_on(counter_increments(true)))), None);
}

#[cfg(feature = "race-detect")]
#[test]
fn unordered_tasks_in_a_model_race_and_the_report_names_both_tasks() {
    let message = outcome(|| {
        racer::model(|| {
            racer::model::block_on(async {
                let cell = Arc::new(racer::Shared::new(0u64));
                let (a, b) = (cell.clone(), cell.clone());
                let first = racer::tokio::spawn(async move { a.with_mut(|p| unsafe { *p += 1 }) });
                let second = racer::tokio::spawn(async move { b.with_mut(|p| unsafe { *p += 1 }) });
                first.await.unwrap();
                second.await.unwrap();
            })
        })
    })
    .expect("the two writes race");
    assert!(message.contains("data race (output: write, then a parallel write)"), "{message}");
    let first = format!("by thread 'task spawned at tests/tokio_model.rs:{}'", line!() - 9);
    let second = format!("by thread 'task spawned at tests/tokio_model.rs:{}'", line!() - 9);
    assert!(message.contains(&format!("Write {first}")) || message.contains(&format!("Write {second}")), "{message}");
    assert!(message.contains(&first) && message.contains(&second), "both tasks named: {message}");
}

/// Futures of a task dropped when the model shut it down, or aborted.
static DROPPED: AtomicUsize = AtomicUsize::new(0);

struct CountsDrop;

impl Drop for CountsDrop {
    fn drop(&mut self) {
        DROPPED.fetch_add(1, SeqCst);
    }
}

#[cfg(feature = "race-detect")]
#[test]
fn detached_aborted_and_panicking_tasks_end_as_on_tokio() {
    DROPPED.store(0, SeqCst);
    let iterations = Arc::new(AtomicUsize::new(0));
    let counted = iterations.clone();
    let message = outcome(move || {
        racer::model::Builder::new().iterations(50).check(move || {
            counted.fetch_add(1, SeqCst);
            racer::model::block_on(async {
                let notify = Arc::new(Notify::new());
                // Detached, pending forever: dropped when the first thread has ended.
                let n = notify.clone();
                let guard = CountsDrop;
                drop(racer::tokio::spawn(async move {
                    let _guard = guard;
                    n.notified().await
                }));
                // Aborted while pending: its handle gives tokio's cancelled error.
                let n = notify.clone();
                let guard = CountsDrop;
                let aborted = racer::tokio::spawn(async move {
                    let _guard = guard;
                    n.notified().await
                });
                aborted.abort();
                assert!(aborted.await.unwrap_err().is_cancelled());
                // A panic becomes tokio's panic error.
                let panicked = racer::tokio::spawn(async { panic!("a task's own panic") });
                assert!(panicked.await.unwrap_err().is_panic());
                // A blocking task is a task too.
                assert_eq!(racer::tokio::task::spawn_blocking(|| 7).await.unwrap(), 7);
            })
        })
    });
    assert_eq!(message, None);
    // Every iteration dropped both futures: the aborted one before its join, the detached one
    // at the shutdown.
    assert_eq!(DROPPED.load(SeqCst), 2 * iterations.load(SeqCst));
}

#[cfg(feature = "race-detect")]
#[test]
fn a_timer_in_a_model_says_at_once_that_no_runtime_runs() {
    let message = outcome(|| {
        racer::model(|| {
            racer::model::block_on(async { racer::tokio::time::sleep(std::time::Duration::from_millis(1)).await })
        })
    })
    .expect("a timer cannot run in a model");
    assert!(message.contains("inside racer::model no tokio runtime runs"), "{message}");
}

/// README's example: a lost wake-up, as an async model test.
#[racer::test(model)]
#[cfg_attr(feature = "race-detect", should_panic(expected = "deadlock"))]
async fn a_lost_wake_up_fails_an_async_model_test() {
    wake_up(Wait::CheckThenRegister).await;
}

#[racer::test(model)]
async fn the_fixed_wake_up_passes_an_async_model_test() {
    wake_up(Wait::EnableFirst).await;
}

/// Without the feature `block_on` polls on the calling thread (no spawn needs a runtime here).
#[test]
fn block_on_runs_a_future_to_its_end_in_both_builds() {
    let notify = Arc::new(Notify::new());
    notify.notify_one();
    let n = notify.clone();
    assert_eq!(
        racer::model::block_on(async move {
            n.notified().await;
            3
        }),
        3
    );
}

/// README's example ("Tasks in models"), as written there: it fails, with a deadlock.
mod readme {
    use std::sync::Arc;

    use racer::sync::atomic::{AtomicBool, Ordering};
    use racer::tokio::sync::Notify;

    #[racer::test(model)] // each task a model thread: their interleavings are explored
    #[cfg_attr(feature = "race-detect", should_panic(expected = "a pending task: nothing will wake it"))]
    async fn the_waiter_wakes() {
        let (notify, ready) = (Arc::new(Notify::new()), Arc::new(AtomicBool::new(false)));
        let (n, r) = (notify.clone(), ready.clone());
        let waiter = racer::tokio::spawn(async move {
            if !r.load(Ordering::Acquire) {
                n.notified().await; // registers only now: a notify_waiters before it is lost
            }
        });
        ready.store(true, Ordering::Release);
        notify.notify_waiters();
        waiter.await.unwrap();
    }
}
