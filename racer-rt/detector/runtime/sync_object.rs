//! The detector's part of a synchronisation primitive: its clock(s), where it was made and what
//! kind of primitive it is, from which each operation's event is made ("locking Mutex (created
//! at src/q.rs:12:5) at src/q.rs:40:9").
//!
//! The primitives post and wait on `clock` themselves (`x.sync.clock.post(x.sync.event(..))`):
//! no call level is added to the unoptimised user's build, where these calls are instantiated.
//!
//! Atomics keep their own (`sync::atomic`'s `AtomicSync`): their kind is the atomic's type,
//! given with each operation.

use std::marker::PhantomData;
use std::panic::Location;

use crate::provenance::sync_event::SyncEvent;

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
