//! Entries, as `dashmap::mapref::entry`: each holds its shard for writing, a write section.

use std::hash::Hash;

use dashmap_crate::mapref::entry as dm;

use super::one::RefMut;
use crate::dashmap::WriteHold;

/// An entry of a map, as `dashmap::mapref::entry::Entry`: a write section of its shard, from
/// `entry` to the drop of the entry or of the guard it becomes.
pub enum Entry<'a, K, V> {
    Occupied(OccupiedEntry<'a, K, V>),
    Vacant(VacantEntry<'a, K, V>),
}

impl<'a, K: Eq + Hash, V> Entry<'a, K, V> {
    pub(crate) fn new(hold: WriteHold<'a>, inner: dm::Entry<'a, K, V>) -> Self {
        match inner {
            dm::Entry::Occupied(inner) => Entry::Occupied(OccupiedEntry { hold, inner }),
            dm::Entry::Vacant(inner) => Entry::Vacant(VacantEntry { hold, inner }),
        }
    }

    /// As dashmap's `Entry::and_modify`.
    pub fn and_modify(self, f: impl FnOnce(&mut V)) -> Self {
        match self {
            Entry::Occupied(mut entry) => {
                f(entry.get_mut());
                Entry::Occupied(entry)
            }
            Entry::Vacant(entry) => Entry::Vacant(entry),
        }
    }

    pub fn key(&self) -> &K {
        match self {
            Entry::Occupied(entry) => entry.key(),
            Entry::Vacant(entry) => entry.key(),
        }
    }

    pub fn into_key(self) -> K {
        match self {
            Entry::Occupied(entry) => entry.into_key(),
            Entry::Vacant(entry) => entry.into_key(),
        }
    }

    /// As dashmap's `Entry::or_default`.
    pub fn or_default(self) -> RefMut<'a, K, V>
    where
        V: Default,
    {
        self.or_insert_with(V::default)
    }

    /// As dashmap's `Entry::or_insert`.
    pub fn or_insert(self, value: V) -> RefMut<'a, K, V> {
        self.or_insert_with(|| value)
    }

    /// As dashmap's `Entry::or_insert_with`.
    pub fn or_insert_with(self, value: impl FnOnce() -> V) -> RefMut<'a, K, V> {
        match self {
            Entry::Occupied(entry) => entry.into_ref(),
            Entry::Vacant(entry) => entry.insert(value()),
        }
    }

    /// As dashmap's `Entry::or_try_insert_with`.
    pub fn or_try_insert_with<E>(self, value: impl FnOnce() -> Result<V, E>) -> Result<RefMut<'a, K, V>, E> {
        match self {
            Entry::Occupied(entry) => Ok(entry.into_ref()),
            Entry::Vacant(entry) => Ok(entry.insert(value()?)),
        }
    }

    /// As dashmap's `Entry::insert`.
    pub fn insert(self, value: V) -> RefMut<'a, K, V> {
        match self {
            Entry::Occupied(mut entry) => {
                entry.insert(value);
                entry.into_ref()
            }
            Entry::Vacant(entry) => entry.insert(value),
        }
    }

    /// As dashmap's `Entry::insert_entry`.
    pub fn insert_entry(self, value: V) -> OccupiedEntry<'a, K, V>
    where
        K: Clone,
    {
        match self {
            Entry::Occupied(mut entry) => {
                entry.insert(value);
                entry
            }
            Entry::Vacant(entry) => entry.insert_entry(value),
        }
    }
}

/// An entry with no value, as `dashmap::mapref::entry::VacantEntry`: a write section of its
/// shard.
pub struct VacantEntry<'a, K, V> {
    // Dropped first: the release happens while the shard is still locked.
    hold: WriteHold<'a>,
    inner: dm::VacantEntry<'a, K, V>,
}

impl<'a, K: Eq + Hash, V> VacantEntry<'a, K, V> {
    /// Inserts `value`; the guard returned goes on with the same section.
    pub fn insert(self, value: V) -> RefMut<'a, K, V> {
        RefMut::new(self.hold, self.inner.insert(value))
    }

    /// As `insert`, an entry returned: as dashmap's `VacantEntry::insert_entry`.
    pub fn insert_entry(self, value: V) -> OccupiedEntry<'a, K, V>
    where
        K: Clone,
    {
        OccupiedEntry { hold: self.hold, inner: self.inner.insert_entry(value) }
    }

    pub fn into_key(self) -> K {
        let VacantEntry { hold, inner } = self;
        drop(hold);
        inner.into_key()
    }

    pub fn key(&self) -> &K {
        self.inner.key()
    }
}

/// An entry with a value, as `dashmap::mapref::entry::OccupiedEntry`: a write section of its
/// shard.
pub struct OccupiedEntry<'a, K, V> {
    // Dropped first: the release happens while the shard is still locked.
    hold: WriteHold<'a>,
    inner: dm::OccupiedEntry<'a, K, V>,
}

impl<'a, K: Eq + Hash, V> OccupiedEntry<'a, K, V> {
    pub fn get(&self) -> &V {
        self.inner.get()
    }

    pub fn get_mut(&mut self) -> &mut V {
        self.inner.get_mut()
    }

    pub fn insert(&mut self, value: V) -> V {
        self.inner.insert(value)
    }

    /// The entry's guard; it goes on with the same section.
    pub fn into_ref(self) -> RefMut<'a, K, V> {
        RefMut::new(self.hold, self.inner.into_ref())
    }

    pub fn into_key(self) -> K {
        let OccupiedEntry { hold, inner } = self;
        drop(hold);
        inner.into_key()
    }

    pub fn key(&self) -> &K {
        self.inner.key()
    }

    /// Removes the entry: the section ends (its release) just before dashmap's removal, which
    /// lets go of the shard.
    pub fn remove(self) -> V {
        let OccupiedEntry { hold, inner } = self;
        drop(hold);
        inner.remove()
    }

    /// As `remove`, the key too.
    pub fn remove_entry(self) -> (K, V) {
        let OccupiedEntry { hold, inner } = self;
        drop(hold);
        inner.remove_entry()
    }

    /// As dashmap's `OccupiedEntry::replace_entry`: the section ends as for `remove`.
    pub fn replace_entry(self, value: V) -> (K, V) {
        let OccupiedEntry { hold, inner } = self;
        drop(hold);
        inner.replace_entry(value)
    }
}
