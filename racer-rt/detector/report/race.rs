//! What a race report says: the public `Report`, `Race`, `Access` types, the human layout and
//! the JSON layout. Compiled in both builds so user code naming them compiles unchanged; with
//! the feature off no value of them is ever made but the empty `Report`.

use std::fmt;
use std::panic::Location;
use std::sync::atomic::Ordering;

use super::deadlock::LockMode;
use super::frame::{actor_label, capitalised, frames_json, json_string, write_frames, Frame};

/// How two conflicting accesses of one cell relate, named after the earlier one's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RaceKind {
    /// A write, then a parallel read.
    Flow,
    /// A read, then a parallel write.
    Anti,
    /// A write, then a parallel write.
    Output,
}

impl RaceKind {
    /// The short name used in reports and JSON: `flow`, `anti`, `output`.
    pub fn name(self) -> &'static str {
        match self {
            RaceKind::Flow => "flow",
            RaceKind::Anti => "anti",
            RaceKind::Output => "output",
        }
    }

    fn explained(self) -> &'static str {
        match self {
            RaceKind::Flow => "flow: write, then a parallel read",
            RaceKind::Anti => "anti: read, then a parallel write",
            RaceKind::Output => "output: write, then a parallel write",
        }
    }
}

/// Whether an access read or wrote the cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccessKind {
    Read,
    Write,
}

impl AccessKind {
    fn noun(self) -> &'static str {
        match self {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
        }
    }
}

/// The parts of a thread's last synchronisation before an access, for the report's hints:
/// "`op` `object` (created at `created`) at `at`".
#[derive(Debug, Clone, Copy)]
pub(crate) struct LastSync {
    pub(crate) op: &'static str,
    pub(crate) object: &'static str,
    pub(crate) created: Option<&'static Location<'static>>,
    pub(crate) at: &'static Location<'static>,
}

/// A racer lock the accessing thread held at the access (kind, creation site, where taken).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HeldLock {
    /// racer's number for the lock (as `LockUse::lock_id`).
    pub(crate) lock: u64,
    pub(crate) object: &'static str,
    pub(crate) mode: LockMode,
    pub(crate) created: &'static Location<'static>,
    pub(crate) acquired_at: &'static Location<'static>,
}

impl HeldLock {
    /// racer's number for the lock, unique over the process.
    pub fn lock_id(&self) -> u64 {
        self.lock
    }

    /// `"Mutex"`, `"RwLock"`, or a `lock_api` adapter's name.
    pub fn object(&self) -> &'static str {
        self.object
    }

    pub fn mode(&self) -> LockMode {
        self.mode
    }

    /// Where the lock was created (its `new`).
    pub fn created(&self) -> &'static Location<'static> {
        self.created
    }

    /// The `#[track_caller]` site of the `lock`/`read`/`write` call that took it.
    pub fn acquired_at(&self) -> &'static Location<'static> {
        self.acquired_at
    }

    /// `Mutex (created at a.rs:3:5), locked at a.rs:9:20`; `RwLock (...), read-locked at ...`.
    fn describe(&self) -> String {
        let how = match (self.object, self.mode) {
            ("RwLock", LockMode::Shared) => "read-locked",
            ("RwLock", LockMode::Exclusive) => "write-locked",
            (_, LockMode::Shared) => "locked shared",
            _ => "locked",
        };
        format!("{} (created at {}), {how} at {}", self.object, self.created, self.acquired_at)
    }

    fn json(&self, out: &mut String) {
        out.push_str(&format!(
            "{{\"object\":{},\"mode\":\"{}\",\"created\":{},\"acquired_at\":{}}}",
            json_string(self.object),
            match self.mode {
                LockMode::Exclusive => "exclusive",
                LockMode::Shared => "shared",
            },
            site_json(self.created),
            site_json(self.acquired_at)
        ));
    }
}

/// The hand-off through a racer atomic that failed to order a race: the thread of the current
/// access loaded the atomic (`load_*`), whose last store (or RMW) by the other thread
/// (`store_*`) made no happens-before edge with that load.
#[derive(Debug, Clone)]
pub struct AtomicPair {
    pub(crate) object: &'static str,
    pub(crate) store_site: &'static Location<'static>,
    pub(crate) store_order: Ordering,
    pub(crate) store_is_rmw: bool,
    /// The store released its thread's clock (a Release ordering or a fence(Release) before it).
    pub(crate) store_releases: bool,
    /// The storing thread, as the report names it (`thread 'writer'`).
    pub(crate) storer: String,
    pub(crate) load_site: &'static Location<'static>,
    pub(crate) load_order: Ordering,
}

