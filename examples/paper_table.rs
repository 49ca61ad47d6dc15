//! The seed paper's storage comparison, measured on real threads: how many segments
//! Algorithms 3, 4 and 5 keep per cell against the paper's formulas (2N, (1 + p)N, 2tN), and
//! which of them find the races planted in the workload.
//!
//!     cargo run --release -p racer-examples --example paper_table --features race-detect
//!
//! Workload, for t threads over N cells: each thread writes every cell once, in turn under a
//! lock; all meet at a rendezvous (so every write happens before every read); then each thread
//! reads every cell R times. Read by all threads at once, the reads are mutually parallel
//! (p = t); read in turn under the lock, each read is ordered after the previous (p = 1).
//! Segments are counted by `racer::stats()` while the cells are alive.

use std::sync::{mpsc, Arc};

use racer::sync::{Condvar, Mutex};
use racer::{thread, RaceKind, Report, Shared};

const N: usize = 1000;
const READS: usize = 20;
const THREADS: [usize; 5] = [2, 4, 8, 16, 32];

/// One-shot rendezvous of `n` threads from racer's Mutex and Condvar: everything a thread did
/// before arriving happens before what every thread does after leaving.
struct Rendezvous {
    arrived: Mutex<usize>,
    all_here: Condvar,
    n: usize,
}

impl Rendezvous {
    fn wait(&self) {
        let mut arrived = self.arrived.lock().unwrap();
        *arrived += 1;
        if *arrived == self.n {
            self.all_here.notify_all();
        }
        while *arrived < self.n {
            arrived = self.all_here.wait(arrived).unwrap();
        }
    }
}

/// What one run of the workload left in the shadow memory.
struct Measured {
    segments: usize,
    cells: usize,
    bytes: usize,
    false_races: usize,
}

fn workload(algorithm: u8, t: usize, parallel_readers: bool) -> Measured {
    racer::__select_algorithm(algorithm);
    let before = racer::stats().algorithm(algorithm).clone();
    let cells: Arc<Vec<Shared<u64>>> = Arc::new((0..N).map(|_| Shared::new(0)).collect());
    let turn = Arc::new(Mutex::new(()));
    let meet = Arc::new(Rendezvous { arrived: Mutex::new(0), all_here: Condvar::new(), n: t });
    let report = racer::check(|| {
        let threads: Vec<_> = (0..t)
            .map(|i| {
                let (cells, turn, meet) = (cells.clone(), turn.clone(), meet.clone());
                thread::spawn(move || {
                    {
                        let _turn = turn.lock().unwrap();
                        cells.iter().for_each(|c| unsafe { c.set(i as u64) });
                    }
                    meet.wait();
                    let _in_turn = (!parallel_readers).then(|| turn.lock().unwrap());
                    let mut sum = 0;
                    for _ in 0..READS {
                        sum += cells.iter().map(|c| unsafe { c.get() }).sum::<u64>();
                    }
                    sum
                })
            })
            .collect();
        threads.into_iter().for_each(|h| {
            h.join().unwrap();
        });
    });
    let during = racer::stats().algorithm(algorithm).clone();
    drop(cells);
    racer::__select_algorithm(4);
    Measured {
        segments: during.segments - before.segments,
        cells: during.cells - before.cells,
        bytes: during.shadow_bytes - before.shadow_bytes,
        false_races: report.len(),
    }
}

/// The paper's case: reader A, then reader B (after A in time only), then a write ordered after
/// B's read alone. Returns whether a race against A's read was reported.
fn read_read_write(algorithm: u8) -> bool {
    racer::__select_algorithm(algorithm);
    let cell = Arc::new(Shared::new(0u64));
    let (done, a_has_read) = mpsc::channel();
    let report = racer::check(|| {
        let c = cell.clone();
        let a = thread::Builder::new()
            .name("reader-a".into())
            .spawn(move || {
                let _ = unsafe { c.get() };
                done.send(()).unwrap();
            })
            .unwrap();
        a_has_read.recv().unwrap();
        let c = cell.clone();
        thread::spawn(move || unsafe { c.get() }).join().unwrap();
        unsafe { cell.set(1) };
        a.join().unwrap();
    });
    racer::__select_algorithm(4);
    found(&report, RaceKind::Anti, Some("reader-a"))
}

