//! Async tasks as logical threads (Go's race detector's goroutines): each task spawned through
//! racer (`racer::tokio`, or a `Task` wrapped around any future) has a detector state of its
//! own, forked from its spawner's at the spawn, and every poll installs it on the worker thread
//! that polls it (`Task::run`), so the task's accesses are checked as its own whichever worker
//! runs it and whatever ran before on that worker. Its end posts into its `TaskEnd`, which the
//! join waits on.
//!
//! Generic executors' glue lives in racer-rt (`racer::tokio`); this file is what it calls, with
//! `HandOff`, the clock its synchronisation primitives post to and wait on.

use std::panic::Location;
use std::sync::Arc;

use crate::api::sync::{atomic::forget_known_stamps, swap_fences, FenceState};
use crate::deadlock::{swap_held, Acq};
use crate::provenance::stack;
use crate::provenance::sync_event::SyncEvent;
use crate::runtime::ignore::{swap_depth, IgnoreScope};
use crate::runtime::rw_clocks::swap_last_shared_post;
use crate::runtime::sync_clock::SyncClock;
use crate::runtime::thread_state::{swap_current, with_current, ChildSeed, ClockName, ForkOrigin, ThreadState};

/// What a task keeps of racer's per-thread state between its polls.
///
/// Invariant: while no poll of the task runs, `state` is the task's detector state (`None` for a
/// task ordered by its thread, after its end, or when no slot was left for it) and the other
/// fields hold what the task's last poll left in the thread's bookkeeping of the same name;
/// while a poll runs, they hold the polling thread's own, to be given back.
pub struct Task {
    state: Option<ThreadState>,
    fences: FenceState,
    held: Vec<Acq>,
    last_shared_post: Option<(u64, ClockName)>,
    end: Arc<SyncClock>,
    ended: bool,
    site: &'static Location<'static>,
    /// The depth of `ignore_accesses` scopes of the task, exchanged with the thread's as the
    /// other fields (0: the task's accesses are checked, also on a thread that ignores its own).
    ignore_depth: u32,
    /// Forked from a point that orders nothing (`ForkPoint::unordered`): the task runs as the
    /// thread that runs it, with its accesses ignored.
    ignores_accesses: bool,
}

/// The join side of a task: what waiting for its end acquires.
#[derive(Clone, Debug)]
pub struct TaskEnd {
    end: Arc<SyncClock>,
}

impl Task {
    /// The spawner's side of a task's spawn at `site`: the task's clock is the spawner's (the
    /// calling thread's, or the task it polls), and the spawner starts a new segment. `name`
    /// names it in reports (else `task N`).
    pub fn spawn(name: Option<String>, site: &'static Location<'static>) -> (Task, TaskEnd) {
        let spawned_at = stack::capture();
        let state = with_current(|t| t.fork_as(name, spawned_at, site, true)).flatten().map(ChildSeed::into_state);
        Task::with_state(state, site)
    }

    /// A task forked where accesses are ignored (inside `annotate::ignore_accesses`, or on a
    /// pool's worker outside racer's tasks, where nothing racer sees orders what runs): it runs
    /// as the thread that runs it, with its accesses ignored too.
    pub fn ignoring(site: &'static Location<'static>) -> (Task, TaskEnd) {
        let (mut task, end) = Task::with_state(None, site);
        task.ignores_accesses = true;
        (task, end)
    }

    /// A task that runs as part of whichever thread polls it (a `!Send` task of a `LocalSet`,
    /// which never leaves its thread): its accesses are that thread's, and its end posts that
    /// thread's clock.
    pub fn on_its_thread(site: &'static Location<'static>) -> (Task, TaskEnd) {
        Task::with_state(None, site)
    }

    fn with_state(state: Option<ThreadState>, site: &'static Location<'static>) -> (Task, TaskEnd) {
        let end = Arc::new(SyncClock::new());
        let task = Task {
            state,
            fences: FenceState::new(),
            held: Vec::new(),
            last_shared_post: None,
            end: end.clone(),
            ended: false,
            site,
            ignore_depth: 0,
            ignores_accesses: false,
        };
        (task, TaskEnd { end })
    }

    /// Runs `f` (a poll of the task, or the drop of its future) as the task: its state is the
    /// calling thread's while `f` runs, also if `f` unwinds.
    #[inline]
    pub fn run<R>(&mut self, f: impl FnOnce() -> R) -> R {
        if self.state.is_none() {
            let _ignoring = self.ignores_accesses.then(IgnoreScope::enter);
            return f();
        }
        // Walks of the task's stacks end here: the executor's frames further out are never
        // shown (see `stack::TASK_POLL`), and a worker's stack is deep.
        let ceiling = 0u8;
        let _running = Running::enter(self, std::hint::black_box(&ceiling) as *const u8 as usize);
        f()
    }

