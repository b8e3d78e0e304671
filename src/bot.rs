//! The loop: grab, park, settle, read, verify, solve, act, repeat.
//!
//! The only module besides `platform` and the binary that reads the clock and
//! sleeps. Everything it learns goes out through a [`MoveReport`] callback and the
//! returned [`Summary`]; it never acts on a board it could not read (any `?`),
//! and every pointer event passes through [`SafeInput`], which keeps input
//! inside the game window and releases buttons on every exit path.
//!
//! Coordinates: the calibration is in reference window pixels; a frame says
//! where the window is on screen; the calibration is rescaled to the frame's
//! size and offset by the window's position to click.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use image::RgbImage;
use serde::Serialize;

use crate::act::{self, CellToScreen, InputEvent, Move, Timing};
use crate::board::{Board, Cell};
use crate::games::{Budget, Game, GameError, Solution};
use crate::platform::clock::Deadline;
use crate::platform::{Frame, FrameSource, InputSink, PlatformError, Rect, SafeInput};
use crate::vision::adapt::{AdaptParams, Seen, Tracker};
use crate::vision::{Calibration, VisionError};

/// Set by the Ctrl-C handler; the loop stops at the next check.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Settings of the loop.
#[derive(Debug, Clone)]
pub struct BotConfig {
    /// Stop after this many moves.
    pub max_moves: Option<usize>,
    /// Solver wall-clock budget per move.
    pub budget: Duration,
    /// Solver threads.
    pub threads: usize,
    /// The board must look the same for this long before it is read.
    pub settle: Duration,
    /// Pause between grabs while waiting.
    pub poll: Duration,
    /// Give up waiting for a still board after this long.
    pub settle_timeout: Duration,
    /// Re-reads on a mismatch before resynchronising to what is seen.
    pub mismatch_rereads: usize,
    /// Grabs to wait for a readable board before giving up.
    pub unreadable_retries: usize,
    /// Only show what would be done: no input at all.
    pub dry_run: bool,
    /// Press Escape after the game ends (closes Swell Foop's game-over dialog).
    pub close_dialog: bool,
    /// Keep the pointer still this long after a move's last event: Swell Foop
    /// drops a click when the pointer leaves the tile within ~150 ms of the
    /// release (measured: 0 ms 0-2 of 8 taken, 120 ms 8 of 8, 150 ms 24 of 24).
    pub after_move: Duration,
    pub timing: Timing,
}

impl Default for BotConfig {
    fn default() -> Self {
        BotConfig {
            max_moves: None,
            budget: Duration::from_millis(1000),
            threads: 2,
            settle: Duration::from_millis(250),
            poll: Duration::from_millis(40),
            settle_timeout: Duration::from_secs(15),
            mismatch_rereads: 3,
            unreadable_retries: 10,
            dry_run: false,
            close_dialog: false,
            after_move: Duration::from_millis(250),
            timing: Timing::default(),
        }
    }
}

/// Errors that end the loop.
#[derive(Debug, thiserror::Error)]
pub enum BotError {
    #[error(transparent)]
    Platform(#[from] PlatformError),
    #[error(transparent)]
    Vision(#[from] VisionError),
    #[error(transparent)]
    Game(#[from] GameError),
    #[error(transparent)]
    Tetris(#[from] crate::games::tetris::TetrisError),
    #[error("the board did not stop changing within {0:?}")]
    NeverSettled(Duration),
    #[error("no readable board after {tries} tries: {last}")]
    Unreadable { tries: usize, last: String },
}

/// Milliseconds spent in each stage of one move.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct StageTimes {
    /// Waiting for a still board (includes the game's animation).
    pub settle_ms: f64,
    /// One capture.
    pub capture_ms: f64,
    /// Reading the board from the frame.
    pub read_ms: f64,
    pub solve_ms: f64,
    /// Sending the input (includes the plan's pauses).
    pub act_ms: f64,
}

/// What happened on one move.
#[derive(Debug, Clone, Serialize)]
pub struct MoveReport {
    pub index: usize,
    /// The board read before the move.
    pub board: String,
    #[serde(rename = "move")]
    pub mv: Move,
    /// Collapse: the clicked cell as `[row, col]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cell: Option<[usize; 2]>,
    /// The board the rules predict after the move.
    pub expected: String,
    pub reward: i64,
    /// The score the solver predicts for the rest of the game from here.
    pub plan_score: i64,
    pub mismatch: bool,
    pub times: StageTimes,
    pub nodes: u64,
    pub dry_run: bool,
}

/// The end of a run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub moves: usize,
    /// Points as the rules count them on the boards seen (the game's own count
    /// when nothing was missed).
    pub score: i64,
    /// Points the model predicted: rewards of the moves made plus the end bonus.
    pub predicted_score: i64,
    /// The first plan's predicted total.
    pub first_plan_score: i64,
    pub mismatches: usize,
    pub resyncs: usize,
    pub game_over: bool,
    pub final_board: String,
    pub mean_times: StageTimes,
    /// Times the board's layout was found again (window re-laid out, board
    /// moved inside it).
    pub layout_refinds: u32,
    /// Settled pictures not acted on: unreadable, no board, or a sudden
    /// change of the board's look (dimmed, flashed).
    pub pauses: u32,
    /// Of those, the ones paused for a sudden change.
    pub sudden_pauses: u32,
}

/// Maps cells to screen points for one frame.
pub(crate) struct ScreenGeo<'a> {
    pub cal: &'a Calibration,
    pub rect: Rect,
}

impl CellToScreen for ScreenGeo<'_> {
    fn cell_centre(&self, cell: Cell) -> (i32, i32) {
        let (x, y) = self.cal.cell_centre(cell);
        (
            self.rect.x + x.round() as i32,
            self.rect.y + y.round() as i32,
        )
    }
}

