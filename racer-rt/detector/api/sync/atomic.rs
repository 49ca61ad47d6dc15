//! `racer::sync::atomic`: std's atomics, each a real std atomic of std's size and alignment,
//! and the release clock of its current value, kept under its address in `atomic_table`.
//!
//! A Release (AcqRel, SeqCst) store makes the atomic's clock exactly the storing thread's clock
//! (a post); an Acquire (AcqRel, SeqCst) load that reads the value joins that clock (a wait). An
//! RMW continues the release sequence: a releasing RMW joins its thread's clock into the
//! atomic's, a Relaxed one leaves it as it was. A Relaxed store starts a new value with no
//! release clock, unless a `fence(Release)` of the storing thread precedes it (see `fence`).
//!
//! The value and its clock change together: every store and RMW, Relaxed ones included, runs
//! the real atomic instruction while holding the atomic's lock (a bit of its `version`), so the
//! clock an acquire joins is always the clock of the value it read (no over- or
//! under-approximation), and values and orderings are exactly std's. No operation allocates
//! once the clock is as wide as the threads it has seen, except an atomic's first, which makes
//! its entry. Dropping an atomic, or writing it through `get_mut`, forgets its release state.
//! Memory freed without dropping the atomic in it keeps the entry's release clock for the next
//! atomic at that address: at worst an acquire of the new one joins a clock it need not.
//!
//! A load takes no lock: it reads the value and the release clock's words between two reads of
//! the version, which stamps the release state (see `AtomicClock`), and is done if the version
//! did not change. A thread remembers which stamps it has already joined (see `Stamp`): a load
//! of a value whose release clock it already has (a spinning load, a Relaxed load of a value no
//! release wrote) then costs two reads of the version around the real load.
//!
//! For the clocks SeqCst is AcqRel (its load half Acquire, its store half Release): the single
//! total order of SeqCst operations adds no happens-before edge between threads that do not
//! read each other's values. Inside a model a load may read an older store than the newest
//! (`store_history`), and there SeqCst also bounds which: a SeqCst load reads the latest SeqCst
//! store or a later one.

use std::cell::Cell;
use std::fmt;
use std::panic::{Location, RefUnwindSafe};

use crate::provenance::atomic_log::{self, StoreNote};
use crate::provenance::sync_event::SyncEvent;
use crate::runtime::thread_state::{with_current, ThreadState};
use crate::schedule;

pub use std::sync::atomic::{compiler_fence, Ordering};

use super::atomic_clock::{AtomicClock, WORDS};
use super::atomic_table;
pub use super::fence::fence;
use super::fence::{
    acquires, has_fence_release, note_relaxed_read, note_relaxed_read_epochs, releases, with_fence_release,
};
use super::fence::{catch_up_seq_cst, seq_cst_view, with_sc_view};
use super::store_history::{with_stale_streak, History};

/// What one atomic operation turned out to be, with the ordering that applies to it.
#[derive(Clone, Copy)]
enum Effect {
    Load(Ordering),
    Store(Ordering),
    ReadModifyWrite(Ordering),
}

/// The detector's part of an atomic, kept in `atomic_table` under the atomic's address: the
/// release clock of its current value, the version that stamps that clock, the writers' lock,
/// and where the atomic was first used.
///
/// Invariant: `version` is `stamp << SHIFT | WIDE | RELEASED | BUSY`. `BUSY` is set by the one
/// thread that holds `writer` while it runs an operation with its clock update (see `lock`),
/// and only that thread changes `version`; while `BUSY` is clear, `RELEASED` says whether the
/// current value was written by a release (a releasing store or RMW, or a Relaxed one after a
/// release fence of its thread) or by an RMW continuing such a release sequence, `clock` is
/// then the join of the clocks released into that sequence, `WIDE` says whether `clock` has
/// components beyond what a lock-free load reads, and the stamp names the present release
/// clock: no two clocks an atomic ever has, nor those of two atomics, share a stamp, except
/// that an atomic that never held a release has stamp 0.
/// When `RELEASED` is clear, `clock` is stale and ignored. `addr` and `next` never change once
/// the entry is in the table.
///
/// Three cache lines. The first holds what the lookup compares (`addr`, `next`) and where the
/// atomic was first used: written only when the entry is made or reset, so every core keeps its
/// own copy and a lookup never waits for another core. The second is what a lock-free load
/// reads: the version and the clock's words, written by every store. The writers' lock
/// (`writer`), the clock's spilled components and the history are on the third, which loads
/// never touch: a writer takes its lock without pulling a line from the readers, and then
/// writes the second line with plain stores, which do not wait for the line as a locked
/// instruction does.
#[repr(C, align(64))]
pub(crate) struct AtomicSync {
    pub(super) addr: usize,
    /// The next entry of the same 8 bytes of memory (see `atomic_table`).
    pub(super) next: std::sync::atomic::AtomicPtr<AtomicSync>,
    /// Where the atomic was first used; null after `reset` until the next first use.
    created: std::sync::atomic::AtomicPtr<Location<'static>>,
    _read_only_line: [u64; 5],
    version: std::sync::atomic::AtomicU64,
    clock: AtomicClock,
    /// The writers' lock, and a copy of `version` that the lock holder reads instead of the
    /// readers' line: `BUSY` set while a thread runs an operation with its clock update, the
    /// other bits `version`'s as that thread will leave it (equal to `version` while unlocked).
    writer: std::sync::atomic::AtomicU64,
    /// Inside models, the atomic's recent stores (see `store_history`); `None` elsewhere.
    history: crate::base::lock::Mutex<Option<Box<History>>>,
}

const BUSY: u64 = 1;
const RELEASED: u64 = 2;
const WIDE: u64 = 4;
const SHIFT: u32 = 3;
/// Tries of a lock-free load against writes in progress before it takes the lock (which only
/// a stream of writes that never lets it through makes it do).
const LOCK_FREE_TRIES: u32 = 64;

/// The lock on an atomic's clock, held while one operation and its clock update run. Dropping
/// it stores `version` (the new stamp and bits, `BUSY` clear); on unwind (std panics on some
/// orderings inside the real operation) that is the version it was taken at.
struct Locked<'a> {
    sync: &'a AtomicSync,
    version: u64,
}

impl Drop for Locked<'_> {
    #[inline]
    fn drop(&mut self) {
        self.sync.version.store(self.version, std::sync::atomic::Ordering::Release);
        self.sync.writer.store(self.version, std::sync::atomic::Ordering::Release);
    }
}

