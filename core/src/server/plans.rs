//! A memo of tools' compiled input schemas ([`Plan`](crate::schema::Plan)s), so that a `tools/call` does not read
//! its tool's schema keywords again on every round (feature `schema-plans`).
//!
//! Like [`Verified`](super::verified), it holds no request data and names a schema by
//! addresses: of the memo itself (which moves with the server), of the [`Tool`](super::Tool), and of the
//! schema text and its length. A plan is only handed out for the same four, so it is only
//! ever applied to the text it was compiled from. Each slot is a sequence lock over atomics:
//! a writer makes the count odd, writes, makes it even again; a reader that sees the count
//! change, or odd, takes nothing. A miss costs only the reading of the schema, as with no plan.
//!
//! Without the feature (firmware: the memo would cost about 2.9 KiB of the server's RAM),
//! or on a target without 32-bit, 64-bit and pointer-sized atomics, it remembers nothing.

#[cfg(all(
    feature = "schema-plans",
    target_has_atomic = "ptr",
    target_has_atomic = "32",
    target_has_atomic = "64"
))]
pub(crate) use kept::Plans;

#[cfg(not(all(
    feature = "schema-plans",
    target_has_atomic = "ptr",
    target_has_atomic = "32",
    target_has_atomic = "64"
)))]
pub(crate) use nothing::Plans;

#[cfg(all(
    feature = "schema-plans",
    target_has_atomic = "ptr",
    target_has_atomic = "32",
    target_has_atomic = "64"
))]
mod kept {
    use super::super::Tool;
    use crate::schema::{PLAN_WORDS, Plan};
    use core::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering, fence};

    /// A plan's words kept two to an atomic: half the loads to copy one out.
    const PAIRS: usize = PLAN_WORDS.div_ceil(2);

    /// Slots of the memo: tools whose indexes are equal modulo this share a slot.
    const SLOTS: usize = 8;

    /// See the module documentation.
    #[derive(Debug)]
    pub(crate) struct Plans {
        slots: [Slot; SLOTS],
    }

    impl Plans {
        pub(crate) const fn new() -> Self {
            Plans {
                slots: [const { Slot::new() }; SLOTS],
            }
        }

        /// Copies into `plan` the plan kept for `tool`, at `index` in the registry, if it
        /// was compiled from `text`; `false` (and `plan` holding nothing useful) otherwise.
        /// The caller's plan is filled in place: a plan returned by value cost a second copy.
        pub(crate) fn get_into(
            &self,
            index: usize,
            tool: &Tool<'_>,
            text: &[u8],
            plan: &mut Plan,
        ) -> bool {
            self.slots
                .get(index % SLOTS)
                .is_some_and(|slot| slot.get_into(self.key(tool, text), plan))
        }

        /// The plan kept for `tool`, at `index` in the registry, if it was compiled from
        /// `text`.
        #[cfg(test)]
        pub(crate) fn get(&self, index: usize, tool: &Tool<'_>, text: &[u8]) -> Option<Plan> {
            let mut plan = Plan::EMPTY;
            self.get_into(index, tool, text, &mut plan).then_some(plan)
        }

        /// Keeps what `compile` makes of `text`, the input schema of `tool` at `index`,
        /// unless another thread is writing that slot right now.
        pub(crate) fn put(
            &self,
            index: usize,
            tool: &Tool<'_>,
            text: &[u8],
            compile: impl FnOnce() -> Option<Plan>,
        ) {
            if let (Some(slot), Some(plan)) = (self.slots.get(index % SLOTS), compile()) {
                slot.put(self.key(tool, text), &plan);
            }
        }

        /// What a plan is kept under: this memo's, the tool's and the text's addresses, and
        /// the text's length.
        fn key(&self, tool: &Tool<'_>, text: &[u8]) -> [usize; 4] {
            [
                core::ptr::from_ref(self) as usize,
                core::ptr::from_ref(tool) as usize,
                text.as_ptr() as usize,
                text.len(),
            ]
        }
    }

    /// One plan and its key under a sequence count.
    #[derive(Debug)]
    struct Slot {
        /// Even when settled, odd while being written.
        seq: AtomicU32,
        key: [AtomicUsize; 4],
        words: [AtomicU64; PAIRS],
    }

    impl Slot {
        const fn new() -> Self {
            Slot {
                seq: AtomicU32::new(0),
                key: [const { AtomicUsize::new(0) }; 4],
                words: [const { AtomicU64::new(0) }; PAIRS],
            }
        }

        /// Copies the plan kept under `key` into `plan`, if the slot holds one and is not
        /// being written.
        fn get_into(&self, key: [usize; 4], plan: &mut Plan) -> bool {
            let seq = self.seq.load(Ordering::Acquire);
            if seq % 2 == 1 {
                return false;
            }
            if self
                .key
                .iter()
                .zip(key)
                .any(|(k, wanted)| k.load(Ordering::Relaxed) != wanted)
            {
                return false;
            }
            for (into, pair) in plan.words_mut().chunks_mut(2).zip(&self.words) {
                let pair = pair.load(Ordering::Relaxed);
                for (into, word) in into.iter_mut().zip([pair as u32, (pair >> 32) as u32]) {
                    *into = word;
                }
            }
            fence(Ordering::Acquire);
            self.seq.load(Ordering::Relaxed) == seq
        }

        /// Keeps `plan` under `key`, unless another writer holds the slot.
        fn put(&self, key: [usize; 4], plan: &Plan) {
            let seq = self.seq.load(Ordering::Relaxed);
            let next = seq.wrapping_add(1);
            if seq % 2 == 1
                || self
                    .seq
                    .compare_exchange(seq, next, Ordering::Acquire, Ordering::Relaxed)
                    .is_err()
            {
                return;
            }
            fence(Ordering::Release);
            for (slot, k) in self.key.iter().zip(key) {
                slot.store(k, Ordering::Relaxed);
            }
            for (slot, pair) in self.words.iter().zip(plan.words().chunks(2)) {
                let low = pair.first().copied().unwrap_or(0);
                let high = pair.get(1).copied().unwrap_or(0);
                slot.store(u64::from(low) | u64::from(high) << 32, Ordering::Relaxed);
            }
            self.seq.store(next.wrapping_add(1), Ordering::Release);
        }
    }
}

