//! `racer::tokio::runtime`: tokio's runtime, whose every way to start a task gives a tracked task.
//!
//! `Runtime`, `Handle`, `LocalRuntime` and `Builder` are tokio's, wrapped: their `spawn`,
//! `spawn_blocking` and `spawn_local` fork the spawner's clock into the task, as
//! `racer::tokio::spawn` does, and return racer's `JoinHandle`; `block_on` runs its future on the
//! calling thread, as part of it (tokio's does the same). Everything else is forwarded with
//! tokio's signature, and the rest of the module is tokio's own.

use std::fmt;
use std::future::Future;
use std::io;
use std::time::Duration;

use tokio_crate::runtime as rt;

// Every name of tokio's `runtime` (those of `tokio_unstable` too, where the user's build has
// them); `Runtime`, `Handle`, `LocalRuntime` and `Builder` below shadow tokio's.
pub use rt::*;

use super::task::{spawn_blocking_with, spawn_local_with, spawn_on, JoinHandle};

/// A handle to a runtime, as tokio's `Handle`: tasks spawned through it are tracked.
#[derive(Debug, Clone)]
pub struct Handle {
    pub(crate) inner: rt::Handle,
}

impl Handle {
    pub fn enter(&self) -> EnterGuard<'_> {
        self.inner.enter()
    }

    #[track_caller]
    pub fn current() -> Self {
        Handle { inner: rt::Handle::current() }
    }

    pub fn try_current() -> Result<Self, TryCurrentError> {
        rt::Handle::try_current().map(|inner| Handle { inner })
    }

    /// Spawns a task on this runtime, as `racer::tokio::spawn`.
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        spawn_on(future, |f| self.inner.spawn(f))
    }

    /// Runs a closure on this runtime's blocking pool, as `racer::tokio::task::spawn_blocking`.
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, func: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        spawn_blocking_with(func, |f| self.inner.spawn_blocking(f))
    }

    /// Runs `future` to completion on the calling thread, as part of it; inside a model, on
    /// racer's `block_on` (no runtime runs there).
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        if super::in_model() {
            return racer_core::explore::block_on(future);
        }
        self.inner.block_on(future)
    }

    pub fn runtime_flavor(&self) -> RuntimeFlavor {
        self.inner.runtime_flavor()
    }

    pub fn id(&self) -> Id {
        self.inner.id()
    }

    pub fn name(&self) -> Option<&str> {
        self.inner.name()
    }

    pub fn metrics(&self) -> RuntimeMetrics {
        self.inner.metrics()
    }
}

/// tokio's runtime, whose tasks are tracked (see the module).
#[derive(Debug)]
pub struct Runtime {
    pub(crate) inner: rt::Runtime,
    /// A handle to `inner`, for `handle()` to lend.
    handle: Handle,
}

impl Runtime {
    fn wrap(inner: rt::Runtime) -> Runtime {
        let handle = Handle { inner: inner.handle().clone() };
        Runtime { inner, handle }
    }

    pub fn new() -> io::Result<Runtime> {
        rt::Runtime::new().map(Runtime::wrap)
    }

    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Spawns a task on this runtime, as `racer::tokio::spawn`.
    #[track_caller]
    pub fn spawn<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        spawn_on(future, |f| self.inner.spawn(f))
    }

    /// Runs a closure on this runtime's blocking pool, as `racer::tokio::task::spawn_blocking`.
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, func: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        spawn_blocking_with(func, |f| self.inner.spawn_blocking(f))
    }

    /// Runs `future` to completion on the calling thread, as part of it; inside a model, on
    /// racer's `block_on` (no runtime runs there).
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        if super::in_model() {
            return racer_core::explore::block_on(future);
        }
        self.inner.block_on(future)
    }

    pub fn enter(&self) -> EnterGuard<'_> {
        self.inner.enter()
    }

    pub fn shutdown_timeout(self, duration: Duration) {
        self.inner.shutdown_timeout(duration)
    }

    pub fn shutdown_background(self) {
        self.inner.shutdown_background()
    }

    pub fn metrics(&self) -> RuntimeMetrics {
        self.inner.metrics()
    }
}

/// tokio's `LocalRuntime`, whose tasks are tracked: `spawn_local`'s run as part of the
/// runtime's thread (as `racer::tokio::task::spawn_local`'s), `spawn_blocking`'s as tasks.
#[derive(Debug)]
pub struct LocalRuntime {
    inner: rt::LocalRuntime,
    handle: Handle,
}

impl LocalRuntime {
    fn wrap(inner: rt::LocalRuntime) -> LocalRuntime {
        let handle = Handle { inner: inner.handle().clone() };
        LocalRuntime { inner, handle }
    }

    pub fn new() -> io::Result<LocalRuntime> {
        rt::LocalRuntime::new().map(LocalRuntime::wrap)
    }

