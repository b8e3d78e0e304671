//! Evaluation of placements: features, weights as data, named presets.
//!
//! Split as in cold-clear's `evaluation`: a **Reward** is earned by the
//! placement itself and adds up along a line of play (landing height, eroded
//! piece cells, lines cleared); a **Value** is what the field left behind is
//! worth (transitions, holes, wells, heights, ...). A placement scores
//! `reward + value`; a lookahead line scores the sum of its rewards plus the
//! value of the last field.
//!
//! Features (after Colin Fahey's implementation of Pierre Dellacherie's
//! one-piece controller, 2003, which the `dellacherie` preset reproduces; and
//! Thiery & Scherrer, "Building Controllers for Tetris", ICGA Journal 2009,
//! for the BCTS additions):
//! - landing height: the middle of the piece's rows, 1-based, before clearing;
//! - eroded piece cells: rows cleared x cells of the piece in them;
//! - row transitions: filled/empty changes along each row, walls filled,
//!   every row of the field (an empty row counts 2);
//! - column transitions: changes down each column, the floor filled, the sky
//!   empty;
//! - holes: empty cells with a filled cell anywhere above in their column;
//! - wells (cumulative): for every empty cell whose left and right
//!   neighbours are filled (walls count), the number of empty cells from it
//!   straight down (itself included) — a clean well of depth `d` gives
//!   `d(d+1)/2`;
//! - hole depth: for every hole, the filled cells above it in its column;
//! - rows with holes; max height (the pile height); bumpiness (sum of
//!   |height difference| of neighbouring columns); total height.
//!
//! Ties: Dellacherie breaks equal scores by a priority,
//! `100 |dx| + 10 (dx < 0) - rotations` (dx = box shift from spawn), higher
//! first; later placements must beat the best strictly otherwise.

use serde::{Deserialize, Serialize};

use super::field::Field;
use super::movegen::{MoveGen, Placement};
use super::piece::State;
use super::TetrisError;

/// The number of features ([`Weights::to_array`] order).
pub const FEATURES: usize = 12;

/// The feature names, in [`Weights::to_array`] order.
pub const FEATURE_NAMES: [&str; FEATURES] = [
    "landing_height",
    "eroded_cells",
    "lines",
    "row_transitions",
    "col_transitions",
    "holes",
    "wells",
    "hole_depth",
    "rows_with_holes",
    "max_height",
    "bumpiness",
    "total_height",
];

/// Feature weights. The first three are Reward features, the rest Value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Weights {
    pub landing_height: f32,
    pub eroded_cells: f32,
    pub lines: f32,
    pub row_transitions: f32,
    pub col_transitions: f32,
    pub holes: f32,
    pub wells: f32,
    pub hole_depth: f32,
    pub rows_with_holes: f32,
    pub max_height: f32,
    pub bumpiness: f32,
    pub total_height: f32,
}

impl Weights {
    pub fn to_array(&self) -> [f32; FEATURES] {
        [
            self.landing_height,
            self.eroded_cells,
            self.lines,
            self.row_transitions,
            self.col_transitions,
            self.holes,
            self.wells,
            self.hole_depth,
            self.rows_with_holes,
            self.max_height,
            self.bumpiness,
            self.total_height,
        ]
    }

    pub fn from_array(a: [f32; FEATURES]) -> Self {
        Weights {
            landing_height: a[0],
            eroded_cells: a[1],
            lines: a[2],
            row_transitions: a[3],
            col_transitions: a[4],
            holes: a[5],
            wells: a[6],
            hole_depth: a[7],
            rows_with_holes: a[8],
            max_height: a[9],
            bumpiness: a[10],
            total_height: a[11],
        }
    }
}

/// How equal scores are ordered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TieBreak {
    /// Dellacherie's priority (see the module doc).
    #[default]
    Dellacherie,
    /// The first placement in generation order.
    First,
}

/// An evaluator: weights plus a tie-break, as data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Eval {
    pub name: String,
    #[serde(default)]
    pub tie_break: TieBreak,
    pub weights: Weights,
}

/// The tuned preset, as written by `gridbot tune tetris`.
const TUNED_TOML: &str = include_str!("../../../data/tetris/tuned.toml");

