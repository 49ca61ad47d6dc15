//! The detector's own locks: std's, with parking_lot's shape (no poisoning, `const` new).
//!
//! A panic while one of these is held can only come from racer itself; the data is then still
//! consistent enough to report with, and a poisoned lock would turn one bug into a panic in
//! every later access of the user's program. So a poisoned lock is taken as it is.

use std::sync::{self, PoisonError};

pub use std::sync::{MutexGuard, RwLockReadGuard, RwLockWriteGuard};

/// A mutual exclusion lock whose `lock` never fails.
#[derive(Debug, Default)]
pub struct Mutex<T>(sync::Mutex<T>);

impl<T> Mutex<T> {
    pub const fn new(value: T) -> Mutex<T> {
        Mutex(sync::Mutex::new(value))
    }

    #[inline]
    pub fn lock(&self) -> MutexGuard<'_, T> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A reader-writer lock whose `read` and `write` never fail.
#[derive(Debug, Default)]
pub struct RwLock<T>(sync::RwLock<T>);

impl<T> RwLock<T> {
    pub const fn new(value: T) -> RwLock<T> {
        RwLock(sync::RwLock::new(value))
    }

    #[inline]
    pub fn read(&self) -> RwLockReadGuard<'_, T> {
        self.0.read().unwrap_or_else(PoisonError::into_inner)
    }

    #[inline]
    pub fn write(&self) -> RwLockWriteGuard<'_, T> {
        self.0.write().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A condition variable for [`Mutex`].
#[derive(Debug, Default)]
pub struct Condvar(sync::Condvar);

impl Condvar {
    pub fn wait<'a, T>(&self, guard: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
        self.0.wait(guard).unwrap_or_else(PoisonError::into_inner)
    }

    pub fn notify_all(&self) {
        self.0.notify_all();
    }
}

/// Takes a lock that is one bit of an atomic word whose other bits are data: sets `bit` in
/// `word` once it is clear and returns the word as it was (with `bit` clear). The holder
/// releases it by storing the word without `bit` (Release); only the holder changes the other
/// bits.
///
/// For the detector's shortest critical sections (one atomic's clock, one cell's state), where
/// the word is on a cache line the operation touches anyway, so the lock costs no line of its
/// own. The bit is taken with one bit-test-and-set (`lock bts`), which fetches the line for
/// writing at once, where a load and a compare-exchange could fetch it twice. A waiter reads
/// the word until the bit is clear (see `wait_a_little`).
#[inline]
pub fn lock_bit(word: &std::sync::atomic::AtomicU64, bit: u64) -> u64 {
    use std::sync::atomic::Ordering::{Acquire, Relaxed};
    let mut round = 0u32;
    loop {
        if word.fetch_or(bit, Acquire) & bit == 0 {
            // Ours now: no one else changes the word until we store it.
            return word.load(Relaxed) & !bit;
        }
        while word.load(Relaxed) & bit != 0 {
            wait_a_little(round);
            round = round.saturating_add(1);
        }
    }
}

/// Asks for the cache line at `p` in the state a write needs (exclusive), without waiting for
/// it: issued before work that does not depend on the line (a stack capture), so that the
/// transfer from another core runs beside that work instead of stalling the lock taken after
/// it. A hint only: no effect on memory, and nothing where the processor has no such
/// instruction.
#[inline(always)]
pub fn prefetch_for_write<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    if has_prefetchw() {
        // SAFETY: `prefetchw`, which the processor has, neither reads nor writes memory and
        // cannot fault, whatever the address.
        unsafe {
            std::arch::asm!("prefetchw [{0}]", in(reg) p, options(nostack, preserves_flags, readonly));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Whether the processor has `prefetchw` (CPUID 0x8000_0001, ECX bit 8): every AMD64 processor
/// and Intel's since Broadwell; asked once. (std's feature detection does not know it.)
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn has_prefetchw() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(|| {
        // SAFETY: `cpuid` is on every x86_64 processor, and leaf 0x8000_0001 (where long mode
        // itself is announced) on every one of them. (Safe to call in newer Rust.)
        #[allow(unused_unsafe)]
        let ecx = unsafe { std::arch::x86_64::__cpuid(0x8000_0001) }.ecx;
        ecx & (1 << 8) != 0
    })
}

/// One wait for a holder of one of the detector's shortest locks, the `round`th in a row:
/// growing pauses cover a holder that is running; after six it was most likely preempted, and
/// only giving up the core lets it finish.
#[inline]
pub fn wait_a_little(round: u32) {
    if round < 6 {
        (0..1u32 << round).for_each(|_| std::hint::spin_loop());
    } else {
        std::thread::yield_now();
    }
}
