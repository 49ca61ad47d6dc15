//! The core detector through the facade: each race kind with both sites and both threads, no
//! report where spawn/join/Mutex/Condvar/scope order the accesses, the paper's read-read-write
//! case, cell identity under moves and address reuse, de-duplication, and isolation of parallel
//! `check`s.
//!
//! Races here are certain under happens-before, not under timing: where a test needs one access
//! to come before another in time, it hands over with `std::sync` (invisible to racer), so the
//! accesses stay unordered for the detector while the report is the same on every run.
#![cfg(feature = "race-detect")]

use std::sync::mpsc as std_mpsc;

use racer::sync::{Arc, Condvar, Mutex};
use racer::{thread, AccessKind, Race, RaceKind, Report, Shared};

fn named<T: Send + 'static>(name: &str, f: impl FnOnce() -> T + Send + 'static) -> thread::JoinHandle<T> {
    thread::Builder::new().name(name.into()).spawn(f).unwrap()
}

fn only_race(report: &Report) -> &Race {
    assert_eq!(report.len(), 1, "expected exactly one race, got:\n{report}");
    &report.races()[0]
}

fn assert_access(a: &racer::Access, kind: AccessKind, thread: &str, line: u32) {
    assert_eq!(a.kind(), kind);
    assert_eq!(a.thread_name(), Some(thread));
    assert_eq!(a.location().file(), file!());
    assert_eq!(a.location().line(), line);
    let backtrace = a.backtrace();
    assert!(backtrace.starts_with("#0 "), "backtrace starts at the user's frame:\n{backtrace}");
    assert!(!backtrace.contains("racer_rt::"), "racer's own frames are left out:\n{backtrace}");
}

/// The report holds one race: a write by `writer` at its line, then a parallel read by `reader`.
fn assert_one_flow_race(report: &Report, writer: (&str, u32), reader: (&str, u32)) {
    let race = only_race(report);
    assert_eq!(race.kind(), RaceKind::Flow);
    assert_access(race.previous(), AccessKind::Write, writer.0, writer.1);
    assert_access(race.current(), AccessKind::Read, reader.0, reader.1);
}

/// Runs `first` on thread `a`, then (in time, not in happens-before) `second` on thread `b`.
fn one_then_other(
    a: &str,
    first: impl FnOnce() -> u32 + Send + 'static,
    b: &str,
    second: impl FnOnce() -> u32 + Send + 'static,
) -> (u32, u32) {
    let (done, wait) = std_mpsc::channel::<()>();
    let ha = named(a, move || {
        let line = first();
        done.send(()).unwrap();
        line
    });
    let hb = named(b, move || {
        wait.recv().unwrap();
        second()
    });
    (ha.join().unwrap(), hb.join().unwrap())
}

#[test]
fn flow_race_write_then_parallel_read() {
    let mut lines = (0, 0);
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let (c1, c2) = (cell.clone(), cell.clone());
        lines = one_then_other(
            "writer",
            move || {
                c1.with_mut(|p| unsafe { *p = 1 });
                line!() - 1
            },
            "reader",
            move || {
                c2.with(|p| unsafe { *p });
                line!() - 1
            },
        );
    });
    let race = only_race(&report);
    assert_eq!(race.kind(), RaceKind::Flow);
    assert_access(race.previous(), AccessKind::Write, "writer", lines.0);
    assert_access(race.current(), AccessKind::Read, "reader", lines.1);
    assert_eq!(race.type_name(), "u64");
}

#[test]
fn anti_race_read_then_parallel_write() {
    let mut lines = (0, 0);
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let (c1, c2) = (cell.clone(), cell.clone());
        lines = one_then_other(
            "reader",
            move || {
                unsafe { c1.get() };
                line!() - 1
            },
            "writer",
            move || {
                unsafe { c2.set(5) };
                line!() - 1
            },
        );
    });
    let race = only_race(&report);
    assert_eq!(race.kind(), RaceKind::Anti);
    assert_access(race.previous(), AccessKind::Read, "reader", lines.0);
    assert_access(race.current(), AccessKind::Write, "writer", lines.1);
}

