//! A thread's end, for joins: `Done`, set when a racer thread's closure has ended, which a join
//! (or the end of a thread scope) waits on, its wait published like any other blocked thread's.
//!
//! Invariant: `done` only goes from false to true (`set`), which wakes every waiter; a waiter
//! also wakes each `TICK` to poll whether its check was ended by a deadlock.

use std::panic::Location;
use std::sync::Arc;

use crate::provenance::thread_ref::ThreadInfo;

use super::blocking::{block, Blocking};
use super::enabled::enabled;
use super::held::held_now;
use super::wait_slot::Wait;
use super::watchdog::TICK;

/// Set when a racer thread's closure has ended (returned or unwound), for a join to wait on.
#[derive(Default)]
pub struct Done {
    done: std::sync::Mutex<bool>,
    cv: std::sync::Condvar,
}

impl Done {
    pub fn set(&self) {
        *self.done.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.cv.notify_all();
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
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        if *done {
            return;
        }
        drop(done);
        let blocking = if !enabled() {
            Blocking::none()
        } else {
            let held = held_now();
            block(what, site, interruptible, held)
        };
        done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        while !*done {
            done = self.cv.wait_timeout(done, TICK).unwrap_or_else(|e| e.into_inner()).0;
            if !*done {
                drop(done);
                blocking.poll();
                done = self.done.lock().unwrap_or_else(|e| e.into_inner());
            }
        }
    }
}
