//! The stand-in used outside any model: a test of a whole-crate run (`cargo racer test --loom`
//! with no selection) that is not a loom model, but whose crate, built with `--cfg loom`, uses
//! loom's types (from std threads, `easy-parallel`, ...). Real loom refuses those ("cannot
//! access Loom execution state from outside a Loom model"); the stand-in runs them unchecked,
//! as std would (cells not checked, atomics the real ones), and says so once per test binary,
//! so that the run reports no race racer cannot judge and still says what it did not check.

#[cfg(feature = "race-detect")]
use std::io::Write;
#[cfg(feature = "race-detect")]
use std::sync::Once;

/// Whether the calling thread runs in a model or a `racer::check` (the stand-in's own tests
/// use it on racer's threads), where the stand-in checks; elsewhere, the first call says once,
/// on standard error, that this test binary ran loom code unchecked.
#[inline]
pub(crate) fn checked() -> bool {
    #[cfg(feature = "race-detect")]
    if !racer::model::inside() && !racer::__in_check() {
        note();
        return false;
    }
    true
}

#[cfg(feature = "race-detect")]
#[cold]
fn note() {
    static SAID: Once = Once::new();
    SAID.call_once(|| {
        let thread = std::thread::current();
        let name = thread.name().unwrap_or("an unnamed thread");
        // Straight to the process's standard error: libtest captures a test's `eprintln!`.
        let _ = writeln!(
            std::io::stderr(),
            "racer (loom stand-in): loom's types used outside any loom::model (first in {name}): such \
             tests run unchecked, as with std (loom itself refuses them); select the model tests \
             (--test NAME, --lib) to run only what is checked"
        );
    });
}
