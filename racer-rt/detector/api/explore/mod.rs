//! `racer::model`: runs a closure many times, each time under a controlled schedule (see
//! `schedule/`) and under `racer::check`, and fails on the first iteration that found a data
//! race, a deadlock or a panic, naming its seed and the line that replays it.
//!
//! Each iteration's schedule follows from its seed and strategy alone: `RACER_REPLAY` (or
//! [`Builder::replay`]) runs that one iteration again, with the same interleaving of every
//! operation racer sees. `RACER_SEEDS=a..b` runs exactly the seeds `a..b` (to split a search
//! over CI machines); `RACER_ITERATIONS` and `RACER_TIME` (seconds) set the budget.
//!
//! The default strategy (`Portfolio`) first searches the model depth-first (`schedule::dfs`)
//! under a preemption bound (`LOOM_MAX_PREEMPTIONS`, default 2; a stale load counts as a
//! preemption), deepened from 0 to it, within half the budget (time and iterations): a model it
//! explores whole ends there, saying so on standard error
//! ("explored all N schedules under preemption bound 2"); a model that does not fit gets the
//! rest of the budget, random and PCT schedules by seed. A search's iteration replays with
//! the token of its path (`RACER_REPLAY=dfs@12=1,30=2`: its non-default choices).

use std::collections::HashSet;
use std::fmt;
use std::ops::Range;
use std::panic::resume_unwind;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::config::options::ReportFormat;
use crate::report::json_string;
use crate::schedule::dfs::{Path, Walk};
use crate::schedule::{self, End, Scheduler, Strategy as Chosen, Ticket};

mod block_on;
mod settings;
pub use block_on::{block_on, TaskRun};
pub use settings::{Builder, Strategy, DEFAULT_ITERATIONS, DEFAULT_MAX_STEPS, DEFAULT_TIME};

/// Wall time of one iteration, at most, when no time budget bounds it.
const ITERATION_CAP: Duration = Duration::from_secs(30);
/// How long an iteration may run past the time budget before it is deemed not to end.
const GRACE: Duration = Duration::from_secs(2);

/// What the environment asked for.
fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

fn bad(name: &str, value: &str, expected: &str) -> ! {
    panic!("racer: {name}: bad value '{value}' (expected {expected})")
}

fn parse_seeds(v: &str) -> Range<u64> {
    let parsed = v.split_once("..").and_then(|(a, b)| Some(a.trim().parse().ok()?..b.trim().parse().ok()?));
    match parsed {
        Some(r) if r.start < r.end => r,
        _ => bad("RACER_SEEDS", v, "a range of seeds such as 0..5000"),
    }
}

/// A replay token: `<seed>:<strategy>`, as `Display` of `Replay` writes it; a search's path
/// alone (`dfs@12=1,30=2`), which needs no seed.
#[derive(Debug, Clone)]
struct Replay {
    seed: u64,
    strategy: Chosen,
}

impl fmt::Display for Replay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.strategy {
            Chosen::Dfs(path) => write!(f, "{path}"),
            strategy => write!(f, "{}:{strategy}", self.seed),
        }
    }
}

impl Replay {
    fn parse(v: &str, from: &str) -> Replay {
        let v = v.trim();
        let parsed = match Path::parse(v) {
            Some(path) => Some((0, Chosen::Dfs(path))),
            None => v.split_once(':').and_then(|(seed, s)| Some((seed.parse().ok()?, Chosen::parse(s)?))),
        };
        match parsed {
            Some((seed, strategy)) => Replay { seed, strategy },
            None => bad(from, v, "a token a racer report printed, such as 17:pct3/212, 4:random or dfs@12=1,30=2"),
        }
    }

    /// How a failure message names the iteration's schedule.
    fn schedule(&self) -> String {
        match &self.strategy {
            Chosen::Dfs(path) => format!("search path {path}"),
            strategy => format!("seed {}, schedule {strategy}", self.seed),
        }
    }
}

/// The preemption bound asked for: `LOOM_MAX_PREEMPTIONS` when the builder sets none, else 2.
fn preemption_bound(builder: Option<u32>) -> u32 {
    builder.unwrap_or_else(|| match env_var("LOOM_MAX_PREEMPTIONS") {
        Some(v) => v.trim().parse().unwrap_or_else(|_| bad("LOOM_MAX_PREEMPTIONS", &v, "a non-negative integer")),
        None => 2,
    })
}

impl Builder {
    /// The strategy of seed `seed`, given the most steps an iteration took so far.
    fn strategy_for(&self, seed: u64, steps_seen: u64) -> Chosen {
        let steps = steps_seen.max(16);
        match self.strategy {
            Strategy::Random => Chosen::Random,
            Strategy::Pct => Chosen::Pct { depth: self.depth, steps },
            Strategy::Portfolio => match seed % 3 {
                0 => Chosen::Random,
                1 => Chosen::Pct { depth: 2, steps },
                _ => Chosen::Pct { depth: 3, steps },
            },
        }
    }

