//! Parallel iterators whose pieces of work are tasks: [`Tracked`] wraps the iterator a
//! prelude trait starts (`par_iter`, `into_par_iter`, `par_chunks`...). Its consuming call
//! (`for_each`, `collect`, `sum`, `reduce`...) drives it on the caller; there a `ForkPoint` is
//! made, and each sequential piece rayon splits off (a folder, or a producer's leaf) runs on
//! its worker as a task forked from that point, as does each reduction of two pieces'
//! results (ordered after the pieces that ended before it); when the drive returns, the caller
//! joins every task forked from the point. A task per piece, not per item: items of one piece
//! run in order, pieces in parallel.

use std::cell::RefCell;
use std::ops::RangeBounds;
use std::panic::Location;

use racer_core::task::{current_actor, ForkPoint, HandOff, Installed};
use rayon_crate::iter::plumbing::{Consumer, Folder, Producer, ProducerCallback, Reducer, UnindexedConsumer};
use rayon_crate::iter::{IndexedParallelIterator, IterBridge, ParallelIterator};
use rayon_crate::slice::{
    ArrayWindows, ChunkBy, ChunkByMut, Chunks, ChunksExact, ChunksExactMut, ChunksMut, RChunks, RChunksExact,
    RChunksExactMut, RChunksMut, Split, SplitInclusive, SplitInclusiveMut, SplitMut, Windows,
};

use super::names;

/// A parallel iterator whose work runs as tasks forked at its consuming call and joined when
/// that call returns (see the module's documentation).
///
/// Invariant: `site` is where the iterator was started (the user's line), the site of its
/// fork point and join; `owner` is the thread or task that started it (`current_actor`).
#[must_use = "iterator adaptors are lazy and do nothing unless consumed"]
#[derive(Clone, Debug)]
pub struct Tracked<I> {
    base: I,
    site: &'static Location<'static>,
    owner: Option<u64>,
}

impl<I> Tracked<I> {
    #[track_caller]
    pub(super) fn new(base: I) -> Tracked<I> {
        super::workers::global_pool();
        Tracked { base, site: Location::caller(), owner: current_actor() }
    }
}

/// Runs `drive` with a fork point made here and joins the point after, when this is the thread
/// (or task) that started the iterator: its consuming call. Anywhere else (rayon's `chain`
/// drives its halves inside its own `join`, on workers), nobody who could join the point waits
/// for the drive, so the point orders nothing and its tasks' accesses are ignored: a report
/// against the caller would be false. The same where the caller ignores its accesses (a worker
/// running a job rayon forked by itself).
fn at_fork_point<R>(site: &'static Location<'static>, owner: Option<u64>, drive: impl FnOnce(&ForkPoint) -> R) -> R {
    if owner.is_none() || current_actor() != owner || racer_core::task::ignoring_accesses() {
        return drive(&ForkPoint::unordered(site));
    }
    let point = ForkPoint::new(Some(names::ITER.to_owned()), site);
    let out = drive(&point);
    point.join(site);
    out
}

impl<I: ParallelIterator> ParallelIterator for Tracked<I> {
    type Item = I::Item;

    fn drive_unindexed<C>(self, consumer: C) -> C::Result
    where
        C: UnindexedConsumer<Self::Item>,
    {
        let Tracked { base, site, owner } = self;
        at_fork_point(site, owner, |point| base.drive_unindexed(TrackedConsumer { base: consumer, point, site }))
    }

    fn opt_len(&self) -> Option<usize> {
        self.base.opt_len()
    }
}

impl<I: IndexedParallelIterator> IndexedParallelIterator for Tracked<I> {
    fn drive<C>(self, consumer: C) -> C::Result
    where
        C: Consumer<Self::Item>,
    {
        let Tracked { base, site, owner } = self;
        at_fork_point(site, owner, |point| base.drive(TrackedConsumer { base: consumer, point, site }))
    }

    fn len(&self) -> usize {
        self.base.len()
    }

