//! `cargo racer test` run as a user runs it, on small crates written for each test into a
//! temporary directory: a `--loom` run interrupted with SIGINT leaves `Cargo.lock` byte for byte
//! as it was; every test binary runs (a failing one does not hide the races of the next); and
//! `--exclude` leaves out a workspace member without a `race-detect` feature.
//!
//! Children build into `<target>/real-crates/loom-suites`, the directory the root package's
//! `tests/loom_suites.rs` gives its runner, so that racer is built once for both. The first run
//! fetches racer's dependencies and the real loom (for the lock file to pin) from the registry.

#![cfg(unix)]

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// A hang guard, not a measure: the first run builds racer (a few minutes on two cores).
const TIMEOUT: Duration = Duration::from_secs(30 * 60);

fn racer_repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the racer checkout").to_owned()
}

/// Writes a crate (its own workspace) to a fresh directory outside the racer checkout, at the
/// same path on every run so that its build is incremental.
fn scratch_crate(name: &str, files: &[(&str, String)]) -> PathBuf {
    use std::hash::{Hash, Hasher};
    // One directory per checkout (its target directory), so that two checkouts do not collide.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    env!("CARGO_TARGET_TMPDIR").hash(&mut h);
    let dir = std::env::temp_dir().join(format!("cargo-racer-tests-{:016x}", h.finish())).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// A package manifest; `racer` makes racer a dependency, turned on by `race-detect`.
fn manifest(name: &str, racer: bool, own_workspace: bool, rest: &str) -> String {
    let mut m = format!("[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\npublish = false\n\n");
    if own_workspace {
        m += "[workspace]\n\n";
    }
    if racer {
        m += &format!(
            "[features]\nrace-detect = [\"racer/race-detect\"]\n\n[dependencies]\nracer = {{ package = \"racer-detector\", path = {:?} }}\n\n",
            racer_repo().display().to_string()
        );
    }
    m + rest
}

/// A test in which two threads write one `Shared` unordered: one report per test.
fn racy_test(name: &str) -> String {
    format!(
        "#[racer::test]\nfn {name}() {{\n    let v = racer::sync::Arc::new(racer::Shared::new(0u64));\n    \
         let w = v.clone();\n    let t = racer::thread::spawn(move || w.with_mut(|p| unsafe {{ *p += 1 }}));\n    \
         v.with_mut(|p| unsafe {{ *p += 1 }});\n    t.join().unwrap();\n}}\n\n"
    )
}

/// `cargo racer test <args>` in `dir`, as cargo runs a subcommand, in its own process group
/// (a terminal's foreground group, as far as a Ctrl-C is concerned).
fn cargo_racer(dir: &Path, args: &[&str]) -> Running {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cargo-racer"));
    cmd.args(["racer", "test"]).args(args).current_dir(dir);
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().unwrap().join("real-crates/loom-suites");
    cmd.env("CARGO", env!("CARGO")).env("CARGO_TARGET_DIR", target);
    // The stand-in from the runner's build-time path; the user's flags would rebuild everything.
    for var in ["RACER_LOOM_PATH", "RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_RUSTFLAGS", "RACER_OPTIONS"] {
        cmd.env_remove(var);
    }
    Running::spawn(cmd)
}

/// A running child whose output lines arrive on a channel.
struct Running {
    child: Child,
    lines: Receiver<(bool, String)>,
    stdout: String,
    stderr: String,
    started: Instant,
}

/// A finished child.
struct Run {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

impl Run {
    fn all(&self) -> String {
        format!("exited {}\n--- stdout ---\n{}\n--- stderr ---\n{}", self.status, self.stdout, self.stderr)
    }
}

impl Running {
    fn spawn(mut cmd: Command) -> Self {
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("cargo-racer starts");
        let (tx, lines) = channel();
        let pipes: [(bool, Box<dyn Read + Send>); 2] =
            [(true, Box::new(child.stdout.take().unwrap())), (false, Box::new(child.stderr.take().unwrap()))];
        for (is_stdout, pipe) in pipes {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines() {
                    let _ = tx.send((is_stdout, line.unwrap_or_default()));
                }
            });
        }
        Running { child, lines, stdout: String::new(), stderr: String::new(), started: Instant::now() }
    }

    /// Reads output until a line satisfies `wanted` (true), or the output ends (false).
    fn read_until(&mut self, wanted: impl Fn(&str) -> bool) -> bool {
        loop {
            let left = TIMEOUT.saturating_sub(self.started.elapsed());
            match self.lines.recv_timeout(left) {
                Ok((is_stdout, line)) => {
                    let text = if is_stdout { &mut self.stdout } else { &mut self.stderr };
                    *text += &line;
                    text.push('\n');
                    if wanted(&line) {
                        return true;
                    }
                }
                Err(RecvTimeoutError::Disconnected) => return false,
                Err(RecvTimeoutError::Timeout) => {
                    self.signal_group(libc::SIGKILL);
                    panic!("cargo racer did not finish within {TIMEOUT:?}\n{}\n{}", self.stdout, self.stderr);
                }
            }
        }
    }

    /// Sends `signal` to the child's process group, as a terminal sends Ctrl-C's SIGINT.
    fn signal_group(&self, signal: libc::c_int) {
        // SAFETY: kill(2) on the process group this test created for its own child.
        let sent = unsafe { libc::kill(-(self.child.id() as libc::pid_t), signal) };
        assert_eq!(sent, 0, "kill: {}", std::io::Error::last_os_error());
    }

    fn finish(mut self) -> Run {
        self.read_until(|_| false);
        let status = self.child.wait().expect("waiting for cargo-racer");
        Run { status, stdout: self.stdout, stderr: self.stderr }
    }
}

