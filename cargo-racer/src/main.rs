//! `cargo racer test`: run a crate's tests with racer turned on.
//!
//! ```text
//! cargo racer test [--loom] [--cfg NAME]... [cargo test options...] [-- test binary options...]
//! ```
//!
//! - Without `--loom`, for crates that use racer directly: `cargo test --features race-detect`
//!   (the crate's own feature that turns `racer/race-detect` on). No other flag is needed: the
//!   detector is optimised by racer-rt's build script in every profile, and stacks are walked
//!   without frame pointers.
//! - With `--loom`, for crates that already have a `cfg(loom)` seam: the crate's tests run on
//!   racer's loom stand-in (`loom-compat`, a package named `loom` 0.7.99; for a crate that
//!   pins loom 0.5, `loom-compat/v05`, the same under 0.5.99) instead of loom, on real threads,
//!   each `loom::model` exploring schedules. The runner adds `--cfg loom` to the rustflags (or, when `--cfg NAME` is given,
//!   that cfg instead: `--cfg crossbeam_loom`, `--cfg oneshot_loom`; repeat `--cfg` for several),
//!   puts the stand-in in place with `--config 'patch.crates-io.loom.path="..."'`, and turns
//!   racer on through the stand-in's `race-detect` feature
//!   (`--features <the crate's loom dependency>/race-detect`).
//!
//! Everything else goes to `cargo test` unchanged. At the end the runner prints one summary
//! line: the number of data races reported, or that none was. Its exit status is cargo's (66 if
//! races were reported and cargo itself succeeded).
//!
//! The stand-in is found at `$RACER_LOOM_PATH` if set, else next to this runner's own source
//! (`<racer>/loom-compat`, fixed when the runner was built).

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

const USAGE: &str = "\
Usage: cargo racer test [--loom] [--cfg NAME]... [cargo test options...] [-- test binary options...]

Runs `cargo test` with the racer data race detector turned on.

