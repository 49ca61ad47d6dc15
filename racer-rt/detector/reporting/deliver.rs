//! Where a race or deadlock that was found goes: unless suppressed, into the scope of the
//! `racer::check` the finding thread runs under, or, outside any check (or after it returned),
//! to `output`. Each distinct pair of access sites is reported once per destination.
//!
//! Called with none of the detector's locks held and no thread state borrowed.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::LazyLock as Lazy;

use crate::base::lock::Mutex;
use crate::provenance::access::{AccessInfo, Record};
use crate::provenance::{atomic_log, held_locks, stack};
use crate::report::{
    hide_generated, runs_test, test_of, Access, AccessKind, CellBirth, Deadlock, LastSync, Race, RaceKind,
};
use crate::reporting::output;
use crate::runtime::check_scope::{site_pair, CheckScope, SitePair};

/// The site pairs reported outside any check.
static REPORTED_OUTSIDE: Lazy<Mutex<HashSet<SitePair>>> = Lazy::new(Default::default);

/// Called for each deadlock found. `ends`: it can never resolve, so the check it belongs to is
/// ended (its scope marked deadlocked), or outside a check the process (after the report).
/// Returns whether it was reported (not suppressed).
pub fn deadlock_found(d: Deadlock, scope: Option<&Arc<CheckScope>>, ends: bool) -> bool {
    if crate::config::options::get().suppressions.suppresses_deadlock(&d) {
        return false;
    }
    match scope.filter(|s| !s.is_closed()) {
        Some(s) => s.push_deadlock(d, ends),
        None => {
            output::emit_deadlock(&d);
            if ends {
                crate::reporting::exit::end_hung_process();
            }
        }
    }
    true
}

/// A check whose threads are all blocked where none can be unwound, after its deadlock was
/// reported: it can never return, so its report goes to standard error and the process ends.
pub fn end_hung_check(scope: Option<&Arc<CheckScope>>) {
    if let Some(s) = scope {
        let report = s.take();
        for race in report.races() {
            output::emit(race);
        }
        for d in report.deadlocks() {
            output::emit_deadlock(d);
        }
    }
    crate::reporting::exit::end_hung_process();
}

/// Called by the shadow memory for each race it finds, with none of its locks held and the
/// thread state no longer borrowed; `scope` is the racing thread's.
pub fn race_found(
    scope: Option<&Arc<CheckScope>>,
    kind: RaceKind,
    prev: &Record,
    cur: &Record,
    type_name: &'static str,
    address: usize,
) {
    race_found_in_cell(scope, kind, prev, cur, type_name, address, None);
}

/// `race_found` for a `Shared` cell whose first access (`birth`: its creation, if that was
/// checked) racer kept. Called on the thread of the current access `cur`.
pub fn race_found_in_cell(
    scope: Option<&Arc<CheckScope>>,
    kind: RaceKind,
    prev: &Record,
    cur: &Record,
    type_name: &'static str,
    address: usize,
    birth: Option<&AccessInfo>,
) {
    // Marked benign by `annotate::benign`: found, never reported.
    if crate::reporting::benign::covers(address) {
        return;
    }
    // Before the dedup below: a suppressed race must not hide an unsuppressed one at the same
    // two sites (suppressions match stacks, dedup only sites).
    if crate::config::options::get().suppressions.suppresses(prev, cur) {
        return;
    }
    let pair = site_pair(prev.info.site(), cur.info.site());
    let scope = scope.filter(|s| !s.is_closed());
    let fresh = match scope {
        Some(s) => s.first_report_of(pair),
        None => REPORTED_OUTSIDE.lock().insert(pair),
    };
    if !fresh {
        return;
    }
    let (prev_kind, cur_kind) = match kind {
        RaceKind::Flow => (AccessKind::Write, AccessKind::Read),
        RaceKind::Anti => (AccessKind::Read, AccessKind::Write),
        RaceKind::Output => (AccessKind::Write, AccessKind::Write),
    };
    let resolving = crate::base::active_count::OWN_WORK.enter();
    let (previous, current) = (access(prev_kind, prev), access(cur_kind, cur));
    let atomic = relaxed_pair(prev, &previous);
    let cell = birth.map(cell_birth);
    let race = Race { kind, previous, current, type_name, address, atomic, cell };
    drop(resolving);
    match scope {
        Some(s) => s.push_race(race),
        None => output::emit(&race),
    }
}

/// The Relaxed hand-off between the two threads, if any: a load of the calling thread (the
/// current access's) of an atomic whose last store by the previous access's thread made no
/// happens-before edge with it.
fn relaxed_pair(prev: &Record, previous: &Access) -> Option<crate::report::AtomicPair> {
    let loads = atomic_log::recent_loads();
    if loads.is_empty() {
        return None;
    }
    let stores = prev.info.thread.stores();
    atomic_log::pair(&loads, &stores, previous.thread_label())
}

fn cell_birth(first: &AccessInfo) -> CellBirth {
    let thread = first.thread.info();
    let mut frames = stack::resolve(first.stack);
    stack::cut_at_untracked_task(&mut frames);
    hide_generated(&mut frames);
    CellBirth {
        created: stack::is_creation(first.stack),
        location: first.site(),
        thread_name: thread.name.clone(),
        thread_id: thread.serial,
        task: thread.task,
        frames,
    }
}

fn access(kind: AccessKind, r: &Record) -> Access {
    let thread = r.info.thread.info();
    let mut frames = stack::resolve(r.info.stack);
    // Before the harness's frames are left out: they tell its threads.
    let test_thread = thread.foreign && thread.name.as_deref().is_some_and(|name| runs_test(name, &frames));
    let untracked = if thread.task { None } else { stack::cut_at_untracked_task(&mut frames) };
    let untracked_task = untracked.is_some();
    let rayon_job = thread.foreign && !untracked_task && !test_thread && stack::runs_rayon_job(&frames);
    hide_generated(&mut frames);
    let mut test = test_thread.then(|| thread.name.clone()).flatten();
    let spawned_at = thread.spawned_at.map(|id| {
        let mut frames = stack::resolve(id);
        // Spawned by the harness's thread of a test.
        test = test.take().or_else(|| test_of(&frames).map(str::to_owned));
        stack::cut_at_untracked_task(&mut frames);
        hide_generated(&mut frames);
        frames
    });
    let last_sync = r.info.after_sync();
    Access {
        kind,
        location: r.info.site(),
        thread_name: thread.name.clone(),
        thread_id: thread.serial,
        frames,
        after_sync: last_sync.map(|e| e.describe()),
        last_sync: last_sync.map(|e| e.event()).map(|e| LastSync {
            op: e.op,
            object: e.object,
            created: e.created,
            at: e.at,
        }),
        spawned_at,
        foreign_thread: thread.foreign && !untracked_task,
        task: thread.task,
        spawned_by: thread.spawned_by.clone(),
        untracked_task,
        untracked_blocking: untracked == Some(stack::Untracked::Blocking),
        rayon_job,
        test_thread,
        test,
        locks_held: held_locks::get(stack::held_locks(r.info.stack)),
    }
}
