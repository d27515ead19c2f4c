//! `report`: a tool written as a task would be. It takes a few seconds, asks one question
//! halfway, and can be cancelled. When the request declares the Tasks extension, it runs as a
//! task: the client polls `tasks/get` (whose `statusMessage` says which half is running),
//! answers the question with `tasks/update`, and cancels with `tasks/cancel`, which this
//! function sees and stops at. For any other client, the same function answers in its
//! request, and asks its question through `input_required`.

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use snodo_std::typed::{
    Cx, Elicited, Flow, Form, Stop, TaskContext, TaskSupport, ToolEntry, ToolError, questions, tool,
};

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReportArgs {
    /// What the report is about
    #[schemars(length(min = 1, max = 200))]
    topic: String,
    /// Seconds each half of the work takes (default 1)
    #[schemars(range(max = 30))]
    seconds: Option<u64>,
}

#[derive(Deserialize, JsonSchema)]
struct Detail {
    /// Include the detailed figures
    detailed: bool,
}

questions! {
    static DETAIL: Form<Detail> = Form::new("detail", "Include the detailed figures in the report?");
}

/// What survives the question: the first half's draft (sealed into `requestState`, or kept
/// by the task's host between its rounds), so the work is not done twice.
#[derive(Default, Serialize, Deserialize)]
struct Drafted {
    #[serde(skip_serializing_if = "Option::is_none")]
    draft: Option<String>,
}

/// The `report` tool.
pub fn report_tool() -> ToolEntry {
    tool("report")
        .title("Report")
        .description(
            "Writes a short report on a topic. Takes a few seconds and asks whether to \
             include detailed figures; runs as a task for clients that take tasks.",
        )
        .asks(&DETAIL)
        .task_support(TaskSupport::Optional)
        .run(report)
}

async fn report(args: ReportArgs, cx: Cx<'_>) -> Result<String, Stop> {
    let half = Duration::from_secs(args.seconds.unwrap_or(1));
    let task = cx.task();
    let mut flow = Flow::<Drafted>::open(cx)?;
    if flow.state().draft.is_none() {
        work(half, task.as_ref(), "Reading sources").await?;
        flow.state_mut().draft = Some(format!("Report on {}: three sources read.", args.topic));
    }
    let detailed = match flow.ask(&DETAIL)? {
        Elicited::Accepted(detail) => detail.detailed,
        _ => false,
    };
    work(half, task.as_ref(), "Writing the report").await?;
    let draft = flow.state().draft.as_deref().unwrap_or_default();
    Ok(if detailed {
        format!("{draft} Detailed figures included.")
    } else {
        format!("{draft} Summary only.")
    })
}

/// One half of the work, told as the task's status when it runs as one, and stopped early
/// when the task is cancelled.
async fn work(time: Duration, task: Option<&TaskContext>, doing: &str) -> Result<(), Stop> {
    let Some(task) = task else {
        tokio::time::sleep(time).await;
        return Ok(());
    };
    task.status(doing).await;
    tokio::select! {
        () = tokio::time::sleep(time) => Ok(()),
        () = task.cancelled() => Err(ToolError::new("The report was cancelled").into()),
    }
}
