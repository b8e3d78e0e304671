//! The whole loop against the simulator: capture, settle, read through the real
//! reader, solve, click, verify, to the end of the game.

use std::time::Duration;

use gridbot::act::InputEvent;
use gridbot::board::Board;
use gridbot::bot::{Bot, BotConfig, Summary};
use gridbot::games::collapse::{Collapse, Scoring};
use gridbot::platform::sim::{random_board, ScreenChange, Sim, SimStyle};
use gridbot::platform::{InputSink, PlatformError, SafeInput};

/// Passes events to the simulator but drops every `every`-th click, as a game
/// does when the pointer leaves too early.
struct DropsClicks<S: InputSink> {
    inner: S,
    presses: usize,
    every: usize,
    dropping: bool,
}

impl<S: InputSink> InputSink for DropsClicks<S> {
    fn send(&mut self, ev: &InputEvent) -> Result<(), PlatformError> {
        match ev {
            InputEvent::Press(_) => {
                self.presses += 1;
                self.dropping = self.presses.is_multiple_of(self.every);
                if self.dropping {
                    return Ok(());
                }
            }
            InputEvent::Release(_) if self.dropping => {
                self.dropping = false;
                return Ok(());
            }
            _ => {}
        }
        self.inner.send(ev)
    }
    fn pointer(&mut self) -> Option<(i32, i32)> {
        self.inner.pointer()
    }
    fn screen_size(&self) -> Option<(u32, u32)> {
        self.inner.screen_size()
    }
}

#[test]
fn dropped_clicks_are_seen_resynced_and_not_counted() {
    let sim = Sim::new(
        Scoring::SameGame,
        random_board(10, 15, 3, 5),
        SimStyle::swellfoop(),
    );
    let sink = DropsClicks {
        inner: sim.input(),
        presses: 0,
        every: 4,
        dropping: false,
    };
    let summary = run_on(&sim, sink, Scoring::SameGame, cfg());
    assert!(summary.game_over);
    assert!(summary.mismatches >= 2, "dropped clicks must be noticed");
    assert_eq!(
        summary.score,
        sim.score(),
        "only the clicks the game took count"
    );
    assert_eq!(summary.moves, sim.moves() + summary.mismatches);
}

fn cfg() -> BotConfig {
    BotConfig {
        budget: Duration::from_millis(30),
        threads: 1,
        settle: Duration::ZERO,
        poll: Duration::from_millis(1),
        after_move: Duration::ZERO,
        ..BotConfig::default()
    }
}

#[test]
fn plays_a_whole_game_with_the_score_it_predicted() {
    for (scoring, board) in [
        (Scoring::SameGame, random_board(10, 15, 3, 7)),
        (Scoring::PopStar, random_board(8, 8, 4, 3)),
    ] {
        let sim = Sim::new(scoring, board, SimStyle::swellfoop());
        let cal = sim.calibration();
        let game = Collapse::new(scoring);
        let input = SafeInput::new(sim.input(), sim.window_rect());
        let mut screen = sim.screen();
        let mut bot = Bot::new(&game, &cal, &mut screen, input, cfg());
        let mut moves = 0;
        let summary = bot.run(&mut |_| moves += 1).expect("plays to the end");
        assert!(summary.game_over);
        assert_eq!(summary.mismatches, 0);
        assert!(summary.moves > 3);
        assert_eq!(summary.moves, moves);
        assert_eq!(summary.moves, sim.moves());
        assert_eq!(summary.score, summary.predicted_score);
        assert_eq!(summary.score, sim.score(), "the game's own count");
        assert_eq!(summary.final_board, sim.board().to_string());
    }
}

