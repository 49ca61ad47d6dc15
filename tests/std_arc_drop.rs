//! The last drop of a `std::sync::Arc` is ordered after every access made through its clones
//! (std's Arc: a Release decrement per clone, an Acquire fence before the last drop), so a
//! `Shared` dropped there races with nothing, whichever thread drops last and whether or not
//! anything joins the others. A cell dropped anywhere else after the same unordered accesses
//! is still reported.
#![cfg(feature = "race-detect")]

mod sync_support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use racer::{RaceKind, Shared};
use sync_support::{assert_no_race, named, read};

/// Threads that read the cell through their clones and end unjoined; the owner waits (in a way
/// racer cannot see) until it holds the last clone, then drops it.
#[test]
fn the_owners_last_drop_after_unjoined_threads_is_not_a_race_in_ten_runs() {
    for _ in 0..10 {
        let report = racer::check(|| {
            let cell = Arc::new(Shared::new(7u64));
            for i in 0..3 {
                let mine = cell.clone();
                drop(named(&format!("reader {i}"), move || assert_eq!(read(&mine).0, 7)));
            }
            while Arc::strong_count(&cell) > 1 {
                std::thread::yield_now();
            }
            drop(cell);
        });
        assert_no_race(&report);
    }
}

/// The same with a write in each thread under racer's mutex, and whichever holder is last
/// (a thread or the owner) dropping the cell.
#[test]
fn the_last_drop_in_any_holder_is_not_a_race_in_ten_runs() {
    for _ in 0..10 {
        let report = racer::check(|| {
            let lock = Arc::new(racer::sync::Mutex::new(()));
            let cell = Arc::new(Shared::new(0u64));
            let done = Arc::new(AtomicUsize::new(0));
            for i in 0..3 {
                let (mine, lock, done) = (cell.clone(), lock.clone(), done.clone());
                drop(named(&format!("writer {i}"), move || {
                    let held = lock.lock().unwrap();
                    unsafe { mine.set(mine.get() + 1) };
                    drop(held);
                    drop(mine);
                    done.fetch_add(1, Ordering::SeqCst);
                }));
            }
            drop(cell);
            while done.load(Ordering::SeqCst) < 3 {
                std::thread::yield_now();
            }
        });
        assert_no_race(&report);
    }
}

/// A cell shared by raw pointer and freed by its owner once a std atomic (which racer does not
/// see) says the reader is done: not an `Arc`'s drop, so the drop races with the read.
#[test]
fn a_drop_outside_an_arc_after_an_unordered_read_is_still_a_race_in_ten_runs() {
    struct Ptr(*mut Shared<u64>);
    // SAFETY: the test frees the cell only after the reader is done with it.
    unsafe impl Send for Ptr {}
    for _ in 0..10 {
        let mut read_site = None;
        let report = racer::check(|| {
            let cell = Box::into_raw(Box::new(Shared::new(7u64)));
            let done = Arc::new(AtomicUsize::new(0));
            let (ptr, flag) = (Ptr(cell), done.clone());
            let reader = named("reader", move || {
                let ptr = ptr;
                let site = read(unsafe { &*ptr.0 }).1;
                flag.store(1, Ordering::SeqCst);
                site
            });
            while done.load(Ordering::SeqCst) == 0 {
                std::thread::yield_now();
            }
            drop(unsafe { Box::from_raw(cell) });
            read_site = Some(reader.join().unwrap());
        });
        assert_eq!(report.len(), 1, "{report}");
        let race = &report.races()[0];
        assert_eq!(race.kind(), RaceKind::Anti, "{report}");
        assert_eq!(race.previous().thread_name(), Some("reader"), "{report}");
        assert_eq!(Some(race.previous().location()), read_site, "{report}");
        assert_ne!(race.current().thread_name(), Some("reader"), "{report}");
    }
}

/// Tasks that nothing joins, each reading the cell through its clone of a `std::sync::Arc`, on
/// both runtimes: whichever drops the last clone (a task, or the runtime's shutdown dropping an
/// unfinished one) drops the cell, and that is no race, in each of ten runs.
#[cfg(feature = "tokio")]
#[test]
fn the_last_drop_in_a_task_nothing_joins_is_not_a_race_in_ten_runs() {
    #[path = "tokio_support/mod.rs"]
    mod tokio_support;
    for (name, rt) in tokio_support::runtimes() {
        for _ in 0..10 {
            let report = tokio_support::check_on(rt, || async {
                let cell = Arc::new(Shared::new(7u64));
                for _ in 0..3 {
                    let mine = cell.clone();
                    drop(racer::tokio::spawn(async move {
                        racer::tokio::task::yield_now().await;
                        assert_eq!(unsafe { mine.get() }, 7);
                    }));
                }
                drop(cell);
            });
            assert!(report.is_empty(), "{name}: {report}");
        }
    }
}
