//! Which allocations live exactly as long as an adapter instance.
//!
//! An instance's store (its instance records, tables, registries, resource
//! table) is allocated while the instance is built and freed all at once when it
//! is dropped, a session's instance being dropped when the session is parked.
//! Allocated among the session's own longer-lived objects, the freed store
//! leaves holes in pages that stay resident; an allocator that asks
//! [`building_instance`] can keep it in pages of its own, which a parked
//! session then leaves empty and the allocator gives back to the system.

use std::cell::Cell;

#[cfg(target_env = "musl")]
mod allocator;

#[cfg(target_env = "musl")]
pub use allocator::{give_back_instance_memory, set_daemon_options, Allocator};

thread_local! {
    static BUILDING: Cell<bool> = const { Cell::new(false) };
}

/// Whether the calling thread is building an adapter instance: what it
/// allocates now belongs to that instance's store. Cheap enough for an
/// allocator to ask on every allocation (a thread-local flag, never lazily
/// initialised, without a destructor).
pub fn building_instance() -> bool {
    BUILDING.try_with(Cell::get).unwrap_or(false)
}

/// Runs `build`, which builds an instance, marked as [`building_instance`].
pub(crate) fn building<R>(build: impl FnOnce() -> R) -> R {
    /// Puts the mark back as it was, even if `build` panics.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            BUILDING.with(|building| building.set(self.0));
        }
    }
    let _restore = Restore(BUILDING.with(|building| building.replace(true)));
    build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mark_holds_only_while_an_instance_is_built() {
        assert!(!building_instance());
        let inside = building(|| building(building_instance) && building_instance());
        assert!(inside);
        assert!(!building_instance());
        let panicked = std::panic::catch_unwind(|| building(|| panic!("a failed build")));
        assert!(panicked.is_err());
        assert!(!building_instance(), "a panic leaves the mark as it was");
    }
}
