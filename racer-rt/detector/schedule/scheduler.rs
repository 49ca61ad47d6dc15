//! One iteration of a model: its threads take turns, one at a time, at racer's interception
//! points, in the order a `Chooser` picks.
//!
//! Invariant: at most one member runs user code between two of its points: the one holding
//! `turn`; every other member is parked in `wait_turn`, done, or *outside* (found not to come
//! back to a point for `OUTSIDE_AFTER`, e.g. blocked in a lock racer cannot see: the turn moved
//! on without it, and it waits for the turn again at its next point). The state's lock is held
//! only inside this file, never while user code runs.

use std::fmt::Write as _;
use std::panic::Location;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::Thread;
use std::time::{Duration, Instant};

use super::strategy::{Chooser, Strategy};

/// How long the turn may stay with a thread that does not come back to a point before it is
/// deemed outside racer's view and the turn moves on: only a thread the OS has put to sleep
/// (blocked in a lock racer cannot see, I/O, a sleep; on Linux its task state says so), never
/// one that runs or waits for a core (a busy CI machine), and never while racer resolves a
/// report's stacks (`base::active_count::OWN_WORK`).
const OUTSIDE_AFTER: Duration = Duration::from_millis(100);

/// How often a waiting member looks whether the holder went outside.
const TICK: Duration = Duration::from_millis(10);

/// Rounds in which every member was blocked, each after a `TICK` of letting them retry, before
/// the iteration is a deadlock: a thread outside the model (an exiting thread's thread-local
/// destructors, a thread racer did not spawn) may hold what they wait for a moment.
const STALL_ROUNDS: u32 = 3;

/// What a thread does at a point.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Step {
    /// An operation others may observe (an atomic, a lock, a spawn...).
    Op,
    /// A spin: a yield, a spin-loop hint, or a reload of an unchanged atomic.
    Spin,
    /// An attempt that would have blocked (a contended lock, an empty channel, a join of a
    /// running thread): the thread waits until another thread makes progress.
    Blocked,
    /// A timed wait: as `Blocked`, but when no thread can run its time runs out (time in a
    /// model is the scheduler's) instead of the model ending in a deadlock.
    BlockedTimed,
    /// A task whose poll returned `Pending` and that was not woken: it waits until its waker
    /// is called (`Scheduler::wake`). Its last point (what it waits on) is kept for the
    /// deadlock message.
    Pending,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Status {
    Runnable,
    /// Blocked when `progress` was `since`: may run again once it is larger, or, if `timed`,
    /// when no other thread can run.
    Blocked {
        since: u64,
        timed: bool,
    },
    /// A pending task (`Step::Pending`): runnable again only once woken.
    Pending,
    Outside,
    Done,
}

struct Member {
    name: String,
    thread: Option<Thread>,
    status: Status,
    /// The last point it passed: what and where.
    what: &'static str,
    at: Option<&'static Location<'static>>,
    /// Its last timed wait ended because its time ran out.
    timed_out: bool,
    /// An unpark not yet consumed by a park (std's token).
    token: bool,
    /// Its OS thread id, where the platform tells it (Linux: `/proc/thread-self`).
    tid: Option<u32>,
    /// It runs a task (`Scheduler::mark_task`), which a shutdown may drop while it is pending.
    task: bool,
    /// It has taken up the turn it was last given (returned from `wait_turn`): before that, a
    /// thread the OS has not woken yet on a loaded machine is not outside racer's view.
    picked: bool,
}

impl Member {
    /// A runnable member whose thread has not started yet.
    fn new(name: String) -> Member {
        Member {
            name,
            thread: None,
            status: Status::Runnable,
            what: "start",
            at: None,
            timed_out: false,
            token: false,
            tid: None,
            task: false,
            picked: true,
        }
    }
}

/// How an iteration ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// Every thread ran to its end.
    Finished,
    /// Every live thread was blocked on another: the threads, where each was.
    Deadlock(String),
    /// The iteration took more steps than its limit, or more time than its budget: the
    /// threads still running, where each was.
    Unfinished(String),
}

struct State {
    members: Vec<Member>,
    turn: Option<usize>,
    chooser: Chooser,
    /// Points passed (PCT's step count).
    steps: u64,
    /// Points that were not failed attempts, and thread ends.
    progress: u64,
    max_steps: u64,
    /// When the turn was last handed over or a point passed.
    turn_since: Instant,
    end: Option<End>,
    /// Threads found outside racer's view: who, after what, where.
    outside: Vec<String>,
    /// A hash of the sequence of choices (distinct schedules are counted by it).
    hash: u64,
    /// Rounds in a row in which every member was blocked (see `STALL_ROUNDS`).
    stalls: u32,
    /// The model's first thread has ended and only pending tasks were left: they are dropped,
    /// as a runtime's shutdown drops its tasks (see `Scheduler::task_wait`).
    shutdown: bool,
}

