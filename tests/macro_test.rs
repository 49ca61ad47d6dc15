//! Tests of `#[racer::test]`, in both builds (`cargo test --test macro_test` and
//! `cargo test --features race-detect --test macro_test`).

use racer::sync::{Arc, Mutex};
use racer::Shared;

/// A plain test body that passes.
#[racer::test]
fn passes() {
    let v: Vec<u32> = (1..=4).collect();
    assert_eq!(v.iter().sum::<u32>(), 10);
}

/// Threads whose accesses are ordered by spawn, a mutex and join: no race, so the
/// test passes under the detector too.
#[racer::test]
fn synchronized_threads_pass() {
    let cell = Arc::new(Shared::new(0u64));
    let lock = Arc::new(Mutex::new(()));
    cell.with_mut(|p| unsafe { *p = 1 });
    let handles: Vec<_> = (0..2)
        .map(|_| {
            let cell = Arc::clone(&cell);
            let lock = Arc::clone(&lock);
            racer::thread::spawn(move || {
                let _guard = lock.lock().unwrap();
                cell.with_mut(|p| unsafe { *p += 1 });
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(cell.with(|p| unsafe { *p }), 3);
}

/// `?` works with a `Result` return type, and the body's `Ok` value is returned.
#[racer::test]
fn result_with_question_mark() -> Result<(), String> {
    let n: u32 = "42".parse().map_err(|e: std::num::ParseIntError| e.to_string())?;
    assert_eq!(n, 42);
    Ok(())
}

/// An early `return` in a `Result` test leaves the body with that value.
#[racer::test]
fn result_early_return() -> Result<(), String> {
    if "x".len() == 1 {
        return Ok(());
    }
    Err("early return did not leave the body".to_string())
}

/// A panic of the body propagates, so `#[should_panic]` works.
#[racer::test]
#[should_panic(expected = "boom")]
fn should_panic_works() {
    panic!("boom");
}

/// `return` leaves the test body, not something the macro wrapped around it.
#[racer::test]
fn early_return() {
    let x = 3;
    if x == 3 {
        return;
    }
    panic!("early return did not leave the body");
}

/// `#[cfg]` is kept: the body refers to an item that does not exist, so this only
/// compiles because the whole function is configured out.
#[racer::test]
#[cfg(any())]
fn cfg_is_kept() {
    this_function_does_not_exist();
}

/// A `use racer::test;` at the call site must not make the expansion's own
/// `#[test]` refer back to the macro.
mod imported {
    use racer::test;

    #[test]
    fn imported_attribute() {
        assert_eq!(1 + 1, 2);
    }
}

/// A racy body fails the test, with the report in the panic message. Two threads
/// write the same `Shared` without synchronization (an output race).
#[cfg(feature = "race-detect")]
#[racer::test]
#[should_panic(expected = "data race")]
fn racy_body_fails() {
    let cell = Arc::new(Shared::new(0u64));
    let handles: Vec<_> = (0..2)
        .map(|i| {
            let cell = Arc::clone(&cell);
            racer::thread::spawn(move || {
                cell.with_mut(|p| unsafe { *p = i });
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

/// The panic message names the test and counts the races.
#[cfg(feature = "race-detect")]
#[racer::test]
#[should_panic(expected = "data race(s) found in test `racy_message_names_the_test`")]
fn racy_message_names_the_test() {
    let cell = Arc::new(Shared::new(0u64));
    let other = Arc::clone(&cell);
    let h = racer::thread::spawn(move || other.with_mut(|p| unsafe { *p = 1 }));
    cell.with_mut(|p| unsafe { *p = 2 });
    h.join().unwrap();
}

/// A test in a module is named by its path, as libtest names it, not by its last segment.
mod nested {
    use racer::sync::Arc;
    use racer::Shared;

    #[cfg(feature = "race-detect")]
    #[racer::test]
    #[should_panic(expected = "data race(s) found in test `nested::racy_message_names_the_test_by_its_path`")]
    fn racy_message_names_the_test_by_its_path() {
        let cell = Arc::new(Shared::new(0u64));
        let other = Arc::clone(&cell);
        let h = racer::thread::spawn(move || other.with_mut(|p| unsafe { *p = 1 }));
        cell.with_mut(|p| unsafe { *p = 2 });
        h.join().unwrap();
    }

    #[racer::test]
    fn passes_in_a_module() {
        let cell = Arc::new(Shared::new(0u64));
        cell.with_mut(|p| unsafe { *p = 1 });
    }
}

/// `#[racer::test(model)]`: the body runs under `racer::model`, whose schedules find a Relaxed
/// handoff (the reader reads the cell only in schedules where the flag was set first).
#[cfg(feature = "race-detect")]
#[racer::test(model)]
#[should_panic(expected = "RACER_REPLAY=")]
fn model_option_explores_schedules() {
    use racer::sync::atomic::{AtomicBool, Ordering};
    let cell = Arc::new(Shared::new(0u64));
    let flag = Arc::new(AtomicBool::new(false));
    let (c, f) = (Arc::clone(&cell), Arc::clone(&flag));
    let h = racer::thread::spawn(move || {
        if f.load(Ordering::Relaxed) {
            c.with(|p| unsafe { *p });
        }
    });
    cell.with_mut(|p| unsafe { *p = 1 });
    flag.store(true, Ordering::Relaxed);
    h.join().unwrap();
}

/// `#[racer::test(model)]` on ordered code passes in both builds.
#[racer::test(model)]
fn model_option_passes_ordered_code() {
    let m = Arc::new(racer::sync::Mutex::new(0));
    let m2 = Arc::clone(&m);
    let h = racer::thread::spawn(move || *m2.lock().unwrap() += 1);
    *m.lock().unwrap() += 1;
    h.join().unwrap();
    assert_eq!(*m.lock().unwrap(), 2);
}
