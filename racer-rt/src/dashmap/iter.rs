//! Iterators of a map, as `dashmap::iter`: each item a section of its shard (found by its key).
//! `OwningIter` is dashmap's own: it owns the map, whose sections all happen before it.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hash};
use std::marker::PhantomData;

use dashmap_crate as dm;

pub use dashmap_crate::iter::OwningIter;

use super::mapref::multiple::{RefMulti, RefMutMulti};
use super::{DashMap, Site};

/// dashmap's iterator over dashmap's map.
type RawIter<'a, K, V, S> = dm::iter::Iter<'a, K, V, S, dm::DashMap<K, V, S>>;
type RawIterMut<'a, K, V, S> = dm::iter::IterMut<'a, K, V, S, dm::DashMap<K, V, S>>;

/// An iterator of read guards, as `dashmap::iter::Iter`: each item is a read section of its
/// shard. (`M` is the map's type, as dashmap's parameter.)
pub struct Iter<'a, K, V, S = RandomState, M = DashMap<K, V, S>> {
    inner: RawIter<'a, K, V, S>,
    map: &'a DashMap<K, V, S>,
    at: Site,
    _map: PhantomData<&'a M>,
}

impl<'a, K: Eq + Hash, V, S: 'a + BuildHasher + Clone, M> Iter<'a, K, V, S, M> {
    pub(crate) fn new(inner: RawIter<'a, K, V, S>, map: &'a DashMap<K, V, S>, at: Site) -> Self {
        Iter { inner, map, at, _map: PhantomData }
    }
}

impl<K: Clone + Hash + Eq, V: Clone, S: Clone + BuildHasher> Clone for Iter<'_, K, V, S> {
    fn clone(&self) -> Self {
        Iter { inner: self.inner.clone(), map: self.map, at: self.at, _map: PhantomData }
    }
}

impl<'a, K: Eq + Hash, V, S: 'a + BuildHasher + Clone, M> Iterator for Iter<'a, K, V, S, M> {
    type Item = RefMulti<'a, K, V>;

    fn next(&mut self) -> Option<Self::Item> {
        let item = self.inner.next()?;
        let hold = self.map.shard(item.key()).read_hold(self.at);
        Some(RefMulti::new(hold, item))
    }
}

/// An iterator of write guards, as `dashmap::iter::IterMut`: each item is a write section of its
/// shard.
pub struct IterMut<'a, K, V, S = RandomState, M = DashMap<K, V, S>> {
    inner: RawIterMut<'a, K, V, S>,
    map: &'a DashMap<K, V, S>,
    at: Site,
    _map: PhantomData<&'a M>,
}

impl<'a, K: Eq + Hash, V, S: 'a + BuildHasher + Clone, M> IterMut<'a, K, V, S, M> {
    pub(crate) fn new(inner: RawIterMut<'a, K, V, S>, map: &'a DashMap<K, V, S>, at: Site) -> Self {
        IterMut { inner, map, at, _map: PhantomData }
    }
}

impl<'a, K: Eq + Hash, V, S: 'a + BuildHasher + Clone, M> Iterator for IterMut<'a, K, V, S, M> {
    type Item = RefMutMulti<'a, K, V>;

    fn next(&mut self) -> Option<Self::Item> {
        let item = self.inner.next()?;
        let hold = self.map.shard(item.key()).write_hold(self.at);
        Some(RefMutMulti::new(hold, item))
    }
}
