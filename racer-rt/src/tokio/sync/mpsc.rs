//! `racer::tokio::sync::mpsc`: tokio's multi-producer, single-consumer channels, each message
//! carrying a clock of its own: its send releases into it, its receive acquires it. A receiver
//! is so ordered after the sends of the messages it took, and not after the sends of messages
//! still queued. `error` is tokio's.

use std::fmt;
use std::future::Future;
use std::panic::Location;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio_crate::sync::mpsc as tm;

use super::message::{received, sent, Message};

pub use tokio_crate::sync::mpsc::*;

use self::error::{SendError, SendTimeoutError, TryRecvError, TrySendError};

const OBJECT: &str = "a tokio::sync::mpsc channel";

type Msg<T> = Message<T>;

/// Takes the value back out of an error of tokio's that carries a message.
fn send_error<T>(e: tm::error::SendError<Msg<T>>) -> SendError<T> {
    SendError(e.0.returned())
}

fn try_send_error<T>(e: tm::error::TrySendError<Msg<T>>) -> TrySendError<T> {
    match e {
        tm::error::TrySendError::Full(m) => TrySendError::Full(m.returned()),
        tm::error::TrySendError::Closed(m) => TrySendError::Closed(m.returned()),
    }
}

/// The values of `messages`, received at `at`, appended to `buffer`.
fn received_many<T>(messages: Vec<Msg<T>>, buffer: &mut Vec<T>, at: &'static Location<'static>) {
    buffer.extend(messages.into_iter().map(|m| received(m, at)));
}

// === bounded ===

/// Sends values to the associated `Receiver`, as `tokio::sync::mpsc::Sender`.
pub struct Sender<T> {
    inner: tm::Sender<Msg<T>>,
    created: &'static Location<'static>,
}

/// A sender that does not keep the channel open, as `tokio::sync::mpsc::WeakSender`.
pub struct WeakSender<T> {
    inner: tm::WeakSender<Msg<T>>,
    created: &'static Location<'static>,
}

/// A reserved slot to send one value, as `tokio::sync::mpsc::Permit`.
pub struct Permit<'a, T> {
    inner: tm::Permit<'a, Msg<T>>,
    created: &'static Location<'static>,
}

/// An iterator of reserved slots, as `tokio::sync::mpsc::PermitIterator`.
pub struct PermitIterator<'a, T> {
    inner: tm::PermitIterator<'a, Msg<T>>,
    created: &'static Location<'static>,
}

/// An owned reserved slot to send one value, as `tokio::sync::mpsc::OwnedPermit`.
pub struct OwnedPermit<T> {
    inner: tm::OwnedPermit<Msg<T>>,
    created: &'static Location<'static>,
}

/// Receives values from the associated `Sender`s, as `tokio::sync::mpsc::Receiver`.
pub struct Receiver<T> {
    inner: tm::Receiver<Msg<T>>,
}

/// A bounded channel for up to `buffer` messages, as `tokio::sync::mpsc::channel`.
#[track_caller]
pub fn channel<T>(buffer: usize) -> (Sender<T>, Receiver<T>) {
    let created = Location::caller();
    let (tx, rx) = tm::channel(buffer);
    (Sender { inner: tx, created }, Receiver { inner: rx })
}

