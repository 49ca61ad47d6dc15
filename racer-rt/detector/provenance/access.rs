//! What the shadow memory remembers of one access besides its segment, for a report: its
//! stack (tagged with the access site and the thread's last sync event) and its thread.

use std::panic::Location;

use crate::model::algorithm::Recorded;
use crate::provenance::stack::{self, StackId};
use crate::provenance::sync_event::SyncEventId;
use crate::provenance::thread_ref::ThreadRef;

/// What the shadow memory keeps of one access besides its segment: its stack (tagged with the
/// access site and the last sync event, see `stack`) and its thread. 8 bytes, so a record is 16.
#[derive(Debug)]
pub struct AccessInfo {
    pub stack: StackId,
    pub thread: ThreadRef,
}

impl Clone for AccessInfo {
    #[inline]
    fn clone(&self) -> Self {
        AccessInfo { stack: self.stack, thread: self.thread.clone() }
    }

    #[inline]
    fn clone_from(&mut self, source: &Self) {
        self.stack = source.stack;
        self.thread.clone_from(&source.thread);
    }
}

pub type Record = Recorded<AccessInfo>;

impl AccessInfo {
    /// The `#[track_caller]` site of the access.
    pub fn site(&self) -> &'static Location<'static> {
        stack::site(self.stack).expect("a recorded access's stack is tagged with its site")
    }

    /// The thread's last synchronisation before the access.
    pub fn after_sync(&self) -> Option<SyncEventId> {
        stack::after_sync(self.stack)
    }
}
