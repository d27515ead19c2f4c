//! Canonical digest of a JSON value (object key order ignored, array order and number kind kept).
