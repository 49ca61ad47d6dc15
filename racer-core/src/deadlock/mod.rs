//! Deadlocks: the lock-order graph (potential deadlocks, reported before they hang), re-locks,
//! and real hangs (threads blocked in racer's wrappers with nothing left to wake them).
//!
//! **Layer 3: deadlock detection**, beside the shadow memory: the way of one lock acquisition
//! (what the `sync/` wrappers call), and the watchdog. May import: `reporting`, `runtime`,
//! `config`, `provenance`, `report`, `base`. Invariant: below.
//!
//! **Lock-order graph.** Each thread keeps the list of the locks it holds (`HELD`, thread-local:
//! a push at every acquisition, a removal at every release, nothing else when it holds no other
//! lock). A blocking acquisition of B while holding A adds the edge A -> B (with both modes, the
//! thread, both sites and the stack of the acquisition of B) to the global graph, once per thread
//! (`EDGES_ADDED` caches the edges a thread has added, so a repeated nesting costs one lookup).
//! A new edge that closes a cycle is reported as a lock-order inversion. At every lock of the
//! cycle the mode the cycle arrives with (the next acquisition) and the mode it leaves with (the
//! lock held) must conflict, so a cycle whose only link at some lock is read/read (which cannot
//! block there) is not a cycle. Lock ids are never reused, and a dropped lock's node and edges
//! are removed (`LockMeta`'s drop), so no cycle runs through a dead lock or a reused address.
//!
//! **Re-lock.** A blocking acquisition whose `try_lock` failed checks `HELD`: if the thread
//! holds the lock in a conflicting mode it would wait for itself; that is reported at once and
//! ends the thread's `racer::check` (or the process).
//!
//! **Real deadlocks.** A thread about to block in a wrapper (a lock whose `try_lock` failed
//! after a short spin, a condvar wait without timeout, a join of an unfinished thread, a
//! channel receive on an empty channel, a barrier) publishes what it waits for, what it holds
//! and its stack in its own wait slot (`WaitSlot`, one per thread, its own lock), and clears it when it
//! stops waiting. A watchdog thread, started at the first such wait, reads every slot every
//! `TICK`. A publication carries a per-thread sequence number that changes at every new wait,
//! so a thread seen with the same number in two readings was blocked for the whole time in
//! between: what the watchdog concludes from waits each seen unchanged for `QUIET` holds at one
//! instant (and a thread just woken has had time to withdraw its wait). It reports
//! (1) a cycle of blocked threads each waiting for a lock the next one holds, and (2) a group
//! (the threads of one `racer::check`, or the threads outside any check) all of whose live
//! threads are blocked, with no thread started or ended in between. Both end the check: its
//! sink is marked deadlocked, and every thread of it waiting in an interruptible wait (join,
//! receive, condvar) unwinds with `DeadlockAbort`, which `check` turns into its report. Outside
//! a check, a hang ends the process with the report and the exit status.
//!
//! Invariant: the detector's own state here (`GRAPH`, `REGISTRY`, `SLOTS`, each slot) is
//! guarded by racer's own locks (`crate::base::lock`), none of which is held while user code runs or
//! while this thread blocks in a user's lock; a report is built and delivered after they are
//! released. Nothing here panics in the user's program: the only unwinding is `DeadlockAbort`,
//! on purpose, out of a wait that can never end.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet, VecDeque};
use std::panic::Location;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Once, Weak};
use std::time::{Duration, Instant};

use crate::report::{BlockedThread, Deadlock, DeadlockKind, LockEdge, LockMode, LockUse};
use crate::base::lock::Mutex;
use crate::report::Frame;
use crate::runtime::check_scope::{group_of, CheckScope, GROUPS};
use crate::provenance::stack::{self, StackId};
use crate::provenance::thread_ref::ThreadInfo;
use crate::runtime::thread_state::with_current;

/// How often interruptible waits look whether their check was ended, and how often the watchdog
/// reads the slots.
pub const TICK: Duration = Duration::from_millis(50);

