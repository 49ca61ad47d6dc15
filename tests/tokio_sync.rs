//! `racer::tokio::sync`: each primitive orders what a hand-off through it orders (no report, in
//! each of ten runs on a multi-thread and on a current-thread runtime), and no more (an access
//! after the hand-off, or on the wrong side of it, is reported, in every run). The wrappers
//! have tokio's names, signatures, results and errors.
//!
//! Where the order of two tasks matters for the test (an access that a wrongly wide edge would
//! hide only if it came first), the tasks wait for each other through a `std` atomic flag,
//! which orders nothing for the detector.
//! The file builds without `race-detect` too, against tokio's own items, where the hand-offs
//! run (and report nothing); the tests of a missing edge need the detector.
#![cfg(feature = "tokio")]
// What the missing-edge tests alone use.
#![cfg_attr(not(feature = "race-detect"), allow(unused_imports, dead_code))]

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::Arc;
use std::time::Duration;

use racer::tokio::sync::{
    broadcast, mpsc, oneshot, watch, AcquireError, Barrier, Mutex, MutexGuard, Notify, OnceCell, OwnedMutexGuard,
    RwLock, RwLockReadGuard, RwLockWriteGuard, Semaphore, SetError, SetOnce, SetOnceError, TryAcquireError,
};
use racer::tokio::task;
use racer::{RaceKind, Report, Shared};

#[path = "tokio_support/mod.rs"]
mod tokio_support;
use tokio_support::{check_on, current_thread, runtimes};

const RUNS: usize = 10;

/// `body` gives an empty report in each of `RUNS` runs on each runtime.
fn no_report_every_run<F: Future<Output = ()>>(what: &str, body: impl Fn() -> F) {
    for (name, rt) in runtimes() {
        for run in 0..RUNS {
            let report = check_on(rt, &body);
            assert!(report.is_empty(), "{what}, {name} runtime, run {run}: {report}");
        }
    }
}

/// `body` gives one race, of one of `kinds`, in each of `RUNS` runs on each runtime; returns
/// the last report.
#[cfg(feature = "race-detect")]
fn race_every_run<F: Future<Output = ()>>(what: &str, kinds: &[RaceKind], body: impl Fn() -> F) -> Report {
    let mut last = None;
    for (name, rt) in runtimes() {
        for run in 0..RUNS {
            let report = check_on(rt, &body);
            assert_eq!(report.len(), 1, "{what}, {name} runtime, run {run}: {report}");
            let kind = report.races()[0].kind();
            assert!(kinds.contains(&kind), "{what}, {name} runtime, run {run}: {kind:?}: {report}");
            last = Some(report);
        }
    }
    last.unwrap()
}

fn cell() -> Arc<Shared<u64>> {
    Arc::new(Shared::new(0))
}

fn cells(n: usize) -> Arc<Vec<Shared<u64>>> {
    Arc::new((0..n).map(|_| Shared::new(0)).collect())
}

/// A flag the detector does not see: real-time order without happens-before.
#[derive(Clone, Default)]
struct Flag(Arc<AtomicBool>);

impl Flag {
    fn raise(&self) {
        self.0.store(true, SeqCst);
    }

    async fn raised(&self) {
        while !self.0.load(SeqCst) {
            task::yield_now().await;
        }
    }
}

// === Mutex ===

/// Increments under the lock by `lock`, `lock_owned`, `try_lock`, `try_lock_owned` and a mapped
/// guard, from eight tasks: each critical section is ordered after the previous one.
#[test]
fn mutex_orders_critical_sections() {
    no_report_every_run("Mutex", || async {
        let mutex = Arc::new(Mutex::new(0u64));
        let counter = cell();
        let mut handles = Vec::new();
        for i in 0..8 {
            let (mutex, counter) = (mutex.clone(), counter.clone());
            handles.push(racer::tokio::spawn(async move {
                for _ in 0..5 {
                    let bump = |guard: &mut u64| {
                        unsafe { counter.set(counter.get() + 1) };
                        *guard += 1;
                    };
                    match i % 5 {
                        0 => bump(&mut *mutex.lock().await),
                        1 => bump(&mut *mutex.clone().lock_owned().await),
                        2 => loop {
                            if let Ok(mut guard) = mutex.try_lock() {
                                break bump(&mut guard);
                            }
                            task::yield_now().await;
                        },
                        3 => loop {
                            if let Ok(mut guard) = mutex.clone().try_lock_owned() {
                                break bump(&mut guard);
                            }
                            task::yield_now().await;
                        },
                        _ => {
                            let mut mapped = MutexGuard::map(mutex.lock().await, |v| v);
                            bump(&mut mapped);
                        }
                    }
                }
            }));
        }
        for handle in handles {
            handle.await.unwrap();
        }
        assert_eq!(*mutex.lock().await, 40);
        assert_eq!(unsafe { counter.get() }, 40);
    });
}

