//! `SetOnce`: tokio's set-once cell, its value stored with a clock of its own, as `OnceCell`'s:
//! the `set` that stores it releases into that clock first, and whatever reads the value (`get`
//! returning `Some`, `wait`, an `initialized` saying `true`) acquires it.

use std::fmt;
use std::future::Future;
use std::panic::Location;

use tokio_crate::sync as ts;
use tokio_crate::sync::SetOnceError;

use super::once_cell::Stored;

const OBJECT: &str = "tokio::sync::SetOnce";

/// A cell set at most once, which tasks can wait on, as `tokio::sync::SetOnce`.
pub struct SetOnce<T> {
    inner: ts::SetOnce<Stored<T>>,
}

impl<T> SetOnce<T> {
    /// An empty cell.
    pub fn new() -> Self {
        SetOnce { inner: ts::SetOnce::new() }
    }

    /// An empty cell, in a constant context.
    pub const fn const_new() -> Self {
        SetOnce { inner: ts::SetOnce::const_new() }
    }

    /// A cell holding `value`, if any.
    #[track_caller]
    pub fn new_with(value: Option<T>) -> Self {
        let at = Location::caller();
        SetOnce { inner: ts::SetOnce::new_with(value.map(|v| Stored::new(v, OBJECT, at))) }
    }

    /// A cell holding `value`, in a constant context (nothing to release: no task ran before).
    #[track_caller]
    pub const fn const_new_with(value: T) -> Self {
        SetOnce { inner: ts::SetOnce::const_new_with(Stored::initial(value, OBJECT)) }
    }

    /// Whether the cell holds a value; if it does, an acquire of its initialisation.
    #[track_caller]
    pub fn initialized(&self) -> bool {
        self.get_at(Location::caller()).is_some()
    }

    fn get_at(&self, at: &'static Location<'static>) -> Option<&T> {
        self.inner.get().map(|s| s.read(at))
    }

    /// The value, if set: an acquire of its initialisation.
    #[track_caller]
    pub fn get(&self) -> Option<&T> {
        self.get_at(Location::caller())
    }

    /// Stores `value` if the cell is empty, waking the waiters: as tokio's `set`.
    #[track_caller]
    pub fn set(&self, value: T) -> Result<(), SetOnceError<T>> {
        self.inner.set(Stored::new(value, OBJECT, Location::caller())).map_err(|e| SetOnceError(e.0.value))
    }

    /// The value, the cell consumed.
    pub fn into_inner(self) -> Option<T> {
        self.inner.into_inner().map(|s| s.value)
    }

    /// Waits for the value: as tokio's `wait`.
    #[track_caller]
    pub fn wait(&self) -> impl Future<Output = &T> + '_ {
        let at = Location::caller();
        async move { self.inner.wait().await.read(at) }
    }
}

impl<T> Default for SetOnce<T> {
    fn default() -> SetOnce<T> {
        SetOnce::new()
    }
}

impl<T: fmt::Debug> fmt::Debug for SetOnce<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SetOnce").field("value", &self.get()).finish()
    }
}

impl<T: Clone> Clone for SetOnce<T> {
    #[track_caller]
    fn clone(&self) -> SetOnce<T> {
        SetOnce::new_with(self.get().cloned())
    }
}

impl<T: PartialEq> PartialEq for SetOnce<T> {
    fn eq(&self, other: &SetOnce<T>) -> bool {
        self.get() == other.get()
    }
}

impl<T: Eq> Eq for SetOnce<T> {}

impl<T> From<T> for SetOnce<T> {
    #[track_caller]
    fn from(value: T) -> Self {
        SetOnce::new_with(Some(value))
    }
}
