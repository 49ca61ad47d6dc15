//! Checked raw memory (`racer::annotate::{read, write, forget}`): elements of one buffer written
//! by different threads do not race, the same element does (reported with both sites, both
//! threads, "raw memory" and the element's address); the shadow is 8-byte granules; racer's
//! synchronisation orders raw accesses as it orders `Shared` ones; `forget` starts a new
//! history; `ignore_accesses` and `benign_range` apply to raw memory too.
//!
//! Where one access must come before another in time, the threads hand over with `std::sync`
//! (invisible to racer): the report is the same on every run.
#![cfg(feature = "race-detect")]

mod sync_support;

use std::mem::MaybeUninit;
use std::panic::Location;

use racer::sync::{Arc, Mutex};
use racer::{annotate, RaceKind};
use sync_support::{assert_no_race, assert_one_race, named, one_then_other, Site};

/// A buffer of `T`s in one raw allocation, shared by pointer (what a ring buffer or an arena
/// does), its accesses annotated.
struct Buffer<T> {
    slots: *mut MaybeUninit<T>,
    len: usize,
}

// SAFETY: a test buffer whose accesses racer checks: that is the point.
unsafe impl<T: Send> Send for Buffer<T> {}
unsafe impl<T: Send> Sync for Buffer<T> {}

impl<T: Copy> Buffer<T> {
    fn new(len: usize) -> Buffer<T> {
        let slots = Box::into_raw(vec![MaybeUninit::<T>::uninit(); len].into_boxed_slice()) as *mut MaybeUninit<T>;
        Buffer { slots, len }
    }

    fn slot(&self, i: usize) -> *mut T {
        assert!(i < self.len);
        // SAFETY: in bounds.
        unsafe { self.slots.add(i) as *mut T }
    }

    /// Writes element `i`; returns the site (the caller's line).
    #[track_caller]
    fn put(&self, i: usize, v: T) -> Site {
        annotate::write(self.slot(i), std::mem::size_of::<T>());
        // SAFETY: in bounds; the race on it is what racer checks.
        unsafe { self.slot(i).write(v) };
        Location::caller()
    }

    /// Reads element `i` (it must have been written); returns it and the site.
    #[track_caller]
    fn take(&self, i: usize) -> (T, Site) {
        annotate::read(self.slot(i), std::mem::size_of::<T>());
        // SAFETY: in bounds and written before.
        (unsafe { self.slot(i).read() }, Location::caller())
    }
}

impl<T> Drop for Buffer<T> {
    fn drop(&mut self) {
        // The documented way to free checked memory: forget its shadow first.
        annotate::forget(self.slots, self.len * std::mem::size_of::<T>());
        // SAFETY: made by `Box::into_raw` of a slice of `len`.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.slots, self.len)) });
    }
}

