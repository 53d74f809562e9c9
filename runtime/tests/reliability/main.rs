//! The reliability suite: the daemon under load, faults and hostile input. Each
//! module's documentation says what it proves; `docs/reliability.md` has the
//! figures and the long forms (selected by environment variables).

#[path = "../common/mod.rs"]
mod common;

mod agents;
mod auth;
mod connections;
mod crash_loop;
mod hostile_http;
mod soak;
mod stop;
mod support;