/// One child at a time: they share a target directory (cargo would serialise their builds
/// anyway), and a run blocked in a test must not hold the others up for its whole wait.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    TURN.lock().unwrap_or_else(PoisonError::into_inner)
}

#[test]
fn an_interrupted_loom_run_leaves_the_lock_file_as_it_was() {
    let _turn = one_at_a_time();
    let marker = "racer-cli-test: the loom test is running";
    let dir = scratch_crate(
        "interrupted",
        &[
            (
                "Cargo.toml",
                manifest(
                    "racer-cli-interrupted",
                    false,
                    true,
                    "[target.'cfg(loom)'.dev-dependencies]\nloom = \"0.7\"\n\n\
                     [lints.rust]\nunexpected_cfgs = { level = \"warn\", check-cfg = [\"cfg(loom)\"] }\n",
                ),
            ),
            ("src/lib.rs", String::new()),
            (
                "tests/waits.rs",
                format!(
                    "#![cfg(loom)]\n\n#[test]\nfn waits_to_be_interrupted() {{\n    \
                     let flag = loom::sync::atomic::AtomicBool::new(false);\n    \
                     println!(\"{marker}\");\n    \
                     // Ends by itself if no interrupt comes.\n    \
                     std::thread::sleep(std::time::Duration::from_secs(20 * 60));\n    \
                     assert!(!flag.into_inner());\n}}\n"
                ),
            ),
        ],
    );
    // The lock file a user of real loom has: the run must point it at the stand-in, so that
    // there is something to put back.
    let generate = Command::new(env!("CARGO")).arg("generate-lockfile").current_dir(&dir).status().unwrap();
    assert!(generate.success(), "cargo generate-lockfile");
    let lock = dir.join("Cargo.lock");
    let before = std::fs::read(&lock).unwrap();
    assert!(String::from_utf8_lossy(&before).contains("name = \"loom\"\nversion = \"0.7."), "real loom is pinned");

    let mut running = cargo_racer(&dir, &["--loom", "--", "--nocapture"]);
    let started = running.read_until(|l| l == marker);
    assert!(started, "the loom test did not start\n{}\n{}", running.stdout, running.stderr);
    let during = std::fs::read(&lock).unwrap();
    assert!(during != before, "while the run goes on, the lock file names the stand-in");
    running.signal_group(libc::SIGINT);
    let r = running.finish();

    let after = std::fs::read(&lock).unwrap();
    let shown = String::from_utf8_lossy(&after);
    assert!(after == before, "the lock file is not back as it was:\n{shown}\n{}", r.all());
    assert_eq!(r.status.code(), Some(130), "{}", r.all());
    assert!(r.stderr.contains("cargo racer: interrupted (0 data race(s) reported before that)"), "{}", r.all());
}

