//! `rayon::ThreadPool` and its builder: the pool's calls fork and join as the free functions
//! of the same names do.

use std::any::Any;
use std::panic::Location;
use std::sync::Arc;

use super::{join_all, names, BroadcastContext, Forked, PerThread};
use super::{FnContext, ThreadBuilder, ThreadPoolBuildError, Yield};

/// `rayon::ThreadPool`: `install`'s op, `join`'s closures, a scope's op and bodies, each
/// thread's call of `broadcast`, and `spawn`'s closure each run as a task forked where the call
/// is made; the calls that wait for them (all but the `spawn`s) join them when they return.
///
/// Invariant: `pool` is rayon's pool; `#[repr(transparent)]`, so a `&rayon::ThreadPool` is a
/// `&ThreadPool` (`build_scoped`).
#[repr(transparent)]
pub struct ThreadPool {
    pub(super) pool: rayon_crate::ThreadPool,
}

impl std::fmt::Debug for ThreadPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.pool.fmt(f)
    }
}

impl ThreadPool {
    fn from_ref(pool: &rayon_crate::ThreadPool) -> &ThreadPool {
        // SAFETY: `ThreadPool` is a `#[repr(transparent)]` wrapper of rayon's.
        unsafe { &*(pool as *const rayon_crate::ThreadPool as *const ThreadPool) }
    }

    /// Runs `op` in the pool as a task forked here, joined when it returns.
    #[track_caller]
    pub fn install<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        let site = Location::caller();
        let (op, end) = Forked::new(op, names::INSTALL, site);
        let out = self.pool.install(move || op.call0());
        end.joined(site);
        out
    }

    /// Calls `op` on every thread of the pool, each call a task forked here; all are joined
    /// when it returns.
    #[track_caller]
    pub fn broadcast<OP, R>(&self, op: OP) -> Vec<R>
    where
        OP: Fn(BroadcastContext<'_>) -> R + Sync,
        R: Send,
    {
        let site = Location::caller();
        let (tasks, ends) = PerThread::new(self.pool.current_num_threads(), names::BROADCAST, site);
        let out = self.pool.broadcast(|cx| tasks.run(cx.index(), || op(cx)));
        join_all(&ends, site);
        out
    }

    /// Calls `op` on every thread of the pool, each call a task forked here that nothing joins.
    #[track_caller]
    pub fn spawn_broadcast<OP>(&self, op: OP)
    where
        OP: Fn(BroadcastContext<'_>) + Send + Sync + 'static,
    {
        let site = Location::caller();
        let (tasks, _) = PerThread::new(self.pool.current_num_threads(), names::BROADCAST, site);
        self.pool.spawn_broadcast(move |cx| tasks.run(cx.index(), || op(cx)));
    }

    pub fn current_num_threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    pub fn current_thread_index(&self) -> Option<usize> {
        self.pool.current_thread_index()
    }

    pub fn current_thread_has_pending_tasks(&self) -> Option<bool> {
        self.pool.current_thread_has_pending_tasks()
    }

    /// `join` in the pool: each closure a task forked here, both joined when it returns.
    #[track_caller]
    pub fn join<A, B, RA, RB>(&self, oper_a: A, oper_b: B) -> (RA, RB)
    where
        A: FnOnce() -> RA + Send,
        B: FnOnce() -> RB + Send,
        RA: Send,
        RB: Send,
    {
        let site = Location::caller();
        let (a, end_a) = Forked::new(oper_a, names::JOIN_A, site);
        let (b, end_b) = Forked::new(oper_b, names::JOIN_B, site);
        let out = self.pool.join(move || a.call0(), move || b.call0());
        join_all(&[end_a, end_b], site);
        out
    }

    /// `spawn` in the pool: `op` a task forked here that nothing joins.
    #[track_caller]
    pub fn spawn<OP>(&self, op: OP)
    where
        OP: FnOnce() + Send + 'static,
    {
        let (op, _) = Forked::new(op, names::SPAWN, Location::caller());
        self.pool.spawn(move || op.call0());
    }

    /// `spawn_fifo` in the pool: as `spawn`.
    #[track_caller]
    pub fn spawn_fifo<OP>(&self, op: OP)
    where
        OP: FnOnce() + Send + 'static,
    {
        let (op, _) = Forked::new(op, names::SPAWN, Location::caller());
        self.pool.spawn_fifo(move || op.call0());
    }

    pub fn yield_now(&self) -> Option<Yield> {
        self.pool.yield_now()
    }

    pub fn yield_local(&self) -> Option<Yield> {
        self.pool.yield_local()
    }
}

// `FnContext` is named for `join_context`'s users of a pool (`pool.install(|| join_context(..))`).
#[allow(dead_code)]
type _FnContext = FnContext;

/// rayon's default spawn handler (the type parameter of a [`ThreadPoolBuilder`] without
/// `spawn_handler`).
#[derive(Debug, Default)]
pub struct DefaultSpawn;

/// A spawn handler given to [`ThreadPoolBuilder::spawn_handler`].
pub struct CustomSpawn<F>(F);

impl<F> std::fmt::Debug for CustomSpawn<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CustomSpawn")
    }
}

