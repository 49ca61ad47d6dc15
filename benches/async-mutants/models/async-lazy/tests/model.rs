//! async-lazy 0.1.2's `Lazy` (a once-cell whose initialiser runs under the one permit of a
//! `Semaphore`, closed when the value is set, so that tasks that waited for the permit learn
//! that the value is there) driven by tasks through its public API. The scenario runs as a
//! default model (`model_*`) and once on a 4-worker tokio runtime (`runtime_*`, with a time
//! limit so that a lost wake-up ends the test instead of hanging it).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use async_lazy::Lazy;
use racer::sync::atomic::{AtomicUsize, Ordering};
use racer::tokio::task::yield_now;

type Init = Pin<Box<dyn Future<Output = u32> + Send>>;

/// Two tasks force one `Lazy` whose initialiser yields midway; it runs once, and both see its
/// value.
async fn two_tasks_force_one_lazy() {
    let runs = Arc::new(AtomicUsize::new(0));
    let r = runs.clone();
    let lazy = Arc::new(Lazy::new(move || -> Init {
        Box::pin(async move {
            r.fetch_add(1, Ordering::Relaxed);
            yield_now().await;
            42
        })
    }));
    let forcers: Vec<_> = (0..2)
        .map(|_| {
            let lazy = lazy.clone();
            racer::tokio::spawn(async move { *lazy.force().await })
        })
        .collect();
    for forcer in forcers {
        assert_eq!(forcer.await.unwrap(), 42);
    }
    assert_eq!(runs.load(Ordering::Relaxed), 1, "the initialiser ran once");
}

/// The real-runtime run: a limit of 2 s (the scenario takes microseconds), so that a lost
/// wake-up fails the test.
async fn within_limit(scenario: impl Future<Output = ()>) {
    racer::tokio::time::timeout(Duration::from_secs(2), scenario).await.expect("no end within 2 s (a lost wake-up)");
}

#[racer::test(model)]
async fn model_two_tasks_force_one_lazy() {
    two_tasks_force_one_lazy().await;
}

#[racer::test(flavor = "multi_thread", worker_threads = 4)]
async fn runtime_two_tasks_force_one_lazy() {
    within_limit(two_tasks_force_one_lazy()).await;
}
