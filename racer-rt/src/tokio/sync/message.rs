//! A message of a wrapped channel, with a clock of its own: its send releases into it and its
//! receive acquires it, so that a receiver is ordered after the sends of the messages it took
//! and of no other.

use std::panic::Location;
use std::sync::Arc;

use racer_core::task::HandOff;

const SENDING: &str = "sending on";
const RECEIVING: &str = "receiving from";

/// A message of an `mpsc` or `oneshot` channel.
pub(super) struct Message<T> {
    pub(super) value: T,
    hand: HandOff,
}

impl<T> Message<T> {
    /// `value`, sent at `at` on a channel of kind `object` made at `created`: the sender's
    /// release into the message's new clock.
    pub(super) fn sent(
        value: T,
        object: &'static str,
        created: &'static Location<'static>,
        at: &'static Location<'static>,
    ) -> Message<T> {
        let hand = HandOff::new(object, created);
        hand.release(SENDING, at);
        Message { value, hand }
    }

    /// The value, received at `at`: the receiver's acquire of the message's clock.
    pub(super) fn received(self, at: &'static Location<'static>) -> T {
        self.hand.acquire(RECEIVING, at);
        self.value
    }
}

/// A message of a `broadcast` channel: each receiver takes a clone, which shares the clock.
pub(super) struct SharedMessage<T> {
    pub(super) value: T,
    hand: Arc<HandOff>,
}

impl<T> SharedMessage<T> {
    /// As `Message::sent`.
    pub(super) fn sent(
        value: T,
        object: &'static str,
        created: &'static Location<'static>,
        at: &'static Location<'static>,
    ) -> SharedMessage<T> {
        let hand = HandOff::new(object, created);
        hand.release(SENDING, at);
        SharedMessage { value, hand: Arc::new(hand) }
    }

    /// As `Message::received`.
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
