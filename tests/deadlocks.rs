//! Deadlock detection through the facade: lock-order inversions reported though the run did not
//! hang (two and three locks, RwLock modes), none for a consistent order or read/read links, a
//! re-lock reported at once, a condvar wait that lets its lock go, locks dropped and their edges
//! forgotten, and real deadlocks (a wait-for cycle, every thread blocked) reported and ending the
//! check instead of hanging it.
//!
//! Where a test needs one thread to run before another, it hands over with `std::sync` or joins
//! the first thread before spawning the second, so the inversions are found without ever
//! hanging and the reports are the same on every run. (Suppressions and `detect_deadlocks` are
//! process-wide settings: they are tested on a child process in `tests/cli_process.rs`.)
#![cfg(feature = "race-detect")]

use racer::sync::{mpsc, Arc, Condvar, Mutex, RwLock};
use racer::{thread, Deadlock, DeadlockKind, LockEdge, LockMode, Report};

fn named<T: Send + 'static>(name: &str, f: impl FnOnce() -> T + Send + 'static) -> thread::JoinHandle<T> {
    thread::Builder::new().name(name.into()).spawn(f).unwrap()
}

fn only_deadlock(report: &Report) -> &Deadlock {
    assert!(report.races().is_empty(), "no race expected:\n{report}");
    assert_eq!(report.deadlocks().len(), 1, "expected exactly one deadlock, got:\n{report}");
    &report.deadlocks()[0]
}

fn edge_of<'a>(d: &'a Deadlock, thread: &str) -> &'a LockEdge {
    d.edges()
        .iter()
        .find(|e| e.thread_name() == Some(thread))
        .unwrap_or_else(|| panic!("no edge of thread '{thread}':\n{d}"))
}

/// Takes `first`, then `second`, and returns the lines of the two `lock` calls.
fn lock_both(first: &Mutex<u32>, second: &Mutex<u32>) -> (u32, u32) {
    let _one = first.lock().unwrap();
    let held = line!() - 1;
    let _two = second.lock().unwrap();
    let next = line!() - 1;
    (held, next)
}

/// Asserts the edge: `next` taken at line `next` while holding the lock taken at line `held`,
/// both in this file, with the stack of the second acquisition starting in `lock_both` and
/// the first acquisition's stack starting at its own line.
fn assert_edge(e: &LockEdge, (held, next): (u32, u32)) {
    assert_eq!(e.held().location().file(), file!());
    assert_eq!(e.held().location().line(), held);
    assert_eq!(e.next().location().line(), next);
    let frames = e.next().frames();
    assert!(frames[0].function.ends_with("lock_both"), "{}", e.next().backtrace());
    assert_eq!(frames[0].line, Some(next));
    let held_frames = e.held().frames();
    assert!(held_frames[0].function.ends_with("lock_both"), "{}", e.held().backtrace());
    assert_eq!(held_frames[0].line, Some(held));
    assert!(!e.next().backtrace().contains("racer_core"), "racer's own frames are left out");
}

#[test]
fn a_two_lock_inversion_across_two_threads_is_reported_though_it_did_not_hang() {
    let (a_line, b_line) = (line!() + 3, line!() + 4);
    let mut lines = ((0, 0), (0, 0));
    let report = racer::check(|| {
        let a = Arc::new(Mutex::new(0u32));
        let b = Arc::new(Mutex::new(0u32));
        let (a1, b1, a2, b2) = (a.clone(), b.clone(), a.clone(), b.clone());
        lines.0 = named("first", move || lock_both(&a1, &b1)).join().unwrap();
        lines.1 = named("second", move || lock_both(&b2, &a2)).join().unwrap();
    });
    let d = only_deadlock(&report);
    assert_eq!(d.kind(), DeadlockKind::LockOrderInversion);
    assert_eq!(d.edges().len(), 2, "{d}");
    assert!(d.threads().is_empty());
    let (first, second) = (edge_of(d, "first"), edge_of(d, "second"));
    assert_edge(first, lines.0);
    assert_edge(second, lines.1);
    // first: a then b; second: b then a.
    assert_eq!(first.held().lock_id(), second.next().lock_id());
    assert_eq!(first.next().lock_id(), second.held().lock_id());
    assert_ne!(first.held().lock_id(), first.next().lock_id());
    assert_eq!(first.held().created().line(), a_line);
    assert_eq!(first.next().created().line(), b_line);
    assert_eq!(second.held().created().line(), b_line);
    for e in d.edges() {
        assert_eq!(e.held().object(), "Mutex");
        assert_eq!(e.held().mode(), LockMode::Exclusive);
    }
    let text = report.to_string();
    assert!(text.contains("WARNING: racer: lock-order inversion (potential deadlock): a cycle of 2 locks"), "{text}");
    assert!(
        text.contains(&format!(
            "thread 'first' took Mutex #{} (created at {}:{b_line}:",
            first.next().lock_id(),
            file!()
        )),
        "{text}"
    );
    assert!(text.ends_with("racer: 0 data race(s) and 1 deadlock(s) found\n"), "{text}");
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["races"].as_array().unwrap().len(), 0);
    assert_eq!(json["deadlocks"][0]["kind"], "lock_order_inversion");
    assert_eq!(json["deadlocks"][0]["edges"].as_array().unwrap().len(), 2);
    assert!(!report.is_empty());
    assert_eq!(report.len(), 1);
}

