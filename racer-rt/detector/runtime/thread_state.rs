//! Per-thread detector state, kept in thread-local storage: the thread's slot (from
//! `thread_slots`), its vector clock, who it is (for reports) and which `racer::check` it
//! reports to.

use std::cell::{Cell, RefCell};
use std::panic::Location;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::base::lock::Mutex;

use crate::model::clock::{Epoch, Segment, Slot, VectorClock};
use crate::provenance::stack::StackId;
use crate::provenance::sync_event::{RecentSyncEvents, SyncEvent, SyncEventId};
use crate::provenance::thread_ref::{ThreadInfo, ThreadRef};
use crate::runtime::check_scope::CheckScope;
use crate::runtime::sync_clock::SyncClock;
use crate::runtime::thread_slots::{release_slot, take_slot};

/// Whether the calling thread is the process's main thread.
fn is_main_thread() -> bool {
    (crate::base::platform::get().is_main_thread)()
}

static NEXT_SERIAL: AtomicU64 = AtomicU64::new(1);

/// The detector's view of one thread.
///
/// Invariant: `clock.get(slot)` is the thread's current epoch, and `SEEN_KEY` (the fast-path
/// copy) equals `seen::key(Segment::new(slot, clock.get(slot)))`, or `NO_KEY` while
/// `next_segment_due`.
pub struct ThreadState {
    pub slot: Slot,
    /// Read through `clock()` and `clock_mut()`, which start a due segment first.
    clock: VectorClock,
    /// The current epoch was posted when the thread let go of a lock, and the next segment has
    /// not started yet. It starts at the thread's next use of its clock or segment, unless the
    /// thread first takes that lock again with nobody having taken it in between
    /// (`resume_segment`): nobody then knows of the post, and the segment simply goes on.
    next_segment_due: bool,
    /// Counts the changes of `clock` (each `clock_mut` and tick): two equal counts mean the
    /// same clock.
    clock_changes: u64,
    /// Who the thread is; access records keep copies of this handle.
    pub thread_ref: ThreadRef,
    /// The `racer::check` this thread reports to, if any.
    pub scope: Option<Arc<CheckScope>>,
    /// The thread's last sync events, for its access records.
    recent_syncs: RecentSyncEvents,
    exit_epoch: Option<Epoch>,
    /// Where to post the thread's exit when this state is dropped.
    exit_post: Option<(Arc<SyncClock>, SyncEvent)>,
}

/// A thread's clock as it was at one moment: its segment then, and how many times the clock
/// had changed (see `ThreadState::clock_name`).
pub type ClockName = (Segment, u64);

/// What a spawning thread hands to the thread it spawns.
pub struct ChildSeed {
    slot: Slot,
    clock: VectorClock,
    info: Arc<ThreadInfo>,
    scope: Option<Arc<CheckScope>>,
    spawn_event: SyncEvent,
}

thread_local! {
    static STATE: RefCell<Option<ThreadState>> = const { RefCell::new(None) };
    /// The current segment's key in the cells' caches of seen accesses (`seen`), or `NO_KEY`
    /// before the thread is registered or when the segment has no key.
    static SEEN_KEY: Cell<u64> = const { Cell::new(crate::runtime::seen_key::NO_KEY) };
}

/// The calling thread's current segment as a `seen::key`, or `seen::NO_KEY`. One thread-local read.
#[inline]
pub fn current_seen_key() -> u64 {
    SEEN_KEY.try_with(Cell::get).unwrap_or(crate::runtime::seen_key::NO_KEY)
}

/// Makes `segment` the calling thread's current one for the cells' caches (see `SEEN_KEY`).
#[inline]
fn publish_segment(segment: Segment) {
    let key = crate::runtime::seen_key::key(segment);
    let _ = SEEN_KEY.try_with(|s| s.set(key));
}

/// Runs `f` on the calling thread's state, registering the thread on first use. Returns `None`
/// during thread-local destruction, when the state is gone and the access goes unchecked.
#[inline]
pub fn with_current<R>(f: impl FnOnce(&mut ThreadState) -> R) -> Option<R> {
    STATE
        .try_with(|cell| {
            let mut state = cell.try_borrow_mut().ok()?;
            if state.is_none() {
                *state = Some(ThreadState::foreign()?);
            }
            state.as_mut().map(f)
        })
        .ok()
        .flatten()
}

