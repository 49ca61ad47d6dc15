//! How the detector's settings are named in its messages: the variable they come from, and the
//! user's text as a message shows it. Shared by the options and the suppressions file they name.

/// The environment variable the options are read from.
pub const VARIABLE: &str = "RACER_OPTIONS";

/// Text of the user's as an error message shows it: on one line, with control and invisible
/// characters escaped (`\n`, `\u{7}`, `\u{200b}`), as a suppressions file's bad line is.
pub fn shown(text: &str) -> String {
    text.escape_debug().to_string()
}