impl AtomicSync {
    pub(super) fn new(addr: usize, created: &'static Location<'static>) -> AtomicSync {
        let created = created as *const Location<'static> as *mut Location<'static>;
        AtomicSync {
            addr,
            next: std::sync::atomic::AtomicPtr::new(std::ptr::null_mut()),
            created: std::sync::atomic::AtomicPtr::new(created),
            _read_only_line: [0; 5],
            version: std::sync::atomic::AtomicU64::new(0),
            clock: AtomicClock::new(),
            writer: std::sync::atomic::AtomicU64::new(0),
            history: crate::base::lock::Mutex::new(None),
        }
    }

    /// The entry of the atomic at `addr`, whose operation at `at` is about to run.
    #[inline]
    fn of(addr: usize, at: &'static Location<'static>) -> &'static AtomicSync {
        let sync = atomic_table::entry(addr, at);
        if !sync.has_been_used() {
            sync.first_use_after_reset(at);
        }
        sync
    }

    /// Whether the entry's atomic was used since its entry was made or reset (see `of`).
    #[inline(always)]
    fn has_been_used(&self) -> bool {
        !self.created.load(std::sync::atomic::Ordering::Relaxed).is_null()
    }

    #[cold]
    fn first_use_after_reset(&self, at: &'static Location<'static>) {
        let at = at as *const Location<'static> as *mut Location<'static>;
        let null = std::ptr::null_mut();
        let _ = self.created.compare_exchange(
            null,
            at,
            std::sync::atomic::Ordering::Relaxed,
            std::sync::atomic::Ordering::Relaxed,
        );
    }

    /// Where the atomic was first used (see `created`): it tells atomics apart in the logs that
    /// name a Relaxed pair; reports do not print it, since which thread came first varies.
    #[inline]
    fn created(&self) -> &'static Location<'static> {
        // SAFETY: null only between a reset and the next first use, which sets it before any
        // operation reads it (see `of`); a `Location` is static.
        unsafe { &*self.created.load(std::sync::atomic::Ordering::Relaxed) }
    }

    /// Back to no release state and no place of first use: the atomic was dropped (the next one
    /// at this address starts afresh) or written through `&mut`. The caller has the atomic
    /// exclusively, so no operation on it runs.
    pub(super) fn reset(&self) {
        let locked = self.lock();
        std::mem::forget(locked);
        self.created.store(std::ptr::null_mut(), std::sync::atomic::Ordering::Relaxed);
        self.version.store(0, std::sync::atomic::Ordering::Release);
        self.writer.store(0, std::sync::atomic::Ordering::Release);
        *self.history.lock() = None;
    }

    /// A load inside a model: it reads one of the stores the memory model allows (see
    /// `store_history`), the model's seed choosing, and acquires (or notes, if Relaxed) that
    /// store's release clock. `current` reads the real atomic's bits. Returns the bits read.
    #[cold]
    #[inline(never)]
    fn model_load(
        &self,
        object: &'static str,
        at: &'static Location<'static>,
        order: Ordering,
        current: impl Fn() -> u64,
    ) -> u64 {
        let mut guard = self.history.lock();
        let bits = current();
        let read = with_current(|t| {
            let slot = t.slot;
            let epoch = t.clock().get(slot);
            let history = History::current(&mut guard, bits);
            if order == Ordering::SeqCst {
                catch_up_seq_cst();
            }
            let key = self as *const AtomicSync as usize;
            let read = with_stale_streak(key, |streak| {
                with_sc_view(|sc_view| history.load(order, slot, epoch, t.clock(), sc_view, streak))
            });
            let (bits, release) = (read.store.bits, read.store.release.clone());
            if read.stale {
                let stored = match read.store.site {
                    Some(site) => format!("stored at {site} ({:?})", read.store.order),
                    None => "the value it held when this iteration first used it".to_owned(),
                };
                schedule::note_stale_read(format!(
                    "the load at {at} ({order:?}) read an older value of {object}, {stored}, while a newer \
                     store existed: nothing ordered the newer store before this load. If the load must see \
                     it: where a flag hands the value over (message passing), order the newer store before \
                     the load (Release store, Acquire load); where each of two threads stores to one atomic \
                     and then loads the other's (store buffering), Release and Acquire cannot forbid this: \
                     make both stores and both loads SeqCst, or put a fence(SeqCst) between the store and \
                     the load in each thread"
                ));
            }
            drop(guard);
            match &release {
                Some(release) if acquires(order) => {
                    t.clock_mut().join(release);
                    t.note_sync(SyncEvent { op: "loading", object, created: None, at });
                }
                Some(release) => {
                    note_relaxed_read(release);
                    self.note_load(object, at, order, true);
                }
                None => self.note_load(object, at, order, false),
            }
            bits
        });
        read.unwrap_or(bits)
    }

    /// A store, RMW or compare-exchange (`op`) inside a model: its record joins the atomic's
    /// history (`written` of its result: the ordering it wrote with, or `None` when it only
    /// read, a failed compare-exchange, which reads the newest store). `current` reads the real
    /// atomic's bits. The model's threads take turns, so nothing of theirs runs between the
    /// three steps.
    #[cold]
    #[inline(never)]
    fn model_write<R>(
        &self,
        at: &'static Location<'static>,
        current: impl Fn() -> u64,
        op: impl FnOnce() -> R,
        written: impl FnOnce(&R) -> Option<Ordering>,
    ) -> R {
        let before = current();
        let stamp = with_current(|t| {
            let slot = t.slot;
            (slot, t.clock().get(slot))
        });
        let result = op();
        let Some((slot, epoch)) = stamp else { return result };
        let mut history = self.history.lock();
        let history_now = History::current(&mut history, before);
        match written(&result) {
            Some(order) => {
                let locked = self.lock();
                // SAFETY: we hold the lock.
                let release = (locked.version & RELEASED != 0).then(|| unsafe { self.clock.to_vector() });
                drop(locked);
                history_now.stored(current(), slot, epoch, order, release, at);
                if order == Ordering::SeqCst {
                    seq_cst_view(|view| {
                        if view.get(slot) < epoch {
                            view.set(slot, epoch);
                        }
                    });
                }
            }
            None => history_now.read_newest(slot, epoch),
        }
        result
    }

    /// Takes the writers' lock, then sets `BUSY` in `version` (a plain store: only the lock
    /// holder writes `version`, and it knows the value from the lock word).
    #[inline]
    fn lock(&self) -> Locked<'_> {
        let version = crate::base::lock::lock_bit(&self.writer, BUSY);
        self.version.store(version | BUSY, std::sync::atomic::Ordering::Relaxed);
        // A lock-free load that reads a value written under this lock, or a clock word written
        // under it, then sees `BUSY` (or a later version) when it checks.
        std::sync::atomic::fence(std::sync::atomic::Ordering::Release);
        Locked { sync: self, version }
    }

    /// A load: without the lock when the version is not locked and stays the same around it
    /// (a seqlock read). The thread joins the value's release clock (or notes it, if Relaxed)
    /// unless it already has it (see `Stamp`). A write in progress is waited out by reading
    /// the version, never by taking the lock, which would pull the line away from the writer;
    /// only a clock too wide to read lock-free, or a writer that keeps the lock too long,
    /// sends the load under the lock.
    #[inline]
    fn load<R>(&self, object: &'static str, at: &'static Location<'static>, order: Ordering, op: impl Fn() -> R) -> R {
        for round in 0..LOCK_FREE_TRIES {
            let before = self.version.load(std::sync::atomic::Ordering::Acquire);
            if before & BUSY != 0 {
                crate::base::lock::wait_a_little(round);
                continue;
            }
            // Read before the stamp is looked up, as in `load_quickly`: the two lines come
            // together. (Not while the version is busy: the load would be thrown away, and
            // would pull the value's line from the writer mid-store.) A load whose version
            // changed is forgotten: it has no effect, and the next one stands for it.
            let value = op();
            let known = before & RELEASED == 0 || Stamp::known(before >> SHIFT, acquires(order));
            if !known && before & WIDE != 0 {
                break;
            }
            let words = (!known).then(|| self.clock.snapshot());
            std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
            if self.version.load(std::sync::atomic::Ordering::Relaxed) == before {
                if let Some(words) = words {
                    self.read_lock_free(&words, before >> SHIFT, order, object, at);
                } else if before & RELEASED == 0 || !acquires(order) {
                    // It synchronised nothing: a value no release wrote, or Relaxed.
                    self.note_load(object, at, order, before & RELEASED != 0);
                }
                return value;
            }
        }
        self.load_locked(object, at, order, op)
    }

    /// `load`'s common case, or `None` if it is not: the version not locked and the same around
    /// the value, and nothing to do after it (the thread knows the value's release clock, and a
    /// load that synchronised nothing repeats the thread's last noted load). Kept to what needs
    /// no call, so that the method it is inlined in saves no registers for it; the caller then
    /// runs the whole `load`, which reads the value again (a discarded load has no effect).
    #[inline(always)]
    fn load_quickly<R>(&self, at: &'static Location<'static>, order: Ordering, op: impl Fn() -> R) -> Option<R> {
        let before = self.version.load(std::sync::atomic::Ordering::Acquire);
        // Read before anything is decided on the version: when another core wrote both, the
        // value's line (the program's) and the version's (the entry's) are then fetched
        // together, not one after the other behind a mispredicted branch.
        let value = op();
        let released = before & RELEASED != 0;
        if before & BUSY != 0 || released && !Stamp::known(before >> SHIFT, acquires(order)) {
            return None;
        }
        std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
        let unchanged = self.version.load(std::sync::atomic::Ordering::Relaxed) == before;
        let noted =
            released && acquires(order) || atomic_log::repeats_last_load(self as *const AtomicSync as usize, at);
        (unchanged && noted).then_some(value)
    }

    /// A load that made no happens-before edge, for a report's Relaxed pair (see `atomic_log`):
    /// a compare when it repeats the thread's last such load.
    #[inline(always)]
    fn note_load(&self, object: &'static str, at: &'static Location<'static>, order: Ordering, released: bool) {
        atomic_log::note_load(self as *const AtomicSync as usize, object, self.created(), at, order, released);
    }

    /// A load under the lock: out of line, so that the lock-free load stays small.
    #[cold]
    #[inline(never)]
    fn load_locked<R>(
        &self,
        object: &'static str,
        at: &'static Location<'static>,
        order: Ordering,
        op: impl Fn() -> R,
    ) -> R {
        self.locked(object, at, op, |_| Effect::Load(order))
    }

    /// The clock half of a lock-free load that read a released value: `words` is its release
    /// clock, stamped `stamp`.
    #[inline(never)]
    fn read_lock_free(
        &self,
        words: &[u64; WORDS],
        stamp: u64,
        order: Ordering,
        object: &'static str,
        at: &'static Location<'static>,
    ) {
        with_current(|t| {
            if acquires(order) {
                t.clock_mut().join_epochs(words);
                t.note_sync(SyncEvent { op: "loading", object, created: None, at });
            } else {
                note_relaxed_read_epochs(words);
                self.note_load(object, at, order, true);
            }
            Stamp::remember(stamp, acquires(order));
        });
    }

    /// A read-modify-write: without the lock when it can change no clock and needs none (see
    /// `lock_free_rmw_version`), else under the lock (see `locked`).
    #[inline]
    fn rmw<R>(
        &self,
        object: &'static str,
        at: &'static Location<'static>,
        relaxed: bool,
        op: impl FnOnce() -> R,
        effect: impl FnOnce(&R) -> Effect,
    ) -> R {
        if relaxed {
            if let Some(before) = self.lock_free_rmw_version() {
                return self.lock_free_rmw(before, op);
            }
        }
        self.locked(object, at, op, effect)
    }

    /// The version, if a Relaxed RMW (all its orderings Relaxed) may now run without the lock:
    /// no write in progress, a value no release wrote, and no release fence of the thread.
    #[inline]
    fn lock_free_rmw_version(&self) -> Option<u64> {
        if schedule::in_model() {
            // Inside a model every write joins the history (see `model_write`).
            return None;
        }
        let before = self.version.load(std::sync::atomic::Ordering::Acquire);
        (before & (BUSY | RELEASED) == 0 && !has_fence_release()).then_some(before)
    }

    /// A Relaxed RMW `op` without the lock, at version `before` (see `lock_free_rmw_version`).
    /// It continues a release sequence as it finds it: whatever came before it, the release
    /// state stays as it is.
    #[inline]
    fn lock_free_rmw<R>(&self, before: u64, op: impl FnOnce() -> R) -> R {
        let result = op();
        std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
        if self.version.load(std::sync::atomic::Ordering::Relaxed) != before {
            self.note_after_release();
        }
        result
    }

    /// A lock-free Relaxed RMW met a release made while it ran, so the value it read may carry
    /// that release's clock: the present clock, which covers it, is noted for a later acquire
    /// fence (more than the read gave only when yet another release came in between).
    #[cold]
    fn note_after_release(&self) {
        let locked = self.lock();
        if locked.version & RELEASED != 0 {
            // SAFETY: we hold the lock.
            note_relaxed_read(&unsafe { self.clock.to_vector() });
        }
    }

    /// Runs the real atomic operation `op` under the lock, then updates the clocks for what it
    /// turned out to be (`effect` of its result), and the version with them. What only the
    /// calling thread sees (its sync event, the end of its segment after a release, its known
    /// stamps) is done after the lock is let go, so that the lock, whose line a spinning
    /// reader polls, is held as briefly as can be. During thread-local teardown the operation
    /// runs unchecked.
    #[inline]
    fn locked<R>(
        &self,
        object: &'static str,
        at: &'static Location<'static>,
        op: impl FnOnce() -> R,
        effect: impl FnOnce(&R) -> Effect,
    ) -> R {
        // The lock's line is on another core if another thread wrote last: fetch it while the
        // thread's state is looked up. (Not the readers' line: the plain stores to it do not
        // wait for it, and fetching it early only takes it from a reader that still polls.)
        crate::base::lock::prefetch_for_write(&self.writer);
        let mut op = Some(op);
        let checked = with_current(|t| {
            // A stamp no clock of any atomic ever had.
            let fresh = crate::base::unique_id::fresh();
            let mut locked = self.lock();
            let version = locked.version;
            let result = (op.take().expect("atomic operation runs once"))();
            let effect = effect(&result);
            let (acquire, release, name) = match effect {
                Effect::Load(order) => (acquires(order), false, "loading"),
                Effect::Store(order) => (false, releases(order), "storing to"),
                Effect::ReadModifyWrite(order) => (acquires(order), releases(order), "updating"),
            };
            let mut released = version & RELEASED != 0;
            // SAFETY (both blocks): we hold the lock.
            if !matches!(effect, Effect::Store(_)) {
                unsafe { self.read(t, acquire, released) };
            }
            let changed = match effect {
                Effect::Load(_) => false,
                Effect::Store(_) => unsafe { self.write(t, release, false, &mut released) },
                Effect::ReadModifyWrite(_) => unsafe { self.write(t, release, true, &mut released) },
            };
            // Whether a store or RMW released this thread's clock: its ordering, or (Relaxed) a
            // release fence before it, which a Relaxed store's new release state shows.
            let own_release = release
                || match effect {
                    Effect::Store(_) => released,
                    Effect::ReadModifyWrite(_) => has_fence_release(),
                    Effect::Load(_) => false,
                };
            let stamp = if changed { fresh } else { version >> SHIFT };
            // SAFETY: we hold the lock.
            let wide = if changed { unsafe { self.clock.is_wide() } } else { version & WIDE != 0 };
            locked.version = stamp << SHIFT | if released { RELEASED } else { 0 } | if wide { WIDE } else { 0 };
            drop(locked);
            // What a report's Relaxed pair needs (see `atomic_log`): a load (an RMW's read
            // half too: a Relaxed fetch_xor of a Release store) that acquired nothing, and every
            // store.
            let read_released = version & RELEASED != 0;
            match effect {
                Effect::Load(order) if !(acquire && read_released) => self.note_load(object, at, order, read_released),
                Effect::ReadModifyWrite(order) if read_released && !acquire => self.note_load(object, at, order, true),
                _ => {}
            }
            if let Effect::Store(order) | Effect::ReadModifyWrite(order) = effect {
                t.thread_ref.note_store(StoreNote {
                    atomic: self as *const AtomicSync as usize,
                    created: self.created(),
                    site: at,
                    order,
                    rmw: matches!(effect, Effect::ReadModifyWrite(_)),
                    releases: own_release,
                });
            }
            if acquire || release {
                t.note_sync(SyncEvent { op: name, object, created: None, at });
            }
            if release {
                t.tick();
            }
            if released {
                // Whether this thread's clock now holds the release clock (it acquired it, or
                // it stored its own), or only its Relaxed-read clock does.
                Stamp::remember(stamp, acquire || matches!(effect, Effect::Store(_)));
            }
            result
        });
        match checked {
            Some(result) => result,
            None => (op.take().expect("atomic operation runs once"))(),
        }
    }

    /// The read half of an operation: an acquire (`acquire`) waits on the value's release
    /// clock; a Relaxed read leaves it for a later acquire fence.
    ///
    /// # Safety
    /// The caller holds the lock.
    unsafe fn read(&self, t: &mut ThreadState, acquire: bool, released: bool) {
        if !released {
            return;
        }
        if acquire {
            self.clock.join_into(t.clock_mut());
        } else {
            note_relaxed_read(&self.clock.to_vector());
        }
    }

    /// The write half: a release (`release`) publishes the thread's clock, replacing the old
    /// release sequence (a store) or joining it (an RMW); a Relaxed write publishes the clock
    /// of the thread's latest release fence, if any. Returns whether the release state (clock
    /// or `released`) may have changed. The caller ends the thread's segment after a release.
    ///
    /// # Safety
    /// The caller holds the lock.
    unsafe fn write(&self, t: &mut ThreadState, release: bool, rmw: bool, released: &mut bool) -> bool {
        let continues = rmw && *released;
        if release {
            self.clock.store(t.clock(), continues);
            *released = true;
            true
        } else {
            with_fence_release(|fenced| match fenced {
                Some(fenced) => {
                    self.clock.store(fenced, continues);
                    *released = true;
                    true
                }
                // A Relaxed RMW continues the sequence as it is; a Relaxed store ends it.
                None => std::mem::replace(released, continues) != continues,
            })
        }
    }
}