/// The payload a thread unwinds with when its `racer::check` was ended by a deadlock. `check`
/// catches it; it never reaches the user's panic hook (it is raised with `resume_unwind`).
#[derive(Debug)]
pub struct DeadlockAbort;

/// Whether deadlock detection is on (`RACER_OPTIONS=detect_deadlocks`).
#[inline]
pub fn enabled() -> bool {
    crate::config::options::get().options.detect_deadlocks
}

// ---------------------------------------------------------------------------------------------
// Locks and the locks a thread holds.

const IN_GRAPH: u64 = 1 << 63;
static NEXT_LOCK: AtomicU64 = AtomicU64::new(1);

/// A lock's identity for deadlock detection, embedded in racer's `Mutex` and `RwLock`.
///
/// Invariant: `id` is 0 until the lock is first taken, then a number no other lock ever had;
/// the bit `IN_GRAPH` is set before the lock's first edge enters `GRAPH`, so a lock without it
/// has nothing there to forget when dropped.
#[derive(Debug, Default)]
pub struct LockMeta {
    id: AtomicU64,
}

impl LockMeta {
    pub const fn new() -> LockMeta {
        LockMeta { id: AtomicU64::new(0) }
    }

    #[inline]
    pub fn id(&self) -> u64 {
        let v = self.id.load(Ordering::Relaxed);
        if v != 0 {
            return v & !IN_GRAPH;
        }
        self.assign()
    }

    #[cold]
    fn assign(&self) -> u64 {
        let new = NEXT_LOCK.fetch_add(1, Ordering::Relaxed);
        match self.id.compare_exchange(0, new, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => new,
            Err(v) => v & !IN_GRAPH,
        }
    }

    fn mark_in_graph(&self) {
        self.id.fetch_or(IN_GRAPH, Ordering::Relaxed);
    }
}

impl Drop for LockMeta {
    fn drop(&mut self) {
        let v = *self.id.get_mut();
        if v & IN_GRAPH != 0 {
            GRAPH.lock().forget(v & !IN_GRAPH);
        }
    }
}

/// One acquisition of a lock, as the thread holding it remembers it.
#[derive(Debug, Clone, Copy)]
pub struct Acq {
    /// The lock's `LockMeta`, valid while the lock is held or being taken (its guard borrows it).
    meta: usize,
    pub id: u64,
    pub mode: LockMode,
    pub object: &'static str,
    pub created: &'static Location<'static>,
    pub site: &'static Location<'static>,
}

impl Acq {
    #[inline]
    pub fn new(
        meta: &LockMeta,
        mode: LockMode,
        object: &'static str,
        created: &'static Location<'static>,
        site: &'static Location<'static>,
    ) -> Acq {
        Acq { meta: meta as *const LockMeta as usize, id: meta.id(), mode, object, created, site }
    }

    /// # Safety
    /// The lock must be held or being taken by the calling thread.
    unsafe fn meta(&self) -> &LockMeta {
        unsafe { &*(self.meta as *const LockMeta) }
    }
}

/// Whether a lock held in mode `a` keeps out an acquisition in mode `b`.
fn conflict(a: LockMode, b: LockMode) -> bool {
    !(a == LockMode::Shared && b == LockMode::Shared)
}

/// An edge as a thread remembers having added it: held id, next id, held mode, next mode.
type EdgeKey = (u64, u64, LockMode, LockMode);

thread_local! {
    /// The locks the thread holds, in the order taken.
    static HELD: RefCell<Vec<Acq>> = const { RefCell::new(Vec::new()) };
    /// The edges (held id, next id, held mode, next mode) this thread has added to `GRAPH`.
    static EDGES_ADDED: RefCell<Option<HashSet<EdgeKey>>> = const { RefCell::new(None) };
}

