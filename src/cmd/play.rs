//! `gridbot play`: the loop against a live window or the simulator.

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Duration;

use anyhow::{bail, Context};
use clap::Args;
use gridbot::act::{Move, Timing};
use gridbot::board::{Board, Cell};
use gridbot::bot::{Bot, BotConfig, MoveReport, INTERRUPTED};
use gridbot::games::{self, collapse::Scoring};
use gridbot::platform::record::RecordingSink;
use gridbot::platform::sim::{random_board, Sim, SimStyle};
use gridbot::platform::{FrameSource, InputSink, SafeInput};
use gridbot::vision::draw::{draw_hollow_rect_mut, draw_line_mut};
use gridbot::vision::{self, Calibration};

#[derive(Args)]
pub struct PlayArgs {
    /// Game: samegame (Swell Foop scoring), popstar, tetris (--sim or
    /// --window Quadrapassel), match3 (--sim), gweled (--sim or --window
    /// Gweled) or pad (orb-drag: --sim or --window with --calibration).
    #[arg(long, default_value = "samegame", value_parser = super::game_arg)]
    pub game: String,
    /// Play the window whose title contains this text.
    #[arg(long, conflicts_with = "sim")]
    pub window: Option<String>,
    /// Play the built-in simulator (no display needed).
    #[arg(long)]
    pub sim: bool,
    /// Calibration file for the window (see `gridbot calibrate`).
    #[arg(long)]
    pub calibration: Option<PathBuf>,
    /// Stop after N moves.
    #[arg(long)]
    pub moves: Option<usize>,
    /// Solver budget per move.
    #[arg(long, default_value_t = 1000)]
    budget_ms: u64,
    /// Solver threads (default: cores, at most 2).
    #[arg(long)]
    threads: Option<usize>,
    /// The board must be still this long before it is read (default 250; 0 in --sim).
    #[arg(long)]
    settle_ms: Option<u64>,
    /// Show what would be done (the first move, drawn with --overlay) without sending input.
    #[arg(long)]
    pub dry_run: bool,
    /// With --dry-run: write the frame with the planned click marked.
    #[arg(long)]
    overlay: Option<PathBuf>,
    /// Close the game-over dialog (Escape) when the game ends.
    #[arg(long)]
    new_game: bool,
    /// Simulator: starting board as text (default: a random board from --seed).
    #[arg(long)]
    board: Option<String>,
    /// Simulator: seed of the random starting board.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Simulator: rows of the random board (default: popstar 10x10 with 5
    /// colours, samegame 10 rows x 15 columns with 3, as Swell Foop's normal size).
    #[arg(long)]
    pub rows: Option<usize>,
    /// Simulator: columns of the random board.
    #[arg(long)]
    pub cols: Option<usize>,
    /// Simulator: colours of the random board.
    #[arg(long)]
    colours: Option<u8>,
    /// One JSON line per move, then a summary line.
    #[arg(long)]
    pub json: bool,
    /// Tetris: known next pieces the search uses.
    #[arg(long, default_value_t = 1)]
    pub preview: usize,
    /// Tetris: evaluator preset (dellacherie, el-tetris, bcts, tuned) or a TOML file.
    #[arg(long, default_value = "tuned")]
    pub eval: String,
    /// Tetris: rotation system preset (srs) or a TOML file, for planning. A
    /// live game is steered by watching the piece after each key, so its own
    /// rotations need not match.
    #[arg(long, default_value = "srs")]
    pub rotation: String,
    /// Tetris: stop once this many lines are cleared.
    #[arg(long)]
    pub lines: Option<u64>,
    /// Stop after this many seconds (tetris).
    #[arg(long)]
    pub max_seconds: Option<u64>,
    /// Tetris: pause before each key tap (default: 0 in --sim, 4 ms live).
    #[arg(long)]
    pub key_gap_ms: Option<u64>,
    /// Match-3: how to pick a swap: expected (sampled refills, next move
    /// counted), expected-fast, or greedy (biggest immediate match).
    #[arg(long, default_value = "expected")]
    policy: String,
    /// Match-3: scoring preset (cells, gweled[:M], cascade[:P]); default by game.
    #[arg(long)]
    scoring: Option<String>,
    /// Match-3 simulator: games to play (seeds --seed, --seed + 1, ...).
    #[arg(long, default_value_t = 1)]
    games: usize,
    #[command(flatten)]
    pad: super::bench_pad::PadArgs,
    /// Orb-drag: the game's time for one drag; paths are capped so that the
    /// whole drag (press, a dwell per cell, release) fits in it.
    #[arg(long, default_value_t = 4000)]
    move_time_ms: u64,
    /// Orb-drag: time the pointer takes per cell of the path.
    #[arg(long, default_value_t = 60)]
    dwell_ms: u64,
    /// Match-3: how a swap is sent: clicks (one gem, then its neighbour) or drag.
    #[arg(long, default_value = "clicks")]
    swap_input: String,
}

