//! As `dashmap::setref::one`.

use std::hash::Hash;
use std::ops::Deref;

use crate::dashmap::mapref;

/// A read guard of one entry of a set, as `dashmap::setref::one::Ref`: a read section of its shard.
pub struct Ref<'a, K> {
    inner: mapref::one::Ref<'a, K, ()>,
}

impl<'a, K: Eq + Hash> Ref<'a, K> {
    pub(crate) fn new(inner: mapref::one::Ref<'a, K, ()>) -> Self {
        Ref { inner }
    }

    pub fn key(&self) -> &K {
        self.inner.key()
    }
}

impl<K: Eq + Hash> Deref for Ref<'_, K> {
    type Target = K;

    fn deref(&self) -> &K {
        self.key()
    }
}