    /// The task's end, after its future was dropped: posts the task's clock into its
    /// `TaskEnd` and gives back its slot. Once; later calls do nothing.
    pub fn end(&mut self) {
        if std::mem::replace(&mut self.ended, true) {
            return;
        }
        let event = SyncEvent { op: "ending", object: "task spawned", created: None, at: self.site };
        if self.state.is_none() {
            self.end.post(event);
            return;
        }
        let end = self.end.clone();
        let running = Running::enter(self, 0);
        // Dropped installed, as a thread's state is dropped on its own thread: the exit post
        // and the slot's release are the task's.
        let mut gone = None;
        if swap_current(&mut gone) {
            if let Some(mut state) = gone {
                state.post_exit_at_drop(end, event);
                drop(state);
            }
        }
        drop(running);
    }
}

impl Drop for Task {
    fn drop(&mut self) {
        self.end();
    }
}

impl std::fmt::Debug for Task {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Task").field("ended", &self.ended).finish_non_exhaustive()
    }
}

/// One poll's installation of a task on the calling thread; dropping it gives the thread its
/// own state back.
struct Running<'a> {
    task: &'a mut Task,
    installed: bool,
    /// The thread's stack walk bounds before the poll's ceiling.
    walk_range: (usize, usize),
}

impl<'a> Running<'a> {
    /// Installs `task`; walks of its stack end at the frame holding `ceiling` (0: no ceiling).
    fn enter(task: &'a mut Task, ceiling: usize) -> Running<'a> {
        let installed = swap_current(&mut task.state);
        if installed {
            task.exchange_locals();
        }
        let walk_range = stack::walk_range();
        if ceiling != 0 {
            stack::set_walk_ceiling(ceiling);
        }
        Running { task, installed, walk_range }
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        stack::restore_walk_range(self.walk_range);
        if self.installed {
            self.task.exchange_locals();
            swap_current(&mut self.task.state);
        }
    }
}

impl Task {
    /// Exchanges the thread's bookkeeping that follows its clock with the task's; the stamps
    /// the thread knows it joined are forgotten (the clock installed next may lack them).
    fn exchange_locals(&mut self) {
        swap_fences(&mut self.fences);
        swap_held(&mut self.held);
        swap_last_shared_post(&mut self.last_shared_post);
        swap_depth(&mut self.ignore_depth);
        forget_known_stamps();
    }
}

/// A task installed on the calling thread until this guard is dropped (`Task::install`): for
/// work that a library runs between two of its calls rather than inside one closure (an
/// iterator handed to code that consumes it). Dropping it gives the thread its own state back,
/// then ends the task.
///
/// Invariant: while it lives, the task's state is the calling thread's; guards of one thread
/// are dropped in the reverse order of their making.
pub struct Installed {
    task: Task,
    installed: bool,
    walk_range: (usize, usize),
    _ignoring: Option<IgnoreScope>,
}

impl Task {
    /// Installs the task on the calling thread until the guard is dropped, which also ends it.
    pub fn install(mut self) -> Installed {
        let installed = self.state.is_some() && swap_current(&mut self.state);
        if installed {
            self.exchange_locals();
        }
        let ignoring = self.ignores_accesses.then(IgnoreScope::enter);
        Installed { task: self, installed, walk_range: stack::walk_range(), _ignoring: ignoring }
    }
}

impl Drop for Installed {
    fn drop(&mut self) {
        stack::restore_walk_range(self.walk_range);
        if self.installed {
            self.task.exchange_locals();
            swap_current(&mut self.task.state);
        }
        self.task.end();
    }
}

impl std::fmt::Debug for Installed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Installed").finish_non_exhaustive()
    }
}

/// One spawn point from which tasks are forked later, on any thread: a parallel iterator's
/// consuming call, whose pieces of work are split off on the pool's workers as they go. Made
/// on the caller (its clock, check, and a new segment there, as a spawn); each `fork` is a task
/// started from that clock with a slot of its own; every forked task's end posts into one
/// clock, which `join` acquires on the caller.
///
/// Invariant: `end` is the join of the ends of the tasks forked so far that have ended; an
/// `unordered` point has no origin, and its tasks ignore their accesses.
pub struct ForkPoint {
    origin: Option<ForkOrigin>,
    end: Arc<SyncClock>,
    site: &'static Location<'static>,
    unordered: bool,
}

impl ForkPoint {
    /// The fork point of the calling thread (or the task it runs as) at `site`; its tasks are
    /// named `name` in reports (else `task N`).
    pub fn new(name: Option<String>, site: &'static Location<'static>) -> ForkPoint {
        let spawned_at = stack::capture();
        let origin = with_current(|t| t.fork_origin(name, spawned_at, site, true));
        ForkPoint { origin, end: Arc::new(SyncClock::new()), site, unordered: false }
    }