impl PlayArgs {
    /// `gridbot` with no arguments: PopStar in the simulator.
    pub fn default_sim() -> Self {
        PlayArgs {
            game: "popstar".into(),
            window: None,
            sim: true,
            calibration: None,
            moves: None,
            budget_ms: 300,
            threads: None,
            settle_ms: None,
            dry_run: false,
            overlay: None,
            new_game: false,
            board: None,
            seed: 1,
            rows: None,
            cols: None,
            colours: None,
            json: false,
            preview: 1,
            eval: "tuned".into(),
            rotation: "srs".into(),
            lines: None,
            max_seconds: None,
            key_gap_ms: None,
            policy: "expected".into(),
            scoring: None,
            games: 1,
            pad: super::bench_pad::PadArgs::default(),
            move_time_ms: 4000,
            dwell_ms: 60,
            swap_input: "clicks".into(),
        }
    }
}

fn print_move(json: bool, r: &MoveReport) {
    if json {
        match serde_json::to_string(r) {
            Ok(s) => println!("{s}"),
            Err(e) => eprintln!("gridbot: cannot print move: {e}"),
        }
    } else {
        println!(
            "move {:3}: {} +{} (plan {}){}  {:.0} ms solve, {:.1} ms read",
            r.index + 1,
            r.mv,
            r.reward,
            r.plan_score,
            if r.mismatch { " [resynced]" } else { "" },
            r.times.solve_ms,
            r.times.read_ms
        );
    }
}

fn config(a: &PlayArgs, sim: bool) -> BotConfig {
    BotConfig {
        // The orb-drag simulator never ends: 10 drags unless told.
        max_moves: a.moves.or((sim && a.game == "pad").then_some(10)),
        budget: Duration::from_millis(a.budget_ms),
        threads: super::bench::default_threads(a.threads),
        settle: Duration::from_millis(a.settle_ms.unwrap_or(if sim { 0 } else { 250 })),
        dry_run: a.dry_run,
        close_dialog: a.new_game,
        // The simulator takes every click at once; real games need the hold.
        after_move: if sim {
            Duration::ZERO
        } else {
            BotConfig::default().after_move
        },
        timing: Timing {
            drag_dwell_ms: a.dwell_ms,
            ..Timing::default()
        },
        ..BotConfig::default()
    }
}

/// The orb-drag game of `play`: the `--max-path` asked for, capped so the
/// drag fits `--move-time-ms` at `--dwell-ms` a cell.
fn pad_game(a: &PlayArgs) -> anyhow::Result<games::pad::Pad> {
    let mut pad = a.pad.game()?;
    let t = Timing::default();
    // Press after settling, one dwell per step, one more before the release.
    let spare = a
        .move_time_ms
        .saturating_sub(t.settle_pointer_ms + a.dwell_ms);
    let fits = (spare / a.dwell_ms.max(1)) as usize;
    if fits == 0 {
        bail!(
            "--move-time-ms {} leaves no time for a step at --dwell-ms {}",
            a.move_time_ms,
            a.dwell_ms
        );
    }
    if fits < pad.params.max_path {
        tracing::info!("paths capped at {fits} steps to fit the move time");
        pad.params.max_path = fits;
    }
    Ok(pad)
}

fn play<F: FrameSource, S: InputSink>(
    a: &PlayArgs,
    game: &dyn games::Game,
    cal: &Calibration,
    source: &mut F,
    input: SafeInput<S>,
    sim: bool,
) -> anyhow::Result<gridbot::bot::Summary> {
    let mut bot = Bot::new(game, cal, source, input, config(a, sim));
    let json = a.json;
    let mut planned = None;
    let summary = bot.run(&mut |r| {
        print_move(json, r);
        planned = Some(r.mv.clone());
    })?;
    if let (Some(path), true) = (&a.overlay, a.dry_run) {
        draw_plan(source, cal, planned.as_ref(), path)?;
    }
    Ok(summary)
}

