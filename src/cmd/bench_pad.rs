//! `gridbot bench pad --boards FILE`: the orb-drag path solver over a file of
//! boards (the same `Game::solve` that `solve --game pad` runs), per board
//! the combos found, the board's theoretical maximum, the path and the time.

use std::io::Write;
use std::path::Path;

use clap::Args;
use gridbot::bench::{mean_median, solve_timed, BenchBudget};
use gridbot::games::pad::{Objective, Orbs, Pad, PadParams, Rank};
use serde::Serialize;

/// Orb-drag settings shared by `bench pad` and `solve --game pad`.
#[derive(Args, Debug, Clone)]
pub struct PadArgs {
    /// Orb-drag: most steps in a path.
    #[arg(long, default_value_t = 150)]
    pub max_path: usize,
    /// Orb-drag: allow diagonal steps.
    #[arg(long)]
    pub diagonals: bool,
    /// Orb-drag: objective preset: combos, pndopt, clear-COLOUR, row-COLOUR,
    /// four-COLOUR (colours: fire water wood light dark heal jammer poison).
    #[arg(long, default_value = "combos")]
    pub objective: String,
    /// Orb-drag: ranking weights as JSON, the rest default, e.g.
    /// '{"row": 1.0}' (fields: combo, wasted_triple, column, row, pass, short_combo).
    #[arg(long)]
    pub rank: Option<String>,
    /// Orb-drag: states kept in the beam with the same plan (the cells the
    /// first pass clears and the combos) while others are left; 0: no limit.
    #[arg(long, default_value_t = 2)]
    pub per_plan: usize,
}

impl Default for PadArgs {
    fn default() -> Self {
        PadArgs {
            max_path: 150,
            diagonals: false,
            objective: "combos".into(),
            rank: None,
            per_plan: 2,
        }
    }
}

impl PadArgs {
    pub fn game(&self) -> anyhow::Result<Pad> {
        let objective = Objective::preset(&self.objective).ok_or_else(|| {
            anyhow::anyhow!(
                "unknown objective {:?} (combos, pndopt, clear-heal, row-fire, four-wood, ...)",
                self.objective
            )
        })?;
        let rank = match &self.rank {
            Some(text) => serde_json::from_str(text)
                .map_err(|e| anyhow::anyhow!("bad --rank {text:?}: {e}"))?,
            None => Rank::default(),
        };
        Ok(Pad {
            params: PadParams {
                max_path: self.max_path.max(1),
                diagonals: self.diagonals,
                objective,
                rank,
                per_plan: self.per_plan,
                ..PadParams::default()
            },
        })
    }
}

#[derive(Serialize)]
struct Row {
    board: usize,
    combos: u32,
    max_combos: u32,
    path_len: usize,
    /// Cells visited as [row, col], start first.
    path: Vec<[usize; 2]>,
    nodes: u64,
    ms: f64,
    cpu_ms: f64,
}

#[derive(Serialize)]
struct Summary {
    boards: usize,
    mean_combos: f64,
    mean_max_combos: f64,
    /// Boards where the path reaches the theoretical maximum.
    at_max: usize,
    at_max_pct: f64,
    mean_path_len: f64,
    mean_ms: f64,
    median_ms: f64,
    mean_cpu_ms: f64,
    median_cpu_ms: f64,
}

pub fn run(
    pad: &Pad,
    boards_file: &Path,
    limit: Option<usize>,
    budget: &BenchBudget,
    json: bool,
) -> anyhow::Result<i32> {
    let boards = super::bench::load_boards(boards_file, limit)?;
    let bar = super::bench::progress(boards.len() as u64, json);
    let mut rows = Vec::with_capacity(boards.len());
    let mut out = std::io::stdout().lock();
    for (i, b) in &boards {
        let (sol, ms, cpu_ms) = solve_timed(pad, b, budget)?;
        let max_combos = Orbs::from_board(b).map_or(0, |(g, o)| o.max_combos(&g));
        let path: Vec<[usize; 2]> = match sol.moves.first() {
            Some(gridbot::act::Move::Drag(cells)) => cells.iter().map(|c| [c.row, c.col]).collect(),
            _ => Vec::new(),
        };
        let row = Row {
            board: *i,
            combos: sol.score as u32,
            max_combos,
            path_len: path.len().saturating_sub(1),
            path,
            nodes: sol.stats.nodes,
            ms,
            cpu_ms,
        };
        if json {
            writeln!(out, "{}", serde_json::to_string(&row)?)?;
        }
        bar.inc(1);
        rows.push(row);
    }
    bar.finish_and_clear();
    let n = rows.len().max(1) as f64;
    let at_max = rows.iter().filter(|r| r.combos >= r.max_combos).count();
    let ms: Vec<f64> = rows.iter().map(|r| r.ms).collect();
    let cpu: Vec<f64> = rows.iter().map(|r| r.cpu_ms).collect();
    let (mean_ms, median_ms) = mean_median(&ms);
    let (mean_cpu_ms, median_cpu_ms) = mean_median(&cpu);
    let s = Summary {
        boards: rows.len(),
        mean_combos: rows.iter().map(|r| r.combos as f64).sum::<f64>() / n,
        mean_max_combos: rows.iter().map(|r| r.max_combos as f64).sum::<f64>() / n,
        at_max,
        at_max_pct: 100.0 * at_max as f64 / n,
        mean_path_len: rows.iter().map(|r| r.path_len as f64).sum::<f64>() / n,
        mean_ms,
        median_ms,
        mean_cpu_ms,
        median_cpu_ms,
    };
    if json {
        writeln!(out, "{}", serde_json::json!({ "summary": s }))?;
    } else {
        writeln!(
            out,
            "{} boards: mean combos {:.3} of {:.3} possible; at the maximum on {} ({:.1}%); \
             mean path {:.1} steps; ms mean {:.1} median {:.1}; cpu ms mean {:.1}",
            s.boards,
            s.mean_combos,
            s.mean_max_combos,
            s.at_max,
            s.at_max_pct,
            s.mean_path_len,
            s.mean_ms,
            s.median_ms,
            s.mean_cpu_ms
        )?;
    }
    Ok(0)
}
