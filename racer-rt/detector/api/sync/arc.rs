//! `racer::sync::Arc` and `Weak`: std's reference-counted pointer, whose allocation also
//! carries a clock. Every drop of a strong reference posts into it; the drop that frees the
//! value waits on it first (in `ArcInner`'s own `Drop`, which runs before the value's), so the
//! value's drop is ordered after every thread's last use. Taking the value out (`try_unwrap`,
//! `into_inner`) or getting `&mut` to it (`get_mut`, `make_mut`) waits the same way.
//!
//! Unlike std's, a racer `Arc<T>` cannot be coerced to `Arc<dyn Trait>` or `Arc<[T]>` (that
//! needs the unstable `CoerceUnsized`); `Arc<[T]>` and `Arc<str>` come from the `From` impls.

use std::alloc::Layout;
use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::mem::ManuallyDrop;
use std::ops::Deref;
use std::panic::{Location, RefUnwindSafe, UnwindSafe};
use std::pin::Pin;
use std::ptr;

use crate::runtime::sync_clock::SyncClock;
use crate::runtime::sync_object::{kind, SyncObject};

/// The shared allocation: the value and the clock its strong references post into.
///
/// Invariant: `sync.clock` is the join of the clocks of every strong reference dropped so far.
/// `repr(C)` with the value last, so the value's offset is known for the raw-pointer methods
/// and the slice constructors.
#[repr(C)]
struct ArcInner<T: ?Sized> {
    sync: SyncObject<kind::Arc, SyncClock>,
    value: T,
}

impl<T: ?Sized> ArcInner<T> {
    /// The wait before the value changes hands for good.
    fn acquire(&self, at: &'static Location<'static>) {
        self.sync.clock.wait(self.sync.event("taking the value of", at));
    }
}

impl<T: ?Sized> Drop for ArcInner<T> {
    /// Runs when the last strong reference is gone, before the value's own drop.
    #[track_caller]
    fn drop(&mut self) {
        self.sync.clock.wait(self.sync.event("freeing the value of", Location::caller()));
    }
}

impl<T: Clone> Clone for ArcInner<T> {
    /// For `make_mut`'s copy: a new allocation, with a fresh clock.
    fn clone(&self) -> ArcInner<T> {
        ArcInner { sync: SyncObject::new(SyncClock::new(), self.sync.created), value: self.value.clone() }
    }
}

/// Moves the value out of an allocation nobody else can reach, without running the wait in
/// `ArcInner::drop` again (the caller has waited).
fn into_value<T>(inner: ArcInner<T>) -> T {
    let inner = ManuallyDrop::new(inner);
    // SAFETY: `inner` is never used or dropped again; each field is read exactly once.
    unsafe {
        drop(ptr::read(&inner.sync));
        ptr::read(&inner.value)
    }
}

/// A thread-safe reference-counting pointer, as `std::sync::Arc`.
pub struct Arc<T: ?Sized> {
    inner: std::sync::Arc<ArcInner<T>>,
}

/// A non-owning reference to an `Arc`'s allocation, as `std::sync::Weak`.
#[repr(transparent)]
pub struct Weak<T: ?Sized> {
    inner: std::sync::Weak<ArcInner<T>>,
}

impl<T: RefUnwindSafe + ?Sized> UnwindSafe for Arc<T> {}
impl<T: RefUnwindSafe + ?Sized> RefUnwindSafe for Arc<T> {}

impl<T> Arc<T> {
    #[track_caller]
    pub fn new(data: T) -> Arc<T> {
        Arc {
            inner: std::sync::Arc::new(ArcInner {
                sync: SyncObject::new(SyncClock::new(), Location::caller()),
                value: data,
            }),
        }
    }

    #[track_caller]
    pub fn new_cyclic<F>(data_fn: F) -> Arc<T>
    where
        F: FnOnce(&Weak<T>) -> T,
    {
        let created = Location::caller();
        let inner = std::sync::Arc::new_cyclic(|weak: &std::sync::Weak<ArcInner<T>>| {
            // SAFETY: `Weak` is `repr(transparent)` over `std::sync::Weak<ArcInner<T>>`.
            let weak = unsafe { &*(weak as *const std::sync::Weak<ArcInner<T>> as *const Weak<T>) };
            ArcInner { sync: SyncObject::new(SyncClock::new(), created), value: data_fn(weak) }
        });
        Arc { inner }
    }