    fn with_producer<CB>(self, callback: CB) -> CB::Output
    where
        CB: ProducerCallback<Self::Item>,
    {
        let Tracked { base, site, owner } = self;
        at_fork_point(site, owner, |point| base.with_producer(Callback { callback, point }))
    }
}

// ---- the consumer side: each folder a task, each reduction a task ----

struct TrackedConsumer<'p, C> {
    base: C,
    point: &'p ForkPoint,
    site: &'static Location<'static>,
}

impl<'p, T, C: Consumer<T>> Consumer<T> for TrackedConsumer<'p, C> {
    type Folder = TrackedFolder<C::Folder>;
    type Reducer = TrackedReducer<'p, C::Reducer>;
    type Result = C::Result;

    fn split_at(self, index: usize) -> (Self, Self, Self::Reducer) {
        let (left, right, reducer) = self.base.split_at(index);
        let (point, site) = (self.point, self.site);
        (
            TrackedConsumer { base: left, point, site },
            TrackedConsumer { base: right, point, site },
            TrackedReducer { base: reducer, point, site },
        )
    }

    fn into_folder(self) -> Self::Folder {
        let mut task = self.point.fork();
        let base = task.run(|| self.base.into_folder());
        let before = HandOff::new("a piece of rayon's work", self.site);
        TrackedFolder { base, task, before, site: self.site }
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

impl<T, C: UnindexedConsumer<T>> UnindexedConsumer<T> for TrackedConsumer<'_, C> {
    fn split_off_left(&self) -> Self {
        TrackedConsumer { base: self.base.split_off_left(), point: self.point, site: self.site }
    }

    fn to_reducer(&self) -> Self::Reducer {
        TrackedReducer { base: self.base.to_reducer(), point: self.point, site: self.site }
    }
}

/// One sequential piece of the work: every call into the user's folder runs as its task,
/// which ends when the folder completes (or is dropped).
///
/// Invariant: each item `consume` is given was made, in program order, by whatever ran on the
/// worker before the call (`par_bridge`'s producer calls the user's iterator there, outside the
/// task, between two items): `before` is released there and acquired by the task before it
/// consumes the item, so the item's making happens before its use.
struct TrackedFolder<F> {
    base: F,
    task: racer_core::task::Task,
    before: HandOff,
    site: &'static Location<'static>,
}

impl<T, F: Folder<T>> Folder<T> for TrackedFolder<F> {
    type Result = F::Result;

    fn consume(self, item: T) -> Self {
        let TrackedFolder { base, mut task, before, site } = self;
        before.release("making an item for", site);
        let base = task.run(|| {
            before.acquire("consuming an item in", site);
            base.consume(item)
        });
        TrackedFolder { base, task, before, site }
    }

    fn consume_iter<It>(self, iter: It) -> Self
    where
        It: IntoIterator<Item = T>,
    {
        let TrackedFolder { base, mut task, before, site } = self;
        let base = task.run(|| base.consume_iter(iter));
        TrackedFolder { base, task, before, site }
    }

    fn complete(self) -> F::Result {
        let TrackedFolder { base, mut task, .. } = self;
        task.run(|| base.complete())
    }

    fn full(&self) -> bool {
        self.base.full()
    }
}

/// A reduction of two pieces' results (the user's `reduce` op, `collect`'s merge...): a task
/// forked from the point, ordered after every piece that ended before it (the two it reduces
/// among them).
struct TrackedReducer<'p, R> {
    base: R,
    point: &'p ForkPoint,
    site: &'static Location<'static>,
}

impl<T, R: Reducer<T>> Reducer<T> for TrackedReducer<'_, R> {
    fn reduce(self, left: T, right: T) -> T {
        let mut task = self.point.fork();
        let (point, site, base) = (self.point, self.site, self.base);
        task.run(move || {
            point.join(site);
            base.reduce(left, right)
        })
    }
}

// ---- the producer side (`zip`, `enumerate`... over a tracked iterator) ----

struct Callback<'p, CB> {
    callback: CB,
    point: &'p ForkPoint,
}

