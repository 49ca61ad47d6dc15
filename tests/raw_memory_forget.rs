//! `racer::annotate::forget` gives the raw shadow back: a long run that checks and frees many
//! buffers does not grow. Its own test binary, so the granule count it asserts is its own.
#![cfg(feature = "race-detect")]

use racer::annotate;

/// Also what `racer::stats()` counts of it: each granule is a cell, each remembered access a
/// segment, until it is forgotten.
#[test]
fn forget_drops_the_shadow_of_every_granule_of_the_range() {
    let before = annotate::tracked_granules();
    let stats_before = racer::stats().algorithm(4).clone();
    for _ in 0..10 {
        let buf = vec![0u64; 1000];
        annotate::write(buf.as_ptr(), 1000 * 8);
        annotate::read(&buf[10], 8);
        assert_eq!(annotate::tracked_granules(), before + 1000);
        let during = racer::stats().algorithm(4).clone();
        assert_eq!(during.cells, stats_before.cells + 1000);
        assert_eq!(during.segments, stats_before.segments + 1001, "1000 writes and one read");
        assert!(during.shadow_bytes >= stats_before.shadow_bytes + 1000 * 8, "{during:?}");
        annotate::forget(buf.as_ptr(), 1000 * 8);
        assert_eq!(annotate::tracked_granules(), before);
        let after = racer::stats().algorithm(4).clone();
        assert_eq!(
            (after.cells, after.segments, after.shadow_bytes),
            (stats_before.cells, stats_before.segments, stats_before.shadow_bytes)
        );
    }
    // An unaligned range covers every granule it touches: 3 bytes across a boundary are two.
    let buf = [0u64; 2];
    let start = buf.as_ptr() as usize + 6;
    annotate::write(start, 3);
    assert_eq!(annotate::tracked_granules(), before + 2);
    annotate::forget(start, 3);
    assert_eq!(annotate::tracked_granules(), before);
}
