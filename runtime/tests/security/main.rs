//! Attacks on the daemon, performed as an attacker would against the real binary:
//! HTTP on loopback, real files, real processes. Each module says which attack it
//! performs and what must stop it (`SECURITY.md` has the threat model).

#[path = "../common/mod.rs"]
mod common;

mod archives;
mod broker;
mod connections;
mod front_door;
mod fs_root;
mod raw;
mod secrets;
mod skill_sources;
mod token;
