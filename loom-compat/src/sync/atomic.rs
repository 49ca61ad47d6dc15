//! `loom::sync::atomic`: racer's atomics under loom's API and loom's layout.
//!
//! Each type is a handle, one word with a word's alignment for every width, as loom's are
//! (code written for `cfg(loom)` computes layouts with loom's, not std's): a `Box` naming the
//! atomic's `Object`, which holds racer's atomic of the same name (std's own in the
//! feature-off build) and the atomic's creation. Since the object never moves, racer's state
//! for the atomic, keyed by its address, follows the handle through every move.
//!
//! The creation is a checked write by the creating thread (inside a model or a `racer::check`;
//! see `crate::outside`), as in loom, where `new` is the atomic's non-atomic initialisation;
//! every operation reads it first, so a thread that reaches an atomic without being ordered
//! after its creation (a fresh node published with a Relaxed store or CAS) races with it, and
//! the report names both sites ("on the creation of loom::sync::atomic::AtomicUsize").
//!
//! The methods forward std's, plus loom's extras: `with_mut`, exclusive access through a
//! closure, and `unsync_load`. Every forwarding method is `#[track_caller]`, so racer
//! attributes synchronisations to the caller's line.

use racer::sync::atomic as imp;

pub use racer::sync::atomic::{compiler_fence, Ordering};

/// As std's `fence`: racer's (the C++ fence rules over its atomics) inside a model; outside
/// one, std's, unchecked (see `crate::outside`).
#[track_caller]
#[inline]
pub fn fence(order: Ordering) {
    if crate::outside::checked() {
        racer::sync::atomic::fence(order)
    } else {
        std::sync::atomic::fence(order)
    }
}

/// What a loom atomic's creation is, in a report: `Shared<Creation<A>>` is shown as "the
/// creation of A" (racer's `report/race.rs`). Holds nothing.
struct Creation<A: ?Sized>(std::marker::PhantomData<fn() -> *const A>);

/// The atomic a handle names: racer's atomic and its creation, a cell written at `new`.
///
/// Invariant: boxed at `new` and never moved until the handle drops it, so `atomic`'s address,
/// which keys racer's state for it, is the same for the atomic's whole life.
struct Object<I, A: ?Sized> {
    atomic: I,
    creation: CreationCell<A>,
}

/// The creation cell. Its drop checks nothing, as the stand-in cell's drop: an atomic often
/// goes away after synchronisation racer cannot see.
struct CreationCell<A: ?Sized>(racer::Shared<Creation<A>>);

impl<A: ?Sized> CreationCell<A> {
    /// A written creation where the stand-in checks, else an unwritten one (reads of it are
    /// not checked there either).
    #[track_caller]
    #[inline]
    fn new() -> CreationCell<A> {
        let creation = Creation(std::marker::PhantomData);
        if crate::outside::checked() {
            CreationCell(racer::Shared::new_written(creation))
        } else {
            CreationCell(racer::Shared::new(creation))
        }
    }

    /// An operation on the atomic at the caller's line: a checked read of the creation.
    #[cfg(feature = "race-detect")]
    #[track_caller]
    #[inline]
    fn reached(&self) {
        self.0.with(|_| ())
    }
}

impl<A: ?Sized> Drop for CreationCell<A> {
    #[inline]
    fn drop(&mut self) {
        self.0.forget_accesses();
    }
}

// As loom's atomics are (for every `T` of an `AtomicPtr<T>` too, where std's is `UnwindSafe`
// only for a `T` that is `RefUnwindSafe`): an atomic is never half-made by a panic, and the
// creation cell holds no value and is only ever read after `new`.
impl<I, A: ?Sized> std::panic::RefUnwindSafe for Object<I, A> {}
impl<I, A: ?Sized> std::panic::UnwindSafe for Object<I, A> {}

impl<I, A: ?Sized> Object<I, A> {
    #[track_caller]
    #[inline]
    fn boxed(atomic: I) -> Box<Object<I, A>> {
        Box::new(Object { atomic, creation: CreationCell::new() })
    }

    /// The atomic, reached by an operation at the caller's line.
    #[track_caller]
    #[inline]
    fn reach(&self) -> &I {
        #[cfg(feature = "race-detect")]
        self.creation.reached();
        &self.atomic
    }

    fn into_atomic(self) -> I {
        let Object { atomic, creation } = self;
        drop(creation);
        atomic
    }
}

/// A forwarding method's body: racer's atomic's method; outside any model the real atomic's,
/// unchecked (see `crate::outside`).
macro_rules! forward {
    ($self:ident . $method:ident ( $($arg:expr),* )) => {{
        #[cfg(feature = "race-detect")]
        if !crate::outside::checked() {
            return $self.0.atomic.__unchecked().$method($($arg),*);
        }
        $self.0.reach().$method($($arg),*)
    }};
}