Options of cargo racer:
      --loom        Run the crate's existing loom tests (its cfg(loom) seam) on racer's loom
                    stand-in, on real threads: adds `--cfg loom` to the rustflags, patches
                    `loom` with racer's stand-in and turns racer on. Without --loom: `cargo
                    test --features race-detect` for crates that use racer directly.
      --cfg NAME    With --loom: the cfg the crate's seam uses, instead of `loom` (e.g.
                    `--cfg crossbeam_loom`, `--cfg oneshot_loom`); repeat for several
                    (`--cfg loom --cfg NAME` for both).
  -h, --help        This text.

Every other option goes to `cargo test` (see `cargo test --help`); options after `--` go to
the test binaries.

Environment:
  RACER_LOOM_PATH   The loom stand-in's directory (default: the loom-compat folder of the racer
                    checkout this runner was built from).";

/// cargo test's options that take a value (the next argument, or `--opt=value`).
const CARGO_OPTS_WITH_VALUE: &[&str] = &[
    "--message-format",
    "--color",
    "--config",
    "--package",
    "--exclude",
    "--features",
    "--jobs",
    "--profile",
    "--target",
    "--target-dir",
    "--manifest-path",
    "--lockfile-path",
];

/// cargo test's options that may take a value (`--bin` alone lists the binaries).
const CARGO_OPTS_OPTIONAL_VALUE: &[&str] = &["--bin", "--example", "--test", "--bench", "--timings"];

/// cargo test's options without a value.
const CARGO_FLAGS: &[&str] = &[
    "--no-run",
    "--no-fail-fast",
    "--future-incompat-report",
    "--quiet",
    "--verbose",
    "--workspace",
    "--all",
    "--lib",
    "--bins",
    "--examples",
    "--tests",
    "--benches",
    "--all-targets",
    "--doc",
    "--all-features",
    "--no-default-features",
    "--release",
    "--unit-graph",
    "--ignore-rust-version",
    "--locked",
    "--offline",
    "--frozen",
    "--keep-going",
];

/// Short options of cargo test: the ones taking a value, and the flags.
const SHORT_WITH_VALUE: &[char] = &['p', 'F', 'j', 'Z'];
const SHORT_FLAGS: &[char] = &['q', 'v', 'r', 'h'];

/// What the command line asked for.
#[derive(Debug, Default, PartialEq)]
struct Args {
    loom: bool,
    cfgs: Vec<String>,
    /// Arguments for `cargo test` before `--`.
    cargo: Vec<String>,
    /// Arguments after `--`, for the test binaries (without the `--`).
    test: Option<Vec<String>>,
    help: bool,
}

fn parse_args(argv: &[String]) -> Result<Args, String> {
    let mut rest = argv;
    // `cargo racer ...` runs `cargo-racer racer ...`.
    if rest.first().map(String::as_str) == Some("racer") {
        rest = &rest[1..];
    }
    let mut args = Args::default();
    match rest.first().map(String::as_str) {
        Some("test") => rest = &rest[1..],
        Some("-h" | "--help" | "help") | None => {
            args.help = true;
            return Ok(args);
        }
        Some(other) => {
            return Err(format!("unknown subcommand `{other}` (cargo racer has one: `cargo racer test`)"));
        }
    }
    let mut i = 0;
    while i < rest.len() {
        let arg = &rest[i];
        i += 1;
        if arg == "--" {
            args.test = Some(rest[i..].to_vec());
            break;
        }
        if arg == "--loom" {
            args.loom = true;
            continue;
        }
        if arg == "--cfg" || arg.starts_with("--cfg=") {
            let name = match arg.strip_prefix("--cfg=") {
                Some(v) => v.to_owned(),
                None => {
                    let v = rest.get(i).ok_or("`--cfg` needs a cfg name, e.g. `--cfg crossbeam_loom`")?;
                    i += 1;
                    v.clone()
                }
            };
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(format!("`--cfg {name}`: a cfg name is an identifier, e.g. `crossbeam_loom`"));
            }
            args.cfgs.push(name);
            continue;
        }
        if arg == "-h" || arg == "--help" {
            args.help = true;
            continue;
        }
        args.cargo.push(arg.clone());
        if !arg.starts_with('-') || arg == "-" {
            continue; // a test name filter, or a value
        }
        if let Some(long) = arg.strip_prefix("--") {
            let name = format!("--{}", long.split('=').next().unwrap_or(long));
            let has_inline_value = long.contains('=');
            if CARGO_OPTS_WITH_VALUE.contains(&name.as_str()) {
                if !has_inline_value {
                    let v = rest.get(i).ok_or(format!("`{name}` needs a value (see `cargo test --help`)"))?;
                    args.cargo.push(v.clone());
                    i += 1;
                }
            } else if CARGO_OPTS_OPTIONAL_VALUE.contains(&name.as_str()) {
                if !has_inline_value {
                    if let Some(v) = rest.get(i).filter(|v| !v.starts_with('-')) {
                        args.cargo.push(v.clone());
                        i += 1;
                    }
                }
            } else if !CARGO_FLAGS.contains(&name.as_str()) || has_inline_value {
                return Err(unknown_flag(&name));
            }
        } else {
            // Short options: `-p NAME`, `-pNAME`, `-vv`, `-rq`.
            let chars: Vec<char> = arg[1..].chars().collect();
            for (k, c) in chars.iter().enumerate() {
                if SHORT_WITH_VALUE.contains(c) {
                    if k + 1 == chars.len() {
                        let v = rest.get(i).ok_or(format!("`-{c}` needs a value (see `cargo test --help`)"))?;
                        args.cargo.push(v.clone());
                        i += 1;
                    }
                    break;
                } else if !SHORT_FLAGS.contains(c) {
                    return Err(unknown_flag(&format!("-{c}")));
                }
            }
        }
    }
    if !args.cfgs.is_empty() && !args.loom {
        return Err("`--cfg NAME` names the cfg of a loom seam: it goes with `--loom`".to_owned());
    }
    Ok(args)
}

fn unknown_flag(name: &str) -> String {
    let ours = ["--loom", "--cfg"];
    let mut known: Vec<&str> =
        ours.iter().chain(CARGO_OPTS_WITH_VALUE).chain(CARGO_OPTS_OPTIONAL_VALUE).chain(CARGO_FLAGS).copied().collect();
    known.sort_by_key(|k| edit_distance(name, k));
    let hint = match known.first() {
        Some(best) if edit_distance(name, best) <= 2 => format!(" (did you mean `{best}`?)"),
        _ => String::new(),
    };
    format!(
        "unknown flag `{name}`{hint}: cargo racer test takes `--loom`, `--cfg NAME` and cargo test's own options; \
         options for the test binaries go after `--`"
    )
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push((prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The value of cargo option `long` (or its short form) among `cargo`'s arguments.
fn option_values(cargo: &[String], long: &str, short: Option<char>) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < cargo.len() {
        let a = &cargo[i];
        if a == long || short.is_some_and(|s| *a == format!("-{s}")) {
            if let Some(v) = cargo.get(i + 1) {
                out.push(v.clone());
            }
            i += 2;
            continue;
        }
        if let Some(v) = a.strip_prefix(&format!("{long}=")) {
            out.push(v.to_owned());
        } else if let Some(s) = short {
            if let Some(v) = a.strip_prefix(&format!("-{s}")).filter(|v| !v.is_empty() && a.len() > 2) {
                out.push(v.to_owned());
            }
        }
        i += 1;
    }
    out
}

/// The package(s) under test and the workspace, from `cargo metadata --no-deps` (no network,
/// no resolution).
struct Workspace {
    root: PathBuf,
    /// The selected packages (`-p`, or the one whose manifest is the current one, or every
    /// member of a virtual workspace): (name, its `dependencies`, its `features`).
    selected: Vec<serde_json::Value>,
}

fn cargo_bin() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

fn workspace(args: &Args) -> Result<Workspace, String> {
    let mut cmd = Command::new(cargo_bin());
    cmd.args(["metadata", "--no-deps", "--format-version", "1"]);
    let manifest = option_values(&args.cargo, "--manifest-path", None).pop();
    if let Some(m) = &manifest {
        cmd.args(["--manifest-path", m]);
    }
    let out = cmd.stderr(Stdio::inherit()).output().map_err(|e| format!("cannot run `cargo metadata`: {e}"))?;
    if !out.status.success() {
        return Err("`cargo metadata` failed (above): is this a Cargo project?".to_owned());
    }
    let meta: serde_json::Value =
        serde_json::from_slice(&out.stdout).map_err(|e| format!("cannot read `cargo metadata`'s output: {e}"))?;
    let root = PathBuf::from(meta["workspace_root"].as_str().unwrap_or("."));
    let packages = meta["packages"].as_array().cloned().unwrap_or_default();
    let specs = option_values(&args.cargo, "--package", Some('p'));
    let all = args.cargo.iter().any(|a| a == "--workspace" || a == "--all");
    let selected: Vec<serde_json::Value> = if all {
        packages
    } else if !specs.is_empty() {
        packages
            .into_iter()
            .filter(|p| specs.iter().any(|s| s.split(['@', ':']).next() == p["name"].as_str()))
            .collect()
    } else {
        // The package whose manifest is the one cargo would use here.
        let current = match &manifest {
            Some(m) => std::fs::canonicalize(m).ok(),
            None => {
                let mut dir = std::env::current_dir().ok();
                let mut found = None;
                while let Some(d) = dir {
                    let m = d.join("Cargo.toml");
                    if m.is_file() && packages.iter().any(|p| same_file(p["manifest_path"].as_str(), &m)) {
                        found = Some(m);
                        break;
                    }
                    dir = d.parent().map(Path::to_path_buf);
                }
                found
            }
        };
        match current {
            Some(m) => packages.into_iter().filter(|p| same_file(p["manifest_path"].as_str(), &m)).collect(),
            None => packages, // a virtual workspace: its default members
        }
    };
    Ok(Workspace { root, selected })
}

fn same_file(a: Option<&str>, b: &Path) -> bool {
    match (a.and_then(|a| std::fs::canonicalize(a).ok()), std::fs::canonicalize(b).ok()) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// The name under which `package` depends on the package `loom` (its `rename`, or `loom`), and
/// the version requirement.
fn loom_dependency(package: &serde_json::Value) -> Option<(String, String)> {
    let deps = package["dependencies"].as_array()?;
    let dep = deps
        .iter()
        .find(|d| d["name"] == "loom" && d["kind"].is_null())
        .or_else(|| deps.iter().find(|d| d["name"] == "loom"))?;
    let name = dep["rename"].as_str().unwrap_or("loom").to_owned();
    Some((name, dep["req"].as_str().unwrap_or("*").to_owned()))
}

/// Whether a version requirement of `loom` admits 0.`minor`.99 (a stand-in's version): for
/// 0.7, `0.7`, `^0.7.2`, `~0.7`, `>=0.7`, `*`.
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
            return major == Some("0") && minor.map_or(true, |m| m.parse::<u32>().map_or(true, |m| m <= wanted));
        }
        if p.starts_with('<') {
            return true;
        }
        major == Some("0") && minor.map_or(true, |m| m == "*" || m.parse() == Ok(wanted))
    })
}

fn loom_compat_path() -> Result<PathBuf, String> {
    let (path, from) = match std::env::var_os("RACER_LOOM_PATH") {
        Some(p) => (PathBuf::from(p), "RACER_LOOM_PATH"),
        None => (Path::new(env!("CARGO_MANIFEST_DIR")).join("../loom-compat"), "the runner's build-time location"),
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

/// Whether a lock file's text has a `loom` entry other than the stand-in's version.
fn locks_real_loom(lock: &[u8]) -> bool {
    let text = String::from_utf8_lossy(lock);
    let lines: Vec<&str> = text.lines().collect();
    lines.windows(2).any(|w| {
        w[0].trim() == "name = \"loom\"" && !matches!(w[1].trim(), "version = \"0.7.99\"" | "version = \"0.5.99\"")
    })
}

/// A loom item that the compile errors in `stderr` say racer's stand-in lacks.
fn missing_loom_items(stderr: &str) -> Vec<String> {
    let lines: Vec<&str> = stderr.lines().collect();
    let mut items = Vec::new();
    let ticked = |s: &str| -> Vec<String> { s.split('`').skip(1).step_by(2).map(str::to_owned).collect() };
    for (n, line) in lines.iter().enumerate() {
        if !line.starts_with("error") {
            continue;
        }
        let t = ticked(line);
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
                lines[n + 1..lines.len().min(n + 12)]
                    .iter()
                    .find(|l| l.contains("loom::") && l.contains(&needle))
                    .and_then(|l| {
                        let start = l.find("loom::")?;
                        let tail = &l[start..];
                        let end = tail.find(&needle)? + needle.len();
                        Some(tail[..end].to_owned())
                    })
            }
        } else if (line.contains("no method named") || line.contains("no function or associated item named"))
            && t.len() >= 2
        {
            // The type is named without its path: accept it when the source line shows loom.
            let ty = t[1].split('<').next().unwrap_or(&t[1]).to_owned();
            let is_loom =
                t[1].contains("loom::") || lines[n + 1..lines.len().min(n + 12)].iter().any(|l| l.contains("loom::"));
            is_loom.then(|| format!("{ty}::{} (a method of loom's `{ty}`)", t[0]))
        } else {
            None
        };
        if let Some(item) = item {
            if !items.contains(&item) {
                items.push(item);
            }
        }
    }
    items
}

