//! What a race report says of why the two accesses are unordered, and the stacks it shows:
//! hints only where racer's view makes them true, no advice for the test harness's threads,
//! no frames the test's scaffolding generated.
//!
//!     cargo test --test report_hints                          (feature off: no reports)
//!     cargo test --features race-detect --test report_hints
//!
//! The fixtures come first: the expected reports name their lines.

use std::sync::mpsc as std_mpsc;

use racer::sync::{Arc, Mutex};
use racer::Shared;

/// Set by the tests that run this binary as a child, to make the fixture tests race.
const SWITCH: &str = "RACER_HINTS_FIXTURE";

/// The bank example's bug: the writer holds the lock, the auditor reads without it. A std
/// channel (which racer does not see) makes the read come first.
fn missing_lock() -> racer::Report {
    racer::check(|| {
        let lock = Arc::new(Mutex::new(()));
        let balance = Arc::new(Shared::new(100u64));
        let (read, wait) = std_mpsc::channel();
        let b = Arc::clone(&balance);
        let auditor = racer::thread::Builder::new()
            .name("auditor".into())
            .spawn(move || {
                b.with(|p| unsafe { *p });
                read.send(()).unwrap();
            })
            .unwrap();
        let (l, b) = (Arc::clone(&lock), Arc::clone(&balance));
        let writer = racer::thread::Builder::new()
            .name("writer".into())
            .spawn(move || {
                wait.recv().unwrap();
                let _held = l.lock().unwrap();
                b.with_mut(|p| unsafe { *p += 50 });
            })
            .unwrap();
        auditor.join().unwrap();
        writer.join().unwrap();
    })
}

/// Each side holds a lock, a different one.
fn two_locks() -> racer::Report {
    racer::check(|| {
        let (first, second) = (Arc::new(Mutex::new(())), Arc::new(Mutex::new(())));
        let cell = Arc::new(Shared::new(0u64));
        let (done, wait) = std_mpsc::channel();
        let (l, c) = (Arc::clone(&first), Arc::clone(&cell));
        let a = racer::thread::Builder::new()
            .name("a".into())
            .spawn(move || {
                let _held = l.lock().unwrap();
                c.with_mut(|p| unsafe { *p = 1 });
                done.send(()).unwrap();
            })
            .unwrap();
        let (l, c) = (Arc::clone(&second), Arc::clone(&cell));
        let b = racer::thread::Builder::new()
            .name("b".into())
            .spawn(move || {
                wait.recv().unwrap();
                let _held = l.lock().unwrap();
                c.with_mut(|p| unsafe { *p = 2 });
            })
            .unwrap();
        a.join().unwrap();
        b.join().unwrap();
    })
}

/// Ordered only by a std channel: neither thread synchronised through racer.
fn unseen_channel() -> racer::Report {
    racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let (done, wait) = std_mpsc::channel();
        let c = Arc::clone(&cell);
        let first = racer::thread::Builder::new()
            .name("first".into())
            .spawn(move || {
                c.with_mut(|p| unsafe { *p = 1 });
                done.send(()).unwrap();
            })
            .unwrap();
        let c = Arc::clone(&cell);
        let second = racer::thread::Builder::new()
            .name("second".into())
            .spawn(move || {
                wait.recv().unwrap();
                c.with_mut(|p| unsafe { *p = 2 });
            })
            .unwrap();
        first.join().unwrap();
        second.join().unwrap();
    })
}

/// A std thread writes, then the checking thread: the std thread gets the advice.
fn std_thread() -> racer::Report {
    racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let c = Arc::clone(&cell);
        std::thread::Builder::new()
            .name("std-worker".into())
            .spawn(move || c.with_mut(|p| unsafe { *p = 1 }))
            .unwrap()
            .join()
            .unwrap();
        cell.with_mut(|p| unsafe { *p = 2 });
    })
}

/// Fixture: a race in a `#[racer::test]` between the harness's thread and a racer thread.
#[racer::test]
fn fixture_racer_test() {
    let cell = Arc::new(Shared::new(0u64));
    let c = Arc::clone(&cell);
    let (done, wait) = std_mpsc::channel();
    let h = racer::thread::spawn(move || {
        c.with_mut(|p| unsafe { *p = 1 });
        done.send(()).unwrap();
    });
    wait.recv().unwrap();
    if std::env::var_os(SWITCH).is_none() {
        h.join().unwrap();
    }
    cell.with_mut(|p| unsafe { *p = 2 });
}

