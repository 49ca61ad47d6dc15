//! Running a child process from a test: its whole output, or a failed test if it hangs.

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `cmd` to its end, reading its standard output and error as it goes (so that a full
/// pipe cannot stall it). A run longer than `limit` is a hang: the child is killed and the
/// test fails, naming `what`.
pub fn output_within(mut cmd: Command, limit: Duration, what: &str) -> Output {
    let mut child =
        cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the child starts");
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut out, &mut v).map(|_| v)
    });
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        std::io::Read::read_to_end(&mut err, &mut v).map(|_| v)
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{what} hung (killed after {limit:?})");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    Output { status, stdout: out.join().unwrap().unwrap(), stderr: err.join().unwrap().unwrap() }
}