impl<T, CB: ProducerCallback<T>> ProducerCallback<T> for Callback<'_, CB> {
    type Output = CB::Output;

    fn callback<P>(self, base: P) -> CB::Output
    where
        P: Producer<Item = T>,
    {
        self.callback.callback(TrackedProducer { base, point: self.point })
    }
}

struct TrackedProducer<'p, P> {
    base: P,
    point: &'p ForkPoint,
}

impl<P: Producer> Producer for TrackedProducer<'_, P> {
    type Item = P::Item;
    type IntoIter = TrackedIter<P::IntoIter>;

    /// A leaf consumed by an adaptor's folder (`enumerate`, `zip`...): the task is installed on
    /// the worker for as long as the iterator lives, so the folder's calls between its items run
    /// as the task too.
    fn into_iter(self) -> Self::IntoIter {
        let installed = installed::push(self.point.fork().install());
        TrackedIter { base: self.base.into_iter(), installed }
    }

    fn min_len(&self) -> usize {
        self.base.min_len()
    }

    fn max_len(&self) -> usize {
        self.base.max_len()
    }

    fn split_at(self, index: usize) -> (Self, Self) {
        let (left, right) = self.base.split_at(index);
        (TrackedProducer { base: left, point: self.point }, TrackedProducer { base: right, point: self.point })
    }

    fn fold_with<G>(self, folder: G) -> G
    where
        G: Folder<Self::Item>,
    {
        let mut task = self.point.fork();
        let base = self.base;
        task.run(move || base.fold_with(folder))
    }
}

/// A leaf's items, with its task installed (see `TrackedProducer::into_iter`).
///
/// Invariant: `installed` names this leaf's entry in the thread's stack of installed tasks.
struct TrackedIter<I> {
    base: I,
    installed: installed::Entry,
}

impl<I: Iterator> Iterator for TrackedIter<I> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        self.base.next()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.base.size_hint()
    }
}

impl<I: DoubleEndedIterator> DoubleEndedIterator for TrackedIter<I> {
    fn next_back(&mut self) -> Option<I::Item> {
        self.base.next_back()
    }
}

impl<I: ExactSizeIterator> ExactSizeIterator for TrackedIter<I> {}

impl<I> Drop for TrackedIter<I> {
    fn drop(&mut self) {
        installed::pop(self.installed);
    }
}

/// The tasks installed on this thread by leaf iterators, innermost last. An installation must
/// be undone in the reverse order of the installations (`Installed`'s invariant), but an
/// adaptor may drop its leaves in another (`zip` drops its first before its second): a leaf
/// dropped under another is marked, and uninstalled when those above it are.
mod installed {
    use super::*;

    thread_local! {
        static STACK: RefCell<Vec<(u64, Option<Installed>, bool)>> = const { RefCell::new(Vec::new()) };
        static NEXT: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }

    #[derive(Clone, Copy)]
    pub(super) struct Entry(u64);

    pub(super) fn push(task: Installed) -> Entry {
        let id = NEXT.with(|n| {
            let id = n.get();
            n.set(id + 1);
            id
        });
        STACK.with(|s| s.borrow_mut().push((id, Some(task), false)));
        Entry(id)
    }

    pub(super) fn pop(entry: Entry) {
        let mut gone = Vec::new();
        STACK.with(|s| {
            let mut stack = s.borrow_mut();
            if let Some(e) = stack.iter_mut().find(|e| e.0 == entry.0) {
                e.2 = true;
            }
            while stack.last().is_some_and(|e| e.2) {
                let (_, task, _) = stack.pop().expect("a last entry");
                gone.push(task);
            }
        });
        // Uninstalled innermost first, outside the borrow.
        for task in gone {
            drop(task);
        }
    }
}

// ---- closures rayon calls on its workers inside one call of its own (a sort's) ----

