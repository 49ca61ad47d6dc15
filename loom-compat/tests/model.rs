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

// SAFETY: the value is written before `ready` is set and read after it is seen (what the tests
// check). loom's cell is not `Sync`, so loom's users say this of their own types.
unsafe impl Sync for Handoff {}

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
        assert!(message.contains("racer (model): 1 data race(s) found"), "{message}");
        assert!(message.contains("WARNING: racer: data race (flow: write, then a parallel read)"), "{message}");
        assert!(message.contains("loom-compat/tests/model.rs:"), "the report names this file's lines: {message}");
        // racer's loom stand-in is racer's own code: none of its frames (its `model`, its cell's
        // `with`) is in the stacks, which start at the test's line.
        assert!(!message.contains("  loom::") && !message.contains("<loom::"), "{message}");
        assert!(message.contains("    #0 model::handoff  tests/model.rs:30:24\n"), "{message}");
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

    let cell = UnsafeCell::new(vec![1]);
    unsafe { cell.get_mut().deref().push(2) };
    cell.get_mut().with(|v| unsafe { (*v).push(3) });
    cell.with_mut(|v| unsafe { (*v).push(4) });
    assert_eq!(unsafe { cell.get().deref().len() }, 4);
    assert_eq!(cell.get().with(|v| unsafe { (&(*v))[0] }), 1);
    assert_eq!(cell.into_inner(), [1, 2, 3, 4]);
}

#[test]
fn builder_fields_are_accepted_and_max_permutations_bounds_the_iterations() {
    let mut b = loom::model::Builder::new();
    b.max_branches = 10;
    b.preemption_bound = Some(2);
    b.max_permutations = Some(7);
    b.checkpoint_file("ignored.json");
    let ran = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let r = ran.clone();
    b.check(move || {
        r.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        handoff(Ordering::Release, Ordering::Acquire);
    });
    let expected = if racer::ENABLED { 7 } else { 1 };
    assert_eq!(ran.load(std::sync::atomic::Ordering::SeqCst), expected, "one run per permutation asked for");
}

#[test]
fn model_runs_on_a_thread_named_after_the_test() {
    loom::model(|| {
        assert_eq!(thread::current().name(), Some("model_runs_on_a_thread_named_after_the_test"));
    });
}

#[test]
fn block_on_is_woken_by_another_thread() {
    use std::future::poll_fn;
    use std::task::Poll;
    loom::model(|| {
        let waker = Arc::new(loom::future::AtomicWaker::new());
        let value = Arc::new(Handoff { ready: AtomicUsize::new(0), value: UnsafeCell::new(0) });
        let (w, v) = (waker.clone(), value.clone());
        let t = thread::spawn(move || {
            v.value.with_mut(|x| unsafe { *x = 7 });
            v.ready.store(1, Ordering::Release);
            w.wake();
        });
        let got = loom::future::block_on(poll_fn(|cx| {
            waker.register_by_ref(cx.waker());
            if value.ready.load(Ordering::Acquire) == 1 {
                Poll::Ready(value.value.with(|x| unsafe { *x }))
            } else {
                Poll::Pending
            }
        }));
        assert_eq!(got, 7);
        t.join().unwrap();
    });
}

#[test]
fn alloc_and_track_are_std_s() {
    let layout = loom::alloc::Layout::new::<u64>();
    unsafe {
        let p = loom::alloc::alloc(layout) as *mut u64;
        p.write(5);
        assert_eq!(*p, 5);
        loom::alloc::dealloc(p as *mut u8, layout);
    }
    let mut t = loom::alloc::Track::new(vec![1]);
    t.get_mut().push(2);
    assert_eq!(t.get_ref().len(), 2);
    assert_eq!(t.into_inner(), [1, 2]);
}

#[test]
fn a_get_guard_s_read_races_with_a_parallel_write() {
    if !racer::ENABLED {
        return; // a real data race: run it only where racer checks it
    }
    struct Both {
        cell: UnsafeCell<u64>,
    }
    unsafe impl Sync for Both {}
    let outcome = std::panic::catch_unwind(|| {
        loom::model(|| {
            let b = Arc::new(Both { cell: UnsafeCell::new(0) });
            let b2 = b.clone();
            let t = thread::spawn(move || unsafe { *b2.cell.get_mut().deref() = 1 });
            let _ = unsafe { *b.cell.get().deref() };
            t.join().unwrap();
        })
    });
    let panic = outcome.expect_err("the guards' accesses are checked");
    let message = panic.downcast_ref::<String>().expect("a formatted message");
    assert!(message.contains("loom-compat/tests/model.rs:"), "{message}");
}

