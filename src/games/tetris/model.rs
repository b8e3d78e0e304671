//! Game models: which placements a piece has and when the game is over.
//!
//! Published Tetris-controller figures depend as much on these rules as on
//! the evaluator (on a 10x10 field the Dellacherie preset makes ~250 mean
//! lines under one rule set and ~2,500 under another), so the bench names
//! the model it plays:
//!
//! - [`Model::Reach`] (the default, what the live bot plays): the piece
//!   appears at the top in its spawn state ([`super::Shapes::spawn_top`]),
//!   is turned and moved there and hard-dropped ([`MoveGen`]: a breadth-first
//!   search when the stack reaches the spawn rows); placements must end
//!   inside the field; the game is over when no placement is left.
//! - [`Model::Fahey`]: Colin Fahey's "Standard Tetris" (2003), the game in
//!   which Dellacherie's controller was measured at ~660,000 lines on 10x20.
//!   Pieces are Fahey's (origin-based, [`RotationSystem::fahey`]); a piece
//!   spawns with its origin in the top row, column `1 + w/2` (1-based), in
//!   orientation 1, and the game is over when those cells are taken. The
//!   controller looks at the piece one row lower (Fahey's game lets it fall
//!   one row before asking the AI): for each number of turns it takes the
//!   turned piece there and every horizontal shift reachable from the middle
//!   without leaving the field or overlapping the stack (Fahey's
//!   `DetermineAccessibleTranslationsForPieceOrientation`), drops it and
//!   scores it; ties go to Dellacherie's priority
//!   (`100 |dx| + 10 (dx < 0) - turns`). No placement: game over.
//! - [`Model::Drop`]: the reinforcement-learning literature's game (Bertsekas
//!   & Tsitsiklis 1996; Thiery & Scherrer's MdpTetris): every rotation and
//!   column, dropped from above the field, whatever is in the way at the
//!   top; a placement must end inside the field; no placement: game over.
//!
//! Pure and deterministic, like [`super::game`].

use serde::{Deserialize, Serialize};

use super::fast::{self, ColumnBase, Drops};
use super::field::Field;
use super::game::{GameResult, GameSetup, PieceGen};
use super::movegen::MoveGen;
use super::piece::{Piece, RotationSystem, Shapes};
use super::search::Player;
use super::TetrisError;

/// The rules a game is played by (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Model {
    /// Moves and turns at the top, then a hard drop ([`MoveGen`]).
    #[default]
    Reach,
    /// Colin Fahey's Standard Tetris.
    Fahey,
    /// Every rotation and column dropped from above the field.
    Drop,
}

impl Model {
    pub const NAMES: &'static str = "reach, fahey, drop";

    pub fn from_name(name: &str) -> Result<Self, TetrisError> {
        match name {
            "reach" => Ok(Model::Reach),
            "fahey" => Ok(Model::Fahey),
            "drop" => Ok(Model::Drop),
            _ => Err(TetrisError::UnknownPreset {
                kind: "game model",
                name: name.to_string(),
                known: Model::NAMES,
            }),
        }
    }
}

/// Plays one game under `model`. [`Model::Reach`] is
/// [`super::play_game`] (with `gen`, lookahead as the player says);
/// the other models use only the player's evaluator, one piece at a time,
/// with their own shapes ([`Model::Fahey`]: Fahey's pieces; [`Model::Drop`]:
/// `gen`'s, every distinct shape once).
pub fn play_game_with(
    model: Model,
    gen: &MoveGen,
    player: &mut Player,
    setup: &GameSetup,
    seed: u64,
) -> Result<GameResult, TetrisError> {
    match model {
        Model::Reach => super::game::play_game(gen, player, setup, seed),
        Model::Fahey => {
            let shapes = Shapes::new(&RotationSystem::fahey(), setup.width)?;
            play_simple(&shapes, true, player, setup, seed)
        }
        Model::Drop => play_simple(&gen.shapes, false, player, setup, seed),
    }
}

/// One candidate: state, box column shift from spawn, leftmost column.
#[derive(Clone, Copy)]
struct Cand {
    state: u8,
    bx: i32,
    x: usize,
}

