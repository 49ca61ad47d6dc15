//! The crate-adapter workloads of racer's user-build benchmark (`benches/versus-tsan`): the same
//! program built with racer's feature off (the crates' own items) and on (racer's adapters).
//! Usage: ecosystem-userbench e1|e2|e3
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use racer::crossbeam_channel::bounded;
use racer::rayon::prelude::*;
use racer::Shared;

/// A producer/consumer hand-off over crossbeam-channel: 200k messages, each naming one of 64
/// `Shared` slots the producer wrote and the consumer reads; the slot comes back to the producer
/// on a second channel before it is written again.
fn e1() {
    const SLOTS: usize = 64;
    let slots: Arc<Vec<Shared<u64>>> = Arc::new((0..SLOTS).map(|_| Shared::new(0)).collect());
    let (full_tx, full_rx) = bounded::<usize>(SLOTS);
    let (free_tx, free_rx) = bounded::<usize>(SLOTS);
    for i in 0..SLOTS {
        free_tx.send(i).unwrap();
    }
    let consumer_slots = slots.clone();
    let consumer = racer::thread::spawn(move || {
        let mut sum = 0u64;
        for i in full_rx {
            sum += unsafe { consumer_slots[i].get() };
            free_tx.send(i).unwrap();
        }
        sum
    });
    for n in 0..200_000u64 {
        let i = free_rx.recv().unwrap();
        unsafe { slots[i].set(n) };
        full_tx.send(i).unwrap();
    }
    drop(full_tx);
    black_box(consumer.join().unwrap());
}

/// rayon's parallel iterators over `Shared` cells: 20 rounds of a `for_each` writing 100k cells
/// and a `map(..).sum()` reading them.
fn e2() {
    let cells: Vec<Shared<u64>> = (0..100_000).map(|_| Shared::new(0)).collect();
    for round in 0..20u64 {
        cells.par_iter().enumerate().for_each(|(i, c)| unsafe { c.set(i as u64 + round) });
        let sum: u64 = cells.par_iter().map(|c| unsafe { c.get() }).sum();
        black_box(sum);
    }
}

/// `rayon::join` recursion over a slice of `Shared` cells (a parallel prefix of writes then
/// reads), down to leaves of 64 cells: 20 rounds over 100k cells.
fn e3() {
    fn touch(cells: &[Shared<u64>], round: u64) -> u64 {
        if cells.len() <= 64 {
            return cells.iter().map(|c| unsafe { c.set(c.get() + round); c.get() }).sum();
        }
        let (left, right) = cells.split_at(cells.len() / 2);
        let (a, b) = racer::rayon::join(|| touch(left, round), || touch(right, round));
        a + b
    }
    let cells: Vec<Shared<u64>> = (0..100_000).map(|_| Shared::new(0)).collect();
    for round in 0..20 {
        black_box(touch(&cells, round));
    }
}

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    let start = Instant::now();
    match which.as_str() {
        "e1" => e1(),
        "e2" => e2(),
        "e3" => e3(),
        _ => {
            eprintln!("usage: ecosystem-userbench e1|e2|e3");
            std::process::exit(2);
        }
    }
    eprintln!("{which}: {:.1} ms", start.elapsed().as_secs_f64() * 1e3);
}