/// The methods every atomic has, for value type `$v`.
macro_rules! common_methods {
    ($v:ty) => {
        /// Exclusive access to the value, as loom's `with_mut`: `&mut self` needs no
        /// synchronisation.
        #[inline]
        pub fn with_mut<R>(&mut self, f: impl FnOnce(&mut $v) -> R) -> R {
            f(self.0.atomic.get_mut())
        }

        /// Loads the value without synchronisation, as loom's `unsync_load`.
        ///
        /// # Safety
        /// As loom's: every store to this atomic must happen before this load. racer does not
        /// check this load; it is a Relaxed load of the real atomic.
        #[track_caller]
        #[inline]
        pub unsafe fn unsync_load(&self) -> $v {
            forward!(self.load(Ordering::Relaxed))
        }

        /// As std's `get_mut`.
        #[inline]
        pub fn get_mut(&mut self) -> &mut $v {
            self.0.atomic.get_mut()
        }

        /// As std's `into_inner`.
        #[inline]
        pub fn into_inner(self) -> $v {
            (*self.0).into_atomic().into_inner()
        }

        /// As std's `load`.
        #[track_caller]
        #[inline]
        pub fn load(&self, order: Ordering) -> $v {
            forward!(self.load(order))
        }

        /// As std's `store`.
        #[track_caller]
        #[inline]
        pub fn store(&self, val: $v, order: Ordering) {
            forward!(self.store(val, order))
        }

        /// As std's `swap`.
        #[track_caller]
        #[inline]
        pub fn swap(&self, val: $v, order: Ordering) -> $v {
            forward!(self.swap(val, order))
        }

        /// As std's `compare_exchange`.
        #[track_caller]
        #[inline]
        pub fn compare_exchange(&self, current: $v, new: $v, success: Ordering, failure: Ordering) -> Result<$v, $v> {
            forward!(self.compare_exchange(current, new, success, failure))
        }

        /// As std's `compare_exchange_weak`.
        #[track_caller]
        #[inline]
        pub fn compare_exchange_weak(
            &self,
            current: $v,
            new: $v,
            success: Ordering,
            failure: Ordering,
        ) -> Result<$v, $v> {
            forward!(self.compare_exchange_weak(current, new, success, failure))
        }

        /// As std's (deprecated) `compare_and_swap`, which loom still offers.
        #[deprecated(note = "Use `compare_exchange` or `compare_exchange_weak` instead")]
        #[track_caller]
        #[inline]
        pub fn compare_and_swap(&self, current: $v, new: $v, order: Ordering) -> $v {
            let failure = match order {
                Ordering::Release | Ordering::Relaxed => Ordering::Relaxed,
                Ordering::AcqRel | Ordering::Acquire => Ordering::Acquire,
                _ => Ordering::SeqCst,
            };
            match self.compare_exchange(current, new, order, failure) {
                Ok(v) | Err(v) => v,
            }
        }

        /// As std's `fetch_update`.
        #[track_caller]
        #[inline]
        pub fn fetch_update<F>(&self, set_order: Ordering, fetch_order: Ordering, f: F) -> Result<$v, $v>
        where
            F: FnMut($v) -> Option<$v>,
        {
            forward!(self.fetch_update(set_order, fetch_order, f))
        }
    };
}

/// Read-modify-write methods forwarding to the method of the same name.
macro_rules! rmw_methods {
    ($v:ty; $($method:ident),*) => {$(
        #[doc = concat!("As std's `", stringify!($method), "`.")]
        #[track_caller]
        #[inline]
        pub fn $method(&self, val: $v, order: Ordering) -> $v {
            forward!(self.$method(val, order))
        }
    )*};
}

macro_rules! atomic_int {
    ($($atomic:ident $int:ty;)*) => {$(
        #[doc = concat!("loom's `", stringify!($atomic), "`: a handle naming racer's `", stringify!($atomic), "` and its creation.")]
        pub struct $atomic(Box<Object<imp::$atomic, $atomic>>);

        impl $atomic {
            /// A new atomic holding `v`.
            #[track_caller]
            #[inline]
            pub fn new(v: $int) -> $atomic {
                $atomic(Object::boxed(imp::$atomic::new(v)))
            }

            common_methods!($int);
            rmw_methods!($int; fetch_add, fetch_sub, fetch_and, fetch_nand, fetch_or, fetch_xor, fetch_max, fetch_min);
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

        impl std::fmt::Debug for $atomic {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Debug::fmt(&self.0.atomic, f)
            }
        }
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

/// loom's `AtomicBool`: a handle naming racer's `AtomicBool` and its creation.
pub struct AtomicBool(Box<Object<imp::AtomicBool, AtomicBool>>);

impl AtomicBool {
    /// A new atomic holding `v`.
    #[track_caller]
    #[inline]
    pub fn new(v: bool) -> AtomicBool {
        AtomicBool(Object::boxed(imp::AtomicBool::new(v)))
    }

    common_methods!(bool);
    rmw_methods!(bool; fetch_and, fetch_nand, fetch_or, fetch_xor);
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

impl std::fmt::Debug for AtomicBool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0.atomic, f)
    }
}

/// loom's `AtomicPtr`: a handle naming racer's `AtomicPtr` and its creation.
pub struct AtomicPtr<T>(Box<Object<imp::AtomicPtr<T>, AtomicPtr<T>>>);

impl<T> AtomicPtr<T> {
    /// A new atomic holding `p`.
    #[track_caller]
    #[inline]
    pub fn new(p: *mut T) -> AtomicPtr<T> {
        AtomicPtr(Object::boxed(imp::AtomicPtr::new(p)))
    }

    common_methods!(*mut T);
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

impl<T> std::fmt::Debug for AtomicPtr<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0.atomic, f)
    }
}
