//! Async tasks as logical threads (`racer::tokio`): a task spawned through racer is checked as
//! a thread of its own, whichever worker polls it, on a multi-thread and on a current-thread
//! runtime; its spawn, its end and its join order it, and reports name it as a task.
//! The same file builds without `race-detect` against tokio's own items; the tests that need
//! the detector's reports are only in the race-detect build.
#![cfg(feature = "tokio")]

use std::sync::Arc;

use racer::tokio::task::{self, JoinSet};
#[cfg(feature = "race-detect")]
use racer::RaceKind;
use racer::Shared;

#[path = "tokio_support/mod.rs"]
mod tokio_support;
use tokio_support::{check_on, current_thread, runtimes};

/// Two tasks writing one cell with nothing between them: a race, on both runtimes (on the
/// current-thread one they run one after the other, but nothing orders them), in each of ten
/// runs, with both sites at the user's lines and both tasks named as tasks.
#[cfg(feature = "race-detect")]
#[test]
fn unordered_tasks_race_on_both_runtimes_every_time() {
    for (name, rt) in runtimes() {
        for run in 0..10 {
            let first_line = line!() + 4;
            let report = check_on(rt, || async {
                let cell = Arc::new(Shared::new(0u64));
                let (a, b) = (cell.clone(), cell.clone());
                let first = racer::tokio::spawn(async move { unsafe { a.set(1) } });
                let second = racer::tokio::spawn(async move { unsafe { b.set(2) } });
                first.await.unwrap();
                second.await.unwrap();
            });
            assert_eq!(report.len(), 1, "{name} run {run}: {report}");
            let race = &report.races()[0];
            assert_eq!(race.kind(), RaceKind::Output, "{name}: {report}");
            let mut lines: Vec<u32> = [race.previous(), race.current()].iter().map(|a| a.location().line()).collect();
            lines.sort();
            assert_eq!(lines, [first_line, first_line + 1], "{name}: {report}");
            for access in [race.previous(), race.current()] {
                assert!(access.location().file().ends_with("tests/tokio_tasks.rs"), "{report}");
                assert!(access.is_task(), "{name}: {report}");
                assert!(!access.is_foreign_thread(), "{name}: {report}");
                let spawned = access.spawned_at().expect("a task's spawn site");
                assert!(
                    spawned[0].file.as_deref().is_some_and(|f| f.ends_with("tests/tokio_tasks.rs")),
                    "{name}: spawn site {:?}",
                    spawned[0]
                );
            }
            let text = report.to_string();
            assert!(text.contains(" by task "), "{text}");
            assert!(text.contains("spawned by thread"), "{text}");
            assert!(!text.contains("not started by racer"), "{text}");
            assert!(!text.contains("tokio::runtime"), "runtime frames above the task's future: {text}");
        }
    }
}

/// A spawn orders what the spawner did before it; awaiting the join handle orders what the task
/// did; a task spawned by a task inherits both: no report, ten runs on both runtimes.
#[test]
fn spawn_and_join_order_tasks() {
    for (name, rt) in runtimes() {
        for _ in 0..10 {
            let report = check_on(rt, || async {
                let cell = Arc::new(Shared::new(0u64));
                unsafe { cell.set(1) };
                let c = cell.clone();
                let handle = racer::tokio::spawn(async move {
                    assert_eq!(unsafe { c.get() }, 1);
                    unsafe { c.set(2) };
                    let grandchild = c.clone();
                    racer::tokio::spawn(async move { unsafe { grandchild.set(3) } }).await.unwrap();
                    unsafe { c.set(4) };
                });
                handle.await.unwrap();
                assert_eq!(unsafe { cell.get() }, 4);
            });
            assert!(report.is_empty(), "{name}: {report}");
        }
    }
}

/// A task ordered after the spawner's write but not before its later read: the read after a
/// spawn and before the join races with the task's write.
#[cfg(feature = "race-detect")]
#[test]
fn the_spawner_races_with_its_task_until_the_join() {
    for (name, rt) in runtimes() {
        let report = check_on(rt, || async {
            let cell = Arc::new(Shared::new(0u64));
            let c = cell.clone();
            let handle = racer::tokio::spawn(async move { unsafe { c.set(1) } });
            task::yield_now().await;
            let _ = unsafe { cell.get() };
            handle.await.unwrap();
        });
        assert_eq!(report.len(), 1, "{name}: {report}");
        let race = &report.races()[0];
        assert!(matches!(race.kind(), RaceKind::Flow | RaceKind::Anti), "{name}: {report}");
        assert_ne!(race.previous().is_task(), race.current().is_task(), "one task, one thread: {report}");
    }
}

