//! `racer::futures::channel::mpsc`: futures' multi-producer, single-consumer channels over
//! futures' own, each message a `racer::annotate::Carry` of the value: its send (`try_send`,
//! `start_send`, `unbounded_send`, a `Sink`'s send or feed) releases the sender's clock into it,
//! its receive (`Stream::poll_next`, `next()`, `recv`, `try_recv`, `try_next`) acquires it. A
//! receiver is so ordered after the sends of the messages it took, and not after the sends of
//! messages still queued. `SendError`, `TryRecvError`, `RecvError` are futures' own.
//!
//! `TrySendError<T>` is racer's, with futures' methods, traits and output: futures' has no
//! constructor, and its value would be the carrier, not the user's `T`.

use std::fmt;
use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::sync::OnceLock;
use std::task::{Context, Poll};

use futures_crate::channel::mpsc as fm;
use futures_crate::future::FusedFuture;
use futures_crate::sink::Sink;
use futures_crate::stream::{FusedStream, Stream};
use racer_core::annotate::Carry;

pub use futures_crate::channel::mpsc::*;

use super::{RECEIVING, SENDING};

const OBJECT: &str = "a futures::channel::mpsc channel";

/// `value`, sent at `at`: the sender's release into the message's clock.
fn sent<T>(value: T, at: &'static Location<'static>) -> Carry<T> {
    Carry::released(value, OBJECT, SENDING, at)
}

/// The value of a message received at `at`: the receiver's acquire of its clock.
fn received<T>(message: Carry<T>, at: &'static Location<'static>) -> T {
    message.acquired(RECEIVING, at)
}

/// futures' `SendError` of each kind (it has no constructor): taken once from a channel of `()`.
fn send_error(full: bool) -> SendError {
    static ERRORS: OnceLock<(SendError, SendError)> = OnceLock::new();
    let (full_error, disconnected) = ERRORS.get_or_init(|| {
        let (mut tx, rx) = fm::channel::<()>(0);
        // The sender's own slot takes the first message and parks the sender: the next is refused.
        let _ = tx.try_send(());
        let full_error = tx.try_send(()).map_err(fm::TrySendError::into_send_error);
        drop(rx);
        let disconnected = tx.try_send(()).map_err(fm::TrySendError::into_send_error);
        (full_error.expect_err("a parked sender's send fails"), disconnected.expect_err("no receiver"))
    });
    if full {
        full_error.clone()
    } else {
        disconnected.clone()
    }
}

/// The error of futures' `try_send` and `unbounded_send` with the value given back to its sender
/// (no acquire: it is ordered with itself).
fn try_send_error<T>(e: fm::TrySendError<Carry<T>>) -> TrySendError<T> {
    let err = send_error(e.is_full());
    TrySendError { err, val: e.into_inner().returned() }
}

/// The error of [`Sender::try_send`] and [`UnboundedSender::unbounded_send`], as futures'
/// `TrySendError`: the kind of failure and the value that was not sent.
#[derive(Clone, PartialEq, Eq)]
pub struct TrySendError<T> {
    err: SendError,
    val: T,
}

impl<T> TrySendError<T> {
    /// Whether the channel was full.
    pub fn is_full(&self) -> bool {
        self.err.is_full()
    }

    /// Whether the receiver was gone.
    pub fn is_disconnected(&self) -> bool {
        self.err.is_disconnected()
    }

    /// The value that was not sent.
    pub fn into_inner(self) -> T {
        self.val
    }

    /// The error's kind, the value dropped.
    pub fn into_send_error(self) -> SendError {
        self.err
    }
}

impl<T> fmt::Debug for TrySendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.is_full() { "Full" } else { "Disconnected" };
        f.debug_struct("TrySendError").field("kind", &format_args!("{kind}")).finish()
    }
}

impl<T> fmt::Display for TrySendError<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.err, f)
    }
}

impl<T: core::any::Any> std::error::Error for TrySendError<T> {}

/// The future of `recv`, as futures' `Recv`: the next value of the stream, or `RecvError` once
/// it ended.
#[derive(Debug)]
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Recv<'a, St: ?Sized> {
    stream: &'a mut St,
}

impl<St: ?Sized + Unpin> Unpin for Recv<'_, St> {}

impl<St: ?Sized + FusedStream + Unpin> FusedFuture for Recv<'_, St> {
    fn is_terminated(&self) -> bool {
        self.stream.is_terminated()
    }
}

impl<St: ?Sized + Stream + Unpin> Future for Recv<'_, St> {
    type Output = Result<St::Item, RecvError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut *self.stream).poll_next(cx).map(|item| item.ok_or(RecvError))
    }
}

