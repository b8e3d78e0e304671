//! What a game's rotate key does, learned by watching (press, look).
//!
//! Games disagree on rotation: the Guideline's SRS turns pieces about fixed
//! box centres, Quadrapassel about its own and spawns pieces in any
//! orientation. Rather than assume a table, the live loop turns a piece four
//! times, looking after each turn, and hands the five pictures to
//! [`RotationLearner::learn`]; the states seen, placed in one box, become
//! that piece's entry of a [`RotationSystem`] from which a [`MoveGen`] plans
//! whole key scripts that the game then plays as planned.
//!
//! Pure: cells in, rotation states out.

use super::movegen::{MoveGen, MoveRules};
use super::piece::{Piece, PieceRotations, RotationSystem, Shapes};
use super::TetrisError;

/// Cells as `(column, row from the bottom)`.
pub type Cells = Vec<(i32, i32)>;

/// Why a turn cycle taught nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LearnError {
    #[error("a picture of the cycle is not the piece (or not four cells)")]
    NotThePiece,
    #[error(
        "four turns did not bring the piece back where it was (it fell, or a turn was refused)"
    )]
    NotACycle,
    #[error("a turn did not turn the shape a quarter (refused, or a key was lost)")]
    NotATurn,
    #[error("the states do not fit a 4x4 box")]
    TooWide,
}

fn sorted(cells: &[(i32, i32)]) -> Cells {
    let mut v = cells.to_vec();
    v.sort_unstable();
    v
}

/// The cells moved to start at `(0, 0)`, sorted.
fn normalise(cells: &[(i32, i32)]) -> Cells {
    let x0 = cells.iter().map(|c| c.0).min().unwrap_or(0);
    let y0 = cells.iter().map(|c| c.1).min().unwrap_or(0);
    sorted(
        &cells
            .iter()
            .map(|&(x, y)| (x - x0, y - y0))
            .collect::<Cells>(),
    )
}

/// The shape turned a quarter clockwise on screen (rows counted upwards), normalised.
fn turn_cw(cells: &[(i32, i32)]) -> Cells {
    normalise(&cells.iter().map(|&(x, y)| (y, -x)).collect::<Cells>())
}

/// True when a quarter turn draws the same shape (O).
pub fn symmetric(cells: &[(i32, i32)]) -> bool {
    turn_cw(cells) == normalise(cells)
}

/// True when both draw the same cells, in any order.
pub fn same_cells(a: &[(i32, i32)], b: &[(i32, i32)]) -> bool {
    sorted(a) == sorted(b)
}

/// The rotation states learned so far, over a base system for the pieces
/// not seen yet.
#[derive(Debug, Clone)]
pub struct RotationLearner {
    base: RotationSystem,
    learned: [bool; 7],
}

impl RotationLearner {
    pub fn new(base: RotationSystem) -> Self {
        RotationLearner {
            base,
            learned: [false; 7],
        }
    }

    pub fn is_learned(&self, p: Piece) -> bool {
        self.learned[p.index()]
    }

    /// True once every piece is learned.
    pub fn complete(&self) -> bool {
        self.learned.iter().all(|&l| l)
    }

    /// Learns `p` from a cycle: `cycle[0]` the piece before any turn,
    /// `cycle[i]` after `i` presses of the rotate key (`i` = 1..=4). The
    /// states are kept in the order the key visits them, the first picture's
    /// state first.
    ///
    /// A shape that a quarter turn maps onto itself (O) is learned from one
    /// picture, without turning: the game is taken to leave it in place.
    pub fn learn(&mut self, p: Piece, cycle: &[Cells]) -> Result<(), LearnError> {
        let shapes =
            Shapes::new(&RotationSystem::srs(), 16).map_err(|_| LearnError::NotThePiece)?;
        for c in cycle {
            if !shapes.identify(c).iter().any(|m| m.0 == p) {
                return Err(LearnError::NotThePiece);
            }
        }
        if cycle.len() == 1 && symmetric(&cycle[0]) {
            return self.keep(p, cycle);
        }
        if cycle.len() != 5 {
            return Err(LearnError::NotACycle);
        }
        if sorted(&cycle[4]) != sorted(&cycle[0]) {
            return Err(LearnError::NotACycle);
        }
        // Every step turns the shape the same way a quarter (for shapes with
        // symmetry the two ways agree).
        let cw = (0..4).all(|i| normalise(&cycle[i + 1]) == turn_cw(&cycle[i]));
        let ccw = (0..4).all(|i| turn_cw(&cycle[i + 1]) == normalise(&cycle[i]));
        if !cw && !ccw {
            return Err(LearnError::NotATurn);
        }
        // The period: O turns onto itself, I/S/Z may come back after two.
        let period = (1..=4)
            .find(|&k| sorted(&cycle[k]) == sorted(&cycle[0]))
            .unwrap_or(4);
        self.keep(p, &cycle[..period])
    }

