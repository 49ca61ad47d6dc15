//! What a race report says of the hand-off that failed: the racer atomic the two threads
//! communicated through with orderings that order nothing (named with its store, its load and
//! the orderings that would order the race), and where the cell was born.
//!
//!     cargo test --test report_explains                          (feature off: no reports)
//!     cargo test --features race-detect --test report_explains
//!
//! The fixtures come first: the expected reports name their lines.

use racer::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use racer::sync::Arc;
use racer::Shared;

/// A flag handed over with `store` and `load` of the given orderings: the writer writes the
/// cell, then stores the flag; the reader waits for the flag, then reads the cell.
fn flag(store: Ordering, load: Ordering) -> racer::Report {
    racer::check(|| {
        let ready = Arc::new(AtomicBool::new(false));
        let data = Arc::new(Shared::new(0u64));
        let (r, d) = (Arc::clone(&ready), Arc::clone(&data));
        let writer = racer::thread::Builder::new()
            .name("writer".into())
            .spawn(move || {
                d.with_mut(|p| unsafe { *p = 42 });
                r.store(true, store);
            })
            .unwrap();
        let (r, d) = (Arc::clone(&ready), Arc::clone(&data));
        let reader = racer::thread::Builder::new()
            .name("reader".into())
            .spawn(move || {
                while !r.load(load) {
                    std::thread::yield_now();
                }
                d.with(|p| unsafe { *p })
            })
            .unwrap();
        writer.join().unwrap();
        reader.join().unwrap();
    })
}

/// The same hand-off through a counter the writer bumps with a Release `fetch_add`, read by a
/// Relaxed load, and a cell made by `Shared::new_written` (whose creation is a checked write).
fn counter_and_written_cell() -> racer::Report {
    racer::check(|| {
        let count = Arc::new(AtomicUsize::new(0));
        let data = Arc::new(Shared::new_written(0u64));
        let (c, d) = (Arc::clone(&count), Arc::clone(&data));
        let bumper = racer::thread::Builder::new().name("bumper".into());
        let writer = bumper
            .spawn(move || {
                d.with_mut(|p| unsafe { *p = 7 });
                c.fetch_add(1, Ordering::Release);
            })
            .unwrap();
        let (c, d) = (Arc::clone(&count), Arc::clone(&data));
        let watcher = racer::thread::Builder::new().name("watcher".into());
        let reader = watcher
            .spawn(move || {
                while c.load(Ordering::Relaxed) == 0 {
                    std::thread::yield_now();
                }
                d.with(|p| unsafe { *p })
            })
            .unwrap();
        writer.join().unwrap();
        reader.join().unwrap();
    })
}

/// Properly ordered: no report, and no stale note of the reader's earlier Relaxed loads.
fn ordered_flag() -> racer::Report {
    flag(Ordering::Release, Ordering::Acquire)
}

/// The flag stored Release and polled with a Relaxed read-modify-write (`fetch_or(false)`),
/// whose read half acquires nothing either.
fn release_flag_polled_by_a_relaxed_rmw() -> racer::Report {
    racer::check(|| {
        let ready = Arc::new(AtomicBool::new(false));
        let data = Arc::new(Shared::new(0u64));
        let (r, d) = (Arc::clone(&ready), Arc::clone(&data));
        let writer = racer::thread::Builder::new()
            .name("writer".into())
            .spawn(move || {
                d.with_mut(|p| unsafe { *p = 42 });
                r.store(true, Ordering::Release);
            })
            .unwrap();
        let (r, d) = (Arc::clone(&ready), Arc::clone(&data));
        let reader = racer::thread::Builder::new()
            .name("reader".into())
            .spawn(move || {
                while !r.fetch_or(false, Ordering::Relaxed) {
                    std::thread::yield_now();
                }
                d.with(|p| unsafe { *p })
            })
            .unwrap();
        writer.join().unwrap();
        reader.join().unwrap();
    })
}

// ---- end of the fixtures ----

#[cfg(feature = "race-detect")]
mod detector {
    use super::*;

    fn test_name() -> String {
        std::thread::current().name().unwrap().to_owned()
    }

