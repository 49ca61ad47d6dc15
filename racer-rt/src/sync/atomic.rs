//! `racer::sync::atomic`: std's atomics, each a real std atomic plus the release clock of its
//! current value.
//!
//! A Release (AcqRel, SeqCst) store makes the atomic's clock exactly the storing thread's clock
//! (a post); an Acquire (AcqRel, SeqCst) load that reads the value joins that clock (a wait). An
//! RMW continues the release sequence: a releasing RMW joins its thread's clock into the
//! atomic's, a Relaxed one leaves it as it was. A Relaxed store starts a new value with no
//! release clock, unless a `fence(Release)` of the storing thread precedes it (see `fence`).
//!
//! The value and its clock change together: every operation, Relaxed ones included, runs the
//! real atomic instruction while holding the atomic's clock lock, so the clock an acquire joins
//! is always the clock of the value it read (no over- or under-approximation), and values and
//! orderings are exactly std's. No operation allocates once the clock is as wide as the
//! threads it has seen.
//!
//! SeqCst is treated as AcqRel (its load half as Acquire, its store half as Release): the
//! single total order of SeqCst operations adds no happens-before edge between threads that
//! do not read each other's values.

use std::fmt;
use std::panic::{Location, RefUnwindSafe};

use parking_lot::Mutex;

use crate::clock::{Slot, VectorClock};
use crate::sync_clock::SyncEvent;
use crate::thread_state::{with_current, ThreadState};

pub use std::sync::atomic::{compiler_fence, Ordering};

pub use super::fence::fence;
use super::fence::{note_relaxed_read, with_fence_release};

pub(crate) fn acquires(order: Ordering) -> bool {
    matches!(order, Ordering::Acquire | Ordering::AcqRel | Ordering::SeqCst)
}

pub(crate) fn releases(order: Ordering) -> bool {
    matches!(order, Ordering::Release | Ordering::AcqRel | Ordering::SeqCst)
}

/// `dst = src`, reusing `dst`'s allocation.
pub(crate) fn assign(dst: &mut VectorClock, src: &VectorClock) {
    for slot in 0..dst.width().max(src.width()) {
        dst.set(slot as Slot, src.get(slot as Slot));
    }
}

/// What one atomic operation turned out to be, with the ordering that applies to it.
#[derive(Clone, Copy)]
enum Effect {
    Load(Ordering),
    Store(Ordering),
    ReadModifyWrite(Ordering),
}

/// The release clock of an atomic's current value.
///
/// Invariant: `released` is true iff the current value was written by a release (a releasing
/// store or RMW, or a Relaxed one after a release fence of its thread) or by an RMW continuing
/// such a release sequence; then `clock` is the join of the clocks released into that sequence.
/// When false, `clock` is stale and ignored (kept only for its allocation).
struct ReleaseClock {
    clock: VectorClock,
    released: bool,
}

impl ReleaseClock {
    /// The read half of an operation: an acquire waits on the value's release clock; a Relaxed
    /// read leaves it for a later acquire fence.
    fn read(&self, t: &mut ThreadState, order: Ordering, event: impl FnOnce() -> SyncEvent) {
        if acquires(order) {
            if self.released {
                t.clock.join(&self.clock);
            }
            t.note_sync(event());
        } else if self.released {
            note_relaxed_read(&self.clock);
        }
    }

    /// The write half: a release publishes the thread's clock, replacing the old release
    /// sequence (a store) or joining it (an RMW); a Relaxed write publishes the clock of the
    /// thread's latest release fence, if any.
    fn write(&mut self, t: &mut ThreadState, order: Ordering, rmw: bool, event: impl FnOnce() -> SyncEvent) {
        let continues = rmw && self.released;
        if releases(order) {
            if continues {
                self.clock.join(&t.clock);
            } else {
                assign(&mut self.clock, &t.clock);
            }
            self.released = true;
            t.note_sync(event());
            t.tick();
        } else {
            with_fence_release(|fenced| match fenced {
                Some(fenced) if continues => self.clock.join(fenced),
                Some(fenced) => {
                    assign(&mut self.clock, fenced);
                    self.released = true;
                }
                // A Relaxed RMW continues the sequence as it is; a Relaxed store ends it.
                None => self.released = continues,
            });
        }
    }
}

/// The detector's part of an atomic: its release clock and where it was made.
struct AtomicSync {
    state: Mutex<ReleaseClock>,
    created: &'static Location<'static>,
}

impl AtomicSync {
    const fn new(created: &'static Location<'static>) -> AtomicSync {
        AtomicSync { state: Mutex::new(ReleaseClock { clock: VectorClock::new(), released: false }), created }
    }

