//! Published libraries that hand their work through the ecosystem's crates racer has adapters
//! for (issue 53), their own test suites run under racer as a user runs them: the crate's
//! registry source is copied to a temporary directory, its imports are swapped for racer's by a
//! scripted, mechanical edit (the one a user makes by hand), and `cargo test --features
//! race-detect` runs there on the crate's own source and tests. Every test passes and nothing is
//! reported: a report would be a false one.
//!
//! - rusty_pool 1.0.0 (crossbeam-channel and futures): a self-growing and shrinking thread pool.
//!   Its jobs (boxed closures, which carry what they capture) go to the workers through one
//!   `crossbeam_channel` (unbounded; workers take them with `recv`/`recv_timeout` and shrink when
//!   idle); `evaluate`'s and `complete`'s results come back through a `futures_channel::oneshot`
//!   per job, awaited with `futures_executor::block_on`; with its default feature `async`, a
//!   spawned future lives in a `Mutex` inside a `futures::task::ArcWake` task that its waker
//!   sends back into the channel. Workers count themselves in an `AtomicUsize`, and `join` waits
//!   on a `Condvar` and a `Mutex`. Its 40 tests (and one `#[ignore]`d, not run) start pools on 0
//!   to 50 threads, execute, evaluate, complete and spawn jobs and futures, join, shut down, and
//!   panic in jobs and in the workers' callbacks; its 5 doc tests spawn and await through it
//!   (one of them showed racer's `Condvar` losing a notification, since fixed: see
//!   `rusty_pool_suite`).
//! - jwalk 0.8.1 (rayon and crossbeam-channel, with `racer::rayon`): a parallel directory walk
//!   (see `jwalk_suite`).
//! - internment 0.8.6 (dashmap and once_cell): interning behind `DashMap`s found through
//!   `OnceCell`s (see `internment_suite`).
//!
//! Beyond the suites, which put no data in racer's cells: a few programs of ours
//! (`real-crates/ecosystem-suites/*_handoffs.rs`) hand `racer::Shared` cells through rusty_pool's
//! and jwalk's own hand-offs in the swapped copies, 0 reports in 10 runs each, and their twins
//! with a hand-off taken away are reported in 10 of 10 at both sites; the same correct programs
//! in copies that are not swapped are reported (falsely), which is what the swap fixes. And
//! rusty_pool's `join` on a pool already idle orders nothing (its fast path reads the worker
//! count Relaxed): a job's write and the joiner's read after `join` are a race in rusty_pool
//! itself, reported.
//!
//! The swap, per file (`*.rs` and `*.md`, so that doc tests use racer too), replaces a path
//! where one starts (not after an identifier or `::`): each adapted crate's `X::` with
//! `racer::X::` (`crossbeam_channel`, `crossbeam_queue`, `flume`, `async_channel`, `rayon`,
//! `dashmap`, `once_cell`, `futures`), and the parts of crates that racer names differently
//! (`crossbeam::channel::` with `racer::crossbeam_channel::`, `futures_channel::` with
//! `racer::futures::channel::`, `futures_executor::` with `racer::futures::executor::`);
//! `#[test]` with `#[racer::test]`; `std::thread` with `racer::thread`; `std::sync::atomic::`
//! and std's locks, `Condvar`, `Barrier`, `Once*`, `LazyLock` and `mpsc` with
//! `racer::sync::...` (not `Arc`/`Weak`: futures' `ArcWake` takes std's `Arc` as its receiver,
//! `arc_self: &Arc<Self>`). Grouped `use std::{sync::{...}}` lines name std's `Arc` next to the
//! drop-ins, so each crate's are split by edits listed with it, with the few other edits a crate
//! needs. The manifest gets racer (this checkout, with the facade features of the crates swapped
//! in) as a dependency and a feature `race-detect = ["racer/race-detect"]`. Each edit's count is
//! asserted.
//!
//! Children are spawned with their own target directory `<target>/real-crates/ecosystem-suites`
//! (never this build's lock), shared between the crates and between runs. They need the
//! registry and build for a few minutes the first time, so each test here is skipped, with a
//! printed line, unless `RACER_REGISTRY_SUITES=1` (the child runner and the switch:
//! `tests/child_support/cargo.rs`). rusty_pool's tests need the facade features
//! `crossbeam-channel` and `futures`, jwalk's `rayon` too, and internment's `dashmap` and
//! `once_cell`; `adapters` has them all:
//!
//!     RACER_REGISTRY_SUITES=1 cargo test --features race-detect,adapters --test ecosystem_suites -- --nocapture

