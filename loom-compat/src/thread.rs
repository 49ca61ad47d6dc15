//! `loom::thread`: racer's threads (real threads whose spawn and join are happens-before
//! edges), with loom's signatures and auto traits.
//!
//! [`spawn`] takes a closure that need not be `Send`, as loom's does (code written for loom
//! moves an `Rc` or a boxed future without `Send` into a model thread). Inside a model that is
//! sound for the reason it is in loom: racer's scheduler lets one model thread run at a time,
//! handing the turn over through a lock, so no value is used by two threads at once. (The one
//! exception: a thread that stays away from racer's points for 100 ms, blocked outside racer's
//! view, loses its turn while it is blocked; see `racer::model`.) **Outside a model** (a
//! whole-crate run's test that is no model, where loom itself refuses to spawn, and which the
//! stand-in runs unchecked, as std would: see `crate::outside`; and every model of the build
//! without `race-detect`, whose `model` runs its closure once, unscheduled) the thread is a real thread
//! running beside its spawner, as std's, and nothing checks that what the closure holds may
//! cross threads: a closure that is not `Send` is then the test's own responsibility, as in
//! unsafe code. [`Builder::spawn`] asks for `Send`, as loom's does.

use std::io;
use std::marker::PhantomData;
use std::panic::{RefUnwindSafe, UnwindSafe};

pub use racer::thread::{
    current, panicking, park, park_timeout, scope, sleep, Scope, ScopedJoinHandle, Thread, ThreadId,
};
/// The key of a `thread_local!` (std's, as the macro is), and the error of its `try_with`.
pub use std::thread::{AccessError, LocalKey};

/// A value moved to a model thread, or its result moved back, whatever its `Send`: see the
/// module's doc for why that is sound inside a model.
struct OneAtATime<V>(V);

// SAFETY: inside a model one thread runs at a time (the module's doc); outside one the caller
// of `spawn` answers for it, as the module's doc says.
unsafe impl<V> Send for OneAtATime<V> {}

/// Spawns a thread, as loom's `spawn`: the closure and its result need not be `Send` (see the
/// module's doc for what that means inside and outside a model).
#[track_caller]
pub fn spawn<F, T>(f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + 'static,
    T: 'static,
{
    let f = OneAtATime(f);
    let inner = racer::thread::spawn(move || {
        let f = f;
        OneAtATime((f.0)())
    });
    JoinHandle { inner, _result: PhantomData }
}

/// Thread factory, as loom's (and std's) `Builder`.
#[derive(Debug)]
pub struct Builder {
    inner: racer::thread::Builder,
}

impl Builder {
    /// A builder with no name and the default stack size. Not `Default`, as loom's is not.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Builder {
        Builder { inner: racer::thread::Builder::new() }
    }

    /// Names the thread-to-be (racer's reports and the thread's own name show it).
    pub fn name(self, name: String) -> Builder {
        Builder { inner: self.inner.name(name) }
    }

    /// Sets the size of the new thread's stack.
    pub fn stack_size(self, size: usize) -> Builder {
        Builder { inner: self.inner.stack_size(size) }
    }

    /// Spawns the thread; as loom's, the closure and its result must be `Send`.
    #[track_caller]
    pub fn spawn<F, T>(self, f: F) -> io::Result<JoinHandle<T>>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let inner = self.inner.spawn(move || OneAtATime(f()))?;
        Ok(JoinHandle { inner, _result: PhantomData })
    }
}

/// An owned permission to join a thread, as loom's `JoinHandle`.
///
/// Its auto traits are loom's, whose handle holds the result in an `Arc<Mutex<..>>`: `Send` and
/// `Sync` when `T` is `Send` (the `_result` marker says so), unwind-safe always.
pub struct JoinHandle<T> {
    inner: racer::thread::JoinHandle<OneAtATime<T>>,
    _result: PhantomData<std::sync::Arc<std::sync::Mutex<T>>>,
}

// As loom's (see above): a join after a panic sees the result or the panic, nothing half-made.
impl<T> UnwindSafe for JoinHandle<T> {}
impl<T> RefUnwindSafe for JoinHandle<T> {}

impl<T> JoinHandle<T> {
    /// Waits for the thread to finish: its result, or its panic's payload.
    #[track_caller]
    pub fn join(self) -> std::thread::Result<T> {
        self.inner.join().map(|result| result.0)
    }

    /// The thread's handle.
    pub fn thread(&self) -> &Thread {
        self.inner.thread()
    }

    /// Whether the thread has finished, as std's (loom has no such method).
    pub fn is_finished(&self) -> bool {
        self.inner.is_finished()
    }
}

impl<T> std::fmt::Debug for JoinHandle<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JoinHandle").finish_non_exhaustive()
    }
}

/// loom's `yield_now`: inside a model the turn goes to another thread (racer's `yield_now`, a
/// point of the scheduler, as in loom). Outside one (a whole-crate run's tests that are no
/// model, which run unchecked) a spin-loop hint, as `hint::spin_loop` there: loom's yield asks
/// its scheduler, not the OS, and code written for loom yields in its spin waits (a `cfg(loom)`
/// busy wait), where a yield to the OS with more spinning threads than cores lets the waiters
/// take turns while the thread they wait for waits for a core. concurrent-queue's `mpmc` test
/// (eight threads on a queue of three) took 44 s with OS yields, 0.03 s with hints.
#[track_caller]
#[inline]
pub fn yield_now() {
    if racer::model::inside() {
        racer::thread::yield_now()
    } else {
        std::hint::spin_loop()
    }
}
