//! Dining philosophers: five philosophers at a round table, a fork (a `Mutex`) between each two.
//! Each picks up the fork on their left, then the one on their right. If all five pick up
//! their left fork at the same moment, each waits forever for the right one: a deadlock.
//!
//! Here they dine one after another, so this run cannot hang; racer still sees that the five
//! forks were taken in an order that goes round the table (fork 0 before 1, 1 before 2, ...,
//! 4 before 0) and reports the lock-order inversion with each philosopher's two acquisitions.
//!
//!     cargo run -p racer-examples --example dining_philosophers --features race-detect
//!
//! The fix is the usual one: every philosopher picks up the lower-numbered fork first
//! (`DINE_FIXED=1` runs that version, with no report).

use racer::sync::{Arc, Mutex};
use racer::thread;

const SEATS: usize = 5;

fn dine(forks: &[Mutex<u32>], seat: usize, fixed: bool) {
    let (left, right) = (seat, (seat + 1) % SEATS);
    let (first, second) = if fixed { (left.min(right), left.max(right)) } else { (left, right) };
    let mut a = forks[first].lock().unwrap();
    let mut b = forks[second].lock().unwrap();
    *a += 1;
    *b += 1;
}

fn main() {
    let fixed = std::env::var_os("DINE_FIXED").is_some();
    let report = racer::check(|| {
        let forks: Arc<Vec<Mutex<u32>>> = Arc::new((0..SEATS).map(|_| Mutex::new(0)).collect());
        for seat in 0..SEATS {
            let forks = forks.clone();
            thread::Builder::new()
                .name(format!("philosopher {seat}"))
                .spawn(move || dine(&forks, seat, fixed))
                .unwrap()
                .join()
                .unwrap();
        }
    });
    print!("{report}");
    if !report.is_empty() {
        std::process::exit(66);
    }
}
