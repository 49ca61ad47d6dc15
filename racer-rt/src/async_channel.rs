//! `racer::async_channel`: async-channel's channels, each message carrying its sender's clock in
//! a [`Carry`]: its send releases into it, its receive acquires it. A receiver is so ordered
//! after the sends of the messages it took, and not after the sends of messages still queued or
//! taken by another receiver. The error types are async-channel's own.

use std::fmt;
use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::task::{Context, Poll};

use async_channel_crate as ac;
use futures_core::stream::{FusedStream, Stream};
use racer_core::annotate::Carry;

pub use async_channel_crate::*;

type Site = &'static Location<'static>;

const OBJECT: &str = "an async_channel channel";
const SENDING: &str = "sending on";
const RECEIVING: &str = "receiving from";

/// `value`, sent at `at`: the sender's release into the message's own clock.
fn carried<T>(value: T, at: Site) -> Carry<T> {
    Carry::released(value, OBJECT, SENDING, at)
}

/// The value of a message received at `at`: the receiver's acquire of its clock.
fn received<T>(message: Carry<T>, at: Site) -> T {
    message.acquired(RECEIVING, at)
}

/// A failed send's value, given back to its sender (no acquire: it is the sender's own).
fn send_error<T>(e: ac::SendError<Carry<T>>) -> SendError<T> {
    SendError(e.0.returned())
}

fn try_send_error<T>(e: ac::TrySendError<Carry<T>>) -> TrySendError<T> {
    match e {
        ac::TrySendError::Full(m) => TrySendError::Full(m.returned()),
        ac::TrySendError::Closed(m) => TrySendError::Closed(m.returned()),
    }
}

/// A channel for up to `cap` messages, as `async_channel::bounded`.
#[track_caller]
pub fn bounded<T>(cap: usize) -> (Sender<T>, Receiver<T>) {
    let (tx, rx) = ac::bounded(cap);
    (Sender { inner: tx }, Receiver { inner: rx, created: Location::caller() })
}

/// A channel with no bound, as `async_channel::unbounded`.
#[track_caller]
pub fn unbounded<T>() -> (Sender<T>, Receiver<T>) {
    let (tx, rx) = ac::unbounded();
    (Sender { inner: tx }, Receiver { inner: rx, created: Location::caller() })
}

/// The sending side of a channel, as `async_channel::Sender`: each value sent carries the clock
/// of the sending thread (or task) at the call that gives it.
pub struct Sender<T> {
    inner: ac::Sender<Carry<T>>,
}

/// The receiving side of a channel, as `async_channel::Receiver`: each value received is
/// acquired, ordering the receiver after its send. Values taken through `Stream` are sited at
/// the line that made the channel.
pub struct Receiver<T> {
    inner: ac::Receiver<Carry<T>>,
    created: Site,
}

/// A sender that does not keep the channel open, as `async_channel::WeakSender`.
pub struct WeakSender<T> {
    inner: ac::WeakSender<Carry<T>>,
}

/// A receiver that does not keep the channel open, as `async_channel::WeakReceiver`.
pub struct WeakReceiver<T> {
    inner: ac::WeakReceiver<Carry<T>>,
    created: Site,
}

impl<T> Sender<T> {
    /// Sends a value if there is room: as async-channel's `try_send`.
    #[track_caller]
    pub fn try_send(&self, msg: T) -> Result<(), TrySendError<T>> {
        self.inner.try_send(carried(msg, Location::caller())).map_err(try_send_error)
    }

