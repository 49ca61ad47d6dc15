//! `racer::futures::task`: futures' task items, with `SpawnExt` whose `spawn_with_handle` joins
//! the spawned task where its `RemoteHandle` gives its output.
//!
//! The output carries the clock the task had when its future completed (a
//! `racer::annotate::Carry`, released as the task), and the handle's completion acquires it:
//! everything the task did happens before what follows the handle's `.await`. (futures' own
//! `RemoteHandle`, of `FutureExt::remote_handle`, delivers through a channel racer does not see.)

use std::fmt;
use std::future::Future;
use std::panic::Location;
use std::pin::Pin;

use futures_crate::future::{self as fu, FutureExt};
use racer_core::annotate::Carry;

// `Context` and `Poll` among them (std's).
pub use futures_crate::task::*;

const OBJECT: &str = "a futures::future::RemoteHandle";
const ENDING: &str = "ending a task with its output for";
const JOINING: &str = "joining a task through";

/// An extension of `Spawn`, as futures' `task::SpawnExt`: `spawn_with_handle`'s handle joins
/// the task when it gives its output.
pub trait SpawnExt: Spawn {
    /// Spawns a future of output `()`: as futures' `SpawnExt::spawn`.
    #[track_caller]
    fn spawn<Fut>(&self, future: Fut) -> Result<(), SpawnError>
    where
        Fut: Future<Output = ()> + Send + 'static,
    {
        self.spawn_obj(FutureObj::new(Box::new(future)))
    }

    /// Spawns a future and returns a future of its output: as futures'
    /// `SpawnExt::spawn_with_handle`. The handle's completion joins the task.
    #[track_caller]
    fn spawn_with_handle<Fut>(&self, future: Fut) -> Result<RemoteHandle<Fut::Output>, SpawnError>
    where
        Fut: Future + Send + 'static,
        Fut::Output: Send,
    {
        let site = Location::caller();
        let (remote, inner) = future.map(move |output| Carry::released(output, OBJECT, ENDING, site)).remote_handle();
        SpawnExt::spawn(self, remote)?;
        Ok(RemoteHandle { inner })
    }
}

impl<Sp: ?Sized> SpawnExt for Sp where Sp: Spawn {}

/// The future of a spawned future's output, as futures' `future::RemoteHandle`: its completion
/// joins the task (everything the task did happens before what follows); its drop cancels the
/// task unless `forget` was called.
#[must_use = "dropping a remote handle cancels the underlying future"]
pub struct RemoteHandle<T> {
    inner: fu::RemoteHandle<Carry<T>>,
}

impl<T> RemoteHandle<T> {
    /// Drops the handle without cancelling the task: as futures' `forget`.
    pub fn forget(self) {
        self.inner.forget();
    }
}

impl<T: 'static> Future for RemoteHandle<T> {
    type Output = T;

    /// `#[track_caller]`: an `.await` of the handle is a call of this `poll`, and names the join.
    #[track_caller]
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let at = Location::caller();
        Pin::new(&mut self.inner).poll(cx).map(|output| output.acquired(JOINING, at))
    }
}

impl<T: fmt::Debug> fmt::Debug for RemoteHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}
