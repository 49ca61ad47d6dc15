//! The stand-in outside any model and any `racer::check`: a whole-crate run's tests that are
//! not loom models (loom itself refuses them) run unchecked, as with std, on threads racer did
//! not start. Inside a check the same code is checked.
#![cfg(feature = "race-detect")]

use std::sync::Arc;

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicUsize, Ordering};

/// A cell shared between threads on purpose: loom's cell is not `Sync`.
struct Racy(UnsafeCell<u64>);

// SAFETY: not safe; the race on the cell is what the tests look for (checked) or ignore.
unsafe impl Sync for Racy {}

/// A cell written by a spawned thread and read by its spawner after a join racer does not see
/// (a std atomic flag), and an atomic created and used the same way.
fn unordered_accesses() {
    let cell = Arc::new(Racy(UnsafeCell::new(0u64)));
    let count = Arc::new(AtomicUsize::new(0));
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (c, n, d) = (cell.clone(), count.clone(), done.clone());
    // racer's thread inside a check (it joins the check), else a thread racer did not start.
    let body = move || {
        c.0.with_mut(|p| unsafe { *p = 1 });
        n.fetch_add(1, Ordering::Relaxed);
        d.store(true, std::sync::atomic::Ordering::Release);
    };
    if racer::__in_check() {
        drop(racer::thread::spawn(body));
    } else {
        drop(std::thread::spawn(body));
    }
    while !done.load(std::sync::atomic::Ordering::Acquire) {
        std::thread::yield_now();
    }
    assert_eq!(cell.0.with(|p| unsafe { *p }), 1);
    assert_eq!(count.load(Ordering::Relaxed), 1);
}

#[test]
fn outside_a_model_and_a_check_nothing_is_reported() {
    // Reports outside a check would go to standard error and end the process with status 66:
    // run it in a child that must exit 0.
    if std::env::var_os("RACER_OUTSIDE_CHILD").is_some() {
        unordered_accesses();
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "outside_a_model_and_a_check_nothing_is_reported", "--nocapture"])
        .env("RACER_OUTSIDE_CHILD", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("WARNING: racer"), "{stderr}");
    assert_eq!(stderr.matches("loom's types used outside any loom::model").count(), 1, "said once: {stderr}");
}

#[test]
fn inside_a_check_the_same_code_is_checked() {
    let report = racer::check(unordered_accesses);
    assert!(!report.is_empty(), "the std thread's write and the read are unordered for racer");
}