/// Release-clock stamps, and the calling thread's memory of those it already has: a load of a
/// value whose stamp it has joined into its clock (or, for a Relaxed load, noted for a later
/// acquire fence) would change nothing.
struct Stamp;

const KNOWN: usize = 64;

/// The calling thread's known stamps (see `KNOWN_STAMPS`). Cells, not a `RefCell`: every
/// use is one copy in or out, and a borrow flag would cost each acquire load a test and two
/// writes.
struct Known {
    /// Direct-mapped by stamp: `(stamp, joined)`. Invariant: an entry `(s, true)` means this
    /// thread's clock holds the clock stamped `s`; `(s, false)` that its clock and its
    /// Relaxed-read clock (see `fence`) together do, so that an acquire fence would give it the
    /// clock. Clocks only grow, so an entry stays true.
    entries: [Cell<(u64, bool)>; KNOWN],
    /// Some entry was written since the last `forget_known_stamps`.
    written: Cell<bool>,
}

thread_local! {
    static KNOWN_STAMPS: Known =
        const { Known { entries: [const { Cell::new((0, false)) }; KNOWN], written: Cell::new(false) } };
}

/// Forgets the calling thread's known stamps: its clock is about to be another's (a task's
/// poll installs the task's clock, see `api::task`), which may not hold them. Clears only what
/// was written: a poll of a task that used no atomic costs a flag's test.
pub(crate) fn forget_known_stamps() {
    let _ = KNOWN_STAMPS.try_with(|k| {
        if k.written.replace(false) {
            k.entries.iter().for_each(|e| e.set((0, false)));
        }
    });
}

