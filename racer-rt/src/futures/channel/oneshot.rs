//! `racer::futures::channel::oneshot`: futures' one-shot channel over futures' own, its value a
//! `racer::annotate::Carry`: the send releases the sender's clock into it, the receive (the
//! receiver's completion, `try_recv`) acquires it. `Canceled` is futures' own.

use std::fmt;
use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_crate::channel::oneshot as fo;
use futures_crate::future::FusedFuture;
use racer_core::annotate::Carry;

pub use futures_crate::channel::oneshot::*;

use super::{RECEIVING, SENDING};

const OBJECT: &str = "a futures::channel::oneshot channel";

/// Sends the value to the associated `Receiver`, as futures' `oneshot::Sender`: the value
/// carries its clock.
pub struct Sender<T> {
    inner: fo::Sender<Carry<T>>,
}

/// Receives the value of the associated `Sender`, as futures' `oneshot::Receiver` (a future of
/// the value): taking it orders the sender's past before what follows.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Receiver<T> {
    inner: fo::Receiver<Carry<T>>,
}

/// A future of the receiver's drop or close, as futures' `oneshot::Cancellation`.
#[must_use = "futures do nothing unless you `.await` or poll them"]
#[derive(Debug)]
pub struct Cancellation<'a, T> {
    inner: &'a mut Sender<T>,
}

/// A one-shot channel, as futures' `oneshot::channel`.
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let (tx, rx) = fo::channel();
    (Sender { inner: tx }, Receiver { inner: rx })
}

impl<T> Sender<T> {
    /// Sends the value, or gives it back if the receiver is gone: as futures' `send`.
    #[track_caller]
    pub fn send(self, t: T) -> Result<(), T> {
        let message = Carry::released(t, OBJECT, SENDING, Location::caller());
        self.inner.send(message).map_err(Carry::returned)
    }

    /// Polls for the receiver's drop or close: as futures' `poll_canceled`.
    pub fn poll_canceled(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        self.inner.poll_canceled(cx)
    }

    /// A future of the receiver's drop or close: as futures' `cancellation`.
    pub fn cancellation(&mut self) -> Cancellation<'_, T> {
        Cancellation { inner: self }
    }

    /// Whether the receiver was dropped or closed.
    pub fn is_canceled(&self) -> bool {
        self.inner.is_canceled()
    }

    /// Whether this sender and `receiver` were made by the same `channel` call.
    pub fn is_connected_to(&self, receiver: &Receiver<T>) -> bool {
        self.inner.is_connected_to(&receiver.inner)
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}

impl<T> Future for Cancellation<'_, T> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.inner.poll_canceled(cx)
    }
}

impl<T> Receiver<T> {
    /// Closes the channel: a later send fails (a value already sent can still be taken).
    pub fn close(&mut self) {
        self.inner.close();
    }

    /// Takes the value if it was sent: as futures' `try_recv`.
    #[track_caller]
    pub fn try_recv(&mut self) -> Result<Option<T>, Canceled> {
        let at = Location::caller();
        self.inner.try_recv().map(|m| m.map(|m| m.acquired(RECEIVING, at)))
    }
}

impl<T> Future for Receiver<T> {
    type Output = Result<T, Canceled>;

    /// `#[track_caller]`: an `.await` of the receiver is a call of this `poll`, and names the
    /// receive site.
    #[track_caller]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T, Canceled>> {
        let at = Location::caller();
        Pin::new(&mut self.inner).poll(cx).map(|r| r.map(|m| m.acquired(RECEIVING, at)))
    }
}

impl<T> FusedFuture for Receiver<T> {
    fn is_terminated(&self) -> bool {
        self.inner.is_terminated()
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}
