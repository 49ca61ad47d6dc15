//! No cliff for long suites and long-lived threads: the fast path and the clocks' width must
//! not depend on how many threads the process has had or how often a thread synchronised.
//! Counted, not timed. Its own test binary: the slot count it asserts is the process's.
#![cfg(feature = "race-detect")]

use std::sync::Arc;

use racer::sync::atomic::{AtomicUsize, Ordering};
use racer::sync::Mutex;
use racer::Shared;

fn slow() -> u64 {
    racer::__slow_accesses_on_this_thread()
}

/// One "test" as libtest runs it: a fresh thread racer did not spawn, which spawns four racer
/// threads that update a cell under a lock, joins them, then re-accesses the cell. Returns the
/// slow paths of the re-accesses (the same-segment ones should all hit).
fn one_test() -> u64 {
    std::thread::spawn(|| {
        let cell = Arc::new(Shared::new(0u64));
        let lock = Arc::new(Mutex::new(()));
        let workers: Vec<_> = (0..4)
            .map(|_| {
                let (cell, lock) = (cell.clone(), lock.clone());
                racer::thread::spawn(move || {
                    for _ in 0..10 {
                        let _g = lock.lock().unwrap();
                        unsafe { cell.set(cell.get() + 1) };
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        let before = slow();
        for _ in 0..100 {
            unsafe { cell.set(cell.get() + 1) };
        }
        assert_eq!(unsafe { cell.get() }, 140);
        slow() - before
    })
    .join()
    .unwrap()
}

/// 300 tests of a suite, one after another (`--test-threads=1`): each test's thread and its
/// workers end, and the next test's reuse their slots, so clocks stay narrow and every
/// segment keeps a key in the cells' caches. (Before: 5 new slots per test, 1 500 in all, and
/// past slot 126 every access took the slow path.)
#[test]
fn a_long_suite_reuses_its_threads_slots() {
    let first = one_test();
    assert_eq!(first, 2, "the first read and the first write of the segment miss, nothing else");
    for test in 1..300 {
        let misses = one_test();
        assert_eq!(misses, first, "test {test} misses as often as the first");
    }
    let stats = racer::stats();
    assert!(stats.slots <= 16, "slots ever made stay few: {stats:?}");
}

/// A thread that synchronised 2^25 times still hits the cache (the old 32-bit keys had 24 bits
/// of epoch: past 2^24 posts every access took the slow path).
#[test]
fn a_long_lived_thread_keeps_its_fast_path() {
    let flag = AtomicUsize::new(0);
    for i in 0..(1usize << 25) {
        flag.store(i, Ordering::Release); // a post: a new segment
    }
    let cell = Shared::new(0u64);
    let before = slow();
    for _ in 0..1000 {
        unsafe { cell.set(cell.get() + 1) };
    }
    assert_eq!(slow() - before, 2, "the first read and the first write only");
}
