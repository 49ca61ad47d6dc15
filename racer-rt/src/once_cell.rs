//! `racer::once_cell` with `race-detect`: once_cell with `sync::{OnceCell, Lazy}` ordering their
//! initialisation before every reader, as racer's `OnceLock`/`LazyLock` do.
//!
//! Everything else is once_cell's own (`unsync`, whose cells never cross threads, and `race`,
//! whose cells are atomics that racer sees as such only through `racer::sync::atomic`). A test
//! build swaps `once_cell::` for `racer::once_cell::` in its `use` lines and nothing else.

pub use once_cell_crate::*;

/// `once_cell::sync` whose cells order their initialisation before every read of the value.
pub mod sync {
    use std::fmt;
    use std::ops::{Deref, DerefMut};
    use std::panic::Location;
    use std::sync::{Mutex, PoisonError};

    use once_cell_crate::sync as oc;
    use racer_core::task::HandOff;

    const OBJECT: &str = "once_cell::sync::OnceCell";

    /// A value and the clock its initialisation released into.
    ///
    /// Invariant: `hand` holds the clock of the thread that stored `value`, as it was just
    /// before the store (nothing for a value given in a constant context).
    struct Stored<T> {
        value: T,
        hand: HandOff,
    }

    impl<T> Stored<T> {
        /// `value`, about to be stored at `at`: the release of the initialisation.
        fn new(value: T, at: &'static Location<'static>) -> Stored<T> {
            let hand = HandOff::new(OBJECT, at);
            hand.release("initialising", at);
            Stored { value, hand }
        }

        /// As `new`, in a constant context (no thread ran before: nothing to release).
        #[track_caller]
        const fn initial(value: T) -> Stored<T> {
            Stored { value, hand: HandOff::new(OBJECT, Location::caller()) }
        }

        /// The value, read at `at`: an acquire of its initialisation.
        fn read(&self, at: &'static Location<'static>) -> &T {
            self.hand.acquire("observing", at);
            &self.value
        }
    }

    /// A thread-safe cell written at most once, as `once_cell::sync::OnceCell`. Its value
    /// carries the clock of the thread that stored it (`set`, the initialiser of
    /// `get_or_init`, ...), released just before the store; every call that returns the value
    /// acquires it, so each reader is ordered after the initialisation it sees.
    pub struct OnceCell<T> {
        inner: oc::OnceCell<Stored<T>>,
    }

    impl<T> Default for OnceCell<T> {
        fn default() -> OnceCell<T> {
            OnceCell::new()
        }
    }

