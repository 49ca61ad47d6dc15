//! Published async crates' own test suites under racer with `racer::tokio`, as a user runs them:
//! the crate's registry source is copied to a temporary directory, its imports are swapped for
//! racer's by a scripted, mechanical edit (the same a user makes by hand), and
//! `cargo test --features race-detect` runs there on the crate's own source and tests. Every
//! test passes and nothing is reported: a report would be a false one.
//!
//! - async-lazy 0.1.2: a `Lazy` whose value lives in an `UnsafeCell` (made a `racer::Shared`),
//!   initialised once under a `tokio::sync::Semaphore` permit and published by an `AtomicBool`
//!   (Release store, Acquire load); its tests spawn tasks on current-thread runtimes with paused
//!   time, cancel an initialiser midway and panic in one. Every access to the value is checked.
//!   The same copy with the publishing store made `Relaxed` is reported, with both sites in
//!   async-lazy's own source: the check is live.
//! - bb8 0.9.1: a connection pool over `tokio::sync::Notify`, `tokio::spawn` (its reaper and
//!   replenishing tasks) and a `parking_lot` mutex; its 26 `#[tokio::test]`s spawn tasks that
//!   contend for connections, time out, fail and drop them, through `oneshot` channels and
//!   std's `Mutex` and `RwLock` (racer's, swapped).
//! - tokio-util 0.7.20: its `task` module (`JoinMap`, `JoinQueue`, `TaskTracker`,
//!   `LocalPoolHandle`, `AbortOnDropHandle`) over racer's `Handle`, `LocalSet`, `LocalRuntime`,
//!   `JoinHandle` and `JoinSet`, and its `sync` module (`CancellationToken`, `PollSender`,
//!   `PollSemaphore`, `ReusableBoxFuture`): the whole crate swapped, `tokio::runtime::` and its
//!   grouped `use tokio::{...}` too; the 122 tests of those modules pass in both builds.
//!
//! The swap, per file (`*.rs` and `*.md`, so that doc tests use racer too), replaces a path
//! where one starts (not after an identifier or `::`): `tokio::sync::`, `tokio::spawn` and
//! `tokio::task::` with `racer::tokio::...`; `#[tokio::test` with `#[racer::test` (its arguments
//! kept) and `#[test]` with `#[racer::test]`; `std::sync::atomic::` and std's locks, `Condvar`,
//! `Barrier`, `Once*`, `LazyLock` and `mpsc` with `racer::sync::...` (not `Arc`/`Weak`: racer's
//! `Arc` cannot be a method receiver such as bb8's `self: &Arc<Self>`); `parking_lot::` with
//! `racer::parking_lot::`. Everything else of tokio stays tokio's own (runtime, time, macros).
//! The manifest gets racer (this checkout, feature `tokio`) as a dependency and a feature
//! `race-detect = ["racer/race-detect"]`; the crate's shipped lock file gets tokio updated to the
//! version racer is built with here (racer's wrappers need tokio 1.54). Edits only async-lazy
//! needs (its grouped `use std::{...}`, `UnsafeCell` to `Shared` at its four sites, its tests'
//! `rt.spawn` to `racer::tokio::spawn`) are listed with it. Each edit's count is asserted.
//!
//! Children are spawned with their own target directory `<target>/real-crates/async-suites`
//! (never this build's lock), shared between the crates and between runs. They need the
//! registry and build for about a minute the first time, so each test here is skipped, with a
//! printed line, unless `RACER_REGISTRY_SUITES=1` (`.ci/run` sets it; the child runner and the
//! switch: `tests/child_support/cargo.rs`):
//!
//!     RACER_REGISTRY_SUITES=1 cargo test --features race-detect,tokio --test async_suites -- --nocapture

#![cfg(all(unix, feature = "race-detect", feature = "tokio"))]

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

/// A livelock must end the test instead of hanging CI; the suites take seconds once built.
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
    let manifest = repo().join("real-crates/async-suites/Cargo.toml");
    let sources = SOURCES.get_or_init(|| child_cargo::registry_sources(&manifest, TIMEOUT));
    sources.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{name} among the fetched crates")).1.clone()
}

/// A fresh copy of `from` (see `child_cargo::fresh_copy`).
fn fresh_copy(from: &Path, label: &str) -> PathBuf {
    child_cargo::fresh_copy("racer-async-suites", from, label)
}

