//! The foreign-pool recipe: a thread pool racer cannot see (here a small one on `std::thread`
//! and `std::sync::mpsc`, standing for rayon or a C library's workers) is made visible by two
//! annotations per direction: `release` before handing a task over and `acquire` at the task's
//! start; `release` at its end and `acquire` where its result is taken. Then: no false report;
//! without the completion pair the result's read is reported; a real race between two tasks is
//! still found, and lands in the report of the check that handed the tasks over.
//!
//! Why a hand-written pool and not rayon: rayon's `join`/`scope` called from outside its pool
//! run every closure on rayon's threads at rayon's choice, so which thread finds a race, and
//! whether two tasks share a thread (and are then ordered by program order), changes from run
//! to run. This pool runs each task on a worker, and the tests force the interleaving they need
//! with `std` channels (invisible to racer), so every report is the same on every run.
#![cfg(feature = "race-detect")]

mod sync_support;

use std::sync::mpsc as std_mpsc;
use std::sync::Mutex as StdMutex;

use racer::sync::Arc;
use racer::{annotate, RaceKind, Shared};
use sync_support::{assert_no_race, assert_one_race, named, read, write, Site};

type Job = Box<dyn FnOnce() + Send>;

/// A pool of `std` threads fed through a `std` channel: racer sees neither how its workers
/// start nor how tasks reach them.
struct Pool {
    jobs: Option<std_mpsc::Sender<Job>>,
    workers: Vec<std::thread::JoinHandle<()>>,
}

impl Pool {
    fn new(threads: usize) -> Pool {
        let (jobs, queue) = std_mpsc::channel::<Job>();
        let queue = std::sync::Arc::new(StdMutex::new(queue));
        let workers = (0..threads)
            .map(|i| {
                let queue = queue.clone();
                std::thread::Builder::new()
                    .name(format!("pool-{i}"))
                    .spawn(move || loop {
                        let job = queue.lock().unwrap().recv();
                        match job {
                            Ok(job) => job(),
                            Err(_) => return,
                        }
                    })
                    .unwrap()
            })
            .collect();
        Pool { jobs: Some(jobs), workers }
    }

    /// Runs `job` on a worker: nothing racer can see.
    fn execute(&self, job: impl FnOnce() + Send + 'static) {
        self.jobs.as_ref().unwrap().send(Box::new(job)).unwrap();
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        drop(self.jobs.take());
        for w in self.workers.drain(..) {
            w.join().unwrap();
        }
    }
}

/// Which of the recipe's annotation pairs to make (the tests leave one out).
#[derive(Clone, Copy)]
struct Recipe {
    hand_off: bool,
    completion: bool,
}

const FULL: Recipe = Recipe { hand_off: true, completion: true };

/// A task handed to the pool: its result arrives through a `std` channel.
struct Task<R> {
    /// The annotations' key: the task's own allocation, alive until joined.
    key: std::sync::Arc<()>,
    result: std_mpsc::Receiver<R>,
    recipe: Recipe,
}

/// The recipe: annotate the two hand-overs of a task to a foreign pool.
fn spawn<R: Send + 'static>(pool: &Pool, recipe: Recipe, f: impl FnOnce() -> R + Send + 'static) -> Task<R> {
    let key = std::sync::Arc::new(());
    let (send, result) = std_mpsc::channel();
    if recipe.hand_off {
        annotate::release(&*key); // 1. everything before the hand-over...
    }
    let k = key.clone();
    pool.execute(move || {
        if recipe.hand_off {
            annotate::acquire(&*k); // 2. ...happens before the task
        }
        let r = f();
        if recipe.completion {
            annotate::release(&*k); // 3. everything in the task...
        }
        send.send(r).unwrap();
    });
    Task { key, result, recipe }
}

impl<R> Task<R> {
    fn join(self) -> R {
        let r = self.result.recv().unwrap();
        if self.recipe.completion {
            annotate::acquire(&*self.key); // 4. ...happens before what follows its result
        }
        // The key's allocation goes away: its clock must not outlive it.
        annotate::forget_sync(&*self.key);
        r
    }
}

#[test]
fn tasks_handed_over_with_the_recipe_give_no_false_report() {
    let report = racer::check(|| {
        let pool = Pool::new(3);
        let input = Arc::new(Shared::new(0u64));
        let outputs: Vec<Arc<Shared<u64>>> = (0..8).map(|_| Arc::new(Shared::new(0))).collect();
        write(&input, 10);
        let tasks: Vec<_> = outputs
            .iter()
            .enumerate()
            .map(|(i, out)| {
                let (input, out) = (input.clone(), out.clone());
                spawn(&pool, FULL, move || {
                    let (v, _) = read(&input);
                    write(&out, v + i as u64);
                })
            })
            .collect();
        for t in tasks {
            t.join();
        }
        let sum: u64 = outputs.iter().map(|o| read(o).0).sum();
        assert_eq!(sum, 80 + 28);
        write(&input, 0); // after every task's read
    });
    assert_no_race(&report);
}

