//! What a blocked thread waits for (`Wait`), published in its own slot (`WaitSlot`, one per
//! thread, all in `SLOTS`) for the watchdog to read.
//!
//! Invariant: a slot holds a `Published` wait only while its thread is about to block or blocked
//! in a wrapper (published by `blocking`'s `block`, withdrawn when its `Blocking` drops); each
//! new wait of the thread has a new `seq`. A slot's lock is racer's own (`crate::base::lock`),
//! taken only to put a publication in or copy it out.

use std::cell::RefCell;
use std::panic::Location;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Weak};

use crate::base::lock::Mutex;
use crate::provenance::stack::StackId;
use crate::provenance::thread_ref::ThreadInfo;
use crate::runtime::thread_state::with_current;

use super::lock::Acq;

/// What a blocked thread waits for.
#[derive(Clone)]
pub enum Wait {
    Lock(Acq),
    Join(Option<Arc<ThreadInfo>>),
    ScopeEnd(Option<Arc<ThreadInfo>>),
    Recv(&'static Location<'static>),
    Condvar,
    Barrier(&'static Location<'static>),
}

/// A published wait, in the waiting thread's slot.
#[derive(Clone)]
pub(super) struct Published {
    /// Changes at every new wait of the thread.
    pub(super) seq: u64,
    pub(super) group: u64,
    pub(super) wait: Wait,
    pub(super) site: &'static Location<'static>,
    pub(super) stack: StackId,
    pub(super) held: Vec<Acq>,
    pub(super) interruptible: bool,
}

/// One thread's published wait, if it is waiting.
pub(super) struct WaitSlot {
    pub(super) thread: Arc<ThreadInfo>,
    pub(super) waiting: Mutex<Option<Published>>,
    pub(super) seq: AtomicU64,
}

pub(super) static SLOTS: Mutex<Vec<Weak<WaitSlot>>> = Mutex::new(Vec::new());

thread_local! {
    static MY_SLOT: RefCell<Option<Arc<WaitSlot>>> = const { RefCell::new(None) };
}

pub(super) fn my_slot() -> Option<Arc<WaitSlot>> {
    MY_SLOT
        .try_with(|s| {
            let mut s = s.try_borrow_mut().ok()?;
            if s.is_none() {
                let thread = with_current(|t| t.thread_ref.info())?;
                let slot = Arc::new(WaitSlot { thread, waiting: Mutex::new(None), seq: AtomicU64::new(0) });
                let mut all = SLOTS.lock();
                all.retain(|w| w.strong_count() > 0);
                all.push(Arc::downgrade(&slot));
                *s = Some(slot);
            }
            s.clone()
        })
        .ok()
        .flatten()
}
