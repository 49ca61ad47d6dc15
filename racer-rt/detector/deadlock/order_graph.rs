//! The lock-order graph: which lock was taken while holding which, by any thread, and the
//! lock-order inversions (potential deadlocks) its cycles show.
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

use std::cell::RefCell;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use crate::base::lock::Mutex;
use crate::provenance::stack::{self, StackId};
use crate::provenance::thread_ref::ThreadInfo;
use crate::report::{Deadlock, DeadlockKind, LockEdge, LockMode};
use crate::runtime::thread_state::with_current;

use super::lock::{conflict, Acq, LockMeta, IN_GRAPH};
use super::lock_use::{held_frames, lock_use};

/// An edge as a thread remembers having added it: held id, next id, held mode, next mode.
type EdgeKey = (u64, u64, LockMode, LockMode);

thread_local! {
    /// The edges (held id, next id, held mode, next mode) this thread has added to `GRAPH`.
    static EDGES_ADDED: RefCell<Option<HashSet<EdgeKey>>> = const { RefCell::new(None) };
}

/// Adds the edges from `prior` (the locks held) to `acq` that this thread has not added yet,
/// and reports each cycle they close.
#[inline(never)]
pub(super) fn record_edges(prior: &[Acq], acq: &Acq) {
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

/// A dropped lock leaves the graph (`LockMeta` is in `lock.rs`; its drop is here, beside `GRAPH`).
impl Drop for LockMeta {
    fn drop(&mut self) {
        let v = *self.id.get_mut();
        if v & IN_GRAPH != 0 {
            GRAPH.lock().forget(v & !IN_GRAPH);
        }
    }
}

fn inversion_report(cycle: &[Arc<EdgeInfo>]) -> Deadlock {
    let edges = cycle
        .iter()
        .map(|e| {
            let next_frames = stack::resolve_shown(e.stack);
            let held = lock_use(&e.held, held_frames(e.held.site, &next_frames));
            LockEdge {
                thread_name: e.thread.name.clone(),
                thread_id: e.thread.serial,
                held,
                next: lock_use(&e.next, next_frames),
            }
        })
        .collect();
    Deadlock { kind: DeadlockKind::LockOrderInversion, edges, threads: Vec::new(), scope: "" }
}
