//! Resolving an interned stack to the user's frames, for a report.

use std::sync::LazyLock as Lazy;

use crate::base::sharded_map::ShardedMap;
use crate::provenance::stack::depot::{history, site, words, StackId, TAG_WORDS};
use crate::report::Frame;

/// The name of the function through which racer-rt polls a task it spawned (`racer::tokio`):
/// a task's stack ends there, as a thread's ends at its entry point, and the executor's frames
/// above it are left out.
pub const TASK_POLL: &str = "__racer_task_poll";

/// Resolves an interned stack to the user's frames: the frames before the access's own site
/// (racer's, and std's generic code instantiated for racer, whatever its name or path), racer's
/// and std's frames between the user's, and everything below the runtime's thread entry point
/// (`__rust_begin_short_backtrace`) or a task's poll (`TASK_POLL`) are left out, and at most
/// `history` frames are kept.
pub fn resolve(id: StackId) -> Vec<Frame> {
    let ips: Box<[usize]> = words(id);
    let history = history();
    let mut frames = Vec::new();
    'ips: for &ip in ips[TAG_WORDS..].iter() {
        // Return addresses point after the call; look up the call instruction itself.
        for symbol in (crate::base::platform::get().resolve)(ip.wrapping_sub(1)) {
            let function = symbol.function.unwrap_or_else(|| format!("{ip:#x}"));
            if function.contains("__rust_begin_short_backtrace") || function.contains(TASK_POLL) {
                break 'ips;
            }
            let file = symbol.file.map(|p| shorten(&p));
            if !is_own_frame(&function, file.as_deref()) {
                frames.push(Frame { function, file, line: symbol.line, column: symbol.column });
            }
        }
    }
    // The access's `#[track_caller]` site is the innermost frame of the user's code.
    if let Some(site) = site(id) {
        let at_site = |f: &Frame| {
            f.line == Some(site.line()) && f.file.as_deref().is_some_and(|file| file.ends_with(site.file()))
        };
        if let Some(first) = frames.iter().position(at_site) {
            frames.drain(..first);
        }
    }
    frames.truncate(history);
    frames
}

/// [`resolve`], without the frames the test's scaffolding generated (`#[racer::test]`, libtest,
/// racer's loom stand-in; see `report::hide_generated`): the stacks a report shows.
pub fn resolve_shown(id: StackId) -> Vec<Frame> {
    let mut frames = resolve(id);
    crate::report::hide_generated(&mut frames);
    frames
}

/// What started a piece of work tokio's runtime ran that racer did not spawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Untracked {
    /// A task `tokio::spawn` (or a runtime's or handle's `spawn`) started.
    Task,
    /// A closure `tokio::task::spawn_blocking` (or a runtime's or handle's) started on tokio's
    /// blocking pool.
    Blocking,
}

/// Leaves out the frames of tokio's runtime (outermost last: the executor above the user's
/// future) and tells whether they ran work racer did not spawn, and which: a task of
/// `tokio::spawn` (the frames of tokio's task harness, `tokio::runtime::task::`) or a closure of
/// `tokio::task::spawn_blocking` (the innermost of tokio's frames is then its blocking task's
/// poll, `tokio::runtime::blocking::task::`; a multi-thread runtime's workers run inside the
/// blocking pool too, but under the frames of the task they poll).
pub fn cut_at_untracked_task(frames: &mut Vec<Frame>) -> Option<Untracked> {
    let path = |f: &Frame| f.function.trim_start_matches('<').to_string();
    let first = frames.iter().position(|f| path(f).starts_with("tokio::runtime::"))?;
    let found = if path(&frames[first]).starts_with("tokio::runtime::blocking::task::") {
        Some(Untracked::Blocking)
    } else if frames[first..].iter().any(|f| path(f).starts_with("tokio::runtime::task::")) {
        Some(Untracked::Task)
    } else {
        None
    };
    frames.truncate(first);
    found
}

/// Whether `frames` run a job of rayon's thread pool (a closure rayon called on its worker),
/// which `racer::rayon` would have run as a task of its own.
pub fn runs_rayon_job(frames: &[Frame]) -> bool {
    frames.iter().any(|f| {
        let path = f.function.trim_start_matches('<');
        path.starts_with("rayon_core::") || path.starts_with("rayon::")
    })
}

/// Frames left out of reports: racer's own, the unwinding and closure-call glue between the
/// user's frames, and std's internals (a user frame is never hidden behind them), whether std's
/// source is the toolchain's (`/rustc/...`) or a local copy (the `rust-src` component).
fn is_own_frame(function: &str, file: Option<&str>) -> bool {
    // The detector's crate is `racer_core_<hash>` as racer-rt's build script names it.
    const OWN: [&str; 5] = ["racer_core::", "racer_core_", "racer_rt::", "backtrace::", "racer::"];
    let path = function.strip_prefix('<').unwrap_or(function);
    OWN.iter().any(|p| path.starts_with(p))
        || function == "__rust_try"
        || file.is_some_and(|f| f.starts_with("/rustc/") || f.contains("/lib/rustlib/src/rust/library/"))
}

