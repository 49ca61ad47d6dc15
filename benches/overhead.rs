//! What racer costs: every workload runs twice in the same process, once on racer's wrappers
//! (`racer::Shared`, `racer::sync::Mutex`, `racer::sync::atomic`, `racer::thread`) and once on
//! the std items the feature-off build compiles them to (`UnsafeCell`, `std::sync::Mutex`,
//! `std::sync::atomic`, `std::thread`). The closing tables give each pair's ratio of criterion
//! medians, and of alternating runs.
//!
//! ```text
//! cargo bench --features race-detect --bench overhead          # the detector's cost
//! cargo bench --bench overhead                                 # feature off: ratios ~1.0
//! RACER_BENCH_QUICK=1 cargo bench --features race-detect ...   # 1/10 of the work, ~1 min
//! ```
//!
//! `cargo bench` in this repository measures the configuration users build: no RUSTFLAGS
//! (racer needs no frame pointers; it walks the stack with cached DWARF CFI rules). The tuned
//! configuration is measured with
//!
//! ```text
//! RUSTFLAGS="-C force-frame-pointers=yes -C llvm-args=-align-loops=64" cargo bench ...
//! ```

use std::cell::UnsafeCell;
use std::hash::{DefaultHasher, Hasher};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use criterion::Criterion;

#[path = "common/round_trip.rs"]
mod round_trip;

/// Work per workload: the issue's sizes, or a tenth of them in quick mode.
#[derive(Clone, Copy)]
struct Sizes {
    threads: usize,
    /// W1: lock, `+= 1`, unlock per thread.
    lockstep: usize,
    /// W2: hash 4 KiB, then a locked update, per thread.
    mixed: usize,
    /// W3: cells written before spawn, and rounds of reading them all per thread.
    cells: usize,
    rounds: usize,
    /// W4: threads spawned and joined one after another.
    churn: usize,
    /// W7: items through the SPSC ring (1 producer, 1 consumer).
    spsc: usize,
    /// W8: items per producer through the MPMC queue (2 producers, 2 consumers).
    mpmc: usize,
}

impl Sizes {
    fn from_env() -> Sizes {
        let full = Sizes {
            threads: 4,
            lockstep: 200_000,
            mixed: 2_000,
            cells: 10_000,
            rounds: 200,
            churn: 20_000,
            spsc: 500_000,
            mpmc: 200_000,
        };
        if std::env::var_os("RACER_BENCH_QUICK").is_some() {
            Sizes {
                lockstep: full.lockstep / 10,
                mixed: full.mixed / 10,
                rounds: full.rounds / 10,
                churn: full.churn / 10,
                spsc: full.spsc / 10,
                mpmc: full.mpmc / 10,
                ..full
            }
        } else {
            full
        }
    }
}

/// `UnsafeCell` with `Shared`'s method names: exactly what `racer::Shared` is with the feature
/// off.
struct StdCell<T>(UnsafeCell<T>);

// SAFETY: as `Shared`: the workloads only reach the value under their own synchronisation.
unsafe impl<T: Send> Sync for StdCell<T> {}

impl<T> StdCell<T> {
    fn new(value: T) -> StdCell<T> {
        StdCell(UnsafeCell::new(value))
    }
    #[inline]
    fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.0.get())
    }
    #[inline]
    fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}

/// Slots of the lock-free queues of W7 and W8.
const CAP: usize = 256;