#[test]
fn a_three_lock_cycle_is_reported_in_cycle_order() {
    let report = racer::check(|| {
        let locks = Arc::new([Mutex::new(0u32), Mutex::new(0u32), Mutex::new(0u32)]);
        for (name, i, j) in [("t1", 0, 1), ("t2", 1, 2), ("t3", 2, 0)] {
            let locks = locks.clone();
            named(name, move || lock_both(&locks[i], &locks[j])).join().unwrap();
        }
    });
    let d = only_deadlock(&report);
    assert_eq!(d.kind(), DeadlockKind::LockOrderInversion);
    let edges = d.edges();
    assert_eq!(edges.len(), 3, "{d}");
    for (k, e) in edges.iter().enumerate() {
        let following = &edges[(k + 1) % edges.len()];
        assert_eq!(
            e.next().lock_id(),
            following.held().lock_id(),
            "each edge's next lock is the next edge's held one:\n{d}"
        );
    }
    let mut names: Vec<&str> = edges.iter().map(|e| e.thread_name().unwrap()).collect();
    names.sort();
    assert_eq!(names, ["t1", "t2", "t3"]);
    assert!(report.to_string().contains("a cycle of 3 locks"));
}

#[test]
fn locks_always_taken_in_one_order_give_no_report() {
    let report = racer::check(|| {
        let locks = Arc::new([Mutex::new(0u32), Mutex::new(0u32), Mutex::new(0u32)]);
        let mut handles = Vec::new();
        for name in ["a", "b", "c", "d"] {
            let locks = locks.clone();
            handles.push(named(name, move || {
                for _ in 0..100 {
                    lock_both(&locks[0], &locks[1]);
                    let _x = locks[0].lock().unwrap();
                    let _y = locks[1].lock().unwrap();
                    let _z = locks[2].lock().unwrap();
                }
            }));
        }
        for h in handles {
            h.join().unwrap();
        }
    });
    assert!(report.is_empty(), "{report}");
}

#[test]
fn an_rwlock_read_read_pair_gives_no_report() {
    let report = racer::check(|| {
        let locks = Arc::new((RwLock::new(0u32), RwLock::new(0u32)));
        let (l1, l2) = (locks.clone(), locks.clone());
        named("r1", move || {
            let _a = l1.0.read().unwrap();
            let _b = l1.1.read().unwrap();
        })
        .join()
        .unwrap();
        named("r2", move || {
            let _b = l2.1.read().unwrap();
            let _a = l2.0.read().unwrap();
        })
        .join()
        .unwrap();
    });
    assert!(report.is_empty(), "readers cannot block each other:\n{report}");
}

#[test]
fn an_rwlock_read_write_inversion_is_reported() {
    let mut lines = (0, 0, 0, 0);
    let report = racer::check(|| {
        let locks = Arc::new((RwLock::new(0u32), RwLock::new(0u32)));
        let (l1, l2) = (locks.clone(), locks.clone());
        let (r, w) = named("reader", move || {
            let _a = l1.0.read().unwrap();
            let r = line!() - 1;
            let _b = l1.1.write().unwrap();
            let w = line!() - 1;
            (r, w)
        })
        .join()
        .unwrap();
        let (w1, w2) = named("writer", move || {
            let _b = l2.1.write().unwrap();
            let w1 = line!() - 1;
            let _a = l2.0.write().unwrap();
            let w2 = line!() - 1;
            (w1, w2)
        })
        .join()
        .unwrap();
        lines = (r, w, w1, w2);
    });
    let d = only_deadlock(&report);
    assert_eq!(d.kind(), DeadlockKind::LockOrderInversion);
    let (reader, writer) = (edge_of(d, "reader"), edge_of(d, "writer"));
    assert_eq!((reader.held().mode(), reader.next().mode()), (LockMode::Shared, LockMode::Exclusive));
    assert_eq!((writer.held().mode(), writer.next().mode()), (LockMode::Exclusive, LockMode::Exclusive));
    assert_eq!(reader.held().object(), "RwLock");
    assert_eq!((reader.held().location().line(), reader.next().location().line()), (lines.0, lines.1));
    assert_eq!((writer.held().location().line(), writer.next().location().line()), (lines.2, lines.3));
    assert!(report.to_string().contains("RwLock #"), "{report}");
}

