//! Storage statistics of the detector: what the shadow memory holds now and held at most, per
//! detection algorithm, so that the paper's storage claims (Algorithm 3: 2 segments per cell,
//! Algorithm 4: 1 + p, Algorithm 5: 2t) can be measured on real programs.
//!
//! The per-algorithm counters are plain atomics updated on the shadow memory's slow path only
//! (a cell first tracked, an access that reached the table, a cell forgotten); the fast path
//! never touches them.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::algorithm::ALGORITHMS;
use crate::algorithm::AnyPolicy;
use crate::shadow::{AccessInfo, CellMeta};

type CellState = AnyPolicy<AccessInfo>;

/// A snapshot of the detector's storage.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Cells with shadow state.
    pub cells: usize,
    /// Distinct stacks interned in the stack depot.
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
    /// Segments (remembered accesses) stored over all these cells now, and the most ever.
    pub segments: usize,
    pub peak_segments: usize,
    /// The most segments one cell has ever held.
    pub max_segments_on_cell: usize,
    /// Bytes of shadow memory now: each cell's table entry plus what its state holds on the
    /// heap (the table's own spare capacity is not counted).
    pub shadow_bytes: usize,
}

/// Counters behind [`AlgorithmStats`].
///
/// Invariant: `cells`, `segments` and `bytes` are the sums over the cells of this algorithm in
/// the shadow table, as of the last slow-path update of each (updates of different cells may be
/// seen in any order, so a snapshot taken while threads run is approximate).
/// Each counter has its cache line: the ones changed on every slow path (`segments`,
/// `peak_segments`) must not drag the others between cores.
struct Counters {
    cells: Padded,
    segments: Padded,
    peak_segments: Padded,
    max_on_cell: Padded,
    bytes: Padded,
}

#[repr(align(64))]
struct Padded(AtomicUsize);

impl std::ops::Deref for Padded {
    type Target = AtomicUsize;
    fn deref(&self) -> &AtomicUsize {
        &self.0
    }
}

impl Counters {
    const fn new() -> Counters {
        const ZERO: Padded = Padded(AtomicUsize::new(0));
        Counters { cells: ZERO, segments: ZERO, peak_segments: ZERO, max_on_cell: ZERO, bytes: ZERO }
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

fn counters(state: &CellState) -> &'static Counters {
    &COUNTERS[index(state.algorithm()).expect("a cell state runs algorithm 3, 4 or 5")]
}

/// Bytes of shadow memory inside each cell; its state's heap allocations come on top.
const ENTRY_BYTES: usize = std::mem::size_of::<CellMeta>();

/// What one cell's state occupies, taken before an access to account for the change after it.
#[derive(Debug, Clone, Copy)]
pub struct Footprint {
    segments: usize,
    heap_bytes: usize,
}

impl Footprint {
    pub fn of(state: &CellState) -> Footprint {
        Footprint { segments: state.segments(), heap_bytes: state.heap_bytes() }
    }
}

/// A cell got its (empty) shadow state.
pub fn cell_tracked(state: &CellState) {
    let c = counters(state);
    c.cells.fetch_add(1, Ordering::Relaxed);
    c.bytes.fetch_add(ENTRY_BYTES + state.heap_bytes(), Ordering::Relaxed);
}

/// A cell's state went from `before` to `state`.
pub fn cell_changed(state: &CellState, before: Footprint) {
    let c = counters(state);
    let after = Footprint::of(state);
    if after.segments > before.segments {
        let now = c.segments.fetch_add(after.segments - before.segments, Ordering::Relaxed) + after.segments - before.segments;
        raise(&c.peak_segments, now);
        raise(&c.max_on_cell, after.segments);
    } else if after.segments < before.segments {
        c.segments.fetch_sub(before.segments - after.segments, Ordering::Relaxed);
    }
    if after.heap_bytes != before.heap_bytes {
        c.bytes.fetch_add(after.heap_bytes.wrapping_sub(before.heap_bytes), Ordering::Relaxed);
    }
}

/// A cell's state left the table.
pub fn cell_forgotten(state: &CellState) {
    let c = counters(state);
    c.cells.fetch_sub(1, Ordering::Relaxed);
    c.segments.fetch_sub(state.segments(), Ordering::Relaxed);
    c.bytes.fetch_sub(ENTRY_BYTES + state.heap_bytes(), Ordering::Relaxed);
}

/// Reads the detector's storage statistics.
pub fn stats() -> Stats {
    let (live_threads, slots) = crate::thread_state::slot_counts();
    let algorithms = std::array::from_fn(|i| {
        let c = &COUNTERS[i];
        AlgorithmStats {
            algorithm: ALGORITHMS[i],
            cells: c.cells.load(Ordering::Relaxed),
            segments: c.segments.load(Ordering::Relaxed),
            peak_segments: c.peak_segments.load(Ordering::Relaxed),
            max_segments_on_cell: c.max_on_cell.load(Ordering::Relaxed),
            shadow_bytes: c.bytes.load(Ordering::Relaxed),
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
