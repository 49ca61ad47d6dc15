//! `racer::flume::select`: flume's `Selector` over racer's ends. A send arm's value carries the
//! sender's clock from the `send` call that added the arm; a receive arm's value is acquired
//! before its handler runs. `SelectError` is flume's.

use std::fmt;
use std::panic::Location;
use std::time::{Duration, Instant};

use flume_crate as fl;

pub use flume_crate::select::*;

use super::{carried, received, send_error, Receiver, RecvError, SendError, Sender};

/// Waits on several sends and receives at once, as `flume::Selector`: the arm that completes
/// is ordered as the plain send or receive it stands for.
pub struct Selector<'a, T: 'a> {
    inner: fl::Selector<'a, T>,
}

impl<'a, T: 'a> Default for Selector<'a, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a, T: 'a> fmt::Debug for Selector<'a, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<'a, T> Selector<'a, T> {
    /// A selector with no arm.
    pub fn new() -> Self {
        Selector { inner: fl::Selector::new() }
    }

    /// Adds an arm sending `msg` on `sender`: as flume's `Selector::send`. The release is
    /// here.
    #[track_caller]
    pub fn send<U, F: FnMut(Result<(), SendError<U>>) -> T + 'a>(
        self,
        sender: &'a Sender<U>,
        msg: U,
        mut mapper: F,
    ) -> Self {
        let msg = carried(msg, Location::caller());
        Selector { inner: self.inner.send(&sender.inner, msg, move |r| mapper(r.map_err(send_error))) }
    }

    /// Adds an arm receiving from `receiver`: as flume's `Selector::recv`. The value is
    /// acquired, sited here, before `mapper` runs.
    #[track_caller]
    pub fn recv<U, F: FnMut(Result<U, RecvError>) -> T + 'a>(self, receiver: &'a Receiver<U>, mut mapper: F) -> Self {
        let at = Location::caller();
        Selector { inner: self.inner.recv(&receiver.inner, move |r| mapper(r.map(|m| received(m, at)))) }
    }

    /// Waits until an arm completes, and returns its handler's value.
    pub fn wait(self) -> T {
        self.inner.wait()
    }

    /// As `wait`, for at most `dur`.
    pub fn wait_timeout(self, dur: Duration) -> Result<T, SelectError> {
        self.inner.wait_timeout(dur)
    }

    /// As `wait`, until `deadline` at the latest.
    pub fn wait_deadline(self, deadline: Instant) -> Result<T, SelectError> {
        self.inner.wait_deadline(deadline)
    }
}
