//! Storage statistics of the detector: what the shadow memory holds now and held at most, per
//! detection algorithm, so that the paper's storage claims (Algorithm 3: 2 segments per cell,
//! Algorithm 4: 1 + p, Algorithm 5: 2t) can be measured on real programs.
//!
//! The per-algorithm counters change on the shadow memory's slow path only (a cell first
//! tracked, an access that went through a cell's state, a cell freed); the fast path never
//! touches them. Each thread sums its own changes (see `ThreadSums`) and a snapshot adds up
//! every thread's sums, so it counts every change made before it. Only the peak is sampled:
//! every few hundred changes of a thread, when a thread ends and at every snapshot.

use std::cell::Cell;
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};

use crate::base::lock::Mutex;

use crate::model::algorithm::{AnyPolicy, CellPolicy, ALGORITHMS};
use crate::provenance::access::AccessInfo;

/// A snapshot of the detector's storage.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Cells with shadow state: `Shared` cells, and 8-byte granules of raw memory checked
    /// through `annotate::read`/`write` (until `annotate::forget`).
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
    /// sampled: every few hundred slow-path changes of each thread, at each thread's end and at
    /// each `stats` call).
    pub segments: usize,
    pub peak_segments: usize,
    /// The most segments one cell has ever held.
    pub max_segments_on_cell: usize,
    /// Bytes of shadow memory now: the shadow part of each cell (`CellMeta`, 40 bytes), its
    /// state's 64-byte slot, and what the state holds on the heap; for a granule of raw memory,
    /// its entry in the raw shadow's map and what its state holds on the heap.
    pub shadow_bytes: usize,
}

/// One algorithm's sums over its cells, or a change to them: cells, segments, bytes.
type Sums = [isize; 3];
const SEGMENTS: usize = 1;

fn add(into: &mut Sums, change: Sums) {
    into.iter_mut().zip(change).for_each(|(sum, delta)| *sum += delta);
}

/// The sums of the changes one thread made, per algorithm. Only that thread writes them, with a
/// load and a store (no read-modify-write, no shared cache line: the slow path of every thread
/// would otherwise update the same counters); [`stats`] reads them.
#[derive(Default)]
#[repr(align(64))]
struct ThreadSums([[AtomicIsize; 3]; 3]);

impl ThreadSums {
    fn get(&self, algorithm: usize) -> Sums {
        self.0[algorithm].each_ref().map(|a| a.load(Ordering::Relaxed))
    }
}

/// Every thread's sums. Invariant: the statistics are `orphaned` plus the sums of every entry
/// in `all`. An entry is written by at most one thread at a time: the thread it is lent to
/// (handed over under the lock), or nobody while it is in `free`. A thread that ends gives its
/// entry back with its sums in it, and the next thread adds to them: the entries are as many
/// as the threads that ever ran at once, and need no adding up when a thread ends.
struct Registry {
    all: Vec<&'static ThreadSums>,
    free: Vec<&'static ThreadSums>,
    /// Changes made by threads whose thread-locals are gone.
    orphaned: [Sums; 3],
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry { all: Vec::new(), free: Vec::new(), orphaned: [[0; 3]; 3] });

impl Registry {
    /// Per algorithm, the sums now; also takes a sample of the peak.
    fn totals(&self) -> [Sums; 3] {
        let mut totals = self.orphaned;
        for sums in &self.all {
            (0..3).for_each(|i| add(&mut totals[i], sums.get(i)));
        }
        for (peak, total) in PEAK_SEGMENTS.iter().zip(&totals) {
            raise(peak, total[SEGMENTS].max(0) as usize);
        }
        totals
    }
}

/// Per algorithm, the most segments held at once, as sampled (see [`record`]).
static PEAK_SEGMENTS: [Padded<AtomicUsize>; 3] = [const { Padded(AtomicUsize::new(0)) }; 3];
/// Per algorithm, the most segments one cell has held (exact: updated with the cell).
static MAX_ON_CELL: [Padded<AtomicUsize>; 3] = [const { Padded(AtomicUsize::new(0)) }; 3];

