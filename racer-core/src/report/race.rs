//! What a race report says: the public `Report`, `Race`, `Access` types, the human layout and
//! the JSON layout. Compiled in both builds so user code naming them compiles unchanged; with
//! the feature off no value of them is ever made but the empty `Report`.

use std::fmt;
use std::panic::Location;

use super::frame::{capitalised, frames_json, json_string, write_frames, Frame};

/// How two conflicting accesses of one cell relate, named after the earlier one's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RaceKind {
    /// A write, then a parallel read.
    Flow,
    /// A read, then a parallel write.
    Anti,
    /// A write, then a parallel write.
    Output,
}

impl RaceKind {
    /// The short name used in reports and JSON: `flow`, `anti`, `output`.
    pub fn name(self) -> &'static str {
        match self {
            RaceKind::Flow => "flow",
            RaceKind::Anti => "anti",
            RaceKind::Output => "output",
        }
    }

    fn explained(self) -> &'static str {
        match self {
            RaceKind::Flow => "flow: write, then a parallel read",
            RaceKind::Anti => "anti: read, then a parallel write",
            RaceKind::Output => "output: write, then a parallel write",
        }
    }
}

/// Whether an access read or wrote the cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccessKind {
    Read,
    Write,
}

impl AccessKind {
    fn noun(self) -> &'static str {
        match self {
            AccessKind::Read => "read",
            AccessKind::Write => "write",
        }
    }
}

/// The parts of a thread's last synchronisation before an access, for the report's hints:
/// "`op` `object` (created at `created`) at `at`".
#[derive(Debug, Clone, Copy)]
pub(crate) struct LastSync {
    pub(crate) op: &'static str,
    pub(crate) object: &'static str,
    pub(crate) created: Option<&'static Location<'static>>,
    pub(crate) at: &'static Location<'static>,
}

/// One of the two accesses of a race.
#[derive(Debug, Clone)]
pub struct Access {
    pub(crate) kind: AccessKind,
    pub(crate) location: &'static Location<'static>,
    pub(crate) thread_name: Option<String>,
    /// racer's number for the thread, unique over the process: 1 for the first thread seen.
    pub(crate) thread_id: u64,
    pub(crate) frames: Vec<Frame>,
    /// The last synchronisation the thread performed before this access, if any.
    pub(crate) after_sync: Option<String>,
    /// The same, in parts.
    pub(crate) last_sync: Option<LastSync>,
    /// Where the thread was spawned (absent for threads racer did not spawn).
    pub(crate) spawned_at: Option<Vec<Frame>>,
    /// The thread was not started by racer (and is not the main thread).
    pub(crate) foreign_thread: bool,
    /// The thread is the test harness's thread of a test (named after the test, which it runs).
    pub(crate) test_thread: bool,
    /// The test the thread runs, or whose harness thread spawned it (directly).
    pub(crate) test: Option<String>,
}

impl Access {
    pub fn kind(&self) -> AccessKind {
        self.kind
    }

    /// The `#[track_caller]` site of the access: the user's line.
    pub fn location(&self) -> &'static Location<'static> {
        self.location
    }

    pub fn thread_name(&self) -> Option<&str> {
        self.thread_name.as_deref()
    }

    /// racer's number for the accessing thread (1 for the first thread racer saw).
    pub fn thread_id(&self) -> u64 {
        self.thread_id
    }

    /// The resolved frames, the user's frame first, racer's own frames left out.
    pub fn frames(&self) -> &[Frame] {
        &self.frames
    }

    /// The last synchronisation operation of the thread before the access, e.g.
    /// `unlocking Mutex (created at src/q.rs:12:5) at src/q.rs:40:9`.
    pub fn after_sync(&self) -> Option<&str> {
        self.after_sync.as_deref()
    }

    /// Whether the thread's only synchronisation racer saw before the access is its start: a
    /// report then often comes from synchronisation racer cannot see.
    fn synchronised_only_at_start(&self) -> bool {
        self.last_sync.map_or(true, |sync| sync.op == "starting from")
    }

    /// Whether the thread's last synchronisation before the access is one that could have
    /// ordered it with another thread's access: anything but its start and spawning a thread
    /// (a spawn orders only what came before it, and the access came after).
    fn synchronised_through_racer(&self) -> bool {
        self.last_sync.is_some_and(|sync| !matches!(sync.op, "starting from" | "spawning"))
    }

    /// The lock the thread held at the access: its last synchronisation before it took a lock
    /// (and so let go of none since).
    fn lock_held(&self) -> Option<LastSync> {
        self.last_sync.filter(|sync| matches!(sync.op, "locking" | "read-locking" | "write-locking"))
    }

