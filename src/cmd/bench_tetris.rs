//! `gridbot bench tetris`: whole seeded games, one evaluator beside a baseline.
//!
//! Game `i` of a run uses the pieces of `game_seed(seed, i)`, whatever the
//! evaluator or the preview, so `--baseline` plays the very same sequences.
//! Games run in parallel on `--threads` workers; each game is single-threaded
//! and deterministic, so results do not depend on the thread count (only the
//! wall times do).

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use gridbot::bench::mean_median;
use gridbot::games::tetris::{
    self, game::game_seed, Eval, GameSetup, Model, MoveGen, MoveRules, Player, Randomizer,
    RotationSystem, SearchParams, Shapes,
};
use rayon::prelude::*;
use serde::Serialize;

use super::bench::SearchArgs;

/// Options of `bench tetris` (field width is `--width`, default 10).
#[derive(Args)]
pub struct TetrisBenchArgs {
    /// Tetris: games to play.
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// Tetris: seed of the piece sequences.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Tetris: field height.
    #[arg(long, default_value_t = 20)]
    height: usize,
    /// Tetris: known next pieces used by the search (0, 1, 2, ...).
    #[arg(long, default_value_t = 0)]
    preview: usize,
    /// Tetris: placements kept per level of the lookahead.
    #[arg(long, default_value_t = SearchParams::default().beam)]
    beam: usize,
    /// Tetris: also search over the unknown piece after the known ones
    /// (the mean over the seven kinds); uses no preview information.
    #[arg(long)]
    expect: bool,
    /// Tetris: evaluator preset (dellacherie, el-tetris, bcts, tuned) or a TOML file.
    #[arg(long, default_value = "tuned")]
    eval: String,
    /// Tetris: also play this evaluator without preview on the same games and
    /// report the ratio of mean lines.
    #[arg(long)]
    baseline: Option<String>,
    /// Tetris: 7-bag piece generator instead of uniform.
    #[arg(long)]
    bag: bool,
    /// Tetris: stop each game after this many pieces.
    #[arg(long)]
    max_pieces: Option<u64>,
    /// Tetris: rotation system preset (srs) or a TOML file.
    #[arg(long, default_value = "srs")]
    rotation: String,
    /// Tetris: also use placements that need a slide under an overhang.
    #[arg(long)]
    slides: bool,
    /// Tetris: game model: reach (moves and turns at the top, hard drop: the
    /// live game), fahey (Colin Fahey's Standard Tetris, where Dellacherie's
    /// controller makes ~660,000 lines on 10x20) or drop (every rotation and
    /// column dropped from above). fahey and drop play one piece at a time.
    #[arg(long, default_value = "reach")]
    model: String,
}

/// One game's line of `--json`.
#[derive(Serialize)]
struct GameLine<'a> {
    game: u64,
    eval: &'a str,
    preview: usize,
    expect: bool,
    lines: u64,
    pieces: u64,
    ms: f64,
    topped_out: bool,
    nodes: u64,
}

/// The summary of one evaluator.
#[derive(Serialize, Clone)]
struct EvalSummary {
    eval: String,
    preview: usize,
    expect: bool,
    games: usize,
    mean_lines: f64,
    median_lines: f64,
    min_lines: u64,
    max_lines: u64,
    mean_pieces: f64,
    median_pieces: f64,
    mean_ms: f64,
    median_ms: f64,
    /// Pieces per second of one thread (all pieces over the summed game times).
    pieces_per_s: f64,
    /// Games stopped by `--max-pieces`.
    capped: usize,
}

/// Reads an evaluator: a preset name or a TOML file.
pub fn load_eval(name: &str) -> anyhow::Result<Eval> {
    if name.ends_with(".toml") {
        let text = std::fs::read_to_string(name).with_context(|| format!("cannot read {name}"))?;
        Ok(Eval::from_toml(&text).with_context(|| name.to_string())?)
    } else {
        Ok(Eval::preset(name)?)
    }
}

/// Reads a rotation system: a preset name or a TOML file.
pub fn load_rotation(name: &str) -> anyhow::Result<RotationSystem> {
    if Path::new(name).extension().is_some_and(|e| e == "toml") {
        let text = std::fs::read_to_string(name).with_context(|| format!("cannot read {name}"))?;
        Ok(RotationSystem::from_toml(&text).with_context(|| name.to_string())?)
    } else {
        Ok(RotationSystem::preset(name)?)
    }
}

/// Builds the move generator for a size.
pub fn move_gen(
    rotation: &str,
    width: usize,
    height: usize,
    slides: bool,
) -> anyhow::Result<MoveGen> {
    let rs = load_rotation(rotation)?;
    Ok(MoveGen::new(
        Shapes::new(&rs, width)?,
        MoveRules { ccw: true, slides },
        width,
        height,
    )?)
}

