//! No public name of tokio's `task`, `sync` and `runtime` (and their public submodules) is
//! missing from `racer::tokio`: a user's swap of `tokio::` for `racer::tokio::` never removes a
//! name. This file compiles only if each name below resolves, in both builds; `.ci/tokio-names`
//! checks that the lists hold every public name of the tokio in Cargo.lock (on stable Rust, with
//! the features racer's tokio has), reading tokio's source.
#![cfg(feature = "tokio")]
#![allow(unused_imports, deprecated)]

mod sync_broadcast {
    use racer::tokio::sync::broadcast::{channel, error, Receiver, Sender, WeakSender};
}

mod task_futures {
    use racer::tokio::task::futures::TaskLocalFuture;
}

mod sync_mpsc_error {
    use racer::tokio::sync::mpsc::error::{RecvError, SendError, SendTimeoutError, TryRecvError, TrySendError};
}

mod sync {
    use racer::tokio::sync::{
        broadcast, futures, mpsc, oneshot, watch, AcquireError, Barrier, BarrierWaitResult, MappedMutexGuard, Mutex,
        MutexGuard, Notify, OnceCell, OwnedMappedMutexGuard, OwnedMutexGuard, OwnedRwLockMappedWriteGuard,
        OwnedRwLockReadGuard, OwnedRwLockWriteGuard, OwnedSemaphorePermit, RwLock, RwLockMappedWriteGuard,
        RwLockReadGuard, RwLockWriteGuard, Semaphore, SemaphorePermit, SetError, SetOnce, SetOnceError,
        TryAcquireError, TryLockError,
    };
}

mod sync_oneshot {
    use racer::tokio::sync::oneshot::{channel, error, Receiver, Sender};
}

mod sync_futures {
    use racer::tokio::sync::futures::{Notified, OwnedNotified};
}

mod sync_oneshot_error {
    use racer::tokio::sync::oneshot::error::{RecvError, TryRecvError};
}

mod sync_broadcast_error {
    use racer::tokio::sync::broadcast::error::{RecvError, SendError, TryRecvError};
}

mod sync_watch_error {
    use racer::tokio::sync::watch::error::{RecvError, SendError};
}

mod runtime {
    use racer::tokio::runtime::{
        is_rt_shutdown_err, worker_index, Builder, EnterGuard, Handle, Id, LocalOptions, LocalRuntime, Runtime,
        RuntimeFlavor, RuntimeMetrics, TryCurrentError,
    };
}

mod task {
    use racer::tokio::task::{
        block_in_place, consume_budget, coop, futures, id, spawn, spawn_blocking, spawn_local, try_id, unconstrained,
        yield_now, AbortHandle, Id, JoinError, JoinHandle, JoinSet, LocalEnterGuard, LocalKey, LocalSet, Unconstrained,
    };
}

mod task_coop {
    use racer::tokio::task::coop::{
        consume_budget, cooperative, has_budget_remaining, poll_proceed, unconstrained, Coop, RestoreOnPending,
        Unconstrained,
    };
}

mod sync_watch {
    use racer::tokio::sync::watch::{channel, error, Receiver, Ref, Sender};
}

mod sync_mpsc {
    use racer::tokio::sync::mpsc::{
        channel, error, unbounded_channel, OwnedPermit, Permit, PermitIterator, Receiver, Sender, UnboundedReceiver,
        UnboundedSender, WeakSender, WeakUnboundedSender,
    };
}

/// The lists above resolve (the test is that this file compiles); each names a module's items.
#[test]
fn every_public_name_of_tokio_task_sync_and_runtime_resolves() {}
