//! A work queue whose jobs live in a `Shared<VecDeque>` guarded by a separate `Mutex<()>`.
//! Workers take jobs under the lock, but the "fast path" that peeks at the queue length to
//! decide whether to sleep forgets it: racer reports the flow race between the producer's
//! locked push and the worker's unlocked peek, with both stacks.
//!
//!     cargo run -p racer-examples --example work_queue --features race-detect

use std::collections::VecDeque;

use racer::sync::{Arc, Mutex};
use racer::{thread, Shared};

struct WorkQueue {
    lock: Mutex<()>,
    jobs: Shared<VecDeque<u32>>,
}

impl WorkQueue {
    fn push(&self, job: u32) {
        let _held = self.lock.lock().unwrap();
        self.jobs.with_mut(|q| unsafe { (*q).push_back(job) });
    }

    fn pop(&self) -> Option<u32> {
        let _held = self.lock.lock().unwrap();
        self.jobs.with_mut(|q| unsafe { (*q).pop_front() })
    }

    /// Bug: reads the queue without the lock.
    fn looks_empty(&self) -> bool {
        self.jobs.with(|q| unsafe { (*q).is_empty() })
    }
}

fn worker(queue: &WorkQueue) -> u32 {
    let mut done = 0;
    loop {
        if queue.looks_empty() {
            thread::sleep(std::time::Duration::from_millis(1));
        }
        match queue.pop() {
            Some(0) => return done,
            Some(_) => done += 1,
            None => {}
        }
    }
}

fn main() {
    let queue = Arc::new(WorkQueue { lock: Mutex::new(()), jobs: Shared::new(VecDeque::new()) });
    let q = Arc::clone(&queue);
    let consumer = thread::Builder::new().name("worker".into()).spawn(move || worker(&q)).unwrap();
    let q = Arc::clone(&queue);
    let producer = thread::Builder::new()
        .name("producer".into())
        .spawn(move || {
            for job in (0..10).rev() {
                q.push(job);
            }
        })
        .unwrap();
    producer.join().unwrap();
    println!("worker finished {} jobs", consumer.join().unwrap());
}
