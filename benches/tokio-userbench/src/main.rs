//! The tokio workloads of racer's user-build benchmark (`benches/versus-tsan`): the same program
//! built with racer's feature off (tokio's own items) and on (each task a logical thread).
//! Usage: tokio-userbench t1|t2|t3
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use racer::tokio::runtime::{Builder, Runtime};
use racer::tokio::sync::{mpsc, Mutex};
use racer::tokio::task::JoinSet;
use racer::Shared;

fn runtime() -> Runtime {
    Builder::new_multi_thread().worker_threads(2).build().unwrap()
}

/// A request/response ping-pong over `mpsc`: 50k round trips between two tasks, each request
/// carrying a value written into a `Shared` cell the other side reads.
async fn t1() {
    let (to_server, mut requests) = mpsc::channel::<u64>(1);
    let (to_client, mut responses) = mpsc::channel::<u64>(1);
    let cell = Arc::new(Shared::new(0u64));
    let server_cell = cell.clone();
    let server = racer::tokio::spawn(async move {
        while let Some(n) = requests.recv().await {
            let seen = unsafe { server_cell.get() };
            unsafe { server_cell.set(seen + n) };
            to_client.send(seen).await.unwrap();
        }
    });
    for n in 0..50_000u64 {
        unsafe { cell.set(cell.get() + 1) };
        to_server.send(n).await.unwrap();
        black_box(responses.recv().await.unwrap());
    }
    drop(to_server);
    server.await.unwrap();
}

/// A contended `tokio::sync::Mutex` counter: 8 tasks x 20k lock, `Shared` += 1, unlock.
async fn t2() {
    let lock = Arc::new(Mutex::new(()));
    let cell = Arc::new(Shared::new(0u64));
    let mut set = JoinSet::new();
    for _ in 0..8 {
        let (lock, cell) = (lock.clone(), cell.clone());
        set.spawn(async move {
            for _ in 0..20_000 {
                let _held = lock.lock().await;
                unsafe { cell.set(cell.get() + 1) };
            }
        });
    }
    while let Some(done) = set.join_next().await {
        done.unwrap();
    }
    assert_eq!(unsafe { cell.get() }, 160_000);
}

/// A spawn-and-join fan-out: 100k short tasks in batches of 100, each reading a `Shared` cell
/// the spawner writes between batches.
async fn t3() {
    let cell = Arc::new(Shared::new(0u64));
    for batch in 0..1_000u64 {
        let mut set = JoinSet::new();
        for _ in 0..100 {
            let cell = cell.clone();
            set.spawn(async move { unsafe { cell.get() } });
        }
        while let Some(done) = set.join_next().await {
            black_box(done.unwrap());
        }
        unsafe { cell.set(batch) };
    }
}

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    let rt = runtime();
    let start = Instant::now();
    match which.as_str() {
        "t1" => rt.block_on(t1()),
        "t2" => rt.block_on(t2()),
        "t3" => rt.block_on(t3()),
        other => {
            eprintln!("tokio-userbench: unknown workload '{other}' (t1, t2 or t3)");
            std::process::exit(2);
        }
    }
    println!("{which}: {:.1} ms", start.elapsed().as_secs_f64() * 1e3);
}
