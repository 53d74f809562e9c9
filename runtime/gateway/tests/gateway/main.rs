//! The gateway in front of the scripted model server, over loopback: what an
//! agent sends arrives upstream with the real key, what the upstream answers
//! reaches the agent byte for byte, every call's usage is read, and failures
//! come back in the format's shape without hanging; budgets refuse calls that
//! do not fit before they go upstream and cut streams once reached.

mod broker;
mod budgets;
mod common;
mod cuts;
mod failures;
mod forwarding;
mod passthrough;
mod usage;
mod websocket;
