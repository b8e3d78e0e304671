//! `gridbot play --game match3|gweled`: `--sim` plays the live policy against
//! the board-level simulator with random refill (a small loop of its own:
//! `bot.rs` is built around screen frames and collapse's settle rules);
//! `--window TITLE` plays a real window through `gridbot::bot_match3`
//! ([`run_window`]).
//!
//! The simulator loop:
//! Each move: read the board, let the policy choose, predict the board with
//! unknown refill (holes), play, then check that every cell the prediction
//! knew is what the simulator shows. A refill that starts a cascade moves
//! known gems, so a mismatch here means "the refill cascaded", not an error.

use std::io::Write;

use anyhow::Context;
use gridbot::board::{Board, Cell};
use gridbot::games::match3::live::Choice;
use gridbot::games::match3::{choose, MBoard, NoRefill, Policy, Scoring};
use gridbot::platform::sim_match3::Match3Sim;
use gridbot::vision::adapt::{AdaptParams, Tracker};
use serde::Serialize;

/// What the simulator loop needs.
pub struct SimArgs {
    pub scoring: Scoring,
    pub policy: Policy,
    pub rows: usize,
    pub cols: usize,
    pub colours: u8,
    pub seed: u64,
    pub games: usize,
    pub moves: usize,
    pub json: bool,
}

#[derive(Serialize)]
struct MoveLine {
    game: usize,
    index: usize,
    board: String,
    swap: [[usize; 2]; 2],
    /// The board predicted with unknown refill (`?`).
    expected: String,
    /// Points the model predicted (no refill).
    predicted: i64,
    /// Points the simulator gave (refill cascades included).
    reward: i64,
    value: f64,
    mismatch: bool,
}

#[derive(Serialize, Clone, Copy)]
struct GameSummary {
    game: usize,
    seed: u64,
    moves: usize,
    score: i64,
    predicted_score: i64,
    mismatches: usize,
    game_over: bool,
}

fn cell(c: Cell) -> [usize; 2] {
    [c.row, c.col]
}

/// True when every known cell of `expected` matches `seen`.
fn agrees(expected: &Board, seen: &Board) -> bool {
    expected
        .cells()
        .iter()
        .zip(seen.cells())
        .all(|(&e, &s)| !gridbot::games::match3::rules::is_gem(e) || e == s)
}

fn play_one<const N: usize>(
    a: &SimArgs,
    game: usize,
    out: &mut impl Write,
) -> anyhow::Result<GameSummary> {
    let seed = a.seed + game as u64;
    let mut sim = Match3Sim::<N>::new(a.rows, a.cols, a.colours, seed, a.scoring)?;
    let mut s = GameSummary {
        game,
        seed,
        moves: 0,
        score: 0,
        predicted_score: 0,
        mismatches: 0,
        game_over: false,
    };
    for index in 0..a.moves {
        let seen = sim.board();
        let m = MBoard::<N>::from_board(&seen)?;
        let Some(Choice {
            swap,
            immediate,
            value,
        }) = choose(&m, &a.scoring, &a.policy)
        else {
            s.game_over = true;
            break;
        };
        let mut predicted = m;
        predicted.apply_legal(swap, &a.scoring, &mut NoRefill);
        let o = sim
            .play(swap)
            .context("the simulator refused a swap the rules call legal")?;
        let after = sim.board();
        let expected = predicted.to_board();
        let mismatch = !agrees(&expected, &after);
        s.moves += 1;
        s.score += o.points;
        s.predicted_score += immediate;
        s.mismatches += usize::from(mismatch);
        if a.json {
            let (x, y) = swap.cells(a.cols);
            let line = MoveLine {
                game,
                index,
                board: seen.to_string(),
                swap: [cell(x), cell(y)],
                expected: expected.to_string(),
                predicted: immediate,
                reward: o.points,
                value,
                mismatch,
            };
            writeln!(out, "{}", serde_json::to_string(&line)?)?;
        }
    }
    if sim.is_over() {
        s.game_over = true;
    }
    Ok(s)
}

/// Plays `games` simulated games (seeds `seed`, `seed + 1`, ...) and prints
/// per-move JSON lines or one line per game, then a summary.
pub fn run(a: &SimArgs) -> anyhow::Result<i32> {
    let mut out = std::io::stdout().lock();
    let mut all = Vec::new();
    for g in 0..a.games.max(1) {
        let s = if a.rows * a.cols <= 64 {
            play_one::<64>(a, g, &mut out)?
        } else if a.rows * a.cols <= 256 {
            play_one::<256>(a, g, &mut out)?
        } else {
            play_one::<1024>(a, g, &mut out)?
        };
        if a.json {
            writeln!(out, "{}", serde_json::to_string(&s)?)?;
        } else {
            writeln!(
                out,
                "game {} (seed {}): {} moves, score {} (predicted {}), {} refill cascades{}",
                s.game,
                s.seed,
                s.moves,
                s.score,
                s.predicted_score,
                s.mismatches,
                if s.game_over { ", game over" } else { "" }
            )?;
        }
        all.push(s);
    }
    let scores: Vec<f64> = all.iter().map(|s| s.score as f64).collect();
    let (mean, median) = gridbot::bench::mean_median(&scores);
    let moves: Vec<f64> = all.iter().map(|s| s.moves as f64).collect();
    let summary = serde_json::json!({
        "games": all.len(),
        "moves": all.iter().map(|s| s.moves).sum::<usize>(),
        "score": all.iter().map(|s| s.score).sum::<i64>(),
        "predicted_score": all.iter().map(|s| s.predicted_score).sum::<i64>(),
        "mismatches": all.iter().map(|s| s.mismatches).sum::<usize>(),
        "game_overs": all.iter().filter(|s| s.game_over).count(),
        "mean_score": mean,
        "median_score": median,
        "mean_moves": gridbot::bench::mean_median(&moves).0,
        "policy": a.policy,
    });
    if a.json {
        writeln!(out, "{}", serde_json::json!({ "summary": summary }))?;
    } else {
        writeln!(
            out,
            "{} games: mean score {:.1}, median {:.0}, mean moves {:.1}, {} game overs",
            all.len(),
            mean,
            median,
            gridbot::bench::mean_median(&moves).0,
            all.iter().filter(|s| s.game_over).count()
        )?;
    }
    Ok(0)
}