/// The tasks of one call's closures: one per thread that calls them (forked from the call's
/// point on its first call there), ended when the call returns, before its join.
///
/// Invariant: `tasks` has a slot per worker of the current pool and one more, for any other
/// thread (the caller itself, when rayon does the work in place).
struct PerWorker<'p> {
    point: &'p ForkPoint,
    tasks: Vec<std::sync::Mutex<Option<racer_core::task::Task>>>,
}

impl PerWorker<'_> {
    fn run<R>(&self, f: impl FnOnce() -> R) -> R {
        let last = self.tasks.len() - 1;
        let index = rayon_crate::current_thread_index().map_or(last, |i| i.min(last));
        match self.tasks[index].try_lock() {
            Ok(mut slot) => slot.get_or_insert_with(|| self.point.fork()).run(f),
            Err(std::sync::TryLockError::Poisoned(slot)) => {
                slot.into_inner().get_or_insert_with(|| self.point.fork()).run(f)
            }
            // Called again inside a call on this thread (a closure that waits for rayon work,
            // and ran another of the sort's meanwhile), or by another thread sharing the last
            // slot: a task of its own.
            Err(std::sync::TryLockError::WouldBlock) => self.point.fork().run(f),
        }
    }
}

/// Runs `call` (one of rayon's, whose closures run on its workers) with a fork point made here
/// on the caller, joined when it returns.
#[track_caller]
fn on_workers<R>(call: impl FnOnce(&PerWorker<'_>) -> R) -> R {
    at_fork_point(Location::caller(), current_actor(), |point| {
        let slots = rayon_crate::current_num_threads() + 1;
        let workers = PerWorker { point, tasks: (0..slots).map(|_| std::sync::Mutex::new(None)).collect() };
        let out = call(&workers);
        // The tasks end here, before the point's join.
        drop(workers);
        out
    })
}

// ---- the traits that start parallel iterators ----

/// rayon's `IntoParallelIterator`, the iterator [`Tracked`].
pub trait IntoParallelIterator {
    type Iter: ParallelIterator<Item = Self::Item>;
    type Item: Send;

    fn into_par_iter(self) -> Self::Iter;
}

impl<T: rayon_crate::iter::IntoParallelIterator> IntoParallelIterator for T {
    type Iter = Tracked<T::Iter>;
    type Item = T::Item;

    #[track_caller]
    fn into_par_iter(self) -> Self::Iter {
        Tracked::new(rayon_crate::iter::IntoParallelIterator::into_par_iter(self))
    }
}

/// rayon's `IntoParallelRefIterator`, the iterator [`Tracked`].
pub trait IntoParallelRefIterator<'data> {
    type Iter: ParallelIterator<Item = Self::Item>;
    type Item: Send + 'data;

    fn par_iter(&'data self) -> Self::Iter;
}

impl<'data, I: rayon_crate::iter::IntoParallelRefIterator<'data> + ?Sized + 'data> IntoParallelRefIterator<'data>
    for I
{
    type Iter = Tracked<I::Iter>;
    type Item = I::Item;

    #[track_caller]
    fn par_iter(&'data self) -> Self::Iter {
        Tracked::new(rayon_crate::iter::IntoParallelRefIterator::par_iter(self))
    }
}

/// rayon's `IntoParallelRefMutIterator`, the iterator [`Tracked`].
pub trait IntoParallelRefMutIterator<'data> {
    type Iter: ParallelIterator<Item = Self::Item>;
    type Item: Send + 'data;

    fn par_iter_mut(&'data mut self) -> Self::Iter;
}

impl<'data, I: rayon_crate::iter::IntoParallelRefMutIterator<'data> + ?Sized + 'data> IntoParallelRefMutIterator<'data>
    for I
{
    type Iter = Tracked<I::Iter>;
    type Item = I::Item;

    #[track_caller]
    fn par_iter_mut(&'data mut self) -> Self::Iter {
        Tracked::new(rayon_crate::iter::IntoParallelRefMutIterator::par_iter_mut(self))
    }
}

/// rayon's `ParallelBridge`, the iterator [`Tracked`], its calls to the bridged iterator
/// ordered one after the other ([`Bridged`]).
pub trait ParallelBridge: Sized {
    fn par_bridge(self) -> Tracked<IterBridge<Bridged<Self>>>;
}

impl<T: Iterator + Send> ParallelBridge for T
where
    T::Item: Send,
{
    #[track_caller]
    fn par_bridge(self) -> Tracked<IterBridge<Bridged<Self>>> {
        let site = Location::caller();
        let turns = HandOff::new("rayon::iter::IterBridge", site);
        Tracked::new(rayon_crate::iter::ParallelBridge::par_bridge(Bridged { iter: self, turns, site }))
    }
}

/// The iterator `par_bridge` bridges: rayon's workers call its `next` one at a time, under a
/// lock of rayon's that racer does not see, so what one call did (a channel's receive, an item
/// kept for a later call) happens before the next call, on whichever worker.
///
/// Invariant: every call of `iter.next()` runs between an acquire and a release of `turns`;
/// `site` is where `par_bridge` was called.
#[derive(Debug)]
pub struct Bridged<I> {
    iter: I,
    turns: HandOff,
    site: &'static Location<'static>,
}

impl<I: Iterator> Iterator for Bridged<I> {
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        self.turns.acquire("taking the next item of", self.site);
        let item = self.iter.next();
        self.turns.release("taking the next item of", self.site);
        item
    }
}

