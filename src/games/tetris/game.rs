//! Whole games without a screen: seeded piece generators and a game runner.
//!
//! The piece sequence of a game depends only on the generator kind and its
//! seed ([`game_seed`] derives one per game from a run seed and the game's
//! index), never on the player, so every evaluator faces the same pieces.
//! Pure: no clock; a run is bounded by a piece cap instead of time.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::field::Field;
use super::movegen::MoveGen;
use super::piece::Piece;
use super::search::Player;
use super::TetrisError;

pub use crate::rng::SplitMix64;

/// The seed of game `index` of a run seeded with `seed`.
pub fn game_seed(seed: u64, index: u64) -> u64 {
    SplitMix64::new(seed ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03)).next_u64()
}

/// How pieces are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Randomizer {
    /// Each piece uniformly at random, independently.
    #[default]
    Uniform,
    /// The seven pieces in a shuffled bag, bag after bag.
    Bag,
}

/// A seeded piece generator.
#[derive(Debug, Clone)]
pub struct PieceGen {
    rng: SplitMix64,
    kind: Randomizer,
    bag: [Piece; 7],
    left: usize,
}

impl PieceGen {
    pub fn new(kind: Randomizer, seed: u64) -> Self {
        PieceGen {
            rng: SplitMix64::new(seed),
            kind,
            bag: Piece::ALL,
            left: 0,
        }
    }

    /// The next piece.
    #[inline]
    pub fn next_piece(&mut self) -> Piece {
        match self.kind {
            Randomizer::Uniform => Piece::ALL[self.rng.below(7)],
            Randomizer::Bag => {
                if self.left == 0 {
                    self.bag = Piece::ALL;
                    for i in (1..7).rev() {
                        let j = self.rng.below(i + 1);
                        self.bag.swap(i, j);
                    }
                    self.left = 7;
                }
                self.left -= 1;
                self.bag[6 - self.left]
            }
        }
    }
}

/// The shape of a run of games.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameSetup {
    pub width: usize,
    pub height: usize,
    pub randomizer: Randomizer,
    /// Stop a game after this many pieces (it then counts as not topped out).
    pub max_pieces: Option<u64>,
}

/// How one game went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct GameResult {
    pub lines: u64,
    pub pieces: u64,
    /// False when the game was stopped by the piece cap.
    pub topped_out: bool,
    /// Placements evaluated.
    pub nodes: u64,
}

/// Plays one game from an empty field with the pieces of `seed`.
pub fn play_game(
    gen: &MoveGen,
    player: &mut Player,
    setup: &GameSetup,
    seed: u64,
) -> Result<GameResult, TetrisError> {
    let mut pieces = PieceGen::new(setup.randomizer, seed);
    let mut queue: VecDeque<Piece> = VecDeque::new();
    let ahead = player.params.preview;
    let mut field = Field::new(setup.width, setup.height)?;
    let mut res = GameResult {
        lines: 0,
        pieces: 0,
        topped_out: true,
        nodes: 0,
    };
    let mut next = Vec::with_capacity(ahead);
    loop {
        if setup.max_pieces.is_some_and(|m| res.pieces >= m) {
            res.topped_out = false;
            break;
        }
        while queue.len() < ahead + 1 {
            queue.push_back(pieces.next_piece());
        }
        let Some(piece) = queue.pop_front() else {
            break;
        };
        next.clear();
        next.extend(queue.iter().copied());
        let Some(d) = player.choose(gen, &field, piece, &next) else {
            break;
        };
        field = d.field;
        res.lines += d.lines as u64;
        res.pieces += 1;
        res.nodes += d.nodes;
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generators_are_seeded_and_fair() {
        let a: Vec<Piece> = {
            let mut g = PieceGen::new(Randomizer::Uniform, 7);
            (0..50).map(|_| g.next_piece()).collect()
        };
        let mut g = PieceGen::new(Randomizer::Uniform, 7);
        assert!(a.iter().all(|&p| p == g.next_piece()));
        let mut counts = [0usize; 7];
        let mut g = PieceGen::new(Randomizer::Uniform, 1);
        for _ in 0..70_000 {
            counts[g.next_piece().index()] += 1;
        }
        assert!(
            counts.iter().all(|&c| (9_400..10_600).contains(&c)),
            "{counts:?}"
        );
        let mut g = PieceGen::new(Randomizer::Bag, 3);
        for _ in 0..5 {
            let mut bag: Vec<Piece> = (0..7).map(|_| g.next_piece()).collect();
            bag.sort();
            assert_eq!(bag, Piece::ALL.to_vec());
        }
        assert_ne!(game_seed(1, 0), game_seed(1, 1));
    }
}
