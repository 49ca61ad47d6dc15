//! The stack depot: call stacks captured as bare instruction pointers, interned so that a stack
//! seen many times is stored once, and resolved to symbols only when a report is made.
//!
//! An entry is tagged with where the stack was captured for an access: the access's
//! `#[track_caller]` site and the thread's last synchronisation event. One 4-byte id then names
//! everything a report prints about an access except its thread, which keeps a remembered
//! access at 16 bytes.

use std::cell::RefCell;
use std::hash::BuildHasher;
use std::panic::Location;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::base::sharded_map::ShardedMap;
use std::sync::LazyLock as Lazy;
use crate::base::lock::RwLock;
use crate::base::small_vec::SmallVec;

use crate::base::fast_hash::FastBuild;
use crate::report::Frame;
use crate::provenance::sync_event::SyncEventId;

/// Frames captured beyond the `history` option, to make room for racer's own frames, which are
/// dropped at resolution.
const OWN_FRAMES_SLACK: usize = 12;

/// Index of an interned, tagged stack in the depot.
///
/// Invariant: every `StackId` handed out indexes `DEPOT.stacks`, which only grows, and each
/// entry there starts with its `TAG_WORDS` tag words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StackId(u32);

struct Depot {
    ids: ShardedMap<Box<[usize]>, StackId>,
    stacks: RwLock<Vec<Box<[usize]>>>,
}

static DEPOT: Lazy<Depot> = Lazy::new(|| Depot { ids: ShardedMap::new(), stacks: RwLock::new(Vec::new()) });

/// Words in front of the frames of each depot entry: the access site (a `&'static Location`, or
/// 0) and the last sync event (`SyncEventId::to_tag`).
const TAG_WORDS: usize = 2;

static HISTORY: AtomicUsize = AtomicUsize::new(32);

/// Sets how many frames of the user's code a stack keeps (option `history`).
pub fn set_history(frames: usize) {
    HISTORY.store(frames.max(1), Ordering::Relaxed);
}

