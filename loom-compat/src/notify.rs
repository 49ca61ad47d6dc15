//! `loom::sync::Notify`: a one-permit wake-up between threads, built on racer's `Mutex` and
//! `Condvar`, so a `notify` happens before the `wait` it ends.

use racer::sync::{Condvar, Mutex};

/// Wakes one waiting thread; a `notify` with no waiter is kept for the next `wait` (one at most).
#[derive(Debug, Default)]
pub struct Notify {
    notified: Mutex<bool>,
    wake: Condvar,
}

impl Notify {
    /// A `Notify` holding no notification.
    pub fn new() -> Notify {
        Notify::default()
    }

    /// Notifies a waiting thread, or the next one to wait.
    pub fn notify(&self) {
        *self.notified.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.wake.notify_one();
    }

    /// Blocks until notified, and takes the notification.
    pub fn wait(&self) {
        let mut notified = self.notified.lock().unwrap_or_else(|e| e.into_inner());
        while !*notified {
            notified = self.wake.wait(notified).unwrap_or_else(|e| e.into_inner());
        }
        *notified = false;
    }
}