#[cfg(not(all(
    feature = "schema-plans",
    target_has_atomic = "ptr",
    target_has_atomic = "32",
    target_has_atomic = "64"
)))]
mod nothing {
    use super::super::Tool;
    use crate::schema::Plan;

    /// The memo compiled out: it keeps nothing and costs no memory.
    #[derive(Debug)]
    pub(crate) struct Plans;

    impl Plans {
        pub(crate) const fn new() -> Self {
            Plans
        }

        pub(crate) fn get_into(&self, _: usize, _: &Tool<'_>, _: &[u8], _: &mut Plan) -> bool {
            false
        }

        pub(crate) fn put(
            &self,
            _: usize,
            _: &Tool<'_>,
            _: &[u8],
            _compile: impl FnOnce() -> Option<Plan>,
        ) {
        }
    }
}

#[cfg(all(
    test,
    feature = "schema-plans",
    target_has_atomic = "ptr",
    target_has_atomic = "32",
    target_has_atomic = "64"
))]
mod tests {
    extern crate std;

    use super::super::Tool;
    use super::Plans;
    use crate::json::{Limits, parse};
    use crate::schema::Plan;

    const SCHEMA: &str = r#"{"type":"object","properties":{"n":{"type":"integer"}}}"#;
    const TOOLS: [Tool<'static>; 2] = [
        Tool::new("a").input_schema(SCHEMA),
        Tool::new("b").input_schema(SCHEMA),
    ];

    fn compiled() -> Option<Plan> {
        Plan::compile(parse(SCHEMA.as_bytes(), &Limits::default()).ok()?)
    }

    #[test]
    fn a_plan_is_handed_back_only_for_its_tool_and_text() {
        let plans = Plans::new();
        let text = SCHEMA.as_bytes();
        assert!(plans.get(0, &TOOLS[0], text).is_none());
        plans.put(0, &TOOLS[0], text, compiled);
        assert_eq!(plans.get(0, &TOOLS[0], text), compiled());
        // Another tool in the same slot, or another text, finds nothing.
        assert!(plans.get(8, &TOOLS[1], text).is_none());
        assert!(plans.get(0, &TOOLS[0], &text[..text.len() - 1]).is_none());
        // A later plan for the slot replaces the earlier one.
        plans.put(8, &TOOLS[1], text, compiled);
        assert!(plans.get(0, &TOOLS[0], text).is_none());
        assert!(plans.get(8, &TOOLS[1], text).is_some());
    }

    #[test]
    fn the_memo_costs_what_the_feature_says() {
        // Documented as about 2.9 KiB on a 64-bit host (core/Cargo.toml).
        assert!(
            core::mem::size_of::<Plans>() <= 2970,
            "{}",
            core::mem::size_of::<Plans>()
        );
    }

    #[test]
    fn a_moved_memo_starts_over() {
        let plans = Plans::new();
        let text = SCHEMA.as_bytes();
        plans.put(1, &TOOLS[1], text, compiled);
        // On the heap, it is certainly somewhere else.
        let moved = std::boxed::Box::new(plans);
        assert!(moved.get(1, &TOOLS[1], text).is_none());
    }
}
