//! Sealed request state: HMAC-SHA256 tokens bound to the request they continue.
