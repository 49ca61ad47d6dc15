//! A resolved stack frame, and the pieces of layout both kinds of report share (frames as text,
//! frames, locations and strings as JSON).

use std::fmt;
use std::panic::Location;

/// One resolved stack frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub function: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
}

impl fmt::Display for Frame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.function)?;
        if let Some(file) = &self.file {
            write!(f, "  {file}")?;
            if let Some(line) = self.line {
                write!(f, ":{line}")?;
                if let Some(col) = self.column {
                    write!(f, ":{col}")?;
                }
            }
        }
        Ok(())
    }
}

/// The test whose harness thread `frames` (a stack, its outermost frame last) come from: libtest
/// names the thread after the test and calls the test function `krate::name` from a closure of
/// its own, `krate::name::{{closure}}`, the thread's outermost frame of the test's crate.
#[allow(dead_code)] // in the feature-off build, which makes no report
pub(crate) fn test_of(frames: &[Frame]) -> Option<&str> {
    let [.., test_fn, harness] = frames else { return None };
    let is_path = |p: &str| {
        p.split("::").all(|id| {
            id.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
                && id.chars().all(|c| c.is_alphanumeric() || c == '_')
        })
    };
    let (krate, name) = test_fn.function.split_once("::")?;
    (is_path(krate)
        && is_path(name)
        && harness.function.strip_prefix(test_fn.function.as_str()) == Some("::{{closure}}"))
    .then_some(name)
}

/// Whether `frames` are those of the test harness's thread running the test `name` (the
/// thread's name): see [`test_of`].
#[allow(dead_code)] // in the feature-off build, which makes no report
pub(crate) fn runs_test(name: &str, frames: &[Frame]) -> bool {
    test_of(frames) == Some(name)
}

/// Whether `frame` is racer's loom stand-in's (crate `loom`): not a frame of an integration
/// test that happens to be called `loom` too (`tests/loom.rs`, as most loom suites are).
fn is_stand_in(frame: &Frame) -> bool {
    let in_tests = |file: &str| file.starts_with("tests/") || file.contains("/tests/");
    (frame.function.starts_with("loom::") || frame.function.starts_with("<loom::"))
        && !frame.file.as_deref().is_some_and(in_tests)
}

/// The name `#[racer::test]` gives the test's body, a function inside the test's.
#[allow(dead_code)]
const TEST_BODY: &str = "::__racer_test_body";

/// Leaves out of `frames` (outermost last) those the test's scaffolding made, and names the
/// test's body after the test: `#[racer::test]` runs the body `krate::name::__racer_test_body`
/// from a closure `krate::name::{{closure}}` passed to `racer::check`, inside the generated
/// `krate::name`; libtest calls `krate::name` from its closure `krate::name::{{closure}}`;
/// racer's loom stand-in (its `model` running the user's closure, its wrappers) is racer's own.
#[allow(dead_code)] // in the feature-off build, which makes no report
pub(crate) fn hide_generated(frames: &mut Vec<Frame>) {
    frames.retain(|f| !is_stand_in(f));
    let body = frames.iter().position(|f| f.function.contains(TEST_BODY));
    if let Some(body) = body {
        let test = frames[body].function[..frames[body].function.find(TEST_BODY).unwrap_or(0)].to_string();
        let generated = |f: &Frame| f.function == test || f.function.starts_with(&format!("{test}::{{{{closure}}}}"));
        let mut i = body + 1;
        while i < frames.len() {
            if generated(&frames[i]) {
                frames.remove(i);
            } else {
                i += 1;
            }
        }
        let body_path = format!("{test}{TEST_BODY}");
        for f in frames.iter_mut() {
            if f.function.starts_with(&body_path) {
                f.function = format!("{test}{}", &f.function[body_path.len()..]);
            }
        }
    }
    // libtest's closure around a plain test: `krate::name::{{closure}}` right outside `krate::name`.
    if let [.., test_fn, harness] = frames.as_slice() {
        if harness.function.strip_prefix(test_fn.function.as_str()) == Some("::{{closure}}") {
            frames.pop();
        }
    }
}

pub(crate) fn write_frames(f: &mut fmt::Formatter<'_>, frames: &[Frame]) -> fmt::Result {
    if frames.is_empty() {
        return writeln!(f, "    <no frames: build with debug info to see them>");
    }
    for (i, frame) in frames.iter().enumerate() {
        writeln!(f, "    #{i} {frame}")?;
    }
    Ok(())
}

