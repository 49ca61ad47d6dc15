//! `racer::flume`: flume's channels, each message carrying its sender's clock in a
//! [`Carry`]: its send releases into it, its receive acquires it. A receiver is so ordered
//! after the sends of the messages it took, and not after the sends of messages still queued or
//! taken by another receiver. Sync and async ends share one channel, as flume's do. The error
//! types, `RecvError`, `SelectError` and the rest not wrapped here are flume's own.

use std::fmt;
use std::panic::Location;
use std::time::{Duration, Instant};

use flume_crate as fl;
use racer_core::annotate::Carry;

pub use flume_crate::*;

pub mod r#async;
pub mod select;

pub use self::select::Selector;

type Site = &'static Location<'static>;

const OBJECT: &str = "a flume channel";
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
fn send_error<T>(e: fl::SendError<Carry<T>>) -> SendError<T> {
    SendError(e.0.returned())
}

fn try_send_error<T>(e: fl::TrySendError<Carry<T>>) -> TrySendError<T> {
    match e {
        fl::TrySendError::Full(m) => TrySendError::Full(m.returned()),
        fl::TrySendError::Disconnected(m) => TrySendError::Disconnected(m.returned()),
    }
}

fn send_timeout_error<T>(e: fl::SendTimeoutError<Carry<T>>) -> SendTimeoutError<T> {
    match e {
        fl::SendTimeoutError::Timeout(m) => SendTimeoutError::Timeout(m.returned()),
        fl::SendTimeoutError::Disconnected(m) => SendTimeoutError::Disconnected(m.returned()),
    }
}

/// The sending end of a channel, as `flume::Sender`: each value sent carries the clock of the
/// sending thread at the send.
#[repr(transparent)]
pub struct Sender<T> {
    pub(crate) inner: fl::Sender<Carry<T>>,
}

/// A sender that does not keep the channel open, as `flume::WeakSender`.
pub struct WeakSender<T> {
    inner: fl::WeakSender<Carry<T>>,
}

/// The receiving end of a channel, as `flume::Receiver`: each value received is acquired,
/// ordering the receiver after its send.
#[repr(transparent)]
pub struct Receiver<T> {
    pub(crate) inner: fl::Receiver<Carry<T>>,
}

/// A channel with no bound, as `flume::unbounded`.
pub fn unbounded<T>() -> (Sender<T>, Receiver<T>) {
    let (tx, rx) = fl::unbounded();
    (Sender { inner: tx }, Receiver { inner: rx })
}

/// A channel for up to `cap` messages (`0`: a rendezvous), as `flume::bounded`.
pub fn bounded<T>(cap: usize) -> (Sender<T>, Receiver<T>) {
    let (tx, rx) = fl::bounded(cap);
    (Sender { inner: tx }, Receiver { inner: rx })
}

impl<T> Sender<T> {
    /// Sends a value if there is room: as flume's `try_send`.
    #[track_caller]
    pub fn try_send(&self, msg: T) -> Result<(), TrySendError<T>> {
        self.inner.try_send(carried(msg, Location::caller())).map_err(try_send_error)
    }

    /// Sends a value, blocking while the channel is full: as flume's `send`.
    #[track_caller]
    pub fn send(&self, msg: T) -> Result<(), SendError<T>> {
        self.inner.send(carried(msg, Location::caller())).map_err(send_error)
    }

    /// Sends a value, blocking at most until `deadline`: as flume's `send_deadline`.
    #[track_caller]
    pub fn send_deadline(&self, msg: T, deadline: Instant) -> Result<(), SendTimeoutError<T>> {
        self.inner.send_deadline(carried(msg, Location::caller()), deadline).map_err(send_timeout_error)
    }

    /// Sends a value, blocking at most `dur`: as flume's `send_timeout`.
    #[track_caller]
    pub fn send_timeout(&self, msg: T, dur: Duration) -> Result<(), SendTimeoutError<T>> {
        self.inner.send_timeout(carried(msg, Location::caller()), dur).map_err(send_timeout_error)
    }

