//! As `dashmap::setref::multiple`.

use std::hash::Hash;
use std::ops::Deref;

use crate::dashmap::mapref;

/// A read guard of an item of a set's `iter`, as `dashmap::setref::multiple::RefMulti`: a read section of its shard.
pub struct RefMulti<'a, K> {
    inner: mapref::multiple::RefMulti<'a, K, ()>,
}

impl<'a, K: Eq + Hash> RefMulti<'a, K> {
    pub(crate) fn new(inner: mapref::multiple::RefMulti<'a, K, ()>) -> Self {
        RefMulti { inner }
    }

    pub fn key(&self) -> &K {
        self.inner.key()
    }
}

impl<K: Eq + Hash> Deref for RefMulti<'_, K> {
    type Target = K;

    fn deref(&self) -> &K {
        self.key()
    }
}
