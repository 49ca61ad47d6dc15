//! Every way tokio starts a task gives a tracked task (`racer::tokio::runtime::{Runtime, Handle,
//! Builder, LocalRuntime}`, `racer::tokio::task::LocalSet`, the whole of `JoinSet`): for each,
//! a correct hand-off (the spawner writes a cell, the task reads and writes it, the awaiter
//! writes after the join) has no report in 10 runs on both runtimes, and a racy twin (two tasks
//! nothing orders writing one cell) is reported in each of 10 runs, with its kind, both sites
//! and both tasks named as tasks, spawned at this file's lines. Then tokio-util's patterns
//! (`tokio_util::task::TaskTracker`, `tokio_util::task::JoinQueue`,
//! `tokio_util::task::LocalPoolHandle`), small equivalents with racer's types, build and run.
//! The same file builds without `race-detect` against tokio's own items.
#![cfg(feature = "tokio")]

use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use racer::tokio::runtime::{Builder, Handle, LocalOptions, LocalRuntime, Runtime};
use racer::tokio::task::{self, AbortHandle, Id, JoinError, JoinHandle, JoinSet, LocalSet};
use racer::Shared;
#[cfg(feature = "race-detect")]
use racer::{RaceKind, Report};

#[path = "tokio_support/mod.rs"]
mod tokio_support;
use tokio_support::{runtimes, NewRuntime};

/// A task body: writes or reads the test's cell.
type Body = Box<dyn FnOnce() + Send>;

/// How a test starts a task on a runtime, each a way of tokio's; the `JoinHandle` is racer's.
type Start = fn(&Runtime, Body) -> JoinHandle<()>;

fn runtime_spawn(rt: &Runtime, body: Body) -> JoinHandle<()> {
    rt.spawn(async move { body() })
}

fn runtime_spawn_blocking(rt: &Runtime, body: Body) -> JoinHandle<()> {
    rt.spawn_blocking(body)
}

fn handle_spawn(rt: &Runtime, body: Body) -> JoinHandle<()> {
    let handle: &Handle = rt.handle();
    handle.spawn(async move { body() })
}

fn handle_spawn_blocking(rt: &Runtime, body: Body) -> JoinHandle<()> {
    rt.handle().clone().spawn_blocking(body)
}

/// `Handle::current()` inside the runtime (`enter`), then its `spawn`.
fn current_handle_spawn(rt: &Runtime, body: Body) -> JoinHandle<()> {
    let _entered = rt.enter();
    Handle::current().spawn(async move { body() })
}

/// `Handle::try_current()` inside the runtime, then its `spawn_blocking`.
fn current_handle_spawn_blocking(rt: &Runtime, body: Body) -> JoinHandle<()> {
    let _entered = rt.enter();
    Handle::try_current().unwrap().spawn_blocking(body)
}

const STARTS: [(&str, Start); 6] = [
    ("Runtime::spawn", runtime_spawn),
    ("Runtime::spawn_blocking", runtime_spawn_blocking),
    ("Handle::spawn", handle_spawn),
    ("Handle::spawn_blocking", handle_spawn_blocking),
    ("Handle::current().spawn", current_handle_spawn),
    ("Handle::try_current().spawn_blocking", current_handle_spawn_blocking),
];

/// The spawner's write before the spawn, the task's read and write, the awaiter's write after
/// `block_on` of the join: ordered, for every way to start a task, 10 runs on both runtimes.
#[test]
fn runtime_and_handle_spawns_order_the_hand_off() {
    for (how, start) in STARTS {
        for (name, new_rt) in runtimes() {
            for run in 0..10 {
                let report = racer::check(|| {
                    let rt = new_rt();
                    let cell = Arc::new(Shared::new(0u64));
                    unsafe { cell.set(1) };
                    let c = cell.clone();
                    let handle = start(
                        &rt,
                        Box::new(move || {
                            assert_eq!(unsafe { c.get() }, 1);
                            unsafe { c.set(2) };
                        }),
                    );
                    rt.block_on(handle).unwrap();
                    assert_eq!(unsafe { cell.get() }, 2);
                    unsafe { cell.set(3) };
                });
                assert!(report.is_empty(), "{how} on {name}, run {run}: {report}");
            }
        }
    }
}

