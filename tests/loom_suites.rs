//! Existing loom tests, unchanged, under racer: `cargo racer test --loom` (the `cargo-racer`
//! binary of this workspace) run as a user runs it in their crate.
//!
//! - The loom suites of eight published crates, fetched from the crates.io registry at pinned
//!   versions by `cargo metadata` on `real-crates/loom-suites` (nothing vendored): each crate's
//!   registry source is copied to a temporary directory and `cargo racer test --loom ...` runs
//!   there, on the crate's own tests and source. Every test passes and no race is reported (a
//!   report would be a false one). A copy of oneshot with a release made Acquire-only is
//!   reported, with both racing sites in oneshot's own source.
//! - The runner itself: on `real-crates/loom-fixture` (a crate with a loom seam) a planted
//!   Relaxed handoff is reported, a Release/Acquire one is not, and a loom item racer's stand-in
//!   lacks is named; on `real-crates/racer-fixture` (a crate that uses racer directly) plain
//!   `cargo racer test` reports a race and passes the ordered test; a crate without a seam and
//!   an unknown flag get clear errors.
//!
//! The runner always turns racer on, whatever this build's feature state, so running the same
//! children in both builds of `cargo test --workspace [--features race-detect]` would repeat
//! the same work: the feature-off build checks the runner (fixture, errors), the race-detect
//! build runs the published suites.
//!
//! Children are spawned with their own target directory `<target>/real-crates` (the runner's
//! build; never this build's lock) and `<target>/real-crates/loom-suites` (the crates' builds,
//! shared between them and between runs). The first run fetches and builds the crates and their
//! dev-dependencies (tokio, async-std, criterion: about three minutes on two cores); tokio's own
//! suite then builds tokio with its test dependencies (about a minute and a half) and runs its
//! 117 lib tests in about 35 s.
//!
//! They need the registry and take minutes, so each test here is skipped, with a printed line,
//! unless `RACER_REGISTRY_SUITES=1` (`.ci/run` sets it; the child runner and the switch:
//! `tests/child_support/cargo.rs`):
//!
//!     RACER_REGISTRY_SUITES=1 cargo test --features race-detect --test loom_suites -- --nocapture

#![cfg(unix)]
// The published suites' helpers are used in the race-detect build only.
#![cfg_attr(not(feature = "race-detect"), allow(dead_code))]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

#[path = "child_support/cargo.rs"]
mod child_cargo;
use child_cargo::{real_crates_target, skipped, Run};

/// A livelock must end the test instead of hanging CI; the suites take seconds once built.
const TIMEOUT: Duration = Duration::from_secs(30 * 60);

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `cmd` without the outer build's `RUSTFLAGS` and `RACER_OPTIONS`.
fn run(mut cmd: Command) -> Run {
    cmd.env_remove("RUSTFLAGS").env_remove("RACER_OPTIONS");
    child_cargo::run(cmd, TIMEOUT)
}

/// The runner, built once per test process into `<target>/real-crates`.
fn cargo_racer() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let mut cmd = Command::new(env!("CARGO"));
        cmd.args(["build", "-p", "cargo-racer", "--manifest-path"])
            .arg(repo().join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", real_crates_target());
        let r = run(cmd);
        assert!(r.success, "building cargo-racer\n{}", r.all());
        real_crates_target().join("debug/cargo-racer")
    })
}

/// `cargo racer test <args>` in `dir`, as cargo runs a subcommand (`cargo-racer racer ...`).
///
/// One at a time: every copy builds into one target directory, and two copies of one crate
/// (oneshot and its broken copy) give their test binaries the same name there (cargo hashes a
/// root package's path relative to its workspace, the same for both), so one run could execute
/// the other's binary.
fn cargo_racer_test(dir: &Path, args: &[&str]) -> Run {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut cmd = Command::new(cargo_racer());
    cmd.args(["racer", "test"])
        .args(args)
        .current_dir(dir)
        .env("CARGO", env!("CARGO"))
        .env("CARGO_TARGET_DIR", real_crates_target().join("loom-suites"))
        .env("RACER_LOOM_PATH", repo().join("loom-compat"));
    run(cmd)
}

