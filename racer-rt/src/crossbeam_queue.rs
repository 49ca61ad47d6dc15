//! `racer::crossbeam_queue`: crossbeam-queue's `ArrayQueue` and `SegQueue`, each item carrying
//! a clock of its own (a `Carry`): its push releases into it, its pop acquires it. A popper is so
//! ordered after the push of the item it took, and after no other push.

use std::fmt;
use std::panic::Location;

use crossbeam_queue_crate as cq;
use racer_core::annotate::Carry;

// Every item of the crate is wrapped today; the glob keeps any it adds.
#[allow(unused_imports)]
pub use crossbeam_queue_crate::*;

const ARRAY_QUEUE: &str = "crossbeam_queue::ArrayQueue";
const SEG_QUEUE: &str = "crossbeam_queue::SegQueue";
const PUSHING: &str = "pushing onto";
const POPPING: &str = "popping from";

fn popped<T>(item: Carry<T>, at: &'static Location<'static>) -> T {
    item.acquired(POPPING, at)
}

/// A bounded multi-producer multi-consumer queue, as `crossbeam_queue::ArrayQueue`. Invariant:
/// every item in it carries the clock its pusher released at the push; whoever takes an item out
/// (a pop, the value `force_push` displaces, the owned iterator) acquires it.
pub struct ArrayQueue<T> {
    inner: cq::ArrayQueue<Carry<T>>,
}

impl<T> ArrayQueue<T> {
    /// A queue of capacity `cap`: as crossbeam's `ArrayQueue::new`.
    pub fn new(cap: usize) -> ArrayQueue<T> {
        ArrayQueue { inner: cq::ArrayQueue::new(cap) }
    }

    /// Pushes `value` if there is room, else gives it back: as crossbeam's `push`.
    #[track_caller]
    pub fn push(&self, value: T) -> Result<(), T> {
        let item = Carry::released(value, ARRAY_QUEUE, PUSHING, Location::caller());
        self.inner.push(item).map_err(Carry::returned)
    }

    /// As `push`, through a unique borrow: as crossbeam's `push_mut`.
    #[track_caller]
    pub fn push_mut(&mut self, value: T) -> Result<(), T> {
        let item = Carry::released(value, ARRAY_QUEUE, PUSHING, Location::caller());
        self.inner.push_mut(item).map_err(Carry::returned)
    }

    /// Pushes `value`, displacing the oldest item if full: as crossbeam's `force_push`. The
    /// item displaced was pushed by another thread maybe: its clock is acquired.
    #[track_caller]
    pub fn force_push(&self, value: T) -> Option<T> {
        let at = Location::caller();
        let item = Carry::released(value, ARRAY_QUEUE, PUSHING, at);
        self.inner.force_push(item).map(|old| popped(old, at))
    }

    /// Pops the oldest item: as crossbeam's `pop`.
    #[track_caller]
    pub fn pop(&self) -> Option<T> {
        self.inner.pop().map(|item| popped(item, Location::caller()))
    }

    /// As `pop`, through a unique borrow: as crossbeam's `pop_mut`.
    #[track_caller]
    pub fn pop_mut(&mut self) -> Option<T> {
        let at = Location::caller();
        self.inner.pop_mut().map(|item| popped(item, at))
    }

    /// The queue's capacity.
    pub fn capacity(&self) -> usize {
        self.inner.capacity()
    }

    /// Whether the queue is empty.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// Whether the queue is full.
    pub fn is_full(&self) -> bool {
        self.inner.is_full()
    }

    /// How many items are in the queue.
    pub fn len(&self) -> usize {
        self.inner.len()
    }
}

impl<T> fmt::Debug for ArrayQueue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T> IntoIterator for ArrayQueue<T> {
    type Item = T;
    type IntoIter = array_queue::IntoIter<T>;

    #[track_caller]
    fn into_iter(self) -> array_queue::IntoIter<T> {
        array_queue::IntoIter { inner: self.inner.into_iter(), at: Location::caller() }
    }
}