/// Asserts `report` is one write-write race between two racer tasks at `lines` of this file,
/// each spawned at a line of this file.
#[cfg(feature = "race-detect")]
#[track_caller]
fn assert_task_race(report: &Report, lines: [u32; 2], what: &str) {
    assert_eq!(report.len(), 1, "{what}: {report}");
    let race = &report.races()[0];
    assert_eq!(race.kind(), RaceKind::Output, "{what}: {report}");
    let mut seen: Vec<u32> = [race.previous(), race.current()].iter().map(|a| a.location().line()).collect();
    seen.sort();
    assert_eq!(seen, lines, "{what}: {report}");
    for access in [race.previous(), race.current()] {
        assert!(access.location().file().ends_with("tests/tokio_runtime_api.rs"), "{what}: {report}");
        assert!(access.is_task(), "{what}: {report}");
        let spawned = access.spawned_at().expect("a task's spawn site");
        assert!(
            spawned[0].file.as_deref().is_some_and(|f| f.ends_with("tests/tokio_runtime_api.rs")),
            "{what}: spawn site {:?}\n{report}",
            spawned[0]
        );
    }
    let text = report.to_string();
    assert!(text.contains("  Write by task ") && text.contains("  Previous write by task "), "{what}: {text}");
    assert_eq!(text.matches(" spawned by thread ").count(), 2, "{what}: both tasks named: {text}");
    assert!(!text.contains("not started by racer"), "{what}: {text}");
}

/// Two tasks started the same way, nothing between them: a race, in each of 10 runs.
#[cfg(feature = "race-detect")]
#[test]
fn runtime_and_handle_spawns_unordered_race_every_time() {
    for (how, start) in STARTS {
        for (name, new_rt) in runtimes() {
            for run in 0..10 {
                let first_line = line!() + 5;
                let report = racer::check(|| {
                    let rt = new_rt();
                    let cell = Arc::new(Shared::new(0u64));
                    let (a, b) = (cell.clone(), cell.clone());
                    let first = start(&rt, Box::new(move || unsafe { a.set(1) }));
                    let second = start(&rt, Box::new(move || unsafe { b.set(2) }));
                    rt.block_on(async {
                        first.await.unwrap();
                        second.await.unwrap();
                    });
                });
                assert_task_race(&report, [first_line, first_line + 1], &format!("{how} on {name}, run {run}"));
            }
        }
    }
}

/// `Builder::build` and `Runtime::new` give racer's runtime; `Runtime::handle` and
/// `Handle::current` racer's handle (with tokio's traits: `Debug`, `Clone`); `block_on` runs on
/// the calling thread, as part of it.
#[test]
fn builder_runtime_and_handle_are_racers_with_tokios_api() {
    let rt: Runtime = Builder::new_multi_thread().worker_threads(2).thread_name("api").enable_all().build().unwrap();
    let handle: Handle = rt.handle().clone();
    assert!(format!("{handle:?}").contains("Handle"));
    assert!(format!("{rt:?}").contains("Runtime"));
    assert_eq!(handle.runtime_flavor(), racer::tokio::runtime::RuntimeFlavor::MultiThread);
    assert_eq!(handle.id(), rt.handle().id());
    let inside: Handle = rt.block_on(async { Handle::current() });
    assert_eq!(inside.id(), handle.id());
    assert!(Handle::try_current().is_err());
    let _ = rt.metrics().num_workers();
    let joined: JoinHandle<u32> = handle.spawn(async { 7 });
    assert_eq!(rt.block_on(joined).unwrap(), 7);
    rt.shutdown_timeout(std::time::Duration::from_secs(10));

    let report = racer::check(|| {
        let rt = Runtime::new().unwrap();
        let cell = Shared::new(0u64);
        rt.block_on(async { unsafe { cell.set(1) } });
        assert_eq!(unsafe { cell.get() }, 1);
        rt.shutdown_background();
    });
    assert!(report.is_empty(), "{report}");
}

