//! `racer::sync::atomic::fence`: the C++ fence rules over the calling thread's Relaxed atomics.
//!
//! A `fence(Release)` followed (in this thread) by a Relaxed store or RMW makes that write carry
//! the thread's clock as it was at the fence. A Relaxed load or RMW followed by a
//! `fence(Acquire)` makes the fence wait on the release clock of the value that load read. Both
//! halves live in a thread-local `FenceState`, touched only by atomics and fences.

use std::cell::RefCell;
use std::panic::Location;
use std::sync::atomic::Ordering;

use crate::model::clock::VectorClock;
use crate::provenance::sync_event::SyncEvent;
use crate::runtime::thread_state::with_current;
use crate::schedule;

/// The calling thread's fence bookkeeping.
///
/// Invariants: `released` is the thread's clock at its latest `fence(Release)` (or stronger),
/// if it made one. `read_relaxed` covers the release clock of every value a Relaxed load of
/// this thread has read since its latest `fence(Acquire)`; it may also cover clocks the thread
/// has already acquired (joining those again adds nothing), so it is never cleared and never
/// reallocated once wide enough.
/// Inside models, `sc_view` is what the thread's `fence(SeqCst)`s and SeqCst loads took from the
/// SeqCst order (see `seq_cst_view`): a later load of the thread reads no store older than one
/// it covers (see `store_history`).
pub(crate) struct FenceState {
    released: Option<VectorClock>,
    read_relaxed: VectorClock,
    sc_view: VectorClock,
}

impl FenceState {
    pub(crate) const fn new() -> FenceState {
        FenceState { released: None, read_relaxed: VectorClock::new(), sc_view: VectorClock::new() }
    }
}

/// Inside models: the stores that precede, in the single total order of SeqCst operations, the
/// iteration's latest SeqCst fence or SeqCst store, as a clock (for each thread, its epoch at
/// the latest of its SeqCst stores and at its SeqCst fences). A SeqCst fence or load that comes
/// later in that order reads none older (C++20's fence rules). Runs `f` on it (kept by the
/// iteration's scheduler); outside a model on an empty clock.
pub(crate) fn seq_cst_view<R>(f: impl FnOnce(&mut VectorClock) -> R) -> R {
    let mut f = Some(f);
    let kept = schedule::with_seq_cst(|epochs| {
        let mut view = VectorClock::new();
        view.join_epochs(epochs);
        let r = (f.take().unwrap())(&mut view);
        epochs.clear();
        epochs.extend_from_slice(view.epochs());
        r
    });
    kept.unwrap_or_else(|| (f.take().unwrap())(&mut VectorClock::new()))
}

/// A SeqCst load or fence of the calling thread, inside a model: its view takes the SeqCst
/// order's so far.
pub(crate) fn catch_up_seq_cst() {
    seq_cst_view(|view| {
        let _ = FENCES.try_with(|f| {
            if let Ok(mut f) = f.try_borrow_mut() {
                f.sc_view.join(view);
            }
        });
    });
}

/// Runs `f` on the calling thread's fence state, or on `None` while that is borrowed or, during
/// thread-local teardown, gone.
fn with_fence_state<R>(f: impl FnOnce(Option<&FenceState>) -> R) -> R {
    let mut f = Some(f);
    match FENCES.try_with(|state| state.try_borrow().ok().map(|state| (f.take().unwrap())(Some(&*state)))) {
        Ok(Some(r)) => r,
        _ => (f.take().unwrap())(None),
    }
}

/// Runs `f` on the calling thread's SeqCst view (see `FenceState`); an empty one during
/// thread-local teardown.
pub(crate) fn with_sc_view<R>(f: impl FnOnce(&VectorClock) -> R) -> R {
    with_fence_state(|state| match state {
        Some(state) => f(&state.sc_view),
        None => f(&VectorClock::new()),
    })
}

/// Exchanges the calling thread's fence bookkeeping with `other` (a task's, see `api::task`).
pub(crate) fn swap_fences(other: &mut FenceState) {
    let _ = FENCES.try_with(|f| {
        if let Ok(mut f) = f.try_borrow_mut() {
            std::mem::swap(&mut *f, other);
        }
    });
}

thread_local! {
    static FENCES: RefCell<FenceState> = const { RefCell::new(FenceState::new()) };
}

/// A Relaxed load (or the read of a Relaxed RMW) read a value whose release clock is `clock`:
/// a later `fence(Acquire)` of this thread waits on it.
pub(crate) fn note_relaxed_read(clock: &VectorClock) {
    note_relaxed_read_epochs(clock.epochs());
}

/// As `note_relaxed_read`, for a clock given by its components (slot 0 first): what a
/// lock-free load copied out of an atomic.
pub(crate) fn note_relaxed_read_epochs(epochs: &[u64]) {
    let _ = FENCES.try_with(|f| {
        if let Ok(mut f) = f.try_borrow_mut() {
            f.read_relaxed.join_epochs(epochs);
        }
    });
}

/// Whether the calling thread has made a release fence (true when that cannot be known).
pub(crate) fn has_fence_release() -> bool {
    FENCES.try_with(|state| state.try_borrow().map_or(true, |s| s.released.is_some())).unwrap_or(true)
}

/// Runs `f` with the clock a Relaxed write of this thread releases: its clock at its latest
/// release fence, or `None` when it has made none (then the write releases nothing).
pub(crate) fn with_fence_release<R>(f: impl FnOnce(Option<&VectorClock>) -> R) -> R {
    with_fence_state(|state| f(state.and_then(|state| state.released.as_ref())))
}

/// An atomic fence, as `std::sync::atomic::fence`.
///
/// `Acquire` (and stronger) waits on every release clock read by this thread's Relaxed loads
/// since its previous acquire fence; `Release` (and stronger) records the thread's clock for
/// its later Relaxed writes, then starts a new segment. `SeqCst` is `AcqRel` for the clocks: its
/// single total order adds no happens-before edge between threads that read no value from
/// each other; inside a model it also bounds which stores later loads may read (see
/// `seq_cst_view`).
///
/// # Panics
/// On `Relaxed`, as std does.
#[track_caller]
pub fn fence(order: Ordering) {
    let at = Location::caller();
    schedule::point("fencing", at);
    std::sync::atomic::fence(order);
    if order == Ordering::SeqCst && schedule::in_model() {
        catch_up_seq_cst();
        with_current(|t| seq_cst_view(|view| view.join(t.clock())));
    }
    with_current(|t| {
        let _ = FENCES.try_with(|f| {
            let Ok(mut f) = f.try_borrow_mut() else { return };
            if acquires(order) {
                t.clock_mut().join(&f.read_relaxed);
                crate::provenance::atomic_log::acquired_by_fence();
                t.note_sync(SyncEvent { op: "calling", object: "fence(Acquire)", created: None, at });
            }
            if releases(order) {
                match &mut f.released {
                    Some(clock) => clock.assign(t.clock()),
                    None => f.released = Some(t.clock().clone()),
                }
                t.note_sync(SyncEvent { op: "calling", object: "fence(Release)", created: None, at });
                t.tick();
            }
        });
    });
}

/// Whether an ordering acquires (for atomics and fences alike).
pub(crate) fn acquires(order: Ordering) -> bool {
    matches!(order, Ordering::Acquire | Ordering::AcqRel | Ordering::SeqCst)
}

/// Whether an ordering releases (for atomics and fences alike).
pub(crate) fn releases(order: Ordering) -> bool {
    matches!(order, Ordering::Release | Ordering::AcqRel | Ordering::SeqCst)
}
