//! Weak memory in models: the classic litmus tests, each run as a model asking for 4 000
//! iterations. Every outcome the C/C++ memory model allows shows up (loads may read older
//! stores, as the model's seed chooses); no forbidden one ever does, SeqCst included (loom
//! treats SeqCst as AcqRel and produces store buffering's forbidden outcome).
#![cfg(feature = "race-detect")]

use std::collections::BTreeSet;
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

mod child_support;

use racer::sync::atomic::{fence, AtomicUsize, Ordering};
use racer::sync::Arc;
use racer::thread;

use Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};

const ITERATIONS: usize = 4_000;

/// Runs `body` as a model of `ITERATIONS` iterations; the set of outcomes it returned.
fn outcomes(body: fn() -> (usize, usize)) -> BTreeSet<(usize, usize)> {
    let seen = std::sync::Arc::new(Mutex::new(BTreeSet::new()));
    let into = seen.clone();
    racer::model::Builder::new().iterations(ITERATIONS).check(move || {
        let outcome = body();
        into.lock().unwrap().insert(outcome);
    });
    let seen = seen.lock().unwrap().clone();
    seen
}

/// Message passing: the writer stores the data, then the flag, with `store`; the reader loads
/// the flag with `load`, then the data. (flag, data).
fn message_passing(store: Ordering, load: Ordering) -> (usize, usize) {
    let (data, flag) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (d, f) = (data.clone(), flag.clone());
    let writer = thread::spawn(move || {
        d.store(1, Relaxed);
        f.store(1, store);
    });
    let seen = flag.load(load);
    let value = data.load(Relaxed);
    writer.join().unwrap();
    (seen, value)
}

#[test]
fn message_passing_with_a_relaxed_flag_may_see_the_flag_and_old_data() {
    let seen = outcomes(|| message_passing(Relaxed, Relaxed));
    assert!(seen.contains(&(1, 0)), "the weak outcome never showed: {seen:?}");
    assert!(seen.contains(&(1, 1)) && seen.contains(&(0, 0)), "{seen:?}");
}

#[test]
fn message_passing_with_release_and_acquire_never_sees_old_data() {
    let seen = outcomes(|| message_passing(Release, Acquire));
    assert!(!seen.contains(&(1, 0)), "a forbidden outcome: {seen:?}");
    assert!(seen.contains(&(1, 1)) && seen.contains(&(0, 0)), "{seen:?}");
}

#[test]
fn message_passing_through_fences_never_sees_old_data() {
    let seen = outcomes(|| {
        let (data, flag) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let (d, f) = (data.clone(), flag.clone());
        let writer = thread::spawn(move || {
            d.store(1, Relaxed);
            fence(Release);
            f.store(1, Relaxed);
        });
        let seen = flag.load(Relaxed);
        fence(Acquire);
        let value = data.load(Relaxed);
        writer.join().unwrap();
        (seen, value)
    });
    assert!(!seen.contains(&(1, 0)), "a forbidden outcome: {seen:?}");
    assert!(seen.contains(&(1, 1)) && seen.contains(&(0, 0)), "{seen:?}");
}

/// Store buffering: each thread stores its variable, then loads the other's. (r1, r2).
fn store_buffering(order: Ordering) -> (usize, usize) {
    let (x, y) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (x2, y2) = (x.clone(), y.clone());
    let other = thread::spawn(move || {
        y2.store(1, order);
        x2.load(order)
    });
    x.store(1, order);
    let r1 = y.load(order);
    let r2 = other.join().unwrap();
    (r1, r2)
}

#[test]
fn store_buffering_with_relaxed_accesses_may_read_both_old_values() {
    let seen = outcomes(|| store_buffering(Relaxed));
    assert!(seen.contains(&(0, 0)), "the weak outcome never showed: {seen:?}");
}

#[test]
fn store_buffering_with_seq_cst_accesses_never_reads_both_old_values() {
    let seen = outcomes(|| store_buffering(SeqCst));
    assert!(!seen.contains(&(0, 0)), "a forbidden outcome: {seen:?}");
    assert!(seen.len() >= 2, "{seen:?}");
}

#[test]
fn store_buffering_with_seq_cst_fences_never_reads_both_old_values() {
    let seen = outcomes(|| {
        let (x, y) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let (x2, y2) = (x.clone(), y.clone());
        let other = thread::spawn(move || {
            y2.store(1, Relaxed);
            fence(SeqCst);
            x2.load(Relaxed)
        });
        x.store(1, Relaxed);
        fence(SeqCst);
        let r1 = y.load(Relaxed);
        (r1, other.join().unwrap())
    });
    assert!(!seen.contains(&(0, 0)), "a forbidden outcome: {seen:?}");
}