/// A write after the unlock is not ordered before the next critical section.
#[cfg(feature = "race-detect")]
#[test]
fn mutex_orders_nothing_after_the_unlock() {
    race_every_run("write after unlock", &[RaceKind::Flow], || async {
        let mutex = Arc::new(Mutex::new(()));
        let (x, done) = (cell(), Flag::default());
        let (m, x2, d) = (mutex.clone(), x.clone(), done.clone());
        let writer = racer::tokio::spawn(async move {
            drop(m.lock().await);
            unsafe { x2.set(1) };
            d.raise();
        });
        done.raised().await;
        let guard = mutex.lock().await;
        assert_eq!(unsafe { x.get() }, 1);
        drop(guard);
        writer.await.unwrap();
    });
}

// === RwLock ===

/// Writers (`write`, `write_owned`, `try_write`) and readers (`read`, `read_owned`,
/// `try_read`, a downgraded writer) each see the last write, and a writer is ordered after the
/// readers before it.
#[test]
fn rwlock_orders_writers_and_readers() {
    no_report_every_run("RwLock", || async {
        let lock = Arc::new(RwLock::new(0u64));
        let x = cell();
        let mut handles = Vec::new();
        for i in 0..8 {
            let (lock, x) = (lock.clone(), x.clone());
            handles.push(racer::tokio::spawn(async move {
                for _ in 0..5 {
                    match i % 6 {
                        0 => {
                            let mut guard = lock.write().await;
                            unsafe { x.set(x.get() + 1) };
                            *guard += 1;
                        }
                        1 => {
                            let mut guard = lock.clone().write_owned().await;
                            unsafe { x.set(x.get() + 1) };
                            *guard += 1;
                        }
                        2 => loop {
                            if let Ok(mut guard) = lock.try_write() {
                                unsafe { x.set(x.get() + 1) };
                                *guard += 1;
                                break;
                            }
                            task::yield_now().await;
                        },
                        3 => {
                            let guard = lock.read().await;
                            assert_eq!(unsafe { x.get() }, *guard);
                        }
                        4 => {
                            let guard = lock.clone().read_owned().await;
                            assert_eq!(unsafe { x.get() }, *guard);
                        }
                        _ => {
                            let mut guard = lock.write().await;
                            unsafe { x.set(x.get() + 1) };
                            *guard += 1;
                            let guard: RwLockReadGuard<'_, u64> = RwLockWriteGuard::downgrade(guard);
                            assert_eq!(unsafe { x.get() }, *guard);
                            drop(guard);
                            if let Ok(guard) = lock.try_read() {
                                assert_eq!(unsafe { x.get() }, *guard);
                            }
                        }
                    }
                    task::yield_now().await;
                }
            }));
        }
        for handle in handles {
            handle.await.unwrap();
        }
        // Six writers (i % 6 in 0, 1, 2, 5), five writes each.
        assert_eq!(*lock.read().await, 30);
        assert_eq!(unsafe { x.get() }, 30);
    });
}

/// Readers do not order each other: a reader's write (through a cell) races with a later
/// reader's read.
#[cfg(feature = "race-detect")]
#[test]
fn rwlock_readers_do_not_order_each_other() {
    race_every_run("two readers", &[RaceKind::Flow], || async {
        let lock = Arc::new(RwLock::new(()));
        let (x, done) = (cell(), Flag::default());
        let (l, x2, d) = (lock.clone(), x.clone(), done.clone());
        let reader = racer::tokio::spawn(async move {
            let _guard = l.read().await;
            unsafe { x2.set(1) };
            d.raise();
        });
        done.raised().await;
        let _guard = lock.read().await;
        assert_eq!(unsafe { x.get() }, 1);
        reader.await.unwrap();
    });
}

// === Semaphore ===

/// A semaphore of one permit as a lock (`acquire`, `acquire_owned`, `try_acquire`,
/// `acquire_many`), and `add_permits` handing over to a waiting `acquire`.
#[test]
fn semaphore_orders_giving_before_taking() {
    no_report_every_run("Semaphore", || async {
        let sem = Arc::new(Semaphore::new(1));
        let x = cell();
        let mut handles = Vec::new();
        for i in 0..4 {
            let (sem, x) = (sem.clone(), x.clone());
            handles.push(racer::tokio::spawn(async move {
                for _ in 0..5 {
                    match i {
                        0 => {
                            let _permit = sem.acquire().await.unwrap();
                            unsafe { x.set(x.get() + 1) };
                        }
                        1 => {
                            let _permit = sem.clone().acquire_owned().await.unwrap();
                            unsafe { x.set(x.get() + 1) };
                        }
                        2 => loop {
                            if let Ok(_permit) = sem.try_acquire() {
                                unsafe { x.set(x.get() + 1) };
                                break;
                            }
                            task::yield_now().await;
                        },
                        _ => {
                            let permit = sem.acquire_many(1).await.unwrap();
                            unsafe { x.set(x.get() + 1) };
                            assert_eq!(permit.num_permits(), 1);
                        }
                    }
                }
            }));
        }
        for handle in handles {
            handle.await.unwrap();
        }
        assert_eq!(unsafe { x.get() }, 20);

        let gate = Arc::new(Semaphore::new(0));
        let (g, y) = (gate.clone(), cell());
        let y2 = y.clone();
        let waiter = racer::tokio::spawn(async move {
            g.acquire().await.unwrap().forget();
            assert_eq!(unsafe { y2.get() }, 1);
        });
        unsafe { y.set(1) };
        gate.add_permits(1);
        waiter.await.unwrap();
    });
}

