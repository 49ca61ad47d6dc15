//! The detector's part of a synchronisation primitive: its clock(s), where it was made and what
//! kind of primitive it is, from which each operation's event is made ("locking Mutex (created
//! at src/q.rs:12:5) at src/q.rs:40:9").
//!
//! Atomics keep their own (`sync::atomic`'s `AtomicSync`): their kind is the atomic's type,
//! given with each operation.

use std::marker::PhantomData;
use std::panic::Location;

use crate::model::clock::Epoch;
use crate::provenance::sync_event::SyncEvent;
use crate::runtime::sync_clock::{HeldClock, SyncClock};

/// What a kind of primitive is called in reports.
pub trait Kind {
    const NAME: &'static str;
}

/// The kinds of primitives that hold a [`SyncObject`].
pub mod kind {
    macro_rules! kinds {
        ($($kind:ident = $name:literal),* $(,)?) => {$(
            #[derive(Debug)]
            pub enum $kind {}

            impl super::Kind for $kind {
                const NAME: &'static str = $name;
            }
        )*};
    }

    kinds!(
        Arc = "Arc",
        Barrier = "Barrier",
        Channel = "a channel",
        Mutex = "Mutex",
        Once = "Once",
        OnceLock = "OnceLock",
        RwLock = "RwLock",
    );
}

/// A primitive of kind `K` whose happens-before state is `C` (one clock, a lock's clock, two
/// clocks...).
///
/// Invariant: `created` is where the primitive was made, for every event of its life.
pub struct SyncObject<K, C> {
    pub clock: C,
    pub created: &'static Location<'static>,
    kind: PhantomData<fn() -> K>,
}

impl<K: Kind, C> SyncObject<K, C> {
    #[inline]
    pub const fn new(clock: C, created: &'static Location<'static>) -> SyncObject<K, C> {
        SyncObject { clock, created, kind: PhantomData }
    }

    /// The event of operation `op` on this primitive at `at`.
    #[inline]
    pub fn event(&self, op: &'static str, at: &'static Location<'static>) -> SyncEvent {
        SyncEvent { op, object: K::NAME, created: Some(self.created), at }
    }
}

impl<K: Kind> SyncObject<K, SyncClock> {
    /// A release (`op` at `at`) by the calling thread into the clock.
    #[inline]
    pub fn post(&self, op: &'static str, at: &'static Location<'static>) -> Option<Epoch> {
        self.clock.post(self.event(op, at))
    }

    /// An acquire (`op` at `at`) by the calling thread from the clock.
    #[inline]
    pub fn wait(&self, op: &'static str, at: &'static Location<'static>) {
        self.clock.wait(self.event(op, at))
    }
}

impl<K: Kind> SyncObject<K, HeldClock> {
    /// The release of the lock (`op` at `at`) by the calling thread, before it lets go.
    ///
    /// # Safety
    /// As `HeldClock::post`: the calling thread holds the lock.
    #[inline]
    pub unsafe fn post(&self, op: &'static str, at: &'static Location<'static>) {
        // SAFETY: the caller holds the lock.
        unsafe { self.clock.post(self.event(op, at)) }
    }

    /// The acquire of the lock (`op` at `at`) by the calling thread, once it holds it.
    ///
    /// # Safety
    /// As `HeldClock::wait`: the calling thread holds the lock.
    #[inline]
    pub unsafe fn wait(&self, op: &'static str, at: &'static Location<'static>) {
        // SAFETY: the caller holds the lock.
        unsafe { self.clock.wait(self.event(op, at)) }
    }
}