/// The workloads of the issue (W1-W4) and the lock-free queues (W7, W8), written once and
/// instantiated for both flavours.
macro_rules! workloads {
    ($flavour:ident, $Cell:ident, $Mutex:path, $RwLock:path, $spawn:path, $($atomic:ident)::+, $yield_now:path) => {
        mod $flavour {
            use super::*;
            use std::sync::Arc;
            use $($atomic)::+::{AtomicUsize, Ordering};
            type Cell<T> = $Cell<T>;
            type Mutex<T> = $Mutex;
            type RwLock<T> = $RwLock;

            /// Each of `s.threads` threads runs `step` on `lock` and one cell `s.lockstep`
            /// times; returns the cell's value.
            fn on_threads<L: Send + Sync + 'static>(s: Sizes, lock: L, step: fn(&L, &Cell<u64>)) -> u64 {
                let lock = Arc::new(lock);
                let cell = Arc::new(Cell::new(0u64));
                let workers: Vec<_> = (0..s.threads)
                    .map(|_| {
                        let (lock, cell) = (lock.clone(), cell.clone());
                        $spawn(move || (0..s.lockstep).for_each(|_| step(&lock, &cell)))
                    })
                    .collect();
                workers.into_iter().for_each(|w| w.join().unwrap());
                cell.with(|p| unsafe { *p })
            }

            /// W1: threads take turns on one lock to increment one cell.
            pub fn lockstep(s: Sizes) {
                let total = on_threads(s, Mutex::new(()), |lock, cell| {
                    let _held = lock.lock().unwrap();
                    cell.with_mut(|p| unsafe { *p += 1 });
                });
                assert_eq!(total, (s.threads * s.lockstep) as u64);
            }

            /// W1 on a reader-writer lock's write lock.
            pub fn rwlock_write_lockstep(s: Sizes) {
                on_threads(s, RwLock::new(()), |lock, cell| {
                    let _held = lock.write().unwrap();
                    cell.with_mut(|p| unsafe { *p += 1 });
                });
            }

            /// W1's threads reading the cell under a reader-writer lock's read lock, together.
            pub fn rwlock_read_lockstep(s: Sizes) {
                on_threads(s, RwLock::new(()), |lock, cell| {
                    let _held = lock.read().unwrap();
                    black_box(cell.with(|p| unsafe { *p }));
                });
            }

            /// W2: mostly private work (hashing a 4 KiB buffer), then a short locked update.
            pub fn mixed(s: Sizes) {
                let lock = Arc::new(Mutex::new(()));
                let cell = Arc::new(Cell::new(0u64));
                let workers: Vec<_> = (0..s.threads)
                    .map(|t| {
                        let (lock, cell) = (lock.clone(), cell.clone());
                        $spawn(move || {
                            let mut buffer = vec![t as u8; 4096];
                            for i in 0..s.mixed {
                                buffer[i % 4096] = i as u8;
                                let mut h = DefaultHasher::new();
                                h.write(&buffer);
                                let digest = h.finish();
                                let _held = lock.lock().unwrap();
                                cell.with_mut(|p| unsafe { *p = (*p).wrapping_add(digest) });
                            }
                        })
                    })
                    .collect();
                workers.into_iter().for_each(|w| w.join().unwrap());
                black_box(cell.with(|p| unsafe { *p }));
            }

            /// W3: cells written before the spawn, then only read, by every thread, many times.
            pub fn read_sharing(s: Sizes) {
                let cells: Arc<Vec<Cell<u64>>> = Arc::new((0..s.cells).map(|i| Cell::new(i as u64)).collect());
                for c in cells.iter() {
                    c.with_mut(|p| unsafe { *p += 1 });
                }
                let readers: Vec<_> = (0..s.threads)
                    .map(|_| {
                        let cells = cells.clone();
                        $spawn(move || {
                            let mut sum = 0u64;
                            for _ in 0..s.rounds {
                                for c in cells.iter() {
                                    sum = sum.wrapping_add(c.with(|p| unsafe { *p }));
                                }
                            }
                            sum
                        })
                    })
                    .collect();
                let expected = (1..=s.cells as u64).sum::<u64>() * s.rounds as u64;
                for r in readers {
                    assert_eq!(r.join().unwrap(), expected);
                }
            }

            /// W4: short threads spawned and joined one after another, each writing one cell.
            pub fn churn(s: Sizes) {
                let cell = Arc::new(Cell::new(0u64));
                for _ in 0..s.churn {
                    let cell = cell.clone();
                    $spawn(move || cell.with_mut(|p| unsafe { *p += 1 })).join().unwrap();
                }
                assert_eq!(cell.with(|p| unsafe { *p }), s.churn as u64);
            }

            /// Backs off while a lock-free queue is full or empty (2 cores: spinning alone
            /// starves the peer).
            fn backoff(tries: &mut u32) {
                *tries += 1;
                if *tries % 64 == 0 {
                    $yield_now();
                } else {
                    std::hint::spin_loop();
                }
            }

            struct Ring {
                slots: Vec<Cell<u64>>,
                head: AtomicUsize,
                tail: AtomicUsize,
            }

            /// W7: SPSC ring, 1 producer and 1 consumer, items through `CAP` cells; a slot is
            /// handed over by the Release store / Acquire load of `tail` (filled) and `head`
            /// (emptied).
            pub fn spsc(s: Sizes) {
                let n = s.spsc as u64;
                let ring = Arc::new(Ring {
                    slots: (0..CAP).map(|_| Cell::new(0)).collect(),
                    head: AtomicUsize::new(0),
                    tail: AtomicUsize::new(0),
                });
                let producer = {
                    let ring = ring.clone();
                    $spawn(move || {
                        let mut tries = 0;
                        for i in 0..n {
                            let t = ring.tail.load(Ordering::Relaxed);
                            while t - ring.head.load(Ordering::Acquire) == CAP {
                                backoff(&mut tries);
                            }
                            ring.slots[t % CAP].with_mut(|p| unsafe { *p = i });
                            ring.tail.store(t + 1, Ordering::Release);
                        }
                    })
                };
                let consumer = {
                    let ring = ring.clone();
                    $spawn(move || {
                        let mut tries = 0;
                        let mut sum = 0u64;
                        for _ in 0..n {
                            let h = ring.head.load(Ordering::Relaxed);
                            while ring.tail.load(Ordering::Acquire) == h {
                                backoff(&mut tries);
                            }
                            sum = sum.wrapping_add(ring.slots[h % CAP].with(|p| unsafe { *p }));
                            ring.head.store(h + 1, Ordering::Release);
                        }
                        sum
                    })
                };
                producer.join().unwrap();
                let sum = consumer.join().unwrap();
                assert_eq!(sum, n * (n - 1) / 2);
                drop(ring);
            }

            struct Slot {
                seq: AtomicUsize,
                val: Cell<u64>,
            }

            /// Bounded MPMC queue with a sequence number per slot (Vyukov).
            struct Queue {
                buf: Vec<Slot>,
                enq: AtomicUsize,
                deq: AtomicUsize,
            }

            impl Queue {
                fn push(&self, v: u64) {
                    let mut tries = 0;
                    loop {
                        let pos = self.enq.load(Ordering::Relaxed);
                        let slot = &self.buf[pos % CAP];
                        let seq = slot.seq.load(Ordering::Acquire);
                        if seq == pos {
                            if self.enq.compare_exchange_weak(pos, pos + 1, Ordering::Relaxed, Ordering::Relaxed).is_ok() {
                                slot.val.with_mut(|p| unsafe { *p = v });
                                slot.seq.store(pos + 1, Ordering::Release);
                                return;
                            }
                        } else if seq < pos {
                            backoff(&mut tries);
                        }
                    }
                }

                fn pop(&self) -> u64 {
                    let mut tries = 0;
                    loop {
                        let pos = self.deq.load(Ordering::Relaxed);
                        let slot = &self.buf[pos % CAP];
                        let seq = slot.seq.load(Ordering::Acquire);
                        if seq == pos + 1 {
                            if self.deq.compare_exchange_weak(pos, pos + 1, Ordering::Relaxed, Ordering::Relaxed).is_ok() {
                                let v = slot.val.with(|p| unsafe { *p });
                                slot.seq.store(pos + CAP, Ordering::Release);
                                return v;
                            }
                        } else if seq < pos + 1 {
                            backoff(&mut tries);
                        }
                    }
                }
            }

            /// W8: the bounded MPMC queue, 2 producers and 2 consumers, 2 x `mpmc` items.
            pub fn mpmc(s: Sizes) {
                let per = s.mpmc as u64;
                let queue = Arc::new(Queue {
                    buf: (0..CAP).map(|i| Slot { seq: AtomicUsize::new(i), val: Cell::new(0) }).collect(),
                    enq: AtomicUsize::new(0),
                    deq: AtomicUsize::new(0),
                });
                let producers: Vec<_> = (0..2u64)
                    .map(|p| {
                        let queue = queue.clone();
                        $spawn(move || (0..per).for_each(|i| queue.push(p * per + i)))
                    })
                    .collect();
                let consumers: Vec<_> = (0..2)
                    .map(|_| {
                        let queue = queue.clone();
                        $spawn(move || (0..per).map(|_| queue.pop()).fold(0u64, u64::wrapping_add))
                    })
                    .collect();
                producers.into_iter().for_each(|p| p.join().unwrap());
                let total = consumers.into_iter().map(|c| c.join().unwrap()).fold(0u64, u64::wrapping_add);
                let n = 2 * per;
                assert_eq!(total, n * (n - 1) / 2);
                drop(queue);
            }
        }
    };
}

