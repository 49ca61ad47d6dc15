//! Compile-fail tests of `#[racer::test]`: misuse is a clear error at the attribute,
//! the same in both builds (the checks run before the expansion depends on the feature).
//! `tokio_*`: the arguments of `#[tokio::test]` misused, rejected with tokio-macros' messages.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}

/// `unhandled_panic` without `--cfg tokio_unstable`: tokio has no `UnhandledPanic` then, and
/// the error is tokio's own, as with `#[tokio::test(unhandled_panic = ...)]`. Checked in the
/// feature-off build: with `race-detect`, `racer::tokio::runtime` is racer's module, and rustc's
/// note on tokio's configured-out item is not part of the same error.
#[cfg(all(feature = "tokio", not(feature = "race-detect"), not(tokio_unstable)))]
#[test]
fn unhandled_panic_needs_tokio_unstable() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui_tokio/*.rs");
}
