//! `racer::crossbeam_channel`: crossbeam-channel's channels, each message carrying a clock of
//! its own (a `Carry`): its send releases into it, its receive acquires it. A receiver is so
//! ordered after the sends of the messages it took, and after no other send. A send on a
//! zero-capacity channel is also ordered after the receive that took its message, and a
//! disconnection found after the drops of the ends that went away (see `message`). The timer
//! channels (`after`, `at`, `tick`) and `never` have no sender and order nothing: their
//! receivers are the crate's, inside racer's `Receiver`. `Select`, `select!` and
//! `select_biased!` work on racer's ends. The error types are the crate's own, carrying the
//! user's value.

use std::fmt;
use std::iter::FusedIterator;
use std::panic::Location;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel_crate as cc;

pub use crossbeam_channel_crate::*;

mod message;
mod select;

use self::message::{received, Ends, Message, Pending};
pub use self::select::{Select, SelectedOperation};
pub use crate::__racer_crossbeam_select as select;
pub use crate::__racer_crossbeam_select_biased as select_biased;

/// The errors of a receive: which of them say that every sender is gone.
trait RecvFailure {
    fn is_disconnected(&self) -> bool;
}

impl RecvFailure for RecvError {
    fn is_disconnected(&self) -> bool {
        true
    }
}

impl RecvFailure for TryRecvError {
    fn is_disconnected(&self) -> bool {
        TryRecvError::is_disconnected(self)
    }
}

impl RecvFailure for RecvTimeoutError {
    fn is_disconnected(&self) -> bool {
        RecvTimeoutError::is_disconnected(self)
    }
}

/// The outcome of a receive at `at` on a channel of racer's senders: the message acquired, or
/// if every sender is gone, their drops.
fn took<T, E: RecvFailure>(ends: &Ends, result: Result<Message<T>, E>, at: &'static Location<'static>) -> Result<T, E> {
    match result {
        Ok(message) => Ok(received(message, at)),
        Err(e) => {
            if e.is_disconnected() {
                ends.saw_senders_gone(at);
            }
            Err(e)
        }
    }
}

/// The outcome of a send at `at`: on a zero-capacity channel, once its message is taken, the
/// receiver's clock acquired; if every receiver is gone, their drops; the user's value given
/// back in the crate's error.
fn sent<T>(
    ends: &Ends,
    pending: Pending,
    result: Result<(), cc::SendError<Message<T>>>,
    at: &'static Location<'static>,
) -> Result<(), SendError<T>> {
    match result {
        Ok(()) => {
            pending.taken(at);
            Ok(())
        }
        Err(e) => {
            ends.saw_receivers_gone(at);
            Err(SendError(e.0.returned()))
        }
    }
}

/// The sending side of a channel, as `crossbeam_channel::Sender`. Invariant: every message it
/// puts in the channel carries the clock of the thread that sent it, released at the send; on
/// a zero-capacity channel the send returns after acquiring its receiver's clock; its drop
/// releases into the channel's `senders_gone`.
pub struct Sender<T> {
    inner: cc::Sender<Message<T>>,
    ends: Arc<Ends>,
}

/// The receiving side of a channel, as `crossbeam_channel::Receiver`. Invariant: a message
/// taken from a channel of racer's `Sender`s is acquired by the thread that took it, at its
/// receive (and a disconnection found, the senders' drops); a timer's or `never`'s receiver
/// (no sender) orders nothing.
pub struct Receiver<T> {
    inner: Flavor<T>,
}

/// What a `Receiver` takes from: a channel of racer's senders, or one with no sender.
enum Flavor<T> {
    /// Made by `bounded` or `unbounded`: each message carries its sender's clock.
    Carried(cc::Receiver<Message<T>>, Arc<Ends>),
    /// Made by `after`, `at`, `tick` or `never`: the crate's own, nothing to order.
    Plain(cc::Receiver<T>),
}

fn ends<T>(inner: (cc::Sender<Message<T>>, cc::Receiver<Message<T>>), ends: Arc<Ends>) -> (Sender<T>, Receiver<T>) {
    let (s, r) = inner;
    (Sender { inner: s, ends: ends.clone() }, Receiver { inner: Flavor::Carried(r, ends) })
}

/// A channel of unbounded capacity, as `crossbeam_channel::unbounded`.
#[track_caller]
pub fn unbounded<T>() -> (Sender<T>, Receiver<T>) {
    ends(cc::unbounded(), Ends::new(false, Location::caller()))
}

/// A channel of capacity `cap` (0: each send waits for its receive, and is ordered after it),
/// as `crossbeam_channel::bounded`.
#[track_caller]
pub fn bounded<T>(cap: usize) -> (Sender<T>, Receiver<T>) {
    ends(cc::bounded(cap), Ends::new(cap == 0, Location::caller()))
}

/// A receiver of one `Instant` after `duration`, as `crossbeam_channel::after`.
pub fn after(duration: Duration) -> Receiver<Instant> {
    Receiver { inner: Flavor::Plain(cc::after(duration)) }
}

