//! `Notify` and its futures: tokio's `Notify` does the waking, and its clock orders the
//! notifier before the task it wakes. `notify_one`, `notify_last` and `notify_waiters` release
//! (before notifying); a `Notified` or `OwnedNotified` acquires when it completes, whether a
//! waiter was woken or a stored permit was taken, and where tokio reads the `Notify`'s state
//! SeqCst (its making and `enable`), so that the pattern tokio documents (`enable`, then check
//! the condition) sees what a notifier did before it notified.

use std::fmt;
use std::future::Future;
use std::panic::Location;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use racer_core::task::HandOff;
use tokio_crate::sync as ts;

const OBJECT: &str = "tokio::sync::Notify";

/// Notifies one task or all waiting tasks of an event, as `tokio::sync::Notify`.
#[derive(Debug)]
pub struct Notify {
    hand: HandOff,
    raw: ts::Notify,
}

/// The future `Notify::notified` returns, as `tokio::sync::futures::Notified`.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct Notified<'a> {
    inner: ts::futures::Notified<'a>,
    hand: &'a HandOff,
    at: &'static Location<'static>,
}

/// The future `Notify::notified_owned` returns, as `tokio::sync::futures::OwnedNotified`.
#[must_use = "futures do nothing unless you `.await` or poll them"]
pub struct OwnedNotified {
    // Borrows `*notify` (widened to `'static`): declared first, so dropped before it.
    inner: ts::futures::Notified<'static>,
    notify: Arc<Notify>,
    at: &'static Location<'static>,
}

impl Notify {
    /// A new `Notify`, with no stored permit.
    #[track_caller]
    pub fn new() -> Notify {
        Notify { hand: HandOff::scheduled(OBJECT, Location::caller()), raw: ts::Notify::new() }
    }

    /// As `new`, in a constant context.
    #[track_caller]
    pub const fn const_new() -> Notify {
        Notify { hand: HandOff::scheduled(OBJECT, Location::caller()), raw: ts::Notify::const_new() }
    }

    /// A future that completes when notified: as tokio's `notified`, which reads the
    /// notification count SeqCst (a `notify_waiters` before it wakes the future): an acquire.
    #[track_caller]
    pub fn notified(&self) -> Notified<'_> {
        let at = Location::caller();
        self.hand.acquire("waiting", at);
        Notified { inner: self.raw.notified(), hand: &self.hand, at }
    }

    /// As `notified`, for a `Notify` in an `Arc`: as tokio's `notified_owned`.
    #[track_caller]
    pub fn notified_owned(self: Arc<Self>) -> OwnedNotified {
        self.hand.acquire("waiting", Location::caller());
        // SAFETY: the future borrows the `Notify` in the `Arc` it is kept beside, and is dropped
        // before it (field order); it was not polled, so it may still move.
        let inner = unsafe {
            std::mem::transmute::<ts::futures::Notified<'_>, ts::futures::Notified<'static>>(self.raw.notified())
        };
        OwnedNotified { inner, notify: self, at: Location::caller() }
    }

    /// Wakes one waiting task, or stores a permit for the next: a release first.
    #[track_caller]
    pub fn notify_one(&self) {
        self.hand.release("notifying", Location::caller());
        self.raw.notify_one();
    }

    /// As `notify_one`, waking the task that started waiting last.
    #[track_caller]
    pub fn notify_last(&self) {
        self.hand.release("notifying", Location::caller());
        self.raw.notify_last();
    }

    /// Wakes every waiting task: a release first.
    #[track_caller]
    pub fn notify_waiters(&self) {
        self.hand.release("notifying", Location::caller());
        self.raw.notify_waiters();
    }
}

impl Default for Notify {
    #[track_caller]
    fn default() -> Notify {
        Notify::new()
    }
}

impl<'a> Notified<'a> {
    /// The pinned projection: `inner` is structurally pinned, the other fields are not.
    fn project<'p>(
        self: Pin<&'p mut Self>,
    ) -> (Pin<&'p mut ts::futures::Notified<'a>>, &'a HandOff, &'static Location<'static>) {
        // SAFETY: `inner` is never moved out of a pinned `Notified`: it is polled pinned and
        // dropped in place.
        let this = unsafe { self.get_unchecked_mut() };
        (unsafe { Pin::new_unchecked(&mut this.inner) }, this.hand, this.at)
    }

    /// Registers the future as a waiter (without polling it): as tokio's `Notified::enable`,
    /// which reads the `Notify`'s state SeqCst: an acquire.
    pub fn enable(self: Pin<&mut Self>) -> bool {
        let (inner, hand, at) = self.project();
        hand.acquire("waiting", at);
        inner.enable()
    }
}

impl Future for Notified<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let (inner, hand, at) = self.project();
        let poll = inner.poll(cx);
        if poll.is_ready() {
            hand.acquire("waiting", at);
        }
        poll
    }
}

impl fmt::Debug for Notified<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl OwnedNotified {
    /// The pinned projection: `inner` is structurally pinned, the other fields are not.
    fn project(
        self: Pin<&mut Self>,
    ) -> (Pin<&mut ts::futures::Notified<'static>>, &HandOff, &'static Location<'static>) {
        // SAFETY: as `Notified::project`'s.
        let this = unsafe { self.get_unchecked_mut() };
        (unsafe { Pin::new_unchecked(&mut this.inner) }, &this.notify.hand, this.at)
    }

    /// Registers the future as a waiter (without polling it): as tokio's
    /// `OwnedNotified::enable` (an acquire, as `Notified::enable`).
    pub fn enable(self: Pin<&mut Self>) -> bool {
        let (inner, hand, at) = self.project();
        hand.acquire("waiting", at);
        inner.enable()
    }
}

impl Future for OwnedNotified {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let (inner, hand, at) = self.project();
        let poll = inner.poll(cx);
        if poll.is_ready() {
            hand.acquire("waiting", at);
        }
        poll
    }
}

impl fmt::Debug for OwnedNotified {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}