#[test]
fn without_the_completion_pair_the_result_read_is_reported() {
    let mut sites = None;
    let report = racer::check(|| {
        let caller = named("caller", || {
            let pool = Pool::new(1);
            let out = Arc::new(Shared::new(0u64));
            let o = out.clone();
            let task = spawn(&pool, Recipe { hand_off: true, completion: false }, move || write(&o, 1));
            let task_site = task.join();
            (task_site, read(&out).1)
        });
        sites = Some(caller.join().unwrap());
    });
    let (task_site, read_site) = sites.unwrap();
    let race = assert_one_race(&report, RaceKind::Flow, ("pool-0", task_site), ("caller", read_site));
    assert!(race.previous().is_foreign_thread(), "the pool's worker is a thread racer did not start");
}

/// Without the hand-off pair the task's read of what the caller wrote is reported (found on
/// the worker, into this check: the worker adopted it when it ran an earlier, annotated task).
#[test]
fn without_the_hand_off_pair_the_tasks_read_is_reported() {
    let mut sites = None;
    let report = racer::check(|| {
        let caller = named("caller", || {
            let pool = Pool::new(1);
            spawn(&pool, FULL, || ()).join();
            let input = Arc::new(Shared::new(0u64));
            let write_site = write(&input, 1);
            let i = input.clone();
            let task = spawn(&pool, Recipe { hand_off: false, completion: true }, move || read(&i).1);
            (write_site, task.join())
        });
        sites = Some(caller.join().unwrap());
    });
    let (write_site, read_site) = sites.unwrap();
    assert_one_race(&report, RaceKind::Flow, ("caller", write_site), ("pool-0", read_site));
}

/// Two tasks on two workers touch the same cell with nothing ordering them but the caller's
/// hand-over, which orders each after the caller only: a real race, found by the worker that
/// writes second, and reported into this check (the worker adopted it by its acquire).
#[test]
fn a_real_race_between_two_tasks_is_found_and_reported_in_the_check() {
    let mut sites = None;
    let report = racer::check(|| {
        let pool = Pool::new(2);
        let cell = Arc::new(Shared::new(0u64));
        // `b_started` keeps the two tasks on two workers; `a_wrote` puts a's write first.
        let (b_started_tx, b_started) = std_mpsc::channel::<()>();
        let (a_wrote_tx, a_wrote) = std_mpsc::channel::<()>();
        let c = cell.clone();
        let a = spawn(&pool, FULL, move || {
            b_started.recv().unwrap();
            let site = write(&c, 1);
            a_wrote_tx.send(()).unwrap();
            site
        });
        let c = cell.clone();
        let b = spawn(&pool, FULL, move || {
            b_started_tx.send(()).unwrap();
            a_wrote.recv().unwrap();
            (write(&c, 2), std::thread::current().name().unwrap().to_owned())
        });
        let a_site = a.join();
        let (b_site, b_thread) = b.join();
        sites = Some((a_site, b_site, b_thread));
    });
    let (a_site, b_site, b_thread): (Site, Site, String) = sites.unwrap();
    let a_thread = if b_thread == "pool-0" { "pool-1" } else { "pool-0" };
    assert_one_race(&report, RaceKind::Output, (a_thread, a_site), (&b_thread, b_site));
}

/// A worker reports to the check of the task it runs: after that check returned, its next
/// task, from a check of its own, reports there and not into the first.
#[test]
fn a_worker_follows_the_check_of_each_task() {
    let pool = Pool::new(1);
    let first = racer::check(|| spawn(&pool, FULL, || ()).join());
    assert_no_race(&first);
    let mut sites = None;
    let second = racer::check(|| {
        let cell = Arc::new(Shared::new(0u64));
        let c = cell.clone();
        let (wrote_tx, wrote) = std_mpsc::channel::<()>();
        let caller = named("caller", move || {
            let site = write(&c, 1);
            wrote_tx.send(()).unwrap();
            site
        });
        let c = cell.clone();
        // Handed over before the caller's write (ordered after the spawn, not the write).
        let task = spawn(&pool, FULL, move || {
            wrote.recv().unwrap();
            write(&c, 2)
        });
        sites = Some((caller.join().unwrap(), task.join()));
    });
    let (caller_site, task_site) = sites.unwrap();
    assert_one_race(&second, RaceKind::Output, ("caller", caller_site), ("pool-0", task_site));
}
