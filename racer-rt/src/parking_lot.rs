//! `racer::parking_lot`: parking_lot's lock types under their own names, over racer's
//! `lock_api` adapters (`lock_adapter.rs`), a `Condvar` for their mutex and a `Once`, so code
//! that uses parking_lot's locks is checked by switching `parking_lot::` to
//! `racer::parking_lot::` (with the feature off they are parking_lot's own).

use lock_api_crate as la;
use parking_lot_crate as pl;

use crate::lock_adapter;
use racer_core::foreign_lock::ForeignCondvarWait;

/// parking_lot's raw mutex with racer's edges.
pub type RawMutex = lock_adapter::RawMutex<pl::RawMutex>;
/// parking_lot's raw fair mutex with racer's edges.
pub type RawFairMutex = lock_adapter::RawMutex<pl::RawFairMutex>;
/// parking_lot's raw reader-writer lock with racer's edges.
pub type RawRwLock = lock_adapter::RawRwLock<pl::RawRwLock>;
pub use pl::RawThreadId;

pub type Mutex<T> = la::Mutex<RawMutex, T>;
pub type MutexGuard<'a, T> = la::MutexGuard<'a, RawMutex, T>;
pub type MappedMutexGuard<'a, T> = la::MappedMutexGuard<'a, RawMutex, T>;

/// A `Mutex` in a `const` or `static`, as `parking_lot::const_mutex`.
pub const fn const_mutex<T>(val: T) -> Mutex<T> {
    Mutex::const_new(<RawMutex as la::RawMutex>::INIT, val)
}

pub type FairMutex<T> = la::Mutex<RawFairMutex, T>;
pub type FairMutexGuard<'a, T> = la::MutexGuard<'a, RawFairMutex, T>;
pub type MappedFairMutexGuard<'a, T> = la::MappedMutexGuard<'a, RawFairMutex, T>;

/// A `FairMutex` in a `const` or `static`, as `parking_lot::const_fair_mutex`.
pub const fn const_fair_mutex<T>(val: T) -> FairMutex<T> {
    FairMutex::const_new(<RawFairMutex as la::RawMutex>::INIT, val)
}

pub type RwLock<T> = la::RwLock<RawRwLock, T>;
pub type RwLockReadGuard<'a, T> = la::RwLockReadGuard<'a, RawRwLock, T>;
pub type RwLockWriteGuard<'a, T> = la::RwLockWriteGuard<'a, RawRwLock, T>;
pub type RwLockUpgradableReadGuard<'a, T> = la::RwLockUpgradableReadGuard<'a, RawRwLock, T>;
pub type MappedRwLockReadGuard<'a, T> = la::MappedRwLockReadGuard<'a, RawRwLock, T>;
pub type MappedRwLockWriteGuard<'a, T> = la::MappedRwLockWriteGuard<'a, RawRwLock, T>;

/// An `RwLock` in a `const` or `static`, as `parking_lot::const_rwlock`.
pub const fn const_rwlock<T>(val: T) -> RwLock<T> {
    RwLock::const_new(<RawRwLock as la::RawRwLock>::INIT, val)
}

pub type ReentrantMutex<T> = la::ReentrantMutex<RawMutex, RawThreadId, T>;
pub type ReentrantMutexGuard<'a, T> = la::ReentrantMutexGuard<'a, RawMutex, RawThreadId, T>;
pub type MappedReentrantMutexGuard<'a, T> = la::MappedReentrantMutexGuard<'a, RawMutex, RawThreadId, T>;

/// A `ReentrantMutex` in a `const` or `static`, as `parking_lot::const_reentrant_mutex`.
pub const fn const_reentrant_mutex<T>(val: T) -> ReentrantMutex<T> {
    ReentrantMutex::const_new(<RawMutex as la::RawMutex>::INIT, <RawThreadId as la::GetThreadId>::INIT, val)
}

/// Whether a timed wait of [`Condvar`] returned because its time ran out, as parking_lot's
/// (whose value racer cannot make).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaitTimeoutResult(bool);

