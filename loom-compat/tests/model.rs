//! racer's loom stand-in: `model` fails on a race and passes ordered code; the loom-only
//! methods behave as loom's.

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

struct Handoff {
    ready: AtomicUsize,
    value: UnsafeCell<u64>,
}

fn handoff(publish: Ordering, observe: Ordering) {
    let h = Arc::new(Handoff { ready: AtomicUsize::new(0), value: UnsafeCell::new(0) });
    let writer = {
        let h = h.clone();
        thread::spawn(move || {
            h.value.with_mut(|v| unsafe { *v = 42 });
            h.ready.store(1, publish);
        })
    };
    while h.ready.load(observe) == 0 {
        thread::yield_now();
    }
    assert_eq!(h.value.with(|v| unsafe { *v }), 42);
    writer.join().unwrap();
}

#[test]
fn model_passes_a_release_acquire_handoff() {
    loom::model(|| handoff(Ordering::Release, Ordering::Acquire));
}

#[test]
fn model_fails_with_the_report_on_a_relaxed_handoff() {
    let outcome = std::panic::catch_unwind(|| loom::model(|| handoff(Ordering::Relaxed, Ordering::Relaxed)));
    if racer::ENABLED {
        let panic = outcome.expect_err("a relaxed handoff races");
        let message = panic.downcast_ref::<String>().expect("a formatted message");
        assert!(message.contains("racer (loom::model): 1 data race(s) found"), "{message}");
        assert!(message.contains("WARNING: racer: data race (flow: write, then a parallel read)"), "{message}");
        assert!(message.contains("loom-compat/tests/model.rs:"), "the report names this file's lines: {message}");
    } else {
        outcome.expect("nothing is checked without race-detect");
    }
}

#[test]
fn with_mut_and_unsync_load_reach_the_value() {
    let mut n = AtomicUsize::new(1);
    n.with_mut(|v| *v += 1);
    assert_eq!(unsafe { n.unsync_load() }, 2);
    assert_eq!(n.fetch_add(1, Ordering::AcqRel), 2);
    assert_eq!(n.into_inner(), 3);

    let mut x = 7u8;
    let mut p = AtomicPtr::new(std::ptr::null_mut());
    p.with_mut(|p| *p = &mut x);
    assert_eq!(unsafe { *p.load(Ordering::Acquire) }, 7);

    let mut cell = UnsafeCell::new(vec![1]);
    cell.get_mut().push(2);
    cell.with_mut(|v| unsafe { (*v).push(3) });
    assert_eq!(cell.into_inner(), [1, 2, 3]);
}