/// rayon's `ParallelDrainFull`, the iterator [`Tracked`].
pub trait ParallelDrainFull {
    type Iter: ParallelIterator<Item = Self::Item>;
    type Item: Send;

    fn par_drain(self) -> Self::Iter;
}

impl<T: rayon_crate::iter::ParallelDrainFull> ParallelDrainFull for T {
    type Iter = Tracked<T::Iter>;
    type Item = T::Item;

    #[track_caller]
    fn par_drain(self) -> Self::Iter {
        Tracked::new(rayon_crate::iter::ParallelDrainFull::par_drain(self))
    }
}

/// rayon's `ParallelDrainRange`, the iterator [`Tracked`].
pub trait ParallelDrainRange<Idx = usize> {
    type Iter: ParallelIterator<Item = Self::Item>;
    type Item: Send;

    fn par_drain<R: RangeBounds<Idx>>(self, range: R) -> Self::Iter;
}

impl<Idx, T: rayon_crate::iter::ParallelDrainRange<Idx>> ParallelDrainRange<Idx> for T {
    type Iter = Tracked<T::Iter>;
    type Item = T::Item;

    #[track_caller]
    fn par_drain<R: RangeBounds<Idx>>(self, range: R) -> Self::Iter {
        Tracked::new(rayon_crate::iter::ParallelDrainRange::par_drain(self, range))
    }
}

use rayon_crate::slice::ParallelSlice as RayonSlice;
use rayon_crate::slice::ParallelSliceMut as RayonSliceMut;

/// rayon's `ParallelSlice`, each iterator [`Tracked`].
pub trait ParallelSlice<T: Sync> {
    fn as_parallel_slice(&self) -> &[T];