/// A lock was taken. `blocking`: by `lock`/`read`/`write` (not `try_*`), so the locks already
/// held get an edge to it.
#[inline(never)]
pub fn acquired(acq: Acq, blocking: bool) {
    if !enabled() {
        return;
    }
    let prior = HELD
        .try_with(|h| {
            let mut held = h.try_borrow_mut().ok()?;
            let prior = (blocking && !held.is_empty()).then(|| held.clone());
            held.push(acq);
            prior
        })
        .ok()
        .flatten();
    if let Some(prior) = prior {
        record_edges(&prior, &acq);
    }
}

/// A lock was released (a guard dropped, or a condvar wait let it go).
#[inline(never)]
pub fn released(id: u64) {
    if !enabled() {
        return;
    }
    let _ = HELD.try_with(|h| {
        if let Ok(mut held) = h.try_borrow_mut() {
            // Mostly the lock taken last: a pop, with nothing to move.
            match held.iter().rposition(|a| a.id == id) {
                Some(i) if i + 1 == held.len() => drop(held.pop()),
                Some(i) => drop(held.remove(i)),
                None => {}
            }
        }
    });
}

fn held_now() -> Vec<Acq> {
    HELD.try_with(|h| h.try_borrow().map(|v| v.clone()).unwrap_or_default()).unwrap_or_default()
}

/// Adds the edges from `prior` (the locks held) to `acq` that this thread has not added yet,
/// and reports each cycle they close.
#[inline(never)]
fn record_edges(prior: &[Acq], acq: &Acq) {
    let fresh: Vec<Acq> = EDGES_ADDED
        .try_with(|added| {
            let Ok(mut added) = added.try_borrow_mut() else { return Vec::new() };
            let added = added.get_or_insert_with(HashSet::new);
            prior.iter().filter(|h| h.id != acq.id && added.insert((h.id, acq.id, h.mode, acq.mode))).copied().collect()
        })
        .unwrap_or_default();
    if fresh.is_empty() {
        return;
    }
    let stack = stack::capture();
    let Some((thread, sink)) = with_current(|t| (t.thread_ref.info(), t.scope.clone())) else { return };
    // SAFETY: every lock in `prior` is held by this thread, and `acq`'s is being taken by it.
    unsafe {
        acq.meta().mark_in_graph();
        for h in &fresh {
            h.meta().mark_in_graph();
        }
    }
    let cycles: Vec<Vec<Arc<EdgeInfo>>> = {
        let mut graph = GRAPH.lock();
        fresh
            .iter()
            .filter_map(|h| graph.add(EdgeInfo { thread: thread.clone(), held: *h, next: *acq, stack }))
            .collect()
    };
    for cycle in cycles {
        let d = inversion_report(&cycle);
        crate::reporting::deliver::deadlock_found(d, sink.as_ref(), false);
    }
}

// ---------------------------------------------------------------------------------------------
// The lock-order graph.

/// An edge: `thread` took `next` while holding `held`; `stack` is that acquisition's.
struct EdgeInfo {
    thread: Arc<ThreadInfo>,
    held: Acq,
    next: Acq,
    stack: StackId,
}

/// Invariant: `into[b]` holds `a` exactly when `out[a]` has an edge to `b`; every lock id in
/// either is of a live lock (one whose `LockMeta` has `IN_GRAPH` and was not dropped).
#[derive(Default)]
struct Graph {
    out: HashMap<u64, Vec<Arc<EdgeInfo>>>,
    into: HashMap<u64, HashSet<u64>>,
    /// The lock sets of the cycles already reported.
    reported: HashSet<Vec<u64>>,
}

static GRAPH: std::sync::LazyLock<Mutex<Graph>> = std::sync::LazyLock::new(Default::default);

type State = (u64, LockMode);

impl Graph {
    /// Adds an edge (unless one with the same locks and modes is there) and returns the cycle it
    /// closes, starting with it, if that cycle was not reported before.
    fn add(&mut self, e: EdgeInfo) -> Option<Vec<Arc<EdgeInfo>>> {
        let (from, to) = (e.held.id, e.next.id);
        let list = self.out.entry(from).or_default();
        if list.iter().any(|x| x.next.id == to && x.held.mode == e.held.mode && x.next.mode == e.next.mode) {
            return None;
        }
        let e = Arc::new(e);
        list.push(e.clone());
        self.into.entry(to).or_default().insert(from);
        let cycle = self.path_back(&e)?;
        let mut key: Vec<u64> = cycle.iter().map(|x| x.held.id).collect();
        key.sort_unstable();
        self.reported.insert(key).then_some(cycle)
    }

