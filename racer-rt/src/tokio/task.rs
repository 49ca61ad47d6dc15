//! `racer::tokio::task` (and `racer::tokio::spawn`): tokio's task API, each task a logical
//! thread of its own.
//!
//! A spawn forks the spawner's clock into a new task state (`racer_core::task::Task`); the
//! future tokio runs is a `racer::task::Tracked` around the user's, whose every poll (and the
//! drop of the user's future: an abort, the runtime's shutdown) runs as the task, on whichever
//! worker thread tokio chose. The task's end posts into its join handle's `TaskEnd`, which a join waits on.
//!
//! `spawn_local`'s tasks never leave their thread, so they run as part of it (ordered by the
//! thread, as the code between their awaits is); their end still posts to their join handle.

use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use racer_core::task::{Task, TaskEnd};

use crate::task::{__racer_task_poll_blocking, AsTask, Tracked};
use tokio_crate::task as tt;

pub use tt::{
    block_in_place, consume_budget, coop, futures, id, try_id, unconstrained, yield_now, AbortHandle, Id, JoinError,
    LocalEnterGuard, LocalKey, Unconstrained,
};

use super::model_task::{self, ModelJoin};
use super::runtime::{Handle, Runtime};

/// The future tokio runs for a task spawned through racer at `site`: the user's, polled and
/// dropped as `task`.
fn tracked<F: Future>(future: F, task: Task, site: &'static Location<'static>) -> AsTask<F> {
    AsTask(Tracked::with_task(future, task, site))
}

/// Whose spawn the task is, for a spawned task's `Tracked` and its handle (`what`: the kind of
/// task, which a model cannot run).
fn fork(site: &'static Location<'static>, what: &str) -> (Task, TaskEnd) {
    super::not_in_model(what);
    Task::spawn(None, site)
}

/// An owned permission to join on a task (await its termination), as tokio's `JoinHandle`;
/// its completion (the output or a `JoinError`) is a join of the task: everything the task did
/// happens before what follows.
pub struct JoinHandle<T> {
    inner: Spawned<T>,
}

/// Where the task runs: on a tokio runtime, or, inside a model, as a model thread.
enum Spawned<T> {
    Runtime { inner: tt::JoinHandle<T>, end: TaskEnd, site: &'static Location<'static> },
    Model(ModelJoin<T>),
}

impl<T> JoinHandle<T> {
    fn new(inner: tt::JoinHandle<T>, end: TaskEnd, site: &'static Location<'static>) -> JoinHandle<T> {
        JoinHandle { inner: Spawned::Runtime { inner, end, site } }
    }

    fn model(join: ModelJoin<T>) -> JoinHandle<T> {
        JoinHandle { inner: Spawned::Model(join) }
    }

    pub fn abort(&self) {
        match &self.inner {
            Spawned::Runtime { inner, .. } => inner.abort(),
            Spawned::Model(join) => join.abort(),
        }
    }

    pub fn is_finished(&self) -> bool {
        match &self.inner {
            Spawned::Runtime { inner, .. } => inner.is_finished(),
            Spawned::Model(join) => join.is_finished(),
        }
    }

    #[track_caller]
    pub fn abort_handle(&self) -> AbortHandle {
        match &self.inner {
            Spawned::Runtime { inner, .. } => inner.abort_handle(),
            Spawned::Model(_) => {
                super::unsupported_in_model("JoinHandle::abort_handle of a task (tokio's handle needs a runtime)")
            }
        }
    }

    #[track_caller]
    pub fn id(&self) -> Id {
        match &self.inner {
            Spawned::Runtime { inner, .. } => inner.id(),
            Spawned::Model(_) => {
                super::unsupported_in_model("JoinHandle::id of a task (tokio's task ids need a runtime)")
            }
        }
    }
}

impl<T> Unpin for JoinHandle<T> {}
// As tokio's: a handle holds no reference into the task's state that an unwind could expose.
impl<T> std::panic::UnwindSafe for JoinHandle<T> {}
impl<T> std::panic::RefUnwindSafe for JoinHandle<T> {}

