//! Reports found outside any `racer::check`: written as they are found, in the format
//! (`report=text|json`) and to the place (`log_path`, else standard error) `RACER_OPTIONS`
//! chose; with `halt_on_error=1` the process stops after the first.

use std::io::Write;

use crate::base::platform::write_stderr;
use crate::config::options::{self, ReportFormat};
use crate::report::{deadlock_json, Deadlock};
use crate::report::{race_json, Race};
use crate::reporting::exit;

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
    if let Some(test) = race.test() {
        exit::note_test(test);
    }
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
    exit::register();
    let _writing = exit::hold();
    match &config.log {
        Some(file) => {
            if let Err(e) = file.lock().write_all(text.as_bytes()) {
                // The report must not be lost: say why it is here instead.
                let path = config.options.log_path.as_deref().unwrap_or(std::path::Path::new("?")).display();
                write_stderr(&format!("racer: cannot write to log_path '{path}': {e}\n{text}"));
            }
        }
        // Not through `std::io::stderr()`: its lock may be held by a thread that is about to
        // report a race itself and wait for `WRITING`.
        // A JSON report starts on a line of its own: standard error may be in the middle of
        // one (libtest's `cargo test -q` progress dots), and readers take the lines that start
        // with `{`.
        None if config.options.report == ReportFormat::Json => write_stderr(&format!("\n{text}")),
        None => write_stderr(text),
    }
    exit::count_written(what == "deadlock");
    if config.options.halt_on_error {
        exit::halt(config, what);
    }
}
