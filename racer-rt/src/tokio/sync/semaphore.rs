//! `Semaphore` and its permits: tokio's semaphore does the counting and the waiting, and its
//! clock orders givers before takers. Giving permits back (a permit's drop, `add_permits`)
//! releases; taking them acquires once tokio gave them. `forget` and `forget_permits` release
//! nothing. `close` releases too, and whoever learns of the close (an acquisition failing with
//! the closed error, `is_closed` returning true) acquires: a once-cell over a semaphore (async-lazy)
//! closes it after the value is written, and its waiters read the value when their acquisition
//! fails.
//!
//! A permit here is a count: tokio's permit is forgotten as soon as it is taken, and the permit's
//! drop gives its permits back with `add_permits`, which is what the drop of tokio's permit does.
//! So an owned permit holds our `Arc<Semaphore>` (tokio's owned permits need an `Arc` of
//! tokio's semaphore).

use std::fmt;
use std::future::Future;
use std::panic::Location;
use std::sync::Arc;

use racer_core::task::HandOff;
use tokio_crate::sync as ts;
use tokio_crate::sync::{AcquireError, TryAcquireError};

const OBJECT: &str = "tokio::sync::Semaphore";

/// A counting semaphore, as `tokio::sync::Semaphore`.
#[derive(Debug)]
pub struct Semaphore {
    hand: HandOff,
    raw: ts::Semaphore,
}

/// Permits taken from a `Semaphore`, given back when dropped, as `tokio::sync::SemaphorePermit`.
#[must_use]
#[clippy::has_significant_drop]
pub struct SemaphorePermit<'a> {
    sem: &'a Semaphore,
    permits: usize,
    at: &'static Location<'static>,
}

/// Permits taken from a `Semaphore` in an `Arc`, as `tokio::sync::OwnedSemaphorePermit`.
#[must_use]
#[clippy::has_significant_drop]
pub struct OwnedSemaphorePermit {
    sem: Arc<Semaphore>,
    permits: usize,
    at: &'static Location<'static>,
}

impl Semaphore {
    /// The most permits a semaphore can hold.
    pub const MAX_PERMITS: usize = ts::Semaphore::MAX_PERMITS;

    /// A semaphore with `permits` permits.
    #[track_caller]
    pub fn new(permits: usize) -> Self {
        Semaphore { hand: HandOff::scheduled(OBJECT, Location::caller()), raw: ts::Semaphore::new(permits) }
    }

    /// As `new`, in a constant context.
    #[track_caller]
    pub const fn const_new(permits: usize) -> Self {
        Semaphore { hand: HandOff::scheduled(OBJECT, Location::caller()), raw: ts::Semaphore::const_new(permits) }
    }

    /// How many permits are free.
    pub fn available_permits(&self) -> usize {
        self.raw.available_permits()
    }

    /// Adds `n` permits: a release, as a permit's drop.
    #[track_caller]
    pub fn add_permits(&self, n: usize) {
        self.hand.release("releasing", Location::caller());
        self.raw.add_permits(n);
    }

    /// Takes away up to `n` free permits, returning how many: releases nothing.
    pub fn forget_permits(&self, n: usize) -> usize {
        self.raw.forget_permits(n)
    }

