//! `DashSet`: this module's `DashMap` with `()` values, as dashmap's set is dashmap's map.

use std::borrow::Borrow;
use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::{BuildHasher, Hash};

use super::iter_set::{Iter, OwningIter};
use super::setref::one::Ref;
use super::DashMap;

/// A concurrent set, as `dashmap::DashSet`, over this module's `DashMap`: its guards (`get`,
/// `iter`'s items) are read sections of their shards, `insert`, `remove` and `retain`'s
/// closure write sections, ordered as the map's.
pub struct DashSet<K, S = RandomState> {
    inner: DashMap<K, (), S>,
}

impl<K: Eq + Hash + fmt::Debug, S: BuildHasher + Clone> fmt::Debug for DashSet<K, S> {
    #[track_caller]
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}

impl<K: Eq + Hash + Clone, S: BuildHasher + Clone> Clone for DashSet<K, S> {
    #[track_caller]
    fn clone(&self) -> Self {
        DashSet { inner: self.inner.clone() }
    }
}

impl<K, S> Default for DashSet<K, S>
where
    K: Eq + Hash,
    S: Default + BuildHasher + Clone,
{
    #[track_caller]
    fn default() -> Self {
        Self::with_hasher(Default::default())
    }
}

impl<K: Eq + Hash> DashSet<K, RandomState> {
    /// An empty set, as dashmap's `new`.
    #[track_caller]
    pub fn new() -> Self {
        Self::with_hasher(RandomState::default())
    }

    /// As dashmap's `with_capacity`.
    #[track_caller]
    pub fn with_capacity(capacity: usize) -> Self {
        Self::with_capacity_and_hasher(capacity, RandomState::default())
    }
}

impl<'a, K: 'a + Eq + Hash, S: BuildHasher + Clone> DashSet<K, S> {
    /// As dashmap's `with_hasher`.
    #[track_caller]
    pub fn with_hasher(hasher: S) -> Self {
        Self::with_capacity_and_hasher(0, hasher)
    }

    /// As dashmap's `with_capacity_and_hasher`.
    #[track_caller]
    pub fn with_capacity_and_hasher(capacity: usize, hasher: S) -> Self {
        DashSet { inner: DashMap::with_capacity_and_hasher(capacity, hasher) }
    }

    /// As dashmap's `hash_usize`.
    pub fn hash_usize<T: Hash>(&self, item: &T) -> usize {
        self.inner.hash_usize(item)
    }

    /// As dashmap's `determine_map` (`raw-api`).
    pub fn determine_map<Q>(&self, key: &Q) -> usize
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.inner.determine_map(key)
    }

    /// As dashmap's `determine_shard` (`raw-api`).
    pub fn determine_shard(&self, hash: usize) -> usize {
        self.inner.determine_shard(hash)
    }

    /// Inserts `key` (a write section of its shard), as dashmap's `insert`.
    #[track_caller]
    pub fn insert(&self, key: K) -> bool {
        self.inner.insert(key, ()).is_none()
    }

    /// Removes `key` (a write section of its shard), as dashmap's `remove`.
    #[track_caller]
    pub fn remove<Q>(&self, key: &Q) -> Option<K>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.inner.remove(key).map(|(k, _)| k)
    }

    /// As dashmap's `remove_if` (`f` runs in a write section of the key's shard).
    #[track_caller]
    pub fn remove_if<Q>(&self, key: &Q, f: impl FnOnce(&K) -> bool) -> Option<K>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.inner.remove_if(key, |k, _| f(k)).map(|(k, _)| k)
    }

    /// An iterator of read guards, as dashmap's `iter`.
    #[track_caller]
    pub fn iter(&'a self) -> Iter<'a, K, S, DashMap<K, (), S>> {
        Iter::new(self.inner.iter())
    }

    /// A read guard of `key`, as dashmap's `get`.
    #[track_caller]
    pub fn get<Q>(&'a self, key: &Q) -> Option<Ref<'a, K>>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.inner.get(key).map(Ref::new)
    }

    pub fn shrink_to_fit(&self) {
        self.inner.shrink_to_fit()
    }

    /// As dashmap's `retain` (`f` runs in a write section of each key's shard).
    #[track_caller]
    pub fn retain(&self, mut f: impl FnMut(&K) -> bool) {
        self.inner.retain(|k, _| f(k))
    }

    pub fn len(&self) -> usize {
        self.inner.len()
    }

    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    /// As dashmap's `clear` (each key removed in a write section of its shard).
    #[track_caller]
    pub fn clear(&self) {
        self.inner.clear()
    }

    pub fn capacity(&self) -> usize {
        self.inner.capacity()
    }

    /// Whether `key` is there (a read section of its shard, if it is), as dashmap's
    /// `contains`.
    #[track_caller]
    pub fn contains<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.inner.contains_key(key)
    }
}

impl<K: Eq + Hash, S: BuildHasher + Clone> IntoIterator for DashSet<K, S> {
    type Item = K;

    type IntoIter = OwningIter<K, S>;

    /// The keys, the set consumed (every section of it so far happens before).
    #[track_caller]
    fn into_iter(self) -> Self::IntoIter {
        OwningIter::new(self.inner.into_iter())
    }
}

impl<K: Eq + Hash, S: BuildHasher + Clone> Extend<K> for DashSet<K, S> {
    #[track_caller]
    fn extend<T: IntoIterator<Item = K>>(&mut self, iter: T) {
        self.inner.extend(iter.into_iter().map(|k| (k, ())))
    }
}

impl<K: Eq + Hash, S: BuildHasher + Clone + Default> FromIterator<K> for DashSet<K, S> {
    #[track_caller]
    fn from_iter<I: IntoIterator<Item = K>>(iter: I) -> Self {
        let mut set = DashSet::default();
        set.extend(iter);
        set
    }
}