impl AtomicPair {
    /// The atomic's type: `"AtomicBool"`, `"AtomicUsize"`, ...
    pub fn object(&self) -> &'static str {
        self.object
    }

    /// The store (or RMW) of the previous access's thread.
    pub fn store_site(&self) -> &'static Location<'static> {
        self.store_site
    }

    pub fn store_ordering(&self) -> Ordering {
        self.store_order
    }

    /// Whether the store was a read-modify-write (`swap`, `fetch_add`, a compare-exchange).
    pub fn store_is_rmw(&self) -> bool {
        self.store_is_rmw
    }

    /// The load of the current access's thread.
    pub fn load_site(&self) -> &'static Location<'static> {
        self.load_site
    }

    pub fn load_ordering(&self) -> Ordering {
        self.load_order
    }

    /// The smallest change of orderings that would make the store happen before the load, e.g.
    /// `make the store at a.rs:34:9 Release and the load at a.rs:40:15 Acquire`.
    pub fn fix(&self) -> String {
        let store = if self.store_is_rmw { "update" } else { "store" };
        let load_acquires = matches!(self.load_order, Ordering::Acquire | Ordering::AcqRel | Ordering::SeqCst);
        let store_to = if self.store_is_rmw { "AcqRel" } else { "Release" };
        match (self.store_releases, load_acquires) {
            (false, false) => {
                format!("make the {store} at {} {store_to} and the load at {} Acquire", self.store_site, self.load_site)
            }
            (false, true) => format!("make the {store} at {} {store_to}", self.store_site),
            _ => format!("make the load at {} Acquire (or put a fence(Acquire) after it)", self.load_site),
        }
    }

    /// Why the hand-off orders nothing, in a few words.
    fn why(&self) -> &'static str {
        let load_acquires = matches!(self.load_order, Ordering::Acquire | Ordering::AcqRel | Ordering::SeqCst);
        match (self.store_releases, load_acquires) {
            (false, false) => "a Relaxed store read by a Relaxed load orders nothing",
            (false, true) => "an Acquire load of a Relaxed store orders nothing",
            _ => "a Relaxed load of a Release store orders nothing without a fence(Acquire) after it",
        }
    }

    /// The report's line.
    fn hint(&self, loader: &str) -> String {
        format!(
            "{} loaded {} with {:?} at {}, last {} by {} with {:?} at {}: {}; {}",
            capitalised(loader),
            self.object,
            self.load_order,
            self.load_site,
            if self.store_is_rmw { "updated" } else { "stored" },
            self.storer,
            self.store_order,
            self.store_site,
            self.why(),
            self.fix()
        )
    }

    fn json(&self, out: &mut String) {
        out.push_str(&format!(
            "{{\"object\":{},\"store\":{{\"op\":\"{}\",\"ordering\":\"{:?}\",\"releases\":{},\"site\":{}}},\"load\":{{\"ordering\":\"{:?}\",\"site\":{}}},\"fix\":{}}}",
            json_string(self.object),
            if self.store_is_rmw { "rmw" } else { "store" },
            self.store_order,
            self.store_releases,
            site_json(self.store_site),
            self.load_order,
            site_json(self.load_site),
            json_string(&self.fix())
        ));
    }
}

/// Where a `Shared` cell was born, as far as racer knows: its creation, for a cell whose
/// creation is a checked write (the loom stand-in's), else its first checked access (a
/// `Shared::new`, being `const`, leaves no trace).
#[derive(Debug, Clone)]
pub struct CellBirth {
    /// The site is the cell's creation, not only its first access.
    pub(crate) created: bool,
    pub(crate) location: &'static Location<'static>,
    pub(crate) thread_name: Option<String>,
    pub(crate) thread_id: u64,
    /// The first access was a task's (`racer::tokio`).
    pub(crate) task: bool,
    pub(crate) frames: Vec<Frame>,
}

