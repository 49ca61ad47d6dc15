//! `racer::sync::mpsc`: std's channels, each message carrying the clock of its send.
//!
//! A send copies the sender's clock into the message, then starts a new segment (a post); the
//! receive of that message joins that copy (a wait), so a receiver is ordered after the sends
//! of the messages it has taken, not after later ones. Disconnection is ordered like a send:
//! every sender's drop posts into the channel's `senders_gone` clock, which a receiver that
//! finds the channel disconnected waits on; symmetrically, the receiver's drop posts into
//! `receiver_gone`, which a send that fails waits on.
//!
//! A rendezvous channel (`sync_channel(0)`) also orders the other way, as std's does: a send
//! returns only after a receive took its message, so the receive posts into the message's
//! `Handback`, which the send waits on before returning.

use std::fmt;
use std::panic::Location;
use std::sync::Arc;
use std::time::Duration;

pub use std::sync::mpsc::{RecvError, RecvTimeoutError, SendError, TryRecvError, TrySendError};

use crate::base::lock::{Condvar, Mutex};

use crate::model::clock::VectorClock;
use crate::runtime::sync_clock::SyncClock;
use crate::runtime::sync_object::{kind, SyncObject};
use crate::runtime::thread_state::with_current;
use crate::schedule;

/// A value in the channel with the clock of its send (`None` if sent during thread-local
/// teardown, when the sender has no clock), and for a rendezvous channel the way back to the
/// sender.
struct Message<T> {
    value: T,
    clock: Option<VectorClock>,
    handback: Option<Handback>,
}

/// The clock a rendezvous receive hands back to its send.
///
/// Invariant: `returned` becomes `Some` exactly once, when the message is received (with the
/// receiver's clock) or dropped unreceived (with `None`); the send waits for that, so it never
/// waits for a message that is gone.
#[derive(Default)]
struct HandbackSlot {
    returned: Mutex<Option<Option<VectorClock>>>,
    ready: Condvar,
}

/// The receiving side's handle on a `HandbackSlot`; dropping it unused returns nothing.
struct Handback(Arc<HandbackSlot>);

impl Handback {
    fn give(&self, clock: Option<VectorClock>) {
        let mut returned = self.0.returned.lock();
        if returned.is_none() {
            *returned = Some(clock);
            self.0.ready.notify_all();
        }
    }
}

impl Drop for Handback {
    fn drop(&mut self) {
        self.give(None);
    }
}

impl HandbackSlot {
    /// Blocks until the receive (or the drop) of the message; returns the receiver's clock.
    fn wait(&self) -> Option<VectorClock> {
        let mut returned = self.returned.lock();
        while returned.is_none() {
            returned = self.ready.wait(returned);
        }
        returned.take().flatten()
    }
}

/// The clocks of a channel's ends going away.
///
/// Invariant: `senders_gone` is the join of the clocks of every dropped sender, `receiver_gone`
/// the clock of the dropped receiver (empty while it lives).
struct Gone {
    senders_gone: SyncClock,
    receiver_gone: SyncClock,
}

/// What both ends of one channel share.
struct Ends {
    sync: SyncObject<kind::Channel, Gone>,
}

impl Ends {
    fn new(created: &'static Location<'static>) -> Arc<Ends> {
        Arc::new(Ends {
            sync: SyncObject::new(Gone { senders_gone: SyncClock::new(), receiver_gone: SyncClock::new() }, created),
        })
    }

    /// The post of a send: wraps `value` with a copy of the sender's clock (and, for a
    /// rendezvous, a slot to hand the receiver's clock back through).
    fn wrap<T>(
        &self,
        value: T,
        rendezvous: bool,
        at: &'static Location<'static>,
    ) -> (Message<T>, Option<Arc<HandbackSlot>>) {
        let clock = with_current(|t| {
            let clock = t.clock().clone();
            t.note_sync(self.sync.event("sending on", at));
            t.tick();
            clock
        });
        let slot = rendezvous.then(|| Arc::new(HandbackSlot::default()));
        let handback = slot.clone().map(Handback);
        (Message { value, clock, handback }, slot)
    }

    /// The wait of a receive: joins the clock the message carries; for a rendezvous, then
    /// posts the receiver's clock back to the send.
    fn unwrap<T>(&self, message: Message<T>, at: &'static Location<'static>) -> T {
        let Message { value, clock, handback } = message;
        let back = with_current(|t| {
            if let Some(clock) = &clock {
                t.clock_mut().join(clock);
                t.note_sync(self.sync.event("receiving from", at));
            }
            handback.is_some().then(|| {
                let back = t.clock().clone();
                t.tick();
                back
            })
        });
        if let Some(handback) = handback {
            handback.give(back.flatten());
        }
        value
    }

    /// The end of a rendezvous send whose message was taken: waits on the receive.
    fn handed_back(&self, slot: Option<Arc<HandbackSlot>>, at: &'static Location<'static>) {
        if let Some(clock) = slot.and_then(|slot| slot.wait()) {
            with_current(|t| {
                t.clock_mut().join(&clock);
                t.note_sync(self.sync.event("handing over on", at));
            });
        }
    }

