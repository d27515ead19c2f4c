//! Opening the sealed state a retry carries.

use crate::json::{JsonStr, Value};
use crate::server::{Error, RequestContext};
use crate::state::{Binding, InvalidState, KeySet, MAX_TOKEN_LEN, StateOptions, open};

/// The one error for state that does not open, whatever the reason (no data, no echo).
pub const INVALID_STATE: Error = Error::invalid_params(InvalidState::MESSAGE);

impl RequestContext<'_> {
    /// Opens `requestState` with the server's state keys: `None` on a first call (no state),
    /// the sealed data when the token is valid for this request, or [`INVALID_STATE`].
    ///
    /// The data is decoded into `scratch`: [`OPEN_SCRATCH_LEN`](crate::state::OPEN_SCRATCH_LEN)
    /// bytes open any token; a server that seals at most `n` bytes of data can pass
    /// [`open_scratch_len(n)`](crate::state::open_scratch_len) bytes instead.
    pub fn open_state<'s>(&self, scratch: &'s mut [u8]) -> Result<Option<Value<'s>>, Error> {
        let Some(token) = self.request_state() else {
            return Ok(None);
        };
        let options = self
            .config()
            .state
            .ok_or(Error::internal("no state keys are configured"))?;
        let binding = Binding::new(
            self.request_method(),
            self.request_params().map(|p| p.as_value()),
            self.principal(),
        );
        let opened = if token.has_escapes() {
            open_escaped(token, &binding, options, self.now(), scratch)
        } else {
            open(token.raw(), &binding, options, self.now(), scratch)
        };
        opened.map(Some).map_err(|_| INVALID_STATE)
    }
}

/// A token is ASCII without quotes or backslashes, but a client may still have escaped some
/// of its characters. Decoding needs a token-sized buffer, kept off the common path's stack.
#[inline(never)]
fn open_escaped<'s>(
    token: JsonStr<'_>,
    binding: &Binding<'_>,
    options: &StateOptions<dyn KeySet>,
    now: u64,
    scratch: &'s mut [u8],
) -> Result<Value<'s>, InvalidState> {
    let mut decoded = [0u8; MAX_TOKEN_LEN];
    let token = token.decode_into(&mut decoded).ok_or(InvalidState)?;
    open(token.as_bytes(), binding, options, now, scratch)
}
