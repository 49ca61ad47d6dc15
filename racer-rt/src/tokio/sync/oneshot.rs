//! `racer::tokio::sync::oneshot`: tokio's one-shot channel, its value carrying a clock of its
//! own: the send releases into it, the receive acquires it. `error` is tokio's.

use std::fmt;
use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio_crate::sync::oneshot as to;

use super::message::{received, sent, Message};

pub use tokio_crate::sync::oneshot::*;

use self::error::{RecvError, TryRecvError};

const OBJECT: &str = "a tokio::sync::oneshot channel";

/// Sends a value to the associated `Receiver`, as `tokio::sync::oneshot::Sender`.
pub struct Sender<T> {
    inner: to::Sender<Message<T>>,
    created: &'static Location<'static>,
}

/// Receives the value of the associated `Sender`, as `tokio::sync::oneshot::Receiver`: a
/// future of the value.
pub struct Receiver<T> {
    inner: to::Receiver<Message<T>>,
}

/// A one-shot channel, as `tokio::sync::oneshot::channel`.
#[track_caller]
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let created = Location::caller();
    let (tx, rx) = to::channel();
    (Sender { inner: tx, created }, Receiver { inner: rx })
}

impl<T> Sender<T> {
    /// Sends the value, or gives it back if the receiver is gone: as tokio's `send`.
    #[track_caller]
    pub fn send(self, t: T) -> Result<(), T> {
        let message = sent(t, OBJECT, self.created, Location::caller());
        self.inner.send(message).map_err(|m| m.returned())
    }

    /// Completes when the receiver was dropped or closed: as tokio's `closed`.
    pub fn closed(&mut self) -> impl Future<Output = ()> + '_ {
        self.inner.closed()
    }

    /// Whether the receiver was dropped or closed.
    pub fn is_closed(&self) -> bool {
        self.inner.is_closed()
    }

    /// Polls for the receiver's drop or close: as tokio's `poll_closed`.
    pub fn poll_closed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        self.inner.poll_closed(cx)
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

impl<T> Receiver<T> {
    /// Closes the channel: a later send fails (a value already sent can still be taken).
    pub fn close(&mut self) {
        self.inner.close();
    }

    /// Whether the receiver has completed (taken its value or seen the channel closed).
    pub fn is_terminated(&self) -> bool {
        self.inner.is_terminated()
    }

    /// Whether no value is waiting.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// Takes the value if it was sent: as tokio's `try_recv`.
    #[track_caller]
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        let at = Location::caller();
        self.inner.try_recv().map(|m| received(m, at))
    }

    /// Waits for the value, blocking the thread: as tokio's `blocking_recv`.
    #[track_caller]
    pub fn blocking_recv(self) -> Result<T, RecvError> {
        let at = Location::caller();
        self.inner.blocking_recv().map(|m| received(m, at))
    }
}

impl<T> Future for Receiver<T> {
    type Output = Result<T, RecvError>;

    /// `#[track_caller]`: an `.await` of the receiver is a call of this `poll`, and names the
    /// receive site.
    #[track_caller]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let at = Location::caller();
        Pin::new(&mut self.inner).poll(cx).map(|r| r.map(|m| received(m, at)))
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver").finish_non_exhaustive()
    }
}
