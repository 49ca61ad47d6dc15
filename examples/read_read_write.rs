//! The seed paper's case for keeping the *set* of parallel reads: two threads read a config
//! value in parallel; the writer that updates it is ordered after the second reader (it waits
//! for that reader's "done" message through a racer `Mutex`) but not after the first one.
//!
//! A detector that keeps only the last read (Algorithm 3, Intel Thread Checker) compares the
//! write with the second read, finds them ordered, and stays silent. racer's Algorithm 4 keeps
//! both parallel reads and reports the anti race with the *first* reader as previous access.
//!
//!     cargo run -p racer-examples --example read_read_write --features race-detect

use racer::sync::{Arc, Condvar, Mutex};
use racer::{thread, Shared};

fn main() {
    let config = Arc::new(Shared::new(String::from("v1")));
    let second_done = Arc::new((Mutex::new(false), Condvar::new()));

    let c = Arc::clone(&config);
    let early =
        thread::Builder::new().name("early-reader".into()).spawn(move || c.with(|s| unsafe { (&*s).len() })).unwrap();
    // Let the early reader run first, so that the second read is the *last* read.
    thread::sleep(std::time::Duration::from_millis(50));

    let (c, done) = (Arc::clone(&config), Arc::clone(&second_done));
    let late = thread::Builder::new()
        .name("late-reader".into())
        .spawn(move || {
            let len = c.with(|s| unsafe { (&*s).len() });
            *done.0.lock().unwrap() = true;
            done.1.notify_all();
            len
        })
        .unwrap();

    let (c, done) = (Arc::clone(&config), Arc::clone(&second_done));
    let writer = thread::Builder::new()
        .name("writer".into())
        .spawn(move || {
            let (lock, cv) = &*done;
            drop(cv.wait_while(lock.lock().unwrap(), |finished| !*finished).unwrap());
            c.with_mut(|s| unsafe { *s = String::from("v2") });
        })
        .unwrap();

    let lens = (early.join().unwrap(), late.join().unwrap());
    writer.join().unwrap();
    println!("readers saw lengths {lens:?}");
}