#[test]
fn output_race_write_then_parallel_write() {
    let mut lines = (0, 0);
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let (c1, c2) = (cell.clone(), cell.clone());
        lines = one_then_other(
            "first",
            move || {
                c1.with_mut(|p| unsafe { *p += 1 });
                line!() - 1
            },
            "second",
            move || {
                c2.with_mut(|p| unsafe { *p += 1 });
                line!() - 1
            },
        );
    });
    let race = only_race(&report);
    assert_eq!(race.kind(), RaceKind::Output);
    assert_access(race.previous(), AccessKind::Write, "first", lines.0);
    assert_access(race.current(), AccessKind::Write, "second", lines.1);
}

#[test]
fn report_text_names_kind_sites_threads_and_spawn_sites() {
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u32));
        let (c1, c2) = (cell.clone(), cell.clone());
        one_then_other(
            "alpha",
            move || {
                c1.with_mut(|p| unsafe { *p = 1 });
                line!() - 1
            },
            "beta",
            move || {
                c2.with_mut(|p| unsafe { *p = 2 });
                line!() - 1
            },
        );
    });
    let text = report.to_string();
    assert!(
        text.contains("WARNING: racer: data race (output: write, then a parallel write) on Shared<u32> at 0x"),
        "{text}"
    );
    assert!(text.contains("  Write by thread 'beta' at tests/core_races.rs:"), "{text}");
    assert!(text.contains("  Previous write by thread 'alpha' at tests/core_races.rs:"), "{text}");
    assert!(text.contains("  Thread 'beta' spawned at:\n    #0 core_races::named"), "{text}");
    assert!(text.contains("  Thread 'alpha' spawned at:"), "{text}");
    assert!(text.contains("core_races::report_text_names_kind_sites_threads_and_spawn_sites"), "{text}");
}

#[test]
fn no_race_spawn_before_and_join_after() {
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        cell.with_mut(|p| unsafe { *p = 1 }); // before the spawn
        let c = cell.clone();
        let h = thread::spawn(move || c.with_mut(|p| unsafe { *p += 1 }));
        h.join().unwrap();
        assert_eq!(cell.with(|p| unsafe { *p }), 2); // after the join
    });
    assert!(report.is_empty(), "{report}");
}

