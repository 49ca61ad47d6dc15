//! tokio-util 0.7.20's `CancellationToken` (a tree of `Mutex`'d nodes, each with a `Notify`
//! its waiters' futures were made from before they check the node's flag) driven by tasks
//! through its public API. Each scenario runs as a default model (`model_*`) and once on a
//! 4-worker tokio runtime (`runtime_*`, with a time limit so that a lost wake-up ends the test
//! instead of hanging it).

use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// A task waits for the token's cancellation; another cancels it.
async fn a_cancel_wakes_its_waiter() {
    let token = CancellationToken::new();
    let t = token.clone();
    let waiter = racer::tokio::spawn(async move {
        t.cancelled().await;
        assert!(t.is_cancelled());
    });
    let t = token.clone();
    let canceller = racer::tokio::spawn(async move { t.cancel() });
    canceller.await.unwrap();
    waiter.await.unwrap();
}

/// A task waits on a child token (`cancelled_owned`); another cancels the parent.
async fn a_parents_cancel_wakes_a_childs_waiter() {
    let parent = CancellationToken::new();
    let child = parent.child_token();
    let waiter = racer::tokio::spawn(async move { child.cancelled_owned().await });
    let canceller = racer::tokio::spawn(async move { parent.cancel() });
    canceller.await.unwrap();
    waiter.await.unwrap();
}

/// The real-runtime run: a limit of 2 s (the scenario takes microseconds), so that a lost
/// wake-up fails the test.
async fn within_limit(scenario: impl std::future::Future<Output = ()>) {
    racer::tokio::time::timeout(Duration::from_secs(2), scenario).await.expect("no end within 2 s (a lost wake-up)");
}

#[racer::test(model)]
async fn model_a_cancel_wakes_its_waiter() {
    a_cancel_wakes_its_waiter().await;
}

#[racer::test(model)]
async fn model_a_parents_cancel_wakes_a_childs_waiter() {
    a_parents_cancel_wakes_a_childs_waiter().await;
}

#[racer::test(flavor = "multi_thread", worker_threads = 4)]
async fn runtime_a_cancel_wakes_its_waiter() {
    within_limit(a_cancel_wakes_its_waiter()).await;
}

#[racer::test(flavor = "multi_thread", worker_threads = 4)]
async fn runtime_a_parents_cancel_wakes_a_childs_waiter() {
    within_limit(a_parents_cancel_wakes_a_childs_waiter()).await;
}
