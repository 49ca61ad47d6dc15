//! `racer::tokio::sync::watch`: tokio's watch channel, with one clock per channel (a receiver
//! only ever sees the latest value, so the latest send is the one it is ordered after).
//!
//! A send that stores a value releases into the clock inside tokio's write lock of the value,
//! after the value was stored; whatever reads the value acquires the clock under tokio's read
//! lock (`borrow`, `borrow_and_update`, `wait_for`, the `Sender`'s `borrow` too), so that a
//! reader is ordered after the send of the value it sees, and of no later one. `changed`
//! completing, and `has_changed` saying `true`, acquire too (they saw a newer version, whose
//! send had released). `Ref` and `error` are tokio's. Inside a model each operation's point
//! of the schedule comes before tokio's lock is taken (`point`), never under it.

use std::fmt;
use std::future::Future;
use std::panic::Location;
use std::sync::Arc;

use racer_core::task::{point, HandOff};
use tokio_crate::sync::watch as tw;

pub use tokio_crate::sync::watch::*;

use self::error::{RecvError, SendError};

const OBJECT: &str = "a tokio::sync::watch channel";

/// Sends values to the associated `Receiver`s, as `tokio::sync::watch::Sender`.
pub struct Sender<T> {
    inner: tw::Sender<T>,
    hand: Arc<HandOff>,
}

/// Receives the latest value of the associated `Sender`, as `tokio::sync::watch::Receiver`.
pub struct Receiver<T> {
    inner: tw::Receiver<T>,
    hand: Arc<HandOff>,
}

/// A watch channel holding `init`, as `tokio::sync::watch::channel`.
#[track_caller]
pub fn channel<T>(init: T) -> (Sender<T>, Receiver<T>) {
    let hand = Arc::new(HandOff::new(OBJECT, Location::caller()));
    let (tx, rx) = tw::channel(init);
    (Sender { inner: tx, hand: hand.clone() }, Receiver { inner: rx, hand })
}

impl<T> Receiver<T> {
    /// The latest value, under tokio's read lock: as tokio's `borrow`.
    #[track_caller]
    pub fn borrow(&self) -> Ref<'_, T> {
        let at = Location::caller();
        point("receiving from", at);
        let value = self.inner.borrow();
        self.hand.acquire("receiving from", at);
        value
    }

    /// As `borrow`, marking the value seen: as tokio's `borrow_and_update`.
    #[track_caller]
    pub fn borrow_and_update(&mut self) -> Ref<'_, T> {
        self.borrow_and_update_at(Location::caller())
    }

    /// As `borrow_and_update`, the value received at `at` (`racer::tokio_stream`'s
    /// `WatchStream`: where the stream was made).
    pub(crate) fn borrow_and_update_at(&mut self, at: &'static Location<'static>) -> Ref<'_, T> {
        point("receiving from", at);
        let value = self.inner.borrow_and_update();
        self.hand.acquire("receiving from", at);
        value
    }

    /// Whether a value not yet seen was sent: as tokio's `has_changed`.
    #[track_caller]
    pub fn has_changed(&self) -> Result<bool, RecvError> {
        point("receiving from", Location::caller());
        let changed = self.inner.has_changed();
        if let Ok(true) = changed {
            self.hand.acquire("receiving from", Location::caller());
        }
        changed
    }

    /// Whether every sender was dropped.
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// Marks the current value as not seen.
    pub fn mark_changed(&mut self) {
        self.inner.mark_changed();
    }

    /// Marks the current value as seen.
    pub fn mark_unchanged(&mut self) {
        self.inner.mark_unchanged();
    }

    /// Waits for a value not yet seen: as tokio's `changed`.
    #[track_caller]
    pub fn changed(&mut self) -> impl Future<Output = Result<(), RecvError>> + '_ {
        self.changed_at(Location::caller())
    }

    /// As `changed`, the new value's send acquired at `at` (`racer::tokio_stream`'s
    /// `WatchStream`: where the stream was made).
    pub(crate) async fn changed_at(&mut self, at: &'static Location<'static>) -> Result<(), RecvError> {
        self.inner.changed().await?;
        point("receiving from", at);
        self.hand.acquire("receiving from", at);
        Ok(())
    }

    /// Waits for a value for which `f` holds: as tokio's `wait_for`. Each value `f` is given is
    /// acquired first (under tokio's read lock).
    #[track_caller]
    pub fn wait_for<'a, F>(
        &'a mut self,
        mut f: F,
    ) -> impl Future<Output = Result<Ref<'a, T>, RecvError>> + use<'a, T, F>
    where
        F: FnMut(&T) -> bool,
    {
        let at = Location::caller();
        async move {
            point("receiving from", at);
            let hand = &self.hand;
            self.inner
                .wait_for(move |value| {
                    hand.acquire("receiving from", at);
                    f(value)
                })
                .await
        }
    }

    /// Whether both receivers are of the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        self.inner.same_channel(&other.inner)
    }
}

