//! The detector as a process sees it: the fixture program `racer-fixture`
//! (tests/fixtures/racy_program.rs) run as a child with different `RACER_OPTIONS`, asserting
//! its exit status, its standard error and the files it writes.
//!
//!     cargo test --features race-detect --test cli_process
#![cfg(feature = "race-detect")]

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the fixture with `RACER_OPTIONS=options` (and nothing inherited from our environment).
fn run(scenario: &str, options: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_racer-fixture"))
        .arg(scenario)
        .env_remove("RACER_OPTIONS")
        .env("RACER_OPTIONS", options)
        .output()
        .expect("the fixture runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The text reports in `text`, one string per `WARNING` block.
fn reports(text: &str) -> Vec<String> {
    text.split("==================\n")
        .filter(|b| b.starts_with("WARNING: racer: data race"))
        .map(str::to_owned)
        .collect()
}

/// A fresh path for this test's files (the directory exists, the file does not).
fn scratch(name: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("cli_process-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

const FILL_SITE: &str = "tests/fixtures/racy_program.rs:20:14";
const BUMP_SITE: &str = "tests/fixtures/racy_program.rs:28:14";

#[test]
fn a_race_gives_status_66_a_full_report_and_a_summary() {
    let out = run("one", "");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(66), "stderr:\n{err}");
    assert!(stdout(&out).contains("fixture: done"), "the program ran to its end");
    let blocks = reports(&err);
    assert_eq!(blocks.len(), 1, "{err}");
    let r = &blocks[0];
    assert!(
        r.starts_with("WARNING: racer: data race (output: write, then a parallel write) on Shared<u64> at 0x"),
        "{r}"
    );
    assert!(r.contains(&format!("  Write by thread 'second' at {FILL_SITE}:")), "{r}");
    assert!(r.contains(&format!("  Previous write by thread 'first' at {FILL_SITE}:")), "{r}");
    assert!(r.contains(&format!("    #0 racer_fixture::cache::fill  {FILL_SITE}")), "{r}");
    // Why the two are unordered: each thread's last synchronisation is its own start.
    assert!(
        r.contains("last synchronisation before it: starting from spawn at tests/fixtures/racy_program.rs:43:"),
        "{r}"
    );
    assert!(
        r.contains("last synchronisation before it: starting from spawn at tests/fixtures/racy_program.rs:37:"),
        "{r}"
    );
    // Neither thread synchronised through racer after its start: the report says what racer
    // cannot see.
    assert!(r.contains("synchronised through nothing racer sees between its start and its write"), "{r}");
    assert!(
        r.contains(
            "  Thread 'second' spawned at:\n    #0 racer_fixture::unordered  tests/fixtures/racy_program.rs:43:"
        ),
        "{r}"
    );
    assert!(
        r.contains("  Thread 'first' spawned at:\n    #0 racer_fixture::unordered  tests/fixtures/racy_program.rs:37:"),
        "{r}"
    );
    assert!(err.ends_with("racer: 1 data race(s) reported; exiting with status 66\n"), "{err}");
}

#[test]
fn no_race_gives_status_0_and_says_nothing() {
    let out = run("clean", "");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stderr(&out), "");
    assert_eq!(stdout(&out), "fixture: done\n");
}

#[test]
fn exitcode_sets_the_status_of_a_racy_run_only() {
    let out = run("two", "exitcode=7");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(7), "{err}");
    assert_eq!(reports(&err).len(), 2, "{err}");
    assert!(err.ends_with("racer: 2 data race(s) reported; exiting with status 7\n"), "{err}");

    assert_eq!(run("clean", "exitcode=7").status.code(), Some(0));
}

#[test]
fn exitcode_0_reports_but_leaves_the_status_alone() {
    let out = run("one", "exitcode=0");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(reports(&err).len(), 1, "{err}");
    assert!(err.ends_with("racer: 1 data race(s) reported; exit status left unchanged (exitcode=0)\n"), "{err}");
}

#[test]
fn races_inside_check_go_to_its_report_not_to_the_exit_status() {
    let out = run("checked", "");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout(&out), "fixture: check found 1 race(s)\nfixture: done\n");
    assert_eq!(stderr(&out), "");
}