// === bounded ===

/// The sending side of a bounded channel, as futures' `mpsc::Sender`: each message it sends
/// carries its clock to the receiver that takes it.
pub struct Sender<T> {
    inner: fm::Sender<Carry<T>>,
}

/// The receiving side of a bounded channel, as futures' `mpsc::Receiver` (a `Stream`): each
/// message taken orders its sender's past before what follows.
pub struct Receiver<T> {
    inner: fm::Receiver<Carry<T>>,
}

/// A bounded channel, as futures' `mpsc::channel`: room for `buffer` messages plus one per
/// sender.
pub fn channel<T>(buffer: usize) -> (Sender<T>, Receiver<T>) {
    let (tx, rx) = fm::channel(buffer);
    (Sender { inner: tx }, Receiver { inner: rx })
}

impl<T> Sender<T> {
    /// Sends `msg` if there is room, else gives it back: as futures' `try_send`.
    #[track_caller]
    pub fn try_send(&mut self, msg: T) -> Result<(), TrySendError<T>> {
        let at = Location::caller();
        self.inner.try_send(sent(msg, at)).map_err(try_send_error)
    }

    /// Sends `msg` after `poll_ready` said there is room: as futures' `start_send`.
    #[track_caller]
    pub fn start_send(&mut self, msg: T) -> Result<(), SendError> {
        let at = Location::caller();
        self.inner.start_send(sent(msg, at))
    }

    /// Whether there is room for a message: as futures' `poll_ready`.
    pub fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        self.inner.poll_ready(cx)
    }

    /// Whether the channel is closed.
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// Closes the channel from the sending side.
    pub fn close_channel(&mut self) {
        self.inner.close_channel();
    }

    /// Disconnects this sender (the channel closes with the last one).
    pub fn disconnect(&mut self) {
        self.inner.disconnect();
    }

    /// Whether both senders send to the same receiver.
    pub fn same_receiver(&self, other: &Self) -> bool {
        self.inner.same_receiver(&other.inner)
    }

    /// Whether this sender sends to `receiver`.
    pub fn is_connected_to(&self, receiver: &Receiver<T>) -> bool {
        self.inner.is_connected_to(&receiver.inner)
    }

    /// Hashes the receiver this sender sends to.
    pub fn hash_receiver<H>(&self, hasher: &mut H)
    where
        H: std::hash::Hasher,
    {
        self.inner.hash_receiver(hasher);
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        Sender { inner: self.inner.clone() }
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}

impl<T> Sink<T> for Sender<T> {
    type Error = SendError;

    fn poll_ready(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        Sink::poll_ready(Pin::new(&mut self.inner), cx)
    }

    #[track_caller]
    fn start_send(mut self: Pin<&mut Self>, msg: T) -> Result<(), SendError> {
        let at = Location::caller();
        Sink::start_send(Pin::new(&mut self.inner), sent(msg, at))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        Sink::poll_flush(Pin::new(&mut self.inner), cx)
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        Sink::poll_close(Pin::new(&mut self.inner), cx)
    }
}

/// The methods futures' two receivers share: each message taken is acquired at the caller's line.
macro_rules! receiver_methods {
    () => {
        /// The future of the next value: as futures' `recv`.
        pub fn recv(&mut self) -> Recv<'_, Self> {
            Recv { stream: self }
        }

        /// Closes the channel, the queued messages still to be taken.
        pub fn close(&mut self) {
            self.inner.close();
        }

        /// The next value if one is queued: as futures' `try_next`.
        #[deprecated(note = "please use `try_recv` instead")]
        #[track_caller]
        pub fn try_next(&mut self) -> Result<Option<T>, TryRecvError> {
            let at = Location::caller();
            #[allow(deprecated)]
            self.inner.try_next().map(|m| m.map(|m| received(m, at)))
        }

        /// The next value if one is queued: as futures' `try_recv`.
        #[track_caller]
        pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
            let at = Location::caller();
            self.inner.try_recv().map(|m| received(m, at))
        }
    };
}

/// `Stream` and `FusedStream` for a receiver: the message taken is acquired.
macro_rules! receiver_traits {
    ($receiver:ident) => {
        impl<T> Stream for $receiver<T> {
            type Item = T;

            #[track_caller]
            fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
                let at = Location::caller();
                Pin::new(&mut self.inner).poll_next(cx).map(|m| m.map(|m| received(m, at)))
            }

            fn size_hint(&self) -> (usize, Option<usize>) {
                self.inner.size_hint()
            }
        }

        impl<T> FusedStream for $receiver<T> {
            fn is_terminated(&self) -> bool {
                self.inner.is_terminated()
            }
        }

        impl<T> fmt::Debug for $receiver<T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.inner, f)
            }
        }
    };
}