impl Stamp {
    fn slot(stamp: u64) -> usize {
        (stamp.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize % KNOWN
    }

    /// Whether the calling thread has the clock stamped `stamp`: joined into its clock, or for
    /// a Relaxed load (`acquire` false) at least noted for an acquire fence.
    #[inline]
    fn known(stamp: u64, acquire: bool) -> bool {
        KNOWN_STAMPS
            .try_with(|k| {
                let (s, joined) = k.entries[Self::slot(stamp)].get();
                s == stamp && (joined || !acquire)
            })
            .unwrap_or(false)
    }

    /// Records that the calling thread has the clock stamped `stamp` (`joined`: in its clock).
    fn remember(stamp: u64, joined: bool) {
        let _ = KNOWN_STAMPS.try_with(|k| {
            let e = &k.entries[Self::slot(stamp)];
            let (s, j) = e.get();
            if s != stamp || !j {
                e.set((stamp, joined));
                k.written.set(true);
            }
        });
    }
}

/// An atomic's value as the bits a store history keeps (see `store_history`).
trait Bits: Copy {
    fn to_bits(self) -> u64;
    fn from_bits(bits: u64) -> Self;
}

macro_rules! int_bits {
    ($($int:ty),*) => {$(
        impl Bits for $int {
            #[inline]
            fn to_bits(self) -> u64 {
                self as u64
            }
            #[inline]
            fn from_bits(bits: u64) -> $int {
                bits as $int
            }
        }
    )*};
}

int_bits!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl Bits for bool {
    #[inline]
    fn to_bits(self) -> u64 {
        self as u64
    }
    #[inline]
    fn from_bits(bits: u64) -> bool {
        bits != 0
    }
}

impl<T> Bits for *mut T {
    #[inline]
    fn to_bits(self) -> u64 {
        self as usize as u64
    }
    /// A pointer an earlier store wrote, with the provenance it was exposed with.
    #[inline]
    fn from_bits(bits: u64) -> *mut T {
        bits as usize as *mut T
    }
}

/// The ordering std uses for the failure of a `compare_and_swap` with ordering `order`.
fn failure_order(order: Ordering) -> Ordering {
    match order {
        Ordering::Release | Ordering::Relaxed => Ordering::Relaxed,
        Ordering::AcqRel | Ordering::Acquire => Ordering::Acquire,
        _ => Ordering::SeqCst,
    }
}

/// A write of atomic `$this` (the expression `$op`, run on `$sync`); inside a model through
/// `model_write` (`$written` its ordering). The operation is written out twice, not passed as
/// one closure to both branches: a closure called from two places is compiled out of line, and
/// with it the lock and clock update that outside models belong inlined in the method (a call
/// and its arguments: 31 instructions per store).
macro_rules! checked_write {
    ($this:ident, $sync:expr, $op:expr, $written:expr) => {
        if schedule::in_model() {
            $this.model_write($sync, || $op, $written)
        } else {
            $op
        }
    };
}

/// The methods every atomic type has, for value type `$v`.
macro_rules! common_methods {
    ($v:ty, $name:expr) => {
        /// Mutable access needs no synchronisation: `&mut self` is exclusive. What is written
        /// through it carries no release, so the release state is forgotten.
        #[inline]
        pub fn get_mut(&mut self) -> &mut $v {
            atomic_table::forget(self as *const Self as usize);
            self.inner.get_mut()
        }

        #[inline]
        pub fn into_inner(self) -> $v {
            let this = std::mem::ManuallyDrop::new(self);
            atomic_table::forget(&*this as *const Self as usize);
            // SAFETY: `this` is never used or dropped again.
            unsafe { std::ptr::read(&this.inner) }.into_inner()
        }

        /// The detector's part of this atomic, for the operation at the caller's line.
        #[inline]
        #[track_caller]
        fn sync(&self) -> &'static AtomicSync {
            AtomicSync::of(self as *const Self as usize, Location::caller())
        }

        /// The atomic over the value at `ptr`, as std's `from_ptr`. racer's part of an atomic
        /// lives beside it, keyed by its address (`atomic_table`), so a bare value makes one;
        /// that entry stays until an atomic at that address is dropped or its `get_mut` or
        /// `into_inner` runs (a later atomic there could inherit its release clock).
        ///
        /// # Safety
        /// As std's: `ptr` is aligned as this atomic, valid for reads and writes for `'a`, and
        /// every access to the value while the reference lives is atomic.
        #[inline]
        pub const unsafe fn from_ptr<'a>(ptr: *mut $v) -> &'a Self {
            // SAFETY: `Self` is `repr(transparent)` over std's atomic, which has the value's
            // size (its alignment is the caller's to keep); the rest is the caller's promise.
            unsafe { &*ptr.cast::<Self>() }
        }

        /// The real atomic's address; accesses through it bypass the detector.
        #[inline]
        pub const fn as_ptr(&self) -> *mut $v {
            self.inner.as_ptr()
        }

        #[track_caller]
        pub fn load(&self, order: Ordering) -> $v {
            // Outside models, a thread's repeated load of an atomic it looked up last: without
            // a call, so without the saved registers and frame of the whole load below.
            if !schedule::any_model() {
                let addr = self as *const Self as usize;
                if let Some(sync) = atomic_table::recent(addr).filter(|s| s.has_been_used()) {
                    if let Some(value) = sync.load_quickly(Location::caller(), order, || self.inner.load(order)) {
                        return value;
                    }
                }
            }
            self.load_fully(order)
        }

        #[inline(never)]
        #[track_caller]
        fn load_fully(&self, order: Ordering) -> $v {
            schedule::point("loading", Location::caller());
            let sync = self.sync();
            let value = if schedule::in_model() {
                let current = || Bits::to_bits(self.inner.load(Ordering::SeqCst));
                <$v as Bits>::from_bits(sync.model_load($name, Location::caller(), order, current))
            } else {
                sync.load($name, Location::caller(), order, || self.inner.load(order))
            };
            schedule::loaded(self as *const Self as usize, value as usize as u64, Location::caller());
            value
        }

        #[track_caller]
        pub fn store(&self, val: $v, order: Ordering) {
            schedule::point("storing", Location::caller());
            let (sync, at) = (self.sync(), Location::caller());
            checked_write!(
                self,
                sync,
                sync.locked($name, at, || self.inner.store(val, order), |_| Effect::Store(order)),
                |_| Some(order)
            )
        }

        /// A write (`op` on `sync`) inside a model: its store also joins the atomic's history
        /// (see `AtomicSync::model_write`).
        #[track_caller]
        fn model_write<R>(
            &self,
            sync: &'static AtomicSync,
            op: impl FnOnce() -> R,
            written: impl FnOnce(&R) -> Option<Ordering>,
        ) -> R {
            let current = || Bits::to_bits(self.inner.load(Ordering::SeqCst));
            sync.model_write(Location::caller(), current, op, written)
        }

        #[track_caller]
        pub fn swap(&self, val: $v, order: Ordering) -> $v {
            schedule::point("swapping", Location::caller());
            let relaxed = order == Ordering::Relaxed;
            let (sync, at) = (self.sync(), Location::caller());
            checked_write!(
                self,
                sync,
                sync.rmw($name, at, relaxed, || self.inner.swap(val, order), |_| Effect::ReadModifyWrite(order)),
                |_| Some(order)
            )
        }

        #[track_caller]
        pub fn compare_exchange(&self, current: $v, new: $v, success: Ordering, failure: Ordering) -> Result<$v, $v> {
            self.exchange(current, success, failure, || self.inner.compare_exchange(current, new, success, failure))
        }

        #[track_caller]
        pub fn compare_exchange_weak(
            &self,
            current: $v,
            new: $v,
            success: Ordering,
            failure: Ordering,
        ) -> Result<$v, $v> {
            self.exchange(current, success, failure, || {
                self.inner.compare_exchange_weak(current, new, success, failure)
            })
        }

        /// A compare-exchange expecting `current`, whose real instruction is `op`: a Relaxed
        /// one that can run without the lock at once, else first the lock-free check of
        /// `fails_at`, then `op` under the lock, as an RMW that acquires or releases as it
        /// succeeded or failed.
        #[inline]
        #[track_caller]
        fn exchange(
            &self,
            current: $v,
            success: Ordering,
            failure: Ordering,
            op: impl FnOnce() -> Result<$v, $v>,
        ) -> Result<$v, $v> {
            schedule::point("compare-exchanging", Location::caller());
            let relaxed = success == Ordering::Relaxed && failure == Ordering::Relaxed;
            let sync = self.sync();
            if schedule::in_model() {
                // Under the lock, recorded in the history: it reads the newest store.
                let effect = |r: &Result<$v, $v>| match r {
                    Ok(_) => Effect::ReadModifyWrite(success),
                    Err(_) => Effect::Load(failure),
                };
                let at = Location::caller();
                return self.model_write(sync, || sync.locked($name, at, op, effect), |r| r.is_ok().then_some(success));
            }
            // A Relaxed one that needs no lock needs no look first either.
            if let Some(before) = relaxed.then(|| sync.lock_free_rmw_version()).flatten() {
                return sync.lock_free_rmw(before, op);
            }
            if let Some(seen) = self.fails_at(sync, current, failure) {
                return Err(seen);
            }
            sync.locked($name, Location::caller(), op, |r| {
                if r.is_ok() {
                    Effect::ReadModifyWrite(success)
                } else {
                    Effect::Load(failure)
                }
            })
        }

        /// The value, if a compare-exchange expecting `current` would fail now: read first
        /// with a load of the failure ordering (lock-free when the thread has the value's
        /// release clock), so that a spinning compare-exchange neither takes the atomic's lock
        /// nor its cache line while the value is not the one it waits for. A failed
        /// compare-exchange is that load; std's panics for a release failure ordering are left
        /// to the real one.
        ///
        /// The load's effect on clocks is taken only when it fails: a plain look comes first,
        /// since a compare-exchange that succeeds acquires only as its success ordering says
        /// (a Relaxed success after a SeqCst failure ordering acquires nothing).
        #[inline]
        #[track_caller]
        fn fails_at(&self, sync: &AtomicSync, current: $v, failure: Ordering) -> Option<$v> {
            if matches!(failure, Ordering::Release | Ordering::AcqRel) || self.inner.load(Ordering::Relaxed) == current
            {
                return None;
            }
            let seen = sync.load($name, Location::caller(), failure, || self.inner.load(failure));
            (seen != current).then_some(seen)
        }

        #[deprecated(note = "Use `compare_exchange` or `compare_exchange_weak` instead")]
        #[track_caller]
        pub fn compare_and_swap(&self, current: $v, new: $v, order: Ordering) -> $v {
            match self.compare_exchange(current, new, order, failure_order(order)) {
                Ok(v) | Err(v) => v,
            }
        }

        /// As std's: a load, then compare-exchanges until `f` declines or one succeeds. `f`
        /// runs outside racer's locks.
        #[track_caller]
        pub fn fetch_update<F>(&self, set_order: Ordering, fetch_order: Ordering, mut f: F) -> Result<$v, $v>
        where
            F: FnMut($v) -> Option<$v>,
        {
            let mut prev = self.load(fetch_order);
            while let Some(next) = f(prev) {
                match self.compare_exchange_weak(prev, next, set_order, fetch_order) {
                    Ok(v) => return Ok(v),
                    Err(actual) => prev = actual,
                }
            }
            Err(prev)
        }

        /// As std's (`fetch_update` under its newer name).
        #[track_caller]
        pub fn try_update<F>(&self, set_order: Ordering, fetch_order: Ordering, f: F) -> Result<$v, $v>
        where
            F: FnMut($v) -> Option<$v>,
        {
            self.fetch_update(set_order, fetch_order, f)
        }

        /// As std's: applies `f` until the compare-exchange succeeds; returns the old value.
        #[track_caller]
        pub fn update<F>(&self, set_order: Ordering, fetch_order: Ordering, mut f: F) -> $v
        where
            F: FnMut($v) -> $v,
        {
            match self.fetch_update(set_order, fetch_order, |v| Some(f(v))) {
                Ok(v) | Err(v) => v,
            }
        }
    };
}

