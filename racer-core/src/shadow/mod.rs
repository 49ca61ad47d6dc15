pub mod cell;
pub mod state_slots;
pub mod seen;