    /// Stores `states` (absolute cells, in key order) as `p`'s rotation states.
    fn keep(&mut self, p: Piece, states: &[Cells]) -> Result<(), LearnError> {
        let left = states.iter().flatten().map(|c| c.0).min().unwrap_or(0);
        let right = states.iter().flatten().map(|c| c.0).max().unwrap_or(0);
        let top = states.iter().flatten().map(|c| c.1).max().unwrap_or(0);
        let bottom = states.iter().flatten().map(|c| c.1).min().unwrap_or(0);
        let (w, h) = (right - left + 1, top - bottom + 1);
        if w > 4 || h > 4 {
            return Err(LearnError::TooWide);
        }
        let text = |cells: &Cells| {
            (0..h)
                .map(|r| {
                    (0..w)
                        .map(|c| {
                            if cells.contains(&(left + c, top - r)) {
                                '#'
                            } else {
                                '.'
                            }
                        })
                        .collect::<String>()
                })
                .collect::<Vec<_>>()
                .join("/")
        };
        *self.base.piece_mut(p) = PieceRotations {
            states: states.iter().map(text).collect(),
            spawn_x: None,
        };
        self.learned[p.index()] = true;
        Ok(())
    }

    /// The rotation system: learned pieces as seen, the others from the base.
    pub fn system(&self) -> &RotationSystem {
        &self.base
    }

    /// A move generator for the learned system on a `width` x `height` well,
    /// one rotate key, no slides.
    pub fn move_gen(&self, width: usize, height: usize) -> Result<MoveGen, TetrisError> {
        let rules = MoveRules {
            ccw: false,
            slides: false,
        };
        MoveGen::new(Shapes::new(&self.base, width)?, rules, width, height)
    }
}

/// True when every position `script` passes through, from state `state`
/// with its box at column `bx` and top row `top`, fits on `field` without a
/// cell above the top row (games like Quadrapassel refuse such turns).
fn stays_inside(
    gen: &MoveGen,
    field: &super::Field,
    p: Piece,
    (state, bx, top): (usize, i32, i32),
    script: &super::Script,
) -> bool {
    let states = gen.shapes.of(p);
    let fits = |s: usize, bx: i32| {
        let st = &states[s];
        let y = top - st.bottom as i32;
        y + st.h as i32 <= field.height() as i32 && field.fits(st, bx + st.left as i32, y)
    };
    let (mut s, mut x) = (state, bx);
    if !fits(s, x) {
        return false;
    }
    for &k in script.keys() {
        match k {
            super::TetrisKey::Left => x -= 1,
            super::TetrisKey::Right => x += 1,
            super::TetrisKey::RotateCw => s = (s + 1) % states.len(),
            super::TetrisKey::RotateCcw => s = (s + states.len() - 1) % states.len(),
            super::TetrisKey::SonicDrop | super::TetrisKey::HardDrop => return true,
        }
        if !fits(s, x) {
            return false;
        }
    }
    true
}

/// Every reading of `cells` as a state of `p`: `(state, box column, box top row)`.
pub fn readings(gen: &MoveGen, p: Piece, cells: &[(i32, i32)]) -> Vec<(usize, i32, i32)> {
    gen.shapes
        .identify(cells)
        .into_iter()
        .filter(|m| m.0 == p)
        .map(|(_, s, bx, top)| (s as usize, bx, top))
        .collect()
}

