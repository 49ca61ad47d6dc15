//! `racer::flume::r#async`: flume's futures, stream and sink over racer's ends. A value sent
//! through `send_async` or a sink carries the sender's clock as of the call that gave it
//! (`send_async`, or the sink's `start_send`, sited at the line that made the sink); a value
//! received through `recv_async` or a stream is acquired, sited at the line that made the
//! future or stream.

use std::fmt;
use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::task::{Context, Poll};

use flume_crate::r#async as fa;
use futures_core::future::FusedFuture;
use futures_core::stream::{FusedStream, Stream};
use futures_sink::Sink;
use racer_core::annotate::Carry;

// Every item of flume's module is wrapped below; the glob keeps any later one.
#[allow(unused_imports)]
pub use flume_crate::r#async::*;

use super::{carried, received, send_error, Receiver, RecvError, SendError, Sender, Site};

impl<T> Sender<T> {
    /// A future sending `item`, waiting for room: as flume's `send_async`. The send's release
    /// is here, where the value is given.
    #[track_caller]
    pub fn send_async(&self, item: T) -> SendFut<'_, T> {
        SendFut { inner: self.inner.send_async(carried(item, Location::caller())) }
    }

    /// As `send_async`, the future owning the sender: as flume's `into_send_async`.
    #[track_caller]
    pub fn into_send_async<'a>(self, item: T) -> SendFut<'a, T> {
        SendFut { inner: self.inner.into_send_async(carried(item, Location::caller())) }
    }

    /// A sink sending on this channel: as flume's `sink`. Each value given to it carries the
    /// clock of the thread that gives it, sited here.
    #[track_caller]
    pub fn sink(&self) -> SendSink<'_, T> {
        SendSink { inner: self.inner.sink(), at: Location::caller() }
    }

    /// As `sink`, the sink owning the sender: as flume's `into_sink`.
    #[track_caller]
    pub fn into_sink<'a>(self) -> SendSink<'a, T> {
        SendSink { inner: self.inner.into_sink(), at: Location::caller() }
    }
}

impl<T> Receiver<T> {
    /// A future receiving one value: as flume's `recv_async`. The value is acquired when the
    /// future yields it, sited here.
    #[track_caller]
    pub fn recv_async(&self) -> RecvFut<'_, T> {
        RecvFut { inner: self.inner.recv_async(), at: Location::caller() }
    }

    /// As `recv_async`, the future owning the receiver: as flume's `into_recv_async`.
    #[track_caller]
    pub fn into_recv_async<'a>(self) -> RecvFut<'a, T> {
        RecvFut { inner: self.inner.into_recv_async(), at: Location::caller() }
    }

    /// A stream of the values received: as flume's `stream`. Each value is acquired when the
    /// stream yields it, sited here.
    #[track_caller]
    pub fn stream(&self) -> RecvStream<'_, T> {
        RecvStream { inner: self.inner.stream(), at: Location::caller() }
    }

    /// As `stream`, the stream owning the receiver: as flume's `into_stream`.
    #[track_caller]
    pub fn into_stream<'a>(self) -> RecvStream<'a, T> {
        RecvStream { inner: self.inner.into_stream(), at: Location::caller() }
    }
}

/// A future sending one value, as `flume::r#async::SendFut`: the value carries its sender's
/// clock from the `send_async` call.
#[must_use = "futures/streams/sinks do nothing unless you `.await` or poll them"]
pub struct SendFut<'a, T> {
    inner: fa::SendFut<'a, Carry<T>>,
}

impl<T> SendFut<'_, T> {
    /// See `Sender::is_disconnected`.
    pub fn is_disconnected(&self) -> bool {
        self.inner.is_disconnected()
    }

    /// See `Sender::is_empty`.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// See `Sender::is_full`.
    pub fn is_full(&self) -> bool {
        self.inner.is_full()
    }

    /// See `Sender::len`.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// See `Sender::capacity`.
    pub fn capacity(&self) -> Option<usize> {
        self.inner.capacity()
    }
}

impl<T> Future for SendFut<'_, T> {
    type Output = Result<(), SendError<T>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.inner).poll(cx).map(|r| r.map_err(send_error))
    }
}

impl<T> FusedFuture for SendFut<'_, T> {
    fn is_terminated(&self) -> bool {
        self.inner.is_terminated()
    }
}

impl<T> fmt::Debug for SendFut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// A sink sending on a channel, as `flume::r#async::SendSink`: each value given to
/// `start_send` carries the clock of the thread giving it.
pub struct SendSink<'a, T> {
    inner: fa::SendSink<'a, Carry<T>>,
    at: Site,
}

