//! What a user can put in `RACER_OPTIONS` and in a suppressions file, fuzzed: each input is
//! accepted or stops the program at start-up with status 2 and one line naming what was wrong
//! (the key, the entry, the file and line): never a panic, a hang or a silent misreading.
//! Options are read once per process, so every case runs the fixture `racer-fixture`
//! (tests/fixtures/racy_program.rs) as a child; a few dozen cases per property keep CI fast.
#![cfg(feature = "race-detect")]

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
mod child_support;

use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use proptest::prelude::*;

const KNOWN: &str =
    "(known: halt_on_error, exitcode, report, log_path, suppressions, history, algorithm, stats, detect_deadlocks)";

/// A directory of this process's own, the children's working directory: an option naming a
/// relative file writes nowhere else.
fn scratch_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("fuzz_inputs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A fresh file path in the scratch directory.
fn scratch(name: &str) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    scratch_dir().join(format!("{}-{name}", N.fetch_add(1, Ordering::Relaxed)))
}

/// Runs the fixture with `RACER_OPTIONS` set to `options` (bytes: it may be any but NUL). A
/// run longer than 60 s is a hang: the child is killed and the test fails.
fn run(scenario: &str, options: &[u8]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_racer-fixture"));
    cmd.arg(scenario).env("RACER_OPTIONS", OsStr::from_bytes(options)).current_dir(scratch_dir());
    let what = format!("racer-fixture {scenario} with RACER_OPTIONS={:?}", String::from_utf8_lossy(options));
    child_support::output_within(cmd, Duration::from_secs(60), &what)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The outcome every input must have: the clean scenario ran to its end (status 0, nothing
/// from racer but the stats line if asked for), or racer stopped it before `main` with status
/// 2 and one line starting `racer: ` that names `what`. Returns whether it was accepted.
fn accepted_or_named(out: &Output, input: &str) -> bool {
    let (err, stdout) = (text(&out.stderr), text(&out.stdout));
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "a panic for {input:?}: {err}");
    match out.status.code() {
        Some(0) => {
            assert_eq!(stdout, "fixture: done\n", "{input:?}");
            assert!(
                err.lines().all(|l| l.starts_with("racer: stats: ")) && err.lines().count() <= 1,
                "{input:?}: {err}"
            );
            true
        }
        Some(2) => {
            assert_eq!(stdout, "", "{input:?}: main never ran");
            assert!(
                err.starts_with("racer: ") && err.ends_with('\n') && err.lines().count() == 1,
                "{input:?}: one line: {err:?}"
            );
            false
        }
        other => panic!("{input:?}: status {other:?}, stderr {err}"),
    }
}

/// One entry of `RACER_OPTIONS`, generated with what the parser must make of it.
#[derive(Debug, Clone)]
enum Entry {
    /// Accepted: the text.
    Good(String),
    /// Rejected: the text and a part the error line must show (the key, the value or the
    /// entry itself).
    Bad(String, String),
}

fn good_entry() -> impl Strategy<Value = Entry> {
    let log = scratch("log").display().to_string();
    let rules = scratch("rules");
    std::fs::write(&rules, "# nothing suppressed\r\nrace:no_such_function_anywhere\r\n").unwrap();
    let rules = rules.display().to_string();
    prop_oneof![
        (0..2u8).prop_map(|v| format!("halt_on_error={v}")),
        (0..2u8).prop_map(|v| format!("stats={v}")),
        (0..=255u16).prop_map(|v| format!("exitcode={v}")),
        prop::sample::select(vec!["report=text", "report=json"]).prop_map(str::to_owned),
        (1..=256u16).prop_map(|v| format!("history={v}")),
        (3..=5u8).prop_map(|v| format!("algorithm={v}")),
        prop::sample::select(vec![log, "/dev/full".to_owned(), "/dev/null".to_owned()])
            .prop_map(|p| format!("log_path={p}")),
        Just(format!("suppressions={rules}")),
        // Blanks around keys and values, and CR LF (a value pasted from a file), are trimmed.
        (0..=255u16).prop_map(|v| format!(" exitcode = {v}\r\n")),
    ]
    .prop_map(Entry::Good)
}

fn bad_entry() -> impl Strategy<Value = Entry> {
    let huge = || "[0-9]{20,400}";
    prop_oneof![
        // Unknown keys, `=` alone (an empty key), keys in another case.
        "[a-z_]{1,12}"
            .prop_filter("not a known key", |k| !KNOWN.contains(&format!(" {k},"))
                && !KNOWN.contains(&format!(" {k})")))
            .prop_map(|k| Entry::Bad(format!("{k}=1"), format!("unknown option '{k}'"))),
        Just(Entry::Bad("=".into(), "unknown option ''".into())),
        Just(Entry::Bad("=1".into(), "unknown option ''".into())),
        Just(Entry::Bad("EXITCODE=1".into(), "unknown option 'EXITCODE'".into())),
        // No `=` at all.
        "[a-z_]{1,12}".prop_map(|e| Entry::Bad(e.clone(), format!("expected key=value, found '{e}'"))),
        // Values out of range, huge, empty, of the wrong kind.
        huge().prop_map(|v| Entry::Bad(format!("exitcode={v}"), format!("bad value '{v}' for 'exitcode'"))),
        huge().prop_map(|v| Entry::Bad(format!("history={v}"), format!("bad value '{v}' for 'history'"))),
        (256..100_000u32).prop_map(|v| Entry::Bad(format!("exitcode={v}"), format!("bad value '{v}' for 'exitcode'"))),
        Just(Entry::Bad("exitcode=-1".into(), "bad value '-1' for 'exitcode'".into())),
        Just(Entry::Bad("exitcode=".into(), "bad value '' for 'exitcode'".into())),
        Just(Entry::Bad("history=0".into(), "bad value '0' for 'history'".into())),
        Just(Entry::Bad("algorithm=45".into(), "bad value '45' for 'algorithm'".into())),
        "[a-z]{0,8}".prop_map(|v| Entry::Bad(format!("report={v}"), format!("bad value '{v}' for 'report'"))),
        "[2-9a-z]{1,4}"
            .prop_map(|v| Entry::Bad(format!("halt_on_error={v}"), format!("bad value '{v}' for 'halt_on_error'"))),
        Just(Entry::Bad("stats==1".into(), "bad value '=1' for 'stats'".into())),
        Just(Entry::Bad("log_path=".into(), "bad value '' for 'log_path'".into())),
        Just(Entry::Bad("suppressions=".into(), "bad value '' for 'suppressions'".into())),
    ]
}

/// Separators: one comma, several (empty entries are skipped), blanks around them.
fn separator() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![",", ",,", ",,,", " , ", ", ,\t,"])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, failure_persistence: None, ..ProptestConfig::default() })]

    /// Entries good and bad, joined by any separators: accepted exactly when every entry is
    /// good, else the error line names the first bad entry's key, value or text.
    #[test]
    fn options_are_accepted_or_the_first_bad_entry_is_named(
        entries in prop::collection::vec(prop_oneof![3 => good_entry(), 1 => bad_entry()], 0..6),
        seps in prop::collection::vec(separator(), 6),
        lead in prop::sample::select(vec!["", ",", ",,,"]),
    ) {
        let mut input = lead.to_owned();
        for (i, e) in entries.iter().enumerate() {
            if i > 0 {
                input.push_str(seps[i]);
            }
            input.push_str(match e { Entry::Good(t) | Entry::Bad(t, _) => t });
        }
        let out = run("clean", input.as_bytes());
        let accepted = accepted_or_named(&out, &input);
        let first_bad = entries.iter().find_map(|e| match e { Entry::Bad(_, shown) => Some(shown), Entry::Good(_) => None });
        match first_bad {
            None => prop_assert!(accepted, "{input:?} was rejected: {}", text(&out.stderr)),
            Some(shown) => {
                prop_assert!(!accepted, "{input:?} was accepted");
                let err = text(&out.stderr);
                prop_assert!(err.starts_with("racer: RACER_OPTIONS: "), "{input:?}: {err}");
                prop_assert!(err.contains(shown.as_str()), "{input:?}: the error names {shown:?}: {err}");
            }
        }
    }

    /// Any bytes at all (but NUL, which no environment variable holds), and any mix of the
    /// option syntax's own characters: accepted or one named error.
    #[test]
    fn any_bytes_in_options_are_accepted_or_named(
        input in prop_oneof![
            prop::collection::vec(1..=255u8, 0..300),
            prop::collection::vec(prop::sample::select(b"=,, \t\r\n=exitcode1history".to_vec()), 0..60),
        ],
    ) {
        let out = run("clean", &input);
        let shown = String::from_utf8_lossy(&input).into_owned();
        if !accepted_or_named(&out, &shown) {
            let err = text(&out.stderr);
            prop_assert!(err.starts_with("racer: RACER_OPTIONS"), "{shown:?}: {err}");
            if std::str::from_utf8(&input).is_err() {
                prop_assert_eq!(err, "racer: RACER_OPTIONS is not valid UTF-8\n");
            }
        }
    }
}

