//! `gridbot chips`: plan a heavy-ordnance circuit from a chip inventory, or
//! (without `--inventory`) count a circuit's tilings with every chip shape.

use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Args;
use gridbot::packing::gfl::{self, STAT_NAMES};
use gridbot::packing::plan::{plan, PlanParams, Progress};
use gridbot::packing::tiling::{Piece, Tiling};
use gridbot::packing::{draw, Limits};
use gridbot::platform::clock::Deadline;

#[derive(Args)]
pub struct ChipsArgs {
    /// Unit whose circuit to fill: bgm71, ags30, 2b14, m2, at4, qlz04, mk153
    /// (or "all" to count every circuit's tilings).
    #[arg(long)]
    circuit: String,
    /// Inventory TOML ([[chip]] tables: id, shape, colour, pt or stats); see
    /// data/gfl/example-inventory.toml. Without it: count the circuit's tilings.
    #[arg(long)]
    inventory: Option<PathBuf>,
    /// How many fillings to list.
    #[arg(long, default_value_t = 10)]
    top: usize,
    /// Draw the listed fillings into this PNG.
    #[arg(long)]
    picture: Option<PathBuf>,
    /// Cells that may stay empty.
    #[arg(long, default_value_t = 0)]
    empty: u32,
    /// Circuit star level (1-5).
    #[arg(long, default_value_t = 5)]
    star: u8,
    /// Wall-clock budget; the best found so far is listed when it runs out.
    #[arg(long, default_value_t = 10_000)]
    budget_ms: u64,
    /// Threads for the tiling search; default: all cores, at most 2.
    #[arg(long)]
    threads: Option<usize>,
    /// One JSON object instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(a: ChipsArgs) -> anyhow::Result<i32> {
    if !(1..=5).contains(&a.star) {
        anyhow::bail!("--star {} (1-5)", a.star);
    }
    let shapes = gfl::chip_shapes()?;
    let Some(inv_path) = &a.inventory else {
        return count_tilings(&a, &shapes);
    };
    let circuit = gfl::circuit(&a.circuit)?;
    let text = std::fs::read_to_string(inv_path)
        .with_context(|| format!("cannot read inventory {}", inv_path.display()))?;
    let chips = gfl::parse_inventory(&text, &inv_path.display().to_string(), &shapes)?;
    let params = PlanParams {
        top: a.top,
        max_empty: a.empty,
        star: a.star,
        threads: super::bench::default_threads(a.threads),
    };
    let deadline = Deadline::after(Duration::from_millis(a.budget_ms));
    let limits = Limits {
        nodes: None,
        stop: &deadline,
    };
    let bar = if a.json {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new_spinner()
    };
    let t0 = Instant::now();
    let result = plan(
        &circuit,
        &shapes,
        &chips,
        &params,
        &limits,
        &mut |p| match p {
            Progress::Tilings(n) => bar.set_message(format!("{n} tilings")),
            Progress::Combinations { done, of } => {
                bar.set_message(format!("chips for combination {done} of {of}"))
            }
        },
    )?;
    bar.finish_and_clear();
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    if let Some(path) = &a.picture {
        let img = draw::draw_fillings(&circuit, a.star, &result.fillings, &chips, 40);
        img.save(path)
            .with_context(|| format!("cannot write picture {}", path.display()))?;
    }
    let mut out = std::io::stdout().lock();
    if a.json {
        let fillings: Vec<_> = result
            .fillings
            .iter()
            .map(|f| {
                serde_json::json!({
                    "score": f.score,
                    "stats": f.stats,
                    "resonance": f.resonance,
                    "empty": f.empty,
                    "chips": f.chips.iter().map(|pc| serde_json::json!({
                        "id": chips[pc.chip].id,
                        "shape": shapes[chips[pc.chip].shape].code,
                        "cells": pc.cells,
                        "turns": pc.turns,
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        let v = serde_json::json!({
            "circuit": circuit.name,
            "target": circuit.target,
            "chips": chips.len(),
            "fillings": fillings,
            "stats": result.stats,
            "ms": ms,
        });
        writeln!(out, "{v}")?;
        return Ok(0);
    }
    writeln!(
        out,
        "{} ({} cells, target {}): {} chips; {} tilings, {} shape combinations, {} searched, {:.0} ms{}",
        circuit.name,
        circuit.region(a.star).cell_count(),
        fmt_stats(&circuit.target),
        chips.len(),
        result.stats.tilings,
        result.stats.combinations,
        result.stats.searched,
        ms,
        if result.stats.halt == gridbot::packing::Halt::Complete && result.stats.chips_complete {
            ""
        } else {
            " (budget ran out: best found so far)"
        }
    )?;
    if result.fillings.is_empty() {
        writeln!(
            out,
            "no filling: the inventory's shapes cannot fill the circuit (try --empty N)"
        )?;
    }
    for (i, f) in result.fillings.iter().enumerate() {
        writeln!(
            out,
            "\n#{} {:.1}% stats {} resonance {} cells",
            i + 1,
            f.score * 100.0,
            fmt_stats(&f.stats),
            f.resonance
        )?;
        // The circuit as text: a letter per chip, '.' outside, '_' empty.
        let region = circuit.region(a.star);
        let mut grid = vec![vec!['.'; region.cols()]; region.rows()];
        for c in region.cells() {
            grid[c.row][c.col] = '_';
        }
        for (k, pc) in f.chips.iter().enumerate() {
            let letter = (b'A' + (k % 26) as u8) as char;
            for c in &pc.cells {
                grid[c.row][c.col] = letter;
            }
        }
        let legend: Vec<String> = f
            .chips
            .iter()
            .enumerate()
            .map(|(k, pc)| {
                let ch = &chips[pc.chip];
                format!(
                    "{} = chip {} ({} {:?}, at row {} col {}, {} turn{} cw)",
                    (b'A' + (k % 26) as u8) as char,
                    ch.id,
                    shapes[ch.shape].code,
                    ch.colour,
                    pc.cells[0].row,
                    pc.cells[0].col,
                    pc.turns,
                    if pc.turns == 1 { "" } else { "s" }
                )
            })
            .collect();
        for (r, row) in grid.iter().enumerate() {
            let text: String = row.iter().collect();
            writeln!(
                out,
                "  {text}   {}",
                legend.get(r).map_or("", |s| s.as_str())
            )?;
        }
        for extra in legend.iter().skip(grid.len()) {
            writeln!(out, "  {}   {extra}", " ".repeat(region.cols()))?;
        }
    }
    Ok(0)
}

fn fmt_stats(s: &gfl::Stats) -> String {
    STAT_NAMES
        .iter()
        .zip(s)
        .map(|(n, v)| format!("{} {v}", &n[..3]))
        .collect::<Vec<_>>()
        .join(" / ")
}

/// Without an inventory: every tiling of the circuit by the full chip shape
/// set (any number of each shape), and how many shape combinations they use.
fn count_tilings(a: &ChipsArgs, shapes: &[gfl::ChipShape]) -> anyhow::Result<i32> {
    let circuits = if a.circuit == "all" {
        gfl::circuits()?
    } else {
        vec![gfl::circuit(&a.circuit)?]
    };
    let mut out = std::io::stdout().lock();
    for c in circuits {
        let region = c.region(a.star);
        let cells = region.cell_count() as u32;
        let pieces: Vec<Piece> = shapes
            .iter()
            .map(|s| Piece {
                name: s.code.clone(),
                shape: s.shape.clone(),
                count: cells / s.shape.len() as u32 + 1,
                reflections: false,
            })
            .collect();
        let tiling = Tiling::new(region, pieces);
        let problem = tiling.bit_problem()?;
        let deadline = Deadline::after(Duration::from_millis(a.budget_ms));
        let limits = Limits {
            nodes: None,
            stop: &deadline,
        };
        let pieces_n = tiling.pieces.len();
        let t0 = Instant::now();
        let (parts, outcome) = problem.par_search(
            &limits,
            super::bench::default_threads(a.threads),
            || (std::collections::HashSet::new(), vec![0u8; pieces_n]),
            |(set, key): &mut (std::collections::HashSet<Vec<u8>>, Vec<u8>), sol| {
                key.iter_mut().for_each(|k| *k = 0);
                for &o in sol {
                    key[tiling.options[o].piece] += 1;
                }
                if !set.contains(key.as_slice()) {
                    set.insert(key.clone());
                }
                std::ops::ControlFlow::Continue(())
            },
        );
        let mut combos = std::collections::HashSet::new();
        for (set, _) in parts {
            combos.extend(set);
        }
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        let v = serde_json::json!({
            "circuit": c.id,
            "cells": cells,
            "tilings": outcome.solutions,
            "combinations": combos.len(),
            "complete": outcome.halt == gridbot::packing::Halt::Complete,
            "nodes": outcome.nodes,
            "ms": ms,
        });
        if a.json {
            writeln!(out, "{v}")?;
        } else {
            writeln!(
                out,
                "{} ({} cells at {} stars): {} tilings{}, {} shape combinations, {:.0} ms",
                c.name,
                cells,
                a.star,
                outcome.solutions,
                if outcome.halt == gridbot::packing::Halt::Complete {
                    ""
                } else {
                    " (budget ran out: at least)"
                },
                combos.len(),
                ms
            )?;
        }
    }
    Ok(0)
}
