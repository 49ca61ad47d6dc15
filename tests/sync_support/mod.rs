//! Helpers shared by the `sync` tests (`tests/sync/`) and others: named threads, accesses that
//! return their own site, and assertions on a report's single race.
//!
//! Races asserted with these helpers are certain under happens-before, not under timing: where
//! a test needs one access to come before another in time, it hands over with `std::sync`
//! (invisible to racer), so the accesses stay unordered for the detector while the report is
//! the same on every run.
#![allow(dead_code)]

use std::panic::Location;

use racer::{thread, AccessKind, Race, RaceKind, Report, Shared};

pub type Site = &'static Location<'static>;

pub fn named<T: Send + 'static>(name: &str, f: impl FnOnce() -> T + Send + 'static) -> thread::JoinHandle<T> {
    thread::Builder::new().name(name.into()).spawn(f).unwrap()
}

/// Writes `v` into the cell; returns the site of the write (the caller's line).
#[track_caller]
pub fn write(cell: &Shared<u64>, v: u64) -> Site {
    cell.with_mut(|p| unsafe { *p = v });
    Location::caller()
}

/// Reads the cell; returns the value and the site of the read (the caller's line).
#[track_caller]
pub fn read(cell: &Shared<u64>) -> (u64, Site) {
    (cell.with(|p| unsafe { *p }), Location::caller())
}

pub fn assert_no_race(report: &Report) {
    assert!(report.is_empty(), "expected no race, got:\n{report}");
}

/// Asserts the report holds exactly one race, of `kind`, between the access at `previous` by
/// thread `prev_thread` and the one at `current` by `cur_thread`.
pub fn assert_one_race(report: &Report, kind: RaceKind, previous: (&str, Site), current: (&str, Site)) -> Race {
    assert_eq!(report.len(), 1, "expected exactly one race, got:\n{report}");
    let race = report.races()[0].clone();
    assert_eq!(race.kind(), kind, "{report}");
    let (prev_kind, cur_kind) = match kind {
        RaceKind::Flow => (AccessKind::Write, AccessKind::Read),
        RaceKind::Anti => (AccessKind::Read, AccessKind::Write),
        RaceKind::Output => (AccessKind::Write, AccessKind::Write),
    };
    for (access, kind, (thread, site)) in [(race.previous(), prev_kind, previous), (race.current(), cur_kind, current)]
    {
        assert_eq!(access.kind(), kind, "{report}");
        assert_eq!(access.thread_name(), Some(thread), "{report}");
        assert_eq!(access.location(), site, "{report}");
    }
    race
}

/// `first` on thread "first", then in time (not in happens-before) `second` on "second".
pub fn one_then_other<A: Send + 'static, B: Send + 'static>(
    first: impl FnOnce() -> A + Send + 'static,
    second: impl FnOnce() -> B + Send + 'static,
) -> (A, B) {
    let (done, wait) = std::sync::mpsc::channel::<()>();
    let a = named("first", move || {
        let r = first();
        done.send(()).unwrap();
        r
    });
    let b = named("second", move || {
        wait.recv().unwrap();
        second()
    });
    (a.join().unwrap(), b.join().unwrap())
}