    fn taken(&self, permits: usize, at: &'static Location<'static>) -> SemaphorePermit<'_> {
        self.hand.acquire("acquiring", at);
        SemaphorePermit { sem: self, permits, at }
    }

    fn taken_owned(self: Arc<Self>, permits: usize, at: &'static Location<'static>) -> OwnedSemaphorePermit {
        self.hand.acquire("acquiring", at);
        OwnedSemaphorePermit { sem: self, permits, at }
    }

    /// The closer's release, acquired by a caller at `at` that learnt of the close.
    fn saw_close(&self, at: &'static Location<'static>) {
        self.hand.acquire("seeing closed", at);
    }

    /// Takes `n` permits from tokio's semaphore, waiting for them, and forgets tokio's permit.
    async fn take(&self, n: u32, at: &'static Location<'static>) -> Result<(), AcquireError> {
        let permit = self.raw.acquire_many(n).await.inspect_err(|_| self.saw_close(at))?;
        permit.forget();
        Ok(())
    }

    /// Takes `n` permits if they are free, and forgets tokio's permit.
    fn try_take(&self, n: u32, at: &'static Location<'static>) -> Result<(), TryAcquireError> {
        let permit = self.raw.try_acquire_many(n).inspect_err(|e| {
            if matches!(e, TryAcquireError::Closed) {
                self.saw_close(at);
            }
        })?;
        permit.forget();
        Ok(())
    }

    /// Takes `n` permits, blocking the thread, and forgets tokio's permit.
    #[track_caller]
    fn blocking_take(&self, n: u32, at: &'static Location<'static>) -> Result<(), AcquireError> {
        let permit = self.raw.blocking_acquire_many(n).inspect_err(|_| self.saw_close(at))?;
        permit.forget();
        Ok(())
    }

    /// Takes a permit, waiting (asynchronously) for it: as tokio's `acquire`.
    #[track_caller]
    pub fn acquire(&self) -> impl Future<Output = Result<SemaphorePermit<'_>, AcquireError>> + '_ {
        self.acquire_many(1)
    }

    /// Takes `n` permits, waiting (asynchronously) for them: as tokio's `acquire_many`.
    #[track_caller]
    pub fn acquire_many(&self, n: u32) -> impl Future<Output = Result<SemaphorePermit<'_>, AcquireError>> + '_ {
        let at = Location::caller();
        async move {
            self.take(n, at).await?;
            Ok(self.taken(n as usize, at))
        }
    }

    /// Takes a permit if one is free: as tokio's `try_acquire`.
    #[track_caller]
    pub fn try_acquire(&self) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        self.try_acquire_many(1)
    }

    /// Takes `n` permits if they are free: as tokio's `try_acquire_many`.
    #[track_caller]
    pub fn try_acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, TryAcquireError> {
        let at = Location::caller();
        self.try_take(n, at)?;
        Ok(self.taken(n as usize, at))
    }

    /// Takes a permit, blocking the thread: as tokio's `blocking_acquire`.
    #[track_caller]
    pub fn blocking_acquire(&self) -> Result<SemaphorePermit<'_>, AcquireError> {
        self.blocking_acquire_many(1)
    }

    /// Takes `n` permits, blocking the thread: as tokio's `blocking_acquire_many`.
    #[track_caller]
    pub fn blocking_acquire_many(&self, n: u32) -> Result<SemaphorePermit<'_>, AcquireError> {
        let at = Location::caller();
        self.blocking_take(n, at)?;
        Ok(self.taken(n as usize, at))
    }

    /// Takes a permit of a semaphore in an `Arc`: as tokio's `acquire_owned`.
    #[track_caller]
    pub fn acquire_owned(self: Arc<Self>) -> impl Future<Output = Result<OwnedSemaphorePermit, AcquireError>> {
        self.acquire_many_owned(1)
    }

    /// Takes `n` permits of a semaphore in an `Arc`: as tokio's `acquire_many_owned`.
    #[track_caller]
    pub fn acquire_many_owned(
        self: Arc<Self>,
        n: u32,
    ) -> impl Future<Output = Result<OwnedSemaphorePermit, AcquireError>> {
        let at = Location::caller();
        async move {
            self.take(n, at).await?;
            Ok(self.taken_owned(n as usize, at))
        }
    }

    /// Takes a permit of a semaphore in an `Arc` if one is free: as tokio's `try_acquire_owned`.
    #[track_caller]
    pub fn try_acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, TryAcquireError> {
        self.try_acquire_many_owned(1)
    }

    /// Takes `n` permits of a semaphore in an `Arc` if they are free: as tokio's
    /// `try_acquire_many_owned`.
    #[track_caller]
    pub fn try_acquire_many_owned(self: Arc<Self>, n: u32) -> Result<OwnedSemaphorePermit, TryAcquireError> {
        let at = Location::caller();
        self.try_take(n, at)?;
        Ok(self.taken_owned(n as usize, at))
    }

    /// Takes a permit of a semaphore in an `Arc`, blocking the thread: as tokio's
    /// `blocking_acquire_owned`.
    #[track_caller]
    pub fn blocking_acquire_owned(self: Arc<Self>) -> Result<OwnedSemaphorePermit, AcquireError> {
        self.blocking_acquire_many_owned(1)
    }

    /// Takes `n` permits of a semaphore in an `Arc`, blocking the thread: as tokio's
    /// `blocking_acquire_many_owned`.
    #[track_caller]
    pub fn blocking_acquire_many_owned(self: Arc<Self>, n: u32) -> Result<OwnedSemaphorePermit, AcquireError> {
        let at = Location::caller();
        self.blocking_take(n, at)?;
        Ok(self.taken_owned(n as usize, at))
    }

    /// Closes the semaphore: waiting and later acquisitions fail. A release first, which
    /// whoever sees the close acquires.
    #[track_caller]
    pub fn close(&self) {
        self.hand.release("closing", Location::caller());
        self.raw.close();
    }

    /// Whether the semaphore was closed: true acquires the closer's release.
    #[track_caller]
    pub fn is_closed(&self) -> bool {
        let closed = self.raw.is_closed();
        if closed {
            self.saw_close(Location::caller());
        }
        closed
    }
}