#[test]
fn halt_on_error_stops_at_the_first_report() {
    let out = run("two", "halt_on_error=1");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(66), "{err}");
    let blocks = reports(&err);
    assert_eq!(blocks.len(), 1, "{err}");
    assert!(blocks[0].contains(FILL_SITE), "the first race is the cache's: {err}");
    assert!(!err.contains(BUMP_SITE), "nothing after the first race ran: {err}");
    assert!(err.ends_with("racer: halt_on_error: stopping at the first data race; exiting with status 66\n"), "{err}");
    assert!(!stdout(&out).contains("fixture: done"), "the program did not get to its end");

    let out = run("two", "halt_on_error=1,exitcode=9");
    assert_eq!(out.status.code(), Some(9));
    // halt_on_error=0 is the default: both races reported, the program ends normally.
    let out = run("two", "halt_on_error=0");
    assert_eq!((out.status.code(), reports(&stderr(&out)).len()), (Some(66), 2));
    assert!(stdout(&out).contains("fixture: done"));
}

#[test]
fn log_path_gets_the_reports_appended() {
    let log = scratch("races.log");
    std::fs::write(&log, "line of an earlier run\n").unwrap();
    let out = run("one", &format!("log_path={}", log.display()));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(66), "{err}");
    assert!(reports(&err).is_empty(), "the report went to the log, not to stderr: {err}");
    assert_eq!(err, format!("racer: 1 data race(s) reported (to {}); exiting with status 66\n", log.display()));
    let logged = std::fs::read_to_string(&log).unwrap();
    assert!(logged.starts_with("line of an earlier run\n=================="), "appended: {logged}");
    let logged_reports = reports(&logged);
    assert_eq!(logged_reports.len(), 1, "{logged}");
    assert!(logged_reports[0].contains(&format!("Write by thread 'second' at {FILL_SITE}:")), "{logged}");

    // A second run appends after the first.
    run("two", &format!("log_path={}", log.display()));
    assert_eq!(reports(&std::fs::read_to_string(&log).unwrap()).len(), 3);
}

#[test]
fn log_path_is_created_when_absent() {
    let log = scratch("new.log");
    let out = run("one", &format!("log_path={},report=json", log.display()));
    assert_eq!(out.status.code(), Some(66));
    let logged = std::fs::read_to_string(&log).expect("the log was created");
    assert_eq!(logged.lines().count(), 1, "one JSON line per race: {logged}");
    serde_json::from_str::<serde_json::Value>(logged.trim_end()).expect("the line is JSON");
}

#[test]
fn a_log_path_that_cannot_be_opened_stops_the_program_at_start_up() {
    let log = scratch("no-such-dir").join("races.log");
    let out = run("one", &format!("log_path={}", log.display()));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "racer: RACER_OPTIONS: cannot open log_path '{}': No such file or directory (os error 2)\n",
            log.display()
        )
    );
    assert_eq!(stdout(&out), "", "main never ran");
}

#[test]
fn a_suppression_hides_exactly_the_matching_race() {
    let rules = scratch("supp.txt");
    std::fs::write(&rules, "# the cache is refilled idempotently\n\n   race:racer_fixture::cache::\n").unwrap();
    let out = run("two", &format!("suppressions={}", rules.display()));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(66), "{err}");
    let blocks = reports(&err);
    assert_eq!(blocks.len(), 1, "{err}");
    assert!(blocks[0].contains(&format!("Write by thread 'second' at {BUMP_SITE}:")), "{err}");
    assert!(!err.contains("racer_fixture::cache::fill"), "the suppressed race appears nowhere: {err}");
    assert!(err.ends_with("racer: 1 data race(s) reported; exiting with status 66\n"), "{err}");
}