/// Writes the current frame with the calibration overlay and the planned move
/// (a crosshair on each cell it would click or pass through).
fn draw_plan<F: FrameSource>(
    source: &mut F,
    cal: &Calibration,
    mv: Option<&Move>,
    path: &std::path::Path,
) -> anyhow::Result<()> {
    let frame = source.grab()?;
    let cal = cal.scaled_to(frame.rect.w, frame.rect.h)?;
    let mut img = vision::overlay::draw_overlay(&frame.image, &cal)?;
    let cells: Vec<Cell> = match mv {
        Some(Move::Click(c)) => vec![*c],
        Some(Move::Swap(a, b)) => vec![*a, *b],
        Some(Move::Drag(p)) => p.clone(),
        _ => vec![],
    };
    let r = (cal.grid.cell_width.min(cal.grid.cell_height) / 2.0) as i32;
    for c in cells {
        let (x, y) = cal.cell_centre(c);
        let (x, y) = (x as i32, y as i32);
        for d in -1..=1 {
            draw_line_mut(&mut img, (x - r, y + d), (x + r, y + d), [255, 255, 255]);
            draw_line_mut(&mut img, (x + d, y - r), (x + d, y + r), [255, 255, 255]);
        }
        draw_hollow_rect_mut(&mut img, x - r, y - r, 2 * r, 2 * r, [255, 0, 0]);
    }
    img.save(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    eprintln!("gridbot: wrote {}", path.display());
    Ok(())
}

/// Match-3 games take their own loop (see `play_match3`).
fn run_match3(a: &PlayArgs, game: &games::match3::Match3) -> anyhow::Result<i32> {
    if let Some(title) = &a.window {
        if let Err(e) = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst)) {
            tracing::warn!("cannot catch Ctrl-C: {e}");
        }
        return super::play_match3::run_window(&super::play_match3::WindowArgs {
            game: a.game.clone(),
            title: title.clone(),
            calibration: a.calibration.clone(),
            scoring: game.scoring,
            policy: games::match3::Policy::preset(&a.policy)?,
            moves: a.moves,
            settle_ms: a.settle_ms,
            swap_input: a.swap_input.clone(),
            dry_run: a.dry_run,
            json: a.json,
        });
    }
    if !a.sim {
        bail!("--game {} needs --window TITLE or --sim", a.game);
    }
    super::play_match3::run(&super::play_match3::SimArgs {
        scoring: game.scoring,
        policy: games::match3::Policy::preset(&a.policy)?,
        rows: a.rows.unwrap_or(8),
        cols: a.cols.unwrap_or(8),
        colours: a.colours.unwrap_or(7),
        seed: a.seed,
        games: a.games,
        moves: a.moves.unwrap_or(50),
        json: a.json,
    })
}

/// `play --game pad --sim`: the loop against the orb-drag simulator (a
/// random board of `--colours` (default 6) from `--seed`, new orbs falling
/// in after each drag); stops after `--moves` (default 10) drags.
fn play_pad_sim(a: &PlayArgs, game: &dyn games::Game) -> anyhow::Result<i32> {
    let colours = a.colours.unwrap_or(6).clamp(1, 8);
    let board: Board = match &a.board {
        Some(t) => t.parse().context("bad --board")?,
        None => {
            let b = random_board(a.rows.unwrap_or(5), a.cols.unwrap_or(6), colours, a.seed);
            // random_board gives 1..=colours; orbs are 0..colours.
            let cells = b.cells().iter().map(|&v| v - 1).collect();
            Board::from_cells(b.rows(), b.cols(), cells)
        }
    };
    let sim = Sim::new_pad(board, SimStyle::pad(), colours, a.seed);
    let cal = match &a.calibration {
        Some(p) => Calibration::load(p)?,
        None => sim.calibration(),
    };
    let input = SafeInput::new(sim.input(), sim.window_rect());
    let summary = play(a, game, &cal, &mut sim.screen(), input, true)?;
    let drags = sim.pad_drags();
    let planned: i64 = summary.predicted_score;
    let made: u32 = drags.iter().map(|d| d.combos).sum();
    let skyfall: u32 = drags.iter().map(|d| d.skyfall).sum();
    if a.json {
        println!(
            "{}",
            serde_json::json!({ "summary": summary, "sim": { "drags": drags.len(), "combos": made, "skyfall": skyfall } })
        );
    } else {
        println!(
            "{} drags, {} combos as the simulator counted them (planned {}), {} more from new orbs",
            drags.len(),
            made,
            planned,
            skyfall
        );
        let t = summary.mean_times;
        println!(
            "mean per drag: capture {:.1} ms, read {:.2} ms, solve {:.0} ms, act {:.0} ms, settle {:.0} ms",
            t.capture_ms, t.read_ms, t.solve_ms, t.act_ms, t.settle_ms
        );
    }
    Ok(0)
}

