//! `gridbot play --game tetris --sim`: the falling-family loop against the
//! simulator (`--rows`/`--cols` size the field, `--seed` the pieces,
//! `--moves` caps the pieces). The live Quadrapassel reader is still to come.

use std::time::Duration;

use anyhow::bail;
use gridbot::bot_tetris::{run_tetris, PieceReport, TetrisBotConfig};
use gridbot::games::tetris::{
    KeyMap, MoveGen, MoveRules, Player, Randomizer, SearchParams, Shapes,
};
use gridbot::platform::sim_tetris::{SharedTetrisSim, TetrisSim};
use gridbot::platform::{Rect, SafeInput};

use super::bench_tetris::{load_eval, load_rotation};
use super::play::PlayArgs;

fn print_piece(json: bool, r: &PieceReport) {
    if json {
        match serde_json::to_string(r) {
            Ok(s) => println!("{s}"),
            Err(e) => eprintln!("gridbot: cannot print move: {e}"),
        }
    } else if r.index < 20
        || r.index.is_multiple_of(500)
        || r.lines > 0 && r.index.is_multiple_of(50)
    {
        println!(
            "piece {:6}: {} rotation {} column {} row {} (+{} lines){}  {:.2} ms",
            r.index + 1,
            r.piece,
            r.rotation,
            r.column,
            r.row,
            r.lines,
            if r.mismatch { " [resynced]" } else { "" },
            r.think_ms
        );
    }
}

pub fn run(a: &PlayArgs) -> anyhow::Result<i32> {
    if !a.sim {
        bail!(
            "play --game tetris needs --sim for now (the Quadrapassel reader is not written yet)"
        );
    }
    let (w, h) = (a.cols.unwrap_or(10), a.rows.unwrap_or(20));
    let keys = KeyMap::quadrapassel();
    let rs = load_rotation(&a.rotation)?;
    // The simulator has no counter-clockwise key, like Quadrapassel.
    let rules = MoveRules {
        ccw: keys.rotate_ccw.is_some(),
        slides: false,
    };
    let gen = MoveGen::new(Shapes::new(&rs, w)?, rules, w, h)?;
    let sim = SharedTetrisSim::new(TetrisSim::new(
        gen.clone(),
        keys,
        Randomizer::Uniform,
        a.seed,
        a.preview,
    )?);
    let mut screen = sim.clone();
    let mut input = SafeInput::new(
        sim.clone(),
        Rect {
            x: 0,
            y: 0,
            w: 1,
            h: 1,
        },
    );
    let mut player = Player::new(
        load_eval(&a.eval)?,
        SearchParams {
            preview: a.preview,
            ..SearchParams::default()
        },
    );
    let cfg = TetrisBotConfig {
        max_pieces: a.moves.map(|m| m as u64),
        keys,
        key_gap: Duration::ZERO,
        dry_run: a.dry_run,
    };
    let json = a.json;
    let summary = run_tetris(&gen, &mut player, &mut screen, &mut input, &cfg, &mut |r| {
        print_piece(json, r)
    })?;
    let sim_lines = sim.lock().lines;
    if sim_lines != summary.score {
        tracing::warn!(
            "simulator counted {sim_lines} lines, the bot {}",
            summary.score
        );
    }
    if json {
        println!("{}", serde_json::json!({ "summary": summary }));
    } else {
        println!(
            "{} pieces, {} lines (predicted {}), {} mismatches{}; think mean {:.2} ms, max {:.2} ms",
            summary.moves,
            summary.score,
            summary.predicted_score,
            summary.mismatches,
            if summary.game_over { ", game over" } else { "" },
            summary.mean_think_ms,
            summary.max_think_ms
        );
    }
    Ok(0)
}
