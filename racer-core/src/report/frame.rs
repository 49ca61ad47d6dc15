//! A resolved stack frame, and the pieces of layout both kinds of report share (frames as text,
//! frames, locations and strings as JSON).

use std::fmt;
use std::panic::Location;

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

pub(crate) fn location_json(l: &Location<'_>, out: &mut String) {
    out.push_str(&format!("{{\"file\":{},\"line\":{},\"column\":{}}}", json_string(l.file()), l.line(), l.column()));
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
