//! **Controlled schedules**: inside a model (`racer::model`, `loom::model`), the model's threads
//! run one at a time and hand the turn on at racer's interception points (atomics, fences,
//! locks, condvars, channels, spawn/join, yields), so that one seed fixes the interleaving of
//! every operation racer sees, and a strategy (PCT or random, `strategy`) explores
//! interleavings the OS would rarely produce, after a bounded depth-first search (`dfs`) that
//! runs small models whole. Outside a model every hook here is one relaxed
//! load of `MODELS` and a return.
//!
//! The primitives call `point` before an operation others may observe, `blocked` when an
//! attempt would block (and retry when they get the turn back), `spin` for yields and spin-loop
//! hints; a spawn registers the child (`spawning`) and the child waits for its first turn
//! (`Ticket::start`); a thread's end hands the turn on (`exiting`).
//!
//! Imports: see the table in `racer-core/tests/layers.rs`. Invariant: see `scheduler`.

pub mod dfs;
pub mod rng;
pub mod scheduler;
pub mod strategy;

use std::cell::{Cell, RefCell};
use std::panic::Location;
use std::sync::Arc;

use crate::base::active_count::ActiveCount;

pub use scheduler::{End, Scheduler, Step};
pub use strategy::Strategy;

/// Models running in the process: while none is, no thread is a member and every hook
/// returns at once.
pub static MODELS: ActiveCount = ActiveCount::new();

thread_local! {
    /// The model this thread is a member of, and its id there.
    static MEMBER: RefCell<Option<(Arc<Scheduler>, usize)>> = const { RefCell::new(None) };
    /// The atomic this member loaded last, and the version it read (a reload of the same
    /// version is a spin).
    static LAST_LOAD: Cell<(usize, u64)> = const { Cell::new((0, 0)) };
}

#[inline]
fn member() -> Option<(Arc<Scheduler>, usize)> {
    if !MODELS.any() {
        return None;
    }
    member_slow()
}

#[cold]
fn member_slow() -> Option<(Arc<Scheduler>, usize)> {
    MEMBER.try_with(|m| m.borrow().clone()).ok().flatten()
}

/// Whether the calling thread runs inside a model (its blocking operations then retry at
/// points instead of blocking).
#[inline]
pub fn in_model() -> bool {
    any_model() && MEMBER.try_with(|m| m.try_borrow().is_ok_and(|m| m.is_some())).unwrap_or(false)
}

/// Whether any model runs in the process: if not, no operation has a point to stop at.
#[inline(always)]
pub fn any_model() -> bool {
    MODELS.any()
}

/// Whether a timed wait's time ran out.
#[inline]
fn take_step(step: Step, what: &'static str, at: &'static Location<'static>) -> bool {
    match member() {
        Some((sched, me)) => sched.step(me, step, what, at),
        None => false,
    }
}

/// Before an operation other threads may observe.
#[inline]
pub fn point(what: &'static str, at: &'static Location<'static>) {
    take_step(Step::Op, what, at);
}

/// A yield or a spin-loop hint.
#[inline]
pub fn spin(what: &'static str, at: &'static Location<'static>) {
    take_step(Step::Spin, what, at);
}

/// An attempt that would block: returns once another thread has made progress (or spuriously,
/// which every caller retries).
#[inline]
pub fn blocked(what: &'static str, at: &'static Location<'static>) {
    take_step(Step::Blocked, what, at);
}

/// A timed attempt that would block: returns once another thread has made progress, or, when
/// no thread can run, with `true`: its time ran out (a model's time is the scheduler's).
#[inline]
pub fn blocked_timed(what: &'static str, at: &'static Location<'static>) -> bool {
    take_step(Step::BlockedTimed, what, at)
}

/// An unpark of `target` (std's token: its next park returns at once).
pub fn unparking(target: std::thread::ThreadId) {
    if let Some((sched, _)) = member() {
        sched.unpark(target);
    }
}

/// A park (`timed`: `park_timeout`): returns at once with an unpark's token, else once another
/// thread made progress (a spurious wake-up, which std allows) or, timed, when time ran out.
pub fn parking(at: &'static Location<'static>, timed: bool) {
    let Some((sched, me)) = member() else { return };
    if sched.take_token(me) {
        sched.step(me, Step::Op, "parking", at);
    } else {
        sched.step(me, if timed { Step::BlockedTimed } else { Step::Blocked }, "parking", at);
    }
}

