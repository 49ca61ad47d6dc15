//! A bank account whose deposits are locked but whose auditor reads the balance without the
//! lock: racer reports the anti race (the audit's read, then a parallel deposit's write), with
//! both stacks and the spawn sites.
//!
//!     cargo run -p racer-examples --example bank --features race-detect

use racer::sync::{Arc, Mutex};
use racer::{thread, Shared};

struct Account {
    lock: Mutex<()>,
    balance: Shared<u64>,
}

fn deposit(account: &Account, amount: u64) {
    let _held = account.lock.lock().unwrap();
    account.balance.with_mut(|b| unsafe { *b += amount });
}

fn audit(account: &Account) -> u64 {
    // Bug: reads the balance without taking the lock.
    account.balance.with(|b| unsafe { *b })
}

fn main() {
    let account = Arc::new(Account { lock: Mutex::new(()), balance: Shared::new(100) });

    let auditor = {
        let account = Arc::clone(&account);
        thread::Builder::new().name("auditor".into()).spawn(move || audit(&account)).unwrap()
    };
    let writer = {
        let account = Arc::clone(&account);
        thread::Builder::new()
            .name("writer".into())
            .spawn(move || {
                // Give the auditor time to read first, so the report is the same every run.
                thread::sleep(std::time::Duration::from_millis(50));
                deposit(&account, 50)
            })
            .unwrap()
    };
    let seen = auditor.join().unwrap();
    writer.join().unwrap();
    let balance = account.balance.with(|b| unsafe { *b });
    println!("auditor saw {seen}, final balance {balance}");
}
