//! Suppressions: races the user has chosen not to hear about, named in a file given by
//! `RACER_OPTIONS=suppressions=FILE`.
//!
//! The file holds one rule per line, `race:<pattern>`; blank lines and lines starting with `#`
//! are ignored. A race is suppressed when the pattern matches the function name or the file of
//! any frame of either access's stack (as far as `history` keeps it), or either access's site
//! file. A pattern matches text that contains it; `*` stands for any run of characters, a
//! leading `^` anchors it at the start and a trailing `$` at the end (as ThreadSanitizer's).
//! Example: `race:my_crate::cache::` suppresses every race with a frame in that module.
//! `deadlock:<pattern>` does the same for deadlock reports: one is suppressed when the pattern
//! matches a frame or a site of any of its lock acquisitions or blocked threads.

use std::io::Read;
use std::panic::Location;
use std::path::Path;

use crate::base::sharded_map::ShardedMap;

use crate::provenance::access::Record;
use crate::provenance::stack::{self, StackId};
use crate::report::Frame;
use crate::report::{Deadlock, LockUse};

/// One `race:` rule.
///
/// Invariant: `parts` is the pattern without its anchors, split at `*`; it has at least one
/// element, and the pattern was not empty (`*` alone, matching everything, is a pattern).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    parts: Vec<String>,
    at_start: bool,
    at_end: bool,
}

impl Rule {
    /// Parses a pattern (the text after `race:`); `None` if it is empty (anchors aside).
    fn new(pattern: &str) -> Option<Rule> {
        let at_start = pattern.starts_with('^');
        let body = pattern.strip_prefix('^').unwrap_or(pattern);
        let at_end = body.ends_with('$');
        let body = body.strip_suffix('$').unwrap_or(body);
        let parts: Vec<String> = body.split('*').map(str::to_owned).collect();
        (!body.is_empty()).then_some(Rule { parts, at_start, at_end })
    }

    /// Whether the pattern matches `text`. The parts are found leftmost, in order, which is
    /// enough for patterns whose only wildcard is `*`.
    pub fn matches(&self, text: &str) -> bool {
        let last = self.parts.len() - 1;
        let mut pos = 0;
        for (i, part) in self.parts.iter().enumerate() {
            if i == last && self.at_end {
                let starts = text.len().checked_sub(part.len());
                return match starts {
                    Some(s) if s >= pos && text.ends_with(part.as_str()) => !(i == 0 && self.at_start) || s == 0,
                    _ => false,
                };
            }
            if i == 0 && self.at_start {
                if !text.starts_with(part.as_str()) {
                    return false;
                }
                pos = part.len();
                continue;
            }
            match text[pos..].find(part.as_str()) {
                Some(k) => pos += k + part.len(),
                None => return false,
            }
        }
        true
    }
}

/// The rules of a suppressions file, and what they decided for each stack seen so far.
///
/// Invariant: `decided[s]` is whether some rule matches a frame of stack `s`; a stack's frames
/// never change, so the answer can be kept.
#[derive(Default)]
pub struct Suppressions {
    rules: RuleSet,
    /// The `deadlock:` rules.
    deadlock_rules: RuleSet,
    decided: ShardedMap<StackId, bool>,
}

/// Bytes of a rule's text that index it.
const GRAM: usize = 4;

/// Rules indexed by four bytes of their longest literal part: a text can only match a rule
/// whose indexed bytes occur in it, so matching a text against many rules costs a table lookup
/// per text position and a full match only for the few candidates (100 000 rules against
/// 10 000 races took 113 s when every rule was tried on every frame). Rules tend to share
/// prefixes (`my_crate::`), so each is filed under the window of its longest part that the
/// fewest rules before it were filed under.
///
/// Invariant: every rule is in `by_gram` under some `GRAM` bytes of its longest part, or, if
/// that part is shorter, in `short`.
#[derive(Default)]
struct RuleSet {
    rules: Vec<Rule>,
    by_gram: std::collections::HashMap<[u8; GRAM], Vec<u32>>,
    short: Vec<u32>,
}

impl RuleSet {
    fn new(rules: Vec<Rule>) -> RuleSet {
        let mut set = RuleSet { rules, ..RuleSet::default() };
        for (i, rule) in set.rules.iter().enumerate() {
            let longest = rule.parts.iter().max_by_key(|p| p.len()).map_or(&[][..], |p| p.as_bytes());
            let least_used = longest
                .windows(GRAM)
                .map(|w| <[u8; GRAM]>::try_from(w).expect("windows of GRAM bytes"))
                .min_by_key(|gram| set.by_gram.get(gram).map_or(0, Vec::len));
            match least_used {
                Some(gram) => set.by_gram.entry(gram).or_default().push(i as u32),
                None => set.short.push(i as u32),
            }
        }
        set
    }

    fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Whether any rule matches `text`.
    fn any_matches(&self, text: &str) -> bool {
        let matches = |&i: &u32| self.rules[i as usize].matches(text);
        self.short.iter().any(matches)
            || text.as_bytes().windows(GRAM).any(|w| {
                let gram: &[u8; GRAM] = w.try_into().expect("windows of GRAM bytes");
                self.by_gram.get(gram).is_some_and(|candidates| candidates.iter().any(matches))
            })
    }
}