/// A task's place in its model: the calling member's, for the waker of the future it polls
/// (`api::explore::block_on`). Cloned into the waker, it may be woken from any thread.
#[derive(Clone)]
pub struct Waiter {
    sched: Arc<Scheduler>,
    id: usize,
}

impl Waiter {
    /// The calling thread's, if it is a member of a model.
    pub fn current() -> Option<Waiter> {
        member().map(|(sched, id)| Waiter { sched, id })
    }

    /// The member runs a task, which a shutdown may drop while it is pending.
    pub fn mark_task(&self) {
        self.sched.mark_task(self.id);
    }

    /// The task's waker ran: it may run again.
    pub fn wake(&self) {
        self.sched.wake(self.id);
    }

    /// In the task's own thread, after a poll returned `Pending`: waits until it is woken
    /// (`true`), or until the iteration shuts its pending tasks down (`false`).
    pub fn wait(&self, at: &'static Location<'static>) -> bool {
        self.sched.task_wait(self.id, at)
    }
}

/// After a load of the atomic at `addr` that read `version`: a reload of what this thread
/// read last is a spin.
#[inline]
pub fn loaded(addr: usize, version: u64, at: &'static Location<'static>) {
    if !MODELS.any() {
        return;
    }
    let again = LAST_LOAD.with(|l| l.replace((addr, version)) == (addr, version));
    if again {
        spin("reloading an unchanged atomic", at);
    }
}

/// The number of the model iteration the calling thread runs in (unique in the process), if any.
pub fn current_iteration() -> Option<u64> {
    member().map(|(sched, _)| sched.id)
}

/// Inside a model, a choice among `n` stores a load may read (0 the newest), following the
/// model's seed; `None` outside one.
pub fn choose_value(n: u64) -> Option<u64> {
    member().map(|(sched, _)| sched.choose_value(n))
}

/// Inside a model, runs `f` on its iteration's SeqCst order clock (components, slot 0 first);
/// `None` outside one.
pub fn with_seq_cst<R>(f: impl FnOnce(&mut Vec<u64>) -> R) -> Option<R> {
    member().map(|(sched, _)| sched.with_seq_cst(f))
}

/// Inside a model, notes a load that read an older store (`what` says which), for the failure
/// message of the iteration.
pub fn note_stale_read(what: String) {
    if let Some((sched, _)) = member() {
        sched.note_stale_read(what);
    }
}

/// A child's place in its parent's model, made by the parent at the spawn. Dropped unused
/// (the spawn failed), the place is given up, so the model does not wait for it.
pub struct Ticket {
    sched: Arc<Scheduler>,
    id: usize,
    started: bool,
}

impl Ticket {
    /// The ticket of a model's first thread (id 0, which holds the first turn).
    pub fn root(sched: Arc<Scheduler>) -> Ticket {
        Ticket { sched, id: 0, started: false }
    }

    /// In the child, first: joins the model and waits for the first turn.
    pub fn start(mut self) {
        self.started = true;
        let _ = MEMBER.try_with(|m| *m.borrow_mut() = Some((self.sched.clone(), self.id)));
        self.sched.start(self.id);
    }
}

impl Ticket {
    /// What the child's OS thread needs to linger after its end (see `Linger`).
    pub fn linger(&self) -> Linger {
        Linger { sched: self.sched.clone() }
    }
}

/// A model thread's OS thread, kept alive after the thread ended until its iteration is over,
/// so that its thread-local destructors run after the model, as loom's threads (all on one OS
/// thread) never run them while a model does: code written for loom counts on that (a
/// collector in a thread-local that would reclaim what the model still checks).
#[derive(Clone)]
pub struct Linger {
    sched: Arc<Scheduler>,
}

impl Linger {
    /// In the parent: the child's OS thread, joined when the iteration is over.
    pub fn keep(&self, thread: std::thread::JoinHandle<()>) {
        self.sched.keep_lingering(thread);
    }

    /// In the child, after its end: waits until the iteration is over.
    pub fn wait(self) {
        self.sched.linger();
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if !self.started {
            self.sched.exit(self.id);
        }
    }
}

/// The parent side of a spawn: the child's ticket, when the parent is in a model.
pub fn spawning(name: Option<&str>) -> Option<Ticket> {
    let (sched, _) = member()?;
    let id = sched.add(name);
    Some(Ticket { sched, id, started: false })
}

/// The calling thread's end in its model, if it is in one: the turn goes on.
pub fn exiting() {
    if !MODELS.any() {
        return;
    }
    if let Some((sched, me)) = MEMBER.try_with(|m| m.borrow_mut().take()).ok().flatten() {
        sched.exit(me);
    }
}