    #[track_caller]
    pub fn pin(data: T) -> Pin<Arc<T>> {
        // SAFETY: the value lives in the shared allocation and is never moved out of it while
        // pinned (the methods that move it out take the `Arc` by value).
        unsafe { Pin::new_unchecked(Arc::new(data)) }
    }

    /// Returns the value if this is the only strong reference; otherwise gives `this` back.
    #[track_caller]
    pub fn try_unwrap(this: Arc<T>) -> Result<T, Arc<T>> {
        let at = Location::caller();
        match std::sync::Arc::try_unwrap(Arc::into_std(this)) {
            Ok(inner) => {
                inner.acquire(at);
                Ok(into_value(inner))
            }
            Err(inner) => Err(Arc { inner }),
        }
    }

    /// Returns the value if this is the last strong reference; otherwise drops this one.
    #[track_caller]
    pub fn into_inner(this: Arc<T>) -> Option<T> {
        let at = Location::caller();
        // Whichever caller turns out last waits on this one, as for a drop.
        this.inner.sync.clock.post(this.inner.sync.event("dropping", at));
        let inner = std::sync::Arc::into_inner(Arc::into_std(this))?;
        inner.acquire(at);
        Some(into_value(inner))
    }

    #[track_caller]
    pub fn unwrap_or_clone(this: Arc<T>) -> T
    where
        T: Clone,
    {
        Arc::try_unwrap(this).unwrap_or_else(|arc| (*arc).clone())
    }

    /// Offset of the value inside the allocation, for the raw-pointer methods.
    const VALUE_OFFSET: usize = std::mem::offset_of!(ArcInner<T>, value);

    /// # Safety
    /// As `std::sync::Arc::from_raw`: `ptr` came from `Arc::<T>::into_raw` of this type.
    pub unsafe fn from_raw(ptr: *const T) -> Arc<T> {
        let inner = (ptr as *const u8).wrapping_sub(Self::VALUE_OFFSET) as *const ArcInner<T>;
        Arc { inner: std::sync::Arc::from_raw(inner) }
    }

    /// # Safety
    /// As `std::sync::Arc::increment_strong_count`.
    pub unsafe fn increment_strong_count(ptr: *const T) {
        let arc = ManuallyDrop::new(Arc::from_raw(ptr));
        let _clone: ManuallyDrop<Arc<T>> = arc.clone();
    }

    /// # Safety
    /// As `std::sync::Arc::decrement_strong_count`. Counts as a drop.
    #[track_caller]
    pub unsafe fn decrement_strong_count(ptr: *const T) {
        drop(Arc::from_raw(ptr));
    }
}

impl<T: ?Sized> Arc<T> {
    /// Takes the `std::sync::Arc` out without running racer's drop (no post).
    fn into_std(this: Arc<T>) -> std::sync::Arc<ArcInner<T>> {
        let this = ManuallyDrop::new(this);
        // SAFETY: `this` is never used or dropped again.
        unsafe { ptr::read(&this.inner) }
    }

    pub fn into_raw(this: Arc<T>) -> *const T {
        // The strong count moves into the pointer.
        let p = Arc::as_ptr(&this);
        std::mem::forget(Arc::into_std(this));
        p
    }

    pub fn as_ptr(this: &Arc<T>) -> *const T {
        &this.inner.value as *const T
    }

    pub fn downgrade(this: &Arc<T>) -> Weak<T> {
        Weak { inner: std::sync::Arc::downgrade(&this.inner) }
    }

    pub fn weak_count(this: &Arc<T>) -> usize {
        std::sync::Arc::weak_count(&this.inner)
    }

    pub fn strong_count(this: &Arc<T>) -> usize {
        std::sync::Arc::strong_count(&this.inner)
    }

    pub fn ptr_eq(this: &Arc<T>, other: &Arc<T>) -> bool {
        std::sync::Arc::ptr_eq(&this.inner, &other.inner)
    }

