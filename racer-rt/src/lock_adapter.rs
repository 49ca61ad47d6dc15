//! `racer::lock_api`: adapters that give any `lock_api` raw lock racer's happens-before edges
//! (and deadlock bookkeeping), so `lock_api::Mutex<racer::lock_api::RawMutex<MySpinLock>, T>`
//! orders like `racer::sync::Mutex<T>`. `racer::parking_lot` is parking_lot's raw locks in
//! these adapters. Generic, so it lives here (racer-core uses std alone); each operation calls
//! racer-core's `ForeignLock`, around the raw lock's own.
//!
//! Sites: lock_api's `lock()` is not `#[track_caller]`, so the "at" of a lock event is the line
//! in lock_api that called the raw lock; a race report's stacks still show the user's frames.

use std::panic::Location;

use lock_api_crate as la;
use racer_core::foreign_lock::ForeignLock;
use racer_core::LockMode::{self, Exclusive, Shared};

/// A `lock_api::RawMutex` `R` whose lock waits on, and unlock posts into, a clock racer keeps
/// beside it.
///
/// Invariant: every operation on `raw` that takes the lock is followed by `racer.locked`, every
/// one that lets it go is preceded by `racer.unlocking`, on the same thread.
pub struct RawMutex<R> {
    raw: R,
    racer: ForeignLock,
}

// SAFETY: the lock is `raw`'s; `racer` only adds bookkeeping around each of its operations.
unsafe impl<R: la::RawMutex> la::RawMutex for RawMutex<R> {
    const INIT: Self = RawMutex { raw: R::INIT, racer: ForeignLock::new("Mutex (lock_api)") };
    type GuardMarker = R::GuardMarker;

    #[track_caller]
    fn lock(&self) {
        self.racer.lock(Exclusive, Location::caller(), || self.raw.try_lock(), || self.raw.lock());
    }

    #[track_caller]
    fn try_lock(&self) -> bool {
        let taken = self.raw.try_lock();
        if taken {
            self.racer.locked(Exclusive, Location::caller(), false);
        }
        taken
    }

    #[track_caller]
    unsafe fn unlock(&self) {
        self.racer.unlocking(Exclusive, Location::caller());
        // SAFETY: the caller holds the lock, as `unlock` requires.
        unsafe { self.raw.unlock() }
    }

    fn is_locked(&self) -> bool {
        self.raw.is_locked()
    }
}

// SAFETY: as above.
unsafe impl<R: la::RawMutexFair> la::RawMutexFair for RawMutex<R> {
    #[track_caller]
    unsafe fn unlock_fair(&self) {
        self.racer.unlocking(Exclusive, Location::caller());
        // SAFETY: the caller holds the lock.
        unsafe { self.raw.unlock_fair() }
    }
}

// SAFETY: as above.
unsafe impl<R: la::RawMutexTimed> la::RawMutexTimed for RawMutex<R> {
    type Duration = R::Duration;
    type Instant = R::Instant;

    #[track_caller]
    fn try_lock_for(&self, timeout: Self::Duration) -> bool {
        self.took(self.raw.try_lock_for(timeout), Exclusive, Location::caller())
    }

    #[track_caller]
    fn try_lock_until(&self, timeout: Self::Instant) -> bool {
        self.took(self.raw.try_lock_until(timeout), Exclusive, Location::caller())
    }
}

impl<R> RawMutex<R> {
    fn took(&self, taken: bool, mode: LockMode, at: &'static Location<'static>) -> bool {
        if taken {
            self.racer.locked(mode, at, false);
        }
        taken
    }
}

/// A `lock_api::RawRwLock` `R` with racer's edges: a write-unlock happens before every later
/// lock, a read-unlock before every later write-lock, and two read sections stay parallel.
/// Upgradable reads count as reads until upgraded.
///
/// Invariant: as [`RawMutex`]'s, per mode.
pub struct RawRwLock<R> {
    raw: R,
    racer: ForeignLock,
}

impl<R> RawRwLock<R> {
    fn took(&self, taken: bool, mode: LockMode, at: &'static Location<'static>) -> bool {
        if taken {
            self.racer.locked(mode, at, false);
        }
        taken
    }
}