impl WaitTimeoutResult {
    pub fn timed_out(self) -> bool {
        self.0
    }
}

/// A condition variable for [`Mutex`], as `parking_lot::Condvar` (whose own takes only
/// parking_lot's guard type). Notifications order nothing; the mutex, which a wait lets go of
/// and takes back through racer's adapter, does.
///
/// A wait takes `handshake` before it lets go of the user's mutex and keeps it until it sleeps
/// on `inner`; a notification takes `handshake` first. So a notification made after the waiter
/// let go of the mutex reaches it. An untimed wait is published for hang detection, as racer's
/// own `Condvar`'s are; it sleeps in timed steps, and a notification made after a step's time
/// ran out, before the step had `handshake` back, wakes no one in `inner`: the step sees it in
/// `Handshake::notifications` and returns.
pub struct Condvar {
    inner: pl::Condvar,
    handshake: pl::Mutex<Handshake>,
}

/// What waits and notifications share under `Condvar::handshake`.
///
/// Invariant: `notifications` counts the notifications made so far; `untimed` the threads inside
/// an untimed wait, each of which, while a notifier holds the handshake, sleeps in `inner` or is
/// between two steps, waiting for the handshake, and returns for this notification either way.
struct Handshake {
    notifications: u64,
    untimed: usize,
}

impl Condvar {
    pub const fn new() -> Condvar {
        Condvar { inner: pl::Condvar::new(), handshake: pl::const_mutex(Handshake { notifications: 0, untimed: 0 }) }
    }

