//! `DashMap`: dashmap's map and a `ShardClocks` per shard.

use std::borrow::Borrow;
use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::ops::{BitAnd, BitOr, Shl, Shr, Sub};
use std::panic::Location;

use dashmap_crate as dm;
use dashmap_crate::try_result::TryResult;
use dashmap_crate::TryReserveError;

use super::iter::{Iter, IterMut, OwningIter};
use super::mapref::entry::Entry;
use super::mapref::multiple::RefMulti;
use super::mapref::one::{Ref, RefMut};
use super::{ReadOnlyView, ShardClocks, Site};

/// A concurrent map, as `dashmap::DashMap`. Its guards order what they guard as racer's
/// `RwLock`'s guards do, per shard: a write guard (`get_mut`, `entry`, `iter_mut`'s items, the
/// closures of `alter`, `retain`, `remove_if`, and `insert`, `remove`) happens before every
/// later guard of its shard, a read guard (`get`, `iter`'s items, `view`, `contains_key`)
/// before the shard's next write guard.
///
/// Invariant: `shards[i]` are the clocks of `inner`'s shard `i`.
pub struct DashMap<K, V, S = RandomState> {
    pub(crate) inner: dm::DashMap<K, V, S>,
    pub(crate) shards: Box<[ShardClocks]>,
}

impl<K: Eq + Hash, V> DashMap<K, V, RandomState> {
    /// An empty map, as dashmap's `new`.
    #[track_caller]
    pub fn new() -> Self {
        DashMap::from_inner(dm::DashMap::new(), Location::caller())
    }

    /// As dashmap's `with_capacity`.
    #[track_caller]
    pub fn with_capacity(capacity: usize) -> Self {
        DashMap::from_inner(dm::DashMap::with_capacity(capacity), Location::caller())
    }

    /// As dashmap's `with_shard_amount`.
    #[track_caller]
    pub fn with_shard_amount(shard_amount: usize) -> Self {
        DashMap::from_inner(dm::DashMap::with_shard_amount(shard_amount), Location::caller())
    }

    /// As dashmap's `with_capacity_and_shard_amount`.
    #[track_caller]
    pub fn with_capacity_and_shard_amount(capacity: usize, shard_amount: usize) -> Self {
        DashMap::from_inner(dm::DashMap::with_capacity_and_shard_amount(capacity, shard_amount), Location::caller())
    }
}