impl CellBirth {
    /// Whether `location` is where the cell was created; if not, it is the cell's first checked
    /// access (racer does not record where a `Shared::new` ran).
    pub fn is_creation(&self) -> bool {
        self.created
    }

    pub fn location(&self) -> &'static Location<'static> {
        self.location
    }

    pub fn thread_name(&self) -> Option<&str> {
        self.thread_name.as_deref()
    }

    /// racer's number for the thread (as `Access::thread_id`).
    pub fn thread_id(&self) -> u64 {
        self.thread_id
    }

    pub fn frames(&self) -> &[Frame] {
        &self.frames
    }

    /// How the report names who made the access (`thread 'a'`, `thread T4`, `task 7`).
    pub(crate) fn thread_label(&self) -> String {
        actor_label(&self.thread_name, self.thread_id, self.task)
    }
}

fn site_json(l: &Location<'_>) -> String {
    format!("{{\"file\":{},\"line\":{},\"column\":{}}}", json_string(l.file()), l.line(), l.column())
}

/// One of the two accesses of a race.
#[derive(Debug, Clone)]
pub struct Access {
    pub(crate) kind: AccessKind,
    pub(crate) location: &'static Location<'static>,
    pub(crate) thread_name: Option<String>,
    /// racer's number for the thread, unique over the process: 1 for the first thread seen.
    pub(crate) thread_id: u64,
    pub(crate) frames: Vec<Frame>,
    /// The last synchronisation the thread performed before this access, if any.
    pub(crate) after_sync: Option<String>,
    /// The same, in parts.
    pub(crate) last_sync: Option<LastSync>,
    /// Where the thread was spawned (absent for threads racer did not spawn).
    pub(crate) spawned_at: Option<Vec<Frame>>,
    /// The thread was not started by racer (and is not the main thread).
    pub(crate) foreign_thread: bool,
    /// The access was made by an async task racer spawned (`racer::tokio`), not a thread.
    pub(crate) task: bool,
    /// How the report names who spawned the thread or task, if racer spawned it.
    pub(crate) spawned_by: Option<String>,
    /// The access was made inside a tokio task racer did not spawn (`tokio::spawn` itself):
    /// racer sees it as part of the worker thread that polled it.
    pub(crate) untracked_task: bool,
    /// With `untracked_task`: the work was a closure `tokio::task::spawn_blocking` started on
    /// tokio's blocking pool (not racer's `spawn_blocking`), not an async task.
    pub(crate) untracked_blocking: bool,
    /// The access was made by a rayon worker running a job rayon started (`rayon::join`,
    /// `par_iter`... used directly, not through `racer::rayon`).
    pub(crate) rayon_job: bool,
    /// The thread is the test harness's thread of a test (named after the test, which it runs).
    pub(crate) test_thread: bool,
    /// The test the thread runs, or whose harness thread spawned it (directly).
    pub(crate) test: Option<String>,
    /// The racer locks the thread held at the access, in the order taken (empty when it held
    /// none, or when deadlock detection, which keeps them, is off).
    pub(crate) locks_held: Vec<HeldLock>,
}

impl Access {
    pub fn kind(&self) -> AccessKind {
        self.kind
    }

    /// The `#[track_caller]` site of the access: the user's line.
    pub fn location(&self) -> &'static Location<'static> {
        self.location
    }

    pub fn thread_name(&self) -> Option<&str> {
        self.thread_name.as_deref()
    }

    /// racer's number for the accessing thread (1 for the first thread racer saw).
    pub fn thread_id(&self) -> u64 {
        self.thread_id
    }

    /// The resolved frames, the user's frame first, racer's own frames left out.
    pub fn frames(&self) -> &[Frame] {
        &self.frames
    }

    /// The last synchronisation operation of the thread before the access, e.g.
    /// `unlocking Mutex (created at src/q.rs:12:5) at src/q.rs:40:9`.
    pub fn after_sync(&self) -> Option<&str> {
        self.after_sync.as_deref()
    }

