//! The sets of racer locks threads held at their accesses, interned: an access's stack tag
//! keeps the set's 4-byte id (see `stack::capture_access_holding`), a report gets the locks
//! back. A program holds few distinct sets (a lock and where it was taken), so the table stays
//! small; a thread looks a set up only when the locks it holds changed since its last lookup
//! (see the cache in `shadow/cell.rs`).

use std::collections::HashMap;

use crate::base::lock::Mutex;
use crate::report::HeldLock;

struct Table {
    ids: HashMap<Vec<HeldLock>, u32>,
    sets: Vec<Vec<HeldLock>>,
}

static TABLE: Mutex<Option<Table>> = Mutex::new(None);

/// The id of the set `locks` (non-empty, in the order taken): never 0, below
/// `stack::CREATION`; 0 once that many sets were made (the set is then not reported).
pub fn intern(locks: &[HeldLock]) -> u32 {
    let mut table = TABLE.lock();
    let table = table.get_or_insert_with(|| Table { ids: HashMap::new(), sets: Vec::new() });
    if let Some(&id) = table.ids.get(locks) {
        return id;
    }
    if table.sets.len() + 1 >= crate::provenance::stack::CREATION as usize {
        return 0;
    }
    table.sets.push(locks.to_vec());
    let id = table.sets.len() as u32;
    table.ids.insert(locks.to_vec(), id);
    id
}

/// The locks of set `id` (none for 0).
pub fn get(id: u32) -> Vec<HeldLock> {
    match id.checked_sub(1) {
        Some(i) => TABLE.lock().as_ref().and_then(|t| t.sets.get(i as usize).cloned()).unwrap_or_default(),
        None => Vec::new(),
    }
}
