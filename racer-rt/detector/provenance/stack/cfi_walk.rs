//! Stack walking from the DWARF call frame information (`.eh_frame`), with the unwind rule of
//! every return address cached: fast in the builds users make, which keep no frame pointers.
//!
//! A full unwind through the system unwinder costs microseconds per stack: it finds the FDE of
//! every frame and interprets its CFI program each time. Here the outcome of that work for one
//! code address, on x86_64 a handful of numbers (where the caller's frame starts, where the
//! return address and the saved `rbp` lie), is computed once (by `racer-rt`, from the
//! unwind tables, through `platform::Platform::unwind_rule`) and cached, first per
//! thread (no lock, no atomic), then process-wide. A step of the walk is then a cache probe and
//! two or three loads from the stack.
//!
//! Only x86_64 Linux: elsewhere `stack` unwinds through the platform's unwinder.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::base::lock::RwLock;
use crate::base::small_vec::SmallVec;
use std::sync::LazyLock as Lazy;

use crate::base::fast_hash::FastBuild;

/// The rule type is declared with the platform's hooks (which hand rules in); it is this
/// walker's vocabulary.
pub use crate::base::platform::{Rule, UNKNOWN};

/// Rules made so far, shared by all threads: a new thread's first walks look here before they
/// interpret CFI again.
static SHARED_RULES: Lazy<RwLock<HashMap<usize, Rule, FastBuild>>> =
    Lazy::new(|| RwLock::new(HashMap::with_hasher(FastBuild)));

/// The rule for return address `key` (looked up at `key - 1`, inside the call): process-wide
/// table first, CFI interpretation on a miss.
#[cold]
fn shared_rule(key: usize) -> Rule {
    if let Some(&rule) = SHARED_RULES.read().get(&key) {
        return rule;
    }
    let rule = (crate::base::platform::get().unwind_rule)(key.wrapping_sub(1));
    SHARED_RULES.write().insert(key, rule);
    rule
}

/// Sets of the per-thread cache, and entries per set: one 64-byte line each.
const SETS: usize = 256;
const WAYS: usize = 4;

/// A thread's cache of rules by return address, `WAYS`-way set associative: a walk's dozen
/// addresses often share a set, and a direct-mapped cache would let two of them evict each
/// other on every walk. Key 0 marks an empty entry (no return address is 0).
struct RuleCache(Box<[[(usize, Rule); WAYS]; SETS]>);

impl RuleCache {
    /// Out of line and built on the heap: an array built inline would make every walk's frame
    /// 16 KiB, probed page by page.
    #[cold]
    #[inline(never)]
    fn new() -> RuleCache {
        let sets: Box<[[(usize, Rule); WAYS]]> = vec![[(0, Rule::UNKNOWN); WAYS]; SETS].into_boxed_slice();
        RuleCache(sets.try_into().expect("SETS sets"))
    }

    #[inline(always)]
    fn get(&mut self, key: usize) -> Rule {
        let i = (key as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) as usize >> (usize::BITS - SETS.trailing_zeros());
        let set = &mut self.0[i];
        match set.iter().find(|e| e.0 == key) {
            Some(e) => e.1,
            None => Self::fill(set, key),
        }
    }

    /// Puts the rule of `key` first in its set, the oldest entry leaving.
    #[cold]
    fn fill(set: &mut [(usize, Rule); WAYS], key: usize) -> Rule {
        let rule = shared_rule(key);
        set.rotate_right(1);
        set[0] = (key, rule);
        rule
    }
}

thread_local! {
    static CACHE: RefCell<Option<RuleCache>> = const { RefCell::new(None) };
}

/// The registers a walk starts from: an instruction address in the function that captures,
/// and the stack and frame pointers there.
#[derive(Debug, Clone, Copy)]
pub struct Start {
    pc: usize,
    sp: usize,
    bp: usize,
}

impl Start {
    /// The start's `pc`, `sp` and `bp`: what `last_walk` compares, flattened.
    #[inline(always)]
    pub fn registers(&self) -> (usize, usize, usize) {
        (self.pc, self.sp, self.bp)
    }

    /// A start made of given registers (for tests of what compares starts).
    #[cfg(test)]
    pub fn from_registers(pc: usize, sp: usize, bp: usize) -> Start {
        Start { pc, sp, bp }
    }

    /// The registers where this is inlined. The walk's first frame is then the caller of the
    /// function it is inlined into.
    #[inline(always)]
    pub fn here() -> Start {
        let (pc, sp, bp): (usize, usize, usize);
        // SAFETY: reads three registers, touches no memory. `pc` is this instruction's
        // successor, with `sp` and `bp` as they are there.
        unsafe {
            std::arch::asm!(
                "lea {pc}, [rip]",
                "mov {sp}, rsp",
                "mov {bp}, rbp",
                pc = out(reg) pc, sp = out(reg) sp, bp = out(reg) bp,
                options(nomem, nostack, preserves_flags)
            );
        }
        Start { pc, sp, bp }
    }
}