#![cfg(all(unix, feature = "race-detect", feature = "crossbeam-channel", feature = "futures"))]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

#[path = "child_support/cargo.rs"]
mod child_cargo;
use child_cargo::{real_crates_target, skipped, Run};
#[path = "child_support/swap.rs"]
mod swap;
use swap::{apply, edit, passes_without_a_report, source_files, Rule, STD_DROP_INS};

/// A livelock must end the test instead of hanging CI; the suite takes about a minute and a half
/// once built (rusty_pool's tests sleep for seconds to see its pools grow and shrink).
const TIMEOUT: Duration = Duration::from_secs(20 * 60);

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `cmd` without the outer build's `RUSTFLAGS` and `RACER_OPTIONS`.
fn run(mut cmd: Command) -> Run {
    cmd.env_remove("RUSTFLAGS").env_remove("RACER_OPTIONS");
    child_cargo::run(cmd, TIMEOUT)
}

/// The registry sources of the pinned crates, fetched by `cargo metadata`: name -> directory.
fn registry_source(name: &str) -> PathBuf {
    static SOURCES: OnceLock<Vec<(String, PathBuf)>> = OnceLock::new();
    let manifest = repo().join("real-crates/ecosystem-suites/Cargo.toml");
    let sources = SOURCES.get_or_init(|| child_cargo::registry_sources(&manifest, TIMEOUT));
    sources.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{name} among the fetched crates")).1.clone()
}

const RULES: &[Rule] = &[
    Rule { from: "crossbeam_channel::", to: "racer::crossbeam_channel::", only_before: &[] },
    Rule { from: "crossbeam_queue::", to: "racer::crossbeam_queue::", only_before: &[] },
    Rule { from: "flume::", to: "racer::flume::", only_before: &[] },
    Rule { from: "async_channel::", to: "racer::async_channel::", only_before: &[] },
    Rule { from: "rayon::", to: "racer::rayon::", only_before: &[] },
    Rule { from: "dashmap::", to: "racer::dashmap::", only_before: &[] },
    Rule { from: "once_cell::", to: "racer::once_cell::", only_before: &[] },
    Rule { from: "futures::", to: "racer::futures::", only_before: &[] },
    Rule { from: "crossbeam::channel::", to: "racer::crossbeam_channel::", only_before: &[] },
    Rule { from: "futures_channel::", to: "racer::futures::channel::", only_before: &[] },
    Rule { from: "futures_executor::", to: "racer::futures::executor::", only_before: &[] },
    Rule { from: "#[test]", to: "#[racer::test]", only_before: &[] },
    Rule { from: "std::thread", to: "racer::thread", only_before: &[] },
    Rule { from: "std::sync::atomic::", to: "racer::sync::atomic::", only_before: &[] },
    Rule { from: "std::sync::", to: "racer::sync::", only_before: STD_DROP_INS },
];

/// The swap in the copy at `dir`: `specific` (file, from, to, count) first, then the rules over
/// every `*.rs` and `*.md` file, whose counts must be `expected` (rule's `from` -> count); then
/// racer in the manifest (`add_racer`).
fn swap(dir: &Path, specific: &[(&str, &str, &str, usize)], expected: &[(&str, usize)], features: &[&str]) {
    for &(file, from, to, count) in specific {
        edit(dir, file, from, to, count);
    }
    let mut files = Vec::new();
    source_files(dir, &mut files);
    let mut counts = BTreeMap::new();
    for file in files {
        let mut text = std::fs::read_to_string(&file).expect("a source file");
        for rule in RULES {
            let (swapped, n) = apply(&text, rule);
            text = swapped;
            *counts.entry(rule.from).or_insert(0) += n;
        }
        std::fs::write(&file, text).expect("writing the swap");
    }
    counts.retain(|_, n| *n > 0);
    let expected: BTreeMap<&str, usize> = expected.iter().copied().collect();
    assert_eq!(counts, expected, "the swap's replacements in {}", dir.display());
    add_racer(dir, features);
}

