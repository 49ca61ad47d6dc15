//! Guards of one entry, as `dashmap::mapref::one`.

use std::fmt::{self, Debug, Display};
use std::hash::Hash;
use std::ops::{Deref, DerefMut};

use dashmap_crate::mapref::one as dm;

use crate::dashmap::{ReadHold, WriteHold};

/// A read guard of one entry, as `dashmap::mapref::one::Ref`: a read section of its shard
/// (every write section before it happens before it; it happens before the next).
pub struct Ref<'a, K, V> {
    // Dropped first: the release happens while the shard is still locked.
    hold: ReadHold<'a>,
    inner: dm::Ref<'a, K, V>,
}

impl<'a, K: Eq + Hash, V> Ref<'a, K, V> {
    pub(crate) fn new(hold: ReadHold<'a>, inner: dm::Ref<'a, K, V>) -> Self {
        Ref { hold, inner }
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

    /// A guard of a part of the value, the same section: as dashmap's `Ref::map`.
    pub fn map<F, T>(self, f: F) -> MappedRef<'a, K, V, T>
    where
        F: FnOnce(&V) -> &T,
    {
        MappedRef { hold: self.hold, inner: self.inner.map(f) }
    }

    /// As `map`, if `f` gives a part: as dashmap's `Ref::try_map`.
    pub fn try_map<F, T>(self, f: F) -> Result<MappedRef<'a, K, V, T>, Self>
    where
        F: FnOnce(&V) -> Option<&T>,
    {
        let Ref { hold, inner } = self;
        match inner.try_map(f) {
            Ok(inner) => Ok(MappedRef { hold, inner }),
            Err(inner) => Err(Ref { hold, inner }),
        }
    }
}

impl<K: Eq + Hash + Debug, V: Debug> Debug for Ref<'_, K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Debug::fmt(&self.inner, f)
    }
}

impl<K: Eq + Hash, V> Deref for Ref<'_, K, V> {
    type Target = V;

    fn deref(&self) -> &V {
        self.value()
    }
}

/// A write guard of one entry, as `dashmap::mapref::one::RefMut`: a write section of its shard
/// (every section before it happens before it, and it before every later one).
pub struct RefMut<'a, K, V> {
    // Dropped first: the release happens while the shard is still locked.
    hold: WriteHold<'a>,
    inner: dm::RefMut<'a, K, V>,
}

impl<'a, K: Eq + Hash, V> RefMut<'a, K, V> {
    pub(crate) fn new(hold: WriteHold<'a>, inner: dm::RefMut<'a, K, V>) -> Self {
        RefMut { hold, inner }
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

    /// A read guard of the entry: the write section so far happens before every later reader.
    pub fn downgrade(self) -> Ref<'a, K, V> {
        let RefMut { hold, inner } = self;
        Ref { hold: hold.downgrade(), inner: inner.downgrade() }
    }

    /// A guard of a part of the value, the same section: as dashmap's `RefMut::map`.
    pub fn map<F, T>(self, f: F) -> MappedRefMut<'a, K, V, T>
    where
        F: FnOnce(&mut V) -> &mut T,
    {
        MappedRefMut { hold: self.hold, inner: self.inner.map(f) }
    }

    /// As `map`, if `f` gives a part: as dashmap's `RefMut::try_map`.
    pub fn try_map<F, T>(self, f: F) -> Result<MappedRefMut<'a, K, V, T>, Self>
    where
        F: FnOnce(&mut V) -> Option<&mut T>,
    {
        let RefMut { hold, inner } = self;
        match inner.try_map(f) {
            Ok(inner) => Ok(MappedRefMut { hold, inner }),
            Err(inner) => Err(RefMut { hold, inner }),
        }
    }
}

impl<K: Eq + Hash + Debug, V: Debug> Debug for RefMut<'_, K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Debug::fmt(&self.inner, f)
    }
}

impl<K: Eq + Hash, V> Deref for RefMut<'_, K, V> {
    type Target = V;

    fn deref(&self) -> &V {
        self.value()
    }
}

impl<K: Eq + Hash, V> DerefMut for RefMut<'_, K, V> {
    fn deref_mut(&mut self) -> &mut V {
        self.value_mut()
    }
}

