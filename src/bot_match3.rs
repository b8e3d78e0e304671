//! The swap-family loop (Gweled): read, choose, swap, settle, verify, repeat.
//!
//! Like [`crate::bot`] (the collapse loop) this is the only place, besides
//! `platform`, that reads the clock and sleeps. Each swap:
//!
//! 1. a settled board: frames are grabbed until the board area is
//!    pixel-identical for [`Match3BotConfig::settle`] (floating score text,
//!    falling gems and the idle hint all move, so a still board is a clean
//!    one) and every cell reads within the palette's tolerance; a board with
//!    an unsure cell (`?`) is never acted on;
//! 2. the policy ([`crate::games::match3::choose`]) picks a swap;
//! 3. the swap is sent through [`SafeInput`] (input only inside the window)
//!    as two clicks or one short drag ([`SwapInput`]);
//! 4. the next settled board — after the board has changed, or after
//!    [`Match3BotConfig::change_wait`] if it never does — is checked against
//!    the model ([`crate::games::match3::verify`]): exact, a refill cascade
//!    (refilled gems made a line the model could not see), illegal (nothing
//!    changed), a new board (most known cells changed: Gweled deals a new
//!    board when no swap is left) or a mismatch (a difference no refill
//!    explains).
//!
//! Play goes on from what is seen: the screen is the truth. Everything is
//! reported through a callback ([`SwapReport`]) and a [`Match3Summary`].
//!
//! Coordinates: the calibration is in reference window pixels, rescaled to
//! each frame; input points are absolute screen pixels.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::act::{self, Move, Timing};
use crate::board::{Board, Cell};
use crate::bot::{crop_board, park_point, BotError, INTERRUPTED};
use crate::games::match3::explain::Consistency;
use crate::games::match3::rules::is_gem;
use crate::games::match3::verify::{self, Check};
use crate::games::match3::{choose_move, Policy, Scoring};
use crate::platform::{Frame, FrameSource, InputSink, PlatformError, Rect, SafeInput};
use crate::vision::adapt::{Seen as Look, Tracker};
use crate::vision::Calibration;

/// How a swap is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SwapInput {
    /// Click the first gem, then its neighbour (Gweled, most match-3 games).
    Clicks,
    /// Press on the first gem, move onto the neighbour, release.
    Drag,
}

impl SwapInput {
    pub fn parse(s: &str) -> Option<SwapInput> {
        match s {
            "clicks" | "click" => Some(SwapInput::Clicks),
            "drag" => Some(SwapInput::Drag),
            _ => None,
        }
    }
}

/// Settings of the loop.
#[derive(Debug, Clone)]
pub struct Match3BotConfig {
    /// Stop after this many swaps.
    pub max_moves: Option<usize>,
    /// Pause between grabs while waiting.
    pub poll: Duration,
    /// The board must be pixel-identical this long before it is read.
    pub settle: Duration,
    /// Give up waiting for a still, readable board after this long.
    pub settle_timeout: Duration,
    /// After a swap, how long to wait for the board to start changing before
    /// a still board is taken as "the swap did nothing".
    pub change_wait: Duration,
    pub swap_input: SwapInput,
    pub timing: Timing,
    /// Pause between the two clicks of a swap.
    pub click_gap: Duration,
    /// Only show the first swap: no input at all.
    pub dry_run: bool,
}

impl Default for Match3BotConfig {
    /// Gweled: a swap with its cascade settles 1.5-2.2 s after the second
    /// click. Its engine steps every 50 ms and starts the next animation
    /// stage on the tick after the last one ends, so 350 ms of stillness
    /// only happens on a settled board (no early read in the e2e runs).
    fn default() -> Self {
        Match3BotConfig {
            max_moves: None,
            poll: Duration::from_millis(40),
            settle: Duration::from_millis(350),
            settle_timeout: Duration::from_secs(10),
            change_wait: Duration::from_millis(1500),
            swap_input: SwapInput::Clicks,
            timing: Timing::default(),
            click_gap: Duration::from_millis(80),
            dry_run: false,
        }
    }
}

/// What the check said about a swap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Every cell the model knew is as predicted.
    Exact,
    /// Known cells changed, as a refill completing a line would change them.
    RefillCascade,
    /// The board did not change: the game refused the swap (or lost a click).
    Illegal,
    /// Most known cells changed at once: Gweled found no legal swap after the
    /// cascade and dealt a whole new board ("no moves left").
    NewBoard,
    /// A difference no refill explains (a misread, a read mid-cascade, or a
    /// rule the model lacks).
    Mismatch,
    /// Not played (`--dry-run`).
    DryRun,
}

fn verdict(c: &Check) -> Verdict {
    if !c.changed {
        Verdict::Illegal
    } else if c.exact() {
        Verdict::Exact
    } else if c.refill_cascade {
        Verdict::RefillCascade
    } else if c.new_board {
        Verdict::NewBoard
    } else {
        Verdict::Mismatch
    }
}

