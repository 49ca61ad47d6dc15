pub mod oracle;
pub mod trace;