impl<T> Future for JoinHandle<T> {
    type Output = Result<T, JoinError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match &mut self.inner {
            Spawned::Runtime { inner, end, site } => {
                let out = Pin::new(inner).poll(cx);
                if out.is_ready() {
                    end.joined(site);
                }
                out
            }
            Spawned::Model(join) => join.poll_output(cx),
        }
    }
}

impl<T> std::fmt::Debug for JoinHandle<T>
where
    T: std::fmt::Debug,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.inner {
            Spawned::Runtime { inner, .. } => inner.fmt(f),
            Spawned::Model(_) => f.debug_struct("JoinHandle").field("model_task", &true).finish_non_exhaustive(),
        }
    }
}

/// Spawns a task, as `tokio::spawn`: a logical thread of its own, whose clock starts from the
/// spawner's.
#[track_caller]
pub fn spawn<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    spawn_on(future, tt::spawn)
}

/// A task forked from the caller's clock, given to `start` (tokio's `spawn` on some runtime);
/// inside a model, a model thread of its own instead.
#[track_caller]
pub(crate) fn spawn_on<F>(
    future: F,
    start: impl FnOnce(AsTask<F>) -> tt::JoinHandle<F::Output>,
) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    if super::in_model() {
        return JoinHandle::model(model_task::spawn(future));
    }
    spawn_with(future, start)
}

/// A task forked from the caller's clock at the caller's site, its future given to `start`.
#[track_caller]
fn spawn_with<F: Future>(
    future: F,
    start: impl FnOnce(AsTask<F>) -> tt::JoinHandle<F::Output>,
) -> JoinHandle<F::Output> {
    let site = Location::caller();
    let (task, end) = fork(site, "spawning a tokio task");
    JoinHandle::new(start(tracked(future, task, site)), end, site)
}

/// A blocking closure, as a task of its own, for tokio's `spawn_blocking`.
pub(crate) type Blocking<R> = Box<dyn FnOnce() -> R + Send + 'static>;

/// A blocking closure run as a task forked from the caller's clock, given to `start` (tokio's
/// `spawn_blocking` on some runtime).
#[track_caller]
pub(crate) fn spawn_blocking_with<F, R>(f: F, start: impl FnOnce(Blocking<R>) -> tt::JoinHandle<R>) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    if super::in_model() {
        return JoinHandle::model(model_task::spawn_blocking(f));
    }
    let site = Location::caller();
    let (task, end) = fork(site, "spawning a blocking tokio task");
    JoinHandle::new(start(Box::new(move || __racer_task_poll_blocking(task, f))), end, site)
}

/// A local task (part of its thread) at the caller's site, its future given to `start`
/// (tokio's `spawn_local` on some `LocalSet` or `LocalRuntime`).
#[track_caller]
pub(crate) fn spawn_local_with<F: Future>(
    future: F,
    start: impl FnOnce(AsTask<F>) -> tt::JoinHandle<F::Output>,
) -> JoinHandle<F::Output> {
    let site = Location::caller();
    super::not_in_model("spawning a local tokio task (a LocalSet's or LocalRuntime's)");
    let (task, end) = Task::on_its_thread(site);
    JoinHandle::new(start(tracked(future, task, site)), end, site)
}

/// Runs a blocking closure on tokio's blocking pool, as `tokio::task::spawn_blocking`: a
/// logical thread of its own, as a spawned task.
#[track_caller]
pub fn spawn_blocking<F, R>(f: F) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    spawn_blocking_with(f, tt::spawn_blocking)
}

/// Spawns a `!Send` task on the current `LocalSet`, as `tokio::task::spawn_local`. It never
/// leaves that thread, so its accesses count as the thread's: local tasks are ordered by their
/// thread (no two of them run at once), not checked against each other.
#[track_caller]
pub fn spawn_local<F>(future: F) -> JoinHandle<F::Output>
where
    F: Future + 'static,
    F::Output: 'static,
{
    spawn_local_with(future, tt::spawn_local)
}

/// A set of `!Send` tasks run on one thread, as tokio's `LocalSet`: its tasks run as part of
/// that thread (as `spawn_local`'s) and return racer's `JoinHandle`.
#[derive(Debug, Default)]
pub struct LocalSet {
    pub(crate) inner: tt::LocalSet,
}