/// The registry sources of the pinned crates, fetched by `cargo metadata`: name -> directory.
fn registry_source(name: &str) -> PathBuf {
    static SOURCES: OnceLock<Vec<(String, PathBuf)>> = OnceLock::new();
    let manifest = repo().join("real-crates/loom-suites/Cargo.toml");
    let sources = SOURCES.get_or_init(|| child_cargo::registry_sources(&manifest, TIMEOUT));
    sources.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{name} among the fetched crates")).1.clone()
}

/// A fresh copy of `from` (see `child_cargo::fresh_copy`).
fn fresh_copy(from: &Path, label: &str) -> PathBuf {
    child_cargo::fresh_copy("racer-loom-suites", from, label)
}

/// Runs a crate's loom suite through the runner and asserts it passes with no race reported.
fn suite_passes(name: &str, args: &[&str], expected_tests: usize) {
    let dir = fresh_copy(&registry_source(name), name);
    let r = cargo_racer_test(&dir, args);
    let races = r.race_lines();
    assert!(races.is_empty(), "racer reported data races on {name}: {races:#?}\n{}", r.all());
    assert!(r.success, "{name}'s loom suite failed under racer\n{}", r.all());
    assert!(r.stderr.contains("cargo racer: no data races found"), "the runner's summary\n{}", r.all());
    assert_eq!(r.passed(), expected_tests, "every test of {name}'s loom suite ran and passed\n{}", r.all());
}

/// oneshot's tests that assert wall-clock bounds: `recv_timeout(1ms)` must see a message sent
/// by a thread spawned after it started, or a 1 ms timeout must take under 3 ms. Under loom
/// (whose `park_timeout` in oneshot is a yield, and whose scheduler runs another thread at each
/// yield) little real time passes; on real threads they are timing tests, which pass on an idle
/// machine and may not on a loaded CI runner. Skipped here, run by hand (README).
const ONESHOT_TIMING_TESTS: [&str; 6] = [
    "send_recv_different_threads",
    "recv_deadline_time_should_elapse",
    "recv_timeout_time_should_elapse",
    "send_before_recv_timeout",
    "recv_deadline_and_timeout_no_time",
    "recv_timeout_before_send",
];

const ONESHOT_ARGS: [&str; 9] =
    ["--loom", "--cfg", "oneshot_loom", "--features", "loom,std,async", "--test", "loom", "--test", "sync"];

fn oneshot_args_with_skips() -> Vec<&'static str> {
    let mut args = ONESHOT_ARGS.to_vec();
    args.extend(["--", "--exact"]);
    for t in ONESHOT_TIMING_TESTS {
        args.extend(["--skip", t]);
    }
    args
}

#[cfg(feature = "race-detect")]
mod published {
    use super::*;

    /// concurrent-queue 2.5.0 (`RUSTFLAGS="--cfg loom" cargo test --test loom --features loom`
    /// upstream): spsc and spsc_force, each over bounded(1), bounded(2) and unbounded queues.
    #[test]
    fn concurrent_queue_loom_suite() {
        if skipped() {
            return;
        }
        suite_passes("concurrent-queue", &["--loom", "--features", "loom", "--test", "loom"], 2);
    }

    /// oneshot 0.2.1 (cfg `oneshot_loom`): its loom.rs and sync.rs, std and async features,
    /// 30 tests less the six timing tests.
    #[test]
    fn oneshot_loom_suite() {
        if skipped() {
            return;
        }
        suite_passes("oneshot", &oneshot_args_with_skips(), 30 - ONESHOT_TIMING_TESTS.len());
    }

    /// parking 2.2.1: smoke and yield_then_unpark.
    #[test]
    fn parking_loom_suite() {
        if skipped() {
            return;
        }
        suite_passes("parking", &["--loom", "--features", "loom", "--test", "loom"], 2);
    }

    /// event-listener 5.4.2: its nine notify and drop tests of an `Event` and its listeners,
    /// through the stand-in's cells, `Arc`, `Mutex`, atomics and `thread_local!` (and
    /// concurrent-queue and parking, themselves on their loom seams).
    #[test]
    fn event_listener_loom_suite() {
        if skipped() {
            return;
        }
        suite_passes("event-listener", &["--loom", "--features", "loom", "--test", "loom"], 9);
    }