const RULES: &[Rule] = &[
    Rule { from: "tokio::sync::", to: "racer::tokio::sync::", only_before: &[] },
    Rule { from: "tokio::spawn", to: "racer::tokio::spawn", only_before: &[] },
    Rule { from: "tokio::task::", to: "racer::tokio::task::", only_before: &[] },
    Rule { from: "tokio::test", to: "racer::test", only_before: &[] },
    Rule { from: "#[test]", to: "#[racer::test]", only_before: &[] },
    Rule { from: "std::sync::atomic::", to: "racer::sync::atomic::", only_before: &[] },
    Rule { from: "std::sync::", to: "racer::sync::", only_before: STD_DROP_INS },
    Rule { from: "parking_lot::", to: "racer::parking_lot::", only_before: &[] },
];

/// The version of tokio in this repository's lock file: what racer is built and tested with.
fn locked_tokio() -> String {
    let lock = std::fs::read_to_string(repo().join("Cargo.lock")).expect("the repository's lock file");
    let entry = lock.split("[[package]]").find(|p| p.contains("\nname = \"tokio\"\n")).expect("tokio is locked");
    let version = entry.lines().find_map(|l| l.strip_prefix("version = \"")).expect("its version");
    version.trim_end_matches('"').to_owned()
}

/// The swap in the copy at `dir`: `specific` (file, from, to, count) first, then the rules over
/// every `*.rs` and `*.md` file, whose counts must be `expected` (rule's `from` -> count); then
/// racer in the manifest and tokio's version in the lock file.
fn swap(dir: &Path, specific: &[(&str, &str, &str, usize)], expected: &[(&str, usize)]) {
    swap_with(dir, specific, &[], expected)
}

/// `swap` with `extra` rules after the common ones (a crate that names more of tokio).
fn swap_with(dir: &Path, specific: &[(&str, &str, &str, usize)], extra: &[Rule], expected: &[(&str, usize)]) {
    for &(file, from, to, count) in specific {
        edit(dir, file, from, to, count);
    }
    let mut files = Vec::new();
    source_files(dir, &mut files);
    let mut counts = BTreeMap::new();
    for file in files {
        let mut text = std::fs::read_to_string(&file).expect("a source file");
        for rule in RULES.iter().chain(extra) {
            let (swapped, n) = apply(&text, rule);
            text = swapped;
            *counts.entry(rule.from).or_insert(0) += n;
        }
        std::fs::write(&file, text).expect("writing the swap");
    }
    counts.retain(|_, n| *n > 0);
    let expected: BTreeMap<&str, usize> = expected.iter().copied().collect();
    assert_eq!(counts, expected, "the swap's replacements in {}", dir.display());

    let manifest = dir.join("Cargo.toml");
    let mut text = std::fs::read_to_string(&manifest).expect("its manifest");
    assert_eq!(text.matches("\n[features]\n").count(), 1, "{text}");
    text = text.replace("\n[features]\n", "\n[features]\nrace-detect = [\"racer/race-detect\"]\n");
    let racer = repo().display().to_string();
    text.push_str(&format!(
        "\n[dependencies.racer]\npackage = \"racer-detector\"\npath = {racer:?}\nfeatures = [\"tokio\"]\n"
    ));
    std::fs::write(&manifest, text).unwrap();

    if dir.join("Cargo.lock").exists() {
        let mut cmd = Command::new(env!("CARGO"));
        cmd.args(["update", "-p", "tokio", "--precise", &locked_tokio()]).current_dir(dir);
        let r = run(cmd);
        assert!(r.success, "tokio updated in the crate's lock file\n{}", r.all());
    }
}

/// `cargo test --features race-detect <args>` in `dir`. One at a time: the copies build into
/// one target directory, and bb8's timing tests should not share two cores with another suite.
fn cargo_test(dir: &Path, args: &[&str]) -> Run {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args(["test", "--features", "race-detect"])
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", real_crates_target().join("async-suites"));
    run(cmd)
}

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// async-lazy's own edits: its grouped `use std::{...}` (racer's `AtomicBool`, `Shared` for the
/// `UnsafeCell`), the cell's two reads (`with`) and two writes (`with_mut`) through `.get()`, and
/// its tests' `rt.spawn` (tokio's `Runtime::spawn`, which racer does not see) made
/// `racer::tokio::spawn` inside `block_on`.
const ASYNC_LAZY_EDITS: &[(&str, &str, &str, usize)] = &[
    ("src/lib.rs", "    cell::UnsafeCell,\n", "", 1),
    ("src/lib.rs", "    sync::atomic::{AtomicBool, Ordering},\n", "", 1),
    (
        "src/lib.rs",
        "use tokio::sync::{",
        "use racer::sync::atomic::{AtomicBool, Ordering};\nuse racer::Shared;\nuse tokio::sync::{",
        1,
    ),
    ("src/lib.rs", "UnsafeCell<", "Shared<", 1),
    ("src/lib.rs", "UnsafeCell::new(", "Shared::new(", 1),
    ("src/lib.rs", "(*self.value.get())", "(*self.value.with(|p| p))", 2),
    ("src/lib.rs", "(*self.lazy.value.get())", "(*self.lazy.value.with_mut(|p| p))", 1),
    ("src/lib.rs", "let ptr = self.value.get();", "let ptr = self.value.with_mut(|p| p);", 1),
    ("tests/tests.rs", "rt.spawn(", "racer::tokio::spawn(", 8),
];

