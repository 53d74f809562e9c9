//! Per-instance state: the memory cap and the growth that triggers recycling, the
//! call clock, and the adapter's name.

use std::sync::Arc;

use wasmtime::ResourceLimiter;

use crate::ticker::EpochTicker;

/// Marker error raised inside a guest call when it asks for memory past the cap;
/// recognised afterwards to report [`crate::HostError::MemoryLimit`].
#[derive(Debug)]
pub(crate) struct MemoryLimitHit;

impl std::fmt::Display for MemoryLimitHit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("memory limit exceeded")
    }
}

impl std::error::Error for MemoryLimitHit {}

/// The store data of an adapter instance: caps memory and tables, remembers how
/// large the linear memory has grown, holds the clock that bounds call time, and
/// names the adapter for its log lines.
pub(crate) struct InstanceData {
    /// The adapter's id (or its origin while the id is not known yet).
    pub(crate) adapter: Arc<str>,
    memory_limit: usize,
    /// Largest memory size granted so far, in bytes.
    pub(crate) memory_size: usize,
    /// The engine's epoch clock; a guest call marks itself running on it.
    pub(crate) ticker: EpochTicker,
}

impl InstanceData {
    pub(crate) fn new(adapter: Arc<str>, memory_limit: usize, ticker: EpochTicker) -> Self {
        Self {
            adapter,
            memory_limit,
            memory_size: 0,
            ticker,
        }
    }
}

/// Most table elements an instance may have (function tables of ordinary guests
/// are a few thousand entries).
const TABLE_ELEMENTS_LIMIT: usize = 100_000;

impl ResourceLimiter for InstanceData {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.memory_limit {
            return Err(MemoryLimitHit.into());
        }
        self.memory_size = self.memory_size.max(desired);
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= TABLE_ELEMENTS_LIMIT)
    }
}