/// A write, then (after it in time only) an unordered read.
fn write_then_read(algorithm: u8) -> bool {
    racer::__select_algorithm(algorithm);
    let cell = Arc::new(Shared::new(0u64));
    let (done, written) = mpsc::channel();
    let report = racer::check(|| {
        let c = cell.clone();
        let w = thread::Builder::new()
            .name("writer".into())
            .spawn(move || {
                unsafe { c.set(1) };
                done.send(()).unwrap();
            })
            .unwrap();
        written.recv().unwrap();
        let _ = unsafe { cell.get() };
        w.join().unwrap();
    });
    racer::__select_algorithm(4);
    found(&report, RaceKind::Flow, Some("writer"))
}

fn found(report: &Report, kind: RaceKind, previous_thread: Option<&str>) -> bool {
    report.races().iter().any(|r| r.kind() == kind && r.previous().thread_name() == previous_thread)
}

fn main() {
    println!("racer paper_table: N = {N} cells; each of t threads writes every cell once (in turn, under a lock),");
    println!("then reads it {READS} times. Segments kept while the cells are alive, measured by racer::stats(),");
    println!("next to the paper's formulas. Algorithm 3: last read + last write; Algorithm 4: W + mutually");
    println!("parallel reads (p of them); Algorithm 5: last read + last write of every thread.");
    for parallel_readers in [true, false] {
        println!();
        if parallel_readers {
            println!("Readers in parallel (p = t):");
        } else {
            println!("Readers in turn, under the lock (p = 1):");
        }
        println!(
            "{:>3} | {:>9} {:>9} | {:>9} {:>9} | {:>9} {:>9} | {:>10} {:>10} {:>10} | {:>6}",
            "t", "alg3", "2N", "alg4", "(1+p)N", "alg5", "2tN", "bytes 3", "bytes 4", "bytes 5", "races"
        );
        for t in THREADS {
            let p = if parallel_readers { t } else { 1 };
            let runs: Vec<Measured> = [3, 4, 5].into_iter().map(|a| workload(a, t, parallel_readers)).collect();
            for r in &runs {
                assert_eq!(r.cells, N, "every cell is tracked while alive");
            }
            println!(
                "{:>3} | {:>9} {:>9} | {:>9} {:>9} | {:>9} {:>9} | {:>10} {:>10} {:>10} | {:>6}",
                t,
                runs[0].segments,
                2 * N,
                runs[1].segments,
                (1 + p) * N,
                runs[2].segments,
                2 * t * N,
                runs[0].bytes,
                runs[1].bytes,
                runs[2].bytes,
                runs.iter().map(|r| r.false_races).sum::<usize>(),
            );
        }
    }
    println!();
    println!("(races: reports on the race-free workload, all three algorithms together; bytes: shadow memory)");
    let stats = racer::stats();
    for algorithm in [3, 4, 5] {
        let a = stats.algorithm(algorithm);
        println!(
            "Algorithm {algorithm} over the whole run: at most {} segments at once, at most {} on one cell",
            a.peak_segments, a.max_segments_on_cell
        );
    }
    println!("(a cell's final write, when it is dropped, is checked against its state but not stored)");
    println!();
    println!("Planted races:                                      alg3     alg4     alg5");
    let yes = |b: bool| if b { "found" } else { "MISSED" };
    let rrw: Vec<bool> = [3, 4, 5].into_iter().map(read_read_write).collect();
    let flow: Vec<bool> = [3, 4, 5].into_iter().map(write_then_read).collect();
    println!(
        "  read, read, write ordered after 2nd read only:  {:>6}   {:>6}   {:>6}",
        yes(rrw[0]),
        yes(rrw[1]),
        yes(rrw[2])
    );
    println!(
        "  write, then an unordered read:                   {:>6}   {:>6}   {:>6}",
        yes(flow[0]),
        yes(flow[1]),
        yes(flow[2])
    );
}