    /// Whether the thread's only synchronisation racer saw before the access is its start: a
    /// report then often comes from synchronisation racer cannot see.
    /// When the access's frames (or its thread's spawn) show a crate racer has an adapter for,
    /// used directly: the hint naming the swap.
    /// A task is racer's own (spawned through an adapter or `racer::tokio`): no hint.
    fn adapter_hint(&self, thread: &str) -> Option<String> {
        if self.task {
            return None;
        }
        let mut frames = self.frames.iter().chain(self.spawned_at.iter().flatten());
        let (used, swap) = frames.find_map(|frame| adapter_for(&frame.function))?;
        Some(format!(
            "{thread} ran inside {used}, which orders its work through nothing racer sees: {swap}, so racer sees \
             the hand-offs it makes"
        ))
    }

    fn synchronised_only_at_start(&self) -> bool {
        self.last_sync.is_none_or(|sync| sync.op == "starting from")
    }

    /// Whether the thread's last synchronisation before the access is one that could have
    /// ordered it with another thread's access: anything but its start and spawning a thread
    /// (a spawn orders only what came before it, and the access came after).
    fn synchronised_through_racer(&self) -> bool {
        self.last_sync.is_some_and(|sync| !matches!(sync.op, "starting from" | "spawning"))
    }

    /// The lock the thread held at the access: its last synchronisation before it took a lock
    /// (and so let go of none since).
    fn lock_held(&self) -> Option<LastSync> {
        self.last_sync.filter(|sync| matches!(sync.op, "locking" | "read-locking" | "write-locking"))
    }

    /// The racer locks the thread held at the access, in the order taken: kind, creation site
    /// and where each was taken. Empty when it held none (or with `detect_deadlocks=0`, which
    /// stops racer keeping them).
    pub fn locks_held(&self) -> &[HeldLock] {
        &self.locks_held
    }

    /// Whether the thread is the test harness's thread running a test: libtest names it after
    /// the test, which it runs.
    pub fn is_test_thread(&self) -> bool {
        self.test_thread
    }

    /// The test (as libtest names it) the access happened in: the test its thread runs, or whose
    /// harness thread spawned its thread through racer.
    pub fn test(&self) -> Option<&str> {
        self.test.as_deref()
    }

    /// The stack of the thread's spawn, for threads spawned through racer.
    pub fn spawned_at(&self) -> Option<&[Frame]> {
        self.spawned_at.as_deref()
    }

    /// Whether the accessing thread was started by something other than racer (a
    /// `std::thread`, a test harness, a foreign pool) and is not the main thread: racer sees
    /// none of the synchronisation that started it or that it does outside racer's wrappers,
    /// so a race involving it may be one that synchronisation prevents.
    pub fn is_foreign_thread(&self) -> bool {
        self.foreign_thread
    }

    /// The resolved backtrace, one `#N function  file:line:col` line per frame.
    pub fn backtrace(&self) -> String {
        let mut out = String::new();
        for (i, frame) in self.frames.iter().enumerate() {
            out.push_str(&format!("#{i} {frame}\n"));
        }
        out
    }

    /// The site as printed: the `#[track_caller]` location, or for the write of a cell's drop
    /// (whose location is std's drop glue) the user's frame that dropped it.
    fn site(&self) -> String {
        let in_drop_glue = self.location.file().starts_with("/rustc/");
        match self.frames.first() {
            Some(Frame { file: Some(file), line: Some(line), column, .. }) if in_drop_glue => {
                format!("{file}:{line}:{} (dropping the cell)", column.unwrap_or(0))
            }
            _ => self.location.to_string(),
        }
    }

    /// How the report names who made the access (`thread 'a'`, `thread T4`, `task 7`).
    pub(crate) fn thread_label(&self) -> String {
        actor_label(&self.thread_name, self.thread_id, self.task)
    }

    /// "task" or "thread", as the report calls who made the access.
    fn actor(&self) -> &'static str {
        if self.task {
            "task"
        } else {
            "thread"
        }
    }

    /// Whether the access was made by an async task racer spawned (`racer::tokio::spawn`).
    pub fn is_task(&self) -> bool {
        self.task
    }
}

/// A data race: two conflicting accesses of one cell with no happens-before order between them.
#[derive(Debug, Clone)]
pub struct Race {
    pub(crate) kind: RaceKind,
    pub(crate) previous: Access,
    pub(crate) current: Access,
    pub(crate) type_name: &'static str,
    pub(crate) address: usize,
    /// The atomic hand-off that failed to order the two accesses, if racer saw one.
    pub(crate) atomic: Option<AtomicPair>,
    /// Where the cell was created, or first accessed.
    pub(crate) cell: Option<CellBirth>,
}