workloads!(
    with_racer,
    Shared,
    racer::sync::Mutex<T>,
    racer::sync::RwLock<T>,
    racer::thread::spawn,
    racer::sync::atomic,
    racer::thread::yield_now
);
workloads!(
    with_std,
    StdCell,
    std::sync::Mutex<T>,
    std::sync::RwLock<T>,
    std::thread::spawn,
    std::sync::atomic,
    std::thread::yield_now
);
use racer::Shared;

/// W1 on parking_lot's mutex: `racer::parking_lot` (parking_lot's raw lock in racer's
/// `lock_api` adapter) against parking_lot itself.
mod with_parking_lot {
    use super::*;
    use std::sync::Arc;

    macro_rules! lockstep {
        ($name:ident, $Cell:ident, $Mutex:path, $spawn:path) => {
            pub fn $name(s: Sizes) {
                let lock = Arc::new(<$Mutex>::new(()));
                let cell = Arc::new($Cell::new(0u64));
                let workers: Vec<_> = (0..s.threads)
                    .map(|_| {
                        let (lock, cell) = (lock.clone(), cell.clone());
                        $spawn(move || {
                            for _ in 0..s.lockstep {
                                let _held = lock.lock();
                                cell.with_mut(|p| unsafe { *p += 1 });
                            }
                        })
                    })
                    .collect();
                workers.into_iter().for_each(|w| w.join().unwrap());
                assert_eq!(cell.with(|p| unsafe { *p }), (s.threads * s.lockstep) as u64);
            }
        };
    }
    lockstep!(racer_lockstep, Shared, racer::parking_lot::Mutex<()>, racer::thread::spawn);
    lockstep!(std_lockstep, StdCell, parking_lot::Mutex<()>, std::thread::spawn);
}

