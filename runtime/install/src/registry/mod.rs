//! The ACP registry: the public index of agents that speak the Agent Client
//! Protocol, each with how to get it (an npm package run like `npx`, a PyPI
//! package run like `uvx`, or a release archive per platform) and the command
//! line that starts it. [`index`] reads the index, [`source`] fetches and caches
//! it (or reads a pinned snapshot), [`launcher`] writes the script that starts an
//! installed agent, and [`Installer::install_entry`](crate::Installer::install_entry)
//! installs one.

pub mod index;
pub mod launcher;
pub(crate) mod pypi;
pub mod source;

pub use index::{Distribution, Entry, Index, IndexError, Package, Release};
pub use source::{Listing, Registry, RegistrySource, SourceError};
