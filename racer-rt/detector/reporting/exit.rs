//! The end of a process that ran with the detector: a summary line, and the exit status
//! `exitcode` (66 unless `RACER_OPTIONS` says otherwise) when races were reported outside any
//! `racer::check`, as ThreadSanitizer does. Also the immediate stop of `halt_on_error=1`.
//!
//! The hook is a C `atexit` handler, so it runs after `main` returns, after
//! `std::process::exit` (which the test harness calls when a test failed) and after Rust has
//! flushed standard output. Calling `exit` again inside it would be undefined behaviour, so the
//! status is changed with `_exit`, after flushing C's streams.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Once;

use crate::base::lock::{Mutex, MutexGuard};
use crate::base::platform::{end_process, write_stderr};
use crate::config::options::{self, Config};

/// Held while one report is written (and, with `halt_on_error`, until the process is gone), so
/// reports of parallel threads never interleave and nothing is reported after the first halt.
/// No user code runs while it is held.
static WRITING: Mutex<()> = Mutex::new(());

/// Race and deadlock reports written whole so far (outside any check); counted under `WRITING`,
/// after the write.
static RACES_WRITTEN: AtomicUsize = AtomicUsize::new(0);
static DEADLOCKS_WRITTEN: AtomicUsize = AtomicUsize::new(0);

/// Race reports written whole so far. Exact while [`hold`]'s guard is held.
pub fn races_written() -> usize {
    RACES_WRITTEN.load(Ordering::Relaxed)
}

/// Deadlock reports written whole so far. Exact while [`hold`]'s guard is held.
pub fn deadlocks_written() -> usize {
    DEADLOCKS_WRITTEN.load(Ordering::Relaxed)
}

/// Waits for the report being written, if any, to be whole, and keeps any other from starting
/// while the guard lives: the process end's summary counts exactly the reports before it.
pub fn hold() -> MutexGuard<'static, ()> {
    WRITING.lock()
}

/// Counts one report written whole (a deadlock's, or a race's); called under [`hold`]'s guard.
pub fn count_written(deadlock: bool) {
    let written = if deadlock { &DEADLOCKS_WRITTEN } else { &RACES_WRITTEN };
    written.fetch_add(1, Ordering::Relaxed);
}

/// The tests (as libtest names them) that races written outside any check happened in, in the
/// order first reported, for the summary.
static TESTS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Notes that a race reported outside any check happened in test `name`.
pub fn note_test(name: &str) {
    let mut tests = TESTS.lock();
    if !tests.iter().any(|t| t == name) {
        tests.push(name.to_owned());
    }
}

static REGISTERED: Once = Once::new();

/// Registers the process-end hook (once; called at start-up and before a report is written).
pub fn register() {
    REGISTERED.call_once(|| {
        if !(crate::base::platform::get().at_exit)(at_process_end) {
            write_stderr("racer: cannot register the process-end hook; races will not change the exit status\n");
        }
    });
}

extern "C" fn at_process_end() {
    let config = options::get();
    // Other threads may still be running (`process::exit` from one of them): a report being
    // written is finished first, and none starts while the summary is decided and written, so
    // the summary counts exactly the whole reports before it. Kept to the end of the process
    // when it changes the status; released otherwise (a later report is then written whole).
    let writing = hold();
    if config.options.stats {
        write_stderr(&format!("{}\n", crate::runtime::stats::summary_line()));
    }
    let races = races_written();
    let deadlocks = deadlocks_written();
    if races == 0 && deadlocks == 0 {
        return;
    }
    let status = config.options.exitcode;
    let mut line = format!("racer: {}{}", found(races, deadlocks), destination(config));
    if status == 0 {
        line.push_str("; exit status left unchanged (exitcode=0)\n");
        write_stderr(&line);
        return;
    }
    line.push_str(&format!("; exiting with status {status}\n"));
    write_stderr(&line);
    let _writing = writing;
    end_process(i32::from(status));
}

/// "2 data race(s)", or "1 data race(s) and 1 deadlock(s)" once a deadlock was reported, and
/// the tests the races happened in when racer could tell (" in test(s) `a`, `b`").
fn found(races: usize, deadlocks: usize) -> String {
    let mut found = if deadlocks == 0 {
        format!("{races} data race(s) reported")
    } else {
        format!("{races} data race(s) and {deadlocks} deadlock(s) reported")
    };
    let tests = TESTS.lock();
    if !tests.is_empty() {
        let names: Vec<String> = tests.iter().map(|t| format!("`{t}`")).collect();
        found.push_str(&format!(" in test(s) {}", names.join(", ")));
    }
    found
}

/// A hang outside any check was reported (or a check's threads can never return): the process
/// would never end, so it ends now, with status `exitcode` (66 when that is 0).
pub fn end_hung_process() -> ! {
    let config = options::get();
    if config.options.stats {
        write_stderr(&format!("{}\n", crate::runtime::stats::summary_line()));
    }
    let status = match config.options.exitcode {
        0 => 66,
        s => s,
    };
    let races = races_written();
    let deadlocks = deadlocks_written();
    write_stderr(&format!(
        "racer: {}{}; the program is deadlocked: exiting with status {status} instead of hanging\n",
        found(races, deadlocks),
        destination(config)
    ));
    end_process(i32::from(status))
}

/// `halt_on_error=1`: called right after the first report was written; never returns.
pub fn halt(config: &Config, what: &str) -> ! {
    if config.options.stats {
        write_stderr(&format!("{}\n", crate::runtime::stats::summary_line()));
    }
    let status = config.options.exitcode;
    write_stderr(&format!(
        "racer: halt_on_error: stopping at the first {what}{}; exiting with status {status}\n",
        destination(config)
    ));
    end_process(i32::from(status))
}

fn destination(config: &Config) -> String {
    match &config.options.log_path {
        Some(path) => format!(" (to {})", path.display()),
        None => String::new(),
    }
}
