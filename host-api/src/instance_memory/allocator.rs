//! The static release binaries' allocator: mimalloc (musl's own serializes
//! threads), with what adapter instances allocate kept in pages of their own.
//!
//! A session's instance is built among the session's longer-lived objects and
//! dropped when the session is parked; in shared pages, the holes it leaves
//! stay resident. Allocations made while an instance is built
//! ([`super::building_instance`]) go to a heap of their own (one per
//! thread, as mimalloc's heaps are), whose pages the dropped instances leave
//! empty: [`give_back_instance_memory`] returns them to the system.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::ptr;

use super::building_instance;
use libmimalloc_sys as mi;
use mimalloc::MiMalloc;

/// mimalloc, with a heap per thread for adapter instances.
pub struct Allocator;

thread_local! {
    /// This thread's heap for instance allocations (created on first use).
    static INSTANCE_HEAP: Cell<*mut mi::mi_heap_t> = const { Cell::new(ptr::null_mut()) };
}

/// The heap for the allocation asked for now: this thread's instance heap
/// while an instance is built, else `None` (mimalloc's default heap).
fn instance_heap() -> Option<*mut mi::mi_heap_t> {
    if !building_instance() {
        return None;
    }
    INSTANCE_HEAP
        .try_with(|heap| {
            if heap.get().is_null() {
                // mimalloc allocates the heap itself, not through this allocator.
                heap.set(unsafe { mi::mi_heap_new() });
            }
            heap.get()
        })
        .ok()
        .filter(|heap| !heap.is_null())
}

// SAFETY: every block comes from mimalloc (a heap of this thread or the default
// one) with the layout's size and alignment; mimalloc frees and reallocates any
// of its blocks from any thread.
unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match instance_heap() {
            Some(heap) => mi::mi_heap_malloc_aligned(heap, layout.size(), layout.align()).cast(),
            None => MiMalloc.alloc(layout),
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match instance_heap() {
            Some(heap) => mi::mi_heap_zalloc_aligned(heap, layout.size(), layout.align()).cast(),
            None => MiMalloc.alloc_zeroed(layout),
        }
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        MiMalloc.dealloc(block, layout)
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        match instance_heap() {
            Some(heap) => {
                mi::mi_heap_realloc_aligned(heap, block.cast(), new_size, layout.align()).cast()
            }
            None => MiMalloc.realloc(block, layout, new_size),
        }
    }
}

/// Returns to the system the pages of this thread's instance heap that dropped
/// instances left empty (blocks another thread freed are counted here too).
pub fn give_back_instance_memory() {
    let _ = INSTANCE_HEAP.try_with(|heap| {
        if !heap.get().is_null() {
            unsafe { mi::mi_heap_collect(heap.get(), false) };
        }
    });
}

/// Sets mimalloc's options for a daemon, before the first allocation of any
/// thread (the binary's `main` calls it first).
///
/// mimalloc commits whole arenas up front by default: 7 MB of idle memory for
/// nothing; it commits on demand instead. And it returns freed pages to the system
/// 10 ms later, but only when the thread that freed them allocates again: the pages
/// of a thousand sessions parked at rest stayed resident (10 MiB of 1,000 sessions'
/// 64). It returns them at once instead: the same event rates, measured
/// (docs/benchmarks.md).
pub fn set_daemon_options() {
    // Positions in mimalloc v2's `mi_option_e` (libmimalloc-sys exports only the
    // options mimalloc calls stable).
    const ARENA_EAGER_COMMIT: mi::mi_option_t = 4;
    const PURGE_DELAY: mi::mi_option_t = 15;
    // SAFETY: setting an option only changes what mimalloc does from then on.
    unsafe {
        mi::mi_option_set(ARENA_EAGER_COMMIT, 0);
        mi::mi_option_set(PURGE_DELAY, 0);
    }
}
