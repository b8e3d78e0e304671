//! The orb-drag family (Puzzle & Dragons, Tower of Saviors): rules and the
//! path solver, and [`Pad`], the family as a [`Game`].

pub mod rules;
pub mod solver;

pub use rules::{Combo, Geometry, Orbs, Resolution};
pub use solver::{solve, solve_anytime, Objective, PadParams, PadSolution, Rank};

use crate::act::Move;
use crate::board::{Board, Cell};
use crate::games::{Budget, Game, GameError, SearchStats, Solution};

/// Orb-drag as a [`Game`]: one move is one drag path.
#[derive(Debug, Clone, Default)]
pub struct Pad {
    pub params: PadParams,
}

impl Pad {
    fn orbs(board: &Board) -> Result<(Geometry, Orbs), GameError> {
        if board.unknown_count() > 0 {
            return Err(GameError::Unread(board.unknown_count()));
        }
        Orbs::from_board(board).ok_or(GameError::TooLarge {
            rows: board.rows(),
            cols: board.cols(),
            max_rows: 7,
            max_cols: 7,
        })
    }

    /// The cells of a path as board cells.
    pub fn path_cells(g: &Geometry, path: &[usize]) -> Vec<Cell> {
        path.iter()
            .map(|&i| Cell::new(i / g.cols, i % g.cols))
            .collect()
    }

    /// The full answer for a board: the solver's result with its path.
    pub fn search(&self, board: &Board, budget: &Budget) -> Result<PadSolution, GameError> {
        let (g, o) = Self::orbs(board)?;
        Ok(match budget.width {
            Some(w) => solve(
                &g,
                &o,
                &PadParams {
                    width: w,
                    ..self.params.clone()
                },
                budget.stop,
            ),
            // The clock decides how wide the beam gets.
            None => solve_anytime(
                &g,
                &o,
                &PadParams {
                    width: 1 << 17,
                    ..self.params.clone()
                },
                200,
                budget.stop,
            ),
        })
    }
}

impl Game for Pad {
    fn name(&self) -> &'static str {
        "pad"
    }

    fn solve(&self, board: &Board, budget: &Budget) -> Result<Solution, GameError> {
        let (g, o) = Self::orbs(board)?;
        // The search expands wide rounds on rayon's pool: honour the thread
        // count asked for (0: the global pool, every core).
        let want = budget.threads;
        let own_pool = (want > 0 && want != rayon::current_num_threads())
            .then(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(want)
                    .build()
                    .ok()
            })
            .flatten();
        let s = match own_pool {
            Some(pool) => pool.install(|| self.search(board, budget))?,
            None => self.search(board, budget)?,
        };
        let after = o.dragged(&s.path).resolve(&g).after.to_board(&g);
        Ok(Solution {
            moves: vec![Move::Drag(Self::path_cells(&g, &s.path))],
            boards: vec![after],
            rewards: vec![s.combos as i64],
            score: s.combos as i64,
            stats: SearchStats {
                nodes: s.nodes,
                width: budget.width.unwrap_or(self.params.width),
                passes: s.depth as u32,
            },
        })
    }

    /// The board after the drag and its cascades; the reward is the combos.
    fn apply(&self, board: &Board, mv: &Move) -> Result<(Board, i64), GameError> {
        let (g, o) = Self::orbs(board)?;
        let Move::Drag(cells) = mv else {
            return Err(GameError::IllegalMove(mv.clone()));
        };
        let mut path = Vec::with_capacity(cells.len());
        for (k, c) in cells.iter().enumerate() {
            if c.row >= g.rows || c.col >= g.cols {
                return Err(GameError::IllegalMove(mv.clone()));
            }
            if let Some(prev) = k.checked_sub(1).map(|j| cells[j]) {
                let (dr, dc) = (c.row.abs_diff(prev.row), c.col.abs_diff(prev.col));
                let step_ok = dr <= 1 && dc <= 1 && dr + dc > 0;
                let diag_ok = self.params.diagonals || dr + dc == 1;
                if !step_ok || !diag_ok {
                    return Err(GameError::IllegalMove(mv.clone()));
                }
            }
            path.push(c.row * g.cols + c.col);
        }
        let r = o.dragged(&path).resolve(&g);
        Ok((r.after.to_board(&g), r.combos.len() as i64))
    }

    /// Drag paths are not enumerated (there are too many); the solver
    /// searches them.
    fn legal_moves(&self, _board: &Board) -> Vec<Move> {
        Vec::new()
    }

    /// Without refill, a board is never over: the next turn brings new orbs.
    fn is_over(&self, _board: &Board) -> bool {
        false
    }

    fn final_bonus(&self, _board: &Board) -> i64 {
        0
    }

    fn refills(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apply_checks_steps_and_counts_combos() {
        let b: Board = "001/120/213".parse().expect("a board");
        let pad = Pad::default();
        // The 0 at (1,2) moves up: 000 in the top row.
        let up = Move::Drag(vec![Cell::new(1, 2), Cell::new(0, 2)]);
        let (after, combos) = pad.apply(&b, &up).expect("legal");
        assert_eq!((after.to_string(), combos), (".../121/213".to_string(), 1));
        // A diagonal step needs --diagonals.
        let diag = Move::Drag(vec![Cell::new(1, 1), Cell::new(0, 0)]);
        assert!(pad.apply(&b, &diag).is_err());
        let pad8 = Pad {
            params: PadParams {
                diagonals: true,
                ..PadParams::default()
            },
        };
        assert!(pad8.apply(&b, &diag).is_ok());
        // Not a neighbour.
        let jump = Move::Drag(vec![Cell::new(0, 0), Cell::new(2, 2)]);
        assert!(pad8.apply(&b, &jump).is_err());
    }
}
