//! Wall-clock deadlines handed to the pure solvers as a stop check.

use std::time::{Duration, Instant};

use crate::games::Stop;

/// Stops once a wall-clock duration has passed since creation.
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    start: Instant,
    end: Instant,
}

impl Deadline {
    pub fn after(d: Duration) -> Self {
        let start = Instant::now();
        Deadline {
            start,
            end: start + d,
        }
    }
}

impl Stop for Deadline {
    fn should_stop(&self) -> bool {
        Instant::now() >= self.end
    }

    fn spent(&self) -> Option<f64> {
        let total = (self.end - self.start).as_secs_f64();
        if total <= 0.0 {
            return Some(1.0);
        }
        Some((self.start.elapsed().as_secs_f64() / total).min(1.0))
    }
}