/// `close` releases, and each way of learning of the close acquires: a waiting `acquire` that
/// fails, a `try_acquire` that fails with `Closed`, `is_closed` returning true (a once-cell over a
/// semaphore, as async-lazy's, writes its value, then closes; its waiters read the value then).
#[test]
fn semaphore_close_orders_the_closer_before_who_sees_it_closed() {
    no_report_every_run("Semaphore::close", || async {
        let gate = Arc::new(Semaphore::new(0));
        let x = cell();
        let mut seers = Vec::new();
        for way in 0..3 {
            let (g, x) = (gate.clone(), x.clone());
            seers.push(racer::tokio::spawn(async move {
                match way {
                    0 => assert!(g.acquire().await.is_err()),
                    1 => {
                        while !matches!(g.try_acquire(), Err(TryAcquireError::Closed)) {
                            task::yield_now().await;
                        }
                    }
                    _ => {
                        while !g.is_closed() {
                            task::yield_now().await;
                        }
                    }
                }
                assert_eq!(unsafe { x.get() }, 1);
            }));
        }
        unsafe { x.set(1) };
        gate.close();
        for seer in seers {
            seer.await.unwrap();
        }
    });
}

/// A forgotten permit gives nothing back and orders nothing.
#[cfg(feature = "race-detect")]
#[test]
fn semaphore_forget_orders_nothing() {
    race_every_run("forgotten permit", &[RaceKind::Flow], || async {
        let sem = Arc::new(Semaphore::new(2));
        let (x, done) = (cell(), Flag::default());
        let (s, x2, d) = (sem.clone(), x.clone(), done.clone());
        let holder = racer::tokio::spawn(async move {
            let permit = s.acquire().await.unwrap();
            unsafe { x2.set(1) };
            permit.forget();
            d.raise();
        });
        done.raised().await;
        let _permit = sem.acquire().await.unwrap();
        assert_eq!(unsafe { x.get() }, 1);
        assert_eq!(sem.available_permits(), 0);
        holder.await.unwrap();
    });
}

// === Notify ===

/// `notify_one` (before or after the wait started), `notify_waiters` to an enabled `Notified`
/// and `notified_owned`.
#[test]
fn notify_orders_the_notifier_before_the_woken() {
    no_report_every_run("Notify", || async {
        let notify = Arc::new(Notify::new());
        let x = cell();
        let (n, x2) = (notify.clone(), x.clone());
        let first = racer::tokio::spawn(async move {
            unsafe { x2.set(1) };
            n.notify_one();
        });
        notify.notified().await;
        assert_eq!(unsafe { x.get() }, 1);

        let mut waiting = std::pin::pin!(notify.notified());
        waiting.as_mut().enable();
        let (n, x2) = (notify.clone(), x.clone());
        let second = racer::tokio::spawn(async move {
            unsafe { x2.set(2) };
            n.notify_waiters();
        });
        waiting.await;
        assert_eq!(unsafe { x.get() }, 2);

        let (n, x2) = (notify.clone(), x.clone());
        let third = racer::tokio::spawn(async move {
            unsafe { x2.set(3) };
            n.notify_last();
        });
        notify.clone().notified_owned().await;
        assert_eq!(unsafe { x.get() }, 3);
        // Joined, so that the cell's last owner (its drop is a write) is this task.
        for handle in [first, second, third] {
            handle.await.unwrap();
        }
    });
}

/// A write after `notify_one` is not ordered before the woken task.
#[cfg(feature = "race-detect")]
#[test]
fn notify_orders_nothing_after_the_notification() {
    race_every_run("write after notify", &[RaceKind::Flow, RaceKind::Anti], || async {
        let notify = Arc::new(Notify::new());
        let x = cell();
        let (n, x2) = (notify.clone(), x.clone());
        let notifier = racer::tokio::spawn(async move {
            n.notify_one();
            unsafe { x2.set(1) };
        });
        notify.notified().await;
        let _ = unsafe { x.get() };
        notifier.await.unwrap();
    });
}

// === Barrier ===

