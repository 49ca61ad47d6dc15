//! Data in `racer::Shared` cells handed through jwalk's own hand-offs: its `process_read_dir`
//! callback runs on rayon's workers (jwalk's job `par_bridge()`s its queue of directories), a
//! directory's state is cloned into its subdirectories' specs and sent to whichever worker reads
//! them (a crossbeam channel), and each directory's entries come back to the iterating thread
//! through another. Not jwalk's: `tests/ecosystem_suites.rs` puts this file into the copy of
//! jwalk whose imports it swapped (and into one it did not) as its test target
//! `racer_handoffs`, after the swap. Each walk is of jwalk's own `tests/assets/test_dir` (two
//! subdirectories), on a pool of two threads built for it, `RUNS` times, each in its own
//! `racer::check`.

use std::panic::Location;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use jwalk::{Parallelism, WalkDirGeneric};
use racer::{AccessKind, Report, Shared};

const RUNS: usize = 10;

type Site = &'static Location<'static>;
type Cell = Arc<Shared<u64>>;

fn test_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/assets/test_dir")
}

#[track_caller]
fn write(cell: &Shared<u64>, v: u64) -> Site {
    cell.with_mut(|p| unsafe { *p = v });
    Location::caller()
}

#[track_caller]
fn read(cell: &Shared<u64>) -> (u64, Site) {
    (cell.with(|p| unsafe { *p }), Location::caller())
}

fn none_reported(program: impl Fn()) {
    for _ in 0..RUNS {
        let report = racer::check(&program);
        assert!(report.is_empty(), "expected no race, got:\n{}", report);
    }
}

/// Each directory's `process_read_dir` (on a worker) writes a cell into each of its entries'
/// state; the iterating thread reads every entry's cell after the entry came back to it.
#[test]
fn entry_states_written_on_the_workers_are_ordered_before_the_iterator() {
    none_reported(|| {
        let walk = WalkDirGeneric::<((), Cell)>::new(test_dir())
            .parallelism(Parallelism::RayonNewPool(2))
            .process_read_dir(|_, _, _, children| {
                for child in children.iter_mut().flatten() {
                    write(&child.client_state, child.depth as u64 + 1);
                }
            });
        let mut read_entries = 0;
        for entry in walk {
            let entry = entry.unwrap();
            let (v, _) = read(&entry.client_state);
            if entry.depth > 0 {
                assert_eq!(v, entry.depth as u64 + 1, "{}", entry.path().display());
                read_entries += 1;
            }
        }
        assert_eq!(read_entries, 7, "test_dir's entries below the root (.hidden_file.txt among them)");
    });
}

/// Each directory's `process_read_dir` reads the cell of its parent's state (cloned into its spec
/// by the parent's worker, sent through the queue of directories) and puts a new cell, written,
/// in its own state, which its subdirectories read in turn: the two subdirectories read the cell
/// of `test_dir`, written on the worker that read `test_dir`.
#[test]
fn a_directory_state_is_ordered_before_its_subdirectories() {
    none_reported(|| {
        let reads = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&reads);
        let walk = WalkDirGeneric::<(Cell, ())>::new(test_dir())
            .parallelism(Parallelism::RayonNewPool(2))
            .process_read_dir(move |depth, _, state, _| {
                let (parent, _) = read(state);
                seen.lock().unwrap().push((depth, parent));
                *state = Arc::new(Shared::new(0));
                write(state, depth.map_or(0, |d| d as u64 + 1));
            });
        assert_eq!(walk.into_iter().count(), 8);
        let mut reads = reads.lock().unwrap().clone();
        reads.sort();
        assert_eq!(reads, [(None, 0), (Some(0), 0), (Some(1), 1), (Some(1), 1)], "each read its parent's cell");
    });
}

/// The twin with the hand-off taken away: the iterating thread writes a cell after the walk has
/// started (`into_iter` spawns jwalk's job on the pool), which the callback reading `test_dir`
/// (on a worker) reads; nothing orders the two. Reported in every run, at both sites.
#[test]
fn writing_after_the_walk_started_is_reported() {
    let sites = Arc::new(Mutex::new((None, None)));
    let reports: Vec<Report> = (0..RUNS)
        .map(|_| {
            let sites = Arc::clone(&sites);
            racer::check(move || {
                let cell: Cell = Arc::default();
                let (c, worker_sites) = (Arc::clone(&cell), Arc::clone(&sites));
                let walk = WalkDirGeneric::<((), ())>::new(test_dir())
                    .parallelism(Parallelism::RayonNewPool(2))
                    .process_read_dir(move |depth, _, _, _| {
                        if depth == Some(0) {
                            worker_sites.lock().unwrap().1 = Some(read(&c).1);
                        }
                    });
                let entries = walk.into_iter();
                sites.lock().unwrap().0 = Some(write(&cell, 1));
                assert_eq!(entries.count(), 8);
            })
        })
        .collect();
    let (Some(write_site), Some(read_site)) = *sites.lock().unwrap() else { panic!("both accesses ran") };
    for report in &reports {
        assert_eq!(report.len(), 1, "expected one race, got:\n{report}");
        let race = &report.races()[0];
        let mut accesses = [race.previous(), race.current()].map(|a| (a.kind(), a.location()));
        accesses.sort_by_key(|(kind, _)| *kind == AccessKind::Write);
        assert_eq!(accesses, [(AccessKind::Read, read_site), (AccessKind::Write, write_site)], "{report}");
    }
}