    /// bytes 1.12.2, whose seam is a `cfg(loom)` dev-dependency and whose loom models are unit
    /// tests: `--lib` runs its two (`Bytes` and `BytesMut` clones shared by two threads through
    /// the stand-in's `Arc` and atomics) and the four other unit tests under `--cfg loom`.
    #[test]
    fn bytes_loom_suite() {
        if skipped() {
            return;
        }
        suite_passes("bytes", &["--loom", "--lib"], 6);
    }

    /// crossbeam-epoch 0.9.21 (seam `cfg(crossbeam_loom)`, its `loom` dependency renamed
    /// `loom-crate`): a collector's deferred destruction and a Treiber stack over epoch-based
    /// reclamation, two threads each, through the stand-in's atomics and fences.
    #[test]
    fn crossbeam_epoch_loom_suite() {
        if skipped() {
            return;
        }
        suite_passes(
            "crossbeam-epoch",
            &["--loom", "--cfg", "crossbeam_loom", "--features", "loom", "--test", "loom"],
            2,
        );
    }

    /// diatomic-waker 0.2.3 (seam `cfg(diatomic_waker_loom)`, its loom models are unit tests):
    /// a sender notifying a receiver that registers, changes and reuses its waker (five token
    /// and spurious-wake variants, and waker slot reuse), six models.
    #[test]
    fn diatomic_waker_loom_suite() {
        if skipped() {
            return;
        }
        suite_passes("diatomic-waker", &["--loom", "--cfg", "diatomic_waker_loom", "--lib"], 6);
    }

    /// arcstr 1.2.0 (`--cfg loom`, models in its unit tests): its header is laid out by hand
    /// (`OFFSET_DATA = 8 + size_of::<AtomicUsize>()`, with `size_of`/`align_of` assertions on
    /// loom's `AtomicUsize`), so it builds and runs only where the stand-in's atomics have the
    /// layout it was written for (loom's one word); seven models of clones and drops across
    /// threads.
    #[test]
    fn arcstr_loom_suite() {
        if skipped() {
            return;
        }
        suite_passes("arcstr", &["--loom", "--lib"], 7);
    }

    /// flashmap 0.2.0's doc tests under its `loom` feature: 31 (its library's and README's; one
    /// more is flashmap's own `ignore`), and its five `compile_fail` tests that a type is not
    /// `Send` or `Sync`, which compile (and so fail) unless the stand-in's `UnsafeCell` is not
    /// `Sync`, as loom's is not.
    #[test]
    fn flashmap_doc_tests() {
        if skipped() {
            return;
        }
        suite_passes("flashmap", &["--loom", "--features", "loom", "--doc"], 36);
    }

    /// sdd 4.8.11 (its `loom` feature; its models are unit tests): epoch-based reclamation over
    /// saa, which asserts `align_of` of an entry holding loom's atomics; three models, one of
    /// which reclaims in a thread-local destructor after the child's end.
    #[test]
    fn sdd_loom_suite() {
        if skipped() {
            return;
        }
        suite_passes("sdd", &["--loom", "--features", "loom", "--lib"], 3);
    }

    /// tachyonix 0.3.1 after its own loom command ran once: its lock file then pins loom 0.5.6
    /// (through async-event and diatomic-waker, behind cfgs the run leaves off) beside 0.7.3.
    /// Both are patched with their stand-ins for the run, its nine queue models pass, and the
    /// lock file is put back byte for byte.
    #[test]
    fn tachyonix_with_two_locked_loom_versions() {
        if skipped() {
            return;
        }
        let dir = fresh_copy(&registry_source("tachyonix"), "tachyonix");
        let mut own = Command::new(env!("CARGO"));
        // (`run` clears RUSTFLAGS; the encoded form takes precedence anyway.)
        own.args(["test", "--lib", "--no-run"])
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", real_crates_target().join("loom-suites"))
            .env("CARGO_ENCODED_RUSTFLAGS", "--cfg\x1ftachyonix_loom");
        let own_run = run(own);
        assert!(own_run.success, "tachyonix's own loom build\n{}", own_run.all());
        let before = std::fs::read(dir.join("Cargo.lock")).expect("its lock file");
        let text = String::from_utf8_lossy(&before);
        assert!(text.contains("version = \"0.5.6\"") && text.contains("version = \"0.7.3\""), "{text}");
        let r = cargo_racer_test(&dir, &["--loom", "--cfg", "tachyonix_loom", "--lib"]);
        assert!(r.race_lines().is_empty() && r.success, "{}", r.all());
        assert_eq!(r.passed(), 9, "{}", r.all());
        assert_eq!(std::fs::read(dir.join("Cargo.lock")).unwrap(), before, "the lock file is put back");
    }

