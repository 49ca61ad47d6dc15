//! The complete search of small models (`schedule::dfs`): a default `racer::model` first
//! explores every schedule under a preemption bound (2, `LOOM_MAX_PREEMPTIONS`), the stale-load
//! choices included, within half its budget. A model it explores whole shows every outcome,
//! every run, and ends with "explored all N schedules under preemption bound B" on standard
//! error; a model too large for it hands over to the random and PCT schedules, without that line.
//! A failure the search finds replays with its path's token.
//!
//! The tests that read standard error run their model in a child process (this test binary
//! again, `RACER_COMPLETE_CHILD` naming the model).
#![cfg(feature = "race-detect")]

use std::collections::BTreeSet;
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

mod child_support;
#[path = "model_support/mod.rs"]
mod model_support;
use model_support::{race_lines, replay_token};

use racer::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use racer::sync::Arc;
use racer::thread;
use racer::Shared;

use Ordering::{Acquire, Relaxed, Release};

/// The time budget of the models whose test counts their schedules: a search cut short by a
/// loaded machine (the default budget is 1 s, the search's share half of it) would run fewer.
/// A search that ends stops the model there, so an idle machine takes no longer.
const PLENTY: Duration = Duration::from_secs(60);

/// Runs `body` as a default model (`bound`: with that preemption bound and the time budget
/// `PLENTY`); the set of outcomes it returned and the number of iterations that ran.
fn outcomes<T: Ord + Send + 'static>(bound: Option<u32>, body: fn() -> T) -> (BTreeSet<T>, usize) {
    let seen = std::sync::Arc::new(Mutex::new((BTreeSet::new(), 0)));
    let into = seen.clone();
    let mut builder = racer::model::Builder::new();
    if let Some(b) = bound {
        builder.preemption_bound(b).time(Some(PLENTY));
    }
    builder.check(move || {
        let outcome = body();
        let mut seen = into.lock().unwrap();
        seen.0.insert(outcome);
        seen.1 += 1;
    });
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    seen
}

/// Store buffering with Relaxed atomics: each thread stores to its variable, then loads the
/// other's. (r1, r2); all four outcomes are allowed, (0, 0) only through a stale load.
fn store_buffering() -> (usize, usize) {
    let (x, y) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (x2, y2) = (x.clone(), y.clone());
    let other = thread::spawn(move || {
        y2.store(1, Relaxed);
        x2.load(Relaxed)
    });
    x.store(1, Relaxed);
    let r1 = y.load(Relaxed);
    (r1, other.join().unwrap())
}

/// Two threads take `N` tickets each from one counter: the tickets the first thread got.
fn tickets<const N: usize>() -> Vec<usize> {
    let counter = Arc::new(AtomicUsize::new(0));
    let c = counter.clone();
    let first = thread::spawn(move || (0..N).map(|_| c.fetch_add(1, Relaxed)).collect::<Vec<_>>());
    let c = counter.clone();
    let second = thread::spawn(move || {
        for _ in 0..N {
            c.fetch_add(1, Relaxed);
        }
    });
    second.join().unwrap();
    first.join().unwrap()
}

#[test]
fn store_buffering_shows_all_four_outcomes_every_run() {
    let (seen, _) = outcomes(None, store_buffering);
    assert_eq!(seen, BTreeSet::from([(0, 0), (0, 1), (1, 0), (1, 1)]));
}

#[test]
fn two_threads_taking_two_tickets_show_all_six_interleavings_every_run() {
    let (seen, _) = outcomes(None, tickets::<2>);
    // C(4, 2): which two of the tickets 0..4 the first thread took.
    assert_eq!(seen.len(), 6, "{seen:?}");
}

#[test]
fn the_search_runs_the_same_schedules_every_time() {
    let (seen, runs) = outcomes(Some(2), tickets::<2>);
    let (again, runs_again) = outcomes(Some(2), tickets::<2>);
    assert_eq!((again, runs_again), (seen, runs));
}

#[test]
fn the_preemption_bound_changes_the_number_of_schedules() {
    let (none, n0) = outcomes(Some(0), tickets::<2>);
    let (_, n1) = outcomes(Some(1), tickets::<2>);
    let (all, n2) = outcomes(Some(2), tickets::<2>);
    assert!(n0 < n1 && n1 < n2, "{n0} {n1} {n2}");
    assert!(none.len() < all.len(), "without preemptions fewer interleavings: {none:?}");
}

