//! A board-level match-3 simulator with random refill, for `play --game match3 --sim`.
//!
//! It holds the true board and its own seeded refill generator, which the
//! player never sees: the player gets the board (no holes) and plays swaps;
//! refill gems are drawn uniformly from the simulator's colours, so refills
//! can start cascades the player's model could not predict. The game is over
//! when no swap is legal (as in Gweled's normal mode). Deterministic for a
//! seed; it draws no pixels (the screen-level loop is the lead's next step).

use crate::board::Board;
use crate::games::match3::live::{RandomRefill, SplitMix64};
use crate::games::match3::{MBoard, NoRefill, Outcome, Scoring, Swap};
use crate::games::GameError;

/// The simulated game.
#[derive(Debug, Clone)]
pub struct Match3Sim<const N: usize> {
    board: MBoard<N>,
    rng: SplitMix64,
    colours: Vec<u8>,
    scoring: Scoring,
    score: i64,
    moves: usize,
}

impl<const N: usize> Match3Sim<N> {
    /// A random stable board (no line, at least one legal swap) of `rows` x
    /// `cols` with colours `1..=colours`.
    pub fn new(
        rows: usize,
        cols: usize,
        colours: u8,
        seed: u64,
        scoring: Scoring,
    ) -> Result<Self, GameError> {
        if !(3..=9).contains(&colours) {
            return Err(GameError::BadParams(format!(
                "{colours} colours (3 to 9 supported)"
            )));
        }
        if rows * cols > N || rows < 3 && cols < 3 {
            return Err(GameError::BadParams(format!("board {rows}x{cols}")));
        }
        let colours: Vec<u8> = (1..=colours).collect();
        let mut rng = SplitMix64::new(seed);
        for _ in 0..1000 {
            let mut cells = Vec::with_capacity(rows * cols);
            for r in 0..rows {
                for c in 0..cols {
                    // Re-draw a gem that would complete a line to its left or above.
                    loop {
                        let v = colours[rng.below(colours.len())];
                        let left =
                            c >= 2 && cells[r * cols + c - 1] == v && cells[r * cols + c - 2] == v;
                        let up = r >= 2
                            && cells[(r - 1) * cols + c] == v
                            && cells[(r - 2) * cols + c] == v;
                        if !left && !up {
                            cells.push(v);
                            break;
                        }
                    }
                }
            }
            let board = MBoard::from_board(&Board::from_cells(rows, cols, cells))?;
            let mut v = Vec::new();
            board.swaps(&mut v);
            if !v.is_empty() {
                return Ok(Match3Sim {
                    board,
                    rng,
                    colours,
                    scoring,
                    score: 0,
                    moves: 0,
                });
            }
        }
        Err(GameError::BadParams(format!(
            "no playable {rows}x{cols} board found"
        )))
    }

    /// The board as the player sees it.
    pub fn board(&self) -> Board {
        self.board.to_board()
    }

    pub fn score(&self) -> i64 {
        self.score
    }

    pub fn moves(&self) -> usize {
        self.moves
    }

    /// No legal swap left.
    pub fn is_over(&self) -> bool {
        let mut v = Vec::new();
        self.board.swaps(&mut v);
        v.is_empty()
    }

    /// Plays a swap with random refill; `IllegalMove`-style error when illegal.
    pub fn play(&mut self, s: Swap) -> Option<Outcome> {
        let o = self.board.apply(
            s,
            &self.scoring,
            &mut RandomRefill {
                rng: &mut self.rng,
                colours: &self.colours,
            },
        )?;
        // A refill can never leave a line behind: resolve() runs to stability.
        debug_assert_eq!(self.board.resolve(&self.scoring, &mut NoRefill).cells, 0);
        self.score += o.points;
        self.moves += 1;
        Some(o)
    }
}