/// The methods tokio's two receivers share (`Receiver`, `UnboundedReceiver`): each message
/// received is acquired, at the caller's line.
macro_rules! receiver_methods {
    () => {
        /// Receives the next value: as tokio's `recv`.
        #[track_caller]
        pub fn recv(&mut self) -> impl Future<Output = Option<T>> + '_ {
            let at = Location::caller();
            async move { self.inner.recv().await.map(|m| received(m, at)) }
        }

        /// Receives up to `limit` values into `buffer`: as tokio's `recv_many`.
        #[track_caller]
        pub fn recv_many<'a, 'b>(
            &'a mut self,
            buffer: &'b mut Vec<T>,
            limit: usize,
        ) -> impl Future<Output = usize> + use<'a, 'b, T> {
            let at = Location::caller();
            async move {
                let mut messages = Vec::new();
                let n = self.inner.recv_many(&mut messages, limit).await;
                received_many(messages, buffer, at);
                n
            }
        }

        /// Receives the next value if there is one: as tokio's `try_recv`.
        #[track_caller]
        pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
            let at = Location::caller();
            self.inner.try_recv().map(|m| received(m, at))
        }

        /// Receives the next value, blocking the thread: as tokio's `blocking_recv`.
        #[track_caller]
        pub fn blocking_recv(&mut self) -> Option<T> {
            let at = Location::caller();
            self.inner.blocking_recv().map(|m| received(m, at))
        }

        /// Receives up to `limit` values, blocking the thread: as tokio's `blocking_recv_many`.
        #[track_caller]
        pub fn blocking_recv_many(&mut self, buffer: &mut Vec<T>, limit: usize) -> usize {
            let at = Location::caller();
            let mut messages = Vec::new();
            let n = self.inner.blocking_recv_many(&mut messages, limit);
            received_many(messages, buffer, at);
            n
        }

        /// Closes the receiving half, without dropping it.
        pub fn close(&mut self) {
            self.inner.close();
        }

        /// Whether the channel is closed.
        pub fn is_closed(&self) -> bool {
            self.inner.is_closed()
        }

        /// Whether no message is queued.
        pub fn is_empty(&self) -> bool {
            self.inner.is_empty()
        }

        /// How many messages are queued.
        pub fn len(&self) -> usize {
            self.inner.len()
        }

        /// Polls for the next value: as tokio's `poll_recv`.
        #[track_caller]
        pub fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
            self.poll_recv_at(cx, Location::caller())
        }

        /// As `poll_recv`, the value received at `at` (`racer::tokio_stream`'s streams: where
        /// the stream was made).
        pub(crate) fn poll_recv_at(&mut self, cx: &mut Context<'_>, at: &'static Location<'static>) -> Poll<Option<T>> {
            self.inner.poll_recv(cx).map(|m| m.map(|m| received(m, at)))
        }

        /// Polls for up to `limit` values: as tokio's `poll_recv_many`.
        #[track_caller]
        pub fn poll_recv_many(&mut self, cx: &mut Context<'_>, buffer: &mut Vec<T>, limit: usize) -> Poll<usize> {
            let at = Location::caller();
            let mut messages = Vec::new();
            let poll = self.inner.poll_recv_many(cx, &mut messages, limit);
            received_many(messages, buffer, at);
            poll
        }

        /// How many senders keep the channel open.
        pub fn sender_strong_count(&self) -> usize {
            self.inner.sender_strong_count()
        }

        /// How many weak senders there are.
        pub fn sender_weak_count(&self) -> usize {
            self.inner.sender_weak_count()
        }
    };
}

impl<T> Receiver<T> {
    receiver_methods!();

    /// How many more messages the channel has room for.
    pub fn capacity(&self) -> usize {
        self.inner.capacity()
    }

    /// The channel's bound.
    pub fn max_capacity(&self) -> usize {
        self.inner.max_capacity()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T> Sender<T> {
    fn message(&self, value: T, at: &'static Location<'static>) -> Msg<T> {
        sent(value, OBJECT, self.created, at)
    }

    /// Sends a value, waiting for room: as tokio's `send`.
    #[track_caller]
    pub fn send(&self, value: T) -> impl Future<Output = Result<(), SendError<T>>> + '_ {
        let at = Location::caller();
        async move {
            let message = self.message(value, at);
            self.inner.send(message).await.map_err(send_error)
        }
    }

    /// Completes when the receiver was dropped or closed: as tokio's `closed`.
    pub fn closed(&self) -> impl Future<Output = ()> + '_ {
        self.inner.closed()
    }

    /// Sends a value if there is room: as tokio's `try_send`.
    #[track_caller]
    pub fn try_send(&self, message: T) -> Result<(), TrySendError<T>> {
        let message = self.message(message, Location::caller());
        self.inner.try_send(message).map_err(try_send_error)
    }