/// The window changes under the loop (issue 3, item 5): it fades slowly to
/// 62% of its brightness, is dimmed for three frames (the enemy's turn), and
/// is laid out again with another title bar and margins (a new aspect ratio).
/// The loop follows all of it and plays the game to the end with the score it
/// predicted, never acting on the dimmed frames.
#[test]
fn follows_a_fading_dimmed_and_relaid_window_to_the_end() {
    let style = SimStyle::swellfoop();
    let sim = Sim::new(
        Scoring::SameGame,
        random_board(10, 15, 3, 11),
        style.clone(),
    );
    for k in 1..=9 {
        sim.after_move(k, ScreenChange::Brightness(1.0 - 0.042 * k as f32));
    }
    sim.after_move(
        3,
        ScreenChange::Dim {
            frames: 3,
            factor: 0.9,
        },
    );
    sim.after_move(
        6,
        ScreenChange::Restyle(SimStyle {
            margin: style.margin + 19,
            header: style.header + 30,
            ..style.clone()
        }),
    );
    let summary = run_on(&sim, sim.input(), Scoring::SameGame, cfg());
    assert!(summary.game_over, "{summary:?}");
    assert!(
        summary.moves > 9,
        "the fade must be seen to the end: {summary:?}"
    );
    assert_eq!(summary.mismatches, 0);
    assert_eq!(summary.score, summary.predicted_score);
    assert_eq!(summary.score, sim.score(), "the game's own count");
    assert_eq!(summary.layout_refinds, 1);
    assert!(summary.pauses >= 1, "{summary:?}");
}

/// Runs the loop on `sim` through `sink` (which must feed the same simulator).
fn run_on<S: InputSink>(sim: &Sim, sink: S, scoring: Scoring, cfg: BotConfig) -> Summary {
    let cal = sim.calibration();
    let game = Collapse::new(scoring);
    let input = SafeInput::new(sink, sim.window_rect());
    let mut screen = sim.screen();
    let mut bot = Bot::new(&game, &cal, &mut screen, input, cfg);
    bot.run(&mut |_| {}).expect("the loop runs")
}

#[test]
fn dry_run_sends_nothing_and_stops_after_one_plan() {
    let board: Board = "112/133/223".parse().expect("board");
    let sim = Sim::new(Scoring::SameGame, board.clone(), SimStyle::plain(20));
    let cfg = BotConfig {
        dry_run: true,
        ..cfg()
    };
    let summary = run_on(&sim, sim.input(), Scoring::SameGame, cfg);
    assert_eq!(summary.moves, 1);
    assert_eq!(sim.moves(), 0);
    assert_eq!(sim.board(), board);
}

#[test]
fn max_moves_is_honoured() {
    let sim = Sim::new(
        Scoring::SameGame,
        random_board(10, 15, 3, 11),
        SimStyle::swellfoop(),
    );
    let cfg = BotConfig {
        max_moves: Some(3),
        ..cfg()
    };
    let summary = run_on(&sim, sim.input(), Scoring::SameGame, cfg);
    assert_eq!((summary.moves, sim.moves()), (3, 3));
    assert_eq!(summary.score, sim.score());
}

#[test]
fn orb_drag_sim_sees_the_planned_paths_and_combos() {
    use gridbot::act::{Move, Timing};
    use gridbot::games::pad::Pad;
    // A random 5x6 board with orbs 0..6 (random_board gives 1..=6).
    let b = random_board(5, 6, 6, 21);
    let cells = b.cells().iter().map(|&v| v - 1).collect();
    let board = Board::from_cells(5, 6, cells);
    let sim = Sim::new_pad(board, SimStyle::pad(), 6, 21);
    let cal = sim.calibration();
    let game = Pad::default();
    let input = SafeInput::new(sim.input(), sim.window_rect());
    let mut screen = sim.screen();
    let cfg = BotConfig {
        max_moves: Some(4),
        timing: Timing {
            drag_dwell_ms: 4,
            settle_pointer_ms: 1,
            ..Timing::default()
        },
        ..cfg()
    };
    let mut bot = Bot::new(&game, &cal, &mut screen, input, cfg);
    let mut reports = Vec::new();
    let summary = bot
        .run(&mut |r| reports.push(r.clone()))
        .expect("the loop runs");
    let drags = sim.pad_drags();
    assert_eq!(summary.moves, 4);
    assert_eq!(drags.len(), 4, "every drag reached the simulator");
    for (r, d) in reports.iter().zip(&drags) {
        let Move::Drag(path) = &r.mv else {
            panic!("move {} is not a drag: {}", r.index, r.mv);
        };
        assert_eq!(
            path, &d.path,
            "move {}: the simulator saw the planned path",
            r.index
        );
        assert_eq!(
            r.reward, d.combos as i64,
            "move {}: combos as predicted",
            r.index
        );
        assert!(
            d.combos >= 3,
            "move {}: a random 5x6 board allows 3+ combos",
            r.index
        );
        assert_eq!(
            r.expected,
            d.after.to_string(),
            "move {}: board as predicted",
            r.index
        );
    }
}