    /// Whether the thread is the test harness's thread running a test: libtest names it after
    /// the test, which it runs.
    pub fn is_test_thread(&self) -> bool {
        self.test_thread
    }

    /// The test (as libtest names it) the access happened in: the test its thread runs, or whose
    /// harness thread spawned its thread through racer.
    pub fn test(&self) -> Option<&str> {
        self.test.as_deref()
    }

    /// The stack of the thread's spawn, for threads spawned through racer.
    pub fn spawned_at(&self) -> Option<&[Frame]> {
        self.spawned_at.as_deref()
    }

    /// Whether the accessing thread was started by something other than racer (a
    /// `std::thread`, a test harness, a foreign pool) and is not the main thread: racer sees
    /// none of the synchronisation that started it or that it does outside racer's wrappers,
    /// so a race involving it may be one that synchronisation prevents.
    pub fn is_foreign_thread(&self) -> bool {
        self.foreign_thread
    }

    /// The resolved backtrace, one `#N function  file:line:col` line per frame.
    pub fn backtrace(&self) -> String {
        let mut out = String::new();
        for (i, frame) in self.frames.iter().enumerate() {
            out.push_str(&format!("#{i} {frame}\n"));
        }
        out
    }

    /// The site as printed: the `#[track_caller]` location, or for the write of a cell's drop
    /// (whose location is std's drop glue) the user's frame that dropped it.
    fn site(&self) -> String {
        let in_drop_glue = self.location.file().starts_with("/rustc/");
        match self.frames.first() {
            Some(Frame { file: Some(file), line: Some(line), column, .. }) if in_drop_glue => {
                format!("{file}:{line}:{} (dropping the cell)", column.unwrap_or(0))
            }
            _ => self.location.to_string(),
        }
    }

    fn thread_label(&self) -> String {
        match &self.thread_name {
            Some(name) => format!("thread '{name}'"),
            None => format!("thread T{}", self.thread_id),
        }
    }
}

/// A data race: two conflicting accesses of one cell with no happens-before order between them.
#[derive(Debug, Clone)]
pub struct Race {
    pub(crate) kind: RaceKind,
    pub(crate) previous: Access,
    pub(crate) current: Access,
    pub(crate) type_name: &'static str,
    pub(crate) address: usize,
}

impl Race {
    pub fn kind(&self) -> RaceKind {
        self.kind
    }

    /// The access the shadow memory remembered.
    pub fn previous(&self) -> &Access {
        &self.previous
    }

    /// The access that found the race.
    pub fn current(&self) -> &Access {
        &self.current
    }

    /// The type inside the `Shared` cell, or `"raw memory"` for memory checked by
    /// `racer::annotate::read`/`write`.
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }

    /// The address of the cell's value at the current access.
    pub fn address(&self) -> usize {
        self.address
    }

    /// The test (as libtest names it) the race happened in, when racer can tell: see
    /// `Access::test`.
    pub fn test(&self) -> Option<&str> {
        self.current.test().or(self.previous.test())
    }

    /// What the report says of why the two accesses are unordered, one line each, from what
    /// racer saw of both threads: a lock one side held and the other did not, a thread racer
    /// did not start, or a thread that synchronised through nothing racer sees. Each is said
    /// only when racer's view makes it true.
    pub fn hints(&self) -> Vec<String> {
        let mut hints = Vec::new();
        let pair = [(&self.current, &self.previous), (&self.previous, &self.current)];
        for (access, other) in pair {
            let thread = capitalised(&access.thread_label());
            if access.foreign_thread && !access.test_thread {
                hints.push(format!(
                    "{thread} was not started by racer, so racer sees neither what ordered its start nor how it \
                     synchronises outside racer's wrappers: start it with racer::thread::spawn or scope, or mark \
                     that synchronisation with racer::annotate::release and acquire"
                ));
            } else if access.synchronised_only_at_start() && !other.synchronised_through_racer() {
                hints.push(format!(
                    "{thread} synchronised through nothing racer sees between its start and its {}: if std::sync, \
                     parking_lot, std's atomics or FFI order the two accesses, racer cannot see it (use racer's \
                     wrappers for them); racer's atomics with Relaxed order nothing",
                    access.kind.noun()
                ));
            }
        }
        if let Some(line) = self.locks_hint() {
            hints.push(line);
        }
        hints
    }

    /// The locks the two threads held, when that explains the race: one held a lock and the
    /// other took none since its start, or each held a different lock.
    fn locks_hint(&self) -> Option<String> {
        let held = |a: &Access, lock: LastSync| {
            let created = lock.created.map(|c| format!(" (created at {c})")).unwrap_or_default();
            let taken = lock.op.strip_suffix("ing").unwrap_or(lock.op);
            format!(
                "{} held {}{created}, {taken}ed at {}, at its {}",
                a.thread_label(),
                lock.object,
                lock.at,
                a.kind.noun()
            )
        };
        let (cur, prev) = (&self.current, &self.previous);
        match (cur.lock_held(), prev.lock_held()) {
            (Some(lock), None) | (None, Some(lock)) => {
                let (holder, other) = if cur.lock_held().is_some() { (cur, prev) } else { (prev, cur) };
                if !other.synchronised_only_at_start() {
                    return None;
                }
                Some(format!(
                    "{}; {} took no lock racer sees between its start and its {}: if that lock guards this cell, \
                     take it for the {} too",
                    capitalised(&held(holder, lock)),
                    other.thread_label(),
                    other.kind.noun(),
                    other.kind.noun()
                ))
            }
            (Some(a), Some(b)) => {
                let (ca, cb) = (a.created?, b.created?);
                if std::ptr::eq(ca, cb) || ca == cb {
                    return None;
                }
                Some(format!(
                    "{}; {}: two different locks, which order nothing between them",
                    capitalised(&held(cur, a)),
                    held(prev, b)
                ))
            }
            (None, None) => None,
        }
    }
}

