//! Faults a user's program can hit while racer runs: a panic inside `Shared::with_mut`, a `Drop`
//! that touches `Shared` cells while a panic unwinds through it, and `std::process::exit`
//! called from a thread while other racer threads work (in a child process: the fixture
//! `racer-fixture`, tests/fixtures/racy_program.rs). Each must leave racer checking, with no
//! false report, no lost report, no crash and no hang.
#![cfg(feature = "race-detect")]

use std::panic::{catch_unwind, AssertUnwindSafe};
mod child_support;

use std::process::{Command, Output};
use std::time::Duration;

use racer::sync::{Arc, Mutex};
use racer::{thread, RaceKind, Shared};

/// A race planted after whatever came before: a thread writes the cell, then the calling
/// thread writes it with no edge racer sees (std's channel) between the two.
fn planted_race(name: &str) {
    let cell = Arc::new(Shared::new(0u64));
    let theirs = cell.clone();
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let h = thread::Builder::new()
        .name(name.into())
        .spawn(move || {
            unsafe { theirs.set(1) };
            tx.send(()).unwrap();
        })
        .unwrap();
    rx.recv().unwrap();
    unsafe { cell.set(2) };
    h.join().unwrap();
}

fn payload(p: &(dyn std::any::Any + Send)) -> &str {
    p.downcast_ref::<&str>().copied().or_else(|| p.downcast_ref::<String>().map(String::as_str)).unwrap_or("?")
}

/// A panic inside `with_mut` on a spawned thread that holds a racer mutex: the guard's unlock
/// on the unwinding path and the thread's exit are still posted, so the main thread's later
/// accesses under the (poisoned) lock and after the join are ordered: no report. The same on
/// the calling thread, caught by `catch_unwind`. A race planted afterwards is found.
#[test]
fn a_panic_inside_with_mut_leaves_racer_checking() {
    let report = racer::check(|| {
        let shared = Arc::new((Mutex::new(()), Shared::new(0u64)));
        let theirs = shared.clone();
        let h = thread::Builder::new()
            .name("panicker".into())
            .spawn(move || {
                let _g = theirs.0.lock().unwrap();
                theirs.1.with_mut(|p| {
                    unsafe { *p = 1 };
                    panic!("inside with_mut");
                });
            })
            .unwrap();
        // Under the lock the thread held when it panicked.
        {
            let _g = shared.0.lock().unwrap_or_else(|e| e.into_inner());
            let _ = unsafe { shared.1.get() };
        }
        let err = h.join().expect_err("the thread panicked");
        assert_eq!(payload(&*err), "inside with_mut");
        assert!(shared.0.is_poisoned(), "as std: a panic while the guard was held poisons the mutex");
        // After the join, without the lock.
        assert_eq!(unsafe { shared.1.get() }, 1);
        unsafe { shared.1.set(2) };

        // On this thread, caught here: the cell is still checked and still ordered.
        let caught = catch_unwind(AssertUnwindSafe(|| shared.1.with_mut(|_| panic!("again"))));
        assert!(caught.is_err());
        shared.1.with_mut(|p| unsafe { *p += 1 });
        assert_eq!(unsafe { shared.1.get() }, 3);

        planted_race("after-panics");
    });
    assert_eq!(report.len(), 1, "only the planted race\n{report}");
    assert_eq!(report.races()[0].previous().thread_name(), Some("after-panics"));
    assert_eq!(report.races()[0].kind(), RaceKind::Output);
}

/// A `racer::check` left by a panic from `with_mut` hands the thread back to the enclosing
/// check: a race after it goes to the outer report, and a later check works as before.
#[test]
fn a_check_left_by_a_panic_in_with_mut_restores_the_outer_check() {
    let outer = racer::check(|| {
        let caught = catch_unwind(|| {
            racer::check(|| {
                let cell = Shared::new(0u64);
                cell.with_mut(|_| panic!("in a check"));
            })
        });
        assert_eq!(payload(&*caught.expect_err("the panic comes out of check")), "in a check");
        planted_race("outer");
    });
    assert_eq!(outer.len(), 1, "{outer}");
    assert_eq!(outer.races()[0].previous().thread_name(), Some("outer"));
    let later = racer::check(|| planted_race("later"));
    assert_eq!(later.len(), 1, "{later}");
    assert_eq!(later.races()[0].previous().thread_name(), Some("later"));
}