#[cfg(test)]
/// Parses the text of a suppressions file named `file` into its `race:` rules. The error names
/// `file:line`.
pub fn parse(text: &str, file: &str) -> Result<Vec<Rule>, String> {
    parse_all(text, file).map(|(races, _)| races)
}

/// Parses a suppressions file into its `race:` and its `deadlock:` rules.
pub fn parse_all(text: &str, file: &str) -> Result<(Vec<Rule>, Vec<Rule>), String> {
    let mut rules = Vec::new();
    let mut deadlock_rules = Vec::new();
    // A byte order mark, as some editors save UTF-8, is not part of the first line.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = || format!("suppressions {file}:{}", i + 1);
        let (pattern, deadlock) = match (line.strip_prefix("race:"), line.strip_prefix("deadlock:")) {
            (Some(pattern), _) => (pattern.trim(), false),
            (None, Some(pattern)) => (pattern.trim(), true),
            (None, None) => {
                return Err(format!(
                "{}: expected 'race:<pattern>' or 'deadlock:<pattern>' (or a '#' comment or a blank line), found '{}'",
                at(),
                line.escape_debug()
            ))
            }
        };
        match (Rule::new(pattern), deadlock) {
            (Some(rule), false) => rules.push(rule),
            (Some(rule), true) => deadlock_rules.push(rule),
            (None, _) => {
                return Err(format!(
                    "{}: expected 'race:<pattern>' or 'deadlock:<pattern>', found '{line}': the pattern is empty (race:* suppresses every race)",
                    at()
                ))
            }
        }
    }
    Ok((rules, deadlock_rules))
}

/// The largest suppressions file read (ThreadSanitizer's are a few hundred lines).
const MAX_FILE_BYTES: u64 = 64 << 20;

/// The error for a file whose bytes are not UTF-8 from `valid` on: names the line and column
/// (in characters) of the first bad byte.
fn not_text(bytes: &[u8], valid: usize, file: &str) -> String {
    let before = &bytes[..valid];
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = std::str::from_utf8(&before[line_start..]).map_or(0, |s| s.chars().count()) + 1;
    format!("suppressions {file}:{line}: not UTF-8 text (byte {:#04x} at column {column})", bytes[valid])
}

