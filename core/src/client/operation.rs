//! What the client asks of the server: a method and its params, without the `_meta` envelope
//! and without the retry fields, which the driver adds.

use crate::json::{Object, Writer};

/// One operation: the method and what its params hold besides `_meta`, `inputResponses` and
/// `requestState`. Every leg of a multi round-trip request repeats it unchanged.
#[derive(Clone, Copy, Debug)]
pub struct Operation<'o> {
    method: &'o str,
    body: Body<'o>,
    meta: Option<Object<'o>>,
}

#[derive(Clone, Copy, Debug)]
enum Body<'o> {
    /// `{}`
    Empty,
    /// `{"cursor":…}` when there is a cursor.
    Cursor(Option<&'o str>),
    /// `{"name":…,"arguments":{…}}`; a tool call always carries `arguments`.
    Tool(&'o str, Option<Object<'o>>),
    /// `{"uri":…}`
    Resource(&'o str),
    /// `{"name":…[,"arguments":{…}]}`
    Prompt(&'o str, Option<Object<'o>>),
    /// The members of an object, copied.
    Params(Option<Object<'o>>),
    /// `{"taskId":…[,"inputResponses":{…}]}`
    Task(&'o str, Option<Object<'o>>),
}

/// `params` members the driver writes itself and never copies from the caller.
const RESERVED_PARAMS: [&str; 3] = ["_meta", "inputResponses", "requestState"];

/// `_meta` members the driver writes itself.
const RESERVED_META: [&str; 3] = [
    crate::protocol::META_PROTOCOL_VERSION,
    crate::protocol::META_CLIENT_INFO,
    crate::protocol::META_CLIENT_CAPABILITIES,
];

impl<'o> Operation<'o> {
    /// `server/discover`.
    pub const fn discover() -> Self {
        Self::new("server/discover", Body::Empty)
    }

    /// `tools/list`, from `cursor` when given.
    pub const fn list_tools(cursor: Option<&'o str>) -> Self {
        Self::new("tools/list", Body::Cursor(cursor))
    }

    /// `resources/list`, from `cursor` when given.
    pub const fn list_resources(cursor: Option<&'o str>) -> Self {
        Self::new("resources/list", Body::Cursor(cursor))
    }

    /// `resources/templates/list`, from `cursor` when given.
    pub const fn list_resource_templates(cursor: Option<&'o str>) -> Self {
        Self::new("resources/templates/list", Body::Cursor(cursor))
    }

    /// `prompts/list`, from `cursor` when given.
    pub const fn list_prompts(cursor: Option<&'o str>) -> Self {
        Self::new("prompts/list", Body::Cursor(cursor))
    }

    /// `tools/call` of `name` with `arguments` (`{}` when `None`).
    pub const fn call_tool(name: &'o str, arguments: Option<Object<'o>>) -> Self {
        Self::new("tools/call", Body::Tool(name, arguments))
    }

    /// `resources/read` of `uri`.
    pub const fn read_resource(uri: &'o str) -> Self {
        Self::new("resources/read", Body::Resource(uri))
    }

    /// `prompts/get` of `name`, with its string `arguments` when given.
    pub const fn get_prompt(name: &'o str, arguments: Option<Object<'o>>) -> Self {
        Self::new("prompts/get", Body::Prompt(name, arguments))
    }

    /// Any other request: `method` with the members of `params` (their `_meta`,
    /// `inputResponses` and `requestState` are left out; add `_meta` members with
    /// [`Operation::with_meta`]).
    pub const fn request(method: &'o str, params: Option<Object<'o>>) -> Self {
        Self::new(method, Body::Params(params))
    }

    /// A request of the Tasks extension about `task_id` (`tasks/get`, `tasks/cancel`), or
    /// `tasks/update` with its `input_responses`: the one request whose `inputResponses`
    /// the caller writes, since it answers a task and not this request.
    pub const fn task(
        method: &'o str,
        task_id: &'o str,
        input_responses: Option<Object<'o>>,
    ) -> Self {
        Self::new(method, Body::Task(task_id, input_responses))
    }

    const fn new(method: &'o str, body: Body<'o>) -> Self {
        Operation {
            method,
            body,
            meta: None,
        }
    }

    /// With more `_meta` members (for example `progressToken` or
    /// `io.modelcontextprotocol/logLevel`). The protocol version, client info and client
    /// capabilities are always the driver's own and are not copied from here.
    #[must_use]
    pub const fn with_meta(mut self, meta: Object<'o>) -> Self {
        self.meta = Some(meta);
        self
    }

    /// Whether the caller gave `_meta` members of its own (beyond the envelope's).
    pub fn has_meta(&self) -> bool {
        self.meta
            .into_iter()
            .flatten()
            .any(|(key, _)| !RESERVED_META.iter().any(|r| key.eq_str(r)))
    }

    /// The JSON-RPC method.
    pub const fn method(&self) -> &'o str {
        self.method
    }

    /// The name (tools, prompts) or URI (resources) this operation is about, if any.
    pub const fn target(&self) -> Option<&'o str> {
        match self.body {
            Body::Tool(name, _) | Body::Prompt(name, _) | Body::Resource(name) => Some(name),
            _ => None,
        }
    }

    /// Whether the server may answer with `input_required`: only `tools/call`,
    /// `resources/read` and `prompts/get`.
    pub fn allows_input_required(&self) -> bool {
        matches!(
            self.method.as_bytes(),
            b"tools/call" | b"resources/read" | b"prompts/get"
        )
    }

    /// Writes the operation's own params members into an open object.
    pub(crate) fn write_members(&self, o: &mut crate::json::ObjectWriter<'_, '_>) {
        match self.body {
            Body::Empty => {}
            Body::Cursor(cursor) => {
                if let Some(cursor) = cursor {
                    o.str("cursor", cursor);
                }
            }
            Body::Tool(name, arguments) => {
                o.str("name", name);
                match arguments {
                    Some(arguments) => o.value("arguments", arguments.as_value()),
                    None => o.raw("arguments", b"{}"),
                };
            }
            Body::Resource(uri) => {
                o.str("uri", uri);
            }
            Body::Prompt(name, arguments) => {
                o.str("name", name);
                if let Some(arguments) = arguments {
                    o.value("arguments", arguments.as_value());
                }
            }
            Body::Task(task_id, input_responses) => {
                o.str("taskId", task_id);
                if let Some(responses) = input_responses {
                    o.value("inputResponses", responses.as_value());
                }
            }
            Body::Params(params) => {
                for (key, value) in params.into_iter().flatten() {
                    if !RESERVED_PARAMS.iter().any(|r| key.eq_str(r)) {
                        o.key_json(key).value(value);
                    }
                }
            }
        }
    }

    /// Writes the caller's extra `_meta` members into an open object.
    pub(crate) fn write_meta(&self, o: &mut crate::json::ObjectWriter<'_, '_>) {
        for (key, value) in self.meta.into_iter().flatten() {
            if !RESERVED_META.iter().any(|r| key.eq_str(r)) {
                o.key_json(key).value(value);
            }
        }
    }

    /// Writes `"method"` into a request being written (a helper for the request writer).
    pub(crate) fn write_method(&self, w: &mut Writer<'_>) {
        w.str(self.method);
    }
}
