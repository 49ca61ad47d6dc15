//! A hash map split into independently locked shards: the detector's process-wide tables
//! (interned stacks and sync events, park clocks), read by every thread, written rarely.
//!
//! Invariant: a key lives in the shard its hash picks, and values are handed out as clones,
//! so no lock is held once a method returns.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};

use crate::base::fast_hash::FastBuild;
use crate::base::lock::RwLock;

const SHARDS: usize = 16;

pub struct ShardedMap<K, V> {
    shards: [RwLock<HashMap<K, V, FastBuild>>; SHARDS],
}

impl<K: Hash + Eq, V: Clone> ShardedMap<K, V> {
    pub fn new() -> ShardedMap<K, V> {
        ShardedMap { shards: std::array::from_fn(|_| RwLock::new(HashMap::with_hasher(FastBuild))) }
    }

    fn shard<Q: Hash + ?Sized>(&self, key: &Q) -> &RwLock<HashMap<K, V, FastBuild>> {
        // The high bits: the low ones also pick the bucket inside the shard.
        &self.shards[(FastBuild.hash_one(key) >> 60) as usize % SHARDS]
    }

    pub fn get<Q: Hash + Eq + ?Sized>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.shard(key).read().get(key).cloned()
    }

    /// The value of `key`, made by `make` (under the shard's lock) if there is none yet.
    pub fn get_or_insert_with(&self, key: K, make: impl FnOnce() -> V) -> V {
        if let Some(v) = self.get(&key) {
            return v;
        }
        self.shard(&key).write().entry(key).or_insert_with(make).clone()
    }

    pub fn insert(&self, key: K, value: V) {
        self.shard(&key).write().insert(key, value);
    }

    pub fn remove<Q: Hash + Eq + ?Sized>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.shard(key).write().remove(key)
    }
}

impl<K: Hash + Eq, V: Clone> Default for ShardedMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}
