//! `loom::cell`: `UnsafeCell` as a [`racer::Shared`] cell, so that every access the crate
//! under test makes through loom's closure API is checked for data races.

/// loom's `UnsafeCell`: a [`racer::Shared`] under loom's method names. `with` is a checked
/// read, `with_mut` a checked write; dropping the cell counts as a write.
///
/// `get_mut` differs from loom 0.7's (which returns a `MutPtr` guard): it is `Shared`'s
/// `get_mut(&mut self) -> &mut T`, also checked as a write.
#[derive(Default)]
#[repr(transparent)]
pub struct UnsafeCell<T: ?Sized>(racer::Shared<T>);

impl<T> UnsafeCell<T> {
    /// A new cell holding `value`.
    #[inline]
    pub const fn new(value: T) -> UnsafeCell<T> {
        UnsafeCell(racer::Shared::new(value))
    }

    /// Consumes the cell (a write, like dropping it) and returns the value.
    #[track_caller]
    #[inline]
    pub fn into_inner(self) -> T {
        self.0.into_inner()
    }
}

impl<T: ?Sized> UnsafeCell<T> {
    /// A read of the cell: `f` gets a pointer to the value.
    #[track_caller]
    #[inline]
    pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        self.0.with(f)
    }

    /// A write of the cell: `f` gets a mutable pointer to the value.
    #[track_caller]
    #[inline]
    pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        self.0.with_mut(f)
    }

    /// Exclusive access through `&mut self` (checked as a write).
    #[track_caller]
    #[inline]
    pub fn get_mut(&mut self) -> &mut T {
        self.0.get_mut()
    }
}

impl<T> From<T> for UnsafeCell<T> {
    fn from(value: T) -> UnsafeCell<T> {
        UnsafeCell::new(value)
    }
}

impl<T: ?Sized> std::fmt::Debug for UnsafeCell<T> {
    /// Does not read the value (that would be an access).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UnsafeCell").finish_non_exhaustive()
    }
}
