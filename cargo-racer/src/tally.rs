//! Output tally: the child cargo's stdout and stderr passed through as they come, while racer's
//! reports, libtest's results and cargo's failed test binaries are counted; then the one
//! summary line, and the exit status (cargo's, or 66 when races were reported and cargo itself
//! succeeded, or 130 after Ctrl-C).

use crate::{arguments::Args, interrupt};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, ExitCode, ExitStatus, Stdio};

/// Counts in the output of a `cargo test` run.
#[derive(Default, Debug, PartialEq)]
pub struct Tally {
    pub races: usize,
    /// Deadlock reports: real hangs, re-locks and lock-order inversions.
    pub deadlocks: usize,
    pub passed: usize,
    pub failed: usize,
    /// Test binaries that cargo saw fail (`error: test failed, to rerun pass ...`).
    pub failed_binaries: usize,
    /// Test binaries that cargo started (`Running ...`).
    pub started_binaries: usize,
    /// Test binaries in which the loom stand-in ran tests outside any model, unchecked.
    pub unchecked_binaries: usize,
    /// Models whose every schedule under the preemption bound ran (racer's complete search).
    pub complete_models: usize,
}

impl Tally {
    fn line(&mut self, line: &str) {
        if line.contains("WARNING: racer: data race") {
            self.races += 1;
        }
        if line.contains("WARNING: racer: deadlock") || line.contains("WARNING: racer: lock-order inversion") {
            self.deadlocks += 1;
        }
        if line.starts_with("error: test failed, to rerun pass") {
            self.failed_binaries += 1;
        }
        if line.trim_start().starts_with("Running ") && line.contains('(') {
            self.started_binaries += 1;
        }
        if line.starts_with("racer (loom stand-in): loom's types used outside any loom::model") {
            self.unchecked_binaries += 1;
        }
        if line.starts_with("racer (model): ") && line.contains("': explored all ") {
            self.complete_models += 1;
        }
        if let Some(rest) = line.trim().strip_prefix("test result: ") {
            let num = |key: &str| -> usize {
                rest.split(';')
                    .filter_map(|part| {
                        let part = part.trim().trim_start_matches("ok. ").trim_start_matches("FAILED. ");
                        part.strip_suffix(key).and_then(|n| n.trim().parse::<usize>().ok())
                    })
                    .sum()
            };
            self.passed += num("passed");
            self.failed += num("failed");
        }
    }

    fn add(&mut self, other: Tally) {
        self.races += other.races;
        self.deadlocks += other.deadlocks;
        self.passed += other.passed;
        self.failed += other.failed;
        self.failed_binaries += other.failed_binaries;
        self.started_binaries += other.started_binaries;
        self.unchecked_binaries += other.unchecked_binaries;
        self.complete_models += other.complete_models;
    }
}

/// A finished `cargo test`.
pub struct Outcome {
    pub status: ExitStatus,
    pub tally: Tally,
    /// Its stderr, for the loom patch's diagnostics.
    pub stderr: String,
}

/// Runs `cargo` with its output passed through and tallied; `None` if interrupted before it
/// could start.
pub fn run(mut cargo: Command) -> Result<Option<Outcome>, String> {
    if interrupt::happened() {
        return Ok(None);
    }
    cargo.stdout(Stdio::piped()).stderr(Stdio::piped()).stdin(Stdio::inherit());
    let mut child = interrupt::own_group(&mut cargo).spawn().map_err(|e| format!("cannot run cargo: {e}"))?;
    let watch = interrupt::watch(&child);
    let out = child.stdout.take().expect("piped");
    let err = child.stderr.take().expect("piped");
    let out_thread = std::thread::spawn(move || pump(out, std::io::stdout(), false));
    let (mut tally, stderr) = pump(err, std::io::stderr(), true);
    tally.add(out_thread.join().expect("stdout pump").0);
    let status = child.wait().map_err(|e| format!("waiting for cargo: {e}"))?;
    drop(watch);
    Ok(Some(Outcome { status, tally, stderr }))
}

/// Copies `from` to `to` line by line, tallying, and keeps the text when `keep`.
fn pump(from: impl Read, mut to: impl Write, keep: bool) -> (Tally, String) {
    let mut tally = Tally::default();
    let mut kept = String::new();
    let mut reader = BufReader::new(from);
    let mut buf = Vec::new();
    while reader.read_until(b'\n', &mut buf).unwrap_or(0) > 0 {
        let _ = to.write_all(&buf);
        let _ = to.flush();
        let line = String::from_utf8_lossy(&buf);
        tally.line(&line);
        if keep {
            kept.push_str(&line);
        }
        buf.clear();
    }
    (tally, kept)
}