/// A receiver of one `Instant` at `when`, as `crossbeam_channel::at`.
pub fn at(when: Instant) -> Receiver<Instant> {
    Receiver { inner: Flavor::Plain(cc::at(when)) }
}

/// A receiver of an `Instant` every `duration`, as `crossbeam_channel::tick`.
pub fn tick(duration: Duration) -> Receiver<Instant> {
    Receiver { inner: Flavor::Plain(cc::tick(duration)) }
}

/// A receiver that never delivers a message, as `crossbeam_channel::never`.
pub const fn never<T>() -> Receiver<T> {
    Receiver { inner: Flavor::Plain(cc::never()) }
}

impl<T> Sender<T> {
    /// Sends `msg` if it can at once: as crossbeam's `try_send`.
    #[track_caller]
    pub fn try_send(&self, msg: T) -> Result<(), TrySendError<T>> {
        let at = Location::caller();
        let (message, pending) = self.ends.send(msg, at);
        match self.inner.try_send(message) {
            Ok(()) => {
                pending.taken(at);
                Ok(())
            }
            Err(cc::TrySendError::Full(m)) => Err(TrySendError::Full(m.returned())),
            Err(cc::TrySendError::Disconnected(m)) => {
                self.ends.saw_receivers_gone(at);
                Err(TrySendError::Disconnected(m.returned()))
            }
        }
    }

    /// Sends `msg`, waiting for room: as crossbeam's `send`.
    #[track_caller]
    pub fn send(&self, msg: T) -> Result<(), SendError<T>> {
        let at = Location::caller();
        let (message, pending) = self.ends.send(msg, at);
        sent(&self.ends, pending, self.inner.send(message), at)
    }

    /// Sends `msg`, waiting at most `timeout` for room: as crossbeam's `send_timeout`.
    #[track_caller]
    pub fn send_timeout(&self, msg: T, timeout: Duration) -> Result<(), SendTimeoutError<T>> {
        let at = Location::caller();
        let (message, pending) = self.ends.send(msg, at);
        let result = self.inner.send_timeout(message, timeout);
        self.timed_out(pending, result, at)
    }

    /// Sends `msg`, waiting until `deadline` at most for room: as crossbeam's `send_deadline`.
    #[track_caller]
    pub fn send_deadline(&self, msg: T, deadline: Instant) -> Result<(), SendTimeoutError<T>> {
        let at = Location::caller();
        let (message, pending) = self.ends.send(msg, at);
        let result = self.inner.send_deadline(message, deadline);
        self.timed_out(pending, result, at)
    }

    /// The outcome of a send with a time limit.
    fn timed_out(
        &self,
        pending: Pending,
        result: Result<(), cc::SendTimeoutError<Message<T>>>,
        at: &'static Location<'static>,
    ) -> Result<(), SendTimeoutError<T>> {
        match result {
            Ok(()) => {
                pending.taken(at);
                Ok(())
            }
            Err(cc::SendTimeoutError::Timeout(m)) => Err(SendTimeoutError::Timeout(m.returned())),
            Err(cc::SendTimeoutError::Disconnected(m)) => {
                self.ends.saw_receivers_gone(at);
                Err(SendTimeoutError::Disconnected(m.returned()))
            }
        }
    }

    /// Whether the channel is empty.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// Whether the channel is full.
    pub fn is_full(&self) -> bool {
        self.inner.is_full()
    }

    /// How many messages are in the channel.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// The channel's capacity, if bounded.
    pub fn capacity(&self) -> Option<usize> {
        self.inner.capacity()
    }

    /// Whether both senders send into the same channel.
    pub fn same_channel(&self, other: &Sender<T>) -> bool {
        self.inner.same_channel(&other.inner)
    }
}

