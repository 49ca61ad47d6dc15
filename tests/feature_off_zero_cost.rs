//! With `race-detect` off, racer's wrappers are std's own items, and `Shared<T>` is a
//! transparent `UnsafeCell<T>` with no drop glue of its own: the build compiles to std's code.
//! (`cargo bench --bench overhead` without the feature shows the same: every ratio is ~1.0.)
#![cfg(not(feature = "race-detect"))]

use std::any::TypeId;
use std::cell::UnsafeCell;
use std::mem::{align_of, needs_drop, size_of};

use racer::Shared;

fn same_type<A: ?Sized + 'static, B: ?Sized + 'static>() -> bool {
    TypeId::of::<A>() == TypeId::of::<B>()
}

#[test]
fn wrappers_are_std_items() {
    const { assert!(!racer::ENABLED) };
    assert!(same_type::<racer::sync::Mutex<u32>, std::sync::Mutex<u32>>());
    assert!(same_type::<racer::sync::MutexGuard<'static, u32>, std::sync::MutexGuard<'static, u32>>());
    assert!(same_type::<racer::sync::Condvar, std::sync::Condvar>());
    assert!(same_type::<racer::sync::RwLock<u32>, std::sync::RwLock<u32>>());
    assert!(same_type::<racer::sync::Barrier, std::sync::Barrier>());
    assert!(same_type::<racer::sync::Once, std::sync::Once>());
    assert!(same_type::<racer::sync::OnceLock<u32>, std::sync::OnceLock<u32>>());
    assert!(same_type::<racer::sync::Arc<u32>, std::sync::Arc<u32>>());
    assert!(same_type::<racer::sync::atomic::AtomicU64, std::sync::atomic::AtomicU64>());
    assert!(same_type::<racer::sync::mpsc::Sender<u32>, std::sync::mpsc::Sender<u32>>());
    assert!(same_type::<racer::thread::JoinHandle<u32>, std::thread::JoinHandle<u32>>());
    assert!(same_type::<racer::thread::Builder, std::thread::Builder>());
    assert!(same_type::<racer::thread::Thread, std::thread::Thread>());
    assert!(!same_type::<Shared<u32>, UnsafeCell<u32>>(), "Shared is a newtype, checked below");
}

#[test]
fn shared_is_a_transparent_unsafe_cell() {
    assert_eq!(size_of::<Shared<u8>>(), size_of::<u8>());
    assert_eq!(size_of::<Shared<u64>>(), size_of::<UnsafeCell<u64>>());
    assert_eq!(align_of::<Shared<u64>>(), align_of::<u64>());
    assert_eq!(size_of::<Shared<[u64; 3]>>(), 24);
    assert_eq!(size_of::<&Shared<[u8]>>(), size_of::<&[u8]>(), "unsized cells are fat pointers like slices");
    assert_eq!(size_of::<Option<Box<Shared<u64>>>>(), size_of::<usize>());
    // No Drop of its own: dropping a cell is not an access in this build.
    assert!(!needs_drop::<Shared<u64>>());
    assert!(needs_drop::<Shared<String>>(), "the value's own drop still runs");
}

#[test]
fn accesses_reach_the_value_directly() {
    let cell = Shared::new(41u64);
    let address = cell.with(|p| p as usize);
    assert_eq!(address, &cell as *const Shared<u64> as usize, "the value is the cell's first and only field");
    cell.with_mut(|p| unsafe { *p += 1 });
    assert_eq!(unsafe { cell.get() }, 42);
    let report = racer::check(|| unsafe { cell.set(7) });
    assert!(report.is_empty());
    assert_eq!(cell.into_inner(), 7);
}