// SAFETY: the lock is `raw`'s; `racer` only adds bookkeeping around each of its operations.
unsafe impl<R: la::RawRwLock> la::RawRwLock for RawRwLock<R> {
    const INIT: Self = RawRwLock { raw: R::INIT, racer: ForeignLock::new("RwLock (lock_api)") };
    type GuardMarker = R::GuardMarker;

    #[track_caller]
    fn lock_shared(&self) {
        self.racer.lock(Shared, Location::caller(), || self.raw.try_lock_shared(), || self.raw.lock_shared());
    }

    #[track_caller]
    fn try_lock_shared(&self) -> bool {
        self.took(self.raw.try_lock_shared(), Shared, Location::caller())
    }

    #[track_caller]
    unsafe fn unlock_shared(&self) {
        self.racer.unlocking(Shared, Location::caller());
        // SAFETY: the caller holds a shared lock.
        unsafe { self.raw.unlock_shared() }
    }

    #[track_caller]
    fn lock_exclusive(&self) {
        self.racer.lock(Exclusive, Location::caller(), || self.raw.try_lock_exclusive(), || self.raw.lock_exclusive());
    }

    #[track_caller]
    fn try_lock_exclusive(&self) -> bool {
        self.took(self.raw.try_lock_exclusive(), Exclusive, Location::caller())
    }

    #[track_caller]
    unsafe fn unlock_exclusive(&self) {
        self.racer.unlocking(Exclusive, Location::caller());
        // SAFETY: the caller holds the exclusive lock.
        unsafe { self.raw.unlock_exclusive() }
    }

    fn is_locked(&self) -> bool {
        self.raw.is_locked()
    }

    fn is_locked_exclusive(&self) -> bool {
        self.raw.is_locked_exclusive()
    }
}

// SAFETY: as above.
unsafe impl<R: la::RawRwLockFair> la::RawRwLockFair for RawRwLock<R> {
    #[track_caller]
    unsafe fn unlock_shared_fair(&self) {
        self.racer.unlocking(Shared, Location::caller());
        // SAFETY: the caller holds a shared lock.
        unsafe { self.raw.unlock_shared_fair() }
    }

    #[track_caller]
    unsafe fn unlock_exclusive_fair(&self) {
        self.racer.unlocking(Exclusive, Location::caller());
        // SAFETY: the caller holds the exclusive lock.
        unsafe { self.raw.unlock_exclusive_fair() }
    }
}

// SAFETY: as above.
unsafe impl<R: la::RawRwLockDowngrade> la::RawRwLockDowngrade for RawRwLock<R> {
    #[track_caller]
    unsafe fn downgrade(&self) {
        self.racer.downgrading(Location::caller());
        // SAFETY: the caller holds the exclusive lock.
        unsafe { self.raw.downgrade() }
    }
}

// SAFETY: as above.
unsafe impl<R: la::RawRwLockTimed> la::RawRwLockTimed for RawRwLock<R> {
    type Duration = R::Duration;
    type Instant = R::Instant;

    #[track_caller]
    fn try_lock_shared_for(&self, timeout: Self::Duration) -> bool {
        self.took(self.raw.try_lock_shared_for(timeout), Shared, Location::caller())
    }

    #[track_caller]
    fn try_lock_shared_until(&self, timeout: Self::Instant) -> bool {
        self.took(self.raw.try_lock_shared_until(timeout), Shared, Location::caller())
    }

    #[track_caller]
    fn try_lock_exclusive_for(&self, timeout: Self::Duration) -> bool {
        self.took(self.raw.try_lock_exclusive_for(timeout), Exclusive, Location::caller())
    }

    #[track_caller]
    fn try_lock_exclusive_until(&self, timeout: Self::Instant) -> bool {
        self.took(self.raw.try_lock_exclusive_until(timeout), Exclusive, Location::caller())
    }
}

// SAFETY: as above.
unsafe impl<R: la::RawRwLockRecursive> la::RawRwLockRecursive for RawRwLock<R> {
    #[track_caller]
    fn lock_shared_recursive(&self) {
        let at = Location::caller();
        self.racer.lock(Shared, at, || self.raw.try_lock_shared_recursive(), || self.raw.lock_shared_recursive());
    }

    #[track_caller]
    fn try_lock_shared_recursive(&self) -> bool {
        self.took(self.raw.try_lock_shared_recursive(), Shared, Location::caller())
    }
}

