//! With `race-detect`, compiles the detector (`../racer-core/src/lib.rs`, std only) with
//! `rustc -C opt-level=3` into `OUT_DIR`, where this crate finds it as `extern crate racer_core`.
//!
//! Why not a normal dependency: Cargo builds dependencies with the user's profile, and the
//! dev and test profiles (what `cargo test` uses) do not optimise; only the user's own
//! `Cargo.toml` could say otherwise (`[profile.dev.package.racer-core]`). Unoptimised, every
//! check costs about ten times as much. Compiled here, the detector runs at full speed in every
//! build of the user's, with nothing for them to set. The generic wrappers (`Shared<T>`,
//! `Mutex<T>`...) are still instantiated in the user's crate with its profile; they only hand
//! over to the detector's functions.
//!
//! The user's RUSTFLAGS (`CARGO_ENCODED_RUSTFLAGS`) and target go to this compilation too, so
//! it matches the rest of the build.

use std::env;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if env::var_os("CARGO_FEATURE_RACE_DETECT").is_none() {
        return;
    }
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let source = manifest_dir.join("../racer-core/src");
    let out_dir = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed={}", source.display());

    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let mut cmd = Command::new(rustc);
    cmd.args(["--crate-name", "racer_core", "--crate-type", "rlib", "--edition", "2021"])
        .args(["-C", "opt-level=3", "-C", "debuginfo=0", "-C", "codegen-units=1", "--cap-lints", "warn"])
        // Names this build of the detector apart from any other crate called racer_core.
        .arg("-C")
        .arg(format!("metadata=racer-rt-{}", env::var("CARGO_PKG_VERSION").unwrap_or_default()))
        .arg("--out-dir")
        .arg(&out_dir)
        .arg(source.join("lib.rs"));
    if let Ok(target) = env::var("TARGET") {
        cmd.args(["--target", &target]);
    }
    if let Ok(flags) = env::var("CARGO_ENCODED_RUSTFLAGS") {
        cmd.args(flags.split('\x1f').filter(|f| !f.is_empty()));
    }
    let output = cmd.output().unwrap_or_else(|e| panic!("racer-rt: cannot run rustc ({cmd:?}): {e}"));
    if !output.status.success() {
        panic!(
            "racer-rt: compiling the detector (racer-core) failed: {cmd:?}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    println!("cargo:rustc-link-search=all={}", out_dir.display());
}