/// The cells `p` draws in state `state` with its box at `(bx, top)`.
pub fn cells_at(gen: &MoveGen, p: Piece, (state, bx, top): (usize, i32, i32)) -> Cells {
    let Some(st) = gen.shapes.of(p).get(state) else {
        return Vec::new();
    };
    let (x, y) = (bx + st.left as i32, top - st.bottom as i32);
    sorted(
        &st.cells()
            .map(|(dx, dy)| (x + dx as i32, y + dy as i32))
            .collect::<Cells>(),
    )
}

/// The key script from the piece `p` in state `from = (state, box column,
/// box top row)` to rest on exactly `want` (`(column, row from the
/// bottom)`) under `gen`'s rotation states, never putting a cell above the
/// top row: the number of one-row soft drops to send first (turns near the
/// top need room) and the shortest script after them; `None` when `want` is
/// out of reach within `max_down` soft drops.
pub fn script_from(
    gen: &MoveGen,
    field: &super::Field,
    p: Piece,
    from: (usize, i32, i32),
    want: &[(usize, usize)],
    max_down: i32,
) -> Option<(i32, super::Script)> {
    let mut want: Vec<(usize, usize)> = want.to_vec();
    want.sort_unstable();
    let (state, bx, top) = from;
    for down in 0..=max_down {
        let start = (state, bx, top - down);
        if !stays_inside(gen, field, p, start, &super::Script::default()) {
            continue;
        }
        let mut best: Option<super::Script> = None;
        for pl in gen.placements_from(field, p, state, bx, start.2) {
            let mut got = pl.cells(&gen.shapes).to_vec();
            got.sort_unstable();
            if got == want
                && best.as_ref().is_none_or(|b| pl.script.len() < b.len())
                && stays_inside(gen, field, p, start, &pl.script)
            {
                best = Some(pl.script);
            }
        }
        if let Some(b) = best {
            return Some((down, b));
        }
    }
    None
}

