//! The stand-in's atomics have std's size and alignment, in both builds, so that code which
//! asserts them or computes field offsets by hand (as arcstr and saa do) builds and runs.

use loom::sync::atomic::{
    AtomicBool, AtomicI16, AtomicI32, AtomicI64, AtomicI8, AtomicIsize, AtomicPtr, AtomicU16, AtomicU32, AtomicU64,
    AtomicU8, AtomicUsize, Ordering,
};
use std::mem::{align_of, size_of};

macro_rules! assert_std_layout {
    ($($t:ident),*) => {$(
        assert_eq!(size_of::<$t>(), size_of::<std::sync::atomic::$t>(), stringify!($t));
        assert_eq!(align_of::<$t>(), align_of::<std::sync::atomic::$t>(), stringify!($t));
    )*};
}

#[test]
fn every_stand_in_atomic_has_std_size_and_alignment() {
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
