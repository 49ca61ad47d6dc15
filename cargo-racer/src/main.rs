//! `cargo racer test`: run a crate's tests with racer turned on.
//!
//! ```text
//! cargo racer test [--loom] [--cfg NAME]... [--fail-fast] [cargo test options...] [-- test binary options...]
//! ```
//!
//! - Without `--loom`, for crates that use racer directly: `cargo test --features race-detect`
//!   (the crate's own feature that turns `racer/race-detect` on). No other flag is needed: the
//!   detector is optimised by racer-rt's build script in every profile, and stacks are walked
//!   without frame pointers.
//! - With `--loom`, for crates that already have a `cfg(loom)` seam: the crate's tests run on
//!   racer's loom stand-in (`loom-compat`, a package named `loom` 0.7.99; for a crate that
//!   pins loom 0.5, `loom-compat/v05`, the same under 0.5.99) instead of loom, on real threads,
//!   each `loom::model` exploring schedules. The runner adds `--cfg loom` to the rustflags (or,
//!   when `--cfg NAME` is given, that cfg instead: `--cfg crossbeam_loom`, `--cfg oneshot_loom`;
//!   repeat `--cfg` for several), puts the stand-in in place with
//!   `--config 'patch.crates-io.loom.path="..."'`, and turns racer on through the stand-in's
//!   `race-detect` feature (`--features <the crate's loom dependency>/race-detect`).
//!
//! Every test binary runs (`--no-fail-fast`, unless `--fail-fast` is given), so that the count
//! covers them all. Everything else goes to `cargo test` unchanged. At the end the runner prints
//! one summary line: the number of data races reported, or that none was. Its exit status is
//! cargo's (66 if races were reported and cargo itself succeeded; 130 after Ctrl-C).
//!
//! The stand-in is found at `$RACER_LOOM_PATH` if set, else next to this runner's own source
//! (`<racer>/loom-compat`, fixed when the runner was built), else (an installed runner, no
//! checkout) it is the copy carried inside the runner, written out once ([`carried`]).
//!
//! One module per concern: [`arguments`] (what is cargo racer's, what goes to cargo),
//! [`workspace`] (which members are tested, from `cargo metadata`), [`loom_patch`] (the stand-in
//! and the guard that puts `Cargo.lock` back), [`interrupt`] (Ctrl-C), [`tally`] (counting the
//! child's output and the summary).

mod arguments;
mod carried;
mod interrupt;
mod loom_patch;
mod tally;
mod workspace;

use arguments::{Args, Invocation};
use loom_patch::LoomPatch;
use std::ffi::OsString;
use std::io::Write;
use std::process::{Command, ExitCode};
use workspace::Workspace;

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let args = match arguments::parse(&argv) {
        Ok(Invocation::Test(args)) => args,
        // Not `println!`: a closed pipe (`cargo racer test --help | head -2`) is no error here.
        Ok(Invocation::Help) => {
            let _ = writeln!(std::io::stdout(), "{}", arguments::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(Invocation::Version) => {
            let _ = writeln!(std::io::stdout(), "cargo-racer {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("cargo racer: error: {e}");
            eprintln!("Run `cargo racer test --help` for the usage.");
            return ExitCode::from(2);
        }
    };
    interrupt::install();
    match run(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("cargo racer: error: {e}");
            arguments::hint_typo(&args);
            ExitCode::from(2)
        }
    }
}

/// `cargo test` with racer on: the members it tests, racer's part of the command, the run, the
/// summary. With `--loom`, `_lock` puts the user's `Cargo.lock` back when `run` ends, by any way.
fn run(args: &Args) -> Result<ExitCode, String> {
    let ws = Workspace::read(args)?;
    let mut cargo = Command::new(cargo_bin());
    cargo.arg("test").args(&args.cargo);
    let _lock = if args.loom {
        Some(LoomPatch::choose(&ws)?.apply(&mut cargo, args, &ws)?)
    } else {
        ws.require_race_detect()?;
        cargo.args(["--features", "race-detect"]);
        None
    };
    if !args.fail_fast {
        // cargo stops at the first failing test binary, and races in later ones would go unseen.
        cargo.arg("--no-fail-fast");
    }
    if let Some(test) = &args.test {
        cargo.arg("--").args(test);
    }
    let outcome = tally::run(cargo)?;
    if let (true, Some(o)) = (args.loom, &outcome) {
        loom_patch::explain(&o.stderr);
    }
    Ok(tally::summary(outcome.as_ref(), args))
}

/// The cargo that ran this subcommand, as cargo tells its subcommands.
fn cargo_bin() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}
