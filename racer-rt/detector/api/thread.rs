//! `racer::thread`: std's threads with the fork/join edges made visible to the detector.
//!
//! Spawn is a post by the parent and the child starts with the parent's clock; a thread's exit
//! is a post into its join handle (and its scope); `join` and the end of `scope` wait on them.
//! `unpark` posts into the target thread's park clock and `park` waits on it.

use std::io;
use std::panic::Location;
use std::sync::Arc;
use std::time::Duration;

use crate::base::sharded_map::ShardedMap;
use std::sync::LazyLock as Lazy;

pub use std::thread::{available_parallelism, panicking, Result, ThreadId};

use crate::deadlock::Done;
use crate::provenance::stack;
use crate::provenance::sync_event::SyncEvent;
use crate::provenance::thread_ref::ThreadInfo;
use crate::runtime::sync_clock::SyncClock;
use crate::runtime::thread_state::{with_current, ChildSeed};
use crate::schedule::{self, Ticket};

/// A handle to a thread, as `std::thread::Thread`; `unpark` is a post the matching `park` waits on.
#[derive(Clone, Debug)]
pub struct Thread {
    inner: std::thread::Thread,
}

static PARK_CLOCKS: Lazy<ShardedMap<ThreadId, Arc<SyncClock>>> = Lazy::new(ShardedMap::new);

fn park_clock(id: ThreadId) -> Arc<SyncClock> {
    PARK_CLOCKS.get_or_insert_with(id, Arc::default)
}

impl Thread {
    pub fn id(&self) -> ThreadId {
        self.inner.id()
    }

    pub fn name(&self) -> Option<&str> {
        self.inner.name()
    }

    #[track_caller]
    pub fn unpark(&self) {
        park_clock(self.inner.id()).post(SyncEvent {
            op: "unparking",
            object: "a thread",
            created: None,
            at: Location::caller(),
        });
        schedule::unparking(self.inner.id());
        self.inner.unpark();
    }
}

pub fn current() -> Thread {
    Thread { inner: std::thread::current() }
}

fn after_park(site: &'static Location<'static>) {
    park_clock(std::thread::current().id()).wait(SyncEvent { op: "parking", object: "", created: None, at: site });
}

/// As std's; inside a model it returns once another thread made progress (a spurious wake-up,
/// which std allows), so that the model's turn moves on.
#[track_caller]
pub fn park() {
    let site = Location::caller();
    if schedule::in_model() {
        schedule::parking(site, false);
    } else {
        std::thread::park();
    }
    after_park(site);
}

#[track_caller]
pub fn park_timeout(dur: Duration) {
    let site = Location::caller();
    if schedule::in_model() {
        schedule::parking(site, true);
    } else {
        std::thread::park_timeout(dur);
    }
    after_park(site);
}

/// As std's; inside a model the turn goes to another thread (this one is passed over while
/// another can run).
#[track_caller]
pub fn yield_now() {
    if schedule::in_model() {
        schedule::spin("yielding", Location::caller());
    } else {
        std::thread::yield_now();
    }
}

/// As std's; inside a model time is the scheduler's: a sleep is a yield.
#[track_caller]
pub fn sleep(dur: Duration) {
    if schedule::in_model() {
        schedule::spin("sleeping", Location::caller());
    } else {
        std::thread::sleep(dur);
    }
}

/// What a join handle keeps of its thread: the clock the thread posts to when it exits, the
/// signal that it has (for a join that waits, published for deadlock detection), and who it is.
#[derive(Clone)]
struct Ending {
    exit: Arc<SyncClock>,
    done: Arc<Done>,
    who: Option<Arc<ThreadInfo>>,
}

impl std::fmt::Debug for Ending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ending").finish_non_exhaustive()
    }
}

impl Ending {
    /// The wait of a join: for the thread's end (published while it lasts), then std's join.
    fn join<T>(&self, site: &'static Location<'static>, join: impl FnOnce() -> T) -> T {
        self.wait_in_model(site);
        self.done.wait(self.who.clone(), site);
        let result = join();
        self.exit.wait(join_event(site));
        result
    }
}

impl Ending {
    /// Inside a model, a join retries at points until the thread has ended.
    fn wait_in_model(&self, site: &'static Location<'static>) {
        if schedule::in_model() {
            schedule::point("joining a thread", site);
            while !self.done.is_set() {
                schedule::blocked("joining a thread", site);
            }
        }
    }
}

