//! `racer::annotate`, `racer::lock_api` and `racer::parking_lot` compile and run unchanged in
//! both builds; with the feature off they are parking_lot's own types and empty functions.

use std::any::TypeId;
use std::sync::atomic::{AtomicBool, Ordering};

use racer::parking_lot::{const_mutex, const_rwlock, Mutex, RwLock};
use racer::{annotate, Shared};

fn same_type<A: ?Sized + 'static, B: ?Sized + 'static>() -> bool {
    TypeId::of::<A>() == TypeId::of::<B>()
}

static GLOBAL: Mutex<u32> = const_mutex(0);
static TABLE: RwLock<Vec<u32>> = const_rwlock(Vec::new());

#[test]
fn the_same_code_compiles_in_both_builds() {
    let cell = Shared::new(1u64);
    let flag = AtomicBool::new(false);
    annotate::release(&flag);
    flag.store(true, Ordering::Release);
    assert!(flag.load(Ordering::Acquire));
    annotate::acquire(&flag);
    annotate::acquire(&flag as *const AtomicBool);
    annotate::forget_sync(&flag);
    assert_eq!(annotate::ignore_accesses(|| unsafe { cell.get() }), 1);
    annotate::benign(&cell);
    let mut buf = [0u64; 4];
    annotate::write(&mut buf[1], 8);
    buf[1] = 7;
    annotate::read(&buf[1], 8);
    annotate::benign_range(buf.as_ptr(), 32);
    annotate::forget(buf.as_ptr(), 32);
    annotate::forget(&cell, std::mem::size_of_val(&cell));

    *GLOBAL.lock() += 1;
    TABLE.write().push(1);
    assert_eq!(TABLE.read().len(), 1);
    let m = Mutex::new(5);
    assert_eq!(*m.lock(), 5);
    let cv = racer::parking_lot::Condvar::new();
    let mut g = m.lock();
    let timed_out: racer::parking_lot::WaitTimeoutResult = cv.wait_for(&mut g, std::time::Duration::from_millis(1));
    assert!(timed_out.timed_out());
    cv.wait_while(&mut g, |n| *n != 5);
    assert!(!cv.notify_one());
    drop(g);
    let once = racer::parking_lot::Once::new();
    once.call_once(|| *m.lock() += 1);
    once.call_once(|| unreachable!("runs once"));
    assert_eq!((*m.lock(), once.state()), (6, racer::parking_lot::OnceState::Done));
}

#[test]
fn with_the_feature_off_they_are_parking_lots_own() {
    let own = same_type::<racer::parking_lot::Mutex<u32>, parking_lot::Mutex<u32>>()
        && same_type::<racer::parking_lot::RwLock<u32>, parking_lot::RwLock<u32>>()
        && same_type::<racer::parking_lot::ReentrantMutex<u32>, parking_lot::ReentrantMutex<u32>>()
        && same_type::<racer::parking_lot::FairMutex<u32>, parking_lot::FairMutex<u32>>()
        && same_type::<racer::parking_lot::Condvar, parking_lot::Condvar>()
        && same_type::<racer::parking_lot::Once, parking_lot::Once>()
        && same_type::<racer::lock_api::RawMutex<parking_lot::RawMutex>, parking_lot::RawMutex>();
    assert_eq!(own, !racer::ENABLED);
}