    /// Sends a value, waiting at most `timeout` for room: as tokio's `send_timeout`.
    #[track_caller]
    pub fn send_timeout(
        &self,
        value: T,
        timeout: Duration,
    ) -> impl Future<Output = Result<(), SendTimeoutError<T>>> + '_ {
        let at = Location::caller();
        async move {
            let message = self.message(value, at);
            self.inner.send_timeout(message, timeout).await.map_err(|e| match e {
                tm::error::SendTimeoutError::Timeout(m) => SendTimeoutError::Timeout(m.returned()),
                tm::error::SendTimeoutError::Closed(m) => SendTimeoutError::Closed(m.returned()),
            })
        }
    }

    /// Sends a value, blocking the thread: as tokio's `blocking_send`.
    #[track_caller]
    pub fn blocking_send(&self, value: T) -> Result<(), SendError<T>> {
        let message = self.message(value, Location::caller());
        self.inner.blocking_send(message).map_err(send_error)
    }

    /// Whether the receiver was dropped or closed.
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// Reserves a slot, waiting for room: as tokio's `reserve`.
    pub async fn reserve(&self) -> Result<Permit<'_, T>, SendError<()>> {
        self.inner.reserve().await.map(|inner| Permit { inner, created: self.created })
    }

    /// Reserves `n` slots, waiting for room: as tokio's `reserve_many`.
    pub async fn reserve_many(&self, n: usize) -> Result<PermitIterator<'_, T>, SendError<()>> {
        self.inner.reserve_many(n).await.map(|inner| PermitIterator { inner, created: self.created })
    }

    /// Reserves a slot, the sender moved into it: as tokio's `reserve_owned`.
    pub async fn reserve_owned(self) -> Result<OwnedPermit<T>, SendError<()>> {
        let created = self.created;
        self.inner.reserve_owned().await.map(|inner| OwnedPermit { inner, created })
    }

    /// Reserves a slot if there is room: as tokio's `try_reserve`.
    pub fn try_reserve(&self) -> Result<Permit<'_, T>, TrySendError<()>> {
        self.inner.try_reserve().map(|inner| Permit { inner, created: self.created })
    }

    /// Reserves `n` slots if there is room: as tokio's `try_reserve_many`.
    pub fn try_reserve_many(&self, n: usize) -> Result<PermitIterator<'_, T>, TrySendError<()>> {
        self.inner.try_reserve_many(n).map(|inner| PermitIterator { inner, created: self.created })
    }

    /// As `reserve_owned`, if there is room: as tokio's `try_reserve_owned`.
    pub fn try_reserve_owned(self) -> Result<OwnedPermit<T>, TrySendError<Self>> {
        let created = self.created;
        self.inner.try_reserve_owned().map(|inner| OwnedPermit { inner, created }).map_err(|e| match e {
            tm::error::TrySendError::Full(inner) => TrySendError::Full(Sender { inner, created }),
            tm::error::TrySendError::Closed(inner) => TrySendError::Closed(Sender { inner, created }),
        })
    }

    /// Whether both senders are of the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        self.inner.same_channel(&other.inner)
    }

    /// How many more messages the channel has room for.
    pub fn capacity(&self) -> usize {
        self.inner.capacity()
    }

    /// A weak sender of the same channel.
    pub fn downgrade(&self) -> WeakSender<T> {
        WeakSender { inner: self.inner.downgrade(), created: self.created }
    }

    /// The channel's bound.
    pub fn max_capacity(&self) -> usize {
        self.inner.max_capacity()
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

impl<T> Permit<'_, T> {
    /// Sends a value in the reserved slot: as tokio's `Permit::send`.
    #[track_caller]
    pub fn send(self, value: T) {
        self.inner.send(sent(value, OBJECT, self.created, Location::caller()));
    }
}

impl<T> fmt::Debug for Permit<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<'a, T> Iterator for PermitIterator<'a, T> {
    type Item = Permit<'a, T>;