/// `LocalSet::spawn_local` (then `run_until`, `block_on`, and the set awaited as a future) and
/// `LocalRuntime::spawn_local`: local tasks run as part of their thread; the hand-off is ordered
/// and their handles are racer's, 10 runs.
#[test]
fn local_set_and_local_runtime_order_the_hand_off() {
    for run in 0..10 {
        let report = racer::check(|| {
            let rt = tokio_support::current_thread();
            let local = LocalSet::new();
            let cell = std::rc::Rc::new(Shared::new(0u64));
            unsafe { cell.set(1) };
            let c = cell.clone();
            let handle: JoinHandle<u64> = local.spawn_local(async move {
                assert_eq!(unsafe { c.get() }, 1);
                unsafe { c.set(2) };
                2
            });
            // run_until
            assert_eq!(rt.block_on(local.run_until(handle)).unwrap(), 2);
            unsafe { cell.set(3) };
            // block_on
            let c = cell.clone();
            let handle = local.spawn_local(async move { unsafe { c.set(c.get() + 1) } });
            local.block_on(&rt, handle).unwrap();
            assert_eq!(unsafe { cell.get() }, 4);
            // the set awaited until its tasks end, from inside the set (task::spawn_local)
            let c = cell.clone();
            let entered = local.enter();
            let handle = task::spawn_local(async move { unsafe { c.set(5) } });
            drop(entered);
            rt.block_on(local);
            assert!(handle.is_finished());
            assert_eq!(unsafe { cell.get() }, 5);

            let local_rt: LocalRuntime = Builder::new_current_thread().build_local(LocalOptions::default()).unwrap();
            let c = cell.clone();
            let handle = local_rt.spawn_local(async move { unsafe { c.set(6) } });
            local_rt.block_on(handle).unwrap();
            let c = Arc::new(Shared::new(0u64));
            let c2 = c.clone();
            unsafe { c.set(1) };
            local_rt.block_on(local_rt.spawn_blocking(move || unsafe { c2.set(c2.get() + 1) })).unwrap();
            assert_eq!(unsafe { c.get() }, 2);
            assert_eq!(unsafe { cell.get() }, 6);
        });
        assert!(report.is_empty(), "run {run}: {report}");
    }
}

/// A local task (part of its thread) and a task spawned on the runtime, unordered: a race in
/// each of 10 runs, the spawned task named as a task.
#[cfg(feature = "race-detect")]
#[test]
fn local_set_task_races_with_an_unordered_task() {
    for run in 0..10 {
        let first_line = line!() + 7;
        let report = racer::check(|| {
            let rt = tokio_support::multi_thread();
            let local = LocalSet::new();
            let cell = Arc::new(Shared::new(0u64));
            let (a, b) = (cell.clone(), cell.clone());
            local.block_on(&rt, async move {
                let first = local_set_spawn(async move { unsafe { a.set(1) } });
                let second = racer::tokio::spawn(async move { unsafe { b.set(2) } });
                first.await.unwrap();
                second.await.unwrap();
            });
        });
        assert_eq!(report.len(), 1, "run {run}: {report}");
        let race = &report.races()[0];
        assert_eq!(race.kind(), RaceKind::Output, "run {run}: {report}");
        let mut lines: Vec<u32> = [race.previous(), race.current()].iter().map(|a| a.location().line()).collect();
        lines.sort();
        assert_eq!(lines, [first_line, first_line + 1], "run {run}: {report}");
        assert!(race.previous().is_task() || race.current().is_task(), "run {run}: {report}");
    }
}

/// `task::spawn_local` on the `LocalSet` being run, for the test above.
#[cfg(feature = "race-detect")]
fn local_set_spawn<F: Future + 'static>(future: F) -> JoinHandle<F::Output> {
    task::spawn_local(future)
}

/// How a test fills a `JoinSet` with two tasks writing (or reading) the cell, and how it joins
/// them all: the methods tokio's `JoinSet` has beyond `spawn` and `join_next`.
type Fill = fn(&Runtime, &mut JoinSet<()>, [Body; 2]);
type Drain = fn(&Runtime, &mut JoinSet<()>);

fn fill_spawn_blocking_on(rt: &Runtime, set: &mut JoinSet<()>, bodies: [Body; 2]) {
    for body in bodies {
        set.spawn_blocking_on(body, rt.handle());
    }
}

fn fill_spawn_on(rt: &Runtime, set: &mut JoinSet<()>, bodies: [Body; 2]) {
    for body in bodies {
        set.spawn_on(async move { body() }, rt.handle());
    }
}

