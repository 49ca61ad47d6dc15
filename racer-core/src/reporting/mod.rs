//! **Layer 4: reporting**, the way of one report: `deliver` suppresses (`config`), dedups by
//! site pair, and delivers a race or deadlock into the check scope of the finding thread
//! (`runtime::check_scope`) or, outside any check, to `output`, which writes it whole in the
//! chosen format and place (and halts with `halt_on_error`).
//!
//! May import: `process`, `runtime`, `config`, `provenance`, `report`, `base`. Invariant: called
//! with none of the detector's locks held and no thread state borrowed; each site pair is
//! reported once per destination.

pub mod benign;
pub mod deliver;
pub mod output;