/// [`script_from`] for the piece drawn at `cells`, over every reading of
/// them as a state of `p` (the shortest); `None` when no state of `p` draws
/// `cells` or `want` is out of reach.
pub fn script_to(
    gen: &MoveGen,
    field: &super::Field,
    p: Piece,
    cells: &[(i32, i32)],
    want: &[(usize, usize)],
    max_down: i32,
) -> Option<(i32, super::Script)> {
    readings(gen, p, cells)
        .into_iter()
        .filter_map(|r| script_from(gen, field, p, r, want, max_down))
        .min_by_key(|(down, s)| (*down, s.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::tetris::{Field, TetrisKey};

    fn shift(cells: &[(i32, i32)], dx: i32, dy: i32) -> Cells {
        cells.iter().map(|&(x, y)| (x + dx, y + dy)).collect()
    }

    /// Quadrapassel-like T: turns clockwise about its middle cell at (4, 17).
    fn t_cycle() -> Vec<Cells> {
        let up = vec![(3, 17), (4, 17), (5, 17), (4, 18)];
        let right = vec![(4, 16), (4, 17), (4, 18), (5, 17)];
        let down = vec![(3, 17), (4, 17), (5, 17), (4, 16)];
        let left = vec![(4, 16), (4, 17), (4, 18), (3, 17)];
        vec![up.clone(), right, down, left, up]
    }

    #[test]
    fn learns_a_t_turning_about_its_middle() {
        let mut l = RotationLearner::new(RotationSystem::srs());
        l.learn(Piece::T, &t_cycle()).expect("a cycle");
        assert!(l.is_learned(Piece::T) && !l.complete());
        assert_eq!(
            l.system().t.states,
            vec![".#./###/...", ".#./.##/.#.", ".../###/.#.", ".#./##./.#."]
        );
    }

    #[test]
    fn refuses_cycles_that_do_not_close_or_do_not_turn() {
        let mut l = RotationLearner::new(RotationSystem::srs());
        let mut fell = t_cycle();
        fell[4] = shift(&fell[4], 0, -1);
        assert_eq!(l.learn(Piece::T, &fell), Err(LearnError::NotACycle));
        let mut stuck = t_cycle();
        stuck[2] = stuck[1].clone();
        assert_eq!(l.learn(Piece::T, &stuck), Err(LearnError::NotATurn));
        assert_eq!(l.learn(Piece::I, &t_cycle()), Err(LearnError::NotThePiece));
        assert!(!l.is_learned(Piece::T));
        // One picture is enough for O only.
        assert_eq!(
            l.learn(Piece::T, &t_cycle()[..1]),
            Err(LearnError::NotACycle)
        );
        let o = vec![(4, 18), (5, 18), (4, 19), (5, 19)];
        l.learn(Piece::O, &[o]).expect("O from one picture");
        assert_eq!(l.system().o.states, vec!["##/##"]);
    }

    #[test]
    fn two_state_pieces_keep_their_period() {
        // An I that flips between a row and a column about a fixed cell.
        let row = vec![(3, 18), (4, 18), (5, 18), (6, 18)];
        let col = vec![(5, 16), (5, 17), (5, 18), (5, 19)];
        let mut l = RotationLearner::new(RotationSystem::srs());
        l.learn(Piece::I, &[row.clone(), col.clone(), row.clone(), col, row])
            .expect("a cycle");
        assert_eq!(
            l.system().i.states,
            vec!["..../####/..../....", "..#./..#./..#./..#."]
        );
    }

    #[test]
    fn scripts_follow_the_learned_turns() {
        let mut l = RotationLearner::new(RotationSystem::srs());
        l.learn(Piece::T, &t_cycle()).expect("a cycle");
        let gen = l.move_gen(10, 20).expect("a generator");
        let field = Field::new(10, 20).expect("a field");
        // From "up" at columns 3-5: one turn gives "right" at columns 4-5;
        // moved to the right wall, it rests on the floor at columns 8-9.
        let now = t_cycle()[0].clone();
        let want = [(8, 0), (8, 1), (8, 2), (9, 1)];
        let (down, script) = script_to(&gen, &field, Piece::T, &now, &want, 0).expect("reachable");
        assert_eq!(down, 0);
        let turns = script
            .keys()
            .iter()
            .filter(|&&k| k == TetrisKey::RotateCw)
            .count();
        let rights = script
            .keys()
            .iter()
            .filter(|&&k| k == TetrisKey::Right)
            .count();
        assert_eq!((turns, rights), (1, 4));
        assert_eq!(script.keys().last(), Some(&TetrisKey::HardDrop));
        // A cell set no state of T draws gives no script.
        assert_eq!(script_to(&gen, &field, Piece::I, &now, &want, 2), None);
    }

    #[test]
    fn turns_that_need_room_above_wait_for_soft_drops() {
        // The T of `t_cycle` nose down, raised to the top rows (18-19): any
        // turn puts a cell in row 20, so one soft drop must come first.
        let mut l = RotationLearner::new(RotationSystem::srs());
        l.learn(Piece::T, &t_cycle()).expect("a cycle");
        let gen = l.move_gen(10, 20).expect("a generator");
        let field = Field::new(10, 20).expect("a field");
        let now = shift(&t_cycle()[2], 0, 2);
        let want = [(8, 0), (8, 1), (8, 2), (9, 1)];
        assert_eq!(script_to(&gen, &field, Piece::T, &now, &want, 0), None);
        let (down, script) = script_to(&gen, &field, Piece::T, &now, &want, 2).expect("reachable");
        // Three turns (down, left, up, right), four steps right, the drop.
        assert_eq!((down, script.len()), (1, 8));
        // Without a turn nothing waits.
        let flat = [(7, 1), (8, 1), (9, 1), (8, 0)];
        let (down, _) = script_to(&gen, &field, Piece::T, &now, &flat, 2).expect("reachable");
        assert_eq!(down, 0);
    }
}
