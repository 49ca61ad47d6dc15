//! Long runs, kept short in CI by a size knob: `RACER_SOAK_SCALE` (default 1) multiplies the
//! work. By hand: `RACER_SOAK_SCALE=10 cargo test --release --features race-detect --test soak`.
//! Counted, not timed: what a long run must keep is flat memory and correct results. Each test
//! prints its time, resident memory and the process's peak at its start and end (`--nocapture`).
//! The tests run one at a time (`serial`): they measure the process's resident memory.
#![cfg(all(feature = "race-detect", target_os = "linux"))]

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use racer::sync::Mutex;
use racer::{thread, Shared};

fn scale() -> usize {
    std::env::var("RACER_SOAK_SCALE").ok().and_then(|v| v.parse().ok()).unwrap_or(1).max(1)
}

/// Resident memory of this process, in bytes.
fn rss() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: usize = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).expect("resident pages");
    pages * 4096
}

/// Peak resident memory of this process so far (`VmHWM`), in bytes.
fn peak_rss() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kib: usize = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM");
    kib * 1024
}

/// One test at a time: each measures the resident memory of the whole process.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Prints a test's time and memory at its start and end (the figures of a long run by hand).
struct Note {
    name: &'static str,
    start: Instant,
}

impl Note {
    fn start(name: &'static str) -> Note {
        eprintln!(
            "soak: {name}: start: rss {} KiB, peak rss {} KiB (scale {})",
            rss() / 1024,
            peak_rss() / 1024,
            scale()
        );
        Note { name, start: Instant::now() }
    }
}

impl Drop for Note {
    fn drop(&mut self) {
        eprintln!(
            "soak: {}: end after {:.2} s: rss {} KiB, peak rss {} KiB",
            self.name,
            self.start.elapsed().as_secs_f64(),
            rss() / 1024,
            peak_rss() / 1024
        );
    }
}

/// Phases that each create cells, check an access on every one and drop them all: the shadow
/// state of dropped cells is reused by the next phase, so resident memory stays flat after the
/// first.
#[test]
fn phases_of_cells_created_and_dropped_keep_memory_flat() {
    let _serial = serial();
    let _note = Note::start("phases of cells");
    let cells = 200_000 * scale();
    // One buffer for every phase: the test's own large allocation is not what is measured.
    let mut v: Vec<Shared<u64>> = Vec::with_capacity(cells);
    let mut phase = || {
        v.extend((0..cells as u64).map(Shared::new));
        for c in &v {
            unsafe { c.set(c.get() + 1) };
        }
        v.clear();
    };
    phase();
    let after_first = rss();
    for _ in 0..9 {
        phase();
    }
    let after_last = rss();
    let grown = after_last.saturating_sub(after_first);
    eprintln!(
        "soak: {cells} cells x 10 phases: rss after the first {} KiB, after the last {} KiB",
        after_first / 1024,
        after_last / 1024
    );
    assert!(
        grown < after_first / 10 + (1 << 20),
        "memory grew by {grown} bytes after the first phase (from {after_first})"
    );
}

/// 16 threads updating 64 cells under 4 mutexes (cell i under mutex i % 4): every update
/// counted, no report.
#[test]
fn many_threads_many_cells_few_locks() {
    let _serial = serial();
    let _note = Note::start("16 threads, 64 cells, 4 locks");
    let ops = 20_000 * scale();
    let report = racer::check(|| {
        let cells: Arc<Vec<Shared<u64>>> = Arc::new((0..64).map(|_| Shared::new(0)).collect());
        let locks: Arc<Vec<Mutex<()>>> = Arc::new((0..4).map(|_| Mutex::new(())).collect());
        let workers: Vec<_> = (0..16)
            .map(|t| {
                let (cells, locks) = (cells.clone(), locks.clone());
                racer::thread::spawn(move || {
                    for i in 0..ops {
                        let c = (i * 7 + t) % 64;
                        let _g = locks[c % 4].lock().unwrap();
                        unsafe { cells[c].set(cells[c].get() + 1) };
                    }
                })
            })
            .collect();
        workers.into_iter().for_each(|w| w.join().unwrap());
        let total: u64 = cells.iter().map(|c| unsafe { c.get() }).sum();
        assert_eq!(total, 16 * ops as u64);
    });
    assert!(report.is_empty(), "{report}");
}

