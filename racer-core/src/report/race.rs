//! What a race report says: the public `Report`, `Race`, `Access` types, the human layout and
//! the JSON layout. Compiled in both builds so user code naming them compiles unchanged; with
//! the feature off no value of them is ever made but the empty `Report`.

use std::fmt;
use std::panic::Location;

use super::deadlock::{deadlock_json, Deadlock};

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

/// One resolved stack frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub function: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub column: Option<u32>,
}

impl fmt::Display for Frame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.function)?;
        if let Some(file) = &self.file {
            write!(f, "  {file}")?;
            if let Some(line) = self.line {
                write!(f, ":{line}")?;
                if let Some(col) = self.column {
                    write!(f, ":{col}")?;
                }
            }
        }
        Ok(())
    }
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
    /// Where the thread was spawned (absent for threads racer did not spawn).
    pub(crate) spawned_at: Option<Vec<Frame>>,
    /// The thread was not started by racer (and is not the main thread).
    pub(crate) foreign_thread: bool,
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
        self.after_sync.as_deref().map_or(true, |sync| sync.starts_with("starting from spawn"))
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

    /// The type inside the `Shared` cell.
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }

    /// The address of the cell's value at the current access.
    pub fn address(&self) -> usize {
        self.address
    }
}

pub(crate) fn write_frames(f: &mut fmt::Formatter<'_>, frames: &[Frame]) -> fmt::Result {
    if frames.is_empty() {
        return writeln!(f, "    <no frames: build with debug info to see them>");
    }
    for (i, frame) in frames.iter().enumerate() {
        writeln!(f, "    #{i} {frame}")?;
    }
    Ok(())
}

pub(crate) fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map(|c| c.to_uppercase().collect::<String>() + chars.as_str()).unwrap_or_default()
}

impl fmt::Display for Race {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "==================")?;
        writeln!(
            f,
            "WARNING: racer: data race ({}) on Shared<{}> at {:#x}",
            self.kind.explained(),
            self.type_name,
            self.address
        )?;
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
            if access.foreign_thread {
                writeln!(
                    f,
                    "  {} was not started by racer: how it was started, and any synchronisation it does outside \
                     racer's wrappers, is invisible to racer (start it with racer::thread::spawn or scope)",
                    capitalised(&access.thread_label())
                )?;
            } else if access.synchronised_only_at_start() {
                writeln!(
                    f,
                    "  {} synchronised through nothing racer sees between its start and this access: if \
                     std::sync, parking_lot, std's atomics or FFI order these accesses, racer cannot see it \
                     (use racer's wrappers for them)",
                    capitalised(&access.thread_label())
                )?;
            }
        }
        writeln!(f, "==================")
    }
}

/// The races and deadlocks found by one `racer::check` run, each in the order found.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub(crate) races: Vec<Race>,
    pub(crate) deadlocks: Vec<Deadlock>,
}

impl Report {
    pub fn races(&self) -> &[Race] {
        &self.races
    }

    /// The deadlocks found: lock-order inversions (potential), re-locks and real hangs.
    pub fn deadlocks(&self) -> &[Deadlock] {
        &self.deadlocks
    }

    /// True only when neither a race nor a deadlock was found.
    pub fn is_empty(&self) -> bool {
        self.races.is_empty() && self.deadlocks.is_empty()
    }

    /// The number of races and deadlocks found.
    pub fn len(&self) -> usize {
        self.races.len() + self.deadlocks.len()
    }

    /// The report as JSON: `{"races": [...]}`, one object per race, in the order found. The
    /// field names are stable (new fields may be added; none is renamed or removed):
    ///
    /// ```text
    /// kind        "flow" | "anti" | "output"
    /// type        the type inside the Shared cell, e.g. "u64"
    /// address     the cell's address, a hex string "0x7f.."
    /// current     the access that found the race   } each an access object:
    /// previous    the access the detector remembered }
    ///   access      "read" | "write"
    ///   thread      {"name": string or null, "id": racer's thread number (1, 2, ...)}
    ///   site        {"file", "line", "column"}: the #[track_caller] site of the access
    ///   after_sync  the thread's last synchronisation before the access, e.g.
    ///               "locking Mutex (created at src/q.rs:12:5) at src/q.rs:40:9", or null
    ///   frames      [{"function", "file" (or null), "line" (or null)}], innermost first,
    ///               racer's own frames left out, at most `history` of them
    ///   spawned_at  the frames of the spawn that made the thread, or null for threads
    ///               racer did not spawn
    ///   foreign_thread  true for a thread racer did not start, other than the main thread
    /// ```
    ///
    /// With `RACER_OPTIONS=report=json`, races found outside `check` are written one such race
    /// object per line (JSON Lines).
    ///
    /// Deadlocks, when there are any, follow in `"deadlocks": [...]`, one object per deadlock (see `Deadlock`'s
    /// JSON in the README): `kind` (`lock_order_inversion`, `relock`, `hang`), `edges` and
    /// `threads`. Outside `check` each is one line `{"deadlock": {...}}`.
    pub fn to_json(&self) -> String {
        let mut out = String::from("{\"races\":[");
        for (i, race) in self.races.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            race_json(race, &mut out);
        }
        out.push(']');
        // Only when there are some: a report without deadlocks reads as it always did.
        if !self.deadlocks.is_empty() {
            out.push_str(",\"deadlocks\":[");
            for (i, d) in self.deadlocks.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                deadlock_json(d, &mut out);
            }
            out.push(']');
        }
        out.push('}');
        out
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.races.is_empty() && self.deadlocks.is_empty() {
            return writeln!(f, "racer: no data races found");
        }
        for race in &self.races {
            write!(f, "{race}")?;
        }
        for deadlock in &self.deadlocks {
            write!(f, "{deadlock}")?;
        }
        if self.deadlocks.is_empty() {
            writeln!(f, "racer: {} data race(s) found", self.races.len())
        } else {
            writeln!(f, "racer: {} data race(s) and {} deadlock(s) found", self.races.len(), self.deadlocks.len())
        }
    }
}

pub(crate) fn race_json(race: &Race, out: &mut String) {
    out.push_str(&format!(
        "{{\"kind\":\"{}\",\"type\":{},\"address\":\"{:#x}\",\"current\":",
        race.kind.name(),
        json_string(race.type_name),
        race.address
    ));
    access_json(&race.current, out);
    out.push_str(",\"previous\":");
    access_json(&race.previous, out);
    out.push('}');
}

pub(crate) fn location_json(l: &Location<'_>, out: &mut String) {
    out.push_str(&format!("{{\"file\":{},\"line\":{},\"column\":{}}}", json_string(l.file()), l.line(), l.column()));
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
    out.push_str(&format!(",\"foreign_thread\":{}", a.foreign_thread));
    out.push('}');
}

pub(crate) fn frames_json(frames: &[Frame], out: &mut String) {
    out.push('[');
    for (i, fr) in frames.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!(
            "{{\"function\":{},\"file\":{},\"line\":{}}}",
            json_string(&fr.function),
            fr.file.as_deref().map(json_string).unwrap_or_else(|| "null".into()),
            fr.line.map(|l| l.to_string()).unwrap_or_else(|| "null".into()),
        ));
    }
    out.push(']');
}

pub(crate) fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
