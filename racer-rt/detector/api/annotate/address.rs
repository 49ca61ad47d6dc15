//! What an annotation is keyed by: any address, given as a reference, a raw pointer or a
//! number. Compiled in both builds (racer-rt includes this file by path when the detector is
//! off), so user code naming `racer::annotate::Address` compiles unchanged.

/// Something that names an address: `&T`, `&mut T`, `*const T`, `*mut T` or a `usize`.
///
/// Invariant: the address is the first byte of the referent (for a wide pointer, its data
/// part), so `&x`, `&x as *const _` and `&x as *const _ as usize` name the same key.
pub trait Address {
    fn address(&self) -> usize;
}

impl<T: ?Sized> Address for &T {
    #[inline]
    fn address(&self) -> usize {
        *self as *const T as *const u8 as usize
    }
}

impl<T: ?Sized> Address for &mut T {
    #[inline]
    fn address(&self) -> usize {
        &**self as *const T as *const u8 as usize
    }
}

impl<T: ?Sized> Address for *const T {
    #[inline]
    fn address(&self) -> usize {
        *self as *const u8 as usize
    }
}

impl<T: ?Sized> Address for *mut T {
    #[inline]
    fn address(&self) -> usize {
        *self as *const u8 as usize
    }
}

impl Address for usize {
    #[inline]
    fn address(&self) -> usize {
        *self
    }
}