/// The parent side of a spawn: the child's seed (`None` only while the parent's own detector
/// state is being torn down) and what the child's join handle needs.
fn fork(name: Option<String>, site: &'static Location<'static>) -> (Seeds, Ending) {
    let spawned_at = stack::capture();
    let seed = with_current(|t| t.fork(name.clone(), spawned_at, site)).flatten();
    let who = seed.as_ref().map(ChildSeed::info);
    // Named in the model as reports name it.
    let label = name.or_else(|| who.as_ref().map(|w| format!("T{}", w.serial)));
    let ticket = schedule::spawning(label.as_deref());
    (Seeds { seed, ticket }, Ending { exit: Arc::new(SyncClock::new()), done: Arc::default(), who })
}

/// What a child takes from its parent: its detector state's seed (`None` only while the
/// parent's own state is being torn down) and its place in the parent's model, if any.
struct Seeds {
    seed: Option<ChildSeed>,
    ticket: Option<Ticket>,
}

/// How a racer thread's end is posted to those who wait for it.
enum ExitPost {
    /// A thread of `spawn`: into its join clock when its thread state is dropped, after the
    /// thread-local destructors that ran before it (`ThreadState::post_exit_at_drop`), since
    /// std's `join` returns only once those ran.
    AtThreadEnd(Arc<SyncClock>),
    /// A scoped thread: into its join clock and its scope's when its closure returns, since the
    /// end of `std::thread::scope` waits for no thread-local destructor; and a thread of a
    /// model, whose destructors run after the iteration (see `schedule::Linger`).
    AtClosureEnd(Vec<Arc<SyncClock>>),
}

/// The child side: installs the seed, runs `f`, and posts the exit (also when `f` panics),
/// then signals `done`.
fn run_child<T>(
    seeds: Seeds,
    exit: ExitPost,
    done: Arc<Done>,
    site: &'static Location<'static>,
    f: impl FnOnce() -> T,
) -> T {
    struct Exit(Option<ExitPost>, &'static Location<'static>, Arc<Done>);
    impl Drop for Exit {
        fn drop(&mut self) {
            let event = SyncEvent { op: "exiting", object: "thread spawned", created: None, at: self.1 };
            with_current(|t| match self.0.take() {
                Some(ExitPost::AtThreadEnd(clock)) => t.post_exit_at_drop(clock, event),
                Some(ExitPost::AtClosureEnd(clocks)) => {
                    let mut posted = 0;
                    for clock in &clocks {
                        posted = clock.post_from(t, event);
                    }
                    t.exited(posted);
                }
                None => {}
            });
            PARK_CLOCKS.remove(&std::thread::current().id());
            crate::provenance::stack::clear_walk_ceiling();
            self.2.set();
            schedule::exiting();
        }
    }
    if let Some(seed) = seeds.seed {
        seed.install();
    }
    if let Some(ticket) = seeds.ticket {
        ticket.start();
    }
    let _exit = Exit(Some(exit), site, done);
    // Stack walks of this thread end here (see `stack::set_walk_ceiling`).
    let ceiling = 0u8;
    crate::provenance::stack::set_walk_ceiling(std::hint::black_box(&ceiling) as *const u8 as usize);
    f()
}

fn join_event(site: &'static Location<'static>) -> SyncEvent {
    SyncEvent { op: "joining", object: "a thread", created: None, at: site }
}

/// Spawns a thread, as `std::thread::spawn`.
#[track_caller]
pub fn spawn<F, T>(f: F) -> JoinHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    Builder::new().spawn(f).expect("failed to spawn thread")
}

/// Thread factory, as `std::thread::Builder`.
#[derive(Debug, Default)]
pub struct Builder {
    name: Option<String>,
    stack_size: Option<usize>,
}

impl Builder {
    pub fn new() -> Builder {
        Builder::default()
    }

    pub fn name(mut self, name: String) -> Builder {
        self.name = Some(name);
        self
    }

    pub fn stack_size(mut self, size: usize) -> Builder {
        self.stack_size = Some(size);
        self
    }

    fn std_builder(&self) -> std::thread::Builder {
        let mut b = std::thread::Builder::new();
        if let Some(name) = &self.name {
            b = b.name(name.clone());
        }
        if let Some(size) = self.stack_size {
            b = b.stack_size(size);
        }
        b
    }

