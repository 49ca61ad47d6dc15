//! racer's atomics have std's size and alignment in both builds: `size_of`/`align_of`
//! assertions and hand-computed offsets in users' code hold. The detector's part of an atomic
//! lives beside it, keyed by the atomic's exact address, so `from_ptr` makes one over a bare
//! value. (The loom stand-in's atomics have loom's layout instead: loom-compat/tests/layout.rs.)

use racer::sync::atomic::{
    AtomicBool, AtomicI16, AtomicI32, AtomicI64, AtomicI8, AtomicIsize, AtomicPtr, AtomicU16, AtomicU32, AtomicU64,
    AtomicU8, AtomicUsize,
};
use std::mem::{align_of, size_of};

macro_rules! assert_std_layout {
    ($($t:ident),*) => {$(
        assert_eq!(size_of::<$t>(), size_of::<std::sync::atomic::$t>(), stringify!($t));
        assert_eq!(align_of::<$t>(), align_of::<std::sync::atomic::$t>(), stringify!($t));
    )*};
}

#[test]
fn every_atomic_has_std_size_and_alignment() {
    assert_std_layout!(
        AtomicBool,
        AtomicI8,
        AtomicI16,
        AtomicI32,
        AtomicI64,
        AtomicIsize,
        AtomicU8,
        AtomicU16,
        AtomicU32,
        AtomicU64,
        AtomicUsize
    );
    assert_eq!(size_of::<AtomicPtr<u8>>(), size_of::<std::sync::atomic::AtomicPtr<u8>>());
    assert_eq!(align_of::<AtomicPtr<u8>>(), align_of::<std::sync::atomic::AtomicPtr<u8>>());
}

/// `from_ptr` over bare integers, in both builds: the value is the atomic's.
#[test]
fn from_ptr_makes_atomics_over_bare_values() {
    use racer::sync::atomic::Ordering;
    let mut words = [1u64, 2, 3];
    let mut flag = false;
    // SAFETY: each pointer is aligned and valid for the references' lives; only atomics reach
    // the values meanwhile.
    let (second, flag_atomic) =
        unsafe { (AtomicU64::from_ptr(words.as_mut_ptr().add(1)), AtomicBool::from_ptr(&mut flag)) };
    assert_eq!(second.fetch_add(40, Ordering::AcqRel), 2);
    flag_atomic.store(true, Ordering::Release);
    assert_eq!((words, flag), ([1, 42, 3], true));
}

#[cfg(feature = "race-detect")]
mod detector {
    use racer::sync::atomic::{AtomicU32, Ordering};
    use racer::sync::Arc;
    use racer::{thread, RaceKind, Shared};

    /// Two atomics in one 8-byte word are two atomics: a release on one orders nothing for an
    /// acquire of the other.
    #[test]
    fn neighbours_in_one_word_keep_their_own_release_clocks() {
        #[repr(C)]
        struct Pair {
            a: AtomicU32,
            b: AtomicU32,
        }
        let report = racer::check(|| {
            let pair = Arc::new((Pair { a: AtomicU32::new(0), b: AtomicU32::new(0) }, Shared::new(0u64)));
            let p = pair.clone();
            let writer = thread::spawn(move || {
                p.1.with_mut(|v| unsafe { *v = 1 });
                p.0.a.store(1, Ordering::Release);
                p.0.b.store(1, Ordering::Relaxed);
            });
            while pair.0.b.load(Ordering::Acquire) == 0 {
                std::hint::spin_loop();
            }
            pair.1.with(|v| unsafe { *v });
            writer.join().unwrap();
        });
        assert_eq!(report.len(), 1, "{report}");
        assert_eq!(report.races()[0].kind(), RaceKind::Flow);
    }

    /// A bare word and a cell; the word is only ever reached through `from_ptr` atomics.
    struct Word(std::cell::UnsafeCell<u32>, Shared<u64>);

    // SAFETY: the word is only reached through atomics.
    unsafe impl Sync for Word {}

    impl Word {
        fn flag(&self) -> &AtomicU32 {
            // SAFETY: the word is aligned, lives as long as `self`, and is only reached
            // through atomics.
            unsafe { AtomicU32::from_ptr(self.0.get()) }
        }
    }

    /// A flag made by `from_ptr` over a bare word synchronises as any racer atomic: a Release
    /// store read by an Acquire load orders the cell, a Relaxed one does not.
    fn hand_over_through_from_ptr(store: Ordering) -> racer::Report {
        racer::check(|| {
            let word = Arc::new(Word(std::cell::UnsafeCell::new(0), Shared::new(0)));
            let w = word.clone();
            let writer = thread::spawn(move || {
                w.1.with_mut(|v| unsafe { *v = 1 });
                w.flag().store(1, store);
            });
            while word.flag().load(Ordering::Acquire) == 0 {
                std::hint::spin_loop();
            }
            word.1.with(|v| unsafe { *v });
            writer.join().unwrap();
        })
    }

    #[test]
    fn from_ptr_atomics_order_what_they_release() {
        let report = hand_over_through_from_ptr(Ordering::Release);
        assert!(report.is_empty(), "{report}");
        let report = hand_over_through_from_ptr(Ordering::Relaxed);
        assert_eq!(report.len(), 1, "{report}");
        assert_eq!(report.races()[0].kind(), RaceKind::Flow);
    }
}

/// std's deprecated names are there in both builds, so code that still uses them (jwalk's tests
/// name `ATOMIC_USIZE_INIT`) compiles after the swap.
#[test]
#[allow(deprecated)]
fn std_deprecated_atomic_names_are_there() {
    use racer::sync::atomic::{spin_loop_hint, Ordering, ATOMIC_BOOL_INIT, ATOMIC_ISIZE_INIT, ATOMIC_USIZE_INIT};
    static COUNT: AtomicUsize = ATOMIC_USIZE_INIT;
    static FLAG: AtomicBool = ATOMIC_BOOL_INIT;
    static OFFSET: AtomicIsize = ATOMIC_ISIZE_INIT;
    COUNT.fetch_add(2, Ordering::Relaxed);
    FLAG.store(true, Ordering::Relaxed);
    OFFSET.fetch_sub(1, Ordering::Relaxed);
    spin_loop_hint();
    assert_eq!(
        (COUNT.load(Ordering::Relaxed), FLAG.load(Ordering::Relaxed), OFFSET.load(Ordering::Relaxed)),
        (2, true, -1)
    );
}