/// A read-modify-write method forwarding to std's method of the same name.
macro_rules! rmw_methods {
    ($v:ty, $name:expr, $($method:ident),*) => {
        $(
            #[track_caller]
            pub fn $method(&self, val: $v, order: Ordering) -> $v {
                schedule::point("updating", Location::caller());
                let relaxed = order == Ordering::Relaxed;
                let (sync, at) = (self.sync(), Location::caller());
                let (op, effect) = (|| self.inner.$method(val, order), |_: &$v| Effect::ReadModifyWrite(order));
                checked_write!(self, sync, sync.rmw($name, at, relaxed, op, effect), |_| Some(order))
            }
        )*
    };
}

macro_rules! atomic_int {
    ($($atomic:ident $int:ty;)*) => {$(
        #[doc = concat!("An integer shared between threads, as `std::sync::atomic::", stringify!($atomic), "`.")]
        ///
        /// Invariant: `inner` is the real value; its entry in `atomic_table` holds the release
        /// clock of that value and changes only together with it, under its lock. std's size
        /// and alignment.
        #[repr(transparent)]
        pub struct $atomic {
            inner: std::sync::atomic::$atomic,
        }

        impl $atomic {
            pub const fn new(v: $int) -> $atomic {
                $atomic { inner: std::sync::atomic::$atomic::new(v) }
            }

            common_methods!($int, stringify!($atomic));
            rmw_methods!($int, stringify!($atomic), fetch_add, fetch_sub, fetch_and, fetch_nand, fetch_or, fetch_xor, fetch_max, fetch_min);

    /// The real atomic, for code that must not be checked (racer's loom stand-in outside any
    /// model: a loom test run without a model, which loom itself would refuse). Not API.
    #[doc(hidden)]
    #[inline]
    pub fn __unchecked(&self) -> &std::sync::atomic::$atomic {
        &self.inner
    }
        }

        impl Default for $atomic {
            #[track_caller]
            fn default() -> $atomic {
                $atomic::new(0)
            }
        }

        impl From<$int> for $atomic {
            #[track_caller]
            fn from(v: $int) -> $atomic {
                $atomic::new(v)
            }
        }

        /// Prints the value with a Relaxed load of the real atomic, as std does; not a
        /// synchronisation.
        impl fmt::Debug for $atomic {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.inner, f)
            }
        }

        impl RefUnwindSafe for $atomic {}

        impl Drop for $atomic {
            #[inline]
            fn drop(&mut self) {
                atomic_table::forget(self as *const Self as usize);
            }
        }
    )*};
}

