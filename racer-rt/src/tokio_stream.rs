//! `racer::tokio_stream` with `race-detect`: tokio-stream with the wrappers of `wrappers` that
//! take tokio's channels and `JoinSet` taking racer's (`racer::tokio::sync::{mpsc, broadcast,
//! watch}`, `racer::tokio::task::JoinSet`) instead.
//!
//! Each stream receives through its receiver's own methods, which acquire what they receive (a
//! message's clock, the watch channel's, a joined task's end) as `recv` does; the receive is
//! reported at the line where the stream was made (`new`, `from`, `from_changes`), the user's
//! line closest to it (`poll_next` is called by `StreamExt`'s futures, not by the user).
//!
//! Everything else is tokio-stream's own (`Stream`, `StreamExt`, `StreamMap`, `iter`, the other
//! wrappers, `wrappers::errors`). A test build swaps `tokio_stream::` for
//! `racer::tokio_stream::` in its `use` lines and nothing else.

pub use tokio_stream_crate::*;

/// tokio-stream's `wrappers`, the ones over tokio's channels and `JoinSet` taking racer's.
pub mod wrappers {
    use std::fmt;
    use std::panic::Location;
    use std::pin::Pin;
    use std::task::{ready, Context, Poll};

    use tokio_util_crate::sync::ReusableBoxFuture;

    use crate::tokio::sync::{broadcast, mpsc, watch};
    use crate::tokio::task::{JoinError, JoinSet};
    use tokio_stream_crate::Stream;

    pub use tokio_stream_crate::wrappers::*;

    use self::errors::BroadcastStreamRecvError;

    // === mpsc ===

    /// A `Stream` of the values of a `racer::tokio::sync::mpsc::Receiver`, as tokio-stream's
    /// `ReceiverStream`.
    pub struct ReceiverStream<T> {
        inner: mpsc::Receiver<T>,
        at: &'static Location<'static>,
    }

    impl<T> ReceiverStream<T> {
        /// A stream of `recv`'s values: as tokio-stream's `new`.
        #[track_caller]
        pub fn new(recv: mpsc::Receiver<T>) -> Self {
            ReceiverStream { inner: recv, at: Location::caller() }
        }

        /// The receiver back.
        pub fn into_inner(self) -> mpsc::Receiver<T> {
            self.inner
        }

        /// Closes the receiving half, without dropping it: as the receiver's `close`.
        pub fn close(&mut self) {
            self.inner.close();
        }
    }

    impl<T> Stream for ReceiverStream<T> {
        type Item = T;

        fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
            let at = self.at;
            self.inner.poll_recv_at(cx, at)
        }

