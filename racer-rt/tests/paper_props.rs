//! Property tests of the paper's claims on random well-formed traces, against the all-pairs
//! oracle: Algorithms 4 and 5 report a race on a cell iff the oracle finds one there; no
//! algorithm (3 included) ever reports a pair the oracle calls ordered; storage stays within the
//! paper's bounds (2, 1 + p <= 1 + t, 2t segments per cell).
//!
//! Cases: `RACER_PROPTEST_CASES` (default 10 000, the CI size). The full run:
//! `RACER_PROPTEST_CASES=100000 cargo test --release -p racer-rt --features race-detect --test paper_props`.
#![cfg(feature = "race-detect")]

use std::collections::BTreeSet;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};
use racer_rt::__test::oracle::Oracle;
use racer_rt::__test::trace::{replay, to_text, Event};
use racer_rt::RaceKind;

const MAX_THREADS: usize = 5;
const CELLS: usize = 3;
const LOCKS: usize = 2;
const CHANNELS: usize = 2;

/// Turns random choices into a trace that could have happened: every choice becomes one event
/// of a running thread, and a choice that would be impossible now (spawning past the thread
/// limit, receiving from an empty channel...) becomes a read instead. Shrinking the choices
/// therefore always yields well-formed traces.
fn build(choices: &[(u8, u8, u8)]) -> Vec<Event> {
    let mut running = vec![0usize];
    let mut spawned = 1;
    let mut holder: [Option<usize>; LOCKS] = [None; LOCKS];
    let mut pending = [0usize; CHANNELS];
    let mut trace = Vec::with_capacity(choices.len());
    for &(op, a, b) in choices {
        let thread = running[a as usize % running.len()];
        let (b, fallback) = (b as usize, Event::Read { thread, cell: b as usize % CELLS });
        let event = match op % 16 {
            0..=4 => fallback,
            5..=7 => Event::Write { thread, cell: b % CELLS },
            8 | 9 if spawned < MAX_THREADS => {
                running.push(spawned);
                spawned += 1;
                Event::Spawn { parent: thread, child: spawned - 1 }
            }
            10 => {
                let joinable: Vec<usize> =
                    running.iter().copied().filter(|&c| c != 0 && c != thread && !holder.contains(&Some(c))).collect();
                match joinable.get(b % joinable.len().max(1)) {
                    Some(&child) => {
                        running.retain(|&r| r != child);
                        Event::Join { parent: thread, child }
                    }
                    None => fallback,
                }
            }
            11 | 12 => {
                let lock = b % LOCKS;
                match holder[lock] {
                    None => {
                        holder[lock] = Some(thread);
                        Event::Acquire { thread, lock }
                    }
                    Some(h) if h == thread => {
                        holder[lock] = None;
                        Event::Release { thread, lock }
                    }
                    Some(_) => fallback,
                }
            }
            13 => {
                pending[b % CHANNELS] += 1;
                Event::Send { thread, chan: b % CHANNELS }
            }
            14 if pending[b % CHANNELS] > 0 => {
                pending[b % CHANNELS] -= 1;
                Event::Recv { thread, chan: b % CHANNELS }
            }
            _ => fallback,
        };
        trace.push(event);
    }
    trace
}

fn traces() -> impl Strategy<Value = Vec<Event>> {
    prop::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 0..48).prop_map(|c| build(&c))
}