/// Whether the calling thread (or task) reports to an open `racer::check`, without registering
/// a thread racer has not seen yet (which is in none).
pub fn in_check() -> bool {
    STATE
        .try_with(|cell| {
            cell.try_borrow()
                .is_ok_and(|s| s.as_ref().is_some_and(|t| t.scope.as_ref().is_some_and(|c| !c.is_closed())))
        })
        .unwrap_or(false)
}

impl ThreadState {
    /// A thread racer did not spawn: ordered after the end of every such thread that ended
    /// before it (see `ENDED_UNSPAWNED`), and after nothing else. `None` when no slot is left.
    fn foreign() -> Option<ThreadState> {
        let mut clock = ENDED_UNSPAWNED.lock().clone();
        let (slot, epoch) = take_slot(Some(&clock))?;
        clock.set(slot, epoch);
        let info = Arc::new(ThreadInfo {
            serial: NEXT_SERIAL.fetch_add(1, Ordering::Relaxed),
            name: std::thread::current().name().map(str::to_owned),
            spawned_at: None,
            foreign: !is_main_thread(),
            task: false,
            spawned_by: None,
        });
        let mut state = ThreadState {
            slot,
            clock,
            next_segment_due: false,
            clock_changes: 0,
            thread_ref: ThreadRef::new(info),
            scope: None,
            recent_syncs: RecentSyncEvents::new(None),
            exit_epoch: None,
            exit_post: None,
        };
        publish_segment(state.segment());
        state.thread_ref.keep_reserve();
        crate::runtime::check_scope::join_group(&None);
        Some(state)
    }

    /// The current segment (a due one starts first).
    #[inline]
    pub fn segment(&mut self) -> Segment {
        self.start_due_segment();
        self.current_segment()
    }

    /// The segment of the current epoch, due or not.
    #[inline]
    fn current_segment(&self) -> Segment {
        Segment::new(self.slot, self.clock.get(self.slot))
    }

    /// The thread's vector clock (a due segment starts first).
    #[inline]
    pub fn clock(&mut self) -> &VectorClock {
        self.start_due_segment();
        &self.clock
    }

    /// The thread's vector clock, to join others into (a due segment starts first).
    #[inline]
    pub fn clock_mut(&mut self) -> &mut VectorClock {
        self.start_due_segment();
        self.clock_changes += 1;
        &mut self.clock
    }

    /// Ends the current segment: called after the thread's clock was published to a sync
    /// object (a post).
    #[inline]
    pub fn tick(&mut self) {
        self.next_segment_due = false;
        self.clock_changes += 1;
        let epoch = self.clock.tick(self.slot);
        publish_segment(Segment::new(self.slot, epoch));
    }

    /// Ends the current segment after a lock's release posted it, but starts the next one
    /// only when the thread next uses its clock (see `next_segment_due`). Meanwhile no access
    /// is taken for the ended segment's: every access goes through its cell's state, which
    /// starts the new segment.
    #[inline]
    pub fn tick_when_used(&mut self) {
        self.next_segment_due = true;
        let _ = SEEN_KEY.try_with(|s| s.set(crate::runtime::seen_key::NO_KEY));
    }

    #[inline]
    fn start_due_segment(&mut self) {
        if self.next_segment_due {
            self.tick();
        }
    }

    /// Names the thread's clock as it is now (a due segment starts first): equal names, equal
    /// clocks. The segment tells the thread from any other (a reused slot's epochs go on from
    /// its last owner's), the count of changes (`clock_changes`) the clock from the thread's
    /// earlier ones.
    #[inline]
    pub fn clock_name(&mut self) -> ClockName {
        self.start_due_segment();
        (self.current_segment(), self.clock_changes)
    }

    /// The re-acquisition of a lock whose clock's last post is `posted`: if that was this
    /// thread's post that ended its current segment, and its next segment has not started,
    /// nobody has heard of that post. The segment goes on, and true is returned: the lock's
    /// clock (the thread's own at the post) has nothing new to join.
    #[inline]
    pub fn resume_segment(&mut self, posted: Segment) -> bool {
        let current = self.current_segment();
        if !self.next_segment_due || posted != current {
            return false;
        }
        self.next_segment_due = false;
        publish_segment(current);
        true
    }