#[test]
fn two_loads_of_one_thread_never_read_the_stores_backwards() {
    let seen = outcomes(|| {
        let x = Arc::new(AtomicUsize::new(0));
        let x2 = x.clone();
        let writer = thread::spawn(move || {
            x2.store(1, Relaxed);
            x2.store(2, Relaxed);
        });
        let first = x.load(Relaxed);
        let second = x.load(Relaxed);
        writer.join().unwrap();
        (first, second)
    });
    assert!(seen.iter().all(|&(first, second)| second >= first), "read-read coherence broken: {seen:?}");
    // Both loads may read older stores, not only the newest.
    assert!(seen.iter().any(|&(first, second)| first < second), "{seen:?}");
}

#[test]
fn a_release_sequence_continues_through_a_relaxed_read_modify_write() {
    let seen = outcomes(|| {
        let (data, flag) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let (d, f) = (data.clone(), flag.clone());
        let writer = thread::spawn(move || {
            d.store(1, Relaxed);
            f.store(1, Release);
        });
        let f = flag.clone();
        let bumper = thread::spawn(move || {
            f.fetch_add(1, Relaxed);
        });
        let seen = flag.load(Acquire);
        let value = data.load(Relaxed);
        writer.join().unwrap();
        bumper.join().unwrap();
        (seen, value)
    });
    assert!(!seen.contains(&(2, 0)), "a forbidden outcome: {seen:?}");
    assert!(seen.contains(&(2, 1)), "{seen:?}");
}

/// A spin on a Relaxed flag ends: a load reads an older store only a few times in a row.
#[test]
fn a_spin_on_a_relaxed_flag_ends() {
    let seen = outcomes(|| {
        let flag = Arc::new(AtomicUsize::new(0));
        let f = flag.clone();
        let setter = thread::spawn(move || f.store(1, Relaxed));
        let mut spins = 0;
        while flag.load(Relaxed) == 0 {
            spins += 1;
            thread::yield_now();
        }
        setter.join().unwrap();
        (1, usize::from(spins > 0))
    });
    assert!(seen.contains(&(1, 1)), "{seen:?}");
}

/// The store a RMW reads is the newest: two increments never lose one.
#[test]
fn read_modify_writes_read_the_newest_store() {
    let seen = outcomes(|| {
        let count = Arc::new(AtomicUsize::new(0));
        let c = count.clone();
        let other = thread::spawn(move || {
            c.fetch_add(1, Relaxed);
        });
        count.fetch_add(1, AcqRel);
        other.join().unwrap();
        (count.load(Relaxed), 0)
    });
    assert_eq!(seen, BTreeSet::from([(2, 0)]));
}

/// A model that fails because a load read an older store says, after the failure, which load
/// read which store and what ordering would forbid it. The model runs in a child process (this
/// test binary again), whose standard error the test reads.
#[test]
fn a_failure_after_a_stale_read_names_the_load_and_the_store() {
    const NAME: &str = "a_failure_after_a_stale_read_names_the_load_and_the_store";
    if std::env::var_os("RACER_LITMUS_CHILD").is_some() {
        racer::model::Builder::new().iterations(ITERATIONS).check(|| {
            let (seen, value) = message_passing(Relaxed, Relaxed);
            assert!(!(seen == 1 && value == 0), "the flag was set but the data was old");
        });
        return;
    }
    let mut child = Command::new(std::env::current_exe().unwrap());
    child.args(["--exact", NAME, "--nocapture", "--test-threads=1"]).env("RACER_LITMUS_CHILD", "1");
    let out = child_support::output_within(child, Duration::from_secs(120), "the failing model");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the model did not fail:\n{err}");
    assert!(err.contains("the flag was set but the data was old"), "{err}");
    assert!(err.contains(&format!("racer (model): '{NAME}' panicked in iteration")), "{err}");
    let note =
        err.lines().find(|l| l.contains("note: the load at tests/litmus.rs:")).unwrap_or_else(|| panic!("{err}"));
    assert!(note.contains("(Relaxed) read an older value of AtomicUsize"), "{note}");
    assert!(note.contains("order the newer store before the load (Release store, Acquire load)"), "{note}");
    assert!(note.contains("a fence(SeqCst) between the store and the load in each thread"), "{note}");
}