fn cases() -> u32 {
    std::env::var("RACER_PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000)
}

fn threads_in(trace: &[Event]) -> usize {
    1 + trace.iter().filter(|e| matches!(e, Event::Spawn { .. })).count()
}

/// The kinds of the remembered and the current access a race kind stands for.
fn is_write(kind: RaceKind) -> (bool, bool) {
    match kind {
        RaceKind::Flow => (true, false),
        RaceKind::Anti => (false, true),
        RaceKind::Output => (true, true),
    }
}

/// Checks every claim on one trace; the error names the algorithm and what went wrong.
fn check_claims(trace: &[Event]) -> Result<(), String> {
    let oracle = Oracle::new(trace).map_err(|e| format!("generator made a bad trace: {e}"))?;
    let t = threads_in(trace);
    for same_segment_filter in [false, true] {
        let mut finals = Vec::new();
        for algorithm in [3u8, 4, 5] {
            let run = replay(trace, algorithm, same_segment_filter).map_err(|e| e.to_string())?;
            let at = format!("algorithm {algorithm} (same-segment filter {same_segment_filter})");
            for r in &run.races {
                if !oracle.is_racy(r.previous, r.current) || r.previous >= r.current {
                    return Err(format!(
                        "{at} reported events {} and {}, which the oracle calls ordered",
                        r.previous, r.current
                    ));
                }
                let kinds = (trace[r.previous].access().unwrap().1, trace[r.current].access().unwrap().1);
                if kinds != is_write(r.kind) {
                    return Err(format!("{at} called events {} and {} a {:?} race", r.previous, r.current, r.kind));
                }
            }
            if algorithm != 3 {
                let reported: BTreeSet<usize> = run.races.iter().map(|r| r.cell).collect();
                if reported != oracle.racy_cells() {
                    return Err(format!(
                        "{at} reported races on cells {reported:?}, the oracle on {:?}",
                        oracle.racy_cells()
                    ));
                }
            }
            let bound = match algorithm {
                3 => 2,
                4 => 1 + t,
                _ => 2 * t,
            };
            if let Some((cell, &most)) = run.max_segments.iter().find(|(_, &m)| m > bound) {
                return Err(format!("{at} held {most} segments on x{cell}, over its bound {bound} for {t} threads"));
            }
            finals.push(run.final_segments);
        }
        // Algorithm 4 keeps a subset of what Algorithm 5 keeps: W is its writer's last write,
        // and each read in R is its reader's last read.
        for (cell, &alg4) in &finals[1] {
            if alg4 > finals[2][cell] {
                return Err(format!(
                    "algorithm 4 ends with {alg4} segments on x{cell}, algorithm 5 with {}",
                    finals[2][cell]
                ));
            }
        }
    }
    Ok(())
}

proptest! {
    // Counterexamples become named tests in paper_regressions.rs, not seed files.
    #![proptest_config(Config { cases: cases(), failure_persistence: None, ..Config::default() })]

    #[test]
    fn algorithms_agree_with_the_oracle(trace in traces()) {
        if let Err(why) = check_claims(&trace) {
            prop_assert!(false, "{}\ntrace: {}", why, to_text(&trace));
        }
    }
}

/// Algorithm 3 is incomplete, and random search finds out: a property claiming it reports on
/// every racy cell fails, and the counterexample shrinks to the paper's read-read-write case.
#[test]
fn search_finds_a_race_algorithm_3_misses_and_shrinks_it_to_the_papers_case() {
    let config = Config { cases: cases(), failure_persistence: None, ..Config::default() };
    let mut runner = TestRunner::new_with_rng(config, TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let result = runner.run(&traces(), |trace| {
        let oracle = Oracle::new(&trace).unwrap();
        let run = replay(&trace, 3, true).unwrap();
        let reported: BTreeSet<usize> = run.races.iter().map(|r| r.cell).collect();
        prop_assert_eq!(reported, oracle.racy_cells());
        Ok(())
    });
    let Err(TestError::Fail(_, shrunk)) = result else {
        panic!("no trace where algorithm 3 misses a race: {result:?}")
    };
    let text = to_text(&shrunk);
    let oracle = Oracle::new(&shrunk).unwrap();
    assert_eq!(oracle.racy_pairs().len(), 1, "{text}");
    let pair = oracle.racy_pairs()[0];
    // The missed pair is a read and a later write, with a read in between that the write is
    // ordered after: two parallel reads, then a write ordered after the second only.
    assert_eq!(shrunk[pair.first].access(), Some((pair.cell, false)), "{text}");
    assert_eq!(shrunk[pair.second].access(), Some((pair.cell, true)), "{text}");
    let between = (pair.first + 1..pair.second).find(|&i| shrunk[i].access() == Some((pair.cell, false)));
    let second_read = between.unwrap_or_else(|| panic!("no second read in {text}"));
    assert!(oracle.happens_before(second_read, pair.second), "{text}");
    assert!(
        !oracle.happens_before(pair.first, second_read) && !oracle.happens_before(second_read, pair.first),
        "{text}"
    );
    assert!(shrunk.len() <= 5, "shrunk to {} events: {text}", shrunk.len());
    assert!(replay(&shrunk, 3, true).unwrap().races.is_empty());
    eprintln!("shrunk counterexample for algorithm 3: {text}");
}

/// The generator is worth its cases: among its traces are race-free and racy ones, every kind
/// of event, and traces where Algorithm 3 misses a race.
#[test]
fn generated_traces_cover_every_event_and_outcome() {
    use proptest::strategy::ValueTree;
    let mut runner = TestRunner::new_with_rng(Config::default(), TestRng::deterministic_rng(RngAlgorithm::ChaCha));
    let (mut racy, mut race_free, mut alg3_misses) = (0, 0, 0);
    let mut kinds = std::collections::HashSet::new();
    let samples = 2_000;
    for _ in 0..samples {
        let trace = traces().new_tree(&mut runner).unwrap().current();
        kinds.extend(trace.iter().map(std::mem::discriminant));
        let oracle = Oracle::new(&trace).unwrap();
        if oracle.racy_pairs().is_empty() {
            race_free += 1;
        } else {
            racy += 1;
        }
        let alg3: BTreeSet<usize> = replay(&trace, 3, true).unwrap().races.iter().map(|r| r.cell).collect();
        if alg3 != oracle.racy_cells() {
            alg3_misses += 1;
        }
    }
    assert_eq!(kinds.len(), 8, "every kind of event appears");
    assert!(racy >= samples / 10 && race_free >= samples / 10, "racy {racy}, race-free {race_free} of {samples}");
    assert!(alg3_misses >= samples / 100, "algorithm 3 missed a race in only {alg3_misses} of {samples}");
    eprintln!(
        "of {samples} traces: {racy} racy, {race_free} race-free, {alg3_misses} where algorithm 3 misses a racy cell"
    );
}
