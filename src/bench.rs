//! Bench runner: solve every board of a file under a budget and collect scores,
//! wall and CPU times. Like the loop, it reads the clock (and only to measure
//! and to hand the solver a deadline); the solving is the same code `solve` and
//! `play` run.

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::board::Board;
use crate::games::{Budget, Game, GameError, NeverStop, Solution};
use crate::platform::clock::{CpuDeadline, Deadline};

/// What one bench run may spend per board.
#[derive(Debug, Clone, Copy)]
pub struct BenchBudget {
    /// Wall-clock budget per board.
    pub time: Option<Duration>,
    /// Deterministic width limit.
    pub width: Option<usize>,
    /// Deterministic node limit.
    pub nodes: Option<u64>,
    pub threads: usize,
    /// `time` is each worker thread's CPU time, not wall time
    /// ([`CpuDeadline`]): a quiet machine simulated on a loaded one.
    pub cpu_clock: bool,
}

/// The result of one board.
#[derive(Debug, Clone, Serialize)]
pub struct BoardResult {
    pub board: usize,
    pub score: i64,
    pub ms: f64,
    pub cpu_ms: f64,
    pub moves: usize,
    pub remaining: usize,
    pub nodes: u64,
    pub width: usize,
}

/// CPU time of the whole process (all threads) so far.
pub fn process_cpu_time() -> Duration {
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes a full rusage into the pointer we give it.
    let ok = unsafe { libc::getrusage(libc::RUSAGE_SELF, ru.as_mut_ptr()) } == 0;
    if !ok {
        return Duration::ZERO;
    }
    // SAFETY: initialised by the successful call above.
    let ru = unsafe { ru.assume_init() };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// Solves one board under a bench budget, timing it.
pub fn solve_timed(
    game: &dyn Game,
    board: &Board,
    b: &BenchBudget,
) -> Result<(Solution, f64, f64), GameError> {
    let deadline;
    let cpu_deadline;
    let never = NeverStop;
    let stop: &dyn crate::games::Stop = match b.time {
        Some(t) if b.cpu_clock => {
            cpu_deadline = CpuDeadline::after(t);
            &cpu_deadline
        }
        Some(t) => {
            deadline = Deadline::after(t);
            &deadline
        }
        None => &never,
    };
    let budget = Budget {
        stop,
        width: b.width,
        nodes: b.nodes,
        threads: b.threads,
    };
    let cpu0 = process_cpu_time();
    let t0 = Instant::now();
    let sol = game.solve(board, &budget)?;
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let cpu_ms = (process_cpu_time() - cpu0).as_secs_f64() * 1e3;
    Ok((sol, ms, cpu_ms))
}

/// Mean and median of a list (0 for an empty list).
pub fn mean_median(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    let mid = s.len() / 2;
    let median = if s.len().is_multiple_of(2) {
        (s[mid - 1] + s[mid]) / 2.0
    } else {
        s[mid]
    };
    (mean, median)
}

/// Summary of a bench run.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub boards: usize,
    pub mean_score: f64,
    pub median_score: f64,
    pub min_score: i64,
    pub max_score: i64,
    /// Boards scoring below `below_threshold`.
    pub below: usize,
    pub below_threshold: i64,
    pub mean_ms: f64,
    pub median_ms: f64,
    pub mean_cpu_ms: f64,
    pub median_cpu_ms: f64,
    pub mean_nodes: f64,
}

/// Summarises per-board results.
pub fn summarise(results: &[BoardResult], below_threshold: i64) -> Summary {
    let scores: Vec<f64> = results.iter().map(|r| r.score as f64).collect();
    let ms: Vec<f64> = results.iter().map(|r| r.ms).collect();
    let cpu: Vec<f64> = results.iter().map(|r| r.cpu_ms).collect();
    let nodes: Vec<f64> = results.iter().map(|r| r.nodes as f64).collect();
    let (mean_score, median_score) = mean_median(&scores);
    let (mean_ms, median_ms) = mean_median(&ms);
    let (mean_cpu_ms, median_cpu_ms) = mean_median(&cpu);
    Summary {
        boards: results.len(),
        mean_score,
        median_score,
        min_score: results.iter().map(|r| r.score).min().unwrap_or(0),
        max_score: results.iter().map(|r| r.score).max().unwrap_or(0),
        below: results.iter().filter(|r| r.score < below_threshold).count(),
        below_threshold,
        mean_ms,
        median_ms,
        mean_cpu_ms,
        median_cpu_ms,
        mean_nodes: mean_median(&nodes).0,
    }
}

/// Which exact-cover engine a packing bench runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Engine {
    /// The u64 bitmask path (first empty cell).
    Bits,
    /// The generic dancing-links engine.
    Dlx,
}

/// The result of counting one packing puzzle.
#[derive(Debug, Clone, Serialize)]
pub struct PuzzleResult {
    pub puzzle: String,
    /// Every solution (true) or one per symmetry class.
    pub all: bool,
    pub engine: Engine,
    pub threads: usize,
    pub solutions: u64,
    /// The published count, for comparison.
    pub expected: u64,
    pub ms: f64,
    pub cpu_ms: f64,
    pub nodes: u64,
}

/// Builds and counts one pentomino puzzle, timing both (wall and CPU). The
/// bitmask engine splits the root branches over `threads` threads.
pub fn count_puzzle(
    name: &str,
    all: bool,
    engine: Engine,
    threads: usize,
) -> Result<PuzzleResult, crate::packing::PackingError> {
    use crate::packing::{puzzles, ExactCover, Limits};
    let expected = puzzles::PUZZLES
        .iter()
        .find(|p| p.0 == name)
        .map_or(0, |p| if all { p.2 } else { p.1 });
    let cpu0 = process_cpu_time();
    let t0 = Instant::now();
    let tiling = puzzles::puzzle(name, all)?;
    let out = match engine {
        Engine::Bits => {
            // The root piece's placements split between a normal and a
            // mirrored scan (see Tiling::split_bit_problems); counts add up.
            let mut total = crate::packing::Outcome {
                solutions: 0,
                nodes: 0,
                halt: crate::packing::Halt::Complete,
            };
            for p in tiling.split_bit_problems()? {
                let o = if threads > 1 {
                    let visit = |_: &mut (), _: &[usize]| std::ops::ControlFlow::Continue(());
                    p.par_search(&Limits::none(), threads, || (), visit).1
                } else {
                    p.count(&Limits::none())
                };
                total.solutions += o.solutions;
                total.nodes += o.nodes;
                if o.halt != crate::packing::Halt::Complete {
                    total.halt = o.halt;
                }
            }
            total
        }
        Engine::Dlx => tiling.dlx_problem().count(&Limits::none()),
    };
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    let cpu_ms = (process_cpu_time() - cpu0).as_secs_f64() * 1e3;
    Ok(PuzzleResult {
        puzzle: name.to_string(),
        all,
        engine,
        threads: if engine == Engine::Bits { threads } else { 1 },
        solutions: out.solutions,
        expected,
        ms,
        cpu_ms,
        nodes: out.nodes,
    })
}
