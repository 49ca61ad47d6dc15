//! `racer::futures` (feature `futures`): futures' channels, `lock::Mutex` and executor order the
//! hand-offs made through them. Each hand-off: a correct program (a cell written before the
//! send / unlock / spawn, read after the receive / lock / join) with no report in each of ten
//! runs, and its racy twin (the write moved after the hand-off) reported in each of ten runs with
//! its kind, both sites and both threads.
//!
//! As in the `sync` tests, where one access must come before another in time, the threads hand
//! over with `std::sync` (invisible to racer): the report is the same on every run.
//!
//! Without `race-detect`, the file checks that `racer::futures`'s items are futures' own.
#![cfg(feature = "futures")]
#![cfg_attr(not(feature = "race-detect"), allow(unused_imports, dead_code))]

mod sync_support;

use std::sync::mpsc as std_mpsc;

use racer::futures::channel::{mpsc, oneshot};
use std::future::Future;
use std::pin::Pin;
use std::task::Poll;

use racer::futures::executor::block_on;
use racer::futures::future::{self, FusedFuture};
use racer::futures::lock::{MappedMutexGuard, Mutex, MutexGuard};
use racer::futures::{SinkExt, StreamExt};
use racer::sync::Arc;
use racer::{RaceKind, Report, Shared};
use sync_support::{assert_no_race, assert_one_race, named, read, write, Site};

const RUNS: usize = 10;

/// A hand-off from thread "sender" to thread "receiver": `send` runs on the sender after its
/// write (`racy`: before it), `receive` on the receiver before its read. In time the write
/// always comes first (a std channel, invisible to racer, makes the receiver wait for it before
/// its read; `wait_first`: before its `receive`, for a lock, which does not wait for a send).
/// Returns the report and the write's and the read's sites.
fn hand_off<S, R>(racy: bool, send: S, receive: R) -> (Report, Site, Site)
where
    S: FnOnce() + Send + 'static,
    R: FnOnce() + Send + 'static,
{
    hand_off_with(racy, false, send, receive)
}

fn hand_off_with<S, R>(racy: bool, wait_first: bool, send: S, receive: R) -> (Report, Site, Site)
where
    S: FnOnce() + Send + 'static,
    R: FnOnce() + Send + 'static,
{
    let mut sites = None;
    let report = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let (written, wait) = std_mpsc::channel::<()>();
        let c = cell.clone();
        let sender = named("sender", move || {
            let site = if racy {
                send();
                write(&c, 42)
            } else {
                let site = write(&c, 42);
                send();
                site
            };
            written.send(()).unwrap();
            site
        });
        let c = cell.clone();
        let receiver = named("receiver", move || {
            if wait_first {
                wait.recv().unwrap();
                receive();
            } else {
                receive();
                wait.recv().unwrap();
            }
            let (v, site) = read(&c);
            assert_eq!(v, 42);
            site
        });
        sites = Some((sender.join().unwrap(), receiver.join().unwrap()));
    });
    let (w, r) = sites.unwrap();
    (report, w, r)
}

/// Ten runs of the correct hand-off (no report) and ten of its racy twin (one flow race, the
/// sender's write then the receiver's read).
fn ten_and_ten<S, R>(setup: impl Fn() -> (S, R))
where
    S: FnOnce() + Send + 'static,
    R: FnOnce() + Send + 'static,
{
    ten_and_ten_with(false, setup);
}

fn ten_and_ten_with<S, R>(wait_first: bool, setup: impl Fn() -> (S, R))
where
    S: FnOnce() + Send + 'static,
    R: FnOnce() + Send + 'static,
{
    for _ in 0..RUNS {
        let (send, receive) = setup();
        let (report, _, _) = hand_off_with(false, wait_first, send, receive);
        assert_no_race(&report);
    }
    for _ in 0..RUNS {
        let (send, receive) = setup();
        let (report, w, r) = hand_off_with(true, wait_first, send, receive);
        assert_one_race(&report, RaceKind::Flow, ("sender", w), ("receiver", r));
    }
}

