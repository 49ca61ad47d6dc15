//! `racer::sync::OnceLock`: std's write-once cell. The initialising call posts into the cell's
//! clock before std publishes the value, and every call that returns the value waits on that
//! clock, so whatever the initialiser did happens before every use of the value.

use std::fmt;
use std::panic::{Location, RefUnwindSafe, UnwindSafe};

use crate::runtime::sync_clock::SyncClock;
use crate::runtime::sync_object::{kind, SyncObject};

/// A cell written at most once, as `std::sync::OnceLock`.
///
/// Invariant: once `inner` holds a value, `sync.clock` holds the clock of the thread that put it
/// there, as of just before it did.
pub struct OnceLock<T> {
    inner: std::sync::OnceLock<T>,
    sync: SyncObject<kind::OnceLock, SyncClock>,
}

impl<T: UnwindSafe> UnwindSafe for OnceLock<T> {}
impl<T: RefUnwindSafe + UnwindSafe> RefUnwindSafe for OnceLock<T> {}

impl<T> OnceLock<T> {
    #[track_caller]
    pub const fn new() -> OnceLock<T> {
        OnceLock { inner: std::sync::OnceLock::new(), sync: SyncObject::new(SyncClock::new(), Location::caller()) }
    }

    /// Returns `value` after waiting on the initialisation that made it.
    fn observed<'a>(&self, value: &'a T, at: &'static Location<'static>) -> &'a T {
        self.sync.clock.wait(self.sync.event("observing", at));
        value
    }

    #[track_caller]
    pub fn get(&self) -> Option<&T> {
        let at = Location::caller();
        self.inner.get().map(|v| self.observed(v, at))
    }

    /// Exclusive access needs no synchronisation.
    pub fn get_mut(&mut self) -> Option<&mut T> {
        self.inner.get_mut()
    }

    #[track_caller]
    pub fn set(&self, value: T) -> Result<(), T> {
        let at = Location::caller();
        let mut value = Some(value);
        self.get_or_init_at(at, || value.take().expect("initialiser runs at most once"));
        match value {
            None => Ok(()),
            Some(value) => Err(value),
        }
    }

    #[track_caller]
    pub fn get_or_init<F: FnOnce() -> T>(&self, f: F) -> &T {
        self.get_or_init_at(Location::caller(), f)
    }

    pub(crate) fn get_or_init_at<F: FnOnce() -> T>(&self, at: &'static Location<'static>, f: F) -> &T {
        let value = self.inner.get_or_init(|| {
            let value = f();
            self.sync.clock.post(self.sync.event("initialising", at));
            value
        });
        self.observed(value, at)
    }

    /// The value if set, without observing it (for `Debug`).
    pub(crate) fn peek(&self) -> Option<&T> {
        self.inner.get()
    }

    pub fn into_inner(self) -> Option<T> {
        self.inner.into_inner()
    }

    pub fn take(&mut self) -> Option<T> {
        self.inner.take()
    }
}

impl<T> Default for OnceLock<T> {
    #[track_caller]
    fn default() -> OnceLock<T> {
        OnceLock::new()
    }
}

impl<T> From<T> for OnceLock<T> {
    #[track_caller]
    fn from(value: T) -> OnceLock<T> {
        OnceLock {
            inner: std::sync::OnceLock::from(value),
            sync: SyncObject::new(SyncClock::new(), Location::caller()),
        }
    }
}

impl<T: Clone> Clone for OnceLock<T> {
    /// Reading the value to clone it observes it.
    #[track_caller]
    fn clone(&self) -> OnceLock<T> {
        let at = Location::caller();
        let inner = std::sync::OnceLock::new();
        if let Some(v) = self.get() {
            let _ = inner.set(v.clone());
        }
        OnceLock { inner, sync: SyncObject::new(SyncClock::new(), at) }
    }
}

impl<T: PartialEq> PartialEq for OnceLock<T> {
    fn eq(&self, other: &OnceLock<T>) -> bool {
        self.get() == other.get()
    }
}

impl<T: Eq> Eq for OnceLock<T> {}

/// Prints the value without observing it (printing is not a synchronisation).
impl<T: fmt::Debug> fmt::Debug for OnceLock<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