loom::lazy_static! {
    static ref TABLE: Vec<u32> = (1..=3).collect();
    pub(crate) static ref NAME: String = "loom".to_owned();
}

/// `lazy_static!` statics deref to their value, made once.
#[test]
fn lazy_static_statics_deref_to_their_value() {
    loom::model(|| {
        let t = loom::thread::spawn(|| TABLE.iter().sum::<u32>());
        assert_eq!(TABLE.len(), 3);
        assert_eq!(t.join().unwrap(), 6);
        assert_eq!(NAME.as_str(), "loom");
    });
}

/// A `Notify` orders the notifier's write before the waiter's read: no report; and a
/// notification sent before the wait is kept for it.
#[test]
fn notify_hands_over_a_cell() {
    loom::model(|| {
        struct Noted(loom::sync::Notify, loom::cell::UnsafeCell<u32>);
        // SAFETY: the cell is written before the notification and read after it.
        unsafe impl Sync for Noted {}
        let shared = std::sync::Arc::new(Noted(loom::sync::Notify::new(), loom::cell::UnsafeCell::new(0u32)));
        let theirs = shared.clone();
        let t = loom::thread::spawn(move || {
            theirs.1.with_mut(|p| unsafe { *p = 7 });
            theirs.0.notify();
        });
        shared.0.wait();
        assert_eq!(shared.1.with(|p| unsafe { *p }), 7);
        t.join().unwrap();
    });
    let early = loom::sync::Notify::new();
    early.notify();
    early.wait();
}

thread_local! {
    static COUNTER: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// `loom::thread::LocalKey` names what `thread_local!` makes.
#[test]
fn local_key_is_the_type_of_thread_locals() {
    let key: &'static loom::thread::LocalKey<std::cell::Cell<u32>> = &COUNTER;
    key.with(|c| c.set(c.get() + 1));
    assert_eq!(COUNTER.with(std::cell::Cell::get), 1);
}

loom::lazy_static! {
    static ref PER_ITERATION: loom::sync::atomic::AtomicUsize = loom::sync::atomic::AtomicUsize::new(0);
}

#[test]
fn lazy_statics_are_fresh_in_every_iteration() {
    let mut b = loom::model::Builder::new();
    b.max_permutations = Some(20);
    b.check(|| {
        // As in loom: each execution starts from the static's initial value.
        assert_eq!(PER_ITERATION.fetch_add(1, Ordering::Relaxed), 0);
        let t = thread::spawn(|| PER_ITERATION.fetch_add(1, Ordering::Relaxed));
        assert_eq!(t.join().unwrap() + PER_ITERATION.load(Ordering::Relaxed), 3);
    });
}

#[test]
fn a_model_sized_by_max_threads_runs_them_all() {
    // As async-lock's barrier test sizes its model: the main thread and `MAX_THREADS - 1` more.
    static FINISHED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    loom::model(|| {
        let arrived = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..loom::MAX_THREADS - 1)
            .map(|_| {
                let arrived = arrived.clone();
                thread::spawn(move || arrived.fetch_add(1, Ordering::AcqRel))
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(arrived.load(Ordering::Acquire), loom::MAX_THREADS - 1);
        FINISHED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    assert!(FINISHED.load(std::sync::atomic::Ordering::Relaxed) >= 1);
    assert_eq!(loom::MAX_THREADS, 5, "loom 0.7's value");
}

/// As loom's, `thread::spawn` takes a closure that is not `Send` (an `Rc` moved into the model
/// thread, another returned from it): one model thread runs at a time. The model is still
/// checked: the cell written by the thread is read after the join, ordered by it.
#[test]
fn spawn_takes_a_closure_that_is_not_send() {
    use std::rc::Rc;
    loom::model(|| {
        let mine = Rc::new(UnsafeCell::new(1u32));
        let theirs = mine.clone();
        let t = thread::spawn(move || {
            theirs.with_mut(|p| unsafe { *p += 1 });
            Rc::new(theirs.with(|p| unsafe { *p }))
        });
        let seen = t.join().unwrap();
        assert_eq!((*seen, mine.with(|p| unsafe { *p })), (2, 2));
    });
}

/// `Builder::spawn` returns the stand-in's `JoinHandle` with its name on the thread.
#[test]
fn builder_spawn_names_the_thread() {
    loom::model(|| {
        let t = thread::Builder::new()
            .name("named".into())
            .stack_size(1 << 20)
            .spawn(|| thread::current().name().map(str::to_owned))
            .unwrap();
        assert_eq!(t.thread().name(), Some("named"));
        assert_eq!(t.join().unwrap().as_deref(), Some("named"));
    });
}
