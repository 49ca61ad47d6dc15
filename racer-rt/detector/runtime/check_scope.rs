//! The scope of one `racer::check`: where the races and deadlocks found in its threads collect,
//! which site pairs it has reported, whether it was closed or ended by a deadlock, and the
//! groups of threads (one per check, and one of the threads outside any) that deadlock
//! detection counts.
//!
//! A thread's state names the scope it reports to (`ThreadState::scope`), and a spawned thread
//! inherits its spawner's. What goes into a scope, and when, is `reporting`'s business: this
//! file only holds it.

use std::collections::{HashMap, HashSet};
use std::panic::Location;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use crate::base::lock::Mutex;
use crate::report::{Deadlock, Race, Report};

/// Two access sites, as (file, line, column) twice, the smaller first.
pub type SitePair = (&'static str, u32, u32, &'static str, u32, u32);

/// Unordered, so the same two lines racing in either order count as one pair.
pub fn site_pair(a: &'static Location<'static>, b: &'static Location<'static>) -> SitePair {
    let (a, b) = if (a.file(), a.line(), a.column()) <= (b.file(), b.line(), b.column()) { (a, b) } else { (b, a) };
    (a.file(), a.line(), a.column(), b.file(), b.line(), b.column())
}

/// The destination of one `racer::check`, inherited by every thread spawned under it.
///
/// Invariant: `reported` holds the site pair of every race in `races` (and of races found while
/// it was open that `races` no longer holds because the check returned).
pub struct CheckScope {
    /// Names the check's group of threads for deadlock detection; never reused.
    id: u64,
    races: Mutex<Vec<Race>>,
    deadlocks: Mutex<Vec<Deadlock>>,
    /// The site pairs reported into this scope (each is reported once per destination).
    reported: Mutex<HashSet<SitePair>>,
    /// Set when `check` returned: a late report from a thread that outlived it goes to
    /// standard error instead of being lost.
    closed: AtomicBool,
    /// Set when a deadlock that can never resolve was reported into it: its threads waiting in
    /// interruptible waits unwind, and `check` returns the report instead of their panics.
    deadlocked: AtomicBool,
}

static NEXT_SCOPE: AtomicU64 = AtomicU64::new(1);

impl CheckScope {
    pub fn new() -> CheckScope {
        CheckScope {
            id: NEXT_SCOPE.fetch_add(1, Ordering::Relaxed),
            races: Mutex::new(Vec::new()),
            deadlocks: Mutex::new(Vec::new()),
            reported: Mutex::new(HashSet::new()),
            closed: AtomicBool::new(false),
            deadlocked: AtomicBool::new(false),
        }
    }

    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    pub fn is_deadlocked(&self) -> bool {
        self.deadlocked.load(Ordering::Acquire)
    }

    /// Whether `pair` is reported here for the first time (and from now on, not).
    pub fn first_report_of(&self, pair: SitePair) -> bool {
        self.reported.lock().insert(pair)
    }

    pub fn push_race(&self, race: Race) {
        self.races.lock().push(race);
    }

    /// Adds a deadlock; `ends`: it can never resolve, so the check is ended.
    pub fn push_deadlock(&self, d: Deadlock, ends: bool) {
        self.deadlocks.lock().push(d);
        if ends {
            self.deadlocked.store(true, Ordering::Release);
        }
    }

    /// Everything reported so far, taken out.
    pub fn take(&self) -> Report {
        let races = std::mem::take(&mut *self.races.lock());
        let deadlocks = std::mem::take(&mut *self.deadlocks.lock());
        Report { races, deadlocks }
    }

    /// `check` returned: later reports go to standard error.
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
    }
}

// ---------------------------------------------------------------------------------------------
// Groups: the threads of one check, or those outside any check (for deadlock detection).

/// Whether groups are kept (deadlock detection is on).
fn groups_kept() -> bool {
    crate::config::options::get().options.detect_deadlocks
}

/// Invariant: `live` counts the threads whose detector state names this group's scope (0: no
/// scope), counting a spawned thread from its spawn; `changes` grows whenever a thread joins or
/// leaves the group.
pub struct Group {
    pub live: usize,
    pub changes: u64,
    pub scope: Option<Arc<CheckScope>>,
    pub deadlocked: bool,
}

pub static GROUPS: std::sync::LazyLock<Mutex<HashMap<u64, Group>>> = std::sync::LazyLock::new(Default::default);

/// The group of the threads reporting to `scope`: 0 for those outside any check.
pub fn group_of(scope: &Option<Arc<CheckScope>>) -> u64 {
    scope.as_ref().map_or(0, |s| s.id())
}

/// A thread joins the group of `scope` (spawned under it, registered, or entering a check).
pub fn join_group(scope: &Option<Arc<CheckScope>>) {
    if !groups_kept() {
        return;
    }
    let mut groups = GROUPS.lock();
    let g = groups.entry(group_of(scope)).or_insert_with(|| Group {
        live: 0,
        changes: 0,
        scope: scope.clone(),
        deadlocked: false,
    });
    g.live += 1;
    g.changes += 1;
}

/// A thread leaves the group of `scope` (it ended, or left a check).
pub fn leave_group(scope: &Option<Arc<CheckScope>>) {
    if !groups_kept() {
        return;
    }
    let key = group_of(scope);
    let mut groups = GROUPS.lock();
    if let Some(g) = groups.get_mut(&key) {
        g.live = g.live.saturating_sub(1);
        g.changes += 1;
        if g.live == 0 {
            groups.remove(&key);
        }
    }
}