    /// Whether every receiver was dropped.
    pub fn is_disconnected(&self) -> bool {
        self.inner.is_disconnected()
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

    /// How many senders the channel has.
    pub fn sender_count(&self) -> usize {
        self.inner.sender_count()
    }

    /// How many receivers the channel has.
    pub fn receiver_count(&self) -> usize {
        self.inner.receiver_count()
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

impl<T> WeakSender<T> {
    /// A sender, if the channel still has one.
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

impl<T> Receiver<T> {
    /// Receives a value if one is queued: as flume's `try_recv`.
    #[track_caller]
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        let at = Location::caller();
        self.inner.try_recv().map(|m| received(m, at))
    }

    /// Receives a value, blocking while the channel is empty: as flume's `recv`.
    #[track_caller]
    pub fn recv(&self) -> Result<T, RecvError> {
        let at = Location::caller();
        self.inner.recv().map(|m| received(m, at))
    }

    /// Receives a value, blocking at most until `deadline`: as flume's `recv_deadline`.
    #[track_caller]
    pub fn recv_deadline(&self, deadline: Instant) -> Result<T, RecvTimeoutError> {
        let at = Location::caller();
        self.inner.recv_deadline(deadline).map(|m| received(m, at))
    }

    /// Receives a value, blocking at most `dur`: as flume's `recv_timeout`.
    #[track_caller]
    pub fn recv_timeout(&self, dur: Duration) -> Result<T, RecvTimeoutError> {
        let at = Location::caller();
        self.inner.recv_timeout(dur).map(|m| received(m, at))
    }

    /// A blocking iterator over the values received: as flume's `iter`. Each value is acquired
    /// at the line that made the iterator.
    #[track_caller]
    pub fn iter(&self) -> Iter<'_, T> {
        Iter { inner: self.inner.iter(), at: Location::caller() }
    }

    /// A non-blocking iterator over the values queued: as flume's `try_iter`.
    #[track_caller]
    pub fn try_iter(&self) -> TryIter<'_, T> {
        TryIter { inner: self.inner.try_iter(), at: Location::caller() }
    }

    /// Takes every value queued now: as flume's `drain`.
    #[track_caller]
    pub fn drain(&self) -> Drain<'_, T> {
        Drain { inner: self.inner.drain(), at: Location::caller() }
    }

    /// Whether every sender was dropped.
    pub fn is_disconnected(&self) -> bool {
        self.inner.is_disconnected()
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

    /// How many senders the channel has.
    pub fn sender_count(&self) -> usize {
        self.inner.sender_count()
    }

    /// How many receivers the channel has.
    pub fn receiver_count(&self) -> usize {
        self.inner.receiver_count()
    }

    /// Whether both receivers are of the same channel.
    pub fn same_channel(&self, other: &Receiver<T>) -> bool {
        self.inner.same_channel(&other.inner)
    }
}

impl<T> Clone for Receiver<T> {
    fn clone(&self) -> Self {
        Receiver { inner: self.inner.clone() }
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<'a, T> IntoIterator for &'a Receiver<T> {
    type Item = T;
    type IntoIter = Iter<'a, T>;

    #[track_caller]
    fn into_iter(self) -> Iter<'a, T> {
        Iter { inner: self.inner.iter(), at: Location::caller() }
    }
}

impl<T> IntoIterator for Receiver<T> {
    type Item = T;
    type IntoIter = IntoIter<T>;

    #[track_caller]
    fn into_iter(self) -> IntoIter<T> {
        IntoIter { inner: self.inner.into_iter(), at: Location::caller() }
    }
}

/// A blocking iterator over the values received, as `flume::Iter`: each acquired.
pub struct Iter<'a, T> {
    inner: fl::Iter<'a, Carry<T>>,
    at: Site,
}

impl<T> Iterator for Iter<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        self.inner.next().map(|m| received(m, self.at))
    }
}

impl<T> fmt::Debug for Iter<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// A non-blocking iterator over the values queued, as `flume::TryIter`: each acquired.
pub struct TryIter<'a, T> {
    inner: fl::TryIter<'a, Carry<T>>,
    at: Site,
}

impl<T> Iterator for TryIter<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        self.inner.next().map(|m| received(m, self.at))
    }
}

impl<T> fmt::Debug for TryIter<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// The values taken out by `drain`, as `flume::Drain`: each acquired when the iterator yields it.
pub struct Drain<'a, T> {
    inner: fl::Drain<'a, Carry<T>>,
    at: Site,
}

impl<T> Iterator for Drain<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        self.inner.next().map(|m| received(m, self.at))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.inner.len();
        (n, Some(n))
    }
}

impl<T> ExactSizeIterator for Drain<'_, T> {
    fn len(&self) -> usize {
        self.inner.len()
    }
}

impl<T: fmt::Debug> fmt::Debug for Drain<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// A blocking iterator owning its receiver, as `flume::IntoIter`: each value acquired.
pub struct IntoIter<T> {
    inner: fl::IntoIter<Carry<T>>,
    at: Site,
}

impl<T> Iterator for IntoIter<T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        self.inner.next().map(|m| received(m, self.at))
    }
}

impl<T> fmt::Debug for IntoIter<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
