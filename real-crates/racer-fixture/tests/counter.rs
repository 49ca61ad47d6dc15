//! Run by `cargo racer test` in tests/loom_suites.rs.

use racer::sync::{Arc, Mutex};
use racer::{thread, Shared};

struct Counter {
    lock: Mutex<()>,
    value: Shared<u64>,
}

fn bump(c: &Counter, locked: bool) {
    let _held = locked.then(|| c.lock.lock().unwrap());
    c.value.with_mut(|v| unsafe { *v += 1 });
}

fn two_bumps(locked: bool) {
    let c = Arc::new(Counter { lock: Mutex::new(()), value: Shared::new(0) });
    let c2 = c.clone();
    let t = thread::spawn(move || bump(&c2, locked));
    bump(&c, locked);
    t.join().unwrap();
}

#[racer::test]
fn locked_bumps() {
    two_bumps(true);
}

#[racer::test]
fn unlocked_bumps() {
    two_bumps(false);
}
