//! racer under the test harness, as `cargo test` and `cargo nextest run` drive it: races in
//! plain `#[test]`s (outside `racer::check`) make the test process exit with status 66, reports
//! of tests running in parallel never mix, and `Report::to_json` parses.
//!
//! cargo-nextest runs each test in its own process, `TEST_BINARY --exact NAME --nocapture`;
//! the tests below run this very binary that way, as a child, selecting the fixture tests at
//! the end of the file (which race only when `RACER_HARNESS_FIXTURE=1` is set by a driver).
//!
//!     cargo test --features race-detect --test cli_harness
#![cfg(feature = "race-detect")]

use std::process::{Command, Output};

use racer::sync::Arc;
use racer::Shared;

const FIXTURE_SWITCH: &str = "RACER_HARNESS_FIXTURE";

/// Runs this test binary as nextest does, on the tests `args` select.
fn run_self(args: &[&str], fixtures_on: bool) -> Output {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(args).env_remove("RACER_OPTIONS").env_remove(FIXTURE_SWITCH);
    if fixtures_on {
        cmd.env(FIXTURE_SWITCH, "1");
    }
    cmd.output().expect("the test binary runs")
}

fn blocks(stderr: &str) -> Vec<&str> {
    stderr.split("==================\n").filter(|b| b.starts_with("WARNING: racer: data race")).collect()
}

#[test]
fn a_racy_plain_test_fails_its_process_as_under_nextest() {
    let out = run_self(&["--exact", "fixture_plain_test_a", "--nocapture"], true);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The harness saw a passing test; racer turns the process's status into 66.
    assert!(stdout.contains("test fixture_plain_test_a ... ok"), "{stdout}");
    assert_eq!(out.status.code(), Some(66), "stdout:\n{stdout}\nstderr:\n{stderr}");
    let reports = blocks(&stderr);
    assert_eq!(reports.len(), 1, "{stderr}");
    // The harness names each test's thread after the test, so the report says which test raced.
    assert!(reports[0].contains("  Write by thread 'fixture_plain_test_a' at tests/cli_harness.rs:"), "{stderr}");
    assert!(reports[0].contains("  Previous write by thread 'helper_a' at tests/cli_harness.rs:"), "{stderr}");
    // The summary names the test too.
    assert!(
        stderr.ends_with("racer: 1 data race(s) reported in test(s) `fixture_plain_test_a`; exiting with status 66\n"),
        "{stderr}"
    );
}

#[test]
fn the_same_test_without_its_race_exits_0() {
    let out = run_self(&["--exact", "fixture_plain_test_a", "--nocapture"], false);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(blocks(&String::from_utf8_lossy(&out.stderr)).is_empty());
}

#[test]
fn parallel_plain_tests_never_mix_their_reports() {
    let out = run_self(&["fixture_plain_test_", "--test-threads=2"], true);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(66), "{stderr}");
    let mut reports = blocks(&stderr);
    reports.sort_by_key(|r| r.contains("fixture_plain_test_b"));
    assert_eq!(reports.len(), 2, "{stderr}");
    for (report, own, other) in [(reports[0], "a", "b"), (reports[1], "b", "a")] {
        assert!(report.contains(&format!("thread 'fixture_plain_test_{own}'")), "{report}");
        assert!(report.contains(&format!("thread 'helper_{own}'")), "{report}");
        assert!(!report.contains(&format!("_{other}'")), "a report holds one test's race only: {report}");
        // Whole: both accesses and the helper's spawn site, in one block.
        for part in ["  Write by thread", "  Previous write by thread", "  Thread 'helper_"] {
            assert!(report.contains(part), "{part} missing: {report}");
        }
    }
    // Both tests, in the order their races were reported.
    assert!(
        ["`fixture_plain_test_a`, `fixture_plain_test_b`", "`fixture_plain_test_b`, `fixture_plain_test_a`"]
            .iter()
            .any(|tests| stderr
                .contains(&format!("racer: 2 data race(s) reported in test(s) {tests}; exiting with status 66\n"))),
        "{stderr}"
    );
}

/// A test in a module is named by its path, as libtest names it (`nested::name`), in the
/// report and in the process's summary line.
#[test]
fn the_summary_names_a_test_in_a_module_by_its_path() {
    let out = run_self(&["--exact", "nested::fixture_nested_plain", "--nocapture"], true);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(66), "{stderr}");
    let reports = blocks(&stderr);
    assert_eq!(reports.len(), 1, "{stderr}");
    assert!(reports[0].contains("  In test `nested::fixture_nested_plain`\n"), "{stderr}");
    assert!(
        stderr.ends_with(
            "racer: 1 data race(s) reported in test(s) `nested::fixture_nested_plain`; exiting with status 66\n"
        ),
        "{stderr}"
    );
}

