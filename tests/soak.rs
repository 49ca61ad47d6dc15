//! Long runs, kept short in CI by a size knob: `RACER_SOAK_SCALE` (default 1) multiplies the
//! work. By hand: `RACER_SOAK_SCALE=10 cargo test --release --features race-detect --test soak`.
//! Counted, not timed: what a long run must keep is flat memory and correct results.
#![cfg(all(feature = "race-detect", target_os = "linux"))]

use std::sync::Arc;

use racer::sync::Mutex;
use racer::Shared;

fn scale() -> usize {
    std::env::var("RACER_SOAK_SCALE").ok().and_then(|v| v.parse().ok()).unwrap_or(1).max(1)
}

/// Resident memory of this process, in bytes.
fn rss() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: usize = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).expect("resident pages");
    pages * 4096
}

/// Phases that each create cells, check an access on every one and drop them all: the shadow
/// state of dropped cells is reused by the next phase, so resident memory stays flat after the
/// first.
#[test]
fn phases_of_cells_created_and_dropped_keep_memory_flat() {
    let cells = 200_000 * scale();
    // One buffer for every phase: the test's own large allocation is not what is measured.
    let mut v: Vec<Shared<u64>> = Vec::with_capacity(cells);
    let mut phase = || {
        v.extend((0..cells as u64).map(Shared::new));
        for c in &v {
            unsafe { c.set(c.get() + 1) };
        }
        v.clear();
    };
    phase();
    let after_first = rss();
    for _ in 0..4 {
        phase();
    }
    let after_last = rss();
    let grown = after_last.saturating_sub(after_first);
    eprintln!("soak: {cells} cells x 5 phases: rss after the first {} KiB, after the last {} KiB", after_first / 1024, after_last / 1024);
    assert!(grown < after_first / 10 + (1 << 20), "memory grew by {grown} bytes after the first phase (from {after_first})");
}

/// 16 threads updating 64 cells under 4 mutexes (cell i under mutex i % 4): every update
/// counted, no report.
#[test]
fn many_threads_many_cells_few_locks() {
    let ops = 20_000 * scale();
    let report = racer::check(|| {
        let cells: Arc<Vec<Shared<u64>>> = Arc::new((0..64).map(|_| Shared::new(0)).collect());
        let locks: Arc<Vec<Mutex<()>>> = Arc::new((0..4).map(|_| Mutex::new(())).collect());
        let workers: Vec<_> = (0..16)
            .map(|t| {
                let (cells, locks) = (cells.clone(), locks.clone());
                racer::thread::spawn(move || {
                    for i in 0..ops {
                        let c = (i * 7 + t) % 64;
                        let _g = locks[c % 4].lock().unwrap();
                        unsafe { cells[c].set(cells[c].get() + 1) };
                    }
                })
            })
            .collect();
        workers.into_iter().for_each(|w| w.join().unwrap());
        let total: u64 = cells.iter().map(|c| unsafe { c.get() }).sum();
        assert_eq!(total, 16 * ops as u64);
    });
    assert!(report.is_empty(), "{report}");
}
