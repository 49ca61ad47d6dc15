//! `racer::model`: controlled schedules find an ordering bug the OS rarely shows, name the seed,
//! replay it, and end every model: a spin wait, a thread blocked where racer cannot see, a
//! deadlock and a model that never ends each finish with their outcome, never a hang.
//!
//! Every model runs on a watched thread: a hang fails the test after `LIMIT` (a time limit of
//! the harness, not a timing assertion).

use std::time::Duration;

use racer::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use racer::sync::{Arc, Mutex};
use racer::Shared;

#[path = "model_support/mod.rs"]
mod model_support;
use model_support::{outcome, race_lines, replay_token};

/// A value published through a flag: the consumer reads the cell only once it saw the flag.
fn handoff(store: Ordering, load: Ordering) {
    let data = Arc::new(Shared::new(0u64));
    let flag = Arc::new(AtomicBool::new(false));
    let (d, f) = (data.clone(), flag.clone());
    let consumer = racer::thread::spawn(move || {
        if f.load(load) {
            d.with(|p| unsafe { *p });
        }
    });
    data.with_mut(|p| unsafe { *p = 42 });
    flag.store(true, store);
    consumer.join().unwrap();
}

#[test]
fn a_relaxed_handoff_is_found_named_by_seed_and_replayed() {
    let message = outcome(|| racer::model(|| handoff(Ordering::Relaxed, Ordering::Relaxed)));
    if !racer::ENABLED {
        assert_eq!(message, None, "the feature-off build runs the closure once");
        return;
    }
    let message = message.expect("the consumer reads the cell after a Relaxed flag in some schedule");
    assert!(message.contains("racer (model): 1 data race(s) found in iteration"), "{message}");
    assert!(message.contains("flow: write, then a parallel read"), "{message}");
    assert!(message.contains("tests/model.rs:"), "{message}");
    let token = replay_token(&message);
    for _ in 0..3 {
        let t = token.clone();
        let again = outcome(move || {
            racer::model::Builder::new().replay(&t).check(|| handoff(Ordering::Relaxed, Ordering::Relaxed))
        })
        .expect("the replay finds the race again");
        assert!(again.contains("found in iteration 1 "), "a replay is one iteration: {again}");
        assert_eq!(replay_token(&again), token);
        assert_eq!(race_lines(&again), race_lines(&message), "the same race");
        assert_eq!(race_lines(&again).len(), 3, "{again}");
    }
}

#[test]
fn a_release_acquire_handoff_passes_every_schedule() {
    assert_eq!(outcome(|| racer::model(|| handoff(Ordering::Release, Ordering::Acquire))), None);
}

#[test]
fn builder_runs_the_iterations_asked_for() {
    let runs = Arc::new(AtomicUsize::new(0));
    let r = runs.clone();
    let message = outcome(move || {
        racer::model::Builder::new()
            .iterations(25)
            .time(None)
            .strategy(racer::model::Strategy::Pct)
            .depth(2)
            .seed(7)
            .check(move || {
                r.fetch_add(1, Ordering::Relaxed);
            })
    });
    assert_eq!(message, None);
    assert_eq!(runs.load(Ordering::Relaxed), if racer::ENABLED { 25 } else { 1 });
}

#[test]
fn a_spin_wait_hands_the_turn_on() {
    // The waiter reloads the flag without any hint: a reload of an unchanged atomic is a spin.
    let message = outcome(|| {
        racer::model(|| {
            let flag = Arc::new(AtomicBool::new(false));
            let f = flag.clone();
            let waiter = racer::thread::spawn(move || while !f.load(Ordering::Acquire) {});
            flag.store(true, Ordering::Release);
            waiter.join().unwrap();
        })
    });
    assert_eq!(message, None);
}

#[test]
fn a_thread_blocked_in_a_std_mutex_does_not_stall_the_model() {
    let message = outcome(|| {
        racer::model::Builder::new().iterations(3).check(|| {
            let outside = Arc::new(std::sync::Mutex::new(()));
            let data = Arc::new(Shared::new(0u64));
            let held = outside.lock().unwrap();
            let (o, d) = (outside.clone(), data.clone());
            let child = racer::thread::spawn(move || {
                // Blocks where racer cannot see until the model's thread lets go.
                drop(o.lock().unwrap());
                d.with(|p| unsafe { *p });
            });
            // The turn goes to the child, which blocks in std's lock.
            racer::thread::yield_now();
            data.with_mut(|p| unsafe { *p = 1 });
            drop(held);
            child.join().unwrap();
        })
    });
    if !racer::ENABLED {
        assert_eq!(message, None);
        return;
    }
    // std's mutex orders the write before the read, but racer cannot see it: a race, reported
    // with the note that the child was outside racer's view.
    let message = message.expect("a race through a lock racer cannot see");
    assert!(message.contains("data race"), "{message}");
    assert!(message.contains("  note: thread 'T") && message.contains("' left racer's view"), "{message}");
}

#[test]
fn a_deadlock_ends_the_model_with_both_threads_named() {
    if !racer::ENABLED {
        return; // std would hang: without the scheduler there is nothing to run.
    }
    let message = outcome(|| {
        racer::model::Builder::new().iterations(1).check(|| {
            let lock = Arc::new(Mutex::new(()));
            let held = lock.lock().unwrap();
            let l = lock.clone();
            let child =
                racer::thread::Builder::new().name("locker".into()).spawn(move || drop(l.lock().unwrap())).unwrap();
            child.join().unwrap();
            drop(held);
        })
    });
    let message = message.expect("a deadlock");
    assert!(message.contains("racer (model): deadlock in iteration 1"), "{message}");
    assert!(message.contains("thread 'locker' (blocked), last at waiting for a lock (tests/model.rs:"), "{message}");
    assert!(message.contains("(blocked), last at joining a thread (tests/model.rs:"), "{message}");
    assert!(message.contains("RACER_REPLAY="), "{message}");
}

