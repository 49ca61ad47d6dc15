//! Data in a `racer::Shared` handed to rusty_pool's workers and back through rusty_pool's own
//! hand-offs: a job through its crossbeam channel, a result through its futures oneshot, a future
//! through its `ArcWake` task. Not rusty_pool's: `tests/ecosystem_suites.rs` puts this file into
//! the copy of rusty_pool whose imports it swapped (and into one it did not), as its test target
//! `racer_handoffs`, after the swap. Each program runs `RUNS` times, each in its own
//! `racer::check`.

use std::panic::Location;
use std::sync::{mpsc, Arc};
use std::time::Duration;

use racer::{AccessKind, RaceKind, Report, Shared};
use rusty_pool::ThreadPool;

const RUNS: usize = 10;

type Site = &'static Location<'static>;

/// A pool of one core worker (named `handoffs_thread_<n>`) and one more at most.
fn pool() -> ThreadPool {
    ThreadPool::new_named("handoffs".to_owned(), 1, 2, Duration::from_secs(60))
}

#[track_caller]
fn write(cell: &Shared<u64>, v: u64) -> Site {
    cell.with_mut(|p| unsafe { *p = v });
    Location::caller()
}

#[track_caller]
fn read(cell: &Shared<u64>) -> (u64, Site) {
    (cell.with(|p| unsafe { *p }), Location::caller())
}

fn runs(program: impl Fn() -> Report) -> Vec<Report> {
    (0..RUNS).map(|_| program()).collect()
}

fn none_reported(reports: &[Report]) {
    for report in reports {
        assert!(report.is_empty(), "expected no race, got:\n{report}");
    }
}

/// Every run reports one race, a write on a worker of the pool at `write` then a read at `read`
/// by this test's thread.
fn flow_reported(reports: &[Report], write: Site, read: Site) {
    let me = std::thread::current().name().map(str::to_owned);
    for report in reports {
        assert_eq!(report.len(), 1, "expected one race, got:\n{report}");
        let race = &report.races()[0];
        assert_eq!(race.kind(), RaceKind::Flow, "{report}");
        let (previous, current) = (race.previous(), race.current());
        assert_eq!((previous.kind(), previous.location()), (AccessKind::Write, write), "{report}");
        assert!(previous.thread_name().is_some_and(|n| n.starts_with("handoffs_thread_")), "{report}");
        assert_eq!((current.kind(), current.location()), (AccessKind::Read, read), "{report}");
        assert_eq!(current.thread_name(), me.as_deref(), "{report}");
    }
}

/// The caller writes, `evaluate`'s job (sent through the pool's channel) reads and writes, its
/// result comes back through the handle's oneshot, and the caller reads. In a copy of rusty_pool
/// whose imports are not swapped (its workers std's threads, its channels crossbeam's and
/// futures' own) nothing orders the job after the caller or its result before the caller's read:
/// `tests/ecosystem_suites.rs` runs the test below there too and expects racer's reports.
fn evaluate_program() -> Report {
    racer::check(|| {
        let pool = pool();
        let cell = Arc::new(Shared::new(0));
        write(&cell, 1);
        let c = Arc::clone(&cell);
        let handle = pool.evaluate(move || {
            let (v, _) = read(&c);
            write(&c, v + 1);
            v
        });
        assert_eq!(handle.await_complete(), 1);
        assert_eq!(read(&cell).0, 2);
    })
}

#[test]
fn evaluate_orders_the_job_after_the_caller_and_before_its_result() {
    none_reported(&runs(evaluate_program));
}

/// As `evaluate`, a future run to its end on a worker by `complete` (futures' `block_on`).
#[test]
fn complete_orders_the_future_after_the_caller_and_before_its_result() {
    none_reported(&runs(|| {
        racer::check(|| {
            let pool = pool();
            let cell = Arc::new(Shared::new(0));
            write(&cell, 1);
            let c = Arc::clone(&cell);
            let handle = pool.complete(async move {
                let (v, _) = read(&c);
                write(&c, v + 1);
                v
            });
            assert_eq!(handle.await_complete(), 1);
            assert_eq!(read(&cell).0, 2);
        })
    }));
}

/// A future `spawn_await`ed on the pool waits for a oneshot the caller sends on after writing:
/// its first poll finds nothing, the send wakes it, its `ArcWake` task goes back into the pool's
/// channel and a worker polls it again; it reads and writes, and its output comes back through
/// the handle's oneshot before the caller reads.
#[test]
fn spawn_await_orders_a_woken_future_after_the_send_and_before_its_result() {
    none_reported(&runs(|| {
        racer::check(|| {
            let pool = pool();
            let cell = Arc::new(Shared::new(0));
            let (go, gone) = racer::futures::channel::oneshot::channel::<()>();
            let c = Arc::clone(&cell);
            let handle = pool.spawn_await(async move {
                gone.await.unwrap();
                let (v, _) = read(&c);
                write(&c, v + 1);
                v
            });
            write(&cell, 1);
            go.send(()).unwrap();
            assert_eq!(handle.await_complete(), 1);
            assert_eq!(read(&cell).0, 2);
        })
    }));
}

/// `evaluate_program`'s twin with the result's hand-off taken away: the job tells the caller it
/// wrote through std's channel (which racer does not see) and the caller reads before awaiting
/// the result.
#[test]
fn reading_before_the_result_is_reported() {
    let sites = std::sync::Mutex::new(None);
    let reports = runs(|| {
        racer::check(|| {
            let pool = pool();
            let cell = Arc::new(Shared::new(0));
            let (wrote, written) = mpsc::channel();
            let c = Arc::clone(&cell);
            let handle = pool.evaluate(move || {
                wrote.send(write(&c, 2)).unwrap();
            });
            let write_site = written.recv().unwrap();
            let (v, read_site) = read(&cell);
            assert_eq!(v, 2);
            *sites.lock().unwrap() = Some((write_site, read_site));
            handle.await_complete();
        })
    });
    let (write_site, read_site) = sites.lock().unwrap().expect("the program ran");
    flow_reported(&reports, write_site, read_site);
}

/// `join` on a pool that is idle already returns at once, having read only the worker count
/// (Relaxed) and the channel's emptiness: it orders nothing, so a job's write is not ordered
/// before what the joiner does next. The caller here waits until the job has written (through
/// std's channel, unseen) and the worker counts itself idle (a Relaxed load, no ordering), then
/// joins and reads: the write and the read are not ordered by rusty_pool, and racer says so.
#[test]
fn join_on_an_idle_pool_orders_nothing() {
    let sites = std::sync::Mutex::new(None);
    let reports = runs(|| {
        racer::check(|| {
            let pool = pool();
            let cell = Arc::new(Shared::new(0));
            let (wrote, written) = mpsc::channel();
            let c = Arc::clone(&cell);
            pool.execute(move || {
                wrote.send(write(&c, 2)).unwrap();
            });
            let write_site = written.recv().unwrap();
            while pool.get_idle_worker_count() != pool.get_current_worker_count() {
                std::thread::yield_now();
            }
            pool.join();
            let (v, read_site) = read(&cell);
            assert_eq!(v, 2);
            *sites.lock().unwrap() = Some((write_site, read_site));
        })
    });
    let (write_site, read_site) = sites.lock().unwrap().expect("the program ran");
    flow_reported(&reports, write_site, read_site);
}

