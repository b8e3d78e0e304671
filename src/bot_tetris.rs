//! The falling-family loop: view, choose, send keys, verify, repeat.
//!
//! The collapse loop ([`crate::bot`]) reads a [`crate::board::Board`] through
//! a calibration; a Tetris screen shows more than a board (the falling piece
//! and the preview), so this loop reads a [`TetrisView`] through the
//! [`TetrisScreen`] trait instead: the simulator implements it
//! ([`crate::platform::sim_tetris`]), and a Quadrapassel reader will. For
//! each new piece it asks the [`Player`] for a placement, sends the
//! placement's key script through [`SafeInput`] (mapped by a [`KeyMap`]), and
//! on the next view checks that the locked cells are those predicted; a
//! mismatch is counted and play goes on from what is seen (the view is the
//! truth). Like `bot.rs` it reads the clock and sleeps; it reports through a
//! callback and the returned [`TetrisSummary`].

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::act::{self, CellToScreen, Move, Timing};
use crate::board::Cell;
use crate::bot::{BotError, INTERRUPTED};
use crate::games::tetris::learn::{
    cells_at, readings, same_cells, script_from, symmetric, RotationLearner,
};
use crate::games::tetris::{
    Field, KeyMap, MoveGen, Piece, Player, RotationSystem, Script, TetrisError, TetrisKey,
};
use crate::platform::{InputSink, PlatformError, SafeInput};

/// What a Tetris screen shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TetrisView {
    /// The locked cells (the falling piece not included).
    pub field: Field,
    /// The piece to place, `None` when the game is over.
    pub piece: Option<Piece>,
    /// The known next pieces, nearest first.
    pub preview: Vec<Piece>,
    /// The falling piece's cells as `(column, row from the bottom)`; empty
    /// when the screen does not tell (the simulator).
    pub falling: Vec<(usize, usize)>,
}

/// Something that shows a Tetris game.
pub trait TetrisScreen {
    /// The current state, read when a new piece has appeared.
    fn view(&mut self) -> Result<TetrisView, BotError>;

    /// The locked cells the loop expects once the keys just sent have taken
    /// effect (a screen can use it to tell the new piece from the stack).
    fn expect(&mut self, _field: &Field) {}

    /// The falling piece's cells now, as `(column, row from the bottom)`, for
    /// checking a piece before it is dropped; `None` when the screen cannot
    /// tell (the simulator: its keys never get lost).
    fn falling(&mut self) -> Result<Option<Vec<(usize, usize)>>, BotError> {
        Ok(None)
    }

    /// When the picture the last view came from was taken (for the time from
    /// a piece on screen to its keys sent); `None` for a simulator.
    fn seen_at(&self) -> Option<Instant> {
        None
    }
}

/// Settings of the loop.
#[derive(Debug, Clone)]
pub struct TetrisBotConfig {
    /// Stop after this many pieces.
    pub max_pieces: Option<u64>,
    /// Stop once this many lines are cleared.
    pub max_lines: Option<u64>,
    /// Stop after this long.
    pub max_time: Option<Duration>,
    pub keys: KeyMap,
    /// Pause before each key tap.
    pub key_gap: Duration,
    /// For live games: learn what the rotate key does by watching (four
    /// turns, a look after each, the first time each piece comes), then send
    /// each piece's whole script planned from where it is seen; a piece not
    /// learned yet, or whose target the learned turns cannot reach, is
    /// steered by looking (turn, look, move, look, drop).
    pub closed_loop: bool,
    /// Plan only: send nothing, stop after the first piece.
    pub dry_run: bool,
}