    #[track_caller]
    fn par_split<P>(&self, separator: P) -> Tracked<Split<'_, T, P>>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        Tracked::new(RayonSlice::par_split(self.as_parallel_slice(), separator))
    }

    #[track_caller]
    fn par_split_inclusive<P>(&self, separator: P) -> Tracked<SplitInclusive<'_, T, P>>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        Tracked::new(RayonSlice::par_split_inclusive(self.as_parallel_slice(), separator))
    }

    #[track_caller]
    fn par_windows(&self, window_size: usize) -> Tracked<Windows<'_, T>> {
        Tracked::new(RayonSlice::par_windows(self.as_parallel_slice(), window_size))
    }

    #[track_caller]
    fn par_array_windows<const N: usize>(&self) -> Tracked<ArrayWindows<'_, T, N>> {
        Tracked::new(RayonSlice::par_array_windows(self.as_parallel_slice()))
    }

    #[track_caller]
    fn par_chunks(&self, chunk_size: usize) -> Tracked<Chunks<'_, T>> {
        Tracked::new(RayonSlice::par_chunks(self.as_parallel_slice(), chunk_size))
    }

    #[track_caller]
    fn par_chunks_exact(&self, chunk_size: usize) -> Tracked<ChunksExact<'_, T>> {
        Tracked::new(RayonSlice::par_chunks_exact(self.as_parallel_slice(), chunk_size))
    }

    #[track_caller]
    fn par_rchunks(&self, chunk_size: usize) -> Tracked<RChunks<'_, T>> {
        Tracked::new(RayonSlice::par_rchunks(self.as_parallel_slice(), chunk_size))
    }

    #[track_caller]
    fn par_rchunks_exact(&self, chunk_size: usize) -> Tracked<RChunksExact<'_, T>> {
        Tracked::new(RayonSlice::par_rchunks_exact(self.as_parallel_slice(), chunk_size))
    }

    #[track_caller]
    fn par_chunk_by<F>(&self, pred: F) -> Tracked<ChunkBy<'_, T, F>>
    where
        F: Fn(&T, &T) -> bool + Send + Sync,
    {
        Tracked::new(RayonSlice::par_chunk_by(self.as_parallel_slice(), pred))
    }
}

impl<T: Sync> ParallelSlice<T> for [T] {
    fn as_parallel_slice(&self) -> &[T] {
        self
    }
}

/// rayon's `ParallelSliceMut`, each iterator [`Tracked`]; a sort's comparisons (and keys) run
/// as tasks forked from the sort's call, one per worker that makes them, joined when it returns.
pub trait ParallelSliceMut<T: Send> {
    fn as_parallel_slice_mut(&mut self) -> &mut [T];

    #[track_caller]
    fn par_split_mut<P>(&mut self, separator: P) -> Tracked<SplitMut<'_, T, P>>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        Tracked::new(RayonSliceMut::par_split_mut(self.as_parallel_slice_mut(), separator))
    }

    #[track_caller]
    fn par_split_inclusive_mut<P>(&mut self, separator: P) -> Tracked<SplitInclusiveMut<'_, T, P>>
    where
        P: Fn(&T) -> bool + Sync + Send,
    {
        Tracked::new(RayonSliceMut::par_split_inclusive_mut(self.as_parallel_slice_mut(), separator))
    }

    #[track_caller]
    fn par_chunks_mut(&mut self, chunk_size: usize) -> Tracked<ChunksMut<'_, T>> {
        Tracked::new(RayonSliceMut::par_chunks_mut(self.as_parallel_slice_mut(), chunk_size))
    }

    #[track_caller]
    fn par_chunks_exact_mut(&mut self, chunk_size: usize) -> Tracked<ChunksExactMut<'_, T>> {
        Tracked::new(RayonSliceMut::par_chunks_exact_mut(self.as_parallel_slice_mut(), chunk_size))
    }

    #[track_caller]
    fn par_rchunks_mut(&mut self, chunk_size: usize) -> Tracked<RChunksMut<'_, T>> {
        Tracked::new(RayonSliceMut::par_rchunks_mut(self.as_parallel_slice_mut(), chunk_size))
    }

    #[track_caller]
    fn par_rchunks_exact_mut(&mut self, chunk_size: usize) -> Tracked<RChunksExactMut<'_, T>> {
        Tracked::new(RayonSliceMut::par_rchunks_exact_mut(self.as_parallel_slice_mut(), chunk_size))
    }

    #[track_caller]
    fn par_sort(&mut self)
    where
        T: Ord,
    {
        let slice = self.as_parallel_slice_mut();
        on_workers(|w| RayonSliceMut::par_sort_by(slice, |a, b| w.run(|| a.cmp(b))))
    }

    #[track_caller]
    fn par_sort_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> std::cmp::Ordering + Sync,
    {
        let slice = self.as_parallel_slice_mut();
        on_workers(|w| RayonSliceMut::par_sort_by(slice, |a, b| w.run(|| compare(a, b))))
    }

    #[track_caller]
    fn par_sort_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        let slice = self.as_parallel_slice_mut();
        on_workers(|w| RayonSliceMut::par_sort_by_key(slice, |x| w.run(|| f(x))))
    }

    #[track_caller]
    fn par_sort_by_cached_key<K, F>(&mut self, f: F)
    where
        F: Fn(&T) -> K + Sync,
        K: Ord + Send,
    {
        let slice = self.as_parallel_slice_mut();
        on_workers(|w| RayonSliceMut::par_sort_by_cached_key(slice, |x| w.run(|| f(x))))
    }

    #[track_caller]
    fn par_sort_unstable(&mut self)
    where
        T: Ord,
    {
        let slice = self.as_parallel_slice_mut();
        on_workers(|w| RayonSliceMut::par_sort_unstable_by(slice, |a, b| w.run(|| a.cmp(b))))
    }

    #[track_caller]
    fn par_sort_unstable_by<F>(&mut self, compare: F)
    where
        F: Fn(&T, &T) -> std::cmp::Ordering + Sync,
    {
        let slice = self.as_parallel_slice_mut();
        on_workers(|w| RayonSliceMut::par_sort_unstable_by(slice, |a, b| w.run(|| compare(a, b))))
    }

    #[track_caller]
    fn par_sort_unstable_by_key<K, F>(&mut self, f: F)
    where
        K: Ord,
        F: Fn(&T) -> K + Sync,
    {
        let slice = self.as_parallel_slice_mut();
        on_workers(|w| RayonSliceMut::par_sort_unstable_by_key(slice, |x| w.run(|| f(x))))
    }

    #[track_caller]
    fn par_chunk_by_mut<F>(&mut self, pred: F) -> Tracked<ChunkByMut<'_, T, F>>
    where
        F: Fn(&T, &T) -> bool + Send + Sync,
    {
        Tracked::new(RayonSliceMut::par_chunk_by_mut(self.as_parallel_slice_mut(), pred))
    }
}