impl<T> Drop for Sender<T> {
    #[track_caller]
    fn drop(&mut self) {
        self.ends.sender_dropped(Location::caller());
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        Sender { inner: self.inner.clone(), ends: self.ends.clone() }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// Calls `$method` on the crate's receiver inside `$receiver`, whichever flavor; on a carried
/// channel, a message is acquired at `$at` (or a disconnection, the senders' drops).
macro_rules! on_receiver {
    ($receiver:expr, $at:expr, $method:ident($($arg:expr),*)) => {
        match &$receiver.inner {
            Flavor::Carried(r, ends) => took(ends, r.$method($($arg),*), $at),
            Flavor::Plain(r) => r.$method($($arg),*),
        }
    };
    ($receiver:expr, $method:ident($($arg:expr),*)) => {
        match &$receiver.inner {
            Flavor::Carried(r, _) => r.$method($($arg),*),
            Flavor::Plain(r) => r.$method($($arg),*),
        }
    };
}

impl<T> Receiver<T> {
    /// Receives a message if there is one: as crossbeam's `try_recv`.
    #[track_caller]
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        on_receiver!(self, Location::caller(), try_recv())
    }

    /// Receives a message, waiting for one: as crossbeam's `recv`.
    #[track_caller]
    pub fn recv(&self) -> Result<T, RecvError> {
        on_receiver!(self, Location::caller(), recv())
    }

    /// Receives a message, waiting at most `timeout`: as crossbeam's `recv_timeout`.
    #[track_caller]
    pub fn recv_timeout(&self, timeout: Duration) -> Result<T, RecvTimeoutError> {
        on_receiver!(self, Location::caller(), recv_timeout(timeout))
    }

    /// Receives a message, waiting until `deadline` at most: as crossbeam's `recv_deadline`.
    #[track_caller]
    pub fn recv_deadline(&self, deadline: Instant) -> Result<T, RecvTimeoutError> {
        on_receiver!(self, Location::caller(), recv_deadline(deadline))
    }

    /// Whether the channel is empty.
    pub fn is_empty(&self) -> bool {
        on_receiver!(self, is_empty())
    }

    /// Whether the channel is full.
    pub fn is_full(&self) -> bool {
        on_receiver!(self, is_full())
    }

    /// How many messages are in the channel.
    pub fn len(&self) -> usize {
        on_receiver!(self, len())
    }

    /// The channel's capacity, if bounded.
    pub fn capacity(&self) -> Option<usize> {
        on_receiver!(self, capacity())
    }

    /// A blocking iterator over the messages, each acquired where `iter` was called: as
    /// crossbeam's `iter`.
    #[track_caller]
    pub fn iter(&self) -> Iter<'_, T> {
        Iter { receiver: self, at: Location::caller() }
    }

    /// A non-blocking iterator over the messages there are, each acquired where `try_iter`
    /// was called: as crossbeam's `try_iter`.
    #[track_caller]
    pub fn try_iter(&self) -> TryIter<'_, T> {
        TryIter { receiver: self, at: Location::caller() }
    }

    /// Whether both receivers take from the same channel.
    pub fn same_channel(&self, other: &Receiver<T>) -> bool {
        match (&self.inner, &other.inner) {
            (Flavor::Carried(a, _), Flavor::Carried(b, _)) => a.same_channel(b),
            (Flavor::Plain(a), Flavor::Plain(b)) => a.same_channel(b),
            _ => false,
        }
    }
}

impl<T> Clone for Receiver<T> {
    fn clone(&self) -> Self {
        let inner = match &self.inner {
            Flavor::Carried(r, ends) => Flavor::Carried(r.clone(), ends.clone()),
            Flavor::Plain(r) => Flavor::Plain(r.clone()),
        };
        Receiver { inner }
    }
}

impl<T> Drop for Receiver<T> {
    #[track_caller]
    fn drop(&mut self) {
        if let Flavor::Carried(_, ends) = &self.inner {
            ends.receiver_dropped(Location::caller());
        }
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.inner {
            Flavor::Carried(r, _) => r.fmt(f),
            Flavor::Plain(r) => r.fmt(f),
        }
    }
}

impl<'a, T> IntoIterator for &'a Receiver<T> {
    type Item = T;
    type IntoIter = Iter<'a, T>;

    #[track_caller]
    fn into_iter(self) -> Iter<'a, T> {
        Iter { receiver: self, at: Location::caller() }
    }
}

impl<T> IntoIterator for Receiver<T> {
    type Item = T;
    type IntoIter = IntoIter<T>;

    #[track_caller]
    fn into_iter(self) -> IntoIter<T> {
        IntoIter { receiver: self, at: Location::caller() }
    }
}

/// A blocking iterator over a receiver's messages, as `crossbeam_channel::Iter`: each message
/// is acquired, at the line that made the iterator.
pub struct Iter<'a, T> {
    receiver: &'a Receiver<T>,
    at: &'static Location<'static>,
}

impl<T> Iterator for Iter<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        on_receiver!(self.receiver, self.at, recv()).ok()
    }
}

impl<T> FusedIterator for Iter<'_, T> {}

impl<T> fmt::Debug for Iter<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("Iter { .. }")
    }
}

/// A non-blocking iterator over a receiver's messages, as `crossbeam_channel::TryIter`: each
/// message is acquired, at the line that made the iterator.
pub struct TryIter<'a, T> {
    receiver: &'a Receiver<T>,
    at: &'static Location<'static>,
}

impl<T> Iterator for TryIter<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        on_receiver!(self.receiver, self.at, try_recv()).ok()
    }
}

impl<T> fmt::Debug for TryIter<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("TryIter { .. }")
    }
}

/// A blocking iterator owning a receiver, as `crossbeam_channel::IntoIter`: each message is
/// acquired, at the line that made the iterator.
pub struct IntoIter<T> {
    receiver: Receiver<T>,
    at: &'static Location<'static>,
}

impl<T> Iterator for IntoIter<T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        on_receiver!(self.receiver, self.at, recv()).ok()
    }
}

impl<T> FusedIterator for IntoIter<T> {}

impl<T> fmt::Debug for IntoIter<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad("IntoIter { .. }")
    }
}
