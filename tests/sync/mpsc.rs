//! `racer::sync::mpsc`: std's channel behaviour (both builds) and the per-message
//! happens-before edges, disconnection included (detector build).

use std::time::Duration;

use racer::sync::mpsc::{self, RecvError, RecvTimeoutError, SendError, TryRecvError, TrySendError};
use racer::thread;

#[test]
fn channel_behaves_as_std() {
    let (tx, rx) = mpsc::channel::<u32>();
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    assert_eq!(rx.recv_timeout(Duration::from_millis(1)), Err(RecvTimeoutError::Timeout));
    let tx2 = tx.clone();
    let h = thread::spawn(move || {
        for i in 0..5 {
            tx2.send(i).unwrap();
        }
    });
    tx.send(100).unwrap();
    drop(tx);
    h.join().unwrap();
    let mut got: Vec<u32> = rx.iter().collect();
    got.sort_unstable();
    assert_eq!(got, vec![0, 1, 2, 3, 4, 100]);
    assert_eq!(rx.recv(), Err(RecvError));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
    assert_eq!(rx.recv_timeout(Duration::from_millis(1)), Err(RecvTimeoutError::Disconnected));
    assert_eq!(format!("{rx:?}"), "Receiver { .. }");

    let (tx, rx) = mpsc::channel::<String>();
    drop(rx);
    assert_eq!(tx.send("back".into()), Err(SendError("back".to_string())));
}

#[test]
fn sync_channel_behaves_as_std() {
    let (tx, rx) = mpsc::sync_channel::<u8>(1);
    tx.try_send(1).unwrap();
    assert_eq!(tx.try_send(2), Err(TrySendError::Full(2)));
    assert_eq!(rx.try_iter().collect::<Vec<_>>(), vec![1]);
    drop(rx);
    assert_eq!(tx.try_send(3), Err(TrySendError::Disconnected(3)));
    assert_eq!(tx.send(4), Err(SendError(4)));

    // Bound 0: each send waits for its receive.
    let (tx, rx) = mpsc::sync_channel::<u32>(0);
    let h = thread::spawn(move || {
        for i in 0..3 {
            tx.send(i).unwrap();
        }
    });
    assert_eq!(rx.into_iter().collect::<Vec<_>>(), vec![0, 1, 2]);
    h.join().unwrap();
}

#[test]
fn receiver_iterators_stop_as_std_does() {
    let (tx, rx) = mpsc::channel::<u8>();
    tx.send(1).unwrap();
    tx.send(2).unwrap();
    assert_eq!(rx.try_iter().collect::<Vec<_>>(), vec![1, 2]);
    assert_eq!(rx.try_iter().next(), None);
    tx.send(3).unwrap();
    drop(tx);
    let mut rest = Vec::new();
    for v in &rx {
        rest.push(v);
    }
    assert_eq!(rest, vec![3]);
}

#[cfg(feature = "race-detect")]
mod races {
    use std::sync::mpsc as std_mpsc;

    use racer::sync::mpsc;
    use racer::sync::Arc;
    use racer::{RaceKind, Shared};

    use crate::sync_support::*;

    #[test]
    fn a_message_orders_what_was_written_before_its_send() {
        let report = racer::check(|| {
            let data = Arc::new(Shared::new(0u64));
            let (tx, rx) = mpsc::channel();
            let d = data.clone();
            let h = named("sender", move || {
                write(&d, 1);
                tx.send(()).unwrap();
            });
            rx.recv().unwrap();
            assert_eq!(read(&data).0, 1);
            h.join().unwrap();
        });
        assert_no_race(&report);
    }

    /// The sender writes, sends message 1, writes again, sends message 2. A read after
    /// receiving message 1 is ordered after the first write only: it races with the second.
    #[test]
    fn a_read_ordered_by_message_1_races_with_the_write_before_message_2() {
        let mut sites = None;
        let report = racer::check(|| {
            let data = Arc::new(Shared::new(0u64));
            let (tx, rx) = mpsc::channel::<u32>();
            let (read_done, wait_read) = std_mpsc::channel::<()>();
            let d = data.clone();
            let sender = named("sender", move || {
                write(&d, 1);
                tx.send(1).unwrap();
                wait_read.recv().unwrap();
                let second = write(&d, 2);
                tx.send(2).unwrap();
                second
            });
            let receiver = named("receiver", move || {
                assert_eq!(rx.recv().unwrap(), 1);
                let (value, site) = read(&data);
                assert_eq!(value, 1);
                read_done.send(()).unwrap();
                assert_eq!(rx.recv().unwrap(), 2);
                // Ordered by message 2: no second race here.
                assert_eq!(read(&data).0, 2);
                site
            });
            sites = Some((receiver.join().unwrap(), sender.join().unwrap()));
        });
        let (read_site, second_write) = sites.unwrap();
        assert_one_race(&report, RaceKind::Anti, ("receiver", read_site), ("sender", second_write));
    }