/// An unbounded multi-producer multi-consumer queue, as `crossbeam_queue::SegQueue`.
/// Invariant: every item in it carries the clock its pusher released at the push; whoever takes
/// an item out (a pop, the owned iterator) acquires it.
pub struct SegQueue<T> {
    inner: cq::SegQueue<Carry<T>>,
}

impl<T> SegQueue<T> {
    /// An empty queue: as crossbeam's `SegQueue::new`.
    pub const fn new() -> SegQueue<T> {
        SegQueue { inner: cq::SegQueue::new() }
    }

    /// Pushes `value`: as crossbeam's `push`.
    #[track_caller]
    pub fn push(&self, value: T) {
        self.inner.push(Carry::released(value, SEG_QUEUE, PUSHING, Location::caller()));
    }

    /// As `push`, through a unique borrow: as crossbeam's `push_mut`.
    #[track_caller]
    pub fn push_mut(&mut self, value: T) {
        self.inner.push_mut(Carry::released(value, SEG_QUEUE, PUSHING, Location::caller()));
    }

    /// Pops the oldest item: as crossbeam's `pop`.
    #[track_caller]
    pub fn pop(&self) -> Option<T> {
        self.inner.pop().map(|item| popped(item, Location::caller()))
    }

    /// As `pop`, through a unique borrow: as crossbeam's `pop_mut`.
    #[track_caller]
    pub fn pop_mut(&mut self) -> Option<T> {
        let at = Location::caller();
        self.inner.pop_mut().map(|item| popped(item, at))
    }

    /// Whether the queue is empty.
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// How many items are in the queue.
    pub fn len(&self) -> usize {
        self.inner.len()
    }
}

impl<T> fmt::Debug for SegQueue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.fmt(f)
    }
}

impl<T> Default for SegQueue<T> {
    fn default() -> Self {
        SegQueue::new()
    }
}

impl<T> IntoIterator for SegQueue<T> {
    type Item = T;
    type IntoIter = seg_queue::IntoIter<T>;

    #[track_caller]
    fn into_iter(self) -> seg_queue::IntoIter<T> {
        seg_queue::IntoIter { inner: self.inner.into_iter(), at: Location::caller() }
    }
}

/// `ArrayQueue`'s owned iterator: public in a private module, as the crate's.
mod array_queue {
    use super::*;

    /// The items of an `ArrayQueue`, oldest first, each acquired at the line that made the
    /// iterator.
    pub struct IntoIter<T> {
        pub(super) inner: <cq::ArrayQueue<Carry<T>> as IntoIterator>::IntoIter,
        pub(super) at: &'static Location<'static>,
    }

    impl<T> Iterator for IntoIter<T> {
        type Item = T;

        fn next(&mut self) -> Option<T> {
            self.inner.next().map(|item| popped(item, self.at))
        }

        fn size_hint(&self) -> (usize, Option<usize>) {
            self.inner.size_hint()
        }
    }

    impl<T> fmt::Debug for IntoIter<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.pad("IntoIter { .. }")
        }
    }
}

/// `SegQueue`'s owned iterator: public in a private module, as the crate's.
mod seg_queue {
    use super::*;

    /// The items of a `SegQueue`, oldest first, each acquired at the line that made the
    /// iterator.
    pub struct IntoIter<T> {
        pub(super) inner: <cq::SegQueue<Carry<T>> as IntoIterator>::IntoIter,
        pub(super) at: &'static Location<'static>,
    }

    impl<T> Iterator for IntoIter<T> {
        type Item = T;

        fn next(&mut self) -> Option<T> {
            self.inner.next().map(|item| popped(item, self.at))
        }

        fn size_hint(&self) -> (usize, Option<usize>) {
            self.inner.size_hint()
        }
    }

    impl<T> fmt::Debug for IntoIter<T> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.pad("IntoIter { .. }")
        }
    }
}
