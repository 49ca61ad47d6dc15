//! The swap of a published crate's imports for racer's, in a copy of its registry source, as a
//! user makes it by hand (`tests/async_suites.rs`, `tests/ecosystem_suites.rs`), and the check
//! of the suite's run under racer.
// Each suite uses its part.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use crate::child_cargo::Run;

/// One rule of the swap: `from` replaced by `to` where it starts a path (not after an identifier
/// character or `:`), not followed by an identifier character if it ends in one, and, when
/// `only_before` is not empty, only before one of those items.
pub struct Rule {
    pub from: &'static str,
    pub to: &'static str,
    pub only_before: &'static [&'static str],
}

pub const STD_DROP_INS: &[&str] = &[
    "Mutex",
    "MutexGuard",
    "RwLock",
    "RwLockReadGuard",
    "RwLockWriteGuard",
    "Condvar",
    "Barrier",
    "Once",
    "OnceLock",
    "LazyLock",
    "mpsc",
];

pub fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `text` with `rule` applied, and how many times it applied.
pub fn apply(text: &str, rule: &Rule) -> (String, usize) {
    let (mut out, mut rest, mut count) = (String::with_capacity(text.len()), text, 0);
    while let Some(at) = rest.find(rule.from) {
        let (before, from_here) = rest.split_at(at);
        let after = &from_here[rule.from.len()..];
        let prev = before.chars().next_back().or_else(|| out.chars().next_back());
        let next_item: String = after.chars().take_while(|&c| is_ident(c)).collect();
        let starts_a_path = !prev.is_some_and(|c| is_ident(c) || c == ':');
        let ends_there = !rule.from.ends_with(is_ident) || next_item.is_empty();
        let item_ok = rule.only_before.is_empty() || rule.only_before.contains(&next_item.as_str());
        out.push_str(before);
        if starts_a_path && ends_there && item_ok {
            out.push_str(rule.to);
            count += 1;
        } else {
            out.push_str(rule.from);
        }
        rest = after;
    }
    out.push_str(rest);
    (out, count)
}

pub fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("reading the copy") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            source_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs" || e == "md") {
            out.push(path);
        }
    }
}

/// Replaces `from` by `to` in `dir/file`, asserting it occurs `count` times.
pub fn edit(dir: &Path, file: &str, from: &str, to: &str, count: usize) {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
    assert_eq!(text.matches(from).count(), count, "{from:?} in {file}");
    std::fs::write(&path, text.replace(from, to)).unwrap();
}

/// Asserts that every test passed (`expected_tests`) and racer reported nothing.
pub fn passes_without_a_report(name: &str, r: &Run, expected_tests: usize) {
    let reports: Vec<&str> = r.stdout.lines().chain(r.stderr.lines()).filter(|l| l.contains("racer:")).collect();
    assert!(r.race_lines().is_empty() && reports.is_empty(), "racer reported on {name}: {reports:#?}\n{}", r.all());
    assert!(r.success, "{name}'s suite failed under racer\n{}", r.all());
    assert_eq!(r.passed(), expected_tests, "every test of {name}'s suite ran and passed\n{}", r.all());
}