#[test]
fn locking_a_mutex_the_thread_holds_is_reported_at_once_and_ends_the_check() {
    let mut lines = (0, 0);
    let report = racer::check(|| {
        let m = Mutex::new(0u32);
        let _g = m.lock().unwrap();
        lines.0 = line!() - 1;
        lines.1 = line!() + 1;
        let _again = m.lock();
        unreachable!("the second lock would never return");
    });
    let d = only_deadlock(&report);
    assert_eq!(d.kind(), DeadlockKind::Relock);
    assert_eq!(d.edges().len(), 1);
    let e = &d.edges()[0];
    assert_eq!(e.held().lock_id(), e.next().lock_id());
    assert_eq!(e.held().location().line(), lines.0);
    assert_eq!(e.next().location().line(), lines.1);
    assert_eq!(e.thread_name(), std::thread::current().name());
    let text = report.to_string();
    assert!(text.contains(&format!("locks Mutex #{} (created at", e.next().lock_id())), "{text}");
    assert!(text.contains("again at") && text.contains("while holding it"), "{text}");
}

#[test]
fn a_condvar_wait_lets_its_lock_go_and_takes_it_back_once() {
    let report = racer::check(|| {
        let shared = Arc::new((Mutex::new(false), Mutex::new(0u32), Condvar::new()));
        let other = shared.clone();
        let waiter = named("waiter", move || {
            let (ready, b, cv) = &*shared;
            let g = cv.wait_while(ready.lock().unwrap(), |ready| !*ready).unwrap();
            drop(g);
            // If the wait had left `ready` on this thread's held list (or put it there twice),
            // this would add ready -> b, then b -> ready: a cycle, or a re-lock.
            let _b = b.lock().unwrap();
            let _r = ready.lock().unwrap();
        });
        let (ready, _, cv) = &*other;
        *ready.lock().unwrap() = true;
        cv.notify_all();
        waiter.join().unwrap();
    });
    assert!(report.is_empty(), "{report}");
}

#[test]
fn dropped_locks_are_forgotten() {
    let report = racer::check(|| {
        for round in 0..50 {
            // Boxed, so that the allocator hands the same addresses out again.
            let a = Box::new(Mutex::new(0u32));
            let b = Box::new(Mutex::new(0u32));
            if round % 2 == 0 {
                lock_both(&a, &b);
            } else {
                lock_both(&b, &a);
            }
        }
    });
    assert!(report.is_empty(), "{report}");
}

#[test]
fn a_real_deadlock_is_reported_and_ends_the_check_instead_of_hanging() {
    let report = racer::check(|| {
        let locks = Arc::new((Mutex::new(0u32), Mutex::new(0u32)));
        // std's barrier: both hold their first lock before either takes its second.
        let both = std::sync::Arc::new(std::sync::Barrier::new(2));
        let spawn = |name: &str, first_is_a: bool| {
            let (locks, both) = (locks.clone(), both.clone());
            named(name, move || {
                let (first, second) = if first_is_a { (&locks.0, &locks.1) } else { (&locks.1, &locks.0) };
                let _one = first.lock().unwrap();
                both.wait();
                let _two = second.lock().unwrap();
            })
        };
        let x = spawn("x", true);
        let y = spawn("y", false);
        x.join().unwrap();
        y.join().unwrap();
        unreachable!("x and y never end");
    });
    assert!(report.races().is_empty(), "{report}");
    let hang = report.deadlocks().iter().find(|d| d.kind() == DeadlockKind::Hang).unwrap_or_else(|| panic!("{report}"));
    let cycle: Vec<_> = hang.threads().iter().filter(|t| t.in_cycle()).collect();
    assert_eq!(cycle.len(), 2, "{hang}");
    for (me, other) in [("x", "y"), ("y", "x")] {
        let t = cycle.iter().find(|t| t.thread_name() == Some(me)).unwrap_or_else(|| panic!("{hang}"));
        assert!(t.waiting_for().starts_with("to lock Mutex #"), "{}", t.waiting_for());
        assert!(t.waiting_for().ends_with(&format!("held by thread '{other}'")), "{}", t.waiting_for());
        assert_eq!(t.holds().len(), 1);
        assert_eq!(t.location().file(), file!());
        assert!(!t.frames().is_empty());
    }
    // The lock each waits for is the one the other holds.
    let (x, y) = (
        cycle.iter().find(|t| t.thread_name() == Some("x")).unwrap(),
        cycle.iter().find(|t| t.thread_name() == Some("y")).unwrap(),
    );
    assert_ne!(x.holds()[0].lock_id(), y.holds()[0].lock_id());
    // The inversion that led there was reported too, before the threads blocked.
    assert!(report.deadlocks().iter().any(|d| d.kind() == DeadlockKind::LockOrderInversion), "{report}");
    let text = report.to_string();
    assert!(text.contains("WARNING: racer: deadlock: 2 threads wait for each other's locks in a cycle"), "{text}");
}