/// Inputs named in the issue, each with what racer says.
#[test]
fn odd_options_by_hand() {
    let huge_number = "9".repeat(100_000);
    let commas = ",".repeat(100_000);
    let accepted: [&[u8]; 5] = [b"", b",,,", b" ", b"exitcode=7\r\n", commas.as_bytes()];
    for input in accepted {
        let out = run("clean", input);
        assert!(accepted_or_named(&out, &text(input)), "{:?} is accepted: {}", text(input), text(&out.stderr));
    }
    let rejected: [(Vec<u8>, String); 5] = [
        (b"=".to_vec(), format!("racer: RACER_OPTIONS: unknown option '' {KNOWN}\n")),
        (b"=,=".to_vec(), format!("racer: RACER_OPTIONS: unknown option '' {KNOWN}\n")),
        (
            format!("exitcode={huge_number}").into_bytes(),
            format!("racer: RACER_OPTIONS: bad value '{huge_number}' for 'exitcode' (expected an integer 0..=255)\n"),
        ),
        (b"exitcode=\xff\xfe".to_vec(), "racer: RACER_OPTIONS is not valid UTF-8\n".to_owned()),
        (
            b"exitcode=1\x07".to_vec(),
            "racer: RACER_OPTIONS: bad value '1\\u{7}' for 'exitcode' (expected an integer 0..=255)\n".to_owned(),
        ),
    ];
    for (input, message) in rejected {
        let out = run("clean", &input);
        assert!(!accepted_or_named(&out, &text(&input)));
        assert_eq!(text(&out.stderr), message);
    }
}

