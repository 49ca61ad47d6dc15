//! An acquisition as a report shows it (`LockUse`): with the stack captured at it, or, for a
//! lock held at a later acquisition, with its own site and the frames of that later stack that
//! still hold it. The lock-order inversion, re-lock and hang reports are built from these.

use std::panic::Location;

use crate::report::{Frame, LockUse};

use super::lock::Acq;

pub(super) fn lock_use(a: &Acq, frames: Vec<Frame>) -> LockUse {
    LockUse { lock: a.id, object: a.object, mode: a.mode, created: a.created, location: a.site, frames }
}

/// The stack of the acquisition of a lock held at a later acquisition whose stack is `later`:
/// its site, in the innermost frame of `later` in the same file at or after the site's line
/// (the function that took it and still holds it), then that frame's callers.
pub(super) fn held_frames(site: &'static Location<'static>, later: &[Frame]) -> Vec<Frame> {
    let same_file =
        |f: &Frame| f.file.as_deref().is_some_and(|file| file.ends_with(site.file()) || site.file().ends_with(file));
    let at_site = |function: String| Frame {
        function,
        file: Some(site.file().to_owned()),
        line: Some(site.line()),
        column: Some(site.column()),
    };
    match later.iter().position(|f| same_file(f) && f.line.is_some_and(|l| l >= site.line())) {
        Some(i) => {
            let mut frames = vec![at_site(later[i].function.clone())];
            frames.extend_from_slice(&later[i + 1..]);
            frames
        }
        None => vec![at_site("<a function that has returned since>".to_owned())],
    }
}