/// racer (this checkout, with the facade `features`) as a dependency in the manifest of the copy
/// at `dir`, and its feature `race-detect = ["racer/race-detect"]` (in a `[features]` table of
/// its own if it has none).
fn add_racer(dir: &Path, features: &[&str]) {
    let manifest = dir.join("Cargo.toml");
    let mut text = std::fs::read_to_string(&manifest).expect("its manifest");
    match text.matches("\n[features]\n").count() {
        0 => text.push_str("\n[features]\nrace-detect = [\"racer/race-detect\"]\n"),
        1 => text = text.replace("\n[features]\n", "\n[features]\nrace-detect = [\"racer/race-detect\"]\n"),
        _ => panic!("one [features] table at most\n{text}"),
    }
    let racer = repo().display().to_string();
    text.push_str(&format!(
        "\n[dependencies.racer]\npackage = \"racer-detector\"\npath = {racer:?}\nfeatures = {features:?}\n"
    ));
    std::fs::write(&manifest, text).unwrap();
}

/// `cargo test --features race-detect <args>` in `dir`.
fn cargo_test(dir: &Path, args: &[&str]) -> Run {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args(["test", "--features", "race-detect"])
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", real_crates_target().join("ecosystem-suites"));
    run(cmd)
}

/// One suite at a time: rusty_pool's tests sleep to watch its pools grow and shrink, and should not
/// share two cores with another build.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// rusty_pool's grouped `use std::sync::{...}` lines (its source's, its tests' and two doc
/// tests'), each split into racer's drop-ins and std's `Arc` (which `ArcWake` and `waker_ref`
/// take).
const RUSTY_POOL_EDITS: &[(&str, &str, &str, usize)] = &[
    (
        "src/lib.rs",
        "use std::sync::{\n    Arc, Condvar, Mutex,\n    atomic::{AtomicUsize, Ordering},\n};\n",
        "use racer::sync::{\n    Condvar, Mutex,\n    atomic::{AtomicUsize, Ordering},\n};\nuse std::sync::Arc;\n",
        1,
    ),
    (
        "src/lib.rs",
        "    use std::sync::{\n        Arc,\n        atomic::{AtomicUsize, Ordering},\n        mpsc,\n    };\n",
        "    use racer::sync::{\n        atomic::{AtomicUsize, Ordering},\n        mpsc,\n    };\n    use std::sync::Arc;\n",
        1,
    ),
    (
        "src/lib.rs",
        "/// use std::sync::{Arc, atomic::{AtomicI32, Ordering}};\n",
        "/// use racer::sync::atomic::{AtomicI32, Ordering};\n/// use std::sync::Arc;\n",
        2,
    ),
];

/// The generic rules' counts on rusty_pool: the channel's paths in its source (`unbounded`,
/// `Sender`, `Receiver` and the `SendError` of its signatures), the `use` lines of futures, its
/// oneshot and `block_on`, the 41 `#[test]`s, `std::thread` in its source, tests, doc tests and
/// README, and the README's prose naming `std::sync::mpsc`.
const RUSTY_POOL_SWAP: &[(&str, usize)] = &[
    ("crossbeam_channel::", 19),
    ("futures::", 1),
    ("futures_channel::", 1),
    ("futures_executor::", 1),
    ("#[test]", 41),
    ("std::thread", 11),
    ("std::sync::", 1),
];

/// A copy of rusty_pool, swapped (`RUSTY_POOL_EDITS`, `RUSTY_POOL_SWAP`) or not, with racer in its
/// manifest either way.
fn rusty_pool_copy(label: &str, swapped: bool) -> PathBuf {
    let dir = child_cargo::fresh_copy("racer-ecosystem-suites", &registry_source("rusty_pool"), label);
    if swapped {
        swap(&dir, RUSTY_POOL_EDITS, RUSTY_POOL_SWAP, &["crossbeam-channel", "futures"]);
    } else {
        add_racer(&dir, &["crossbeam-channel", "futures"]);
    }
    dir
}

