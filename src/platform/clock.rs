//! Wall-clock deadlines handed to the pure solvers as a stop check, and a
//! per-thread CPU-time deadline for benches on a shared machine.

use std::thread::ThreadId;
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

/// CPU time the calling thread has run so far.
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes a full timespec into the pointer we give it.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0;
    if !ok {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Stops each thread once it has run a CPU-time duration: the thread that
/// made the deadline counts from then, any other thread from its start
/// (the solvers' workers are spawned per search). A bench on a loaded
/// machine then sees what each worker would do with a core of its own for
/// the budget: a quiet machine simulated, for comparing schedules (not a
/// budget for play, which is wall time).
#[derive(Debug, Clone, Copy)]
pub struct CpuDeadline {
    owner: ThreadId,
    start: Duration,
    budget: Duration,
}

impl CpuDeadline {
    pub fn after(d: Duration) -> Self {
        CpuDeadline {
            owner: std::thread::current().id(),
            start: thread_cpu_time(),
            budget: d,
        }
    }

    fn used(&self) -> Duration {
        let now = thread_cpu_time();
        if std::thread::current().id() == self.owner {
            now.saturating_sub(self.start)
        } else {
            now
        }
    }
}

impl Stop for CpuDeadline {
    fn should_stop(&self) -> bool {
        self.used() >= self.budget
    }

    fn spent(&self) -> Option<f64> {
        let total = self.budget.as_secs_f64();
        if total <= 0.0 {
            return Some(1.0);
        }
        Some((self.used().as_secs_f64() / total).min(1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each thread counts its own CPU time: a spawned thread starts near 0
    /// whatever the creating thread ran before.
    #[test]
    fn cpu_deadline_counts_each_threads_own_time() {
        let spin = |d: Duration| {
            let t0 = thread_cpu_time();
            while thread_cpu_time() - t0 < d {}
        };
        spin(Duration::from_millis(30));
        let dl = CpuDeadline::after(Duration::from_millis(20));
        assert!(dl.spent().expect("a quantity") < 0.5);
        std::thread::scope(|s| {
            s.spawn(|| {
                assert!(!dl.should_stop());
                spin(Duration::from_millis(25));
                assert!(dl.should_stop());
                assert_eq!(dl.spent(), Some(1.0));
            });
        });
        assert!(!dl.should_stop());
        spin(Duration::from_millis(25));
        assert!(dl.should_stop());
    }
}
