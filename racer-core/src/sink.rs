//! Where race reports go: into the `Report` of the `racer::check` the racing thread runs under,
//! or, outside any check, to standard error as they are found. Each distinct pair of access
//! sites is reported once per destination.

use std::collections::HashSet;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe, Location};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use std::sync::LazyLock as Lazy;
use crate::lock::Mutex;

use crate::report::{Access, AccessKind, Race, RaceKind, Report};
use crate::shadow::Record;
use crate::stack;
use crate::thread_state::{with_current, ThreadState};

type SitePair = (&'static str, u32, u32, &'static str, u32, u32);

/// The destination of one `racer::check`, inherited by every thread spawned under it.
#[derive(Default)]
pub struct Sink {
    races: Mutex<Vec<Race>>,
    seen: Mutex<HashSet<SitePair>>,
    /// Set when `check` returned: a late report from a thread that outlived it goes to
    /// standard error instead of being lost.
    closed: AtomicBool,
}

static STDERR_SEEN: Lazy<Mutex<HashSet<SitePair>>> = Lazy::new(Default::default);
/// Races reported outside any `check` so far (their reports written whole).
pub fn races_outside_check() -> usize {
    crate::output::reports_written()
}

/// Runs `f` on the calling thread, collecting every race found meanwhile in this thread and the
/// threads it spawns (transitively) into the returned report.
pub fn check<F: FnOnce()>(f: F) -> Report {
    let sink = Arc::new(Sink::default());
    let outer = with_current(|t| t.sink.replace(sink.clone())).flatten();
    let result = catch_unwind(AssertUnwindSafe(f));
    with_current(|t| t.sink = outer);
    sink.closed.store(true, Ordering::Release);
    let races = std::mem::take(&mut *sink.races.lock());
    match result {
        Ok(()) => Report { races },
        Err(panic) => resume_unwind(panic),
    }
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
    if crate::options::get().suppressions.suppresses(prev, cur) {
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
        None => crate::output::emit(&race),
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