    #[inline]
    pub fn note_sync(&mut self, event: SyncEvent) {
        self.recent_syncs.note(event);
    }

    /// The interned last synchronisation event, for an access record.
    #[inline]
    pub fn last_sync_id(&mut self) -> Option<SyncEventId> {
        self.recent_syncs.last_id()
    }

    /// The parent side of a spawn: takes a slot for the child, gives it a copy of this clock
    /// (the post), and starts a new segment here. `None` when no slot is left: the child then
    /// runs unchecked.
    pub fn fork(
        &mut self,
        name: Option<String>,
        spawned_at: StackId,
        site: &'static Location<'static>,
    ) -> Option<ChildSeed> {
        self.fork_as(name, spawned_at, site, false)
    }

    /// `fork` for a thread (`task` false) or an async task (`task` true): a task's seed becomes
    /// a state that its polls install (`ChildSeed::into_task_state`).
    pub fn fork_as(
        &mut self,
        name: Option<String>,
        spawned_at: StackId,
        site: &'static Location<'static>,
        task: bool,
    ) -> Option<ChildSeed> {
        self.start_due_segment();
        let spawned_by = self.thread_ref.info().label();
        let seed = fork_seed(&self.clock, &self.scope, spawned_by, name, spawned_at, site, task)?;
        self.note_spawn(site, task);
        Some(seed)
    }

    /// The parent side of many forks made later, from other threads too (`ForkOrigin::fork`):
    /// takes this clock as every child's start (the post) and starts a new segment here, as a
    /// spawn does. Each child is a task (`task` true) or a thread named `name`.
    pub fn fork_origin(
        &mut self,
        name: Option<String>,
        spawned_at: StackId,
        site: &'static Location<'static>,
        task: bool,
    ) -> ForkOrigin {
        self.start_due_segment();
        let origin = ForkOrigin {
            clock: self.clock.clone(),
            scope: self.scope.clone(),
            spawned_by: self.thread_ref.info().label(),
            name,
            spawned_at,
            site,
            task,
        };
        self.note_spawn(site, task);
        origin
    }

    /// The spawner's sync event of a fork at `site`, and its new segment.
    fn note_spawn(&mut self, site: &'static Location<'static>, task: bool) {
        let object = if task { "a task" } else { "a thread" };
        self.note_sync(SyncEvent { op: "spawning", object, created: None, at: site });
        self.tick();
    }

    /// Marks the thread's exit post, after which its slot may be reused by a spawner that has
    /// seen it.
    pub fn exited(&mut self, posted: Epoch) {
        self.exit_epoch = Some(posted);
    }

    /// Posts the thread's exit into `clock` when this state is dropped: the thread's last
    /// thread-local destructor of racer's, which runs after those the thread's code registered
    /// (they were registered later, and run first), so `join` orders them too.
    pub fn post_exit_at_drop(&mut self, clock: Arc<SyncClock>, event: SyncEvent) {
        self.exit_post = Some((clock, event));
    }
}

/// A spawner's clock and identity as they were at one fork point, from which children are
/// forked later on any thread (`racer_core::task::ForkPoint`): each `fork` is a spawn made at
/// that point, with a slot of its own.
pub struct ForkOrigin {
    clock: VectorClock,
    scope: Option<Arc<CheckScope>>,
    spawned_by: String,
    name: Option<String>,
    spawned_at: StackId,
    site: &'static Location<'static>,
    task: bool,
}

impl ForkOrigin {
    /// A child forked at the origin; `None` when no slot is left (the child then runs unchecked).
    pub fn fork(&self) -> Option<ChildSeed> {
        fork_seed(
            &self.clock,
            &self.scope,
            self.spawned_by.clone(),
            self.name.clone(),
            self.spawned_at,
            self.site,
            self.task,
        )
    }
}

