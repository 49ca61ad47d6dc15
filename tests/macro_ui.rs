//! Compile-fail tests of `#[racer::test]`: misuse is a clear error at the attribute,
//! the same in both builds (the checks run before the expansion depends on the feature).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