/// Detached threads (never joined) over a long run, at most `WAVE + 1` alive at once: 20 000
/// per unit of scale (200 000 at scale 10), far past racer's slot pressure mark (4 096). In
/// every wave the threads update a counter under a mutex (no report), and one more thread
/// races with the main thread: that race is found in every wave, the last included, so the
/// late threads are checked too, and the slots ever made stay bounded.
#[test]
fn detached_threads_over_time_are_all_checked() {
    const WAVE: usize = 50;
    let _serial = serial();
    let _note = Note::start("detached threads");
    let waves = 20_000 * scale() / WAVE;
    let mut most_slots = 0;
    let mut after_first_tenth = 0;
    for wave in 0..waves {
        if wave == waves / 10 {
            // After the first reports: the symbol tables their stacks were resolved with are
            // loaded by now.
            after_first_tenth = rss();
        }
        let report = racer::check(|| {
            let counter = racer::sync::Arc::new((Mutex::new(()), Shared::new(0usize)));
            let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
            for _ in 0..WAVE {
                let (counter, done) = (counter.clone(), done_tx.clone());
                drop(thread::spawn(move || {
                    {
                        let _g = counter.0.lock().unwrap();
                        unsafe { counter.1.set(counter.1.get() + 1) };
                    }
                    done.send(()).unwrap(); // std's channel: no edge racer sees
                }));
            }
            // The planted race: a thread writes, then the main thread writes with no edge
            // between them that racer sees.
            let cell = racer::sync::Arc::new(Shared::new(0u64));
            let theirs = cell.clone();
            let done = done_tx.clone();
            drop(
                thread::Builder::new()
                    .name("late".into())
                    .spawn(move || {
                        unsafe { theirs.set(1) };
                        done.send(()).unwrap();
                    })
                    .unwrap(),
            );
            for _ in 0..=WAVE {
                done_rx.recv().unwrap();
            }
            unsafe { cell.set(2) };
            // Every update under the lock, read under the lock: ordered, no report.
            let _g = counter.0.lock().unwrap();
            assert_eq!(unsafe { counter.1.get() }, WAVE);
        });
        assert_eq!(report.len(), 1, "wave {wave} of {waves}: the late thread's race, and only it\n{report}");
        let race = &report.races()[0];
        assert_eq!(race.previous().thread_name(), Some("late"), "wave {wave}\n{report}");
        assert_eq!(race.kind(), racer::RaceKind::Output);
        most_slots = most_slots.max(racer::stats().slots);
    }
    let stats = racer::stats();
    let grown = rss().saturating_sub(after_first_tenth);
    eprintln!(
        "soak: {} detached threads in {waves} waves: at most {most_slots} slots, {} live threads; rss after a tenth {} KiB, grown by {} KiB since",
        waves * (WAVE + 1),
        stats.live_threads,
        after_first_tenth / 1024,
        grown / 1024
    );
    // Nothing kept per dead thread: 1 KiB each would be 18 MiB at scale 1.
    assert!(grown < 16 << 20, "resident memory grew by {grown} bytes over the last nine tenths of the threads");
    // The pressure mark, the threads of one wave and the harness's: nowhere near one slot per
    // thread ever spawned.
    assert!(
        most_slots <= 4096 + 4 * WAVE,
        "slots stay bounded over {} threads: {most_slots} ({stats:?})",
        waves * (WAVE + 1)
    );
}

