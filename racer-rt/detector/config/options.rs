//! `RACER_OPTIONS`: the detector's settings, read from the environment once per process.
//!
//! The variable holds comma-separated `key=value` pairs (`halt_on_error=1,exitcode=70`). It is
//! read by racer-rt's start-up hook (`ctor`, calling `racer_core::start_up`) before `main` and the test harness run, so a mistake stops
//! the program at once with status 2 and a message naming the key; [`get`] reads it lazily
//! too, so code that runs before the hook (another crate's start-up hook) sees the same
//! settings. Empty entries are ignored and a key given twice keeps its last value.

use std::fs::{File, OpenOptions};
use std::path::PathBuf;
use std::sync::OnceLock;

use crate::base::lock::Mutex;

use crate::config::suppressions::Suppressions;

/// The environment variable the options are read from.
pub const VARIABLE: &str = "RACER_OPTIONS";

/// Text of the user's as an error message shows it: on one line, with control and invisible
/// characters escaped (`\n`, `\u{7}`, `\u{200b}`), as a suppressions file's bad line is.
pub fn shown(text: &str) -> String {
    text.escape_debug().to_string()
}

/// Every key `RACER_OPTIONS` accepts, in the order error messages list them.
pub const KNOWN_KEYS: [&str; 9] = [
    "halt_on_error",
    "exitcode",
    "report",
    "log_path",
    "suppressions",
    "history",
    "algorithm",
    "stats",
    "detect_deadlocks",
];

/// The exit status with which a bad `RACER_OPTIONS` (or a file it names) stops the program.
pub const BAD_OPTIONS_STATUS: i32 = 2;

/// How reports found outside `racer::check` are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// The human layout (`Display` of `Race`).
    Text,
    /// One JSON object per race, one per line (JSON Lines), as in `Report::to_json`.
    Json,
}

/// The settings as written in `RACER_OPTIONS`, before any file they name is opened.
///
/// Invariant: every field holds a value its key accepts (`exitcode` 0..=255, `history`
/// 1..=256, `algorithm` 3, 4 or 5); `None` means "not given, keep the runtime's default".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub halt_on_error: bool,
    pub exitcode: u8,
    pub report: ReportFormat,
    pub log_path: Option<PathBuf>,
    pub suppressions: Option<PathBuf>,
    pub history: Option<usize>,
    pub algorithm: Option<u8>,
    pub stats: bool,
    /// Lock-order inversions, re-locks and hangs are reported (default) or not looked for.
    pub detect_deadlocks: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            halt_on_error: false,
            exitcode: 66,
            report: ReportFormat::Text,
            log_path: None,
            suppressions: None,
            history: None,
            algorithm: None,
            stats: false,
            detect_deadlocks: true,
        }
    }
}

/// Parses the text of `RACER_OPTIONS`. The error is the message to print after `racer: `.
pub fn parse(text: &str) -> Result<Options, String> {
    let mut options = Options::default();
    for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let Some((key, value)) = entry.split_once('=') else {
            return Err(format!(
                "{VARIABLE}: expected key=value, found '{}' (known: {})",
                shown(entry),
                KNOWN_KEYS.join(", ")
            ));
        };
        let (key, value) = (key.trim(), value.trim());
        let bad = |expected: &str| {
            format!("{VARIABLE}: bad value '{}' for '{}' (expected {expected})", shown(value), shown(key))
        };
        match key {
            "halt_on_error" => options.halt_on_error = flag(value).ok_or_else(|| bad("0 or 1"))?,
            "stats" => options.stats = flag(value).ok_or_else(|| bad("0 or 1"))?,
            "detect_deadlocks" => options.detect_deadlocks = flag(value).ok_or_else(|| bad("0 or 1"))?,
            "exitcode" => options.exitcode = value.parse().map_err(|_| bad("an integer 0..=255"))?,
            "report" => {
                options.report = match value {
                    "text" => ReportFormat::Text,
                    "json" => ReportFormat::Json,
                    _ => return Err(bad("text or json")),
                }
            }
            "log_path" => options.log_path = Some(path(value).ok_or_else(|| bad("a file path"))?),
            "suppressions" => options.suppressions = Some(path(value).ok_or_else(|| bad("a file path"))?),
            "history" => {
                options.history = Some(
                    value.parse().ok().filter(|n| (1..=256).contains(n)).ok_or_else(|| bad("an integer 1..=256"))?,
                )
            }
            "algorithm" => {
                options.algorithm =
                    Some(value.parse().ok().filter(|n| matches!(n, 3..=5)).ok_or_else(|| bad("3, 4 or 5"))?)
            }
            _ => return Err(format!("{VARIABLE}: unknown option '{}' (known: {})", shown(key), KNOWN_KEYS.join(", "))),
        }
    }
    Ok(options)
}

fn flag(value: &str) -> Option<bool> {
    match value {
        "0" => Some(false),
        "1" => Some(true),
        _ => None,
    }
}

fn path(value: &str) -> Option<PathBuf> {
    (!value.is_empty()).then(|| PathBuf::from(value))
}

/// The settings in effect, with the files they name opened and read.
///
/// Invariant: made once per process (by [`get`]), after `history` and `algorithm` were handed
/// to the runtime.
pub struct Config {
    pub options: Options,
    /// The `log_path` file, opened for appending; the lock keeps each report one write.
    pub log: Option<Mutex<File>>,
    pub suppressions: Suppressions,
}

static CONFIG: OnceLock<Config> = OnceLock::new();