/// A directory, or a device that never ends, where a file is expected: named at start-up.
#[test]
fn a_directory_or_endless_device_as_a_file_is_named() {
    let dir = scratch_dir();
    let cases = [
        (format!("suppressions={}", dir.display()), format!("racer: RACER_OPTIONS: cannot read suppressions '{}': Is a directory (os error 21)\n", dir.display())),
        (format!("log_path={}", dir.display()), format!("racer: RACER_OPTIONS: cannot open log_path '{}': Is a directory (os error 21)\n", dir.display())),
        ("suppressions=/dev/zero".to_owned(), "racer: RACER_OPTIONS: cannot read suppressions '/dev/zero': larger than 64 MiB (not a suppressions file?)\n".to_owned()),
        ("suppressions=/dev/full".to_owned(), "racer: RACER_OPTIONS: cannot read suppressions '/dev/full': larger than 64 MiB (not a suppressions file?)\n".to_owned()),
    ];
    for (options, message) in cases {
        let out = run("clean", options.as_bytes());
        assert_eq!(out.status.code(), Some(2), "{options}: {}", text(&out.stderr));
        assert_eq!(text(&out.stderr), message, "{options}");
        assert_eq!(text(&out.stdout), "", "{options}: main never ran");
    }
    // An empty device is an empty file: no rules.
    let out = run("one", b"suppressions=/dev/null");
    assert_eq!(out.status.code(), Some(66), "{}", text(&out.stderr));
}

/// `log_path=/dev/full`: opening works, writing fails; each report goes to standard error
/// instead, after a line saying why, and the summary says where the reports were meant to go.
#[test]
fn log_path_dev_full_sends_the_reports_to_stderr_with_the_reason() {
    let out = run("two", b"log_path=/dev/full");
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(66), "{err}");
    assert_eq!(
        err.matches("racer: cannot write to log_path '/dev/full': No space left on device (os error 28)\n").count(),
        2,
        "{err}"
    );
    assert_eq!(err.matches("WARNING: racer: data race").count(), 2, "both reports are whole on stderr: {err}");
    assert!(err.ends_with("racer: 2 data race(s) reported (to /dev/full); exiting with status 66\n"), "{err}");
    assert!(text(&out.stdout).contains("fixture: done"));
}

/// One line of a suppressions file, generated with whether it is well formed.
#[derive(Debug, Clone)]
enum Line {
    Ok(String),
    Bad(String),
}