/// Names of the presets.
pub const PRESETS: &str = "dellacherie, el-tetris, bcts, tuned";

impl Eval {
    /// Dellacherie's weights: -1, +1, -1, -1, -4, -1.
    pub fn dellacherie() -> Self {
        Eval {
            name: "dellacherie".into(),
            tie_break: TieBreak::Dellacherie,
            weights: Weights {
                landing_height: -1.0,
                eroded_cells: 1.0,
                row_transitions: -1.0,
                col_transitions: -1.0,
                holes: -4.0,
                wells: -1.0,
                ..Weights::default()
            },
        }
    }

    /// Yiyuan Lee's El-Tetris (2013): the same features tuned by a genetic
    /// algorithm, with rows cleared in place of eroded cells.
    pub fn el_tetris() -> Self {
        Eval {
            name: "el-tetris".into(),
            tie_break: TieBreak::Dellacherie,
            weights: Weights {
                landing_height: -4.500_159,
                lines: 3.418_127,
                row_transitions: -3.217_888,
                col_transitions: -9.348_695,
                holes: -7.899_265,
                wells: -3.385_597,
                ..Weights::default()
            },
        }
    }

    /// Thiery & Scherrer's BCTS weights (2009): Dellacherie's features plus
    /// hole depth and rows with holes, tuned by the cross-entropy method.
    pub fn bcts() -> Self {
        Eval {
            name: "bcts".into(),
            tie_break: TieBreak::Dellacherie,
            weights: Weights {
                landing_height: -12.63,
                eroded_cells: 6.60,
                row_transitions: -9.22,
                col_transitions: -19.77,
                holes: -13.08,
                wells: -10.49,
                hole_depth: -1.61,
                rows_with_holes: -24.04,
                ..Weights::default()
            },
        }
    }

    /// Our weights, tuned on 10x10 by `gridbot tune tetris` (see
    /// `data/tetris/tuned.toml`).
    pub fn tuned() -> Self {
        match Eval::from_toml(TUNED_TOML) {
            Ok(e) => e,
            // The file is checked by a test; never reached in a release.
            Err(_) => Eval::bcts(),
        }
    }

    /// A preset by name, or a TOML file when the name ends in `.toml`.
    pub fn preset(name: &str) -> Result<Self, TetrisError> {
        match name {
            "dellacherie" => Ok(Eval::dellacherie()),
            "el-tetris" => Ok(Eval::el_tetris()),
            "bcts" => Ok(Eval::bcts()),
            "tuned" => Ok(Eval::tuned()),
            _ => Err(TetrisError::UnknownPreset {
                kind: "evaluator",
                name: name.to_string(),
                known: PRESETS,
            }),
        }
    }

    pub fn from_toml(text: &str) -> Result<Self, TetrisError> {
        toml::from_str(text).map_err(|e| TetrisError::BadEval(e.to_string()))
    }

    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    /// True when a feature beyond Dellacherie's six has a weight (they cost
    /// more to compute).
    #[inline]
    pub fn extended(&self) -> bool {
        let w = &self.weights;
        w.hole_depth != 0.0
            || w.rows_with_holes != 0.0
            || w.max_height != 0.0
            || w.bumpiness != 0.0
            || w.total_height != 0.0
    }

    /// The Reward of locking `st` with its lowest row at `y`, given the rows
    /// it cleared (mask relative to `y`).
    #[inline(always)]
    pub fn reward(&self, st: &State, y: usize, cleared: u8) -> f32 {
        let w = &self.weights;
        let landing = y as f32 + (st.h as f32 + 1.0) * 0.5;
        let mut r = w.landing_height * landing;
        if cleared != 0 {
            let lines = cleared.count_ones();
            let mut cells = 0;
            for k in 0..st.h as usize {
                if cleared >> k & 1 == 1 {
                    cells += st.mask[k].count_ones();
                }
            }
            r += w.eroded_cells * (lines * cells) as f32 + w.lines * lines as f32;
        }
        r
    }

    /// The Value of a field.
    #[inline]
    pub fn value(&self, f: &Field) -> f32 {
        self.value_of(&value_features(f, self.extended()))
    }