/// Counts in the output of a `cargo test` run.
#[derive(Default, Debug, PartialEq)]
struct Tally {
    races: usize,
    passed: usize,
    failed: usize,
}

impl Tally {
    fn line(&mut self, line: &str) {
        if line.contains("WARNING: racer: data race") {
            self.races += 1;
        }
        if let Some(rest) = line.trim().strip_prefix("test result: ") {
            let num = |key: &str| -> usize {
                rest.split(';')
                    .filter_map(|part| {
                        let part = part.trim().trim_start_matches("ok. ").trim_start_matches("FAILED. ");
                        part.strip_suffix(key).and_then(|n| n.trim().parse::<usize>().ok())
                    })
                    .sum()
            };
            self.passed += num("passed");
            self.failed += num("failed");
        }
    }
}

/// Copies `from` to `to` line by line, tallying, and keeps the text when `keep`.
fn pump(from: impl Read, mut to: impl Write, keep: bool) -> (Tally, String) {
    let mut tally = Tally::default();
    let mut kept = String::new();
    let mut reader = BufReader::new(from);
    let mut buf = Vec::new();
    while reader.read_until(b'\n', &mut buf).unwrap_or(0) > 0 {
        let _ = to.write_all(&buf);
        let _ = to.flush();
        let line = String::from_utf8_lossy(&buf);
        tally.line(&line);
        if keep {
            kept.push_str(&line);
        }
        buf.clear();
    }
    (tally, kept)
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let args = match parse_args(&argv) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("cargo racer: error: {e}");
            eprintln!("Run `cargo racer test --help` for the usage.");
            return ExitCode::from(2);
        }
    };
    if args.help {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    match run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("cargo racer: error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> Result<ExitCode, String> {
    let ws = workspace(args)?;
    let names = |ps: &[serde_json::Value]| -> String {
        ps.iter().filter_map(|p| p["name"].as_str()).map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
    };
    let mut cmd = Command::new(cargo_bin());
    cmd.arg("test");
    cmd.args(&args.cargo);
    let mut lock_to_restore = None;
    if args.loom {
        let with_loom: Vec<(String, (String, String))> =
            ws.selected.iter().filter_map(|p| Some((p["name"].as_str()?.to_owned(), loom_dependency(p)?))).collect();
        let Some((pkg, (dep, req))) = with_loom.first().cloned() else {
            return Err(format!(
                "--loom: {} {} no cfg(loom) seam: `loom` is not among {} dependencies (cargo metadata). \
                 A crate with a seam depends on loom under a cfg, e.g. `[target.'cfg(loom)'.dependencies] loom = \"0.7\"`, \
                 and uses `loom::` items under `#[cfg(loom)]`. For a crate that uses racer directly, run `cargo racer test` without --loom.",
                if ws.selected.is_empty() { "the selected package".to_owned() } else { names(&ws.selected) },
                if ws.selected.len() > 1 { "have" } else { "has" },
                if ws.selected.len() > 1 { "their" } else { "its" },
            ));
        };
        // loom 0.7's stand-in, or for a crate that pins loom 0.5 the same under 0.5's version.
        let compat = match (admits(&req, 7), admits(&req, 5)) {
            (true, _) => loom_compat_path()?,
            (false, true) => loom_compat_path()?.join("v05"),
            (false, false) => {
                return Err(format!(
                    "--loom: `{pkg}` depends on loom `{req}`; racer's loom stand-ins replace loom 0.7 (version 0.7.99) and 0.5 (0.5.99) only"
                ))
            }
        };
        let cfgs = if args.cfgs.is_empty() { vec!["loom".to_owned()] } else { args.cfgs.clone() };
        let (var, flags) = rustflags_with(&cfgs);
        if var == "CARGO_ENCODED_RUSTFLAGS" {
            cmd.env_remove("RUSTFLAGS");
        }
        cmd.env(var, &flags);
        let path =
            compat.to_str().ok_or("the loom stand-in's path is not UTF-8")?.replace('\\', "\\\\").replace('"', "\\\"");
        let patch = format!("patch.crates-io.loom.path=\"{path}\"");
        cmd.args(["--config", &patch]);
        // The stand-in's racer on, under the name this package gives loom.
        cmd.args(["--features", &format!("{dep}/race-detect")]);
        eprintln!(
            "cargo racer: loom tests of {} on racer's loom stand-in ({}), {var}={}",
            names(&ws.selected.iter().filter(|p| p["name"] == pkg.as_str()).cloned().collect::<Vec<_>>()),
            compat.display(),
            flags.replace('\x1f', " ")
        );
        // The patch changes the lock file's entry for loom: put the user's lock file back after.
        let lock = ws.root.join("Cargo.lock");
        let before = std::fs::read(&lock).ok();
        lock_to_restore = Some((lock.clone(), before.clone()));
        // A lock file that pins the real loom keeps cargo from taking the patch: point its loom
        // entry at the stand-in for this run (the file is restored afterwards).
        if before.as_deref().is_some_and(locks_real_loom) {
            let mut update = Command::new(cargo_bin());
            update.args(["update", "--quiet", "-p", "loom", "--config", &patch]);
            for m in option_values(&args.cargo, "--manifest-path", None) {
                update.args(["--manifest-path", &m]);
            }
            if args.cargo.iter().any(|a| a == "--offline" || a == "--frozen") {
                update.arg("--offline");
            }
            let _ = update.stdout(Stdio::null()).status();
        }
    } else {
        let without: Vec<&serde_json::Value> =
            ws.selected.iter().filter(|p| p["features"].get("race-detect").is_none()).collect();
        if !without.is_empty() {
            let has_loom = without.iter().any(|p| loom_dependency(p).is_some());
            return Err(format!(
                "{} {} no `race-detect` feature. A crate that uses racer directly declares \
                 `[features] race-detect = [\"racer/race-detect\"]`.{}",
                names(&without.into_iter().cloned().collect::<Vec<_>>()),
                if ws.selected.len() > 1 { "have" } else { "has" },
                if has_loom {
                    " This crate depends on loom: run its loom tests with `cargo racer test --loom`."
                } else {
                    ""
                }
            ));
        }
        cmd.args(["--features", "race-detect"]);
    }
    if let Some(test) = &args.test {
        cmd.arg("--");
        cmd.args(test);
    }
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).stdin(Stdio::inherit());
    let mut child = cmd.spawn().map_err(|e| format!("cannot run cargo: {e}"))?;
    let out = child.stdout.take().expect("piped");
    let err = child.stderr.take().expect("piped");
    let out_thread = std::thread::spawn(move || pump(out, std::io::stdout(), false));
    let (err_tally, err_text) = pump(err, std::io::stderr(), true);
    let (out_tally, _) = out_thread.join().expect("stdout pump");
    let status = child.wait().map_err(|e| format!("waiting for cargo: {e}"))?;
    if let Some((lock, before)) = lock_to_restore {
        let now = std::fs::read(&lock).ok();
        if now != before {
            let _ = match before {
                Some(bytes) => std::fs::write(&lock, bytes),
                None => std::fs::remove_file(&lock),
            };
        }
    }
    let races = err_tally.races + out_tally.races;
    let passed = err_tally.passed + out_tally.passed;
    let failed = err_tally.failed + out_tally.failed;
    if args.loom {
        let missing = missing_loom_items(&err_text);
        if !missing.is_empty() {
            eprintln!(
                "cargo racer: the crate uses loom items that racer's loom stand-in does not have: {}. \
                 The stand-in (package `loom` 0.7.99) has loom 0.7's cell, sync, thread, hint, alloc, future and model; \
                 these would need adding to it before this crate's loom tests can run under racer.",
                missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")
            );
        }
        if (err_text.contains("Patch `loom v0.7.99") || err_text.contains("Patch `loom v0.5.99"))
            && err_text.contains("was not used in the crate graph")
        {
            eprintln!("cargo racer: cargo did not use racer's loom stand-in (see cargo's warning above): nothing here was checked by racer");
        }
    }
    let code = status.code().unwrap_or(1);
    if races > 0 {
        eprintln!("cargo racer: {races} data race(s) reported ({passed} test(s) passed, {failed} failed)");
        return Ok(ExitCode::from(if code == 0 { 66 } else { code.clamp(1, 255) as u8 }));
    }
    if status.success() {
        eprintln!("cargo racer: no data races found ({passed} test(s) passed, racer on)");
    } else if passed + failed == 0 {
        eprintln!("cargo racer: cargo test failed ({status}) before any test ran: no data races reported");
    } else {
        eprintln!(
            "cargo racer: no data races reported, but cargo test failed ({status}; {passed} passed, {failed} failed)"
        );
    }
    Ok(ExitCode::from(code.clamp(0, 255) as u8))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn parses_our_flags_and_passes_the_rest() {
        let a = parse_args(&argv("racer test --loom --cfg crossbeam_loom --release -p foo --test loom -- --nocapture"))
            .unwrap();
        assert!(a.loom);
        assert_eq!(a.cfgs, ["crossbeam_loom"]);
        assert_eq!(a.cargo, argv("--release -p foo --test loom"));
        assert_eq!(a.test, Some(argv("--nocapture")));
        let a = parse_args(&argv("test --cfg=x --loom -F loom,std -vv filter")).unwrap();
        assert_eq!(a.cfgs, ["x"]);
        assert_eq!(a.cargo, argv("-F loom,std -vv filter"));
    }

    #[test]
    fn unknown_flags_are_named() {
        let e = parse_args(&argv("racer test --lom")).unwrap_err();
        assert!(e.contains("unknown flag `--lom`") && e.contains("did you mean `--loom`"), "{e}");
        let e = parse_args(&argv("racer test -x")).unwrap_err();
        assert!(e.contains("unknown flag `-x`"), "{e}");
        let e = parse_args(&argv("racer build")).unwrap_err();
        assert!(e.contains("unknown subcommand `build`"), "{e}");
        let e = parse_args(&argv("racer test --cfg x")).unwrap_err();
        assert!(e.contains("goes with `--loom`"), "{e}");
        // After `--`, everything is the test binary's.
        assert!(parse_args(&argv("racer test -- --whatever -x")).is_ok());
    }

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
    fn a_lock_file_pinning_real_loom_is_noticed() {
        assert!(locks_real_loom(b"[[package]]\nname = \"loom\"\nversion = \"0.7.2\"\n"));
        assert!(!locks_real_loom(b"[[package]]\nname = \"loom\"\nversion = \"0.7.99\"\n"));
        assert!(!locks_real_loom(b"[[package]]\nname = \"loom\"\nversion = \"0.5.99\"\n"));
        assert!(!locks_real_loom(b"[[package]]\nname = \"loomy\"\nversion = \"0.7.2\"\n"));
    }

    #[test]
    fn tally_counts_reports_and_results() {
        let mut t = Tally::default();
        for l in [
            "WARNING: racer: data race (flow: a write, then a parallel read) on Shared<u8>",
            "racer: no data races found",
            "test result: ok. 3 passed; 0 failed; 0 ignored",
            "test result: FAILED. 1 passed; 2 failed; 0 ignored",
        ] {
            t.line(l);
        }
        assert_eq!(t, Tally { races: 1, passed: 4, failed: 2 });
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
}