/// Milliseconds of the stages of one swap.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct SwapTimes {
    pub choose_ms: f64,
    pub act_ms: f64,
    /// From the last input event to a settled, read board.
    pub settle_ms: f64,
}

/// One swap, as printed by `play --json`.
#[derive(Debug, Clone, Serialize)]
pub struct SwapReport {
    pub index: usize,
    /// The board read before the swap.
    pub board: String,
    /// The two cells, `[row, col]` each.
    pub swap: [[usize; 2]; 2],
    /// Points the model promises for the swap (no refill).
    pub predicted: i64,
    /// Gweled's own count of the swap's clears without refill lines
    /// ([`verify::gweled_points`]); with the Gweled scoring only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gweled_points: Option<i64>,
    /// The policy's value of the swap.
    pub value: f64,
    /// The predicted board with unknown refill (`?`).
    pub expected: String,
    /// The board read after the swap settled (absent in a dry run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seen: Option<String>,
    pub verdict: Verdict,
    /// Known cells that differ from the prediction, `[row, col]`.
    pub mismatched: Vec<[usize; 2]>,
    /// Of those, cells below every clear (they should never change).
    pub frozen_mismatched: Vec<[usize; 2]>,
    /// Screen points the pointer was sent to for this swap.
    pub points: Vec<[i32; 2]>,
    /// The window's screen rectangle when the swap was sent.
    pub window: Rect,
    pub times: SwapTimes,
}

/// The end of a run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Match3Summary {
    pub moves: usize,
    /// Points of the swaps the game took, by the game's rules when known
    /// (Gweled) else the scoring given, without refill lines: a lower bound
    /// of the in-game score.
    pub score: i64,
    /// Points the model predicted (no refill, the scoring given).
    pub predicted_score: i64,
    /// Sum of [`SwapReport::gweled_points`] over the swaps the game took: the
    /// in-game score when no refill made a line (a lower bound otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gweled_score: Option<i64>,
    pub exact: usize,
    pub refill_cascades: usize,
    pub illegal: usize,
    /// Swaps after which the game dealt a new board (no legal swap left).
    pub new_boards: usize,
    /// Swaps whose result no refill explains.
    pub mismatches: usize,
    /// Swaps the refill search could not decide within its node limit
    /// (classified by the verifier's rule of thumb instead).
    pub undecided: usize,
    /// Frozen cells that changed, over all swaps (refill cascades included).
    pub frozen_mismatches: usize,
    /// Gems the model saw cleared by the bot's swaps (refill cascades not counted).
    pub cleared: usize,
    /// No legal swap on the last board read.
    pub game_over: bool,
    pub final_board: String,
}

/// The level multiplier when `s` is a Gweled scoring ([`Scoring::gweled`]).
fn gweled_multiplier(s: &Scoring) -> Option<i64> {
    let m = s.line_base / 10;
    (m > 0 && *s == Scoring::gweled(m)).then_some(m)
}

fn check_interrupt() -> Result<(), PlatformError> {
    if INTERRUPTED.load(Ordering::SeqCst) {
        Err(PlatformError::Interrupted)
    } else {
        Ok(())
    }
}

fn cell2(c: Cell) -> [usize; 2] {
    [c.row, c.col]
}

/// A board read from a settled frame.
struct Seen {
    board: Board,
    frame: Frame,
    cal: Calibration,
    crop: Vec<u8>,
}

/// The match-3 loop over one game window.
pub struct Match3Bot<'a, F: FrameSource, S: InputSink> {
    /// The live calibration (see [`Tracker`]).
    pub tracker: Tracker,
    pub source: &'a mut F,
    pub input: SafeInput<S>,
    pub scoring: Scoring,
    pub policy: Policy,
    pub cfg: Match3BotConfig,
}

impl<'a, F: FrameSource, S: InputSink> Match3Bot<'a, F, S> {
    fn grab(&mut self) -> Result<(Frame, Calibration), BotError> {
        check_interrupt()?;
        let frame = self.source.grab()?;
        self.input.set_window(frame.rect);
        let cal = self.tracker.settling_layout(frame.rect.w, frame.rect.h)?;
        Ok((frame, cal))
    }

    fn park(&mut self, cal: &Calibration, rect: Rect) -> Result<(), BotError> {
        if self.cfg.dry_run {
            return Ok(());
        }
        if let Some((x, y)) = park_point(cal, rect) {
            self.input.send(&act::InputEvent::MoveTo { x, y })?;
        }
        Ok(())
    }

