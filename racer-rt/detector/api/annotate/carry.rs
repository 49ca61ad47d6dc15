//! `Carry<T>`: a value with its sender's clock, for hand-offs racer cannot see (any channel,
//! queue or pool that moves values between threads). Every adapter of racer-rt that moves values
//! (`racer::crossbeam_channel`, `racer::flume`, ...) carries each one in a `Carry`.

use std::fmt;
use std::panic::Location;

use crate::api::task::HandOff;

const OBJECT: &str = "racer::annotate::Carry";
const RELEASING: &str = "carrying a value in";
const ACQUIRING: &str = "taking the value out of";

/// A value with the clock of the thread (or task) that made it: [`Carry::new`] is a release,
/// [`into_inner`](Carry::into_inner) an acquire, so a `Carry<T>` sent through anything that
/// moves values (a channel racer does not wrap, a queue, a pool's job) orders everything its
/// sender did before `new` before everything its receiver does after `into_inner`.
///
/// ```
/// use std::sync::mpsc; // a channel racer does not see
/// use racer::annotate::Carry;
/// let cell = std::sync::Arc::new(racer::Shared::new(0u64));
/// let (tx, rx) = mpsc::channel();
/// let writer = cell.clone();
/// let t = std::thread::spawn(move || {
///     unsafe { writer.set(1) };
///     tx.send(Carry::new(())).unwrap(); // the release
/// });
/// rx.recv().unwrap().into_inner(); // the acquire: the write above happens before the read below
/// assert_eq!(unsafe { cell.get() }, 1);
/// t.join().unwrap();
/// ```
///
/// Invariant: `hand` holds the one release made where the value was put in, and nothing else,
/// so taking the value out orders the taker after that release and no other.
pub struct Carry<T> {
    value: T,
    hand: HandOff,
}

impl<T> Carry<T> {
    /// `value`, with the calling thread's clock released into it.
    #[track_caller]
    #[inline]
    pub fn new(value: T) -> Carry<T> {
        Carry::released(value, OBJECT, RELEASING, Location::caller())
    }

    /// The value; the calling thread acquires the clock it carries.
    #[track_caller]
    #[inline]
    pub fn into_inner(self) -> T {
        self.acquired(ACQUIRING, Location::caller())
    }

    /// `value` put in at `at` by an operation `op` (“sending on”) of a primitive of kind
    /// `object` (“crossbeam_channel::Sender”): what reports name as the release. For racer's
    /// adapters.
    #[doc(hidden)]
    pub fn released(value: T, object: &'static str, op: &'static str, at: &'static Location<'static>) -> Carry<T> {
        Carry::released_on(value, object, at, op, at)
    }

    /// [`released`](Carry::released) on a primitive made at `created` (a channel's creation),
    /// which reports name beside the operation.
    #[doc(hidden)]
    pub fn released_on(
        value: T,
        object: &'static str,
        created: &'static Location<'static>,
        op: &'static str,
        at: &'static Location<'static>,
    ) -> Carry<T> {
        let hand = HandOff::new(object, created);
        hand.release(op, at);
        Carry { value, hand }
    }

    /// The value, taken out at `at` by an operation `op` (“receiving from”). For racer's
    /// adapters.
    #[doc(hidden)]
    pub fn acquired(self, op: &'static str, at: &'static Location<'static>) -> T {
        self.hand.acquire(op, at);
        self.value
    }

    /// The value without acquiring: for a value given back to its own sender (a failed send's
    /// error), which is ordered with itself already.
    #[doc(hidden)]
    pub fn returned(self) -> T {
        self.value
    }

    /// The value, read in place without acquiring: for what only looks at it (`Debug`).
    #[doc(hidden)]
    pub fn peek(&self) -> &T {
        &self.value
    }
}

impl<T: fmt::Debug> fmt::Debug for Carry<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Carry").field(&self.value).finish()
    }
}
