//! `racer::annotate::forget` gives the raw shadow back: a long run that checks and frees many
//! buffers does not grow. Its own test binary, so the granule count it asserts is its own.
#![cfg(feature = "race-detect")]

use racer::annotate;

#[test]
fn forget_drops_the_shadow_of_every_granule_of_the_range() {
    let before = annotate::tracked_granules();
    for _ in 0..10 {
        let buf = vec![0u64; 1000];
        annotate::write(buf.as_ptr(), 1000 * 8);
        annotate::read(&buf[10], 8);
        assert_eq!(annotate::tracked_granules(), before + 1000);
        annotate::forget(buf.as_ptr(), 1000 * 8);
        assert_eq!(annotate::tracked_granules(), before);
    }
    // An unaligned range covers every granule it touches: 3 bytes across a boundary are two.
    let buf = [0u64; 2];
    let start = buf.as_ptr() as usize + 6;
    annotate::write(start, 3);
    assert_eq!(annotate::tracked_granules(), before + 2);
    annotate::forget(start, 3);
    assert_eq!(annotate::tracked_granules(), before);
}
