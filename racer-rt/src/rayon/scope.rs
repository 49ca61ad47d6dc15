//! `rayon::scope` and its kin: the scope's op, and each body spawned into the scope (by the op
//! or by another body), runs as a task forked where it is spawned; every body releases its end
//! into the scope's one clock, which the caller acquires when rayon's scope returns (rayon
//! waits there for every body).

use std::marker::PhantomData;
use std::panic::Location;

use racer_core::task::{HandOff, Task};

use super::names;
use super::{BroadcastContext, Forked, PerThread};

/// A pointer handed to the jobs of a scope, valid while the scope runs (rayon's scope returns
/// only after its every job ended, and the pointees live in its caller's frame or are handed by
/// rayon to the job's call).
struct Ptr<T>(*const T);

impl<T> Clone for Ptr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Ptr<T> {}

// SAFETY: the pointees are `Sync` (rayon's scopes, `HandOff`) and outlive every use (see `Ptr`).
unsafe impl<T: Sync> Send for Ptr<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for Ptr<T> {}

impl<T> Ptr<T> {
    fn new(value: &T) -> Ptr<T> {
        Ptr(value)
    }

    /// SAFETY: the caller is inside the scope the pointer was made for.
    unsafe fn get<'a>(self) -> &'a T {
        unsafe { &*self.0 }
    }
}

/// `rayon::Scope`: each body spawned into it runs as a task forked at the `spawn`, ended before
/// the scope's call returns, and joined there.
///
/// Invariant: `inner` and `done` point at rayon's scope and the scope's end clock, valid for
/// as long as this value (it lives for one call of the op or of a body).
pub struct Scope<'scope> {
    inner: Ptr<rayon_crate::Scope<'scope>>,
    done: Ptr<HandOff>,
    _invariant: PhantomData<fn(&'scope ()) -> &'scope ()>,
}

/// `rayon::ScopeFifo`: as [`Scope`], its bodies started first in, first out.
///
/// Invariant: as `Scope`'s.
pub struct ScopeFifo<'scope> {
    inner: Ptr<rayon_crate::ScopeFifo<'scope>>,
    done: Ptr<HandOff>,
    _invariant: PhantomData<fn(&'scope ()) -> &'scope ()>,
}

/// What a spawned body releases into the scope's end clock as it ends.
fn body_ended(done: Ptr<HandOff>, site: &'static Location<'static>) {
    // SAFETY: called by a body of the scope, which ends before the scope (and `done`) does.
    unsafe { done.get() }.release("ending a body spawned in", site);
}

macro_rules! scope_type {
    ($scope:ident, $spawn:ident, $spawn_name:expr) => {
        impl<'scope> $scope<'scope> {
            fn wrap(inner: &rayon_crate::$scope<'scope>, done: Ptr<HandOff>) -> $scope<'scope> {
                $scope { inner: Ptr::new(inner), done, _invariant: PhantomData }
            }

            fn inner(&self) -> &rayon_crate::$scope<'scope> {
                // SAFETY: see the invariant.
                unsafe { self.inner.get() }
            }

            /// Spawns `body` into the scope as a task forked here.
            #[track_caller]
            pub fn $spawn<BODY>(&self, body: BODY)
            where
                BODY: FnOnce(&$scope<'scope>) + Send + 'scope,
            {
                let site = Location::caller();
                let (task, _) = Task::spawn(Some($spawn_name.to_owned()), site);
                let done = self.done;
                let mut task = task;
                self.inner().$spawn(move |s| {
                    let done = done;
                    task.run(|| {
                        body(&$scope::wrap(s, done));
                        body_ended(done, site);
                    });
                });
            }

            /// Spawns `body` on every thread of the scope's pool, each call a task forked here.
            #[track_caller]
            pub fn spawn_broadcast<BODY>(&self, body: BODY)
            where
                BODY: Fn(&$scope<'scope>, BroadcastContext<'_>) + Send + Sync + 'scope,
            {
                let site = Location::caller();
                let (tasks, _) = PerThread::new(rayon_crate::current_num_threads(), names::SCOPE_BROADCAST, site);
                let done = self.done;
                self.inner().spawn_broadcast(move |s, cx| {
                    let done = done;
                    tasks.run(cx.index(), || {
                        body(&$scope::wrap(s, done), cx);
                        body_ended(done, site);
                    });
                });
            }
        }

        impl std::fmt::Debug for $scope<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Debug::fmt(self.inner(), f)
            }
        }
    };
}

scope_type!(Scope, spawn, names::SCOPE_SPAWN);
scope_type!(ScopeFifo, spawn_fifo, names::SCOPE_FIFO_SPAWN);

/// The scope's end clock, on the caller's frame.
pub(crate) fn end_clock(site: &'static Location<'static>) -> HandOff {
    HandOff::new("rayon::Scope", site)
}

/// The caller's join of a scope's bodies, after rayon's scope returned.
pub(crate) fn joined(done: &HandOff, site: &'static Location<'static>) {
    done.acquire("joining the bodies spawned in", site);
}

macro_rules! scope_fns {
    ($name:ident, $in_place:ident, $scope:ident, $pool_name:ident, $pool_in_place:ident) => {
        /// rayon's, with `op` a task forked here (rayon runs it on a worker) and every body spawned
        /// into the scope joined when it returns.
        #[track_caller]
        pub fn $name<'scope, OP, R>(op: OP) -> R
        where
            OP: FnOnce(&$scope<'scope>) -> R + Send,
            R: Send,
        {
            let site = Location::caller();
            let done = end_clock(site);
            let done_at = Ptr::new(&done);
            let (op, end) = Forked::new(op, names::SCOPE_OP, site);
            let out = rayon_crate::$name(move |s| op.call(&$scope::wrap(s, done_at)));
            end.joined(site);
            joined(&done, site);
            out
        }

        /// rayon's, with `op` run by the caller and every body spawned into the scope joined when
        /// it returns.
        #[track_caller]
        pub fn $in_place<'scope, OP, R>(op: OP) -> R
        where
            OP: FnOnce(&$scope<'scope>) -> R,
        {
            let site = Location::caller();
            let done = end_clock(site);
            let done_at = Ptr::new(&done);
            let out = rayon_crate::$in_place(move |s| op(&$scope::wrap(s, done_at)));
            joined(&done, site);
            out
        }

        impl super::ThreadPool {
            /// rayon's, as the free function of the same name, in this pool.
            #[track_caller]
            pub fn $pool_name<'scope, OP, R>(&self, op: OP) -> R
            where
                OP: FnOnce(&$scope<'scope>) -> R + Send,
                R: Send,
            {
                let site = Location::caller();
                let done = end_clock(site);
                let done_at = Ptr::new(&done);
                let (op, end) = Forked::new(op, names::SCOPE_OP, site);
                let out = self.pool.$pool_name(move |s| op.call(&$scope::wrap(s, done_at)));
                end.joined(site);
                joined(&done, site);
                out
            }

            /// rayon's, as the free function of the same name, in this pool.
            #[track_caller]
            pub fn $pool_in_place<'scope, OP, R>(&self, op: OP) -> R
            where
                OP: FnOnce(&$scope<'scope>) -> R,
            {
                let site = Location::caller();
                let done = end_clock(site);
                let done_at = Ptr::new(&done);
                let out = self.pool.$pool_in_place(move |s| op(&$scope::wrap(s, done_at)));
                joined(&done, site);
                out
            }
        }
    };
}

scope_fns!(scope, in_place_scope, Scope, scope, in_place_scope);
scope_fns!(scope_fifo, in_place_scope_fifo, ScopeFifo, scope_fifo, in_place_scope_fifo);