    fn saw_senders_gone(&self, at: &'static Location<'static>) {
        self.sync.clock.senders_gone.wait(self.sync.event("finding disconnected", at));
    }

    fn saw_receiver_gone(&self, at: &'static Location<'static>) {
        self.sync.clock.receiver_gone.wait(self.sync.event("finding disconnected", at));
    }
}

/// Creates an unbounded channel, as `std::sync::mpsc::channel`.
#[track_caller]
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let ends = Ends::new(Location::caller());
    let (tx, rx) = std::sync::mpsc::channel();
    (Sender { inner: tx, ends: ends.clone() }, Receiver { inner: rx, ends })
}

/// Creates a channel holding at most `bound` messages (0: every send waits for its receive),
/// as `std::sync::mpsc::sync_channel`.
#[track_caller]
pub fn sync_channel<T>(bound: usize) -> (SyncSender<T>, Receiver<T>) {
    let ends = Ends::new(Location::caller());
    let (tx, rx) = std::sync::mpsc::sync_channel(bound);
    (SyncSender { inner: tx, ends: ends.clone(), rendezvous: bound == 0 }, Receiver { inner: rx, ends })
}

/// The sending half of a `channel`, as `std::sync::mpsc::Sender`.
pub struct Sender<T> {
    inner: std::sync::mpsc::Sender<Message<T>>,
    ends: Arc<Ends>,
}

impl<T> Sender<T> {
    #[track_caller]
    pub fn send(&self, t: T) -> Result<(), SendError<T>> {
        let at = Location::caller();
        schedule::point("sending", at);
        self.inner.send(self.ends.wrap(t, false, at).0).map_err(|SendError(m)| {
            self.ends.saw_receiver_gone(at);
            SendError(m.value)
        })
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Sender<T> {
        Sender { inner: self.inner.clone(), ends: self.ends.clone() }
    }
}

impl<T> Drop for Sender<T> {
    #[track_caller]
    fn drop(&mut self) {
        self.ends.sync.clock.senders_gone.post(self.ends.sync.event("dropping a sender of", Location::caller()));
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

/// The sending half of a `sync_channel`, as `std::sync::mpsc::SyncSender`.
pub struct SyncSender<T> {
    inner: std::sync::mpsc::SyncSender<Message<T>>,
    ends: Arc<Ends>,
    /// Bound 0: every send waits for its receive.
    rendezvous: bool,
}

impl<T> SyncSender<T> {
    #[track_caller]
    pub fn send(&self, t: T) -> Result<(), SendError<T>> {
        let at = Location::caller();
        schedule::point("sending", at);
        let (message, slot) = self.ends.wrap(t, self.rendezvous, at);
        match self.inner.send(message) {
            Ok(()) => {
                self.ends.handed_back(slot, at);
                Ok(())
            }
            Err(SendError(m)) => {
                self.ends.saw_receiver_gone(at);
                Err(SendError(m.value))
            }
        }
    }

    #[track_caller]
    pub fn try_send(&self, t: T) -> Result<(), TrySendError<T>> {
        let at = Location::caller();
        schedule::point("sending", at);
        let (message, slot) = self.ends.wrap(t, self.rendezvous, at);
        self.inner.try_send(message).map(|()| self.ends.handed_back(slot, at)).map_err(|e| match e {
            TrySendError::Full(m) => TrySendError::Full(m.value),
            TrySendError::Disconnected(m) => {
                self.ends.saw_receiver_gone(at);
                TrySendError::Disconnected(m.value)
            }
        })
    }
}

impl<T> Clone for SyncSender<T> {
    fn clone(&self) -> SyncSender<T> {
        SyncSender { inner: self.inner.clone(), ends: self.ends.clone(), rendezvous: self.rendezvous }
    }
}

impl<T> Drop for SyncSender<T> {
    #[track_caller]
    fn drop(&mut self) {
        self.ends.sync.clock.senders_gone.post(self.ends.sync.event("dropping a sender of", Location::caller()));
    }
}

impl<T> fmt::Debug for SyncSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SyncSender").finish_non_exhaustive()
    }
}

/// The receiving half of a channel, as `std::sync::mpsc::Receiver`.
pub struct Receiver<T> {
    inner: std::sync::mpsc::Receiver<Message<T>>,
    ends: Arc<Ends>,
}

impl<T> Receiver<T> {
    #[track_caller]
    pub fn recv(&self) -> Result<T, RecvError> {
        let at = Location::caller();
        schedule::point("receiving", at);
        let received = match self.inner.try_recv() {
            Ok(m) => Ok(m),
            Err(TryRecvError::Disconnected) => Err(RecvError),
            // The channel is empty: the wait is published for deadlock detection, and made of
            // timed waits so that a wait its check has ended can unwind.
            // Inside a model: retried at points, never blocking the model's turn.
            Err(TryRecvError::Empty) if schedule::in_model() => loop {
                schedule::blocked("receiving", at);
                match self.inner.try_recv() {
                    Ok(m) => break Ok(m),
                    Err(TryRecvError::Disconnected) => break Err(RecvError),
                    Err(TryRecvError::Empty) => {}
                }
            },
            Err(TryRecvError::Empty) => {
                let waiting = crate::deadlock::wait(crate::deadlock::Wait::Recv(self.ends.sync.created), at);
                loop {
                    match self.inner.recv_timeout(crate::deadlock::TICK) {
                        Ok(m) => break Ok(m),
                        Err(RecvTimeoutError::Disconnected) => break Err(RecvError),
                        Err(RecvTimeoutError::Timeout) => waiting.poll(),
                    }
                }
            }
        };
        match received {
            Ok(m) => Ok(self.ends.unwrap(m, at)),
            Err(RecvError) => {
                self.ends.saw_senders_gone(at);
                Err(RecvError)
            }
        }
    }

