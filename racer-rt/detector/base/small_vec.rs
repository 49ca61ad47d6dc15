//! A vector of plain values kept inline up to `N` and on the heap beyond: vector clocks (a
//! mutex's clock shares its cache lines with the mutex) and stack walks (no allocation per
//! capture).
//!
//! Invariant: `Inline { len, .. }` has `len <= N` and only `items[..len]` are elements; once
//! a vector spills to `Heap` it stays there.

use std::ops::{Deref, DerefMut};

#[derive(Clone)]
pub enum SmallVec<T: Copy, const N: usize> {
    Inline { len: u32, items: [T; N] },
    Heap(Vec<T>),
}

impl<T: Copy, const N: usize> SmallVec<T, N> {
    /// An empty vector; `fill` only initialises the unused inline room.
    pub const fn new_with(fill: T) -> Self {
        SmallVec::Inline { len: 0, items: [fill; N] }
    }

    #[inline]
    pub fn push(&mut self, value: T) {
        match self {
            SmallVec::Inline { len, items } if (*len as usize) < N => {
                items[*len as usize] = value;
                *len += 1;
            }
            SmallVec::Inline { .. } => {
                self.spill(N * 2).push(value);
            }
            SmallVec::Heap(v) => v.push(value),
        }
    }

    /// Moves the elements to the heap with room for `capacity`.
    #[cold]
    fn spill(&mut self, capacity: usize) -> &mut Vec<T> {
        if let SmallVec::Inline { len, items } = self {
            let mut v = Vec::with_capacity(capacity.max(*len as usize));
            v.extend_from_slice(&items[..*len as usize]);
            *self = SmallVec::Heap(v);
        }
        match self {
            SmallVec::Heap(v) => v,
            SmallVec::Inline { .. } => unreachable!("spilled above"),
        }
    }

    /// Grows to `new_len` with `value`, or shortens to it.
    pub fn resize(&mut self, new_len: usize, value: T) {
        match self {
            SmallVec::Inline { len, items } if new_len <= N => {
                for item in &mut items[(*len as usize).min(new_len)..new_len] {
                    *item = value;
                }
                *len = new_len as u32;
            }
            _ => self.spill(new_len).resize(new_len, value),
        }
    }

    pub fn truncate(&mut self, new_len: usize) {
        match self {
            SmallVec::Inline { len, .. } => *len = (*len).min(new_len as u32),
            SmallVec::Heap(v) => v.truncate(new_len),
        }
    }
}

impl<T: Copy + Default, const N: usize> Default for SmallVec<T, N> {
    fn default() -> Self {
        SmallVec::new_with(T::default())
    }
}

impl<T: Copy, const N: usize> Deref for SmallVec<T, N> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        match self {
            SmallVec::Inline { len, items } => &items[..*len as usize],
            SmallVec::Heap(v) => v,
        }
    }
}

impl<T: Copy, const N: usize> DerefMut for SmallVec<T, N> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            SmallVec::Inline { len, items } => &mut items[..*len as usize],
            SmallVec::Heap(v) => v,
        }
    }
}

impl<T: Copy + PartialEq, const N: usize> PartialEq for SmallVec<T, N> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Copy + Eq, const N: usize> Eq for SmallVec<T, N> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_past_its_inline_room_and_keeps_order() {
        let mut v: SmallVec<u64, 2> = SmallVec::default();
        for i in 0..5 {
            v.push(i);
        }
        assert_eq!(&v[..], &[0, 1, 2, 3, 4]);
        v.truncate(1);
        v.resize(3, 9);
        assert_eq!(&v[..], &[0, 9, 9]);
        let mut w: SmallVec<u64, 4> = SmallVec::default();
        w.resize(3, 7);
        w.resize(1, 0);
        w.resize(2, 5);
        assert_eq!(&w[..], &[7, 5], "shrinking then growing refills");
        assert!(matches!(w, SmallVec::Inline { .. }));
    }
}