    /// Waits for a still, fully readable board. With `before` (the board
    /// area's pixels before a swap), a still board equal to it is only
    /// accepted once `change_wait` has passed (the game may not have started
    /// animating yet).
    fn settled(&mut self, before: Option<&[u8]>) -> Result<Seen, BotError> {
        let start = Instant::now();
        let (mut frame, cal) = self.grab()?;
        self.park(&cal, frame.rect)?;
        let mut last = crop_board(&frame.image, &cal);
        let mut still_since = Instant::now();
        let mut changed = before.is_none_or(|b| b != last.as_slice());
        let mut last_problem = String::from("the board never stopped moving");
        loop {
            let still = still_since.elapsed() >= self.cfg.settle;
            let waited = changed || start.elapsed() >= self.cfg.change_wait;
            if still && waited {
                match self.tracker.read(&frame.image)? {
                    Look::Board(r, read_cal) if r.board.cells().iter().all(|&v| is_gem(v)) => {
                        return Ok(Seen {
                            board: r.board,
                            frame,
                            cal: *read_cal,
                            crop: last,
                        })
                    }
                    Look::Board(r, _) => {
                        let unsure = r.board.cells().iter().filter(|&&v| !is_gem(v)).count();
                        last_problem = format!("{unsure} unsure cells in {}", r.board)
                    }
                    Look::Pause(why) => last_problem = why,
                }
                // Something still covers the board (a message): keep waiting.
                still_since = Instant::now();
            }
            if start.elapsed() > self.cfg.settle_timeout {
                return Err(BotError::Unreadable {
                    tries: 1,
                    last: format!(
                        "no still, readable board within {:?}: {last_problem}",
                        self.cfg.settle_timeout
                    ),
                });
            }
            std::thread::sleep(self.cfg.poll);
            let (f, c) = self.grab()?;
            let now = crop_board(&f.image, &c);
            if now != last || f.rect != frame.rect {
                still_since = Instant::now();
                if f.rect != frame.rect {
                    self.park(&c, f.rect)?;
                }
            }
            if before.is_some_and(|b| b != now.as_slice()) {
                changed = true;
            }
            last = now;
            frame = f;
        }
    }

    /// Plays until no swap is left, `max_moves`, or an error. Buttons are
    /// released on every way out.
    pub fn run(&mut self, report: &mut dyn FnMut(&SwapReport)) -> Result<Match3Summary, BotError> {
        let out = self.run_inner(report);
        self.input.release_all();
        out
    }

