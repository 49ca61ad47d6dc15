//! The loom patch (`--loom`): the crate's `loom` dependency pointed at racer's stand-in for one
//! `cargo test` run, through cargo's command line only (`--config patch...`, `--features`,
//! rustflags), and the one file that this changes, the user's `Cargo.lock`, put back byte for
//! byte by a [`LockGuard`] however the run ends.
//!
//! The stand-in is `$RACER_LOOM_PATH` if set, else `<racer>/loom-compat` next to this runner's
//! source (fixed when the runner was built): a package named `loom` 0.7.99, or its `v05` folder
//! (`loom` 0.5.99) for a crate that pins loom 0.5.

use crate::workspace::{loom_dependency, names, Workspace};
use crate::{arguments::Args, interrupt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The package whose loom tests run, and the stand-in that replaces its loom.
pub struct LoomPatch {
    package: String,
    /// The name under which the package depends on loom (its rename, or `loom`).
    dependency: String,
    stand_in: PathBuf,
}

impl LoomPatch {
    /// The first picked member with a loom dependency, and the stand-in for its loom version.
    pub fn choose(ws: &Workspace) -> Result<Self, String> {
        let found = ws.selected.iter().find_map(|p| Some((p.name.clone(), loom_dependency(p)?)));
        let Some((package, (dependency, req))) = found else {
            let many = ws.selected.len() > 1;
            return Err(format!(
                "--loom: {} {} no cfg(loom) seam: `loom` is not among {} dependencies (cargo metadata). \
                 A crate with a seam depends on loom under a cfg, e.g. `[target.'cfg(loom)'.dependencies] loom = \"0.7\"`, \
                 and uses `loom::` items under `#[cfg(loom)]`. For a crate that uses racer directly, run `cargo racer test` without --loom.",
                if ws.selected.is_empty() { "the selected package".to_owned() } else { names(&ws.selected) },
                if many { "have" } else { "has" },
                if many { "their" } else { "its" },
            ));
        };
        let stand_in = match (admits(&req, 7), admits(&req, 5)) {
            (true, _) => stand_in_path()?,
            (false, true) => stand_in_path()?.join("v05"),
            (false, false) => {
                return Err(format!(
                    "--loom: `{package}` depends on loom `{req}`; racer's loom stand-ins replace loom 0.7 (version 0.7.99) and 0.5 (0.5.99) only"
                ))
            }
        };
        Ok(LoomPatch { package, dependency, stand_in })
    }

    /// Adds the patch to `cargo` (the `cargo test` command) and points the lock file at the
    /// stand-in; the returned guard puts the lock file back when dropped.
    pub fn apply(&self, cargo: &mut Command, args: &Args, ws: &Workspace) -> Result<LockGuard, String> {
        let cfgs = if args.cfgs.is_empty() { vec!["loom".to_owned()] } else { args.cfgs.clone() };
        let (var, flags) = rustflags_with(&cfgs);
        if var == "CARGO_ENCODED_RUSTFLAGS" {
            cargo.env_remove("RUSTFLAGS");
        }
        cargo.env(var, &flags);
        // The lock file may pin several loom versions (0.5 behind a dependency's inactive cfg
        // beside the crate's own 0.7): each is patched with its stand-in, so that cargo can
        // resolve the graph it locks, under its own `[patch]` key.
        let lock_path = ws.root.join("Cargo.lock");
        let locked = std::fs::read(&lock_path).map(|l| locked_loom_versions(&l)).unwrap_or_default();
        let mut patches = patch_config("loom", &self.stand_in)?;
        let chosen_minor = if self.stand_in.ends_with("v05") { 5 } else { 7 };
        for minor in [5, 7] {
            if minor != chosen_minor && locked.iter().any(|v| v.starts_with(&format!("0.{minor}."))) {
                let other = if minor == 5 { stand_in_path()?.join("v05") } else { stand_in_path()? };
                patches.extend(patch_config(&format!("loom0{minor}"), &other)?);
            }
        }
        for patch in &patches {
            cargo.args(["--config", patch]);
        }
        // The stand-in and the facade it forwards to are built optimised whatever the crate's
        // profile: unoptimised, their small forwarding functions, run at every atomic operation,
        // made concurrent-queue's own spin tests outside any model run 20 times slower than
        // std's (a name absent from the graph only makes cargo warn, and the crate itself keeps
        // its profile).
        for package in ["loom", "racer-detector", "racer-rt"] {
            cargo.args(["--config", &format!("profile.dev.package.{package}.opt-level=3")]);
        }
        // The stand-in's racer on, under the name this package gives loom.
        cargo.args(["--features", &format!("{}/race-detect", self.dependency)]);
        eprintln!(
            "cargo racer: loom tests of `{}` on racer's loom stand-in ({}), {var}={}",
            self.package,
            self.stand_in.display(),
            flags.replace('\x1f', " ")
        );
        // From here on the lock file may change: cargo writes the patched loom into it.
        let guard = LockGuard::arm(lock_path)?;
        // A lock file that pins the real loom keeps cargo from taking the patch: point each
        // locked loom at its stand-in for this run (by version: `-p loom` alone is ambiguous
        // when two are locked).
        for version in &locked {
            let mut update = Command::new(crate::cargo_bin());
            update.args(["update", "--quiet", "-p", &format!("loom@{version}")]);
            for patch in &patches {
                update.args(["--config", patch]);
            }
            for m in args.values("--manifest-path", None) {
                update.args(["--manifest-path", m]);
            }
            if args.has(&["--offline", "--frozen"]) {
                update.arg("--offline");
            }
            // A failure shows in cargo test's own run next.
            let _ = interrupt::status(update.stdout(Stdio::null()));
        }
        Ok(guard)
    }
}

/// The user's lock file as it was when armed, written back (or removed, if there was none)
/// when dropped: on return from `run`, on a panic's unwinding, and after Ctrl-C, which the
/// interrupt handler turns into a return instead of the process's death.
pub struct LockGuard {
    path: PathBuf,
    before: Option<Vec<u8>>,
}

impl LockGuard {
    pub fn arm(path: PathBuf) -> Result<Self, String> {
        let before = match std::fs::read(&path) {
            Ok(bytes) => Some(bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            // Unread, it could not be put back: do not run.
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
        };
        Ok(LockGuard { path, before })
    }
}

impl Drop for LockGuard {
    fn drop(&mut self) {
        if std::fs::read(&self.path).ok() == self.before {
            return; // untouched: leave its timestamp alone
        }
        let restored = match &self.before {
            Some(bytes) => std::fs::write(&self.path, bytes),
            None => std::fs::remove_file(&self.path),
        };
        if let Err(e) = restored {
            eprintln!("cargo racer: could not put {} back as it was: {e}", self.path.display());
        }
    }
}

/// Whether a version requirement of `loom` admits 0.`minor`.99 (a stand-in's version): for
/// 0.7, `0.7`, `^0.7.2`, `~0.7`, `>=0.7`, `*`. `=0.7.2` counts too: cargo then says that the
/// patch went unused, and the runner repeats it in plain words.
fn admits(req: &str, wanted: u32) -> bool {
    req.split(',').all(|part| {
        let p = part.trim();
        if p == "*" {
            return true;
        }
        let v = p.trim_start_matches(['^', '~', '=', '>', '<', ' ']);
        let mut nums = v.split('.');
        let (major, minor) = (nums.next(), nums.next());
        if p.starts_with('>') {
            return major == Some("0") && minor.is_none_or(|m| m.parse::<u32>().map_or(true, |m| m <= wanted));
        }
        if p.starts_with('<') {
            return true;
        }
        major == Some("0") && minor.is_none_or(|m| m == "*" || m.parse() == Ok(wanted))
    })
}

fn stand_in_path() -> Result<PathBuf, String> {
    let (path, from) = match std::env::var_os("RACER_LOOM_PATH") {
        Some(p) => (PathBuf::from(p), "RACER_LOOM_PATH"),
        None => {
            let checkout = Path::new(env!("CARGO_MANIFEST_DIR")).join("../loom-compat");
            if !checkout.join("Cargo.toml").is_file() {
                // Installed without a checkout of racer: the copy carried inside the runner.
                return crate::carried::stand_in();
            }
            (checkout, "the runner's build-time location")
        }
    };
    let abs = std::fs::canonicalize(&path).map_err(|e| {
        format!(
            "racer's loom stand-in not found at {} ({from}): {e}; set RACER_LOOM_PATH to racer's loom-compat folder",
            path.display()
        )
    })?;
    let manifest = std::fs::read_to_string(abs.join("Cargo.toml")).unwrap_or_default();
    if !manifest.lines().any(|l| l.trim().replace(' ', "") == "name=\"loom\"") {
        return Err(format!(
            "{} ({from}) is not racer's loom stand-in (no package named `loom` in its Cargo.toml); set RACER_LOOM_PATH to racer's loom-compat folder",
            abs.display()
        ));
    }
    Ok(abs)
}

/// The environment variable and value that add `cfgs` to the user's own rustflags.
fn rustflags_with(cfgs: &[String]) -> (&'static str, String) {
    let ours: Vec<String> = cfgs.iter().flat_map(|c| ["--cfg".to_owned(), c.clone()]).collect();
    if let Ok(encoded) = std::env::var("CARGO_ENCODED_RUSTFLAGS") {
        // Takes precedence over RUSTFLAGS; its flags are separated by 0x1f.
        let mut all: Vec<String> = encoded.split('\x1f').filter(|f| !f.is_empty()).map(str::to_owned).collect();
        all.extend(ours);
        return ("CARGO_ENCODED_RUSTFLAGS", all.join("\x1f"));
    }
    let user = std::env::var("RUSTFLAGS").unwrap_or_default();
    let user = user.trim();
    let ours = ours.join(" ");
    ("RUSTFLAGS", if user.is_empty() { ours } else { format!("{user} {ours}") })
}

/// The `--config` values that patch crates.io's `loom` with the stand-in at `path`, under the
/// `[patch]` key `key` (`loom`, or `loom05`/`loom07` for a second version, with `package`).
fn patch_config(key: &str, path: &Path) -> Result<Vec<String>, String> {
    let path = path.to_str().ok_or("the loom stand-in's path is not UTF-8")?;
    let quoted = format!("\"{}\"", path.replace('\\', "\\\\").replace('"', "\\\""));
    let mut config = vec![format!("patch.crates-io.{key}.path={quoted}")];
    if key != "loom" {
        config.push(format!("patch.crates-io.{key}.package=\"loom\""));
    }
    Ok(config)
}

/// The versions of the real loom a lock file's text pins (not a stand-in's .99).
fn locked_loom_versions(lock: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(lock);
    let lines: Vec<&str> = text.lines().collect();
    lines
        .windows(2)
        .filter(|w| w[0].trim() == "name = \"loom\"")
        .filter_map(|w| w[1].trim().strip_prefix("version = \"")?.strip_suffix('"'))
        .filter(|v| !v.ends_with(".99"))
        .map(str::to_owned)
        .collect()
}

/// After the run: says in plain words what cargo's stderr shows went wrong with the patch (loom
/// items the stand-in lacks; a patch cargo did not use).
pub fn explain(stderr: &str) {
    let missing = missing_loom_items(stderr);
    if !missing.is_empty() {
        eprintln!(
            "cargo racer: the crate uses loom items that racer's loom stand-in does not have: {}. \
             The stand-in (package `loom` 0.7.99) has loom 0.7's cell, sync, thread, hint, alloc, future and model; \
             these would need adding to it before this crate's loom tests can run under racer.",
            missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")
        );
    }
    if (stderr.contains("Patch `loom v0.7.99") || stderr.contains("Patch `loom v0.5.99"))
        && stderr.contains("was not used in the crate graph")
    {
        eprintln!("cargo racer: cargo did not use racer's loom stand-in (see cargo's warning above): nothing here was checked by racer");
    }
}

/// The loom items that the compile errors in `stderr` say racer's stand-in lacks.
fn missing_loom_items(stderr: &str) -> Vec<String> {
    let lines: Vec<&str> = stderr.lines().collect();
    let mut items = Vec::new();
    let ticked = |s: &str| -> Vec<String> { s.split('`').skip(1).step_by(2).map(str::to_owned).collect() };
    for (n, line) in lines.iter().enumerate() {
        if !line.starts_with("error") {
            continue;
        }
        let t = ticked(line);
        let below = &lines[n + 1..lines.len().min(n + 12)];
        let item = if line.contains("unresolved import") {
            t.first().filter(|p| p.starts_with("loom::")).cloned()
        } else if (line.contains("could not find") || line.contains("cannot find")) && t.len() >= 2 {
            if t[1] == "loom" {
                Some(format!("loom::{}", t[0]))
            } else if t[1].starts_with("loom::") {
                Some(format!("{}::{}", t[1], t[0]))
            } else {
                // `could not find X in M`: the path in the source lines below says which M.
                let needle = format!("{}::{}", t[1], t[0]);
                below.iter().find(|l| l.contains("loom::") && l.contains(&needle)).and_then(|l| {
                    let tail = &l[l.find("loom::")?..];
                    let end = tail.find(&needle)? + needle.len();
                    Some(tail[..end].to_owned())
                })
            }
        } else if (line.contains("no method named") || line.contains("no function or associated item named"))
            && t.len() >= 2
        {
            // The type is named without its path: accept it when the source line shows loom.
            let ty = t[1].split('<').next().unwrap_or(&t[1]).to_owned();
            let is_loom = t[1].contains("loom::") || below.iter().any(|l| l.contains("loom::"));
            is_loom.then(|| format!("{ty}::{} (a method of loom's `{ty}`)", t[0]))
        } else {
            None
        };
        if let Some(item) = item.filter(|i| !items.contains(i)) {
            items.push(item);
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_requirements() {
        for ok in ["0.7", "^0.7.2", "~0.7", "=0.7.2", "*", ">=0.5", ">=0.7, <0.8"] {
            assert!(admits(ok, 7), "{ok}");
        }
        for bad in ["0.5", "^0.6", "1.0", ">=0.8"] {
            assert!(!admits(bad, 7), "{bad}");
        }
        for ok in ["0.5", "^0.5.6", "~0.5", "=0.5.6"] {
            assert!(admits(ok, 5), "{ok}");
        }
        for bad in ["0.7", "^0.6", "0.4"] {
            assert!(!admits(bad, 5), "{bad}");
        }
    }

    #[test]
    fn missing_items_are_named() {
        let err = "\
error[E0432]: unresolved import `loom::sync::Notify`
 --> src/lib.rs:3:5
error[E0433]: failed to resolve: could not find `future` in `loom`
  --> tests/loom.rs:80:27
error[E0433]: failed to resolve: could not find `Notify` in `sync`
  --> src/lib.rs:9:19
   |
9  |     let n = loom::sync::Notify::new();
   |                         ^^^^^^ could not find `Notify` in `sync`
error[E0425]: cannot find function `skip_branch` in crate `loom`
error[E0433]: cannot find `Notify` in `sync`
  --> src/lib.rs:57:17
   |
57 |     loom::sync::Notify::new()
   |                 ^^^^^^ could not find `Notify` in `sync`
error[E0425]: cannot find type `Notify` in module `loom::sync`
";
        assert_eq!(missing_loom_items(err), ["loom::sync::Notify", "loom::future", "loom::skip_branch"]);
        assert!(missing_loom_items("error[E0432]: unresolved import `std::foo`").is_empty());
    }

    #[test]
    fn every_real_loom_a_lock_file_pins_is_found() {
        let lock =
            b"[[package]]\nname = \"loom\"\nversion = \"0.5.6\"\n\n[[package]]\nname = \"loom\"\nversion = \"0.7.3\"\n";
        assert_eq!(locked_loom_versions(lock), ["0.5.6", "0.7.3"]);
        assert!(locked_loom_versions(b"[[package]]\nname = \"loom\"\nversion = \"0.7.99\"\n").is_empty());
        assert!(locked_loom_versions(b"[[package]]\nname = \"loom\"\nversion = \"0.5.99\"\n").is_empty());
        assert!(locked_loom_versions(b"[[package]]\nname = \"loomy\"\nversion = \"0.7.2\"\n").is_empty());
    }

    #[test]
    fn a_second_loom_version_is_patched_under_its_own_key() {
        let dir = Path::new("/opt/racer/loom-compat");
        assert_eq!(patch_config("loom", dir).unwrap(), ["patch.crates-io.loom.path=\"/opt/racer/loom-compat\""]);
        assert_eq!(
            patch_config("loom05", &dir.join("v05")).unwrap(),
            ["patch.crates-io.loom05.path=\"/opt/racer/loom-compat/v05\"", "patch.crates-io.loom05.package=\"loom\""]
        );
    }

    #[test]
    fn rustflags_are_appended() {
        // Only the pure part: the environment of this test process decides the branch.
        let (var, v) = rustflags_with(&["loom".to_owned()]);
        match var {
            "RUSTFLAGS" => assert!(v.ends_with("--cfg loom")),
            _ => assert!(v.ends_with("--cfg\x1floom")),
        }
    }

    /// A fresh directory for one test (this process's own).
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("cargo-racer-lock-guard-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn the_guard_puts_the_lock_file_back_after_a_panic() {
        let lock = scratch("panic").join("Cargo.lock");
        let before = b"# the user's\r\nversion = 3\n\n[[package]]\nname = \"loom\"\nversion = \"0.7.2\"\n";
        std::fs::write(&lock, before).unwrap();
        let unwound = std::panic::catch_unwind(|| {
            let _guard = LockGuard::arm(lock.clone()).unwrap();
            std::fs::write(&lock, "version = 4\n").unwrap();
            panic!("a bug in the runner");
        });
        assert!(unwound.is_err());
        assert_eq!(std::fs::read(&lock).unwrap(), before);
        let _ = std::fs::remove_dir_all(lock.parent().unwrap());
    }

    #[test]
    fn the_guard_removes_a_lock_file_the_run_created() {
        let lock = scratch("absent").join("Cargo.lock");
        let guard = LockGuard::arm(lock.clone()).unwrap();
        std::fs::write(&lock, "version = 4\n").unwrap();
        drop(guard);
        assert!(!lock.exists());
        let _ = std::fs::remove_dir_all(lock.parent().unwrap());
    }
}