    /// Runs the real atomic operation `op` under the clock lock, then updates the clocks for
    /// what it turned out to be (`effect` of its result). During thread-local teardown the
    /// operation runs unchecked.
    #[inline]
    fn run<R>(
        &self,
        object: &'static str,
        at: &'static Location<'static>,
        op: impl FnOnce() -> R,
        effect: impl FnOnce(&R) -> Effect,
    ) -> R {
        let mut op = Some(op);
        let checked = with_current(|t| {
            let mut state = self.state.lock();
            let result = (op.take().expect("atomic operation runs once"))();
            let created = Some(self.created);
            let event = |op| move || SyncEvent { op, object, created, at };
            match effect(&result) {
                Effect::Load(order) => state.read(t, order, event("loading")),
                Effect::Store(order) => state.write(t, order, false, event("storing to")),
                Effect::ReadModifyWrite(order) => {
                    state.read(t, order, event("updating"));
                    state.write(t, order, true, event("updating"));
                }
            }
            result
        });
        match checked {
            Some(result) => result,
            None => (op.take().expect("atomic operation runs once"))(),
        }
    }
}

/// The ordering std uses for the failure of a `compare_and_swap` with ordering `order`.
fn failure_order(order: Ordering) -> Ordering {
    match order {
        Ordering::Release | Ordering::Relaxed => Ordering::Relaxed,
        Ordering::AcqRel | Ordering::Acquire => Ordering::Acquire,
        _ => Ordering::SeqCst,
    }
}

/// The methods every atomic type has, for value type `$v`.
macro_rules! common_methods {
    ($v:ty, $name:expr) => {
        /// Mutable access needs no synchronisation: `&mut self` is exclusive.
        #[inline]
        pub fn get_mut(&mut self) -> &mut $v {
            self.inner.get_mut()
        }

        #[inline]
        pub fn into_inner(self) -> $v {
            self.inner.into_inner()
        }

        /// The real atomic's address; accesses through it bypass the detector.
        #[inline]
        pub const fn as_ptr(&self) -> *mut $v {
            self.inner.as_ptr()
        }

        #[track_caller]
        pub fn load(&self, order: Ordering) -> $v {
            self.sync.run($name, Location::caller(), || self.inner.load(order), |_| Effect::Load(order))
        }

        #[track_caller]
        pub fn store(&self, val: $v, order: Ordering) {
            self.sync.run($name, Location::caller(), || self.inner.store(val, order), |_| Effect::Store(order))
        }

        #[track_caller]
        pub fn swap(&self, val: $v, order: Ordering) -> $v {
            self.sync.run($name, Location::caller(), || self.inner.swap(val, order), |_| Effect::ReadModifyWrite(order))
        }

        #[track_caller]
        pub fn compare_exchange(&self, current: $v, new: $v, success: Ordering, failure: Ordering) -> Result<$v, $v> {
            self.sync.run(
                $name,
                Location::caller(),
                || self.inner.compare_exchange(current, new, success, failure),
                |r| if r.is_ok() { Effect::ReadModifyWrite(success) } else { Effect::Load(failure) },
            )
        }

        #[track_caller]
        pub fn compare_exchange_weak(&self, current: $v, new: $v, success: Ordering, failure: Ordering) -> Result<$v, $v> {
            self.sync.run(
                $name,
                Location::caller(),
                || self.inner.compare_exchange_weak(current, new, success, failure),
                |r| if r.is_ok() { Effect::ReadModifyWrite(success) } else { Effect::Load(failure) },
            )
        }

        #[deprecated(note = "Use `compare_exchange` or `compare_exchange_weak` instead")]
        #[track_caller]
        pub fn compare_and_swap(&self, current: $v, new: $v, order: Ordering) -> $v {
            match self.compare_exchange(current, new, order, failure_order(order)) {
                Ok(v) | Err(v) => v,
            }
        }

        /// As std's: a load, then compare-exchanges until `f` declines or one succeeds. `f`
        /// runs outside racer's locks.
        #[track_caller]
        pub fn fetch_update<F>(&self, set_order: Ordering, fetch_order: Ordering, mut f: F) -> Result<$v, $v>
        where
            F: FnMut($v) -> Option<$v>,
        {
            let mut prev = self.load(fetch_order);
            while let Some(next) = f(prev) {
                match self.compare_exchange_weak(prev, next, set_order, fetch_order) {
                    Ok(v) => return Ok(v),
                    Err(actual) => prev = actual,
                }
            }
            Err(prev)
        }
    };
}