    /// tokio 1.48.0, loom's largest user, with its CI's flags (`--cfg loom --cfg tokio_unstable`,
    /// `--lib --features full,test-util`): its lib tests, of which 85 are loom models, the
    /// runtime's (multi- and current-thread schedulers, blocking pool, join sets, `LocalSet`,
    /// timers) and the sync primitives' (mpsc, notify, semaphore, oneshot, broadcast, watch,
    /// rwlock, set_once, atomic_waker, the linked list), and the rest plain unit tests: 117
    /// under tokio_unstable.
    /// `runtime::tests::loom_join_set::abort_all_during_completion` asserts, after the model,
    /// that its executions saw the task both complete and cancelled: the model's schedules
    /// explore both.
    #[test]
    fn tokio_loom_suite() {
        if skipped() {
            return;
        }
        suite_passes(
            "tokio",
            &["--loom", "--cfg", "loom", "--cfg", "tokio_unstable", "--lib", "--features", "full,test-util"],
            117,
        );
    }

    /// oneshot with its sender's `fetch_add(1, AcqRel)`, which publishes the message, made
    /// `Acquire`: the receiver's read of the message races with the sender's write, both in
    /// oneshot's src/channel.rs (its `with_message_mut` and `take_message`).
    #[test]
    fn a_broken_ordering_in_oneshot_is_reported_with_both_sites() {
        if skipped() {
            return;
        }
        let dir = fresh_copy(&registry_source("oneshot"), "oneshot-broken");
        let sender = dir.join("src/sender.rs");
        let source = std::fs::read_to_string(&sender).unwrap();
        let release = "channel.state().fetch_add(1, AcqRel)";
        assert_eq!(source.matches(release).count(), 1, "oneshot 0.2.1's send publishes with AcqRel");
        std::fs::write(&sender, source.replace(release, "channel.state().fetch_add(1, Acquire)")).unwrap();

        // The lines of the two accesses, from the crate's own source.
        let channel = std::fs::read_to_string(dir.join("src/channel.rs")).unwrap();
        let line_of = |needle: &str| {
            channel.lines().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("{needle} in channel.rs")) + 1
        };
        let write = format!("src/channel.rs:{}:", line_of("self.message.with_mut(|ptr| op(&mut *ptr))"));
        let read = format!("src/channel.rs:{}:", line_of("self.message.with(|ptr| ptr::read(ptr))"));