    #[track_caller]
    pub fn spawn<F, T>(self, f: F) -> io::Result<JoinHandle<T>>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        let site = Location::caller();
        let (seed, ending) = fork(self.name.clone(), site);
        let (child_exit, done) = (ending.exit.clone(), ending.done.clone());
        let Some(linger) = seed.ticket.as_ref().map(Ticket::linger) else {
            let inner =
                self.std_builder().spawn(move || run_child(seed, ExitPost::AtThreadEnd(child_exit), done, site, f))?;
            schedule::point("spawning a thread", site);
            let thread = Thread { inner: inner.thread().clone() };
            return Ok(JoinHandle { inner: Joined::Std(inner), ending, thread });
        };
        // A thread of a model: its result comes through `slot`, and its OS thread lingers until
        // the iteration is over (see `schedule::Linger`).
        let slot = Arc::new(ResultSlot::default());
        let filled = slot.clone();
        let waits = linger.clone();
        let inner = self.std_builder().spawn(move || {
            let exits = ExitPost::AtClosureEnd(vec![child_exit]);
            run_child(seed, exits, done, site, || {
                filled.fill(std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)))
            });
            // Its thread-local destructors run after the model: nothing they touch is checked.
            std::mem::forget(crate::runtime::ignore::IgnoreScope::enter());
            waits.wait();
        })?;
        let thread = Thread { inner: inner.thread().clone() };
        linger.keep(inner);
        schedule::point("spawning a thread", site);
        Ok(JoinHandle { inner: Joined::Model(slot), ending, thread })
    }

    #[track_caller]
    pub fn spawn_scoped<'scope, 'env, F, T>(
        self,
        scope: &'scope Scope<'scope, 'env>,
        f: F,
    ) -> io::Result<ScopedJoinHandle<'scope, T>>
    where
        F: FnOnce() -> T + Send + 'scope,
        T: Send + 'scope,
    {
        let site = Location::caller();
        let (seed, ending) = fork(self.name.clone(), site);
        let ends = scope.ends();
        ends.threads.lock().push(ending.clone());
        let exits = ExitPost::AtClosureEnd(vec![ending.exit.clone(), ends.exits.clone()]);
        let done = ending.done.clone();
        let inner = self.std_builder().spawn_scoped(&scope.inner, move || run_child(seed, exits, done, site, f))?;
        schedule::point("spawning a thread", site);
        let thread = Thread { inner: inner.thread().clone() };
        Ok(ScopedJoinHandle { inner, ending, thread })
    }
}

/// An owned permission to join a thread, as `std::thread::JoinHandle`.
#[derive(Debug)]
pub struct JoinHandle<T> {
    inner: Joined<T>,
    ending: Ending,
    thread: Thread,
}

/// How a join gets the thread's result: std's join, or, for a thread of a model (whose OS
/// thread lingers until the iteration is over), the slot its closure's result goes to.
#[derive(Debug)]
enum Joined<T> {
    Std(std::thread::JoinHandle<T>),
    Model(Arc<ResultSlot<T>>),
}

/// A model thread's result, filled when its closure returns or panics.
struct ResultSlot<T> {
    result: std::sync::Mutex<Option<Result<T>>>,
    filled: std::sync::Condvar,
}

impl<T> Default for ResultSlot<T> {
    fn default() -> Self {
        ResultSlot { result: std::sync::Mutex::new(None), filled: std::sync::Condvar::new() }
    }
}

impl<T> std::fmt::Debug for ResultSlot<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResultSlot").finish_non_exhaustive()
    }
}

impl<T> ResultSlot<T> {
    fn fill(&self, result: Result<T>) {
        *self.result.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(result);
        self.filled.notify_all();
    }

    fn is_filled(&self) -> bool {
        self.result.lock().unwrap_or_else(std::sync::PoisonError::into_inner).is_some()
    }

    /// The result: the join saw the thread end (`done`), which follows the fill at once.
    fn take(&self) -> Result<T> {
        let mut result = self.result.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        loop {
            if let Some(result) = result.take() {
                return result;
            }
            result = self.filled.wait(result).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }
}

impl<T> JoinHandle<T> {
    #[track_caller]
    pub fn join(self) -> Result<T> {
        self.join_at(Location::caller())
    }

    /// As `join`, at `site` (racer-rt's model tasks: the join of a task's thread is at the
    /// task's spawn, the user's line, not in racer's code).
    #[doc(hidden)]
    pub fn join_at(self, site: &'static Location<'static>) -> Result<T> {
        match self.inner {
            Joined::Std(inner) => self.ending.join(site, || inner.join()),
            Joined::Model(slot) => self.ending.join(site, || slot.take()),
        }
    }