/// A point inside the window but off the board, where the pointer waits so no
/// hover highlight changes the board's look. `None` if there is no such place.
pub fn park_point(cal: &Calibration, rect: Rect) -> Option<(i32, i32)> {
    let (bx, by, bw, bh) = cal.board_rect();
    let (ww, wh) = (rect.w as f64, rect.h as f64);
    // Gaps around the board, largest first: (thickness, point).
    let mut gaps = [
        (by, (bx + bw / 2.0, by / 2.0)),
        (wh - (by + bh), (bx + bw / 2.0, (by + bh + wh) / 2.0)),
        (bx, (bx / 2.0, by + bh / 2.0)),
        (ww - (bx + bw), ((bx + bw + ww) / 2.0, by + bh / 2.0)),
    ];
    gaps.sort_by(|a, b| b.0.total_cmp(&a.0));
    let (thick, (x, y)) = gaps[0];
    if thick < 6.0 {
        return None;
    }
    Some((rect.x + x.round() as i32, rect.y + y.round() as i32))
}

/// The board area's pixels (RGB, row-major), for telling a still board.
pub fn crop_board(img: &RgbImage, cal: &Calibration) -> Vec<u8> {
    let (bx, by, bw, bh) = cal.board_rect();
    let (x0, y0) = (bx.max(0.0) as u32, by.max(0.0) as u32);
    let x1 = ((bx + bw).ceil() as u32).min(img.width());
    let y1 = ((by + bh).ceil() as u32).min(img.height());
    let mut out = Vec::new();
    for y in y0..y1 {
        for x in x0..x1 {
            out.extend_from_slice(&img.get_pixel(x, y).0);
        }
    }
    out
}

fn check_interrupt() -> Result<(), PlatformError> {
    if INTERRUPTED.load(Ordering::SeqCst) {
        Err(PlatformError::Interrupted)
    } else {
        Ok(())
    }
}

/// The loop over one game window.
pub struct Bot<'a, F: FrameSource, S: InputSink> {
    pub game: &'a dyn Game,
    pub source: &'a mut F,
    pub input: SafeInput<S>,
    pub cfg: BotConfig,
    /// The live calibration: layout found again, palette drift, pauses.
    tracker: Tracker,
    times: Vec<StageTimes>,
}

impl<'a, F: FrameSource, S: InputSink> Bot<'a, F, S> {
    pub fn new(
        game: &'a dyn Game,
        cal: &'a Calibration,
        source: &'a mut F,
        input: SafeInput<S>,
        cfg: BotConfig,
    ) -> Self {
        Bot {
            game,
            source,
            input,
            cfg,
            tracker: Tracker::new(cal.clone(), AdaptParams::default()),
            times: Vec::new(),
        }
    }

    fn grab(&mut self, t: &mut StageTimes) -> Result<(Frame, Calibration), BotError> {
        check_interrupt()?;
        let t0 = Instant::now();
        let frame = self.source.grab()?;
        t.capture_ms = t0.elapsed().as_secs_f64() * 1e3;
        // The window may have moved or been resized: follow it. A new aspect
        // ratio is read after the layout is found again (`read_settled`);
        // until then the stretched layout tells a still board.
        self.input.set_window(frame.rect);
        let cal = self.tracker.settling_layout(frame.rect.w, frame.rect.h)?;
        Ok((frame, cal))
    }

    /// Moves the pointer off the board (unless dry-running).
    fn park(&mut self, cal: &Calibration, rect: Rect) -> Result<(), BotError> {
        if self.cfg.dry_run {
            return Ok(());
        }
        if let Some((x, y)) = park_point(cal, rect) {
            self.input.send(&InputEvent::MoveTo { x, y })?;
        }
        Ok(())
    }