/// What happened to one piece.
#[derive(Debug, Clone, Serialize)]
pub struct PieceReport {
    pub index: u64,
    /// The field read before the piece (board text, row 0 at the top).
    pub board: String,
    pub piece: Piece,
    /// Rotation state index (0 = spawn state).
    pub rotation: u8,
    /// Leftmost column the piece fills.
    pub column: u8,
    /// Row of its lowest cell, from the bottom.
    pub row: u8,
    #[serde(rename = "move")]
    pub mv: Move,
    /// The field expected after it.
    pub expected: String,
    /// Rows it clears.
    pub lines: u32,
    /// The field seen before it differed from the one predicted.
    pub mismatch: bool,
    /// From the view to the keys being ready (read excluded), ms.
    pub think_ms: f64,
    /// From the picture that showed the piece to its last key sent, ms
    /// (live screens only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<f64>,
    /// Steered by looking (or learning its turns) instead of played by a
    /// whole script.
    pub steered: bool,
    pub nodes: u64,
}

/// The end of a run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TetrisSummary {
    /// Pieces placed.
    pub moves: u64,
    /// Lines cleared as the rules count them on the fields seen.
    pub score: u64,
    /// Lines the model predicted.
    pub predicted_score: u64,
    pub mismatches: u64,
    pub game_over: bool,
    pub final_board: String,
    pub mean_think_ms: f64,
    pub max_think_ms: f64,
    /// Piece on screen to keys sent (live screens only; pieces played by a
    /// whole script, the steered ones are counted in `steered`), ms.
    pub mean_latency_ms: f64,
    pub max_latency_ms: f64,
    /// Pieces steered by looking or used to learn the turns.
    pub steered: u64,
    /// Extra keys sent to put a piece right before dropping it (lost keys).
    pub corrections: u64,
}

/// No cell geometry: a key plan has no pointer events.
struct NoGeometry;

impl CellToScreen for NoGeometry {
    fn cell_centre(&self, _: Cell) -> (i32, i32) {
        (0, 0)
    }
}

/// Lines cleared between two fields, when `after` can follow `before` by one
/// piece (4 cells added, full rows removed); used to count what the game did.
fn lines_between(before: &Field, after: &Field) -> Option<u64> {
    let w = before.width() as i64;
    let added = after.count() as i64 - before.count() as i64 - 4;
    if added > 0 || (-added) % w != 0 {
        return None;
    }
    Some((-added / w) as u64)
}