        fn size_hint(&self) -> (usize, Option<usize>) {
            if self.inner.is_closed() {
                let used_capacity = self.inner.max_capacity() - self.inner.capacity();
                (self.inner.len(), Some(used_capacity))
            } else {
                (self.inner.len(), None)
            }
        }
    }

    impl<T> fmt::Debug for ReceiverStream<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_struct("ReceiverStream").field("inner", &self.inner).finish()
        }
    }

    impl<T> AsRef<mpsc::Receiver<T>> for ReceiverStream<T> {
        fn as_ref(&self) -> &mpsc::Receiver<T> {
            &self.inner
        }
    }

    impl<T> AsMut<mpsc::Receiver<T>> for ReceiverStream<T> {
        fn as_mut(&mut self) -> &mut mpsc::Receiver<T> {
            &mut self.inner
        }
    }

    impl<T> From<mpsc::Receiver<T>> for ReceiverStream<T> {
        #[track_caller]
        fn from(recv: mpsc::Receiver<T>) -> Self {
            Self::new(recv)
        }
    }

    /// A `Stream` of the values of a `racer::tokio::sync::mpsc::UnboundedReceiver`, as
    /// tokio-stream's `UnboundedReceiverStream`.
    pub struct UnboundedReceiverStream<T> {
        inner: mpsc::UnboundedReceiver<T>,
        at: &'static Location<'static>,
    }

    impl<T> UnboundedReceiverStream<T> {
        /// A stream of `recv`'s values: as tokio-stream's `new`.
        #[track_caller]
        pub fn new(recv: mpsc::UnboundedReceiver<T>) -> Self {
            UnboundedReceiverStream { inner: recv, at: Location::caller() }
        }

        /// The receiver back.
        pub fn into_inner(self) -> mpsc::UnboundedReceiver<T> {
            self.inner
        }

        /// Closes the receiving half, without dropping it: as the receiver's `close`.
        pub fn close(&mut self) {
            self.inner.close();
        }
    }

    impl<T> Stream for UnboundedReceiverStream<T> {
        type Item = T;

        fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
            let at = self.at;
            self.inner.poll_recv_at(cx, at)
        }

        fn size_hint(&self) -> (usize, Option<usize>) {
            if self.inner.is_closed() {
                let len = self.inner.len();
                (len, Some(len))
            } else {
                (self.inner.len(), None)
            }
        }
    }

    impl<T> fmt::Debug for UnboundedReceiverStream<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_struct("UnboundedReceiverStream").field("inner", &self.inner).finish()
        }
    }

    impl<T> AsRef<mpsc::UnboundedReceiver<T>> for UnboundedReceiverStream<T> {
        fn as_ref(&self) -> &mpsc::UnboundedReceiver<T> {
            &self.inner
        }
    }

    impl<T> AsMut<mpsc::UnboundedReceiver<T>> for UnboundedReceiverStream<T> {
        fn as_mut(&mut self) -> &mut mpsc::UnboundedReceiver<T> {
            &mut self.inner
        }
    }

    impl<T> From<mpsc::UnboundedReceiver<T>> for UnboundedReceiverStream<T> {
        #[track_caller]
        fn from(recv: mpsc::UnboundedReceiver<T>) -> Self {
            Self::new(recv)
        }
    }

    // === broadcast ===

    type BroadcastReceive<T> = (Result<T, broadcast::error::RecvError>, broadcast::Receiver<T>);

    /// One receive of `rx`, at `at`, giving the receiver back with the value.
    async fn broadcast_receive<T: Clone>(
        mut rx: broadcast::Receiver<T>,
        at: &'static Location<'static>,
    ) -> BroadcastReceive<T> {
        let result = rx.recv_at(at).await;
        (result, rx)
    }

    /// A `Stream` of the values of a `racer::tokio::sync::broadcast::Receiver`, as
    /// tokio-stream's `BroadcastStream`: a lag is an item `Err(Lagged(n))`, the channel's close
    /// its end.
    pub struct BroadcastStream<T> {
        inner: ReusableBoxFuture<'static, BroadcastReceive<T>>,
        at: &'static Location<'static>,
    }

    impl<T: 'static + Clone + Send> BroadcastStream<T> {
        /// A stream of `rx`'s values: as tokio-stream's `new`.
        #[track_caller]
        pub fn new(rx: broadcast::Receiver<T>) -> Self {
            let at = Location::caller();
            BroadcastStream { inner: ReusableBoxFuture::new(broadcast_receive(rx, at)), at }
        }
    }

    impl<T: 'static + Clone + Send> Stream for BroadcastStream<T> {
        type Item = Result<T, BroadcastStreamRecvError>;

        fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
            let (result, rx) = ready!(self.inner.poll(cx));
            let at = self.at;
            self.inner.set(broadcast_receive(rx, at));
            match result {
                Ok(item) => Poll::Ready(Some(Ok(item))),
                Err(broadcast::error::RecvError::Closed) => Poll::Ready(None),
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    Poll::Ready(Some(Err(BroadcastStreamRecvError::Lagged(n))))
                }
            }
        }
    }

    impl<T> fmt::Debug for BroadcastStream<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_struct("BroadcastStream").finish()
        }
    }

    impl<T: 'static + Clone + Send> From<broadcast::Receiver<T>> for BroadcastStream<T> {
        #[track_caller]
        fn from(recv: broadcast::Receiver<T>) -> Self {
            Self::new(recv)
        }
    }

    // === watch ===

    type WatchChange<T> = (Result<(), watch::error::RecvError>, watch::Receiver<T>);

    /// One wait of `rx` for a value not yet seen, acquired at `at`, giving the receiver back.
    async fn watch_change<T: Clone + Send + Sync>(
        mut rx: watch::Receiver<T>,
        at: &'static Location<'static>,
    ) -> WatchChange<T> {
        let result = rx.changed_at(at).await;
        (result, rx)
    }

    /// A `Stream` of the values of a `racer::tokio::sync::watch::Receiver`, as tokio-stream's
    /// `WatchStream`: each value is cloned out under the channel's read lock, the send that
    /// stored it acquired.
    pub struct WatchStream<T> {
        inner: ReusableBoxFuture<'static, WatchChange<T>>,
        at: &'static Location<'static>,
    }

    impl<T: 'static + Clone + Send + Sync> WatchStream<T> {
        /// A stream of `rx`'s values, the current one first: as tokio-stream's `new`.
        #[track_caller]
        pub fn new(rx: watch::Receiver<T>) -> Self {
            let at = Location::caller();
            WatchStream { inner: ReusableBoxFuture::new(async move { (Ok(()), rx) }), at }
        }

        /// A stream of `rx`'s values from its next change on: as tokio-stream's `from_changes`.
        #[track_caller]
        pub fn from_changes(rx: watch::Receiver<T>) -> Self {
            let at = Location::caller();
            WatchStream { inner: ReusableBoxFuture::new(watch_change(rx, at)), at }
        }
    }

    impl<T: Clone + 'static + Send + Sync> Stream for WatchStream<T> {
        type Item = T;

        fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
            let (result, mut rx) = ready!(self.inner.poll(cx));
            let at = self.at;
            match result {
                Ok(()) => {
                    let received = (*rx.borrow_and_update_at(at)).clone();
                    self.inner.set(watch_change(rx, at));
                    Poll::Ready(Some(received))
                }
                Err(_) => {
                    self.inner.set(watch_change(rx, at));
                    Poll::Ready(None)
                }
            }
        }
    }

    impl<T> Unpin for WatchStream<T> {}

    impl<T> fmt::Debug for WatchStream<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_struct("WatchStream").finish()
        }
    }

    impl<T: 'static + Clone + Send + Sync> From<watch::Receiver<T>> for WatchStream<T> {
        #[track_caller]
        fn from(recv: watch::Receiver<T>) -> Self {
            Self::new(recv)
        }
    }

    // === JoinSet ===

    /// A `Stream` of the results of a `racer::tokio::task::JoinSet`'s tasks as they end, each
    /// joined (as `join_next` joins it), as tokio-stream's `JoinSetStream`.
    pub struct JoinSetStream<T> {
        inner: JoinSet<T>,
    }

    impl<T> JoinSetStream<T> {
        /// A stream of `join_set`'s results: as tokio-stream's `new`.
        pub fn new(join_set: JoinSet<T>) -> Self {
            JoinSetStream { inner: join_set }
        }

        /// The set back.
        pub fn into_inner(self) -> JoinSet<T> {
            self.inner
        }
    }

    impl<T: 'static> Stream for JoinSetStream<T> {
        type Item = Result<T, JoinError>;

        fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
            self.inner.poll_join_next(cx)
        }

        fn size_hint(&self) -> (usize, Option<usize>) {
            let size = self.inner.len();
            (size, Some(size))
        }
    }

    impl<T> fmt::Debug for JoinSetStream<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_struct("JoinSetStream").field("inner", &self.inner).finish()
        }
    }

    impl<T> AsRef<JoinSet<T>> for JoinSetStream<T> {
        fn as_ref(&self) -> &JoinSet<T> {
            &self.inner
        }
    }

    impl<T> AsMut<JoinSet<T>> for JoinSetStream<T> {
        fn as_mut(&mut self) -> &mut JoinSet<T> {
            &mut self.inner
        }
    }

    impl<T> From<JoinSet<T>> for JoinSetStream<T> {
        fn from(join_set: JoinSet<T>) -> Self {
            Self::new(join_set)
        }
    }
}