/// Prints the summary of a run (`None`: interrupted before cargo test started) and gives the
/// exit status.
pub fn summary(outcome: Option<&Outcome>, args: &Args) -> ExitCode {
    let Some(Outcome { status, tally: t, .. }) = outcome.filter(|o| !interrupt::stopped(&o.status)) else {
        let races = outcome.map_or(0, |o| o.tally.races);
        let deadlocks = match outcome.map_or(0, |o| o.tally.deadlocks) {
            0 => String::new(),
            n => format!(" and {n} deadlock(s)"),
        };
        eprintln!("cargo racer: interrupted ({races} data race(s){deadlocks} reported before that)");
        return ExitCode::from(130);
    };
    let code = status.code().unwrap_or(1);
    let complete = match t.complete_models {
        0 => String::new(),
        n => format!("; {n} model(s) explored completely"),
    };
    let unchecked = match t.unchecked_binaries {
        0 => complete,
        n => format!(
            "{complete}; in {n} test binar{} tests outside any loom::model ran unchecked, as with std",
            if n == 1 { "y" } else { "ies" }
        ),
    };
    let exit = if t.races + t.deadlocks > 0 {
        let deadlocks = match t.deadlocks {
            0 => String::new(),
            n => format!(" and {n} deadlock(s)"),
        };
        eprintln!(
            "cargo racer: {} data race(s){deadlocks} reported ({} test(s) passed, {} failed{unchecked})",
            t.races, t.passed, t.failed
        );
        if code == 0 {
            66
        } else {
            code.clamp(1, 255) as u8
        }
    } else {
        if status.success() && args.has(&["--no-run"]) {
            eprintln!("cargo racer: the tests were built (--no-run): none ran, nothing was checked");
        } else if status.success() {
            eprintln!("cargo racer: no data races found ({} test(s) passed, racer on{unchecked})", t.passed);
        } else if t.passed + t.failed == 0 && t.started_binaries > 0 {
            eprintln!(
                "cargo racer: a test binary ended before it reported any result ({status}; see cargo's error above: \
                 a crash, an abort or a signal): no data races reported"
            );
        } else if t.passed + t.failed == 0 {
            eprintln!("cargo racer: cargo test failed ({status}) before any test ran: no data races reported");
            crate::arguments::hint_typo(args);
        } else {
            eprintln!(
                "cargo racer: no data races reported, but cargo test failed ({status}; {} passed, {} failed{unchecked})",
                t.passed, t.failed
            );
        }
        code.clamp(0, 255) as u8
    };
    if args.fail_fast && t.failed_binaries > 0 {
        eprintln!(
            "cargo racer: cargo test stopped at the first failing test binary (--fail-fast): \
             any test binaries after it did not run and are not counted above"
        );
    }
    ExitCode::from(exit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tally_counts_reports_results_and_failed_binaries() {
        let mut t = Tally::default();
        for l in [
            "WARNING: racer: data race (flow: a write, then a parallel read) on Shared<u8>",
            "racer: no data races found",
            "test result: ok. 3 passed; 0 failed; 0 ignored",
            "test result: FAILED. 1 passed; 2 failed; 0 ignored",
            "error: test failed, to rerun pass `--test a`",
        ] {
            t.line(l);
        }
        assert_eq!(
            t,
            Tally {
                races: 1,
                deadlocks: 0,
                passed: 4,
                failed: 2,
                failed_binaries: 1,
                started_binaries: 0,
                unchecked_binaries: 0,
                complete_models: 0
            }
        );
    }

    #[test]
    fn tally_counts_deadlock_reports() {
        let mut t = Tally::default();
        for l in [
            "WARNING: racer: lock-order inversion (potential deadlock): a cycle of 2 locks",
            "WARNING: racer: deadlock: thread 'a' locks Mutex again at src/a.rs:3:5 while holding it",
            "racer: 0 data race(s) and 2 deadlock(s) reported; exiting with status 66",
        ] {
            t.line(l);
        }
        assert_eq!((t.races, t.deadlocks), (0, 2));
    }

    #[test]
    fn tally_counts_started_and_unchecked_binaries() {
        let mut t = Tally::default();
        for l in [
            "     Running tests/bounded.rs (target/debug/deps/bounded-80880619)",
            "racer (loom stand-in): loom's types used outside any loom::model (first in capacity): such tests run unchecked",
            "     Running unittests src/lib.rs (target/debug/deps/concurrent_queue-34c7e3d5)",
        ] {
            t.line(l);
        }
        assert_eq!((t.started_binaries, t.unchecked_binaries), (2, 1));
    }

    #[test]
    fn tally_counts_models_explored_completely() {
        let mut t = Tally::default();
        for l in [
            "racer (model): 'tests::push_pop': explored all 264 schedules under preemption bound 2",
            "racer (model): 'tests::big': 1000 iterations in 2.1 s (476/s), 990 distinct schedules",
            "racer (model): 'tests::small': explored all 4 schedules under preemption bound 0",
        ] {
            t.line(l);
        }
        assert_eq!(t.complete_models, 2);
    }

    #[test]
    fn pump_passes_every_byte_through() {
        let text = "test result: ok. 1 passed; 0 failed\nno newline at the end";
        let mut copy = Vec::new();
        let (t, kept) = pump(text.as_bytes(), &mut copy, true);
        assert_eq!(copy, text.as_bytes());
        assert_eq!(kept, text);
        assert_eq!(t.passed, 1);
    }
}
