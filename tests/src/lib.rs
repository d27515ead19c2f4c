//! Shared fixtures for the acceptance suite.
