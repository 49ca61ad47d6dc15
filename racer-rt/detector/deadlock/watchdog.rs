//! The watchdog: a thread, started at the first published wait, that reads every wait slot each
//! `TICK` and reports what the waits seen unchanged for `QUIET` show: a cycle of threads waiting
//! for each other's locks, or a group (`runtime::check_scope`'s `GROUPS`) all of whose live
//! threads are blocked.
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

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Once, Weak};
use std::time::{Duration, Instant};

use crate::provenance::stack;
use crate::provenance::thread_ref::ThreadInfo;
use crate::report::{BlockedThread, Deadlock, DeadlockKind, LockMode};
use crate::runtime::check_scope::{CheckScope, GROUPS};

use super::lock::conflict;
use super::lock_use::{held_frames, lock_use};
use super::wait_slot::{Published, Wait, WaitSlot, SLOTS};

/// How often interruptible waits look whether their check was ended, and how often the watchdog
/// reads the slots.
pub const TICK: Duration = Duration::from_millis(50);

pub(super) static WATCHDOG: Once = Once::new();

/// How long a wait (and a group's membership) must be seen unchanged before the watchdog
/// concludes from it: long enough that a thread just woken (notified, handed the lock or a
/// message) has run and withdrawn its wait even on a loaded machine.
const QUIET: Duration = Duration::from_millis(250);

/// Reads every slot each `TICK`; a deadlock is what the waits seen unchanged for `QUIET` show.
pub(super) fn watchdog() {
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
            let frames = stack::resolve_shown(p.stack);
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
