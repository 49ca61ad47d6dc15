//! Guards of iterators' items, as `dashmap::mapref::multiple`.

use std::hash::Hash;
use std::ops::{Deref, DerefMut};

use dashmap_crate::mapref::multiple as dm;

use crate::dashmap::{ReadHold, WriteHold};

/// An item of `iter`, as `dashmap::mapref::multiple::RefMulti`: a read section of its shard
/// (which dashmap keeps locked for reading while an item of it is alive).
pub struct RefMulti<'a, K, V> {
    // Dropped first: the release happens while the shard is still locked.
    _hold: ReadHold<'a>,
    inner: dm::RefMulti<'a, K, V>,
}

impl<'a, K: Eq + Hash, V> RefMulti<'a, K, V> {
    pub(crate) fn new(hold: ReadHold<'a>, inner: dm::RefMulti<'a, K, V>) -> Self {
        RefMulti { _hold: hold, inner }
    }

    pub fn key(&self) -> &K {
        self.inner.key()
    }

    pub fn value(&self) -> &V {
        self.inner.value()
    }

    pub fn pair(&self) -> (&K, &V) {
        self.inner.pair()
    }
}

impl<K: Eq + Hash, V> Deref for RefMulti<'_, K, V> {
    type Target = V;

    fn deref(&self) -> &V {
        self.value()
    }
}

/// An item of `iter_mut`, as `dashmap::mapref::multiple::RefMutMulti`: a write section of its
/// shard (which dashmap keeps locked for writing while an item of it is alive).
pub struct RefMutMulti<'a, K, V> {
    // Dropped first: the release happens while the shard is still locked.
    _hold: WriteHold<'a>,
    inner: dm::RefMutMulti<'a, K, V>,
}

impl<'a, K: Eq + Hash, V> RefMutMulti<'a, K, V> {
    pub(crate) fn new(hold: WriteHold<'a>, inner: dm::RefMutMulti<'a, K, V>) -> Self {
        RefMutMulti { _hold: hold, inner }
    }

    pub fn key(&self) -> &K {
        self.inner.key()
    }

    pub fn value(&self) -> &V {
        self.inner.value()
    }

    pub fn value_mut(&mut self) -> &mut V {
        self.inner.value_mut()
    }

    pub fn pair(&self) -> (&K, &V) {
        self.inner.pair()
    }

    pub fn pair_mut(&mut self) -> (&K, &mut V) {
        self.inner.pair_mut()
    }
}

impl<K: Eq + Hash, V> Deref for RefMutMulti<'_, K, V> {
    type Target = V;

    fn deref(&self) -> &V {
        self.value()
    }
}

impl<K: Eq + Hash, V> DerefMut for RefMutMulti<'_, K, V> {
    fn deref_mut(&mut self) -> &mut V {
        self.value_mut()
    }
}
