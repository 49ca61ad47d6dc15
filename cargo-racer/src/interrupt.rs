//! Ctrl-C (and SIGTERM, SIGHUP): the child cargo stops, cargo racer does not die with it, so
//! that `run` returns and the lock file guard puts `Cargo.lock` back.
//!
//! A terminal's Ctrl-C reaches the whole foreground process group: cargo racer, the child cargo
//! and its test binaries. The child dies of it as usual; cargo racer only notes it, through the
//! `ctrlc` crate's handler. A handler rather than `SIG_IGN` (libc alone): an ignored signal stays
//! ignored across `exec`, so the child cargo would not stop, while a handled one is reset to
//! its default there. A signal sent to cargo racer alone (`kill -INT`, `timeout`) is passed on to
//! the running child's whole process group (the child cargo and the test binary it runs, which
//! would otherwise run on, orphaned, holding the output pipes and so the patched lock file),
//! so that they stop as well.

use std::process::{Child, Command, ExitStatus};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering::SeqCst};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// The running child's process id, 0 when none runs.
static CHILD: AtomicU32 = AtomicU32::new(0);

/// Installs the handler, once, before any child starts.
pub fn install() {
    let handler = ctrlc::set_handler(|| {
        INTERRUPTED.store(true, SeqCst);
        forward(CHILD.load(SeqCst));
    });
    if let Err(e) = handler {
        // Ctrl-C then ends cargo racer at once, as it did before the guard existed.
        eprintln!("cargo racer: warning: cannot handle Ctrl-C ({e}); an interrupted run may leave Cargo.lock changed");
    }
}

/// Whether an interrupt arrived.
pub fn happened() -> bool {
    INTERRUPTED.load(SeqCst)
}

/// Whether the run that ended with `status` was interrupted: the handler saw it, or cargo died
/// of Ctrl-C's SIGINT (the handler's thread may not have run yet when the child's end is seen).
pub fn stopped(status: &ExitStatus) -> bool {
    #[cfg(unix)]
    let died_of_sigint = std::os::unix::process::ExitStatusExt::signal(status) == Some(libc::SIGINT);
    #[cfg(not(unix))]
    let died_of_sigint = false;
    died_of_sigint || happened()
}

/// Marks `child` as the one to pass an interrupt on to, until the returned value is dropped
/// (after the child has been waited for).
pub fn watch(child: &Child) -> Watch {
    CHILD.store(child.id(), SeqCst);
    if happened() {
        // The interrupt came before the child could be told.
        forward(child.id());
    }
    Watch(())
}

pub struct Watch(());

impl Drop for Watch {
    fn drop(&mut self) {
        CHILD.store(0, SeqCst);
    }
}

/// Puts the child `cmd` will start in a process group of its own, so that an interrupt can be
/// passed on to it and everything it starts (see `forward`).
pub fn own_group(cmd: &mut Command) -> &mut Command {
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(cmd, 0);
    cmd
}

/// Runs `cmd` to its end as a watched child.
pub fn status(cmd: &mut Command) -> std::io::Result<ExitStatus> {
    let mut child = own_group(cmd).spawn()?;
    let _watch = watch(&child);
    child.wait()
}

#[cfg(unix)]
fn forward(pid: u32) {
    if pid != 0 {
        // SAFETY: kill(2) takes plain integers and touches no memory of ours. The id is the
        // child's, the leader of its own process group (`own_group`), until it is waited for;
        // `Watch` is cleared right after that wait, and an id is not reused within that moment.
        unsafe { libc::kill(-(pid as libc::pid_t), libc::SIGINT) };
    }
}

/// Elsewhere a console's Ctrl-C reaches every process attached to it, the child included.
#[cfg(not(unix))]
fn forward(_pid: u32) {}