    /// The Value of a field with these features.
    #[inline(always)]
    pub fn value_of(&self, v: &ValueFeatures) -> f32 {
        let w = &self.weights;
        self.value_of_basic(v)
            + w.hole_depth * v.hole_depth as f32
            + w.rows_with_holes * v.rows_with_holes as f32
            + w.max_height * v.max_height as f32
            + w.bumpiness * v.bumpiness as f32
            + w.total_height * v.total_height as f32
    }

    /// The Value of Dellacherie's four Value features alone: equal to
    /// [`Eval::value_of`] when the evaluator is not [`Eval::extended`] (the
    /// other terms then weigh zero, and adding zero changes no sum).
    #[inline(always)]
    pub fn value_of_basic(&self, v: &ValueFeatures) -> f32 {
        self.basic_value(v.row_transitions, v.col_transitions, v.holes, v.wells)
    }

    /// [`Eval::value_of_basic`] of these four features (one expression, so
    /// every caller gets the same sum, bit for bit).
    #[inline(always)]
    pub fn basic_value(
        &self,
        row_transitions: u32,
        col_transitions: u32,
        holes: u32,
        wells: u32,
    ) -> f32 {
        let w = &self.weights;
        w.row_transitions * row_transitions as f32
            + w.col_transitions * col_transitions as f32
            + w.holes * holes as f32
            + w.wells * wells as f32
    }

    /// Locks `pl` into a copy of `field`: (reward, value, the field after,
    /// lines cleared).
    #[inline]
    pub fn play(&self, gen: &MoveGen, field: &Field, pl: &Placement) -> (f32, f32, Field, u32) {
        let st = gen.state(pl);
        let mut after = *field;
        let cleared = after.lock(st, pl.column as usize, pl.row as usize);
        let r = self.reward(st, pl.row as usize, cleared);
        (r, self.value(&after), after, cleared.count_ones())
    }

    /// Dellacherie's priority of a placement (higher wins a tie).
    #[inline]
    pub fn priority(&self, gen: &MoveGen, pl: &Placement) -> i32 {
        self.priority_at(
            gen.shapes.spawn_x[pl.piece.index()],
            pl.x as i32,
            pl.rotation,
        )
    }

    /// The priority of a placement with box column `bx` and rotation state
    /// `rotation` of a piece that spawns at box column `spawn_x`.
    #[inline(always)]
    pub fn priority_at(&self, spawn_x: i32, bx: i32, rotation: u8) -> i32 {
        match self.tie_break {
            TieBreak::Dellacherie => {
                let dx = bx - spawn_x;
                100 * dx.abs() + if dx < 0 { 10 } else { 0 } - rotation as i32
            }
            TieBreak::First => 0,
        }
    }
}

/// Value features of a field, as counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ValueFeatures {
    pub row_transitions: u32,
    pub col_transitions: u32,
    pub holes: u32,
    pub wells: u32,
    pub hole_depth: u32,
    pub rows_with_holes: u32,
    pub max_height: u32,
    pub bumpiness: u32,
    pub total_height: u32,
}

/// Bit-sliced per-column counters (6 bits: up to 63 per column); only the
/// planes in use (`used`) are touched, which is usually one or two.
#[derive(Clone, Copy, Default)]
struct Counter {
    planes: [u32; 6],
    used: usize,
}

impl Counter {
    /// Adds 1 in the columns of `m`.
    #[inline(always)]
    fn inc(&mut self, m: u32) {
        let mut carry = m;
        let mut k = 0;
        while carry != 0 && k < 6 {
            let t = self.planes[k] & carry;
            self.planes[k] ^= carry;
            carry = t;
            k += 1;
        }
        self.used = self.used.max(k);
    }

    /// Keeps the counts only in the columns of `m`.
    #[inline(always)]
    fn keep(&mut self, m: u32) {
        for p in &mut self.planes[..self.used] {
            *p &= m;
        }
    }

    /// Sum of the counts in the columns of `m`.
    #[inline(always)]
    fn sum(&self, m: u32) -> u32 {
        let mut s = 0;
        for (k, p) in self.planes[..self.used].iter().enumerate() {
            s += (p & m).count_ones() << k;
        }
        s
    }
}

