//! `gridbot bench GAME ...`: a solver over a benchmark set. `popstar` and
//! `samegame` read `--boards FILE`; `tetris` plays whole seeded games (see
//! `bench_tetris`); `chips` counts the pentomino puzzles (`--puzzle NAME`,
//! `--all`). Each game takes its own options and says which one is missing.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use gridbot::bench::{
    count_puzzle, mean_median, solve_timed, summarise, BenchBudget, BoardResult, Engine,
};
use gridbot::board::Board;
use gridbot::games;

#[derive(Args)]
pub struct BenchArgs {
    /// Game: popstar, samegame, tetris, chips (the pentomino exact-cover puzzles),
    /// match3 / gweled (the exact swap planner), or pad (orb-drag paths).
    #[arg(value_parser = super::game_arg)]
    game: String,
    /// popstar/samegame: file with one board text a line.
    #[arg(long)]
    boards: Option<PathBuf>,
    /// chips: puzzle to count (repeat for several; default: all of them):
    /// pentomino-6x10, pentomino-5x12, pentomino-4x15, pentomino-3x20, pentomino-8x8-hole.
    #[arg(long)]
    puzzle: Vec<String>,
    /// chips: count every solution instead of one per symmetry class.
    #[arg(long)]
    all: bool,
    /// chips: exact-cover engine, bits (u64 fast path) or dlx (dancing links).
    #[arg(long, default_value = "bits")]
    engine: String,
    #[command(flatten)]
    search: SearchArgs,
    /// Only the first N boards.
    #[arg(long)]
    limit: Option<usize>,
    /// Count boards scoring below this in the summary.
    #[arg(long, default_value_t = 4000)]
    below: i64,
    /// Override the solver's portfolio: "groups:colours,..." one weighting per worker.
    #[arg(long)]
    portfolio: Option<String>,
    /// Collapse: share of a clock budget for the exact search of the end of
    /// the best line, and its node cap under --width: SHARE[:NODES]
    /// (default 0.2:0, no end search under --width).
    #[arg(long)]
    endgame: Option<String>,
    /// Collapse: the widening schedule of the beam under a clock budget:
    /// START:JUMP:FILL:CUT[:NARROW] (first width after the greedy pass, the
    /// widening step, share of the time left a fitted pass is sized to, share
    /// of the budget where a pass is cut, how much narrower a pass goes on
    /// past its time; default 4:32:1:0.95:8).
    #[arg(long)]
    schedule: Option<String>,
    /// The budget is each worker thread's CPU time, not wall time: what a
    /// quiet machine would give, measured on a loaded one (comparisons of
    /// schedules; scores are not the wall-clock figures).
    #[arg(long)]
    cpu_clock: bool,
    /// One JSON object a line, then a summary line.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    tetris: super::bench_tetris::TetrisBenchArgs,
    #[command(flatten)]
    pad: super::bench_pad::PadArgs,
    /// Match-3: swaps to plan (X, default 3); the search is exact, without a time budget.
    #[arg(long)]
    swaps: Option<usize>,
    /// Match-3: scoring preset (cells, gweled[:M], cascade[:P]).
    #[arg(long)]
    scoring: Option<String>,
}

/// How much a search may spend: shared by `solve` and `bench`.
#[derive(Args)]
pub struct SearchArgs {
    /// Wall-clock budget per board.
    #[arg(long, default_value_t = 1000)]
    budget_ms: u64,
    /// Fixed beam width instead of a time budget (deterministic); for
    /// `bench tetris`: the field width (default 10).
    #[arg(long, value_parser = at_least_one)]
    pub width: Option<usize>,
    /// Worker threads (the portfolio size); default: all cores, at most 2;
    /// for `bench tetris`: games in parallel (default 1).
    #[arg(long, value_parser = at_least_one)]
    pub threads: Option<usize>,
}

impl SearchArgs {
    /// A fixed width ignores the clock; otherwise the time budget applies.
    pub fn budget(&self) -> BenchBudget {
        BenchBudget {
            time: match self.width {
                Some(_) => None,
                None => Some(Duration::from_millis(self.budget_ms)),
            },
            width: self.width,
            nodes: None,
            threads: default_threads(self.threads),
            cpu_clock: false,
        }
    }
}

/// A count that must be 1 or more (a width or a number of threads).
fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// Threads to use: the given number, else the cores (at most 2: the portfolio size).
pub fn default_threads(t: Option<usize>) -> usize {
    t.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(2)
    })
}