    fn run_inner(
        &mut self,
        report: &mut dyn FnMut(&SwapReport),
    ) -> Result<Match3Summary, BotError> {
        let mut sum = Match3Summary::default();
        let mut seen = self.settled(None)?;
        // The game's palette size, for the refill search.
        let colours = self
            .tracker
            .calibration()
            .palette
            .colours
            .iter()
            .map(|c| c.index.saturating_add(1))
            .max()
            .unwrap_or(1);
        loop {
            if self.cfg.max_moves.is_some_and(|m| sum.moves >= m) {
                break;
            }
            let t0 = Instant::now();
            let choice = choose_move(&seen.board, &self.scoring, &self.policy)?;
            let choose_ms = t0.elapsed().as_secs_f64() * 1e3;
            let Some((_, c)) = choice else {
                sum.game_over = true;
                break;
            };
            let (a, b) = c.swap.cells(seen.board.cols());
            let mv = match self.cfg.swap_input {
                SwapInput::Clicks => Move::Swap(a, b),
                SwapInput::Drag => Move::Drag(vec![a, b]),
            };
            let geo = crate::bot::ScreenGeo {
                cal: &seen.cal,
                rect: seen.frame.rect,
            };
            let plan = act::plan_move(&mv, &geo, &self.cfg.timing);
            let points: Vec<[i32; 2]> = plan.pointer_points().map(|(x, y)| [x, y]).collect();
            let window = seen.frame.rect;
            let mut report_line = SwapReport {
                index: sum.moves,
                board: seen.board.to_string(),
                swap: [cell2(a), cell2(b)],
                predicted: c.immediate,
                gweled_points: gweled_multiplier(&self.scoring)
                    .map(|m| verify::gweled_points(&seen.board, a, b, m)),
                value: (c.value * 100.0).round() / 100.0,
                expected: String::new(),
                seen: None,
                verdict: Verdict::DryRun,
                mismatched: Vec::new(),
                frozen_mismatched: Vec::new(),
                points,
                window,
                times: SwapTimes {
                    choose_ms,
                    ..SwapTimes::default()
                },
            };
            if self.cfg.dry_run {
                let chk = verify::check(&seen.board, a, b, &seen.board, colours);
                report_line.expected = chk.expected;
                report(&report_line);
                sum.final_board = seen.board.to_string();
                break;
            }
            let t1 = Instant::now();
            let clicks = matches!(mv, Move::Swap(..));
            let mut presses = 0;
            for step in &plan.steps {
                check_interrupt()?;
                if clicks && presses == 1 && matches!(step.event, act::InputEvent::MoveTo { .. }) {
                    std::thread::sleep(self.cfg.click_gap);
                }
                std::thread::sleep(step.delay);
                self.input.send(&step.event)?;
                if matches!(step.event, act::InputEvent::Release(_)) {
                    presses += 1;
                }
            }
            report_line.times.act_ms = t1.elapsed().as_secs_f64() * 1e3;
            let t2 = Instant::now();
            let before_crop = seen.crop.clone();
            let mut next = self.settled(Some(&before_crop))?;
            let mut chk = verify::check(&seen.board, a, b, &next.board, colours);
            if verdict(&chk) == Verdict::Mismatch {
                // On a loaded machine a cascade can pause longer than
                // `settle`: look once more before calling it a mismatch.
                tracing::info!(
                    "swap {}: the board differs from the prediction; looking again",
                    sum.moves + 1
                );
                let again = self.settled(Some(&next.crop))?;
                let chk2 = verify::check(&seen.board, a, b, &again.board, colours);
                if verdict(&chk2) != Verdict::Mismatch {
                    next = again;
                    chk = chk2;
                }
            }
            report_line.times.settle_ms = t2.elapsed().as_secs_f64() * 1e3;
            let v = verdict(&chk);
            sum.moves += 1;
            sum.predicted_score += c.immediate;
            sum.frozen_mismatches += chk.frozen_mismatches.len();
            sum.undecided += usize::from(chk.consistency == Consistency::Undecided);
            match v {
                Verdict::Exact => sum.exact += 1,
                Verdict::RefillCascade => sum.refill_cascades += 1,
                Verdict::Illegal => sum.illegal += 1,
                Verdict::NewBoard => sum.new_boards += 1,
                Verdict::Mismatch => sum.mismatches += 1,
                Verdict::DryRun => {}
            }
            if v != Verdict::Illegal {
                sum.cleared += chk.cleared;
                sum.score += report_line.gweled_points.unwrap_or(c.immediate);
                if let Some(p) = report_line.gweled_points {
                    *sum.gweled_score.get_or_insert(0) += p;
                }
            }
            if v == Verdict::Mismatch {
                tracing::warn!(
                    "swap {}: seen {} differs from the prediction {} at {:?}",
                    sum.moves,
                    next.board,
                    chk.expected,
                    chk.known_mismatches
                );
            }
            report_line.expected = chk.expected.clone();
            report_line.seen = Some(next.board.to_string());
            report_line.verdict = v;
            report_line.mismatched = chk.known_mismatches.iter().map(|&c| cell2(c)).collect();
            report_line.frozen_mismatched =
                chk.frozen_mismatches.iter().map(|&c| cell2(c)).collect();
            report(&report_line);
            seen = next;
            sum.final_board = seen.board.to_string();
        }
        if sum.final_board.is_empty() {
            sum.final_board = seen.board.to_string();
        }
        Ok(sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(s: &str) -> Board {
        s.parse().expect("board literal")
    }

    // Swap 42 of an e2e run: the cascade left no legal swap and Gweled
    // dealt a new board.
    const BEFORE: &str = "11600664/34615022/60323445/35413012/20452534/25156500/46341235/53015324";
    const NEW: &str = "34546532/65654656/16112102/01065565/22443351/03632421/44300113/20012304";

    #[test]
    fn verdicts() {
        let (x, y) = (Cell::new(0, 5), Cell::new(1, 5));
        let chk = verify::check(&b(BEFORE), x, y, &b(NEW), 7);
        assert_eq!(verdict(&chk), Verdict::NewBoard);
        let expected = b(&chk.expected);
        assert_eq!(
            chk.expected,
            "116???64/34615622/60323445/35413012/20452534/25156500/46341235/53015324"
        );
        // The prediction with its holes filled: exact.
        let mut seen = expected.clone();
        for (c, v) in [(3, 2), (4, 3), (5, 1)] {
            seen.set(0, c, v);
        }
        assert_eq!(
            verdict(&verify::check(&b(BEFORE), x, y, &seen, 7)),
            Verdict::Exact
        );
        // One gem misread in the bottom row: a mismatch.
        seen.set(7, 0, 6);
        assert_eq!(
            verdict(&verify::check(&b(BEFORE), x, y, &seen, 7)),
            Verdict::Mismatch
        );
        // Nothing changed: illegal (or a lost click).
        assert_eq!(
            verdict(&verify::check(&b(BEFORE), x, y, &b(BEFORE), 7)),
            Verdict::Illegal
        );
    }

    #[test]
    fn swap_input_names() {
        assert_eq!(SwapInput::parse("clicks"), Some(SwapInput::Clicks));
        assert_eq!(SwapInput::parse("drag"), Some(SwapInput::Drag));
        assert_eq!(SwapInput::parse("swipe"), None);
    }
}
