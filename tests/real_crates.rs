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
//!     cargo test --features race-detect --test real_crates -- --nocapture
//!
//! The first run compiles the child crate and its dependencies (about half a minute) and needs
//! the registry (or a filled cargo cache).

#![cfg(unix)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Tests in the ported suite: bounded 13, unbounded 7, single 11, loom 2.
const EXPECTED_TESTS: usize = 33;

/// Generous: the suite takes 10 to 20 seconds either way on two otherwise idle cores (after its
/// build), but its spinning tests slow down by orders of magnitude when the machine is
/// oversubscribed; a livelock must still end the test instead of hanging CI.
const TIMEOUT: Duration = Duration::from_secs(30 * 60);

fn manifest() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("real-crates/concurrent-queue/Cargo.toml")
}

/// `<target>/real-crates`, next to this build's own `debug/` (CARGO_TARGET_TMPDIR is `<target>/tmp`).
fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).parent().expect("the target directory").join("real-crates")
}

/// Lines of `text` that speak of a data race (racer's reports, its `loom::model` panic, its
/// end-of-process summary); never the all-clear "no data races found".
fn race_lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.contains("data race") && !l.contains("no data races")).collect()
}

/// The number of passed tests over every `test result:` line.
fn passed(text: &str) -> usize {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("test result: ok. "))
        .filter_map(|rest| rest.split(' ').next()?.parse::<usize>().ok())
        .sum()
}

#[test]
fn concurrent_queue_suite_passes_without_a_race_report() {
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
    cmd.env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .env("RUSTFLAGS", &rustflags)
        .env("CARGO_TARGET_DIR", target_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let shown = format!("{cmd:?}");
    eprintln!("running: {shown}");

    let started = Instant::now();
    // Its own process group, so that a timeout ends the test binaries cargo started, not
    // only cargo.
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd.spawn().expect("cargo starts");
    let mut out_pipe = child.stdout.take().expect("piped stdout");
    let mut err_pipe = child.stderr.take().expect("piped stderr");
    let out_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out_pipe.read_to_end(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err_pipe.read_to_end(&mut s);
        s
    });
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for cargo") {
            break Some(status);
        }
        if started.elapsed() > TIMEOUT {
            // Our own child's process group (cargo and the test binaries it runs), by its id.
            let _ = Command::new("kill").args(["-KILL", "--", &format!("-{}", child.id())]).status();
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let stdout = String::from_utf8_lossy(&out_reader.join().expect("stdout reader")).into_owned();
    let stderr = String::from_utf8_lossy(&err_reader.join().expect("stderr reader")).into_owned();
    let all = format!("--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}");
    eprintln!("the suite took {:.1?} (including any build)", started.elapsed());

    let status = match status {
        Some(status) => status,
        None => panic!("{shown} did not finish within {TIMEOUT:?}\n{all}"),
    };
    let races = race_lines(&stdout).into_iter().chain(race_lines(&stderr)).collect::<Vec<_>>();
    assert!(races.is_empty(), "racer reported data races on concurrent-queue: {races:#?}\n{all}");
    assert!(status.success(), "{shown} failed ({status})\n{all}");
    let passed = passed(&stdout);
    assert_eq!(passed, EXPECTED_TESTS, "every ported test ran and passed\n{all}");
}

#[test]
fn race_lines_ignore_the_all_clear() {
    let text = "racer: no data races found\nWARNING: racer: data race (flow: ...)\nok";
    assert_eq!(race_lines(text), ["WARNING: racer: data race (flow: ...)"]);
    let results = "test result: ok. 13 passed; 0 failed\n   test result: ok. 2 passed; 0 failed";
    assert_eq!(passed(results), 15);
}
