//! What a token is bound to: the request it continues and who made it.

use crate::json::{TooDeep, Value, canonical_digest_params_known};
use sha2::{Digest, Sha256};

/// Domain label of the binding hash.
const BINDING_LABEL: &[u8] = b"snodo/request-state/v1/binding\0";

/// Who is calling, as established by trusted authentication (never by the request itself).
///
/// There is no default: a server states explicitly that a request is anonymous.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Principal<'a> {
    /// Explicitly no identity (for example a loopback server without authentication).
    Anonymous,
    /// An identity from the transport's authentication (a user id, a token subject, ...).
    Id(&'a str),
}

/// The request a token is sealed for and opened against.
///
/// The MAC covers the method, the params minus only their top-level `_meta`, `requestState`
/// and `inputResponses` (in canonical form: key order ignored, array order and number kind
/// kept; see [`canonical_digest_params`](crate::json::canonical_digest_params)) and the principal. The JSON-RPC id is not bound: a
/// retry has a new one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding<'a> {
    /// The request method, e.g. `tools/call`.
    pub method: &'a str,
    /// The request params as received (retry fields included or not: they are left out).
    pub params: Option<Value<'a>>,
    /// Who is calling.
    pub principal: Principal<'a>,
}

impl<'a> Binding<'a> {
    /// A binding to this method, these params and this principal.
    pub fn new(method: &'a str, params: Option<Value<'a>>, principal: Principal<'a>) -> Self {
        Binding {
            method,
            params,
            principal,
        }
    }

    /// SHA-256 over the domain label and [the framed binding](Self::frame): what the MAC of
    /// an `s1.` token covers.
    pub(crate) fn hash(&self) -> Result<[u8; 32], TooDeep> {
        let mut hash = Sha256::new();
        hash.update(BINDING_LABEL);
        self.frame(&mut |bytes: &[u8]| hash.update(bytes))?;
        Ok(hash.finalize().into())
    }

    /// Feeds the method and the principal, each framed by its length, then the canonical
    /// salient params (self-delimiting) into `sink`. The MAC of an `s2.` token absorbs this
    /// itself, saving the separate hash and its padding. (`sink` is a trait object so that
    /// the canonical emitters are compiled once for every caller, not once per closure: it
    /// is called once for params of a few hundred bytes.)
    pub(crate) fn frame(&self, sink: &mut dyn FnMut(&[u8])) -> Result<(), TooDeep> {
        self.frame_known(&[], sink)
    }

    /// [`frame`](Self::frame), stepping over the values of the params' left-out members that
    /// are `known` (whole values inside the params' text, as the request's parse returned
    /// them) rather than walking them.
    pub(crate) fn frame_known(
        &self,
        known: &[&[u8]],
        mut sink: &mut dyn FnMut(&[u8]),
    ) -> Result<(), TooDeep> {
        sink(&(self.method.len() as u64).to_be_bytes());
        sink(self.method.as_bytes());
        match self.principal {
            Principal::Anonymous => sink(b"a"),
            Principal::Id(id) => {
                sink(b"p");
                sink(&(id.len() as u64).to_be_bytes());
                sink(id.as_bytes());
            }
        }
        canonical_digest_params_known(self.params, known, &mut sink)
    }
}