impl Suppressions {
    /// Reads a suppressions file; the error names the file and the OS error or the bad line.
    pub fn load(path: &Path) -> Result<Suppressions, String> {
        let shown = crate::config::options::shown(&path.display().to_string());
        let cannot = |why: &dyn std::fmt::Display| {
            format!("{}: cannot read suppressions '{shown}': {why}", crate::config::options::VARIABLE)
        };
        // At most one byte past the limit is read: a device that never ends (`/dev/zero`,
        // `/dev/full`) is an error, not a process that reads until memory runs out.
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
            .map_err(|e| cannot(&e))?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(cannot(&format_args!("larger than {} MiB (not a suppressions file?)", MAX_FILE_BYTES >> 20)));
        }
        let text =
            String::from_utf8(bytes).map_err(|e| not_text(e.as_bytes(), e.utf8_error().valid_up_to(), &shown))?;
        let (rules, deadlock_rules) = parse_all(&text, &shown)?;
        Ok(Suppressions {
            rules: RuleSet::new(rules),
            deadlock_rules: RuleSet::new(deadlock_rules),
            decided: ShardedMap::new(),
        })
    }

    /// Whether a deadlock is suppressed: a `deadlock:` rule matches the function or file of a
    /// frame of one of its stacks, or one of its sites.
    pub fn suppresses_deadlock(&self, d: &Deadlock) -> bool {
        if self.deadlock_rules.is_empty() {
            return false;
        }
        let rules = &self.deadlock_rules;
        let frame_hit = |frames: &[Frame]| {
            frames.iter().any(|frame| {
                rules.any_matches(&frame.function) || frame.file.as_deref().is_some_and(|f| rules.any_matches(f))
            })
        };
        let site_hit = |site: &Location<'_>| rules.any_matches(site.file());
        let use_hit = |u: &LockUse| frame_hit(&u.frames) || site_hit(u.location);
        d.edges.iter().any(|e| use_hit(&e.held) || use_hit(&e.next))
            || d.threads.iter().any(|t| frame_hit(&t.frames) || site_hit(t.location))
    }

    /// Whether a race between these two accesses is suppressed. Resolves each stack at most
    /// once; free when there are no rules.
    pub fn suppresses(&self, a: &Record, b: &Record) -> bool {
        if self.rules.is_empty() {
            return false;
        }
        [a, b].iter().any(|r| self.matches_site(r.info.site()) || self.matches_stack(r.info.stack))
    }

    fn matches_site(&self, site: &Location<'_>) -> bool {
        self.rules.any_matches(site.file())
    }

    fn matches_stack(&self, id: StackId) -> bool {
        if let Some(known) = self.decided.get(&id) {
            return known;
        }
        let hit = stack::resolve(id).iter().any(|frame| {
            self.rules.any_matches(&frame.function) || frame.file.as_deref().is_some_and(|f| self.rules.any_matches(f))
        });
        self.decided.insert(id, hit);
        hit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(p: &str) -> Rule {
        Rule::new(p).unwrap()
    }

    #[test]
    fn a_plain_pattern_matches_text_containing_it() {
        let r = rule("my_crate::cache::");
        assert!(r.matches("my_crate::cache::fill"));
        assert!(r.matches("<my_crate::cache::Cache>::get"));
        assert!(!r.matches("my_crate::counter::bump"));
    }

    #[test]
    fn anchors_and_wildcards() {
        assert!(rule("^my_crate::").matches("my_crate::x"));
        assert!(!rule("^my_crate::").matches("other::my_crate::x"));
        assert!(rule("::fill$").matches("a::cache::fill"));
        assert!(!rule("::fill$").matches("a::cache::fill::{{closure}}"));
        assert!(rule("^a::*::fill$").matches("a::b::c::fill"));
        assert!(!rule("^a::*::fill$").matches("x::a::b::fill"));
        assert!(rule("cache*fill").matches("crate::cache::Cache::fill"));
        assert!(!rule("fill*cache").matches("crate::cache::Cache::fill"));
        assert!(rule("^exact$").matches("exact"));
        assert!(!rule("^exact$").matches("exactly"));
        assert!(!rule("^exact$").matches("inexact"));
        assert!(rule("ab*ab$").matches("abab"));
        assert!(!rule("ab*ab$").matches("aba"));
    }

    /// The index gives the same answer as trying every rule.
    #[test]
    fn the_index_finds_what_trying_every_rule_finds() {
        use proptest::prelude::*;
        let pattern = "\\^?[ab:*]{0,9}\\$?";
        proptest!(ProptestConfig::with_cases(2000), |(patterns in proptest::collection::vec(pattern, 1..6), text in "[ab:]{0,14}")| {
            let rules: Vec<Rule> = patterns.iter().filter_map(|p| Rule::new(p)).collect();
            let naive = rules.iter().any(|r| r.matches(&text));
            prop_assert_eq!(RuleSet::new(rules).any_matches(&text), naive);
        });
    }

    #[test]
    fn comments_and_blank_lines_are_skipped() {
        let rules = parse("# known races\n\n  race:cache::  \nrace:^x::y$\n", "s.txt").unwrap();
        assert_eq!(rules, vec![rule("cache::"), rule("^x::y$")]);
    }

    #[test]
    fn deadlock_rules_are_kept_apart() {
        let (races, deadlocks) = parse_all("race:a::\ndeadlock:  b::lock_both \n", "s").unwrap();
        assert_eq!(races, vec![rule("a::")]);
        assert_eq!(deadlocks, vec![rule("b::lock_both")]);
    }

    #[test]
    fn a_malformed_line_is_named_with_file_and_line() {
        let e = parse("# ok\nrace:fine\nthread:foo\n", "supp.txt").unwrap_err();
        assert_eq!(
            e,
            "suppressions supp.txt:3: expected 'race:<pattern>' or 'deadlock:<pattern>' (or a '#' comment or a blank line), found 'thread:foo'"
        );
        let e = parse("race:\n", "s").unwrap_err();
        assert!(
            e.starts_with("suppressions s:1: expected 'race:<pattern>'") && e.contains("the pattern is empty"),
            "{e}"
        );
        let e = parse("race:^$\n", "s").unwrap_err();
        assert!(e.contains("the pattern is empty"), "{e}");
        let e = parse("\u{200b}race:x\n", "s").unwrap_err();
        assert!(e.contains("\\u{200b}"), "an invisible character is shown escaped: {e}");
    }

    #[test]
    #[allow(invalid_from_utf8)] // the invalid literal is the point
    fn bytes_that_are_not_utf8_are_named_by_line_and_column() {
        let bytes = b"race:a\r\n# \xc3\xa9t\xc3\xa9\nrace:\xc3\xa9\xff\n";
        let valid = std::str::from_utf8(bytes).unwrap_err().valid_up_to();
        assert_eq!(not_text(bytes, valid, "s.txt"), "suppressions s.txt:3: not UTF-8 text (byte 0xff at column 7)");
        assert_eq!(not_text(b"\x80", 0, "s"), "suppressions s:1: not UTF-8 text (byte 0x80 at column 1)");
    }

    /// `race:*` is ThreadSanitizer's "every race", and a file saved with a UTF-8 byte order
    /// mark reads as the same rules.
    #[test]
    fn a_lone_wildcard_matches_everything_and_a_byte_order_mark_is_skipped() {
        let rules = parse("race:*\n", "s").unwrap();
        assert!(rules[0].matches("anything::at::all") && rules[0].matches(""));
        assert_eq!(parse("\u{feff}race:cache::\n", "s").unwrap(), vec![rule("cache::")]);
    }
}