/// Plays until the game ends, `max_pieces` or Ctrl-C.
pub fn run_tetris<S: TetrisScreen, I: InputSink>(
    gen: &MoveGen,
    player: &mut Player,
    screen: &mut S,
    input: &mut SafeInput<I>,
    cfg: &TetrisBotConfig,
    report: &mut dyn FnMut(&PieceReport),
) -> Result<TetrisSummary, BotError> {
    let mut sum = TetrisSummary::default();
    let mut expected: Option<Field> = None;
    let mut last: Option<Field> = None;
    let mut think_total = 0.0;
    let started = Instant::now();
    let mut latency_total = 0.0;
    let mut latency_n = 0u64;
    let mut live = LiveTurns::new(gen.width(), gen.height());
    let timing = Timing {
        key_gap_ms: cfg.key_gap.as_millis() as u64,
        ..Timing::default()
    };
    loop {
        if INTERRUPTED.load(Ordering::SeqCst) {
            return Err(BotError::Platform(PlatformError::Interrupted));
        }
        let view = screen.view()?;
        let mut mismatch = false;
        if let (Some(exp), Some(prev)) = (&expected, &last) {
            match lines_between(prev, &view.field) {
                Some(l) => sum.score += l,
                None => tracing::warn!("the field changed by more than one piece"),
            }
            if *exp != view.field {
                mismatch = true;
                sum.mismatches += 1;
                tracing::warn!("resynchronising: predicted {exp:?}, seen {:?}", view.field);
            }
        }
        sum.final_board = view.field.to_board().to_string();
        if cfg.max_pieces.is_some_and(|m| sum.moves >= m)
            || cfg.max_lines.is_some_and(|m| sum.score >= m)
            || cfg.max_time.is_some_and(|t| started.elapsed() >= t)
        {
            break;
        }
        let Some(piece) = view.piece else {
            sum.game_over = true;
            break;
        };
        let t0 = Instant::now();
        let Some(d) = player.choose(gen, &view.field, piece, &view.preview) else {
            sum.game_over = true;
            break;
        };
        let mv = cfg
            .keys
            .to_move(&d.placement.script)
            .map_err(|k| BotError::Tetris(TetrisError::NoKey(k)))?;
        let plan = act::plan_move(&mv, &NoGeometry, &timing);
        let think_ms = t0.elapsed().as_secs_f64() * 1e3;
        let mut steered = false;
        if !cfg.dry_run {
            let want = d.placement.cells(&gen.shapes);
            if cfg.closed_loop {
                steered = !play_live(
                    screen, input, cfg, &mut live, &view, piece, &want, &timing, &mut sum,
                )?;
            } else {
                // The simulator plays what it is sent; still, look before the
                // drop (a screen may lose keys).
                let drop_last = plan
                    .steps
                    .last()
                    .is_some_and(|st| st.event == act::InputEvent::Tap(cfg.keys.hard_drop));
                let n = plan.steps.len() - drop_last as usize;
                send_steps(input, &plan.steps[..n])?;
                if drop_last {
                    correct(screen, input, &cfg.keys, &want, &mut sum.corrections)?;
                    input.send(&act::InputEvent::Tap(cfg.keys.hard_drop))?;
                }
            }
        }
        let latency_ms = match screen.seen_at() {
            Some(t) if !cfg.dry_run => {
                let ms = t.elapsed().as_secs_f64() * 1e3;
                if steered {
                    sum.steered += 1;
                } else {
                    latency_total += ms;
                    latency_n += 1;
                    sum.max_latency_ms = sum.max_latency_ms.max(ms);
                }
                Some(ms)
            }
            _ => None,
        };
        think_total += think_ms;
        sum.max_think_ms = sum.max_think_ms.max(think_ms);
        sum.moves += 1;
        sum.predicted_score += d.lines as u64;
        report(&PieceReport {
            index: sum.moves - 1,
            board: view.field.to_board().to_string(),
            piece,
            rotation: d.placement.rotation,
            column: d.placement.column,
            row: d.placement.row,
            mv,
            expected: d.field.to_board().to_string(),
            lines: d.lines,
            mismatch,
            think_ms,
            latency_ms,
            steered,
            nodes: d.nodes,
        });
        if cfg.dry_run {
            break;
        }
        screen.expect(&d.field);
        last = Some(view.field);
        expected = Some(d.field);
    }
    if sum.moves > 0 {
        sum.mean_think_ms = think_total / sum.moves as f64;
    }
    if latency_n > 0 {
        sum.mean_latency_ms = latency_total / latency_n as f64;
    }
    Ok(sum)
}

/// Sends timed steps (each after its delay).
fn send_steps<I: InputSink>(input: &mut SafeInput<I>, steps: &[act::Step]) -> Result<(), BotError> {
    for step in steps {
        if !step.delay.is_zero() {
            std::thread::sleep(step.delay);
        }
        input.send(&step.event)?;
    }
    Ok(())
}

/// The pause before each key of a plan.
fn timing_gap(t: &Timing) -> Duration {
    Duration::from_millis(t.key_gap_ms)
}

/// What the live loop learned of the game's rotate key.
struct LiveTurns {
    learner: RotationLearner,
    /// Planner over the learned states (rebuilt when a piece is learned).
    gen: Option<MoveGen>,
    /// Learning attempts per piece (a cycle can fail: the piece fell, a turn
    /// was refused); after a few the piece is only steered.
    tries: [u8; 7],
    width: usize,
    height: usize,
}

impl LiveTurns {
    fn new(width: usize, height: usize) -> Self {
        LiveTurns {
            learner: RotationLearner::new(RotationSystem::srs()),
            gen: None,
            tries: [0; 7],
            width,
            height,
        }
    }
}