pub fn run(a: BenchArgs) -> anyhow::Result<i32> {
    if a.game == "tetris" {
        return super::bench_tetris::run(&a.tetris, &a.search, a.json);
    }
    if a.game == "chips" {
        return run_chips(&a);
    }
    if a.game == "pad" {
        let Some(boards_file) = &a.boards else {
            anyhow::bail!("bench pad needs --boards FILE");
        };
        return super::bench_pad::run(
            &a.pad.game()?,
            boards_file,
            a.limit,
            &a.search.budget(),
            a.json,
        );
    }
    let match3 = super::bench_match3::game(&a.game, a.swaps, a.scoring.as_deref())?;
    let Some(boards_file) = &a.boards else {
        anyhow::bail!("bench {} needs --boards FILE", a.game);
    };
    if let Some(g) = match3 {
        return super::bench_match3::run(&g, boards_file, a.limit, a.json);
    }
    let game = if a.portfolio.is_some() || a.endgame.is_some() || a.schedule.is_some() {
        games::collapse::Collapse::tuned(
            &a.game,
            a.portfolio.as_deref(),
            a.endgame.as_deref(),
            a.schedule.as_deref(),
        )?
    } else {
        games::by_name(&a.game)?
    };
    let boards = load_boards(boards_file, a.limit)?;
    let budget = BenchBudget {
        cpu_clock: a.cpu_clock,
        ..a.search.budget()
    };
    let bar = progress(boards.len() as u64, a.json);
    let mut results = Vec::with_capacity(boards.len());
    let mut out = std::io::stdout().lock();
    for (line, board) in &boards {
        let (sol, ms, cpu_ms) = solve_timed(game.as_ref(), board, &budget)
            .with_context(|| format!("board on line {}", line + 1))?;
        let r = BoardResult {
            board: *line,
            score: sol.score,
            ms,
            cpu_ms,
            moves: sol.moves.len(),
            remaining: sol.boards.last().unwrap_or(board).filled_count(),
            nodes: sol.stats.nodes,
            width: sol.stats.width,
        };
        if a.json {
            writeln!(out, "{}", serde_json::to_string(&r)?)?;
        }
        bar.inc(1);
        results.push(r);
    }
    bar.finish_and_clear();
    let s = summarise(&results, a.below);
    if a.json {
        writeln!(out, "{}", serde_json::json!({ "summary": s }))?;
    } else {
        writeln!(
            out,
            "{} boards: mean score {:.1}, median {:.0}, min {}, max {}, {} below {}; \
             wall ms mean {:.1} median {:.1}; cpu ms mean {:.1}; nodes mean {:.0}",
            s.boards,
            s.mean_score,
            s.median_score,
            s.min_score,
            s.max_score,
            s.below,
            s.below_threshold,
            s.mean_ms,
            s.median_ms,
            s.mean_cpu_ms,
            s.mean_nodes
        )?;
    }
    Ok(0)
}

/// `bench chips`: counts each puzzle's solutions, timed (build + search).
fn run_chips(a: &BenchArgs) -> anyhow::Result<i32> {
    let engine = match a.engine.as_str() {
        "bits" => Engine::Bits,
        "dlx" => Engine::Dlx,
        e => anyhow::bail!("unknown --engine {e:?} (bits or dlx)"),
    };
    let names: Vec<String> = if a.puzzle.is_empty() {
        gridbot::packing::puzzles::PUZZLES
            .iter()
            .map(|p| p.0.to_string())
            .collect()
    } else {
        a.puzzle.clone()
    };
    let mut out = std::io::stdout().lock();
    let mut results = Vec::new();
    for name in &names {
        let r = count_puzzle(name, a.all, engine, default_threads(a.search.threads))?;
        if a.json {
            writeln!(out, "{}", serde_json::to_string(&r)?)?;
        } else {
            writeln!(
                out,
                "{}{}: {} solutions (published {}), {:.1} ms wall, {:.1} ms cpu, {} nodes, {} thread(s)",
                r.puzzle,
                if r.all { " (all)" } else { "" },
                r.solutions,
                r.expected,
                r.ms,
                r.cpu_ms,
                r.nodes,
                r.threads
            )?;
        }
        results.push(r);
    }
    let ms: Vec<f64> = results.iter().map(|r| r.ms).collect();
    let cpu: Vec<f64> = results.iter().map(|r| r.cpu_ms).collect();
    let (mean_ms, median_ms) = mean_median(&ms);
    let (mean_cpu_ms, median_cpu_ms) = mean_median(&cpu);
    let all_match = results.iter().all(|r| r.solutions == r.expected);
    if a.json {
        let s = serde_json::json!({ "summary": {
            "puzzles": results.len(),
            "solutions": results.iter().map(|r| r.solutions).sum::<u64>(),
            "all_match": all_match,
            "mean_ms": mean_ms,
            "median_ms": median_ms,
            "mean_cpu_ms": mean_cpu_ms,
            "median_cpu_ms": median_cpu_ms,
        }});
        writeln!(out, "{s}")?;
    }
    Ok(if all_match { 0 } else { 1 })
}

/// The boards of a bench file, one per non-blank line, with their 0-based
/// line numbers; the first `limit` only when given. A bad line is an error
/// naming the file and line.
pub fn load_boards(path: &Path, limit: Option<usize>) -> anyhow::Result<Vec<(usize, Board)>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut boards = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let b: Board = line
            .parse()
            .with_context(|| format!("{} line {}", path.display(), i + 1))?;
        boards.push((i, b));
        if limit.is_some_and(|n| boards.len() >= n) {
            break;
        }
    }
    Ok(boards)
}

/// A progress bar over `len` steps on stderr; hidden when the output is JSON
/// (one object a line on stdout, nothing else).
pub fn progress(len: u64, json: bool) -> indicatif::ProgressBar {
    if json {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new(len)
    }
}