type Workload = (&'static str, fn(Sizes), fn(Sizes));

const WORKLOADS: [Workload; 9] = [
    ("w1_lockstep", with_racer::lockstep, with_std::lockstep),
    ("w1_rwlock_write", with_racer::rwlock_write_lockstep, with_std::rwlock_write_lockstep),
    ("w1_rwlock_read", with_racer::rwlock_read_lockstep, with_std::rwlock_read_lockstep),
    ("w1_parking_lot_mutex", with_parking_lot::racer_lockstep, with_parking_lot::std_lockstep),
    ("w2_mixed", with_racer::mixed, with_std::mixed),
    ("w3_read_sharing", with_racer::read_sharing, with_std::read_sharing),
    ("w4_churn", with_racer::churn, with_std::churn),
    ("w7_spsc", with_racer::spsc, with_std::spsc),
    ("w8_mpmc", with_racer::mpmc, with_std::mpmc),
];

/// Whether the command line selects a workload: criterion's filter (a regular expression, the
/// first argument that is not an option or an option's value), or everything.
fn selected(name: &str) -> bool {
    let mut args = std::env::args().skip(1);
    let mut filter = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--bench" | "--test" | "--list" | "--exact" | "--quiet" | "--verbose" | "--noplot" => {}
            a if a.starts_with('-') => {
                args.next(); // an option that takes a value
            }
            a => {
                filter = Some(a.to_owned());
                break;
            }
        }
    }
    filter.is_none_or(|f| regex::Regex::new(&f).is_ok_and(|r| r.is_match(name)))
}

fn whole_workloads(c: &mut Criterion, s: Sizes) {
    for (name, racer_run, std_run) in WORKLOADS {
        let mut g = c.benchmark_group(name);
        g.sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(2));
        g.bench_function("racer", |b| b.iter(|| racer_run(s)));
        g.bench_function("std", |b| b.iter(|| std_run(s)));
        g.finish();
    }
}

