//! `Barrier`: tokio's barrier does the waiting; each generation of waiters has a clock of its
//! own, into which each waiter releases as it arrives and which each acquires once the barrier
//! let it through. A clock per generation keeps a task that already went on to the next
//! generation from ordering a slower task of the previous one after its later accesses.
//!
//! To put every waiter in the generation tokio puts it in, arrivals are counted under a lock of
//! ours that also covers tokio's own count: the first poll of tokio's `wait` (which counts the
//! arrival before it can wait) runs under it.

use std::future::{poll_fn, Future};
use std::panic::Location;
use std::pin::pin;
use std::sync::{Arc, Mutex, PoisonError};

use racer_core::task::{point, HandOff};
use tokio_crate::sync as ts;
use tokio_crate::sync::BarrierWaitResult;

const OBJECT: &str = "tokio::sync::Barrier";

/// A barrier for `n` tasks, as `tokio::sync::Barrier`.
#[derive(Debug)]
pub struct Barrier {
    raw: ts::Barrier,
    generation: Mutex<Generation>,
    n: usize,
    created: &'static Location<'static>,
}

/// The generation arriving waiters join.
#[derive(Debug)]
struct Generation {
    arrived: usize,
    clock: Arc<HandOff>,
}

impl Barrier {
    /// A barrier that lets waiters through `n` at a time (`0` counts as `1`, as tokio's).
    #[track_caller]
    pub fn new(n: usize) -> Barrier {
        let created = Location::caller();
        let generation = Generation { arrived: 0, clock: Arc::new(HandOff::new(OBJECT, created)) };
        Barrier { raw: ts::Barrier::new(n), generation: Mutex::new(generation), n: n.max(1), created }
    }

    /// Waits for the rest of the generation: as tokio's `wait`. Releases on arrival, acquires
    /// once through.
    #[track_caller]
    pub fn wait(&self) -> impl Future<Output = BarrierWaitResult> + '_ {
        let at = Location::caller();
        async move {
            let mut wait = pin!(self.raw.wait());
            let mut joined: Option<Arc<HandOff>> = None;
            let result = poll_fn(|cx| {
                if joined.is_some() {
                    return wait.as_mut().poll(cx);
                }
                // Inside a model, the point comes before the lock: never under it.
                point("waiting", at);
                let mut generation = self.generation.lock().unwrap_or_else(PoisonError::into_inner);
                let clock = generation.clock.clone();
                clock.release("waiting", at);
                generation.arrived += 1;
                if generation.arrived == self.n {
                    *generation = Generation { arrived: 0, clock: Arc::new(HandOff::new(OBJECT, self.created)) };
                }
                // tokio counts the arrival in this first poll: under our lock, in the same order.
                let poll = wait.as_mut().poll(cx);
                drop(generation);
                joined = Some(clock);
                poll
            })
            .await;
            if let Some(clock) = joined {
                point("waiting", at);
                clock.acquire("waiting", at);
            }
            result
        }
    }
}
