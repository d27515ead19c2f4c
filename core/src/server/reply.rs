//! Replies: handlers write their result straight into the output buffer.
//!
//! A [`Reply`] starts the response envelope when the core creates it; the handler adds the
//! result's members through the typed methods of its kind ([`ToolReply`], [`ResourceReply`],
//! [`PromptReply`], [`CompletionReply`]), each of which consumes the reply and returns
//! [`Done`]. Only a reply can make a `Done`, so a handler cannot finish without writing; and the
//! `Done` carries the reply's borrow of the output buffer to the call's `finish`, which admits
//! the outcome and closes the envelope in that same buffer (it takes no buffer of its own).

use core::marker::PhantomData;

use super::RequestContext;
use super::notify::Notifier;
use crate::json::{ArrayWriter, BufferTooSmall, JsonNumber, JsonStr, ObjectWriter, Writer};
use crate::protocol::LogLevel;
use crate::rpc::emit;
use crate::rpc::{ErrorCode, Id, write_error};

/// Marker: a reply to `tools/call`.
#[derive(Debug)]
pub enum ForTool {}
/// Marker: a reply to `resources/read`.
#[derive(Debug)]
pub enum ForResource {}
/// Marker: a reply to `prompts/get`.
#[derive(Debug)]
pub enum ForPrompt {}
/// Marker: a reply to `completion/complete`.
#[derive(Debug)]
pub enum ForCompletion {}

/// The reply to a `tools/call`.
pub type ToolReply<'o> = Reply<'o, ForTool>;
/// The reply to a `resources/read`.
pub type ResourceReply<'o> = Reply<'o, ForResource>;
/// The reply to a `prompts/get`.
pub type PromptReply<'o> = Reply<'o, ForPrompt>;
/// The reply to a `completion/complete`.
pub type CompletionReply<'o> = Reply<'o, ForCompletion>;

/// Proof that a reply was written, holding the output buffer it was written in; hand it back
/// to the call's `finish`, which completes the response in that buffer.
///
/// The buffer stays borrowed from the reply to the finish, so nothing else can write it in
/// between, and `finish` cannot be given another one. The round, with the handler's outcome
/// made by `reply` from the buffer:
///
/// ```
/// # use snodo_core::server::{Call, Done, Error};
/// fn run(call: Call<'_>, reply: impl FnOnce(&mut [u8]) -> Result<Done<'_>, Error>) -> usize {
///     let mut out = [0u8; 256];
///     let outcome = reply(&mut out);
///     // The length of the response in `out` (a handler's error is written there now).
///     call.finish(outcome).len(&mut out).unwrap_or(0)
/// }
/// ```
///
/// ```compile_fail,E0506
/// # use snodo_core::server::{Call, Done};
/// fn run(call: Call<'_>, reply: impl FnOnce(&mut [u8]) -> Done<'_>) {
///     let mut out = [0u8; 256];
///     let done = reply(&mut out);
///     out[0] = b'x'; // error: `out` is still borrowed by `done`
///     let _ = call.finish(Ok(done));
/// }
/// ```
///
/// ```compile_fail,E0061
/// # use snodo_core::server::{Call, Done};
/// fn run(call: Call<'_>, done: Done<'_>, other: &mut [u8]) {
///     let _ = call.finish(other, Ok(done)); // error: `finish` takes no buffer
/// }
/// ```
#[must_use = "give Done back to the call's finish"]
pub struct Done<'o> {
    /// The reply's writer: the buffer, and how far the reply reached in it.
    pub(crate) w: Writer<'o>,
    pub(crate) shape: Shape,
}

impl core::fmt::Debug for Done<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Done")
            .field("end", &self.w.position())
            .field("shape", &self.shape)
            .finish()
    }
}