impl<T: Send> ParallelSliceMut<T> for [T] {
    fn as_parallel_slice_mut(&mut self) -> &mut [T] {
        self
    }
}

use rayon_crate::str::ParallelString as RayonString;
use rayon_crate::str::{
    Bytes, CharIndices, Chars, EncodeUtf16, Lines, MatchIndices, Matches, Split as StrSplit, SplitAsciiWhitespace,
    SplitInclusive as StrSplitInclusive, SplitTerminator, SplitWhitespace,
};

/// rayon's `ParallelString`, each iterator [`Tracked`].
pub trait ParallelString {
    fn as_parallel_string(&self) -> &str;

    #[track_caller]
    fn par_chars(&self) -> Tracked<Chars<'_>> {
        Tracked::new(RayonString::par_chars(self.as_parallel_string()))
    }

    #[track_caller]
    fn par_char_indices(&self) -> Tracked<CharIndices<'_>> {
        Tracked::new(RayonString::par_char_indices(self.as_parallel_string()))
    }

    #[track_caller]
    fn par_bytes(&self) -> Tracked<Bytes<'_>> {
        Tracked::new(RayonString::par_bytes(self.as_parallel_string()))
    }

    #[track_caller]
    fn par_encode_utf16(&self) -> Tracked<EncodeUtf16<'_>> {
        Tracked::new(RayonString::par_encode_utf16(self.as_parallel_string()))
    }

    #[track_caller]
    fn par_split<'ch, P: Pattern<'ch>>(&'ch self, separator: P) -> Tracked<P::Split> {
        Tracked::new(separator.split(self.as_parallel_string()))
    }

    #[track_caller]
    fn par_split_inclusive<'ch, P: Pattern<'ch>>(&'ch self, separator: P) -> Tracked<P::SplitInclusive> {
        Tracked::new(separator.split_inclusive(self.as_parallel_string()))
    }

    #[track_caller]
    fn par_split_terminator<'ch, P: Pattern<'ch>>(&'ch self, terminator: P) -> Tracked<P::SplitTerminator> {
        Tracked::new(terminator.split_terminator(self.as_parallel_string()))
    }

    #[track_caller]
    fn par_lines(&self) -> Tracked<Lines<'_>> {
        Tracked::new(RayonString::par_lines(self.as_parallel_string()))
    }

    #[track_caller]
    fn par_split_whitespace(&self) -> Tracked<SplitWhitespace<'_>> {
        Tracked::new(RayonString::par_split_whitespace(self.as_parallel_string()))
    }

    #[track_caller]
    fn par_split_ascii_whitespace(&self) -> Tracked<SplitAsciiWhitespace<'_>> {
        Tracked::new(RayonString::par_split_ascii_whitespace(self.as_parallel_string()))
    }

    #[track_caller]
    fn par_matches<'ch, P: Pattern<'ch>>(&'ch self, pattern: P) -> Tracked<P::Matches> {
        Tracked::new(pattern.matches(self.as_parallel_string()))
    }

    #[track_caller]
    fn par_match_indices<'ch, P: Pattern<'ch>>(&'ch self, pattern: P) -> Tracked<P::MatchIndices> {
        Tracked::new(pattern.match_indices(self.as_parallel_string()))
    }
}

