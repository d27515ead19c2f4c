//! Literal wire tests of the legacy pieces.