/// What the handler wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Result members, still open: the core appends `resultType`, `_meta` and the closers.
    Members {
        any: bool,
        is_error: bool,
        /// Span of `structuredContent`'s value, for output-schema validation.
        structured: Option<(usize, usize)>,
    },
    /// A whole response (a JSON-RPC error the handler wrote).
    Whole,
    /// No response: the call becomes a task ([`Reply::into_task`]).
    #[cfg(feature = "tasks")]
    Task,
    /// An `input_required` result, still open.
    InputRequired {
        /// Span of the `inputRequests` object (checked for unique keys when `several`).
        requests: Option<(usize, usize)>,
        /// Whether it holds more than one request (only then can a key repeat).
        several: bool,
        /// Whether `requestState` was written.
        state: bool,
        /// Capabilities the requests need that the request did not declare.
        unmet: crate::protocol::ClientCapabilities,
    },
}

impl<'o> Done<'o> {
    pub(crate) fn input_required(
        w: Writer<'o>,
        requests: Option<(usize, usize)>,
        several: bool,
        state: bool,
        unmet: crate::protocol::ClientCapabilities,
    ) -> Self {
        Done {
            w,
            shape: Shape::InputRequired {
                requests,
                several,
                state,
                unmet,
            },
        }
    }
}

/// A reply being written. `K` says which call it answers.
pub struct Reply<'o, K> {
    w: Writer<'o>,
    ctx: RequestContext<'o>,
    any: bool,
    sink: Option<&'o mut (dyn Notifier + Send + 'o)>,
    uri: Option<JsonStr<'o>>,
    kind: PhantomData<K>,
}

impl<K> core::fmt::Debug for Reply<'_, K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Reply")
            .field("id", &self.ctx.id)
            .field("written", &self.w.position())
            .finish_non_exhaustive()
    }
}