    #[track_caller]
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        let at = Location::caller();
        schedule::point("receiving", at);
        match self.inner.try_recv() {
            Ok(m) => Ok(self.ends.unwrap(m, at)),
            Err(TryRecvError::Empty) => Err(TryRecvError::Empty),
            Err(TryRecvError::Disconnected) => {
                self.ends.saw_senders_gone(at);
                Err(TryRecvError::Disconnected)
            }
        }
    }

    #[track_caller]
    pub fn recv_timeout(&self, timeout: Duration) -> Result<T, RecvTimeoutError> {
        let at = Location::caller();
        schedule::point("receiving", at);
        // Inside a model time is the scheduler's: the wait times out only when no other
        // thread can run.
        let received = if schedule::in_model() {
            loop {
                match self.inner.try_recv() {
                    Ok(m) => break Ok(m),
                    Err(TryRecvError::Disconnected) => break Err(RecvTimeoutError::Disconnected),
                    Err(TryRecvError::Empty) => {
                        if schedule::blocked_timed("receiving", at) {
                            break self.inner.try_recv().map_err(|e| match e {
                                TryRecvError::Empty => RecvTimeoutError::Timeout,
                                TryRecvError::Disconnected => RecvTimeoutError::Disconnected,
                            });
                        }
                    }
                }
            }
        } else {
            self.inner.recv_timeout(timeout)
        };
        match received {
            Ok(m) => Ok(self.ends.unwrap(m, at)),
            Err(RecvTimeoutError::Timeout) => Err(RecvTimeoutError::Timeout),
            Err(RecvTimeoutError::Disconnected) => {
                self.ends.saw_senders_gone(at);
                Err(RecvTimeoutError::Disconnected)
            }
        }
    }

    /// Blocking receives until the channel is disconnected.
    pub fn iter(&self) -> Iter<'_, T> {
        Iter { rx: self }
    }

    /// Receives what is ready now, without blocking.
    pub fn try_iter(&self) -> TryIter<'_, T> {
        TryIter { rx: self }
    }
}

impl<T> Drop for Receiver<T> {
    #[track_caller]
    fn drop(&mut self) {
        self.ends.sync.clock.receiver_gone.post(self.ends.sync.event("dropping the receiver of", Location::caller()));
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver").finish_non_exhaustive()
    }
}

/// Blocking iterator over a receiver, as `std::sync::mpsc::Iter`.
#[derive(Debug)]
pub struct Iter<'a, T: 'a> {
    rx: &'a Receiver<T>,
}

impl<T> Iterator for Iter<'_, T> {
    type Item = T;

    #[track_caller]
    fn next(&mut self) -> Option<T> {
        self.rx.recv().ok()
    }
}

/// Non-blocking iterator over a receiver, as `std::sync::mpsc::TryIter`.
#[derive(Debug)]
pub struct TryIter<'a, T: 'a> {
    rx: &'a Receiver<T>,
}

impl<T> Iterator for TryIter<'_, T> {
    type Item = T;

    #[track_caller]
    fn next(&mut self) -> Option<T> {
        self.rx.try_recv().ok()
    }
}

/// Owning blocking iterator over a receiver, as `std::sync::mpsc::IntoIter`.
#[derive(Debug)]
pub struct IntoIter<T> {
    rx: Receiver<T>,
}

impl<T> Iterator for IntoIter<T> {
    type Item = T;

    #[track_caller]
    fn next(&mut self) -> Option<T> {
        self.rx.recv().ok()
    }
}

impl<'a, T> IntoIterator for &'a Receiver<T> {
    type Item = T;
    type IntoIter = Iter<'a, T>;

    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

impl<T> IntoIterator for Receiver<T> {
    type Item = T;
    type IntoIter = IntoIter<T>;

    fn into_iter(self) -> IntoIter<T> {
        IntoIter { rx: self }
    }
}