    /// Runs `f` under controlled schedules until the budget is spent or an iteration fails.
    ///
    /// # Panics
    /// On the first iteration that found a data race, a deadlock or did not end (with the
    /// report, the seed and the replay line), and when `f` panics (after a line naming the
    /// seed). Also on a bad `RACER_*` variable.
    #[track_caller]
    pub fn check<F>(&self, f: F)
    where
        F: Fn() + Sync + Send + 'static,
    {
        let replay = env_var("RACER_REPLAY")
            .map(|v| Replay::parse(&v, "RACER_REPLAY"))
            .or_else(|| self.replay.as_deref().map(|v| Replay::parse(v, "Builder::replay")));
        let iterations = match env_var("RACER_ITERATIONS") {
            Some(v) => v
                .trim()
                .parse()
                .ok()
                .filter(|n| *n > 0)
                .unwrap_or_else(|| bad("RACER_ITERATIONS", &v, "a positive integer")),
            None => self.iterations,
        };
        let seeds = env_var("RACER_SEEDS").map(|v| parse_seeds(&v));
        let time = match env_var("RACER_TIME") {
            Some(v) => match v.trim().parse::<f64>() {
                Ok(s) if s > 0.0 && s.is_finite() => Some(Duration::from_secs_f64(s)),
                _ => bad("RACER_TIME", &v, "a positive number of seconds"),
            },
            // A seed range is a search split over machines: every seed of it runs.
            None if seeds.is_some() => None,
            None => self.time,
        };
        let name = std::thread::current().name().unwrap_or("model").to_owned();
        let f = Arc::new(f);
        let _running = schedule::MODELS.enter();
        let start = Instant::now();
        let mut progress = Progress { start, shown: start, distinct: HashSet::new() };
        let mut steps_seen = 0;
        let deadline = || Instant::now() + time.map_or(ITERATION_CAP, |t| t.saturating_sub(start.elapsed()) + GRACE);
        // The complete search first, within half the budget: only the default strategy, and
        // not when the seeds or the iteration are given.
        let mut done = 0;
        if replay.is_none() && seeds.is_none() && self.strategy == Strategy::Portfolio {
            let bound = preemption_bound(self.preemption_bound);
            let (share_time, share_iterations) = (time.map(|t| t / 2), (iterations / 2).max(1));
            // Deepening the bound: the schedules of fewest preemptions first (see `schedule::dfs`).
            'search: for level in 0..=bound {
                let mut next = Some(Path { bound: Some(level), choices: Vec::new() });
                let mut schedules = 0;
                while let Some(path) = next.take() {
                    if done >= share_iterations || (done > 0 && share_time.is_some_and(|t| start.elapsed() >= t)) {
                        break 'search;
                    }
                    let mut ran = run_once(&name, f.clone(), Chosen::Dfs(path), 0, self.max_steps, deadline());
                    let walk = ran.walk.take().expect("a search's iteration has a walk");
                    steps_seen = steps_seen.max(ran.steps);
                    progress.distinct.insert(ran.hash);
                    let outside = !ran.outside.is_empty();
                    judge(&name, done + 1, &Replay { seed: 0, strategy: Chosen::Dfs(walk.path()) }, ran);
                    done += 1;
                    schedules += 1;
                    progress.show(&name, done);
                    // An iteration that left racer's view or did not follow its recorded choices
                    // does not run the same way twice: the tree is not known, the search stops.
                    if outside || walk.diverged {
                        break 'search;
                    }
                    next = walk.next();
                }
                if level == bound {
                    // Straight to the process's standard error (libtest captures a test's
                    // `eprintln!`): cargo racer counts these lines in its summary.
                    crate::base::platform::write_stderr(&format!(
                        "racer (model): '{name}': explored all {schedules} schedules under preemption bound {bound}\n"
                    ));
                    return;
                }
            }
        }
        let seeds = match (&replay, seeds) {
            (Some(r), _) => r.seed..r.seed + 1,
            (None, Some(r)) => r,
            (None, None) => {
                let first = self.seed;
                first..first.saturating_add(iterations.saturating_sub(done) as u64)
            }
        };
        for (i, seed) in seeds.enumerate() {
            let i = i + done;
            if i > 0 && time.is_some_and(|t| start.elapsed() >= t) {
                break;
            }
            let strategy = replay.as_ref().map_or_else(|| self.strategy_for(seed, steps_seen), |r| r.strategy.clone());
            let ran = run_once(&name, f.clone(), strategy.clone(), seed, self.max_steps, deadline());
            steps_seen = steps_seen.max(ran.steps);
            progress.distinct.insert(ran.hash);
            judge(&name, i + 1, &Replay { seed, strategy }, ran);
            progress.show(&name, i + 1);
        }
    }
}