    /// The shortest chain of edges from `e.next` back to `e.held` along which every lock is
    /// left in a mode that conflicts with the one it was reached in, `e` first.
    fn path_back(&self, e: &Arc<EdgeInfo>) -> Option<Vec<Arc<EdgeInfo>>> {
        let start: State = (e.next.id, e.next.mode);
        let mut came_by: HashMap<State, (Arc<EdgeInfo>, State)> = HashMap::new();
        let mut queue = VecDeque::from([start]);
        let mut visited = HashSet::from([start]);
        while let Some(state @ (lock, arrived)) = queue.pop_front() {
            for x in self.out.get(&lock).into_iter().flatten() {
                if !conflict(arrived, x.held.mode) {
                    continue;
                }
                if x.next.id == e.held.id && conflict(x.next.mode, e.held.mode) {
                    let mut path = vec![x.clone()];
                    let mut cur = state;
                    while cur != start {
                        let (edge, before) = came_by[&cur].clone();
                        path.push(edge);
                        cur = before;
                    }
                    path.push(e.clone());
                    path.reverse();
                    return Some(path);
                }
                let next: State = (x.next.id, x.next.mode);
                if visited.insert(next) {
                    came_by.insert(next, (x.clone(), state));
                    queue.push_back(next);
                }
            }
        }
        None
    }