impl LocalSet {
    pub fn new() -> LocalSet {
        LocalSet { inner: tt::LocalSet::new() }
    }

    pub fn enter(&self) -> LocalEnterGuard {
        self.inner.enter()
    }

    /// Spawns a `!Send` task on this set, as `racer::tokio::task::spawn_local`.
    #[track_caller]
    pub fn spawn_local<F>(&self, future: F) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        spawn_local_with(future, |f| self.inner.spawn_local(f))
    }

    /// Runs `future` and this set's tasks on the calling thread until `future` ends.
    #[track_caller]
    pub fn block_on<F>(&self, rt: &Runtime, future: F) -> F::Output
    where
        F: Future,
    {
        self.inner.block_on(&rt.inner, future)
    }

    pub async fn run_until<F>(&self, future: F) -> F::Output
    where
        F: Future,
    {
        self.inner.run_until(future).await
    }

    pub fn id(&self) -> tokio_crate::runtime::Id {
        self.inner.id()
    }
}

impl Future for LocalSet {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        Pin::new(&mut self.inner).poll(cx)
    }
}

/// A collection of tasks spawned on a runtime, as tokio's `JoinSet`: each is a logical thread,
/// and taking its result (`join_next`, `try_join_next`, `join_all`) joins it.
pub struct JoinSet<T> {
    inner: tt::JoinSet<T>,
    /// The ends of the tasks not joined yet, by tokio's task id.
    ends: Arc<Mutex<std::collections::HashMap<Id, TaskEnd>>>,
    site: &'static Location<'static>,
}

impl<T> Default for JoinSet<T> {
    #[track_caller]
    fn default() -> Self {
        JoinSet::new()
    }
}

impl<T> std::fmt::Debug for JoinSet<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JoinSet").field("len", &self.inner.len()).finish()
    }
}

impl<T> JoinSet<T> {
    #[track_caller]
    pub fn new() -> JoinSet<T> {
        JoinSet { inner: tt::JoinSet::new(), ends: Arc::default(), site: Location::caller() }
    }

    pub fn len(&self) -> usize {
        self.inner.len()
    }

    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    fn track(&self, handle: AbortHandle, end: TaskEnd) -> AbortHandle {
        self.ends.lock().unwrap_or_else(PoisonError::into_inner).insert(handle.id(), end);
        handle
    }

    /// The join of the task `id`, whose result was just taken.
    fn joined(&self, id: Id) {
        let end = self.ends.lock().unwrap_or_else(PoisonError::into_inner).remove(&id);
        if let Some(end) = end {
            end.joined(self.site);
        }
    }

    fn take<R>(&self, result: Result<(Id, R), JoinError>) -> Result<R, JoinError> {
        match result {
            Ok((id, value)) => {
                self.joined(id);
                Ok(value)
            }
            Err(e) => {
                self.joined(e.id());
                Err(e)
            }
        }
    }
}