/// The same for a `#[racer::test]` in a module: its failure's count line names it by its path.
#[test]
fn a_racer_test_in_a_module_is_named_by_its_path() {
    let out = run_self(&["--exact", "nested::fixture_nested_racer", "--nocapture"], true);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("test nested::fixture_nested_racer ... FAILED"), "{stdout}");
    assert!(stderr.contains("  In test `nested::fixture_nested_racer`\n"), "{stderr}");
    assert!(stderr.contains("racer: 1 data race(s) found in test `nested::fixture_nested_racer`\n"), "{stderr}");
    assert!(!stderr.contains("found in test `fixture_nested_racer`"), "{stderr}");
}

/// Two checks in parallel threads, each with its own race: each report has its own race only.
#[test]
fn parallel_checks_keep_their_own_reports() {
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
    let run = |which: &'static str| {
        let barrier = barrier.clone();
        std::thread::spawn(move || {
            racer::check(|| {
                barrier.wait();
                race_between(which, &format!("helper_{which}"));
            })
        })
    };
    let (a, b) = (run("a"), run("b"));
    let (a, b) = (a.join().unwrap(), b.join().unwrap());
    for (report, own) in [(&a, "a"), (&b, "b")] {
        assert_eq!(report.len(), 1, "{report}");
        assert_eq!(report.races()[0].previous().thread_name(), Some(format!("helper_{own}").as_str()));
    }
    assert_ne!(a.races()[0].current().location(), b.races()[0].current().location());
}

#[test]
fn report_to_json_parses_with_serde_json() {
    let report = racer::check(|| race_between("a", "json_helper"));
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).expect("valid JSON");
    let races = json["races"].as_array().unwrap();
    assert_eq!(races.len(), 1, "{json}");
    let race = &races[0];
    assert_eq!(race["kind"], "output");
    assert_eq!(race["type"], "u64");
    assert_eq!(race["previous"]["thread"]["name"], "json_helper");
    assert_eq!(race["previous"]["access"], "write");
    assert_eq!(race["current"]["access"], "write");
    let site = report.races()[0].current().location();
    assert_eq!(race["current"]["site"]["file"], site.file());
    assert_eq!(race["current"]["site"]["line"], site.line());
    assert_eq!(race["current"]["frames"][0]["line"], site.line());
    assert!(race["previous"]["spawned_at"].as_array().is_some_and(|f| !f.is_empty()), "{json}");
    assert!(race["current"]["after_sync"].is_string(), "{json}");
    assert_eq!(racer::check(|| {}).to_json(), r#"{"races":[]}"#);
}

/// A thread named `helper` writes a cell, then (with no racer-visible edge: std's channel) the
/// calling thread writes it too. `which` picks one of two distinct write sites.
fn race_between(which: &str, helper: &str) {
    write_after_helper(which, helper, false)
}

/// As `race_between`; with `join_first` the helper is joined before the second write, which
/// orders the two writes.
fn write_after_helper(which: &str, helper: &str, join_first: bool) {
    let cell = Arc::new(Shared::new(0u64));
    let theirs = cell.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    let h = racer::thread::Builder::new()
        .name(helper.into())
        .spawn(move || {
            theirs.with_mut(|p| unsafe { *p = 1 });
            tx.send(()).unwrap();
        })
        .unwrap();
    rx.recv().unwrap();
    let h = if join_first {
        h.join().unwrap();
        None
    } else {
        Some(h)
    };
    if which == "a" {
        cell.with_mut(|p| unsafe { *p = 2 });
    } else {
        cell.with_mut(|p| unsafe { *p = 3 });
    }
    if let Some(h) = h {
        h.join().unwrap();
    }
}

/// Fixture for the tests above: races outside any check (so racer reports to stderr and sets
/// the exit status) when a driver sets `RACER_HARNESS_FIXTURE`. Otherwise the same writes are
/// ordered by a join, and a (false) report would fail this whole test binary with status 66.
#[test]
fn fixture_plain_test_a() {
    write_after_helper("a", "helper_a", std::env::var_os(FIXTURE_SWITCH).is_none());
}

/// Fixture: as `fixture_plain_test_a`, at another write site.
#[test]
fn fixture_plain_test_b() {
    write_after_helper("b", "helper_b", std::env::var_os(FIXTURE_SWITCH).is_none());
}

/// Fixtures in a module, for the tests that read how a test in a module is named.
mod nested {
    use super::{write_after_helper, FIXTURE_SWITCH};

    #[test]
    fn fixture_nested_plain() {
        write_after_helper("a", "helper_n", std::env::var_os(FIXTURE_SWITCH).is_none());
    }

    #[racer::test]
    fn fixture_nested_racer() {
        write_after_helper("a", "helper_n", std::env::var_os(FIXTURE_SWITCH).is_none());
    }
}
