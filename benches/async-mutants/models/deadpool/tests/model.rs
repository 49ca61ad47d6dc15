//! deadpool 0.12.3's `unmanaged::Pool` (a `Semaphore` of available objects over a `Mutex`'d
//! queue) driven by tasks through its public API. Each scenario runs as a default model
//! (`model_*`: every interleaving racer's scheduler picks at the pool's semaphore, mutex and
//! atomics) and once on a 4-worker tokio runtime (`runtime_*`: the one interleaving it gives,
//! with a time limit so that a lost wake-up ends the test instead of hanging it).

use std::time::Duration;

use deadpool::unmanaged::Pool;
use racer::tokio::task::yield_now;

/// Two tasks share the pool's one object: one waits in `get` until the other drops its object.
async fn two_tasks_share_one_object() {
    let pool = Pool::new(1);
    pool.add(7u32).await.unwrap();
    let users: Vec<_> = (0..2)
        .map(|_| {
            let pool = pool.clone();
            racer::tokio::spawn(async move {
                let object = pool.get().await.unwrap();
                assert_eq!(*object, 7);
                yield_now().await;
            })
        })
        .collect();
    for user in users {
        user.await.unwrap();
    }
    let status = pool.status();
    assert_eq!((status.size, status.available), (1, 1));
}

/// A task waits in `get` on an empty pool until another adds an object.
async fn a_get_waits_for_an_add() {
    let pool = Pool::new(2);
    let p = pool.clone();
    let getter = racer::tokio::spawn(async move { *p.get().await.unwrap() });
    let p = pool.clone();
    let adder = racer::tokio::spawn(async move { p.add(5u32).await.unwrap() });
    adder.await.unwrap();
    assert_eq!(getter.await.unwrap(), 5);
}

/// The real-runtime run: a limit of 2 s (the scenario takes microseconds), so that a lost
/// wake-up fails the test.
async fn within_limit(scenario: impl std::future::Future<Output = ()>) {
    racer::tokio::time::timeout(Duration::from_secs(2), scenario).await.expect("no end within 2 s (a lost wake-up)");
}

#[racer::test(model)]
async fn model_two_tasks_share_one_object() {
    two_tasks_share_one_object().await;
}

#[racer::test(model)]
async fn model_a_get_waits_for_an_add() {
    a_get_waits_for_an_add().await;
}

#[racer::test(flavor = "multi_thread", worker_threads = 4)]
async fn runtime_two_tasks_share_one_object() {
    within_limit(two_tasks_share_one_object()).await;
}

#[racer::test(flavor = "multi_thread", worker_threads = 4)]
async fn runtime_a_get_waits_for_an_add() {
    within_limit(a_get_waits_for_an_add()).await;
}