fn play_simple(
    shapes: &Shapes,
    fahey: bool,
    player: &Player,
    setup: &GameSetup,
    seed: u64,
) -> Result<GameResult, TetrisError> {
    let mut field = Field::new(setup.width, setup.height)?;
    let h = setup.height as i32;
    let mut pieces = PieceGen::new(setup.randomizer, seed);
    let mut res = GameResult {
        lines: 0,
        pieces: 0,
        topped_out: true,
        nodes: 0,
    };
    // Drop model: each distinct shape of each piece once, in state order.
    let drop_states: Vec<Vec<u8>> = Piece::ALL
        .iter()
        .map(|&p| {
            let mut seen = [false; 4];
            let mut v = Vec::new();
            for (i, st) in shapes.of(p).iter().enumerate() {
                if !seen[st.shape as usize] {
                    seen[st.shape as usize] = true;
                    v.push(i as u8);
                }
            }
            v
        })
        .collect();
    let mut cands: Vec<Cand> = Vec::with_capacity(64);
    // The field's column terms, kept up to date piece by piece.
    let mut base = ColumnBase::new(&field, player.eval.extended());
    loop {
        if setup.max_pieces.is_some_and(|m| res.pieces >= m) {
            res.topped_out = false;
            break;
        }
        let piece = pieces.next_piece();
        let states = shapes.of(piece);
        let spawn_x = shapes.spawn_x[piece.index()];
        cands.clear();
        if fahey {
            // Inside the field and free: the box at column bx, top row `top`.
            let inside = |s: usize, bx: i32, top: i32| {
                let st = &states[s];
                let x = bx + st.left as i32;
                let y = top - st.bottom as i32;
                y + st.h as i32 <= h && field.fits(st, x, y)
            };
            let top0 = shapes.spawn_top(piece, setup.height);
            if !inside(0, spawn_x, top0) {
                break;
            }
            let top = top0 - 1;
            // With nothing in the rows a piece can touch up there, the walls
            // alone bound the shifts (the common case: no collision checks).
            let low = (top - 3).max(0) as usize;
            let open = field.rows()[low..setup.height].iter().all(|&r| r == 0);
            let w = setup.width as i32;
            for (s, st) in states.iter().enumerate() {
                let (lo, hi) = if open {
                    let (lo, hi) = (-(st.left as i32), w - st.w as i32 - st.left as i32);
                    let y = top - st.bottom as i32;
                    if spawn_x < lo || spawn_x > hi || y < 0 || y + st.h as i32 > h {
                        continue;
                    }
                    (lo, hi)
                } else {
                    if !inside(s, spawn_x, top) {
                        continue;
                    }
                    let mut lo = spawn_x;
                    while inside(s, lo - 1, top) {
                        lo -= 1;
                    }
                    let mut hi = spawn_x;
                    while inside(s, hi + 1, top) {
                        hi += 1;
                    }
                    (lo, hi)
                };
                for bx in lo..=hi {
                    cands.push(Cand {
                        state: s as u8,
                        bx,
                        x: (bx + st.left as i32) as usize,
                    });
                }
            }
        } else {
            for &s in &drop_states[piece.index()] {
                let st = &states[s as usize];
                for x in 0..=(setup.width - st.w as usize) {
                    cands.push(Cand {
                        state: s,
                        bx: x as i32 - st.left as i32,
                        x,
                    });
                }
            }
        }
        #[cfg(target_arch = "x86_64")]
        let chosen = if fast::has_popcnt() {
            // SAFETY: the CPU has the features (checked just above).
            unsafe { best_of_popcnt(shapes, fahey, player, &field, &base, piece, &cands) }
        } else {
            best_of(shapes, fahey, player, &field, &base, piece, &cands)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let chosen = best_of(shapes, fahey, player, &field, &base, piece, &cands);
        let Some((c, y, nodes)) = chosen else {
            break;
        };
        let cleared = field.lock(&states[c.state as usize], c.x, y);
        base.place(&states[c.state as usize], c.x, y, cleared);
        res.lines += cleared.count_ones() as u64;
        res.pieces += 1;
        res.nodes += nodes;
    }
    Ok(res)
}

/// [`best_of`] compiled with hardware bit counts.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,lzcnt,bmi1")]
unsafe fn best_of_popcnt(
    shapes: &Shapes,
    fahey: bool,
    player: &Player,
    field: &Field,
    base: &ColumnBase,
    piece: Piece,
    cands: &[Cand],
) -> Option<(Cand, usize, u64)> {
    best_of(shapes, fahey, player, field, base, piece, cands)
}

/// The best candidate (score, then priority, then order) and its landing row.
#[inline(always)]
fn best_of(
    shapes: &Shapes,
    fahey: bool,
    player: &Player,
    field: &Field,
    base: &ColumnBase,
    piece: Piece,
    cands: &[Cand],
) -> Option<(Cand, usize, u64)> {
    let states = shapes.of(piece);
    let h = field.height();
    let spawn_x = shapes.spawn_x[piece.index()];
    let top = shapes.spawn_top(piece, h) - 1;
    let mut best: Option<(f32, i32, Cand, usize)> = None;
    let mut nodes = 0;
    // Candidates come state by state; the drops of a state are worked out once.
    let mut drops: Option<(u8, Drops)> = None;
    for &c in cands {
        let st = &states[c.state as usize];
        let mut y = base.landing_row(st, c.x);
        let mut from_above = true;
        if fahey {
            // Dropped from one row below the spawn: a cell of the stack above
            // that position (under an overhang) stops it by collision.
            let start = top - st.bottom as i32;
            if y as i32 > start {
                y = field.drop_from(st, c.x as i32, start) as usize;
                from_above = false;
            }
        }
        if y + st.h as usize > h {
            continue;
        }
        let score = if from_above {
            // The common case: the fast drop scorer (same value, bit for bit).
            if drops.as_ref().is_none_or(|(s, _)| *s != c.state) {
                drops = Some((c.state, base.drops(st)));
            }
            let Some((_, d)) = drops.as_ref() else {
                continue;
            };
            match base.drop_score(&player.eval, field, st, d, c.x) {
                Some((score, _)) => score,
                None => continue,
            }
        } else {
            base.score(&player.eval, field, st, c.x, y).0
        };
        nodes += 1;
        // The priority breaks ties only: worked out when the score can win.
        if best.is_some_and(|(s, _, _, _)| score < s) {
            continue;
        }
        let p = player.eval.priority_at(spawn_x, c.bx, c.state);
        if best.is_none_or(|(s, bp, _, _)| score > s || (score == s && p > bp)) {
            best = Some((score, p, c, y));
        }
    }
    best.map(|(_, _, c, y)| (c, y, nodes))
}
