//! When a session gives its adapter instance back (parks), keeping only the
//! adapter's snapshot until its next input rebuilds the instance.
//!
//! A live instance costs tens of KiB (its guest pages and wasmtime's records of
//! it); rebuilding one takes tens of microseconds. A session parks after a while
//! without input, and, past a cap on the instances held at once, the session whose
//! instance was used least recently parks now, whatever its idle time. Memory
//! then stays bounded however many sessions had a turn recently, and the sessions
//! in use keep their instances.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hashlink::LinkedHashMap;
use tokio::sync::Notify;

/// The sessions holding an instance, least recently used first, and the cap.
pub struct LiveInstances {
    /// Most instances held at once; `None`: no cap.
    cap: Option<usize>,
    /// By slot number: how to ask that session to park.
    listed: Mutex<LinkedHashMap<u64, Arc<Notify>>>,
    next_slot: AtomicU64,
}

impl LiveInstances {
    /// At most `cap` instances held at once (`None`: as many as there are sessions).
    pub fn new(cap: Option<usize>) -> Arc<Self> {
        Arc::new(Self {
            cap,
            listed: Mutex::default(),
            next_slot: AtomicU64::new(0),
        })
    }

    /// A session's place in the list (not listed until its instance is used).
    pub fn slot(self: &Arc<Self>) -> InstanceSlot {
        InstanceSlot {
            number: self.next_slot.fetch_add(1, Ordering::Relaxed),
            evicted: Arc::new(Notify::new()),
            instances: self.clone(),
        }
    }

    /// How many sessions hold an instance (as far as their tasks have said).
    #[cfg(test)]
    fn live(&self) -> usize {
        self.listed.lock().unwrap().len()
    }

    /// Lists `slot` as used last; past the cap, unlists the least recently used
    /// others and asks them to park.
    fn used(&self, slot: &InstanceSlot) {
        let mut evicted = Vec::new();
        {
            let mut listed = self.listed.lock().unwrap();
            if listed.to_back(&slot.number).is_none() {
                listed.insert(slot.number, slot.evicted.clone());
            }
            if let Some(cap) = self.cap {
                while listed.len() > cap.max(1) {
                    let Some((_, notify)) = listed.pop_front() else {
                        break;
                    };
                    evicted.push(notify);
                }
            }
            crate::metrics::metrics()
                .adapter_instances
                .set(listed.len() as i64);
        }
        for notify in evicted {
            crate::metrics::metrics().instances_parked_for_room.inc();
            notify.notify_one();
        }
    }

    fn released(&self, slot: &InstanceSlot) {
        let mut listed = self.listed.lock().unwrap();
        if listed.remove(&slot.number).is_some() {
            crate::metrics::metrics()
                .adapter_instances
                .set(listed.len() as i64);
        }
    }

    fn is_listed(&self, slot: &InstanceSlot) -> bool {
        self.listed.lock().unwrap().contains_key(&slot.number)
    }
}

/// One session's entry in [`LiveInstances`]; leaves the list when dropped.
pub struct InstanceSlot {
    number: u64,
    evicted: Arc<Notify>,
    instances: Arc<LiveInstances>,
}

impl InstanceSlot {
    /// The session's instance was just used (it holds one).
    pub fn used(&self) {
        self.instances.used(self);
    }

    /// The session let its instance go (parked, or the session ends).
    pub fn released(&self) {
        self.instances.released(self);
    }

    /// Completes when the session is asked to park to make room and has not used
    /// its instance since (a request overtaken by a newer use is skipped).
    pub async fn evicted(&self) {
        loop {
            self.evicted.notified().await;
            if !self.instances.is_listed(self) {
                return;
            }
        }
    }
}

impl Drop for InstanceSlot {
    fn drop(&mut self) {
        self.released();
    }
}

/// When one session parks: after `after` without input, or when its slot is
/// asked to make room.
pub struct Parking {
    /// How long the session sits without input before it parks; `None`: never.
    pub after: Option<Duration>,
    /// The session's place among those holding an instance (`None`: not counted).
    pub slot: Option<InstanceSlot>,
}

impl Parking {
    /// Never parks.
    pub fn never() -> Self {
        Self {
            after: None,
            slot: None,
        }
    }

    /// Completes when the session should park (once it has sat without input
    /// for the idle time from now, or is asked to make room).
    pub async fn due(&self) {
        let idle = async {
            match self.after {
                Some(after) => tokio::time::sleep(after).await,
                None => std::future::pending().await,
            }
        };
        let evicted = async {
            match &self.slot {
                Some(slot) => slot.evicted().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = idle => {}
            () = evicted => {}
        }
    }

    /// Tells the list of live instances whether the session holds one now.
    pub fn note_use(&self, parked: bool) {
        if let Some(slot) = &self.slot {
            if parked {
                slot.released();
            } else {
                slot.used();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    async fn asked_to_park(slot: &InstanceSlot) -> bool {
        tokio::time::timeout(Duration::from_millis(20), slot.evicted())
            .await
            .is_ok()
    }

    #[tokio::test]
    async fn past_the_cap_the_least_recently_used_is_asked_to_park() {
        let instances = LiveInstances::new(Some(2));
        let [a, b, c] = [instances.slot(), instances.slot(), instances.slot()];
        a.used();
        b.used();
        a.used();
        c.used();
        assert_eq!(instances.live(), 2);
        assert!(asked_to_park(&b).await, "b was used least recently");
        assert!(!asked_to_park(&a).await);
        assert!(!asked_to_park(&c).await);
    }

    #[tokio::test]
    async fn a_request_to_park_overtaken_by_a_use_is_skipped() {
        let instances = LiveInstances::new(Some(1));
        let [a, b] = [instances.slot(), instances.slot()];
        a.used();
        b.used();
        // a is asked to park, but takes input before it sees the request.
        a.used();
        assert!(!asked_to_park(&a).await);
        assert!(asked_to_park(&b).await);
        assert_eq!(instances.live(), 1);
    }

    #[tokio::test]
    async fn released_and_dropped_slots_leave_room() {
        let instances = LiveInstances::new(Some(2));
        let [a, b, c] = [instances.slot(), instances.slot(), instances.slot()];
        a.used();
        b.used();
        a.released();
        drop(b);
        c.used();
        assert_eq!(instances.live(), 1);
        assert!(!asked_to_park(&c).await);
        assert!(!asked_to_park(&a).await);
    }

    #[tokio::test]
    async fn without_a_cap_nobody_is_asked() {
        let instances = LiveInstances::new(None);
        let slots: Vec<_> = (0..100).map(|_| instances.slot()).collect();
        for slot in &slots {
            slot.used();
        }
        assert_eq!(instances.live(), 100);
        assert!(!asked_to_park(&slots[0]).await);
    }
}