    /// A fork point for work driven where nobody who could join it waits (a parallel iterator
    /// that rayon drives inside its own `join`, as `chain` does with its halves): nothing orders
    /// its tasks with the caller, so they run as their threads with their accesses ignored,
    /// never reported and never remembered, instead of being reported against the caller.
    pub fn unordered(site: &'static Location<'static>) -> ForkPoint {
        ForkPoint { origin: None, end: Arc::new(SyncClock::new()), site, unordered: true }
    }

    /// A task forked at the point, from any thread; its end posts into the point's end.
    pub fn fork(&self) -> Task {
        let state = self.origin.as_ref().and_then(ForkOrigin::fork).map(ChildSeed::into_state);
        let (mut task, _) = Task::with_state(state, self.site);
        task.end = self.end.clone();
        task.ignores_accesses = self.unordered;
        task
    }

    /// Acquires the ends of the tasks forked here that have ended (on the caller: their join,
    /// once all did; in a task: what it is ordered after, as a reduction of two results).
    pub fn join(&self, at: &'static Location<'static>) {
        self.end.wait(SyncEvent { op: "joining", object: "tasks forked", created: None, at });
    }
}

/// Makes the calling thread ignore its own accesses from now on, for good: a pool's worker,
/// whose jobs racer did not fork (rayon's own, such as the half of a `chain` it drives) are
/// ordered with nothing racer sees. Tasks installed on it still check theirs (each brings its
/// own depth of ignore scopes).
pub fn ignore_own_accesses_for_good() {
    std::mem::forget(IgnoreScope::enter());
}

/// Whether the calling thread (or the task it runs as) ignores its accesses now.
pub fn ignoring_accesses() -> bool {
    crate::runtime::ignore::ignoring()
}

/// The calling thread's racer identity, or the task's it runs as (its serial number), if it has
/// a state: tells whether work is driven by whoever made it.
pub fn current_actor() -> Option<u64> {
    with_current(|t| t.thread_ref.info().serial)
}

impl std::fmt::Debug for ForkPoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ForkPoint").field("site", &self.site).finish_non_exhaustive()
    }
}

impl TaskEnd {
    /// A join of the task, once its end was observed (its output or its `JoinError` taken):
    /// everything the task did happens before what the caller does next.
    pub fn joined(&self, at: &'static Location<'static>) {
        self.end.wait(SyncEvent { op: "joining", object: "a task", created: None, at });
    }
}

/// Inside a model, a point of the schedule before an operation of a wrapped primitive that
/// other threads or tasks may observe (the scheduler may run another first); elsewhere nothing.
/// Never called under a lock racer cannot see: the thread would wait for its turn holding it.
#[inline]
pub fn point(what: &'static str, at: &'static Location<'static>) {
    crate::schedule::point(what, at);
}

/// The clock of a synchronisation primitive racer-rt wraps (tokio's locks, channels, ...):
/// releases post into it, acquires wait on it. A channel's message carries one of its own.
///
/// Invariant: `clock` is the join of every release made to it so far; with `scheduled`, each
/// release and acquire is also a point of a model's schedule.
#[derive(Debug)]
pub struct HandOff {
    clock: SyncClock,
    object: &'static str,
    created: &'static Location<'static>,
    scheduled: bool,
}

impl HandOff {
    /// A new clock for a primitive of kind `object` ("tokio::sync::Mutex") made at `created`,
    /// released and acquired wherever the primitive does it (also under its own lock).
    pub const fn new(object: &'static str, created: &'static Location<'static>) -> HandOff {
        HandOff { clock: SyncClock::new(), object, created, scheduled: false }
    }

    /// As `new`, for a primitive that releases and acquires under no lock (tokio's `sync`,
    /// whose tasks a model interleaves): each release and acquire is a point of the schedule.
    pub const fn scheduled(object: &'static str, created: &'static Location<'static>) -> HandOff {
        HandOff { clock: SyncClock::new(), object, created, scheduled: true }
    }

    fn event(&self, op: &'static str, at: &'static Location<'static>) -> SyncEvent {
        SyncEvent { op, object: self.object, created: Some(self.created), at }
    }

    /// A release by the calling thread (or task): what it did so far happens before what a
    /// later `acquire` of this clock is followed by.
    pub fn release(&self, op: &'static str, at: &'static Location<'static>) {
        if self.scheduled {
            point(op, at);
        }
        self.clock.post(self.event(op, at));
    }

    /// An acquire by the calling thread (or task).
    pub fn acquire(&self, op: &'static str, at: &'static Location<'static>) {
        if self.scheduled {
            point(op, at);
        }
        self.clock.wait(self.event(op, at));
    }
}