fn summarise(eval: &str, search: SearchParams, rs: &[(tetris::GameResult, f64)]) -> EvalSummary {
    let lines: Vec<f64> = rs.iter().map(|r| r.0.lines as f64).collect();
    let pieces: Vec<f64> = rs.iter().map(|r| r.0.pieces as f64).collect();
    let ms: Vec<f64> = rs.iter().map(|r| r.1).collect();
    let (mean_lines, median_lines) = mean_median(&lines);
    let (mean_pieces, median_pieces) = mean_median(&pieces);
    let (mean_ms, median_ms) = mean_median(&ms);
    let total_ms: f64 = ms.iter().sum();
    EvalSummary {
        eval: eval.to_string(),
        preview: search.preview,
        expect: search.expect,
        games: rs.len(),
        mean_lines,
        median_lines,
        min_lines: rs.iter().map(|r| r.0.lines).min().unwrap_or(0),
        max_lines: rs.iter().map(|r| r.0.lines).max().unwrap_or(0),
        mean_pieces,
        median_pieces,
        mean_ms,
        median_ms,
        pieces_per_s: if total_ms > 0.0 {
            pieces.iter().sum::<f64>() / (total_ms / 1e3)
        } else {
            0.0
        },
        capped: rs.iter().filter(|r| !r.0.topped_out).count(),
    }
}

/// Plays all games with one evaluator; prints the JSON lines in game order.
fn run_eval(
    gen: &MoveGen,
    eval: &Eval,
    search: SearchParams,
    setup: &GameSetup,
    a: &TetrisBenchArgs,
    json: bool,
    bar: &indicatif::ProgressBar,
) -> anyhow::Result<Vec<(tetris::GameResult, f64)>> {
    let model = Model::from_name(&a.model)?;
    let results: Vec<(tetris::GameResult, f64)> = (0..a.games)
        .into_par_iter()
        .map(|i| {
            let mut player = Player::new(eval.clone(), search);
            let t0 = Instant::now();
            let r = tetris::play_game_with(model, gen, &mut player, setup, game_seed(a.seed, i));
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            bar.inc(1);
            r.map(|r| (r, ms))
        })
        .collect::<Result<_, _>>()?;
    if json {
        let mut out = std::io::stdout().lock();
        for (i, (r, ms)) in results.iter().enumerate() {
            let line = GameLine {
                game: i as u64,
                eval: &eval.name,
                preview: search.preview,
                expect: search.expect,
                lines: r.lines,
                pieces: r.pieces,
                ms: *ms,
                topped_out: r.topped_out,
                nodes: r.nodes,
            };
            writeln!(out, "{}", serde_json::to_string(&line)?)?;
        }
    }
    Ok(results)
}

fn print_summary(s: &EvalSummary) {
    println!(
        "{} (preview {}{}): {} games, lines mean {:.1} median {:.0} min {} max {}; \
         pieces mean {:.0}; ms mean {:.1}; {:.0} pieces/s per thread{}",
        s.eval,
        s.preview,
        if s.expect { ", expectimax" } else { "" },
        s.games,
        s.mean_lines,
        s.median_lines,
        s.min_lines,
        s.max_lines,
        s.mean_pieces,
        s.mean_ms,
        s.pieces_per_s,
        if s.capped > 0 {
            format!("; {} games stopped by --max-pieces", s.capped)
        } else {
            String::new()
        }
    );
}

pub fn run(a: &TetrisBenchArgs, search: &SearchArgs, json: bool) -> anyhow::Result<i32> {
    let width = search.width.unwrap_or(10);
    let gen = move_gen(&a.rotation, width, a.height, a.slides)?;
    let setup = GameSetup {
        width,
        height: a.height,
        randomizer: if a.bag {
            Randomizer::Bag
        } else {
            Randomizer::Uniform
        },
        max_pieces: a.max_pieces,
    };
    let eval = load_eval(&a.eval)?;
    let params = SearchParams {
        preview: a.preview,
        beam: a.beam,
        expect: a.expect,
    };
    let baseline = a.baseline.as_deref().map(load_eval).transpose()?;
    let model = Model::from_name(&a.model)?;
    if model != Model::Reach && (params.preview > 0 || params.expect) {
        anyhow::bail!(
            "--model {} plays one piece at a time (no --preview, no --expect)",
            a.model
        );
    }
    let threads = search.threads.unwrap_or(1).max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("cannot start worker threads")?;
    let runs = 1 + baseline.is_some() as u64;
    let bar = super::bench::progress(a.games * runs, json);
    let main = pool.install(|| run_eval(&gen, &eval, params, &setup, a, json, &bar))?;
    let s = summarise(&eval.name, params, &main);
    let base = match &baseline {
        Some(b) => {
            let p0 = SearchParams {
                preview: 0,
                expect: false,
                ..params
            };
            let r = pool.install(|| run_eval(&gen, b, p0, &setup, a, json, &bar))?;
            Some(summarise(&b.name, p0, &r))
        }
        None => None,
    };
    bar.finish_and_clear();
    let ratio = base.as_ref().map(|b| {
        if b.mean_lines > 0.0 {
            s.mean_lines / b.mean_lines
        } else {
            0.0
        }
    });
    if json {
        let mut v = serde_json::to_value(&s)?;
        if let (Some(b), Some(r), Some(obj)) = (&base, ratio, v.as_object_mut()) {
            obj.insert("baseline".into(), serde_json::to_value(b)?);
            obj.insert("ratio".into(), serde_json::json!(r));
        }
        println!("{}", serde_json::json!({ "summary": v }));
    } else {
        println!(
            "{}x{} field, {} pieces, seed {}, model {}",
            width,
            a.height,
            if a.bag { "7-bag" } else { "uniform" },
            a.seed,
            a.model
        );
        print_summary(&s);
        if let (Some(b), Some(r)) = (&base, ratio) {
            print_summary(b);
            println!("ratio of mean lines: {r:.2}x");
        }
    }
    Ok(0)
}