#[test]
fn suppressing_every_race_gives_a_clean_run() {
    let rules = scratch("supp-all.txt");
    std::fs::write(&rules, "race:^racer_fixture::cache::fill$\nrace:counter::bump\n").unwrap();
    let out = run("two", &format!("suppressions={}", rules.display()));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    // ... and inside check the suppressed race is not in the report either.
    let out = run("checked", &format!("suppressions={}", rules.display()));
    assert_eq!(stdout(&out), "fixture: check found 0 race(s)\nfixture: done\n");
}

#[test]
fn a_file_pattern_suppresses_the_races_in_that_file() {
    let rules = scratch("supp-file.txt");
    std::fs::write(&rules, "race:^tests/fixtures/*_program.rs$\n").unwrap();
    let out = run("two", &format!("suppressions={}", rules.display()));
    assert_eq!((out.status.code(), stderr(&out)), (Some(0), String::new()));
}

#[test]
fn a_suppression_that_matches_nothing_hides_nothing() {
    let rules = scratch("supp-none.txt");
    std::fs::write(&rules, "race:racer_fixture::elsewhere::\n").unwrap();
    let out = run("two", &format!("suppressions={}", rules.display()));
    assert_eq!((out.status.code(), reports(&stderr(&out)).len()), (Some(66), 2));
}

#[test]
fn a_malformed_suppressions_line_is_named() {
    let rules = scratch("supp-bad.txt");
    std::fs::write(&rules, "# ok so far\nrace:cache::\ncache::fill\n").unwrap();
    let out = run("clean", &format!("suppressions={}", rules.display()));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "racer: suppressions {}:3: expected 'race:<pattern>' or 'deadlock:<pattern>' (or a '#' comment or a blank line), found 'cache::fill'\n",
            rules.display()
        )
    );
    assert_eq!(stdout(&out), "");
}

#[test]
fn an_unreadable_suppressions_file_is_named() {
    let rules = scratch("supp-missing.txt");
    let out = run("clean", &format!("suppressions={}", rules.display()));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        format!(
            "racer: RACER_OPTIONS: cannot read suppressions '{}': No such file or directory (os error 2)\n",
            rules.display()
        )
    );
}

#[test]
fn an_unknown_option_stops_the_program_naming_it() {
    let out = run("one", "halt_on_error=1,foo=1");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "racer: RACER_OPTIONS: unknown option 'foo' (known: halt_on_error, exitcode, report, log_path, suppressions, history, algorithm, stats, detect_deadlocks)\n"
    );
    assert_eq!(stdout(&out), "", "main never ran");
}

#[test]
fn a_bad_value_stops_the_program_naming_key_and_accepted_values() {
    let cases = [
        ("exitcode=300", "bad value '300' for 'exitcode' (expected an integer 0..=255)"),
        ("report=xml", "bad value 'xml' for 'report' (expected text or json)"),
        ("halt_on_error=true", "bad value 'true' for 'halt_on_error' (expected 0 or 1)"),
        ("history=0", "bad value '0' for 'history' (expected an integer 1..=256)"),
        ("algorithm=6", "bad value '6' for 'algorithm' (expected 3, 4 or 5)"),
    ];
    for (options, message) in cases {
        let out = run("clean", options);
        assert_eq!(out.status.code(), Some(2), "{options}");
        assert_eq!(stderr(&out), format!("racer: RACER_OPTIONS: {message}\n"), "{options}");
        assert_eq!(stdout(&out), "", "{options}: main never ran");
    }
}

#[test]
fn every_algorithm_is_accepted_at_start_up() {
    for n in 3..=5 {
        let out = run("clean", &format!("algorithm={n}"));
        assert_eq!(out.status.code(), Some(0), "algorithm={n}: {}", stderr(&out));
    }
}

