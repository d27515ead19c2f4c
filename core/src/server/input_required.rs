//! Writing an `input_required` result.
//!
//! The builder's type enforces the wire order (every input request, then the state) and
//! records what the core must admit in `finish`: which client capabilities the requests need
//! that this request did not declare, whether there is anything to send at all, and where the
//! `inputRequests` object lies (its keys must be unique).

use super::{Done, Error, RequestContext};
use crate::json::Writer;
use crate::mrtr::InputRequest;
use crate::protocol::ClientCapabilities;
use crate::state::{SealError, seal_continuing};

/// Builds the members of an `input_required` result. Made by [`Reply::input_required`](super::Reply::input_required).
#[derive(Debug)]
pub struct InputRequired<'o> {
    pub(crate) w: Writer<'o>,
    pub(crate) ctx: RequestContext<'o>,
    pub(crate) any_member: bool,
    pub(crate) requests: Option<(usize, usize)>,
    /// Whether more than one request was added (so keys could repeat).
    pub(crate) several: bool,
    pub(crate) unmet: ClientCapabilities,
}

impl<'o> InputRequired<'o> {
    /// Adds the input request `request` under `key` (unique within this result).
    #[must_use]
    pub fn request<'r>(mut self, key: &str, request: impl Into<InputRequest<'r>>) -> Self {
        let request = request.into();
        let needs = request.needs();
        if !self.ctx.client_capabilities().contains(needs) {
            self.unmet = self.unmet.union(needs);
        }
        match self.requests {
            None => {
                if self.any_member {
                    self.w.raw(b",");
                }
                self.w.raw(b"\"inputRequests\":");
                let start = self.w.position();
                self.w.raw(b"{");
                self.requests = Some((start, start));
            }
            Some(_) => {
                self.w.raw(b",");
                self.several = true;
            }
        }
        self.w.str(key);
        self.w.raw(b":");
        request.write(&mut self.w);
        if let Some((start, _)) = self.requests {
            self.requests = Some((start, self.w.position()));
        }
        self.any_member = true;
        self
    }

    fn close_requests(&mut self) {
        if self.requests.is_some() {
            self.w.raw(b"}");
        }
    }

    fn begin_state(&mut self) {
        self.close_requests();
        if self.any_member {
            self.w.raw(b",");
        }
        self.w.raw(b"\"requestState\":\"");
    }

    /// Ends the result with an application-managed `requestState` (ASCII without quotes or
    /// backslashes is written as is; anything else is escaped).
    pub fn state(mut self, state: &str) -> Done<'o> {
        self.begin_state();
        self.w.escaped(state);
        self.w.raw(b"\"");
        self.any_member = true;
        self.finish(true)
    }

    /// Ends the result with `data_json` sealed into `requestState`: a token bound to this
    /// request's method, salient params and principal with the server's state keys (see
    /// [`crate::state`]). The token is written straight into the reply.
    pub fn seal(mut self, data_json: &[u8]) -> Result<Done<'o>, Error> {
        let options = self
            .ctx
            .config()
            .state
            .ok_or(Error::internal("no state keys are configured"))?;
        let binding = self.ctx.binding();
        let prefix = self.ctx.binding_prefix();
        self.begin_state();
        let now = self.ctx.now();
        match seal_continuing(data_json, &binding, prefix, options, now, self.w.spare()) {
            Ok(n) => self.w.advance(n),
            Err(SealError::BufferTooSmall { required }) => self.w.advance(required),
            Err(_) => return Err(Error::internal("the state to seal is invalid or too large")),
        }
        self.w.raw(b"\"");
        self.any_member = true;
        Ok(self.finish(true))
    }

    /// Ends the result without state (a client that got state before must drop it).
    pub fn done(mut self) -> Done<'o> {
        self.close_requests();
        self.finish(false)
    }

    fn finish(self, state: bool) -> Done<'o> {
        Done::input_required(
            self.w,
            self.requests.map(|(start, end)| (start, end + 1)),
            self.several,
            state,
            self.unmet,
        )
    }
}
