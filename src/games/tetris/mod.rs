//! The falling family (Tetris): a bitboard engine, placements with key
//! scripts, evaluation as data, lookahead search, seeded games and tuning.
//!
//! Layers, each pure (no clock, no I/O):
//! - [`piece`]: the seven tetrominoes and a pluggable [`RotationSystem`]
//!   (a table of rotation states plus spawn columns), compiled to [`Shapes`];
//! - [`field`]: the [`Field`] bitboard (`u16` rows, row 0 at the bottom);
//! - [`movegen`]: every [`Placement`] of a piece with the [`Script`] of
//!   abstract [`TetrisKey`]s that reaches it, and the [`KeyMap`] to the
//!   crate's `act::Key`s;
//! - [`eval`]: features split into Reward and Value, weights as serde data
//!   with named presets ([`Eval::preset`]);
//! - [`search`]: the [`Player`] (one piece, or a pruned lookahead over the
//!   preview);
//! - [`game`]: seeded piece generators and whole games for the bench;
//! - [`tune`]: the cross-entropy method over the weights.
//!
//! A screen-reading player builds one [`MoveGen`] per rotation system and
//! field size, reads the field into a [`Field`], asks a [`Player`] for a
//! [`Decision`], sends its script through a [`KeyMap`] and checks that the
//! piece landed where [`Placement::cells`] says.

pub mod eval;
pub mod fast;
pub mod field;
pub mod game;
pub mod learn;
pub mod model;
pub mod movegen;
pub mod piece;
pub mod search;
pub mod tune;

pub use eval::{Eval, TieBreak, Weights};
pub use field::Field;
pub use game::{play_game, GameResult, GameSetup, PieceGen, Randomizer};
pub use model::{play_game_with, Model};
pub use movegen::{KeyMap, MoveGen, MoveRules, Placement, Script, TetrisKey};
pub use piece::{Piece, RotationSystem, Shapes};
pub use search::{Decision, Player, SearchParams};

/// Errors of the Tetris engine.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TetrisError {
    #[error("field {width}x{height} is not supported (width 4 to 16, height 1 to 48)")]
    BadSize { width: usize, height: usize },
    #[error("the board has {0} unread cells")]
    Unread(usize),
    #[error("unknown {kind} {name:?} (known: {known})")]
    UnknownPreset {
        kind: &'static str,
        name: String,
        known: &'static str,
    },
    #[error("bad rotation system: {0}")]
    BadRotationSystem(String),
    #[error("bad evaluator: {0}")]
    BadEval(String),
    #[error("placement {0:?} does not fit on the field")]
    BadPlacement(Placement),
    #[error("bad tuning settings: {0}")]
    BadTuning(String),
    #[error("the key map has no key for {0:?}")]
    NoKey(TetrisKey),
}

/// A move generator for the standard rules on a `width` x `height` field:
/// the given rotation system, both rotation keys, no slides.
pub fn standard(rs: &RotationSystem, width: usize, height: usize) -> Result<MoveGen, TetrisError> {
    MoveGen::new(Shapes::new(rs, width)?, MoveRules::default(), width, height)
}
