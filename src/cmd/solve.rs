//! `gridbot solve`: one board in, the line of play out.

use anyhow::Context;
use clap::Args;
use gridbot::bench::solve_timed;
use gridbot::board::Board;
use gridbot::games;

#[derive(Args)]
pub struct SolveArgs {
    /// Game: popstar, samegame (Swell Foop), match3 or gweled.
    #[arg(long, value_parser = super::game_arg)]
    game: String,
    /// The board as text: rows top to bottom joined by '/', digits are colours, '.' empty.
    #[arg(long)]
    board: String,
    #[command(flatten)]
    search: super::bench::SearchArgs,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    /// Match-3: swaps to plan (X, default 3); the search is exact, without a time budget.
    #[arg(long)]
    swaps: Option<usize>,
    /// Match-3: scoring preset (cells, gweled[:M], cascade[:P]).
    #[arg(long)]
    scoring: Option<String>,
}

pub fn run(a: SolveArgs) -> anyhow::Result<i32> {
    let m3 = super::bench_match3::game(&a.game, a.swaps, a.scoring.as_deref())?;
    let (game, budget) = match m3 {
        Some(g) => (
            Box::new(g) as Box<dyn games::Game>,
            super::bench_match3::exact_budget(),
        ),
        None => (games::by_name(&a.game)?, a.search.budget()),
    };
    let board: Board = a.board.parse().context("bad --board")?;
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