pub fn run(a: PlayArgs) -> anyhow::Result<i32> {
    if a.game == "tetris" {
        if let Err(e) = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst)) {
            tracing::warn!("cannot catch Ctrl-C: {e}");
        }
        return super::play_tetris::run(&a);
    }
    if let Some(g) = super::bench_match3::game(&a.game, None, a.scoring.as_deref())? {
        return run_match3(&a, &g);
    }
    let game: Box<dyn games::Game> = if a.game == "pad" {
        Box::new(pad_game(&a)?)
    } else {
        games::by_name(&a.game)?
    };
    // Ctrl-C: the loop stops at its next check and releases held buttons.
    if let Err(e) = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst)) {
        tracing::warn!("cannot catch Ctrl-C: {e}");
    }
    let summary = if let Some(title) = &a.window {
        let Some(path) = &a.calibration else {
            bail!("--window needs --calibration FILE (make one with `gridbot calibrate --window {title:?} ...`)");
        };
        let cal = Calibration::load(path)?;
        if !super::has_display() {
            bail!("no display to find {title:?} on: DISPLAY is not set (use --sim to play the simulator)");
        }
        let mut win = gridbot::platform::live::LiveWindow::find(title)?;
        let rect = win.rect();
        if a.dry_run {
            let input = SafeInput::new(RecordingSink::new((rect.w, rect.h)), rect);
            play(&a, game.as_ref(), &cal, &mut win, input, false)?
        } else {
            let sink = gridbot::platform::live::EnigoSink::new()?;
            let input = SafeInput::new(sink, rect);
            play(&a, game.as_ref(), &cal, &mut win, input, false)?
        }
    } else if a.game == "pad" {
        if !a.sim {
            bail!("--game pad needs --window TITLE or --sim");
        }
        return play_pad_sim(&a, game.as_ref());
    } else {
        let scoring = match a.game.as_str() {
            "popstar" => Scoring::PopStar,
            _ => Scoring::SameGame,
        };
        let board: Board = match &a.board {
            Some(t) => t.parse().context("bad --board")?,
            None => {
                let (r, c, k) = match scoring {
                    Scoring::PopStar => (10, 10, 5),
                    Scoring::SameGame => (10, 15, 3),
                };
                random_board(
                    a.rows.unwrap_or(r),
                    a.cols.unwrap_or(c),
                    a.colours.unwrap_or(k),
                    a.seed,
                )
            }
        };
        let sim = Sim::new(scoring, board, SimStyle::swellfoop());
        let cal = match &a.calibration {
            Some(p) => Calibration::load(p)?,
            None => sim.calibration(),
        };
        let input = SafeInput::new(sim.input(), sim.window_rect());
        let summary = play(&a, game.as_ref(), &cal, &mut sim.screen(), input, true)?;
        if sim.score() != summary.score && summary.game_over {
            tracing::warn!(
                "simulator counted {} points, the bot {}",
                sim.score(),
                summary.score
            );
        }
        summary
    };
    if a.json {
        println!("{}", serde_json::json!({ "summary": summary }));
    } else {
        println!(
            "{} moves, score {} (predicted {}, first plan {}), {} mismatches{}",
            summary.moves,
            summary.score,
            summary.predicted_score,
            summary.first_plan_score,
            summary.mismatches,
            if summary.game_over { ", game over" } else { "" }
        );
        if summary.pauses > 0 || summary.layout_refinds > 0 {
            println!(
                "paused on {} pictures ({} for a sudden change of look); layout found again {} times",
                summary.pauses, summary.sudden_pauses, summary.layout_refinds
            );
        }
        let t = summary.mean_times;
        println!(
            "mean per move: capture {:.1} ms, read {:.2} ms, solve {:.0} ms, act {:.0} ms, settle {:.0} ms",
            t.capture_ms, t.read_ms, t.solve_ms, t.act_ms, t.settle_ms
        );
    }
    Ok(0)
}