/// Writes its cell when dropped: run on the unwinding path when a panic passes through it.
struct WritesOnDrop(Arc<Shared<u64>>);

impl Drop for WritesOnDrop {
    fn drop(&mut self) {
        self.0.with_mut(|p| unsafe { *p += 10 });
    }
}

/// Sends on std's channel when dropped (an edge racer does not see).
struct SignalsOnDrop(std::sync::mpsc::Sender<()>);

impl Drop for SignalsOnDrop {
    fn drop(&mut self) {
        let _ = self.0.send(());
    }
}

/// A `Drop` that writes a `Shared` while a panic unwinds through it, joined: ordered before
/// the join, as every other access of the thread (no report).
#[test]
fn a_drop_during_unwinding_is_ordered_before_join() {
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let theirs = cell.clone();
        let h = thread::spawn(move || {
            let _w = WritesOnDrop(theirs);
            panic!("unwinding through a drop");
        });
        assert!(h.join().is_err());
        assert_eq!(unsafe { cell.get() }, 10);
        unsafe { cell.set(0) };
    });
    assert!(report.is_empty(), "{report}");
}

/// The drop's write during unwinding is a checked access: unordered with a later write of the
/// main thread, it races, and the report's stack shows the `Drop`.
#[test]
fn a_drop_during_unwinding_races_like_any_access() {
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let theirs = cell.clone();
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let h = thread::Builder::new()
            .name("unwinder".into())
            .spawn(move || {
                let _signal = SignalsOnDrop(tx); // dropped after the write below
                let _w = WritesOnDrop(theirs);
                panic!("unwinding through a drop");
            })
            .unwrap();
        rx.recv().unwrap();
        unsafe { cell.set(1) };
        assert!(h.join().is_err());
    });
    assert_eq!(report.len(), 1, "{report}");
    let race = &report.races()[0];
    assert_eq!(race.kind(), RaceKind::Output);
    assert_eq!(race.previous().thread_name(), Some("unwinder"));
    assert!(race.previous().backtrace().contains("WritesOnDrop"), "{}", race.previous().backtrace());
}

/// A race found while the thread is panicking (the current access is the drop's): reported,
/// with the drop in its stack, and the process does not abort (a second panic would).
#[test]
fn a_race_found_during_unwinding_is_reported_without_aborting() {
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let theirs = cell.clone();
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        unsafe { cell.set(1) };
        let h = thread::Builder::new()
            .name("unwinder".into())
            .spawn(move || {
                rx.recv().unwrap(); // std's channel: the main thread's write is not ordered before
                let _w = WritesOnDrop(theirs);
                panic!("unwinding through a drop");
            })
            .unwrap();
        // The thread's start is after the write above (spawn orders it): write again after
        // the spawn, unordered with the thread's drop.
        unsafe { cell.set(2) };
        tx.send(()).unwrap();
        assert!(h.join().is_err());
    });
    assert_eq!(report.len(), 1, "{report}");
    let race = &report.races()[0];
    assert_eq!(race.current().thread_name(), Some("unwinder"));
    assert!(race.current().backtrace().contains("WritesOnDrop"), "{}", race.current().backtrace());
}