/// How a [`ThreadPoolBuilder`] starts its threads: rayon's own, or the handler given.
pub trait ThreadSpawn {
    #[doc(hidden)]
    fn build(self, base: rayon_crate::ThreadPoolBuilder) -> Result<rayon_crate::ThreadPool, ThreadPoolBuildError>;
    #[doc(hidden)]
    fn build_global(self, base: rayon_crate::ThreadPoolBuilder) -> Result<(), ThreadPoolBuildError>;
}

impl ThreadSpawn for DefaultSpawn {
    fn build(self, base: rayon_crate::ThreadPoolBuilder) -> Result<rayon_crate::ThreadPool, ThreadPoolBuildError> {
        base.build()
    }

    fn build_global(self, base: rayon_crate::ThreadPoolBuilder) -> Result<(), ThreadPoolBuildError> {
        base.build_global()
    }
}

impl<F> ThreadSpawn for CustomSpawn<F>
where
    F: FnMut(ThreadBuilder) -> std::io::Result<()>,
{
    fn build(self, base: rayon_crate::ThreadPoolBuilder) -> Result<rayon_crate::ThreadPool, ThreadPoolBuildError> {
        base.spawn_handler(self.0).build()
    }

    fn build_global(self, base: rayon_crate::ThreadPoolBuilder) -> Result<(), ThreadPoolBuildError> {
        base.spawn_handler(self.0).build_global()
    }
}

/// `rayon::ThreadPoolBuilder`, whose `build` makes racer's [`ThreadPool`]; the settings are
/// rayon's builder's.
///
/// Invariant: `base` holds every setting but the spawn handler, which is `spawn`, and the start
/// handler, which is `start` (run after racer's, see `workers::start_handler`).
#[derive(Default)]
pub struct ThreadPoolBuilder<S = DefaultSpawn> {
    base: rayon_crate::ThreadPoolBuilder,
    spawn: S,
    start: Option<Arc<dyn Fn(usize) + Send + Sync>>,
}

impl<S: std::fmt::Debug> std::fmt::Debug for ThreadPoolBuilder<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThreadPoolBuilder")
            .field("base", &self.base)
            .field("spawn", &self.spawn)
            .finish_non_exhaustive()
    }
}

impl ThreadPoolBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// rayon's `build_scoped`, the pool handed to `with_pool` racer's.
    pub fn build_scoped<W, F, R>(self, wrapper: W, with_pool: F) -> Result<R, ThreadPoolBuildError>
    where
        W: Fn(ThreadBuilder) + Sync,
        F: FnOnce(&ThreadPool) -> R,
    {
        let base = self.base.start_handler(super::workers::start_handler(self.start));
        base.build_scoped(wrapper, |pool| with_pool(ThreadPool::from_ref(pool)))
    }
}

impl<S: ThreadSpawn> ThreadPoolBuilder<S> {
    pub fn build(self) -> Result<ThreadPool, ThreadPoolBuildError> {
        let base = self.base.start_handler(super::workers::start_handler(self.start));
        self.spawn.build(base).map(|pool| ThreadPool { pool })
    }

    pub fn build_global(self) -> Result<(), ThreadPoolBuildError> {
        let base = self.base.start_handler(super::workers::start_handler(self.start));
        self.spawn.build_global(base)
    }
}

impl<S> ThreadPoolBuilder<S> {
    fn map(self, f: impl FnOnce(rayon_crate::ThreadPoolBuilder) -> rayon_crate::ThreadPoolBuilder) -> Self {
        ThreadPoolBuilder { base: f(self.base), spawn: self.spawn, start: self.start }
    }

    pub fn spawn_handler<F>(self, spawn: F) -> ThreadPoolBuilder<CustomSpawn<F>>
    where
        F: FnMut(ThreadBuilder) -> std::io::Result<()>,
    {
        ThreadPoolBuilder { base: self.base, spawn: CustomSpawn(spawn), start: self.start }
    }

    pub fn thread_name<F>(self, closure: F) -> Self
    where
        F: FnMut(usize) -> String + 'static,
    {
        self.map(|b| b.thread_name(closure))
    }

    pub fn num_threads(self, num_threads: usize) -> Self {
        self.map(|b| b.num_threads(num_threads))
    }

    pub fn use_current_thread(self) -> Self {
        self.map(|b| b.use_current_thread())
    }

    pub fn panic_handler<H>(self, panic_handler: H) -> Self
    where
        H: Fn(Box<dyn Any + Send>) + Send + Sync + 'static,
    {
        self.map(|b| b.panic_handler(panic_handler))
    }

    pub fn stack_size(self, stack_size: usize) -> Self {
        self.map(|b| b.stack_size(stack_size))
    }

    pub fn breadth_first(self) -> Self {
        #[allow(deprecated)]
        self.map(|b| b.breadth_first())
    }

    pub fn start_handler<H>(self, start_handler: H) -> Self
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        ThreadPoolBuilder { start: Some(Arc::new(start_handler)), ..self }
    }

    pub fn exit_handler<H>(self, exit_handler: H) -> Self
    where
        H: Fn(usize) + Send + Sync + 'static,
    {
        self.map(|b| b.exit_handler(exit_handler))
    }
}