/// 144 write sites, each at its own line and column: a race's identity for de-duplication is
/// the unordered pair of its two sites, so 144 sites make 144 * 145 / 2 = 10 440 distinct races.
type Site = fn(&Shared<u64>);
#[rustfmt::skip]
static SITES: [Site; 144] = [
    |c| unsafe { c.set(0) }, |c| unsafe { c.set(1) }, |c| unsafe { c.set(2) }, |c| unsafe { c.set(3) }, |c| unsafe { c.set(4) }, |c| unsafe { c.set(5) },
    |c| unsafe { c.set(6) }, |c| unsafe { c.set(7) }, |c| unsafe { c.set(8) }, |c| unsafe { c.set(9) }, |c| unsafe { c.set(10) }, |c| unsafe { c.set(11) },
    |c| unsafe { c.set(12) }, |c| unsafe { c.set(13) }, |c| unsafe { c.set(14) }, |c| unsafe { c.set(15) }, |c| unsafe { c.set(16) }, |c| unsafe { c.set(17) },
    |c| unsafe { c.set(18) }, |c| unsafe { c.set(19) }, |c| unsafe { c.set(20) }, |c| unsafe { c.set(21) }, |c| unsafe { c.set(22) }, |c| unsafe { c.set(23) },
    |c| unsafe { c.set(24) }, |c| unsafe { c.set(25) }, |c| unsafe { c.set(26) }, |c| unsafe { c.set(27) }, |c| unsafe { c.set(28) }, |c| unsafe { c.set(29) },
    |c| unsafe { c.set(30) }, |c| unsafe { c.set(31) }, |c| unsafe { c.set(32) }, |c| unsafe { c.set(33) }, |c| unsafe { c.set(34) }, |c| unsafe { c.set(35) },
    |c| unsafe { c.set(36) }, |c| unsafe { c.set(37) }, |c| unsafe { c.set(38) }, |c| unsafe { c.set(39) }, |c| unsafe { c.set(40) }, |c| unsafe { c.set(41) },
    |c| unsafe { c.set(42) }, |c| unsafe { c.set(43) }, |c| unsafe { c.set(44) }, |c| unsafe { c.set(45) }, |c| unsafe { c.set(46) }, |c| unsafe { c.set(47) },
    |c| unsafe { c.set(48) }, |c| unsafe { c.set(49) }, |c| unsafe { c.set(50) }, |c| unsafe { c.set(51) }, |c| unsafe { c.set(52) }, |c| unsafe { c.set(53) },
    |c| unsafe { c.set(54) }, |c| unsafe { c.set(55) }, |c| unsafe { c.set(56) }, |c| unsafe { c.set(57) }, |c| unsafe { c.set(58) }, |c| unsafe { c.set(59) },
    |c| unsafe { c.set(60) }, |c| unsafe { c.set(61) }, |c| unsafe { c.set(62) }, |c| unsafe { c.set(63) }, |c| unsafe { c.set(64) }, |c| unsafe { c.set(65) },
    |c| unsafe { c.set(66) }, |c| unsafe { c.set(67) }, |c| unsafe { c.set(68) }, |c| unsafe { c.set(69) }, |c| unsafe { c.set(70) }, |c| unsafe { c.set(71) },
    |c| unsafe { c.set(72) }, |c| unsafe { c.set(73) }, |c| unsafe { c.set(74) }, |c| unsafe { c.set(75) }, |c| unsafe { c.set(76) }, |c| unsafe { c.set(77) },
    |c| unsafe { c.set(78) }, |c| unsafe { c.set(79) }, |c| unsafe { c.set(80) }, |c| unsafe { c.set(81) }, |c| unsafe { c.set(82) }, |c| unsafe { c.set(83) },
    |c| unsafe { c.set(84) }, |c| unsafe { c.set(85) }, |c| unsafe { c.set(86) }, |c| unsafe { c.set(87) }, |c| unsafe { c.set(88) }, |c| unsafe { c.set(89) },
    |c| unsafe { c.set(90) }, |c| unsafe { c.set(91) }, |c| unsafe { c.set(92) }, |c| unsafe { c.set(93) }, |c| unsafe { c.set(94) }, |c| unsafe { c.set(95) },
    |c| unsafe { c.set(96) }, |c| unsafe { c.set(97) }, |c| unsafe { c.set(98) }, |c| unsafe { c.set(99) }, |c| unsafe { c.set(100) }, |c| unsafe { c.set(101) },
    |c| unsafe { c.set(102) }, |c| unsafe { c.set(103) }, |c| unsafe { c.set(104) }, |c| unsafe { c.set(105) }, |c| unsafe { c.set(106) }, |c| unsafe { c.set(107) },
    |c| unsafe { c.set(108) }, |c| unsafe { c.set(109) }, |c| unsafe { c.set(110) }, |c| unsafe { c.set(111) }, |c| unsafe { c.set(112) }, |c| unsafe { c.set(113) },
    |c| unsafe { c.set(114) }, |c| unsafe { c.set(115) }, |c| unsafe { c.set(116) }, |c| unsafe { c.set(117) }, |c| unsafe { c.set(118) }, |c| unsafe { c.set(119) },
    |c| unsafe { c.set(120) }, |c| unsafe { c.set(121) }, |c| unsafe { c.set(122) }, |c| unsafe { c.set(123) }, |c| unsafe { c.set(124) }, |c| unsafe { c.set(125) },
    |c| unsafe { c.set(126) }, |c| unsafe { c.set(127) }, |c| unsafe { c.set(128) }, |c| unsafe { c.set(129) }, |c| unsafe { c.set(130) }, |c| unsafe { c.set(131) },
    |c| unsafe { c.set(132) }, |c| unsafe { c.set(133) }, |c| unsafe { c.set(134) }, |c| unsafe { c.set(135) }, |c| unsafe { c.set(136) }, |c| unsafe { c.set(137) },
    |c| unsafe { c.set(138) }, |c| unsafe { c.set(139) }, |c| unsafe { c.set(140) }, |c| unsafe { c.set(141) }, |c| unsafe { c.set(142) }, |c| unsafe { c.set(143) },
];

