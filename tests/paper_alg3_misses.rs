//! The seed paper's case on real threads: two mutually parallel reads, then a write ordered
//! after the second read only. Algorithm 3 (last read, last write) misses the race with the
//! first read; Algorithms 4 and 5 report it with the unordered reader as the previous access.
//! Also: all three find an ordinary race, and `racer::stats()` counts what each keeps.
#![cfg(feature = "race-detect")]

use std::sync::mpsc;
// std's Arc on purpose: dropping racer's could order the threads (the contract makes Arc drop a
// post), and these tests need the readers unordered.
use std::sync::Arc;

use racer::sync::{Condvar, Mutex};
use racer::{thread, AccessKind, RaceKind, Report, Shared};

/// The algorithm is a process-wide selection: tests that switch it run one at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

struct PaperCase {
    report: Report,
    first_read_line: u32,
    write_line: u32,
}

/// Reader A reads, then (after A's read, in time only: a std channel orders nothing for racer)
/// reader B reads; the main thread joins B, so its write is ordered after B's read, but not
/// after A's.
fn read_read_write(algorithm: u8) -> PaperCase {
    racer::__select_algorithm(algorithm);
    let cell = Arc::new(Shared::new(0u64));
    let (done, a_has_read) = mpsc::channel();
    let mut lines = (0, 0);
    let report = racer::check(|| {
        let c = cell.clone();
        let a = thread::Builder::new()
            .name("reader-a".into())
            .spawn(move || {
                let (_, line) = (unsafe { c.get() }, line!());
                done.send(line).unwrap();
            })
            .unwrap();
        lines.0 = a_has_read.recv().unwrap();
        let c = cell.clone();
        let b = thread::Builder::new().name("reader-b".into()).spawn(move || unsafe { c.get() }).unwrap();
        b.join().unwrap();
        lines.1 = line!() + 1;
        unsafe { cell.set(1) };
        a.join().unwrap();
    });
    racer::__select_algorithm(4);
    PaperCase { report, first_read_line: lines.0, write_line: lines.1 }
}

#[test]
fn algorithm_3_misses_the_papers_read_read_write_case() {
    let _serial = serial();
    let case = read_read_write(3);
    assert!(case.report.is_empty(), "algorithm 3 should miss this race, yet reported:\n{}", case.report);
}

#[test]
fn algorithms_4_and_5_report_the_papers_case_against_the_unordered_reader() {
    let _serial = serial();
    for algorithm in [4, 5] {
        let case = read_read_write(algorithm);
        assert_eq!(case.report.len(), 1, "algorithm {algorithm}:\n{}", case.report);
        let race = &case.report.races()[0];
        assert_eq!(race.kind(), RaceKind::Anti, "algorithm {algorithm}");
        let (prev, cur) = (race.previous(), race.current());
        assert_eq!(prev.kind(), AccessKind::Read);
        assert_eq!(prev.thread_name(), Some("reader-a"), "algorithm {algorithm}: the unordered reader is A");
        assert_eq!((prev.location().file(), prev.location().line()), (file!(), case.first_read_line));
        assert_eq!(cur.kind(), AccessKind::Write);
        assert_eq!((cur.location().file(), cur.location().line()), (file!(), case.write_line));
        assert_eq!(cur.thread_name(), std::thread::current().name(), "algorithm {algorithm}");
    }
}

/// Algorithm 3 is not simply off: a write and an unordered read race under every algorithm.
#[test]
fn every_algorithm_reports_a_plain_flow_race() {
    let _serial = serial();
    for algorithm in [3, 4, 5] {
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
        assert_eq!(report.len(), 1, "algorithm {algorithm}:\n{report}");
        assert_eq!(report.races()[0].kind(), RaceKind::Flow, "algorithm {algorithm}");
        assert_eq!(report.races()[0].previous().thread_name(), Some("writer"));
    }
}

/// One-shot rendezvous of `n` threads from racer's Mutex and Condvar: everything each thread
/// did before arriving happens before what every thread does after leaving.
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

/// Each of `t` threads writes every cell once (in turn, under a lock), then all read every cell
/// several times, in parallel. Returns the segments each algorithm's cells hold afterwards,
/// while the cells are alive, as counted by `racer::stats()`.
#[test]
fn stats_count_the_segments_each_algorithm_keeps() {
    let _serial = serial();
    const T: usize = 3;
    const N: usize = 10;
    for (algorithm, per_cell) in [(3, 2), (4, 1 + T), (5, 2 * T)] {
        racer::__select_algorithm(algorithm);
        let before = racer::stats().algorithm(algorithm).clone();
        let cells: Arc<Vec<Shared<u64>>> = Arc::new((0..N).map(|_| Shared::new(0)).collect());
        let turn = Arc::new(Mutex::new(()));
        let meet = Arc::new(Rendezvous { arrived: Mutex::new(0), all_here: Condvar::new(), n: T });
        let report = racer::check(|| {
            let threads: Vec<_> = (0..T)
                .map(|_| {
                    let (cells, turn, meet) = (cells.clone(), turn.clone(), meet.clone());
                    thread::spawn(move || {
                        {
                            let _turn = turn.lock().unwrap();
                            cells.iter().for_each(|c| unsafe { c.set(1) });
                        }
                        meet.wait();
                        for _ in 0..5 {
                            cells.iter().for_each(|c| assert_eq!(unsafe { c.get() }, 1));
                        }
                    })
                })
                .collect();
            threads.into_iter().for_each(|h| h.join().unwrap());
        });
        racer::__select_algorithm(4);
        assert!(report.is_empty(), "algorithm {algorithm}: the workload is race-free:\n{report}");
        let during = racer::stats().algorithm(algorithm).clone();
        assert_eq!(during.cells - before.cells, N, "algorithm {algorithm}");
        assert_eq!(during.segments - before.segments, per_cell * N, "algorithm {algorithm}");
        assert!(during.peak_segments >= per_cell * N, "algorithm {algorithm}: {during:?}");
        assert!(during.max_segments_on_cell >= per_cell, "algorithm {algorithm}: {during:?}");
        assert!(during.shadow_bytes > before.shadow_bytes, "algorithm {algorithm}: {during:?}");
        drop(cells);
        let after = racer::stats().algorithm(algorithm).clone();
        assert_eq!(
            (after.cells, after.segments),
            (before.cells, before.segments),
            "algorithm {algorithm}: dropped cells leave the table"
        );
    }
}