/// `Extend` (inside the runtime: it spawns).
fn fill_extend(rt: &Runtime, set: &mut JoinSet<()>, bodies: [Body; 2]) {
    let _entered = rt.enter();
    set.extend(bodies.map(|body| async move { body() }));
}

/// `FromIterator`: the set is made by `collect` (inside the runtime: it spawns).
fn fill_from_iter(rt: &Runtime, set: &mut JoinSet<()>, bodies: [Body; 2]) {
    let _entered = rt.enter();
    *set = bodies.into_iter().map(|body| async move { body() }).collect();
}

fn drain_try_join_next_with_id(rt: &Runtime, set: &mut JoinSet<()>) {
    rt.block_on(async {
        let mut ids: Vec<Id> = Vec::new();
        while !set.is_empty() {
            match set.try_join_next_with_id() {
                Some(result) => ids.push(result.unwrap().0),
                None => task::yield_now().await,
            }
        }
        assert_eq!(ids.len(), 2);
    });
}

fn drain_poll_join_next_with_id(rt: &Runtime, set: &mut JoinSet<()>) {
    rt.block_on(async {
        while let Some(result) = poll_fn(|cx| set.poll_join_next_with_id(cx)).await {
            let (_id, ()): (Id, ()) = result.unwrap();
        }
    });
}

fn drain_join_next_with_id(rt: &Runtime, set: &mut JoinSet<()>) {
    rt.block_on(async {
        while let Some(result) = set.join_next_with_id().await {
            result.unwrap();
        }
    });
}

const JOIN_SET_WAYS: [(&str, Fill, Drain); 4] = [
    ("spawn_blocking_on + try_join_next_with_id", fill_spawn_blocking_on, drain_try_join_next_with_id),
    ("spawn_on + poll_join_next_with_id", fill_spawn_on, drain_poll_join_next_with_id),
    ("extend + join_next_with_id", fill_extend, drain_join_next_with_id),
    ("from_iter + try_join_next_with_id", fill_from_iter, drain_try_join_next_with_id),
];

/// The spawner's write, the tasks' reads, the awaiter's write after the set is drained: ordered
/// for each of the set's new methods, 10 runs on both runtimes.
#[test]
fn join_set_new_methods_order_the_hand_off() {
    for (how, fill, drain) in JOIN_SET_WAYS {
        for (name, new_rt) in runtimes() {
            for run in 0..10 {
                let report = racer::check(|| {
                    let rt = new_rt();
                    let cell = Arc::new(Shared::new(0u64));
                    unsafe { cell.set(1) };
                    let (a, b) = (cell.clone(), cell.clone());
                    let mut set = JoinSet::new();
                    fill(
                        &rt,
                        &mut set,
                        [
                            Box::new(move || assert_eq!(unsafe { a.get() }, 1)),
                            Box::new(move || assert_eq!(unsafe { b.get() }, 1)),
                        ],
                    );
                    drain(&rt, &mut set);
                    assert!(set.is_empty());
                    unsafe { cell.set(2) };
                });
                assert!(report.is_empty(), "{how} on {name}, run {run}: {report}");
            }
        }
    }
}

/// Two tasks of one set writing one cell: a race, in each of 10 runs, for each new method.
#[cfg(feature = "race-detect")]
#[test]
fn join_set_new_methods_unordered_race_every_time() {
    for (how, fill, drain) in JOIN_SET_WAYS {
        for (name, new_rt) in runtimes() {
            for run in 0..10 {
                let first_line = line!() + 5;
                let report = racer::check(|| {
                    let rt = new_rt();
                    let cell = Arc::new(Shared::new(0u64));
                    let (a, b) = (cell.clone(), cell.clone());
                    let first: Body = Box::new(move || unsafe { a.set(1) });
                    let second: Body = Box::new(move || unsafe { b.set(2) });
                    let mut set = JoinSet::new();
                    fill(&rt, &mut set, [first, second]);
                    drain(&rt, &mut set);
                });
                assert_task_race(&report, [first_line, first_line + 1], &format!("{how} on {name}, run {run}"));
            }
        }
    }
}

