//! Whether deadlock detection is on (`RACER_OPTIONS=detect_deadlocks`): each hook that records
//! a lock or publishes a wait asks first, and does nothing when it is off.

/// Whether deadlock detection is on (`RACER_OPTIONS=detect_deadlocks`).
#[inline]
pub(super) fn enabled() -> bool {
    crate::config::options::get().options.detect_deadlocks
}
