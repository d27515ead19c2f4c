//! Opening the sealed state a retry carries.

use crate::json::Value;
use crate::server::{Error, RequestContext};
use crate::state::{Binding, InvalidState, OPEN_SCRATCH_LEN, open};

/// The one error for state that does not open, whatever the reason (no data, no echo).
pub const INVALID_STATE: Error = Error::invalid_params(InvalidState::MESSAGE);

impl RequestContext<'_> {
    /// Opens `requestState` with the server's state keys: `None` on a first call (no state),
    /// the sealed data when the token is valid for this request, or [`INVALID_STATE`].
    pub fn open_state<'s>(
        &self,
        scratch: &'s mut [u8; OPEN_SCRATCH_LEN],
    ) -> Result<Option<Value<'s>>, Error> {
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
        open(token.raw(), &binding, options, self.now(), scratch)
            .map(Some)
            .map_err(|_| INVALID_STATE)
    }
}