impl Race {
    pub fn kind(&self) -> RaceKind {
        self.kind
    }

    /// The access the shadow memory remembered.
    pub fn previous(&self) -> &Access {
        &self.previous
    }

    /// The access that found the race.
    pub fn current(&self) -> &Access {
        &self.current
    }

    /// The type inside the `Shared` cell, or `"raw memory"` for memory checked by
    /// `racer::annotate::read`/`write`.
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }

    /// The address of the cell's value at the current access.
    pub fn address(&self) -> usize {
        self.address
    }

    /// The load of a racer atomic by the current access's thread, and the previous access's
    /// thread's store to it, that would have ordered the two accesses with other orderings:
    /// a Relaxed store, or a Relaxed load of a Release store with no fence(Acquire) after it.
    pub fn atomic_pair(&self) -> Option<&AtomicPair> {
        self.atomic.as_ref()
    }

    /// Where the cell was created (a cell whose creation is a checked write), or else its first
    /// checked access.
    pub fn cell_birth(&self) -> Option<&CellBirth> {
        self.cell.as_ref()
    }

    /// The test (as libtest names it) the race happened in, when racer can tell: see
    /// `Access::test`.
    pub fn test(&self) -> Option<&str> {
        self.current.test().or(self.previous.test())
    }

    /// What the report says of why the two accesses are unordered, one line each, from what
    /// racer saw of both threads: a lock one side held and the other did not, a thread racer
    /// did not start, or a thread that synchronised through nothing racer sees. Each is said
    /// only when racer's view makes it true.
    pub fn hints(&self) -> Vec<String> {
        let mut hints = Vec::new();
        if let Some(pair) = &self.atomic {
            hints.push(pair.hint(&self.current.thread_label()));
        }
        let pair = [(&self.current, &self.previous), (&self.previous, &self.current)];
        for (access, other) in pair {
            let thread = capitalised(&access.thread_label());
            if let Some(hint) = access.adapter_hint(&thread) {
                hints.push(hint);
            } else if access.untracked_blocking {
                hints.push(format!(
                    "{thread} was running a closure that tokio::task::spawn_blocking started on tokio's blocking pool, \
                     not racer, so racer takes the closure for part of that pool thread and sees neither what ordered \
                     its start nor its end: import spawn_blocking from racer::tokio::task instead of tokio::task \
                     (racer::tokio::task::spawn_blocking), so the closure is checked as a thread of its own"
                ));
            } else if access.untracked_task {
                hints.push(format!(
                    "{thread} was polling a tokio task that tokio::spawn started, not racer, so racer takes the task for \
                     part of that thread and sees none of the task's own order: import spawn and tokio::sync from \
                     racer::tokio instead of tokio (racer::tokio::spawn), so each task is checked as a thread of its own"
                ));
            } else if access.rayon_job {
                hints.push(format!(
                    "{thread} is a rayon worker running a job that rayon started, not racer, so racer sees neither \
                     what ordered the job after its caller nor its end: import join, scope, spawn, ThreadPool and the \
                     prelude from racer::rayon instead of rayon (feature rayon), so each closure is checked as a task \
                     forked from its caller and joined when the call returns"
                ));
            } else if access.foreign_thread && !access.test_thread {
                hints.push(format!(
                    "{thread} was not started by racer, so racer sees neither what ordered its start nor how it \
                     synchronises outside racer's wrappers: start it with racer::thread::spawn or scope, or mark \
                     that synchronisation with racer::annotate::release and acquire"
                ));
            } else if self.atomic.is_none()
                && access.synchronised_only_at_start()
                && !other.synchronised_through_racer()
                && access.locks_held.is_empty()
                && other.locks_held.is_empty()
            {
                let tokio = if access.task { "tokio::sync, " } else { "" };
                hints.push(format!(
                    "{thread} synchronised through nothing racer sees between its start and its {}: if {tokio}std::sync, \
                     parking_lot, a channel or queue crate, std's atomics or FFI order the two accesses, racer cannot \
                     see it (use racer's wrappers for them: racer::crossbeam_channel, racer::flume, ...; any other \
                     channel can carry racer::annotate::Carry); racer's atomics with Relaxed order nothing",
                    access.kind.noun()
                ));
            }
        }
        if let Some(line) = self.locks_hint() {
            hints.push(line);
        }
        hints
    }

    /// The locks the two threads held, when that explains the race: one held a lock and the
    /// other none, or each held locks and none in common (or a common one only shared).
    fn locks_hint(&self) -> Option<String> {
        let (cur, prev) = (&self.current, &self.previous);
        if cur.locks_held.is_empty() && prev.locks_held.is_empty() {
            return self.locks_hint_from_last_sync();
        }
        let held = |a: &Access| {
            let locks: Vec<String> = a.locks_held.iter().map(HeldLock::describe).collect();
            format!("{} held {}, at its {}", a.thread_label(), locks.join(" and "), a.kind.noun())
        };
        if cur.locks_held.is_empty() || prev.locks_held.is_empty() {
            let (holder, other) = if prev.locks_held.is_empty() { (cur, prev) } else { (prev, cur) };
            let that = if holder.locks_held.len() == 1 { "that lock guards" } else { "one of those locks guards" };
            return Some(format!(
                "{}; {} held no lock at its {}: if {that} this cell, take it for the {} too",
                capitalised(&held(holder)),
                other.thread_label(),
                other.kind.noun(),
                other.kind.noun()
            ));
        }
        let common: Vec<(&HeldLock, &HeldLock)> = cur
            .locks_held
            .iter()
            .flat_map(|a| prev.locks_held.iter().filter(move |b| b.lock == a.lock).map(move |b| (a, b)))
            .collect();
        if common.is_empty() {
            return Some(format!(
                "{}; {}: {}, which order nothing between them",
                capitalised(&held(cur)),
                held(prev),
                if cur.locks_held.len() + prev.locks_held.len() == 2 {
                    "two different locks"
                } else {
                    "no lock in common"
                }
            ));
        }
        let (a, _) = common.iter().find(|(a, b)| a.mode == LockMode::Shared && b.mode == LockMode::Shared)?;
        Some(format!(
            "Both threads held {} (created at {}) only shared, which orders nothing between them: take it \
             exclusively for the write",
            a.object, a.created
        ))
    }

    /// `locks_hint` from the threads' last synchronisations, when racer kept no lock lists
    /// (`detect_deadlocks=0`): one held a lock and the other took none since its start, or each
    /// held a different lock.
    fn locks_hint_from_last_sync(&self) -> Option<String> {
        let held = |a: &Access, lock: LastSync| {
            let created = lock.created.map(|c| format!(" (created at {c})")).unwrap_or_default();
            let taken = lock.op.strip_suffix("ing").unwrap_or(lock.op);
            format!(
                "{} held {}{created}, {taken}ed at {}, at its {}",
                a.thread_label(),
                lock.object,
                lock.at,
                a.kind.noun()
            )
        };
        let (cur, prev) = (&self.current, &self.previous);
        match (cur.lock_held(), prev.lock_held()) {
            (Some(lock), None) | (None, Some(lock)) => {
                let (holder, other) = if cur.lock_held().is_some() { (cur, prev) } else { (prev, cur) };
                if !other.synchronised_only_at_start() {
                    return None;
                }
                Some(format!(
                    "{}; {} took no lock racer sees between its start and its {}: if that lock guards this cell, \
                     take it for the {} too",
                    capitalised(&held(holder, lock)),
                    other.thread_label(),
                    other.kind.noun(),
                    other.kind.noun()
                ))
            }
            (Some(a), Some(b)) => {
                let (ca, cb) = (a.created?, b.created?);
                if std::ptr::eq(ca, cb) || ca == cb {
                    return None;
                }
                Some(format!(
                    "{}; {}: two different locks, which order nothing between them",
                    capitalised(&held(cur, a)),
                    held(prev, b)
                ))
            }
            (None, None) => None,
        }
    }
}