/// Captures the calling thread's stack for an access at `site` after the sync event
/// `after_sync`, and interns the three together.
#[inline(never)]
pub fn capture_access(site: &'static Location<'static>, after_sync: Option<SyncEventId>) -> StackId {
    capture_tagged(site as *const Location<'static> as usize, SyncEventId::to_tag(after_sync))
}

/// Captures the calling thread's stack, unresolved, and interns it (with an empty tag).
#[inline(never)]
pub fn capture() -> StackId {
    capture_tagged(0, 0)
}

/// The access site a stack was captured for.
pub fn site(id: StackId) -> Option<&'static Location<'static>> {
    let word = DEPOT.stacks.read()[id.0 as usize][0];
    // SAFETY: a non-zero site word was made from a `&'static Location` in `capture_access`.
    (word != 0).then(|| unsafe { &*(word as *const Location<'static>) })
}

/// The sync event an access's stack was captured after.
pub fn after_sync(id: StackId) -> Option<SyncEventId> {
    SyncEventId::from_tag(DEPOT.stacks.read()[id.0 as usize][1])
}

/// Captures the calling thread's stack, unresolved, behind the tag words `site` and `sync`,
/// and interns it. (Two words, not an array: an array built by the caller is read back as one
/// 16-byte load that store forwarding cannot serve.)
///
/// On x86_64 Linux the stack is walked with cached CFI rules (`cfi_walk`): a cache probe and a
/// few loads per frame, with or without frame pointers. Elsewhere it is unwound with the
/// `backtrace` crate, which costs microseconds; the result is the same list of return
/// addresses either way. The stack last captured at the same site is confirmed frame by frame
/// while walking, with nothing written or hashed.
#[inline(never)]
fn capture_tagged(site: usize, sync: usize) -> StackId {
    let limit = HISTORY.load(Ordering::Relaxed) + OWN_FRAMES_SLACK + TAG_WORDS;
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    let walked = match stack_range() {
        Some(bounds) => {
            let start = crate::provenance::cfi_walk::Start::here();
            Some((bounds, start, last_at_site::Walk { tag: [site, sync], start, high: bounds.1, limit }))
        }
        None => None,
    };
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    if let Some(id) = walked.as_ref().and_then(|(_, _, walk)| last_at_site::unchanged(walk)) {
        return id;
    }
    // Made only past the confirmation above, the common case: its inline room is not free.
    let mut ips: SmallVec<usize, 48> = SmallVec::default();
    ips.push(site);
    ips.push(sync);
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    if let Some((bounds, start, walk)) = walked {
        let mut reads = crate::provenance::cfi_walk::Reads::default();
        if crate::provenance::cfi_walk::walk(start, bounds, limit, &mut ips, &mut reads) {
            let id = intern_recent(&ips);
            last_at_site::remember(walk, reads, id);
            return id;
        }
        ips.truncate(TAG_WORDS);
    }
    unwind(&mut ips, limit);
    intern_recent(&ips)
}

#[doc(hidden)]
pub fn unwind(ips: &mut SmallVec<usize, 48>, limit: usize) {
    (crate::base::platform::get().unwind)(&mut |ip| {
        ips.push(ip);
        ips.len() < limit
    });
}

#[cfg(target_os = "linux")]
thread_local! {
    /// The part of the calling thread's stack a walk reads, `[low, high)`: `(0, 0)` until
    /// looked up, `(1, 1)` when it cannot be known.
    static STACK_RANGE: std::cell::Cell<(usize, usize)> = const { std::cell::Cell::new((0, 0)) };
}

/// Ends every later walk of the calling thread's stack at the frame holding `address` (a local
/// of the function that runs a racer thread's closure). Frames further out are the thread
/// start's, the same for every access, and never shown in a report; not walking them makes a
/// capture on a racer thread cost its user frames only.
pub fn set_walk_ceiling(address: usize) {
    #[cfg(target_os = "linux")]
    if let Some((low, high)) = stack_range() {
        let _ = STACK_RANGE.try_with(|r| r.set((low, high.min(address))));
    }
    #[cfg(not(target_os = "linux"))]
    let _ = address;
}

/// Lets walks of the calling thread's stack reach its base again: the thread's closure has
/// returned, and thread-local destructors run further out than its ceiling.
pub fn clear_walk_ceiling() {
    #[cfg(target_os = "linux")]
    let _ = STACK_RANGE.try_with(|r| r.set((0, 0)));
}

/// The calling thread's stack, `[low, high)`, or `None` when it cannot be known.
#[cfg(target_os = "linux")]
pub fn stack_range() -> Option<(usize, usize)> {
    let range = STACK_RANGE.try_with(|r| {
        if r.get().0 == 0 {
            r.set((crate::base::platform::get().stack_range)().unwrap_or((1, 1)));
        }
        r.get()
    });
    match range {
        Ok((low, high)) if low < high => Some((low, high)),
        _ => None,
    }
}

/// The walk last made at each access site, per thread: an access site is mostly reached by
/// one call path at one stack depth, and then the next capture there only has to find every
/// stack word that walk read unchanged (independent loads, no unwind rules) to know that a walk
/// would give the same stack again.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod last_at_site {
    use std::cell::RefCell;

    use super::{StackId, TAG_WORDS};
    use crate::provenance::cfi_walk::{self, Reads, Start};

    const ENTRIES: usize = 8;

    /// What decides a walk's outcome besides the stack words it reads: with all of it alike
    /// (`Start::walks_as`) and those words unchanged, the walk and the stack it gives are the
    /// same.
    #[derive(Clone, Copy)]
    pub struct Walk {
        pub tag: [usize; TAG_WORDS],
        pub start: Start,
        pub high: usize,
        pub limit: usize,
    }

    struct LastWalk {
        walk: Walk,
        reads: Reads,
        id: StackId,
    }

    impl LastWalk {
        fn repeats(&self, walk: &Walk) -> bool {
            let last = &self.walk;
            last.tag == walk.tag
                && last.high == walk.high
                && last.limit == walk.limit
                && last.start.walks_as(&walk.start, &self.reads)
                && cfi_walk::unchanged(&self.reads)
        }
    }

    thread_local! {
        static LAST: RefCell<[Option<LastWalk>; ENTRIES]> = const { RefCell::new([const { None }; ENTRIES]) };
    }

    fn entry(site: usize) -> usize {
        (site as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) as usize >> (usize::BITS - 3)
    }

    /// The id of the stack of the last walk at this site, if walking again would give it.
    #[inline]
    pub fn unchanged(walk: &Walk) -> Option<StackId> {
        LAST.try_with(|last| {
            let last = last.try_borrow().ok()?;
            let e = last[entry(walk.tag[0])].as_ref()?;
            e.repeats(walk).then_some(e.id)
        })
        .ok()
        .flatten()
    }

    /// Remembers a walk just made, what it read and the id of its stack.
    pub fn remember(walk: Walk, reads: Reads, id: StackId) {
        let _ = LAST.try_with(|last| {
            let Ok(mut last) = last.try_borrow_mut() else { return };
            last[entry(walk.tag[0])] = Some(LastWalk { walk, reads, id });
        });
    }
}

/// How many recently interned stacks each thread remembers.
const RECENT: usize = 16;

/// One remembered stack: its hash, its return addresses and its id in the depot.
type RecentStack = Option<(u64, Box<[usize]>, StackId)>;

thread_local! {
    /// Per-thread memo of recently interned stacks, direct-mapped by hash: most accesses come
    /// from a few call paths, and a hit skips the global depot's lock.
    static RECENT_STACKS: RefCell<Vec<RecentStack>> = const { RefCell::new(Vec::new()) };
}

/// Frames hashed to pick a memo entry: enough to tell call paths apart, few enough that hashing
/// costs little next to the walk (a hit is still compared in full).
const MEMO_HASHED_WORDS: usize = TAG_WORDS + 6;

fn intern_recent(ips: &[usize]) -> StackId {
    let hash = FastBuild.hash_one((ips.len(), &ips[..ips.len().min(MEMO_HASHED_WORDS)]));
    let memo = RECENT_STACKS.try_with(|recent| {
        let mut recent = recent.try_borrow_mut().ok()?;
        if recent.is_empty() {
            recent.resize(RECENT, None);
        }
        let entry = &mut recent[hash as usize % RECENT];
        match entry {
            Some((h, stored, id)) if *h == hash && same_words(stored, ips) => Some(*id),
            _ => {
                let id = intern(ips);
                *entry = Some((hash, ips.into(), id));
                Some(id)
            }
        }
    });
    memo.ok().flatten().unwrap_or_else(|| intern(ips))
}

/// `a == b`, word by word inline: stacks are a dozen words, too short to pay for `memcmp`'s
/// call and dispatch.
#[inline]
fn same_words(a: &[usize], b: &[usize]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

fn intern(ips: &[usize]) -> StackId {
    if let Some(id) = DEPOT.ids.get(ips) {
        return id;
    }
    DEPOT.ids.get_or_insert_with(ips.into(), || {
        let mut stacks = DEPOT.stacks.write();
        stacks.push(ips.into());
        StackId((stacks.len() - 1) as u32)
    })
}

/// Resolves an interned stack to the user's frames: the frames before the access's own site
/// (racer's, and std's generic code instantiated for racer, whatever its name or path), racer's
/// and std's frames between the user's, and everything below the runtime's thread entry point
/// (`__rust_begin_short_backtrace`) are left out, and at most `history` frames are kept.
pub fn resolve(id: StackId) -> Vec<Frame> {
    let ips: Box<[usize]> = DEPOT.stacks.read()[id.0 as usize].clone();
    let history = HISTORY.load(Ordering::Relaxed);
    let mut frames = Vec::new();
    'ips: for &ip in ips[TAG_WORDS..].iter() {
        // Return addresses point after the call; look up the call instruction itself.
        for symbol in (crate::base::platform::get().resolve)(ip.wrapping_sub(1)) {
            let function = symbol.function.unwrap_or_else(|| format!("{ip:#x}"));
            if function.contains("__rust_begin_short_backtrace") {
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
        let at_site = |f: &Frame| f.line == Some(site.line()) && f.file.as_deref().is_some_and(|file| file.ends_with(site.file()));
        if let Some(first) = frames.iter().position(at_site) {
            frames.drain(..first);
        }
    }
    frames.truncate(history);
    frames
}

/// Frames left out of reports: racer's own, the unwinding and closure-call glue between the
/// user's frames, and std's internals (a user frame is never hidden behind them), whether std's
/// source is the toolchain's (`/rustc/...`) or a local copy (the `rust-src` component).
fn is_own_frame(function: &str, file: Option<&str>) -> bool {
    const OWN: [&str; 8] =
        ["racer_core::", "<racer_core::", "racer_rt::", "<racer_rt::", "backtrace::", "<backtrace::", "racer::", "<racer::"];
    OWN.iter().any(|p| function.starts_with(p))
        || function == "__rust_try"
        || file.is_some_and(|f| f.starts_with("/rustc/") || f.contains("/lib/rustlib/src/rust/library/"))
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
        assert!(!is_own_frame("my_crate::worker", Some("src/lib.rs")));
        assert!(!is_own_frame("core::option::Option<T>::map", Some("src/rustlib_notes.rs")));
    }

    #[test]
    fn the_same_stack_interns_once() {
        assert_eq!(intern_recent(&[1, 2, 3]), intern_recent(&[1, 2, 3]));
        assert_ne!(intern_recent(&[1, 2, 3]), intern_recent(&[1, 2, 4]));
        let id = intern_recent(&[7, 8]);
        assert_eq!(&*DEPOT.stacks.read()[id.0 as usize], &[7, 8]);
    }
}
