//! The fixture's loom tests, run by `cargo racer test --loom` in tests/loom_suites.rs.
#![cfg(loom)]

use loom::sync::Arc;
use loom::thread;
use racer_loom_fixture::Slot;
use std::sync::atomic::Ordering;

fn handoff(publish: Ordering, observe: Ordering) {
    loom::model(move || {
        let slot = Arc::new(Slot::new());
        let writer = {
            let slot = slot.clone();
            thread::spawn(move || slot.put(42, publish))
        };
        let v = loop {
            match slot.take(observe) {
                Some(v) => break v,
                None => thread::yield_now(),
            }
        };
        assert_eq!(v, 42);
        writer.join().unwrap();
    });
}

#[test]
fn release_acquire_handoff() {
    handoff(Ordering::Release, Ordering::Acquire);
}

#[test]
fn relaxed_handoff() {
    handoff(Ordering::Relaxed, Ordering::Relaxed);
}
