//! The reliability suite: the daemon under hostile input, faults and load, one
//! module per concern (docs/reliability.md has the figures and the long forms).

#[path = "../common/mod.rs"]
mod common;

mod auth;
mod hostile_http;
mod stop;
mod support;