impl<'a, K: 'a + Eq + Hash, V: 'a, S: BuildHasher + Clone> DashMap<K, V, S> {
    pub(crate) fn from_inner(inner: dm::DashMap<K, V, S>, at: Site) -> Self {
        let shards = ShardClocks::for_shards(inner.shards().len(), at);
        DashMap { inner, shards }
    }

    /// The clocks of the shard of `key`.
    pub(crate) fn shard<Q>(&self, key: &Q) -> &ShardClocks
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        &self.shards[self.inner.determine_map(key)]
    }

    /// Every shard's clocks acquired: the map is owned (no guard of it is alive), and its
    /// values are handed on as they are.
    fn acquire_all(&self, at: Site) {
        for shard in self.shards.iter() {
            drop(shard.write_hold(at));
        }
    }

    /// A read-only view of the map, as dashmap's `into_read_only` (every section of the map so
    /// far happens before it).
    #[track_caller]
    pub fn into_read_only(self) -> ReadOnlyView<K, V, S> {
        self.acquire_all(Location::caller());
        ReadOnlyView { inner: self.inner.into_read_only(), shards: self.shards }
    }

    /// As dashmap's `with_hasher`.
    #[track_caller]
    pub fn with_hasher(hasher: S) -> Self {
        DashMap::from_inner(dm::DashMap::with_hasher(hasher), Location::caller())
    }

    /// As dashmap's `with_capacity_and_hasher`.
    #[track_caller]
    pub fn with_capacity_and_hasher(capacity: usize, hasher: S) -> Self {
        DashMap::from_inner(dm::DashMap::with_capacity_and_hasher(capacity, hasher), Location::caller())
    }

    /// As dashmap's `with_hasher_and_shard_amount`.
    #[track_caller]
    pub fn with_hasher_and_shard_amount(hasher: S, shard_amount: usize) -> Self {
        DashMap::from_inner(dm::DashMap::with_hasher_and_shard_amount(hasher, shard_amount), Location::caller())
    }

    /// As dashmap's `with_capacity_and_hasher_and_shard_amount`.
    #[track_caller]
    pub fn with_capacity_and_hasher_and_shard_amount(capacity: usize, hasher: S, shard_amount: usize) -> Self {
        let inner = dm::DashMap::with_capacity_and_hasher_and_shard_amount(capacity, hasher, shard_amount);
        DashMap::from_inner(inner, Location::caller())
    }

    /// As dashmap's `hash_usize`.
    pub fn hash_usize<T: Hash>(&self, item: &T) -> usize {
        self.inner.hash_usize(item)
    }

    /// The shard `key` is in, as dashmap's `determine_map` (`raw-api`).
    pub fn determine_map<Q>(&self, key: &Q) -> usize
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.inner.determine_map(key)
    }

    /// The shard of `hash`, as dashmap's `determine_shard` (`raw-api`).
    pub fn determine_shard(&self, hash: usize) -> usize {
        self.inner.determine_shard(hash)
    }

    /// As dashmap's `hasher`.
    pub fn hasher(&self) -> &S {
        self.inner.hasher()
    }

    fn insert_at(&self, key: K, value: V, at: Site) -> Option<V> {
        match self.entry_at(key, at) {
            Entry::Occupied(mut o) => Some(o.insert(value)),
            Entry::Vacant(v) => {
                v.insert(value);
                None
            }
        }
    }

    /// Inserts `value` at `key` (a write section of its shard), as dashmap's `insert`.
    #[track_caller]
    pub fn insert(&self, key: K, value: V) -> Option<V> {
        self.insert_at(key, value, Location::caller())
    }

    /// Removes `key` (a write section of its shard), as dashmap's `remove`.
    #[track_caller]
    pub fn remove<Q>(&self, key: &Q) -> Option<(K, V)>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let (shard, at) = (self.shard(key), Location::caller());
        self.inner.remove_if(key, |_, _| shard.writing(at, || true))
    }

    /// Removes `key` if `f` says so (`f` runs in a write section of its shard), as dashmap's
    /// `remove_if`.
    #[track_caller]
    pub fn remove_if<Q>(&self, key: &Q, f: impl FnOnce(&K, &V) -> bool) -> Option<(K, V)>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let (shard, at) = (self.shard(key), Location::caller());
        self.inner.remove_if(key, |k, v| shard.writing(at, || f(k, v)))
    }

    /// As `remove_if`, `f` given the value mutably: as dashmap's `remove_if_mut`.
    #[track_caller]
    pub fn remove_if_mut<Q>(&self, key: &Q, f: impl FnOnce(&K, &mut V) -> bool) -> Option<(K, V)>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let (shard, at) = (self.shard(key), Location::caller());
        self.inner.remove_if_mut(key, |k, v| shard.writing(at, || f(k, v)))
    }

    fn iter_at(&'a self, at: Site) -> Iter<'a, K, V, S, DashMap<K, V, S>> {
        Iter::new(self.inner.iter(), self, at)
    }

    /// An iterator of read guards, as dashmap's `iter`: each item is a read section of its
    /// shard.
    #[track_caller]
    pub fn iter(&'a self) -> Iter<'a, K, V, S, DashMap<K, V, S>> {
        self.iter_at(Location::caller())
    }

    /// An iterator of write guards, as dashmap's `iter_mut`: each item is a write section of
    /// its shard.
    #[track_caller]
    pub fn iter_mut(&'a self) -> IterMut<'a, K, V, S, DashMap<K, V, S>> {
        IterMut::new(self.inner.iter_mut(), self, Location::caller())
    }

    /// A read guard of `key`'s value, as dashmap's `get`.
    #[track_caller]
    pub fn get<Q>(&'a self, key: &Q) -> Option<Ref<'a, K, V>>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let (shard, at) = (self.shard(key), Location::caller());
        self.inner.get(key).map(|r| Ref::new(shard.read_hold(at), r))
    }

    /// A write guard of `key`'s value, as dashmap's `get_mut`.
    #[track_caller]
    pub fn get_mut<Q>(&'a self, key: &Q) -> Option<RefMut<'a, K, V>>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let (shard, at) = (self.shard(key), Location::caller());
        self.inner.get_mut(key).map(|r| RefMut::new(shard.write_hold(at), r))
    }

    /// As `get`, without waiting for the shard: as dashmap's `try_get`.
    #[track_caller]
    pub fn try_get<Q>(&'a self, key: &Q) -> TryResult<Ref<'a, K, V>>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let (shard, at) = (self.shard(key), Location::caller());
        match self.inner.try_get(key) {
            TryResult::Present(r) => TryResult::Present(Ref::new(shard.read_hold(at), r)),
            TryResult::Absent => TryResult::Absent,
            TryResult::Locked => TryResult::Locked,
        }
    }

    /// As `get_mut`, without waiting for the shard: as dashmap's `try_get_mut`.
    #[track_caller]
    pub fn try_get_mut<Q>(&'a self, key: &Q) -> TryResult<RefMut<'a, K, V>>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let (shard, at) = (self.shard(key), Location::caller());
        match self.inner.try_get_mut(key) {
            TryResult::Present(r) => TryResult::Present(RefMut::new(shard.write_hold(at), r)),
            TryResult::Absent => TryResult::Absent,
            TryResult::Locked => TryResult::Locked,
        }
    }

    /// As dashmap's `shrink_to_fit` (no value is read or written).
    pub fn shrink_to_fit(&self) {
        self.inner.shrink_to_fit()
    }

    fn retain_at(&self, mut f: impl FnMut(&K, &mut V) -> bool, at: Site) {
        self.inner.retain(|k, v| self.shard(k).writing(at, || f(k, v)))
    }

    /// Keeps the entries `f` says to (`f` runs in a write section of each entry's shard), as
    /// dashmap's `retain`.
    #[track_caller]
    pub fn retain(&self, f: impl FnMut(&K, &mut V) -> bool) {
        self.retain_at(f, Location::caller())
    }

    /// As dashmap's `len` (no value is read).
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// As dashmap's `is_empty` (no value is read).
    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// Removes every entry, each in a write section of its shard (its value dropped after
    /// every earlier section of the shard), as dashmap's `clear`.
    #[track_caller]
    pub fn clear(&self) {
        self.retain_at(|_, _| false, Location::caller())
    }

    /// As dashmap's `capacity`.
    pub fn capacity(&self) -> usize {
        self.inner.capacity()
    }

    /// Replaces `key`'s value by `f`'s (a write section of its shard), as dashmap's `alter`.
    #[track_caller]
    pub fn alter<Q>(&self, key: &Q, f: impl FnOnce(&K, V) -> V)
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let (shard, at) = (self.shard(key), Location::caller());
        self.inner.alter(key, |k, v| shard.writing(at, || f(k, v)))
    }

    /// Replaces every value by `f`'s (each in a write section of its shard), as dashmap's
    /// `alter_all`.
    #[track_caller]
    pub fn alter_all(&self, mut f: impl FnMut(&K, V) -> V) {
        let at = Location::caller();
        self.inner.alter_all(|k, v| self.shard(k).writing(at, || f(k, v)))
    }

    fn view_at<Q, R>(&self, key: &Q, f: impl FnOnce(&K, &V) -> R, at: Site) -> Option<R>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        let shard = self.shard(key);
        self.inner.view(key, |k, v| shard.reading(at, || f(k, v)))
    }

    /// `f` of `key`'s entry (a read section of its shard), as dashmap's `view`.
    #[track_caller]
    pub fn view<Q, R>(&self, key: &Q, f: impl FnOnce(&K, &V) -> R) -> Option<R>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.view_at(key, f, Location::caller())
    }

    /// Whether `key` is there (a read section of its shard, if it is), as dashmap's
    /// `contains_key`.
    #[track_caller]
    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.view_at(key, |_, _| (), Location::caller()).is_some()
    }

    fn entry_at(&'a self, key: K, at: Site) -> Entry<'a, K, V> {
        let shard = self.shard(&key);
        let entry = self.inner.entry(key);
        Entry::new(shard.write_hold(at), entry)
    }

    /// The entry of `key`, a write guard of its shard, as dashmap's `entry`.
    #[track_caller]
    pub fn entry(&'a self, key: K) -> Entry<'a, K, V> {
        self.entry_at(key, Location::caller())
    }

    /// As `entry`, without waiting for the shard: as dashmap's `try_entry`.
    #[track_caller]
    pub fn try_entry(&'a self, key: K) -> Option<Entry<'a, K, V>> {
        let (shard, at) = (self.shard(&key), Location::caller());
        let entry = self.inner.try_entry(key)?;
        Some(Entry::new(shard.write_hold(at), entry))
    }

    /// As dashmap's `try_reserve`.
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), TryReserveError> {
        self.inner.try_reserve(additional)
    }
}

impl<K: Eq + Hash + Clone, V: Clone, S: BuildHasher + Clone> Clone for DashMap<K, V, S> {
    /// A copy with the same hasher and shards, each entry read in a read section of its shard
    /// (and written into the copy in a write section of the copy's).
    #[track_caller]
    fn clone(&self) -> Self {
        let at = Location::caller();
        let inner = dm::DashMap::with_capacity_and_hasher_and_shard_amount(
            self.len(),
            self.inner.hasher().clone(),
            self.shards.len(),
        );
        let copy = DashMap::from_inner(inner, at);
        for r in self.iter_at(at) {
            copy.insert_at(r.key().clone(), r.value().clone(), at);
        }
        copy
    }
}

impl<K, V, S> Default for DashMap<K, V, S>
where
    K: Eq + Hash,
    S: Default + BuildHasher + Clone,
{
    #[track_caller]
    fn default() -> Self {
        Self::with_hasher(Default::default())
    }
}

impl<K: Eq + Hash + fmt::Debug, V: fmt::Debug, S: BuildHasher + Clone> fmt::Debug for DashMap<K, V, S> {
    /// As dashmap's: every entry, each read in a read section of its shard.
    #[track_caller]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut pmap = f.debug_map();
        for r in self.iter_at(Location::caller()) {
            let (k, v) = r.pair();
            pmap.entry(k, v);
        }
        pmap.finish()
    }
}