#[test]
fn no_race_mutex_protected() {
    let report = racer::check(|| {
        let lock = Arc::new(Mutex::new(()));
        let cell = Arc::new(Shared::new(0u64));
        let handles: Vec<_> = (0..4)
            .map(|_| {
                let (lock, cell) = (lock.clone(), cell.clone());
                thread::spawn(move || {
                    for _ in 0..100 {
                        let _g = lock.lock().unwrap();
                        cell.with_mut(|p| unsafe { *p += 1 });
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(cell.with(|p| unsafe { *p }), 400);
    });
    assert!(report.is_empty(), "{report}");
}

/// A thread that takes a lock back with nobody in between stays in one segment; an unlocked
/// access by another thread still races with what it did under the lock, both times.
#[test]
fn an_unlocked_access_races_with_a_lock_retaken_by_one_thread() {
    let mut lines = (0, 0);
    let report = racer::check(|| {
        let lock = Arc::new(Mutex::new(()));
        let cell = Arc::new(Shared::new(0u64));
        let (l, c1, c2) = (lock.clone(), cell.clone(), cell.clone());
        lines = one_then_other(
            "locker",
            move || {
                let line = line!() + 3;
                for _ in 0..3 {
                    let _g = l.lock().unwrap();
                    c1.with_mut(|p| unsafe { *p += 1 });
                }
                line
            },
            "unlocked",
            move || {
                c2.with(|p| unsafe { *p });
                line!() - 1
            },
        );
    });
    assert_one_flow_race(&report, ("locker", lines.0), ("unlocked", lines.1));
}

/// A release between an unlock and the relock (here an atomic store) publishes the segment
/// after the unlock: the relock must not take the thread back to the segment it posted at
/// the unlock, or a thread that acquired the release would seem ordered after the write that
/// follows the relock.
#[test]
fn a_release_between_unlock_and_relock_ends_the_locked_segment() {
    use racer::sync::atomic::{AtomicBool, Ordering};
    let mut lines = (0, 0);
    let report = racer::check(|| {
        let lock = Arc::new(Mutex::new(()));
        let cell = Arc::new(Shared::new(0u64));
        let flag = Arc::new(AtomicBool::new(false));
        let (l, c1, c2, f1, f2) = (lock.clone(), cell.clone(), cell.clone(), flag.clone(), flag.clone());
        lines = one_then_other(
            "writer",
            move || {
                drop(l.lock().unwrap());
                f1.store(true, Ordering::Release);
                let _g = l.lock().unwrap();
                c1.with_mut(|p| unsafe { *p = 1 });
                line!() - 1
            },
            "reader",
            move || {
                assert!(f2.load(Ordering::Acquire));
                c2.with(|p| unsafe { *p });
                line!() - 1
            },
        );
    });
    assert_one_flow_race(&report, ("writer", lines.0), ("reader", lines.1));
}

/// Retaking a lock that another thread took in between joins that thread's post: what it did
/// under the lock is ordered before, and an access after the unlock is not.
#[test]
fn a_lock_taken_by_another_in_between_orders_only_what_it_covered() {
    let mut lines = (0, 0);
    let report = racer::check(|| {
        let lock = Arc::new(Mutex::new(()));
        let (guarded, loose) = (Arc::new(Shared::new(0u64)), Arc::new(Shared::new(0u64)));
        let (l1, l2) = (lock.clone(), lock.clone());
        let (g1, g2, o1, o2) = (guarded.clone(), guarded.clone(), loose.clone(), loose.clone());
        let (first_done, first_wait) = std_mpsc::channel::<()>();
        let (second_done, second_wait) = std_mpsc::channel::<()>();
        let (third_done, third_wait) = std_mpsc::channel::<()>();
        let a = named("a", move || {
            {
                let _g = l1.lock().unwrap();
                g1.with_mut(|p| unsafe { *p += 1 });
            }
            first_done.send(()).unwrap();
            second_wait.recv().unwrap();
            o1.with_mut(|p| unsafe { *p = 1 }); // after the unlock: not covered by it
            let line = line!() - 1;
            third_done.send(()).unwrap();
            let _g = l1.lock().unwrap();
            g1.with_mut(|p| unsafe { *p += 1 });
            line
        });
        let b = named("b", move || {
            first_wait.recv().unwrap();
            {
                let _g = l2.lock().unwrap();
                g2.with_mut(|p| unsafe { *p += 1 });
            }
            second_done.send(()).unwrap();
            // `a` wrote `loose` after the unlock this thread's lock followed, in time only.
            third_wait.recv().unwrap();
            o2.with(|p| unsafe { *p });
            line!() - 1
        });
        lines = (a.join().unwrap(), b.join().unwrap());
    });
    assert_one_flow_race(&report, ("a", lines.0), ("b", lines.1));
}

#[test]
fn missing_lock_on_one_path_is_found() {
    let mut line = 0;
    let report = racer::check(|| {
        let lock = Arc::new(Mutex::new(()));
        let cell = Arc::new(Shared::new(0u64));
        let (l, c) = (lock.clone(), cell.clone());
        let (done, wait) = std_mpsc::channel();
        let locked = named("locked", move || {
            let _g = l.lock().unwrap();
            c.with_mut(|p| unsafe { *p += 1 });
            done.send(()).unwrap();
        });
        let c = cell.clone();
        let unlocked = named("unlocked", move || {
            wait.recv().unwrap();
            c.with_mut(|p| unsafe { *p += 1 }); // forgot the lock
            line!()
        });
        locked.join().unwrap();
        line = unlocked.join().unwrap();
    });
    let race = only_race(&report);
    assert_eq!(race.kind(), RaceKind::Output);
    assert_eq!(race.current().location().line(), line - 1);
    assert_eq!(race.current().thread_name(), Some("unlocked"));
    assert_eq!(race.previous().thread_name(), Some("locked"));
    let sync = race.previous().after_sync().unwrap();
    assert!(sync.starts_with("locking Mutex (created at tests/core_races.rs:"), "{sync}");
}

#[test]
fn no_race_condvar_hand_off() {
    let report = racer::check(|| {
        let pair = Arc::new((Mutex::new(false), Condvar::new()));
        let data = Arc::new(Shared::new(Vec::<u32>::new()));
        let (p, d) = (pair.clone(), data.clone());
        let producer = thread::spawn(move || {
            d.with_mut(|v| unsafe { (*v).push(7) }); // outside the lock, before the hand-off
            let (lock, cv) = &*p;
            *lock.lock().unwrap() = true;
            cv.notify_one();
        });
        let (lock, cv) = &*pair;
        let ready = cv.wait_while(lock.lock().unwrap(), |ready| !*ready).unwrap();
        drop(ready);
        assert_eq!(data.with(|v| unsafe { (*v).clone() }), vec![7]);
        producer.join().unwrap();
    });
    assert!(report.is_empty(), "{report}");
}

#[test]
fn no_race_scoped_threads() {
    let report = racer::check(|| {
        let a = Shared::new(1u64);
        let b = Shared::new(2u64);
        a.with_mut(|p| unsafe { *p = 10 });
        thread::scope(|s| {
            s.spawn(|| a.with_mut(|p| unsafe { *p += 1 }));
            let h = s.spawn(|| b.with_mut(|p| unsafe { *p += 1 }));
            h.join().unwrap();
            b.with(|p| unsafe { *p }); // after joining b's writer
        });
        // The scope's end waits for the unjoined thread too.
        assert_eq!(a.with(|p| unsafe { *p }) + b.with(|p| unsafe { *p }), 14);
    });
    assert!(report.is_empty(), "{report}");
}

#[test]
fn scoped_threads_race_with_each_other() {
    let report = racer::check(|| {
        let cell = &Shared::new(0u64);
        let (done, wait) = std_mpsc::channel::<()>();
        thread::scope(|s| {
            s.spawn(move || {
                cell.with_mut(|p| unsafe { *p = 1 });
                done.send(()).unwrap();
            });
            s.spawn(move || {
                wait.recv().unwrap();
                cell.with(|p| unsafe { *p })
            });
        });
    });
    assert_eq!(only_race(&report).kind(), RaceKind::Flow);
}

/// The paper's case: two parallel reads, then a write ordered after the second read only.
/// Keeping just the last read (Algorithm 3) misses it; Algorithm 4 keeps both reads.
#[test]
fn read_read_write_reports_the_unordered_reader() {
    let mut unordered_line = 0;
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let hand_over = Arc::new(Mutex::new(()));
        let (first_read, go) = std_mpsc::channel::<()>();
        let c = cell.clone();
        let r1 = named("reader-1", move || {
            c.with(|p| unsafe { *p });
            first_read.send(()).unwrap();
            line!() - 2
        });
        let (c, m) = (cell.clone(), hand_over.clone());
        let r2 = named("reader-2", move || {
            go.recv().unwrap();
            let _g = m.lock().unwrap();
            c.with(|p| unsafe { *p });
        });
        r2.join().unwrap();
        // The writer is ordered after reader-2 (join, then spawn), but not after reader-1.
        let c = cell.clone();
        named("writer", move || c.with_mut(|p| unsafe { *p = 1 })).join().unwrap();
        unordered_line = r1.join().unwrap();
    });
    let race = only_race(&report);
    assert_eq!(race.kind(), RaceKind::Anti);
    assert_eq!(race.previous().thread_name(), Some("reader-1"));
    assert_eq!(race.previous().location().line(), unordered_line);
    assert_eq!(race.current().thread_name(), Some("writer"));
}

#[test]
fn moved_cell_keeps_its_state() {
    let report = racer::check(|| {
        let (send, recv) = std_mpsc::channel::<Box<Shared<u64>>>();
        let reader = named("reader", move || {
            let cell = recv.recv().unwrap();
            cell.with(|p| unsafe { *p });
            cell // dropped by the main thread after the join: ordered
        });
        let cell = Shared::new(0u64);
        cell.with_mut(|p| unsafe { *p = 9 }); // after the spawn: unordered with the reader
        let before = &cell as *const _ as usize;
        let moved = Box::new(cell);
        assert_ne!(before, &*moved as *const _ as usize, "the cell really moved");
        send.send(moved).unwrap(); // std's channel: invisible to racer
        assert_eq!(reader.join().unwrap().with(|p| unsafe { *p }), 9);
    });
    let race = only_race(&report);
    assert_eq!(race.kind(), RaceKind::Flow);
    assert_eq!(race.current().thread_name(), Some("reader"));
}

#[test]
fn new_cell_at_a_reused_address_starts_fresh() {
    struct Slot(*mut Shared<u64>);
    unsafe impl Send for Slot {}
    let report = racer::check(|| {
        let storage: Box<std::mem::MaybeUninit<Shared<u64>>> = Box::new(std::mem::MaybeUninit::uninit());
        let addr = Box::into_raw(storage) as *mut Shared<u64>;
        let slot = Slot(addr);
        let (done, wait) = std_mpsc::channel::<()>();
        let old = named("old-owner", move || {
            let slot = slot;
            unsafe {
                slot.0.write(Shared::new(1));
                (*slot.0).with_mut(|p| *p = 2);
                std::ptr::drop_in_place(slot.0); // a write, then the cell is gone
            }
            done.send(()).unwrap();
        });
        wait.recv().unwrap(); // std's channel: the new owner is unordered with the old one
        unsafe {
            addr.write(Shared::new(3));
            (*addr).with_mut(|p| *p = 4);
            assert_eq!((*addr).with(|p| *p), 4);
            std::ptr::drop_in_place(addr);
            drop(Box::from_raw(addr as *mut std::mem::MaybeUninit<Shared<u64>>));
        }
        old.join().unwrap();
    });
    assert!(report.is_empty(), "{report}");
}

#[test]
fn the_same_pair_of_sites_is_reported_once() {
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let unrelated = Arc::new(Mutex::new(()));
        let (c1, c2) = (cell.clone(), cell.clone());
        one_then_other(
            "writer",
            move || {
                c1.with_mut(|p| unsafe { *p = 1 });
                line!() - 1
            },
            "reader",
            move || {
                for _ in 0..100 {
                    drop(unrelated.lock().unwrap()); // a new segment each time round
                    c2.with(|p| unsafe { *p });
                }
                line!()
            },
        );
    });
    assert_eq!(report.len(), 1, "{report}");
}

fn racy_pair() -> u32 {
    let cell = Arc::new(Shared::new(0u64));
    let (c1, c2) = (cell.clone(), cell.clone());
    one_then_other(
        "w",
        move || {
            c1.with_mut(|p| unsafe { *p = 1 });
            line!() - 1
        },
        "r",
        move || {
            c2.with(|p| unsafe { *p });
            line!() - 1
        },
    )
    .0
}

fn racy_other_pair() -> u32 {
    let cell = Arc::new(Shared::new(0u8));
    let (c1, c2) = (cell.clone(), cell.clone());
    one_then_other(
        "w",
        move || {
            c1.with_mut(|p| unsafe { *p = 1 });
            line!() - 1
        },
        "w2",
        move || {
            c2.with_mut(|p| unsafe { *p = 2 });
            line!() - 1
        },
    )
    .0
}

#[test]
fn parallel_checks_see_only_their_own_races() {
    let a = std::thread::spawn(|| {
        let mut line = 0;
        let r = racer::check(|| {
            for _ in 0..20 {
                line = racy_pair();
            }
        });
        (r, line)
    });
    let b = std::thread::spawn(|| {
        let mut line = 0;
        let r = racer::check(|| {
            for _ in 0..20 {
                line = racy_other_pair();
            }
        });
        (r, line)
    });
    let ((ra, la), (rb, lb)) = (a.join().unwrap(), b.join().unwrap());
    assert_eq!(only_race(&ra).kind(), RaceKind::Flow);
    assert_eq!(only_race(&ra).previous().location().line(), la);
    assert_eq!(only_race(&rb).kind(), RaceKind::Output);
    assert_eq!(only_race(&rb).previous().location().line(), lb);
}

#[test]
fn panics_behave_as_with_std_and_leave_the_detector_usable() {
    let report = racer::check(|| {
        // A panic inside an access closure unwinds out as usual.
        let cell = Shared::new(0u64);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            cell.with_mut(|_| panic!("in closure"));
        }));
        assert!(caught.is_err());
        // A panicking thread: join returns Err.
        let h = thread::spawn(|| panic!("in thread"));
        assert!(h.join().is_err());
        // A panic while holding a racer Mutex poisons it, as std's does.
        let lock = Arc::new(Mutex::new(0u64));
        let l = lock.clone();
        assert!(thread::spawn(move || {
            let _g = l.lock().unwrap();
            panic!("holding the lock");
        })
        .join()
        .is_err());
        assert!(lock.is_poisoned());
        let guard = lock.lock().unwrap_err().into_inner();
        assert_eq!(*guard, 0);
        drop(guard);
        cell.with_mut(|p| unsafe { *p = 1 });
    });
    assert!(report.is_empty(), "{report}");
    // Still detecting afterwards.
    let report = racer::check(|| {
        racy_pair();
    });
    assert_eq!(report.len(), 1);
}

