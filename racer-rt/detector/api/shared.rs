//! `Shared<T>`: the checked stand-in for `UnsafeCell<T>`. Every access goes through the shadow
//! memory before the user's closure runs.

use std::cell::UnsafeCell;
use std::fmt;
use std::panic::Location;

use crate::report::AccessKind;
use crate::shadow::cell::CellMeta;

/// A cell whose every access is checked against the happens-before order made by racer's
/// wrappers. `with` is a read, `with_mut`, `set` and dropping the cell are writes.
///
/// Aligned to a cache line: a slow-path access writes the cell's `meta` (its seen cache, its
/// lock bit), and any neighbour on the same line (an atomic beside the cell in the user's
/// struct, the next cell of a ring) would move between cores with each such write, where the
/// native program shares that line for free. A small cell pays for it in memory (a
/// `Shared<u64>` is 64 bytes, not 48) and a sweep over many small cells streams more lines.
#[repr(align(64))]
pub struct Shared<T: ?Sized> {
    meta: CellMeta,
    value: UnsafeCell<T>,
}

// SAFETY: as for a `Mutex<T>`-like cell: the value is only reached through raw pointers the user
// dereferences under their own protocol, which is what racer checks.
unsafe impl<T: ?Sized + Send> Send for Shared<T> {}
unsafe impl<T: ?Sized + Send> Sync for Shared<T> {}

impl<T> Shared<T> {
    pub const fn new(value: T) -> Shared<T> {
        Shared { meta: CellMeta::new(), value: UnsafeCell::new(value) }
    }

    /// A new cell whose creation is a checked write by the calling thread at the caller's line,
    /// as loom's cells are: another thread's access that is not ordered after the creation
    /// races with it (the cell was published without a release). For racer's loom stand-in,
    /// whose `UnsafeCell::new` is not `const`, as loom's is not.
    #[doc(hidden)]
    #[track_caller]
    pub fn new_written(value: T) -> Shared<T> {
        let cell = Shared::new(value);
        let address = cell.value_address();
        cell.meta.create(Location::caller(), std::any::type_name::<T>(), address);
        cell
    }

    /// Consumes the cell, which counts as a write (like dropping it).
    #[track_caller]
    pub fn into_inner(mut self) -> T {
        self.last_write(Location::caller());
        let this = std::mem::ManuallyDrop::new(self);
        // SAFETY: `this` is never used or dropped again; `meta` holds no resources.
        unsafe { std::ptr::read(&this.value) }.into_inner()
    }

    /// A read of the cell that copies the value out.
    ///
    /// # Safety
    /// As for reading through `UnsafeCell::get`: no write may run concurrently.
    #[track_caller]
    pub unsafe fn get(&self) -> T
    where
        T: Copy,
    {
        self.check(AccessKind::Read, Location::caller());
        *self.value.get()
    }

    /// A write of the cell.
    ///
    /// # Safety
    /// As for writing through `UnsafeCell::get`: no other access may run concurrently.
    #[track_caller]
    pub unsafe fn set(&self, value: T) {
        self.check(AccessKind::Write, Location::caller());
        *self.value.get() = value;
    }
}

impl<T: ?Sized> Shared<T> {
    /// The address of the value: what a race on the cell names (`annotate::benign` marks it).
    pub(crate) fn value_address(&self) -> usize {
        self.value.get() as *const u8 as usize
    }

    /// Frees the cell's shadow state without checking a write against it, as the cell goes
    /// away: its drop then finds nothing to race with. For racer's loom stand-in, whose
    /// `UnsafeCell` drop is unchecked, as loom's is; call it only from a drop.
    #[doc(hidden)]
    #[track_caller]
    pub fn forget_accesses(&mut self) {
        let _ignoring = crate::runtime::ignore::IgnoreScope::enter();
        self.last_write(Location::caller());
    }

    /// The final write of a cell that is going away; frees its shadow state.
    fn last_write(&mut self, site: &'static Location<'static>) {
        let value = self.value.get() as *const u8 as usize;
        self.meta.last_write(site, std::any::type_name::<T>(), value);
    }

    #[inline]
    fn check(&self, kind: AccessKind, site: &'static Location<'static>) {
        self.meta.access(kind, site, std::any::type_name::<T>(), self.value.get() as *const u8 as usize);
    }

    /// A read of the cell: `f` gets a pointer to the value.
    #[track_caller]
    #[inline]
    pub fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        self.check(AccessKind::Read, Location::caller());
        f(self.value.get())
    }

    /// A write of the cell: `f` gets a mutable pointer to the value.
    #[track_caller]
    #[inline]
    pub fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        self.check(AccessKind::Write, Location::caller());
        f(self.value.get())
    }

    /// Exclusive access through `&mut self`; checked as a write, since the cell may have been
    /// handed over by synchronisation racer cannot see.
    #[track_caller]
    pub fn get_mut(&mut self) -> &mut T {
        self.check(AccessKind::Write, Location::caller());
        self.value.get_mut()
    }
}

impl<T: ?Sized> Drop for Shared<T> {
    #[track_caller]
    fn drop(&mut self) {
        self.last_write(Location::caller());
    }
}

impl<T: Default> Default for Shared<T> {
    fn default() -> Shared<T> {
        Shared::new(T::default())
    }
}

impl<T> From<T> for Shared<T> {
    fn from(value: T) -> Shared<T> {
        Shared::new(value)
    }
}

impl<T: ?Sized> fmt::Debug for Shared<T> {
    /// Does not read the value (that would be an access): prints the cell, not its contents.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Shared").field("type", &std::any::type_name::<T>()).finish_non_exhaustive()
    }
}