/// Fails the model on what iteration `i` (from 1) found: a data race, a deadlock, an end it did
/// not reach, a panic; `token` replays it.
fn judge(name: &str, i: usize, token: &Replay, ran: Ran) {
    let schedule = token.schedule();
    let replay_line =
        format!("replay it with RACER_REPLAY={token} (or racer::model::Builder::new().replay(\"{token}\"))");
    let outside = ran.outside.iter().chain(&ran.stale).map(|o| format!("\n  note: {o}")).collect::<String>();
    if !ran.report.is_empty() && crate::config::options::get().options.report == ReportFormat::Json {
        let (seed, strategy) = match &token.strategy {
            Chosen::Dfs(_) => ("null".to_owned(), token.to_string()),
            strategy => (token.seed.to_string(), strategy.to_string()),
        };
        panic!(
            "{{\"model\":{{\"test\":{},\"iteration\":{i},\"seed\":{seed},\"schedule\":\"{strategy}\",\"replay\":\"RACER_REPLAY={token}\",\"outside\":[{}]}},\"report\":{}}}",
            json_string(name),
            ran.outside.iter().map(|o| json_string(o)).collect::<Vec<_>>().join(","),
            ran.report.to_json()
        );
    }
    if !ran.report.is_empty() {
        panic!(
            "racer (model): {} data race(s) found in iteration {i} of '{name}' ({schedule}); {replay_line}{outside}\n{}",
            ran.report.len(),
            ran.report
        );
    }
    match ran.end {
        End::Finished => {}
        End::Deadlock(why) => panic!(
            "racer (model): deadlock in iteration {i} of '{name}' ({schedule}): every thread is blocked:{why}\n{replay_line}{outside}"
        ),
        End::Unfinished(why) => panic!(
            "racer (model): iteration {i} of '{name}' ({schedule}) did not end: {why}\n{replay_line}{outside}"
        ),
    }
    if let Some(panic) = ran.panic {
        eprintln!("racer (model): '{name}' panicked in iteration {i} ({schedule}); {replay_line}{outside}");
        resume_unwind(panic);
    }
}

/// Progress on standard error for a model that runs long: a line every few seconds.
struct Progress {
    start: Instant,
    shown: Instant,
    distinct: HashSet<u64>,
}

impl Progress {
    fn show(&mut self, name: &str, done: usize) {
        let now = Instant::now();
        let since_start = now - self.start;
        if since_start >= Duration::from_secs(2) && now - self.shown >= Duration::from_secs(5) {
            self.shown = now;
            eprintln!(
                "racer (model): '{name}': {done} iterations in {:.1} s ({:.0}/s), {} distinct schedules",
                since_start.as_secs_f64(),
                done as f64 / since_start.as_secs_f64(),
                self.distinct.len()
            );
        }
    }
}

/// What one iteration came to.
struct Ran {
    report: crate::report::Report,
    end: End,
    panic: Option<Box<dyn std::any::Any + Send>>,
    steps: u64,
    hash: u64,
    outside: Vec<String>,
    /// The iteration's last loads that read an older store than the newest.
    stale: Vec<String>,
    /// Under the search, the iteration's choices.
    walk: Option<Walk>,
}

/// Runs one iteration: `f` on a new racer thread (the model's first member), under
/// `racer::check`, until every member ended or `deadline`.
fn run_once<F>(name: &str, f: Arc<F>, strategy: Chosen, seed: u64, max_steps: u64, deadline: Instant) -> Ran
where
    F: Fn() + Sync + Send + 'static,
{
    let sched = Arc::new(Scheduler::new(strategy, seed, max_steps, name.to_owned()));
    let ticket = Ticket::root(sched.clone());
    let mut end = End::Finished;
    let mut panic = None;
    let report = crate::check(|| {
        /// The first member's end, also when `f` panics.
        struct Exit;
        impl Drop for Exit {
            fn drop(&mut self) {
                schedule::exiting();
            }
        }
        let root = super::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || {
                ticket.start();
                let _exit = Exit;
                f()
            })
            .expect("racer (model): spawning the model's thread");
        end = sched.wait_end(deadline).unwrap_or_else(|| sched.stop("it ran past its time budget"));
        if end == End::Finished {
            panic = root.join().err();
        } else {
            // Its threads are parked for good (or outside racer's view): not joined.
            std::mem::forget(root);
        }
        // The threads that ended now run their thread-local destructors (see `schedule::Linger`).
        sched.end_lingering(end == End::Finished);
    });
    let (steps, hash, outside) = sched.summary();
    Ran { report, end, panic, steps, hash, outside, stale: sched.stale_reads(), walk: sched.take_walk() }
}

/// The number of the model iteration the calling thread runs in, unique in the process; `None`
/// outside a model. For state that a model keeps per iteration, as loom's `lazy_static!` does.
pub fn current_iteration() -> Option<u64> {
    schedule::current_iteration()
}

/// Whether the calling thread runs in a model's iteration (one relaxed load while no model
/// runs anywhere).
#[inline]
pub fn inside() -> bool {
    schedule::in_model()
}

/// Runs `f` under controlled schedules with the default [`Builder`], as `loom::model`.
#[track_caller]
pub fn model<F>(f: F)
where
    F: Fn() + Sync + Send + 'static,
{
    Builder::new().check(f)
}
