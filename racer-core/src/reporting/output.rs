//! Reports found outside any `racer::check`: written as they are found, in the format
//! (`report=text|json`) and to the place (`log_path`, else standard error) `RACER_OPTIONS`
//! chose; with `halt_on_error=1` the process stops after the first.

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::base::lock::Mutex;

use crate::config::options::{self, ReportFormat};
use crate::report::{deadlock_json, Deadlock};
use crate::report::{race_json, Race};

/// Held while one report is written (and, with `halt_on_error`, until the process is gone), so
/// reports of parallel threads never interleave and nothing is reported after the first halt.
/// No user code runs while it is held.
static WRITING: Mutex<()> = Mutex::new(());

/// Race and deadlock reports written whole so far; counted under `WRITING`, after the write.
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
pub fn hold() -> crate::base::lock::MutexGuard<'static, ()> {
    WRITING.lock()
}

/// Writes one report, whole.
pub fn emit(race: &Race) {
    let config = options::get();
    let text = match config.options.report {
        ReportFormat::Text => race.to_string(),
        ReportFormat::Json => {
            let mut line = String::new();
            race_json(race, &mut line);
            line.push('\n');
            line
        }
    };
    write(config, &text, "data race");
}

/// Writes one deadlock report, whole (as JSON: one line `{"deadlock": {...}}`).
pub fn emit_deadlock(d: &Deadlock) {
    let config = options::get();
    let text = match config.options.report {
        ReportFormat::Text => d.to_string(),
        ReportFormat::Json => {
            let mut line = String::from("{\"deadlock\":");
            deadlock_json(d, &mut line);
            line.push_str("}\n");
            line
        }
    };
    write(config, &text, "deadlock");
}

/// Writes one report (of a `what`), whole; stops the process after it with `halt_on_error`.
fn write(config: &'static options::Config, text: &str, what: &str) {
    let _writing = WRITING.lock();
    match &config.log {
        Some(file) => {
            if let Err(e) = file.lock().write_all(text.as_bytes()) {
                // The report must not be lost: say why it is here instead.
                let path = config.options.log_path.as_deref().unwrap_or(std::path::Path::new("?")).display();
                crate::process::exit::write_stderr(&format!("racer: cannot write to log_path '{path}': {e}\n{text}"));
            }
        }
        // Not through `std::io::stderr()`: its lock may be held by a thread that is about to
        // report a race itself and wait for `WRITING`.
        None => crate::process::exit::write_stderr(text),
    }
    let written = if what == "deadlock" { &DEADLOCKS_WRITTEN } else { &RACES_WRITTEN };
    written.fetch_add(1, Ordering::Relaxed);
    if config.options.halt_on_error {
        crate::process::exit::halt(config, what);
    }
}