    pub fn thread(&self) -> &Thread {
        &self.thread
    }

    pub fn is_finished(&self) -> bool {
        match &self.inner {
            Joined::Std(inner) => inner.is_finished(),
            Joined::Model(slot) => slot.is_filled(),
        }
    }
}

/// A scope for spawning scoped threads, as `std::thread::Scope`.
///
/// `repr(transparent)` over std's scope, so a `&std::thread::Scope` can be viewed as one; the
/// clock that collects the exits of its threads lives in `SCOPE_ENDS`, keyed by its address.
#[repr(transparent)]
pub struct Scope<'scope, 'env: 'scope> {
    inner: std::thread::Scope<'scope, 'env>,
}

static SCOPE_ENDS: Lazy<ShardedMap<usize, Arc<ScopeEnds>>> = Lazy::new(ShardedMap::new);

/// What the end of a scope waits for: the clock its threads post their exits to, and the end
/// of each of them (waited for before std's own wait, so that the wait is published for
/// deadlock detection).
#[derive(Default)]
struct ScopeEnds {
    exits: Arc<SyncClock>,
    threads: crate::base::lock::Mutex<Vec<Ending>>,
}

impl<'scope, 'env> Scope<'scope, 'env> {
    fn ends(&self) -> Arc<ScopeEnds> {
        let key = &self.inner as *const _ as usize;
        SCOPE_ENDS.get(&key).expect("racer: a Scope outlived its racer::thread::scope call")
    }

    #[track_caller]
    pub fn spawn<F, T>(&'scope self, f: F) -> ScopedJoinHandle<'scope, T>
    where
        F: FnOnce() -> T + Send + 'scope,
        T: Send + 'scope,
    {
        Builder::new().spawn_scoped(self, f).expect("failed to spawn thread")
    }
}

impl std::fmt::Debug for Scope<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.inner.fmt(f)
    }
}

/// Creates a scope for spawning scoped threads, as `std::thread::scope`. Its end waits on the
/// exit of every thread spawned in it, joined or not.
#[track_caller]
pub fn scope<'env, F, T>(f: F) -> T
where
    F: for<'scope> FnOnce(&'scope Scope<'scope, 'env>) -> T,
{
    /// The end of the scope, also when it unwinds: std's scope has joined every thread it
    /// spawned before it returns or resumes a panic (of the body or of a scoped thread), so
    /// the wait on their exits belongs on both paths.
    struct EndOfScope {
        key: std::cell::Cell<usize>,
        ends: Arc<ScopeEnds>,
        site: &'static Location<'static>,
    }
    impl Drop for EndOfScope {
        fn drop(&mut self) {
            SCOPE_ENDS.remove(&self.key.get());
            self.ends.exits.wait(SyncEvent { op: "ending", object: "a thread scope", created: None, at: self.site });
        }
    }
    let end = EndOfScope { key: std::cell::Cell::new(0), ends: Arc::default(), site: Location::caller() };
    std::thread::scope(|s| {
        let key = s as *const std::thread::Scope<'_, 'env> as usize;
        SCOPE_ENDS.insert(key, end.ends.clone());
        end.key.set(key);
        // SAFETY: `Scope` is `repr(transparent)` over `std::thread::Scope`.
        let ours: &Scope<'_, 'env> = unsafe { &*(s as *const std::thread::Scope<'_, 'env> as *const Scope<'_, 'env>) };
        let result = f(ours);
        // std's scope now waits for every thread it spawned; wait for them first, published (as
        // a wait that cannot be unwound: std would wait for them all the same).
        let threads = std::mem::take(&mut *end.ends.threads.lock());
        for t in threads {
            t.wait_in_model(end.site);
            t.done.wait_at_scope_end(t.who.clone(), end.site);
        }
        result
    })
}

/// An owned permission to join a scoped thread, as `std::thread::ScopedJoinHandle`.
#[derive(Debug)]
pub struct ScopedJoinHandle<'scope, T> {
    inner: std::thread::ScopedJoinHandle<'scope, T>,
    ending: Ending,
    thread: Thread,
}

impl<T> ScopedJoinHandle<'_, T> {
    #[track_caller]
    pub fn join(self) -> Result<T> {
        let site = Location::caller();
        let inner = self.inner;
        self.ending.join(site, || inner.join())
    }

    pub fn thread(&self) -> &Thread {
        &self.thread
    }

    pub fn is_finished(&self) -> bool {
        self.inner.is_finished()
    }
}