impl<T> Receiver<T> {
    receiver_methods!();
}

receiver_traits!(Receiver);

// === unbounded ===

/// The sending side of an unbounded channel, as futures' `mpsc::UnboundedSender`: each message
/// it sends carries its clock to the receiver that takes it.
pub struct UnboundedSender<T> {
    inner: fm::UnboundedSender<Carry<T>>,
}

/// The receiving side of an unbounded channel, as futures' `mpsc::UnboundedReceiver` (a
/// `Stream`): each message taken orders its sender's past before what follows.
pub struct UnboundedReceiver<T> {
    inner: fm::UnboundedReceiver<Carry<T>>,
}

/// An unbounded channel, as futures' `mpsc::unbounded`.
pub fn unbounded<T>() -> (UnboundedSender<T>, UnboundedReceiver<T>) {
    let (tx, rx) = fm::unbounded();
    (UnboundedSender { inner: tx }, UnboundedReceiver { inner: rx })
}

impl<T> UnboundedSender<T> {
    /// Whether the channel takes a message (it does unless closed): as futures' `poll_ready`.
    pub fn poll_ready(&self, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        self.inner.poll_ready(cx)
    }

    /// Whether the channel is closed.
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// Closes the channel from the sending side.
    pub fn close_channel(&self) {
        self.inner.close_channel();
    }

    /// Disconnects this sender (the channel closes with the last one).
    pub fn disconnect(&mut self) {
        self.inner.disconnect();
    }

    /// Sends `msg`: as futures' `start_send`.
    #[track_caller]
    pub fn start_send(&mut self, msg: T) -> Result<(), SendError> {
        let at = Location::caller();
        self.inner.start_send(sent(msg, at))
    }

    /// Sends `msg`, or gives it back if the channel is closed: as futures' `unbounded_send`.
    #[track_caller]
    pub fn unbounded_send(&self, msg: T) -> Result<(), TrySendError<T>> {
        let at = Location::caller();
        self.inner.unbounded_send(sent(msg, at)).map_err(try_send_error)
    }

    /// Whether both senders send to the same receiver.
    pub fn same_receiver(&self, other: &Self) -> bool {
        self.inner.same_receiver(&other.inner)
    }

    /// Whether this sender sends to `receiver`.
    pub fn is_connected_to(&self, receiver: &UnboundedReceiver<T>) -> bool {
        self.inner.is_connected_to(&receiver.inner)
    }

    /// Hashes the receiver this sender sends to.
    pub fn hash_receiver<H>(&self, hasher: &mut H)
    where
        H: std::hash::Hasher,
    {
        self.inner.hash_receiver(hasher);
    }

    /// How many messages are queued (0 once disconnected).
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// Whether no message is queued.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }
}

impl<T> Clone for UnboundedSender<T> {
    fn clone(&self) -> Self {
        UnboundedSender { inner: self.inner.clone() }
    }
}

impl<T> fmt::Debug for UnboundedSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}

impl<T> Sink<T> for UnboundedSender<T> {
    type Error = SendError;

    fn poll_ready(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        Sink::poll_ready(Pin::new(&mut self.inner), cx)
    }

    #[track_caller]
    fn start_send(mut self: Pin<&mut Self>, msg: T) -> Result<(), SendError> {
        let at = Location::caller();
        Sink::start_send(Pin::new(&mut self.inner), sent(msg, at))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        Sink::poll_flush(Pin::new(&mut self.inner), cx)
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        Sink::poll_close(Pin::new(&mut self.inner), cx)
    }
}

impl<T> Sink<T> for &UnboundedSender<T> {
    type Error = SendError;

    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        Sink::poll_ready(Pin::new(&mut &self.inner), cx)
    }

    #[track_caller]
    fn start_send(self: Pin<&mut Self>, msg: T) -> Result<(), SendError> {
        let at = Location::caller();
        Sink::start_send(Pin::new(&mut &self.inner), sent(msg, at))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        Sink::poll_flush(Pin::new(&mut &self.inner), cx)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), SendError>> {
        Sink::poll_close(Pin::new(&mut &self.inner), cx)
    }
}

impl<T> UnboundedReceiver<T> {
    receiver_methods!();
}

receiver_traits!(UnboundedReceiver);
