//! racer on a real lock-free crate: the test suite of the published `concurrent-queue` 2.5.0
//! (from the crates.io registry, pinned), ported to racer's types in
//! `real-crates/concurrent-queue`, with the crate's own source built on racer's types through
//! its `cfg(loom)` seam and racer's loom stand-in (`loom-compat`).
//!
//! This test runs that suite as a child `cargo test` (its own workspace, lock file and target
//! directory `<target>/real-crates`, so it never waits on this build's lock), with the same
//! feature state as this build: `--features race-detect` when racer is enabled, plain
//! otherwise. It fails if the suite fails or if any data race is reported: a report on this
//! crate would be a false one (or a real bug in concurrent-queue, which would need showing).
//!
//!     RACER_REGISTRY_SUITES=1 cargo test --features race-detect --test real_crates -- --nocapture
//!
//! The first run compiles the child crate and its dependencies (about half a minute) and needs
//! the registry (or a filled cargo cache), so the test is skipped, with a printed line, unless
//! `RACER_REGISTRY_SUITES=1` (`.ci/run` sets it; the child runner and the switch:
//! `tests/child_support/cargo.rs`).

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

#[path = "child_support/cargo.rs"]
mod child_cargo;
use child_cargo::{real_crates_target, skipped};

/// Tests in the ported suite: bounded 13, unbounded 7, single 11, loom 2.
const EXPECTED_TESTS: usize = 33;

/// Generous: the suite takes 10 to 20 seconds either way on two otherwise idle cores (after its
/// build), but its spinning tests slow down by orders of magnitude when the machine is
/// oversubscribed; a livelock must still end the test instead of hanging CI.
const TIMEOUT: Duration = Duration::from_secs(30 * 60);

fn manifest() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("real-crates/concurrent-queue/Cargo.toml")
}

#[test]
fn concurrent_queue_suite_passes_without_a_race_report() {
    if skipped() {
        return;
    }
    // RUSTFLAGS gets `--cfg loom` added (the seam); CARGO_ENCODED_RUSTFLAGS would override it.
    let rustflags = match std::env::var("RUSTFLAGS") {
        Ok(outer) if !outer.trim().is_empty() => format!("{outer} --cfg loom"),
        _ => "--cfg loom".to_owned(),
    };
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args(["test", "--manifest-path"]).arg(manifest());
    if racer::ENABLED {
        cmd.args(["--features", "race-detect"]);
    }
    // One test at a time: the tests spin (up to 8 threads each), and two of them at once on a
    // small machine starve each other (with race-detect a spsc handoff then fell to ~25 items/s).
    cmd.args(["--", "--test-threads=1"]);
    cmd.env("RUSTFLAGS", &rustflags).env("CARGO_TARGET_DIR", real_crates_target());
    let r = child_cargo::run(cmd, TIMEOUT);
    let races = r.race_lines();
    assert!(races.is_empty(), "racer reported data races on concurrent-queue: {races:#?}\n{}", r.all());
    assert!(r.success, "the suite failed\n{}", r.all());
    assert_eq!(r.passed(), EXPECTED_TESTS, "every ported test ran and passed\n{}", r.all());
}
