//! `racer::sync::Condvar`: a notification reaches a waiter that has let go of its mutex, also
//! when it comes while one of the timed steps an untimed wait is made of (racer's, so that a
//! hung check can unwind it) has just run out and the waiter waits to take its mutex back.
//!
//! The shape is rusty_pool's `join` (issue 53's follow-up): a thread waits without a timeout
//! while its predicate is false; the last thread that can change it sets it and notifies under
//! the mutex, then ends. If racer's wait let that notification go (its step timed out, so it
//! took the wake-up for none and slept again), the waiter would wait for good with no thread
//! left to wake it: a hang racer reports, falsely, since with std's `Condvar` the program ends.

use std::time::Duration;

use racer::sync::{Arc, Condvar, Mutex};
use racer::thread;

/// The notifier's hold of the mutex: longer than a step of racer's untimed wait (50 ms), so the
/// waiter's step runs out while the mutex is held and the notification comes after that, before
/// the waiter has the mutex back (the window the wait must not lose a notification in).
const HOLD: Duration = Duration::from_millis(120);

/// A waiter whose step ran out while the notifier held the mutex returns to its predicate,
/// finds it true and goes on: 5 of 5 rounds, each its own check with nothing reported (a lost
/// notification ends a round with the hang report: the waiter on the condvar, the notifier gone).
#[test]
fn a_notification_made_as_a_wait_step_runs_out_is_not_lost() {
    for round in 0..5 {
        let report = racer::check(|| {
            // (the waiter is in its wait, the notifier is done)
            let state = Arc::new((Mutex::new((false, false)), Condvar::new()));
            let theirs = state.clone();
            let notifier = thread::Builder::new()
                .name("notifier".into())
                .spawn(move || {
                    let (lock, cv) = &*theirs;
                    // The waiter marks itself under the mutex and lets go of it only by waiting:
                    // once the mark is seen here, it is inside its wait.
                    let mut s = loop {
                        let s = lock.lock().unwrap();
                        if s.0 {
                            break s;
                        }
                        drop(s);
                        thread::yield_now();
                    };
                    std::thread::sleep(HOLD);
                    s.1 = true;
                    cv.notify_all();
                })
                .unwrap();
            let (lock, cv) = &*state;
            let mut s = lock.lock().unwrap();
            s.0 = true;
            let s = cv.wait_while(s, |s| !s.1).unwrap();
            assert!(s.1);
            drop(s);
            notifier.join().unwrap();
        });
        assert!(report.is_empty(), "round {round}: a notification was lost:\n{report}");
    }
}

/// The same with `notify_one`, and `wait` in the waiter's own loop (as std's documentation
/// writes it) instead of `wait_while`.
#[test]
fn a_notify_one_made_as_a_wait_step_runs_out_is_not_lost() {
    for round in 0..5 {
        let report = racer::check(|| {
            let state = Arc::new((Mutex::new((false, false)), Condvar::new()));
            let theirs = state.clone();
            let notifier = thread::spawn(move || {
                let (lock, cv) = &*theirs;
                let mut s = loop {
                    let s = lock.lock().unwrap();
                    if s.0 {
                        break s;
                    }
                    drop(s);
                    thread::yield_now();
                };
                std::thread::sleep(HOLD);
                s.1 = true;
                cv.notify_one();
            });
            let (lock, cv) = &*state;
            let mut s = lock.lock().unwrap();
            s.0 = true;
            while !s.1 {
                s = cv.wait(s).unwrap();
            }
            drop(s);
            notifier.join().unwrap();
        });
        assert!(report.is_empty(), "round {round}: a notification was lost:\n{report}");
    }
}
