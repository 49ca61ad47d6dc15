//! What the model tests share: a watched run of a model and the replay token of its failure.

use std::sync::mpsc;
use std::time::Duration;

/// How long a model may run before the test deems it hung (a limit of the harness).
const LIMIT: Duration = Duration::from_secs(120);

/// Runs `f` on its own thread; its panic message, if it panicked. Fails if it hangs.
#[allow(dead_code)]
pub fn outcome(f: impl FnOnce() + Send + 'static) -> Option<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        let message = r.err().map(|p| {
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        });
        let _ = tx.send(message);
    });
    rx.recv_timeout(LIMIT).expect("the model hung")
}

/// The token after `RACER_REPLAY=` in a model's failure.
#[allow(dead_code)]
pub fn replay_token(message: &str) -> String {
    let at = message.find("RACER_REPLAY=").expect("a replay line") + "RACER_REPLAY=".len();
    message[at..].split_whitespace().next().expect("a token").to_owned()
}

/// What a report says of its race: its kind and both accesses, without what differs between
/// two processes' runs of the same schedule (addresses, racer's thread numbers).
#[allow(dead_code)]
pub fn race_lines(message: &str) -> Vec<String> {
    message
        .lines()
        .filter(|l| {
            l.starts_with("WARNING: racer") || l.starts_with("  Read by") || l.starts_with("  Previous write by")
        })
        .map(|l| {
            let l = l.split(" at 0x").next().unwrap_or(l);
            l.split(' ')
                .map(|w| if w.starts_with('T') && w[1..].parse::<u64>().is_ok() { "T" } else { w })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}