/// What the window loop needs.
pub struct WindowArgs {
    pub game: String,
    pub title: String,
    pub calibration: Option<std::path::PathBuf>,
    pub scoring: Scoring,
    pub policy: Policy,
    pub moves: Option<usize>,
    pub settle_ms: Option<u64>,
    pub swap_input: String,
    pub dry_run: bool,
    pub json: bool,
}

/// The calibration `gridbot calibrate` wrote for Gweled's window with tile
/// size 48 (see docs/gweled.md), used for `--game gweled` or a window titled
/// Gweled when `--calibration` is not given.
const GWELED_CALIBRATION: &str = include_str!("../../calibration/gweled.toml");

fn calibration_for(a: &WindowArgs) -> anyhow::Result<gridbot::vision::Calibration> {
    use gridbot::vision::Calibration;
    let gweled = a.game == "gweled" || a.title.to_lowercase().contains("gweled");
    match &a.calibration {
        Some(p) => Ok(Calibration::load(p)?),
        None if gweled => Calibration::from_toml(GWELED_CALIBRATION)
            .map_err(|e| anyhow::anyhow!("built-in Gweled calibration: {e}")),
        None => anyhow::bail!(
            "--window needs --calibration FILE for --game {} (make one with `gridbot calibrate`)",
            a.game
        ),
    }
}

/// Plays the match-3 game in the window titled `a.title`: one line per swap
/// (JSON with `--json`), then a summary.
pub fn run_window(a: &WindowArgs) -> anyhow::Result<i32> {
    use gridbot::bot_match3::{Match3Bot, Match3BotConfig, SwapInput};
    use gridbot::platform::live::{EnigoSink, LiveWindow};
    use gridbot::platform::record::RecordingSink;
    use gridbot::platform::SafeInput;

    let cal = calibration_for(a)?;
    let swap_input = SwapInput::parse(&a.swap_input)
        .with_context(|| format!("--swap-input {:?}: use clicks or drag", a.swap_input))?;
    if !super::has_display() {
        anyhow::bail!(
            "no display to find {:?} on: DISPLAY is not set (use --sim to play the simulator)",
            a.title
        );
    }
    let mut win = LiveWindow::find(&a.title)?;
    let rect = win.rect();
    let mut cfg = Match3BotConfig {
        max_moves: a.moves,
        swap_input,
        dry_run: a.dry_run,
        ..Match3BotConfig::default()
    };
    if let Some(ms) = a.settle_ms {
        cfg.settle = std::time::Duration::from_millis(ms);
    }
    let json = a.json;
    let mut out = std::io::stdout().lock();
    let mut print = |r: &gridbot::bot_match3::SwapReport| {
        let line = if json {
            serde_json::to_string(r).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
        } else {
            format!(
                "swap {:3}: ({},{})<->({},{}) predicted +{} (value {:.1}) {:?}{}  {:.0} ms settle",
                r.index + 1,
                r.swap[0][0],
                r.swap[0][1],
                r.swap[1][0],
                r.swap[1][1],
                r.predicted,
                r.value,
                r.verdict,
                if r.mismatched.is_empty() {
                    String::new()
                } else {
                    format!(" cells {:?}", r.mismatched)
                },
                r.times.settle_ms
            )
        };
        let _ = writeln!(out, "{line}");
    };
    // The same loop over either sink: recorded (dry run) or real input.
    macro_rules! play_with {
        ($sink:expr) => {
            Match3Bot {
                tracker: Tracker::new(cal.clone(), AdaptParams::default()),
                source: &mut win,
                input: SafeInput::new($sink, rect),
                scoring: a.scoring,
                policy: a.policy,
                cfg,
            }
            .run(&mut print)?
        };
    }
    let summary = if a.dry_run {
        play_with!(RecordingSink::new((rect.w, rect.h)))
    } else {
        play_with!(EnigoSink::new()?)
    };
    let mut out = std::io::stdout().lock();
    if a.json {
        writeln!(out, "{}", serde_json::json!({ "summary": summary }))?;
    } else {
        writeln!(
            out,
            "{} swaps, score {} by the game's rules without refill lines (policy predicted {}), {} exact, {} refill cascades, {} new boards, {} illegal, {} mismatches{}",
            summary.moves,
            summary.score,
            summary.predicted_score,
            summary.exact,
            summary.refill_cascades,
            summary.new_boards,
            summary.illegal,
            summary.mismatches,
            if summary.game_over { ", no swap left" } else { "" }
        )?;
    }
    Ok(if summary.mismatches > 0 || summary.illegal > 0 {
        1
    } else {
        0
    })
}
