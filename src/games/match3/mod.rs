//! The swap family (match-3: Bejeweled-like, Gweled) as a [`Game`].
//!
//! `rules` holds the board and the cascade, `solver` the exact planner over X
//! swaps with no refill, `live` the policy for play with unknown refill. The
//! fast board has a fixed capacity; [`with_board!`](crate::with_board) picks the smallest of 64,
//! 256 or 1024 cells that holds the board (8x8 runs on the 64-cell one).

pub mod explain;
pub mod live;
pub mod rules;
pub mod solver;
pub mod verify;

pub use live::{choose, Choice, Policy, PolicyParams};
pub use rules::{MBoard, NoRefill, Outcome, Scoring, Swap, HOLE};
pub use solver::{plan, Plan, PlanParams};

use crate::act::Move;
use crate::board::Board;
use crate::games::{Budget, Game, GameError, SearchStats, Solution};

/// Largest board the fast representation takes (cells).
pub const MAX_CELLS: usize = 1024;

/// Runs `$body` with `$m` bound to the board converted to the smallest
/// fitting `MBoard<N>`; evaluates to `Err(GameError::TooLarge)` when none fits.
#[macro_export]
macro_rules! with_board {
    ($board:expr, $m:ident => $body:expr) => {{
        let __b: &$crate::board::Board = $board;
        let __n = __b.rows() * __b.cols();
        if __n <= 64 {
            $crate::games::match3::MBoard::<64>::from_board(__b).map(|$m| $body)
        } else if __n <= 256 {
            $crate::games::match3::MBoard::<256>::from_board(__b).map(|$m| $body)
        } else {
            $crate::games::match3::MBoard::<1024>::from_board(__b).map(|$m| $body)
        }
    }};
}

/// A match-3 game: its scoring and how many swaps `solve` plans.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Match3 {
    pub scoring: Scoring,
    pub params: PlanParams,
}

impl Match3 {
    /// Cells-cleared scoring, 3 swaps planned.
    pub fn new() -> Self {
        Match3 {
            scoring: Scoring::CELLS,
            params: PlanParams::exact(3),
        }
    }

    pub fn with_swaps(mut self, swaps: usize) -> Self {
        self.params.swaps = swaps;
        self
    }

    pub fn with_scoring(mut self, scoring: Scoring) -> Self {
        self.scoring = scoring;
        self
    }
}

impl Default for Match3 {
    fn default() -> Self {
        Match3::new()
    }
}

/// The shared-board form of a plan.
fn to_solution<const N: usize>(p: Plan<N>, cols: usize) -> Solution {
    Solution {
        moves: p
            .swaps
            .iter()
            .map(|s| {
                let (a, b) = s.cells(cols);
                Move::Swap(a, b)
            })
            .collect(),
        boards: p.boards.iter().map(|b| b.to_board()).collect(),
        rewards: p.rewards,
        score: p.score,
        stats: SearchStats {
            nodes: p.nodes,
            width: 0,
            passes: u32::from(p.exact),
        },
    }
}

/// The swap a move names on `board`, if it is one.
fn swap_of(board: &Board, mv: &Move) -> Option<Swap> {
    match mv {
        Move::Swap(x, y) => Swap::from_cells(*x, *y, board.rows(), board.cols()),
        _ => None,
    }
}

impl Game for Match3 {
    fn name(&self) -> &'static str {
        "match3"
    }

    /// The exact plan; `stats.passes` is 1 when proven optimal, 0 when the
    /// budget stopped it first.
    fn solve(&self, board: &Board, budget: &Budget) -> Result<Solution, GameError> {
        if board.rows() * board.cols() > MAX_CELLS {
            return Err(too_large(board));
        }
        with_board!(board, m => to_solution(plan(&m, &self.scoring, &self.params, budget), board.cols()))
    }

    fn apply(&self, board: &Board, mv: &Move) -> Result<(Board, i64), GameError> {
        if board.rows() * board.cols() > MAX_CELLS {
            return Err(too_large(board));
        }
        let s = swap_of(board, mv).ok_or_else(|| GameError::IllegalMove(mv.clone()))?;
        let r = with_board!(board, m => {
            let mut m = m;
            m.apply(s, &self.scoring, &mut NoRefill).map(|o| (m.to_board(), o.points))
        })?;
        r.ok_or_else(|| GameError::IllegalMove(mv.clone()))
    }

    fn legal_moves(&self, board: &Board) -> Vec<Move> {
        if board.rows() * board.cols() > MAX_CELLS {
            return Vec::new();
        }
        with_board!(board, m => {
            let mut v = Vec::new();
            m.swaps(&mut v);
            v.into_iter()
                .map(|s| {
                    let (a, b) = s.cells(board.cols());
                    Move::Swap(a, b)
                })
                .collect()
        })
        .unwrap_or_default()
    }

    fn is_over(&self, board: &Board) -> bool {
        self.legal_moves(board).is_empty()
    }

    fn final_bonus(&self, _board: &Board) -> i64 {
        0
    }
}

fn too_large(board: &Board) -> GameError {
    GameError::TooLarge {
        rows: board.rows(),
        cols: board.cols(),
        max_rows: 255,
        max_cols: 255,
    }
}

/// The live policy's choice on a shared board, as a move with its swap.
pub fn choose_move(
    board: &Board,
    scoring: &Scoring,
    policy: &Policy,
) -> Result<Option<(Move, Choice)>, GameError> {
    if board.rows() * board.cols() > MAX_CELLS {
        return Err(too_large(board));
    }
    with_board!(board, m => choose(&m, scoring, policy).map(|c| {
        let (a, b) = c.swap.cells(board.cols());
        (Move::Swap(a, b), c)
    }))
}
