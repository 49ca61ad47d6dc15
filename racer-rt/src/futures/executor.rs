//! `racer::futures::executor`: futures' executors, with `ThreadPool` (and its builder) spawning
//! each future as a task of its own.
//!
//! A spawn on the `ThreadPool` (`spawn_ok`, `spawn_obj_ok`, and `Spawn::spawn_obj`, under
//! `SpawnExt::spawn` and `spawn_with_handle`) forks the spawner's clock into a new task (a
//! logical thread, as `racer::tokio::spawn`'s): each poll of the future, and its drop, runs as the
//! task, on whichever worker polls it. The task is joined where its output is received:
//! `racer::futures::task::SpawnExt::spawn_with_handle`'s `RemoteHandle`, or a channel of
//! `racer::futures::channel`.
//!
//! `block_on`, `block_on_stream` and `LocalPool` run their futures on the calling thread, as part
//! of it (ordered by the thread, as the code between their awaits is): they are futures' own.

use std::fmt;
use std::io;
use std::panic::Location;

use futures_crate::executor as fe;
use futures_crate::task::{FutureObj, Spawn, SpawnError};
use racer_core::task::Task;

use crate::task::{AsTask, Tracked};

pub use futures_crate::executor::*;

/// A pool of threads running futures, as futures' `ThreadPool`: each future spawned on it is a
/// task of its own, forked from its spawner (everything the spawner did before the spawn happens
/// before everything the task does).
#[derive(Clone)]
pub struct ThreadPool {
    inner: fe::ThreadPool,
}

/// A `ThreadPool`'s configuration, as futures' `ThreadPoolBuilder`.
#[derive(Default)]
pub struct ThreadPoolBuilder {
    inner: fe::ThreadPoolBuilder,
}

/// `future`, spawned at `site`, as a task of its own.
fn tracked(future: FutureObj<'static, ()>, site: &'static Location<'static>) -> FutureObj<'static, ()> {
    if racer_core::explore::current_iteration().is_some() {
        panic!(
            "racer: spawning on a futures ThreadPool inside racer::model: a model explores the interleavings of \
             racer's threads, not of a pool's tasks. Check async code with racer::check around the program: every \
             task is then a logical thread checked at full speed on real threads"
        );
    }
    // The join is where the output is received (a carried value), not the task's end.
    let (task, _end) = Task::spawn(None, site);
    FutureObj::new(Box::new(AsTask(Tracked::with_task(future, task, site))))
}

impl ThreadPool {
    /// A pool with the default configuration: as futures' `ThreadPool::new`.
    pub fn new() -> Result<ThreadPool, io::Error> {
        ThreadPoolBuilder::new().create()
    }

    /// A default configuration to build a pool from.
    pub fn builder() -> ThreadPoolBuilder {
        ThreadPoolBuilder::new()
    }

    /// Spawns `future` as a task: as futures' `spawn_obj_ok`.
    #[track_caller]
    pub fn spawn_obj_ok(&self, future: FutureObj<'static, ()>) {
        self.inner.spawn_obj_ok(tracked(future, Location::caller()));
    }

    /// Spawns `future` as a task: as futures' `spawn_ok`.
    #[track_caller]
    pub fn spawn_ok<Fut>(&self, future: Fut)
    where
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        self.spawn_obj_ok(FutureObj::new(Box::new(future)));
    }
}

impl Spawn for ThreadPool {
    #[track_caller]
    fn spawn_obj(&self, future: FutureObj<'static, ()>) -> Result<(), SpawnError> {
        self.spawn_obj_ok(future);
        Ok(())
    }
}

impl fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}

impl ThreadPoolBuilder {
    /// The default configuration: as futures' `ThreadPoolBuilder::new`.
    pub fn new() -> Self {
        ThreadPoolBuilder { inner: fe::ThreadPoolBuilder::new() }
    }

    /// How many worker threads the pool has.
    pub fn pool_size(&mut self, size: usize) -> &mut Self {
        self.inner.pool_size(size);
        self
    }

    /// The stack size of the worker threads.
    pub fn stack_size(&mut self, stack_size: usize) -> &mut Self {
        self.inner.stack_size(stack_size);
        self
    }

    /// The prefix of the worker threads' names.
    pub fn name_prefix<S: Into<String>>(&mut self, name_prefix: S) -> &mut Self {
        self.inner.name_prefix(name_prefix);
        self
    }

    /// Runs `f` on each worker thread as it starts.
    pub fn after_start<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn(usize) + Send + Sync + 'static,
    {
        self.inner.after_start(f);
        self
    }

    /// Runs `f` on each worker thread before it stops.
    pub fn before_stop<F>(&mut self, f: F) -> &mut Self
    where
        F: Fn(usize) + Send + Sync + 'static,
    {
        self.inner.before_stop(f);
        self
    }

    /// The pool: as futures' `create`.
    pub fn create(&mut self) -> Result<ThreadPool, io::Error> {
        Ok(ThreadPool { inner: self.inner.create()? })
    }
}

impl fmt::Debug for ThreadPoolBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}