/// A read-modify-write method forwarding to std's method of the same name.
macro_rules! rmw_methods {
    ($v:ty, $name:expr, $($method:ident),*) => {
        $(
            #[track_caller]
            pub fn $method(&self, val: $v, order: Ordering) -> $v {
                self.sync.run($name, Location::caller(), || self.inner.$method(val, order), |_| Effect::ReadModifyWrite(order))
            }
        )*
    };
}

macro_rules! atomic_int {
    ($($atomic:ident $int:ty;)*) => {$(
        #[doc = concat!("An integer shared between threads, as `std::sync::atomic::", stringify!($atomic), "`.")]
        ///
        /// Invariant: `inner` is the real value; `sync` holds the release clock of that value
        /// and changes only together with it, under its lock.
        pub struct $atomic {
            inner: std::sync::atomic::$atomic,
            sync: AtomicSync,
        }

        impl $atomic {
            #[track_caller]
            pub const fn new(v: $int) -> $atomic {
                $atomic { inner: std::sync::atomic::$atomic::new(v), sync: AtomicSync::new(Location::caller()) }
            }

            common_methods!($int, stringify!($atomic));
            rmw_methods!($int, stringify!($atomic), fetch_add, fetch_sub, fetch_and, fetch_nand, fetch_or, fetch_xor, fetch_max, fetch_min);
        }

        impl Default for $atomic {
            #[track_caller]
            fn default() -> $atomic {
                $atomic::new(0)
            }
        }

        impl From<$int> for $atomic {
            #[track_caller]
            fn from(v: $int) -> $atomic {
                $atomic::new(v)
            }
        }

        /// Prints the value with a Relaxed load of the real atomic, as std does; not a
        /// synchronisation.
        impl fmt::Debug for $atomic {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.inner, f)
            }
        }

        impl RefUnwindSafe for $atomic {}
    )*};
}

atomic_int! {
    AtomicU8 u8;
    AtomicU16 u16;
    AtomicU32 u32;
    AtomicU64 u64;
    AtomicUsize usize;
    AtomicI8 i8;
    AtomicI16 i16;
    AtomicI32 i32;
    AtomicI64 i64;
    AtomicIsize isize;
}

/// A boolean shared between threads, as `std::sync::atomic::AtomicBool`.
///
/// Invariant: as for the integer atomics.
pub struct AtomicBool {
    inner: std::sync::atomic::AtomicBool,
    sync: AtomicSync,
}

impl AtomicBool {
    #[track_caller]
    pub const fn new(v: bool) -> AtomicBool {
        AtomicBool { inner: std::sync::atomic::AtomicBool::new(v), sync: AtomicSync::new(Location::caller()) }
    }

    common_methods!(bool, "AtomicBool");
    rmw_methods!(bool, "AtomicBool", fetch_and, fetch_nand, fetch_or, fetch_xor);

    /// Logical "not" of the current value, as std's (an RMW).
    #[track_caller]
    pub fn fetch_not(&self, order: Ordering) -> bool {
        self.fetch_xor(true, order)
    }
}

impl Default for AtomicBool {
    #[track_caller]
    fn default() -> AtomicBool {
        AtomicBool::new(false)
    }
}

impl From<bool> for AtomicBool {
    #[track_caller]
    fn from(v: bool) -> AtomicBool {
        AtomicBool::new(v)
    }
}

impl fmt::Debug for AtomicBool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}

impl RefUnwindSafe for AtomicBool {}

/// A raw pointer shared between threads, as `std::sync::atomic::AtomicPtr`.
///
/// Invariant: as for the integer atomics.
pub struct AtomicPtr<T> {
    inner: std::sync::atomic::AtomicPtr<T>,
    sync: AtomicSync,
}

impl<T> AtomicPtr<T> {
    #[track_caller]
    pub const fn new(p: *mut T) -> AtomicPtr<T> {
        AtomicPtr { inner: std::sync::atomic::AtomicPtr::new(p), sync: AtomicSync::new(Location::caller()) }
    }

    common_methods!(*mut T, "AtomicPtr");
}

impl<T> Default for AtomicPtr<T> {
    #[track_caller]
    fn default() -> AtomicPtr<T> {
        AtomicPtr::new(std::ptr::null_mut())
    }
}

impl<T> From<*mut T> for AtomicPtr<T> {
    #[track_caller]
    fn from(p: *mut T) -> AtomicPtr<T> {
        AtomicPtr::new(p)
    }
}

impl<T> fmt::Debug for AtomicPtr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}

impl<T> fmt::Pointer for AtomicPtr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Pointer::fmt(&self.inner.load(Ordering::Relaxed), f)
    }
}

impl<T> RefUnwindSafe for AtomicPtr<T> {}