/// Single accesses: the same-segment re-access, the first write of a new segment, and a read
/// of a cell whose read set R holds p parallel readers.
fn accesses(c: &mut Criterion) {
    let mut g = c.benchmark_group("access");
    g.sample_size(20).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1));

    let cell = Shared::new(0u64);
    let plain = StdCell::new(0u64);
    g.bench_function("same_segment_write/racer", |b| b.iter(|| cell.with_mut(|p| unsafe { *black_box(p) += 1 })));
    g.bench_function("same_segment_write/std", |b| b.iter(|| plain.with_mut(|p| unsafe { *black_box(p) += 1 })));
    g.bench_function("same_segment_read/racer", |b| b.iter(|| cell.with(|p| unsafe { *black_box(p) })));
    g.bench_function("same_segment_read/std", |b| b.iter(|| plain.with(|p| unsafe { *black_box(p) })));
    // Read-modify-write in one segment (`x.set(x.get() + 1)`): the segment's write covers its
    // reads, so after the first of each every access hits, as in the write-only loop above.
    g.bench_function("same_segment_read_then_write/racer", |b| {
        b.iter(|| unsafe { cell.set(black_box(cell.get()) + 1) })
    });
    g.bench_function("same_segment_read_then_write/std", |b| {
        b.iter(|| plain.with_mut(|p| unsafe { *p = black_box(*p) + 1 }))
    });

    // A lock/unlock ends the segment, so the write after it takes the slow path. The cost of
    // that write is the difference between the two racer figures.
    let lock = racer::sync::Mutex::new(());
    let std_lock = std::sync::Mutex::new(());
    g.bench_function("new_segment_write/racer", |b| {
        b.iter(|| {
            drop(lock.lock().unwrap());
            cell.with_mut(|p| unsafe { *black_box(p) += 1 })
        })
    });
    g.bench_function("lock_unlock_only/racer", |b| b.iter(|| drop(lock.lock().unwrap())));
    g.bench_function("new_segment_write/std", |b| {
        b.iter(|| {
            drop(std_lock.lock().unwrap());
            plain.with_mut(|p| unsafe { *black_box(p) += 1 })
        })
    });
    g.bench_function("lock_unlock_only/std", |b| b.iter(|| drop(std_lock.lock().unwrap())));
    g.finish();

    let mut g = c.benchmark_group("read_with_parallel_readers");
    g.sample_size(20).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1));
    for readers in [2usize, 8, 32] {
        let cell = std::sync::Arc::new(Shared::new(1u64));
        cell.with_mut(|p| unsafe { *p = 2 });
        // Each helper reads once after the spawn and then waits on a std channel, invisible to
        // racer: their reads stay mutually parallel and parallel to this thread, so R keeps
        // them all while this thread reads in a new segment each iteration.
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let (quit_tx, quit_rx) = std::sync::mpsc::channel::<()>();
        let quit_rx = std::sync::Arc::new(std::sync::Mutex::new(quit_rx));
        let helpers: Vec<_> = (0..readers)
            .map(|_| {
                let (cell, done_tx, quit_rx) = (cell.clone(), done_tx.clone(), quit_rx.clone());
                racer::thread::spawn(move || {
                    black_box(cell.with(|p| unsafe { *p }));
                    done_tx.send(()).unwrap();
                    let _ = quit_rx.lock().unwrap().recv();
                })
            })
            .collect();
        for _ in 0..readers {
            done_rx.recv().unwrap();
        }
        let private = racer::sync::Mutex::new(());
        g.bench_function(format!("{readers}/racer"), |b| {
            b.iter(|| {
                drop(private.lock().unwrap());
                cell.with(|p| unsafe { *black_box(p) })
            })
        });
        drop(quit_tx);
        helpers.into_iter().for_each(|h| h.join().unwrap());
    }
    g.finish();
}

/// Criterion's output directory, in the target directory this bench was built into.
fn criterion_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(dir).join("criterion");
    }
    // target/release/deps/overhead-HASH
    let exe = std::env::current_exe().expect("bench executable path");
    exe.ancestors().nth(3).expect("bench lives in target/PROFILE/deps").join("criterion")
}