#[repr(align(64))]
struct Padded<T>(T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// `fetch_max` that reads first: most updates are not a new maximum and then write nothing.
fn raise(counter: &AtomicUsize, value: usize) {
    if value > counter.load(Ordering::Relaxed) {
        counter.fetch_max(value, Ordering::Relaxed);
    }
}

fn index(algorithm: u8) -> Option<usize> {
    ALGORITHMS.iter().position(|&a| a == algorithm)
}

fn algorithm_index(algorithm: u8) -> usize {
    index(algorithm).expect("a cell state runs algorithm 3, 4 or 5")
}

/// The peak is sampled every `PEAK_SAMPLE` changes of each thread, when a thread ends and on
/// every `stats` call.
const PEAK_SAMPLE: usize = 256;

thread_local! {
    /// The entry lent to this thread (see `Registry`) and the changes it recorded: no
    /// destructor, so one thread-local read.
    static MINE: Cell<(Option<&'static ThreadSums>, usize)> = const { Cell::new((None, 0)) };
    /// Gives the entry back when the thread ends; registered with the entry.
    static GIVE_BACK: GiveBack = const { GiveBack };
}

struct GiveBack;

impl Drop for GiveBack {
    fn drop(&mut self) {
        if let Some(mine) = MINE.try_with(|m| m.replace((None, 0)).0).ok().flatten() {
            let mut registry = REGISTRY.lock();
            registry.free.push(mine);
            registry.totals();
        }
    }
}

/// Lends the calling thread an entry; `None` once its thread-locals are being destroyed.
#[cold]
fn lend() -> Option<&'static ThreadSums> {
    GIVE_BACK.try_with(|_| ()).ok()?;
    let mine = {
        let mut registry = REGISTRY.lock();
        registry.free.pop().unwrap_or_else(|| {
            let sums: &'static ThreadSums = Box::leak(Box::default());
            registry.all.push(sums);
            sums
        })
    };
    MINE.try_with(|m| m.set((Some(mine), 0))).ok()?;
    Some(mine)
}

/// Adds `change` to the calling thread's sums: inline, since every slow access of a cell whose
/// state grew or shrank comes here; lending the entry and sampling the peak are calls.
#[inline]
fn record(algorithm: usize, change: Sums) {
    let Ok((Some(mine), changes)) = MINE.try_with(Cell::get) else {
        return record_unlent(algorithm, change);
    };
    for (sum, delta) in mine.0[algorithm].iter().zip(change) {
        // Only this thread writes its entry.
        sum.store(sum.load(Ordering::Relaxed) + delta, Ordering::Relaxed);
    }
    let _ = MINE.try_with(|m| m.set((Some(mine), changes + 1)));
    if (changes + 1) % PEAK_SAMPLE == 0 {
        sample_peak();
    }
}

#[cold]
#[inline(never)]
fn sample_peak() {
    REGISTRY.lock().totals();
}

/// `record` for a thread without an entry: its first change, or one made while its
/// thread-locals are being destroyed.
#[cold]
#[inline(never)]
fn record_unlent(algorithm: usize, change: Sums) {
    if lend().is_some() {
        return record(algorithm, change);
    }
    // The thread is ending and its entry is gone.
    let mut registry = REGISTRY.lock();
    add(&mut registry.orphaned[algorithm], change);
    registry.totals();
}

/// What one cell's state occupies: taken before and after an access (under the cell's lock),
/// and accounted for after the lock is released.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footprint {
    algorithm: usize,
    segments: usize,
    heap_bytes: usize,
}

impl Footprint {
    #[inline]
    pub fn of<P: CellPolicy<AccessInfo> + ?Sized>(state: &P, algorithm: u8) -> Footprint {
        let (segments, heap_bytes) = state.footprint();
        Footprint { algorithm: algorithm_index(algorithm), segments, heap_bytes }
    }
}

/// A cell's state went from `before` (`None`: the cell had none yet) to `after`.
/// `entry_bytes`: the shadow memory of each cell besides what its state allocates (the shadow
/// memory's `ENTRY_BYTES`).
#[inline]
pub fn cell_changed(before: Option<Footprint>, after: Footprint, entry_bytes: usize) {
    let (cells, before) = match before {
        Some(before) if before == after => return,
        Some(before) => (0, before),
        None => (1, Footprint { heap_bytes: 0, segments: 0, ..after }),
    };
    // Per cell, so exact at once; rarely a new maximum, so rarely written.
    raise(&MAX_ON_CELL[after.algorithm], after.segments);
    let segments = after.segments as isize - before.segments as isize;
    let bytes = after.heap_bytes as isize - before.heap_bytes as isize + cells * entry_bytes as isize;
    record(after.algorithm, [cells, segments, bytes]);
}

/// A cell's state was freed (`entry_bytes` as for [`cell_changed`]).
pub fn cell_forgotten(state: &AnyPolicy<AccessInfo>, entry_bytes: usize) {
    let gone = Footprint::of(state.policy(), state.algorithm());
    record(gone.algorithm, [-1, -(gone.segments as isize), -((entry_bytes + gone.heap_bytes) as isize)]);
}

/// Reads the detector's storage statistics.
pub fn stats() -> Stats {
    let totals = REGISTRY.lock().totals();
    let (live_threads, slots) = crate::runtime::thread_slots::slot_counts();
    let algorithms = std::array::from_fn(|i| {
        let [cells, segments, bytes] = totals[i].map(|v| v.max(0) as usize);
        AlgorithmStats {
            algorithm: ALGORITHMS[i],
            cells,
            segments,
            peak_segments: PEAK_SEGMENTS[i].load(Ordering::Relaxed),
            max_segments_on_cell: MAX_ON_CELL[i].load(Ordering::Relaxed),
            shadow_bytes: bytes,
        }
    });
    Stats {
        cells: algorithms.iter().map(|a| a.cells).sum(),
        stacks: crate::provenance::stack::depot_len(),
        live_threads,
        slots,
        algorithms,
    }
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