impl<'o, K> Reply<'o, K> {
    pub(crate) fn start(
        out: &'o mut [u8],
        ctx: RequestContext<'o>,
        sink: Option<&'o mut (dyn Notifier + Send + 'o)>,
        uri: Option<JsonStr<'o>>,
    ) -> Self {
        let mut w = Writer::new(out);
        emit::result(&mut w, ctx.id);
        w.raw(b"{");
        Reply {
            w,
            ctx,
            any: false,
            sink,
            uri,
            kind: PhantomData,
        }
    }

    /// Starts the result member `key`, one of this module's names, which need no escaping.
    fn member(&mut self, key: &'static str) -> &mut Writer<'o> {
        self.w.raw(if self.any { b",\"" } else { b"\"" });
        self.any = true;
        self.w.raw(key.as_bytes());
        self.w.raw(b"\":");
        &mut self.w
    }

    fn done(self, is_error: bool, structured: Option<(usize, usize)>) -> Done<'o> {
        Done {
            w: self.w,
            shape: Shape::Members {
                any: self.any,
                is_error,
                structured,
            },
        }
    }

    /// Writes the result's members directly (for shapes the typed methods do not cover).
    /// `resultType` and `_meta` are added by the core and must not be written here.
    pub fn result(mut self, f: impl FnOnce(&mut ObjectWriter<'_, 'o>)) -> Done<'o> {
        let mut members = ObjectWriter::continuing(&mut self.w, !self.any);
        f(&mut members);
        self.any = members.wrote_any();
        self.done(false, None)
    }

    /// Starts an `input_required` result: add input requests, then end with state (sealed or
    /// not) or without. Only `tools/call`, `resources/read` and `prompts/get` may return one;
    /// `finish` refuses it elsewhere (-32603) and refuses requests the client did not declare
    /// capabilities for (-32021).
    pub fn input_required(self) -> super::InputRequired<'o> {
        super::InputRequired {
            w: self.w,
            ctx: self.ctx,
            any_member: self.any,
            requests: None,
            several: false,
            unmet: crate::protocol::ClientCapabilities::NONE,
        }
    }

    /// Answers with a JSON-RPC error whose message is formatted (a typed failure).
    pub fn rpc_error(self, code: ErrorCode, message: core::fmt::Arguments<'_>) -> Done<'o> {
        self.rpc_error_with_data(code, message, None::<fn(&mut Writer<'o>)>)
    }

    /// Answers with a JSON-RPC error whose `data` is written by `data` (any JSON value).
    pub fn rpc_error_with_data(
        mut self,
        code: ErrorCode,
        message: core::fmt::Arguments<'_>,
        data: Option<impl FnOnce(&mut Writer<'o>)>,
    ) -> Done<'o> {
        self.w.rewind(0);
        emit::error(&mut self.w, self.ctx.id);
        self.w.raw(b"{\"code\":");
        self.w.i64(i64::from(code.0));
        self.w.raw(b",\"message\":");
        self.w.str_fmt(message);
        if let Some(data) = data {
            self.w.raw(b",\"data\":");
            data(&mut self.w);
        }
        self.w.raw(b"}}");
        Done {
            w: self.w,
            shape: Shape::Whole,
        }
    }

    /// Whether the client asked for progress on this request.
    pub fn wants_progress(&self) -> bool {
        self.ctx.meta.progress_token.is_some() && self.sink.is_some()
    }

    /// Sends `notifications/progress` when the client asked for progress (otherwise does
    /// nothing). The notification is formatted in the unused tail of the output buffer.
    ///
    /// `progress` and `total` are any primitive number (`3u32`, `0.5`): integers are written
    /// exactly and pull in no float formatting.
    pub fn progress<N: JsonNumber>(
        &mut self,
        progress: N,
        total: Option<N>,
        message: Option<&str>,
    ) -> Result<(), BufferTooSmall> {
        let (Some(token), Some(sink)) = (self.ctx.meta.progress_token, self.sink.as_mut()) else {
            return Ok(());
        };
        let mut n = self.w.tail();
        emit::notification(&mut n);
        n.raw(b"\"notifications/progress\",\"params\":");
        n.object(|p| {
            p.value("progressToken", token);
            p.key("progress").number(progress);
            if let Some(total) = total {
                p.key("total").number(total);
            }
            if let Some(message) = message {
                p.str("message", message);
            }
        });
        n.raw(b"}");
        let len = n.finish()?;
        if let Some(bytes) = self.w.tail().written_prefix(len) {
            sink.notify(bytes);
        }
        Ok(())
    }

    /// Sends `notifications/message` at `level` when the request asked for logs at or below
    /// that level (a request without `io.modelcontextprotocol/logLevel` gets none).
    pub fn log(
        &mut self,
        level: LogLevel,
        logger: Option<&str>,
        message: core::fmt::Arguments<'_>,
    ) -> Result<(), BufferTooSmall> {
        let (Some(wanted), Some(sink)) = (self.ctx.meta.log_level, self.sink.as_mut()) else {
            return Ok(());
        };
        if level < wanted {
            return Ok(());
        }
        let mut n = self.w.tail();
        emit::notification(&mut n);
        n.raw(b"\"notifications/message\",\"params\":");
        n.object(|p| {
            p.str("level", level.name());
            if let Some(logger) = logger {
                p.str("logger", logger);
            }
            p.key("data").str_fmt(message);
        });
        n.raw(b"}");
        let len = n.finish()?;
        if let Some(bytes) = self.w.tail().written_prefix(len) {
            sink.notify(bytes);
        }
        Ok(())
    }
}

impl<'o> Reply<'o, ForTool> {
    /// Turns the call into a task instead of answering it here: nothing is written, and the
    /// host creates the task, answers its `CreateTaskResult`, and runs the request again as
    /// the task's work (then [`RequestContext::task_phase`] is
    /// [`TaskPhase::Running`](crate::tasks::TaskPhase::Running)). The `offer` comes from the
    /// call's phase, so only a request that declared the extension gets a task. An MRTR flow
    /// ends in a task this way: its rounds answer in their requests, and the last one, with
    /// the answers it gathered, becomes the task.
    ///
    /// [`RequestContext::task_phase`]: super::RequestContext::task_phase
    #[cfg(feature = "tasks")]
    pub fn into_task(self, offer: crate::tasks::TaskOffer) -> Done<'o> {
        let _ = offer;
        Done {
            w: self.w,
            shape: Shape::Task,
        }
    }

    /// A result with one text block.
    pub fn text(self, text: &str) -> Done<'o> {
        self.content(|c| {
            c.text(text);
        })
    }

    /// A result with one text block of formatted text.
    pub fn text_fmt(self, text: core::fmt::Arguments<'_>) -> Done<'o> {
        self.content(|c| {
            c.text_fmt(text);
        })
    }

    /// A result whose content blocks `f` writes.
    pub fn content(mut self, f: impl FnOnce(&mut Content<'_, '_, 'o>)) -> Done<'o> {
        self.member("content").array(|a| f(&mut Content { a }));
        self.done(false, None)
    }

    /// A result with `structuredContent` written by `f`, mirrored as a JSON text block.
    pub fn structured(mut self, f: impl FnOnce(&mut Writer<'o>)) -> Done<'o> {
        let w = self.member("structuredContent");
        let start = w.position();
        f(w);
        let end = w.position();
        self.member("content");
        self.w.raw(b"[{\"type\":\"text\",\"text\":");
        self.w.str_from_own(start, end);
        self.w.raw(b"}]");
        self.done(false, Some((start, end)))
    }

    /// A tool error result (`isError: true`) with one text block: an execution failure the
    /// model can read and act on.
    pub fn error_text(self, text: &str) -> Done<'o> {
        self.error_fmt(format_args!("{text}"))
    }

    /// Like [`Reply::error_text`] with formatted text.
    pub fn error_fmt(mut self, text: core::fmt::Arguments<'_>) -> Done<'o> {
        self.member("content").array(|a| {
            Content { a }.text_fmt(text);
        });
        self.member("isError").bool(true);
        self.done(true, None)
    }
}

/// Writes content blocks.
#[derive(Debug)]
pub struct Content<'c, 'w, 'o> {
    a: &'c mut ArrayWriter<'w, 'o>,
}

impl Content<'_, '_, '_> {
    /// A text block.
    pub fn text(&mut self, text: &str) -> &mut Self {
        self.a
            .item()
            .raw(b"{\"type\":\"text\",\"text\":")
            .str(text)
            .raw(b"}");
        self
    }

    /// A text block of formatted text.
    pub fn text_fmt(&mut self, text: core::fmt::Arguments<'_>) -> &mut Self {
        self.a.object(|o| {
            o.str("type", "text");
            o.key("text").str_fmt(text);
        });
        self
    }

    /// An image block (`data` is base64).
    pub fn image(&mut self, data_base64: &str, mime_type: &str) -> &mut Self {
        self.binary("image", data_base64, mime_type)
    }

    /// An audio block (`data` is base64).
    pub fn audio(&mut self, data_base64: &str, mime_type: &str) -> &mut Self {
        self.binary("audio", data_base64, mime_type)
    }

    fn binary(&mut self, kind: &str, data: &str, mime_type: &str) -> &mut Self {
        self.a.object(|o| {
            o.str("type", kind)
                .str("data", data)
                .str("mimeType", mime_type);
        });
        self
    }

    /// A resource link block.
    pub fn resource_link(&mut self, uri: &str, name: &str) -> &mut Self {
        self.a.object(|o| {
            o.str("type", "resource_link")
                .str("uri", uri)
                .str("name", name);
        });
        self
    }

    /// An embedded text resource block.
    pub fn embedded_text(&mut self, uri: &str, mime_type: Option<&str>, text: &str) -> &mut Self {
        self.a.object(|o| {
            o.str("type", "resource");
            o.object("resource", |r| {
                r.str("uri", uri);
                if let Some(m) = mime_type {
                    r.str("mimeType", m);
                }
                r.str("text", text);
            });
        });
        self
    }

    /// A block given as JSON text (trusted: written verbatim).
    pub fn raw(&mut self, block_json: &[u8]) -> &mut Self {
        self.a.item().raw(block_json);
        self
    }
}

impl<'o> Reply<'o, ForResource> {
    /// The resource does not exist after all (a template matched, but nothing is there):
    /// -32602 with `data.uri`, as for a URI the core could not match.
    pub fn not_found(self) -> Done<'o> {
        let uri = self.uri;
        self.rpc_error_with_data(
            ErrorCode::INVALID_PARAMS,
            format_args!("Resource not found"),
            uri.map(|uri| {
                move |w: &mut Writer<'_>| {
                    w.object(|o| {
                        o.key("uri").json_str(uri);
                    });
                }
            }),
        )
    }

    /// One text content for the requested URI.
    pub fn text(self, mime_type: Option<&str>, text: &str) -> Done<'o> {
        self.text_fmt(mime_type, format_args!("{text}"))
    }

    /// One text content of formatted text for the requested URI.
    pub fn text_fmt(mut self, mime_type: Option<&str>, text: core::fmt::Arguments<'_>) -> Done<'o> {
        let uri = self.uri;
        self.member("contents").array(|a| {
            a.object(|o| {
                if let Some(uri) = uri {
                    o.key("uri").json_str(uri);
                }
                if let Some(m) = mime_type {
                    o.str("mimeType", m);
                }
                o.key("text").str_fmt(text);
            });
        });
        self.done(false, None)
    }

    /// One binary content (base64) for the requested URI.
    pub fn blob(mut self, mime_type: Option<&str>, data_base64: &str) -> Done<'o> {
        let uri = self.uri;
        self.member("contents").array(|a| {
            a.object(|o| {
                if let Some(uri) = uri {
                    o.key("uri").json_str(uri);
                }
                if let Some(m) = mime_type {
                    o.str("mimeType", m);
                }
                o.str("blob", data_base64);
            });
        });
        self.done(false, None)
    }
}