    fn forget(&mut self, id: u64) {
        if let Some(edges) = self.out.remove(&id) {
            for e in edges {
                if let Some(froms) = self.into.get_mut(&e.next.id) {
                    froms.remove(&id);
                }
            }
        }
        if let Some(froms) = self.into.remove(&id) {
            for f in froms {
                if let Some(list) = self.out.get_mut(&f) {
                    list.retain(|e| e.next.id != id);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Reports.

fn lock_use(a: &Acq, frames: Vec<Frame>) -> LockUse {
    LockUse { lock: a.id, object: a.object, mode: a.mode, created: a.created, location: a.site, frames }
}

/// The stack of the acquisition of a lock held at a later acquisition whose stack is `later`:
/// its site, in the innermost frame of `later` in the same file at or after the site's line
/// (the function that took it and still holds it), then that frame's callers.
fn held_frames(site: &'static Location<'static>, later: &[Frame]) -> Vec<Frame> {
    let same_file =
        |f: &Frame| f.file.as_deref().is_some_and(|file| file.ends_with(site.file()) || site.file().ends_with(file));
    let at_site = |function: String| Frame {
        function,
        file: Some(site.file().to_owned()),
        line: Some(site.line()),
        column: Some(site.column()),
    };
    match later.iter().position(|f| same_file(f) && f.line.is_some_and(|l| l >= site.line())) {
        Some(i) => {
            let mut frames = vec![at_site(later[i].function.clone())];
            frames.extend_from_slice(&later[i + 1..]);
            frames
        }
        None => vec![at_site("<a function that has returned since>".to_owned())],
    }
}

fn inversion_report(cycle: &[Arc<EdgeInfo>]) -> Deadlock {
    let edges = cycle
        .iter()
        .map(|e| {
            let next_frames = stack::resolve(e.stack);
            let held = lock_use(&e.held, held_frames(e.held.site, &next_frames));
            LockEdge { thread_name: e.thread.name.clone(), thread_id: e.thread.serial, held, next: lock_use(&e.next, next_frames) }
        })
        .collect();
    Deadlock { kind: DeadlockKind::LockOrderInversion, edges, threads: Vec::new(), scope: "" }
}

// ---------------------------------------------------------------------------------------------
// Re-lock and blocking.

/// How many more `try_lock`s a contended acquisition makes before it publishes its wait: most
/// contended waits are short.
pub const SPIN_ROUNDS: u32 = 4;

/// The pause before a contended acquisition's next `try_lock`: `4 << 2 * round` spin hints,
/// here, in optimised code. Few `try_lock`s, since each is a compare-and-swap on the lock's
/// cache line that slows its holder's unlock; and not in the generic wrapper, which the user's
/// unoptimised build compiles.
#[inline(never)]
pub fn pause(round: u32) {
    for _ in 0..(4u32 << (2 * round)) {
        std::hint::spin_loop();
    }
}

/// Called by a blocking acquisition whose `try_lock` failed: adds the edges from the locks held
/// (so an inversion is reported before it can hang), and reports a re-lock (then ends the
/// thread's check, or the process, unless it is suppressed).
#[inline(never)]
pub fn contended(acq: Acq) {
    if !enabled() {
        return;
    }
    let held = held_now();
    if held.is_empty() {
        return;
    }
    record_edges(&held, &acq);
    if let Some(first) = held.iter().find(|h| h.id == acq.id && conflict(h.mode, acq.mode)) {
        relock(first, &acq);
    }
}

/// Publishes the wait of an acquisition that is about to block.
#[inline(never)]
pub fn blocking_lock(acq: Acq) -> Blocking {
    if !enabled() {
        return Blocking::none();
    }
    block(Wait::Lock(acq), acq.site, false, held_now())
}

#[cold]
fn relock(first: &Acq, again: &Acq) {
    let Some((thread, sink)) = with_current(|t| (t.thread_ref.info(), t.scope.clone())) else { return };
    let frames = stack::resolve(stack::capture());
    let edge = LockEdge {
        thread_name: thread.name.clone(),
        thread_id: thread.serial,
        held: lock_use(first, held_frames(first.site, &frames)),
        next: lock_use(again, frames),
    };
    let d = Deadlock { kind: DeadlockKind::Relock, edges: vec![edge], threads: Vec::new(), scope: "" };
    if crate::reporting::deliver::deadlock_found(d, sink.as_ref(), true) && !std::thread::panicking() {
        // Inside a check (outside one, the process has ended): this thread would wait forever.
        std::panic::resume_unwind(Box::new(DeadlockAbort));
    }
}

/// What a blocked thread waits for.
#[derive(Clone)]
pub enum Wait {
    Lock(Acq),
    Join(Option<Arc<ThreadInfo>>),
    ScopeEnd(Option<Arc<ThreadInfo>>),
    Recv(&'static Location<'static>),
    Condvar,
    Barrier(&'static Location<'static>),
}

/// A published wait, in the waiting thread's slot.
#[derive(Clone)]
struct Published {
    /// Changes at every new wait of the thread.
    seq: u64,
    group: u64,
    wait: Wait,
    site: &'static Location<'static>,
    stack: StackId,
    held: Vec<Acq>,
    interruptible: bool,
}

/// One thread's published wait, if it is waiting.
struct WaitSlot {
    thread: Arc<ThreadInfo>,
    waiting: Mutex<Option<Published>>,
    seq: AtomicU64,
}

static SLOTS: Mutex<Vec<Weak<WaitSlot>>> = Mutex::new(Vec::new());

thread_local! {
    static MY_SLOT: RefCell<Option<Arc<WaitSlot>>> = const { RefCell::new(None) };
}

fn my_slot() -> Option<Arc<WaitSlot>> {
    MY_SLOT
        .try_with(|s| {
            let mut s = s.try_borrow_mut().ok()?;
            if s.is_none() {
                let thread = with_current(|t| t.thread_ref.info())?;
                let slot = Arc::new(WaitSlot { thread, waiting: Mutex::new(None), seq: AtomicU64::new(0) });
                let mut all = SLOTS.lock();
                all.retain(|w| w.strong_count() > 0);
                all.push(Arc::downgrade(&slot));
                *s = Some(slot);
            }
            s.clone()
        })
        .ok()
        .flatten()
}

/// A published wait; dropping it (when the wait ends, or unwinds) withdraws it.
pub struct Blocking {
    slot: Option<Arc<WaitSlot>>,
    sink: Option<Arc<CheckScope>>,
}

impl Blocking {
    fn none() -> Blocking {
        Blocking { slot: None, sink: None }
    }

    /// For an interruptible wait, called between its polls: unwinds the thread with
    /// `DeadlockAbort` if its check was ended by a deadlock.
    pub fn poll(&self) {
        if self.ended() {
            std::panic::resume_unwind(Box::new(DeadlockAbort));
        }
    }

    /// Whether the wait's check was ended by a deadlock, so the thread should unwind (never
    /// while it is already unwinding).
    pub fn ended(&self) -> bool {
        self.sink.as_ref().is_some_and(|s| s.is_deadlocked()) && !std::thread::panicking()
    }
}

impl Drop for Blocking {
    fn drop(&mut self) {
        if let Some(slot) = &self.slot {
            *slot.waiting.lock() = None;
        }
    }
}

/// Publishes a wait of the calling thread (an interruptible one polls `Blocking::poll`).
pub fn wait(what: Wait, site: &'static Location<'static>) -> Blocking {
    if !enabled() {
        return Blocking::none();
    }
    let held = held_now();
    block(what, site, true, held)
}

fn block(what: Wait, site: &'static Location<'static>, interruptible: bool, held: Vec<Acq>) -> Blocking {
    let Some(slot) = my_slot() else { return Blocking::none() };
    let Some(sink) = with_current(|t| t.scope.clone()) else { return Blocking::none() };
    let stack = stack::capture();
    let published = Published {
        seq: slot.seq.fetch_add(1, Ordering::Relaxed) + 1,
        group: group_of(&sink),
        wait: what,
        site,
        stack,
        held,
        interruptible,
    };
    *slot.waiting.lock() = Some(published);
    WATCHDOG.call_once(|| {
        let _ = std::thread::Builder::new().name("racer-deadlock-watchdog".into()).spawn(watchdog);
    });
    Blocking { slot: Some(slot), sink: if interruptible { sink } else { None } }
}

// ---------------------------------------------------------------------------------------------
// Groups: the threads of one check, or those outside any check.

// ---------------------------------------------------------------------------------------------
// The watchdog.

static WATCHDOG: Once = Once::new();

/// How long a wait (and a group's membership) must be seen unchanged before the watchdog
/// concludes from it: long enough that a thread just woken (notified, handed the lock or a
/// message) has run and withdrawn its wait even on a loaded machine.
pub const QUIET: Duration = Duration::from_millis(250);

/// Reads every slot each `TICK`; a deadlock is what the waits seen unchanged for `QUIET` show.
fn watchdog() {
    let mut since: HashMap<u64, (u64, Instant)> = HashMap::new(); // thread serial -> (seq, first seen)
    let mut group_since: HashMap<u64, (u64, Instant)> = HashMap::new(); // group -> (changes, first seen)
    let mut reported_cycles: HashSet<Vec<u64>> = HashSet::new();
    loop {
        std::thread::sleep(TICK);
        let slots: Vec<Arc<WaitSlot>> = SLOTS.lock().iter().filter_map(Weak::upgrade).collect();
        let waiting: Vec<(Arc<ThreadInfo>, Published)> =
            slots.iter().filter_map(|s| s.waiting.lock().clone().map(|p| (s.thread.clone(), p))).collect();
        let now = Instant::now();
        since.retain(|serial, (seq, _)| waiting.iter().any(|(t, p)| t.serial == *serial && p.seq == *seq));
        for (t, p) in &waiting {
            since.entry(t.serial).or_insert((p.seq, now));
        }
        // The waits seen unchanged for `QUIET`: blocked all that time.
        let steady: Vec<&(Arc<ThreadInfo>, Published)> =
            waiting.iter().filter(|(t, _)| since.get(&t.serial).is_some_and(|(_, at)| now - *at >= QUIET)).collect();

        let mut found: Vec<(Option<Arc<CheckScope>>, Deadlock, bool)> = Vec::new();
        for cycle in wait_cycles(&steady) {
            let mut key: Vec<u64> = cycle.iter().map(|&i| steady[i].0.serial).collect();
            key.sort_unstable();
            if !reported_cycles.insert(key) {
                continue;
            }
            let group = steady[cycle[0]].1.group;
            let members: Vec<usize> = (0..steady.len()).filter(|&i| steady[i].1.group == group).collect();
            let sink = {
                let mut groups = GROUPS.lock();
                groups.get_mut(&group).and_then(|g| {
                    g.deadlocked = true;
                    g.scope.clone()
                })
            };
            found.push((sink.clone(), hang_report(&steady, &cycle, &members, &sink), sink.is_some()));
        }

        let mut groups = GROUPS.lock();
        let mut ends: Vec<Option<Arc<CheckScope>>> = Vec::new();
        let mut hangs: Vec<(Option<Arc<CheckScope>>, Vec<usize>)> = Vec::new();
        for (key, g) in groups.iter_mut() {
            let first = group_since.entry(*key).or_insert((g.changes, now));
            if first.0 != g.changes {
                *first = (g.changes, now);
            }
            let stable = now - first.1 >= QUIET;
            if g.scope.as_ref().is_some_and(|s| s.is_closed()) || g.live == 0 || !stable {
                continue;
            }
            let members: Vec<usize> = (0..steady.len()).filter(|&i| steady[i].1.group == *key).collect();
            if members.len() < g.live {
                continue;
            }
            if !g.deadlocked {
                g.deadlocked = true;
                hangs.push((g.scope.clone(), members));
            } else if g.scope.is_none() || members.iter().all(|&i| !steady[i].1.interruptible) {
                // Reported already (a cycle), and now nothing can move: outside a check the
                // process can never end; inside one, no thread of it can be unwound.
                ends.push(g.scope.clone());
            }
        }
        group_since.retain(|k, _| groups.contains_key(k));
        drop(groups);
        // Built with no lock of the detector's held: resolving stacks takes time.
        for (sink, members) in hangs {
            let d = hang_report(&steady, &[], &members, &sink);
            found.push((sink, d, true));
        }
        for (sink, d, ends_group) in found {
            crate::reporting::deliver::deadlock_found(d, sink.as_ref(), ends_group);
        }
        for sink in ends {
            crate::reporting::deliver::end_hung_check(sink.as_ref());
        }
    }
}

/// Cycles of threads each waiting for a lock the next one holds in a conflicting mode, as
/// indices into `waiting`, each thread in at most one.
fn wait_cycles(waiting: &[&(Arc<ThreadInfo>, Published)]) -> Vec<Vec<usize>> {
    let holders = |i: usize| -> Vec<usize> {
        let Wait::Lock(want) = &waiting[i].1.wait else { return Vec::new() };
        (0..waiting.len())
            .filter(|&j| j != i && waiting[j].1.held.iter().any(|h| h.id == want.id && conflict(h.mode, want.mode)))
            .collect()
    };
    fn back_to(
        cur: usize,
        start: usize,
        holders: &dyn Fn(usize) -> Vec<usize>,
        path: &mut Vec<usize>,
        visited: &mut HashSet<usize>,
    ) -> bool {
        for next in holders(cur) {
            if next == start {
                return true;
            }
            if visited.insert(next) {
                path.push(next);
                if back_to(next, start, holders, path, visited) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut cycles: Vec<Vec<usize>> = Vec::new();
    let mut in_cycle = HashSet::new();
    for start in 0..waiting.len() {
        if in_cycle.contains(&start) {
            continue;
        }
        let mut path = vec![start];
        let mut visited = HashSet::from([start]);
        if back_to(start, start, &holders, &mut path, &mut visited) {
            in_cycle.extend(path.iter().copied());
            cycles.push(path);
        }
    }
    cycles
}

fn describe(p: &Published, waiting: &[&(Arc<ThreadInfo>, Published)]) -> String {
    match &p.wait {
        Wait::Lock(a) => {
            let holders: Vec<String> = waiting
                .iter()
                .filter(|(_, q)| q.held.iter().any(|h| h.id == a.id && conflict(h.mode, a.mode)))
                .map(|(t, _)| thread_label(t))
                .collect();
            let how = match (a.object, a.mode) {
                ("RwLock", LockMode::Shared) => "to read-lock",
                ("RwLock", LockMode::Exclusive) => "to write-lock",
                _ => "to lock",
            };
            let held_by =
                if holders.is_empty() { String::new() } else { format!(", held by {}", holders.join(" and ")) };
            format!("{how} {} #{} (created at {}){held_by}", a.object, a.id, a.created)
        }
        Wait::Join(Some(t)) => format!("to join {}", thread_label(t)),
        Wait::Join(None) => "to join a thread".to_owned(),
        Wait::ScopeEnd(Some(t)) => format!("at the end of a thread scope, for {} to end", thread_label(t)),
        Wait::ScopeEnd(None) => "at the end of a thread scope, for its threads to end".to_owned(),
        Wait::Recv(created) => format!("to receive from a channel (created at {created})"),
        Wait::Condvar => "on a Condvar (wait without timeout)".to_owned(),
        Wait::Barrier(created) => format!("at a Barrier (created at {created})"),
    }
}

fn thread_label(t: &ThreadInfo) -> String {
    match &t.name {
        Some(name) => format!("thread '{name}'"),
        None => format!("thread T{}", t.serial),
    }
}

fn hang_report(
    waiting: &[&(Arc<ThreadInfo>, Published)],
    cycle: &[usize],
    members: &[usize],
    sink: &Option<Arc<CheckScope>>,
) -> Deadlock {
    let order: Vec<usize> =
        cycle.iter().copied().chain(members.iter().copied().filter(|i| !cycle.contains(i))).collect();
    let threads = order
        .iter()
        .map(|&i| {
            let (t, p) = waiting[i];
            let frames = stack::resolve(p.stack);
            let holds = p.held.iter().map(|h| lock_use(h, held_frames(h.site, &frames))).collect();
            BlockedThread {
                thread_name: t.name.clone(),
                thread_id: t.serial,
                waiting: describe(p, waiting),
                location: p.site,
                frames,
                holds,
                in_cycle: cycle.contains(&i),
            }
        })
        .collect();
    let scope = if sink.is_some() { "this racer::check" } else { "the process (outside racer::check)" };
    Deadlock { kind: DeadlockKind::Hang, edges: Vec::new(), threads, scope }
}

// ---------------------------------------------------------------------------------------------
// A thread's end, for joins.

/// Set when a racer thread's closure has ended (returned or unwound), for a join to wait on.
#[derive(Default)]
pub struct Done {
    done: std::sync::Mutex<bool>,
    cv: std::sync::Condvar,
}

impl Done {
    pub fn set(&self) {
        *self.done.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.cv.notify_all();
    }

    /// Waits for `set`, publishing the wait and polling for the end of the check.
    pub fn wait(&self, target: Option<Arc<ThreadInfo>>, site: &'static Location<'static>) {
        self.wait_as(Wait::Join(target), true, site)
    }

    /// Waits for `set` at the end of a thread scope, which std would not let unwind before
    /// all its threads ended: published, but not interruptible.
    pub fn wait_at_scope_end(&self, target: Option<Arc<ThreadInfo>>, site: &'static Location<'static>) {
        self.wait_as(Wait::ScopeEnd(target), false, site)
    }

    fn wait_as(&self, what: Wait, interruptible: bool, site: &'static Location<'static>) {
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        if *done {
            return;
        }
        drop(done);
        let blocking = if !enabled() {
            Blocking::none()
        } else {
            let held = held_now();
            block(what, site, interruptible, held)
        };
        done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        while !*done {
            done = self.cv.wait_timeout(done, TICK).unwrap_or_else(|e| e.into_inner()).0;
            if !*done {
                drop(done);
                blocking.poll();
                done = self.done.lock().unwrap_or_else(|e| e.into_inner());
            }
        }
    }
}
