//! The stand-in's atomics have loom's layout, in both builds: one word, aligned as a word, for
//! every width (loom's are handles into the model's objects), so that `cfg(loom)` code written
//! against loom's layout (hand-computed offsets, `size_of` assertions under `cfg(loom)`) builds
//! and runs as with loom. racer's own atomics keep std's (tests/atomic_layout.rs).

use loom::sync::atomic::{
    AtomicBool, AtomicI16, AtomicI32, AtomicI64, AtomicI8, AtomicIsize, AtomicPtr, AtomicU16, AtomicU32, AtomicU64,
    AtomicU8, AtomicUsize, Ordering,
};
use std::mem::{align_of, size_of};

macro_rules! assert_loom_layout {
    ($($t:ty),*) => {$(
        assert_eq!(size_of::<$t>(), size_of::<usize>(), stringify!($t));
        assert_eq!(align_of::<$t>(), align_of::<usize>(), stringify!($t));
        assert_eq!(size_of::<Option<$t>>(), size_of::<usize>(), concat!("Option<", stringify!($t), ">"));
    )*};
}

#[test]
fn every_stand_in_atomic_is_one_word_aligned_as_a_word() {
    assert_loom_layout!(
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
        AtomicUsize,
        AtomicPtr<u8>,
        AtomicPtr<[u64; 4]>
    );
}

/// A header laid out by hand, as arcstr's: a count at offset 0, the data right after it.
#[test]
fn a_hand_computed_offset_reaches_the_field_inside_a_model() {
    #[repr(C)]
    struct Header {
        count: AtomicUsize,
        data: u64,
    }
    const DATA: usize = size_of::<AtomicUsize>();
    loom::model(|| {
        let header = Box::new(Header { count: AtomicUsize::new(1), data: 7 });
        let base = &*header as *const Header as *const u8;
        // SAFETY: `Header` is repr(C): `data` is at `DATA`, right after the count.
        let data = unsafe { *(base.add(DATA) as *const u64) };
        assert_eq!(data, 7);
        assert_eq!(header.count.fetch_add(1, Ordering::Relaxed), 1);
    });
}

/// The handle's value survives moves, `with_mut`, `get_mut` and `into_inner` in both builds.
#[test]
fn a_moved_atomic_keeps_its_value() {
    loom::model(|| {
        let mut atomics: Vec<AtomicU8> = (0..4).map(AtomicU8::new).collect();
        atomics.reserve(100);
        atomics[1].fetch_add(10, Ordering::AcqRel);
        atomics[2].with_mut(|v| *v += 20);
        *atomics[3].get_mut() += 30;
        let values: Vec<u8> = atomics.into_iter().map(AtomicU8::into_inner).collect();
        assert_eq!(values, [0, 11, 22, 33]);
    });
}
