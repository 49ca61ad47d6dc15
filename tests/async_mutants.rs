//! The async mutation benchmark's check in CI (`benches/async-mutants/run` measures it, 10 runs a
//! row: docs/async-mutants-results.md): per crate, the unmutated crate passes our model tests
//! and its real-runtime runs with nothing from racer, and one mutant (a bug planted between
//! tasks) fails a default model run, with a replay line that fails the same test in the same
//! way again.
//!
//! Each crate (deadpool 0.12.3's unmanaged pool, tokio-util 0.7.20's `CancellationToken`,
//! async-lazy 0.1.2's `Lazy`) is copied from the registry to a temporary directory, the
//! mutant's edits are applied (`benches/async-mutants/mutants.tsv`), then the swap of its imports
//! for racer's (`benches/async-mutants/swaps.tsv`, each edit's count asserted), racer is added
//! to its manifest, and our model tests of its public API
//! (`benches/async-mutants/models/<crate>/`, a crate of its own depending on the copy, with
//! racer's lock file) run with `cargo test --features race-detect`.
//!
//! They need the registry and build for minutes the first time, so each test here is skipped,
//! with a printed line, unless `RACER_REGISTRY_SUITES=1` (`.ci/run` sets it):
//!
//!     RACER_REGISTRY_SUITES=1 cargo test --features race-detect,tokio --test async_mutants -- --nocapture

#![cfg(all(unix, feature = "race-detect", feature = "tokio"))]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

#[path = "child_support/cargo.rs"]
mod child_cargo;
use child_cargo::{real_crates_target, skipped, Run};

/// A hang must end the test instead of CI; a crate's build and runs take under a minute.
const TIMEOUT: Duration = Duration::from_secs(15 * 60);

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn bench(file: &str) -> PathBuf {
    repo().join("benches/async-mutants").join(file)
}

/// The registry source of a pinned crate, fetched by `cargo metadata`.
fn registry_source(name: &str) -> PathBuf {
    static SOURCES: OnceLock<Vec<(String, PathBuf)>> = OnceLock::new();
    let manifest = repo().join("real-crates/async-mutants/Cargo.toml");
    let sources = SOURCES.get_or_init(|| child_cargo::registry_sources(&manifest, TIMEOUT));
    sources.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{name} among the fetched crates")).1.clone()
}

/// The rows of a tsv file of the benchmark, each split into its fields.
fn rows(file: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(bench(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split('\t').map(str::to_owned).collect())
        .collect()
}

/// A fresh copy of `krate` with the edits of mutant `mutant` (none: the unmutated crate), the
/// swap and racer: returns the model crate's directory.
fn prepare(krate: &str, mutant: Option<&str>) -> PathBuf {
    let copy = child_cargo::fresh_copy("racer-async-mutants", &registry_source(krate), mutant.unwrap_or(krate));
    let mut edits = 0;
    for row in rows("mutants.tsv").iter().filter(|r| Some(r[0].as_str()) == mutant) {
        assert_eq!(row[1], krate, "{row:?}");
        let path = copy.join(&row[2]);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<&str> = text.split('\n').collect();
        let line: usize = row[3].parse().unwrap();
        assert_eq!(lines[line - 1].matches(row[4].as_str()).count(), 1, "{row:?}: {:?}", lines[line - 1]);
        let mutated = lines[line - 1].replace(row[4].as_str(), &row[5]);
        lines[line - 1] = &mutated;
        std::fs::write(&path, lines.join("\n")).unwrap();
        edits += 1;
    }
    assert_eq!(edits > 0, mutant.is_some(), "the mutant {mutant:?} is in mutants.tsv");
    for row in rows("swaps.tsv").iter().filter(|r| r[0] == krate) {
        let path = copy.join(&row[1]);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.matches(row[2].as_str()).count(), row[4].parse::<usize>().unwrap(), "swaps.tsv: {row:?}");
        std::fs::write(&path, text.replace(row[2].as_str(), &row[3])).unwrap();
    }
    let mut manifest = std::fs::read_to_string(copy.join("Cargo.toml")).unwrap();
    let racer = repo().display().to_string();
    manifest.push_str(&format!(
        "\n[dependencies.racer]\npackage = \"racer-detector\"\npath = {racer:?}\nfeatures = [\"tokio\"]\n"
    ));
    std::fs::write(copy.join("Cargo.toml"), manifest).unwrap();
    let model = copy.join("racer-model");
    std::fs::create_dir_all(model.join("src")).unwrap();
    std::fs::create_dir_all(model.join("tests")).unwrap();
    let models = bench("models").join(krate);
    let template = std::fs::read_to_string(models.join("Cargo.toml")).unwrap();
    std::fs::write(model.join("Cargo.toml"), template.replace("@RACER@", &racer)).unwrap();
    std::fs::copy(models.join("tests/model.rs"), model.join("tests/model.rs")).unwrap();
    std::fs::write(model.join("src/lib.rs"), "//! The model tests are in tests/model.rs.\n").unwrap();
    std::fs::copy(repo().join("Cargo.lock"), model.join("Cargo.lock")).unwrap();
    model
}

