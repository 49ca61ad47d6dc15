//! A lock-free single-producer single-consumer ring buffer over `Shared` slots and racer's
//! atomics. The producer fills a slot, then publishes it by storing the new `tail` with
//! Release; the consumer loads `tail` with Acquire before reading the slot, and hands the slot
//! back by storing `head` with Release, which the producer loads with Acquire.
//!
//! Correct (no report):
//!
//!     cargo run -p racer-examples --example spsc_ring --features race-detect
//!
//! With the bug: the producer publishes `tail` with a Relaxed store, so nothing orders its
//! slot write before the consumer's read of that slot, and racer prints the flow race (the
//! write in `push`, then the parallel read in `pop`) with both stacks:
//!
//!     cargo run -p racer-examples --example spsc_ring --features race-detect -- relaxed
//!
//! (On x86 the buggy version usually still computes the right sum: the hardware orders the
//! stores anyway. The race is in the program's contract with the compiler, which racer checks.)

use racer::sync::atomic::{AtomicUsize, Ordering};
use racer::sync::Arc;
use racer::{thread, Shared};

const CAPACITY: usize = 8;
const ITEMS: u64 = 10_000;

/// A bounded queue for exactly one producer thread and one consumer thread.
///
/// Invariant: `head <= tail <= head + CAPACITY`; slots `head..tail` (mod `CAPACITY`) hold
/// values pushed and not yet popped and belong to the consumer; the others belong to the
/// producer. Only the producer stores `tail`, only the consumer stores `head`.
struct Ring {
    slots: Vec<Shared<u64>>,
    head: AtomicUsize,
    tail: AtomicUsize,
    /// The ordering the producer publishes `tail` with: Release, or Relaxed for the bug.
    publish: Ordering,
}

impl Ring {
    fn new(publish: Ordering) -> Ring {
        Ring {
            slots: (0..CAPACITY).map(|_| Shared::new(0)).collect(),
            head: AtomicUsize::new(0),
            tail: AtomicUsize::new(0),
            publish,
        }
    }

    /// Producer only. Returns false when the ring is full.
    fn push(&self, value: u64) -> bool {
        let tail = self.tail.load(Ordering::Relaxed); // our own variable
        if tail - self.head.load(Ordering::Acquire) == CAPACITY {
            return false;
        }
        // SAFETY: the slot at `tail` belongs to the producer until `tail` moves past it.
        unsafe { self.slots[tail % CAPACITY].set(value) };
        self.tail.store(tail + 1, self.publish);
        true
    }

    /// Consumer only. Returns None when the ring is empty.
    fn pop(&self) -> Option<u64> {
        let head = self.head.load(Ordering::Relaxed); // our own variable
        if head == self.tail.load(Ordering::Acquire) {
            return None;
        }
        // SAFETY: the slot at `head` belongs to the consumer until `head` moves past it.
        let value = unsafe { self.slots[head % CAPACITY].get() };
        self.head.store(head + 1, Ordering::Release);
        Some(value)
    }
}

fn main() {
    let relaxed = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("relaxed") => true,
        Some(other) => {
            eprintln!("spsc_ring: unknown argument {other:?}; the only argument is `relaxed`");
            std::process::exit(2);
        }
    };
    let ring = Arc::new(Ring::new(if relaxed { Ordering::Relaxed } else { Ordering::Release }));

    let producer = {
        let ring = Arc::clone(&ring);
        thread::Builder::new()
            .name("producer".into())
            .spawn(move || {
                for v in 1..=ITEMS {
                    while !ring.push(v) {
                        thread::yield_now();
                    }
                }
            })
            .unwrap()
    };
    let consumer = {
        let ring = Arc::clone(&ring);
        thread::Builder::new()
            .name("consumer".into())
            .spawn(move || {
                let mut sum = 0;
                for _ in 0..ITEMS {
                    loop {
                        if let Some(v) = ring.pop() {
                            sum += v;
                            break;
                        }
                        thread::yield_now();
                    }
                }
                sum
            })
            .unwrap()
    };
    producer.join().unwrap();
    let sum = consumer.join().unwrap();
    println!(
        "spsc_ring ({} publish): consumed {ITEMS} items, sum {sum} (expected {})",
        if relaxed { "Relaxed" } else { "Release" },
        ITEMS * (ITEMS + 1) / 2
    );
}
