//! Capturing the calling thread's stack as return addresses, by one of two strategies: the cached
//! CFI walk (`cfi_walk`, confirmed per site by `last_walk`; x86_64 Linux), or elsewhere the
//! platform's unwinder. Captures are interned in the depot.

use std::panic::Location;

use crate::base::small_vec::SmallVec;
use crate::provenance::stack::depot::{history, intern_recent, StackId, TAG_WORDS};
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
use crate::provenance::stack::last_walk as last_at_site;
use crate::provenance::sync_event::SyncEventId;

/// Frames captured beyond the `history` option, to make room for racer's own frames, which are
/// dropped at resolution (an unwind adds up to two: `walk_and_intern`, `unwind_and_intern`).
const OWN_FRAMES_SLACK: usize = 14;

/// Captures the calling thread's stack for an access at `site` after the sync event
/// `after_sync`, and interns the three together.
#[inline(never)]
pub fn capture_access(site: &'static Location<'static>, after_sync: Option<SyncEventId>) -> StackId {
    capture_access_holding(site, after_sync, 0)
}

/// As `capture_access`, for a thread holding the locks of the set `held` (an id of
/// `held_locks`, 0 for none, with `depot::CREATION` set for a cell's creation): the set is kept in the upper half of the sync event's tag word,
/// where 32-bit targets have no room (there it is left out). Inline: the tag is two
/// instructions, the call to `capture_tagged` is the capture.
#[inline]
pub fn capture_access_holding(site: &'static Location<'static>, after_sync: Option<SyncEventId>, held: u32) -> StackId {
    let sync = SyncEventId::to_tag(after_sync);
    #[cfg(target_pointer_width = "64")]
    let sync = sync | (held as usize) << 32;
    #[cfg(not(target_pointer_width = "64"))]
    let _ = held;
    capture_tagged(site as *const Location<'static> as usize, sync)
}

/// Captures the calling thread's stack, unresolved, and interns it (with an empty tag).
#[inline(never)]
pub fn capture() -> StackId {
    capture_tagged(0, 0)
}

/// Captures the calling thread's stack, unresolved, behind the tag words `site` and `sync`,
/// and interns it. (Two words, not an array: an array built by the caller is read back as one
/// 16-byte load that store forwarding cannot serve.)
///
/// On x86_64 Linux the stack is walked with cached CFI rules (`cfi_walk`): a cache probe and a
/// few loads per frame, with or without frame pointers. Elsewhere it is unwound with the
/// `backtrace` crate, which costs microseconds; the result is the same list of return
/// addresses either way. The stack last captured at the same site is confirmed first, word
/// by word, with nothing written or hashed: that confirmation is all this function does
/// inline, so that it saves few registers and builds no frame; a walk or an unwind runs out of
/// line, from the registers taken here.
#[inline(never)]
fn capture_tagged(site: usize, sync: usize) -> StackId {
    let limit = history() + OWN_FRAMES_SLACK + TAG_WORDS;
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    {
        let start = crate::provenance::stack::cfi_walk::Start::here();
        // The bounds as they are, not looked up: 0 until they are, which no walk matches.
        let high = STACK_RANGE.try_with(|r| r.get().1).unwrap_or(0);
        if let Some(id) = last_at_site::unchanged(site, sync, &start, high, limit) {
            return id;
        }
        // `start` by reference: the walk reads this frame's words from `start.sp` up, so this
        // frame must stay live under the walk, not be replaced by a tail call.
        walk_and_intern(site, sync, &start, limit)
    }
    #[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
    unwind_and_intern(site, sync, limit)
}

/// `capture_tagged` past its confirmation: walks from `start` (a frame of the caller's,
/// which is live below this one), interns the stack and remembers the walk for the next
/// confirmation at its site. Everything the confirmation held comes in registers, so that
/// the confirmation needs none saved.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
#[cold]
#[inline(never)]
fn walk_and_intern(
    site: usize,
    sync: usize,
    start: &crate::provenance::stack::cfi_walk::Start,
    limit: usize,
) -> StackId {
    let Some(bounds) = stack_range() else { return unwind_and_intern(site, sync, limit) };
    let mut ips: SmallVec<usize, 48> = SmallVec::default();
    ips.push(site);
    ips.push(sync);
    let mut reads = crate::provenance::stack::cfi_walk::Reads::default();
    if crate::provenance::stack::cfi_walk::walk(*start, bounds, limit, &mut ips, &mut reads) {
        let id = intern_recent(&ips);
        let walk = last_at_site::Walk { tag: [site, sync], start: *start, high: bounds.1, limit };
        last_at_site::remember(&walk, &reads, id);
        return id;
    }
    unwind_and_intern(site, sync, limit)
}

/// A capture through the platform's unwinder.
#[cold]
#[inline(never)]
fn unwind_and_intern(site: usize, sync: usize, limit: usize) -> StackId {
    let mut ips: SmallVec<usize, 48> = SmallVec::default();
    ips.push(site);
    ips.push(sync);
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

/// The calling thread's walk bounds as they are now, to give back to `restore_walk_range`
/// after a nested ceiling (a task's poll, see `api::task`).
pub fn walk_range() -> (usize, usize) {
    // Looked up first if it was not yet: else each restore would make the next walk (and
    // the next ceiling) ask the system for the thread's stack again.
    #[cfg(target_os = "linux")]
    return stack_range().and_then(|_| STACK_RANGE.try_with(std::cell::Cell::get).ok()).unwrap_or((0, 0));
    #[cfg(not(target_os = "linux"))]
    (0, 0)
}

/// Puts back bounds that `walk_range` returned.
pub fn restore_walk_range(range: (usize, usize)) {
    #[cfg(target_os = "linux")]
    let _ = STACK_RANGE.try_with(|r| r.set(range));
    #[cfg(not(target_os = "linux"))]
    let _ = range;
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