/// The child's side of a fork from a spawner whose clock is `clock` (before its tick): a slot
/// and the spawner's clock with the child's epoch in it. The child counts in its check's group
/// from now, so a join of it that blocks before it runs is not taken for the last thread blocking.
fn fork_seed(
    clock: &VectorClock,
    scope: &Option<Arc<CheckScope>>,
    spawned_by: String,
    name: Option<String>,
    spawned_at: StackId,
    site: &'static Location<'static>,
    task: bool,
) -> Option<ChildSeed> {
    let (slot, epoch) = take_slot(Some(clock))?;
    let mut clock = clock.clone();
    clock.set(slot, epoch);
    let info = Arc::new(ThreadInfo {
        serial: NEXT_SERIAL.fetch_add(1, Ordering::Relaxed),
        name,
        spawned_at: Some(spawned_at),
        foreign: false,
        task,
        spawned_by: Some(spawned_by),
    });
    let spawn_event = SyncEvent { op: "starting from", object: "spawn", created: None, at: site };
    crate::runtime::check_scope::join_group(scope);
    Some(ChildSeed { slot, clock, info, scope: scope.clone(), spawn_event })
}

impl ChildSeed {
    /// Who the new thread is.
    pub fn info(&self) -> Arc<ThreadInfo> {
        self.info.clone()
    }

    /// The child side of a spawn: installs the state on the calling (new) thread.
    pub fn install(self) {
        let mut state = self.into_state();
        publish_segment(state.segment());
        state.thread_ref.keep_reserve();
        STATE.with(|cell| *cell.borrow_mut() = Some(state));
    }

    /// The new thread's state, not installed: `install` puts it in place on the new thread; a
    /// task's is installed by each of its polls (`swap_current`) and keeps no reserve of
    /// handles (`keep_reserve`), which is the running thread's.
    pub fn into_state(self) -> ThreadState {
        ThreadState {
            slot: self.slot,
            clock: self.clock,
            next_segment_due: false,
            clock_changes: 0,
            thread_ref: ThreadRef::new(self.info),
            scope: self.scope,
            recent_syncs: RecentSyncEvents::new(Some(self.spawn_event)),
            exit_epoch: None,
            exit_post: None,
        }
    }
}

/// Exchanges the calling thread's state with `other`: a poll of a task installs the task's
/// state on the worker thread that polls it, and the worker's own comes back after. The seen
/// key follows the state installed. `false` (nothing exchanged) while the state is borrowed or
/// being torn down.
pub fn swap_current(other: &mut Option<ThreadState>) -> bool {
    let swapped = STATE
        .try_with(|cell| match cell.try_borrow_mut() {
            Ok(mut state) => {
                std::mem::swap(&mut *state, other);
                let key = match state.as_ref() {
                    Some(s) if !s.next_segment_due => crate::runtime::seen_key::key(s.current_segment()),
                    _ => crate::runtime::seen_key::NO_KEY,
                };
                let _ = SEEN_KEY.try_with(|k| k.set(key));
                true
            }
            Err(_) => false,
        })
        .unwrap_or(false);
    swapped
}

/// The join of the clocks of the threads racer did not spawn, each taken as it ended.
///
/// A thread racer did not spawn starts from this clock: it is taken to start after the end of
/// every such thread that ended before it. Test harnesses and thread pools start their threads
/// from a thread that heard of the previous ones' end through synchronisation racer cannot see
/// (libtest: a channel, then a spawn), so this edge is mostly real. It is what lets those
/// threads' slots, and the slots of the threads they joined, be reused by later ones: without
/// it every test of a suite would take new slots, and clocks would widen test by test. It
/// hides only races between such a thread and what happened before the end of one that ended
/// before it started; threads that run at once are still checked against each other.
static ENDED_UNSPAWNED: Mutex<VectorClock> = Mutex::new(VectorClock::new());

impl Drop for ThreadState {
    fn drop(&mut self) {
        self.start_due_segment();
        if let Some((clock, event)) = self.exit_post.take() {
            let posted = clock.post_from(self, event);
            self.exited(posted);
        }
        let _ = SEEN_KEY.try_with(|s| s.set(crate::runtime::seen_key::NO_KEY));
        let info = self.thread_ref.info();
        if self.exit_epoch.is_none() && info.foreign {
            // A thread racer did not spawn ends: its exit is posted to the next such thread.
            self.exit_epoch = Some(self.clock.get(self.slot));
            ENDED_UNSPAWNED.lock().join(&self.clock);
        }
        crate::runtime::check_scope::leave_group(&self.scope);
        release_slot(self.slot, self.exit_epoch, self.clock.get(self.slot));
        if !info.task {
            ThreadRef::drop_reserve();
        }
    }
}
