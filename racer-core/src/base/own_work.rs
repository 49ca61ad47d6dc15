//! Whether some thread is doing racer's own slow work (resolving a report's stacks, which can
//! take a while the first time symbols load): a model's scheduler then does not take a thread
//! that is away from its points for being outside racer's view.
//!
//! One process-wide count, since the work is rare (once per reported race) and a pause of the
//! scheduler's watchdog in another model meanwhile does no harm.

use std::sync::atomic::{AtomicUsize, Ordering};

static IN_PROGRESS: AtomicUsize = AtomicUsize::new(0);

/// Counts racer's own slow work while it lives.
pub struct OwnWork(());

impl OwnWork {
    pub fn begin() -> OwnWork {
        IN_PROGRESS.fetch_add(1, Ordering::SeqCst);
        OwnWork(())
    }
}

impl Drop for OwnWork {
    fn drop(&mut self) {
        IN_PROGRESS.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Whether any thread is doing racer's own slow work now.
pub fn in_progress() -> bool {
    IN_PROGRESS.load(Ordering::SeqCst) != 0
}
