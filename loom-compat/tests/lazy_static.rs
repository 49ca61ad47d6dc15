//! `loom::lazy_static`, the module (tokio's `src/loom/mocked.rs` takes `AccessError` from it),
//! next to the `lazy_static!` macro of the same name at the crate root.

use std::sync::atomic::{AtomicU8, Ordering};

/// 0: the destructor has not run; 1: `try_with` in it gave `AccessError`; 2: it gave a value.
static IN_DESTRUCTOR: AtomicU8 = AtomicU8::new(0);

struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        // A key being destroyed is not accessible: `try_with` returns the error.
        let r: Result<(), loom::lazy_static::AccessError> = KEY.try_with(|_| ());
        let seen = match r {
            Err(e) => {
                assert_eq!(e.to_string(), "already destroyed");
                1
            }
            Ok(()) => 2,
        };
        IN_DESTRUCTOR.store(seen, Ordering::SeqCst);
    }
}

loom::thread_local! {
    static KEY: Guard = const { Guard };
}

#[test]
fn try_with_on_a_destroyed_key_gives_access_error() {
    // The thread's first access initialises the key; its exit runs the destructor.
    let accessible = loom::thread::spawn(|| KEY.try_with(|_| ()).is_ok()).join().unwrap();
    assert!(accessible, "a live key is accessible");
    assert_eq!(IN_DESTRUCTOR.load(Ordering::SeqCst), 1, "inside its destructor the key gives AccessError");
}

#[test]
fn the_module_and_thread_name_one_type() {
    fn as_thread_error(e: loom::lazy_static::AccessError) -> loom::thread::AccessError {
        e
    }
    let _ = as_thread_error;
}

loom::lazy_static! {
    static ref ANSWER: u64 = 6 * 7;
}

#[test]
fn the_macro_of_the_same_name_still_works() {
    assert_eq!(*ANSWER, 42);
}
