//! `loom::future` (loom's `futures` feature): `block_on` and `AtomicWaker`, on racer's
//! synchronisation so that a wake-up is a happens-before edge.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc as StdArc;
use std::task::{Context, Poll, Wake, Waker};

use racer::sync::atomic::{AtomicBool, Ordering};
use racer::sync::Mutex;

/// Wakes the thread blocked in [`block_on`]: a Release store the blocked thread Acquires.
struct ThreadWaker {
    thread: racer::thread::Thread,
    woken: AtomicBool,
}

impl Wake for ThreadWaker {
    fn wake(self: StdArc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &StdArc<Self>) {
        self.woken.store(true, Ordering::Release);
        self.thread.unpark();
    }
}

/// Runs `f` to completion on the calling thread, parking it while the future is pending, as
/// loom's `block_on` (which yields to loom's scheduler instead).
#[track_caller]
pub fn block_on<F: Future>(f: F) -> F::Output {
    let waiter = StdArc::new(ThreadWaker { thread: racer::thread::current(), woken: AtomicBool::new(false) });
    let waker = Waker::from(waiter.clone());
    let mut cx = Context::from_waker(&waker);
    let mut f = pin!(f);
    loop {
        if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        while !waiter.woken.swap(false, Ordering::Acquire) {
            racer::thread::park();
        }
    }
}

/// loom's `AtomicWaker` (the `futures`/`atomic-waker` type): one registered waker, woken by
/// `wake`. Here a racer `Mutex` guards it, so registering and waking are happens-before edges
/// (the real type's Acquire/Release protocol orders the same accesses).
#[derive(Default)]
pub struct AtomicWaker {
    waker: Mutex<Option<Waker>>,
}

impl AtomicWaker {
    /// An empty `AtomicWaker`.
    pub fn new() -> AtomicWaker {
        AtomicWaker { waker: Mutex::new(None) }
    }

    /// Registers `waker` to be woken by the next [`wake`](Self::wake).
    #[track_caller]
    pub fn register_by_ref(&self, waker: &Waker) {
        let mut slot = self.waker.lock().unwrap_or_else(|e| e.into_inner());
        match &*slot {
            Some(old) if old.will_wake(waker) => {}
            _ => *slot = Some(waker.clone()),
        }
    }

    /// Registers `waker` (by value).
    #[track_caller]
    pub fn register(&self, waker: Waker) {
        self.register_by_ref(&waker);
    }

    /// Wakes the registered waker, if any, and forgets it.
    #[track_caller]
    pub fn wake(&self) {
        if let Some(w) = self.take_waker() {
            w.wake();
        }
    }

    /// Takes the registered waker, if any.
    #[track_caller]
    pub fn take_waker(&self) -> Option<Waker> {
        self.waker.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

impl std::fmt::Debug for AtomicWaker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtomicWaker").finish_non_exhaustive()
    }
}