/// `cargo test --features race-detect --test model -- <args>` in the model crate, with
/// `RACER_REPLAY` if given.
fn cargo_test(model: &Path, args: &[&str], replay: Option<&str>) -> Run {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args(["test", "--features", "race-detect", "--test", "model", "--"])
        .args(args)
        .current_dir(model)
        .env("CARGO_TARGET_DIR", real_crates_target().join("async-mutants"))
        .env_remove("RUSTFLAGS")
        .env_remove("RACER_OPTIONS")
        .env_remove("RACER_SEEDS")
        .env_remove("RACER_REPLAY");
    if let Some(token) = replay {
        cmd.env("RACER_REPLAY", token);
    }
    child_cargo::run(cmd, TIMEOUT)
}

/// racer's lines of a model that failed: not the line that a model explored all its schedules
/// (a clean, complete search says so) nor its progress.
fn model_failures(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.contains("racer (model)"))
        .filter(|l| !l.contains("': explored all ") && !l.contains(" iterations in "))
        .collect()
}

/// One crate at a time: the copies build into one target directory.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The unmutated crate: its `tests` model and real-runtime tests pass with nothing from racer;
/// then `mutant` fails the default model run of `test` (`failure`: the first line racer prints
/// of it, `shows`: more it says), and the replay line printed with it fails `test` again.
fn clean_then_mutant(krate: &str, tests: usize, mutant: &str, test: &str, failure: &str, shows: &[&str]) {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let r = cargo_test(&prepare(krate, None), &[], None);
    let text = format!("{}{}", r.stdout, r.stderr);
    assert!(r.success && !text.contains("WARNING: racer") && model_failures(&text).is_empty(), "{}", r.all());
    assert_eq!(r.passed(), tests, "{}", r.all());

    let model = prepare(krate, Some(mutant));
    let r = cargo_test(&model, &["--exact", test], None);
    let text = format!("{}{}", r.stdout, r.stderr);
    assert!(!r.success, "{mutant}: the model fails\n{}", r.all());
    let at = text.find(failure).unwrap_or_else(|| panic!("{mutant}: {failure:?}\n{}", r.all()));
    for line in shows {
        assert!(text.contains(line), "{mutant}: {line:?}\n{}", r.all());
    }
    let token = text[at..]
        .split_whitespace()
        .find_map(|w| w.strip_prefix("RACER_REPLAY="))
        .unwrap_or_else(|| panic!("{mutant}: a replay line\n{}", r.all()));
    let again = cargo_test(&model, &["--exact", test], Some(token));
    let again_text = format!("{}{}", again.stdout, again.stderr);
    assert!(!again.success && again_text.contains(failure), "{mutant}: the replay fails again\n{}", again.all());
}

/// deadpool: `Object`'s drop gives its permit back before the object is back in the queue; the
/// task waiting in `get` takes the permit and finds the queue empty.
#[test]
fn deadpool_clean_then_a_wake_up_before_the_push() {
    if skipped() {
        return;
    }
    clean_then_mutant(
        "deadpool",
        4,
        "deadpool-drop-wakes-before-push",
        "model_two_tasks_share_one_object",
        "racer (model): 'model_two_tasks_share_one_object' panicked in iteration",
        &["called `Option::unwrap()` on a `None` value"],
    );
}

/// tokio-util: the cancelled future is made again after the flag's check; a cancel between the
/// two is lost, and the waiting task is never woken.
#[test]
fn tokio_util_clean_then_a_registration_after_the_check() {
    if skipped() {
        return;
    }
    clean_then_mutant(
        "tokio-util",
        4,
        "tokio-util-registers-after-check",
        "model_a_cancel_wakes_its_waiter",
        "racer (model): deadlock in iteration",
        &["a pending task: nothing will wake it"],
    );
}

/// async-lazy: the initialiser gives its permit back instead of closing the semaphore; a task
/// that checked the value before it was set takes the permit and initialises again.
#[test]
fn async_lazy_clean_then_a_check_then_act_across_the_acquire() {
    if skipped() {
        return;
    }
    clean_then_mutant(
        "async-lazy",
        2,
        "async-lazy-reopens-instead-of-closing",
        "model_two_tasks_force_one_lazy",
        "racer (model): 'model_two_tasks_force_one_lazy' panicked in iteration",
        &["assertion failed: !self.initialized()"],
    );
}