    impl<T: fmt::Debug> fmt::Debug for OnceCell<T> {
        #[track_caller]
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self.get() {
                Some(v) => f.debug_tuple("OnceCell").field(v).finish(),
                None => f.write_str("OnceCell(Uninit)"),
            }
        }
    }

    impl<T: Clone> Clone for OnceCell<T> {
        #[track_caller]
        fn clone(&self) -> OnceCell<T> {
            let at = Location::caller();
            match self.get_at(at) {
                Some(value) => OnceCell { inner: oc::OnceCell::with_value(Stored::new(value.clone(), at)) },
                None => OnceCell::new(),
            }
        }

        #[track_caller]
        fn clone_from(&mut self, source: &Self) {
            match (self.get_mut(), source.get()) {
                (Some(this), Some(source)) => this.clone_from(source),
                _ => *self = source.clone(),
            }
        }
    }

    impl<T> From<T> for OnceCell<T> {
        #[track_caller]
        fn from(value: T) -> Self {
            OnceCell { inner: oc::OnceCell::with_value(Stored::new(value, Location::caller())) }
        }
    }

    impl<T: PartialEq> PartialEq for OnceCell<T> {
        #[track_caller]
        fn eq(&self, other: &OnceCell<T>) -> bool {
            self.get() == other.get()
        }
    }

    impl<T: Eq> Eq for OnceCell<T> {}

    impl<T> OnceCell<T> {
        /// An empty cell.
        pub const fn new() -> OnceCell<T> {
            OnceCell { inner: oc::OnceCell::new() }
        }

        /// A cell holding `value` (in a constant context too: nothing to release).
        #[track_caller]
        pub const fn with_value(value: T) -> OnceCell<T> {
            OnceCell { inner: oc::OnceCell::with_value(Stored::initial(value)) }
        }

        fn get_at(&self, at: &'static Location<'static>) -> Option<&T> {
            self.inner.get().map(|s| s.read(at))
        }

        /// The value, if set: an acquire of its initialisation.
        #[track_caller]
        pub fn get(&self) -> Option<&T> {
            self.get_at(Location::caller())
        }

        /// The value, blocking until it is set: an acquire of its initialisation.
        #[track_caller]
        pub fn wait(&self) -> &T {
            self.inner.wait().read(Location::caller())
        }

        /// A mutable reference to the value, if set: the borrow is exclusive.
        #[inline]
        pub fn get_mut(&mut self) -> Option<&mut T> {
            self.inner.get_mut().map(|s| &mut s.value)
        }

        /// The value, unchecked: an acquire of its initialisation.
        ///
        /// # Safety
        /// As once_cell's: the cell is initialised.
        #[track_caller]
        pub unsafe fn get_unchecked(&self) -> &T {
            // SAFETY: the caller's promise, passed on.
            unsafe { self.inner.get_unchecked() }.read(Location::caller())
        }

        /// Stores `value` if the cell is empty (a release), else gives it back.
        #[track_caller]
        pub fn set(&self, value: T) -> Result<(), T> {
            match self.try_insert_at(value, Location::caller()) {
                Ok(_) => Ok(()),
                Err((_, value)) => Err(value),
            }
        }

        fn try_insert_at(&self, value: T, at: &'static Location<'static>) -> Result<&T, (&T, T)> {
            match self.inner.try_insert(Stored::new(value, at)) {
                Ok(stored) => Ok(&stored.value),
                Err((stored, lost)) => Err((stored.read(at), lost.value)),
            }
        }

        /// Stores `value` if the cell is empty (a release) and returns it, else returns the
        /// value there (an acquire of its initialisation) and `value`.
        #[track_caller]
        pub fn try_insert(&self, value: T) -> Result<&T, (&T, T)> {
            self.try_insert_at(value, Location::caller())
        }

        /// The value, initialised by `f` if the cell is empty: `f`'s thread releases before
        /// storing, every caller acquires.
        #[track_caller]
        pub fn get_or_init<F>(&self, f: F) -> &T
        where
            F: FnOnce() -> T,
        {
            let at = Location::caller();
            self.inner.get_or_init(|| Stored::new(f(), at)).read(at)
        }

        /// As `get_or_init`, with an initialiser that may fail (the cell then stays empty).
        #[track_caller]
        pub fn get_or_try_init<F, E>(&self, f: F) -> Result<&T, E>
        where
            F: FnOnce() -> Result<T, E>,
        {
            let at = Location::caller();
            Ok(self.inner.get_or_try_init(|| f().map(|value| Stored::new(value, at)))?.read(at))
        }

        /// Takes the value out, leaving the cell empty (the borrow is exclusive).
        pub fn take(&mut self) -> Option<T> {
            self.inner.take().map(|s| s.value)
        }

        /// The value, the cell consumed.
        #[inline]
        pub fn into_inner(self) -> Option<T> {
            self.inner.into_inner().map(|s| s.value)
        }
    }

    /// A value initialised on first access, as `once_cell::sync::Lazy`, over this module's
    /// `OnceCell`: the initialiser's thread releases before storing the value, every access
    /// acquires.
    pub struct Lazy<T, F = fn() -> T> {
        cell: OnceCell<T>,
        /// The initialiser, taken once by the thread that runs it (inside the cell's
        /// initialisation, so never contended).
        init: Mutex<Option<F>>,
    }

    impl<T: fmt::Debug, F> fmt::Debug for Lazy<T, F> {
        #[track_caller]
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_struct("Lazy").field("cell", &self.cell).field("init", &"..").finish()
        }
    }

    fn poisoned() -> ! {
        panic!("Lazy instance has previously been poisoned")
    }

    impl<T, F> Lazy<T, F> {
        /// A lazy value initialised by `f` on first access.
        pub const fn new(f: F) -> Lazy<T, F> {
            Lazy { cell: OnceCell::new(), init: Mutex::new(Some(f)) }
        }

        /// The value if initialised, else the initialiser.
        pub fn into_value(this: Lazy<T, F>) -> Result<T, F> {
            let Lazy { cell, init } = this;
            cell.into_inner()
                .ok_or_else(|| init.into_inner().unwrap_or_else(PoisonError::into_inner).unwrap_or_else(|| poisoned()))
        }
    }

    impl<T, F: FnOnce() -> T> Lazy<T, F> {
        /// Forces the evaluation and returns the value: an acquire of its initialisation.
        #[track_caller]
        pub fn force(this: &Lazy<T, F>) -> &T {
            this.cell.get_or_init(|| {
                let f = this.init.lock().unwrap_or_else(PoisonError::into_inner).take();
                match f {
                    Some(f) => f(),
                    None => poisoned(),
                }
            })
        }

        /// Forces the evaluation and returns the value mutably (the borrow is exclusive).
        pub fn force_mut(this: &mut Lazy<T, F>) -> &mut T {
            if this.cell.get_mut().is_none() {
                let value = match this.init.get_mut().unwrap_or_else(PoisonError::into_inner).take() {
                    Some(f) => f(),
                    None => poisoned(),
                };
                this.cell = OnceCell::with_value(value);
            }
            this.cell.get_mut().unwrap_or_else(|| unreachable!())
        }

        /// The value if initialised: an acquire of its initialisation.
        #[track_caller]
        pub fn get(this: &Lazy<T, F>) -> Option<&T> {
            this.cell.get()
        }

        /// The value mutably if initialised (the borrow is exclusive).
        pub fn get_mut(this: &mut Lazy<T, F>) -> Option<&mut T> {
            this.cell.get_mut()
        }
    }

    impl<T, F: FnOnce() -> T> Deref for Lazy<T, F> {
        type Target = T;
        #[track_caller]
        fn deref(&self) -> &T {
            Lazy::force(self)
        }
    }

    impl<T, F: FnOnce() -> T> DerefMut for Lazy<T, F> {
        fn deref_mut(&mut self) -> &mut T {
            Lazy::force_mut(self)
        }
    }

    impl<T: Default> Default for Lazy<T> {
        fn default() -> Lazy<T> {
            Lazy::new(T::default)
        }
    }
}