// SAFETY: as above.
unsafe impl<R: la::RawRwLockRecursiveTimed> la::RawRwLockRecursiveTimed for RawRwLock<R> {
    #[track_caller]
    fn try_lock_shared_recursive_for(&self, timeout: Self::Duration) -> bool {
        self.took(self.raw.try_lock_shared_recursive_for(timeout), Shared, Location::caller())
    }

    #[track_caller]
    fn try_lock_shared_recursive_until(&self, timeout: Self::Instant) -> bool {
        self.took(self.raw.try_lock_shared_recursive_until(timeout), Shared, Location::caller())
    }
}

// SAFETY: as above. An upgradable hold is a read (it excludes other upgradables and writers,
// but only reads); `upgrade` makes it a write once the readers are gone.
unsafe impl<R: la::RawRwLockUpgrade> la::RawRwLockUpgrade for RawRwLock<R> {
    #[track_caller]
    fn lock_upgradable(&self) {
        self.racer.lock(Shared, Location::caller(), || self.raw.try_lock_upgradable(), || self.raw.lock_upgradable());
    }

    #[track_caller]
    fn try_lock_upgradable(&self) -> bool {
        self.took(self.raw.try_lock_upgradable(), Shared, Location::caller())
    }

    #[track_caller]
    unsafe fn unlock_upgradable(&self) {
        self.racer.unlocking(Shared, Location::caller());
        // SAFETY: the caller holds an upgradable lock.
        unsafe { self.raw.unlock_upgradable() }
    }

    #[track_caller]
    unsafe fn upgrade(&self) {
        // SAFETY: the caller holds an upgradable lock.
        unsafe { self.raw.upgrade() };
        self.racer.upgraded(Location::caller());
    }

    #[track_caller]
    unsafe fn try_upgrade(&self) -> bool {
        // SAFETY: the caller holds an upgradable lock.
        let upgraded = unsafe { self.raw.try_upgrade() };
        if upgraded {
            self.racer.upgraded(Location::caller());
        }
        upgraded
    }
}

// SAFETY: as above.
unsafe impl<R: la::RawRwLockUpgradeFair> la::RawRwLockUpgradeFair for RawRwLock<R> {
    #[track_caller]
    unsafe fn unlock_upgradable_fair(&self) {
        self.racer.unlocking(Shared, Location::caller());
        // SAFETY: the caller holds an upgradable lock.
        unsafe { self.raw.unlock_upgradable_fair() }
    }
}

// SAFETY: as above.
unsafe impl<R: la::RawRwLockUpgradeDowngrade> la::RawRwLockUpgradeDowngrade for RawRwLock<R> {
    /// Upgradable to shared: a read stays a read, nothing to order.
    unsafe fn downgrade_upgradable(&self) {
        // SAFETY: the caller holds an upgradable lock.
        unsafe { self.raw.downgrade_upgradable() }
    }

    #[track_caller]
    unsafe fn downgrade_to_upgradable(&self) {
        self.racer.downgrading(Location::caller());
        // SAFETY: the caller holds the exclusive lock.
        unsafe { self.raw.downgrade_to_upgradable() }
    }
}

// SAFETY: as above.
unsafe impl<R: la::RawRwLockUpgradeTimed> la::RawRwLockUpgradeTimed for RawRwLock<R> {
    #[track_caller]
    fn try_lock_upgradable_for(&self, timeout: Self::Duration) -> bool {
        self.took(self.raw.try_lock_upgradable_for(timeout), Shared, Location::caller())
    }

    #[track_caller]
    fn try_lock_upgradable_until(&self, timeout: Self::Instant) -> bool {
        self.took(self.raw.try_lock_upgradable_until(timeout), Shared, Location::caller())
    }

    #[track_caller]
    unsafe fn try_upgrade_for(&self, timeout: Self::Duration) -> bool {
        // SAFETY: the caller holds an upgradable lock.
        let upgraded = unsafe { self.raw.try_upgrade_for(timeout) };
        if upgraded {
            self.racer.upgraded(Location::caller());
        }
        upgraded
    }

    #[track_caller]
    unsafe fn try_upgrade_until(&self, timeout: Self::Instant) -> bool {
        // SAFETY: the caller holds an upgradable lock.
        let upgraded = unsafe { self.raw.try_upgrade_until(timeout) };
        if upgraded {
            self.racer.upgraded(Location::caller());
        }
        upgraded
    }
}
