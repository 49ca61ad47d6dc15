//! `racer::sync::Barrier`: std's behaviour (both builds); every arrival happens before every
//! departure of the same generation, and nothing after an arrival is published by it
//! (detector build).

use racer::sync::{Arc, Barrier};
use racer::thread;

static ONE: Barrier = Barrier::new(1);

#[test]
fn barrier_behaves_as_std() {
    assert!(ONE.wait().is_leader());
    assert!(Barrier::new(0).wait().is_leader());
    let barrier = Arc::new(Barrier::new(4));
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let b = barrier.clone();
            thread::spawn(move || (0..3).filter(|_| b.wait().is_leader()).count())
        })
        .collect();
    let leaders: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(leaders, 3, "one leader per generation");
    assert_eq!(format!("{barrier:?}"), "Barrier { .. }");
}

#[cfg(feature = "race-detect")]
mod races {
    use std::sync::mpsc as std_mpsc;

    use racer::sync::{Arc, Barrier};
    use racer::{RaceKind, Shared};

    use crate::sync_support::*;

    #[test]
    fn every_arrival_happens_before_every_departure() {
        // Three rounds: in each, every thread writes its own cell, waits, reads all cells,
        // waits again (so the next round's writes come after this round's reads).
        let report = racer::check(|| {
            let cells: Arc<Vec<Shared<u64>>> = Arc::new((0..3).map(|_| Shared::new(0)).collect());
            let barrier = Arc::new(Barrier::new(3));
            let handles: Vec<_> = (0..3)
                .map(|i| {
                    let (cells, barrier) = (cells.clone(), barrier.clone());
                    named(&format!("t{i}"), move || {
                        for round in 1..=3u64 {
                            write(&cells[i], round);
                            barrier.wait();
                            assert!(cells.iter().all(|c| read(c).0 == round));
                            barrier.wait();
                        }
                    })
                })
                .collect();
            for h in handles {
                h.join().unwrap();
            }
        });
        assert_no_race(&report);
    }

    #[test]
    fn a_write_after_arriving_races_with_a_read_after_leaving() {
        let mut sites = None;
        let report = racer::check(|| {
            let data = Arc::new(Shared::new(0u64));
            let barrier = Arc::new(Barrier::new(2));
            let (written, wait_write) = std_mpsc::channel::<()>();
            let (d, b) = (data.clone(), barrier.clone());
            let late = named("late-writer", move || {
                b.wait();
                let site = write(&d, 1);
                written.send(()).unwrap();
                site
            });
            let reader = named("reader", move || {
                barrier.wait();
                wait_write.recv().unwrap();
                read(&data).1
            });
            sites = Some((late.join().unwrap(), reader.join().unwrap()));
        });
        let (w, r) = sites.unwrap();
        assert_one_race(&report, RaceKind::Flow, ("late-writer", w), ("reader", r));
    }
}