    /// `&mut` to the value if this is the only reference; waits on every earlier drop.
    #[track_caller]
    pub fn get_mut(this: &mut Arc<T>) -> Option<&mut T> {
        let at = Location::caller();
        let inner = std::sync::Arc::get_mut(&mut this.inner)?;
        inner.acquire(at);
        Some(&mut inner.value)
    }
}

impl<T: Clone> Arc<T> {
    /// As std's: clones the value into a new allocation unless this is the only strong
    /// reference. Posts first, since this reference may be let go of (as in a drop).
    #[track_caller]
    pub fn make_mut(this: &mut Arc<T>) -> &mut T {
        let at = Location::caller();
        this.inner.sync.clock.post(this.inner.sync.event("dropping", at));
        let inner = std::sync::Arc::make_mut(&mut this.inner);
        inner.acquire(at);
        &mut inner.value
    }
}

/// Builds the allocation for a slice of `len` elements, which `fill` writes in place.
fn new_slice<T>(
    len: usize,
    created: &'static Location<'static>,
    fill: impl FnOnce(*mut T),
) -> std::sync::Arc<ArcInner<[T]>> {
    // Field by field, as `repr(C)` lays `ArcInner<[T]>` out.
    let layout = Layout::new::<SyncObject<kind::Arc, SyncClock>>();
    let (layout, value_at) = layout.extend(Layout::array::<T>(len).expect("slice too large")).expect("slice too large");
    let layout = layout.pad_to_align();
    // SAFETY: `layout` has non-zero size (the clock); every field is written before the box
    // is made; the fat pointer carries `len`, so the box's layout is `layout`.
    unsafe {
        let mem = std::alloc::alloc(layout);
        if mem.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        ptr::write(mem as *mut SyncObject<kind::Arc, SyncClock>, SyncObject::new(SyncClock::new(), created));
        fill(mem.add(value_at) as *mut T);
        let fat = ptr::slice_from_raw_parts_mut(mem as *mut T, len) as *mut ArcInner<[T]>;
        std::sync::Arc::from(Box::from_raw(fat))
    }
}

impl<T> From<Vec<T>> for Arc<[T]> {
    #[track_caller]
    fn from(mut v: Vec<T>) -> Arc<[T]> {
        let len = v.len();
        let inner = new_slice(len, Location::caller(), |dst| {
            // SAFETY: the elements move into `dst`; `v` forgets them before freeing its buffer.
            unsafe {
                ptr::copy_nonoverlapping(v.as_ptr(), dst, len);
                v.set_len(0);
            }
        });
        Arc { inner }
    }
}

impl<T: Clone> From<&[T]> for Arc<[T]> {
    #[track_caller]
    fn from(v: &[T]) -> Arc<[T]> {
        Arc::from(v.to_vec())
    }
}

impl<T> FromIterator<T> for Arc<[T]> {
    #[track_caller]
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Arc<[T]> {
        Arc::from(iter.into_iter().collect::<Vec<T>>())
    }
}

impl<T> Default for Arc<[T]> {
    #[track_caller]
    fn default() -> Arc<[T]> {
        Arc::from(Vec::new())
    }
}

impl From<&str> for Arc<str> {
    #[track_caller]
    fn from(s: &str) -> Arc<str> {
        let bytes: Arc<[u8]> = Arc::from(s.as_bytes());
        let raw = std::sync::Arc::into_raw(Arc::<[u8]>::into_std(bytes)) as *const ArcInner<str>;
        // SAFETY: same allocation and length metadata; the bytes are valid UTF-8.
        Arc { inner: unsafe { std::sync::Arc::from_raw(raw) } }
    }
}

impl From<String> for Arc<str> {
    #[track_caller]
    fn from(s: String) -> Arc<str> {
        Arc::from(&s[..])
    }
}

impl Default for Arc<str> {
    #[track_caller]
    fn default() -> Arc<str> {
        Arc::from("")
    }
}

impl<T> From<T> for Arc<T> {
    #[track_caller]
    fn from(t: T) -> Arc<T> {
        Arc::new(t)
    }
}

impl<T> From<Box<T>> for Arc<T> {
    #[track_caller]
    fn from(b: Box<T>) -> Arc<T> {
        Arc::new(*b)
    }
}

impl<T: Default> Default for Arc<T> {
    #[track_caller]
    fn default() -> Arc<T> {
        Arc::new(T::default())
    }
}

