//! Where race reports go: into the `Report` of the `racer::check` the racing thread runs under,
//! or, outside any check, to standard error as they are found. Each distinct pair of access
//! sites is reported once per destination.

use std::collections::HashSet;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe, Location};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use std::sync::LazyLock as Lazy;
use crate::base::lock::Mutex;

use crate::report::Deadlock;
use crate::report::{Access, AccessKind, Race, RaceKind, Report};
use crate::provenance::access::Record;
use crate::provenance::stack;
use crate::runtime::thread_state::{with_current, ThreadState};

type SitePair = (&'static str, u32, u32, &'static str, u32, u32);

/// The destination of one `racer::check`, inherited by every thread spawned under it.
pub struct Sink {
    /// Names the check's group of threads for deadlock detection; never reused.
    id: u64,
    races: Mutex<Vec<Race>>,
    deadlocks: Mutex<Vec<Deadlock>>,
    seen: Mutex<HashSet<SitePair>>,
    /// Set when `check` returned: a late report from a thread that outlived it goes to
    /// standard error instead of being lost.
    closed: AtomicBool,
    /// Set when a deadlock that can never resolve was reported into it: its threads waiting in
    /// interruptible waits unwind, and `check` returns the report instead of their panics.
    deadlocked: AtomicBool,
}

static NEXT_SINK: AtomicU64 = AtomicU64::new(1);

impl Sink {
    fn new() -> Sink {
        Sink {
            id: NEXT_SINK.fetch_add(1, Ordering::Relaxed),
            races: Mutex::new(Vec::new()),
            deadlocks: Mutex::new(Vec::new()),
            seen: Mutex::new(HashSet::new()),
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
}

static STDERR_SEEN: Lazy<Mutex<HashSet<SitePair>>> = Lazy::new(Default::default);

/// Races reported outside any `check` so far (their reports written whole).
pub fn races_outside_check() -> usize {
    crate::reporting::output::races_written()
}

/// Deadlocks reported outside any `check` so far.
pub fn deadlocks_outside_check() -> usize {
    crate::reporting::output::deadlocks_written()
}

/// Runs `f` on the calling thread, collecting every race and deadlock found meanwhile in this
/// thread and the threads it spawns (transitively) into the returned report. When a deadlock
/// that cannot resolve ends the check, the panics it unwinds the check's threads with are not
/// resumed: the report is returned.
pub fn check<F: FnOnce()>(f: F) -> Report {
    let sink = Arc::new(Sink::new());
    let outer = with_current(|t| {
        crate::deadlock::leave_group(&t.sink);
        let outer = t.sink.replace(sink.clone());
        crate::deadlock::join_group(&t.sink);
        outer
    })
    .flatten();
    let result = catch_unwind(AssertUnwindSafe(f));
    with_current(|t| {
        crate::deadlock::leave_group(&t.sink);
        t.sink = outer;
        crate::deadlock::join_group(&t.sink);
    });
    sink.closed.store(true, Ordering::Release);
    let races = std::mem::take(&mut *sink.races.lock());
    let deadlocks = std::mem::take(&mut *sink.deadlocks.lock());
    match result {
        Ok(()) => Report { races, deadlocks },
        Err(_) if sink.is_deadlocked() => Report { races, deadlocks },
        Err(panic) => resume_unwind(panic),
    }
}

/// Called for each deadlock found. `ends`: it can never resolve, so the check it belongs to is
/// ended (its sink marked deadlocked), or outside a check the process (after the report).
/// Returns whether it was reported (not suppressed).
pub fn deadlock_found(d: Deadlock, sink: Option<&Arc<Sink>>, ends: bool) -> bool {
    if crate::config::options::get().suppressions.suppresses_deadlock(&d) {
        return false;
    }
    match sink.filter(|s| !s.is_closed()) {
        Some(s) => {
            s.deadlocks.lock().push(d);
            if ends {
                s.deadlocked.store(true, Ordering::Release);
            }
        }
        None => {
            crate::reporting::output::emit_deadlock(&d);
            if ends {
                crate::process::exit::end_hung_process();
            }
        }
    }
    true
}

/// A check whose threads are all blocked where none can be unwound, after its deadlock was
/// reported: it can never return, so its report goes to standard error and the process ends.
pub fn end_hung_check(sink: Option<&Arc<Sink>>) {
    if let Some(s) = sink {
        let races = std::mem::take(&mut *s.races.lock());
        let deadlocks = std::mem::take(&mut *s.deadlocks.lock());
        for race in &races {
            crate::reporting::output::emit(race);
        }
        for d in &deadlocks {
            crate::reporting::output::emit_deadlock(d);
        }
    }
    crate::process::exit::end_hung_process();
}

/// Unordered, so the same two lines racing in either order count as one pair.
fn site_pair(a: &Location<'static>, b: &Location<'static>) -> SitePair {
    let (a, b) = if (a.file(), a.line(), a.column()) <= (b.file(), b.line(), b.column()) { (a, b) } else { (b, a) };
    (a.file(), a.line(), a.column(), b.file(), b.line(), b.column())
}

/// Called by the shadow memory, without any of its locks held, for each race it finds.
pub fn race_found(t: &ThreadState, kind: RaceKind, prev: &Record, cur: &Record, type_name: &'static str, address: usize) {
    // Before the dedup below: a suppressed race must not hide an unsuppressed one at the same
    // two sites (suppressions match stacks, dedup only sites).
    if crate::config::options::get().suppressions.suppresses(prev, cur) {
        return;
    }
    let pair = site_pair(prev.info.site(), cur.info.site());
    let sink = t.sink.as_ref().filter(|s| !s.closed.load(Ordering::Acquire));
    let fresh = match sink {
        Some(s) => s.seen.lock().insert(pair),
        None => STDERR_SEEN.lock().insert(pair),
    };
    if !fresh {
        return;
    }
    let (prev_kind, cur_kind) = match kind {
        RaceKind::Flow => (AccessKind::Write, AccessKind::Read),
        RaceKind::Anti => (AccessKind::Read, AccessKind::Write),
        RaceKind::Output => (AccessKind::Write, AccessKind::Write),
    };
    let race = Race { kind, previous: access(prev_kind, prev), current: access(cur_kind, cur), type_name, address };
    match sink {
        Some(s) => s.races.lock().push(race),
        None => crate::reporting::output::emit(&race),
    }
}

fn access(kind: AccessKind, r: &Record) -> Access {
    let thread = r.info.thread.info();
    Access {
        kind,
        location: r.info.site(),
        thread_name: thread.name.clone(),
        thread_id: thread.serial,
        frames: stack::resolve(r.info.stack),
        after_sync: r.info.after_sync().map(|e| e.describe()),
        spawned_at: thread.spawned_at.map(stack::resolve),
        foreign_thread: thread.foreign,
    }
}
