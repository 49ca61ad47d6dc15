//! `racer::task::Tracked`: a future run as a task of its own under an executor racer does not
//! know (here a hand-written one on std threads), in both builds.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use racer::task::{Finished, Tracked};
use racer::Shared;

/// A hand-written executor: polls the future to completion on a std thread racer did not start.
fn run_on_a_std_thread<F: Future + Send + 'static>(future: F) -> std::thread::JoinHandle<F::Output>
where
    F::Output: Send,
{
    std::thread::spawn(move || {
        let mut cx = Context::from_waker(Waker::noop());
        let mut future = pin!(future);
        loop {
            if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
                return out;
            }
            std::thread::yield_now();
        }
    })
}

/// The spawn (`Tracked::new`) and the join (`Finished::join`) order the task: no report, though
/// the executor's thread and its handle are invisible to racer.
#[test]
fn tracked_spawn_and_finished_join_order_the_task() {
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        unsafe { cell.set(1) };
        let c = cell.clone();
        let handle = run_on_a_std_thread(Tracked::new(async move {
            assert_eq!(unsafe { c.get() }, 1);
            unsafe { c.set(2) };
            7u8
        }));
        let finished: Finished<u8> = handle.join().unwrap();
        assert_eq!(finished.join(), 7);
        assert_eq!(unsafe { cell.get() }, 2);
    });
    assert!(report.is_empty(), "{report}");
}

/// Without the join, the caller's read races with the task's write: a flow race between a task
/// and the spawning thread.
#[cfg(feature = "race-detect")]
#[test]
fn the_output_not_joined_orders_nothing() {
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let c = cell.clone();
        let finished = run_on_a_std_thread(Tracked::new(async move { unsafe { c.set(2) } })).join().unwrap();
        let _ = unsafe { cell.get() };
        finished.join();
    });
    assert_eq!(report.len(), 1, "{report}");
    let race = &report.races()[0];
    assert_eq!(race.kind(), racer::RaceKind::Flow, "{report}");
    assert!(race.previous().is_task() && !race.current().is_task(), "{report}");
}