impl<T: ?Sized> Clone for Arc<T> {
    fn clone(&self) -> Arc<T> {
        Arc { inner: self.inner.clone() }
    }
}

impl<T: ?Sized> Deref for Arc<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner.value
    }
}

impl<T: ?Sized> Drop for Arc<T> {
    /// Posts, then lets std decrement the count (and, if last, free the value after
    /// `ArcInner::drop` waits).
    #[track_caller]
    fn drop(&mut self) {
        self.inner.sync.clock.post(self.inner.sync.event("dropping", Location::caller()));
    }
}

impl<T: ?Sized> AsRef<T> for Arc<T> {
    fn as_ref(&self) -> &T {
        self
    }
}

impl<T: ?Sized> Borrow<T> for Arc<T> {
    fn borrow(&self) -> &T {
        self
    }
}

impl<T: ?Sized + PartialEq> PartialEq for Arc<T> {
    fn eq(&self, other: &Arc<T>) -> bool {
        **self == **other
    }
}

impl<T: ?Sized + Eq> Eq for Arc<T> {}

impl<T: ?Sized + PartialOrd> PartialOrd for Arc<T> {
    fn partial_cmp(&self, other: &Arc<T>) -> Option<Ordering> {
        (**self).partial_cmp(&**other)
    }
}

impl<T: ?Sized + Ord> Ord for Arc<T> {
    fn cmp(&self, other: &Arc<T>) -> Ordering {
        (**self).cmp(&**other)
    }
}

impl<T: ?Sized + Hash> Hash for Arc<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

impl<T: ?Sized + fmt::Display> fmt::Display for Arc<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl<T: ?Sized + fmt::Debug> fmt::Debug for Arc<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: ?Sized> fmt::Pointer for Arc<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Pointer::fmt(&Arc::as_ptr(self), f)
    }
}

impl<T: ?Sized + std::error::Error> std::error::Error for Arc<T> {
    #[allow(deprecated)]
    fn description(&self) -> &str {
        std::error::Error::description(&**self)
    }

    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&**self)
    }
}

impl<T> Weak<T> {
    /// A `Weak` to nothing: `upgrade` always gives `None`.
    pub const fn new() -> Weak<T> {
        Weak { inner: std::sync::Weak::new() }
    }

    /// A pointer to the value (dangling for `Weak::new`), as std's.
    pub fn as_ptr(&self) -> *const T {
        (std::sync::Weak::as_ptr(&self.inner) as *const u8).wrapping_add(Arc::<T>::VALUE_OFFSET) as *const T
    }

    pub fn into_raw(self) -> *const T {
        let p = self.as_ptr();
        std::mem::forget(self);
        p
    }

    /// # Safety
    /// As `std::sync::Weak::from_raw`: `ptr` came from `Weak::<T>::into_raw` of this type.
    pub unsafe fn from_raw(ptr: *const T) -> Weak<T> {
        let inner = (ptr as *const u8).wrapping_sub(Arc::<T>::VALUE_OFFSET) as *const ArcInner<T>;
        Weak { inner: std::sync::Weak::from_raw(inner) }
    }
}

impl<T: ?Sized> Weak<T> {
    /// A strong reference, if the value is still alive; no synchronisation, as in std.
    pub fn upgrade(&self) -> Option<Arc<T>> {
        self.inner.upgrade().map(|inner| Arc { inner })
    }

    pub fn strong_count(&self) -> usize {
        self.inner.strong_count()
    }

    pub fn weak_count(&self) -> usize {
        self.inner.weak_count()
    }

    pub fn ptr_eq(&self, other: &Weak<T>) -> bool {
        self.inner.ptr_eq(&other.inner)
    }
}

impl<T: ?Sized> Clone for Weak<T> {
    fn clone(&self) -> Weak<T> {
        Weak { inner: self.inner.clone() }
    }
}

impl<T> Default for Weak<T> {
    fn default() -> Weak<T> {
        Weak::new()
    }
}

impl<T: ?Sized> fmt::Debug for Weak<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(Weak)")
    }
}

impl<T: RefUnwindSafe + ?Sized> UnwindSafe for Weak<T> {}
impl<T: RefUnwindSafe + ?Sized> RefUnwindSafe for Weak<T> {}
