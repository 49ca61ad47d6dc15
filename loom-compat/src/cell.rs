//! `loom::cell`: `UnsafeCell` as a [`racer::Shared`] cell, so that every access the crate
//! under test makes through loom's closure API is checked for data races (inside a model; see
//! `crate::outside` for the rest).

/// loom's `UnsafeCell`: a [`racer::Shared`] under loom's method names. `with` is a checked
/// read, `with_mut` a checked write.
///
/// Dropping the cell checks nothing, as in loom (whose cells check `with`/`with_mut` and
/// their guards only): a cell often goes away after synchronisation racer cannot see, such as
/// the Acquire fence of the last `std::sync::Arc` drop that loom tests use (tokio's
/// `loom_atomic_waker`), and a checked drop would report that handover as a race.
///
/// `get` and `get_mut` return loom's `ConstPtr`/`MutPtr` guards; their access is checked
/// when the guard is made.
///
/// Not `Sync`, as loom's and std's are not (racer's `Shared` is, when `T: Send`): code written
/// for loom shares a cell only through a type it declares `Sync` itself, and its
/// `compile_fail` tests rely on that. `Send` when `T` is.
#[derive(Default)]
#[repr(transparent)]
pub struct UnsafeCell<T: ?Sized>(NotSync, racer::Shared<T>);

/// Takes `Sync` away from the type that holds it, and nothing else (`Cell<()>` is `Send`).
type NotSync = std::marker::PhantomData<std::cell::Cell<()>>;

impl<T> UnsafeCell<T> {
    /// A new cell holding `value`. As in loom, the creation is a write: a thread that reaches
    /// the cell without being ordered after its creation races with it. Not `const`, as loom's
    /// is not.
    #[track_caller]
    #[inline]
    pub fn new(value: T) -> UnsafeCell<T> {
        if crate::outside::checked() {
            UnsafeCell(NotSync::default(), racer::Shared::new_written(value))
        } else {
            UnsafeCell(NotSync::default(), racer::Shared::new(value))
        }
    }

    /// Consumes the cell (a checked write) and returns the value.
    #[track_caller]
    #[inline]
    pub fn into_inner(self) -> T {
        let this = std::mem::ManuallyDrop::new(self);
        // SAFETY: `this` is never used or dropped again; the `Shared` is moved out once.
        unsafe { std::ptr::read(&this.1) }.into_inner()
    }
}

impl<T: ?Sized> UnsafeCell<T> {
    /// A read of the cell: `f` gets a pointer to the value.
    #[track_caller]
    #[inline]
    pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        if crate::outside::checked() {
            self.1.with(f)
        } else {
            racer::annotate::ignore_accesses(|| self.1.with(f))
        }
    }

    /// A write of the cell: `f` gets a mutable pointer to the value.
    #[track_caller]
    #[inline]
    pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        if crate::outside::checked() {
            self.1.with_mut(f)
        } else {
            racer::annotate::ignore_accesses(|| self.1.with_mut(f))
        }
    }

    /// loom's `get`: a checked read of the cell now (at the caller's line), and a guard
    /// holding the pointer. Unlike loom, racer checks the access when the guard is made, not
    /// for as long as it lives.
    #[track_caller]
    #[inline]
    pub fn get(&self) -> ConstPtr<T> {
        ConstPtr { ptr: self.with(|p| p) }
    }

    /// loom's `get_mut`: a checked write of the cell now (at the caller's line), and a guard
    /// holding the pointer (see [`get`](Self::get)).
    #[track_caller]
    #[inline]
    pub fn get_mut(&self) -> MutPtr<T> {
        MutPtr { ptr: self.with_mut(|p| p) }
    }
}

/// loom's `ConstPtr`: the pointer from [`UnsafeCell::get`], whose read was checked when it was
/// made.
pub struct ConstPtr<T: ?Sized> {
    ptr: *const T,
}

impl<T: ?Sized> ConstPtr<T> {
    /// A shared reference to the value.
    ///
    /// # Safety
    /// As loom's: the cell must not be written while the reference lives.
    #[inline]
    pub unsafe fn deref(&self) -> &T {
        &*self.ptr
    }

    /// Runs `f` with the pointer.
    #[inline]
    pub fn with<F, R>(&self, f: F) -> R
    where
        F: FnOnce(*const T) -> R,
    {
        f(self.ptr)
    }
}

impl<T: ?Sized> std::fmt::Debug for ConstPtr<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConstPtr").finish_non_exhaustive()
    }
}

/// loom's `MutPtr`: the pointer from [`UnsafeCell::get_mut`], whose write was checked when it
/// was made.
pub struct MutPtr<T: ?Sized> {
    ptr: *mut T,
}

impl<T: ?Sized> MutPtr<T> {
    /// An exclusive reference to the value.
    ///
    /// # Safety
    /// As loom's: no other access to the cell while the reference lives.
    #[inline]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn deref(&self) -> &mut T {
        &mut *self.ptr
    }

    /// Runs `f` with the pointer.
    #[inline]
    pub fn with<F, R>(&self, f: F) -> R
    where
        F: FnOnce(*mut T) -> R,
    {
        f(self.ptr)
    }
}

impl<T: ?Sized> std::fmt::Debug for MutPtr<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MutPtr").finish_non_exhaustive()
    }
}

/// loom's `Cell`: a `Cell` is never shared between threads (it is not `Sync`), so it cannot
/// race; std's.
pub use std::cell::Cell;

impl<T: ?Sized> Drop for UnsafeCell<T> {
    /// Forgets the cell's accesses unchecked (see [`UnsafeCell`]); the value is then dropped.
    #[inline]
    fn drop(&mut self) {
        self.1.forget_accesses();
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
