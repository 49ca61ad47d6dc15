//! A closed `Semaphore` inside a model: the close orders what the closer did before it before
//! whoever learns of the close, so a load made after that reads the closer's store in every
//! schedule. async-lazy's `Lazy` is built on this (store `value_set`, close; a waiter's failed
//! acquisition, then an Acquire load of `value_set`): before `close` released, a model let
//! that load read the older `false` and failed the unmutated crate in every run
//! (docs/async-mutants-results.md).
#![cfg(all(feature = "tokio", feature = "race-detect"))]

use racer::sync::atomic::{AtomicBool, Ordering};
use racer::sync::Arc;
use racer::tokio::sync::{Semaphore, TryAcquireError};

#[path = "model_support/mod.rs"]
mod model_support;
use model_support::outcome;

/// How the waiter learns that the semaphore was closed.
#[derive(Clone, Copy, Debug)]
enum Sees {
    FailedAcquire,
    FailedTryAcquire,
    IsClosed,
}

/// The first task stores `set` and closes; the waiter, once it sees the close, must see `set`.
async fn close_then_look(sees: Sees) {
    let sem = Arc::new(Semaphore::new(0));
    let set = Arc::new(AtomicBool::new(false));
    let (s, flag) = (sem.clone(), set.clone());
    let waiter = racer::tokio::spawn(async move {
        match sees {
            Sees::FailedAcquire => assert!(s.acquire().await.is_err()),
            Sees::FailedTryAcquire => {
                while !matches!(s.try_acquire(), Err(TryAcquireError::Closed)) {
                    racer::tokio::task::yield_now().await;
                }
            }
            Sees::IsClosed => {
                while !s.is_closed() {
                    racer::tokio::task::yield_now().await;
                }
            }
        }
        assert!(flag.load(Ordering::Relaxed), "the closer's store is seen after the close");
    });
    set.store(true, Ordering::Relaxed);
    sem.close();
    waiter.await.unwrap();
}

#[test]
fn whoever_sees_the_close_sees_what_the_closer_did_before_it() {
    for sees in [Sees::FailedAcquire, Sees::FailedTryAcquire, Sees::IsClosed] {
        let message = outcome(move || racer::model(move || racer::model::block_on(close_then_look(sees))));
        assert_eq!(message, None, "{sees:?}");
    }
}