#[test]
fn a_model_that_never_ends_stops_naming_where_it_spins() {
    if !racer::ENABLED {
        return; // It would spin for ever.
    }
    let message = outcome(|| {
        racer::model::Builder::new().iterations(1).max_steps(20_000).check(|| {
            let never = AtomicBool::new(false);
            while !never.load(Ordering::Acquire) {
                racer::thread::yield_now();
            }
        })
    });
    let message = message.expect("a model that does not end");
    assert!(message.contains("did not end: it took more than 20000 steps; still running:"), "{message}");
    assert!(message.contains("(running), last at "), "{message}");
    assert!(message.contains("tests/model.rs:"), "{message}");
}

#[test]
fn an_unpark_before_the_park_is_kept_and_a_lone_timed_wait_times_out() {
    let message = outcome(|| {
        racer::model::Builder::new().iterations(50).check(|| {
            // The unpark may come first: std keeps it as a token, so the park returns.
            let main = racer::thread::current();
            let child = racer::thread::spawn(move || main.unpark());
            child.join().unwrap();
            racer::thread::park();
            // Nobody will send: the wait times out instead of ending the model as a deadlock.
            let (tx, rx) = racer::sync::mpsc::channel::<u8>();
            assert_eq!(rx.recv_timeout(Duration::from_millis(1)), Err(std::sync::mpsc::RecvTimeoutError::Timeout));
            drop(tx);
            let lock = Mutex::new(());
            let cv = racer::sync::Condvar::new();
            let (_g, r) = cv.wait_timeout(lock.lock().unwrap(), Duration::from_millis(1)).unwrap();
            // (std may wake a wait spuriously; a model's wait ends only when its time ran out)
            assert!(r.timed_out() || !racer::ENABLED);
        })
    });
    assert_eq!(message, None);
}

#[test]
fn threads_all_waiting_on_condvars_end_the_model_as_a_deadlock() {
    if !racer::ENABLED {
        return; // std would hang: nobody notifies.
    }
    let message = outcome(|| {
        // Long enough that only a deadlock, not the time budget, can end the first iteration.
        racer::model::Builder::new().iterations(1).time(Some(Duration::from_secs(60))).check(|| {
            let gate = Arc::new((Mutex::new(false), racer::sync::Condvar::new()));
            let g = gate.clone();
            let waiter = racer::thread::Builder::new()
                .name("waiter".into())
                .spawn(move || {
                    let mut open = g.0.lock().unwrap();
                    while !*open {
                        open = g.1.wait(open).unwrap();
                    }
                })
                .unwrap();
            // The other side waits too instead of opening the gate: nobody ever notifies.
            let mut open = gate.0.lock().unwrap();
            while !*open {
                open = gate.1.wait(open).unwrap();
            }
            drop(open);
            waiter.join().unwrap();
        })
    });
    let message = message.expect("a deadlock");
    assert!(message.contains("racer (model): deadlock in iteration 1"), "{message}");
    assert!(message.contains("thread 'waiter' (blocked), last at waiting on a Condvar (tests/model.rs:"), "{message}");
    assert!(message.matches("(blocked), last at waiting on a Condvar (tests/model.rs:").count() == 2, "{message}");
}

#[test]
fn a_condvar_handoff_in_a_model_wakes_the_waiter() {
    let message = outcome(|| {
        racer::model::Builder::new().iterations(200).check(|| {
            let gate = Arc::new((Mutex::new(false), racer::sync::Condvar::new()));
            let g = gate.clone();
            let opener = racer::thread::spawn(move || {
                *g.0.lock().unwrap() = true;
                g.1.notify_one();
            });
            let mut open = gate.0.lock().unwrap();
            while !*open {
                open = gate.1.wait(open).unwrap();
            }
            drop(open);
            opener.join().unwrap();
        })
    });
    assert_eq!(message, None);
}

/// A model thread's thread-local destructors run after its iteration is over, not at its join,
/// as loom's threads (all on one OS thread) never run them while a model does: loom suites count
/// on it (sdd's thread-local collector reclaims at a thread's exit what its model then checks).
/// Every earlier iteration's destructor has run before the next iteration starts. (Without
/// `race-detect` a model is plain runs on std's threads, whose joins run the destructors.)
#[cfg(feature = "race-detect")]
#[test]
fn a_model_threads_thread_local_destructors_run_after_its_iteration() {
    static ITERATIONS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    static DESTROYED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    struct Counted;
    impl Drop for Counted {
        fn drop(&mut self) {
            DESTROYED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }
    thread_local!(static LOCAL: Counted = const { Counted });
    let failed = outcome(|| {
        racer::model::Builder::new().iterations(20).check(|| {
            let before = ITERATIONS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            assert_eq!(
                DESTROYED.load(std::sync::atomic::Ordering::SeqCst),
                before,
                "an earlier destructor has not run"
            );
            let t = racer::thread::spawn(|| LOCAL.with(|_| ()));
            t.join().unwrap();
            assert_eq!(DESTROYED.load(std::sync::atomic::Ordering::SeqCst), before, "the join ran the destructor");
        })
    });
    assert_eq!(failed, None);
    // The search explores this model whole in fewer than 20 iterations (see model_complete.rs).
    let ran = ITERATIONS.load(std::sync::atomic::Ordering::SeqCst);
    assert!((2..=20).contains(&ran), "{ran} iterations");
    assert_eq!(DESTROYED.load(std::sync::atomic::Ordering::SeqCst), ran);
}
