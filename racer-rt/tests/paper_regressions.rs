//! Named traces: the paper's cases and counterexamples the property tests shrank to, each
//! replayed against all three algorithms and the oracle.
#![cfg(feature = "race-detect")]

use racer_rt::__test::oracle::{Oracle, RacyPair};
use racer_rt::__test::trace::{parse, replay, ReportedRace};
use racer_rt::RaceKind;

fn races(text: &str, algorithm: u8) -> Vec<ReportedRace> {
    let trace = parse(text).unwrap();
    let without = replay(&trace, algorithm, false).unwrap().races;
    let with = replay(&trace, algorithm, true).unwrap().races;
    assert_eq!(without, with, "the same-segment filter changed what algorithm {algorithm} reports");
    without
}

fn anti(cell: usize, previous: usize, current: usize) -> ReportedRace {
    ReportedRace { cell, previous, current, kind: RaceKind::Anti }
}

/// The paper's case: t1 and t2 read in parallel, then t0 writes, ordered after t2's read only
/// (by a message). Algorithm 3 remembers only t2's read and misses the race with t1's.
#[test]
fn paper_read_read_write() {
    let text = "t0 spawn t1; t0 spawn t2; t1 read x0; t2 read x0; t2 send c0; t0 recv c0; t0 write x0";
    assert_eq!(Oracle::new(&parse(text).unwrap()).unwrap().racy_pairs(), &[RacyPair { cell: 0, first: 2, second: 6 }]);
    assert_eq!(races(text, 3), vec![]);
    assert_eq!(races(text, 4), vec![anti(0, 2, 6)]);
    assert_eq!(races(text, 5), vec![anti(0, 2, 6)]);
}

/// What the search for an Algorithm 3 miss shrank to (paper_props.rs): the second reader is the
/// writer itself.
#[test]
fn shrunk_read_read_write_by_the_second_reader() {
    let text = "t0 spawn t1; t0 read x2; t1 read x2; t1 write x2";
    assert_eq!(races(text, 3), vec![]);
    assert_eq!(races(text, 4), vec![anti(2, 1, 3)]);
    assert_eq!(races(text, 5), vec![anti(2, 1, 3)]);
}

/// Shrunk from a deliberately broken Algorithm 4 that emptied R on every read instead of
/// dropping only the reads ordered before it (checked while building the property tests).
#[test]
fn shrunk_reads_must_survive_a_parallel_read() {
    let text = "t0 spawn t1; t0 read x1; t0 read x0; t1 read x1; t1 write x1; t0 read x2";
    assert_eq!(races(text, 4), vec![anti(1, 1, 4)]);
    assert_eq!(races(text, 5), vec![anti(1, 1, 4)]);
    assert_eq!(races(text, 3), vec![]);
}

/// Storage: after one write, t readers in parallel leave 1 + t segments under Algorithm 4,
/// 2 under Algorithm 3, and under Algorithm 5 one per reader plus the writer's write; once
/// every thread has also written (in order, under a lock), Algorithm 5 holds 2t.
#[test]
fn storage_follows_the_papers_formulas() {
    let t = 4;
    let mut text = String::from("t0 write x0\n");
    for c in 1..t {
        text += &format!("t0 spawn t{c}\n");
    }
    for c in 0..t {
        text += &format!("t{c} lock m0; t{c} write x0; t{c} unlock m0\n");
    }
    // Everyone waits for everyone's write: each posts a message to every other thread.
    for c in 0..t {
        for d in 0..t {
            if c != d {
                text += &format!("t{c} send c{d}\n");
            }
        }
    }
    for c in 0..t {
        for _ in 1..t {
            text += &format!("t{c} recv c{c}\n");
        }
        text += &format!("t{c} read x0\n");
    }
    let trace = parse(&text).unwrap();
    assert!(Oracle::new(&trace).unwrap().racy_pairs().is_empty());
    let kept = |algorithm| {
        let run = replay(&trace, algorithm, true).unwrap();
        assert!(run.races.is_empty(), "algorithm {algorithm}: {:?}", run.races);
        run.final_segments[&0]
    };
    assert_eq!(kept(3), 2);
    assert_eq!(kept(4), 1 + t);
    assert_eq!(kept(5), 2 * t);
}

/// Algorithm 4 drops a read that happens before a later read; Algorithm 5 keeps both readers'.
#[test]
fn ordered_reads_are_pruned_by_algorithm_4_only() {
    let text = "t0 write x0; t0 spawn t1; t0 spawn t2; t1 read x0; t1 send c0; t2 recv c0; t2 read x0";
    let trace = parse(text).unwrap();
    assert_eq!(replay(&trace, 4, true).unwrap().final_segments[&0], 2);
    assert_eq!(replay(&trace, 5, true).unwrap().final_segments[&0], 3);
    assert_eq!(replay(&trace, 3, true).unwrap().final_segments[&0], 2);
}
