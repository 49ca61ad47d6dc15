//! Storage statistics of the detector: what the shadow memory holds now and held at most, per
//! detection algorithm, so that the paper's storage claims (Algorithm 3: 2 segments per cell,
//! Algorithm 4: 1 + p, Algorithm 5: 2t) can be measured on real programs.
//!
//! The per-algorithm counters change on the shadow memory's slow path only (a cell first
//! tracked, an access that went through a cell's state, a cell freed); the fast path never
//! touches them. Each thread adds its changes in batches; a snapshot first drains every
//! thread's pending changes, so it counts every change made before it. Only the peak is
//! sampled: it is the most seen when a batch was added.

use std::sync::Arc;

use parking_lot::Mutex;
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};

use crate::algorithm::ALGORITHMS;
use crate::algorithm::AnyPolicy;
use crate::shadow::{AccessInfo, CellMeta};

type CellState = AnyPolicy<AccessInfo>;

/// A snapshot of the detector's storage.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Cells with shadow state.
    pub cells: usize,
    /// Distinct stacks interned in the stack depot (a stack counts once per access site and
    /// last sync event it was captured with).
    pub stacks: usize,
    /// Threads holding a slot now, and slots ever made (the widest a vector clock can be).
    pub live_threads: usize,
    pub slots: usize,
    /// The shadow memory of the cells run by Algorithms 3, 4 and 5, in that order.
    pub algorithms: [AlgorithmStats; 3],
}

impl Stats {
    /// The statistics of one algorithm (3, 4 or 5).
    ///
    /// # Panics
    /// On any other number.
    pub fn algorithm(&self, algorithm: u8) -> &AlgorithmStats {
        let i = index(algorithm).unwrap_or_else(|| panic!("racer: there is no algorithm {algorithm}; use 3, 4 or 5"));
        &self.algorithms[i]
    }
}

/// The shadow memory of the cells run by one detection algorithm.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AlgorithmStats {
    /// 3, 4 or 5.
    pub algorithm: u8,
    /// Cells with shadow state under this algorithm now.
    pub cells: usize,
    /// Segments (remembered accesses) stored over all these cells now, and the most ever (as
    /// seen each time a thread's batch of changes was added).
    pub segments: usize,
    pub peak_segments: usize,
    /// The most segments one cell has ever held.
    pub max_segments_on_cell: usize,
    /// Bytes of shadow memory now: the shadow part of each cell (`CellMeta`, 64 bytes) plus
    /// what its state holds on the heap.
    pub shadow_bytes: usize,
}

/// Counters behind [`AlgorithmStats`].
///
/// Invariant: `cells`, `segments` and `bytes` are the sums over the cells of this algorithm,
/// less the changes still held in threads' [`PendingChanges`]; `peak_segments` is the most
/// `segments` ever held after a batch of changes was added. Each counter has its cache line.
struct Counters {
    cells: Padded<AtomicIsize>,
    segments: Padded<AtomicIsize>,
    peak_segments: Padded<AtomicUsize>,
    max_on_cell: Padded<AtomicUsize>,
    bytes: Padded<AtomicIsize>,
}

#[repr(align(64))]
struct Padded<T>(T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl Counters {
    const fn new() -> Counters {
        Counters {
            cells: Padded(AtomicIsize::new(0)),
            segments: Padded(AtomicIsize::new(0)),
            peak_segments: Padded(AtomicUsize::new(0)),
            max_on_cell: Padded(AtomicUsize::new(0)),
            bytes: Padded(AtomicIsize::new(0)),
        }
    }
}

/// `fetch_max` that reads first: most updates are not a new maximum and then write nothing.
fn raise(counter: &AtomicUsize, value: usize) {
    if value > counter.load(Ordering::Relaxed) {
        counter.fetch_max(value, Ordering::Relaxed);
    }
}

static COUNTERS: [Counters; 3] = [Counters::new(), Counters::new(), Counters::new()];

fn index(algorithm: u8) -> Option<usize> {
    ALGORITHMS.iter().position(|&a| a == algorithm)
}

fn counter_index(state: &CellState) -> usize {
    index(state.algorithm()).expect("a cell state runs algorithm 3, 4 or 5")
}

/// One change to the counters of one algorithm.
#[derive(Debug, Clone, Copy, Default)]
struct Change {
    cells: isize,
    segments: isize,
    bytes: isize,
}

impl Change {
    fn add_to(self, c: &Counters) {
        if self.cells != 0 {
            c.cells.fetch_add(self.cells, Ordering::Relaxed);
        }
        if self.segments != 0 {
            let now = c.segments.fetch_add(self.segments, Ordering::Relaxed) + self.segments;
            raise(&c.peak_segments, now.max(0) as usize);
        }
        if self.bytes != 0 {
            c.bytes.fetch_add(self.bytes, Ordering::Relaxed);
        }
    }
}

/// Changes made by one thread and not yet added to the global counters: the slow path of every
/// thread would otherwise update the same counters, moving their cache lines between cores on
/// each access. Added every `BATCH` changes, when the thread ends, and by every [`stats`] call,
/// which drains the pending changes of every thread (see `REGISTRY`), so a snapshot counts
/// every change made before it.
#[derive(Default)]
struct PendingChanges {
    changes: [Change; 3],
    count: usize,
}

/// The pending changes of every thread that has made any. A thread locks its own on each
/// change (uncontended but for a `stats` call) and never takes the registry's lock meanwhile.
static REGISTRY: Mutex<Vec<Arc<Mutex<PendingChanges>>>> = parking_lot::const_mutex(Vec::new());

/// A thread's entry in `REGISTRY`, added when it first records a change and removed (after its
/// changes are added) when it ends.
struct Registered(Arc<Mutex<PendingChanges>>);

impl Registered {
    fn new() -> Registered {
        let pending = Arc::new(Mutex::new(PendingChanges::default()));
        REGISTRY.lock().push(pending.clone());
        Registered(pending)
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.0.lock().add_all();
        REGISTRY.lock().retain(|p| !Arc::ptr_eq(p, &self.0));
    }
}

const BATCH: usize = 256;

impl PendingChanges {
    fn add_all(&mut self) {
        for (change, counters) in self.changes.iter_mut().zip(&COUNTERS) {
            std::mem::take(change).add_to(counters);
        }
        self.count = 0;
    }
}

thread_local! {
    static PENDING: Registered = Registered::new();
}

fn record(algorithm: usize, change: Change) {
    let pending = PENDING.try_with(|p| {
        let mut p = p.0.lock();
        let c = &mut p.changes[algorithm];
        c.cells += change.cells;
        c.segments += change.segments;
        c.bytes += change.bytes;
        p.count += 1;
        if p.count >= BATCH {
            p.add_all();
        }
    });
    if pending.is_err() {
        change.add_to(&COUNTERS[algorithm]); // during the thread's end
    }
}

/// Bytes of shadow memory inside each cell; its state's heap allocations come on top.
const ENTRY_BYTES: usize = std::mem::size_of::<CellMeta>();

/// What one cell's state occupies: taken before and after an access (under the cell's lock),
/// and accounted for after the lock is released.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footprint {
    counters: usize,
    segments: usize,
    heap_bytes: usize,
}