    /// Grabs until the board area has not changed for `settle`.
    fn settled_frame(&mut self, t: &mut StageTimes) -> Result<(Frame, Calibration), BotError> {
        let start = Instant::now();
        let (mut frame, mut cal) = self.grab(t)?;
        self.park(&cal, frame.rect)?;
        let mut last = crop_board(&frame.image, &cal);
        let mut still_since = Instant::now();
        let mut compared = false;
        loop {
            // At least two identical frames, and still for `settle`.
            if compared && still_since.elapsed() >= self.cfg.settle {
                t.settle_ms = start.elapsed().as_secs_f64() * 1e3;
                return Ok((frame, cal));
            }
            if start.elapsed() > self.cfg.settle_timeout {
                return Err(BotError::NeverSettled(self.cfg.settle_timeout));
            }
            std::thread::sleep(self.cfg.poll);
            let (f, c) = self.grab(t)?;
            let now = crop_board(&f.image, &c);
            compared = now == last && f.rect == frame.rect;
            if !compared {
                still_since = Instant::now();
                if f.rect != frame.rect {
                    self.park(&c, f.rect)?;
                }
            }
            last = now;
            frame = f;
            cal = c;
        }
    }

    /// A settled, fully read board; pauses (re-grabs) while it is unreadable.
    fn read_settled(
        &mut self,
        t: &mut StageTimes,
    ) -> Result<(Board, Frame, Calibration), BotError> {
        let mut last = String::new();
        for _ in 0..self.cfg.unreadable_retries.max(1) {
            let (frame, _) = self.settled_frame(t)?;
            let t0 = Instant::now();
            let seen = self.tracker.read(&frame.image)?;
            t.read_ms = t0.elapsed().as_secs_f64() * 1e3;
            match seen {
                Seen::Board(r, cal) => return Ok((r.board, frame, *cal)),
                Seen::Pause(why) => last = why,
            }
            tracing::warn!("pausing: {last}");
            std::thread::sleep(self.cfg.poll * 5);
        }
        Err(BotError::Unreadable {
            tries: self.cfg.unreadable_retries,
            last,
        })
    }

    fn solve(&self, board: &Board) -> Result<(Solution, f64), BotError> {
        let deadline = Deadline::after(self.cfg.budget);
        let budget = Budget {
            stop: &deadline,
            width: None,
            nodes: None,
            threads: self.cfg.threads,
        };
        let t0 = Instant::now();
        let sol = self.game.solve(board, &budget)?;
        Ok((sol, t0.elapsed().as_secs_f64() * 1e3))
    }

    /// After the last move the board may be covered by a game-over screen
    /// (Swell Foop's dialog) or be cleared (which a calibration without
    /// anchors cannot tell from a blank picture): when the predicted board is
    /// the end of the game and no board can be read, the prediction stands.
    fn covered_game_over(
        &mut self,
        read: &Result<(Board, Frame, Calibration), BotError>,
        expected: Option<&Board>,
        sum: &mut Summary,
    ) -> Result<bool, BotError> {
        let (Err(e @ BotError::Unreadable { .. }), Some(exp)) = (read, expected) else {
            return Ok(false);
        };
        if !self.game.is_over(exp) {
            return Ok(false);
        }
        tracing::info!("game over; no board to read ({e})");
        let bonus = self.game.final_bonus(exp);
        sum.score += bonus;
        sum.predicted_score += bonus;
        sum.game_over = true;
        sum.final_board = exp.to_string();
        self.close_dialog()?;
        Ok(true)
    }

    /// The points of the move that turns `before` into `seen`: 0 when nothing
    /// changed (the move was dropped), `None` when no single move does it.
    fn explain(&self, before: Option<&Board>, seen: &Board) -> Option<i64> {
        let before = before?;
        if before == seen {
            return Some(0);
        }
        self.game
            .legal_moves(before)
            .iter()
            .filter_map(|m| self.game.apply(before, m).ok())
            .find(|(after, _)| after == seen)
            .map(|(_, pts)| pts)
    }

    /// Closes the game-over dialog with Escape when asked to (`--new-game`).
    fn close_dialog(&mut self) -> Result<(), BotError> {
        if self.cfg.close_dialog && !self.cfg.dry_run {
            std::thread::sleep(Duration::from_millis(1500));
            self.input.send(&InputEvent::Tap(act::Key::Escape))?;
        }
        Ok(())
    }

    /// Plays until the game ends, `max_moves` is reached, or an error.
    /// Buttons are released on every way out (SafeInput's drop and here).
    pub fn run(&mut self, report: &mut dyn FnMut(&MoveReport)) -> Result<Summary, BotError> {
        let out = self.run_inner(report).map(|mut sum| {
            sum.layout_refinds = self.tracker.refinds;
            sum.pauses = self.tracker.pauses;
            sum.sudden_pauses = self.tracker.sudden;
            sum
        });
        self.input.release_all();
        out
    }