#[cfg(feature = "race-detect")]
#[test]
fn mpsc_bounded_sink_send_and_stream_next_order_the_message() {
    ten_and_ten(|| {
        let (mut tx, mut rx) = mpsc::channel::<u64>(1);
        (move || block_on(tx.send(1)).unwrap(), move || assert_eq!(block_on(rx.next()), Some(1)))
    });
}

#[cfg(feature = "race-detect")]
#[test]
fn mpsc_bounded_try_send_and_recv_order_the_message() {
    ten_and_ten(|| {
        let (mut tx, mut rx) = mpsc::channel::<u64>(1);
        (move || tx.try_send(1).unwrap(), move || assert_eq!(block_on(rx.recv()), Ok(1)))
    });
}

#[cfg(feature = "race-detect")]
#[test]
fn mpsc_unbounded_send_and_stream_next_order_the_message() {
    ten_and_ten(|| {
        let (tx, mut rx) = mpsc::unbounded::<u64>();
        (move || tx.unbounded_send(1).unwrap(), move || assert_eq!(block_on(rx.next()), Some(1)))
    });
}

#[cfg(feature = "race-detect")]
#[test]
fn mpsc_unbounded_sink_of_a_reference_orders_the_message() {
    ten_and_ten(|| {
        let (tx, mut rx) = mpsc::unbounded::<u64>();
        (
            move || block_on(async { (&tx).send(1).await }).unwrap(),
            move || {
                // Spins on `try_recv` (no waker): its acquire orders as the stream's.
                loop {
                    match rx.try_recv() {
                        Ok(v) => break assert_eq!(v, 1),
                        Err(e) => assert!(e.is_empty()),
                    }
                    std::thread::yield_now();
                }
            },
        )
    });
}

/// A receiver is ordered after the sends of the messages it took, not of those still queued:
/// the write before the second send races with the read after the first receive.
#[cfg(feature = "race-detect")]
#[test]
fn mpsc_a_receive_is_not_ordered_after_a_later_message() {
    for _ in 0..RUNS {
        let (tx, mut rx) = mpsc::unbounded::<u64>();
        tx.unbounded_send(1).unwrap();
        let (report, w, r) = hand_off(
            false,
            move || {
                // The receiver takes the first message (sent before the write), not this one
                // (which it may have gone before).
                let _ = tx.unbounded_send(2);
            },
            move || assert_eq!(block_on(rx.next()), Some(1)),
        );
        assert_one_race(&report, RaceKind::Flow, ("sender", w), ("receiver", r));
    }
}

/// Errors give the value back to its sender as futures' do, with futures' kinds and output.
#[test]
fn mpsc_errors_give_the_value_back() {
    let (mut tx, rx) = mpsc::channel::<String>(0);
    tx.try_send("a".into()).unwrap();
    let full = tx.try_send("b".into()).unwrap_err();
    assert!(full.is_full() && !full.is_disconnected());
    assert_eq!(format!("{full:?}"), "TrySendError { kind: Full }");
    assert_eq!(full.to_string(), "send failed because channel is full");
    assert_eq!(full.clone().into_inner(), "b");
    assert!(full.into_send_error().is_full());
    drop(rx);
    let (tx, rx) = mpsc::unbounded::<String>();
    assert!(tx.is_connected_to(&rx) && tx.same_receiver(&tx.clone()));
    drop(rx);
    let gone = tx.unbounded_send("c".into()).unwrap_err();
    assert!(gone.is_disconnected());
    assert_eq!(gone.to_string(), "send failed because receiver is gone");
    assert_eq!(gone.into_inner(), "c");
    assert!(tx.is_closed());
    assert_eq!(format!("{tx:?}"), "UnboundedSender { closed: true }");
}

#[cfg(feature = "race-detect")]
#[test]
fn oneshot_send_and_receive_order_the_value() {
    ten_and_ten(|| {
        let (tx, rx) = oneshot::channel::<u64>();
        (move || tx.send(1).unwrap(), move || assert_eq!(block_on(rx), Ok(1)))
    });
    ten_and_ten(|| {
        let (tx, mut rx) = oneshot::channel::<u64>();
        (
            move || tx.send(1).unwrap(),
            move || loop {
                if let Some(v) = rx.try_recv().unwrap() {
                    break assert_eq!(v, 1);
                }
                std::thread::yield_now();
            },
        )
    });
}

