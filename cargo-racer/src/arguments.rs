//! Arguments: cargo racer's own flags (`--loom`, `--cfg NAME`, `--fail-fast`, `--help`,
//! `--version`) taken out of the command line, and everything else left, in order and
//! unchanged, for `cargo test` (before `--`) and the test binaries (after it).
//!
//! cargo racer does not list cargo's options: cargo judges its own flags, so a new cargo flag
//! works the day it appears. The few cargo options the runner needs to know (which packages,
//! which manifest, `--offline`) are read from the passed-through arguments without taking
//! them out.

pub const USAGE: &str = "\
Usage: cargo racer test [--loom] [--cfg NAME]... [--fail-fast] [cargo test options...] [-- test binary options...]

Runs `cargo test` with the racer data race detector turned on, and ends with one line: the
number of data races reported, or that none was.

Options of cargo racer:
      --loom        Run the crate's existing loom tests (its cfg(loom) seam) on racer's loom
                    stand-in, on real threads: adds `--cfg loom` to the rustflags, patches
                    `loom` with racer's stand-in and turns racer on. Without --loom: `cargo
                    test --features race-detect` for crates that use racer directly.
      --cfg NAME    With --loom: the cfg the crate's seam uses, instead of `loom` (e.g.
                    `--cfg crossbeam_loom`, `--cfg oneshot_loom`); repeat for several
                    (`--cfg loom --cfg NAME` for both).
      --fail-fast   Stop at the first failing test binary. By default every test binary runs
                    (cargo's `--no-fail-fast`), so that the count covers all of them.
  -h, --help        This text.
  -V, --version     The version of cargo racer.

Every other option goes to `cargo test` unchanged (see `cargo test --help`); options after `--`
go to the test binaries. `-p`/`--package`, `--workspace` and `--exclude` also decide which
workspace members must have the `race-detect` feature (without --loom) or a loom seam (with it).

Environment:
  RACER_LOOM_PATH   The loom stand-in's directory (default: the loom-compat folder of the racer
                    checkout this runner was built from; a runner installed without a checkout
                    writes the stand-in it carries once, to $CARGO_HOME/racer-stand-in/<hash>/).

With --loom and no test selected, every test binary runs: the loom models are checked, and tests
that use loom's types outside any loom::model (loom itself refuses them) run unchecked, as with
std; the summary says in how many test binaries that happened.";

/// What the command line asks for.
#[derive(Debug, PartialEq)]
pub enum Invocation {
    Help,
    Version,
    Test(Args),
}

/// `cargo racer test`'s arguments.
#[derive(Debug, Default, PartialEq)]
pub struct Args {
    pub loom: bool,
    pub cfgs: Vec<String>,
    pub fail_fast: bool,
    /// Arguments for `cargo test` before `--`: all but cargo racer's own.
    pub cargo: Vec<String>,
    /// Arguments after `--`, for the test binaries (without the `--`).
    pub test: Option<Vec<String>>,
}

/// cargo racer's own long flags, for the hint after a typo (`--lom`).
const OURS: [&str; 3] = ["--loom", "--cfg", "--fail-fast"];

pub fn parse(argv: &[String]) -> Result<Invocation, String> {
    let mut rest = argv;
    // `cargo racer ...` runs `cargo-racer racer ...`.
    if rest.first().map(String::as_str) == Some("racer") {
        rest = &rest[1..];
    }
    match rest.first().map(String::as_str) {
        Some("test") => rest = &rest[1..],
        Some("-h" | "--help" | "help") | None => return Ok(Invocation::Help),
        Some("-V" | "--version" | "version") => return Ok(Invocation::Version),
        Some(other) => {
            return Err(format!("unknown subcommand `{other}` (cargo racer has one: `cargo racer test`)"));
        }
    }
    let mut args = Args::default();
    let mut i = 0;
    while i < rest.len() {
        let arg = rest[i].as_str();
        i += 1;
        match arg {
            "--" => {
                args.test = Some(rest[i..].to_vec());
                break;
            }
            "-h" | "--help" => return Ok(Invocation::Help),
            "-V" | "--version" => return Ok(Invocation::Version),
            "--loom" => args.loom = true,
            "--fail-fast" => args.fail_fast = true,
            "--cfg" => {
                let name = rest.get(i).ok_or("`--cfg` needs a cfg name, e.g. `--cfg crossbeam_loom`")?;
                i += 1;
                args.cfgs.push(cfg_name(name)?);
            }
            _ => match arg.strip_prefix("--cfg=") {
                Some(name) => args.cfgs.push(cfg_name(name)?),
                None => args.cargo.push(arg.to_owned()),
            },
        }
    }
    if !args.cfgs.is_empty() && !args.loom {
        return Err("`--cfg NAME` names the cfg of a loom seam: it goes with `--loom`".to_owned());
    }
    Ok(Invocation::Test(args))
}

fn cfg_name(name: &str) -> Result<String, String> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!("`--cfg {name}`: a cfg name is an identifier, e.g. `crossbeam_loom`"));
    }
    Ok(name.to_owned())
}

impl Args {
    /// The values given to cargo option `long` (or its `short` form) in any of its spellings:
    /// `--package a`, `--package=a`, `-p a`, `-pa`, `-p=a`.
    pub fn values(&self, long: &str, short: Option<char>) -> Vec<&str> {
        let short = short.map(|c| format!("-{c}"));
        let mut out = Vec::new();
        let mut args = self.cargo.iter().map(String::as_str);
        while let Some(a) = args.next() {
            if a == long || short.as_deref() == Some(a) {
                out.extend(args.next());
            } else if let Some(v) = a.strip_prefix(long).and_then(|v| v.strip_prefix('=')) {
                out.push(v);
            } else if let Some(v) = short.as_deref().and_then(|s| a.strip_prefix(s)).filter(|v| !v.is_empty()) {
                out.push(v.strip_prefix('=').unwrap_or(v));
            }
        }
        out
    }

    /// Whether any of the value-less cargo flags `names` was given.
    pub fn has(&self, names: &[&str]) -> bool {
        self.cargo.iter().any(|a| names.contains(&a.as_str()))
    }

    /// An argument passed to cargo that looks like a misspelt flag of cargo racer's, with the
    /// flag it resembles (`--lom`: `--loom`). cargo's own flags are all three or more edits
    /// away from these (a test checks), so a cargo flag is never taken for a typo.
    pub fn near_miss(&self) -> Option<(&str, &'static str)> {
        self.cargo.iter().filter(|a| a.starts_with("--")).find_map(|a| {
            let name = a.split('=').next().unwrap_or(a);
            let best = OURS.into_iter().min_by_key(|ours| edit_distance(name, ours))?;
            (edit_distance(name, best) <= 2).then_some((name, best))
        })
    }
}

/// After a failure: names an argument that looks like a misspelt flag of cargo racer's.
pub fn hint_typo(args: &Args) {
    if let Some((typo, ours)) = args.near_miss() {
        eprintln!(
            "cargo racer: `{typo}` is passed to cargo test as one of its own options: did you mean cargo racer's `{ours}`?"
        );
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    fn test_args(s: &str) -> Args {
        match parse(&argv(s)) {
            Ok(Invocation::Test(a)) => a,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn takes_our_flags_and_passes_the_rest_in_order() {
        let a = test_args("racer test --loom --cfg crossbeam_loom --release -p foo --test loom -- --nocapture");
        assert!(a.loom && !a.fail_fast);
        assert_eq!(a.cfgs, ["crossbeam_loom"]);
        assert_eq!(a.cargo, argv("--release -p foo --test loom"));
        assert_eq!(a.test, Some(argv("--nocapture")));
        let a = test_args("test --cfg=x --loom -F loom,std -vv filter --fail-fast");
        assert_eq!(a.cfgs, ["x"]);
        assert!(a.fail_fast);
        assert_eq!(a.cargo, argv("-F loom,std -vv filter"));
    }

    #[test]
    fn flags_cargo_racer_does_not_know_go_to_cargo() {
        // Including ones newer than this runner, and misspellings (cargo names those).
        let a = test_args("racer test --some-future-flag=3 -Zunstable-options --lom -x");
        assert_eq!(a.cargo, argv("--some-future-flag=3 -Zunstable-options --lom -x"));
        assert_eq!(a.near_miss(), Some(("--lom", "--loom")));
        // After `--`, everything is the test binaries', even our own flags.
        let a = test_args("racer test -- --loom --help");
        assert!(!a.loom && a.cargo.is_empty());
        assert_eq!(a.test, Some(argv("--loom --help")));
    }

    #[test]
    fn no_cargo_test_flag_is_taken_for_a_typo_of_ours() {
        // `cargo test --help`'s long flags (cargo 1.95, less `--help`), and two unstable ones.
        let cargo_flags = "--quiet --lib --bins --bin --examples --example --tests --test --benches --bench \
             --all-targets --doc --no-run --no-fail-fast --ignore-rust-version --future-incompat-report \
             --message-format --verbose --color --config --package --workspace --exclude --all --features \
             --all-features --no-default-features --jobs --release --profile --target --target-dir \
             --unit-graph --timings --manifest-path --lockfile-path --locked --offline --frozen --keep-going";
        let a = test_args(&format!("test {cargo_flags}"));
        assert_eq!(a.near_miss(), None);
        for typo in ["--lom", "--looom", "--cgf", "--fail-fats", "--failfast"] {
            assert!(test_args(&format!("test {typo}")).near_miss().is_some(), "{typo}");
        }
    }

    #[test]
    fn help_version_and_errors() {
        for s in ["racer", "racer --help", "racer help", "racer test -h", "racer test --loom --help"] {
            assert_eq!(parse(&argv(s)), Ok(Invocation::Help), "{s}");
        }
        for s in ["racer --version", "racer -V", "racer test --version"] {
            assert_eq!(parse(&argv(s)), Ok(Invocation::Version), "{s}");
        }
        let e = parse(&argv("racer build")).unwrap_err();
        assert!(e.contains("unknown subcommand `build`"), "{e}");
        let e = parse(&argv("racer test --cfg x")).unwrap_err();
        assert!(e.contains("goes with `--loom`"), "{e}");
        let e = parse(&argv("racer test --loom --cfg a-b")).unwrap_err();
        assert!(e.contains("a cfg name is an identifier"), "{e}");
        let e = parse(&argv("racer test --loom --cfg")).unwrap_err();
        assert!(e.contains("needs a cfg name"), "{e}");
    }

    #[test]
    fn cargo_option_values_in_every_spelling() {
        let a = test_args("test -p a --package b --package=c -pd -p=e --features p --exclude x --exclude=y");
        assert_eq!(a.values("--package", Some('p')), ["a", "b", "c", "d", "e"]);
        assert_eq!(a.values("--exclude", None), ["x", "y"]);
        assert!(a.values("--manifest-path", None).is_empty());
        assert!(test_args("test --all").has(&["--workspace", "--all"]));
        assert!(!test_args("test --allx").has(&["--workspace", "--all"]));
    }
}
