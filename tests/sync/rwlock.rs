//! `racer::sync::RwLock`: std's behaviour, poisoning included (both builds), and its
//! happens-before edges: writers order everything, readers order later writers only
//! (detector build).

use racer::sync::{Arc, RwLock, TryLockError};
use racer::thread;

static GLOBAL: RwLock<Vec<u32>> = RwLock::new(Vec::new());

#[test]
fn rwlock_behaves_as_std() {
    GLOBAL.write().unwrap().push(1);
    assert_eq!(*GLOBAL.read().unwrap(), vec![1]);

    let lock = RwLock::new(5);
    {
        let r1 = lock.read().unwrap();
        let r2 = lock.try_read().unwrap();
        assert_eq!(*r1 + *r2, 10);
        assert!(matches!(lock.try_write(), Err(TryLockError::WouldBlock)));
    }
    {
        let mut w = lock.try_write().unwrap();
        *w += 1;
        assert!(matches!(lock.try_read(), Err(TryLockError::WouldBlock)));
        assert_eq!(format!("{w:?} {w}"), "6 6");
    }
    let mut lock = lock;
    *lock.get_mut().unwrap() += 1;
    assert_eq!(lock.into_inner().unwrap(), 7);
    assert_eq!(RwLock::<u8>::default().into_inner().unwrap(), 0);
    assert_eq!(*RwLock::from(3).read().unwrap(), 3);
}

#[test]
fn a_panic_under_the_write_lock_poisons_it() {
    let lock = Arc::new(RwLock::new(1));
    let l = lock.clone();
    let r = thread::spawn(move || {
        let _w = l.write().unwrap();
        panic!("poisoning on purpose");
    })
    .join();
    assert!(r.is_err());
    assert!(lock.is_poisoned());
    let poisoned = lock.read().unwrap_err();
    assert_eq!(**poisoned.get_ref(), 1);
    drop(poisoned);
    match lock.try_write() {
        Err(TryLockError::Poisoned(p)) => assert_eq!(*p.into_inner(), 1),
        _ => panic!("expected a poisoned try_write"),
    }
    lock.clear_poison();
    assert!(!lock.is_poisoned());
    assert_eq!(*lock.write().unwrap(), 1);
}

#[cfg(feature = "race-detect")]
mod races {
    use std::sync::mpsc as std_mpsc;

    use racer::sync::{Arc, RwLock};
    use racer::{RaceKind, Shared};

    use crate::sync_support::*;

    /// `first` runs on thread "a", then (in time only) `second` on thread "b".
    fn a_then_b(
        first: impl FnOnce() -> Site + Send + 'static,
        second: impl FnOnce() -> Site + Send + 'static,
    ) -> (Site, Site) {
        let (done, wait) = std_mpsc::channel::<()>();
        let a = named("a", move || {
            let site = first();
            done.send(()).unwrap();
            site
        });
        let b = named("b", move || {
            wait.recv().unwrap();
            second()
        });
        (a.join().unwrap(), b.join().unwrap())
    }

    fn setup() -> (Arc<RwLock<()>>, Arc<Shared<u64>>) {
        (Arc::new(RwLock::new(())), Arc::new(Shared::new(0)))
    }

    #[test]
    fn a_write_section_happens_before_a_later_read_section() {
        let report = racer::check(|| {
            let (lock, data) = setup();
            let (l, d) = (lock.clone(), data.clone());
            a_then_b(
                move || {
                    let _w = l.write().unwrap();
                    write(&d, 1)
                },
                move || {
                    let _r = lock.read().unwrap();
                    read(&data).1
                },
            );
        });
        assert_no_race(&report);
    }

    #[test]
    fn a_read_section_happens_before_a_later_write_section() {
        let report = racer::check(|| {
            let (lock, data) = setup();
            let (l, d) = (lock.clone(), data.clone());
            a_then_b(
                move || {
                    let _r = l.read().unwrap();
                    read(&d).1
                },
                move || {
                    let _w = lock.try_write().unwrap();
                    write(&data, 2)
                },
            );
        });
        assert_no_race(&report);
    }

    #[test]
    fn two_read_sections_are_parallel() {
        // A write inside a read section (a bug) races with a read inside another reader's.
        let mut sites = None;
        let report = racer::check(|| {
            let (lock, data) = setup();
            let (l, d) = (lock.clone(), data.clone());
            sites = Some(a_then_b(
                move || {
                    let _r = l.read().unwrap();
                    write(&d, 1)
                },
                move || {
                    let _r = lock.try_read().unwrap();
                    read(&data).1
                },
            ));
        });
        let (w, r) = sites.unwrap();
        assert_one_race(&report, RaceKind::Flow, ("a", w), ("b", r));
    }