#[test]
fn oneshot_cancellation_and_errors_are_futures() {
    let (mut tx, rx) = oneshot::channel::<String>();
    assert!(tx.is_connected_to(&rx) && !tx.is_canceled());
    drop(rx);
    block_on(tx.cancellation());
    assert_eq!(tx.send("a".into()), Err("a".to_string()));
    let (tx, rx) = oneshot::channel::<u8>();
    drop(tx);
    assert_eq!(block_on(rx), Err(oneshot::Canceled));
}

/// A holder of the lock (its guard dropped: `lock`, `try_lock`, a mapped guard) is ordered after
/// the previous holder: the sender's write before its unlock is ordered before the receiver's
/// read after its lock.
#[cfg(feature = "race-detect")]
#[test]
fn mutex_lock_and_try_lock_order_the_holders() {
    ten_and_ten_with(true, || {
        let m = std::sync::Arc::new(Mutex::new(0u64));
        let m2 = m.clone();
        (move || *block_on(m.lock()) += 1, move || assert_eq!(*m2.try_lock().expect("the sender unlocked"), 1))
    });
    ten_and_ten_with(true, || {
        let m = std::sync::Arc::new(Mutex::new((0u64, 0u64)));
        let m2 = m.clone();
        (
            move || {
                let part = MutexGuard::map(block_on(m.lock()), |v| &mut v.1);
                *MappedMutexGuard::map(part, |v| v) = 1;
            },
            move || assert_eq!(block_on(m2.lock()).1, 1),
        )
    });
}

#[cfg(feature = "race-detect")]
#[test]
fn mutex_owned_guards_order_the_holders() {
    ten_and_ten_with(true, || {
        let m = std::sync::Arc::new(Mutex::new(0u64));
        let m2 = m.clone();
        (
            move || *block_on(m.lock_owned()) += 1,
            move || assert_eq!(*m2.try_lock_owned().expect("the sender unlocked"), 1),
        )
    });
}

/// The mutex's value, guards and futures keep futures' API and output.
#[test]
fn mutex_api_is_futures() {
    let m = Mutex::new(String::from("a"));
    assert_eq!(format!("{m:?}"), "Mutex { is_locked: false, has_waiters: false }");
    {
        let g = m.try_lock().unwrap();
        assert!(m.try_lock().is_none());
        assert_eq!(
            format!("{g:?}"),
            r#"MutexGuard { value: "a", mutex: Mutex { is_locked: true, has_waiters: false } }"#
        );
        let mut fut = m.lock();
        assert!(!fut.is_terminated());
        assert!(block_on(future::poll_fn(|cx| Poll::Ready(Pin::new(&mut fut).poll(cx).is_pending()))));
        drop(g);
        let g = block_on(fut);
        let mut part = MutexGuard::map(g, |s| s.as_mut_str());
        part.make_ascii_uppercase();
    }
    let mut m = Mutex::from(m.into_inner());
    m.get_mut().push('b');
    assert_eq!(m.into_inner(), "Ab");
    let m = std::sync::Arc::new(Mutex::<Vec<u8>>::default());
    let g = m.try_lock_owned().unwrap();
    assert!(m.try_lock_owned().is_none());
    let fut = m.clone().lock_owned();
    drop(g);
    block_on(fut).push(1);
    assert_eq!(*block_on(m.lock()), [1]);
}

/// Asserts one flow race: the write at `w` by `writer`, then the read at `r` by `reader`; a
/// `None` actor is a task of the pool (named `task N` in reports).
#[cfg(feature = "race-detect")]
fn assert_flow_with_task(report: &Report, writer: (Option<&str>, Site), reader: (Option<&str>, Site)) {
    assert_eq!(report.len(), 1, "expected exactly one race, got:\n{report}");
    let race = &report.races()[0];
    assert_eq!(race.kind(), RaceKind::Flow, "{report}");
    let text = report.to_string();
    for (access, (name, site)) in [(race.previous(), writer), (race.current(), reader)] {
        assert_eq!(access.location(), site, "{report}");
        assert_eq!(access.thread_name(), name, "{report}");
        assert_eq!(access.is_task(), name.is_none(), "{report}");
        if name.is_none() {
            let label = format!(" by task {}", access.thread_id());
            assert!(text.contains(&label), "{label} in {text}");
        }
    }
}

