//! A model on a saturated machine (every core kept busy by other threads, as on a loaded CI
//! runner): a thread the OS is slow to start is starting, not outside racer's view, and no
//! iteration fails for it. Its own test binary, so the busy threads slow no other test.
#![cfg(feature = "race-detect")]

use std::sync::atomic::{AtomicBool, Ordering as StdOrdering};
use std::sync::Arc;
use std::time::Duration;

use racer::sync::atomic::{AtomicUsize, Ordering};
use racer::sync::Mutex;

/// Busy threads, eight per core, spinning until dropped.
struct Saturation {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<u64>>,
}

impl Saturation {
    fn start() -> Saturation {
        let stop = Arc::new(AtomicBool::new(false));
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let threads = (0..8 * cores)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut spins = 0u64;
                    while !stop.load(StdOrdering::Relaxed) {
                        spins = std::hint::black_box(spins.wrapping_add(1));
                    }
                    spins
                })
            })
            .collect();
        Saturation { stop, threads }
    }
}

impl Drop for Saturation {
    fn drop(&mut self) {
        self.stop.store(true, StdOrdering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// Each iteration spawns four threads that take a lock and bump an atomic; with every core
/// busy the OS starts them late. Every iteration passes (the model would fail the test with
/// "did not end" or "left racer's view before its first point" otherwise).
#[test]
fn a_model_passes_with_every_core_busy() {
    let _busy = Saturation::start();
    racer::model::Builder::new().iterations(100).time(Some(Duration::from_secs(600))).check(|| {
        let lock = racer::sync::Arc::new(Mutex::new(0u64));
        let count = racer::sync::Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let (lock, count) = (lock.clone(), count.clone());
                racer::thread::spawn(move || {
                    *lock.lock().unwrap() += 1;
                    count.fetch_add(1, Ordering::AcqRel);
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(*lock.lock().unwrap(), 4);
        assert_eq!(count.load(Ordering::Acquire), 4);
    });
}