impl<'a, K: 'a + Eq + Hash, V: 'a, S: BuildHasher + Clone> Shl<(K, V)> for &'a DashMap<K, V, S> {
    type Output = Option<V>;

    #[track_caller]
    fn shl(self, pair: (K, V)) -> Self::Output {
        self.insert(pair.0, pair.1)
    }
}

impl<'a, K: 'a + Eq + Hash, V: 'a, S: BuildHasher + Clone, Q> Shr<&Q> for &'a DashMap<K, V, S>
where
    K: Borrow<Q>,
    Q: Hash + Eq + ?Sized,
{
    type Output = Ref<'a, K, V>;

    #[track_caller]
    fn shr(self, key: &Q) -> Self::Output {
        self.get(key).unwrap()
    }
}

impl<'a, K: 'a + Eq + Hash, V: 'a, S: BuildHasher + Clone, Q> BitOr<&Q> for &'a DashMap<K, V, S>
where
    K: Borrow<Q>,
    Q: Hash + Eq + ?Sized,
{
    type Output = RefMut<'a, K, V>;

    #[track_caller]
    fn bitor(self, key: &Q) -> Self::Output {
        self.get_mut(key).unwrap()
    }
}

impl<'a, K: 'a + Eq + Hash, V: 'a, S: BuildHasher + Clone, Q> Sub<&Q> for &'a DashMap<K, V, S>
where
    K: Borrow<Q>,
    Q: Hash + Eq + ?Sized,
{
    type Output = Option<(K, V)>;

    #[track_caller]
    fn sub(self, key: &Q) -> Self::Output {
        self.remove(key)
    }
}