impl<'o> Reply<'o, ForPrompt> {
    /// A prompt result: an optional description and the messages `f` writes.
    pub fn messages(
        mut self,
        description: Option<&str>,
        f: impl FnOnce(&mut Messages<'_, '_, 'o>),
    ) -> Done<'o> {
        if let Some(d) = description {
            self.member("description").str(d);
        }
        self.member("messages").array(|a| f(&mut Messages { a }));
        self.done(false, None)
    }
}

/// Writes prompt messages.
#[derive(Debug)]
pub struct Messages<'c, 'w, 'o> {
    a: &'c mut ArrayWriter<'w, 'o>,
}

impl Messages<'_, '_, '_> {
    /// A text message from `role` (`"user"` or `"assistant"`).
    pub fn text(&mut self, role: Role, text: core::fmt::Arguments<'_>) -> &mut Self {
        self.a.object(|o| {
            o.str("role", role.name());
            o.object("content", |c| {
                c.str("type", "text");
                c.key("text").str_fmt(text);
            });
        });
        self
    }

    /// A user text message.
    pub fn user(&mut self, text: &str) -> &mut Self {
        self.text(Role::User, format_args!("{text}"))
    }

    /// An assistant text message.
    pub fn assistant(&mut self, text: &str) -> &mut Self {
        self.text(Role::Assistant, format_args!("{text}"))
    }
}

