//! The changes a store makes to one [`TaskRecord`], written once for every store: the
//! memory store applies them under its lock, a database store to the row it read, then
//! writes the row back only if its `version` is still the one it read.

use snodo_core::tasks::Status;

use super::store::{Submitted, TaskRecord};

impl TaskRecord {
    /// Moves to `status` at `now_ms`, if the diagram allows it.
    fn move_to(&mut self, status: Status, now_ms: u64) -> bool {
        if !self.status.may_become(status) {
            return false;
        }
        self.status = status;
        self.touch(now_ms);
        true
    }

    /// Marks a change at `now_ms`.
    fn touch(&mut self, now_ms: u64) {
        self.updated_at_ms = now_ms;
        self.version += 1;
    }

    /// Keeps the responses to pending input requests; others are ignored.
    pub(crate) fn submit(&mut self, responses: Vec<(String, String)>, now_ms: u64) -> Submitted {
        if self.status != Status::InputRequired {
            return Submitted::Kept;
        }
        for (key, response) in responses {
            if let Some(at) = self.pending.iter().position(|k| *k == key) {
                self.pending.swap_remove(at);
                self.answers.push((key, response));
            }
        }
        self.touch(now_ms);
        if self.pending.is_empty() {
            Submitted::Ready
        } else {
            Submitted::Kept
        }
    }

    /// Becomes `cancelled` unless finished; whether it changed.
    pub(crate) fn cancel(&mut self, now_ms: u64) -> bool {
        let cancelled = self.move_to(Status::Cancelled, now_ms);
        if cancelled {
            self.payload = None;
            self.pending.clear();
            self.answers.clear();
        }
        cancelled
    }

    /// Parks a working task on `input_requests` with these keys pending.
    pub(crate) fn park(&mut self, input_requests: String, keys: Vec<String>, now_ms: u64) -> bool {
        let parked = self.status == Status::Working && self.move_to(Status::InputRequired, now_ms);
        if parked {
            self.payload = Some(input_requests);
            self.pending = keys;
            self.answers.clear();
        }
        parked
    }

    /// Working again with every answer, once none is pending.
    pub(crate) fn resume(&mut self, now_ms: u64) -> Option<Vec<(String, String)>> {
        let ready = self.status == Status::InputRequired && self.pending.is_empty();
        if !(ready && self.move_to(Status::Working, now_ms)) {
            return None;
        }
        self.payload = None;
        Some(std::mem::take(&mut self.answers))
    }

    /// Ends with `status` (terminal) and its payload, unless finished already.
    pub(crate) fn finish(
        &mut self,
        status: Status,
        payload: String,
        message: Option<String>,
        now_ms: u64,
    ) -> bool {
        let finished = status.is_terminal() && self.move_to(status, now_ms);
        if finished {
            self.payload = Some(payload);
            self.pending.clear();
            self.answers.clear();
            if message.is_some() {
                self.status_message = message;
            }
        }
        finished
    }

    /// Sets the status message of a task not yet finished.
    pub(crate) fn set_message(&mut self, message: String, now_ms: u64) -> bool {
        let live = !self.status.is_terminal();
        if live {
            self.status_message = Some(message);
            self.touch(now_ms);
        }
        live
    }
}