/// `JoinSet`: taking a task's result joins it; `spawn_blocking` is a task of its own; an
/// aborted task's drop runs as the task and its `JoinError` joins it.
#[test]
fn join_set_blocking_and_abort_join() {
    for (name, rt) in runtimes() {
        for _ in 0..10 {
            let report = check_on(rt, || async {
                let cells: Arc<Vec<Shared<u64>>> = Arc::new((0..8).map(|_| Shared::new(0)).collect());
                let mut set = JoinSet::new();
                for i in 0..8 {
                    let cells = cells.clone();
                    set.spawn(async move { unsafe { cells[i].set(i as u64) } });
                }
                while let Some(done) = set.join_next().await {
                    done.unwrap();
                }
                let total: u64 = cells.iter().map(|c| unsafe { c.get() }).sum();
                assert_eq!(total, 28);

                let c = cells.clone();
                task::spawn_blocking(move || unsafe { c[0].set(100) }).await.unwrap();
                assert_eq!(unsafe { cells[0].get() }, 100);

                // The future's drop writes the cell: it runs as the task, before the join.
                struct WritesOnDrop(Arc<Vec<Shared<u64>>>);
                impl Drop for WritesOnDrop {
                    fn drop(&mut self) {
                        unsafe { self.0[1].set(7) };
                    }
                }
                let guard = WritesOnDrop(cells.clone());
                let never = racer::tokio::spawn(async move {
                    let _guard = guard;
                    std::future::pending::<()>().await;
                });
                never.abort();
                assert!(never.await.unwrap_err().is_cancelled());
                assert_eq!(unsafe { cells[1].get() }, 7);
            });
            assert!(report.is_empty(), "{name}: {report}");
        }
    }
}

/// `spawn_local` tasks never leave their thread: they are ordered by it, not checked against
/// each other.
#[test]
fn local_tasks_are_ordered_by_their_thread() {
    let report = check_on(current_thread, || async {
        let local = task::LocalSet::new();
        local
            .run_until(async {
                let cell = std::rc::Rc::new(Shared::new(0u64));
                let (a, b) = (cell.clone(), cell.clone());
                let first = task::spawn_local(async move { unsafe { a.set(1) } });
                let second = task::spawn_local(async move { unsafe { b.set(2) } });
                first.await.unwrap();
                second.await.unwrap();
            })
            .await;
    });
    assert!(report.is_empty(), "{report}");
}

/// A task that `tokio::spawn` started (not racer) is named as such in a report, with the fix:
/// its write (awaited through tokio's own handle, which racer does not see) and a racer task's
/// later one are unordered for racer.
#[cfg(feature = "race-detect")]
#[test]
fn a_task_racer_did_not_spawn_is_named_with_the_fix() {
    let report = check_on(tokio_support::multi_thread, || async {
        let cell = Arc::new(Shared::new(0u64));
        let (a, b) = (cell.clone(), cell.clone());
        tokio::runtime::Handle::current().spawn(async move { unsafe { a.set(1) } }).await.unwrap();
        racer::tokio::spawn(async move { unsafe { b.set(2) } }).await.unwrap();
    });
    assert_eq!(report.len(), 1, "{report}");
    let text = report.to_string();
    assert!(text.contains("tokio::spawn started, not racer"), "{text}");
    assert!(text.contains("racer::tokio::spawn"), "{text}");
    assert!(!text.contains("tokio::runtime::"), "{text}");
}

/// `#[racer::test]` on an async fn: tokio's runtime, with `#[tokio::test]`'s arguments.
#[racer::test]
async fn racer_test_on_a_current_thread_runtime() {
    let cell = Arc::new(Shared::new(0u64));
    let c = cell.clone();
    racer::tokio::spawn(async move { unsafe { c.set(1) } }).await.unwrap();
    assert_eq!(unsafe { cell.get() }, 1);
}

#[racer::test(flavor = "multi_thread", worker_threads = 2)]
async fn racer_test_on_a_multi_thread_runtime() -> Result<(), task::JoinError> {
    let cell = Arc::new(Shared::new(0u64));
    let c = cell.clone();
    racer::tokio::spawn(async move { unsafe { c.set(1) } }).await?;
    assert_eq!(unsafe { cell.get() }, 1);
    Ok(())
}