    /// Lets go of `guard`'s mutex, runs `sleep` on `inner`, then takes the mutex back.
    fn sleep<T: ?Sized, R>(
        &self,
        guard: &mut MutexGuard<'_, T>,
        sleep: impl FnOnce(&pl::Condvar, &mut pl::MutexGuard<'_, Handshake>) -> R,
    ) -> R {
        let mut handshake = self.handshake.lock();
        la::MutexGuard::unlocked(guard, move || {
            let woken = sleep(&self.inner, &mut handshake);
            // Before the mutex is taken back: a notifier may hold it while it notifies.
            drop(handshake);
            woken
        })
    }

    /// Blocks until notified, as parking_lot's. It sleeps in timed steps, to poll for the end
    /// of its check by a hang; a step that times out is not returned as a spurious wake-up,
    /// unless a notification was made since the wait began (after the step's time ran out: it
    /// woke no one, and parking_lot's untimed wait would have returned for it).
    #[track_caller]
    pub fn wait<T: ?Sized>(&self, guard: &mut MutexGuard<'_, T>) {
        let site = std::panic::Location::caller();
        self.sleep(guard, |inner, handshake| {
            let seen = handshake.notifications;
            handshake.untimed += 1;
            // Counted off again however the wait ends (a hang's unwind too).
            struct Untimed<'a, 'b>(&'a mut pl::MutexGuard<'b, Handshake>);
            impl Drop for Untimed<'_, '_> {
                fn drop(&mut self) {
                    self.0.untimed -= 1;
                }
            }
            let handshake = Untimed(handshake);
            let waiting = ForeignCondvarWait::begin(site);
            while inner.wait_for(handshake.0, ForeignCondvarWait::STEP).timed_out() && handshake.0.notifications == seen
            {
                waiting.poll();
            }
        })
    }

    /// Blocks while `condition` holds, as parking_lot's.
    #[track_caller]
    pub fn wait_while<T: ?Sized, F: FnMut(&mut T) -> bool>(&self, guard: &mut MutexGuard<'_, T>, mut condition: F) {
        while condition(&mut *guard) {
            self.wait(guard);
        }
    }

    /// Blocks until notified or until `timeout`, as parking_lot's.
    pub fn wait_until<T: ?Sized>(
        &self,
        guard: &mut MutexGuard<'_, T>,
        timeout: std::time::Instant,
    ) -> WaitTimeoutResult {
        WaitTimeoutResult(self.sleep(guard, |inner, handshake| inner.wait_until(handshake, timeout).timed_out()))
    }

    /// Blocks while `condition` holds, until `timeout`, as parking_lot's.
    pub fn wait_while_until<T: ?Sized, F: FnMut(&mut T) -> bool>(
        &self,
        guard: &mut MutexGuard<'_, T>,
        mut condition: F,
        timeout: std::time::Instant,
    ) -> WaitTimeoutResult {
        let mut result = WaitTimeoutResult(false);
        while !result.timed_out() && condition(&mut *guard) {
            result = self.wait_until(guard, timeout);
        }
        result
    }

    /// Blocks until notified or for `timeout`, as parking_lot's.
    pub fn wait_for<T: ?Sized>(
        &self,
        guard: &mut MutexGuard<'_, T>,
        timeout: std::time::Duration,
    ) -> WaitTimeoutResult {
        self.wait_until(guard, deadline(timeout))
    }

    /// Blocks while `condition` holds, for `timeout`, as parking_lot's.
    pub fn wait_while_for<T: ?Sized, F: FnMut(&mut T) -> bool>(
        &self,
        guard: &mut MutexGuard<'_, T>,
        condition: F,
        timeout: std::time::Duration,
    ) -> WaitTimeoutResult {
        self.wait_while_until(guard, condition, deadline(timeout))
    }

    /// Wakes one waiter; whether one was woken, as parking_lot's (an untimed waiter between two
    /// steps counts: it returns for the notification counted).
    pub fn notify_one(&self) -> bool {
        let mut handshake = self.handshake.lock();
        handshake.notifications += 1;
        // None asleep in `inner` but an untimed waiter: it is between two steps.
        self.inner.notify_one() || handshake.untimed > 0
    }

    /// Wakes every waiter; how many were woken, as parking_lot's (at least every untimed
    /// waiter: one between two steps returns for the notification counted).
    pub fn notify_all(&self) -> usize {
        let mut handshake = self.handshake.lock();
        handshake.notifications += 1;
        self.inner.notify_all().max(handshake.untimed)
    }
}

/// `timeout` from now (a century where that overflows, as good as no deadline).
fn deadline(timeout: std::time::Duration) -> std::time::Instant {
    let now = std::time::Instant::now();
    now.checked_add(timeout).unwrap_or_else(|| now + std::time::Duration::from_secs(100 * 365 * 24 * 3600))
}

impl Default for Condvar {
    fn default() -> Condvar {
        Condvar::new()
    }
}

impl std::fmt::Debug for Condvar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Condvar").finish_non_exhaustive()
    }
}

pub use pl::OnceState;

/// A one-time initialisation, as `parking_lot::Once`. The initialiser happens before every
/// call that returns after it ran: it ends with a release of the `Once`'s address, and every
/// call that returns acquires it (`racer::annotate`'s edges; parking_lot's own `Once` inside).
pub struct Once(pl::Once);

impl Once {
    pub const fn new() -> Once {
        Once(pl::Once::new())
    }

    pub fn state(&self) -> OnceState {
        self.0.state()
    }

    /// Runs `f` if no call has completed, as parking_lot's.
    pub fn call_once<F: FnOnce()>(&self, f: F) {
        self.0.call_once(|| {
            f();
            racer_core::annotate::release(self);
        });
        racer_core::annotate::acquire(self);
    }

    /// As `call_once`, also after an initialiser panicked (poisoned), as parking_lot's.
    pub fn call_once_force<F: FnOnce(OnceState)>(&self, f: F) {
        self.0.call_once_force(|state| {
            f(state);
            racer_core::annotate::release(self);
        });
        racer_core::annotate::acquire(self);
    }
}

impl Drop for Once {
    fn drop(&mut self) {
        // A `Once` made later at this address starts with no edges.
        racer_core::annotate::forget_sync(&*self);
    }
}

impl Default for Once {
    fn default() -> Once {
        Once::new()
    }
}

impl std::fmt::Debug for Once {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Once").field("state", &self.state()).finish()
    }
}
