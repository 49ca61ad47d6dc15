//! `loom::alloc`: std's allocator functions, and loom's `Track`.
//!
//! loom records every allocation made through these functions and fails the model when one is
//! still live at its end (a leak check). On real threads racer does not: these are std's
//! allocator functions, and `Track` is a plain wrapper. Memory-safety and leak checking on real
//! threads are Miri's or a sanitizer's job; racer checks data races.

pub use std::alloc::{alloc, alloc_zeroed, dealloc, realloc, Layout};

/// loom's `Track<T>`: under loom, a value whose leak fails the model. Here, the value itself.
#[derive(Debug, Default)]
pub struct Track<T> {
    value: T,
}

impl<T> Track<T> {
    /// Tracks `value`.
    pub const fn new(value: T) -> Track<T> {
        Track { value }
    }

    /// The tracked value.
    pub fn get_ref(&self) -> &T {
        &self.value
    }

    /// The tracked value, mutably.
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.value
    }

    /// Stops tracking and returns the value.
    pub fn into_inner(self) -> T {
        self.value
    }
}
