//! How long one cache line takes to go from one core to another and back, on this machine now:
//! the figure to quote next to W7 and W8 (`../shared/userbench/run`, `benches/overhead.rs`).
//!
//! racer's lock-free workloads hand a slot's shadow lines and an atomic's line between the
//! cores on every item, where std's batch eight slots to a line; so their time follows this
//! round trip and std's hardly does. On the 2-vCPU development VM it moved between about 70 ns
//! and 600 ns from minute to minute, and racer's W7 between about 70 ms and 280 ms with it.
//! std's threads only, nothing of racer's:
//!
//! ```text
//! cargo bench --bench core_round_trip
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The ball: alone on its cache line.
#[repr(align(64))]
struct Line(AtomicU64);

/// ns per round trip: two threads pass a counter back and forth `n` times, each waiting (by
/// reading the line) until the other has written it.
fn round_trip(n: u64) -> f64 {
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

fn main() {
    let mut runs: Vec<f64> = (0..7).map(|_| round_trip(200_000)).collect();
    runs.sort_by(f64::total_cmp);
    let shown: Vec<String> = runs.iter().map(|ns| format!("{ns:.0}")).collect();
    println!("core-to-core round trip: median {:.0} ns (runs, ns: {})", runs[runs.len() / 2], shown.join(" "));
}
