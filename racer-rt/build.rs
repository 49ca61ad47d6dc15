//! With `race-detect`, compiles the detector (`detector/lib.rs`, std only: racer-core's source,
//! which lives in this package) with `rustc -C opt-level=3`, and tells this crate its name.
//!
//! Why not a normal dependency: Cargo builds dependencies with the user's profile, and the
//! dev and test profiles (what `cargo test` uses) do not optimise; only the user's own
//! `Cargo.toml` could say otherwise (`[profile.dev.package.racer-core]`). Unoptimised, every
//! check costs about ten times as much. Compiled here, the detector runs at full speed in every
//! build of the user's, with nothing for them to set. The generic wrappers (`Shared<T>`,
//! `Mutex<T>`...) are still instantiated in the user's crate with its profile; they only hand
//! over to the detector's functions. (When cargo's `hints.min-opt-level`, RFC 3924, is
//! implemented, a normal dependency with that hint can replace this script.)
//!
//! Where the detector goes: into cargo's `deps` directory of this build, under a name unique to
//! this build of racer-rt (`racer_core_<hash>`), which `src/lib.rs` takes from the generated
//! `OUT_DIR/detector.rs`. Every rustc and rustdoc call cargo makes searches `deps` for the
//! crates a crate depends on through others, so the crates that depend on this one, and
//! `cargo doc` of them, find it; a `-L` from a build script reaches rustc only, never rustdoc
//! (rustdoc of this crate itself, and rust-analyzer, which reads source and not the rlib, see
//! the feature-off items in its place: `src/lib.rs`).
//! Where `deps` is not where cargo's layout puts it, the detector stays in `OUT_DIR` (rustc
//! still finds it; `cargo doc` of a dependent would not).
//!
//! Sixteen codegen units: on two cores the detector's cold compile takes 15 s instead of 25 s
//! (the same CPU time, in parallel), and racer/ThreadSanitizer on userbench stayed within the
//! noise of one unit (`benches/versus-tsan 8`: W1 0.29/0.26, W3 0.40/0.42, W7 0.59/0.60).
//!
//! It is compiled as cargo would: through `RUSTC_WRAPPER` and `RUSTC_WORKSPACE_WRAPPER` (sccache
//! users), for the build's target, with the user's RUSTFLAGS (`CARGO_ENCODED_RUSTFLAGS`).

use std::collections::hash_map::DefaultHasher;
use std::env;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    // rust-analyzer sets `cfg(rust_analyzer)`: it reads source, not the detector's rlib, so
    // `src/lib.rs` shows it the feature-off items (the same public API) in the detector's place.
    println!("cargo::rustc-check-cfg=cfg(rust_analyzer)");
    // tokio's own cfg for its unstable API, which racer::tokio forwards where tokio has it.
    println!("cargo::rustc-check-cfg=cfg(tokio_unstable)");
    if env::var_os("CARGO_FEATURE_RACE_DETECT").is_none() {
        return;
    }
    if env::var_os("CARGO_CFG_MIRI").is_some() {
        fail(
            "racer's `race-detect` feature does not run under Miri (the detector is compiled apart, \
             optimised, and Miri interprets its own build of std); run `cargo miri test` without \
             `--features race-detect`: the feature-off build runs under Miri",
        );
    }
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let source = manifest_dir.join("detector");
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed={}", source.display());
    for var in ["RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "CARGO_ENCODED_RUSTFLAGS"] {
        println!("cargo:rerun-if-env-changed={var}");
    }

    let name = format!("racer_core_{:016x}", hash_of(&out_dir));
    let deps = deps_dir(&out_dir);
    let dest = deps.as_deref().unwrap_or(&out_dir);

    let mut cmd = rustc();
    cmd.args(["--crate-name", &name, "--crate-type", "rlib", "--edition", "2021"])
        .args(["-C", "opt-level=3", "-C", "debuginfo=0", "-C", "codegen-units=16", "--cap-lints", "warn"])
        .arg("--out-dir")
        .arg(dest)
        .arg(source.join("lib.rs"));
    if let Ok(target) = env::var("TARGET") {
        cmd.args(["--target", &target]);
    }
    if let Ok(flags) = env::var("CARGO_ENCODED_RUSTFLAGS") {
        cmd.args(flags.split('\x1f').filter(|f| !f.is_empty()));
    }
    let output = cmd.output().unwrap_or_else(|e| fail(&format!("cannot run rustc ({cmd:?}): {e}")));
    if !output.status.success() {
        fail(&format!(
            "compiling the detector (racer-core) failed: {cmd:?}\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    // rustc looks up a crate this crate names itself (`extern crate`) only in `-L crate=` (or
    // `all=`) directories; the crates that depend on this one find it through cargo's own
    // `-L dependency=<deps>`.
    println!("cargo:rustc-link-search=crate={}", dest.display());
    std::fs::write(out_dir.join("detector.rs"), format!("extern crate {name} as racer_core;\n"))
        .unwrap_or_else(|e| fail(&format!("cannot write {}: {e}", out_dir.join("detector.rs").display())));
}

/// rustc as cargo runs it: `RUSTC_WRAPPER`, then `RUSTC_WORKSPACE_WRAPPER` (set by cargo only
/// when this package is a workspace member), then `RUSTC`.
fn rustc() -> Command {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let wrappers: Vec<String> = ["RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER"]
        .iter()
        .filter_map(|v| env::var(v).ok())
        .filter(|w| !w.is_empty())
        .collect();
    let mut program = wrappers.iter().chain(std::iter::once(&rustc));
    let mut cmd = Command::new(program.next().expect("rustc is always there"));
    cmd.args(program);
    cmd
}

/// Cargo's `deps` directory of this build: `OUT_DIR` is `<profile dir>/build/<unit>/out`.
fn deps_dir(out_dir: &Path) -> Option<PathBuf> {
    let profile_dir = out_dir.parent()?.parent()?.parent()?;
    let build = out_dir.parent()?.parent()?;
    (build.file_name()? == "build" && out_dir.file_name()? == "out")
        .then(|| profile_dir.join("deps"))
        .filter(|deps| deps.is_dir())
}

fn hash_of(path: &Path) -> u64 {
    let mut h = DefaultHasher::new();
    path.hash(&mut h);
    h.finish()
}

fn fail(message: &str) -> ! {
    eprintln!("error: racer-rt: {message}");
    std::process::exit(1);
}