#[test]
fn different_elements_written_by_different_threads_do_not_race() {
    let report = racer::check(|| {
        let buf = Arc::new(Buffer::<u64>::new(16));
        let workers: Vec<_> = (0..4)
            .map(|t| {
                let b = buf.clone();
                named(&format!("w{t}"), move || {
                    for i in (t..16).step_by(4) {
                        b.put(i, i as u64);
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        // Ordered after every worker by the joins.
        let sum: u64 = (0..16).map(|i| buf.take(i).0).sum();
        assert_eq!(sum, 120);
    });
    assert_no_race(&report);
}

#[test]
fn the_same_element_written_by_two_threads_is_a_race_with_both_sites() {
    let mut sites = None;
    let mut address = 0;
    let report = racer::check(|| {
        let buf = Arc::new(Buffer::<u64>::new(16));
        address = buf.slot(5) as usize;
        let (b1, b2) = (buf.clone(), buf.clone());
        sites = Some(one_then_other(move || b1.put(5, 1), move || b2.put(5, 2)));
    });
    let (first, second) = sites.unwrap();
    let race = assert_one_race(&report, RaceKind::Output, ("first", first), ("second", second));
    assert_eq!(race.type_name(), "raw memory");
    assert_eq!(race.address(), address);
    for access in [race.previous(), race.current()] {
        let backtrace = access.backtrace();
        assert!(backtrace.starts_with("#0 "), "the user's frame first:\n{backtrace}");
        assert!(backtrace.contains("raw_memory"), "{backtrace}");
    }
    let text = report.to_string();
    assert!(text.contains(&format!("on raw memory at {address:#x}")), "{text}");
}

#[test]
fn read_after_an_unordered_write_and_write_after_an_unordered_read() {
    let mut sites = None;
    let report = racer::check(|| {
        let buf = Arc::new(Buffer::<u64>::new(4));
        let (b1, b2) = (buf.clone(), buf.clone());
        sites = Some(one_then_other(move || b1.put(0, 1), move || b2.take(0).1));
    });
    let (first, second) = sites.unwrap();
    assert_one_race(&report, RaceKind::Flow, ("first", first), ("second", second));

    let report = racer::check(|| {
        let buf = Arc::new(Buffer::<u64>::new(4));
        buf.put(1, 0); // initialised, and ordered before both threads by their spawns
        let (b1, b2) = (buf.clone(), buf.clone());
        sites = Some(one_then_other(move || b1.take(1).1, move || b2.put(1, 2)));
    });
    let (first, second) = sites.unwrap();
    assert_one_race(&report, RaceKind::Anti, ("first", first), ("second", second));
}

#[test]
fn a_racer_mutex_orders_raw_accesses() {
    let report = racer::check(|| {
        let shared = Arc::new((Mutex::new(()), Buffer::<u64>::new(2)));
        let (s1, s2) = (shared.clone(), shared.clone());
        one_then_other(
            move || {
                let _g = s1.0.lock().unwrap();
                s1.1.put(0, 1);
            },
            move || {
                let _g = s2.0.lock().unwrap();
                s2.1.put(0, s2.1.take(0).0 + 1);
            },
        );
    });
    assert_no_race(&report);
}

/// One access over many granules racing with one earlier access over them is one race, named
/// at the first byte they share.
#[test]
fn a_long_access_racing_over_many_granules_is_one_race() {
    let mut sites = None;
    let mut address = 0;
    let report = racer::check(|| {
        let buf = Arc::new(Buffer::<u64>::new(8));
        address = buf.slot(2) as usize;
        let (b1, b2) = (buf.clone(), buf.clone());
        sites = Some(one_then_other(
            move || {
                let site = Location::caller();
                annotate::write(b1.slot(2), 6 * 8); // elements 2..8
                site
            },
            move || {
                let site = Location::caller();
                annotate::write(b2.slot(0), 8 * 8); // the whole buffer
                site
            },
        ));
    });
    let (first, second) = sites.unwrap();
    assert_eq!(report.len(), 1, "{report}");
    let race = &report.races()[0];
    assert_eq!(race.kind(), RaceKind::Output);
    assert_eq!(
        (race.previous().location().line(), race.current().location().line()),
        (first.line() + 1, second.line() + 1)
    );
    assert_eq!(race.address(), address);
}

/// The shadow's unit is 8 bytes: two `u32` neighbours in one granule are one location.
#[test]
fn neighbours_smaller_than_a_granule_share_it() {
    let report = racer::check(|| {
        let buf = Arc::new(Buffer::<u32>::new(4));
        let (b1, b2) = (buf.clone(), buf.clone());
        one_then_other(move || b1.put(0, 1), move || b2.put(1, 2));
    });
    assert_eq!(report.len(), 1, "{report}");
    let report = racer::check(|| {
        let buf = Arc::new(Buffer::<u32>::new(4));
        let (b1, b2) = (buf.clone(), buf.clone());
        one_then_other(move || b1.put(1, 1), move || b2.put(2, 2)); // granules 0 and 1
    });
    assert_no_race(&report);
}

/// Memory freed through `forget` and used again starts a new history: its next user does not
/// race with its last.
#[test]
fn forget_starts_a_new_history() {
    let report = racer::check(|| {
        let buf = Arc::new(Buffer::<u64>::new(4));
        let (b1, b2) = (buf.clone(), buf.clone());
        one_then_other(
            move || {
                b1.put(0, 1);
                // As an allocator would before handing the memory to someone else.
                annotate::forget(b1.slot(0), 8);
            },
            move || b2.put(0, 2),
        );
    });
    assert_no_race(&report);
}

#[test]
fn ignore_accesses_and_benign_range_apply_to_raw_memory() {
    let mut sites = None;
    let report = racer::check(|| {
        let buf = Arc::new(Buffer::<u64>::new(4));
        annotate::benign_range(buf.slot(3), 8);
        let (b1, b2) = (buf.clone(), buf.clone());
        sites = Some(one_then_other(
            move || {
                b1.put(3, 1);
                b1.put(1, 1)
            },
            move || {
                annotate::ignore_accesses(|| b2.put(1, 2));
                b2.put(3, 2); // benign
                b2.put(1, 3) // reported
            },
        ));
    });
    let (first, second) = sites.unwrap();
    assert_one_race(&report, RaceKind::Output, ("first", first), ("second", second));
}