    pub fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Spawns a `!Send` task on this runtime's thread, as `racer::tokio::task::spawn_local`.
    #[track_caller]
    pub fn spawn_local<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        spawn_local_with(future, |f| self.inner.spawn_local(f))
    }

    /// Runs a closure on this runtime's blocking pool, as `racer::tokio::task::spawn_blocking`.
    #[track_caller]
    pub fn spawn_blocking<F, R>(&self, func: F) -> JoinHandle<R>
    where
        F: FnOnce() -> R + Send + 'static,
        R: Send + 'static,
    {
        spawn_blocking_with(func, |f| self.inner.spawn_blocking(f))
    }

    /// Runs `future` to completion on the calling thread, as part of it; inside a model, on
    /// racer's `block_on` (no runtime runs there).
    #[track_caller]
    pub fn block_on<F: Future>(&self, future: F) -> F::Output {
        if super::in_model() {
            return racer_core::explore::block_on(future);
        }
        self.inner.block_on(future)
    }

    pub fn enter(&self) -> EnterGuard<'_> {
        self.inner.enter()
    }

    pub fn shutdown_timeout(self, duration: Duration) {
        self.inner.shutdown_timeout(duration)
    }

    pub fn shutdown_background(self) {
        self.inner.shutdown_background()
    }

    pub fn metrics(&self) -> RuntimeMetrics {
        self.inner.metrics()
    }
}

/// tokio's runtime `Builder`, whose `build` and `build_local` give racer's runtimes.
///
/// Every method of tokio's that racer's build of tokio has is here with its signature; the ones
/// behind tokio features racer does not turn on (`enable_io` and `max_io_events_per_tick`, with
/// `net`, `process` or `signal`; `enable_io_uring`; the `tokio_unstable` ones) are reached
/// through `Deref` to tokio's builder when the user's tokio has them.
pub struct Builder {
    inner: rt::Builder,
}

impl fmt::Debug for Builder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl std::ops::Deref for Builder {
    type Target = rt::Builder;

    fn deref(&self) -> &rt::Builder {
        &self.inner
    }
}

impl std::ops::DerefMut for Builder {
    fn deref_mut(&mut self) -> &mut rt::Builder {
        &mut self.inner
    }
}

impl Builder {
    /// tokio's `unhandled_panic` (under `--cfg tokio_unstable`), returning racer's builder so
    /// that a chain ends in racer's `build` (`#[racer::test(unhandled_panic = ...)]`).
    #[cfg(tokio_unstable)]
    pub fn unhandled_panic(&mut self, behavior: UnhandledPanic) -> &mut Self {
        self.inner.unhandled_panic(behavior);
        self
    }

    pub fn new_current_thread() -> Builder {
        Builder { inner: rt::Builder::new_current_thread() }
    }

    pub fn new_multi_thread() -> Builder {
        Builder { inner: rt::Builder::new_multi_thread() }
    }

    pub fn enable_all(&mut self) -> &mut Self {
        self.inner.enable_all();
        self
    }

    #[track_caller]
    pub fn worker_threads(&mut self, val: usize) -> &mut Self {
        self.inner.worker_threads(val);
        self
    }

    #[track_caller]
    pub fn max_blocking_threads(&mut self, val: usize) -> &mut Self {
        self.inner.max_blocking_threads(val);
        self
    }

    pub fn thread_name(&mut self, val: impl Into<String>) -> &mut Self {
        self.inner.thread_name(val);
        self
    }

    #[track_caller]
    pub fn name(&mut self, val: impl Into<String>) -> &mut Self {
        self.inner.name(val);
        self
    }

    pub fn thread_name_fn<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() -> String + Send + Sync + 'static,
    {
        self.inner.thread_name_fn(f);
        self
    }

    pub fn thread_stack_size(&mut self, val: usize) -> &mut Self {
        self.inner.thread_stack_size(val);
        self
    }

    pub fn on_thread_start<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.inner.on_thread_start(f);
        self
    }

    pub fn on_thread_stop<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.inner.on_thread_stop(f);
        self
    }

    pub fn on_thread_park<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.inner.on_thread_park(f);
        self
    }

    pub fn on_thread_unpark<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn() + Send + Sync + 'static,
    {
        self.inner.on_thread_unpark(f);
        self
    }

    pub fn build(&mut self) -> io::Result<Runtime> {
        self.inner.build().map(Runtime::wrap)
    }

    pub fn build_local(&mut self, options: LocalOptions) -> io::Result<LocalRuntime> {
        self.inner.build_local(options).map(LocalRuntime::wrap)
    }

    pub fn thread_keep_alive(&mut self, duration: Duration) -> &mut Self {
        self.inner.thread_keep_alive(duration);
        self
    }

    #[track_caller]
    pub fn global_queue_interval(&mut self, val: u32) -> &mut Self {
        self.inner.global_queue_interval(val);
        self
    }

    #[track_caller]
    pub fn event_interval(&mut self, val: u32) -> &mut Self {
        self.inner.event_interval(val);
        self
    }

    pub fn enable_time(&mut self) -> &mut Self {
        self.inner.enable_time();
        self
    }

    pub fn start_paused(&mut self, start_paused: bool) -> &mut Self {
        self.inner.start_paused(start_paused);
        self
    }
}