#[test]
fn report_json_writes_one_parsable_object_per_race() {
    let out = run("two", "report=json");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(66), "{err}");
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with('{')).collect();
    assert_eq!(lines.len(), 2, "{err}");
    // Each starts a line of its own, even after a partial line (`cargo test -q`'s dots).
    assert_eq!(err.matches("\n{").count(), 2, "{err}");
    assert!(err.ends_with("racer: 2 data race(s) reported; exiting with status 66\n"), "{err}");
    let races: Vec<serde_json::Value> = lines.iter().map(|l| serde_json::from_str(l).expect("a JSON object")).collect();
    for (race, (function, line)) in
        races.iter().zip([("racer_fixture::cache::fill", 20), ("racer_fixture::counter::bump", 28)])
    {
        assert_eq!(race["kind"], "output");
        assert_eq!(race["type"], "u64");
        assert!(race["address"].as_str().unwrap().starts_with("0x"), "{race}");
        for (side, thread) in [("current", "second"), ("previous", "first")] {
            let a = &race[side];
            assert_eq!(a["access"], "write", "{side}");
            assert_eq!(a["thread"]["name"], thread, "{side}");
            assert!(a["thread"]["id"].as_u64().unwrap() >= 1);
            assert_eq!(a["site"]["file"], "tests/fixtures/racy_program.rs");
            assert_eq!(a["site"]["line"], line);
            assert_eq!(a["site"]["column"], 14);
            assert_eq!(a["frames"][0]["function"], function);
            assert_eq!(a["frames"][0]["file"], "tests/fixtures/racy_program.rs");
            assert_eq!(a["frames"][0]["line"], line);
            assert!(a["after_sync"]
                .as_str()
                .unwrap()
                .starts_with("starting from spawn at tests/fixtures/racy_program.rs:"));
            assert_eq!(a["spawned_at"][0]["function"], "racer_fixture::unordered");
        }
        assert_ne!(race["current"]["thread"]["id"], race["previous"]["thread"]["id"]);
    }
}

#[test]
fn history_limits_the_frames_kept_per_stack() {
    let out = run("one", "report=json,history=1");
    let err = stderr(&out);
    let line = err.lines().find(|l| l.starts_with('{')).expect("a JSON report");
    let race: serde_json::Value = serde_json::from_str(line).unwrap();
    for side in ["current", "previous"] {
        assert_eq!(race[side]["frames"].as_array().unwrap().len(), 1, "{race}");
        assert_eq!(race[side]["frames"][0]["function"], "racer_fixture::cache::fill");
        assert_eq!(race[side]["spawned_at"].as_array().unwrap().len(), 1, "{race}");
    }
    // Without the option, more than one frame is kept.
    let out = run("one", "report=json");
    let line = stderr(&out).lines().find(|l| l.starts_with('{')).map(str::to_owned).unwrap();
    let race: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert!(race["previous"]["frames"].as_array().unwrap().len() > 1, "{race}");
}