    /// The report's text with its addresses made `0xADDR`, without the frames of the tests
    /// below (which move as tests are added).
    fn text(report: &racer::Report) -> String {
        let s = report.to_string();
        let mut out = String::new();
        let mut rest = s.as_str();
        while let Some(i) = rest.find(" at 0x") {
            out.push_str(&rest[..i]);
            out.push_str(" at 0xADDR");
            let hex = &rest[i + 6..];
            rest = &hex[hex.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(hex.len())..];
        }
        out.push_str(rest);
        out.lines().filter(|l| !l.contains("report_explains::detector::")).map(|l| format!("{l}\n")).collect()
    }

    #[test]
    fn a_relaxed_flag_names_the_store_the_load_and_the_orderings_that_would_order_it() {
        let report = flag(Ordering::Relaxed, Ordering::Relaxed);
        assert_eq!(report.len(), 1, "{report}");
        assert_eq!(
            text(&report),
            "==================
WARNING: racer: data race (flow: write, then a parallel read) on Shared<u64> at 0xADDR
  In test `detector::a_relaxed_flag_names_the_store_the_load_and_the_orderings_that_would_order_it`
  Read by thread 'reader' at tests/report_explains.rs:35:19:
    #0 report_explains::flag::{{closure}}::{{closure}}  tests/report_explains.rs:35:19
    (the thread's last synchronisation before it: starting from spawn at tests/report_explains.rs:31:14)
  Previous write by thread 'writer' at tests/report_explains.rs:24:19:
    #0 report_explains::flag::{{closure}}::{{closure}}  tests/report_explains.rs:24:19
    (the thread's last synchronisation before it: starting from spawn at tests/report_explains.rs:23:14)
  Shared<u64> first accessed by thread 'writer' at tests/report_explains.rs:24:19 (the previous write's site)
  Thread 'reader' spawned at:
    #0 report_explains::flag::{{closure}}  tests/report_explains.rs:31:14
    #1 report_explains::flag  tests/report_explains.rs:17:5
  Thread 'writer' spawned at:
    #0 report_explains::flag::{{closure}}  tests/report_explains.rs:23:14
    #1 report_explains::flag  tests/report_explains.rs:17:5
  Thread 'reader' loaded AtomicBool with Relaxed at tests/report_explains.rs:32:26, last stored by thread 'writer' with Relaxed at tests/report_explains.rs:25:19: a Relaxed store read by a Relaxed load orders nothing; make the store at tests/report_explains.rs:25:19 Release and the load at tests/report_explains.rs:32:26 Acquire
==================
racer: 1 data race(s) found
"
        );
        let race = &report.races()[0];
        let pair = race.atomic_pair().expect("the hand-off is named");
        assert_eq!(pair.object(), "AtomicBool");
        assert_eq!(
            (pair.store_site().line(), pair.store_ordering(), pair.store_is_rmw()),
            (25, Ordering::Relaxed, false)
        );
        assert_eq!((pair.load_site().line(), pair.load_ordering()), (32, Ordering::Relaxed));
        assert_eq!(race.current().thread_name(), Some("reader"));
        assert_eq!(race.previous().thread_name(), Some("writer"));
        // The hand-off explains the race: no "synchronised through nothing racer sees" advice.
        assert_eq!(race.hints().len(), 1, "{:?}", race.hints());
    }

    #[test]
    fn a_release_store_read_by_a_relaxed_load_asks_for_an_acquire_load() {
        let report = flag(Ordering::Release, Ordering::Relaxed);
        assert_eq!(report.len(), 1, "{report}");
        assert_eq!(
            report.races()[0].hints(),
            ["Thread 'reader' loaded AtomicBool with Relaxed at \
              tests/report_explains.rs:32:26, last stored by thread 'writer' with Release at \
              tests/report_explains.rs:25:19: a Relaxed load of a Release store orders nothing without a \
              fence(Acquire) after it; make the load at tests/report_explains.rs:32:26 Acquire (or put a \
              fence(Acquire) after it)"]
        );
    }

    #[test]
    fn an_acquire_load_of_a_relaxed_store_asks_for_a_release_store() {
        let report = flag(Ordering::Relaxed, Ordering::Acquire);
        assert_eq!(report.len(), 1, "{report}");
        assert_eq!(
            report.races()[0].atomic_pair().map(|p| p.fix()).as_deref(),
            Some("make the store at tests/report_explains.rs:25:19 Release")
        );
    }

    /// A read-modify-write is a load too: a Relaxed one that read the Release store is named.
    #[test]
    fn a_relaxed_rmw_of_a_release_store_asks_for_an_acquire_rmw() {
        let report = release_flag_polled_by_a_relaxed_rmw();
        assert_eq!(report.len(), 1, "{report}");
        assert_eq!(
            report.races()[0].hints(),
            ["Thread 'reader' loaded AtomicBool with Relaxed at \
              tests/report_explains.rs:95:26, last stored by thread 'writer' with Release at \
              tests/report_explains.rs:88:19: a Relaxed load of a Release store orders nothing without a \
              fence(Acquire) after it; make the load at tests/report_explains.rs:95:26 Acquire (or put a \
              fence(Acquire) after it)"]
        );
    }

    #[test]
    fn an_ordered_hand_off_reports_nothing() {
        let report = ordered_flag();
        assert!(report.is_empty(), "{report}");
    }

    /// An RMW is named as an update; a cell made by `Shared::new_written` is named where it
    /// was created.
    #[test]
    fn a_relaxed_update_and_a_written_cells_creation_are_named() {
        let report = counter_and_written_cell();
        assert_eq!(report.len(), 1, "{report}");
        let race = &report.races()[0];
        assert_eq!(
            race.hints(),
            ["Thread 'watcher' loaded AtomicUsize with Relaxed at \
              tests/report_explains.rs:61:25, last updated by thread 'bumper' with Release at tests/report_explains.rs:54:19: \
              a Relaxed load of a Release store orders nothing without a fence(Acquire) after it; make the load at \
              tests/report_explains.rs:61:25 Acquire (or put a fence(Acquire) after it)"]
        );
        let birth = race.cell_birth().expect("the cell's birth");
        assert!(birth.is_creation());
        assert_eq!((birth.location().line(), birth.thread_name()), (48, Some(&*test_name())));
        assert!(text(&report).contains(
            "\n  Shared<u64> created by thread 'detector::a_relaxed_update_and_a_written_cells_creation_are_named' at \
             tests/report_explains.rs:48:29:\n    #0 report_explains::counter_and_written_cell::{{closure}}  \
             tests/report_explains.rs:48:29\n"
        ), "{}", text(&report));
    }

    #[test]
    fn the_json_report_carries_the_hand_off_the_cells_birth_and_the_locks_held() {
        let report = flag(Ordering::Relaxed, Ordering::Relaxed);
        let json = report.to_json();
        assert!(
            json.contains(
                "\"atomic\":{\"object\":\"AtomicBool\",\"store\":{\"op\":\"store\",\"ordering\":\"Relaxed\",\"releases\":false,\"site\":\
                 {\"file\":\"tests/report_explains.rs\",\"line\":25,\"column\":19}},\"load\":{\"ordering\":\"Relaxed\",\
                 \"site\":{\"file\":\"tests/report_explains.rs\",\"line\":32,\"column\":26}},\"fix\":\"make the store at \
                 tests/report_explains.rs:25:19 Release and the load at tests/report_explains.rs:32:26 Acquire\"}"
            ),
            "{json}"
        );
        assert!(json.contains("\"cell\":{\"created\":false,\"thread\":{\"name\":\"writer\",\"id\":"), "{json}");
        assert!(
            json.contains("\"site\":{\"file\":\"tests/report_explains.rs\",\"line\":24,\"column\":19},\"frames\":[{"),
            "{json}"
        );
        assert_eq!(json.matches("\"locks_held\":[]").count(), 2, "{json}");
    }
}

/// Without the detector every check's report is empty, and the fixtures run to their end.
#[cfg(not(feature = "race-detect"))]
#[test]
fn feature_off_reports_are_empty() {
    for report in [
        flag(Ordering::Relaxed, Ordering::Relaxed),
        flag(Ordering::Release, Ordering::Relaxed),
        counter_and_written_cell(),
        ordered_flag(),
        release_flag_polled_by_a_relaxed_rmw(),
    ] {
        assert!(report.is_empty());
    }
}
