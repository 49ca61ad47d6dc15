//! `#[racer::test]` on an `async fn` takes every argument `#[tokio::test]` (tokio-macros 2.7)
//! takes, one test each, in both builds: `flavor` ("current_thread", "multi_thread", "local"),
//! `worker_threads`, `start_paused`, `unhandled_panic` (under `--cfg tokio_unstable` only, as
//! for tokio: `.ci/tokio-unstable-macro` runs this file so; elsewhere tests/ui_tokio/ shows the
//! error tokio's attribute gives), `crate` and `name`. The misuses tokio rejects are rejected with
//! its messages (tests/ui/).
//!
//!     cargo test --features tokio --test macro_tokio_args
//!     cargo test --features race-detect,tokio --test macro_tokio_args
#![cfg(feature = "tokio")]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use racer::tokio::runtime::{Handle, RuntimeFlavor};
use racer::Shared;

#[racer::test(flavor = "current_thread")]
async fn flavor_current_thread() {
    assert_eq!(Handle::current().runtime_flavor(), RuntimeFlavor::CurrentThread);
}

#[racer::test]
async fn flavor_defaults_to_current_thread() {
    assert_eq!(Handle::current().runtime_flavor(), RuntimeFlavor::CurrentThread);
}

#[racer::test(flavor = "multi_thread")]
async fn flavor_multi_thread() {
    assert_eq!(Handle::current().runtime_flavor(), RuntimeFlavor::MultiThread);
}

#[racer::test(flavor = "multi_thread", worker_threads = 3)]
async fn worker_threads() {
    assert_eq!(Handle::current().runtime_flavor(), RuntimeFlavor::MultiThread);
    assert_eq!(Handle::current().metrics().num_workers(), 3);
}

/// A `LocalRuntime`: `spawn_local` needs no `LocalSet`, and its task may hold what is not
/// `Send`; a task spawned through racer on it is still a task racer tracks.
#[racer::test(flavor = "local")]
async fn flavor_local() {
    let cell = std::rc::Rc::new(Shared::new(0u64));
    let c = cell.clone();
    racer::tokio::task::spawn_local(async move { unsafe { c.set(1) } }).await.unwrap();
    assert_eq!(unsafe { cell.get() }, 1);
    let shared = Arc::new(Shared::new(0u64));
    let s = shared.clone();
    racer::tokio::spawn(async move { unsafe { s.set(2) } }).await.unwrap();
    assert_eq!(unsafe { shared.get() }, 2);
}

/// On the local flavor too, two tasks spawned through racer with nothing between them race,
/// and the test fails naming them.
#[cfg(feature = "race-detect")]
#[racer::test(flavor = "local")]
#[should_panic(expected = "data race(s) found in test `flavor_local_checks_its_tasks`")]
async fn flavor_local_checks_its_tasks() {
    let cell = Arc::new(Shared::new(0u64));
    let (a, b) = (cell.clone(), cell.clone());
    let first = racer::tokio::spawn(async move { unsafe { a.set(1) } });
    let second = racer::tokio::spawn(async move { unsafe { b.set(2) } });
    first.await.unwrap();
    second.await.unwrap();
}

#[racer::test(start_paused = true)]
async fn start_paused() {
    let before = racer::tokio::time::Instant::now();
    racer::tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
    assert!(before.elapsed() >= std::time::Duration::from_secs(3600));
}

#[racer::test(flavor = "local", start_paused = true)]
async fn start_paused_on_the_local_flavor() {
    let before = racer::tokio::time::Instant::now();
    racer::tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
    assert!(before.elapsed() >= std::time::Duration::from_secs(3600));
}

#[racer::test(name = "the-test-runtime")]
async fn name() {
    assert_eq!(Handle::current().name(), Some("the-test-runtime"));
}

#[racer::test(flavor = "multi_thread", name = "the-multi-thread-runtime")]
async fn name_on_the_multi_thread_flavor() {
    assert_eq!(Handle::current().name(), Some("the-multi-thread-runtime"));
}

/// `crate = "path"`: the runtime is built from the tokio at that path (here one that notes it
/// was asked and hands out racer::tokio's builder).
mod my_tokio {
    pub mod runtime {
        use std::sync::atomic::Ordering;

        pub struct Builder;

        impl Builder {
            pub fn new_current_thread() -> racer::tokio::runtime::Builder {
                super::super::CRATE_PATH_USED.store(true, Ordering::SeqCst);
                racer::tokio::runtime::Builder::new_current_thread()
            }

            pub fn new_multi_thread() -> racer::tokio::runtime::Builder {
                super::super::CRATE_PATH_USED.store(true, Ordering::SeqCst);
                racer::tokio::runtime::Builder::new_multi_thread()
            }
        }
    }
}

static CRATE_PATH_USED: AtomicBool = AtomicBool::new(false);

#[racer::test(crate = "my_tokio")]
async fn crate_path() {
    assert!(CRATE_PATH_USED.load(Ordering::SeqCst), "the runtime came from the `crate` path");
}

#[racer::test(crate = "my_tokio", flavor = "multi_thread", worker_threads = 2)]
async fn crate_path_with_other_arguments() {
    assert!(CRATE_PATH_USED.load(Ordering::SeqCst), "the runtime came from the `crate` path");
    assert_eq!(Handle::current().metrics().num_workers(), 2);
}

/// Every argument at once (but `unhandled_panic`, below), in tokio's order or not.
#[racer::test(name = "all", start_paused = false, crate = "racer::tokio", flavor = "current_thread")]
async fn arguments_together() {
    assert_eq!(Handle::current().name(), Some("all"));
}

/// `unhandled_panic`: tokio's `UnhandledPanic` and `Builder::unhandled_panic` exist only with
/// `--cfg tokio_unstable`, where tokio's attribute takes the argument and racer's takes it too.
#[cfg(tokio_unstable)]
mod unhandled_panic {
    #[racer::test(unhandled_panic = "ignore")]
    async fn ignore() {
        let failed = racer::tokio::spawn(async { panic!("a task panics") }).await;
        assert!(failed.unwrap_err().is_panic());
    }

    #[racer::test(flavor = "local", unhandled_panic = "ignore")]
    async fn ignore_on_the_local_flavor() {
        let failed = racer::tokio::spawn(async { panic!("a task panics") }).await;
        assert!(failed.unwrap_err().is_panic());
    }

    #[racer::test(unhandled_panic = "shutdown_runtime")]
    #[should_panic(expected = "a spawned task panicked and the runtime is configured to shut down on unhandled panic")]
    async fn shutdown_runtime() {
        let _ = racer::tokio::spawn(async { panic!("a task panics") }).await;
    }
}