        let mut args = ONESHOT_ARGS.to_vec();
        // This copy is the same package (oneshot 0.2.1, the root of its own workspace) as the
        // clean one, so cargo would give both the same artifact names in the shared target
        // directory and could take one's build for the other's: a profile setting of oneshot
        // alone gives this copy's artifacts their own names (its dependencies stay shared).
        args.extend(["--config", "profile.dev.package.oneshot.codegen-units=7"]);
        args.extend(["--", "--exact", "try_recv"]);
        let r = cargo_racer_test(&dir, &args);
        assert!(!r.success, "the race fails the test\n{}", r.all());
        let text = format!("{}{}", r.stdout, r.stderr);
        assert!(text.contains("WARNING: racer: data race (flow: write, then a parallel read)"), "{}", r.all());
        let report = text.split("WARNING: racer: data race (flow").nth(1).expect("the flow report");
        let report = report.split("==================").next().unwrap_or(report);
        assert!(report.contains("Read by thread") && report.contains(&read), "the read site {read}\n{}", r.all());
        assert!(
            report.contains("Previous write by thread") && report.contains(&write),
            "the write site {write}\n{}",
            r.all()
        );
        assert!(report.contains("oneshot::sender::Sender<T>::send"), "the sender's stack\n{}", r.all());
        assert!(r.stderr.contains("data race(s) reported"), "the runner's summary\n{}", r.all());
    }

    /// `cargo run` of `real-crates/loom-auto-traits` (loom 0.7.2 from the registry beside the
    /// stand-in): the output's lines of differences and its last line, for one build.
    fn auto_trait_differences(features: &[&str]) -> (Vec<String>, String) {
        let mut cmd = Command::new(env!("CARGO"));
        cmd.args(["run", "-q", "--manifest-path"])
            .arg(repo().join("real-crates/loom-auto-traits/Cargo.toml"))
            .args(features)
            .env("CARGO_TARGET_DIR", real_crates_target().join("loom-auto-traits"));
        let r = run(cmd);
        let mut lines: Vec<String> = r.stdout.lines().map(str::to_owned).collect();
        let last = lines.pop().unwrap_or_else(|| panic!("the comparison's summary\n{}", r.all()));
        assert!(last.contains("types compared"), "{}", r.all());
        assert_eq!(r.success, lines.is_empty(), "exits non-zero exactly when a trait differs\n{}", r.all());
        (lines, last)
    }

    /// Every public type loom 0.7.2 and the stand-in both have has loom's Send, Sync, Unpin,
    /// UnwindSafe and RefUnwindSafe, both ways, for seven type arguments of each generic type
    /// (126 types): in the race-detect build (the one `cargo racer test --loom` runs), none
    /// differs. Without race-detect the stand-in's locks are std's, whose guards are `Sync` for
    /// a `T` that is `Sync` but not `Send` (loom's are not): those three, and nothing else.
    #[test]
    fn stand_in_auto_traits_are_loom_s() {
        if skipped() {
            return;
        }
        let (differences, last) = auto_trait_differences(&["--features", "race-detect"]);
        assert!(differences.is_empty(), "{differences:#?}");
        assert!(last.ends_with(": 0 differences"), "{last}");
        let (differences, _) = auto_trait_differences(&[]);
        let std_guards: Vec<String> = ["MutexGuard", "RwLockReadGuard", "RwLockWriteGuard"]
            .iter()
            .map(|g| format!("sync::{g}<std::sync::MutexGuard<'static,u32>>: loom's is not Sync, the stand-in's is"))
            .collect();
        assert_eq!(differences, std_guards);
    }
}

#[cfg(not(feature = "race-detect"))]
mod runner {
    use super::*;

    fn fixture() -> PathBuf {
        repo().join("real-crates/loom-fixture")
    }

    /// The runner turns racer on: a planted race in a loom test is reported, with both sites;
    /// and a loom item racer's stand-in lacks is named.
    #[test]
    fn the_runner_on_a_crate_with_a_loom_seam() {
        if skipped() {
            return;
        }
        let r = cargo_racer_test(&fixture(), &["--loom", "--", "--exact", "relaxed_handoff"]);
        assert!(!r.success, "{}", r.all());
        let text = format!("{}{}", r.stdout, r.stderr);
        let lib = std::fs::read_to_string(fixture().join("src/lib.rs")).unwrap();
        let line_of = |needle: &str| lib.lines().position(|l| l.contains(needle)).unwrap() + 1;
        assert!(
            text.contains("WARNING: racer: data race (flow: write, then a parallel read) on Shared<u64>"),
            "{}",
            r.all()
        );
        assert!(text.contains(&format!("src/lib.rs:{}:", line_of("self.value.with_mut"))), "{}", r.all());
        assert!(text.contains(&format!("src/lib.rs:{}:", line_of("self.value.with(|p|"))), "{}", r.all());
        assert!(r.stderr.contains("cargo racer: 1 data race(s) reported"), "{}", r.all());
        assert_eq!(r.code, Some(101), "cargo test's status for a failed test\n{}", r.all());

        let r = cargo_racer_test(&fixture(), &["--loom", "--", "--exact", "release_acquire_handoff"]);
        assert!(r.success && r.race_lines().is_empty(), "{}", r.all());
        assert!(r.stderr.contains("racer (model): 'release_acquire_handoff': explored all "), "{}", r.all());
        assert!(
            r.stderr.contains(
                "cargo racer: no data races found (1 test(s) passed, racer on; 1 model(s) explored completely)"
            ),
            "{}",
            r.all()
        );
        assert!(!fixture().join("Cargo.lock").exists(), "the runner leaves no lock file behind");

        // In the same test: runs in the fixture's directory must not overlap (each puts the
        // lock file back as it found it).
        let r = cargo_racer_test(&fixture(), &["--loom", "--features", "uses-missing-item"]);
        assert!(!r.success, "{}", r.all());
        assert!(
            r.stderr.contains("racer's loom stand-in does not have: `loom::skip_branch`"),
            "the missing item is named\n{}",
            r.all()
        );
    }

