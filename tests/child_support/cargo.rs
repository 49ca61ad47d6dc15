//! A child `cargo` (or the `cargo-racer` it built) run by the suites that fetch published crates
//! from the registry (`tests/loom_suites.rs`, `tests/async_suites.rs`, `tests/async_mutants.rs`,
//! `tests/real_crates.rs`), and the switch that runs them: they take minutes and need the
//! registry, so a plain `cargo test` skips them, with a printed line, unless
//! `RACER_REGISTRY_SUITES=1` (which `.ci/run` sets).
// Each suite uses its part.
#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The variable that runs the registry suites.
pub const SWITCH: &str = "RACER_REGISTRY_SUITES";

/// Whether the calling test is to be skipped (`RACER_REGISTRY_SUITES` is not `1`); if so, says
/// so on standard error, naming the test.
pub fn skipped() -> bool {
    if std::env::var(SWITCH).is_ok_and(|v| v == "1") {
        return false;
    }
    let name = std::thread::current().name().unwrap_or("this test").to_owned();
    eprintln!("skipped {name}: it fetches published crates from the registry; {SWITCH}=1 runs it (.ci/run does)");
    true
}

/// `<target>/real-crates`, next to this build's own debug directory (CARGO_TARGET_TMPDIR is
/// `<target>/tmp`): the children's target directory, never this build's lock.
pub fn real_crates_target() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).parent().expect("the target directory").join("real-crates")
}

/// The output of a child.
pub struct Run {
    pub shown: String,
    pub success: bool,
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The command, its status and its whole output, for a failure message.
    pub fn all(&self) -> String {
        format!(
            "{} exited {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.shown, self.code, self.stdout, self.stderr
        )
    }

    /// Lines that speak of a data race (racer's reports, its `loom::model` panic, its summaries);
    /// never the all-clear "no data races found".
    pub fn race_lines(&self) -> Vec<&str> {
        self.stdout
            .lines()
            .chain(self.stderr.lines())
            .filter(|l| l.contains("data race") && !l.contains("no data races"))
            .collect()
    }

    /// The number of passed tests over every `test result:` line.
    pub fn passed(&self) -> usize {
        self.stdout
            .lines()
            .filter_map(|l| l.trim().strip_prefix("test result: ok. "))
            .filter_map(|rest| rest.split(' ').next()?.parse::<usize>().ok())
            .sum()
    }
}

/// Runs `cmd` (without the outer build's `CARGO_ENCODED_RUSTFLAGS` and `CARGO_BUILD_RUSTFLAGS`)
/// in its own process group, reading its output as it goes; after `timeout` the whole group
/// (cargo and the test binaries it started) is killed and the test fails.
pub fn run(mut cmd: Command, timeout: Duration) -> Run {
    cmd.env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let shown = format!("{cmd:?}");
    eprintln!("running: {shown}");
    let started = Instant::now();
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd.spawn().expect("the child starts");
    let mut out_pipe = child.stdout.take().expect("piped stdout");
    let mut err_pipe = child.stderr.take().expect("piped stderr");
    let out_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out_pipe.read_to_end(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err_pipe.read_to_end(&mut s);
        s
    });
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for the child") {
            break Some(status);
        }
        if started.elapsed() > timeout {
            // Our own child's process group, by its id.
            let _ = Command::new("kill").args(["-KILL", "--", &format!("-{}", child.id())]).status();
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let stdout = String::from_utf8_lossy(&out_reader.join().expect("stdout reader")).into_owned();
    let stderr = String::from_utf8_lossy(&err_reader.join().expect("stderr reader")).into_owned();
    eprintln!("took {:.1?} (including any build)", started.elapsed());
    let run = Run {
        shown,
        success: status.is_some_and(|s| s.success()),
        code: status.and_then(|s| s.code()),
        stdout,
        stderr,
    };
    assert!(status.is_some(), "did not finish within {timeout:?}\n{}", run.all());
    run
}

#[test]
fn race_lines_ignore_the_all_clear() {
    let run = Run {
        shown: String::new(),
        success: true,
        code: Some(0),
        stdout: "test result: ok. 13 passed; 0 failed\n   test result: ok. 2 passed; 0 failed\nok".to_owned(),
        stderr: "racer: no data races found\nWARNING: racer: data race (flow: ...)".to_owned(),
    };
    assert_eq!(run.race_lines(), ["WARNING: racer: data race (flow: ...)"]);
    assert_eq!(run.passed(), 15);
}

/// The registry sources of the crates a fetch manifest pins (`real-crates/<suite>/Cargo.toml`),
/// fetched by `cargo metadata`: name -> directory.
pub fn registry_sources(manifest: &Path, timeout: Duration) -> Vec<(String, PathBuf)> {
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args(["metadata", "--format-version", "1", "--manifest-path"]).arg(manifest);
    cmd.env_remove("RUSTFLAGS").env_remove("RACER_OPTIONS");
    let r = run(cmd, timeout);
    assert!(r.success, "cargo metadata fetches the crates\n{}", r.all());
    let meta: serde_json::Value = serde_json::from_str(&r.stdout).expect("metadata is JSON");
    meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .filter(|p| p["source"].as_str().is_some_and(|s| s.starts_with("registry+")))
        .map(|p| {
            let manifest = PathBuf::from(p["manifest_path"].as_str().expect("manifest_path"));
            (p["name"].as_str().unwrap().to_owned(), manifest.parent().unwrap().to_owned())
        })
        .collect()
}

/// A fresh copy of `from` at `<tmp>/<suite>-<target hash>/<label>`: outside this repository
/// (cargo would take a copy inside it for a member of this workspace), at the same path on
/// every run so that its build is incremental.
pub fn fresh_copy(suite: &str, from: &Path, label: &str) -> PathBuf {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    real_crates_target().hash(&mut h);
    let to = std::env::temp_dir().join(format!("{suite}-{:016x}", h.finish())).join(label);
    let _ = std::fs::remove_dir_all(&to);
    copy_dir(from, &to);
    to
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("creating the copy");
    for entry in std::fs::read_dir(from).expect("reading the source") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("its type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copying a file");
            let mut perms = std::fs::metadata(&target).expect("its metadata").permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            std::fs::set_permissions(&target, perms).expect("making it writable");
        }
    }
}
