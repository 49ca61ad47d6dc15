//! `racer::parking_lot` and the `racer::lock_api` adapters: sections under a parking_lot lock
//! (through racer's raw-lock adapter) are ordered, a missing lock is found with both sites,
//! reader-writer and upgradable sections order as racer's own `RwLock`, and a hand-written
//! spin lock gains the same edges through `racer::lock_api::RawMutex`.
//!
//! Where one access must come before another in time, the threads hand over with `std::sync`
//! (invisible to racer): the report is the same on every run.
#![cfg(feature = "race-detect")]

mod sync_support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use racer::parking_lot::{
    const_mutex, const_reentrant_mutex, const_rwlock, FairMutex, Mutex, ReentrantMutex, RwLock,
    RwLockUpgradableReadGuard,
};
use racer::sync::Arc;
use racer::{RaceKind, Shared};
use sync_support::{assert_no_race, assert_one_race, named, one_then_other, read, write, Site};

#[test]
fn parking_lot_mutex_sections_are_ordered() {
    let report = racer::check(|| {
        let shared = Arc::new((Mutex::new(()), Shared::new(0u64)));
        let workers: Vec<_> = (0..4)
            .map(|i| {
                let s = shared.clone();
                named(&format!("w{i}"), move || {
                    for _ in 0..50 {
                        let _g = s.0.lock();
                        unsafe { s.1.set(s.1.get() + 1) };
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        assert_eq!(unsafe { shared.1.get() }, 200);
    });
    assert_no_race(&report);
}

#[test]
fn a_missing_parking_lot_lock_is_found() {
    let mut sites = None;
    let report = racer::check(|| {
        let shared = Arc::new((Mutex::new(()), Shared::new(0u64)));
        let (s1, s2) = (shared.clone(), shared.clone());
        sites = Some(one_then_other(
            move || {
                let _g = s1.0.lock();
                write(&s1.1, 1)
            },
            move || write(&s2.1, 2), // forgot the lock
        ));
    });
    let (first, second) = sites.unwrap();
    assert_one_race(&report, RaceKind::Output, ("first", first), ("second", second));
}

#[test]
fn try_lock_and_timed_lock_order_too() {
    let report = racer::check(|| {
        let shared = Arc::new((Mutex::new(()), Shared::new(0u64)));
        let (s1, s2) = (shared.clone(), shared.clone());
        one_then_other(
            move || {
                let _g = s1.0.try_lock().expect("nobody holds it");
                write(&s1.1, 1);
            },
            move || {
                let _g = s2.0.try_lock_for(Duration::from_secs(60)).expect("free");
                write(&s2.1, 2);
            },
        );
    });
    assert_no_race(&report);
}

/// The guard's `unlocked` (unlock, run, relock) and `unlock_fair` go through the adapter too.
#[test]
fn fair_unlocks_order_and_a_fair_mutex_works() {
    let report = racer::check(|| {
        let shared = Arc::new((FairMutex::new(()), Shared::new(0u64)));
        let (s1, s2) = (shared.clone(), shared.clone());
        one_then_other(
            move || {
                let g = s1.0.lock();
                write(&s1.1, 1);
                racer::parking_lot::FairMutexGuard::unlock_fair(g);
            },
            move || {
                let _g = s2.0.lock();
                write(&s2.1, 2);
            },
        );
    });
    assert_no_race(&report);
}

static COUNTER_LOCK: Mutex<()> = const_mutex(());
static COUNTER: Shared<u64> = Shared::new(0);
static TABLE_CELL: Shared<u64> = Shared::new(0);
static REENTRANT_CELL: Shared<u64> = Shared::new(0);
static TABLE: RwLock<()> = const_rwlock(());
static REENTRANT: ReentrantMutex<()> = const_reentrant_mutex(());

/// Each static lock guards its own cell (a first version of this test updated one cell under
/// three different locks, and racer rightly reported it).
#[test]
fn const_locks_in_statics_order_their_sections() {
    let report = racer::check(|| {
        let workers: Vec<_> = (0..3)
            .map(|i| {
                named(&format!("s{i}"), move || {
                    {
                        let _g = COUNTER_LOCK.lock();
                        unsafe { COUNTER.set(COUNTER.get() + 1) };
                    }
                    {
                        let _w = TABLE.write();
                        unsafe { TABLE_CELL.set(TABLE_CELL.get() + 1) };
                    }
                    let _outer = REENTRANT.lock();
                    let _inner = REENTRANT.lock(); // re-entered: no deadlock, still ordered
                    unsafe { REENTRANT_CELL.set(REENTRANT_CELL.get() + 1) };
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
    });
    assert_no_race(&report);
}

#[test]
fn rwlock_readers_stay_parallel_writers_are_ordered() {
    // Ordered: a writer then readers then a writer.
    let report = racer::check(|| {
        let shared = Arc::new((RwLock::new(()), Shared::new(0u64)));
        let (s1, s2) = (shared.clone(), shared.clone());
        one_then_other(
            move || {
                let _w = s1.0.write();
                write(&s1.1, 1);
            },
            move || {
                let _r = s2.0.read();
                read(&s2.1);
            },
        );
        let _w = shared.0.write();
        write(&shared.1, 2);
    });
    assert_no_race(&report);

    // A write under a read lock races with a read under another read lock.
    let mut sites: Option<(Site, Site)> = None;
    let report = racer::check(|| {
        let shared = Arc::new((RwLock::new(()), Shared::new(0u64)));
        let (s1, s2) = (shared.clone(), shared.clone());
        sites = Some(one_then_other(
            move || {
                let _r = s1.0.read();
                read(&s1.1).1
            },
            move || {
                let _r = s2.0.read();
                write(&s2.1, 1) // wrong: writes under a read lock
            },
        ));
    });
    let (first, second) = sites.unwrap();
    assert_one_race(&report, RaceKind::Anti, ("first", first), ("second", second));
}

#[test]
fn an_upgraded_read_is_ordered_after_the_readers_and_before_the_next() {
    let report = racer::check(|| {
        let shared = Arc::new((RwLock::new(()), Shared::new(0u64)));
        let (s1, s2) = (shared.clone(), shared.clone());
        one_then_other(
            move || {
                let _r = s1.0.read();
                read(&s1.1);
            },
            move || {
                let up = s2.0.upgradable_read();
                read(&s2.1);
                let mut w = RwLockUpgradableReadGuard::upgrade(up);
                write(&s2.1, 1);
                *w = ();
                let _r = racer::parking_lot::RwLockWriteGuard::downgrade(w);
            },
        );
        let _r = shared.0.read();
        read(&shared.1);
    });
    assert_no_race(&report);
}

/// A spin lock racer knows nothing of, made visible by `racer::lock_api::RawMutex`.
struct Spin(AtomicBool);

unsafe impl lock_api::RawMutex for Spin {
    #[allow(clippy::declare_interior_mutable_const)]
    const INIT: Spin = Spin(AtomicBool::new(false));
    type GuardMarker = lock_api::GuardSend;

    fn lock(&self) {
        while !self.try_lock() {
            std::thread::yield_now();
        }
    }

    fn try_lock(&self) -> bool {
        self.0.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed).is_ok()
    }

    unsafe fn unlock(&self) {
        self.0.store(false, Ordering::Release);
    }
}

type SpinMutex<T> = lock_api::Mutex<racer::lock_api::RawMutex<Spin>, T>;
type BareSpinMutex<T> = lock_api::Mutex<Spin, T>;

#[test]
fn a_hand_written_spin_lock_through_the_adapter_orders_its_sections() {
    let report = racer::check(|| {
        let shared = Arc::new((SpinMutex::new(()), Shared::new(0u64)));
        let (s1, s2) = (shared.clone(), shared.clone());
        one_then_other(
            move || {
                let _g = s1.0.lock();
                write(&s1.1, 1);
            },
            move || {
                let _g = s2.0.lock();
                write(&s2.1, 2);
            },
        );
    });
    assert_no_race(&report);
}

#[test]
fn the_same_spin_lock_without_the_adapter_is_invisible() {
    let mut sites = None;
    let report = racer::check(|| {
        let shared = Arc::new((BareSpinMutex::new(()), Shared::new(0u64)));
        let (s1, s2) = (shared.clone(), shared.clone());
        sites = Some(one_then_other(
            move || {
                let _g = s1.0.lock();
                write(&s1.1, 1)
            },
            move || {
                let _g = s2.0.lock();
                write(&s2.1, 2)
            },
        ));
    });
    let (first, second) = sites.unwrap();
    assert_one_race(&report, RaceKind::Output, ("first", first), ("second", second));
}

/// The adapter also feeds deadlock detection: two parking_lot mutexes taken in both orders (by
/// two threads one after the other, so nothing hangs) are a lock-order inversion.
#[test]
fn a_parking_lot_lock_order_inversion_is_reported() {
    let report = racer::check(|| {
        let a = Arc::new(Mutex::new(()));
        let b = Arc::new(Mutex::new(()));
        let (a1, b1, a2, b2) = (a.clone(), b.clone(), a.clone(), b.clone());
        named("first", move || {
            let _a = a1.lock();
            let _b = b1.lock();
        })
        .join()
        .unwrap();
        named("second", move || {
            let _b = b2.lock();
            let _a = a2.lock();
        })
        .join()
        .unwrap();
    });
    assert!(report.races().is_empty(), "{report}");
    assert_eq!(report.deadlocks().len(), 1, "{report}");
    let d = &report.deadlocks()[0];
    assert_eq!(d.kind(), racer::DeadlockKind::LockOrderInversion, "{d}");
    assert_eq!(d.edges().len(), 2, "{d}");
    for e in d.edges() {
        assert_eq!(e.held().object(), "Mutex (lock_api)", "{d}");
    }
}

/// `racer::parking_lot::Condvar` with its mutex: the classic hand-over (the value written under
/// the lock, a flag set, a notification; the waiter reads after `wait_while`) is ordered by the
/// mutex the wait lets go of and takes back, so nothing is reported.
#[test]
fn a_condvar_hand_over_is_ordered_by_its_mutex() {
    let report = racer::check(|| {
        let shared = Arc::new((Mutex::new(false), racer::parking_lot::Condvar::new(), Shared::new(0u64)));
        let s = shared.clone();
        let waiter = named("waiter", move || {
            let mut ready = s.0.lock();
            s.1.wait_while(&mut ready, |ready| !*ready);
            unsafe { s.2.get() }
        });
        let s = shared.clone();
        named("notifier", move || {
            let mut ready = s.0.lock();
            unsafe { s.2.set(42) };
            *ready = true;
            s.1.notify_one();
        })
        .join()
        .unwrap();
        assert_eq!(waiter.join().unwrap(), 42);
    });
    assert_no_race(&report);
}

/// parking_lot's answers: a notification with nobody waiting wakes nobody, a timed wait that
/// nobody ends times out, one whose condition already fails returns at once, and a waiter
/// (known to sleep: it let go of the mutex after saying so) is counted by `notify_all`.
#[test]
fn condvar_timeouts_and_notification_counts_are_parking_lots() {
    let cv = racer::parking_lot::Condvar::default();
    let lock = Mutex::new(0u32);
    assert!(!cv.notify_one());
    assert_eq!(cv.notify_all(), 0);
    let mut g = lock.lock();
    assert!(cv.wait_for(&mut g, Duration::from_millis(20)).timed_out());
    assert!(!cv.wait_while_for(&mut g, |n| *n > 0, Duration::from_secs(60)).timed_out());
    assert!(cv
        .wait_while_until(&mut g, |n| *n == 0, std::time::Instant::now() + Duration::from_millis(20))
        .timed_out());
    drop(g);

    let shared = Arc::new((Mutex::new(0u32), racer::parking_lot::Condvar::new()));
    let s = shared.clone();
    let waiter = named("waiter", move || {
        let mut state = s.0.lock();
        *state = 1; // waiting: the mutex is let go of only inside the wait
        s.1.wait_while(&mut state, |state| *state != 2);
    });
    let woken = loop {
        let mut state = shared.0.lock();
        if *state == 1 {
            *state = 2;
            break shared.1.notify_all();
        }
        drop(state);
        std::thread::yield_now();
    };
    waiter.join().unwrap();
    assert_eq!(woken, 1);
}

/// `racer::parking_lot::Once`: what the initialiser wrote is read race-free by a thread whose
/// `call_once` returned after it, and the initialiser runs once.
#[test]
fn a_once_orders_its_initialiser_before_later_calls() {
    static INIT: racer::parking_lot::Once = racer::parking_lot::Once::new();
    let report = racer::check(|| {
        let data = Arc::new(Shared::new(0u64));
        // A std counter: invisible to racer.
        let runs = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (d, r) = (data.clone(), runs.clone());
        let (d2, r2) = (data.clone(), runs.clone());
        one_then_other(
            move || {
                INIT.call_once(|| {
                    unsafe { d.set(7) };
                    r.fetch_add(1, Ordering::Relaxed);
                });
            },
            move || {
                INIT.call_once(|| {
                    r2.fetch_add(1, Ordering::Relaxed);
                });
                assert_eq!(unsafe { d2.get() }, 7);
            },
        );
        assert_eq!(runs.load(Ordering::Relaxed), 1);
        assert!(INIT.state().done());
    });
    assert_no_race(&report);
}

/// A `racer::parking_lot::Condvar` wait nobody will end is part of a hang, as racer's own: the
/// check ends with the hang reported and the wait unwound.
#[test]
fn a_parking_lot_condvar_wait_nobody_ends_is_a_hang() {
    let report = racer::check(|| {
        let pair = Arc::new((Mutex::new(false), racer::parking_lot::Condvar::new()));
        let stuck = named("stuck", move || {
            let (flag, cv) = &*pair;
            let mut set = flag.lock();
            // Nobody ever sets the flag.
            cv.wait_while(&mut set, |set| !*set);
        });
        let _ = stuck.join();
        unreachable!("the joined thread never ends");
    });
    assert_eq!(report.deadlocks().len(), 1, "{report}");
    let d = &report.deadlocks()[0];
    assert_eq!(d.kind(), racer::DeadlockKind::Hang, "{d}");
    let stuck = d.threads().iter().find(|t| t.thread_name() == Some("stuck")).unwrap_or_else(|| panic!("{d}"));
    assert_eq!(stuck.waiting_for(), "on a Condvar (wait without timeout)", "{d}");
}