#[test]
fn stats_prints_the_storage_line_at_process_end() {
    let out = run("clean", "stats=1");
    assert_eq!(out.status.code(), Some(0));
    let err = stderr(&out);
    assert!(err.starts_with("racer: stats: ") && err.contains(" cells tracked, "), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// The deadlock reports in `text`.
fn deadlock_reports(text: &str) -> Vec<String> {
    text.split("==================\n")
        .filter(|b| b.starts_with("WARNING: racer: lock-order") || b.starts_with("WARNING: racer: deadlock"))
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_lock_order_inversion_outside_check_is_reported_with_status_66() {
    let out = run("inversion", "");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(66), "stderr:\n{err}");
    assert!(stdout(&out).contains("fixture: done"), "it did not hang: {err}");
    let blocks = deadlock_reports(&err);
    assert_eq!(blocks.len(), 1, "{err}");
    assert!(
        blocks[0].starts_with("WARNING: racer: lock-order inversion (potential deadlock): a cycle of 2 locks"),
        "{err}"
    );
    assert!(blocks[0].contains("thread 'alice' took Mutex"), "{err}");
    assert!(blocks[0].contains("thread 'bob' took Mutex"), "{err}");
    assert!(blocks[0].contains("racer_fixture::bank::transfer"), "{err}");
    assert!(err.ends_with("racer: 0 data race(s) and 1 deadlock(s) reported; exiting with status 66\n"), "{err}");
}

#[test]
fn a_deadlock_suppression_hides_the_inversion() {
    let rules = scratch("deadlock.supp");
    std::fs::write(&rules, "# transfers always go through the bank's order\ndeadlock:racer_fixture::bank::transfer\n")
        .unwrap();
    let out = run("inversion", &format!("suppressions={}", rules.display()));
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "stderr:\n{err}");
    assert!(deadlock_reports(&err).is_empty(), "{err}");
    // A race: rule does not hide a deadlock.
    std::fs::write(&rules, "race:racer_fixture::bank::transfer\n").unwrap();
    let out = run("inversion", &format!("suppressions={}", rules.display()));
    assert_eq!(out.status.code(), Some(66), "stderr:\n{}", stderr(&out));
}

#[test]
fn detect_deadlocks_0_turns_the_detection_off() {
    let out = run("inversion", "detect_deadlocks=0");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "stderr:\n{err}");
    assert!(deadlock_reports(&err).is_empty(), "{err}");
    let out = run("inversion", "detect_deadlocks=2");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr(&out), "racer: RACER_OPTIONS: bad value '2' for 'detect_deadlocks' (expected 0 or 1)\n");
}

#[test]
fn a_hang_outside_check_is_reported_and_ends_the_process() {
    let out = run("hang", "");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(66), "stderr:\n{err}");
    assert!(!stdout(&out).contains("fixture: done"), "{err}");
    let hang = deadlock_reports(&err)
        .into_iter()
        .find(|b| b.starts_with("WARNING: racer: deadlock: 2 threads wait for each other's locks in a cycle"));
    let hang = hang.unwrap_or_else(|| panic!("no hang report: {err}"));
    assert!(hang.contains("Thread 'x' waits to lock Mutex"), "{hang}");
    assert!(hang.contains("Thread 'y' waits to lock Mutex"), "{hang}");
    assert!(hang.contains("held by thread 'y'") && hang.contains("held by thread 'x'"), "{hang}");
    assert!(err.contains("the program is deadlocked: exiting with status 66 instead of hanging"), "{err}");
}

#[test]
fn deadlocks_as_json_lines() {
    let out = run("inversion", "report=json");
    let err = stderr(&out);
    let line = err.lines().find(|l| l.starts_with("{\"deadlock\":")).unwrap_or_else(|| panic!("{err}"));
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    let d = &v["deadlock"];
    assert_eq!(d["kind"], "lock_order_inversion");
    let edges = d["edges"].as_array().unwrap();
    assert_eq!(edges.len(), 2);
    let names: Vec<&str> = edges.iter().map(|e| e["thread"]["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"alice") && names.contains(&"bob"), "{line}");
    for e in edges {
        assert_eq!(e["held"]["object"], "Mutex");
        assert_eq!(e["held"]["site"]["file"], "tests/fixtures/racy_program.rs");
        assert_eq!(e["next"]["frames"][0]["function"], "racer_fixture::bank::transfer");
    }
}

#[test]
fn a_hang_in_a_scope_inside_check_ends_the_process_with_the_checks_report() {
    let out = run("scope_hang", "");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(66), "stderr:\n{err}");
    assert!(!stdout(&out).contains("check returned"), "{err}");
    let blocks = deadlock_reports(&err);
    assert!(blocks.iter().any(|b| b.starts_with("WARNING: racer: lock-order inversion")), "{err}");
    let hang = blocks
        .iter()
        .find(|b| b.starts_with("WARNING: racer: deadlock: 2 threads wait"))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        hang.contains("Thread 'scoped 0' waits to lock Mutex")
            && hang.contains("Thread 'scoped 1' waits to lock Mutex"),
        "{hang}"
    );
    assert!(err.contains("the program is deadlocked: exiting with status 66 instead of hanging"), "{err}");
}
