//! Wall-clock deadlines handed to the pure solvers as a stop check.

use std::time::{Duration, Instant};

use crate::games::Stop;

/// Stops once a wall-clock duration has passed since creation.
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    end: Instant,
}

impl Deadline {
    pub fn after(d: Duration) -> Self {
        Deadline {
            end: Instant::now() + d,
        }
    }
}

impl Stop for Deadline {
    fn should_stop(&self) -> bool {
        Instant::now() >= self.end
    }
}
