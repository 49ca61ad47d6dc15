//! `OnceCell`: tokio's cell, its value stored with a clock of its own. Whoever stores the value
//! (`set`, the `init` of `get_or_init`, ...) releases into that clock before storing it, and
//! whatever reads the value acquires it: each reader is ordered after the initialisation it sees
//! (and after no attempt that lost).

use std::fmt;
use std::future::Future;
use std::panic::Location;

use racer_core::task::HandOff;
use tokio_crate::sync as ts;
use tokio_crate::sync::SetError;

const OBJECT: &str = "tokio::sync::OnceCell";

/// A value and the clock its initialisation released into (also `SetOnce`'s).
pub(super) struct Stored<T> {
    pub(super) value: T,
    hand: HandOff,
}

impl<T> Stored<T> {
    /// `value` of a cell of kind `object`, about to be stored at `at`: the release of the
    /// initialisation.
    pub(super) fn new(value: T, object: &'static str, at: &'static Location<'static>) -> Stored<T> {
        let hand = HandOff::scheduled(object, at);
        hand.release("initialising", at);
        Stored { value, hand }
    }

    /// As `new`, in a constant context, for a value no task stored (nothing to release).
    #[track_caller]
    pub(super) const fn initial(value: T, object: &'static str) -> Stored<T> {
        Stored { value, hand: HandOff::scheduled(object, Location::caller()) }
    }

    /// The value, read at `at`: an acquire of its initialisation.
    pub(super) fn read(&self, at: &'static Location<'static>) -> &T {
        self.hand.acquire("observing", at);
        &self.value
    }
}

/// A cell initialised at most once, asynchronously, as `tokio::sync::OnceCell`.
pub struct OnceCell<T> {
    inner: ts::OnceCell<Stored<T>>,
}

fn set_error<T>(e: SetError<Stored<T>>) -> SetError<T> {
    match e {
        SetError::AlreadyInitializedError(s) => SetError::AlreadyInitializedError(s.value),
        SetError::InitializingError(s) => SetError::InitializingError(s.value),
    }
}

impl<T> OnceCell<T> {
    /// An empty cell.
    pub fn new() -> Self {
        OnceCell { inner: ts::OnceCell::new() }
    }

    /// An empty cell, in a constant context.
    pub const fn const_new() -> Self {
        OnceCell { inner: ts::OnceCell::const_new() }
    }

    /// A cell holding `value`, if any.
    #[track_caller]
    pub fn new_with(value: Option<T>) -> Self {
        let at = Location::caller();
        OnceCell { inner: ts::OnceCell::new_with(value.map(|v| Stored::new(v, OBJECT, at))) }
    }

    /// A cell holding `value`, in a constant context (nothing to release: no task ran before).
    #[track_caller]
    pub const fn const_new_with(value: T) -> Self {
        OnceCell { inner: ts::OnceCell::const_new_with(Stored::initial(value, OBJECT)) }
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

    /// A mutable reference to the value, if set: the borrow is exclusive.
    pub fn get_mut(&mut self) -> Option<&mut T> {
        self.inner.get_mut().map(|s| &mut s.value)
    }

    /// Stores `value` if the cell is empty and not being initialised: as tokio's `set`.
    #[track_caller]
    pub fn set(&self, value: T) -> Result<(), SetError<T>> {
        self.inner.set(Stored::new(value, OBJECT, Location::caller())).map_err(set_error)
    }

    /// The value, initialised by `f` if the cell is empty: as tokio's `get_or_init`.
    #[track_caller]
    pub fn get_or_init<'a, F, Fut>(&'a self, f: F) -> impl Future<Output = &'a T> + use<'a, T, F, Fut>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = T>,
    {
        let at = Location::caller();
        async move {
            let stored = self.inner.get_or_init(|| async move { Stored::new(f().await, OBJECT, at) }).await;
            stored.read(at)
        }
    }

    /// As `get_or_init`, with an initialisation that may fail: as tokio's `get_or_try_init`.
    #[track_caller]
    pub fn get_or_try_init<'a, E, F, Fut>(
        &'a self,
        f: F,
    ) -> impl Future<Output = Result<&'a T, E>> + use<'a, T, E, F, Fut>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let at = Location::caller();
        async move {
            let stored = self
                .inner
                .get_or_try_init(|| async move { f().await.map(|value| Stored::new(value, OBJECT, at)) })
                .await?;
            Ok(stored.read(at))
        }
    }

    /// The value, the cell consumed.
    pub fn into_inner(self) -> Option<T> {
        self.inner.into_inner().map(|s| s.value)
    }

    /// Takes the value out, leaving the cell empty.
    pub fn take(&mut self) -> Option<T> {
        self.inner.take().map(|s| s.value)
    }
}

impl<T> Default for OnceCell<T> {
    fn default() -> OnceCell<T> {
        OnceCell::new()
    }
}

impl<T: fmt::Debug> fmt::Debug for OnceCell<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OnceCell").field("value", &self.get()).finish()
    }
}

impl<T: Clone> Clone for OnceCell<T> {
    #[track_caller]
    fn clone(&self) -> OnceCell<T> {
        OnceCell::new_with(self.get().cloned())
    }
}

impl<T: PartialEq> PartialEq for OnceCell<T> {
    fn eq(&self, other: &OnceCell<T>) -> bool {
        self.get() == other.get()
    }
}

impl<T: Eq> Eq for OnceCell<T> {}

impl<T> From<T> for OnceCell<T> {
    #[track_caller]
    fn from(value: T) -> Self {
        OnceCell::new_with(Some(value))
    }
}
