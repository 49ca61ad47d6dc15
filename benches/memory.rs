//! Shadow memory per cell, measured. A cell carries its seen-access cache and a pointer to its
//! state (the bytes `Shared<u64>` has beyond the `u64`); the state's 64-byte slot and what it
//! spills to the heap (a read set of more than two parallel reads) are measured as the growth of
//! resident memory after 200 000 cells are written, then read by p parallel threads (the cells
//! themselves are allocated first and not counted). Prints both parts and their sum per cell, next to racer's own accounting
//! (`racer::stats()`).
//!
//! ```text
//! cargo bench --features race-detect --bench memory
//! ```

use std::sync::mpsc;

use racer::sync::Arc;
use racer::Shared;

const CELLS: usize = 200_000;

/// Resident set size of this process in bytes (Linux), or 0 when it cannot be read.
fn resident_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: usize = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).unwrap_or(0);
    pages * 4096
}

fn per_cell(before: usize) -> f64 {
    resident_bytes().saturating_sub(before) as f64 / CELLS as f64
}

/// racer's bytes inside each cell: its shadow state and the padding to a cache line.
const IN_CELL: usize = std::mem::size_of::<Shared<u64>>() - std::mem::size_of::<u64>();

/// Reads every cell once from each of `readers` threads, whose reads stay parallel: they end
/// through a std channel racer does not see, and are joined only after the measurement.
fn read_in_parallel(
    cells: &Arc<Vec<Shared<u64>>>,
    readers: usize,
) -> (mpsc::Sender<()>, Vec<racer::thread::JoinHandle<()>>) {
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let (quit_tx, quit_rx) = mpsc::channel::<()>();
    let quit_rx = std::sync::Arc::new(std::sync::Mutex::new(quit_rx));
    let threads = (0..readers)
        .map(|_| {
            let (cells, done_tx, quit_rx) = (cells.clone(), done_tx.clone(), quit_rx.clone());
            racer::thread::spawn(move || {
                let sum: u64 = cells.iter().map(|c| c.with(|p| unsafe { *p })).sum();
                std::hint::black_box(sum);
                done_tx.send(()).unwrap();
                let _ = quit_rx.lock().unwrap().recv();
            })
        })
        .collect();
    for _ in 0..readers {
        done_rx.recv().unwrap();
    }
    (quit_tx, threads)
}

/// Each configuration runs in a fresh process of this bench, so that memory freed by one is not
/// reused by the next and hidden from the measure.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--list") {
        return; // `cargo bench -- --list` asks every bench for its names
    }
    if let Some(readers) = args.iter().position(|a| a == "--readers").and_then(|i| args.get(i + 1)) {
        measure(readers.parse().expect("--readers N"));
        return;
    }
    println!("racer shadow memory per cell ({CELLS} cells of u64, ENABLED = {})", racer::ENABLED);
    println!(
        "size_of::<Shared<u64>>() = {} bytes (u64: 8): {IN_CELL} bytes of each cell are racer's (shadow state, padding to a cache line)",
        std::mem::size_of::<Shared<u64>>()
    );
    let exe = std::env::current_exe().expect("bench executable");
    for readers in [1usize, 2, 8, 32] {
        let status = std::process::Command::new(&exe).args(["--readers", &readers.to_string()]).status();
        assert!(status.is_ok_and(|s| s.success()), "measuring {readers} readers failed");
    }
}

fn measure(readers: usize) {
    let cells: Arc<Vec<Shared<u64>>> = Arc::new((0..CELLS).map(|i| Shared::new(i as u64)).collect());
    let before = resident_bytes();
    for c in cells.iter() {
        c.with_mut(|p| unsafe { *p += 1 });
    }
    let written = per_cell(before);
    let (quit, threads) = read_in_parallel(&cells, readers);
    let read = per_cell(before);
    println!(
        "{readers:2} parallel reader(s): {IN_CELL} B in the cell + heap {:5.1} B after the write, {:5.1} B after the reads = {:5.1} B/cell; racer::stats: {}",
        written,
        read,
        IN_CELL as f64 + read,
        accounted()
    );
    drop(quit);
    threads.into_iter().for_each(|t| t.join().unwrap());
}

#[cfg(feature = "race-detect")]
fn accounted() -> String {
    let s = racer_rt::stats();
    let a = s.algorithm(4);
    format!(
        "{} cells, {:.1} B/cell, {:.2} segments/cell",
        a.cells,
        a.shadow_bytes as f64 / a.cells as f64,
        a.segments as f64 / a.cells as f64
    )
}

#[cfg(not(feature = "race-detect"))]
fn accounted() -> String {
    "(feature off)".into()
}