/// Computes the Value features (the extended ones only when `extended`).
///
/// The counting is bit population counts; the default x86-64 target has no
/// `popcnt` instruction (software counts made the whole evaluation ~3x
/// slower), so where the CPU has it a copy compiled with it is used.
#[inline]
pub fn value_features(f: &Field, extended: bool) -> ValueFeatures {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU supports popcnt (checked just above).
            return unsafe { value_features_popcnt(f, extended) };
        }
    }
    value_features_impl(f, extended)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn value_features_popcnt(f: &Field, extended: bool) -> ValueFeatures {
    value_features_impl(f, extended)
}

#[inline(always)]
fn value_features_impl(f: &Field, extended: bool) -> ValueFeatures {
    let w = f.width() as u32;
    let full = f.full() as u32;
    let rows = f.rows();
    let pile = f.pile_height();
    let mut v = ValueFeatures {
        row_transitions: 2 * (f.height() - pile) as u32,
        max_height: pile as u32,
        ..ValueFeatures::default()
    };
    let tmask = (1u32 << (w + 1)) - 1;
    let wall_l = 1u32;
    let wall_r = 1u32 << (w - 1);
    let mut above = 0u32;
    let mut covered = 0u32;
    let mut wells = Counter::default();
    let mut active = 0u32;
    let mut filled_above = Counter::default();
    let mut heights = [0u32; 16];
    for y in (0..pile).rev() {
        let r = rows[y] as u32;
        let x = (r << 1) | 1 | (1 << (w + 1));
        v.row_transitions += ((x ^ (x >> 1)) & tmask).count_ones();
        v.col_transitions += (r ^ above).count_ones();
        above = r;
        let empty = !r & full;
        let hole = empty & covered;
        v.holes += hole.count_ones();
        let well = empty & ((r << 1) | wall_l) & ((r >> 1) | wall_r);
        // Columns whose count is not zero: the counts restart at filled cells.
        let was = active;
        active = (active & empty) | well;
        if active != 0 {
            wells.keep(empty);
            wells.inc(well);
            v.wells += wells.sum(full);
        } else if was != 0 {
            wells = Counter::default();
        }
        if extended {
            if hole != 0 {
                v.rows_with_holes += 1;
                v.hole_depth += filled_above.sum(hole);
            }
            filled_above.inc(r);
            let mut new = r & !covered;
            while new != 0 {
                heights[new.trailing_zeros() as usize] = y as u32 + 1;
                new &= new - 1;
            }
        }
        covered |= r;
    }
    v.col_transitions += (!(rows[0] as u32) & full).count_ones();
    if extended {
        let n = w as usize;
        v.total_height = heights[..n].iter().sum();
        v.bumpiness = heights[..n].windows(2).map(|p| p[0].abs_diff(p[1])).sum();
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Direct, cell-by-cell transcription of the definitions (the oracle).
    fn naive_features(f: &Field) -> ValueFeatures {
        let (w, h) = (f.width() as i32, f.height() as i32);
        let cell = |x: i32, y: i32| -> bool {
            if x < 0 || x >= w || y < 0 {
                return true;
            }
            y < h && f.get(x as usize, y as usize)
        };
        let mut v = ValueFeatures::default();
        for y in 0..h {
            for x in -1..w {
                if cell(x, y) != cell(x + 1, y) {
                    v.row_transitions += 1;
                }
            }
        }
        let mut heights = vec![0u32; w as usize];
        for x in 0..w {
            for y in -1..h {
                // Floor (y = -1) filled, sky (y = h) empty.
                let a = cell(x, y);
                let b = y + 1 < h && cell(x, y + 1);
                if a != b {
                    v.col_transitions += 1;
                }
            }
            let mut filled_seen = 0;
            for y in (0..h).rev() {
                if cell(x, y) {
                    filled_seen += 1;
                    if heights[x as usize] == 0 {
                        heights[x as usize] = y as u32 + 1;
                    }
                } else if filled_seen > 0 {
                    v.holes += 1;
                    v.hole_depth += filled_seen;
                }
                if !cell(x, y) && cell(x - 1, y) && cell(x + 1, y) {
                    let mut k = y;
                    while k >= 0 && !cell(x, k) {
                        v.wells += 1;
                        k -= 1;
                    }
                }
            }
        }
        for y in 0..h {
            let mut any = false;
            for x in 0..w {
                let covered = (y + 1..h).any(|yy| cell(x, yy));
                any |= !cell(x, y) && covered;
            }
            v.rows_with_holes += any as u32;
        }
        v.max_height = heights.iter().copied().max().unwrap_or(0);
        v.total_height = heights.iter().sum();
        v.bumpiness = heights.windows(2).map(|p| p[0].abs_diff(p[1])).sum();
        v
    }

    #[test]
    fn features_of_a_hand_made_field() {
        let f = Field::parse(&[
            "......", //
            "#.....", //
            "#.#...", //
            "###.#.", //
            "#.###.", //
        ])
        .unwrap();
        let v = value_features(&f, true);
        assert_eq!(v, naive_features(&f));
        assert_eq!(v.holes, 1);
        assert_eq!(v.hole_depth, 1);
        assert_eq!(v.rows_with_holes, 1);
        // Well cells (column, row from the bottom) and the empty cells from
        // them down: (1,0) 1, (5,0) 1, (3,1) 1, (5,1) 2, (1,2) 1.
        assert_eq!(v.wells, 6);
        assert_eq!(v.max_height, 4);
        assert_eq!(v.total_height, 4 + 2 + 3 + 1 + 2);
        let empty = Field::new(10, 20).unwrap();
        let e = value_features(&empty, true);
        assert_eq!((e.row_transitions, e.col_transitions, e.wells), (40, 10, 0));
    }

    #[test]
    fn fast_features_match_naive() {
        use proptest::prelude::*;
        use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
        let mut runner = TestRunner::new_with_rng(
            Config {
                cases: 256,
                ..Config::default()
            },
            TestRng::from_seed(RngAlgorithm::ChaCha, &[5; 32]),
        );
        let strat = (
            4usize..=16,
            1usize..=24,
            proptest::collection::vec(any::<u16>(), 24),
            0usize..=24,
        );
        runner
            .run(&strat, |(w, h, bits, pile)| {
                let mut f = Field::new(w, h).unwrap();
                for (y, &b) in bits.iter().enumerate().take(pile.min(h)) {
                    // Sparser towards the top, like a real stack.
                    let b = if y % 3 == 2 {
                        b & bits[(y + 1) % 24]
                    } else {
                        b
                    };
                    for x in 0..w {
                        f.set(x, y, b >> x & 1 == 1);
                    }
                }
                prop_assert_eq!(value_features(&f, true), naive_features(&f));
                let basic = value_features(&f, false);
                let n = naive_features(&f);
                prop_assert_eq!(
                    (
                        basic.row_transitions,
                        basic.col_transitions,
                        basic.holes,
                        basic.wells
                    ),
                    (n.row_transitions, n.col_transitions, n.holes, n.wells)
                );
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn presets_load() {
        for name in PRESETS.split(", ") {
            let e = Eval::preset(name).unwrap();
            assert_eq!(e.name, name);
        }
        assert!(Eval::from_toml(TUNED_TOML).is_ok());
        assert!(Eval::preset("nope").is_err());
        let d = Eval::dellacherie();
        assert_eq!(Eval::from_toml(&d.to_toml()).unwrap(), d);
    }

    #[test]
    fn reward_counts_eroded_cells() {
        let sh = crate::games::tetris::piece::Shapes::new(
            &crate::games::tetris::piece::RotationSystem::srs(),
            10,
        )
        .unwrap();
        let t = sh.of(crate::games::tetris::Piece::T)[0];
        let d = Eval::dellacherie();
        // T flat at the bottom clearing its lower row: landing height 1.5
        // (rows 1 and 2, 1-based), eroded 1 line x 3 cells.
        assert_eq!(d.reward(&t, 0, 0b01), -1.5 + 3.0);
        assert_eq!(d.reward(&t, 2, 0), -3.5);
    }
}