/// Adds `real-crates/ecosystem-suites/<file>` to the copy at `dir` as its test target
/// `racer_handoffs` (listed in the manifest when it lists its targets, `autotests = false`, as
/// published manifests do).
fn add_handoffs(dir: &Path, file: &str) {
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::copy(repo().join("real-crates/ecosystem-suites").join(file), dir.join("tests/racer_handoffs.rs"))
        .expect("copying the hand-off tests");
    let manifest = dir.join("Cargo.toml");
    let mut text = std::fs::read_to_string(&manifest).unwrap();
    if text.contains("\nautotests = false\n") {
        text.push_str("\n[[test]]\nname = \"racer_handoffs\"\npath = \"tests/racer_handoffs.rs\"\n");
        std::fs::write(&manifest, text).unwrap();
    }
}

/// rusty_pool 1.0.0 (default feature `async`): its 40 unit tests (one more is `#[ignore]`d) and 5
/// doc tests, run many at a time (`--test-threads=16`): they mostly sleep, for seconds, to watch
/// their pools grow and shrink.
///
/// The `ThreadPool` doc test (`shutdown_join` after 25 jobs that sleep for 5 or 10 s) once ended
/// with racer's false hang report: main waiting on the join condvar, every worker gone. The
/// last worker's `notify_all` had come while a 50 ms step of racer's untimed `Condvar::wait`
/// was timing out, before it had the mutex back, and the step took itself for not notified and
/// slept again (fixed: a step that times out returns if the condvar's notification count moved;
/// the shape is `tests/sync/condvar.rs`). rusty_pool loses no wake-up there: every job is sent
/// before `shutdown_join` waits, and the worker whose job makes the idle count reach the total
/// with the channel empty notifies under the join mutex.
#[test]
fn rusty_pool_suite() {
    if skipped() {
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let dir = rusty_pool_copy("rusty_pool", true);
    let r = cargo_test(&dir, &["--", "--test-threads=16"]);
    passes_without_a_report("rusty_pool", &r, 45);
}

/// Data handed through the swapped rusty_pool (`real-crates/ecosystem-suites/rusty_pool_handoffs.rs`,
/// each program 10 times in its own `racer::check`): a job by `evaluate`, a future by `complete`
/// and a woken one by `spawn_await`, each ordered after the caller's write and before the
/// caller's read of its result, 0 reports; the twin that reads before awaiting the result
/// reported every time, at both sites, with the worker's and the caller's names. And `join` on a
/// pool that is already idle orders nothing: its fast path reads the worker count Relaxed and
/// returns, so a job's write and the joiner's read after it are a race, in rusty_pool itself,
/// reported every time. The copies here are the same package as the suite's, so each gets its
/// own artifacts in the shared target directory by a profile setting of rusty_pool alone.
#[test]
fn rusty_pool_orders_what_it_hands_over_through_the_adapters() {
    if skipped() {
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let dir = rusty_pool_copy("rusty_pool-handoffs", true);
    add_handoffs(&dir, "rusty_pool_handoffs.rs");
    let r =
        cargo_test(&dir, &["--config", "profile.dev.package.rusty_pool.codegen-units=7", "--test", "racer_handoffs"]);
    assert!(r.success, "the hand-off tests pass\n{}", r.all());
    assert_eq!(r.passed(), 5, "{}", r.all());
}

/// The same correct program in a copy of rusty_pool whose imports are not swapped (racer in its
/// manifest only): its workers are std's threads and its channels crossbeam's and futures' own,
/// so nothing racer sees orders the job after the caller's write, and racer reports it (falsely:
/// the program is correct), naming the thread racer did not start. This is what the swap fixes.
#[test]
fn rusty_pool_unswapped_gets_false_reports() {
    if skipped() {
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let dir = rusty_pool_copy("rusty_pool-unswapped", false);
    add_handoffs(&dir, "rusty_pool_handoffs.rs");
    let r = cargo_test(
        &dir,
        &[
            "--config",
            "profile.dev.package.rusty_pool.codegen-units=5",
            "--test",
            "racer_handoffs",
            "--",
            "--exact",
            "evaluate_orders_the_job_after_the_caller_and_before_its_result",
        ],
    );
    assert!(!r.success, "the unswapped pool's hand-offs are unseen\n{}", r.all());
    let text = format!("{}{}", r.stdout, r.stderr);
    assert!(
        text.contains("WARNING: racer: data race (flow: write, then a parallel read) on Shared<u64>"),
        "the job's read reported\n{}",
        r.all()
    );
    assert!(text.contains("Read by thread 'handoffs_thread_"), "on the pool's worker\n{}", r.all());
    assert!(text.contains("was not started by racer"), "the hint names the unseen start\n{}", r.all());
    assert_eq!(r.passed(), 0, "{}", r.all());
}

/// jwalk's own edits: its re-export of rayon (`jwalk::rayon`, which its users build pools with)
/// made racer's; its import of crossbeam's channel module by `self` named as it was (`channel`),
/// since the module's path is now `racer::crossbeam_channel`; and its tests' counter initialised
/// with `AtomicUsize::new(0)` instead of std's deprecated `ATOMIC_USIZE_INIT`, which
/// `racer::sync::atomic` does not have.
#[cfg(feature = "rayon")]
const JWALK_EDITS: &[(&str, &str, &str, usize)] = &[
    ("src/lib.rs", "\npub use rayon;\n", "\npub use racer::rayon;\n", 1),
    ("src/core/ordered_queue.rs", "use crossbeam::channel::{self, ", "use crossbeam::channel::{self as channel, ", 1),
    ("tests/util/mod.rs", ", ATOMIC_USIZE_INIT}", "}", 1),
    ("tests/util/mod.rs", " = ATOMIC_USIZE_INIT;", " = AtomicUsize::new(0);", 1),
];

/// jwalk 0.8.1: a parallel directory walk. Each directory is read by a job on rayon (its closure
/// `rayon::spawn`ed, or spawned on a pool built for the walk or given by the user, which then
/// `par_bridge()`s the queue of directories to read and `for_each_with`s over it), and the
/// results come back to the iterating thread in order through crossbeam channels
/// (`crossbeam::channel::unbounded`) and atomics; a channel also tells whether the pool started
/// the walk in time (`recv_timeout`). Its 50 integration tests walk a directory tree in its
/// `tests/assets` serially, on the global pool, on pools of 1 and 2 threads and inside
/// `rayon::scope` and `par_iter`, sort, skip, filter, follow links and remove a directory
/// mid-walk; its deadlock test walks from inside a pool of one busy thread; 3 doc tests.
#[cfg(feature = "rayon")]
#[test]
fn jwalk_suite() {
    if skipped() {
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let dir = jwalk_copy("jwalk", true);
    let r = cargo_test(&dir, &[]);
    passes_without_a_report("jwalk", &r, 54);
}

/// A copy of jwalk, swapped (`JWALK_EDITS` and the rules) or not, with racer in its manifest
/// either way.
#[cfg(feature = "rayon")]
fn jwalk_copy(label: &str, swapped: bool) -> PathBuf {
    let dir = child_cargo::fresh_copy("racer-ecosystem-suites", &registry_source("jwalk"), label);
    let features = ["crossbeam-channel", "rayon"];
    if swapped {
        let counts = [
            ("crossbeam::channel::", 2),
            ("rayon::", 11),
            ("#[test]", 51),
            ("std::thread", 1),
            ("std::sync::atomic::", 4),
            ("std::sync::", 2),
        ];
        swap(&dir, JWALK_EDITS, &counts, &features);
    } else {
        add_racer(&dir, &features);
    }
    dir
}

/// Data handed through the swapped jwalk (`real-crates/ecosystem-suites/jwalk_handoffs.rs`, each
/// walk 10 times in its own `racer::check`): entry states written by `process_read_dir` on
/// rayon's workers and read by the iterating thread, 0 reports; the twin whose iterating thread
/// writes a cell the callback reads after the walk started, reported every time at both sites.
#[cfg(feature = "rayon")]
#[test]
fn jwalk_orders_what_it_hands_over_through_the_adapters() {
    if skipped() {
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let dir = jwalk_copy("jwalk-handoffs", true);
    add_handoffs(&dir, "jwalk_handoffs.rs");
    let r = cargo_test(
        &dir,
        &[
            "--config",
            "profile.dev.package.jwalk.codegen-units=7",
            "--test",
            "racer_handoffs",
            "--",
            "--skip",
            "a_directory_state_is_ordered_before_its_subdirectories",
        ],
    );
    assert!(r.success, "the hand-off tests pass\n{}", r.all());
    assert_eq!(r.passed(), 2, "{}", r.all());
}

/// A directory's state, written by its `process_read_dir` on the worker that read it, read by
/// its subdirectories' callbacks on other workers (10 walks, 0 reports): the state goes to them
/// in their specs through jwalk's queue of directories, a crossbeam channel that jwalk's job
/// `par_bridge()`s, so the receive that orders the read is made by the bridged iterator's
/// `next()`, between two items of a piece of rayon's work.
#[cfg(feature = "rayon")]
#[test]
fn jwalk_orders_a_directory_state_before_its_subdirectories() {
    if skipped() {
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let dir = jwalk_copy("jwalk-handoffs", true);
    add_handoffs(&dir, "jwalk_handoffs.rs");
    let r = cargo_test(
        &dir,
        &[
            "--config",
            "profile.dev.package.jwalk.codegen-units=7",
            "--test",
            "racer_handoffs",
            "--",
            "--exact",
            "a_directory_state_is_ordered_before_its_subdirectories",
        ],
    );
    assert!(r.success, "the hand-off test passes\n{}", r.all());
    assert_eq!(r.passed(), 1, "{}", r.all());
}

/// The walk whose entries' states are written on the workers, in a copy of jwalk whose imports
/// are not swapped: its job runs on rayon's own workers and its results come back through
/// crossbeam's own channels, so racer sees nothing order the workers' writes before the
/// iterating thread's reads, and reports them (falsely: the program is correct).
#[cfg(feature = "rayon")]
#[test]
fn jwalk_unswapped_gets_false_reports() {
    if skipped() {
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let dir = jwalk_copy("jwalk-unswapped", false);
    add_handoffs(&dir, "jwalk_handoffs.rs");
    let r = cargo_test(
        &dir,
        &[
            "--config",
            "profile.dev.package.jwalk.codegen-units=5",
            "--test",
            "racer_handoffs",
            "--",
            "--exact",
            "entry_states_written_on_the_workers_are_ordered_before_the_iterator",
        ],
    );
    assert!(!r.success, "the unswapped walk's hand-offs are unseen\n{}", r.all());
    let text = format!("{}{}", r.stdout, r.stderr);
    assert!(
        text.contains("WARNING: racer: data race (flow: write, then a parallel read) on Shared<u64>"),
        "an entry's read reported\n{}",
        r.all()
    );
    assert_eq!(r.passed(), 0, "{}", r.all());
}

/// internment's own edit: the grouped `use std::{..., sync::{atomic::{...}, Arc}}` of its
/// module `arc_dst` split into racer's atomics and std's `Arc` (its `ArcIntern<[T]>` and
/// `ArcIntern<str>` share the counted box of its module `arc`, whose count is racer's
/// `AtomicUsize` once swapped).
#[cfg(all(feature = "dashmap", feature = "once_cell"))]
const INTERNMENT_EDITS: &[(&str, &str, &str, usize)] = &[(
    "src/arc_dst.rs",
    "    sync::{\n        atomic::{AtomicUsize, Ordering},\n        Arc,\n    },\n};\n",
    "    sync::Arc,\n};\nuse racer::sync::atomic::{AtomicUsize, Ordering};\n",
    1,
)];

/// internment 0.8.6 with its feature `arc`: `ArcIntern`, values interned once per type in a
/// `DashMap` (its `entry` API: the first to intern a value inserts it, the others take a counted
/// reference to it) whose per-type maps are found through `once_cell::sync::OnceCell`s (a static
/// per type, and one map from `TypeId`), each value's count an `AtomicUsize` (Release decrements,
/// a SeqCst fence before the last holder removes the value), as std's `Arc`; `Intern` and the
/// arenas behind std `Mutex`es. Its unit tests intern from 4 to 1000 threads at once, drop and
/// re-intern while others do; 6 doc tests.
#[cfg(all(feature = "dashmap", feature = "once_cell"))]
#[test]
fn internment_suite() {
    if skipped() {
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let dir = child_cargo::fresh_copy("racer-ecosystem-suites", &registry_source("internment"), "internment");
    let counts = [
        ("dashmap::", 2),
        ("once_cell::", 1),
        ("#[test]", 65),
        ("std::thread", 14),
        ("std::sync::atomic::", 13),
        ("std::sync::", 3),
    ];
    swap(&dir, INTERNMENT_EDITS, &counts, &["dashmap", "once_cell"]);
    let r = cargo_test(&dir, &["--features", "arc"]);
    passes_without_a_report("internment", &r, 44);
}