impl<T> SendSink<'_, T> {
    /// The sender this sink sends with.
    pub fn sender(&self) -> &Sender<T> {
        let inner: *const flume_crate::Sender<Carry<T>> = self.inner.sender();
        // SAFETY: `Sender<T>` is `#[repr(transparent)]` over `flume::Sender<Carry<T>>`, its one
        // field, so a reference to the one is a valid reference to the other, for as long.
        unsafe { &*inner.cast::<Sender<T>>() }
    }

    /// See `Sender::is_disconnected`.
    pub fn is_disconnected(&self) -> bool {
        self.inner.is_disconnected()
    }

    /// See `Sender::is_empty`.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// See `Sender::is_full`.
    pub fn is_full(&self) -> bool {
        self.inner.is_full()
    }

    /// See `Sender::len`.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// See `Sender::capacity`.
    pub fn capacity(&self) -> Option<usize> {
        self.inner.capacity()
    }

    /// Whether both sinks send on the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        self.inner.same_channel(&other.inner)
    }
}

impl<T> Sink<T> for SendSink<'_, T> {
    type Error = SendError<T>;

    fn poll_ready(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Pin::new(&mut self.inner).poll_ready(cx).map(|r| r.map_err(send_error))
    }

    fn start_send(mut self: Pin<&mut Self>, item: T) -> Result<(), Self::Error> {
        let at = self.at;
        Pin::new(&mut self.inner).start_send(carried(item, at)).map_err(send_error)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Pin::new(&mut self.inner).poll_flush(cx).map(|r| r.map_err(send_error))
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Pin::new(&mut self.inner).poll_close(cx).map(|r| r.map_err(send_error))
    }
}

impl<T> Clone for SendSink<'_, T> {
    fn clone(&self) -> Self {
        SendSink { inner: self.inner.clone(), at: self.at }
    }
}

impl<T> fmt::Debug for SendSink<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// A future receiving one value, as `flume::r#async::RecvFut`: the value is acquired when
/// the future yields it.
#[must_use = "futures/streams/sinks do nothing unless you `.await` or poll them"]
pub struct RecvFut<'a, T> {
    inner: fa::RecvFut<'a, Carry<T>>,
    at: Site,
}

impl<T> RecvFut<'_, T> {
    /// See `Receiver::is_disconnected`.
    pub fn is_disconnected(&self) -> bool {
        self.inner.is_disconnected()
    }

    /// See `Receiver::is_empty`.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// See `Receiver::is_full`.
    pub fn is_full(&self) -> bool {
        self.inner.is_full()
    }

    /// See `Receiver::len`.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// See `Receiver::capacity`.
    pub fn capacity(&self) -> Option<usize> {
        self.inner.capacity()
    }
}

impl<T> Future for RecvFut<'_, T> {
    type Output = Result<T, RecvError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let at = self.at;
        Pin::new(&mut self.inner).poll(cx).map(|r| r.map(|m| received(m, at)))
    }
}

impl<T> FusedFuture for RecvFut<'_, T> {
    fn is_terminated(&self) -> bool {
        self.inner.is_terminated()
    }
}

impl<T> fmt::Debug for RecvFut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

/// A stream of the values received, as `flume::r#async::RecvStream`: each acquired when the
/// stream yields it.
pub struct RecvStream<'a, T> {
    inner: fa::RecvStream<'a, Carry<T>>,
    at: Site,
}

impl<T> RecvStream<'_, T> {
    /// See `Receiver::is_disconnected`.
    pub fn is_disconnected(&self) -> bool {
        self.inner.is_disconnected()
    }

    /// See `Receiver::is_empty`.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// See `Receiver::is_full`.
    pub fn is_full(&self) -> bool {
        self.inner.is_full()
    }

    /// See `Receiver::len`.
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// See `Receiver::capacity`.
    pub fn capacity(&self) -> Option<usize> {
        self.inner.capacity()
    }

    /// Whether both streams receive from the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        self.inner.same_channel(&other.inner)
    }
}

impl<T> Stream for RecvStream<'_, T> {
    type Item = T;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let at = self.at;
        Pin::new(&mut self.inner).poll_next(cx).map(|m| m.map(|m| received(m, at)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl<T> FusedStream for RecvStream<'_, T> {
    fn is_terminated(&self) -> bool {
        self.inner.is_terminated()
    }
}

impl<T> Clone for RecvStream<'_, T> {
    fn clone(&self) -> Self {
        RecvStream { inner: self.inner.clone(), at: self.at }
    }
}

impl<T> fmt::Debug for RecvStream<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