/// Four tasks, three rounds: each writes its own cell, waits, reads every cell, waits.
#[test]
fn barrier_orders_each_generation() {
    no_report_every_run("Barrier", || async {
        let barrier = Arc::new(Barrier::new(4));
        let slots = cells(4);
        let mut handles = Vec::new();
        for i in 0..4 {
            let (barrier, slots) = (barrier.clone(), slots.clone());
            handles.push(racer::tokio::spawn(async move {
                let mut leaders = 0;
                for round in 1..=3 {
                    unsafe { slots[i].set(round) };
                    leaders += barrier.wait().await.is_leader() as u32;
                    for slot in slots.iter() {
                        assert_eq!(unsafe { slot.get() }, round);
                    }
                    leaders += barrier.wait().await.is_leader() as u32;
                }
                leaders
            }));
        }
        let mut leaders = 0;
        for handle in handles {
            leaders += handle.await.unwrap();
        }
        assert_eq!(leaders, 6, "one leader per generation");
    });
}

/// A write after a generation passed races with the other task's read after it, though the
/// writer reached the next generation before the reader (on a current-thread runtime the
/// writer is the first generation's leader and arrives at the second one before the reader
/// runs again): each generation has its own clock.
#[cfg(feature = "race-detect")]
#[test]
fn barrier_orders_nothing_after_the_wait() {
    race_every_run("write after the barrier", &[RaceKind::Flow, RaceKind::Anti], || async {
        let barrier = Arc::new(Barrier::new(2));
        let x = cell();
        let (b, x2) = (barrier.clone(), x.clone());
        let reader = racer::tokio::spawn(async move {
            b.wait().await;
            let _ = unsafe { x2.get() };
            b.wait().await;
        });
        task::yield_now().await;
        barrier.wait().await;
        unsafe { x.set(1) };
        barrier.wait().await;
        reader.await.unwrap();
    });
}

// === OnceCell ===

/// `get_or_init` from eight tasks: one initialises (writing a cell), every task reads the cell
/// after; and `set` handing over to a task that polls `get`.
#[test]
fn once_cell_orders_the_initialisation_before_its_readers() {
    no_report_every_run("OnceCell", || async {
        let once = Arc::new(OnceCell::new());
        let x = cell();
        let mut handles = Vec::new();
        for i in 0..8u64 {
            let (once, x) = (once.clone(), x.clone());
            handles.push(racer::tokio::spawn(async move {
                let value = *once
                    .get_or_init(|| async {
                        unsafe { x.set(i + 1) };
                        i + 1
                    })
                    .await;
                assert_eq!(unsafe { x.get() }, value);
            }));
        }
        for handle in handles {
            handle.await.unwrap();
        }

        let once = Arc::new(OnceCell::new());
        let (o, y) = (once.clone(), cell());
        let y2 = y.clone();
        let setter = racer::tokio::spawn(async move {
            unsafe { y2.set(5) };
            o.set(5u64).unwrap();
        });
        let value = loop {
            if let Some(value) = once.get() {
                break *value;
            }
            task::yield_now().await;
        };
        assert_eq!(unsafe { y.get() }, value);
        setter.await.unwrap();
    });
}

/// A write after `set` is not ordered before a reader of the value.
#[cfg(feature = "race-detect")]
#[test]
fn once_cell_orders_nothing_after_the_set() {
    race_every_run("write after set", &[RaceKind::Flow], || async {
        let once = Arc::new(OnceCell::new());
        let (x, done) = (cell(), Flag::default());
        let (o, x2, d) = (once.clone(), x.clone(), done.clone());
        let setter = racer::tokio::spawn(async move {
            o.set(1u64).unwrap();
            unsafe { x2.set(1) };
            d.raise();
        });
        done.raised().await;
        assert_eq!(once.get(), Some(&1));
        assert_eq!(unsafe { x.get() }, 1);
        setter.await.unwrap();
    });
}

/// A `set` that lost (the cell was already set) orders nothing: the value's clock is its
/// setter's.
#[cfg(feature = "race-detect")]
#[test]
fn once_cell_failed_set_orders_nothing() {
    race_every_run("failed set", &[RaceKind::Flow], || async {
        let once = Arc::new(OnceCell::new());
        once.set(1u64).unwrap();
        let (x, done) = (cell(), Flag::default());
        let (o, x2, d) = (once.clone(), x.clone(), done.clone());
        let loser = racer::tokio::spawn(async move {
            unsafe { x2.set(2) };
            assert!(matches!(o.set(2), Err(SetError::AlreadyInitializedError(2))));
            d.raise();
        });
        done.raised().await;
        assert_eq!(once.get(), Some(&1));
        assert_eq!(unsafe { x.get() }, 2);
        loser.await.unwrap();
    });
}

// === SetOnce ===