/// Fixture: a race in a `#[racer::test(model)]` between the iteration's thread and its child.
#[racer::test(model)]
fn fixture_model_test() {
    let cell = Arc::new(Shared::new(0u64));
    let c = Arc::clone(&cell);
    let h = racer::thread::spawn(move || c.with_mut(|p| unsafe { *p = 1 }));
    if std::env::var_os(SWITCH).is_none() {
        h.join().unwrap();
        cell.with_mut(|p| unsafe { *p = 2 });
    } else {
        cell.with_mut(|p| unsafe { *p = 2 });
        h.join().unwrap();
    }
}

/// Fixture: a plain `#[test]` whose two racer threads race (ordered only by a std channel when
/// `SWITCH` is set, by a join otherwise).
#[test]
fn fixture_plain_test() {
    let cell = Arc::new(Shared::new(0u64));
    let (done, wait) = std_mpsc::channel();
    let c = Arc::clone(&cell);
    let first = racer::thread::spawn(move || {
        c.with_mut(|p| unsafe { *p = 1 });
        done.send(()).unwrap();
    });
    if std::env::var_os(SWITCH).is_none() {
        first.join().unwrap();
    }
    let c = Arc::clone(&cell);
    racer::thread::spawn(move || {
        wait.recv().unwrap();
        c.with_mut(|p| unsafe { *p = 2 });
    })
    .join()
    .unwrap();
}

/// Fixture: a lock-order inversion in a `#[racer::test]`, in one thread.
#[racer::test]
fn fixture_inversion() {
    let (a, b) = (Mutex::new(()), Mutex::new(()));
    {
        let _a = a.lock().unwrap();
        let _b = b.lock().unwrap();
    }
    if std::env::var_os(SWITCH).is_some() {
        let _b = b.lock().unwrap();
        let _a = a.lock().unwrap();
    }
}

// ---- end of the fixtures ----

#[cfg(feature = "race-detect")]
mod detector {
    use super::*;
    use std::process::{Command, Output};

    /// The report's text with its addresses made `0xADDR`.
    /// The report's text with its addresses made `0xADDR`, and without the frames of the
    /// tests below (which move as tests are added).
    fn text(report: &racer::Report) -> String {
        without_addresses(&report.to_string())
            .lines()
            .filter(|l| !l.contains("report_hints::detector::"))
            .map(|l| format!("{l}\n"))
            .collect()
    }

    fn without_addresses(s: &str) -> String {
        let mut out = String::new();
        let mut rest = s;
        while let Some(i) = rest.find(" at 0x") {
            out.push_str(&rest[..i]);
            out.push_str(" at 0xADDR");
            let hex = &rest[i + 6..];
            rest = &hex[hex.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(hex.len())..];
        }
        out.push_str(rest);
        out
    }

    fn run_self(test: &str) -> Output {
        Command::new(std::env::current_exe().unwrap())
            .args(["--exact", test, "--nocapture", "--test-threads=1"])
            .env_remove("RACER_OPTIONS")
            .env(SWITCH, "1")
            .output()
            .expect("the test binary runs")
    }

    /// The text between the report's first and last `==================` lines.
    fn block(s: &str) -> String {
        let start = s.find("==================\n").expect("a report");
        let end = s.rfind("==================\n").expect("a report");
        without_addresses(&s[start..end + 19])
    }

