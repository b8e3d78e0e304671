//! `gridbot bench GAME --boards FILE`: the solver over a file of boards;
//! `gridbot bench tetris ...`: whole seeded games (see `bench_tetris`).

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use clap::Args;
use gridbot::bench::{solve_timed, summarise, BenchBudget, BoardResult};
use gridbot::board::Board;
use gridbot::games;

#[derive(Args)]
pub struct BenchArgs {
    /// Game: popstar, samegame or tetris.
    game: String,
    /// File with one board text a line (not for tetris).
    #[arg(long)]
    boards: Option<PathBuf>,
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
    /// One JSON object a line, then a summary line.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    tetris: super::bench_tetris::TetrisBenchArgs,
}

/// How much a search may spend: shared by `solve` and `bench`.
#[derive(Args)]
pub struct SearchArgs {
    /// Wall-clock budget per board.
    #[arg(long, default_value_t = 1000)]
    budget_ms: u64,
    /// Fixed beam width instead of a time budget (deterministic); for
    /// `bench tetris`: the field width (default 10).
    #[arg(long)]
    pub width: Option<usize>,
    /// Worker threads (the portfolio size); default: all cores, at most 2;
    /// for `bench tetris`: games in parallel (default 1).
    #[arg(long)]
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
        }
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
    let Some(path) = &a.boards else {
        anyhow::bail!("bench {} needs --boards FILE", a.game);
    };
    let game = match &a.portfolio {
        Some(p) => games::collapse::Collapse::with_portfolio(&a.game, p)?,
        None => games::by_name(&a.game)?,
    };
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
    }
    if let Some(n) = a.limit {
        boards.truncate(n);
    }
    let budget = a.search.budget();
    let bar = if a.json {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new(boards.len() as u64)
    };
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