/// The `set` is ordered before what follows a `wait` (started before or after it) or a `get`
/// that sees the value.
#[test]
fn set_once_orders_the_set_before_its_waiters() {
    no_report_every_run("SetOnce", || async {
        let once = Arc::new(SetOnce::new());
        let x = cell();
        let mut waiters = Vec::new();
        for _ in 0..3 {
            let (once, x) = (once.clone(), x.clone());
            waiters.push(racer::tokio::spawn(async move {
                let value = *once.wait().await;
                assert_eq!(unsafe { x.get() }, value);
            }));
        }
        let (o, x2) = (once.clone(), x.clone());
        let setter = racer::tokio::spawn(async move {
            unsafe { x2.set(4) };
            o.set(4u64).unwrap();
        });
        let value = loop {
            if let Some(value) = once.get() {
                break *value;
            }
            task::yield_now().await;
        };
        assert_eq!(unsafe { x.get() }, value);
        assert_eq!(*once.wait().await, 4);
        setter.await.unwrap();
        for waiter in waiters {
            waiter.await.unwrap();
        }
    });
}

/// A write after the `set` is not ordered before a waiter, nor is a `set` that lost.
#[cfg(feature = "race-detect")]
#[test]
fn set_once_orders_nothing_after_the_set() {
    race_every_run("write after set", &[RaceKind::Flow, RaceKind::Anti], || async {
        let once = Arc::new(SetOnce::new());
        let x = cell();
        let (o, x2) = (once.clone(), x.clone());
        let setter = racer::tokio::spawn(async move {
            o.set(1u64).unwrap();
            unsafe { x2.set(1) };
        });
        assert_eq!(*once.wait().await, 1);
        let _ = unsafe { x.get() };
        setter.await.unwrap();
    });
    race_every_run("failed set", &[RaceKind::Flow], || async {
        let once = Arc::new(SetOnce::const_new_with(1u64));
        let (x, done) = (cell(), Flag::default());
        let (o, x2, d) = (once.clone(), x.clone(), done.clone());
        let loser = racer::tokio::spawn(async move {
            unsafe { x2.set(2) };
            assert_eq!(o.set(2), Err(SetOnceError(2)));
            d.raise();
        });
        done.raised().await;
        assert_eq!(*once.wait().await, 1);
        assert_eq!(unsafe { x.get() }, 2);
        loser.await.unwrap();
    });
}

// === mpsc ===

/// Three producers (`send`, `try_send`, a reserved permit, `send_timeout`, `blocking_send`)
/// each write their slot and send its index; the consumer reads the slot of each index it
/// receives (`recv`, `recv_many`). Then the same through an unbounded channel.
#[test]
fn mpsc_orders_each_send_before_its_receive() {
    no_report_every_run("mpsc", || async {
        let slots = cells(25);
        let (tx, mut rx) = mpsc::channel::<usize>(2);
        let mut handles = Vec::new();
        for p in 0..5 {
            let (tx, slots) = (tx.clone(), slots.clone());
            handles.push(racer::tokio::spawn(async move {
                for k in 0..5 {
                    let i = p * 5 + k;
                    unsafe { slots[i].set(i as u64 + 1) };
                    match p {
                        0 => tx.send(i).await.unwrap(),
                        1 => {
                            let mut i = i;
                            loop {
                                match tx.try_send(i) {
                                    Ok(()) => break,
                                    Err(mpsc::error::TrySendError::Full(back)) => i = back,
                                    Err(e) => panic!("{e}"),
                                }
                                task::yield_now().await;
                            }
                        }
                        2 => tx.reserve().await.unwrap().send(i),
                        3 => tx.send_timeout(i, Duration::from_secs(60)).await.unwrap(),
                        _ => {
                            let tx = tx.clone();
                            task::spawn_blocking(move || tx.blocking_send(i).unwrap()).await.unwrap();
                        }
                    }
                }
            }));
        }
        drop(tx);
        let mut seen = 0;
        let mut batch = Vec::new();
        loop {
            batch.clear();
            let got = if seen % 2 == 0 {
                rx.recv().await.into_iter().collect::<Vec<_>>()
            } else {
                rx.recv_many(&mut batch, 3).await;
                batch.clone()
            };
            if got.is_empty() {
                break;
            }
            for i in got {
                assert_eq!(unsafe { slots[i].get() }, i as u64 + 1);
                seen += 1;
            }
        }
        assert_eq!(seen, 25);
        for handle in handles {
            handle.await.unwrap();
        }

        let (tx, mut rx) = mpsc::unbounded_channel::<usize>();
        let slots2 = slots.clone();
        let sender = racer::tokio::spawn(async move {
            for i in 0..25 {
                unsafe { slots2[i].set(100 + i as u64) };
                tx.send(i).unwrap();
            }
        });
        while let Some(i) = rx.recv().await {
            assert_eq!(unsafe { slots[i].get() }, 100 + i as u64);
        }
        sender.await.unwrap();
    });
}