    #[test]
    fn a_missing_lock_is_named_and_no_unseen_synchronisation_is_suggested() {
        let report = missing_lock();
        assert_eq!(report.len(), 1, "{report}");
        assert_eq!(
            text(&report),
            "==================
WARNING: racer: data race (anti: read, then a parallel write) on Shared<u64> at 0xADDR
  In test `detector::a_missing_lock_is_named_and_no_unseen_synchronisation_is_suggested`
  Write by thread 'writer' at tests/report_hints.rs:39:19:
    #0 report_hints::missing_lock::{{closure}}::{{closure}}  tests/report_hints.rs:39:19
    (the thread's last synchronisation before it: locking Mutex (created at tests/report_hints.rs:22:29) at tests/report_hints.rs:38:31)
    (holding Mutex (created at tests/report_hints.rs:22:29), locked at tests/report_hints.rs:38:31)
  Previous read by thread 'auditor' at tests/report_hints.rs:29:19:
    #0 report_hints::missing_lock::{{closure}}::{{closure}}  tests/report_hints.rs:29:19
    (the thread's last synchronisation before it: starting from spawn at tests/report_hints.rs:28:14)
  Shared<u64> first accessed by thread 'auditor' at tests/report_hints.rs:29:19 (the previous read's site)
  Thread 'writer' spawned at:
    #0 report_hints::missing_lock::{{closure}}  tests/report_hints.rs:36:14
    #1 report_hints::missing_lock  tests/report_hints.rs:21:5
  Thread 'auditor' spawned at:
    #0 report_hints::missing_lock::{{closure}}  tests/report_hints.rs:28:14
    #1 report_hints::missing_lock  tests/report_hints.rs:21:5
  Thread 'writer' held Mutex (created at tests/report_hints.rs:22:29), locked at tests/report_hints.rs:38:31, at its write; thread 'auditor' held no lock at its read: if that lock guards this cell, take it for the read too
==================
racer: 1 data race(s) found
"
        );
        let race = &report.races()[0];
        assert!(!race.current().is_test_thread() && !race.previous().is_test_thread());
        assert_eq!(race.current().locks_held().len(), 1);
        assert!(race.previous().locks_held().is_empty());
        let json = report.to_json();
        assert!(
            json.contains(
                "\"hints\":[\"Thread 'writer' held Mutex (created at tests/report_hints.rs:22:29), locked at \
                 tests/report_hints.rs:38:31, at its write; thread 'auditor' held no lock at its read: if that lock \
                 guards this cell, take it for the read too\"]"
            ),
            "{json}"
        );
        assert!(json.contains("\"foreign_thread\":false,\"test_thread\":false"), "{json}");
        assert!(
            json.contains(
                "\"locks_held\":[{\"object\":\"Mutex\",\"mode\":\"exclusive\",\"created\":{\"file\":\
                 \"tests/report_hints.rs\",\"line\":22,\"column\":29},\"acquired_at\":{\"file\":\
                 \"tests/report_hints.rs\",\"line\":38,\"column\":31}}]"
            ),
            "{json}"
        );
        assert!(
            json.contains(
                "\"test\":\"detector::a_missing_lock_is_named_and_no_unseen_synchronisation_is_suggested\",\"current\":"
            ),
            "{json}"
        );
    }

    #[test]
    fn two_different_locks_are_named() {
        let report = two_locks();
        assert_eq!(
            report.races()[0].hints(),
            ["Thread 'b' held Mutex (created at tests/report_hints.rs:50:67), locked at tests/report_hints.rs:67:31, \
              at its write; thread 'a' held Mutex (created at tests/report_hints.rs:50:41), locked at \
              tests/report_hints.rs:57:31, at its write: two different locks, which order nothing between them"]
        );
        // Each access lists the locks its thread held: kind, creation site, where taken.
        let race = &report.races()[0];
        let held = |a: &racer::Access| {
            a.locks_held()
                .iter()
                .map(|l| (l.object(), l.created().column(), l.acquired_at().line()))
                .collect::<Vec<_>>()
        };
        assert_eq!(held(race.current()), [("Mutex", 67, 67)]);
        assert_eq!(held(race.previous()), [("Mutex", 41, 57)]);
        assert!(text(&report).contains(
            "    (holding Mutex (created at tests/report_hints.rs:50:41), locked at tests/report_hints.rs:57:31)\n"
        ));
    }

    #[test]
    fn synchronisation_racer_cannot_see_is_suggested_when_neither_thread_synchronised() {
        let report = unseen_channel();
        let hint = |thread: &str| {
            format!(
                "Thread '{thread}' synchronised through nothing racer sees between its start and its write: if \
                 std::sync, parking_lot, a channel or queue crate, std's atomics or FFI order the two accesses, \
                 racer cannot see it (use racer's wrappers for them: racer::crossbeam_channel, racer::flume, ...; any \
                 other channel can carry racer::annotate::Carry); racer's atomics with Relaxed order nothing"
            )
        };
        assert_eq!(report.races()[0].hints(), [hint("second"), hint("first")]);
        assert!(text(&report).contains(&format!("\n  {}\n==================\n", hint("first"))), "{report}");
    }

    #[test]
    fn a_std_thread_gets_advice_the_test_thread_none() {
        let report = std_thread();
        assert_eq!(
            text(&report),
            "==================
WARNING: racer: data race (output: write, then a parallel write) on Shared<u64> at 0xADDR
  In test `detector::a_std_thread_gets_advice_the_test_thread_none`
  Write by thread 'detector::a_std_thread_gets_advice_the_test_thread_none' at tests/report_hints.rs:113:14:
    #0 report_hints::std_thread::{{closure}}  tests/report_hints.rs:113:14
    #1 report_hints::std_thread  tests/report_hints.rs:104:5
    (no synchronisation by the thread before it)
  Previous write by thread 'std-worker' at tests/report_hints.rs:109:30:
    #0 report_hints::std_thread::{{closure}}::{{closure}}  tests/report_hints.rs:109:30
    (no synchronisation by the thread before it)
  Shared<u64> first accessed by thread 'std-worker' at tests/report_hints.rs:109:30 (the previous write's site)
  Thread 'detector::a_std_thread_gets_advice_the_test_thread_none' synchronised through nothing racer sees between its start and its write: if std::sync, parking_lot, a channel or queue crate, std's atomics or FFI order the two accesses, racer cannot see it (use racer's wrappers for them: racer::crossbeam_channel, racer::flume, ...; any other channel can carry racer::annotate::Carry); racer's atomics with Relaxed order nothing
  Thread 'std-worker' was not started by racer, so racer sees neither what ordered its start nor how it synchronises outside racer's wrappers: start it with racer::thread::spawn or scope, or mark that synchronisation with racer::annotate::release and acquire
==================
racer: 1 data race(s) found
"
        );
        let race = &report.races()[0];
        assert!(race.current().is_test_thread() && race.current().is_foreign_thread());
        assert!(!race.previous().is_test_thread() && race.previous().is_foreign_thread());
        assert!(report.to_json().contains("\"foreign_thread\":true,\"test_thread\":true"));
    }

    /// A race in a plain `#[test]`, outside any check, between two threads the test spawned: the
    /// report and the process's summary name the test.
    #[test]
    fn a_plain_tests_race_names_the_test_in_the_report_and_the_summary() {
        let out = run_self("fixture_plain_test");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(66), "{stderr}");
        assert_eq!(
            block(&stderr),
            "==================
WARNING: racer: data race (output: write, then a parallel write) on Shared<u64> at 0xADDR
  In test `fixture_plain_test`
  Write by thread T3 at tests/report_hints.rs:166:11:
    #0 report_hints::fixture_plain_test::{{closure}}  tests/report_hints.rs:166:11
    (the thread's last synchronisation before it: starting from spawn at tests/report_hints.rs:164:5)
  Previous write by thread T2 at tests/report_hints.rs:157:11:
    #0 report_hints::fixture_plain_test::{{closure}}  tests/report_hints.rs:157:11
    (the thread's last synchronisation before it: starting from spawn at tests/report_hints.rs:156:17)
  Shared<u64> first accessed by thread T2 at tests/report_hints.rs:157:11 (the previous write's site)
  Thread T3 spawned at:
    #0 report_hints::fixture_plain_test  tests/report_hints.rs:164:5
  Thread T2 spawned at:
    #0 report_hints::fixture_plain_test  tests/report_hints.rs:156:17
  Thread T3 synchronised through nothing racer sees between its start and its write: if std::sync, parking_lot, a channel or queue crate, std's atomics or FFI order the two accesses, racer cannot see it (use racer's wrappers for them: racer::crossbeam_channel, racer::flume, ...; any other channel can carry racer::annotate::Carry); racer's atomics with Relaxed order nothing
  Thread T2 synchronised through nothing racer sees between its start and its write: if std::sync, parking_lot, a channel or queue crate, std's atomics or FFI order the two accesses, racer cannot see it (use racer's wrappers for them: racer::crossbeam_channel, racer::flume, ...; any other channel can carry racer::annotate::Carry); racer's atomics with Relaxed order nothing
==================
"
        );
        assert!(
            stderr
                .ends_with("racer: 1 data race(s) reported in test(s) `fixture_plain_test`; exiting with status 66\n"),
            "{stderr}"
        );
    }

    /// A deadlock report's stacks in a `#[racer::test]`: no generated frame either.
    #[test]
    fn a_racer_tests_deadlock_report_shows_no_generated_frames() {
        let out = run_self("fixture_inversion");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let report: String = stderr
            .lines()
            .skip_while(|l| !l.starts_with("WARNING: racer: lock-order inversion"))
            .take_while(|l| !l.starts_with("  Threads taking these locks"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(
            report,
            "WARNING: racer: lock-order inversion (potential deadlock): a cycle of 2 locks
  Cycle: Mutex #2 -> Mutex #1 -> Mutex #2
  Edge 1 of 2: thread 'fixture_inversion' took Mutex #1 (created at tests/report_hints.rs:175:19) at tests/report_hints.rs:182:20 while holding Mutex #2:
    #0 report_hints::fixture_inversion  tests/report_hints.rs:182:20
    Mutex #2 (created at tests/report_hints.rs:175:35) was taken at tests/report_hints.rs:181:20:
    #0 report_hints::fixture_inversion  tests/report_hints.rs:181:20
  Edge 2 of 2: thread 'fixture_inversion' took Mutex #2 (created at tests/report_hints.rs:175:35) at tests/report_hints.rs:178:20 while holding Mutex #1:
    #0 report_hints::fixture_inversion  tests/report_hints.rs:178:20
    Mutex #1 (created at tests/report_hints.rs:175:19) was taken at tests/report_hints.rs:177:20:
    #0 report_hints::fixture_inversion  tests/report_hints.rs:177:20
",
            "{stderr}"
        );
    }

    /// `#[racer::test(model)]`: the body is named after the test, and no frame of the macro or
    /// of racer's model runner is shown.
    #[test]
    fn a_model_test_shows_the_body_under_the_tests_name() {
        let out = run_self("fixture_model_test");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let report: String = without_addresses(&stderr)
            .lines()
            .skip_while(|l| !l.starts_with("WARNING: racer"))
            .take_while(|l| !l.starts_with("racer: 1 data race(s) found"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(
            report,
            "WARNING: racer: data race (output: write, then a parallel write) on Shared<u64> at 0xADDR
  In test `fixture_model_test`
  Write by thread T3 at tests/report_hints.rs:139:44:
    #0 report_hints::fixture_model_test::{{closure}}  tests/report_hints.rs:139:44
    (the thread's last synchronisation before it: starting from spawn at tests/report_hints.rs:139:13)
  Previous write by thread 'fixture_model_test' at tests/report_hints.rs:144:14:
    #0 report_hints::fixture_model_test  tests/report_hints.rs:144:14
    (the thread's last synchronisation before it: spawning a thread at tests/report_hints.rs:139:13)
  Shared<u64> first accessed by thread 'fixture_model_test' at tests/report_hints.rs:144:14 (the previous write's site)
  Thread T3 spawned at:
    #0 report_hints::fixture_model_test  tests/report_hints.rs:139:13
  Thread 'fixture_model_test' spawned at:
    #0 report_hints::fixture_model_test  tests/report_hints.rs:135:1
  Thread T3 synchronised through nothing racer sees between its start and its write: if std::sync, parking_lot, a channel or queue crate, std's atomics or FFI order the two accesses, racer cannot see it (use racer's wrappers for them: racer::crossbeam_channel, racer::flume, ...; any other channel can carry racer::annotate::Carry); racer's atomics with Relaxed order nothing
==================
",
            "{stderr}"
        );
    }

    /// `#[racer::test]`: no advice to start the harness's thread through racer, and no frame
    /// the macro or libtest generated (the body is named after the test).
    #[test]
    fn a_racer_test_names_no_harness_advice_and_no_generated_frames() {
        let out = run_self("fixture_racer_test");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("racer: 1 data race(s) found in test `fixture_racer_test`\n"), "{stderr}");
        assert_eq!(stderr.matches("data race(s) found").count(), 1, "the count is said once: {stderr}");
        assert_eq!(
            block(&stderr),
            "==================
WARNING: racer: data race (output: write, then a parallel write) on Shared<u64> at 0xADDR
  In test `fixture_racer_test`
  Write by thread 'fixture_racer_test' at tests/report_hints.rs:131:10:
    #0 report_hints::fixture_racer_test  tests/report_hints.rs:131:10
    (the thread's last synchronisation before it: spawning a thread at tests/report_hints.rs:123:13)
  Previous write by thread T2 at tests/report_hints.rs:124:11:
    #0 report_hints::fixture_racer_test::{{closure}}  tests/report_hints.rs:124:11
    (the thread's last synchronisation before it: starting from spawn at tests/report_hints.rs:123:13)
  Shared<u64> first accessed by thread T2 at tests/report_hints.rs:124:11 (the previous write's site)
  Thread T2 spawned at:
    #0 report_hints::fixture_racer_test  tests/report_hints.rs:123:13
  Thread T2 synchronised through nothing racer sees between its start and its write: if std::sync, parking_lot, a channel or queue crate, std's atomics or FFI order the two accesses, racer cannot see it (use racer's wrappers for them: racer::crossbeam_channel, racer::flume, ...; any other channel can carry racer::annotate::Carry); racer's atomics with Relaxed order nothing
==================
"
        );
    }
}

/// Without the detector every check's report is empty, and the fixtures run to their end.
#[cfg(not(feature = "race-detect"))]
#[test]
fn feature_off_reports_are_empty() {
    for report in [missing_lock(), two_locks(), unseen_channel(), std_thread()] {
        assert!(report.is_empty());
    }
}