impl<'a> SemaphorePermit<'a> {
    /// Forgets the permits: they are not given back, and nothing is released.
    pub fn forget(mut self) {
        self.permits = 0;
    }

    /// Adds `other`'s permits to these: as tokio's `SemaphorePermit::merge`.
    #[track_caller]
    pub fn merge(&mut self, mut other: Self) {
        assert!(std::ptr::eq(self.sem, other.sem), "merging permits from different semaphore instances");
        self.permits = self.permits.checked_add(other.permits).expect("number of permits overflowed");
        other.permits = 0;
    }

    /// Splits `n` of the permits off into a permit of their own, if there are that many.
    pub fn split(&mut self, n: usize) -> Option<Self> {
        if n > self.permits {
            return None;
        }
        self.permits -= n;
        Some(SemaphorePermit { sem: self.sem, permits: n, at: self.at })
    }

    /// The semaphore the permits are of.
    pub fn semaphore(&self) -> &Semaphore {
        self.sem
    }

    /// How many permits this is.
    pub fn num_permits(&self) -> usize {
        self.permits
    }
}

impl OwnedSemaphorePermit {
    /// Forgets the permits: they are not given back, and nothing is released.
    pub fn forget(mut self) {
        self.permits = 0;
    }

    /// Adds `other`'s permits to these: as tokio's `OwnedSemaphorePermit::merge`.
    #[track_caller]
    pub fn merge(&mut self, mut other: Self) {
        assert!(Arc::ptr_eq(&self.sem, &other.sem), "merging permits from different semaphore instances");
        self.permits = self.permits.checked_add(other.permits).expect("number of permits overflowed");
        other.permits = 0;
    }

    /// Splits `n` of the permits off into a permit of their own, if there are that many.
    pub fn split(&mut self, n: usize) -> Option<Self> {
        if n > self.permits {
            return None;
        }
        self.permits -= n;
        Some(OwnedSemaphorePermit { sem: self.sem.clone(), permits: n, at: self.at })
    }

    /// The semaphore the permits are of.
    pub fn semaphore(&self) -> &Arc<Semaphore> {
        &self.sem
    }

    /// How many permits this is.
    pub fn num_permits(&self) -> usize {
        self.permits
    }
}

/// Gives `permits` back to `sem`, a release first.
fn give_back(sem: &Semaphore, permits: usize, at: &'static Location<'static>) {
    if permits > 0 {
        sem.hand.release("releasing", at);
        sem.raw.add_permits(permits);
    }
}

impl Drop for SemaphorePermit<'_> {
    fn drop(&mut self) {
        give_back(self.sem, self.permits, self.at);
    }
}

impl Drop for OwnedSemaphorePermit {
    fn drop(&mut self) {
        give_back(&self.sem, self.permits, self.at);
    }
}

impl fmt::Debug for SemaphorePermit<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SemaphorePermit").field("sem", &self.sem).field("permits", &self.permits).finish()
    }
}

impl fmt::Debug for OwnedSemaphorePermit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnedSemaphorePermit").field("sem", &self.sem).field("permits", &self.permits).finish()
    }
}