/// A `Drop` that takes a racer mutex while a panic unwinds through it: the lock is ordered as
/// any other (no report on the main thread's access under it) and, as std's, a guard taken
/// while already panicking does not poison the mutex.
#[test]
fn a_lock_taken_during_unwinding_orders_and_poisons_as_std() {
    struct LocksOnDrop(Arc<(Mutex<()>, Shared<u64>)>, std::sync::Arc<std::sync::Mutex<()>>);
    impl Drop for LocksOnDrop {
        fn drop(&mut self) {
            let _g = self.0 .0.lock().unwrap();
            let _std = self.1.lock().unwrap();
            unsafe { self.0 .1.set(self.0 .1.get() + 1) };
        }
    }
    let report = racer::check(|| {
        let shared = Arc::new((Mutex::new(()), Shared::new(0u64)));
        let std_lock = std::sync::Arc::new(std::sync::Mutex::new(()));
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let (theirs, std_theirs) = (shared.clone(), std_lock.clone());
        let h = thread::spawn(move || {
            let _signal = SignalsOnDrop(tx);
            let _l = LocksOnDrop(theirs, std_theirs);
            panic!("unwinding through a lock");
        });
        rx.recv().unwrap(); // not joined: only the mutex orders the drop's write before ours
        {
            let _g = shared.0.lock().unwrap();
            unsafe { shared.1.set(shared.1.get() + 1) };
        }
        assert_eq!(shared.0.is_poisoned(), std_lock.is_poisoned(), "poisoned as std's mutex is");
        assert!(!shared.0.is_poisoned());
        assert!(h.join().is_err());
        assert_eq!(unsafe { shared.1.get() }, 2);
    });
    assert!(report.is_empty(), "{report}");
}

/// Runs the fixture with `RACER_OPTIONS=options`; a run that takes more than 60 s is a hang.
fn run_fixture(scenario: &str, options: &str) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_racer-fixture"));
    cmd.arg(scenario).env("RACER_OPTIONS", options);
    child_support::output_within(
        cmd,
        Duration::from_secs(60),
        &format!("racer-fixture {scenario} with RACER_OPTIONS={options:?}"),
    )
}

/// `process::exit(5)` from a thread while three others lock, spawn, join and create cells:
/// the process ends with the thread's status, racer says nothing (it found no race), and
/// nothing hangs at process end.
#[test]
fn process_exit_from_a_thread_while_others_work() {
    for _ in 0..3 {
        let out = run_fixture("exit", "");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(5), "{err}");
        assert_eq!(err, "");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "fixture: exiting\n");
    }
}

/// The same with races reported before and while the thread exits: the status is racer's 66,
/// every report on standard error is whole, and the summary, last, counts exactly the reports
/// written before it.
#[test]
fn process_exit_from_a_thread_while_others_race() {
    for run in 0..5 {
        let out = run_fixture("exit-racy", "");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(66), "run {run}: {err}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "fixture: exiting\n", "run {run}");
        assert!(!err.contains("panicked"), "run {run}: {err}");
        // The summary is the last line; the reports are everything before it.
        let summary_start = err.trim_end_matches('\n').rfind('\n').map_or(0, |p| p + 1);
        let (body, summary) = (&err[..summary_start], err[summary_start..].trim_end_matches('\n'));
        let blocks: Vec<&str> = body.split("==================\n").filter(|b| !b.is_empty()).collect();
        for b in &blocks {
            assert!(
                b.starts_with("WARNING: racer: data race (output: write, then a parallel write) on Shared<u64> at 0x"),
                "run {run}: a cut or mixed report: {b:?}\n{err}"
            );
            assert!(
                b.contains("\n  Write by thread '") && b.contains("\n  Previous write by thread '"),
                "run {run}: {b}"
            );
            assert!(b.contains(" spawned at:\n    #0 ") && b.ends_with('\n'), "run {run}: a cut report: {b:?}");
        }
        assert!(blocks.len() >= 2, "run {run}: the cache's race and at least one of the racing threads': {err}");
        assert_eq!(
            body.matches("==================\n").count(),
            2 * blocks.len(),
            "run {run}: each report between two rules: {err}"
        );
        assert_eq!(
            summary,
            format!("racer: {} data race(s) reported; exiting with status 66", blocks.len()),
            "run {run}: {err}"
        );
    }
}
