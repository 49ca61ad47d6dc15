//! Reports found outside any `racer::check`: written to standard error as they are found.

use std::io::Write;

use crate::report::Race;

/// Writes one report, whole, so that reports of parallel threads never interleave.
pub fn emit(race: &Race) {
    let text = race.to_string();
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}
