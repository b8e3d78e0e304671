//! STUB: in progress.