    fn run_inner(&mut self, report: &mut dyn FnMut(&MoveReport)) -> Result<Summary, BotError> {
        let mut sum = Summary::default();
        let mut expected: Option<Board> = None;
        // The board before the last move and the points that move was credited.
        let mut prev: Option<Board> = None;
        let mut pending_reward = 0i64;
        loop {
            let mut t = StageTimes::default();
            let read = self.read_settled(&mut t);
            if self.covered_game_over(&read, expected.as_ref(), &mut sum)? {
                break;
            }
            let (mut board, mut frame, mut cal) = read?;
            let mut mismatch = false;
            if let Some(exp) = &expected {
                let mut tries = 0;
                while &board != exp && tries < self.cfg.mismatch_rereads {
                    tries += 1;
                    tracing::info!(
                        "board differs from the prediction at {:?}; re-reading",
                        exp.diff(&board)
                    );
                    std::thread::sleep(self.cfg.settle);
                    let read = self.read_settled(&mut t);
                    if self.covered_game_over(&read, Some(exp), &mut sum)? {
                        sum.mean_times = mean_times(&self.times);
                        return Ok(sum);
                    }
                    (board, frame, cal) = read?;
                }
                if &board != exp {
                    mismatch = true;
                    sum.mismatches += 1;
                    sum.resyncs += 1;
                    // Count what really happened, not what was meant to.
                    sum.score -= pending_reward;
                    let explained = self.explain(prev.as_ref(), &board);
                    sum.score += explained.unwrap_or(0);
                    tracing::warn!(
                        "resynchronising: predicted {exp}, seen {board} (cells {:?}); {}",
                        exp.diff(&board),
                        match explained {
                            Some(0) => "the move was not taken".to_string(),
                            Some(p) => format!("another move was taken, worth {p}"),
                            None => "no single move explains it".to_string(),
                        }
                    );
                }
            }
            if self.game.is_over(&board) {
                let bonus = self.game.final_bonus(&board);
                sum.score += bonus;
                sum.predicted_score += bonus;
                sum.game_over = true;
                sum.final_board = board.to_string();
                self.close_dialog()?;
                break;
            }
            if self.cfg.max_moves.is_some_and(|m| sum.moves >= m) {
                sum.final_board = board.to_string();
                break;
            }
            let (sol, solve_ms) = self.solve(&board)?;
            t.solve_ms = solve_ms;
            let Some(mv) = sol.moves.first().cloned() else {
                sum.final_board = board.to_string();
                break;
            };
            if sum.moves == 0 {
                sum.first_plan_score = sol.score;
            }
            let (after, reward) = self.game.apply(&board, &mv)?;
            let geo = ScreenGeo {
                cal: &cal,
                rect: frame.rect,
            };
            let plan = act::plan_move(&mv, &geo, &self.cfg.timing);
            let t0 = Instant::now();
            if !self.cfg.dry_run {
                for step in &plan.steps {
                    check_interrupt()?;
                    std::thread::sleep(step.delay);
                    self.input.send(&step.event)?;
                }
            }
            if !self.cfg.dry_run {
                std::thread::sleep(self.cfg.after_move);
            }
            t.act_ms = t0.elapsed().as_secs_f64() * 1e3;
            sum.moves += 1;
            sum.score += reward;
            sum.predicted_score += sol.rewards.first().copied().unwrap_or(reward);
            self.times.push(t);
            report(&MoveReport {
                index: sum.moves - 1,
                board: board.to_string(),
                cell: match mv {
                    Move::Click(c) => Some([c.row, c.col]),
                    _ => None,
                },
                mv,
                expected: after.to_string(),
                reward,
                plan_score: sol.score,
                mismatch,
                times: t,
                nodes: sol.stats.nodes,
                dry_run: self.cfg.dry_run,
            });
            if self.cfg.dry_run {
                sum.final_board = after.to_string();
                break;
            }
            // Unknown refill (orb-drag): nothing to check the next board against.
            expected = (!self.game.refills()).then_some(after);
            prev = Some(board);
            pending_reward = reward;
        }
        sum.mean_times = mean_times(&self.times);
        Ok(sum)
    }
}

fn mean_times(ts: &[StageTimes]) -> StageTimes {
    if ts.is_empty() {
        return StageTimes::default();
    }
    let n = ts.len() as f64;
    let f = |g: fn(&StageTimes) -> f64| ts.iter().map(g).sum::<f64>() / n;
    StageTimes {
        settle_ms: f(|t| t.settle_ms),
        capture_ms: f(|t| t.capture_ms),
        read_ms: f(|t| t.read_ms),
        solve_ms: f(|t| t.solve_ms),
        act_ms: f(|t| t.act_ms),
    }
}
