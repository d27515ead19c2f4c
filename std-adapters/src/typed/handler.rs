//! Typed handlers: `async fn`s taking an argument struct and a [`Cx`], and the erased runners
//! the server keeps one of per definition.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;

use serde::de::DeserializeOwned;
use snodo_core::rpc::ErrorCode;
use snodo_core::server::{
    Done, Error, PromptGet, PromptReply, Reply, ResourceRead, ResourceReply, ToolCall, ToolReply,
};

use super::args::decode;
use super::context::{Cx, Stop, write_stop};
use super::output::{PromptMessages, ResourceOutput, ToolOutput};
use super::shared::Shared;

/// An `async fn(A, Cx<'_>) -> Output`: what `run`, `read` and `render` take. Implemented for
/// every such function; its future must be `Send` (adapters run calls on a multi-threaded
/// runtime).
///
/// ```
/// use snodo_std::typed::{Cx, Handler, NoArgs, Stop};
///
/// async fn ping(_: NoArgs, _cx: Cx<'_>) -> Result<&'static str, Stop> {
///     Ok("pong")
/// }
///
/// fn takes<F: for<'a> Handler<'a, NoArgs>>(_: F) {}
/// takes(ping);
/// ```
pub trait Handler<'a, A>: Send + Sync + 'static {
    /// What the handler returns.
    type Output;
    /// Its future.
    type Future: Future<Output = Self::Output> + Send + 'a;

    /// Runs the handler.
    fn call(&'a self, args: A, cx: Cx<'a>) -> Self::Future;
}

impl<'a, F, A, Fut> Handler<'a, A> for F
where
    F: Fn(A, Cx<'a>) -> Fut + Send + Sync + 'static,
    Fut: Future + Send + 'a,
{
    type Output = Fut::Output;
    type Future = Fut;

    fn call(&'a self, args: A, cx: Cx<'a>) -> Fut {
        self(args, cx)
    }
}

pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A tool's handler, erased.
pub(crate) trait RunTool: Send + Sync {
    fn run<'a, 'o: 'a>(
        &'a self,
        call: &'a ToolCall<'a>,
        reply: ToolReply<'o>,
        shared: &'a Shared,
    ) -> BoxFuture<'a, Result<Done<'o>, Error>>;
}

/// A resource's handler, erased: `vars` decode the template variables (none for a fixed
/// resource).
pub(crate) trait RunResource: Send + Sync {
    fn run<'a, 'o: 'a>(
        &'a self,
        call: &'a ResourceRead<'a>,
        reply: ResourceReply<'o>,
        vars: &'a [&'static str],
        mime_type: Option<&'static str>,
        shared: &'a Shared,
    ) -> BoxFuture<'a, Result<Done<'o>, Error>>;
}

/// A prompt's handler, erased.
pub(crate) trait RunPrompt: Send + Sync {
    fn run<'a, 'o: 'a>(
        &'a self,
        call: &'a PromptGet<'a>,
        reply: PromptReply<'o>,
        shared: &'a Shared,
    ) -> BoxFuture<'a, Result<Done<'o>, Error>>;
}

/// A typed function kept with the types it was registered with.
pub(crate) struct Typed<F, A, R> {
    f: F,
    types: PhantomData<fn(A) -> R>,
}

impl<F, A, R> Typed<F, A, R> {
    pub(crate) fn new(f: F) -> Self {
        Typed {
            f,
            types: PhantomData,
        }
    }
}

impl<F, A, R> RunTool for Typed<F, A, R>
where
    F: for<'x> Handler<'x, A, Output = Result<R, Stop>>,
    A: DeserializeOwned + Send + 'static,
    R: ToolOutput + 'static,
{
    fn run<'a, 'o: 'a>(
        &'a self,
        call: &'a ToolCall<'a>,
        mut reply: ToolReply<'o>,
        shared: &'a Shared,
    ) -> BoxFuture<'a, Result<Done<'o>, Error>> {
        Box::pin(async move {
            let args = match decode::<A>(call.arguments().as_value().raw()) {
                Ok(args) => args,
                Err(problem) => {
                    return Ok(reply.error_fmt(format_args!("Invalid arguments: {problem}")));
                }
            };
            // A tool that supports tasks becomes one whenever the request offers it; the
            // function then runs as the task's work (its questions park the task).
            if let Some(offer) = call.task_phase().offer() {
                return Ok(reply.into_task(offer));
            }
            let outcome = self.f.call(args, Cx::new(**call, &mut reply, shared)).await;
            match outcome {
                Ok(output) => output.write(reply),
                Err(stop) => write_stop(reply, stop, shared, &call.tool().name, |r, text| {
                    r.error_text(text)
                }),
            }
        })
    }
}

impl<F, A, R> RunResource for Typed<F, A, R>
where
    F: for<'x> Handler<'x, A, Output = Result<R, Stop>>,
    A: DeserializeOwned + Send + 'static,
    R: ResourceOutput + 'static,
{
    fn run<'a, 'o: 'a>(
        &'a self,
        call: &'a ResourceRead<'a>,
        mut reply: ResourceReply<'o>,
        vars: &'a [&'static str],
        mime_type: Option<&'static str>,
        shared: &'a Shared,
    ) -> BoxFuture<'a, Result<Done<'o>, Error>> {
        Box::pin(async move {
            let values: serde_json::Map<String, serde_json::Value> = vars
                .iter()
                .filter_map(|name| Some(((*name).to_owned(), call.var(name)?.into())))
                .collect();
            let Ok(args) = serde_json::from_value::<A>(values.into()) else {
                return Ok(reply.not_found());
            };
            let outcome = self.f.call(args, Cx::new(**call, &mut reply, shared)).await;
            match outcome {
                Ok(output) => output.write(reply, mime_type),
                Err(stop) => write_stop(reply, stop, shared, &call.uri(), internal_error),
            }
        })
    }
}

impl<F, A> RunPrompt for Typed<F, A, PromptMessages>
where
    F: for<'x> Handler<'x, A, Output = Result<PromptMessages, Stop>>,
    A: DeserializeOwned + Send + 'static,
{
    fn run<'a, 'o: 'a>(
        &'a self,
        call: &'a PromptGet<'a>,
        mut reply: PromptReply<'o>,
        shared: &'a Shared,
    ) -> BoxFuture<'a, Result<Done<'o>, Error>> {
        Box::pin(async move {
            let arguments = call
                .request_params()
                .and_then(|p| p.get("arguments"))
                .map_or(&b"{}"[..], |a| a.raw());
            let Ok(args) = decode::<A>(arguments) else {
                return Err(Error::invalid_params("Invalid prompt arguments"));
            };
            let outcome = self.f.call(args, Cx::new(**call, &mut reply, shared)).await;
            match outcome {
                Ok(messages) => Ok(messages.write(reply)),
                Err(stop) => write_stop(reply, stop, shared, &call.prompt().name, internal_error),
            }
        })
    }
}

/// A failure of a resource or prompt, which have no error result: -32603 with its message.
fn internal_error<'o, K>(reply: Reply<'o, K>, message: &str) -> Done<'o> {
    reply.rpc_error(ErrorCode::INTERNAL_ERROR, format_args!("{message}"))
}
