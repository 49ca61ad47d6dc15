//! A thread's end, for joins: `Done`, set when a racer thread's closure has ended, which a join
//! (or the end of a thread scope) waits on, its wait published like any other blocked thread's
//! once it has looked for a short while without sleeping.
//!
//! Invariant: `ended` only goes from false to true (`set`, under `lock`), which wakes every
//! waiter; a waiter also wakes each `TICK` to poll whether its check was ended by a deadlock.

use std::panic::Location;
use std::sync::Arc;

use crate::provenance::thread_ref::ThreadInfo;

use super::blocking::{block, Blocking};
use super::enabled;
use super::held::held_now;
use super::wait_slot::Wait;
use super::watchdog::TICK;

/// Set when a racer thread's closure has ended (returned or unwound), for a join to wait on.
#[derive(Default)]
pub struct Done {
    /// Read without a lock by a join that looks a while before it sleeps; set, and read by a
    /// sleeping join, under `lock`, so that the wake-up of `cv` is not lost.
    ended: std::sync::atomic::AtomicBool,
    lock: std::sync::Mutex<()>,
    cv: std::sync::Condvar,
}

/// How long a join looks at `ended` before it publishes its wait and sleeps: about what a new
/// thread takes to start and run a short closure. A join sleeps in std's join after this one
/// anyway (for the thread's thread-local destructors), so a thread that ends soon is joined
/// with one sleep, as in std, instead of two.
const LOOK_BEFORE_SLEEP: std::time::Duration = std::time::Duration::from_micros(50);

impl Done {
    pub fn set(&self) {
        let _g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.ended.store(true, std::sync::atomic::Ordering::Release);
        self.cv.notify_all();
    }

    /// Whether `set` ran.
    pub fn is_set(&self) -> bool {
        self.ended()
    }

    fn ended(&self) -> bool {
        self.ended.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Whether `set` ran within `LOOK_BEFORE_SLEEP`: pauses, then yields (on one core the
    /// thread being waited for needs this one's core).
    fn set_soon(&self) -> bool {
        let start = std::time::Instant::now();
        let mut round = 0u32;
        while !self.ended() {
            if round % 16 == 15 && start.elapsed() >= LOOK_BEFORE_SLEEP {
                return false;
            }
            crate::base::lock::wait_a_little(round.min(6));
            round += 1;
        }
        true
    }

    /// Waits for `set`, publishing the wait and polling for the end of the check.
    pub fn wait(&self, target: Option<Arc<ThreadInfo>>, site: &'static Location<'static>) {
        self.wait_as(Wait::Join(target), true, site)
    }

    /// Waits for `set` at the end of a thread scope, which std would not let unwind before
    /// all its threads ended: published, but not interruptible.
    pub fn wait_at_scope_end(&self, target: Option<Arc<ThreadInfo>>, site: &'static Location<'static>) {
        self.wait_as(Wait::ScopeEnd(target), false, site)
    }

    fn wait_as(&self, what: Wait, interruptible: bool, site: &'static Location<'static>) {
        if self.set_soon() {
            return;
        }
        let blocking = if !enabled() {
            Blocking::none()
        } else {
            let held = held_now();
            block(what, site, interruptible, held)
        };
        let mut g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        while !self.ended() {
            g = self.cv.wait_timeout(g, TICK).unwrap_or_else(|e| e.into_inner()).0;
            if !self.ended() {
                drop(g);
                blocking.poll();
                g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            }
        }
    }
}
