//! The report one `racer::check` returns: its races and deadlocks, as text and as JSON.

use std::fmt;

use super::deadlock::{deadlock_json, Deadlock};
use super::race::{race_json, Race};

/// The races and deadlocks found by one `racer::check` run, each in the order found.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub(crate) races: Vec<Race>,
    pub(crate) deadlocks: Vec<Deadlock>,
}

impl Report {
    pub fn races(&self) -> &[Race] {
        &self.races
    }

    /// The deadlocks found: lock-order inversions (potential), re-locks and real hangs.
    pub fn deadlocks(&self) -> &[Deadlock] {
        &self.deadlocks
    }

    /// True only when neither a race nor a deadlock was found.
    pub fn is_empty(&self) -> bool {
        self.races.is_empty() && self.deadlocks.is_empty()
    }

    /// The number of races and deadlocks found.
    pub fn len(&self) -> usize {
        self.races.len() + self.deadlocks.len()
    }

    /// The report as JSON: `{"races": [...]}`, one object per race, in the order found. The
    /// field names are stable (new fields may be added; none is renamed or removed):
    ///
    /// ```text
    /// kind        "flow" | "anti" | "output"
    /// type        the type inside the Shared cell, e.g. "u64"
    /// address     the cell's address, a hex string "0x7f.."
    /// test        the test (as libtest names it) the race happened in, or null: see
    ///             `Race::test`
    /// current     the access that found the race   } each an access object:
    /// previous    the access the detector remembered }
    ///   access      "read" | "write"
    ///   thread      {"name": string or null, "id": racer's thread number (1, 2, ...)}
    ///   site        {"file", "line", "column"}: the #[track_caller] site of the access
    ///   after_sync  the thread's last synchronisation before the access, e.g.
    ///               "locking Mutex (created at src/q.rs:12:5) at src/q.rs:40:9", or null
    ///   frames      [{"function", "file" (or null), "line" (or null)}], innermost first,
    ///               racer's own frames and those `#[racer::test]`, libtest and loom's
    ///               `model` generated left out, at most `history` of them
    ///   spawned_at  the frames of the spawn that made the thread, or null for threads
    ///               racer did not spawn
    ///   foreign_thread  true for a thread racer did not start, other than the main thread
    ///   test_thread     true for the test harness's thread running a test (named after it)
    /// hints       the report's lines on why the accesses are unordered (`Race::hints`)
    /// ```
    ///
    /// With `RACER_OPTIONS=report=json`, races found outside `check` are written one such race
    /// object per line (JSON Lines).
    ///
    /// Deadlocks, when there are any, follow in `"deadlocks": [...]`, one object per deadlock (see `Deadlock`'s
    /// JSON in the README): `kind` (`lock_order_inversion`, `relock`, `hang`), `edges` and
    /// `threads`. Outside `check` each is one line `{"deadlock": {...}}`.
    pub fn to_json(&self) -> String {
        let mut out = String::from("{\"races\":[");
        for (i, race) in self.races.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            race_json(race, &mut out);
        }
        out.push(']');
        // Only when there are some: a report without deadlocks reads as it always did.
        if !self.deadlocks.is_empty() {
            out.push_str(",\"deadlocks\":[");
            for (i, d) in self.deadlocks.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                deadlock_json(d, &mut out);
            }
            out.push(']');
        }
        out.push('}');
        out
    }
}

impl Report {
    /// Every report's block, then one line counting them.
    fn write_with_count(&self, f: &mut impl fmt::Write, place: &str) -> fmt::Result {
        for race in &self.races {
            write!(f, "{race}")?;
        }
        for deadlock in &self.deadlocks {
            write!(f, "{deadlock}")?;
        }
        if self.deadlocks.is_empty() {
            writeln!(f, "racer: {} data race(s) found{place}", self.races.len())
        } else {
            writeln!(
                f,
                "racer: {} data race(s) and {} deadlock(s) found{place}",
                self.races.len(),
                self.deadlocks.len()
            )
        }
    }

    /// The failure message of `#[racer::test]` `test` (`None` when nothing was found): the
    /// report with its count line naming the test, once. `test` is the test function's path
    /// from its crate's root (`module_path!()` and its name, as `#[racer::test]` passes it): the
    /// crate's name is left out, as libtest names tests (`tests::module::name`).
    #[doc(hidden)]
    pub fn failure_in_test(&self, test: &str) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let test = test.split_once("::").map_or(test, |(_krate, path)| path);
        let mut out = String::new();
        let _ = self.write_with_count(&mut out, &format!(" in test `{test}`"));
        Some(out)
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.races.is_empty() && self.deadlocks.is_empty() {
            return writeln!(f, "racer: no data races found");
        }
        self.write_with_count(f, "")
    }
}
