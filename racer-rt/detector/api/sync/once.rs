//! `racer::sync::Once`: std's one-time initialisation. The completing call posts into the
//! `Once`'s clock before std marks it complete, and every call that finds (or waits for) it
//! complete waits on that clock, so the initialisation happens before every observer.

use std::fmt;
use std::panic::{Location, RefUnwindSafe, UnwindSafe};

pub use std::sync::OnceState;

use crate::runtime::sync_clock::SyncClock;
use crate::runtime::sync_object::{kind, SyncObject};

/// A one-time initialisation primitive, as `std::sync::Once`.
///
/// Invariant: once `inner` is complete, `sync.clock` holds the clock of the call that completed it.
pub struct Once {
    inner: std::sync::Once,
    sync: SyncObject<kind::Once, SyncClock>,
}

impl UnwindSafe for Once {}
impl RefUnwindSafe for Once {}

impl Once {
    #[track_caller]
    pub const fn new() -> Once {
        Once { inner: std::sync::Once::new(), sync: SyncObject::new(SyncClock::new(), Location::caller()) }
    }

    #[track_caller]
    pub fn call_once<F: FnOnce()>(&self, f: F) {
        let at = Location::caller();
        self.inner.call_once(|| {
            f();
            self.sync.clock.post(self.sync.event("completing", at));
        });
        self.sync.clock.wait(self.sync.event("observing", at));
    }

    #[track_caller]
    pub fn call_once_force<F: FnOnce(&OnceState)>(&self, f: F) {
        let at = Location::caller();
        self.inner.call_once_force(|state| {
            f(state);
            self.sync.clock.post(self.sync.event("completing", at));
        });
        self.sync.clock.wait(self.sync.event("observing", at));
    }

    /// True once some call completed; observing that waits on the completion.
    #[track_caller]
    pub fn is_completed(&self) -> bool {
        let done = self.inner.is_completed();
        if done {
            self.sync.clock.wait(self.sync.event("observing", Location::caller()));
        }
        done
    }
}

impl Default for Once {
    #[track_caller]
    fn default() -> Once {
        Once::new()
    }
}

impl fmt::Debug for Once {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Once").finish_non_exhaustive()
    }
}