/// The loom atomic `A` whose creation the cell of type `Shared<type_name>` stands for, in
/// racer's stand-in (`Shared<loom::sync::atomic::Creation<A>>`: a cell written at `new` and
/// read by every operation on the atomic).
fn creation_of(type_name: &str) -> Option<&str> {
    type_name.strip_prefix("loom::sync::atomic::Creation<")?.strip_suffix('>')
}

/// What a report calls a cell of type `Shared<type_name>`: that, or "the creation of A" for a
/// loom atomic's creation (see [`creation_of`]).
fn cell_name(type_name: &str) -> String {
    match creation_of(type_name) {
        Some(atomic) => format!("the creation of {atomic}"),
        None => format!("Shared<{type_name}>"),
    }
}

impl fmt::Display for Race {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "==================")?;
        // Raw memory checked by `annotate::read`/`write` has no type to name.
        if self.type_name == "raw memory" {
            writeln!(f, "WARNING: racer: data race ({}) on raw memory at {:#x}", self.kind.explained(), self.address)?;
        } else {
            writeln!(
                f,
                "WARNING: racer: data race ({}) on {} at {:#x}",
                self.kind.explained(),
                cell_name(self.type_name),
                self.address
            )?;
        }
        if let Some(test) = self.test() {
            writeln!(f, "  In test `{test}`")?;
        }
        for (access, prefix) in [(&self.current, ""), (&self.previous, "Previous ")] {
            let noun = access.kind.noun();
            let head = if prefix.is_empty() { capitalised(noun) } else { format!("{prefix}{noun}") };
            writeln!(f, "  {head} by {} at {}:", access.thread_label(), access.site())?;
            write_frames(f, &access.frames)?;
            match &access.after_sync {
                Some(sync) => writeln!(f, "    (the {}'s last synchronisation before it: {sync})", access.actor())?,
                None => writeln!(f, "    (no synchronisation by the {} before it)", access.actor())?,
            }
            if !access.locks_held.is_empty() {
                let locks: Vec<String> = access.locks_held.iter().map(HeldLock::describe).collect();
                writeln!(f, "    (holding {})", locks.join("; "))?;
            }
        }
        if let Some(birth) = &self.cell {
            let how = if birth.created { "created" } else { "first accessed" };
            // A loom atomic's creation cell is the atomic, as far as the reader knows.
            let name = creation_of(self.type_name).map_or_else(|| cell_name(self.type_name), str::to_owned);
            let head = format!("  {name} {how} by {} at {}", birth.thread_label(), birth.location);
            // At the site of one of the two accesses, by its thread: its stack is shown above.
            let shown = [(&self.current, ""), (&self.previous, "previous ")]
                .into_iter()
                .find(|(a, _)| a.thread_id == birth.thread_id && a.location == birth.location);
            match shown {
                Some((a, prefix)) if !birth.created => writeln!(f, "{head} (the {prefix}{}'s site)", a.kind.noun())?,
                _ => {
                    writeln!(f, "{head}:")?;
                    write_frames(f, &birth.frames)?;
                }
            }
        }
        let mut seen = Vec::new();
        for access in [&self.current, &self.previous] {
            if seen.contains(&access.thread_id) {
                continue;
            }
            seen.push(access.thread_id);
            if let Some(frames) = &access.spawned_at {
                match &access.spawned_by {
                    Some(by) if access.task => {
                        writeln!(f, "  {} spawned by {by} at:", capitalised(&access.thread_label()))?
                    }
                    _ => writeln!(f, "  {} spawned at:", capitalised(&access.thread_label()))?,
                }
                write_frames(f, frames)?;
            }
        }
        for hint in self.hints() {
            writeln!(f, "  {hint}")?;
        }
        writeln!(f, "==================")
    }
}