/// A task spawned with `spawn_with_handle` is forked from its spawner (the write before the
/// spawn is ordered before the task's read) and joined by its handle (the task's write is
/// ordered before the read after the handle's `.await`): no report in ten runs. Its racy twin
/// reads before awaiting the handle: the task's write and the spawner's read race, every run.
#[cfg(feature = "race-detect")]
#[test]
fn thread_pool_spawn_with_handle_forks_and_joins_the_task() {
    use racer::futures::executor::ThreadPool;
    use racer::futures::task::SpawnExt;
    let pool = ThreadPool::builder().pool_size(2).create().unwrap();
    for _ in 0..RUNS {
        let pool = pool.clone();
        let report = racer::check(move || {
            named("spawner", move || {
                let cell = Arc::new(Shared::new(0u64));
                write(&cell, 1);
                let c = cell.clone();
                let handle = pool
                    .spawn_with_handle(async move {
                        assert_eq!(read(&c).0, 1);
                        write(&c, 2);
                        7u8
                    })
                    .unwrap();
                assert_eq!(block_on(handle), 7);
                assert_eq!(read(&cell).0, 2);
            })
            .join()
            .unwrap();
        });
        assert_no_race(&report);
    }
    for _ in 0..RUNS {
        let pool = pool.clone();
        let mut sites = None;
        let report = racer::check(|| {
            sites = Some(
                named("spawner", move || {
                    let cell = Arc::new(Shared::new(0u64));
                    let c = cell.clone();
                    let (written, wait) = std_mpsc::channel::<Site>();
                    let handle = pool
                        .spawn_with_handle(async move {
                            written.send(write(&c, 2)).unwrap();
                        })
                        .unwrap();
                    let w = wait.recv().unwrap();
                    let (_, r) = read(&cell);
                    block_on(handle);
                    (w, r)
                })
                .join()
                .unwrap(),
            );
        });
        let (w, r) = sites.unwrap();
        assert_flow_with_task(&report, (None, w), (Some("spawner"), r));
    }
}

/// `spawn_ok` and `Spawn::spawn_obj` (under `SpawnExt::spawn`) fork the task from its spawner;
/// a channel of `racer::futures` joins it. The racy twin writes after the spawn: the task's read
/// races with it, every run.
#[cfg(feature = "race-detect")]
#[test]
fn thread_pool_spawn_ok_forks_the_task() {
    use racer::futures::executor::ThreadPool;
    use racer::futures::task::SpawnExt;
    let pool = ThreadPool::new().unwrap();
    for run in 0..RUNS {
        let pool = pool.clone();
        let report = racer::check(move || {
            named("spawner", move || {
                let cell = Arc::new(Shared::new(0u64));
                write(&cell, 1);
                let c = cell.clone();
                let (tx, rx) = oneshot::channel();
                let task = async move {
                    assert_eq!(read(&c).0, 1);
                    write(&c, 2);
                    tx.send(()).unwrap();
                };
                if run % 2 == 0 {
                    pool.spawn_ok(task);
                } else {
                    pool.spawn(task).unwrap();
                }
                block_on(rx).unwrap();
                assert_eq!(read(&cell).0, 2);
            })
            .join()
            .unwrap();
        });
        assert_no_race(&report);
    }
    for _ in 0..RUNS {
        let pool = pool.clone();
        let mut sites = None;
        let report = racer::check(|| {
            sites = Some(
                named("spawner", move || {
                    let cell = Arc::new(Shared::new(0u64));
                    let c = cell.clone();
                    let (go, wait) = std_mpsc::channel::<Site>();
                    let (tx, rx) = oneshot::channel();
                    pool.spawn_ok(async move {
                        let w = wait.recv().unwrap();
                        let (_, r) = read(&c);
                        tx.send((w, r)).unwrap();
                    });
                    go.send(write(&cell, 1)).unwrap();
                    block_on(rx).unwrap()
                })
                .join()
                .unwrap(),
            );
        });
        let (w, r) = sites.unwrap();
        assert_flow_with_task(&report, (Some("spawner"), w), (None, r));
    }
}