fn as_i32(cells: &[(usize, usize)]) -> Vec<(i32, i32)> {
    cells.iter().map(|&(x, y)| (x as i32, y as i32)).collect()
}

/// One live piece: learn its turns if not known yet, then send the whole
/// script from where it is seen to `want`; when no script is known, steer it
/// by looking. True when it was played by a whole script.
#[allow(clippy::too_many_arguments)]
fn play_live<S: TetrisScreen, I: InputSink>(
    screen: &mut S,
    input: &mut SafeInput<I>,
    cfg: &TetrisBotConfig,
    live: &mut LiveTurns,
    view: &TetrisView,
    piece: Piece,
    want: &[(usize, usize)],
    timing: &Timing,
    sum: &mut TetrisSummary,
) -> Result<bool, BotError> {
    let mut now = as_i32(&view.falling);
    let mut scripted = true;
    if !live.learner.is_learned(piece) && live.tries[piece.index()] < 8 && !now.is_empty() {
        live.tries[piece.index()] += 1;
        scripted = false;
        let rotate = cfg.keys.rotate_cw.or(cfg.keys.rotate_ccw);
        let mut cycle = vec![now.clone()];
        let mut refused = 0;
        while let Some(key) = rotate.filter(|_| cycle.len() < 5 && !symmetric(&now)) {
            input.send(&act::InputEvent::Tap(key))?;
            let Some(c) = screen.falling()? else {
                break;
            };
            let c = as_i32(&c);
            if !same_cells(&c, &now) {
                now = c;
                cycle.push(now.clone());
                continue;
            }
            // Refused (no room above the top row yet) or lost: let the
            // piece fall a row and start the cycle again from there.
            refused += 1;
            if refused > 3 {
                break;
            }
            for _ in 0..12 {
                let Some(c) = screen.falling()? else {
                    break;
                };
                let c = as_i32(&c);
                if !same_cells(&c, &now) {
                    now = c;
                    break;
                }
            }
            cycle = vec![now.clone()];
        }
        if let Some(last) = cycle.last() {
            now = last.clone();
        }
        match live.learner.learn(piece, &cycle) {
            Ok(()) => {
                tracing::info!(
                    "learned how {piece:?} turns: {:?}",
                    live.learner.system().piece(piece).states
                );
                live.gen = live.learner.move_gen(live.width, live.height).ok();
            }
            Err(e) => tracing::info!("{piece:?}: turns not learned yet: {e}"),
        }
    }
    let t = Instant::now();
    let gen = match &live.gen {
        Some(g) if live.learner.is_learned(piece) && !now.is_empty() => g,
        _ => return steer_and_drop(screen, input, cfg, want, sum),
    };
    let field = &view.field;
    let reads = readings(gen, piece, &now);
    let options: Vec<_> = reads
        .iter()
        .copied()
        .filter_map(|r| Some((r, script_from(gen, field, piece, r, want, 3)?)))
        .collect();
    let Some((from, (down, script))) = options
        .iter()
        .min_by_key(|(_, (down, s))| (*down, s.len()))
        .cloned()
    else {
        return steer_and_drop(screen, input, cfg, want, sum);
    };
    let turns = script
        .keys()
        .iter()
        .any(|&k| matches!(k, TetrisKey::RotateCw | TetrisKey::RotateCcw));
    let ambiguous = reads.len() > 1 && turns;
    let soft = act::Step {
        delay: timing_gap(timing),
        event: act::InputEvent::Tap(cfg.keys.soft_drop),
    };
    let keys_of = |script: &Script, down: i32| -> Result<Vec<act::Step>, BotError> {
        let mv = cfg
            .keys
            .to_move(script)
            .map_err(|k| BotError::Tetris(TetrisError::NoKey(k)))?;
        let mut steps = act::plan_move(&mv, &NoGeometry, timing).steps;
        steps.splice(0..0, std::iter::repeat_n(soft, down as usize));
        Ok(steps)
    };
    if !ambiguous {
        let steps = keys_of(&script, down)?;
        let planned = t.elapsed();
        send_steps(input, &steps)?;
        tracing::debug!(
            "script planned in {:.2} ms, {} keys sent in {:.1} ms",
            planned.as_secs_f64() * 1e3,
            steps.len(),
            (t.elapsed() - planned).as_secs_f64() * 1e3
        );
        return Ok(scripted);
    }
    // The picture fits several states (S and Z in Quadrapassel draw the same
    // cells from two box positions) and they turn to different places: turn
    // once, look, and plan from the state the turn showed.
    let n = gen.shapes.of(piece).len();
    let mut first = vec![soft; down as usize];
    first.push(act::Step {
        delay: timing_gap(timing),
        event: act::InputEvent::Tap(
            cfg.keys
                .rotate_cw
                .ok_or(BotError::Tetris(TetrisError::NoKey(TetrisKey::RotateCw)))?,
        ),
    });
    send_steps(input, &first)?;
    let seen = screen.falling()?.map(|c| as_i32(&c)).unwrap_or_default();
    let after = reads
        .into_iter()
        .map(|(s, bx, top)| ((s + 1) % n, bx, top - down))
        .find(|&r| same_cells(&cells_at(gen, piece, r), &seen));
    tracing::debug!("{piece:?} read as {from:?}; after a turn {after:?}");
    if let Some((down, script)) = after.and_then(|r| script_from(gen, field, piece, r, want, 3)) {
        send_steps(input, &keys_of(&script, down)?)?;
        return Ok(false);
    }
    steer_and_drop(screen, input, cfg, want, sum)
}