impl ParallelString for str {
    fn as_parallel_string(&self) -> &str {
        self
    }
}

/// The patterns rayon's string methods take (rayon's own trait for them is sealed), each with
/// the iterators rayon makes of it over a `&'ch str`.
pub trait Pattern<'ch>: Sized + Sync + Send {
    type Split: ParallelIterator<Item = &'ch str>;
    type SplitInclusive: ParallelIterator<Item = &'ch str>;
    type SplitTerminator: ParallelIterator<Item = &'ch str>;
    type Matches: ParallelIterator<Item = &'ch str>;
    type MatchIndices: ParallelIterator<Item = (usize, &'ch str)>;

    #[doc(hidden)]
    fn split(self, chars: &'ch str) -> Self::Split;
    #[doc(hidden)]
    fn split_inclusive(self, chars: &'ch str) -> Self::SplitInclusive;
    #[doc(hidden)]
    fn split_terminator(self, chars: &'ch str) -> Self::SplitTerminator;
    #[doc(hidden)]
    fn matches(self, chars: &'ch str) -> Self::Matches;
    #[doc(hidden)]
    fn match_indices(self, chars: &'ch str) -> Self::MatchIndices;
}

macro_rules! pattern {
    ([$($generics:tt)*] $ty:ty $(where $($bound:tt)*)?) => {
        impl<'ch, $($generics)*> Pattern<'ch> for $ty $(where $($bound)*)? {
            type Split = StrSplit<'ch, $ty>;
            type SplitInclusive = StrSplitInclusive<'ch, $ty>;
            type SplitTerminator = SplitTerminator<'ch, $ty>;
            type Matches = Matches<'ch, $ty>;
            type MatchIndices = MatchIndices<'ch, $ty>;

            fn split(self, chars: &'ch str) -> Self::Split {
                RayonString::par_split(chars, self)
            }

            fn split_inclusive(self, chars: &'ch str) -> Self::SplitInclusive {
                RayonString::par_split_inclusive(chars, self)
            }

            fn split_terminator(self, chars: &'ch str) -> Self::SplitTerminator {
                RayonString::par_split_terminator(chars, self)
            }

            fn matches(self, chars: &'ch str) -> Self::Matches {
                RayonString::par_matches(chars, self)
            }

            fn match_indices(self, chars: &'ch str) -> Self::MatchIndices {
                RayonString::par_match_indices(chars, self)
            }
        }
    };
}

pattern!([] char);
pattern!(['p] &'p [char]);
pattern!([const N: usize] [char; N]);
pattern!(['p, const N: usize] &'p [char; N]);
pattern!([F] F where F: Fn(char) -> bool + Sync + Send);
