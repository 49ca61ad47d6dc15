//! `racer::thread::park` / `Thread::unpark`: an unpark happens before the park it releases.
#![cfg(feature = "race-detect")]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc as std_mpsc;

use racer::sync::Arc;
use racer::{thread, RaceKind, Shared};

use crate::sync_support::*;

/// A thread writes the cell and unparks the parker, in the order `unpark_first` says; the
/// parker, once the other thread is done (in time), parks (taking the unpark's token) and reads.
/// The parker spins on a std atomic rather than blocking on a std channel, whose own parking
/// could consume the unpark's token.
fn park_after(unpark_first: bool) -> (racer::Report, Site, Site) {
    let mut sites = None;
    let report = racer::check(|| {
        let data = Arc::new(Shared::new(0u64));
        let (parker_tx, parker_rx) = std_mpsc::channel::<thread::Thread>();
        let done = std::sync::Arc::new(AtomicBool::new(false));
        let is_done = done.clone();
        let d = data.clone();
        let unparker = named("unparker", move || {
            let parker = parker_rx.recv().unwrap();
            let site = if unpark_first {
                parker.unpark();
                write(&d, 1)
            } else {
                let site = write(&d, 1);
                parker.unpark();
                site
            };
            done.store(true, Ordering::Release);
            site
        });
        let parker = named("parker", move || {
            parker_tx.send(thread::current()).unwrap();
            while !is_done.load(Ordering::Acquire) {
                std::hint::spin_loop();
            }
            thread::park();
            read(&data).1
        });
        sites = Some((unparker.join().unwrap(), parker.join().unwrap()));
    });
    let (w, r) = sites.unwrap();
    (report, w, r)
}

#[test]
fn unpark_happens_before_the_park_it_releases() {
    assert_no_race(&park_after(false).0);
}

#[test]
fn a_write_after_the_unpark_races_with_the_parked_thread() {
    let (report, w, r) = park_after(true);
    assert_one_race(&report, RaceKind::Flow, ("unparker", w), ("parker", r));
}