/// `JoinSet::spawn_local_on` and `LocalSet`: local tasks, joined by the set; ordered, 10 runs.
#[test]
fn join_set_spawn_local_on_orders_the_hand_off() {
    for run in 0..10 {
        let report = racer::check(|| {
            let rt = tokio_support::current_thread();
            let local = LocalSet::new();
            let cell = std::rc::Rc::new(Shared::new(0u64));
            unsafe { cell.set(1) };
            let mut set = JoinSet::new();
            for _ in 0..2 {
                let c = cell.clone();
                set.spawn_local_on(async move { unsafe { c.set(c.get() + 1) } }, &local);
            }
            local.block_on(&rt, async {
                while let Some(result) = set.join_next().await {
                    result.unwrap();
                }
            });
            assert_eq!(unsafe { cell.get() }, 3);
        });
        assert!(report.is_empty(), "run {run}: {report}");
    }
}

// tokio-util 0.7's `task` patterns with racer's types: each compiles only if racer's
// `Handle`, `LocalSet`, `LocalRuntime` and `JoinHandle` fit together as tokio's do.

/// `tokio_util::task::TaskTracker`: `spawn_on(&Handle)`, `spawn_local_on(&LocalSet)`, `spawn_blocking_on`
/// returning the runtime's `JoinHandle<T>`.
struct TaskTracker;

impl TaskTracker {
    #[track_caller]
    fn spawn_on<F>(&self, task: F, handle: &Handle) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        handle.spawn(task)
    }

    #[track_caller]
    fn spawn_local_on<F>(&self, task: F, local_set: &LocalSet) -> JoinHandle<F::Output>
    where
        F: Future + 'static,
        F::Output: 'static,
    {
        local_set.spawn_local(task)
    }

    #[track_caller]
    fn spawn_blocking_on<F, T>(&self, task: F, handle: &Handle) -> JoinHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        handle.spawn_blocking(task)
    }
}

/// `tokio_util::task::JoinQueue`: a queue of `JoinHandle`s from `Handle::spawn`, polled in order through
/// `coop::unconstrained`, with their `AbortHandle`s and ids.
struct JoinQueue<T>(std::collections::VecDeque<JoinHandle<T>>);

impl<T: Send + 'static> JoinQueue<T> {
    fn spawn_on<F>(&mut self, task: F, handle: &Handle) -> AbortHandle
    where
        F: Future<Output = T> + Send + 'static,
    {
        let jh = handle.spawn(task);
        let abort = jh.abort_handle();
        assert_eq!(abort.id(), JoinHandle::id(&jh));
        self.0.push_back(jh);
        abort
    }

    fn try_join_next(&mut self) -> Option<Result<T, JoinError>> {
        let jh = self.0.front_mut()?;
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let jh = std::pin::pin!(task::coop::unconstrained(jh));
        match jh.poll(&mut cx) {
            Poll::Ready(out) => {
                self.0.pop_front();
                Some(out)
            }
            Poll::Pending => None,
        }
    }

    fn poll_join_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<T, JoinError>>> {
        let Some(jh) = self.0.front_mut() else { return Poll::Ready(None) };
        let out = std::task::ready!(Pin::new(jh).poll(cx));
        self.0.pop_front();
        Poll::Ready(Some(out))
    }
}

/// `tokio_util::task::LocalPoolHandle`: a worker thread with a `LocalRuntime` whose handle is sent back; a job
/// spawned through that handle sends a `spawn_local`'s `JoinHandle` through a oneshot.
fn spawn_pinned<Fut>(
    handle: &Handle,
    jobs: &racer::tokio::sync::mpsc::UnboundedSender<Box<dyn FnOnce() + Send>>,
    create: fn() -> Fut,
) -> JoinHandle<Fut::Output>
where
    Fut: Future + 'static,
    Fut::Output: Send + 'static,
{
    let jobs = jobs.clone();
    handle.spawn(async move {
        let (sender, receiver) = racer::tokio::sync::oneshot::channel::<JoinHandle<Fut::Output>>();
        jobs.send(Box::new(move || {
            let join_handle = task::spawn_local(create());
            if let Err(join_handle) = sender.send(join_handle) {
                join_handle.abort();
            }
        }))
        .unwrap_or_else(|_| panic!("worker gone"));
        receiver.await.unwrap().await.unwrap()
    })
}

