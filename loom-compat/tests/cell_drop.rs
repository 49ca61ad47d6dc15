//! Dropping a `loom::cell::UnsafeCell` is not an access, as in loom: a cell often goes away
//! after synchronisation racer cannot see, such as the last `std::sync::Arc` drop (its
//! Acquire fence), which tokio's loom tests use (`loom_atomic_waker`).

use loom::cell::UnsafeCell;
use loom::thread;

struct Slot {
    value: UnsafeCell<u64>,
}

// SAFETY: one thread writes the value, and the last `Arc`'s owner drops it.
unsafe impl Sync for Slot {}

/// A thread writes the slot's cell and drops its `std::sync::Arc`; the model's thread waits
/// for the count to fall to one (which racer does not see) and returns the last `Arc`, with the
/// writer's handle.
fn handed_over() -> (std::sync::Arc<Slot>, thread::JoinHandle<()>) {
    let slot = std::sync::Arc::new(Slot { value: UnsafeCell::new(0) });
    let writer = {
        let slot = slot.clone();
        thread::spawn(move || {
            slot.value.with_mut(|v| unsafe { *v = 7 });
            drop(slot);
        })
    };
    while std::sync::Arc::strong_count(&slot) > 1 {
        thread::yield_now();
    }
    (slot, writer)
}

/// A thread writes the cell and drops its `std::sync::Arc`; the model's thread sees the count
/// fall to one and drops the last `Arc`, and with it the cell. std's `Arc` orders the write
/// before the drop; racer does not see it, and the drop must not be reported as racing.
#[test]
fn dropping_a_cell_after_a_std_arc_handover_is_not_reported() {
    loom::model(|| {
        let (slot, writer) = handed_over();
        drop(slot);
        writer.join().unwrap();
    });
}

/// Accesses are still checked: the same handover read through the cell (not dropped) races,
/// since racer sees nothing that orders it after the write.
#[test]
fn a_read_after_the_same_handover_is_still_reported() {
    if !racer::ENABLED {
        return;
    }
    let outcome = std::panic::catch_unwind(|| {
        loom::model(|| {
            let (slot, writer) = handed_over();
            assert_eq!(slot.value.with(|v| unsafe { *v }), 7);
            writer.join().unwrap();
        })
    });
    let panic = outcome.expect_err("the read races with the write");
    let message = panic.downcast_ref::<String>().expect("a formatted message");
    assert!(message.contains("data race"), "{message}");
}