atomic_int! {
    AtomicU8 u8;
    AtomicU16 u16;
    AtomicU32 u32;
    AtomicU64 u64;
    AtomicUsize usize;
    AtomicI8 i8;
    AtomicI16 i16;
    AtomicI32 i32;
    AtomicI64 i64;
    AtomicIsize isize;
}

/// std's deprecated initial values and spin hint, still in `std::sync::atomic` (and so in the
/// feature-off build): code that names them compiles in both builds.
#[deprecated(since = "1.34.0", note = "the `new` function is now preferred")]
#[allow(clippy::declare_interior_mutable_const)] // consts, as std's are
pub const ATOMIC_BOOL_INIT: AtomicBool = AtomicBool::new(false);
#[deprecated(since = "1.34.0", note = "the `new` function is now preferred")]
#[allow(clippy::declare_interior_mutable_const)] // consts, as std's are
pub const ATOMIC_ISIZE_INIT: AtomicIsize = AtomicIsize::new(0);
#[deprecated(since = "1.34.0", note = "the `new` function is now preferred")]
#[allow(clippy::declare_interior_mutable_const)] // consts, as std's are
pub const ATOMIC_USIZE_INIT: AtomicUsize = AtomicUsize::new(0);

/// std's deprecated `spin_loop_hint`: `std::hint::spin_loop`.
#[deprecated(since = "1.51.0", note = "use hint::spin_loop instead")]
#[inline]
pub fn spin_loop_hint() {
    std::hint::spin_loop()
}