/// The three patterns run, with a hand-off through each: no report, both runtimes.
#[test]
fn tokio_util_task_patterns_build_and_order() {
    for (name, new_rt) in runtimes() {
        let report = racer::check(|| {
            let rt = new_rt();
            let cell = Arc::new(Shared::new(0u64));
            unsafe { cell.set(1) };
            let tracker = TaskTracker;
            let c = cell.clone();
            rt.block_on(tracker.spawn_on(async move { unsafe { c.set(c.get() + 1) } }, rt.handle())).unwrap();
            let c = cell.clone();
            rt.block_on(tracker.spawn_blocking_on(move || unsafe { c.set(c.get() + 1) }, rt.handle())).unwrap();
            let local = LocalSet::new();
            let c = cell.clone();
            local.block_on(&rt, tracker.spawn_local_on(async move { unsafe { c.set(c.get() + 1) } }, &local)).unwrap();
            assert_eq!(unsafe { cell.get() }, 4);

            let mut queue = JoinQueue(Default::default());
            for i in 0..3u64 {
                let c = cell.clone();
                queue.spawn_on(async move { unsafe { c.get() + i } }, rt.handle());
            }
            let first = rt.block_on(poll_fn(|cx| queue.poll_join_next(cx))).unwrap().unwrap();
            assert_eq!(first, 4);
            let rest: Vec<u64> = rt.block_on(async {
                let mut rest = Vec::new();
                while !queue.0.is_empty() {
                    match queue.try_join_next() {
                        Some(out) => rest.push(out.unwrap()),
                        None => task::yield_now().await,
                    }
                }
                rest
            });
            assert_eq!(rest, [5, 6]);
            unsafe { cell.set(10) };

            let (jobs, mut job_receiver) = racer::tokio::sync::mpsc::unbounded_channel::<Box<dyn FnOnce() + Send>>();
            let (handle_sender, handle_receiver) = std::sync::mpsc::channel();
            let worker = racer::thread::spawn(move || {
                let local_rt = LocalRuntime::new().unwrap();
                handle_sender.send(local_rt.handle().clone()).unwrap();
                local_rt.block_on(async {
                    while let Some(job) = job_receiver.recv().await {
                        job();
                    }
                });
            });
            let worker_handle: Handle = handle_receiver.recv().unwrap();
            let out = rt.block_on(spawn_pinned(&worker_handle, &jobs, || async { 42u64 })).unwrap();
            assert_eq!(out, 42);
            drop(jobs);
            worker.join().unwrap();
            unsafe { cell.set(11) };
        });
        assert!(report.is_empty(), "{name}: {report}");
    }
}

/// `NewRuntime` is used by the helpers above in both builds.
#[allow(dead_code)]
fn _new_runtime_is_a_runtime(new_rt: NewRuntime) -> Runtime {
    new_rt()
}

/// racer's types keep tokio's traits (`Send`, `Sync`, `Debug`, `Clone`, `Default`, unwind
/// safety, `Future`...): this compiles only if they do.
#[test]
fn racers_types_keep_tokios_traits() {
    use std::fmt::Debug;
    use std::panic::{RefUnwindSafe, UnwindSafe};
    fn send_sync_debug<T: Send + Sync + Debug + UnwindSafe + RefUnwindSafe>() {}
    fn clone<T: Clone>() {}
    fn default_debug<T: Default + Debug>() {}
    fn future<T: Future + Unpin>() {}
    fn send_sync<T: Send + Sync>() {}
    send_sync_debug::<Runtime>();
    send_sync_debug::<Handle>();
    clone::<Handle>();
    send_sync_debug::<JoinHandle<u32>>();
    future::<JoinHandle<u32>>();
    future::<LocalSet>();
    default_debug::<LocalSet>();
    default_debug::<JoinSet<u32>>();
    send_sync::<JoinSet<u32>>();
    let _: &dyn Debug = &Builder::new_current_thread();
    let _: &dyn Debug = &LocalOptions::default();
    fn local_runtime_debug<T: Debug + UnwindSafe + RefUnwindSafe>() {}
    local_runtime_debug::<LocalRuntime>();
}
