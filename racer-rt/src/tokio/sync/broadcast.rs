//! `racer::tokio::sync::broadcast`: tokio's multi-producer, multi-consumer broadcast channel,
//! each message carrying a clock of its own (shared by the clones the receivers take): its send
//! releases into it, each receive acquires it. `error` is tokio's.

use std::fmt;
use std::future::Future;
use std::panic::Location;

use tokio_crate::sync::broadcast as tb;

use super::message::SharedMessage;

pub use tokio_crate::sync::broadcast::*;

use self::error::{RecvError, SendError, TryRecvError};

const OBJECT: &str = "a tokio::sync::broadcast channel";

type Msg<T> = SharedMessage<T>;

/// Sends values to every associated `Receiver`, as `tokio::sync::broadcast::Sender`.
pub struct Sender<T> {
    inner: tb::Sender<Msg<T>>,
    created: &'static Location<'static>,
}

/// A sender that does not keep the channel open, as `tokio::sync::broadcast::WeakSender`.
pub struct WeakSender<T> {
    inner: tb::WeakSender<Msg<T>>,
    created: &'static Location<'static>,
}

/// Receives the values of the associated `Sender`s, as `tokio::sync::broadcast::Receiver`.
pub struct Receiver<T> {
    inner: tb::Receiver<Msg<T>>,
}

/// A broadcast channel keeping up to `capacity` values, as `tokio::sync::broadcast::channel`.
#[track_caller]
pub fn channel<T: Clone>(capacity: usize) -> (Sender<T>, Receiver<T>) {
    let created = Location::caller();
    let (tx, rx) = tb::channel(capacity);
    (Sender { inner: tx, created }, Receiver { inner: rx })
}

impl<T> Sender<T> {
    /// A sender of a new channel with no receiver: as tokio's `Sender::new`.
    #[track_caller]
    pub fn new(capacity: usize) -> Self {
        Sender { inner: tb::Sender::new(capacity), created: Location::caller() }
    }

    /// Sends a value to every receiver, returning how many there are, or gives it back if there
    /// is none: as tokio's `send`.
    #[track_caller]
    pub fn send(&self, value: T) -> Result<usize, SendError<T>> {
        let message = SharedMessage::sent(value, OBJECT, self.created, Location::caller());
        self.inner.send(message).map_err(|e| SendError(e.0.value))
    }

    /// A new receiver, which receives the values sent from now on.
    pub fn subscribe(&self) -> Receiver<T> {
        Receiver { inner: self.inner.subscribe() }
    }

    /// A weak sender of the same channel.
    pub fn downgrade(&self) -> WeakSender<T> {
        WeakSender { inner: self.inner.downgrade(), created: self.created }
    }

    /// How many values the slowest receiver has yet to receive.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// Whether every receiver received every value.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// How many receivers there are.
    pub fn receiver_count(&self) -> usize {
        self.inner.receiver_count()
    }

    /// Whether both senders are of the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        self.inner.same_channel(&other.inner)
    }

    /// Completes when every receiver was dropped: as tokio's `closed`.
    pub fn closed(&self) -> impl Future<Output = ()> + '_ {
        self.inner.closed()
    }

    /// How many senders keep the channel open.
    pub fn strong_count(&self) -> usize {
        self.inner.strong_count()
    }

    /// How many weak senders there are.
    pub fn weak_count(&self) -> usize {
        self.inner.weak_count()
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        Sender { inner: self.inner.clone(), created: self.created }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T> WeakSender<T> {
    /// A sender, if the channel is still open.
    pub fn upgrade(&self) -> Option<Sender<T>> {
        self.inner.upgrade().map(|inner| Sender { inner, created: self.created })
    }

    /// How many senders keep the channel open.
    pub fn strong_count(&self) -> usize {
        self.inner.strong_count()
    }

    /// How many weak senders there are.
    pub fn weak_count(&self) -> usize {
        self.inner.weak_count()
    }
}

impl<T> Clone for WeakSender<T> {
    fn clone(&self) -> Self {
        WeakSender { inner: self.inner.clone(), created: self.created }
    }
}

impl<T> fmt::Debug for WeakSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T> Receiver<T> {
    /// How many values this receiver has yet to receive.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// Whether this receiver received every value.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// Whether both receivers are of the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        self.inner.same_channel(&other.inner)
    }

    /// How many senders keep the channel open.
    pub fn sender_strong_count(&self) -> usize {
        self.inner.sender_strong_count()
    }

    /// How many weak senders there are.
    pub fn sender_weak_count(&self) -> usize {
        self.inner.sender_weak_count()
    }

    /// Whether every sender was dropped.
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }
}

impl<T: Clone> Receiver<T> {
    /// A new receiver of the same channel, which receives the values sent from now on.
    pub fn resubscribe(&self) -> Self {
        Receiver { inner: self.inner.resubscribe() }
    }

    /// Receives the next value: as tokio's `recv`.
    #[track_caller]
    pub fn recv(&mut self) -> impl Future<Output = Result<T, RecvError>> + '_ {
        self.recv_at(Location::caller())
    }

    /// As `recv`, the value received at `at` (`racer::tokio_stream`'s `BroadcastStream`: where
    /// the stream was made).
    pub(crate) async fn recv_at(&mut self, at: &'static Location<'static>) -> Result<T, RecvError> {
        self.inner.recv().await.map(|m| m.received(at))
    }

    /// Receives the next value if there is one: as tokio's `try_recv`.
    #[track_caller]
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        let at = Location::caller();
        self.inner.try_recv().map(|m| m.received(at))
    }

    /// Receives the next value, blocking the thread: as tokio's `blocking_recv`.
    #[track_caller]
    pub fn blocking_recv(&mut self) -> Result<T, RecvError> {
        let at = Location::caller();
        self.inner.blocking_recv().map(|m| m.received(at))
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