/// The settings in effect. The first call reads `RACER_OPTIONS`; when it is wrong it prints
/// the reason to standard error and ends the process with status 2.
pub fn get() -> &'static Config {
    CONFIG.get_or_init(|| match load() {
        Ok(config) => config,
        Err(message) => {
            crate::base::platform::write_stderr(&format!("racer: {message}\n"));
            // Before `main`, nothing of the user's has run that `exit` would need to finish.
            crate::base::platform::end_process(BAD_OPTIONS_STATUS)
        }
    })
}

fn load() -> Result<Config, String> {
    let text = match std::env::var_os(VARIABLE) {
        None => String::new(),
        Some(raw) => raw.into_string().map_err(|_| format!("{VARIABLE} is not valid UTF-8"))?,
    };
    let options = parse(&text)?;
    let log =
        match &options.log_path {
            None => None,
            Some(path) => Some(Mutex::new(OpenOptions::new().append(true).create(true).open(path).map_err(|e| {
                format!("{VARIABLE}: cannot open log_path '{}': {e}", shown(&path.display().to_string()))
            })?)),
        };
    let suppressions = match &options.suppressions {
        None => Suppressions::default(),
        Some(path) => Suppressions::load(path)?,
    };
    if let Some(frames) = options.history {
        crate::provenance::stack::set_history(frames);
    }
    if let Some(algorithm) = options.algorithm {
        crate::model::algorithm::select(algorithm);
    }
    Ok(Config { options, log, suppressions })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_gives_the_defaults() {
        assert_eq!(parse("").unwrap(), Options::default());
        assert_eq!(parse(" , ,").unwrap(), Options::default());
        assert_eq!(Options::default().exitcode, 66);
    }

    #[test]
    fn every_key_is_read() {
        let o = parse("halt_on_error=1, exitcode=7,report=json,log_path=/tmp/r.log,suppressions=s.txt,history=3,algorithm=5,stats=1,detect_deadlocks=0")
            .unwrap();
        assert!(o.halt_on_error && o.stats);
        assert!(!o.detect_deadlocks && Options::default().detect_deadlocks);
        assert_eq!(o.exitcode, 7);
        assert_eq!(o.report, ReportFormat::Json);
        assert_eq!(o.log_path, Some(PathBuf::from("/tmp/r.log")));
        assert_eq!(o.suppressions, Some(PathBuf::from("s.txt")));
        assert_eq!(o.history, Some(3));
        assert_eq!(o.algorithm, Some(5));
    }

    #[test]
    fn the_last_of_a_repeated_key_wins() {
        assert_eq!(parse("exitcode=1,exitcode=9").unwrap().exitcode, 9);
    }

    #[test]
    fn an_unknown_key_is_named_with_the_known_ones() {
        let e = parse("exitcode=3,foo=1").unwrap_err();
        assert_eq!(
            e,
            "RACER_OPTIONS: unknown option 'foo' (known: halt_on_error, exitcode, report, log_path, suppressions, history, algorithm, stats, detect_deadlocks)"
        );
    }

    #[test]
    fn bad_values_name_the_key_and_what_it_accepts() {
        let cases = [
            ("exitcode=256", "bad value '256' for 'exitcode' (expected an integer 0..=255)"),
            ("exitcode=-1", "bad value '-1' for 'exitcode' (expected an integer 0..=255)"),
            ("halt_on_error=yes", "bad value 'yes' for 'halt_on_error' (expected 0 or 1)"),
            ("stats=2", "bad value '2' for 'stats' (expected 0 or 1)"),
            ("detect_deadlocks=yes", "bad value 'yes' for 'detect_deadlocks' (expected 0 or 1)"),
            ("report=xml", "bad value 'xml' for 'report' (expected text or json)"),
            ("history=0", "bad value '0' for 'history' (expected an integer 1..=256)"),
            ("history=257", "bad value '257' for 'history' (expected an integer 1..=256)"),
            ("algorithm=2", "bad value '2' for 'algorithm' (expected 3, 4 or 5)"),
            ("log_path=", "bad value '' for 'log_path' (expected a file path)"),
            ("suppressions=", "bad value '' for 'suppressions' (expected a file path)"),
        ];
        for (text, expected) in cases {
            assert_eq!(parse(text).unwrap_err(), format!("RACER_OPTIONS: {expected}"), "for {text}");
        }
    }

    #[test]
    fn control_characters_are_shown_escaped_on_one_line() {
        let e = parse("exitcode=1\u{7}").unwrap_err();
        assert_eq!(e, "RACER_OPTIONS: bad value '1\\u{7}' for 'exitcode' (expected an integer 0..=255)");
        let e = parse("a\nb").unwrap_err();
        assert!(e.starts_with("RACER_OPTIONS: expected key=value, found 'a\\nb' (known: "), "{e}");
        let e = parse("\u{200b}stats=1").unwrap_err();
        assert!(e.starts_with("RACER_OPTIONS: unknown option '\\u{200b}stats' (known: "), "{e}");
    }

    #[test]
    fn an_entry_without_equals_sign_is_an_error() {
        let e = parse("halt_on_error").unwrap_err();
        assert!(
            e.starts_with("RACER_OPTIONS: expected key=value, found 'halt_on_error' (known: halt_on_error,"),
            "{e}"
        );
    }

    #[test]
    fn algorithms_three_to_five_are_accepted() {
        for n in 3..=5u8 {
            assert_eq!(parse(&format!("algorithm={n}")).unwrap().algorithm, Some(n));
        }
    }
}
