//! Storage statistics of the detector: what the shadow memory holds now.

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
}

/// Reads the detector's storage statistics.
pub fn stats() -> Stats {
    let (live_threads, slots) = crate::thread_state::slot_counts();
    Stats { cells: crate::shadow::cells_tracked(), stacks: crate::stack::depot_len(), live_threads, slots }
}

/// The line printed at process end when `RACER_OPTIONS=stats=1`.
pub fn summary_line() -> String {
    let s = stats();
    format!(
        "racer: stats: {} cells tracked, {} stacks interned, {} live threads, {} slots",
        s.cells, s.stacks, s.live_threads, s.slots
    )
}