    /// Runs `f` holding `lock` for writing (`write`) or reading.
    fn holding<R>(lock: &RwLock<()>, write: bool, f: impl FnOnce() -> R) -> R {
        if write {
            let _held = lock.write().unwrap();
            f()
        } else {
            let _held = lock.read().unwrap();
            f()
        }
    }

    /// Thread "a" takes the lock (for writing if `a_writes`, else reading) and lets go; "b"
    /// then takes it the other way and lets go; "a" takes it again as before and writes the
    /// cell under it, and "b" then reads the cell without the lock. "b" heard of "a"'s first
    /// post, so "a" must not go on in the segment that post ended: the write and the read race.
    fn retaken_after_the_other(a_writes: bool) {
        let mut sites = None;
        let report = racer::check(|| {
            let (lock, data) = setup();
            let (l, d) = (lock.clone(), data.clone());
            // Std channels: order in time only, invisible to racer.
            let (to_b, from_a) = std_mpsc::channel::<()>();
            let (to_a, from_b) = std_mpsc::channel::<()>();
            let a = named("a", move || {
                holding(&l, a_writes, || ());
                to_b.send(()).unwrap();
                from_b.recv().unwrap();
                let site = holding(&l, a_writes, || write(&d, 1));
                to_b.send(()).unwrap();
                site
            });
            let b = named("b", move || {
                from_a.recv().unwrap();
                holding(&lock, !a_writes, || ());
                to_a.send(()).unwrap();
                from_a.recv().unwrap();
                read(&data).1
            });
            sites = Some((a.join().unwrap(), b.join().unwrap()));
        });
        let (w, r) = sites.unwrap();
        assert_one_race(&report, RaceKind::Flow, ("a", w), ("b", r));
    }

    #[test]
    fn a_writer_retaking_the_lock_after_a_reader_is_in_a_new_segment() {
        retaken_after_the_other(true);
    }

    /// (The write under a read lock is the bug that makes the race.)
    #[test]
    fn a_reader_retaking_the_lock_after_a_writer_is_in_a_new_segment() {
        retaken_after_the_other(false);
    }

    /// A reader that re-takes the lock alone posts nothing new at its second unlock, and the
    /// next writer is still ordered after both read sections.
    #[test]
    fn read_sections_a_reader_repeats_still_happen_before_the_next_writer() {
        let report = racer::check(|| {
            let (lock, data) = setup();
            let (l, d) = (lock.clone(), data.clone());
            a_then_b(
                move || {
                    drop(l.read().unwrap());
                    let _r = l.read().unwrap();
                    read(&d).1
                },
                move || {
                    let _w = lock.write().unwrap();
                    write(&data, 2)
                },
            );
        });
        assert_no_race(&report);
    }

    /// A lock made where another was (most likely at its address) is not taken for it: the
    /// reader's unlock of the new lock posts, and orders its read before the new lock's writer.
    #[test]
    fn a_new_lock_where_an_old_one_was_gets_the_readers_post() {
        let report = racer::check(|| {
            let data = Arc::new(Shared::new(0u64));
            let d = data.clone();
            // Std's `Arc`: its drop is no synchronisation racer sees.
            let (give, take) = std_mpsc::channel::<std::sync::Arc<RwLock<()>>>();
            let (done, wait) = std_mpsc::channel::<()>();
            let a = named("a", move || {
                drop(std::sync::Arc::new(RwLock::new(())).read().map(drop));
                let lock = std::sync::Arc::new(RwLock::new(()));
                let site = {
                    let _r = lock.read().unwrap();
                    read(&d).1
                };
                give.send(lock).unwrap();
                wait.recv().unwrap();
                site
            });
            let b = named("b", move || {
                let lock = take.recv().unwrap();
                let site = {
                    let _w = lock.write().unwrap();
                    write(&data, 2)
                };
                done.send(()).unwrap();
                site
            });
            a.join().unwrap();
            b.join().unwrap();
        });
        assert_no_race(&report);
    }

    #[test]
    fn a_write_without_the_lock_races_with_a_read_section() {
        let mut sites = None;
        let report = racer::check(|| {
            let (lock, data) = setup();
            let d = data.clone();
            sites = Some(a_then_b(
                move || {
                    let _r = lock.read().unwrap();
                    read(&d).1
                },
                move || write(&data, 3),
            ));
        });
        let (r, w) = sites.unwrap();
        assert_one_race(&report, RaceKind::Anti, ("a", r), ("b", w));
    }
}