impl<T: 'static> JoinSet<T> {
    #[track_caller]
    pub fn spawn<F>(&mut self, task: F) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
        T: Send,
    {
        let site = Location::caller();
        let (task_state, end) = fork(site, "spawning a JoinSet's task");
        let handle = self.inner.spawn(tracked(task, task_state, site));
        self.track(handle, end)
    }

    #[track_caller]
    pub fn spawn_on<F>(&mut self, task: F, handle: &Handle) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
        T: Send,
    {
        let site = Location::caller();
        let (task_state, end) = fork(site, "spawning a JoinSet's task");
        let handle = self.inner.spawn_on(tracked(task, task_state, site), &handle.inner);
        self.track(handle, end)
    }

    #[track_caller]
    pub fn spawn_local<F>(&mut self, task: F) -> AbortHandle
    where
        F: Future<Output = T> + 'static,
    {
        let site = Location::caller();
        super::not_in_model("spawning a JoinSet's local task");
        let (task_state, end) = Task::on_its_thread(site);
        let handle = self.inner.spawn_local(tracked(task, task_state, site));
        self.track(handle, end)
    }

    #[track_caller]
    pub fn spawn_local_on<F>(&mut self, task: F, local_set: &LocalSet) -> AbortHandle
    where
        F: Future<Output = T> + 'static,
    {
        let site = Location::caller();
        super::not_in_model("spawning a JoinSet's local task");
        let (task_state, end) = Task::on_its_thread(site);
        let handle = self.inner.spawn_local_on(tracked(task, task_state, site), &local_set.inner);
        self.track(handle, end)
    }

    #[track_caller]
    pub fn spawn_blocking<F>(&mut self, f: F) -> AbortHandle
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send,
    {
        let (task, end) = fork(Location::caller(), "spawning a JoinSet's task");
        let handle = self.inner.spawn_blocking(move || __racer_task_poll_blocking(task, f));
        self.track(handle, end)
    }

    #[track_caller]
    pub fn spawn_blocking_on<F>(&mut self, f: F, handle: &Handle) -> AbortHandle
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send,
    {
        let (task, end) = fork(Location::caller(), "spawning a JoinSet's task");
        let handle = self.inner.spawn_blocking_on(move || __racer_task_poll_blocking(task, f), &handle.inner);
        self.track(handle, end)
    }

    /// Waits for one of the tasks to end and joins it (see tokio's `join_next`).
    pub async fn join_next(&mut self) -> Option<Result<T, JoinError>> {
        let result = self.inner.join_next_with_id().await?;
        Some(self.take(result))
    }

    pub async fn join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        let result = self.inner.join_next_with_id().await?;
        self.joined(result_id(&result));
        Some(result)
    }

    pub fn try_join_next(&mut self) -> Option<Result<T, JoinError>> {
        let result = self.inner.try_join_next_with_id()?;
        Some(self.take(result))
    }

    pub fn try_join_next_with_id(&mut self) -> Option<Result<(Id, T), JoinError>> {
        let result = self.inner.try_join_next_with_id()?;
        self.joined(result_id(&result));
        Some(result)
    }

    pub fn poll_join_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, JoinError>>> {
        match self.inner.poll_join_next_with_id(cx) {
            Poll::Ready(Some(result)) => Poll::Ready(Some(self.take(result))),
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }

    pub fn poll_join_next_with_id(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<(Id, T), JoinError>>> {
        let out = self.inner.poll_join_next_with_id(cx);
        if let Poll::Ready(Some(result)) = &out {
            self.joined(result_id(result));
        }
        out
    }

    /// Waits for every task and joins each, as tokio's `join_all` (which panics if one did).
    pub async fn join_all(mut self) -> Vec<T> {
        let mut out = Vec::with_capacity(self.len());
        while let Some(result) = self.join_next().await {
            match result {
                Ok(value) => out.push(value),
                Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                Err(e) => panic!("{e}"),
            }
        }
        out
    }

    /// Aborts every task and waits for each to end (joining it).
    pub async fn shutdown(&mut self) {
        self.abort_all();
        while self.join_next().await.is_some() {}
    }

    pub fn abort_all(&mut self) {
        self.inner.abort_all();
    }

    /// Lets every task run on without the set; none of them is joined.
    pub fn detach_all(&mut self) {
        self.inner.detach_all();
        self.ends.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }
}

/// The id of the task whose result (or error) this is.
fn result_id<T>(result: &Result<(Id, T), JoinError>) -> Id {
    match result {
        Ok((id, _)) => *id,
        Err(e) => e.id(),
    }
}

/// Spawns each future as a task of a new set, as tokio's (each forked from the caller).
impl<T, F> std::iter::FromIterator<F> for JoinSet<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    #[track_caller]
    fn from_iter<I: IntoIterator<Item = F>>(iter: I) -> Self {
        let mut set = JoinSet::new();
        set.extend(iter);
        set
    }
}

/// Spawns each future as a task of the set, as tokio's (each forked from the caller).
impl<T, F> std::iter::Extend<F> for JoinSet<T>
where
    F: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    #[track_caller]
    fn extend<I>(&mut self, iter: I)
    where
        I: IntoIterator<Item = F>,
    {
        let site = Location::caller();
        for future in iter {
            let (task_state, end) = fork(site, "spawning a JoinSet's task");
            let handle = self.inner.spawn(tracked(future, task_state, site));
            self.track(handle, end);
        }
    }
}