/// The scheduler of one iteration, shared by its members.
pub struct Scheduler {
    /// The iteration's number in the process, never reused.
    pub id: u64,
    state: Mutex<State>,
    ended: Condvar,
    /// The OS threads of members that ended, kept alive until the iteration is over (see
    /// `super::Linger`), and whether it is.
    lingering: Mutex<(bool, Vec<std::thread::JoinHandle<()>>)>,
    over: Condvar,
    /// The choices of which store a load reads (see `api::sync::store_history`): a stream of
    /// its own, so that they do not move the schedule's choices.
    values: Mutex<super::rng::Rng>,
    /// What the iteration's loads that read an older store read (see `note_stale_read`).
    stale_reads: Mutex<Vec<String>>,
    /// The iteration's SeqCst order as a clock (see `api::sync::fence::seq_cst_view`), kept as
    /// the `Vec` of a clock's components: this folder sees no clock type.
    seq_cst: Mutex<Vec<u64>>,
}

static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Whether the OS has the thread `tid` asleep (its task state `S` or `D`); without a way to
/// tell, whether it may be.
fn asleep(tid: Option<u32>) -> bool {
    let Some(tid) = tid else { return true };
    let Ok(stat) = std::fs::read_to_string(format!("/proc/self/task/{tid}/stat")) else { return true };
    // "tid (name) S ...": the name may hold spaces and parentheses, the state follows the last ')'.
    let state = stat.rsplit_once(')').and_then(|(_, rest)| rest.trim_start().chars().next());
    matches!(state, Some('S' | 'D') | None)
}

fn park_forever() -> ! {
    loop {
        std::thread::park();
    }
}

impl State {
    fn describe(&self) -> String {
        let mut out = String::new();
        for m in self.members.iter().filter(|m| m.status != Status::Done) {
            let state = match m.status {
                Status::Runnable => "running",
                Status::Blocked { .. } => "blocked",
                Status::Pending => "a pending task: nothing will wake it",
                Status::Outside => "outside racer's view",
                Status::Done => unreachable!(),
            };
            let _ = write!(out, "\n    thread '{}' ({state})", m.name);
            if let Some(at) = m.at {
                let _ = write!(out, ", last at {} ({}:{}:{})", m.what, at.file(), at.line(), at.column());
            }
        }
        out
    }

    /// The members whose status `f` accepts.
    fn members_where(&self, f: impl Fn(Status) -> bool) -> Vec<usize> {
        (0..self.members.len()).filter(|&i| f(self.members[i].status)).collect()
    }

    /// `next` takes the turn from `from` (woken unless it is `from`).
    fn give_turn(&mut self, next: usize, from: usize) {
        self.turn = Some(next);
        self.turn_since = Instant::now();
        self.members[next].status = Status::Runnable;
        self.members[next].picked = next == from;
        if next != from {
            if let Some(t) = &self.members[next].thread {
                t.unpark();
            }
        }
    }

    /// Nobody holds the turn (for a tick, or until a thread outside racer's view is back).
    fn drop_turn(&mut self) {
        self.turn = None;
        self.turn_since = Instant::now();
    }

    fn candidates(&self, current: usize, spun: bool) -> Vec<usize> {
        let mut c: Vec<usize> = (0..self.members.len())
            .filter(|&i| match self.members[i].status {
                Status::Runnable => true,
                Status::Blocked { since, .. } => self.progress > since,
                Status::Pending | Status::Outside | Status::Done => false,
            })
            .collect();
        if spun && c.len() > 1 {
            c.retain(|&i| i != current);
        }
        c
    }
}

impl Scheduler {
    /// A scheduler whose member 0 (`root`) holds the turn.
    pub fn new(strategy: Strategy, seed: u64, max_steps: u64, root: String) -> Scheduler {
        let mut chooser = Chooser::new(strategy, seed);
        chooser.add_thread();
        Scheduler {
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            state: Mutex::new(State {
                members: vec![Member::new(root)],
                turn: Some(0),
                chooser,
                steps: 0,
                progress: 0,
                max_steps,
                turn_since: Instant::now(),
                end: None,
                outside: Vec::new(),
                hash: 0xcbf2_9ce4_8422_2325,
                stalls: 0,
                shutdown: false,
            }),
            ended: Condvar::new(),
            lingering: Mutex::new((false, Vec::new())),
            over: Condvar::new(),
            values: Mutex::new(super::rng::Rng::new(seed ^ 0x5354_4f52_4553_2121)),
            stale_reads: Mutex::new(Vec::new()),
            seq_cst: Mutex::new(Vec::new()),
        }
    }

