//! The per-cell detection policies of the seed paper ("A Theory of Data Race Detection",
//! Banerjee, Bliss, Ma, Petersen). The shadow memory keeps one policy state per cell and feeds
//! it every access that is not a same-segment re-access; only what is remembered per cell
//! differs between the algorithms:
//!
//! - Algorithm 3 ([`Alg3`], Intel Thread Checker): the last read and the last write segment.
//!   Cheap (2 segments), never wrong when it speaks, but it can miss a race.
//! - Algorithm 4 ([`Alg4`], racer's default): the last write and the set of mutually parallel
//!   reads since it, `1 + p` segments with `p <= t`. Reports at least one race on every racy cell.
//! - Algorithm 5 ([`Alg5`], "current conflicts"): the last read and the last write segment of
//!   every thread, up to `2t` segments. Same guarantee as Algorithm 4, more storage.
//!
//! The policies know nothing of threads, stacks or reports: an access is a [`Recorded`] segment
//! plus an opaque payload `I` (the runtime stores stack and thread there, trace tests an event
//! index), and the accessing thread's present is its vector clock.

mod alg3;
mod alg4;
mod alg5;
mod policy;

pub use alg3::Alg3;
pub use alg4::Alg4;
pub use alg5::Alg5;
pub use policy::{CellPolicy, Recorded};

use std::sync::atomic::{AtomicU8, Ordering};

/// The one switch on an algorithm's number, the one encoding of an algorithm everywhere (the
/// option, `select`, `AnyPolicy::algorithm`, the tag of a cell's state in `shadow::state_slots`).
/// Runs `$body` with `$number` the algorithm's number, `$Policy` its policy type and `$Variant`
/// its `AnyPolicy` variant; a number other than 3 and 5 is Algorithm 4, the default.
macro_rules! match_algorithm {
    ($algorithm:expr, |$number:ident, $Policy:ident, $Variant:ident| $body:expr) => {
        match $algorithm {
            3 => {
                #[allow(unused_imports)]
                use $crate::model::algorithm::{Alg3 as $Policy, AnyPolicy::Alg3 as $Variant};
                let $number: u8 = 3;
                $body
            }
            5 => {
                #[allow(unused_imports)]
                use $crate::model::algorithm::{Alg5 as $Policy, AnyPolicy::Alg5 as $Variant};
                let $number: u8 = 5;
                $body
            }
            _ => {
                #[allow(unused_imports)]
                use $crate::model::algorithm::{Alg4 as $Policy, AnyPolicy::Alg4 as $Variant};
                let $number: u8 = 4;
                $body
            }
        }
    };
}
pub(crate) use match_algorithm;

/// The algorithms that can be selected (option `algorithm`).
pub const ALGORITHMS: [u8; 3] = [3, 4, 5];

/// The per-cell state of one cell under whichever algorithm was selected when the cell was
/// first tracked. A cell keeps its algorithm for life, so switching the selection never mixes
/// two policies' states.
#[derive(Debug, Clone)]
pub enum AnyPolicy<I> {
    Alg3(Alg3<I>),
    Alg4(Alg4<I>),
    Alg5(Alg5<I>),
}

impl<I: Clone> AnyPolicy<I> {
    /// An empty state of `algorithm` (3, 4 or 5; anything else is Algorithm 4, the default).
    pub fn new(algorithm: u8) -> AnyPolicy<I> {
        match_algorithm!(algorithm, |_number, Policy, Variant| Variant(Policy::default()))
    }

    /// Which algorithm this state runs: 3, 4 or 5.
    pub fn algorithm(&self) -> u8 {
        match self {
            AnyPolicy::Alg3(_) => 3,
            AnyPolicy::Alg4(_) => 4,
            AnyPolicy::Alg5(_) => 5,
        }
    }

    /// The state, to run as its algorithm.
    pub fn policy(&self) -> &dyn CellPolicy<I> {
        match self {
            AnyPolicy::Alg3(p) => p,
            AnyPolicy::Alg4(p) => p,
            AnyPolicy::Alg5(p) => p,
        }
    }

    pub fn policy_mut(&mut self) -> &mut dyn CellPolicy<I> {
        match self {
            AnyPolicy::Alg3(p) => p,
            AnyPolicy::Alg4(p) => p,
            AnyPolicy::Alg5(p) => p,
        }
    }
}

static SELECTED: AtomicU8 = AtomicU8::new(4);

/// Chooses the per-cell policy for cells first tracked from now on (option `algorithm`: 3, 4
/// or 5). Cells already tracked keep theirs.
///
/// # Panics
/// On any other number: the options parser rejects bad values with a message naming the
/// option before calling this, so reaching it is a bug in racer, not bad user input.
pub fn select(algorithm: u8) {
    assert!(ALGORITHMS.contains(&algorithm), "racer: algorithm must be 3, 4 or 5, not {algorithm}");
    SELECTED.store(algorithm, Ordering::Relaxed);
}

/// The policy chosen by [`select`] (4 unless told otherwise).
pub fn selected() -> u8 {
    SELECTED.load(Ordering::Relaxed)
}

#[cfg(test)]
pub(crate) mod test_support {
    use super::{CellPolicy, Recorded};
    use crate::model::clock::{Segment, VectorClock};
    use crate::report::RaceKind;

    /// A vector clock with the given `(slot, epoch)` components.
    pub fn clock(entries: &[(u32, u64)]) -> VectorClock {
        let mut c = VectorClock::new();
        for &(s, e) in entries {
            c.set(s, e);
        }
        c
    }

    /// Feeds one access named `name` to `cell`; returns the races it reported.
    pub fn run<P: CellPolicy<&'static str>>(
        cell: &mut P,
        write: bool,
        seg: Segment,
        now: &VectorClock,
        name: &'static str,
    ) -> Vec<(RaceKind, &'static str)> {
        let mut found = Vec::new();
        let cur = Recorded { segment: seg, info: name };
        let mut sink = |k: RaceKind, p: &Recorded<&'static str>| found.push((k, p.info));
        if write {
            cell.write(&cur, now, &mut sink)
        } else {
            cell.read(&cur, now, &mut sink)
        }
        found
    }
}
