//! A task's status and the transitions the extension allows.

/// Where a task is. `working` and `input_required` go on; the other three are terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Status {
    /// The request is being processed.
    Working,
    /// The server waits for the client's responses to its `inputRequests`.
    InputRequired,
    /// The request finished with a result (a tool result with `isError: true` included).
    Completed,
    /// The request ended in a JSON-RPC error, and only then.
    Failed,
    /// The request was cancelled before it finished.
    Cancelled,
}

impl Status {
    /// Every status, in the extension's order.
    pub const ALL: [Status; 5] = [
        Status::Working,
        Status::InputRequired,
        Status::Completed,
        Status::Failed,
        Status::Cancelled,
    ];

    /// The wire name, e.g. `input_required`.
    pub const fn name(self) -> &'static str {
        match self {
            Status::Working => "working",
            Status::InputRequired => "input_required",
            Status::Completed => "completed",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }

    /// The status named `name`.
    pub fn from_name(name: &str) -> Option<Status> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }

    /// Whether the task is over: nothing changes it any more.
    pub const fn is_terminal(self) -> bool {
        matches!(self, Status::Completed | Status::Failed | Status::Cancelled)
    }

    /// Whether a task may go from this status to `next`: `working` and `input_required` to
    /// each other and to any terminal status, and either to itself (a new status message);
    /// a terminal status to nothing, itself included, so a task finishes once.
    pub const fn may_become(self, next: Status) -> bool {
        match self {
            // The diagram's every arrow out of the two live statuses.
            Status::Working | Status::InputRequired => matches!(
                next,
                Status::Working
                    | Status::InputRequired
                    | Status::Completed
                    | Status::Failed
                    | Status::Cancelled
            ),
            Status::Completed | Status::Failed | Status::Cancelled => false,
        }
    }
}
