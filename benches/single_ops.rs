//! What single operations cost in one thread: each loop runs on racer's wrappers (with
//! `--features race-detect`; without it they are std's items), on a thread racer spawned, and
//! prints its time per iteration. Timings on a shared machine drift; instruction counts do not:
//!
//! ```text
//! cargo bench --features race-detect --bench single_ops                 # every loop, ns/iter
//! cargo bench --features race-detect --bench single_ops --no-run        # prints the binary
//! SINGLE_OPS_N=100000 valgrind --tool=cachegrind --cache-sim=no <binary> w1   # instructions
//! ```
//!
//! Instructions per iteration are the difference of two counts at different `SINGLE_OPS_N`,
//! divided by the difference of iterations (each loop runs `N + N / 10` times).

use std::hint::black_box;
use std::time::Instant;

use racer::sync::atomic::{AtomicUsize, Ordering};
use racer::sync::Mutex;
use racer::Shared;
use std::cell::UnsafeCell;

/// Runs `f` `n / 10` times to warm up, then `n` times, and prints ns per iteration.
fn time(name: &str, n: u64, mut f: impl FnMut()) {
    (0..n / 10).for_each(|_| f());
    let start = Instant::now();
    (0..n).for_each(|_| f());
    println!("{name:<40} {:>8.1} ns/iter", start.elapsed().as_nanos() as f64 / n as f64);
}

fn main() {
    // `cargo bench` passes `--bench`; a loop's name selects it.
    let only: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let n: u64 = std::env::var("SINGLE_OPS_N").ok().and_then(|v| v.parse().ok()).unwrap_or(2_000_000);
    let born300 = only.is_empty() || only.iter().any(|o| o == "born300");
    racer::thread::spawn(move || {
        let wanted = |name: &str| only.is_empty() || only.iter().any(|o| o == name);
        let m = Mutex::new(());
        let cell = Shared::new(0u64);
        let a = AtomicUsize::new(0);
        if wanted("same") {
            time("same: same-segment read", n, || {
                black_box(unsafe { black_box(&cell).get() });
            });
        }
        if wanted("lock") {
            time("lock: lock, unlock", n, || drop(black_box(m.lock().unwrap())));
        }
        if wanted("store") {
            time("store: Release store", n, || a.store(black_box(1), Ordering::Release));
        }
        if wanted("ws") {
            time("ws: new-segment write, Release store", n, || {
                unsafe { cell.set(1) };
                a.store(black_box(1), Ordering::Release);
            });
        }
        if wanted("rs") {
            time("rs: new-segment read, Release store", n, || {
                black_box(unsafe { cell.get() });
                a.store(black_box(1), Ordering::Release);
            });
        }
        if wanted("relaxed") {
            time("relaxed: Relaxed load", n, || {
                black_box(a.load(Ordering::Relaxed));
            });
        }
        if wanted("w1") {
            time("w1: lock, x.set(x.get() + 1), unlock", n, || {
                let _g = m.lock().unwrap();
                unsafe { cell.set(cell.get() + 1) };
            });
        }
        // Issue 43's single-thread check: racer's read-modify-write over its write-only loop,
        // against the same ratio of std's cell (`std_rmw`, `std_write`).
        if wanted("rmw") {
            time("rmw: x.set(x.get() + 1), one segment", n, || unsafe { cell.set(black_box(cell.get()) + 1) });
        }
        if wanted("write") {
            time("write: *x += 1 in with_mut, one segment", n, || cell.with_mut(|p| unsafe { *black_box(p) += 1 }));
        }
        let plain = UnsafeCell::new(0u64);
        if wanted("std_rmw") {
            time("std_rmw: the same on std's UnsafeCell", n, || unsafe { *plain.get() = black_box(*plain.get()) + 1 });
        }
        if wanted("std_write") {
            time("std_write: the same on std's UnsafeCell", n, || unsafe { *black_box(plain.get()) += 1 });
        }
    })
    .join()
    .unwrap();
    // A thread born after 300 others (spawned and joined) against the first one's `write`.
    if born300 {
        (0..300).for_each(|_| racer::thread::spawn(|| ()).join().unwrap());
        racer::thread::spawn(move || {
            let cell = Shared::new(0u64);
            time("born300: write, a thread born after 300", n, || cell.with_mut(|p| unsafe { *black_box(p) += 1 }));
        })
        .join()
        .unwrap();
    }
}