    /// Without `--loom`: `cargo test --features race-detect` on a crate that uses racer
    /// directly (a copy of `real-crates/racer-fixture`, its path to racer made absolute, so
    /// that the lock file cargo writes stays out of this repository).
    #[test]
    fn the_runner_on_a_crate_that_uses_racer_directly() {
        if skipped() {
            return;
        }
        let dir = fresh_copy(&repo().join("real-crates/racer-fixture"), "racer-fixture");
        let manifest = dir.join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest).unwrap();
        let racer = format!("path = {:?}", repo().display().to_string());
        assert_eq!(text.matches("path = \"../..\"").count(), 1, "the fixture names racer by path");
        std::fs::write(&manifest, text.replace("path = \"../..\"", &racer)).unwrap();

        let r = cargo_racer_test(&dir, &["--", "--exact", "unlocked_bumps"]);
        assert!(!r.success, "{}", r.all());
        assert!(
            r.stdout.contains("WARNING: racer: data race (output: write, then a parallel write) on Shared<u64>"),
            "{}",
            r.all()
        );
        assert!(r.stdout.contains("at tests/counter.rs:13:"), "{}", r.all());
        assert!(r.stderr.contains("cargo racer: 1 data race(s) reported"), "{}", r.all());

        let r = cargo_racer_test(&dir, &["--", "--exact", "locked_bumps"]);
        assert!(r.success && r.race_lines().is_empty(), "{}", r.all());
        assert!(r.stderr.contains("cargo racer: no data races found (1 test(s) passed, racer on)"), "{}", r.all());
    }

    #[test]
    fn a_crate_without_a_loom_seam_is_told_so() {
        if skipped() {
            return;
        }
        // real-crates/loom-suites depends on crates that have seams, but has none itself.
        let r = cargo_racer_test(&repo().join("real-crates/loom-suites"), &["--loom"]);
        assert_eq!(r.code, Some(2), "{}", r.all());
        assert!(
            r.stderr.contains(
                "--loom: `real-crates-loom-suites` has no cfg(loom) seam: `loom` is not among its dependencies"
            ),
            "{}",
            r.all()
        );
        let r = cargo_racer_test(&repo().join("real-crates/loom-suites"), &[]);
        assert_eq!(r.code, Some(2), "{}", r.all());
        assert!(r.stderr.contains("`real-crates-loom-suites` has no `race-detect` feature"), "{}", r.all());
    }

    /// Flags the runner does not know go to cargo; one that looks like a typo of the runner's
    /// own is named when the run fails.
    #[test]
    fn an_unknown_flag_is_named() {
        if skipped() {
            return;
        }
        let r = cargo_racer_test(&fixture(), &["--lom"]);
        assert!(!r.success, "{}", r.all());
        assert!(
            r.stderr.contains(
                "`--lom` is passed to cargo test as one of its own options: did you mean cargo racer's `--loom`?"
            ),
            "{}",
            r.all()
        );
    }

    #[test]
    fn oneshot_skips_name_existing_tests() {
        if skipped() {
            return;
        }
        // The skipped timing tests are oneshot's (checked against its fetched source).
        let dir = registry_source("oneshot");
        let tests = std::fs::read_to_string(dir.join("tests/loom.rs")).unwrap()
            + &std::fs::read_to_string(dir.join("tests/sync.rs")).unwrap();
        for t in ONESHOT_TIMING_TESTS {
            assert!(tests.contains(&format!("fn {t}()")), "{t} is a test of oneshot 0.2.1");
        }
    }
}