impl fmt::Display for Race {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "==================")?;
        // Raw memory checked by `annotate::read`/`write` has no type to name.
        if self.type_name == "raw memory" {
            writeln!(f, "WARNING: racer: data race ({}) on raw memory at {:#x}", self.kind.explained(), self.address)?;
        } else {
            writeln!(
                f,
                "WARNING: racer: data race ({}) on Shared<{}> at {:#x}",
                self.kind.explained(),
                self.type_name,
                self.address
            )?;
        }
        if let Some(test) = self.test() {
            writeln!(f, "  In test `{test}`")?;
        }
        for (access, prefix) in [(&self.current, ""), (&self.previous, "Previous ")] {
            let noun = access.kind.noun();
            let head = if prefix.is_empty() { capitalised(noun) } else { format!("{prefix}{noun}") };
            writeln!(f, "  {head} by {} at {}:", access.thread_label(), access.site())?;
            write_frames(f, &access.frames)?;
            match &access.after_sync {
                Some(sync) => writeln!(f, "    (the thread's last synchronisation before it: {sync})")?,
                None => writeln!(f, "    (no synchronisation by the thread before it)")?,
            }
        }
        let mut seen = Vec::new();
        for access in [&self.current, &self.previous] {
            if seen.contains(&access.thread_id) {
                continue;
            }
            seen.push(access.thread_id);
            if let Some(frames) = &access.spawned_at {
                writeln!(f, "  {} spawned at:", capitalised(&access.thread_label()))?;
                write_frames(f, frames)?;
            }
        }
        for hint in self.hints() {
            writeln!(f, "  {hint}")?;
        }
        writeln!(f, "==================")
    }
}

pub(crate) fn race_json(race: &Race, out: &mut String) {
    out.push_str(&format!(
        "{{\"kind\":\"{}\",\"type\":{},\"address\":\"{:#x}\",\"test\":{},\"current\":",
        race.kind.name(),
        json_string(race.type_name),
        race.address,
        race.test().map(json_string).unwrap_or_else(|| "null".into()),
    ));
    access_json(&race.current, out);
    out.push_str(",\"previous\":");
    access_json(&race.previous, out);
    out.push_str(",\"hints\":[");
    for (i, hint) in race.hints().iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&json_string(hint));
    }
    out.push_str("]}");
}

fn access_json(a: &Access, out: &mut String) {
    out.push_str(&format!(
        "{{\"access\":\"{}\",\"thread\":{{\"name\":{},\"id\":{}}},\"site\":{{\"file\":{},\"line\":{},\"column\":{}}},\"after_sync\":{},\"frames\":",
        a.kind.noun(),
        a.thread_name.as_deref().map(json_string).unwrap_or_else(|| "null".into()),
        a.thread_id,
        json_string(a.location.file()),
        a.location.line(),
        a.location.column(),
        a.after_sync.as_deref().map(json_string).unwrap_or_else(|| "null".into()),
    ));
    frames_json(&a.frames, out);
    out.push_str(",\"spawned_at\":");
    match &a.spawned_at {
        Some(frames) => frames_json(frames, out),
        None => out.push_str("null"),
    }
    out.push_str(&format!(",\"foreign_thread\":{},\"test_thread\":{}", a.foreign_thread, a.test_thread));
    out.push('}');
}
