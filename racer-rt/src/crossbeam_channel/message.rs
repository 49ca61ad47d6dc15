//! What racer puts in a crossbeam channel, and what both ends of one share.
//!
//! A message is a `Carry`: its send releases into it, its receive acquires it. On a zero-capacity
//! channel a send returns only after a receive took its message, so the message also holds a
//! `Handback`, through which the receive releases its own clock back to the send, which waits
//! for it before returning (as racer's `sync_channel(0)`). The ends' drops are ordered as
//! crossbeam's disconnection is: every sender's drop releases into `senders_gone`, which a
//! receive that finds the channel disconnected acquires; every receiver's drop releases into
//! `receivers_gone`, which a send that fails on a disconnected channel acquires.

use std::panic::Location;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use racer_core::annotate::Carry;
use racer_core::task::HandOff;

const SENDER: &str = "crossbeam_channel::Sender";
const CHANNEL: &str = "a crossbeam_channel channel";
const SENDING: &str = "sending on";
const RECEIVING: &str = "receiving from";
const HANDING_OVER: &str = "handing over on";
const DROPPING_SENDER: &str = "dropping a sender of";
const DROPPING_RECEIVER: &str = "dropping a receiver of";
const DISCONNECTED: &str = "finding disconnected";

/// A message in a channel of racer's ends: the value with its sender's clock, and on a
/// zero-capacity channel the way back to the send.
pub(super) struct Message<T> {
    value: Carry<T>,
    back: Option<Handback>,
}

impl<T> Message<T> {
    /// The value, given back to its own sender inside a failed send's error: no acquire (and
    /// the handback dropped: nobody waits on it).
    pub(super) fn returned(self) -> T {
        self.value.returned()
    }
}

/// The slot a rendezvous receive hands its clock back to the send through. Invariant: `given`
/// turns true once, after `hand` holds the receiver's release or when the message is dropped
/// unreceived; the send waits for it, so it never waits for a message that is gone.
struct HandbackSlot {
    hand: HandOff,
    given: Mutex<bool>,
    ready: Condvar,
}

/// The receiving side's handle on a `HandbackSlot`: its drop marks the slot given.
struct Handback(Arc<HandbackSlot>);

impl Drop for Handback {
    fn drop(&mut self) {
        *self.0.given.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.0.ready.notify_all();
    }
}

/// What a send waits on after its message was taken, on a zero-capacity channel.
pub(super) struct Pending(Option<Arc<HandbackSlot>>);

impl Pending {
    /// Waits for the receive of the message (or its drop), then acquires the receiver's clock.
    pub(super) fn taken(self, at: &'static Location<'static>) {
        if let Some(slot) = self.0 {
            let mut given = slot.given.lock().unwrap_or_else(PoisonError::into_inner);
            while !*given {
                given = slot.ready.wait(given).unwrap_or_else(PoisonError::into_inner);
            }
            drop(given);
            slot.hand.acquire(HANDING_OVER, at);
        }
    }
}

/// What all ends of one channel share. Invariant: `senders_gone` holds the release of every
/// dropped sender, `receivers_gone` of every dropped receiver.
pub(super) struct Ends {
    senders_gone: HandOff,
    receivers_gone: HandOff,
    rendezvous: bool,
    created: &'static Location<'static>,
}

impl Ends {
    pub(super) fn new(rendezvous: bool, created: &'static Location<'static>) -> Arc<Ends> {
        Arc::new(Ends {
            senders_gone: HandOff::new(CHANNEL, created),
            receivers_gone: HandOff::new(CHANNEL, created),
            rendezvous,
            created,
        })
    }

    /// `value`, sent at `at`: the sender's release into the message's own clock; and what the
    /// send waits on once the message is taken.
    pub(super) fn send<T>(&self, value: T, at: &'static Location<'static>) -> (Message<T>, Pending) {
        let value = Carry::released(value, SENDER, SENDING, at);
        if !self.rendezvous {
            return (Message { value, back: None }, Pending(None));
        }
        let slot = Arc::new(HandbackSlot {
            hand: HandOff::new(CHANNEL, self.created),
            given: Mutex::new(false),
            ready: Condvar::new(),
        });
        (Message { value, back: Some(Handback(slot.clone())) }, Pending(Some(slot)))
    }

    /// A sender's drop, at `at`.
    pub(super) fn sender_dropped(&self, at: &'static Location<'static>) {
        self.senders_gone.release(DROPPING_SENDER, at);
    }

    /// A receiver's drop, at `at`.
    pub(super) fn receiver_dropped(&self, at: &'static Location<'static>) {
        self.receivers_gone.release(DROPPING_RECEIVER, at);
    }

    /// A receive at `at` found every sender gone.
    pub(super) fn saw_senders_gone(&self, at: &'static Location<'static>) {
        self.senders_gone.acquire(DISCONNECTED, at);
    }

    /// A send at `at` found every receiver gone.
    pub(super) fn saw_receivers_gone(&self, at: &'static Location<'static>) {
        self.receivers_gone.acquire(DISCONNECTED, at);
    }
}

/// The value of a message received at `at`: the receiver acquires its sender's clock, and on a
/// zero-capacity channel releases its own back to the send.
pub(super) fn received<T>(message: Message<T>, at: &'static Location<'static>) -> T {
    let Message { value, back } = message;
    let value = value.acquired(RECEIVING, at);
    if let Some(back) = back {
        back.0.hand.release(RECEIVING, at);
    }
    value
}
