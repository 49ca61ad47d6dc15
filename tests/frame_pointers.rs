//! The stacks in a report do not depend on how the user's crate was built: the same racy
//! program (`racer-fixture two`, two races with both accesses' backtraces and both spawn
//! sites) built as users build it (no RUSTFLAGS: this test's own build) and with frame pointers
//! forced on prints the same reports, addresses aside.
//!
//! racer walks stacks with cached CFI rules either way (see `racer-rt/detector/provenance/stack/cfi_walk.rs`);
//! frame pointers only change the code the walk goes through. This builds the fixture a second
//! time (as a child `cargo build` in `<target>/frame-pointers`, so it never waits on this
//! build's lock), which takes a minute the first time.

#![cfg(all(feature = "race-detect", unix))]

use std::path::Path;
use std::process::Command;

/// The fixture's standard error with what differs from run to run (cell addresses) masked.
fn report_of(binary: &Path) -> String {
    let out = Command::new(binary).arg("two").output().expect("the fixture runs");
    assert_eq!(out.status.code(), Some(66), "two races make the fixture exit with 66");
    let stderr = String::from_utf8_lossy(&out.stderr);
    stderr
        .lines()
        .map(|line| match line.find(" at 0x") {
            Some(i) => format!("{} at ADDRESS", &line[..i]),
            None => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn reports_are_the_same_with_and_without_frame_pointers() {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().expect("the target directory").join("frame-pointers");
    let status = Command::new(env!("CARGO"))
        .args(["build", "--features", "race-detect", "--bin", "racer-fixture", "--manifest-path"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS")
        .env("RUSTFLAGS", "-C force-frame-pointers=yes")
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .expect("cargo starts");
    assert!(status.success(), "building the fixture with frame pointers failed");

    let plain = report_of(Path::new(env!("CARGO_BIN_EXE_racer-fixture")));
    let with_frame_pointers = report_of(&target.join("debug/racer-fixture"));
    // The reports name both accesses' frames, so an equal pair is a real comparison.
    assert!(plain.contains("racer_fixture::cache::fill") && plain.contains("racer_fixture::counter::bump"), "{plain}");
    assert!(plain.contains("racer_fixture::race_in_cache::{{closure}}"), "{plain}");
    assert_eq!(plain, with_frame_pointers, "reports differ with frame pointers on");
}