impl<'a, K: 'a + Eq + Hash, V: 'a, S: BuildHasher + Clone, Q> BitAnd<&Q> for &'a DashMap<K, V, S>
where
    K: Borrow<Q>,
    Q: Hash + Eq + ?Sized,
{
    type Output = bool;

    #[track_caller]
    fn bitand(self, key: &Q) -> Self::Output {
        self.contains_key(key)
    }
}

impl<K: Eq + Hash, V, S: BuildHasher + Clone> IntoIterator for DashMap<K, V, S> {
    type Item = (K, V);

    type IntoIter = OwningIter<K, V, S>;

    /// The entries, the map consumed (every section of it so far happens before).
    #[track_caller]
    fn into_iter(self) -> Self::IntoIter {
        self.acquire_all(Location::caller());
        self.inner.into_iter()
    }
}

impl<'a, K: Eq + Hash, V, S: BuildHasher + Clone> IntoIterator for &'a DashMap<K, V, S> {
    type Item = RefMulti<'a, K, V>;

    type IntoIter = Iter<'a, K, V, S, DashMap<K, V, S>>;

    #[track_caller]
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<K: Eq + Hash, V, S: BuildHasher + Clone> Extend<(K, V)> for DashMap<K, V, S> {
    #[track_caller]
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, intoiter: I) {
        let at = Location::caller();
        for (k, v) in intoiter {
            self.insert_at(k, v, at);
        }
    }
}

impl<K: Eq + Hash, V, S: BuildHasher + Clone + Default> FromIterator<(K, V)> for DashMap<K, V, S> {
    #[track_caller]
    fn from_iter<I: IntoIterator<Item = (K, V)>>(intoiter: I) -> Self {
        let mut map = DashMap::default();
        map.extend(intoiter);
        map
    }
}
