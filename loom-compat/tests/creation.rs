//! Creating a loom cell is a write, as in loom: a thread that reaches one published without a
//! release (a Relaxed store of its pointer) races with its creation, and one published with
//! Release/Acquire does not. The same holds for an atomic: its handle names an object that keeps
//! its creation, which every operation reads.
#![cfg(feature = "race-detect")]

use std::panic::Location;

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use loom::sync::Arc;
use racer::{AccessKind, RaceKind, Report};

type Site = &'static Location<'static>;

/// Thread "creator" makes a value with `create` and stores a pointer to it with `publish`;
/// thread "user" waits for it in time (through `std::sync`, which racer does not see), loads it
/// with `observe` and runs `touch` on it. Returns the report and the two sites.
fn publish_then_touch<T: Send + 'static>(
    create: fn() -> (T, Site),
    publish: Ordering,
    observe: Ordering,
    touch: fn(&T) -> Site,
) -> (Report, Site, Site) {
    let mut sites = None;
    let report = racer::check(|| {
        let slot = Arc::new(AtomicPtr::<T>::new(std::ptr::null_mut()));
        let (published, wait) = std::sync::mpsc::channel::<()>();
        let creator = {
            let slot = slot.clone();
            racer::thread::Builder::new()
                .name("creator".into())
                .spawn(move || {
                    let (value, site) = create();
                    slot.store(Box::into_raw(Box::new(value)), publish);
                    published.send(()).unwrap();
                    site
                })
                .unwrap()
        };
        let user = racer::thread::Builder::new()
            .name("user".into())
            .spawn(move || {
                wait.recv().unwrap();
                // SAFETY: the creator stored a valid pointer before it sent; it is freed below.
                let value = unsafe { Box::from_raw(slot.load(observe)) };
                touch(&value)
            })
            .unwrap();
        sites = Some((creator.join().unwrap(), user.join().unwrap()));
    });
    let (created, touched) = sites.unwrap();
    (report, created, touched)
}

#[track_caller]
fn new_cell() -> (UnsafeCell<u64>, Site) {
    (UnsafeCell::new(5), Location::caller())
}

#[track_caller]
fn new_atomic() -> (AtomicUsize, Site) {
    (AtomicUsize::new(5), Location::caller())
}

/// Asserts one flow race: the creation by "creator" at `created`, then the read by "user" at
/// `touched`.
fn assert_creation_race(report: &Report, created: Site, touched: Site) {
    assert_creation_race_as(report, created, touched, AccessKind::Read);
}

/// As [`assert_creation_race`], the current access being of kind `touch`.
fn assert_creation_race_as(report: &Report, created: Site, touched: Site, touch: AccessKind) {
    assert_eq!(report.len(), 1, "expected exactly one race, got:\n{report}");
    let race = &report.races()[0];
    assert_eq!(race.kind(), RaceKind::Flow, "{report}");
    let (previous, current) = (race.previous(), race.current());
    assert_eq!(
        (previous.kind(), previous.thread_name(), previous.location()),
        (AccessKind::Write, Some("creator"), created)
    );
    assert_eq!((current.kind(), current.thread_name(), current.location()), (touch, Some("user"), touched));
}

#[track_caller]
fn read_cell(cell: &UnsafeCell<u64>) -> Site {
    assert_eq!(cell.with(|v| unsafe { *v }), 5);
    Location::caller()
}

#[test]
fn a_cell_published_with_a_relaxed_store_races_with_its_creation() {
    let (report, created, touched) =
        publish_then_touch(|| new_cell(), Ordering::Relaxed, Ordering::Acquire, |c| read_cell(c));
    assert_creation_race(&report, created, touched);
}

#[test]
fn a_cell_published_with_release_and_acquire_is_ordered_after_its_creation() {
    let (report, _, _) = publish_then_touch(|| new_cell(), Ordering::Release, Ordering::Acquire, |c| read_cell(c));
    assert!(report.is_empty(), "{report}");
}

#[track_caller]
fn add_to(atomic: &AtomicUsize) -> Site {
    atomic.fetch_add(1, Ordering::AcqRel);
    Location::caller()
}

#[test]
fn an_atomic_published_with_release_and_acquire_is_ordered_after_its_creation() {
    let (report, _, _) = publish_then_touch(|| new_atomic(), Ordering::Release, Ordering::Acquire, |a| add_to(a));
    assert!(report.is_empty(), "{report}");
}

#[track_caller]
fn load_from(atomic: &AtomicUsize) -> Site {
    assert_eq!(atomic.load(Ordering::Acquire), 5);
    Location::caller()
}

#[test]
fn an_atomic_published_with_a_relaxed_store_races_with_its_creation() {
    let (report, created, touched) =
        publish_then_touch(|| new_atomic(), Ordering::Relaxed, Ordering::Acquire, |a| load_from(a));
    assert_creation_race(&report, created, touched);
    let text = report.to_string();
    assert!(text.contains("on the creation of loom::sync::atomic::AtomicUsize at 0x"), "{text}");
    let birth = format!("  loom::sync::atomic::AtomicUsize created by thread 'creator' at {created}:");
    assert!(text.contains(&birth), "{text}");
}

#[test]
fn an_atomic_reached_with_a_relaxed_load_of_a_release_store_races_with_its_creation() {
    let (report, created, touched) =
        publish_then_touch(|| new_atomic(), Ordering::Release, Ordering::Relaxed, |a| add_to(a));
    // Every operation reads the creation, an RMW too.
    assert_creation_race(&report, created, touched);
}

#[test]
fn an_atomic_moved_after_its_creation_keeps_it() {
    fn new_moved() -> (Vec<AtomicUsize>, Site) {
        let (atomic, site) = new_atomic();
        // The handle moves into the vector, and again as the vector grows: the object it
        // names, which keeps the creation, does not.
        let mut all = Vec::with_capacity(1);
        all.push(atomic);
        all.reserve(64);
        (all, site)
    }
    #[track_caller]
    fn load_first(all: &[AtomicUsize]) -> Site {
        load_from(&all[0])
    }
    let (report, created, touched) =
        publish_then_touch(new_moved, Ordering::Relaxed, Ordering::Acquire, |all| load_first(all));
    assert_creation_race(&report, created, touched);
}
