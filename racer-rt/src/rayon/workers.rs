//! The pools' worker threads: each ignores its own accesses for good, so that the only accesses
//! checked on a worker are those of the tasks racer forked (every closure handed to rayon
//! through racer, each bringing its own state). A job rayon itself forks (the half of a `chain`
//! it drives inside its own `join`, or a closure given to rayon's own API) is ordered by nothing
//! racer sees; checked as the worker's, it would be reported against its caller, falsely.

use std::sync::{Arc, Once};
use std::thread::ThreadId;

/// A pool's start handler: makes each worker ignore its own accesses, except the thread that
/// builds the pool when it becomes a worker itself (`use_current_thread`), then runs the user's
/// handler.
pub(super) fn start_handler(user: Option<Arc<dyn Fn(usize) + Send + Sync>>) -> impl Fn(usize) + Send + Sync {
    let builder: ThreadId = std::thread::current().id();
    move |index| {
        if std::thread::current().id() != builder {
            racer_core::task::ignore_own_accesses_for_good();
        }
        if let Some(user) = &user {
            user(index);
        }
    }
}

/// Builds rayon's global pool with [`start_handler`], once, before anything of racer's uses it;
/// where the program built it already (through rayon's own builder), its workers stay as they
/// are.
pub(super) fn global_pool() {
    static BUILT: Once = Once::new();
    BUILT.call_once(|| {
        let _ = rayon_crate::ThreadPoolBuilder::new().start_handler(start_handler(None)).build_global();
    });
}
