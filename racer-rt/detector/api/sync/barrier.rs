//! `racer::sync::Barrier`: std's barrier; each arrival posts into the clock of its generation,
//! and each departure waits on that clock, so everything any thread did before arriving
//! happens before everything every thread of the same generation does after leaving.

use std::fmt;
use std::panic::Location;

use crate::base::lock::Mutex;

pub use std::sync::BarrierWaitResult;

use crate::model::clock::VectorClock;
use crate::runtime::sync_object::{kind, SyncObject};
use crate::runtime::thread_state::with_current;

/// The arrivals of one generation whose threads have not all left yet.
struct Generation {
    number: u64,
    arrivals: VectorClock,
    /// Threads of this generation that have not yet left.
    staying: usize,
}

/// Invariant: `filling` is the generation threads arriving now belong to, with
/// `filling.staying` arrivals so far (always fewer than the barrier's size); `full` holds the
/// generations that are complete but whose threads have not all left yet. A generation's
/// `arrivals` is the join of the clocks of its arrivals. Because std's barrier lets no thread
/// leave before all of its generation arrived, and no thread can arrive for the next one
/// before leaving, the numbering here matches std's generations.
struct Generations {
    filling: Generation,
    full: Vec<Generation>,
}

/// A barrier, as `std::sync::Barrier`.
pub struct Barrier {
    inner: std::sync::Barrier,
    size: usize,
    /// Its clocks: the arrivals of each generation.
    sync: SyncObject<kind::Barrier, Mutex<Generations>>,
}

impl Barrier {
    #[track_caller]
    pub const fn new(n: usize) -> Barrier {
        Barrier {
            inner: std::sync::Barrier::new(n),
            // std treats 0 as 1: every wait returns at once, as leader.
            size: if n == 0 { 1 } else { n },
            sync: SyncObject::new(
                Mutex::new(Generations {
                    filling: Generation { number: 0, arrivals: VectorClock::new(), staying: 0 },
                    full: Vec::new(),
                }),
                Location::caller(),
            ),
        }
    }

    /// Blocks until all `n` threads have called `wait`, as std's.
    #[track_caller]
    pub fn wait(&self) -> BarrierWaitResult {
        let at = Location::caller();
        let number = {
            let mut g = self.sync.clock.lock();
            with_current(|t| {
                g.filling.arrivals.join(t.clock());
                t.note_sync(self.sync.event("arriving at", at));
                t.tick();
            });
            g.filling.staying += 1;
            let number = g.filling.number;
            if g.filling.staying == self.size {
                let next = Generation { number: number + 1, arrivals: VectorClock::new(), staying: 0 };
                let full = std::mem::replace(&mut g.filling, next);
                g.full.push(full);
            }
            number
        };
        let result = {
            let _waiting = crate::deadlock::wait(crate::deadlock::Wait::Barrier(self.sync.created), at);
            self.inner.wait()
        };
        let mut g = self.sync.clock.lock();
        if let Some(i) = g.full.iter().position(|f| f.number == number) {
            with_current(|t| {
                t.clock_mut().join(&g.full[i].arrivals);
                t.note_sync(self.sync.event("leaving", at));
            });
            g.full[i].staying -= 1;
            if g.full[i].staying == 0 {
                g.full.swap_remove(i);
            }
        }
        result
    }
}

impl fmt::Debug for Barrier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Barrier").finish_non_exhaustive()
    }
}