    fn next(&mut self) -> Option<Permit<'a, T>> {
        self.inner.next().map(|inner| Permit { inner, created: self.created })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl<T> ExactSizeIterator for PermitIterator<'_, T> {}
impl<T> std::iter::FusedIterator for PermitIterator<'_, T> {}

impl<T> fmt::Debug for PermitIterator<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T> OwnedPermit<T> {
    /// Sends a value in the reserved slot, giving the sender back: as tokio's
    /// `OwnedPermit::send`.
    #[track_caller]
    pub fn send(self, value: T) -> Sender<T> {
        let created = self.created;
        let inner = self.inner.send(sent(value, OBJECT, created, Location::caller()));
        Sender { inner, created }
    }

    /// Gives the slot back unused, and the sender: as tokio's `OwnedPermit::release`.
    pub fn release(self) -> Sender<T> {
        Sender { inner: self.inner.release(), created: self.created }
    }

    /// Whether both permits are of the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        self.inner.same_channel(&other.inner)
    }

    /// Whether the permit is of `sender`'s channel.
    pub fn same_channel_as_sender(&self, sender: &Sender<T>) -> bool {
        self.inner.same_channel_as_sender(&sender.inner)
    }
}

impl<T> fmt::Debug for OwnedPermit<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

// === unbounded ===

/// Sends values to the associated `UnboundedReceiver`, as `tokio::sync::mpsc::UnboundedSender`.
pub struct UnboundedSender<T> {
    inner: tm::UnboundedSender<Msg<T>>,
    created: &'static Location<'static>,
}

/// A sender that does not keep the channel open, as
/// `tokio::sync::mpsc::WeakUnboundedSender`.
pub struct WeakUnboundedSender<T> {
    inner: tm::WeakUnboundedSender<Msg<T>>,
    created: &'static Location<'static>,
}

/// Receives values from the associated `UnboundedSender`s, as
/// `tokio::sync::mpsc::UnboundedReceiver`.
pub struct UnboundedReceiver<T> {
    inner: tm::UnboundedReceiver<Msg<T>>,
}

/// An unbounded channel, as `tokio::sync::mpsc::unbounded_channel`.
#[track_caller]
pub fn unbounded_channel<T>() -> (UnboundedSender<T>, UnboundedReceiver<T>) {
    let created = Location::caller();
    let (tx, rx) = tm::unbounded_channel();
    (UnboundedSender { inner: tx, created }, UnboundedReceiver { inner: rx })
}

impl<T> UnboundedReceiver<T> {
    receiver_methods!();
}

impl<T> fmt::Debug for UnboundedReceiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T> UnboundedSender<T> {
    /// Sends a value: as tokio's `UnboundedSender::send`.
    #[track_caller]
    pub fn send(&self, message: T) -> Result<(), SendError<T>> {
        let message = sent(message, OBJECT, self.created, Location::caller());
        self.inner.send(message).map_err(send_error)
    }

    /// Completes when the receiver was dropped or closed: as tokio's `closed`.
    pub fn closed(&self) -> impl Future<Output = ()> + '_ {
        self.inner.closed()
    }

    /// Whether the receiver was dropped or closed.
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// Whether both senders are of the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        self.inner.same_channel(&other.inner)
    }

    /// A weak sender of the same channel.
    pub fn downgrade(&self) -> WeakUnboundedSender<T> {
        WeakUnboundedSender { inner: self.inner.downgrade(), created: self.created }
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

impl<T> Clone for UnboundedSender<T> {
    fn clone(&self) -> Self {
        UnboundedSender { inner: self.inner.clone(), created: self.created }
    }
}

impl<T> fmt::Debug for UnboundedSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T> WeakUnboundedSender<T> {
    /// A sender, if the channel is still open.
    pub fn upgrade(&self) -> Option<UnboundedSender<T>> {
        self.inner.upgrade().map(|inner| UnboundedSender { inner, created: self.created })
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

impl<T> Clone for WeakUnboundedSender<T> {
    fn clone(&self) -> Self {
        WeakUnboundedSender { inner: self.inner.clone(), created: self.created }
    }
}

impl<T> fmt::Debug for WeakUnboundedSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
