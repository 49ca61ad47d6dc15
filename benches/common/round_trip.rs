//! The core-to-core cache-line round trip, measured: shared by `core_round_trip` (which prints
//! it) and `overhead` (which tags each alternating pair of W7 and the rest with it).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The ball: alone on its cache line.
#[repr(align(64))]
struct Line(AtomicU64);

/// ns per round trip: two threads pass a counter back and forth `n` times, each waiting (by
/// reading the line) until the other has written it.
pub fn round_trip(n: u64) -> f64 {
    let ball = Line(AtomicU64::new(0));
    let start = Instant::now();
    std::thread::scope(|s| {
        s.spawn(|| {
            for i in 0..n {
                while ball.0.load(Ordering::Acquire) != 2 * i + 1 {
                    std::hint::spin_loop();
                }
                ball.0.store(2 * i + 2, Ordering::Release);
            }
        });
        for i in 0..n {
            ball.0.store(2 * i + 1, Ordering::Release);
            while ball.0.load(Ordering::Acquire) != 2 * i + 2 {
                std::hint::spin_loop();
            }
        }
    });
    start.elapsed().as_nanos() as f64 / n as f64
}

/// Round trips at or above this many ns are the slow state of the development VM (its two
/// vCPUs measured about 70-250 ns in some minutes and 400-600 ns in others).
pub const SLOW_NS: f64 = 300.0;