/// A boolean shared between threads, as `std::sync::atomic::AtomicBool`.
///
/// Invariant: as for the integer atomics.
#[repr(transparent)]
pub struct AtomicBool {
    inner: std::sync::atomic::AtomicBool,
}

impl AtomicBool {
    pub const fn new(v: bool) -> AtomicBool {
        AtomicBool { inner: std::sync::atomic::AtomicBool::new(v) }
    }

    common_methods!(bool, "AtomicBool");
    rmw_methods!(bool, "AtomicBool", fetch_and, fetch_nand, fetch_or, fetch_xor);

    /// The real atomic, for code that must not be checked (racer's loom stand-in outside any
    /// model: a loom test run without a model, which loom itself would refuse). Not API.
    #[doc(hidden)]
    #[inline]
    pub fn __unchecked(&self) -> &std::sync::atomic::AtomicBool {
        &self.inner
    }

    /// Logical "not" of the current value, as std's (an RMW).
    #[track_caller]
    pub fn fetch_not(&self, order: Ordering) -> bool {
        self.fetch_xor(true, order)
    }
}

impl Default for AtomicBool {
    #[track_caller]
    fn default() -> AtomicBool {
        AtomicBool::new(false)
    }
}

impl From<bool> for AtomicBool {
    #[track_caller]
    fn from(v: bool) -> AtomicBool {
        AtomicBool::new(v)
    }
}

impl fmt::Debug for AtomicBool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}

impl RefUnwindSafe for AtomicBool {}

impl Drop for AtomicBool {
    #[inline]
    fn drop(&mut self) {
        atomic_table::forget(self as *const Self as usize);
    }
}

/// A raw pointer shared between threads, as `std::sync::atomic::AtomicPtr`.
///
/// Invariant: as for the integer atomics.
#[repr(transparent)]
pub struct AtomicPtr<T> {
    inner: std::sync::atomic::AtomicPtr<T>,
}

impl<T> AtomicPtr<T> {
    pub const fn new(p: *mut T) -> AtomicPtr<T> {
        AtomicPtr { inner: std::sync::atomic::AtomicPtr::new(p) }
    }

    common_methods!(*mut T, "AtomicPtr");

    /// The real atomic, for code that must not be checked (racer's loom stand-in outside any
    /// model: a loom test run without a model, which loom itself would refuse). Not API.
    #[doc(hidden)]
    #[inline]
    pub fn __unchecked(&self) -> &std::sync::atomic::AtomicPtr<T> {
        &self.inner
    }

    /// One read-modify-write of the pointer: `f` of the old value is stored, the old value is
    /// returned. std's pointer RMWs are newer than racer's minimum Rust (1.88), so the real
    /// operation is a compare-exchange loop on the std atomic; to racer it is one RMW.
    #[track_caller]
    fn update_ptr(&self, order: Ordering, f: impl Fn(*mut T) -> *mut T) -> *mut T {
        schedule::point("updating", Location::caller());
        let relaxed = order == Ordering::Relaxed;
        let op = || match self.inner.fetch_update(order, failure_order(order), |p| Some(f(p))) {
            Ok(old) | Err(old) => old,
        };
        let (sync, at) = (self.sync(), Location::caller());
        checked_write!(
            self,
            sync,
            sync.rmw("AtomicPtr", at, relaxed, op, |_| Effect::ReadModifyWrite(order)),
            |_| Some(order)
        )
    }

    /// Adds `val` elements of `T` to the pointer (wrapping), as std's.
    #[track_caller]
    pub fn fetch_ptr_add(&self, val: usize, order: Ordering) -> *mut T {
        self.update_ptr(order, |p| p.wrapping_add(val))
    }