/// Paths inside the current directory are printed relative to it, as `#[track_caller]`
/// locations are.
fn shorten(path: &str) -> String {
    static CWD: Lazy<Option<String>> = Lazy::new(|| std::env::current_dir().ok().map(|d| format!("{}/", d.display())));
    match CWD.as_deref() {
        Some(cwd) if path.starts_with(cwd) => path[cwd.len()..].to_string(),
        _ => path.to_string(),
    }
}

/// Whether the stack runs inside the last drop of a `std::sync::Arc` (its `drop_slow`, which std
/// never inlines): every clone's drop released the count and the last one acquired it, so
/// everything done through any clone happens before what runs there. Looked at only for an access
/// that would be reported, and remembered per stack.
pub fn inside_last_std_arc_drop(id: StackId) -> bool {
    static DECIDED: Lazy<ShardedMap<StackId, bool>> = Lazy::new(ShardedMap::new);
    if let Some(known) = DECIDED.get(&id) {
        return known;
    }
    let ips: Box<[usize]> = words(id);
    let inside = ips[TAG_WORDS..].iter().any(|&ip| {
        (crate::base::platform::get().resolve)(ip.wrapping_sub(1))
            .into_iter()
            .any(|symbol| symbol.function.as_deref().is_some_and(is_std_arc_drop_slow))
    });
    DECIDED.insert(id, inside);
    inside
}

/// `alloc::sync::Arc<T,A>::drop_slow` as legacy and v0 symbol names print it.
fn is_std_arc_drop_slow(function: &str) -> bool {
    function.ends_with("::drop_slow") && function.contains("alloc::sync::Arc<")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// std's frames are left out by where their source is, also when it is the local copy
    /// the `rust-src` component installs (every rust-analyzer user has it), not `/rustc/`.
    #[test]
    fn std_frames_are_left_out_wherever_their_source_is() {
        let local = "/home/u/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/src/rust/library/core/src/option.rs";
        let map = "core::option::Option<&mut racer_rt::thread_state::ThreadState>::map<()>";
        assert!(is_own_frame(map, Some(local)));
        assert!(is_own_frame(map, Some("/rustc/59807616e1fa/library/core/src/option.rs")));
        assert!(is_own_frame("racer_core::shadow::CellMeta::access_slow", None));
        assert!(is_own_frame("racer_core_44ccd18867b19d7f::api::thread::fork", None));
        assert!(is_own_frame("<racer_core_44ccd18867b19d7f::sync::Mutex<T>>::lock", None));
        assert!(!is_own_frame("my_crate::worker", Some("src/lib.rs")));
        assert!(!is_own_frame("core::option::Option<T>::map", Some("src/rustlib_notes.rs")));
    }

    fn frames(functions: &[&str]) -> Vec<Frame> {
        let frame = |f: &&str| Frame { function: f.to_string(), file: None, line: None, column: None };
        functions.iter().map(frame).collect()
    }

    /// A closure of tokio's `spawn_blocking` is told from a task of `tokio::spawn` by the
    /// innermost of tokio's frames, also on a multi-thread runtime whose workers run inside the
    /// blocking pool; tokio's frames are left out either way.
    #[test]
    fn tokio_work_racer_did_not_spawn_is_told_by_its_innermost_runtime_frame() {
        let mut blocking = frames(&[
            "app::write",
            "app::main::{{closure}}::{{closure}}",
            "<tokio::runtime::blocking::task::BlockingTask<T> as core::future::future::Future>::poll",
            "tokio::runtime::task::core::Core<T,S>::poll",
            "tokio::runtime::blocking::pool::Inner::run",
        ]);
        assert_eq!(cut_at_untracked_task(&mut blocking), Some(Untracked::Blocking));
        assert_eq!(blocking, frames(&["app::write", "app::main::{{closure}}::{{closure}}"]));
        let mut task_on_a_worker = frames(&[
            "app::main::{{closure}}::{{closure}}",
            "tokio::runtime::task::core::Core<T,S>::poll",
            "tokio::runtime::scheduler::multi_thread::worker::Context::run_task",
            "<tokio::runtime::blocking::task::BlockingTask<T> as core::future::future::Future>::poll",
            "tokio::runtime::blocking::pool::Inner::run",
        ]);
        assert_eq!(cut_at_untracked_task(&mut task_on_a_worker), Some(Untracked::Task));
        assert_eq!(task_on_a_worker, frames(&["app::main::{{closure}}::{{closure}}"]));
        let mut block_on = frames(&["app::main::{{closure}}", "tokio::runtime::runtime::Runtime::block_on"]);
        assert_eq!(cut_at_untracked_task(&mut block_on), None);
        assert_eq!(block_on, frames(&["app::main::{{closure}}"]));
        assert_eq!(cut_at_untracked_task(&mut frames(&["app::main"])), None);
    }
}