#[test]
fn every_thread_of_a_check_blocked_is_a_hang_and_ends_the_check() {
    let report = racer::check(|| {
        let (tx, rx) = mpsc::channel::<u32>();
        let pair = Arc::new((Mutex::new(false), Condvar::new()));
        let _waiter = named("waiter", move || {
            let (flag, cv) = &*pair;
            // Nobody ever sets the flag: waits forever, and so holds `tx` forever.
            let _g = cv.wait_while(flag.lock().unwrap(), |set| !*set).unwrap();
            tx.send(1).unwrap();
        });
        rx.recv().unwrap();
        unreachable!("nothing is ever sent");
    });
    let d = only_deadlock(&report);
    assert_eq!(d.kind(), DeadlockKind::Hang);
    assert!(d.threads().iter().all(|t| !t.in_cycle()));
    let waiter = d.threads().iter().find(|t| t.thread_name() == Some("waiter")).unwrap_or_else(|| panic!("{d}"));
    assert_eq!(waiter.waiting_for(), "on a Condvar (wait without timeout)");
    let me =
        d.threads().iter().find(|t| t.thread_name() == std::thread::current().name()).unwrap_or_else(|| panic!("{d}"));
    assert!(me.waiting_for().starts_with("to receive from a channel (created at"), "{}", me.waiting_for());
    assert!(d.to_string().contains("every thread of this racer::check is blocked"), "{d}");
}

/// A join of a thread that does not end is published like any other wait once it has looked at
/// the thread's end for a moment: the joiner and the thread it joins, blocked for good, are a
/// hang, and the join unwinds when the check ends.
#[test]
fn a_join_of_a_thread_that_never_ends_is_part_of_a_hang() {
    let report = racer::check(|| {
        let pair = Arc::new((Mutex::new(false), Condvar::new()));
        let stuck = named("stuck", move || {
            let (flag, cv) = &*pair;
            // Nobody ever sets the flag.
            let _g = cv.wait_while(flag.lock().unwrap(), |set| !*set).unwrap();
        });
        stuck.join().unwrap();
        unreachable!("the joined thread never ends");
    });
    let d = only_deadlock(&report);
    assert_eq!(d.kind(), DeadlockKind::Hang);
    let me =
        d.threads().iter().find(|t| t.thread_name() == std::thread::current().name()).unwrap_or_else(|| panic!("{d}"));
    assert_eq!(me.waiting_for(), "to join thread 'stuck'", "{d}");
    let stuck = d.threads().iter().find(|t| t.thread_name() == Some("stuck")).unwrap_or_else(|| panic!("{d}"));
    assert_eq!(stuck.waiting_for(), "on a Condvar (wait without timeout)");
}

#[test]
fn writing_an_rwlock_the_thread_reads_is_a_relock() {
    let report = racer::check(|| {
        let l = RwLock::new(0u32);
        let _r = l.read().unwrap();
        let _w = l.write();
        unreachable!("the write would wait for this thread's own read");
    });
    let d = only_deadlock(&report);
    assert_eq!(d.kind(), DeadlockKind::Relock);
    let e = &d.edges()[0];
    assert_eq!((e.held().mode(), e.next().mode()), (LockMode::Shared, LockMode::Exclusive));
    assert_eq!(e.held().object(), "RwLock");
}

/// `#[racer::test]` fails a test whose check found a deadlock, printing the report.
#[racer::test]
#[should_panic(
    expected = "0 data race(s) and 1 deadlock(s) found in test `a_racer_test_fails_on_a_lock_order_inversion`"
)]
fn a_racer_test_fails_on_a_lock_order_inversion() {
    let a = Arc::new(Mutex::new(0u32));
    let b = Arc::new(Mutex::new(0u32));
    let (a1, b1) = (a.clone(), b.clone());
    named("first", move || lock_both(&a1, &b1)).join().unwrap();
    named("second", move || lock_both(&b, &a)).join().unwrap();
}
