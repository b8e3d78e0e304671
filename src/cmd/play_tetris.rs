//! `gridbot play --game tetris --sim`: the falling-family loop against the
//! simulator (`--rows`/`--cols` size the field, `--seed` the pieces,
//! `--moves` caps the pieces), and `--window TITLE` against a live game
//! (Quadrapassel and the like, see `platform::live_tetris`).

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

/// The pieces every tetris loop plays with: the move generator for a
/// `w` x `h` well under Quadrapassel's keys, the player, and the loop settings.
struct Setup {
    gen: MoveGen,
    player: Player,
    cfg: TetrisBotConfig,
}

fn setup(
    a: &PlayArgs,
    w: usize,
    h: usize,
    default_gap_ms: u64,
    closed_loop: bool,
) -> anyhow::Result<Setup> {
    let keys = KeyMap::quadrapassel();
    let rs = load_rotation(&a.rotation)?;
    // Quadrapassel (and the simulator) have no counter-clockwise key.
    let rules = MoveRules {
        ccw: keys.rotate_ccw.is_some(),
        slides: false,
    };
    let gen = MoveGen::new(Shapes::new(&rs, w)?, rules, w, h)?;
    let player = Player::new(
        load_eval(&a.eval)?,
        SearchParams {
            preview: a.preview,
            ..SearchParams::default()
        },
    );
    let cfg = TetrisBotConfig {
        max_pieces: a.moves.map(|m| m as u64),
        max_lines: a.lines,
        max_time: a.max_seconds.map(Duration::from_secs),
        keys,
        key_gap: Duration::from_millis(a.key_gap_ms.unwrap_or(default_gap_ms)),
        closed_loop,
        dry_run: a.dry_run,
    };
    Ok(Setup { gen, player, cfg })
}

pub fn run(a: &PlayArgs) -> anyhow::Result<i32> {
    if let Some(title) = &a.window {
        return run_live(a, title);
    }
    if !a.sim {
        bail!("play --game tetris needs --window TITLE or --sim");
    }
    let (w, h) = (a.cols.unwrap_or(10), a.rows.unwrap_or(20));
    let Setup {
        gen,
        mut player,
        cfg,
    } = setup(a, w, h, 0, false)?;
    let sim = SharedTetrisSim::new(TetrisSim::new(
        gen.clone(),
        cfg.keys,
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
    print_summary(json, &summary);
    Ok(0)
}

fn print_summary(json: bool, summary: &gridbot::bot_tetris::TetrisSummary) {
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
        if summary.mean_latency_ms > 0.0 {
            println!(
                "piece on screen to keys sent: mean {:.1} ms, max {:.1} ms",
                summary.mean_latency_ms, summary.max_latency_ms
            );
        }
    }
}

/// `play --game tetris --window TITLE`: a live game (Quadrapassel and the
/// like): the well is found on the first frame, rotations are learned by
/// watching, keys go through the safety layer.
fn run_live(a: &PlayArgs, title: &str) -> anyhow::Result<i32> {
    use gridbot::platform::live::{EnigoSink, LiveWindow};
    use gridbot::platform::live_tetris::LiveTetris;
    use gridbot::platform::record::RecordingSink;
    if !super::has_display() {
        bail!(
            "no display to find {title:?} on: DISPLAY is not set (use --sim to play the simulator)"
        );
    }
    let (w, h) = (a.cols.unwrap_or(10), a.rows.unwrap_or(20));
    let win = LiveWindow::find(title)?;
    let rect = win.rect();
    let layout = match &a.calibration {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", p.display()))?;
            Some(
                toml::from_str(&text)
                    .map_err(|e| anyhow::anyhow!("{}: not a well layout: {e}", p.display()))?,
            )
        }
        None => None,
    };
    let mut screen = LiveTetris::new(win, layout, w as u32, h as u32)?;
    let l = *screen.layout();
    tracing::info!(
        "well {}x{} at {},{} ({}x{} px), preview {:?}",
        l.cols,
        l.rows,
        l.well.x,
        l.well.y,
        l.well.w,
        l.well.h,
        l.preview
    );
    let Setup {
        gen,
        mut player,
        cfg,
    } = setup(a, w, h, 1, true)?;
    let json = a.json;
    let summary = if a.dry_run {
        let mut input = SafeInput::new(RecordingSink::new((rect.w, rect.h)), rect);
        run_tetris(&gen, &mut player, &mut screen, &mut input, &cfg, &mut |r| {
            print_piece(true, r)
        })?
    } else {
        let mut input = SafeInput::new(EnigoSink::new()?, rect);
        run_tetris(&gen, &mut player, &mut screen, &mut input, &cfg, &mut |r| {
            print_piece(json, r)
        })?
    };
    print_summary(json, &summary);
    if !json {
        println!(
            "level {} (10 lines a level from 1); frames read {}, mean grab+read {:.2} ms; \
             well found again after a resize: {}",
            summary.score / 10 + 1,
            screen.frames_read,
            screen.read_time.as_secs_f64() * 1e3 / screen.frames_read.max(1) as f64,
            screen.layout_refinds()
        );
    }
    Ok(0)
}
