//! `gridbot solve`: one board in, the line of play out.

use std::time::Duration;

use anyhow::Context;
use clap::Args;
use gridbot::bench::{solve_timed, BenchBudget};
use gridbot::board::Board;
use gridbot::games;

#[derive(Args)]
pub struct SolveArgs {
    /// Game: popstar or samegame (Swell Foop).
    #[arg(long)]
    game: String,
    /// The board as text: rows top to bottom joined by '/', digits are colours, '.' empty.
    #[arg(long)]
    board: String,
    /// Wall-clock budget for the search.
    #[arg(long, default_value_t = 1000)]
    budget_ms: u64,
    /// Fixed beam width instead of a time budget (deterministic).
    #[arg(long)]
    width: Option<usize>,
    /// Worker threads (the portfolio size); default: all cores, at most 2.
    #[arg(long)]
    threads: Option<usize>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(a: SolveArgs) -> anyhow::Result<i32> {
    let game = games::by_name(&a.game)?;
    let board: Board = a.board.parse().context("bad --board")?;
    let budget = BenchBudget {
        time: if a.width.is_some() {
            None
        } else {
            Some(Duration::from_millis(a.budget_ms))
        },
        width: a.width,
        nodes: None,
        threads: super::bench::default_threads(a.threads),
    };
    let (sol, ms, cpu_ms) = solve_timed(game.as_ref(), &board, &budget)?;
    if a.json {
        let moves: Vec<_> = sol.moves.iter().collect();
        let last = sol.boards.last().unwrap_or(&board);
        let v = serde_json::json!({
            "board": board.to_string(),
            "score": sol.score,
            "moves": moves,
            "remaining": last.filled_count(),
            "final": last.to_string(),
            "ms": ms,
            "cpu_ms": cpu_ms,
            "nodes": sol.stats.nodes,
            "width": sol.stats.width,
        });
        println!("{v}");
    } else {
        for (i, (m, b)) in sol.moves.iter().zip(&sol.boards).enumerate() {
            println!("{:3}. {:?} +{} -> {}", i + 1, m, sol.rewards[i], b);
        }
        println!(
            "score {} ({} moves, {} nodes, width {}, {:.0} ms)",
            sol.score,
            sol.moves.len(),
            sol.stats.nodes,
            sol.stats.width,
            ms
        );
    }
    Ok(0)
}