/// Every word a walk read from the stack, as (address, value), in order, and whether it used
/// the start's frame pointer. A walk is a function of its start (the frame pointer only if
/// used: in code built without frame pointers it is any register's value), the stack's bounds
/// and these words: while they are all unchanged, walking again gives the same frames (what
/// `last_walk` confirms).
#[derive(Default)]
pub struct Reads {
    pub words: SmallVec<(usize, usize), 24>,
    pub used_start_bp: bool,
}

/// The frames of a walk, innermost first: return addresses. Ends at the outermost frame, at a
/// frame outside `[low, high)`, or at code it has no rule for (then `complete` stays false).
struct Frames<'c, 'r> {
    cache: &'c mut RuleCache,
    /// The next frame's return address (the key of its rule); 0 when the walk has ended.
    key: usize,
    sp: usize,
    bp: usize,
    low: usize,
    high: usize,
    complete: bool,
    /// Where `bp` came from: logged into `reads` only once a rule uses it, since in code built
    /// without frame pointers a saved `rbp` is any value (a loop counter) that no later step
    /// may need.
    bp_from: BpFrom,
    reads: &'r mut Reads,
}

#[derive(Clone, Copy)]
enum BpFrom {
    Start,
    Slot(usize),
    Logged,
}

impl Frames<'_, '_> {
    #[inline(always)]
    fn read(&self, address: usize) -> Option<usize> {
        let word = std::mem::size_of::<usize>();
        if address < self.low || address > self.high - word || !address.is_multiple_of(word) {
            return None;
        }
        // SAFETY: inside this thread's mapped stack, word-aligned.
        Some(unsafe { *(address as *const usize) })
    }
}

impl Iterator for Frames<'_, '_> {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.key == 0 {
            return None;
        }
        let rule = self.cache.get(self.key);
        if rule.ra_offset == 0 || rule.ra_offset == UNKNOWN {
            self.complete = rule.ra_offset == 0;
            self.key = 0;
            return None;
        }
        if rule.cfa_from_bp {
            match std::mem::replace(&mut self.bp_from, BpFrom::Logged) {
                BpFrom::Start => self.reads.used_start_bp = true,
                BpFrom::Slot(address) => self.reads.words.push((address, self.bp)),
                BpFrom::Logged => {}
            }
        }
        let base = if rule.cfa_from_bp { self.bp } else { self.sp };
        let cfa = base.wrapping_add(rule.cfa_offset as isize as usize);
        let ra = self
            .read(cfa.wrapping_add(rule.ra_offset as isize as usize))
            .inspect(|&ra| self.reads.words.push((cfa.wrapping_add(rule.ra_offset as isize as usize), ra)));
        let bp_slot = cfa.wrapping_add(rule.bp_offset as isize as usize);
        let bp = if rule.bp_offset == 0 { Some(self.bp) } else { self.read(bp_slot) };
        match (ra, bp) {
            (Some(ra), Some(bp)) if ra != 0 && cfa > self.sp => {
                self.sp = cfa;
                if rule.bp_offset != 0 {
                    self.bp_from = BpFrom::Slot(bp_slot);
                }
                self.bp = bp;
                self.key = ra;
                Some(ra)
            }
            // The frame lies outside the stack, or does not go up it: the thread's base.
            _ => {
                self.complete = true;
                self.key = 0;
                None
            }
        }
    }
}

/// Walks the calling thread's stack from `start` within `[low, high)`, pushing return
/// addresses onto `ips` until it holds `limit` words, and logging every word read into
/// `reads`. False when the walk cannot run here (the thread-local cache is gone or busy) or
/// stopped at code it has no rule for: the caller then unwinds the slow way.
pub fn walk(
    start: Start,
    (low, high): (usize, usize),
    limit: usize,
    ips: &mut SmallVec<usize, 48>,
    reads: &mut Reads,
) -> bool {
    CACHE
        .try_with(|cache| {
            let Ok(mut cache) = cache.try_borrow_mut() else { return false };
            let cache = cache.get_or_insert_with(RuleCache::new);
            // The first step uses the rule at `pc`, as if it were a return address: `pc - 1`
            // lies in the `lea`, which moves no stack pointer.
            let mut frames = Frames {
                cache,
                key: start.pc,
                sp: start.sp,
                bp: start.bp,
                low,
                high,
                complete: false,
                bp_from: BpFrom::Start,
                reads,
            };
            while ips.len() < limit {
                match frames.next() {
                    Some(ra) => ips.push(ra),
                    None => break,
                }
            }
            frames.complete || ips.len() == limit
        })
        .unwrap_or(false)
}
