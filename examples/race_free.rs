//! A race-free program: a counter updated under a `Mutex` by four threads, a result handed
//! over by `join`, and scoped threads filling disjoint halves of a buffer. Run under
//! `racer::check`, it prints the (empty) report: "racer: no data races found".
//!
//!     cargo run -p racer-examples --example race_free --features race-detect

use racer::sync::{Arc, Mutex};
use racer::{thread, Shared};

fn main() {
    let report = racer::check(|| {
        let lock = Arc::new(Mutex::new(()));
        let counter = Arc::new(Shared::new(0u64));
        let workers: Vec<_> = (0..4)
            .map(|_| {
                let (lock, counter) = (Arc::clone(&lock), Arc::clone(&counter));
                thread::spawn(move || {
                    for _ in 0..1000 {
                        let _held = lock.lock().unwrap();
                        counter.with_mut(|c| unsafe { *c += 1 });
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        let total = counter.with(|c| unsafe { *c });

        let halves = [Shared::new([0u8; 8]), Shared::new([0u8; 8])];
        thread::scope(|s| {
            for (i, half) in halves.iter().enumerate() {
                s.spawn(move || half.with_mut(|h| unsafe { (*h).fill(i as u8 + 1) }));
            }
        });
        let sum: u32 = halves.iter().map(|h| h.with(|h| unsafe { (*h).iter().map(|&b| b as u32).sum::<u32>() })).sum();
        println!("counter = {total}, buffer sum = {sum}");
    });
    print!("{report}");
    if !report.is_empty() {
        std::process::exit(1);
    }
}