/// The child's part: runs the model `RACER_COMPLETE_CHILD` names and prints how many
/// iterations ran.
fn child_model(which: &str) {
    let runs = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let r = runs.clone();
    let body: fn() = match which {
        "small" => || drop(tickets::<2>()),
        "large" => || drop(tickets::<12>()),
        _ => panic!("no model {which}"),
    };
    racer::model::Builder::new().check(move || {
        body();
        r.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    eprintln!("iterations run: {}", runs.load(std::sync::atomic::Ordering::Relaxed));
}

const CHILD: &str = "RACER_COMPLETE_CHILD";
const CHILD_TEST: &str = "the_model_a_child_runs";

#[test]
fn the_model_a_child_runs() {
    if let Ok(which) = std::env::var(CHILD) {
        child_model(&which);
    }
}

/// Runs the model `which` in a child with `env`: its standard error, and the iterations it ran.
fn in_child(which: &str, env: &[(&str, &str)]) -> (String, usize) {
    let mut child = Command::new(std::env::current_exe().unwrap());
    child.args(["--exact", CHILD_TEST, "--nocapture", "--test-threads=1"]).env(CHILD, which);
    // The small model's search takes well under the default 1 s on an idle machine, not on a
    // loaded one: a budget of `PLENTY` (the large model still stops at its 1000 iterations).
    child.env_remove("LOOM_MAX_PREEMPTIONS").env_remove("RACER_ITERATIONS");
    child.env("RACER_TIME", PLENTY.as_secs().to_string());
    for (k, v) in env {
        child.env(k, v);
    }
    let out = child_support::output_within(child, Duration::from_secs(120), "the child's model");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    let runs = err
        .lines()
        .find_map(|l| l.strip_prefix("iterations run: "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no count: {err}"));
    (err, runs)
}

/// The N of the "explored all N schedules under preemption bound B" line, if there is one.
fn explored(err: &str, bound: u32) -> Option<usize> {
    let line = err.lines().find(|l| l.contains(": explored all "))?;
    let suffix = format!(" schedules under preemption bound {bound}");
    assert!(line.starts_with(&format!("racer (model): '{CHILD_TEST}': explored all ")), "{line}");
    assert!(line.ends_with(&suffix), "{line}");
    line.split(": explored all ").nth(1)?.strip_suffix(&suffix)?.parse().ok()
}

#[test]
fn a_small_model_says_it_was_explored_whole_and_a_large_one_does_not() {
    let (err, runs) = in_child("small", &[]);
    let n = explored(&err, 2).unwrap_or_else(|| panic!("{err}"));
    // The search deepens the bound: 0, 1, then 2 (the N schedules of the last level).
    assert!(n > 1 && n < runs, "{n} of {runs}: {err}");
    let (err, runs) = in_child("large", &[]);
    assert_eq!(explored(&err, 2), None, "{err}");
    assert!(runs > 1, "the portfolio ran after the search: {err}");
}

#[test]
fn loom_max_preemptions_changes_the_number_of_schedules() {
    let explored_with = |bound: u32| {
        let (err, runs) = in_child("small", &[("LOOM_MAX_PREEMPTIONS", &bound.to_string())]);
        (explored(&err, bound).unwrap_or_else(|| panic!("{err}")), runs)
    };
    let (err, _) = in_child("small", &[]);
    let default = explored(&err, 2).unwrap_or_else(|| panic!("{err}"));
    let (zero, zero_runs) = explored_with(0);
    let (one, one_runs) = explored_with(1);
    assert_eq!(explored_with(2).0, default, "the default bound is 2");
    assert!(zero < one && one < default, "{zero} {one} {default}");
    assert_eq!(zero, zero_runs, "bound 0 is one level");
    assert_eq!(one_runs, zero + one, "bound 1: the levels 0 and 1");
    let (_, by_builder) = outcomes(Some(1), tickets::<2>);
    assert_eq!(by_builder, one_runs, "Builder::preemption_bound(1) as LOOM_MAX_PREEMPTIONS=1");
}

/// The consumer reads the data when it sees the flag still unset: main wrote the data before
/// setting the flag, Release, so the read races only in a schedule where the consumer's load
/// reads the initial store although main's store came first (a stale load), or runs first.
fn stale_flag() {
    let data = Arc::new(Shared::new(0u64));
    let flag = Arc::new(AtomicBool::new(false));
    let (d, f) = (data.clone(), flag.clone());
    let consumer = thread::spawn(move || {
        if !f.load(Acquire) {
            d.with(|p| unsafe { *p });
        }
    });
    data.with_mut(|p| unsafe { *p = 42 });
    flag.store(true, Release);
    consumer.join().unwrap();
}

/// Runs `f` and returns its panic message, if it panicked.
fn panic_message(f: impl FnOnce()) -> Option<String> {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    r.err().map(|p| p.downcast_ref::<String>().cloned().unwrap_or_default())
}

#[test]
fn a_race_the_search_finds_replays_with_its_token() {
    let message = panic_message(|| racer::model(stale_flag)).expect("the search finds the race");
    assert!(message.contains("data race(s) found in iteration"), "{message}");
    assert!(message.contains("(search path dfs@"), "found by the search: {message}");
    let token = replay_token(&message);
    assert!(token.starts_with("dfs@") && token != "dfs@", "a path with a non-default choice: {token}");
    assert_eq!(race_lines(&message).len(), 3, "{message}");
    for _ in 0..3 {
        let again = panic_message(|| racer::model::Builder::new().replay(&token).check(stale_flag))
            .expect("the replay finds the race again");
        assert!(again.contains("found in iteration 1 "), "a replay is one iteration: {again}");
        assert_eq!(replay_token(&again), token);
        assert_eq!(race_lines(&again), race_lines(&message), "the same race");
    }
    // The default path (no preemption, newest stores) does not race.
    assert_eq!(panic_message(|| racer::model::Builder::new().replay("dfs@").check(stale_flag)), None);
}