/// The speaker of a prompt or sampling message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Role {
    /// `user`
    User,
    /// `assistant`
    Assistant,
}

impl Role {
    /// The wire name.
    pub fn name(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

impl<'o> Reply<'o, ForCompletion> {
    /// Completion values (at most 100 are written), with `hasMore`.
    pub fn values(mut self, values: &[&str], has_more: bool) -> Done<'o> {
        self.member("completion").object(|c| {
            c.array("values", |a| {
                for v in values.iter().take(100) {
                    a.str(v);
                }
            });
            c.u64("total", values.len() as u64);
            c.bool("hasMore", has_more || values.len() > 100);
        });
        self.done(false, None)
    }
}

/// Writes a whole error response for `id` (used by the core for its own errors).
/// Writes the -32021 that names the Tasks extension as what the request must declare: to a
/// task request, or a call of a tool that runs only as a task.
pub(crate) fn write_tasks_required(w: &mut Writer<'_>, id: Option<Id<'_>>) {
    write_error(
        w,
        id,
        ErrorCode::MISSING_CLIENT_CAPABILITY,
        "Missing required client capability: the request must declare the extension \
         io.modelcontextprotocol/tasks",
        Some(&|w: &mut Writer<'_>| {
            w.raw(b"{\"requiredCapabilities\":");
            crate::protocol::ClientCapabilities::TASKS.write(w);
            w.raw(b"}");
        }),
    );
}

pub(crate) fn whole_error(
    w: &mut Writer<'_>,
    id: Option<Id<'_>>,
    code: ErrorCode,
    message: &str,
    data: Option<&dyn Fn(&mut Writer<'_>)>,
) {
    w.rewind(0);
    write_error(w, id, code, message, data);
}
