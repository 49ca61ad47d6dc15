//! `racer::annotate`: telling racer about synchronisation and memory it cannot see (the
//! counterpart of ThreadSanitizer's annotation interface).
//!
//! racer orders only what its own wrappers do. Code that synchronises some other way (a futex
//! on a plain std atomic, a C library's callback, a foreign thread pool's hand-off) or keeps
//! its data outside `Shared` cells (a raw ring buffer, an arena) says so here:
//!
//! - [`Carry`]: a value with its sender's clock, for a channel or queue racer does not wrap.
//! - [`release`] / [`acquire`]: a happens-before edge through any address, from every release
//!   of it to each later acquire of it.
//! - [`ignore_accesses`]: a scope whose `Shared` and raw accesses are neither checked nor
//!   remembered.
//! - [`benign`] / [`benign_range`]: races on this cell or these bytes are known and accepted.
//! - [`read`] / [`write`](fn@write) / [`forget`]: checked accesses of raw memory, 8-byte granules.
//!
//! With the `race-detect` feature off every function here is an empty `#[inline]` one.

mod address;
mod carry;
mod sync_points;

use std::panic::Location;

pub use address::Address;
pub use carry::Carry;

use crate::api::shared::Shared;
use crate::report::AccessKind;
use crate::reporting::benign;
use crate::runtime::ignore;
use crate::shadow::raw_memory;

/// A release of `addr` by the calling thread (TSan's `__tsan_release`,
/// `AnnotateHappensBefore`): everything the thread did before it happens before whatever a
/// thread does after a later [`acquire`] of the same address. Use it where the real code
/// publishes (stores a futex word, hands a task to a pool, returns from an FFI callback).
///
/// ```
/// use std::sync::atomic::{AtomicBool, Ordering};
/// # let data = racer::Shared::new(0); let ready = AtomicBool::new(false);
/// unsafe { data.set(42) };
/// racer::annotate::release(&ready); // racer cannot see the std atomic below
/// ready.store(true, Ordering::Release);
/// // on the other thread:
/// while !ready.load(Ordering::Acquire) {}
/// racer::annotate::acquire(&ready);
/// assert_eq!(unsafe { data.get() }, 42);
/// ```
#[track_caller]
#[inline]
pub fn release(addr: impl Address) {
    sync_points::release(addr.address(), Location::caller());
}

/// An acquire of `addr` by the calling thread (TSan's `__tsan_acquire`,
/// `AnnotateHappensAfter`): it is ordered after every [`release`] of the address made so far.
/// Call it right after the real code observed the release (the futex word, the task received,
/// the callback entered). An address never released orders nothing.
#[track_caller]
#[inline]
pub fn acquire(addr: impl Address) {
    sync_points::acquire(addr.address(), Location::caller());
}

/// Forgets the clock of `addr`: call it when the object used as a key goes away, so a long run
/// that annotates many short-lived objects does not keep a clock for each, and an object later
/// at the same address does not inherit the old one's edges.
#[inline]
pub fn forget_sync(addr: impl Address) {
    sync_points::forget(addr.address());
}

/// Runs `f` with the calling thread's accesses ignored: `Shared` and raw-memory accesses made
/// inside are neither checked nor remembered, so they report nothing and later accesses cannot
/// race with them (TSan's ignore-accesses scope). Synchronisation inside still counts. Nests,
/// and a panic leaving `f` leaves the scope.
///
/// For code racer must not judge: a deliberately racy statistics counter, a seqlock's
/// speculative read, a library's internals.
///
/// ```
/// # let hits = racer::Shared::new(0u64);
/// racer::annotate::ignore_accesses(|| unsafe { hits.set(hits.get() + 1) });
/// ```
#[inline]
pub fn ignore_accesses<R>(f: impl FnOnce() -> R) -> R {
    let _scope = ignore::IgnoreScope::enter();
    f()
}

/// Marks a cell's races benign (TSan's `AnnotateBenignRace`): they are still found, but never
/// reported. The mark is on the cell's address and lasts until [`forget`] of the cell's memory
/// (`forget(&cell, size_of_val(&cell))`), so mark a cell that lives as long as the program (a
/// `static`, a leaked counter), or forget it before its memory is reused.
///
/// ```
/// static APPROXIMATE_COUNT: racer::Shared<u64> = racer::Shared::new(0);
/// racer::annotate::benign(&APPROXIMATE_COUNT);
/// ```
#[inline]
pub fn benign<T: ?Sized>(cell: &Shared<T>) {
    benign::add(cell.value_address(), 1);
}

/// Marks races on the `len` bytes at `addr` benign (TSan's `AnnotateBenignRaceSized`): raw
/// memory checked with [`read`]/[`write`](fn@write), or the value of a `Shared` cell. Lasts until
/// [`forget`] of the range.
#[inline]
pub fn benign_range(addr: impl Address, len: usize) {
    benign::add(addr.address(), len);
}

/// A checked read of the `len` bytes at `addr`, memory that is not in a `Shared` cell. Call it
/// next to the real read (it does not read anything itself). Shadowed in 8-byte granules: two
/// threads touching different elements of 8 bytes or more never race, the same element does.
///
/// ```
/// use std::mem::MaybeUninit;
/// let ring: Box<[MaybeUninit<u64>]> = vec![MaybeUninit::uninit(); 16].into_boxed_slice();
/// let slot = ring[3].as_ptr();
/// racer::annotate::read(slot, std::mem::size_of::<u64>());
/// ```
#[track_caller]
#[inline]
pub fn read(addr: impl Address, len: usize) {
    raw_memory::access(AccessKind::Read, addr.address(), len, Location::caller());
}

/// A checked write of the `len` bytes at `addr` (see [`read`]).
#[track_caller]
#[inline]
pub fn write(addr: impl Address, len: usize) {
    raw_memory::access(AccessKind::Write, addr.address(), len, Location::caller());
}

/// Forgets the raw shadow (and the benign marks) of the `len` bytes at `addr`: call it before
/// freeing or reusing the memory, so its next life does not race with its last one and the
/// shadow does not grow without end.
#[inline]
pub fn forget(addr: impl Address, len: usize) {
    let start = addr.address();
    raw_memory::forget(start, len);
    benign::remove(start, len);
}

/// How many 8-byte granules of raw memory have a shadow now (a test of [`forget`]).
#[doc(hidden)]
pub fn tracked_granules() -> usize {
    raw_memory::tracked_granules()
}