#[racer::test(start_paused = true)]
async fn racer_test_with_paused_time() {
    let before = racer::tokio::time::Instant::now();
    racer::tokio::time::sleep(std::time::Duration::from_secs(60)).await;
    assert!(before.elapsed() >= std::time::Duration::from_secs(60));
}

/// Inside a model each task of `racer::tokio::spawn` is a model thread (tests/tokio_model.rs);
/// a `JoinSet`'s task is not, and spawning one there fails at once and says so, instead of
/// exploring nothing or hanging.
#[cfg(feature = "race-detect")]
#[test]
fn a_model_says_a_join_sets_task_cannot_run_in_it() {
    let failure = std::panic::catch_unwind(|| {
        racer::model(|| {
            current_thread().block_on(async {
                let mut set = JoinSet::new();
                set.spawn(async {});
                set.join_next().await;
            })
        })
    })
    .expect_err("a model that spawns a JoinSet's task fails");
    let message = failure
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| failure.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(message.contains("spawning a JoinSet's task inside racer::model"), "{message}");
    assert!(message.contains("racer::tokio::spawn"), "names what works: {message}");
}

/// README's example ("Async and tokio"), as written there.
mod readme {
    use std::sync::Arc;

    use racer::tokio::sync::Mutex; // was: use tokio::sync::Mutex;

    #[racer::test(flavor = "multi_thread", worker_threads = 4)] // #[tokio::test]'s arguments
    async fn counter_is_race_free() {
        let (lock, count) = (Arc::new(Mutex::new(())), Arc::new(racer::Shared::new(0u64)));
        let tasks: Vec<_> = (0..8)
            .map(|_| {
                let (lock, count) = (lock.clone(), count.clone());
                racer::tokio::spawn(async move {
                    let _held = lock.lock().await;
                    unsafe { count.set(count.get() + 1) };
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap();
        }
    }
}

/// A closure that `tokio::task::spawn_blocking` started on tokio's blocking pool (not racer's
/// `spawn_blocking`) is named as such in a report, with its own fix (not `tokio::spawn`'s): its
/// write, awaited through tokio's own handle, and the test's later one are unordered for racer.
/// On both runtimes, in each of ten runs; the JSON says it too.
#[cfg(feature = "race-detect")]
#[test]
fn a_blocking_closure_racer_did_not_spawn_is_named_with_its_fix() {
    for (name, rt) in runtimes() {
        for run in 0..10 {
            let blocking_line = line!() + 4;
            let report = check_on(rt, || async {
                let cell = Arc::new(Shared::new(0u64));
                let a = cell.clone();
                tokio::task::spawn_blocking(move || unsafe { a.set(1) }).await.unwrap();
                unsafe { cell.set(2) };
            });
            assert_eq!(report.len(), 1, "{name} run {run}: {report}");
            let race = &report.races()[0];
            assert_eq!(race.previous().location().line(), blocking_line, "{name}: {report}");
            assert_eq!(race.current().location().line(), blocking_line + 1, "{name}: {report}");
            let text = report.to_string();
            assert!(text.contains("tokio::task::spawn_blocking started on tokio's blocking pool, not racer"), "{text}");
            assert!(text.contains("(racer::tokio::task::spawn_blocking)"), "{text}");
            assert!(!text.contains("tokio::spawn started"), "not the hint of a forgotten tokio::spawn: {text}");
            assert!(!text.contains("tokio::runtime::"), "{text}");
            let json = report.to_json();
            assert!(json.contains("\"untracked_task\":true,\"untracked_blocking\":true"), "{json}");
        }
    }
}

/// The same closure through `racer::tokio::task::spawn_blocking`: its join orders it before the
/// test's write, no report in ten runs on either runtime.
#[test]
fn a_blocking_closure_racer_spawned_is_ordered_by_its_join() {
    for (name, rt) in runtimes() {
        for run in 0..10 {
            let report = check_on(rt, || async {
                let cell = Arc::new(Shared::new(0u64));
                let a = cell.clone();
                racer::tokio::task::spawn_blocking(move || unsafe { a.set(1) }).await.unwrap();
                unsafe { cell.set(2) };
            });
            assert!(report.is_empty(), "{name} run {run}: {report}");
        }
    }
}
