//! STUB: the loop, in progress.