/// The fallback when no script is known: steer the piece by looking, then
/// drop it. Always `Ok(false)`: the piece was steered.
fn steer_and_drop<S: TetrisScreen, I: InputSink>(
    screen: &mut S,
    input: &mut SafeInput<I>,
    cfg: &TetrisBotConfig,
    want: &[(usize, usize)],
    sum: &mut TetrisSummary,
) -> Result<bool, BotError> {
    correct(screen, input, &cfg.keys, want, &mut sum.corrections)?;
    input.send(&act::InputEvent::Tap(cfg.keys.hard_drop))?;
    Ok(false)
}

/// Puts the falling piece over its planned cells before the hard drop: until
/// its shape and columns match `want` (column, row) it is turned or moved a
/// step and looked at again; after a few tries it is dropped as it is (the
/// next view then resynchronises).
fn correct<S: TetrisScreen, I: InputSink>(
    screen: &mut S,
    input: &mut SafeInput<I>,
    keys: &KeyMap,
    want: &[(usize, usize)],
    corrections: &mut u64,
) -> Result<(), BotError> {
    let shape = |cells: &[(usize, usize)]| {
        let x0 = cells.iter().map(|c| c.0).min().unwrap_or(0);
        let y0 = cells.iter().map(|c| c.1).min().unwrap_or(0);
        let mut v: Vec<(usize, usize)> = cells.iter().map(|&(x, y)| (x - x0, y - y0)).collect();
        v.sort_unstable();
        (x0, v)
    };
    let (want_x, want_shape) = shape(want);
    for _ in 0..10 {
        let Some(now) = screen.falling()? else {
            return Ok(());
        };
        let (x, s) = shape(&now);
        let (key, times) = if s != want_shape {
            (keys.rotate_cw.or(keys.rotate_ccw), 1)
        } else if x < want_x {
            (Some(keys.right), want_x - x)
        } else if x > want_x {
            (Some(keys.left), x - want_x)
        } else {
            return Ok(());
        };
        let Some(key) = key else {
            return Ok(());
        };
        for _ in 0..times {
            *corrections += 1;
            input.send(&act::InputEvent::Tap(key))?;
        }
    }
    tracing::warn!("could not put the piece over its planned cells: dropping it as it is");
    Ok(())
}