pub(crate) fn race_json(race: &Race, out: &mut String) {
    out.push_str(&format!(
        "{{\"kind\":\"{}\",\"type\":{},\"address\":\"{:#x}\",\"test\":{},\"current\":",
        race.kind.name(),
        json_string(race.type_name),
        race.address,
        race.test().map(json_string).unwrap_or_else(|| "null".into()),
    ));
    access_json(&race.current, out);
    out.push_str(",\"previous\":");
    access_json(&race.previous, out);
    out.push_str(",\"atomic\":");
    match &race.atomic {
        Some(pair) => pair.json(out),
        None => out.push_str("null"),
    }
    out.push_str(",\"cell\":");
    match &race.cell {
        Some(b) => {
            out.push_str(&format!(
                "{{\"created\":{},\"thread\":{{\"name\":{},\"id\":{}}},\"site\":{},\"frames\":",
                b.created,
                b.thread_name.as_deref().map(json_string).unwrap_or_else(|| "null".into()),
                b.thread_id,
                site_json(b.location)
            ));
            frames_json(&b.frames, out);
            out.push('}');
        }
        None => out.push_str("null"),
    }
    out.push_str(",\"hints\":[");
    for (i, hint) in race.hints().iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&json_string(hint));
    }
    out.push_str("]}");
}

