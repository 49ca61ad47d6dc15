//! A message of a wrapped channel, with a clock of its own (`racer::annotate::Carry`, the one way
//! racer-rt carries a clock with a value): its send releases into it and its receive acquires
//! it, so that a receiver is ordered after the sends of the messages it took and of no other.

use std::panic::Location;
use std::sync::Arc;

use racer_core::annotate::Carry;
use racer_core::task::{point, HandOff};

const SENDING: &str = "sending on";
const RECEIVING: &str = "receiving from";

/// A message of an `mpsc` or `oneshot` channel.
pub(super) type Message<T> = Carry<T>;

/// `value`, sent at `at` on a channel of kind `object` made at `created`: the sender's release
/// into the message's new clock.
pub(super) fn sent<T>(
    value: T,
    object: &'static str,
    created: &'static Location<'static>,
    at: &'static Location<'static>,
) -> Message<T> {
    point(SENDING, at);
    Carry::released_on(value, object, created, SENDING, at)
}

/// The value of a message received at `at`: the receiver's acquire of the message's clock.
pub(super) fn received<T>(message: Message<T>, at: &'static Location<'static>) -> T {
    point(RECEIVING, at);
    message.acquired(RECEIVING, at)
}

/// A message of a `broadcast` channel: each receiver takes a clone, which shares the clock.
pub(super) struct SharedMessage<T> {
    pub(super) value: T,
    hand: Arc<HandOff>,
}

impl<T> SharedMessage<T> {
    /// As [`sent`].
    pub(super) fn sent(
        value: T,
        object: &'static str,
        created: &'static Location<'static>,
        at: &'static Location<'static>,
    ) -> SharedMessage<T> {
        let hand = HandOff::scheduled(object, created);
        hand.release(SENDING, at);
        SharedMessage { value, hand: Arc::new(hand) }
    }

    /// As [`received`].
    pub(super) fn received(self, at: &'static Location<'static>) -> T {
        self.hand.acquire(RECEIVING, at);
        self.value
    }
}

impl<T: Clone> Clone for SharedMessage<T> {
    fn clone(&self) -> Self {
        SharedMessage { value: self.value.clone(), hand: self.hand.clone() }
    }
}