/// A read guard of a part of one entry's value, as `dashmap::mapref::one::MappedRef`: the
/// read section of the guard it was mapped from.
pub struct MappedRef<'a, K, V, T> {
    // Dropped first: the release happens while the shard is still locked.
    hold: ReadHold<'a>,
    inner: dm::MappedRef<'a, K, V, T>,
}

impl<'a, K: Eq + Hash, V, T> MappedRef<'a, K, V, T> {
    pub fn key(&self) -> &K {
        self.inner.key()
    }

    pub fn value(&self) -> &T {
        self.inner.value()
    }

    pub fn pair(&self) -> (&K, &T) {
        self.inner.pair()
    }

    /// As dashmap's `MappedRef::map`.
    pub fn map<F, T2>(self, f: F) -> MappedRef<'a, K, V, T2>
    where
        F: FnOnce(&T) -> &T2,
    {
        MappedRef { hold: self.hold, inner: self.inner.map(f) }
    }

    /// As dashmap's `MappedRef::try_map`.
    pub fn try_map<F, T2>(self, f: F) -> Result<MappedRef<'a, K, V, T2>, Self>
    where
        F: FnOnce(&T) -> Option<&T2>,
    {
        let MappedRef { hold, inner } = self;
        match inner.try_map(f) {
            Ok(inner) => Ok(MappedRef { hold, inner }),
            Err(inner) => Err(MappedRef { hold, inner }),
        }
    }
}

impl<K: Eq + Hash + Debug, V, T: Debug> Debug for MappedRef<'_, K, V, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Debug::fmt(&self.inner, f)
    }
}

impl<K: Eq + Hash, V, T> Deref for MappedRef<'_, K, V, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.value()
    }
}

impl<K: Eq + Hash, V, T: Display> Display for MappedRef<'_, K, V, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Display::fmt(&self.inner, f)
    }
}

impl<K: Eq + Hash, V, T: AsRef<TDeref>, TDeref: ?Sized> AsRef<TDeref> for MappedRef<'_, K, V, T> {
    fn as_ref(&self) -> &TDeref {
        self.value().as_ref()
    }
}

/// A write guard of a part of one entry's value, as `dashmap::mapref::one::MappedRefMut`: the
/// write section of the guard it was mapped from.
pub struct MappedRefMut<'a, K, V, T> {
    // Dropped first: the release happens while the shard is still locked.
    hold: WriteHold<'a>,
    inner: dm::MappedRefMut<'a, K, V, T>,
}

impl<'a, K: Eq + Hash, V, T> MappedRefMut<'a, K, V, T> {
    pub fn key(&self) -> &K {
        self.inner.key()
    }

    pub fn value(&self) -> &T {
        self.inner.value()
    }

    pub fn value_mut(&mut self) -> &mut T {
        self.inner.value_mut()
    }

    pub fn pair(&self) -> (&K, &T) {
        self.inner.pair()
    }

    pub fn pair_mut(&mut self) -> (&K, &mut T) {
        self.inner.pair_mut()
    }

    /// As dashmap's `MappedRefMut::map`.
    pub fn map<F, T2>(self, f: F) -> MappedRefMut<'a, K, V, T2>
    where
        F: FnOnce(&mut T) -> &mut T2,
    {
        MappedRefMut { hold: self.hold, inner: self.inner.map(f) }
    }

    /// As dashmap's `MappedRefMut::try_map`.
    pub fn try_map<F, T2>(self, f: F) -> Result<MappedRefMut<'a, K, V, T2>, Self>
    where
        F: FnOnce(&mut T) -> Option<&mut T2>,
    {
        let MappedRefMut { hold, inner } = self;
        match inner.try_map(f) {
            Ok(inner) => Ok(MappedRefMut { hold, inner }),
            Err(inner) => Err(MappedRefMut { hold, inner }),
        }
    }
}

impl<K: Eq + Hash + Debug, V, T: Debug> Debug for MappedRefMut<'_, K, V, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Debug::fmt(&self.inner, f)
    }
}

impl<K: Eq + Hash, V, T> Deref for MappedRefMut<'_, K, V, T> {
    type Target = T;

    fn deref(&self) -> &T {
        self.value()
    }
}

impl<K: Eq + Hash, V, T> DerefMut for MappedRefMut<'_, K, V, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.value_mut()
    }
}
