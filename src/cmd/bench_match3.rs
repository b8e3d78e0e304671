//! `gridbot bench match3 --boards FILE --swaps X`: the exact planner over a
//! file of boards (the same `Game::solve` that `solve` runs), timed per board.
//!
//! The planner is exact, so it runs without a time budget (`--budget-ms` is
//! ignored here); `"exact": false` would only appear under a node cap.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use gridbot::bench::{mean_median, solve_timed, BenchBudget};
use gridbot::games::match3::{Match3, Scoring};
use gridbot::games::Game;
use serde::Serialize;

/// The match-3 game for a `--game` name, with `--swaps` and `--scoring`
/// applied; `None` when the name is not a match-3 game.
pub fn game(
    name: &str,
    swaps: Option<usize>,
    scoring: Option<&str>,
) -> anyhow::Result<Option<Match3>> {
    let base = match name {
        "match3" => Match3::new(),
        "gweled" => Match3::new().with_scoring(Scoring::gweled(1)),
        _ => return Ok(None),
    };
    let mut g = base.with_swaps(swaps.unwrap_or(3));
    if let Some(s) = scoring {
        g = g.with_scoring(Scoring::preset(s)?);
    }
    if g.params.swaps > 12 {
        anyhow::bail!(
            "--swaps {} is too deep for an exact search (at most 12)",
            g.params.swaps
        );
    }
    Ok(Some(g))
}

/// No deadline: the planner runs to its proven optimum.
pub fn exact_budget() -> BenchBudget {
    BenchBudget {
        time: None,
        width: None,
        nodes: None,
        threads: 1,
        cpu_clock: false,
    }
}

#[derive(Serialize)]
struct Row {
    board: usize,
    score: i64,
    nodes: u64,
    ms: f64,
    cpu_ms: f64,
    /// Swaps in the best line (at most X).
    swaps: usize,
    exact: bool,
}

#[derive(Serialize)]
struct Summary {
    boards: usize,
    swaps: usize,
    mean_score: f64,
    median_score: f64,
    min_score: i64,
    max_score: i64,
    mean_ms: f64,
    median_ms: f64,
    mean_cpu_ms: f64,
    median_cpu_ms: f64,
    mean_nodes: f64,
    median_nodes: f64,
    max_nodes: u64,
    all_exact: bool,
}

/// Runs the bench and prints rows (JSON) or a progress bar and a summary line.
pub fn run(
    game: &Match3,
    boards_file: &Path,
    limit: Option<usize>,
    json: bool,
) -> anyhow::Result<i32> {
    let boards = super::bench::load_boards(boards_file, limit)?;
    let bar = super::bench::progress(boards.len() as u64, json);
    let budget = exact_budget();
    let mut out = std::io::stdout().lock();
    let mut rows = Vec::with_capacity(boards.len());
    for (line, board) in &boards {
        let (sol, ms, cpu_ms) = solve_timed(game as &dyn Game, board, &budget)
            .with_context(|| format!("board on line {}", line + 1))?;
        let r = Row {
            board: *line,
            score: sol.score,
            nodes: sol.stats.nodes,
            ms,
            cpu_ms,
            swaps: sol.moves.len(),
            exact: sol.stats.passes == 1,
        };
        if json {
            writeln!(out, "{}", serde_json::to_string(&r)?)?;
        }
        bar.inc(1);
        rows.push(r);
    }
    bar.finish_and_clear();
    let f = |get: &dyn Fn(&Row) -> f64| mean_median(&rows.iter().map(get).collect::<Vec<_>>());
    let (mean_score, median_score) = f(&|r| r.score as f64);
    let (mean_ms, median_ms) = f(&|r| r.ms);
    let (mean_cpu_ms, median_cpu_ms) = f(&|r| r.cpu_ms);
    let (mean_nodes, median_nodes) = f(&|r| r.nodes as f64);
    let s = Summary {
        boards: rows.len(),
        swaps: game.params.swaps,
        mean_score,
        median_score,
        min_score: rows.iter().map(|r| r.score).min().unwrap_or(0),
        max_score: rows.iter().map(|r| r.score).max().unwrap_or(0),
        mean_ms,
        median_ms,
        mean_cpu_ms,
        median_cpu_ms,
        mean_nodes,
        median_nodes,
        max_nodes: rows.iter().map(|r| r.nodes).max().unwrap_or(0),
        all_exact: rows.iter().all(|r| r.exact),
    };
    if json {
        writeln!(out, "{}", serde_json::json!({ "summary": s }))?;
    } else {
        writeln!(
            out,
            "{} boards, X = {}: mean score {:.2}, median {:.0}, min {}, max {}; \
             wall ms mean {:.2} median {:.2}; cpu ms mean {:.2}; nodes mean {:.0} median {:.0} max {}{}",
            s.boards,
            s.swaps,
            s.mean_score,
            s.median_score,
            s.min_score,
            s.max_score,
            s.mean_ms,
            s.median_ms,
            s.mean_cpu_ms,
            s.mean_nodes,
            s.median_nodes,
            s.max_nodes,
            if s.all_exact { "; all exact" } else { "; NOT all exact" }
        )?;
    }
    Ok(0)
}