    /// Runs `f` on the iteration's SeqCst order clock, slot 0 first.
    pub fn with_seq_cst<R>(&self, f: impl FnOnce(&mut Vec<u64>) -> R) -> R {
        f(&mut self.seq_cst.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// A load of the iteration read an older store (`what`); the last few are kept.
    pub fn note_stale_read(&self, what: String) {
        let mut reads = self.stale_reads.lock().unwrap_or_else(PoisonError::into_inner);
        if reads.len() == 3 {
            reads.remove(0);
        }
        reads.push(what);
    }

    /// The iteration's last loads that read an older store, oldest first.
    pub fn stale_reads(&self) -> Vec<String> {
        self.stale_reads.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// A choice among `n` stores a load may read, 0 the newest.
    pub fn choose_value(&self, n: u64) -> u64 {
        // The search takes it in turn with the schedule's choices (see `super::dfs`).
        if let Some(v) = self.lock().chooser.choose_value(n) {
            return v;
        }
        self.values.lock().unwrap_or_else(PoisonError::into_inner).below(n)
    }

    /// Under the search, this iteration's walk (its choices), once the iteration is over.
    pub fn take_walk(&self) -> Option<super::dfs::Walk> {
        self.lock().chooser.take_walk()
    }

    /// Keeps `thread` (a member's, lingering after its end) to be joined when the iteration is
    /// over.
    pub fn keep_lingering(&self, thread: std::thread::JoinHandle<()>) {
        let mut lingering = self.lingering.lock().unwrap_or_else(PoisonError::into_inner);
        if lingering.0 {
            // Over already (the iteration stopped): nobody joins it; it leaves by itself.
            return;
        }
        lingering.1.push(thread);
    }

    /// In a member's OS thread after its end: waits until the iteration is over.
    pub fn linger(&self) {
        let mut lingering = self.lingering.lock().unwrap_or_else(PoisonError::into_inner);
        while !lingering.0 {
            lingering = self.over.wait(lingering).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// The iteration is over: the lingering threads go on to their thread-local destructors
    /// and end; with `join` (every member ended) they are joined, so that those destructors
    /// have run before the next iteration starts.
    pub fn end_lingering(&self, join: bool) {
        let threads = {
            let mut lingering = self.lingering.lock().unwrap_or_else(PoisonError::into_inner);
            lingering.0 = true;
            std::mem::take(&mut lingering.1)
        };
        self.over.notify_all();
        if join {
            for thread in threads {
                let _ = thread.join();
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new member, runnable, spawned by the holder of the turn: its id.
    pub fn add(&self, name: Option<&str>) -> usize {
        let mut s = self.lock();
        s.chooser.add_thread();
        let name = name.map_or_else(|| format!("thread {}", s.members.len()), str::to_owned);
        s.members.push(Member::new(name));
        s.members.len() - 1
    }

    /// Member `me`'s thread starts: it waits for its turn.
    pub fn start(&self, me: usize) {
        let tid = std::fs::read_link("/proc/thread-self").ok().and_then(|p| p.file_name()?.to_str()?.parse().ok());
        let mut s = self.lock();
        s.members[me].thread = Some(std::thread::current());
        s.members[me].tid = tid;
        drop(s);
        self.wait_turn(me);
    }

    /// Member `me` passes a point: the chooser picks who runs next, and `me` waits unless it
    /// is picked. Whether a timed wait (`BlockedTimed`) ran out of time.
    pub fn step(&self, me: usize, step: Step, what: &'static str, at: &'static Location<'static>) -> bool {
        let mut s = self.lock();
        if s.end.is_some() {
            drop(s);
            park_forever();
        }
        if s.turn != Some(me) {
            // Back from outside racer's view: wait for the turn like any runnable thread.
            if s.turn.is_none() {
                s.give_turn(me, me);
            } else {
                s.members[me].status = Status::Runnable;
                drop(s);
                self.wait_turn(me);
                s = self.lock();
            }
        }
        s.steps += 1;
        let blocked = matches!(step, Step::Blocked | Step::BlockedTimed | Step::Pending);
        if !blocked {
            s.progress += 1;
            s.stalls = 0;
        }
        let m = &mut s.members[me];
        m.timed_out = false;
        if step != Step::Pending || m.at.is_none() {
            (m.what, m.at) = (what, Some(at));
        }
        if step == Step::Pending {
            s.members[me].status = Status::Pending;
        } else if blocked {
            let since = s.progress;
            s.members[me].status = Status::Blocked { since, timed: step == Step::BlockedTimed };
        }
        if s.steps > s.max_steps {
            let why = format!("it took more than {} steps; still running:{}", s.max_steps, s.describe());
            self.finish(&mut s, End::Unfinished(why));
            drop(s);
            park_forever();
        }
        let steps = s.steps;
        s.chooser.stepped(me, steps, step == Step::Spin);
        s.chooser.passing(me, step == Step::Op);
        let next = self.pass_turn(&mut s, me, step == Step::Spin);
        drop(s);
        if next != Some(me) {
            self.wait_turn(me);
        }
        self.lock().members[me].timed_out
    }

    /// An unpark of the member running on thread `target`: its next park returns at once.
    pub fn unpark(&self, target: std::thread::ThreadId) {
        let mut s = self.lock();
        if let Some(m) = s.members.iter_mut().find(|m| m.thread.as_ref().is_some_and(|t| t.id() == target)) {
            m.token = true;
        }
    }

    /// Takes member `me`'s unpark token, if it has one.
    pub fn take_token(&self, me: usize) -> bool {
        std::mem::take(&mut self.lock().members[me].token)
    }

    /// Member `me` runs a task.
    pub fn mark_task(&self, me: usize) {
        self.lock().members[me].task = true;
    }

    /// The waker of the task member `id` runs (from any thread): its wake-up token is set and,
    /// if it is pending, it can run again. A wake-up is progress for the schedule, not a
    /// happens-before edge: what the waker's caller did is ordered before the task only as the
    /// synchronisation that woke it orders it.
    pub fn wake(&self, id: usize) {
        let mut s = self.lock();
        s.members[id].token = true;
        if s.members[id].status == Status::Pending {
            s.members[id].status = Status::Runnable;
            s.stalls = 0;
        }
    }

    /// Task member `me`'s poll returned `Pending`: returns `true` once it was woken (at once,
    /// after a spin step, when it was woken during its poll: a yield), `false` when the
    /// iteration shuts its pending tasks down (the task drops its future and ends).
    pub fn task_wait(&self, me: usize, at: &'static Location<'static>) -> bool {
        if self.take_token(me) {
            self.step(me, Step::Spin, "polling a task woken during its poll", at);
            return true;
        }
        loop {
            self.step(me, Step::Pending, "waiting for a wake-up", at);
            let mut s = self.lock();
            if std::mem::take(&mut s.members[me].token) {
                return true;
            }
            if s.shutdown {
                return false;
            }
        }
    }

    /// Member `me` ends: the turn goes on, and the iteration finishes with the last member.
    pub fn exit(&self, me: usize) {
        let mut s = self.lock();
        s.members[me].status = Status::Done;
        s.progress += 1;
        if s.end.is_none() && (s.turn == Some(me) || s.turn.is_none()) {
            self.pass_turn(&mut s, me, false);
        }
    }

    fn finish(&self, s: &mut State, end: End) {
        if s.end.is_none() {
            s.end = Some(end);
        }
        self.ended.notify_all();
    }

    /// Hands the turn to the chooser's pick among the threads that can run (`None`: none can;
    /// then the iteration has ended, or waits for a thread outside racer's view to come back).
    fn pass_turn(&self, s: &mut State, current: usize, spun: bool) -> Option<usize> {
        let candidates = s.candidates(current, spun);
        let outside = s.members.iter().any(|m| m.status == Status::Outside);
        // A spinner alone while another thread is outside racer's view waits for it instead of
        // spinning through its steps: nobody holds the turn for a tick.
        if spun && candidates == [current] && outside {
            s.drop_turn();
            return None;
        }
        // No thread can run: time passes, and the timed waits run out.
        let candidates = if candidates.is_empty() {
            let timed = s.members_where(|m| matches!(m, Status::Blocked { timed: true, .. }));
            for &i in &timed {
                s.members[i].timed_out = true;
            }
            timed
        } else {
            candidates
        };
        // The first thread has ended and only pending tasks are left: as a runtime's shutdown,
        // each drops its future and ends.
        let candidates = if candidates.is_empty() && s.members[0].status == Status::Done {
            let pending: Vec<usize> =
                s.members_where(|m| m == Status::Pending).into_iter().filter(|&i| s.members[i].task).collect();
            if pending.is_empty() || pending.len() != s.members_where(|m| m != Status::Done).len() {
                Vec::new()
            } else {
                s.shutdown = true;
                for &i in &pending {
                    s.members[i].status = Status::Runnable;
                }
                pending
            }
        } else {
            candidates
        };
        if candidates.is_empty() {
            s.drop_turn();
            if s.members.iter().all(|m| m.status == Status::Done) {
                self.finish(s, End::Finished);
            } else if !s.members.iter().any(|m| m.status == Status::Outside) {
                if s.stalls < STALL_ROUNDS {
                    // Nobody holds the turn for a tick; then a blocked member retries.
                    s.stalls += 1;
                } else {
                    let why = s.describe();
                    self.finish(s, End::Deadlock(why));
                }
            }
            return None;
        }
        let next = s.chooser.choose(&candidates);
        s.hash = (s.hash ^ next as u64).wrapping_mul(0x100_0000_01b3);
        s.give_turn(next, current);
        Some(next)
    }

    /// Parks until `me` holds the turn; meanwhile moves the turn on from a holder that stays
    /// away from its points too long.
    fn wait_turn(&self, me: usize) {
        loop {
            let mut s = self.lock();
            if s.end.is_some() {
                drop(s);
                park_forever();
            }
            if s.turn == Some(me) {
                s.members[me].picked = true;
                return;
            }
            // Nobody holds the turn while a thread is outside racer's view: the threads that can
            // run take it back after a tick (a spinner that gave it up to wait for the outsider).
            if s.turn.is_none() && s.turn_since.elapsed() >= TICK {
                // After a stall, the chooser's pick of the blocked members retries; else a
                // member that can run takes the turn back.
                let pick = if s.stalls > 0 {
                    let blocked = s.members_where(|m| matches!(m, Status::Blocked { .. }));
                    if blocked.is_empty() {
                        // Only pending tasks, which nothing retries: a wake-up from outside the
                        // model may still come for a few ticks, then it is a deadlock.
                        s.stalls += 1;
                        s.turn_since = Instant::now();
                        if s.stalls > STALL_ROUNDS {
                            let why = s.describe();
                            self.finish(&mut s, End::Deadlock(why));
                        }
                    }
                    (!blocked.is_empty()).then(|| s.chooser.choose(&blocked))
                } else {
                    s.candidates(me, false).contains(&me).then_some(me)
                };
                if let Some(next) = pick {
                    s.give_turn(next, me);
                    if next == me {
                        return;
                    }
                }
            }
            if let Some(holder) = s.turn {
                // A member whose thread has not started yet is starting, not outside: the OS
                // may take long to run a new thread on a loaded machine.
                if s.turn_since.elapsed() >= OUTSIDE_AFTER
                    && s.members[holder].status == Status::Runnable
                    && s.members[holder].thread.is_some()
                    && s.members[holder].picked
                    && !crate::base::active_count::OWN_WORK.any()
                    && asleep(s.members[holder].tid)
                {
                    let h = &s.members[holder];
                    let note = match h.at {
                        Some(at) => format!(
                            "thread '{}' left racer's view after {} at {}:{}:{}",
                            h.name,
                            h.what,
                            at.file(),
                            at.line(),
                            at.column()
                        ),
                        None => format!("thread '{}' left racer's view before its first point", h.name),
                    };
                    s.outside.push(note);
                    s.members[holder].status = Status::Outside;
                    if self.pass_turn(&mut s, holder, false) == Some(me) {
                        s.members[me].picked = true;
                        return;
                    }
                }
            }
            drop(s);
            std::thread::park_timeout(TICK);
        }
    }

    /// Waits until the iteration ends, or `deadline` (`None` then).
    pub fn wait_end(&self, deadline: Instant) -> Option<End> {
        let mut s = self.lock();
        loop {
            if let Some(end) = &s.end {
                return Some(end.clone());
            }
            let left = deadline.checked_duration_since(Instant::now()).filter(|d| !d.is_zero())?;
            s = self.ended.wait_timeout(s, left).unwrap_or_else(PoisonError::into_inner).0;
        }
    }

    /// Ends the iteration where it stands (its threads park for good at their next point):
    /// the threads still running, where each was.
    pub fn stop(&self, why: &str) -> End {
        let mut s = self.lock();
        let end = End::Unfinished(format!("{why}; still running:{}", s.describe()));
        self.finish(&mut s, end);
        s.end.clone().expect("just ended")
    }

    /// Steps taken, the schedule's hash, and the threads found outside racer's view.
    pub fn summary(&self) -> (u64, u64, Vec<String>) {
        let s = self.lock();
        (s.steps, s.hash, s.outside.clone())
    }
}