/// Two tasks on a pool of one worker are two logical threads, not the worker's: their writes
/// with nothing between them race (an output race, both named as tasks), every run.
#[cfg(feature = "race-detect")]
#[test]
fn thread_pool_tasks_on_one_worker_are_tasks_of_their_own() {
    use racer::futures::executor::ThreadPool;
    let pool = ThreadPool::builder().pool_size(1).create().unwrap();
    for _ in 0..RUNS {
        let pool = pool.clone();
        let mut sites = None;
        let report = racer::check(|| {
            let cell = Arc::new(Shared::new(0u64));
            let (first_done, wait_first) = oneshot::channel::<Site>();
            let (second_done, wait_second) = oneshot::channel::<Site>();
            let c = cell.clone();
            pool.spawn_ok(async move { first_done.send(write(&c, 1)).unwrap() });
            let c = cell.clone();
            pool.spawn_ok(async move { second_done.send(write(&c, 2)).unwrap() });
            sites = Some((block_on(wait_first).unwrap(), block_on(wait_second).unwrap()));
        });
        let (first, second) = sites.unwrap();
        assert_eq!(report.len(), 1, "{report}");
        let race = &report.races()[0];
        assert_eq!(race.kind(), RaceKind::Output, "{report}");
        // One worker polls them in their spawn order.
        assert_eq!((race.previous().location(), race.current().location()), (first, second), "{report}");
        assert!(race.previous().is_task() && race.current().is_task(), "{report}");
        assert_ne!(race.previous().thread_id(), race.current().thread_id(), "{report}");
    }
}

/// futures' macros and the items racer does not wrap are there under `racer::futures`.
#[test]
fn macros_and_other_items_resolve() {
    use racer::futures::future::FutureExt;
    use racer::futures::stream;
    let (a, b) = block_on(async { racer::futures::join!(async { 1 }, async { 2 }) });
    assert_eq!(a + b, 3);
    let picked = block_on(async {
        let mut x = future::ready(1).fuse();
        let mut y = future::pending::<u8>().fuse();
        racer::futures::select! {
            v = x => v,
            v = y => v,
        }
    });
    assert_eq!(picked, 1);
    block_on(async {
        let f = async { 3 };
        racer::futures::pin_mut!(f);
        assert_eq!(f.await, 3);
        let n: Vec<u8> = stream::iter([1, 2]).collect().await;
        assert_eq!(n, [1, 2]);
        assert_eq!(racer::futures::try_join!(async { Ok::<_, ()>(1) }, async { Ok(2) }), Ok((1, 2)));
    });
}

/// Without `race-detect`, `racer::futures`'s items are futures' own (this only compiles if
/// they are).
#[cfg(not(feature = "race-detect"))]
#[test]
fn without_race_detect_the_items_are_futures_own() {
    let _: futures::channel::mpsc::Sender<u8> = racer::futures::channel::mpsc::channel(1).0;
    let _: futures::channel::mpsc::UnboundedReceiver<u8> = racer::futures::channel::mpsc::unbounded().1;
    let _: futures::channel::oneshot::Sender<u8> = racer::futures::channel::oneshot::channel().0;
    let _: futures::lock::Mutex<u8> = racer::futures::lock::Mutex::new(0);
    let _: futures::executor::ThreadPool = racer::futures::executor::ThreadPool::new().unwrap();
    let _: futures::executor::LocalPool = racer::futures::executor::LocalPool::new();
    let pool: futures::executor::ThreadPool = racer::futures::executor::ThreadPoolBuilder::new().create().unwrap();
    use racer::futures::task::SpawnExt;
    let handle: futures::future::RemoteHandle<()> = pool.spawn_with_handle(async {}).unwrap();
    handle.forget();
}
