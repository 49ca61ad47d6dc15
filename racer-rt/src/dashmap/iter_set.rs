//! Iterators of a set, as `dashmap::iter_set`: over the map's iterators.

use std::hash::{BuildHasher, Hash};

use dashmap_crate as dm;

use super::setref::multiple::RefMulti;

/// The keys of a set, its consumed: as `dashmap::iter_set::OwningIter`.
pub struct OwningIter<K, S> {
    inner: dm::iter::OwningIter<K, (), S>,
}

impl<K: Eq + Hash, S: BuildHasher + Clone> OwningIter<K, S> {
    pub(crate) fn new(inner: dm::iter::OwningIter<K, (), S>) -> Self {
        OwningIter { inner }
    }
}

impl<K: Eq + Hash, S: BuildHasher + Clone> Iterator for OwningIter<K, S> {
    type Item = K;

    fn next(&mut self) -> Option<K> {
        self.inner.next().map(|(k, ())| k)
    }
}

/// An iterator of a set's read guards, as `dashmap::iter_set::Iter`: each item is a read
/// section of its shard.
pub struct Iter<'a, K, S, M> {
    inner: crate::dashmap::iter::Iter<'a, K, (), S, M>,
}

impl<'a, K: Eq + Hash, S: 'a + BuildHasher + Clone, M> Iter<'a, K, S, M> {
    pub(crate) fn new(inner: crate::dashmap::iter::Iter<'a, K, (), S, M>) -> Self {
        Iter { inner }
    }
}

impl<'a, K: Eq + Hash, S: 'a + BuildHasher + Clone, M> Iterator for Iter<'a, K, S, M> {
    type Item = RefMulti<'a, K>;

    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next().map(RefMulti::new)
    }
}