/// Each message carries its own clock: a receiver that took only the first message is not
/// ordered after what the sender did between the first and the second send, though both
/// were sent before it received.
#[cfg(feature = "race-detect")]
#[test]
fn mpsc_orders_only_the_messages_received() {
    let report = race_every_run("write between two sends", &[RaceKind::Flow], || async {
        let (tx, mut rx) = mpsc::channel::<u32>(4);
        let (x, done) = (cell(), Flag::default());
        let (x2, d) = (x.clone(), done.clone());
        let sender = racer::tokio::spawn(async move {
            tx.send(1).await.unwrap();
            unsafe { x2.set(1) };
            tx.send(2).await.unwrap();
            d.raise();
        });
        done.raised().await;
        assert_eq!(rx.recv().await, Some(1));
        assert_eq!(unsafe { x.get() }, 1);
        sender.await.unwrap();
    });
    let race = &report.races()[0];
    let last_sync = race.current().after_sync().unwrap_or_default();
    assert!(
        last_sync.starts_with("receiving from a tokio::sync::mpsc channel (created at ")
            && last_sync.contains("tests/tokio_sync.rs"),
        "{last_sync}: {report}"
    );
}

// === oneshot ===

/// The send is ordered before the receive, as a future, `try_recv` or `blocking_recv`.
#[test]
fn oneshot_orders_the_send_before_the_receive() {
    no_report_every_run("oneshot", || async {
        let x = cell();
        let (tx, rx) = oneshot::channel::<u64>();
        let x2 = x.clone();
        let first = racer::tokio::spawn(async move {
            unsafe { x2.set(1) };
            tx.send(1).unwrap();
        });
        assert_eq!(rx.await, Ok(1));
        assert_eq!(unsafe { x.get() }, 1);

        let (tx, mut rx) = oneshot::channel::<u64>();
        let x2 = x.clone();
        let second = racer::tokio::spawn(async move {
            unsafe { x2.set(2) };
            tx.send(2).unwrap();
        });
        let value = loop {
            match rx.try_recv() {
                Ok(value) => break value,
                Err(oneshot::error::TryRecvError::Empty) => task::yield_now().await,
                Err(e) => panic!("{e}"),
            }
        };
        assert_eq!(unsafe { x.get() }, value);

        let (tx, rx) = oneshot::channel::<u64>();
        let x2 = x.clone();
        let receiver = task::spawn_blocking(move || {
            let value = rx.blocking_recv().unwrap();
            assert_eq!(unsafe { x2.get() }, value);
        });
        unsafe { x.set(3) };
        tx.send(3).unwrap();
        for handle in [first, second, receiver] {
            handle.await.unwrap();
        }
    });
}

/// A write after the send is not ordered before the receiver.
#[cfg(feature = "race-detect")]
#[test]
fn oneshot_orders_nothing_after_the_send() {
    race_every_run("write after send", &[RaceKind::Flow, RaceKind::Anti], || async {
        let x = cell();
        let (tx, rx) = oneshot::channel::<u64>();
        let x2 = x.clone();
        let sender = racer::tokio::spawn(async move {
            tx.send(1).unwrap();
            unsafe { x2.set(1) };
        });
        rx.await.unwrap();
        let _ = unsafe { x.get() };
        sender.await.unwrap();
    });
}

// === watch ===

/// `send` then `changed` and `borrow_and_update`; `send_modify` then `wait_for`; `send_replace`
/// then `has_changed` and `borrow`.
#[test]
fn watch_orders_each_send_before_who_sees_its_value() {
    no_report_every_run("watch", || async {
        let x = cell();
        let (tx, mut rx) = watch::channel(0u64);
        // The receiver's go-ahead for the second send, once it read the first value.
        let seen = Arc::new(Notify::new());
        let (x2, seen2) = (x.clone(), seen.clone());
        let sender = racer::tokio::spawn(async move {
            unsafe { x2.set(1) };
            tx.send(1).unwrap();
            seen2.notified().await;
            unsafe { x2.set(2) };
            tx.send_modify(|v| *v = 2);
            tx
        });
        rx.changed().await.unwrap();
        let value = *rx.borrow_and_update();
        assert_eq!(value, 1);
        assert_eq!(unsafe { x.get() }, value);
        seen.notify_one();
        let value = *rx.wait_for(|v| *v == 2).await.unwrap();
        assert_eq!(unsafe { x.get() }, value);
        let tx = sender.await.unwrap();

        let x2 = x.clone();
        let rx2 = tx.subscribe();
        let sender = racer::tokio::spawn(async move {
            unsafe { x2.set(3) };
            assert_eq!(tx.send_replace(3), 2);
            tx
        });
        // (`has_changed` is an error once the sender is dropped: it is kept until the end.)
        while !rx2.has_changed().unwrap() {
            task::yield_now().await;
        }
        assert_eq!(unsafe { x.get() }, *rx2.borrow());
        drop(sender.await.unwrap());
    });
}

