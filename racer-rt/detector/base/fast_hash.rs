//! A small multiplicative hasher for the detector's own tables, whose keys are instruction
//! pointers, sync events and stack ids: none is attacker-chosen, and SipHash would dominate the
//! lookup.

use std::hash::{BuildHasher, Hasher};

#[derive(Clone, Copy, Default)]
pub struct FastBuild;

impl BuildHasher for FastBuild {
    type Hasher = FastHasher;
    #[inline]
    fn build_hasher(&self) -> FastHasher {
        FastHasher(0)
    }
}

/// FxHash-style mixing: rotate, xor, multiply by an odd constant.
#[derive(Clone, Copy)]
pub struct FastHasher(u64);

const K: u64 = 0x517c_c1b7_2722_0a95;

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        // Whole words without a copy: stacks are hashed as byte slices of return addresses.
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            self.write_u64(u64::from_le_bytes(word.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(K);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        // `sharded_map` picks the shard from the high bits and std's `HashMap` the bucket from
        // the low ones: fold so both see every input bit.
        self.0 ^ (self.0 >> 32)
    }
}