/// How a report names a thread: by its name, else by racer's number for it.
pub(crate) fn thread_label(name: &Option<String>, id: u64) -> String {
    actor_label(name, id, false)
}

/// How a report names a thread or, with `task`, an async task racer spawned: by its name, else
/// by racer's number for it (`thread T4`, `task 7`).
pub(crate) fn actor_label(name: &Option<String>, id: u64, task: bool) -> String {
    match (name, task) {
        (Some(name), false) => format!("thread '{name}'"),
        (None, false) => format!("thread T{id}"),
        (Some(name), true) => format!("task '{name}'"),
        (None, true) => format!("task {id}"),
    }
}

pub(crate) fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|c| c.to_uppercase().collect::<String>() + chars.as_str()).unwrap_or_default()
}

pub(crate) fn location_json(l: &Location<'_>, out: &mut String) {
    out.push_str(&format!("{{\"file\":{},\"line\":{},\"column\":{}}}", json_string(l.file()), l.line(), l.column()));
}

pub(crate) fn frames_json(frames: &[Frame], out: &mut String) {
    out.push('[');
    for (i, fr) in frames.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!(
            "{{\"function\":{},\"file\":{},\"line\":{}}}",
            json_string(&fr.function),
            fr.file.as_deref().map(json_string).unwrap_or_else(|| "null".into()),
            fr.line.map(|l| l.to_string()).unwrap_or_else(|| "null".into()),
        ));
    }
    out.push(']');
}

pub(crate) fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(function: &str) -> Frame {
        Frame { function: function.into(), file: Some("tests/t.rs".into()), line: Some(1), column: Some(1) }
    }

    #[test]
    fn the_harness_thread_of_a_test_is_told_by_libtests_closure_under_the_test() {
        let harness = [frame("t::helper"), frame("t::tests::fill"), frame("t::tests::fill::{{closure}}")];
        assert_eq!(test_of(&harness), Some("tests::fill"));
        assert!(runs_test("tests::fill", &harness));
        assert!(!runs_test("fill", &harness));
        // A user's thread named after the function it runs, without libtest's closure around it.
        assert!(!runs_test("worker", &[frame("t::worker")]));
        assert_eq!(test_of(&[frame("t::main::{{closure}}")]), None);
        assert_eq!(test_of(&[frame("<t::S as t::T>::run"), frame("<t::S as t::T>::run::{{closure}}")]), None);
    }

    #[test]
    fn a_racer_tests_scaffolding_is_left_out_and_its_body_named_after_it() {
        let mut frames = vec![
            frame("t::fill::__racer_test_body::{{closure}}"),
            frame("t::fill::__racer_test_body"),
            frame("t::fill::{{closure}}"),
            frame("t::fill"),
            frame("t::fill::{{closure}}"),
        ];
        hide_generated(&mut frames);
        let names: Vec<&str> = frames.iter().map(|f| f.function.as_str()).collect();
        assert_eq!(names, ["t::fill::{{closure}}", "t::fill"]);

        let mut plain = vec![frame("t::helper"), frame("t::fill"), frame("t::fill::{{closure}}")];
        hide_generated(&mut plain);
        assert_eq!(plain.iter().map(|f| f.function.as_str()).collect::<Vec<_>>(), ["t::helper", "t::fill"]);

        let stand_in = |function: &str| Frame { file: Some("/r/loom-compat/src/lib.rs".into()), ..frame(function) };
        let mut loom = vec![stand_in("loom::cell::UnsafeCell<T>::with"), frame("t::handoff"), stand_in("loom::model")];
        hide_generated(&mut loom);
        assert_eq!(loom.iter().map(|f| f.function.as_str()).collect::<Vec<_>>(), ["t::handoff"]);
        // A loom suite's own test binary is a crate called `loom` too (tests/loom.rs): kept.
        let mut suite = vec![frame("loom::spsc::{{closure}}"), stand_in("loom::model")];
        hide_generated(&mut suite);
        assert_eq!(suite.iter().map(|f| f.function.as_str()).collect::<Vec<_>>(), ["loom::spsc::{{closure}}"]);
    }
}