fn racy_crate() -> PathBuf {
    scratch_crate(
        "two-racy-binaries",
        &[
            ("Cargo.toml", manifest("racer-cli-two-racy-binaries", true, true, "")),
            ("src/lib.rs", String::new()),
            ("tests/a_racy.rs", racy_test("first")),
            ("tests/b_racy.rs", racy_test("second") + &racy_test("third")),
        ],
    )
}

#[test]
fn every_test_binary_runs_after_one_fails() {
    let _turn = one_at_a_time();
    let dir = racy_crate();
    // Each binary fails with its races: cargo's default would stop after the first.
    let r = cargo_racer(&dir, &[]).finish();
    assert!(r.stderr.contains("cargo racer: 3 data race(s) reported (0 test(s) passed, 3 failed)"), "{}", r.all());
    assert_eq!(r.status.code(), Some(101), "cargo test's status for failed tests\n{}", r.all());
    assert!(!r.stderr.contains("did not run"), "{}", r.all());

    // Asked to stop at the first failure, the runner says that some binaries did not run.
    let r = cargo_racer(&dir, &["--fail-fast"]).finish();
    assert!(
        r.stderr.contains("cargo racer: cargo test stopped at the first failing test binary (--fail-fast)"),
        "{}",
        r.all()
    );
    assert!(!r.stderr.contains("3 data race(s)"), "one binary did not run\n{}", r.all());
}

#[test]
fn excluded_members_need_no_race_detect_feature() {
    let _turn = one_at_a_time();
    let dir = scratch_crate(
        "workspace",
        &[
            ("Cargo.toml", "[workspace]\nmembers = [\"checked\", \"plain\"]\nresolver = \"2\"\n".to_owned()),
            ("checked/Cargo.toml", manifest("racer-cli-checked", true, false, "")),
            ("checked/src/lib.rs", "#[test]\nfn passes() {}\n".to_owned()),
            ("plain/Cargo.toml", manifest("racer-cli-plain", false, false, "")),
            ("plain/src/lib.rs", String::new()),
        ],
    );
    let r = cargo_racer(&dir, &["--workspace"]).finish();
    assert_eq!(r.status.code(), Some(2), "{}", r.all());
    assert!(r.stderr.contains("`racer-cli-plain` has no `race-detect` feature"), "{}", r.all());
    assert!(r.stderr.contains("`--workspace --exclude racer-cli-plain`"), "the way out is named\n{}", r.all());

    for args in [&["--workspace", "--exclude", "racer-cli-plain"][..], &["-p", "racer-cli-checked"]] {
        let r = cargo_racer(&dir, args).finish();
        assert!(r.status.success(), "{args:?}\n{}", r.all());
        assert!(r.stderr.contains("cargo racer: no data races found (1 test(s) passed, racer on)"), "{}", r.all());
    }
}

/// Outside any Cargo project: the runner fails before cargo test runs, and names the typo.
#[test]
fn a_typo_of_a_runner_flag_is_named() {
    let dir = scratch_crate("no-project", &[("README", String::new())]);
    let out =
        Command::new(env!("CARGO_BIN_EXE_cargo-racer")).args(["racer", "test", "--lom"]).current_dir(&dir).output();
    let out = out.unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "`--lom` is passed to cargo test as one of its own options: did you mean cargo racer's `--loom`?"
        ),
        "{stderr}"
    );
}

#[test]
fn version_and_help() {
    for (args, wanted) in [
        (&["racer", "--version"][..], format!("cargo-racer {}\n", env!("CARGO_PKG_VERSION"))),
        (&["racer", "test", "--help"], "Usage: cargo racer test [--loom]".to_owned()),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_cargo-racer")).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stdout).starts_with(&wanted), "{args:?}");
    }
}
