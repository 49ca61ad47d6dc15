//! `racer::annotate`'s synchronisation and scopes: a futex-like flag on a std atomic (which
//! racer cannot see) ordered by `release`/`acquire`, and a race without them; `forget_sync`;
//! `ignore_accesses` hiding exactly its scope, also when it unwinds; `benign` cells.
//!
//! As in the `sync` tests (`tests/sync/`), where one access must come before another in time,
//! the threads hand over with `std::sync` (invisible to racer): the report is the same on every
//! run.
#![cfg(feature = "race-detect")]

mod sync_support;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc as std_mpsc;

use racer::sync::Arc;
use racer::{annotate, RaceKind, Shared};
use sync_support::{assert_no_race, assert_one_race, named, one_then_other, read, write, Site};

/// A futex-like flag: a std atomic set once by its releaser and waited for by spinning (what
/// racer sees of this: nothing).
struct Flag(AtomicBool);

impl Flag {
    fn new() -> Flag {
        Flag(AtomicBool::new(false))
    }

    /// Sets the flag; `annotated`: tells racer first.
    fn set(&self, annotated: bool) {
        if annotated {
            annotate::release(&self.0);
        }
        self.0.store(true, Ordering::Release);
    }

    /// Waits for the flag; `annotated`: tells racer after.
    fn wait(&self, annotated: bool) {
        while !self.0.load(Ordering::Acquire) {
            std::thread::yield_now();
        }
        if annotated {
            annotate::acquire(&self.0);
        }
    }
}

/// A writer publishes a cell through the flag; a reader waits for the flag and reads it.
/// Returns the two sites. `release`/`acquire`: which annotations are made.
fn publish_through_flag(release: bool, acquire: bool) -> (racer::Report, Site, Site) {
    let mut sites = None;
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let flag = Arc::new(Flag::new());
        let (c, f) = (cell.clone(), flag.clone());
        let writer = named("writer", move || {
            let site = write(&c, 42);
            f.set(release);
            site
        });
        let (c, f) = (cell.clone(), flag.clone());
        let reader = named("reader", move || {
            f.wait(acquire);
            let (v, site) = read(&c);
            assert_eq!(v, 42);
            site
        });
        sites = Some((writer.join().unwrap(), reader.join().unwrap()));
    });
    let (w, r) = sites.unwrap();
    (report, w, r)
}

#[test]
fn a_futex_flag_with_release_and_acquire_orders_the_hand_off() {
    let (report, _, _) = publish_through_flag(true, true);
    assert_no_race(&report);
}

#[test]
fn a_futex_flag_without_annotations_is_a_race() {
    let (report, w, r) = publish_through_flag(false, false);
    let race = assert_one_race(&report, RaceKind::Flow, ("writer", w), ("reader", r));
    assert!(!race.previous().backtrace().is_empty() && !race.current().backtrace().is_empty());
}

#[test]
fn a_release_without_its_acquire_orders_nothing() {
    let (report, w, r) = publish_through_flag(true, false);
    assert_one_race(&report, RaceKind::Flow, ("writer", w), ("reader", r));
    let (report, w, r) = publish_through_flag(false, true);
    assert_one_race(&report, RaceKind::Flow, ("writer", w), ("reader", r));
}

/// The report names the annotation as the reader's last synchronisation when a later race
/// involves it: "acquiring annotation at tests/annotate.rs:LINE".
#[test]
fn reports_name_the_annotation_as_the_last_synchronisation() {
    let mut acquire_line = 0;
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let c = cell.clone();
        let (go, wait) = std_mpsc::channel::<()>();
        let writer = named("writer", move || {
            wait.recv().unwrap();
            write(&c, 1);
        });
        // Acquires an address nobody released: orders nothing, but is the last sync event.
        let key = 0u8;
        annotate::release(&key);
        acquire_line = line!() + 1;
        annotate::acquire(&key);
        write(&cell, 2);
        go.send(()).unwrap();
        writer.join().unwrap();
    });
    assert_eq!(report.len(), 1, "{report}");
    let race = &report.races()[0];
    let sync = race.previous().after_sync().expect("the main thread's last sync is the acquire");
    assert_eq!(sync, format!("acquiring annotation at {}:{}:9", file!(), acquire_line));
}

#[test]
fn forget_sync_drops_the_clock_of_an_address() {
    let mut sites = None;
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let key = Arc::new(0u64);
        let (c, k) = (cell.clone(), key.clone());
        let (done, wait) = std_mpsc::channel::<()>();
        let writer = named("writer", move || {
            let site = write(&c, 1);
            annotate::release(&*k);
            annotate::forget_sync(&*k);
            done.send(()).unwrap();
            site
        });
        let (c, k) = (cell.clone(), key.clone());
        let reader = named("reader", move || {
            wait.recv().unwrap();
            annotate::acquire(&*k); // finds no clock: forgotten
            read(&c).1
        });
        sites = Some((writer.join().unwrap(), reader.join().unwrap()));
    });
    let (w, r) = sites.unwrap();
    assert_one_race(&report, RaceKind::Flow, ("writer", w), ("reader", r));
}

#[test]
fn ignore_accesses_hides_exactly_its_scope() {
    let mut sites = None;
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let (c1, c2) = (cell.clone(), cell.clone());
        sites = Some(one_then_other(
            move || write(&c1, 1),
            move || {
                // The same write, racing the same way: hidden inside the scope...
                annotate::ignore_accesses(|| write(&c2, 2));
                // ...reported just after it.
                write(&c2, 3)
            },
        ));
    });
    let (first, second) = sites.unwrap();
    assert_one_race(&report, RaceKind::Output, ("first", first), ("second", second));
}