#[test]
fn check_propagates_a_panic_of_its_closure() {
    let result = std::panic::catch_unwind(|| racer::check(|| panic!("inside check")));
    let payload = result.unwrap_err();
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"inside check"));
}

/// A thread racer did not start is named as such in the report (text and JSON), with the fix;
/// a thread racer spawned is not.
#[test]
fn a_thread_racer_did_not_start_is_named_as_such() {
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let c = cell.clone();
        std::thread::Builder::new()
            .name("std-worker".into())
            .spawn(move || unsafe { c.set(1) })
            .unwrap()
            .join()
            .unwrap();
        let c = cell.clone();
        named("racer-worker", move || unsafe { c.get() }).join().unwrap();
    });
    let race = only_race(&report);
    assert_eq!(race.kind(), RaceKind::Flow);
    assert_eq!(race.previous().thread_name(), Some("std-worker"));
    assert!(race.previous().is_foreign_thread() && race.previous().spawned_at().is_none());
    assert_eq!(race.current().thread_name(), Some("racer-worker"));
    assert!(!race.current().is_foreign_thread() && race.current().spawned_at().is_some());
    let text = report.to_string();
    assert!(
        text.contains("Thread 'std-worker' was not started by racer") && text.contains("racer::thread::spawn"),
        "{text}"
    );
    assert!(!text.contains("'racer-worker' was not started"), "{text}");
    let json = report.to_json();
    assert!(json.contains("\"foreign_thread\":true") && json.contains("\"foreign_thread\":false"), "{json}");
}

/// std's scope joins every scoped thread before it resumes a panic, whether a scoped thread
/// panicked or the body did: the scope's end orders their accesses on that path too.
#[test]
fn a_panicking_scope_still_orders_its_threads_before_its_end() {
    for body_panics in [false, true] {
        let report = racer::check(|| {
            let cell = Shared::new(0u64);
            let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                thread::scope(|s| {
                    s.spawn(|| {
                        unsafe { cell.set(1) };
                        if !body_panics {
                            panic!("a scoped thread panics (expected by the test)");
                        }
                    });
                    if body_panics {
                        panic!("the scope's body panics (expected by the test)");
                    }
                });
            }));
            assert!(unwound.is_err());
            assert_eq!(unsafe { cell.get() }, 1);
            unsafe { cell.set(2) };
        });
        assert!(report.is_empty(), "body_panics = {body_panics}: {report}");
    }
}