/// A write after the send of the value a receiver sees is not ordered before it.
#[cfg(feature = "race-detect")]
#[test]
fn watch_orders_nothing_after_the_send_seen() {
    race_every_run("write after send", &[RaceKind::Flow], || async {
        let (tx, rx) = watch::channel(0u64);
        let (x, done) = (cell(), Flag::default());
        let (x2, d) = (x.clone(), done.clone());
        let sender = racer::tokio::spawn(async move {
            tx.send(1).unwrap();
            unsafe { x2.set(1) };
            d.raise();
            tx
        });
        done.raised().await;
        assert_eq!(*rx.borrow(), 1);
        assert_eq!(unsafe { x.get() }, 1);
        drop(sender.await.unwrap());
    });
}

// === broadcast ===

/// Each of two receivers (`recv`, `try_recv`) is ordered after the sends it received.
#[test]
fn broadcast_orders_each_send_before_every_receive() {
    no_report_every_run("broadcast", || async {
        let slots = cells(8);
        let (tx, mut rx1) = broadcast::channel::<usize>(16);
        let mut rx2 = tx.subscribe();
        let slots2 = slots.clone();
        let sender = racer::tokio::spawn(async move {
            for i in 0..8 {
                unsafe { slots2[i].set(i as u64 + 1) };
                assert_eq!(tx.send(i).unwrap(), 2);
            }
        });
        let slots3 = slots.clone();
        let second = racer::tokio::spawn(async move {
            let mut seen = 0;
            while seen < 8 {
                match rx2.try_recv() {
                    Ok(i) => {
                        assert_eq!(unsafe { slots3[i].get() }, i as u64 + 1);
                        seen += 1;
                    }
                    Err(broadcast::error::TryRecvError::Empty) => task::yield_now().await,
                    Err(e) => panic!("{e}"),
                }
            }
        });
        for _ in 0..8 {
            let i = rx1.recv().await.unwrap();
            assert_eq!(unsafe { slots[i].get() }, i as u64 + 1);
        }
        sender.await.unwrap();
        second.await.unwrap();
    });
}

/// As for mpsc: a receiver is ordered after the sends of the messages it took only.
#[cfg(feature = "race-detect")]
#[test]
fn broadcast_orders_only_the_messages_received() {
    race_every_run("write between two sends", &[RaceKind::Flow], || async {
        let (tx, mut rx) = broadcast::channel::<u32>(4);
        let (x, done) = (cell(), Flag::default());
        let (x2, d) = (x.clone(), done.clone());
        let sender = racer::tokio::spawn(async move {
            tx.send(1).unwrap();
            unsafe { x2.set(1) };
            tx.send(2).unwrap();
            d.raise();
            tx
        });
        done.raised().await;
        assert_eq!(rx.recv().await, Ok(1));
        assert_eq!(unsafe { x.get() }, 1);
        drop(sender.await.unwrap());
    });
}

// === blocking ===

/// `blocking_lock`, `blocking_write`, `blocking_read` and `blocking_recv` from `spawn_blocking`
/// tasks, handing over to and from async tasks.
#[test]
fn blocking_variants_order_as_the_async_ones() {
    no_report_every_run("blocking", || async {
        let mutex = Arc::new(Mutex::new(0u64));
        let lock = Arc::new(RwLock::new(0u64));
        let x = cell();
        let (m, l, x2) = (mutex.clone(), lock.clone(), x.clone());
        task::spawn_blocking(move || {
            let mut guard = m.blocking_lock();
            unsafe { x2.set(1) };
            *guard = 1;
            drop(guard);
            let mut guard = l.blocking_write();
            unsafe { x2.set(2) };
            *guard = 2;
        })
        .await
        .unwrap();
        assert_eq!(*mutex.lock().await, 1);
        assert_eq!(*lock.read().await, 2);

        let (tx, mut rx) = mpsc::unbounded_channel::<u64>();
        let (l, x2) = (lock.clone(), x.clone());
        let reader = task::spawn_blocking(move || {
            let value = rx.blocking_recv().unwrap();
            assert_eq!(unsafe { x2.get() }, value);
            assert_eq!(*l.blocking_read(), value);
        });
        {
            let mut guard = lock.write().await;
            unsafe { x.set(3) };
            *guard = 3;
        }
        tx.send(3).unwrap();
        reader.await.unwrap();
    });
}

// === tokio's behaviour ===