#[test]
fn an_ignored_access_is_not_remembered() {
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let (c1, c2) = (cell.clone(), cell.clone());
        one_then_other(move || annotate::ignore_accesses(|| write(&c1, 1)), move || write(&c2, 2));
    });
    assert_no_race(&report);
}

#[test]
fn ignore_accesses_nests_and_returns_the_closures_value() {
    let mut sites = None;
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let (c1, c2) = (cell.clone(), cell.clone());
        sites = Some(one_then_other(
            move || write(&c1, 1),
            move || {
                let v = annotate::ignore_accesses(|| {
                    annotate::ignore_accesses(|| write(&c2, 2));
                    write(&c2, 3); // still inside the outer scope
                    7
                });
                assert_eq!(v, 7);
                write(&c2, 4)
            },
        ));
    });
    let (first, second) = sites.unwrap();
    assert_one_race(&report, RaceKind::Output, ("first", first), ("second", second));
}

#[test]
fn a_panic_out_of_ignore_accesses_leaves_the_scope() {
    let mut sites = None;
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let (c1, c2) = (cell.clone(), cell.clone());
        sites = Some(one_then_other(
            move || write(&c1, 1),
            move || {
                let unwound =
                    catch_unwind(AssertUnwindSafe(|| annotate::ignore_accesses(|| panic!("inside the scope"))));
                assert!(unwound.is_err());
                write(&c2, 2)
            },
        ));
    });
    let (first, second) = sites.unwrap();
    assert_one_race(&report, RaceKind::Output, ("first", first), ("second", second));
}

#[test]
fn races_on_a_benign_cell_are_not_reported_and_on_its_neighbour_they_are() {
    let mut sites = None;
    let report = racer::check(|| {
        let benign = Arc::new(Shared::new(0u64));
        let plain = Arc::new(Shared::new(0u64));
        annotate::benign(&*benign);
        let (b1, b2, p1, p2) = (benign.clone(), benign.clone(), plain.clone(), plain.clone());
        sites = Some(one_then_other(
            move || {
                write(&b1, 1);
                write(&p1, 1)
            },
            move || {
                write(&b2, 2);
                write(&p2, 2)
            },
        ));
        // The mark is by address: forget the cell's memory before it can hold another cell.
        annotate::forget(&*benign, std::mem::size_of_val(&*benign));
    });
    let (first, second) = sites.unwrap();
    assert_one_race(&report, RaceKind::Output, ("first", first), ("second", second));
}

#[test]
fn forgetting_a_benign_cells_memory_ends_the_mark() {
    let mut sites = None;
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        annotate::benign(&*cell);
        annotate::forget(&*cell, std::mem::size_of_val(&*cell));
        let (c1, c2) = (cell.clone(), cell.clone());
        sites = Some(one_then_other(move || write(&c1, 1), move || write(&c2, 2)));
    });
    let (first, second) = sites.unwrap();
    assert_one_race(&report, RaceKind::Output, ("first", first), ("second", second));
}

/// A writer hands a cell to a reader through a std channel, which racer cannot see; `carried`:
/// the message is a `Carry`, made after the write and opened before the read.
fn hand_over_std_channel(carried: bool) -> (racer::Report, Site, Site) {
    let mut sites = None;
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let (tx, rx) = std_mpsc::channel::<annotate::Carry<u32>>();
        let (plain_tx, plain_rx) = std_mpsc::channel::<u32>();
        let c = cell.clone();
        let writer = named("writer", move || {
            let site = write(&c, 42);
            if carried {
                tx.send(annotate::Carry::new(7)).unwrap();
            } else {
                plain_tx.send(7).unwrap();
            }
            site
        });
        let c = cell.clone();
        let reader = named("reader", move || {
            let message = if carried { rx.recv().unwrap().into_inner() } else { plain_rx.recv().unwrap() };
            assert_eq!(message, 7);
            let (v, site) = read(&c);
            assert_eq!(v, 42);
            site
        });
        sites = Some((writer.join().unwrap(), reader.join().unwrap()));
    });
    let (w, r) = sites.unwrap();
    (report, w, r)
}

#[test]
fn a_carry_orders_its_sender_before_its_receiver_every_run() {
    for _ in 0..10 {
        let (report, _, _) = hand_over_std_channel(true);
        assert_no_race(&report);
    }
}

#[test]
fn without_the_carry_the_same_hand_off_is_a_race_every_run() {
    for _ in 0..10 {
        let (report, w, r) = hand_over_std_channel(false);
        assert_one_race(&report, RaceKind::Flow, ("writer", w), ("reader", r));
    }
}

/// The reader's last synchronisation, as a report words it, is taking the value out of the carry.
#[test]
fn a_report_names_the_carry_as_the_last_synchronisation() {
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let (tx, rx) = std_mpsc::channel::<annotate::Carry<()>>();
        let c = cell.clone();
        let writer = named("writer", move || {
            tx.send(annotate::Carry::new(())).unwrap();
            write(&c, 1);
        });
        rx.recv().unwrap().into_inner();
        write(&cell, 2);
        writer.join().unwrap();
    });
    assert_eq!(report.len(), 1, "{report}");
    let race = &report.races()[0];
    let main_side = if race.current().thread_name() == Some("writer") { race.previous() } else { race.current() };
    let sync = main_side.after_sync().expect("the main thread's last sync is the carry's acquire");
    assert!(sync.starts_with("taking the value out of racer::annotate::Carry"), "{sync}");
}