    /// Subtracts `val` elements of `T` from the pointer (wrapping), as std's.
    #[track_caller]
    pub fn fetch_ptr_sub(&self, val: usize, order: Ordering) -> *mut T {
        self.update_ptr(order, |p| p.wrapping_sub(val))
    }

    /// Adds `val` bytes to the pointer (wrapping), as std's.
    #[track_caller]
    pub fn fetch_byte_add(&self, val: usize, order: Ordering) -> *mut T {
        self.update_ptr(order, |p| p.wrapping_byte_add(val))
    }

    /// Subtracts `val` bytes from the pointer (wrapping), as std's.
    #[track_caller]
    pub fn fetch_byte_sub(&self, val: usize, order: Ordering) -> *mut T {
        self.update_ptr(order, |p| p.wrapping_byte_sub(val))
    }

    /// Bitwise "or" of the pointer's address with `val`, keeping its provenance, as std's.
    #[track_caller]
    pub fn fetch_or(&self, val: usize, order: Ordering) -> *mut T {
        self.update_ptr(order, |p| with_addr(p, p as usize | val))
    }

    /// Bitwise "and" of the pointer's address with `val`, keeping its provenance, as std's.
    #[track_caller]
    pub fn fetch_and(&self, val: usize, order: Ordering) -> *mut T {
        self.update_ptr(order, |p| with_addr(p, p as usize & val))
    }

    /// Bitwise "xor" of the pointer's address with `val`, keeping its provenance, as std's.
    #[track_caller]
    pub fn fetch_xor(&self, val: usize, order: Ordering) -> *mut T {
        self.update_ptr(order, |p| with_addr(p, p as usize ^ val))
    }
}

/// `p` moved to address `addr`, with `p`'s provenance (`<*mut T>::with_addr` is newer than
/// racer's minimum Rust).
fn with_addr<T>(p: *mut T, addr: usize) -> *mut T {
    p.wrapping_byte_add(addr.wrapping_sub(p as usize))
}

impl<T> Default for AtomicPtr<T> {
    #[track_caller]
    fn default() -> AtomicPtr<T> {
        AtomicPtr::new(std::ptr::null_mut())
    }
}

impl<T> From<*mut T> for AtomicPtr<T> {
    #[track_caller]
    fn from(p: *mut T) -> AtomicPtr<T> {
        AtomicPtr::new(p)
    }
}

impl<T> fmt::Debug for AtomicPtr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}

impl<T> fmt::Pointer for AtomicPtr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Pointer::fmt(&self.inner.load(Ordering::Relaxed), f)
    }
}

impl<T> RefUnwindSafe for AtomicPtr<T> {}

impl<T> Drop for AtomicPtr<T> {
    #[inline]
    fn drop(&mut self) {
        atomic_table::forget(self as *const Self as usize);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lookup_the_readers_and_the_writers_each_have_a_line() {
        assert!(std::mem::offset_of!(AtomicSync, created) < 64);
        assert_eq!(std::mem::offset_of!(AtomicSync, version), 64);
        // The clock's words come first in `AtomicClock`.
        assert_eq!(std::mem::offset_of!(AtomicSync, clock) + WORDS * 8, 128);
        assert!(std::mem::offset_of!(AtomicSync, writer) >= 128);
        assert_eq!(std::mem::size_of::<AtomicSync>(), 192);
    }

    #[test]
    fn a_drop_or_a_write_through_get_mut_forgets_the_release_state() {
        let released = |a: &AtomicUsize| {
            let sync = AtomicSync::of(a as *const AtomicUsize as usize, Location::caller());
            sync.version.load(std::sync::atomic::Ordering::Relaxed) & RELEASED != 0
        };
        let mut a = Box::new(AtomicUsize::new(0));
        a.store(1, Ordering::Release);
        assert!(released(&a));
        *a.get_mut() = 2;
        assert!(!released(&a));
        a.store(3, Ordering::Release);
        let addr = &*a as *const AtomicUsize as usize;
        let sync = AtomicSync::of(addr, Location::caller());
        drop(a);
        assert_eq!(sync.version.load(std::sync::atomic::Ordering::Relaxed), 0);
        assert!(sync.created.load(std::sync::atomic::Ordering::Relaxed).is_null());
    }

    /// The quick load answers only where the whole load would have done nothing but read the
    /// value: never while a writer holds the version, never for a release clock the thread
    /// does not have, never for a load the Relaxed-pair log has not noted.
    #[test]
    fn a_quick_load_leaves_every_load_with_work_to_the_whole_load() {
        std::thread::spawn(|| {
            let a = AtomicUsize::new(0);
            let (addr, at) = (&a as *const AtomicUsize as usize, Location::caller());
            let sync = AtomicSync::of(addr, at);
            let quick = |order| sync.load_quickly(at, order, || a.inner.load(order));
            // Never loaded here: the Relaxed-pair log has no note of it.
            assert_eq!(quick(Ordering::Relaxed), None);
            a.sync().load("AtomicUsize", at, Ordering::Relaxed, || a.inner.load(Ordering::Relaxed));
            assert_eq!(quick(Ordering::Relaxed), Some(0), "the same load at the same site, noted");
            // Another thread's release: a clock this thread does not have.
            std::thread::scope(|s| {
                s.spawn(|| a.store(1, Ordering::Release));
            });
            assert_eq!(quick(Ordering::Acquire), None);
            assert_eq!(quick(Ordering::Relaxed), None);
            a.sync().load("AtomicUsize", at, Ordering::Acquire, || a.inner.load(Ordering::Acquire));
            assert_eq!(quick(Ordering::Acquire), Some(1), "joined: nothing left to do");
            // A writer holds the version.
            let busy = sync.version.fetch_or(BUSY, std::sync::atomic::Ordering::Relaxed);
            assert_eq!(quick(Ordering::Acquire), None);
            sync.version.store(busy, std::sync::atomic::Ordering::Relaxed);
            assert_eq!(quick(Ordering::Acquire), Some(1));
        })
        .join()
        .unwrap();
    }

    #[test]
    fn atomics_have_std_size_and_alignment() {
        macro_rules! same {
            ($($t:ident),*) => {$(
                assert_eq!(std::mem::size_of::<$t>(), std::mem::size_of::<std::sync::atomic::$t>());
                assert_eq!(std::mem::align_of::<$t>(), std::mem::align_of::<std::sync::atomic::$t>());
            )*};
        }
        same!(
            AtomicU8,
            AtomicU16,
            AtomicU32,
            AtomicU64,
            AtomicUsize,
            AtomicI8,
            AtomicI16,
            AtomicI32,
            AtomicI64,
            AtomicIsize,
            AtomicBool
        );
        assert_eq!(std::mem::size_of::<AtomicPtr<u8>>(), std::mem::size_of::<usize>());
    }
}