/// The wrappers give tokio's results and errors, values back included, and print as tokio's.
#[test]
fn wrappers_behave_as_tokio() {
    let report = check_on(current_thread, || async {
        let mutex = Arc::new(Mutex::new(1u32));
        assert_eq!(format!("{mutex:?}"), "Mutex { data: 1 }");
        let guard: OwnedMutexGuard<u32> = mutex.clone().lock_owned().await;
        assert!(mutex.try_lock().is_err());
        assert_eq!(format!("{mutex:?}"), "Mutex { data: <locked> }");
        let mapped = OwnedMutexGuard::map(guard, |v| v);
        assert_eq!(*mapped, 1);
        drop(mapped);
        static STATIC_MUTEX: Mutex<u32> = Mutex::const_new(7);
        assert_eq!(*STATIC_MUTEX.lock().await, 7);
        let mut owned = Mutex::new(vec![1]);
        owned.get_mut().push(2);
        assert_eq!(owned.into_inner(), vec![1, 2]);
        assert_eq!(Mutex::<u8>::default().into_inner(), 0);
        assert_eq!(Mutex::from(3).into_inner(), 3);

        let mut lock = RwLock::new(5u32);
        *lock.get_mut() += 1;
        assert_eq!(format!("{lock:?}"), "RwLock { data: 6 }");
        {
            let read = lock.read().await;
            assert!(lock.try_write().is_err());
            let mapped = RwLockReadGuard::map(read, |v| v);
            assert_eq!(*mapped, 6);
        }
        let write = lock.write().await;
        let mut mapped = RwLockWriteGuard::map(write, |v| v);
        *mapped = 8;
        drop(mapped);
        assert_eq!(lock.into_inner(), 8);

        let sem = Arc::new(Semaphore::new(2));
        assert!(Semaphore::MAX_PERMITS >= u32::MAX as usize >> 3);
        let mut two = sem.acquire_many(2).await.unwrap();
        assert_eq!(sem.try_acquire().err(), Some(TryAcquireError::NoPermits));
        let one = two.split(1).unwrap();
        two.merge(one);
        assert_eq!(two.num_permits(), 2);
        drop(two);
        assert_eq!(sem.available_permits(), 2);
        let owned = sem.clone().try_acquire_many_owned(2).unwrap();
        assert_eq!(owned.num_permits(), 2);
        drop(owned);
        sem.close();
        assert!(sem.is_closed());
        assert!(sem.acquire().await.map(drop).is_err_and(|e: AcquireError| e.to_string() == "semaphore closed"));
        assert_eq!(sem.try_acquire().err(), Some(TryAcquireError::Closed));
        static STATIC_SEM: Semaphore = Semaphore::const_new(1);
        assert_eq!(STATIC_SEM.available_permits(), 1);

        let once = OnceCell::new_with(Some(3u32));
        assert!(once.initialized());
        assert_eq!(format!("{once:?}"), "OnceCell { value: Some(3) }");
        assert_eq!(once.clone().into_inner(), Some(3));
        let mut once = OnceCell::<u32>::const_new();
        assert_eq!(once.get_or_try_init(|| async { Err::<u32, _>("no") }).await, Err("no"));
        assert_eq!(once.get_or_try_init(|| async { Ok::<u32, ()>(4) }).await, Ok(&4));
        assert_eq!(once.take(), Some(4));
        assert_eq!(once.get(), None);
        static STATIC_ONCE: OnceCell<u32> = OnceCell::const_new_with(9);
        assert_eq!(STATIC_ONCE.get(), Some(&9));

        let (tx, mut rx) = mpsc::channel::<String>(1);
        tx.try_send("a".into()).unwrap();
        assert_eq!(tx.try_send("b".into()), Err(mpsc::error::TrySendError::Full("b".to_string())));
        assert_eq!(rx.len(), 1);
        assert_eq!(tx.capacity(), 0);
        assert_eq!(rx.try_recv(), Ok("a".to_string()));
        assert_eq!(rx.try_recv(), Err(mpsc::error::TryRecvError::Empty));
        let weak = tx.downgrade();
        assert!(weak.upgrade().is_some());
        rx.close();
        assert!(tx.is_closed());
        assert_eq!(tx.send("c".into()).await, Err(mpsc::error::SendError("c".to_string())));
        drop(tx);
        assert_eq!(rx.recv().await, None);
        let (tx, rx) = mpsc::unbounded_channel::<u8>();
        drop(rx);
        assert_eq!(tx.send(1), Err(mpsc::error::SendError(1)));

        let (tx, rx) = oneshot::channel::<u8>();
        drop(rx);
        assert_eq!(tx.send(1), Err(1));
        let (tx, rx) = oneshot::channel::<u8>();
        drop(tx);
        assert!(rx.await.is_err());

        let (tx, rx) = watch::channel(1u8);
        drop(rx);
        assert_eq!(tx.send(2), Err(watch::error::SendError(2)));
        assert_eq!(tx.send_replace(3), 1);
        assert_eq!(*tx.borrow(), 3);

        let (tx, rx) = broadcast::channel::<u8>(2);
        drop(rx);
        assert_eq!(tx.send(1).unwrap_err().0, 1);
        let mut rx = tx.subscribe();
        for i in 0..4 {
            tx.send(i).unwrap();
        }
        assert_eq!(rx.recv().await, Err(broadcast::error::RecvError::Lagged(2)));
        assert_eq!(rx.recv().await, Ok(2));

        let barrier = Barrier::new(1);
        assert!(barrier.wait().await.is_leader());
        let notify = Notify::const_new();
        notify.notify_one();
        notify.notified().await;
    });
    assert!(report.is_empty(), "{report}");
}
