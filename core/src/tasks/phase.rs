//! Whether a call may become a task: decided by the core per request, so that a task can
//! only be offered to a request that declared the extension.

use crate::protocol::ClientCapabilities;
use crate::server::TaskSupport;

/// Where a call stands with the Tasks extension ([`RequestContext::task_phase`]).
///
/// [`RequestContext::task_phase`]: crate::server::RequestContext::task_phase
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TaskPhase {
    /// The call answers in its own request: the tool does not support tasks, or the
    /// request did not declare the extension.
    Unavailable,
    /// The call may become a task: the handler can end its reply with
    /// [`ToolReply::into_task`](crate::server::ToolReply::into_task) and the offer, and the
    /// host then runs it again as the task's work ([`TaskPhase::Running`]).
    Offered(TaskOffer),
    /// The call is the work of a task the host created: its result becomes the task's, and
    /// an `input_required` reply parks the task until `tasks/update` answers it.
    Running,
}

impl TaskPhase {
    /// The phase of a call to a tool with `support`, from a request that declared
    /// `declared`.
    pub(crate) fn of(support: TaskSupport, declared: ClientCapabilities) -> TaskPhase {
        if support != TaskSupport::Forbidden && declared.contains(ClientCapabilities::TASKS) {
            TaskPhase::Offered(TaskOffer(()))
        } else {
            TaskPhase::Unavailable
        }
    }

    /// The offer, when the call may become a task.
    pub fn offer(self) -> Option<TaskOffer> {
        match self {
            TaskPhase::Offered(offer) => Some(offer),
            TaskPhase::Unavailable | TaskPhase::Running => None,
        }
    }
}

/// Proof that a request declared the Tasks extension for a tool that supports tasks: only
/// the core makes one, so a reply cannot become a task for any other request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TaskOffer(());
