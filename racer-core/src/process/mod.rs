pub mod exit;
