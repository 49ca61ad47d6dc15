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

#[path = "common/round_trip.rs"]
mod round_trip;
use round_trip::round_trip;

fn main() {
    let mut runs: Vec<f64> = (0..7).map(|_| round_trip(200_000)).collect();
    runs.sort_by(f64::total_cmp);
    let shown: Vec<String> = runs.iter().map(|ns| format!("{ns:.0}")).collect();
    let median = runs[runs.len() / 2];
    let state = if median >= round_trip::SLOW_NS { "slow" } else { "fast" };
    println!("core-to-core round trip: median {median:.0} ns, the {state} state (runs, ns: {})", shown.join(" "));
}
