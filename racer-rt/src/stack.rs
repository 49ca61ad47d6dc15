//! The stack depot: call stacks captured as bare instruction pointers, interned so that a stack
//! seen many times is stored once, and resolved to symbols only when a report is made.

use std::sync::atomic::{AtomicUsize, Ordering};

use dashmap::DashMap;
use once_cell::sync::Lazy;
use parking_lot::RwLock;

use crate::fast_hash::FastBuild;
use crate::report::Frame;

/// Frames captured beyond the `history` option, to make room for racer's own frames, which are
/// dropped at resolution.
const OWN_FRAMES_SLACK: usize = 12;

/// Index of an interned stack in the depot.
///
/// Invariant: every `StackId` handed out indexes `DEPOT.stacks`, which only grows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StackId(u32);

struct Depot {
    ids: DashMap<Box<[usize]>, StackId, FastBuild>,
    stacks: RwLock<Vec<Box<[usize]>>>,
}

static DEPOT: Lazy<Depot> = Lazy::new(|| Depot { ids: DashMap::with_hasher(FastBuild), stacks: RwLock::new(Vec::new()) });

static HISTORY: AtomicUsize = AtomicUsize::new(32);

/// Sets how many frames of the user's code a stack keeps (option `history`).
pub fn set_history(frames: usize) {
    HISTORY.store(frames.max(1), Ordering::Relaxed);
}

/// Captures the calling thread's stack, unresolved, and interns it.
#[inline(never)]
pub fn capture() -> StackId {
    let limit = HISTORY.load(Ordering::Relaxed) + OWN_FRAMES_SLACK;
    let mut ips: smallvec::SmallVec<[usize; 48]> = smallvec::SmallVec::new();
    backtrace::trace(|frame| {
        ips.push(frame.ip() as usize);
        ips.len() < limit
    });
    intern(&ips)
}

fn intern(ips: &[usize]) -> StackId {
    if let Some(id) = DEPOT.ids.get(ips) {
        return *id;
    }
    *DEPOT.ids.entry(ips.into()).or_insert_with(|| {
        let mut stacks = DEPOT.stacks.write();
        stacks.push(ips.into());
        StackId((stacks.len() - 1) as u32)
    })
}

/// Resolves an interned stack to the user's frames: racer's own frames and everything below
/// the runtime's thread entry point (`__rust_begin_short_backtrace`) are left out, and at most
/// `history` frames are kept.
pub fn resolve(id: StackId) -> Vec<Frame> {
    let ips: Box<[usize]> = DEPOT.stacks.read()[id.0 as usize].clone();
    let history = HISTORY.load(Ordering::Relaxed);
    let mut frames = Vec::new();
    'ips: for &ip in ips.iter() {
        let mut stop = false;
        // Return addresses point after the call; look up the call instruction itself.
        backtrace::resolve((ip as *mut std::ffi::c_void).wrapping_sub(1), |symbol| {
            let function = symbol.name().map(|n| format!("{n:#}")).unwrap_or_else(|| format!("{ip:#x}"));
            if function.contains("__rust_begin_short_backtrace") {
                stop = true;
            }
            let file = symbol.filename().map(|p| shorten(&p.display().to_string()));
            if stop || is_own_frame(&function, file.as_deref()) {
                return;
            }
            frames.push(Frame {
                function,
                file,
                line: symbol.lineno(),
                column: symbol.colno(),
            });
        });
        if stop || frames.len() >= history {
            break 'ips;
        }
    }
    frames.truncate(history);
    frames
}

/// Frames left out of reports: racer's own, the unwinding and closure-call glue between the
/// user's frames, and std's internals (a user frame is never hidden behind them).
fn is_own_frame(function: &str, file: Option<&str>) -> bool {
    const OWN: [&str; 6] = ["racer_rt::", "<racer_rt::", "backtrace::", "<backtrace::", "racer::", "<racer::"];
    OWN.iter().any(|p| function.starts_with(p))
        || function == "__rust_try"
        || file.is_some_and(|f| f.starts_with("/rustc/"))
}

/// Paths inside the current directory are printed relative to it, as `#[track_caller]`
/// locations are.
fn shorten(path: &str) -> String {
    static CWD: Lazy<Option<String>> =
        Lazy::new(|| std::env::current_dir().ok().map(|d| format!("{}/", d.display())));
    match CWD.as_deref() {
        Some(cwd) if path.starts_with(cwd) => path[cwd.len()..].to_string(),
        _ => path.to_string(),
    }
}

/// Number of distinct stacks stored.
pub fn depot_len() -> usize {
    DEPOT.stacks.read().len()
}
