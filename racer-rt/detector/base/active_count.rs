//! A process-wide count of something in progress, held by guards: whether any is, in one
//! relaxed load. Used for the models running (while none does, every scheduling hook returns at
//! once) and for racer's own slow work (resolving a report's stacks, which can take a while
//! the first time symbols load: a model's watchdog then takes no thread for outside racer's
//! view).

use std::sync::atomic::{AtomicUsize, Ordering};

/// Invariant: the count is the number of live `Active` guards of it.
pub struct ActiveCount(AtomicUsize);

/// Counts one in progress while it lives.
pub struct Active(&'static ActiveCount);

impl ActiveCount {
    pub const fn new() -> ActiveCount {
        ActiveCount(AtomicUsize::new(0))
    }

    pub fn enter(&'static self) -> Active {
        self.0.fetch_add(1, Ordering::Relaxed);
        Active(self)
    }

    /// Whether any is in progress now.
    #[inline]
    pub fn any(&self) -> bool {
        self.0.load(Ordering::Relaxed) != 0
    }
}

impl Drop for Active {
    fn drop(&mut self) {
        self.0 .0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// racer's own slow work in progress (see the module's doc): one count for the process, since
/// the work is rare (once per reported race) and a pause of another model's watchdog does no
/// harm.
pub static OWN_WORK: ActiveCount = ActiveCount::new();