    /// A future sending a value, waiting for room: as async-channel's `send`. The release is
    /// here, where the value is given.
    #[track_caller]
    pub fn send(&self, msg: T) -> Send<'_, T> {
        Send { inner: self.inner.send(carried(msg, Location::caller())) }
    }

    /// A future completing when the channel is closed: as async-channel's `closed`.
    pub fn closed(&self) -> Closed<'_, T> {
        Closed { inner: self.inner.closed() }
    }

    /// Sends a value, blocking the thread while the channel is full: as async-channel's
    /// `send_blocking`.
    #[track_caller]
    pub fn send_blocking(&self, msg: T) -> Result<(), SendError<T>> {
        self.inner.send_blocking(carried(msg, Location::caller())).map_err(send_error)
    }

    /// Sends a value, pushing out the oldest one if the channel is full: as async-channel's
    /// `force_send`. The value pushed out is taken from the channel as a receive takes it
    /// (acquired, sited here).
    #[track_caller]
    pub fn force_send(&self, msg: T) -> Result<Option<T>, SendError<T>> {
        let at = Location::caller();
        match self.inner.force_send(carried(msg, at)) {
            Ok(old) => Ok(old.map(|m| received(m, at))),
            Err(e) => Err(send_error(e)),
        }
    }

    /// Closes the channel; true if this call closed it.
    pub fn close(&self) -> bool {
        self.inner.close()
    }

    /// Whether the channel is closed.
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// Whether no message is queued.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// Whether the channel is at its bound.
    pub fn is_full(&self) -> bool {
        self.inner.is_full()
    }

    /// How many messages are queued.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// The channel's bound, if it has one.
    pub fn capacity(&self) -> Option<usize> {
        self.inner.capacity()
    }

    /// How many receivers the channel has.
    pub fn receiver_count(&self) -> usize {
        self.inner.receiver_count()
    }

    /// How many senders the channel has.
    pub fn sender_count(&self) -> usize {
        self.inner.sender_count()
    }

    /// A weak sender of the same channel.
    pub fn downgrade(&self) -> WeakSender<T> {
        WeakSender { inner: self.inner.downgrade() }
    }

    /// Whether both senders are of the same channel.
    pub fn same_channel(&self, other: &Sender<T>) -> bool {
        self.inner.same_channel(&other.inner)
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        Sender { inner: self.inner.clone() }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T> Receiver<T> {
    /// The inner receiver, pinned where `self` is.
    fn inner_pin(self: Pin<&mut Self>) -> Pin<&mut ac::Receiver<Carry<T>>> {
        // SAFETY: `inner` is pinned structurally: `Receiver` moves it out of no pinned `self`,
        // has no `Drop` and is `Unpin` only when `inner` is.
        unsafe { self.map_unchecked_mut(|r| &mut r.inner) }
    }

    /// Receives a value if one is queued: as async-channel's `try_recv`.
    #[track_caller]
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        let at = Location::caller();
        self.inner.try_recv().map(|m| received(m, at))
    }

    /// A future receiving a value: as async-channel's `recv`. The value is acquired when the
    /// future yields it, sited here.
    #[track_caller]
    pub fn recv(&self) -> Recv<'_, T> {
        Recv { inner: self.inner.recv(), at: Location::caller() }
    }

    /// Receives a value, blocking the thread while the channel is empty: as async-channel's
    /// `recv_blocking`.
    #[track_caller]
    pub fn recv_blocking(&self) -> Result<T, RecvError> {
        let at = Location::caller();
        self.inner.recv_blocking().map(|m| received(m, at))
    }

    /// Closes the channel; true if this call closed it.
    pub fn close(&self) -> bool {
        self.inner.close()
    }

    /// Whether the channel is closed.
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// Whether no message is queued.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// Whether the channel is at its bound.
    pub fn is_full(&self) -> bool {
        self.inner.is_full()
    }

    /// How many messages are queued.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// The channel's bound, if it has one.
    pub fn capacity(&self) -> Option<usize> {
        self.inner.capacity()
    }

    /// How many receivers the channel has.
    pub fn receiver_count(&self) -> usize {
        self.inner.receiver_count()
    }

    /// How many senders the channel has.
    pub fn sender_count(&self) -> usize {
        self.inner.sender_count()
    }

    /// A weak receiver of the same channel.
    pub fn downgrade(&self) -> WeakReceiver<T> {
        WeakReceiver { inner: self.inner.downgrade(), created: self.created }
    }

    /// Whether both receivers are of the same channel.
    pub fn same_channel(&self, other: &Receiver<T>) -> bool {
        self.inner.same_channel(&other.inner)
    }
}

impl<T> Clone for Receiver<T> {
    fn clone(&self) -> Self {
        Receiver { inner: self.inner.clone(), created: self.created }
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T> Stream for Receiver<T> {
    type Item = T;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let at = self.created;
        self.inner_pin().poll_next(cx).map(|m| m.map(|m| received(m, at)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl<T> FusedStream for Receiver<T> {
    fn is_terminated(&self) -> bool {
        self.inner.is_terminated()
    }
}

impl<T> WeakSender<T> {
    /// A sender, if the channel is still open.
    pub fn upgrade(&self) -> Option<Sender<T>> {
        self.inner.upgrade().map(|inner| Sender { inner })
    }
}

impl<T> Clone for WeakSender<T> {
    fn clone(&self) -> Self {
        WeakSender { inner: self.inner.clone() }
    }
}

impl<T> fmt::Debug for WeakSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T> WeakReceiver<T> {
    /// A receiver, if the channel is still open.
    pub fn upgrade(&self) -> Option<Receiver<T>> {
        self.inner.upgrade().map(|inner| Receiver { inner, created: self.created })
    }
}

impl<T> Clone for WeakReceiver<T> {
    fn clone(&self) -> Self {
        WeakReceiver { inner: self.inner.clone(), created: self.created }
    }
}

impl<T> fmt::Debug for WeakReceiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// The future of `Sender::send`, as `async_channel::Send`: its value carries the sender's clock
/// from the `send` call.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Send<'a, T> {
    inner: ac::Send<'a, Carry<T>>,
}

impl<T> Future for Send<'_, T> {
    type Output = Result<(), SendError<T>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // SAFETY: `inner` is pinned structurally: `Send` moves it out of no pinned `self`, has
        // no `Drop` and is `Unpin` only when `inner` is.
        let inner = unsafe { self.map_unchecked_mut(|s| &mut s.inner) };
        inner.poll(cx).map(|r| r.map_err(send_error))
    }
}

impl<T: fmt::Debug> fmt::Debug for Send<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// The future of `Receiver::recv`, as `async_channel::Recv`: its value is acquired when the
/// future yields it.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Recv<'a, T> {
    inner: ac::Recv<'a, Carry<T>>,
    at: Site,
}

impl<T> Future for Recv<'_, T> {
    type Output = Result<T, RecvError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let at = self.at;
        // SAFETY: `inner` is pinned structurally: `Recv` moves it out of no pinned `self`, has
        // no `Drop` and is `Unpin` only when `inner` is.
        let inner = unsafe { self.map_unchecked_mut(|s| &mut s.inner) };
        inner.poll(cx).map(|r| r.map(|m| received(m, at)))
    }
}

impl<T: fmt::Debug> fmt::Debug for Recv<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// The future of `Sender::closed`, as `async_channel::Closed`.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Closed<'a, T> {
    inner: ac::Closed<'a, Carry<T>>,
}

impl<T> Future for Closed<'_, T> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // SAFETY: `inner` is pinned structurally: `Closed` moves it out of no pinned `self`,
        // has no `Drop` and is `Unpin` only when `inner` is.
        unsafe { self.map_unchecked_mut(|s| &mut s.inner) }.poll(cx)
    }
}

impl<T: fmt::Debug> fmt::Debug for Closed<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
