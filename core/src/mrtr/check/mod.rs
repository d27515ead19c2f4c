//! Structural checks of input requests (at build time) and of the client's answers.