fn access_json(a: &Access, out: &mut String) {
    out.push_str(&format!(
        "{{\"access\":\"{}\",\"thread\":{{\"name\":{},\"id\":{}}},\"site\":{{\"file\":{},\"line\":{},\"column\":{}}},\"after_sync\":{},\"frames\":",
        a.kind.noun(),
        a.thread_name.as_deref().map(json_string).unwrap_or_else(|| "null".into()),
        a.thread_id,
        json_string(a.location.file()),
        a.location.line(),
        a.location.column(),
        a.after_sync.as_deref().map(json_string).unwrap_or_else(|| "null".into()),
    ));
    frames_json(&a.frames, out);
    out.push_str(",\"spawned_at\":");
    match &a.spawned_at {
        Some(frames) => frames_json(frames, out),
        None => out.push_str("null"),
    }
    out.push_str(&format!(
        ",\"foreign_thread\":{},\"test_thread\":{},\"task\":{},\"untracked_task\":{},\"untracked_blocking\":{}",
        a.foreign_thread, a.test_thread, a.task, a.untracked_task, a.untracked_blocking
    ));
    out.push_str(",\"locks_held\":[");
    for (i, lock) in a.locks_held.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        lock.json(out);
    }
    out.push_str("]}");
}

/// The crate a frame's function belongs to, when racer has a swap for it: what the report calls
/// the crate, and the swap.
fn adapter_for(function: &str) -> Option<(&'static str, &'static str)> {
    const ADAPTERS: &[(&[&str], &str, &str)] = &[
        (
            &["crossbeam_utils::thread::"],
            "crossbeam_utils::thread::scope",
            "use racer::thread::scope (std's scoped threads, its successor) instead",
        ),
        (&["crossbeam_channel::"], "crossbeam_channel", "import it from racer::crossbeam_channel"),
        (&["crossbeam_queue::"], "crossbeam_queue", "import it from racer::crossbeam_queue"),
        (&["flume::"], "flume", "import it from racer::flume"),
        (&["async_channel::"], "async_channel", "import it from racer::async_channel"),
        (&["dashmap::"], "dashmap", "import it from racer::dashmap"),
        (&["once_cell::"], "once_cell", "import it from racer::once_cell"),
        (
            &["futures_executor::", "futures_channel::", "futures_util::lock::"],
            "futures",
            "import it from racer::futures",
        ),
    ];
    // A generic of the user's instantiated in a crate's function names the crate first.
    let path = function.trim_start_matches(['<', '&']);
    ADAPTERS
        .iter()
        .find(|(prefixes, ..)| prefixes.iter().any(|p| path.starts_with(p)))
        .map(|(_, used, swap)| (*used, *swap))
}

#[cfg(test)]
mod adapter_hint_tests {
    use super::adapter_for;

    #[test]
    fn frames_of_a_crate_with_an_adapter_name_the_swap() {
        let generic = adapter_for("<crossbeam_channel::channel::Receiver<T> as core::iter::Iterator>::next");
        assert_eq!(generic.unwrap().0, "crossbeam_channel");
        assert_eq!(
            adapter_for("crossbeam_utils::thread::scope::{{closure}}").unwrap().0,
            "crossbeam_utils::thread::scope"
        );
        assert_eq!(adapter_for("flume::Receiver<T>::recv").unwrap().1, "import it from racer::flume");
    }

    #[test]
    fn other_frames_name_none() {
        for function in [
            // rayon's jobs have a hint of their own (`Access::rayon_job`).
            "rayon_core::join::join_context",
            "my_crate::flume_like::run",
            "std::thread::scope",
            "racer::flume::unbounded",
            "core::ops::function::FnOnce::call_once",
        ] {
            assert_eq!(adapter_for(function), None, "{function}");
        }
    }
}
