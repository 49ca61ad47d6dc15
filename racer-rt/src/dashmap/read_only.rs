//! `ReadOnlyView`: dashmap's view, and the clocks of the map it came from (for `into_inner`).

use std::borrow::Borrow;
use std::collections::hash_map::RandomState;
use std::fmt;
use std::hash::{BuildHasher, Hash};
use std::panic::Location;

use dashmap_crate as dm;

use super::{DashMap, ShardClocks};

/// A read-only view of a map, as `dashmap::ReadOnlyView`: no guard, no lock. Made from an
/// owned map (`into_read_only`, after every section of the map), and shared as any value is.
pub struct ReadOnlyView<K, V, S = RandomState> {
    pub(crate) inner: dm::ReadOnlyView<K, V, S>,
    pub(crate) shards: Box<[ShardClocks]>,
}

impl<K: Eq + Hash + Clone, V: Clone, S: Clone> Clone for ReadOnlyView<K, V, S> {
    #[track_caller]
    fn clone(&self) -> Self {
        ReadOnlyView {
            inner: self.inner.clone(),
            shards: ShardClocks::for_shards(self.shards.len(), Location::caller()),
        }
    }
}

impl<K: Eq + Hash + fmt::Debug, V: fmt::Debug, S: BuildHasher + Clone> fmt::Debug for ReadOnlyView<K, V, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}

impl<K, V, S> ReadOnlyView<K, V, S> {
    /// The map back, with its clocks.
    pub fn into_inner(self) -> DashMap<K, V, S> {
        DashMap { inner: self.inner.into_inner(), shards: self.shards }
    }
}

impl<'a, K: 'a + Eq + Hash, V: 'a, S: BuildHasher + Clone> ReadOnlyView<K, V, S> {
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    pub fn is_empty(&self) -> bool {
        self.inner.is_empty()
    }

    pub fn capacity(&self) -> usize {
        self.inner.capacity()
    }

    pub fn contains_key<Q>(&'a self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.inner.contains_key(key)
    }

    pub fn get<Q>(&'a self, key: &Q) -> Option<&'a V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.inner.get(key)
    }

    pub fn get_key_value<Q>(&'a self, key: &Q) -> Option<(&'a K, &'a V)>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.inner.get_key_value(key)
    }

    pub fn iter(&'a self) -> impl Iterator<Item = (&'a K, &'a V)> + 'a {
        self.inner.iter()
    }

    pub fn keys(&'a self) -> impl Iterator<Item = &'a K> + 'a {
        self.inner.keys()
    }

    pub fn values(&'a self) -> impl Iterator<Item = &'a V> + 'a {
        self.inner.values()
    }
}