/// The first `n` unordered pairs of sites `(i, j)`, `i <= j`.
fn site_pairs(n: usize) -> Vec<(usize, usize)> {
    let pairs: Vec<_> = (0..SITES.len()).flat_map(|i| (i..SITES.len()).map(move |j| (i, j))).take(n).collect();
    assert_eq!(
        pairs.len(),
        n,
        "at most {} distinct races from {} sites",
        SITES.len() * (SITES.len() + 1) / 2,
        SITES.len()
    );
    pairs
}

/// 1 000 distinct races per unit of scale (10 000 at scale 10), each on its own cell between
/// its own two sites, in one `racer::check`: every one is in the report (its length exact,
/// each site pair once, the text and the JSON whole), and resident memory grows by a bounded
/// amount per race.
#[test]
fn ten_thousand_distinct_races_are_all_reported() {
    let _serial = serial();
    let _note = Note::start("distinct races");
    let n = 1_000 * scale();
    let pairs = Arc::new(site_pairs(n));
    let cells: Arc<Vec<Shared<u64>>> = Arc::new((0..n).map(|_| Shared::new(0)).collect());
    let before = rss();
    let report = racer::check(|| {
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let (p, c) = (pairs.clone(), cells.clone());
        let first = thread::Builder::new()
            .name("first".into())
            .spawn(move || {
                for (k, &(i, _)) in p.iter().enumerate() {
                    SITES[i](&c[k]);
                }
                done_tx.send(()).unwrap(); // std's channel: no edge racer sees
            })
            .unwrap();
        done_rx.recv().unwrap();
        let (p, c) = (pairs.clone(), cells.clone());
        let second = thread::Builder::new()
            .name("second".into())
            .spawn(move || {
                for (k, &(_, j)) in p.iter().enumerate() {
                    SITES[j](&c[k]);
                }
            })
            .unwrap();
        first.join().unwrap();
        second.join().unwrap();
    });
    let grown = rss().saturating_sub(before);
    assert_eq!(report.len(), n, "every distinct race is reported once");
    let site = |l: &std::panic::Location<'_>| (l.line(), l.column());
    let mut seen = HashSet::new();
    for race in report.races() {
        assert_eq!(race.kind(), racer::RaceKind::Output);
        assert_eq!((race.previous().thread_name(), race.current().thread_name()), (Some("first"), Some("second")));
        let (a, b) = (site(race.previous().location()), site(race.current().location()));
        assert!(seen.insert((a.min(b), a.max(b))), "site pair {a:?} {b:?} reported twice");
    }
    assert_eq!(seen.len(), n, "{n} distinct site pairs");
    let text = report.to_string();
    assert_eq!(text.matches("WARNING: racer: data race").count(), n, "the text report is whole");
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).expect("the JSON report parses");
    assert_eq!(json["races"].as_array().map(Vec::len), Some(n), "the JSON report is whole");
    let per_race = grown / n;
    eprintln!(
        "soak: {n} distinct races: rss grew {} KiB ({per_race} B per race), text {} KiB",
        grown / 1024,
        text.len() / 1024
    );
    // A race is two resolved stacks of a few frames: a generous bound, far from a leak of
    // whole buffers or symbol tables per race.
    assert!(per_race < 64 * 1024, "{per_race} bytes of resident memory per race ({grown} for {n})");
}