    #[test]
    fn a_rendezvous_channel_orders_the_send() {
        let report = racer::check(|| {
            let cells: Arc<Vec<Shared<u64>>> = Arc::new((0..3).map(|_| Shared::new(0)).collect());
            let (tx, rx) = mpsc::sync_channel(0);
            let c = cells.clone();
            let h = named("sender", move || {
                for i in 0..3 {
                    write(&c[i], i as u64 + 1);
                    tx.send(i).unwrap();
                }
            });
            for i in rx.iter() {
                assert_eq!(read(&cells[i]).0, i as u64 + 1);
            }
            h.join().unwrap();
        });
        assert_no_race(&report);
    }

    /// The receiver writes the cell, then receives; the sender sends, then reads the cell. A
    /// rendezvous send returns only after the receive, which orders the read after the write;
    /// with a buffer (bound 1) nothing does.
    fn receiver_writes_sender_reads(bound: usize) -> (racer::Report, Site, Site) {
        let mut sites = None;
        let report = racer::check(|| {
            let data = Arc::new(Shared::new(0u64));
            let (tx, rx) = mpsc::sync_channel::<()>(bound);
            let (written, wait_write) = std_mpsc::channel::<()>();
            let d = data.clone();
            let receiver = named("receiver", move || {
                let site = write(&d, 1);
                written.send(()).unwrap();
                rx.recv().unwrap();
                site
            });
            let sender = named("sender", move || {
                tx.send(()).unwrap();
                wait_write.recv().unwrap();
                read(&data).1
            });
            sites = Some((receiver.join().unwrap(), sender.join().unwrap()));
        });
        let (w, r) = sites.unwrap();
        (report, w, r)
    }

    #[test]
    fn a_rendezvous_receive_happens_before_its_send_returns() {
        assert_no_race(&receiver_writes_sender_reads(0).0);
    }

    #[test]
    fn a_buffered_send_is_not_ordered_after_its_receive() {
        let (report, w, r) = receiver_writes_sender_reads(1);
        assert_one_race(&report, RaceKind::Flow, ("receiver", w), ("sender", r));
    }

    #[test]
    fn a_bounded_channel_orders_each_message() {
        let report = racer::check(|| {
            let cells: Arc<Vec<Shared<u64>>> = Arc::new((0..4).map(|_| Shared::new(0)).collect());
            let (tx, rx) = mpsc::sync_channel(2);
            let c = cells.clone();
            let h = named("sender", move || {
                for i in 0..4 {
                    write(&c[i], i as u64 + 10);
                    while let Err(mpsc::TrySendError::Full(_)) = tx.try_send(i) {
                        std::hint::spin_loop();
                    }
                }
            });
            let mut got = 0;
            while got < 4 {
                if let Ok(i) = rx.recv_timeout(std::time::Duration::from_millis(10)) {
                    assert_eq!(read(&cells[i]).0, i as u64 + 10);
                    got += 1;
                }
            }
            h.join().unwrap();
        });
        assert_no_race(&report);
    }

    /// The sender writes, then drops its end; the receiver finds the channel disconnected.
    fn disconnect(write_after_drop: bool) -> (racer::Report, Site, Site) {
        let mut sites = None;
        let report = racer::check(|| {
            let data = Arc::new(Shared::new(0u64));
            let (tx, rx) = mpsc::channel::<()>();
            let (written, wait_write) = std_mpsc::channel::<()>();
            let d = data.clone();
            let sender = named("sender", move || {
                let site = if write_after_drop {
                    drop(tx);
                    write(&d, 1)
                } else {
                    let site = write(&d, 1);
                    drop(tx);
                    site
                };
                written.send(()).unwrap();
                site
            });
            let receiver = named("receiver", move || {
                wait_write.recv().unwrap();
                assert_eq!(rx.try_recv(), Err(mpsc::TryRecvError::Disconnected));
                read(&data).1
            });
            sites = Some((sender.join().unwrap(), receiver.join().unwrap()));
        });
        let (w, r) = sites.unwrap();
        (report, w, r)
    }

    #[test]
    fn a_disconnect_orders_what_the_sender_did_before_dropping() {
        assert_no_race(&disconnect(false).0);
    }

    #[test]
    fn a_write_after_the_sender_dropped_races_with_the_receiver() {
        let (report, w, r) = disconnect(true);
        assert_one_race(&report, RaceKind::Flow, ("sender", w), ("receiver", r));
    }

    #[test]
    fn a_failed_send_is_ordered_after_the_receiver_dropped() {
        let report = racer::check(|| {
            let data = Arc::new(Shared::new(0u64));
            let (tx, rx) = mpsc::channel::<u8>();
            let d = data.clone();
            let h = named("receiver", move || {
                write(&d, 1);
                drop(rx);
            });
            while tx.send(0).is_ok() {
                std::hint::spin_loop();
            }
            read(&data);
            h.join().unwrap();
        });
        assert_no_race(&report);
    }
}
