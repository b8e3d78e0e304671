//! Game families: pure rules and solvers behind one [`Game`] trait.
//!
//! Nothing here reads the clock, sleeps or does I/O: a search is bounded by a
//! [`Budget`] whose [`Stop`] check the caller provides (the loop and the CLI pass
//! a wall-clock deadline; tests pass node or width limits), which keeps solver
//! results exactly reproducible.

pub mod collapse;
pub mod match3;
pub mod pad;
pub mod tetris;

use serde::Serialize;

use crate::act::Move;
use crate::board::Board;

/// Asked now and then by a search; `true` means "return your best so far".
pub trait Stop: Sync {
    fn should_stop(&self) -> bool;
    /// How much of the budget is spent, 0 to 1, when the budget is a quantity
    /// (a deadline); searches use it to size their last pass to fit.
    fn spent(&self) -> Option<f64> {
        None
    }
}

/// Never stops: the search ends on its width or node limits alone.
#[derive(Debug, Clone, Copy, Default)]
pub struct NeverStop;

impl Stop for NeverStop {
    fn should_stop(&self) -> bool {
        false
    }
}

/// What a search may spend.
#[derive(Clone, Copy)]
pub struct Budget<'a> {
    /// Checked between units of work (wall clock in the CLI).
    pub stop: &'a dyn Stop,
    /// A deterministic cap on the search width (family-specific meaning).
    pub width: Option<usize>,
    /// A deterministic cap on expanded nodes.
    pub nodes: Option<u64>,
    /// Worker threads the search may use (1 = single-threaded, deterministic).
    pub threads: usize,
}

impl<'a> Budget<'a> {
    /// A budget bounded only by a width limit: fully deterministic.
    pub fn width(width: usize) -> Budget<'static> {
        Budget {
            stop: &NeverStop,
            width: Some(width),
            nodes: None,
            threads: 1,
        }
    }
}

/// Search statistics reported with a solution.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SearchStats {
    /// Children generated.
    pub nodes: u64,
    /// The widest search that completed.
    pub width: usize,
    /// Completed search passes.
    pub passes: u32,
}

/// A solver's answer: the moves, the board expected after each, the score.
#[derive(Debug, Clone)]
pub struct Solution {
    pub moves: Vec<Move>,
    /// `boards[i]` is the board expected after `moves[i]`.
    pub boards: Vec<Board>,
    /// Points earned by each move (the final bonus is not in here).
    pub rewards: Vec<i64>,
    /// Total predicted score including any end-of-game bonus.
    pub score: i64,
    pub stats: SearchStats,
}

/// Errors of the rules and solvers.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum GameError {
    #[error(
        "unknown game {0:?} (known: popstar, samegame or collapse, match3 or swap, gweled, pad or orb-drag)"
    )]
    UnknownGame(String),
    #[error("board has {0} unread cells; refusing to act on it")]
    Unread(usize),
    #[error("board is {rows}x{cols}; this game supports at most {max_rows}x{max_cols}")]
    TooLarge {
        rows: usize,
        cols: usize,
        max_rows: usize,
        max_cols: usize,
    },
    #[error("bad solver parameters {0:?}")]
    BadParams(String),
    #[error("illegal move {0:?}")]
    IllegalMove(Move),
    #[error("cell at row {row}, column {col} floats above an empty cell or column")]
    Floating { row: usize, col: usize },
    #[error("invalid cell value {value} at row {row}, column {col}")]
    BadCell { row: usize, col: usize, value: u8 },
}

/// One game (a family plus its variant rules), as the loop and the CLI see it.
pub trait Game: Send + Sync {
    /// The `--game` name.
    fn name(&self) -> &'static str;
    /// Searches for the best line of play from `board`.
    fn solve(&self, board: &Board, budget: &Budget) -> Result<Solution, GameError>;
    /// Plays one move: the board after it and the points it earns.
    fn apply(&self, board: &Board, mv: &Move) -> Result<(Board, i64), GameError>;
    /// Every legal move on `board` (one per distinct result where the family
    /// can tell), used to explain a board that differs from the prediction.
    fn legal_moves(&self, board: &Board) -> Vec<Move>;
    /// True when no move is left.
    fn is_over(&self, board: &Board) -> bool;
    /// Points added when the game ends on `board`.
    fn final_bonus(&self, board: &Board) -> i64;

    /// True when new pieces the rules cannot predict come in after a move
    /// (orb-drag refills from above): the loop then does not check the
    /// board after a move against the prediction.
    fn refills(&self) -> bool {
        false
    }
}

/// The `--game` name behind a name a user may type: the game names
/// themselves, their family names and the real games they stand for
/// (`collapse`/`swell-foop` → `samegame`, `swap` → `match3`,
/// `orb-drag`/`tos` → `pad`, `falling`/`quadrapassel` → `tetris`,
/// `packing` → `chips`), in any case. Other names pass unchanged, to be
/// refused where they are used.
pub fn canonical_name(name: &str) -> String {
    let lower = name.trim().to_ascii_lowercase().replace('_', "-");
    let canonical = match lower.as_str() {
        "collapse" | "swell-foop" | "swellfoop" | "same-game" | "ksame" => "samegame",
        "swap" | "match-3" => "match3",
        "orb-drag" | "orbdrag" | "puzzle-and-dragons" | "tos" | "tower-of-saviors" => "pad",
        "falling" | "quadrapassel" => "tetris",
        "packing" => "chips",
        other => other,
    };
    canonical.to_string()
}

/// The game behind a `--game` name.
pub fn by_name(name: &str) -> Result<Box<dyn Game>, GameError> {
    match canonical_name(name).as_str() {
        "popstar" => Ok(Box::new(collapse::Collapse::new(
            collapse::Scoring::PopStar,
        ))),
        "samegame" => Ok(Box::new(collapse::Collapse::new(
            collapse::Scoring::SameGame,
        ))),
        "match3" => Ok(Box::new(match3::Match3::new())),
        "gweled" => Ok(Box::new(
            match3::Match3::new().with_scoring(match3::Scoring::gweled(1)),
        )),
        "pad" => Ok(Box::new(pad::Pad::default())),
        _ => Err(GameError::UnknownGame(name.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn family_and_program_names_reach_their_game() {
        for (typed, game) in [
            ("collapse", "samegame"),
            ("Swell-Foop", "samegame"),
            ("swell_foop", "samegame"),
            ("popstar", "popstar"),
            ("swap", "match3"),
            ("gweled", "gweled"),
            ("orb-drag", "pad"),
            ("TOS", "pad"),
            ("falling", "tetris"),
            ("Quadrapassel", "tetris"),
            ("packing", "chips"),
            ("nonsense", "nonsense"),
        ] {
            assert_eq!(canonical_name(typed), game, "{typed}");
        }
        assert_eq!(by_name("collapse").map(|g| g.name()), Ok("samegame"));
        assert_eq!(by_name("orb-drag").map(|g| g.name()), Ok("pad"));
        assert_eq!(
            by_name("nonsense").map(|g| g.name()),
            Err(GameError::UnknownGame("nonsense".into()))
        );
    }
}