impl<T> Clone for Receiver<T> {
    fn clone(&self) -> Self {
        Receiver { inner: self.inner.clone(), hand: self.hand.clone() }
    }
}

impl<T: fmt::Debug> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T> Sender<T> {
    /// A sender of a new channel holding `init`, with no receiver: as tokio's `Sender::new`.
    #[track_caller]
    pub fn new(init: T) -> Self {
        Sender { inner: tw::Sender::new(init), hand: Arc::new(HandOff::new(OBJECT, Location::caller())) }
    }

    /// Stores a value if there is a receiver, else gives it back: as tokio's `send`.
    #[track_caller]
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        // As tokio's: the count is a hint, a receiver may come or go meanwhile.
        if self.inner.receiver_count() == 0 {
            return Err(SendError(value));
        }
        self.send_replace_at(value, Location::caller());
        Ok(())
    }

    /// Modifies the value in place and notifies the receivers: as tokio's `send_modify`.
    #[track_caller]
    pub fn send_modify<F>(&self, modify: F)
    where
        F: FnOnce(&mut T),
    {
        self.send_if_modified_at(
            |value| {
                modify(value);
                true
            },
            Location::caller(),
        );
    }

    /// Modifies the value in place, and notifies the receivers if `modify` says it changed it:
    /// as tokio's `send_if_modified`.
    #[track_caller]
    pub fn send_if_modified<F>(&self, modify: F) -> bool
    where
        F: FnOnce(&mut T) -> bool,
    {
        self.send_if_modified_at(modify, Location::caller())
    }

    fn send_if_modified_at<F>(&self, modify: F, at: &'static Location<'static>) -> bool
    where
        F: FnOnce(&mut T) -> bool,
    {
        point("sending on", at);
        let hand = &self.hand;
        self.inner.send_if_modified(|value| {
            let modified = modify(value);
            if modified {
                // Under tokio's write lock, before the new version is published.
                hand.release("sending on", at);
            }
            modified
        })
    }

    /// Stores a value, whether or not there is a receiver, and returns the previous one: as
    /// tokio's `send_replace`.
    #[track_caller]
    pub fn send_replace(&self, value: T) -> T {
        self.send_replace_at(value, Location::caller())
    }

    fn send_replace_at(&self, mut value: T, at: &'static Location<'static>) -> T {
        self.send_if_modified_at(
            |old| {
                std::mem::swap(old, &mut value);
                true
            },
            at,
        );
        value
    }

    /// The latest value, under tokio's read lock: as tokio's `Sender::borrow`.
    #[track_caller]
    pub fn borrow(&self) -> Ref<'_, T> {
        let at = Location::caller();
        point("receiving from", at);
        let value = self.inner.borrow();
        self.hand.acquire("receiving from", at);
        value
    }

    /// Whether every receiver was dropped.
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// Completes when every receiver was dropped: as tokio's `closed`.
    pub fn closed(&self) -> impl Future<Output = ()> + '_ {
        self.inner.closed()
    }

    /// A new receiver, which has seen the current value.
    pub fn subscribe(&self) -> Receiver<T> {
        Receiver { inner: self.inner.subscribe(), hand: self.hand.clone() }
    }

    /// How many receivers there are.
    pub fn receiver_count(&self) -> usize {
        self.inner.receiver_count()
    }

    /// How many senders there are.
    pub fn sender_count(&self) -> usize {
        self.inner.sender_count()
    }

    /// Whether both senders are of the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        self.inner.same_channel(&other.inner)
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        Sender { inner: self.inner.clone(), hand: self.hand.clone() }
    }
}

impl<T: Default> Default for Sender<T> {
    #[track_caller]
    fn default() -> Self {
        Self::new(T::default())
    }
}

impl<T: fmt::Debug> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