fn suppression_line() -> impl Strategy<Value = Line> {
    prop_oneof![
        4 => prop_oneof![
            "race:[a-z_:]{1,20}",
            "race:\\^[a-z_:]{1,12}\\$",
            "race:[a-z_]{1,6}\\*[a-z_]{1,6}",
            Just("race:no_such_function_anywhere".to_owned()),
            Just("  race:  spaced::out  ".to_owned()),
            "#[ -~]{0,30}",
            Just(String::new()),
            Just("   \t".to_owned()),
            Just("race:\u{e9}t\u{e9}::\u{fc}ber".to_owned()),
        ].prop_map(Line::Ok),
        1 => prop_oneof![
            "[a-qs-z][ -~]{0,20}".prop_map(|l| l.trim().to_owned()).prop_filter("not blank or a comment", |l| !l.is_empty() && !l.starts_with('#')),
            Just("race:".to_owned()),
            Just("race:^$".to_owned()),
            Just("thread:foo".to_owned()),
            Just("race".to_owned()),
        ].prop_map(Line::Bad),
    ]
}

/// Runs the one-race scenario with `rules` as its suppressions file and checks the outcome:
/// `Err(line)` expects the error naming that line (1-based), `Ok(())` a run that got to its end.
fn run_with_rules(rules: &[u8], expect: Result<(), usize>) -> Result<(), TestCaseError> {
    let path = scratch("supp.txt");
    std::fs::write(&path, rules).unwrap();
    let out = run("one", format!("suppressions={}", path.display()).as_bytes());
    let err = text(&out.stderr);
    prop_assert!(!err.contains("panicked"), "{err}");
    match expect {
        Ok(()) => {
            prop_assert!(matches!(out.status.code(), Some(0 | 66)), "{:?}: {err}", text(rules));
            prop_assert!(text(&out.stdout).contains("fixture: done"));
        }
        Err(line) => {
            prop_assert_eq!(out.status.code(), Some(2), "{:?}: {}", text(rules), err);
            let at = format!("racer: suppressions {}:{line}: ", path.display());
            prop_assert!(
                err.starts_with(&at) && err.lines().count() == 1,
                "{:?}: expected {at:?}..., got {err:?}",
                text(rules)
            );
            prop_assert_eq!(text(&out.stdout), "");
        }
    }
    let _ = std::fs::remove_file(&path);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, failure_persistence: None, ..ProptestConfig::default() })]

    /// Files of good and bad lines, LF or CR LF line ends (mixed), with or without a byte order
    /// mark: accepted when every line is good, else the first bad line is named by number.
    #[test]
    fn suppressions_are_accepted_or_the_first_bad_line_is_named(
        lines in prop::collection::vec(suppression_line(), 0..12),
        crlf in prop::collection::vec(any::<bool>(), 12),
        bom in any::<bool>(),
        final_newline in any::<bool>(),
    ) {
        let mut file = String::new();
        if bom {
            file.push('\u{feff}');
        }
        for (i, l) in lines.iter().enumerate() {
            file.push_str(match l { Line::Ok(t) | Line::Bad(t) => t });
            if i + 1 < lines.len() || final_newline {
                file.push_str(if crlf[i] { "\r\n" } else { "\n" });
            }
        }
        let first_bad = lines.iter().position(|l| matches!(l, Line::Bad(_)));
        run_with_rules(file.as_bytes(), first_bad.map_or(Ok(()), |i| Err(i + 1)))?;
    }

    /// Bytes that are not UTF-8 in a suppressions file: the line they are on is named.
    #[test]
    fn binary_bytes_in_suppressions_name_their_line(
        good in prop::collection::vec("race:[a-z]{1,8}|#[a-z ]{0,8}|", 0..6),
        junk in prop::collection::vec(128..=255u8, 1..16),
    ) {
        let mut file = good.join("\n").into_bytes();
        if !good.is_empty() {
            file.push(b'\n');
        }
        file.extend_from_slice(b"race:");
        file.extend_from_slice(&junk);
        file.extend_from_slice(b"\nrace:after\n");
        // Some high bytes make valid UTF-8 by chance (e.g. C3 A9): then the file is accepted.
        match std::str::from_utf8(&file) {
            Ok(_) => run_with_rules(&file, Ok(()))?,
            Err(_) => run_with_rules(&file, Err(good.len() + 1))?,
        }
    }
}

/// Binary bytes and CR LF in a file by hand: the message for bytes that are not UTF-8.
#[test]
fn a_suppressions_file_that_is_not_text_is_named_by_line() {
    let path: &Path = &scratch("binary.txt");
    std::fs::write(path, b"race:ok\r\n# fine\r\nrace:\x00\xff\xfe\x01\r\n").unwrap();
    let out = run("one", format!("suppressions={}", path.display()).as_bytes());
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!("racer: suppressions {}:3: not UTF-8 text (byte 0xff at column 7)\n", path.display())
    );
}