/// The generic rules' counts on async-lazy: the `Semaphore` import, the spawns of its docs and
/// README (doc tests), its tests' `#[test]`s (one behind the `nightly` feature) and atomic, and
/// the README's link text naming `std::sync::OnceLock` (prose).
const ASYNC_LAZY_SWAP: &[(&str, usize)] =
    &[("tokio::sync::", 1), ("tokio::spawn", 3), ("#[test]", 7), ("std::sync::atomic::", 1), ("std::sync::", 1)];

fn async_lazy_copy(label: &str) -> PathBuf {
    let dir = fresh_copy(&registry_source("async-lazy"), label);
    swap(&dir, ASYNC_LAZY_EDITS, ASYNC_LAZY_SWAP);
    dir
}

/// async-lazy 0.1.2: its six tests (`drop_lazy`, `force`, `force_cancel`, `force_panic`,
/// `force_and_get`, `get_uninit`) and three doc tests.
#[test]
fn async_lazy_suite() {
    if skipped() {
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let dir = async_lazy_copy("async-lazy");
    let r = cargo_test(&dir, &[]);
    passes_without_a_report("async-lazy", &r, 9);
}

/// bb8 0.9.1 (default feature `parking_lot`): its unit test, the 27 of tests/test.rs (26 of them
/// `#[tokio::test]`) and no doc test (its one is `ignore`).
#[test]
fn bb8_suite() {
    if skipped() {
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let dir = fresh_copy(&registry_source("bb8"), "bb8");
    swap(
        &dir,
        &[],
        &[
            ("tokio::sync::", 2),
            ("tokio::spawn", 21),
            ("tokio::test", 26),
            ("#[test]", 2),
            ("std::sync::atomic::", 3),
            ("std::sync::", 4),
            ("parking_lot::", 2),
        ],
    );
    let r = cargo_test(&dir, &[]);
    passes_without_a_report("bb8", &r, 28);
}

/// async-lazy with the store that publishes the value (`value_set`, Release) made Relaxed: in
/// `force`, the second task's read of the value races with the first task's write, both in
/// async-lazy's src/lib.rs, and racer says which store to make Release.
#[test]
fn a_relaxed_publication_in_async_lazy_is_reported() {
    if skipped() {
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let dir = async_lazy_copy("async-lazy-relaxed");
    let store = "self.lazy.value_set.store(true, Ordering::Release);";
    edit(&dir, "src/lib.rs", store, "self.lazy.value_set.store(true, Ordering::Relaxed);", 1);
    let lib = std::fs::read_to_string(dir.join("src/lib.rs")).unwrap();
    let line_of = |needle: &str| {
        let line = lib.lines().position(|l| l.contains(needle)).unwrap_or_else(|| panic!("{needle} in lib.rs"));
        format!("src/lib.rs:{}:", line + 1)
    };
    let read = line_of("unsafe { (*self.value.with(|p| p)).init.as_ref() }");
    let writes =
        [line_of("let ptr = self.value.with_mut(|p| p);"), line_of("(*self.lazy.value.with_mut(|p| p)).init =")];
    let relaxed = line_of("value_set.store(true, Ordering::Relaxed)");

    // This copy is the same package (async-lazy 0.1.2, the root of its own workspace) as the
    // clean one, so cargo would give both the same artifact names in the shared target
    // directory: a profile setting of async-lazy alone gives this copy's artifacts their own.
    let r = cargo_test(
        &dir,
        &["--config", "profile.dev.package.async-lazy.codegen-units=7", "--test", "tests", "--", "--exact", "force"],
    );
    assert!(!r.success, "the race fails the test\n{}", r.all());
    let text = format!("{}{}", r.stdout, r.stderr);
    let report = text
        .split("WARNING: racer: data race (flow: write, then a parallel read) on Shared<async_lazy::LazyData<u32")
        .nth(1)
        .unwrap_or_else(|| panic!("the flow report on the Lazy's value\n{}", r.all()));
    let report = report.split("==================").next().unwrap_or(report);
    let line_with =
        |start: &str, site: &str| report.lines().any(|l| l.trim_start().starts_with(start) && l.contains(site));
    assert!(line_with("Read by task ", &read), "the read site {read}\n{}", r.all());
    assert!(
        writes.iter().any(|w| line_with("Previous write by task ", w)),
        "a write site of initialize, {writes:?}\n{}",
        r.all()
    );
    assert!(report.contains("acquiring tokio::sync::Semaphore"), "the writer's last synchronisation\n{}", r.all());
    assert!(report.contains(&format!("make the store at {relaxed}")), "the Relaxed store is named\n{}", r.all());
    assert!(text.contains("racer: 1 data race(s) found in test `force`"), "{}", r.all());
    assert_eq!(r.passed(), 0, "{}", r.all());
}

/// tokio-util 0.7.20's `task` and `sync` modules, 122 tests in both builds, (`JoinMap`, `JoinQueue`, `TaskTracker`,
/// `spawn_pinned`'s `LocalPoolHandle`, `AbortOnDropHandle`; `CancellationToken`, `PollSender`,
/// `PollSemaphore`, `ReusableBoxFuture`) over racer's `Handle`, `LocalSet`, `LocalRuntime`,
/// `JoinHandle` and `JoinSet`: the whole crate swapped (`tokio::runtime::` and the grouped
/// `use tokio::{...}` too), its tests of those modules run with its feature `full`. The tests on
/// `#[tokio::test(flavor = "local")]` keep tokio's attribute (their tasks are still racer's), as
/// does reusable_box's test generic over a lifetime.
const TOKIO_UTIL_EXTRA_RULES: &[Rule] = &[
    Rule { from: "tokio::runtime::", to: "racer::tokio::runtime::", only_before: &[] },
    Rule { from: "use tokio::{", to: "use racer::tokio::{", only_before: &[] },
];

const TOKIO_UTIL_TESTS: &[&str] = &[
    "abort_on_drop",
    "spawn_pinned",
    "task_join_map",
    "task_join_queue",
    "task_tracker",
    "sync_cancellation_token",
    "mpsc",
    "poll_semaphore",
    "reusable_box",
];

#[test]
fn tokio_util_task_and_sync_suites() {
    if skipped() {
        return;
    }
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let dir = fresh_copy(&registry_source("tokio-util"), "tokio-util");
    let local = "#[tokio::test(flavor = \"local\")]";
    let tokios = "#[::tokio::test(flavor = \"local\")]";
    swap_with(
        &dir,
        &[
            ("tests/task_join_map.rs", local, tokios, 4),
            ("tests/task_tracker.rs", local, tokios, 4),
            // A test generic over a lifetime (`fn traits<'a>()`), which #[racer::test] rejects.
            (
                "tests/reusable_box.rs",
                "#[test]\n// Clippy false positive",
                "#[core::prelude::v1::test]\n// Clippy false positive",
                1,
            ),
        ],
        TOKIO_UTIL_EXTRA_RULES,
        &[
            ("#[test]", 164),
            ("parking_lot::", 1),
            ("std::sync::", 3),
            ("std::sync::atomic::", 3),
            ("tokio::runtime::", 35),
            ("tokio::spawn", 18),
            ("tokio::sync::", 47),
            ("tokio::task::", 72),
            ("tokio::test", 151),
            ("use tokio::{", 7),
        ],
    );
    let mut args = vec!["--features", "full"];
    for test in TOKIO_UTIL_TESTS {
        args.extend(["--test", test]);
    }
    let r = cargo_test(&dir, &args);
    passes_without_a_report("tokio-util", &r, 122);
    // The same swapped copy without `race-detect`: racer::tokio is tokio's own items.
    let mut cmd = Command::new(env!("CARGO"));
    cmd.arg("test").args(&args).current_dir(&dir).env("CARGO_TARGET_DIR", real_crates_target().join("async-suites"));
    let r = run(cmd);
    passes_without_a_report("tokio-util (race-detect off)", &r, 122);
}