/// The median, in nanoseconds, criterion estimated for benchmark `id` in this run (criterion
/// turns the `/` inside a function name into `_` in its directory names).
fn median_ns(dir: &std::path::Path, id: &str) -> Option<f64> {
    let text = std::fs::read_to_string(dir.join(id).join("new/estimates.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json["median"]["point_estimate"].as_f64()
}

fn print_summary(dir: &std::path::Path) {
    let m = |id: &str| median_ns(dir, id);
    println!("\nracer overhead summary (criterion medians; ENABLED = {})", racer::ENABLED);
    println!("{:<34} {:>14} {:>14} {:>8}", "workload", "racer", "std", "ratio");
    for name in ["w1_lockstep", "w2_mixed", "w3_read_sharing", "w4_churn", "w7_spsc", "w8_mpmc"] {
        if let (Some(r), Some(s)) = (m(&format!("{name}/racer")), m(&format!("{name}/std"))) {
            println!("{:<34} {:>11.2} ms {:>11.2} ms {:>7.2}x", name, r / 1e6, s / 1e6, r / s);
        }
    }
    for name in ["same_segment_write", "same_segment_read", "new_segment_write", "lock_unlock_only"] {
        if let (Some(r), Some(s)) = (m(&format!("access/{name}_racer")), m(&format!("access/{name}_std"))) {
            println!("{:<34} {:>11.1} ns {:>11.1} ns {:>7.2}x", name, r, s, r / s);
        }
    }
    if let (Some(w), Some(l)) = (m("access/new_segment_write_racer"), m("access/lock_unlock_only_racer")) {
        println!("{:<34} {:>11.1} ns", "new-segment write alone (racer)", w - l);
    }
    if let Some(l) = m("access/lock_unlock_only_racer") {
        for readers in [2, 8, 32] {
            if let Some(r) = m(&format!("read_with_parallel_readers/{readers}_racer")) {
                println!("{:<34} {:>11.1} ns", format!("new-segment read, |R| = {readers}"), r - l);
            }
        }
    }
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// The issue's measure of each workload: racer and std runs alternate (`RACER_BENCH_PAIRS`
/// pairs, 11 by default), so drift on a shared machine hits both alike; the ratio is the
/// median of the per-pair ratios. Each pair is tagged with the core-to-core round trip measured
/// just before it, and the ratio is also given per state of the machine (see `round_trip`):
/// W7's and W8's follow it, so a figure without its state does not compare with another.
fn alternating_runs(s: Sizes) {
    let pairs: usize = std::env::var("RACER_BENCH_PAIRS").ok().and_then(|v| v.parse().ok()).unwrap_or(11).max(1);
    println!("\nracer overhead, alternating runs ({pairs} pairs; medians; ENABLED = {})", racer::ENABLED);
    println!(
        "{:<34} {:>14} {:>14} {:>8}   by round trip (fast < {:.0} ns <= slow): pairs, ratio",
        "workload",
        "racer",
        "std",
        "ratio",
        round_trip::SLOW_NS
    );
    for (name, racer_run, std_run) in WORKLOADS.into_iter().filter(|w| selected(w.0)) {
        racer_run(s);
        std_run(s);
        let (mut r, mut n, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
        let (mut fast, mut slow) = (Vec::new(), Vec::new());
        for _ in 0..pairs {
            let round_trip_ns = round_trip::round_trip(20_000);
            let t = Instant::now();
            racer_run(s);
            let rt = t.elapsed().as_secs_f64();
            let t = Instant::now();
            std_run(s);
            let st = t.elapsed().as_secs_f64();
            r.push(rt);
            n.push(st);
            ratios.push(rt / st);
            if round_trip_ns < round_trip::SLOW_NS { &mut fast } else { &mut slow }.push(rt / st);
        }
        let state = |name: &str, ratios: Vec<f64>| match ratios.len() {
            0 => format!("{name} 0"),
            k => format!("{name} {k}, {:.2}x", median(ratios)),
        };
        println!(
            "{:<34} {:>11.2} ms {:>11.2} ms {:>7.2}x   {}; {}",
            name,
            median(r) * 1e3,
            median(n) * 1e3,
            median(ratios),
            state("fast", fast),
            state("slow", slow)
        );
    }
}

fn main() {
    let dir = criterion_dir();
    let mut c = Criterion::default().output_directory(&dir).configure_from_args();
    let sizes = Sizes::from_env();
    accesses(&mut c);
    whole_workloads(&mut c, sizes);
    c.final_summary();
    print_summary(&dir);
    alternating_runs(sizes);
    cliffs();
}

/// The fast path's former cliffs (issue 17), each as racer/std of the same code:
/// read-modify-write in one segment next to write-only; a long test suite (400 tests one after
/// another, each a fresh thread that spawns and joins four racer threads, as libtest runs
/// them), its tests 350-359 next to its tests 0-9; and a thread's same-segment writes after
/// 2^25 synchronisations next to those of a fresh thread.
fn cliffs() {
    println!("\ncliffs (medians)");
    let per_access = |f: &dyn Fn(u64)| {
        let n = 2_000_000u64;
        median(
            (0..7)
                .map(|_| {
                    let t = Instant::now();
                    f(n);
                    t.elapsed().as_secs_f64() * 1e9 / n as f64
                })
                .collect(),
        )
    };
    let cell = Shared::new(0u64);
    let plain = StdCell::new(0u64);
    let rmw = per_access(&|n| (0..n).for_each(|_| unsafe { cell.set(black_box(cell.get()) + 1) }));
    let write = per_access(&|n| (0..n).for_each(|_| cell.with_mut(|p| unsafe { *black_box(p) += 1 })));
    let std_rmw = per_access(&|n| (0..n).for_each(|_| plain.with_mut(|p| unsafe { *p = black_box(*p) + 1 })));
    let std_write = per_access(&|n| (0..n).for_each(|_| plain.with_mut(|p| unsafe { *black_box(p) += 1 })));
    println!(
        "read-modify-write in a segment: {rmw:.2} ns/access (write-only {write:.2} ns; std {std_rmw:.2} ns and {std_write:.2} ns): {:.2}x write-only, std {:.2}x: {:.2}x std's ratio",
        rmw / write,
        std_rmw / std_write,
        (rmw / write) / (std_rmw / std_write)
    );

    let one_test = || {
        let t = Instant::now();
        std::thread::spawn(|| {
            let cell = std::sync::Arc::new(Shared::new(0u64));
            let lock = std::sync::Arc::new(racer::sync::Mutex::new(()));
            let workers: Vec<_> = (0..4)
                .map(|_| {
                    let (cell, lock) = (cell.clone(), lock.clone());
                    racer::thread::spawn(move || {
                        for _ in 0..1000 {
                            let _g = lock.lock().unwrap();
                            unsafe { cell.set(cell.get() + 1) };
                        }
                    })
                })
                .collect();
            workers.into_iter().for_each(|w| w.join().unwrap());
            for _ in 0..100_000 {
                unsafe { cell.set(black_box(cell.get()) + 1) };
            }
        })
        .join()
        .unwrap();
        t.elapsed().as_secs_f64() * 1e3
    };
    let times: Vec<f64> = (0..400).map(|_| one_test()).collect();
    let (first, late) = (median(times[..10].to_vec()), median(times[350..360].to_vec()));
    println!("test suite, 400 tests: tests 0-9 {first:.2} ms, tests 350-359 {late:.2} ms: {:.2}x", late / first);

    let fresh = std::thread::spawn(move || {
        let cell = Shared::new(0u64);
        per_access(&|n| (0..n).for_each(|_| cell.with_mut(|p| unsafe { *black_box(p) += 1 })))
    })
    .join()
    .unwrap();
    let old = std::thread::spawn(move || {
        let flag = racer::sync::atomic::AtomicUsize::new(0);
        for i in 0..(1usize << 25) {
            flag.store(i, racer::sync::atomic::Ordering::Release);
        }
        let cell = Shared::new(0u64);
        per_access(&|n| (0..n).for_each(|_| cell.with_mut(|p| unsafe { *black_box(p) += 1 })))
    })
    .join()
    .unwrap();
    println!("after 2^25 syncs: {old:.2} ns/write, a fresh thread {fresh:.2} ns/write: {:.2}x", old / fresh);
}