impl Footprint {
    pub fn of(state: &CellState) -> Footprint {
        Footprint { counters: counter_index(state), segments: state.segments(), heap_bytes: state.heap_bytes() }
    }
}

/// A cell's state went from `before` (`None`: the cell had none yet) to `after`.
pub fn cell_changed(before: Option<Footprint>, after: Footprint) {
    let (cells, before) = match before {
        Some(before) if before == after => return,
        Some(before) => (0, before),
        None => (1, Footprint { heap_bytes: 0, segments: 0, ..after }),
    };
    // Per cell, so exact at once; rarely a new maximum, so rarely written.
    raise(&COUNTERS[after.counters].max_on_cell, after.segments);
    let segments = after.segments as isize - before.segments as isize;
    let bytes = after.heap_bytes as isize - before.heap_bytes as isize + cells * ENTRY_BYTES as isize;
    record(after.counters, Change { cells, segments, bytes });
}

/// A cell's state was freed.
pub fn cell_forgotten(state: &CellState) {
    let bytes = (ENTRY_BYTES + state.heap_bytes()) as isize;
    record(counter_index(state), Change { cells: -1, segments: -(state.segments() as isize), bytes: -bytes });
}

/// Reads the detector's storage statistics.
pub fn stats() -> Stats {
    for pending in REGISTRY.lock().iter() {
        pending.lock().add_all();
    }
    let (live_threads, slots) = crate::thread_state::slot_counts();
    let algorithms = std::array::from_fn(|i| {
        let c = &COUNTERS[i];
        AlgorithmStats {
            algorithm: ALGORITHMS[i],
            cells: c.cells.load(Ordering::Relaxed).max(0) as usize,
            segments: c.segments.load(Ordering::Relaxed).max(0) as usize,
            peak_segments: c.peak_segments.load(Ordering::Relaxed),
            max_segments_on_cell: c.max_on_cell.load(Ordering::Relaxed),
            shadow_bytes: c.bytes.load(Ordering::Relaxed).max(0) as usize,
        }
    });
    Stats { cells: algorithms.iter().map(|a| a.cells).sum(), stacks: crate::stack::depot_len(), live_threads, slots, algorithms }
}

/// The line printed at process end when `RACER_OPTIONS=stats=1`: the totals, then one part per
/// algorithm that has run on any cell.
pub fn summary_line() -> String {
    let s = stats();
    let mut line = format!(
        "racer: stats: {} cells tracked, {} stacks interned, {} live threads, {} slots",
        s.cells, s.stacks, s.live_threads, s.slots
    );
    for a in s.algorithms.iter().filter(|a| a.peak_segments > 0 || a.cells > 0) {
        line.push_str(&format!(
            "; algorithm {}: {} cells, {} segments now, {} at peak, at most {} on one cell, {} bytes of shadow memory",
            a.algorithm, a.cells, a.segments, a.peak_segments, a.max_segments_on_cell, a.shadow_bytes
        ));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_line_has_a_part_for_each_algorithm_in_use() {
        let cell = crate::Shared::new(1u32);
        let _ = unsafe { cell.get() };
        let line = summary_line();
        assert!(line.starts_with("racer: stats: "), "{line}");
        let part = line.split("; ").find(|p| p.starts_with("algorithm 4: ")).unwrap_or_else(|| panic!("{line}"));
        assert!(part.contains(" segments now, ") && part.ends_with(" bytes of shadow memory"), "{line}");
        assert!(stats().algorithm(4).peak_segments >= 1);
    }
}
