//! Match-3 (swap) rules: the swap, line detection, clearing, gravity, cascades,
//! refill and scoring.
//!
//! Coordinates: row 0 is the top row, column 0 the left column; cells are
//! stored row-major (`index = row * cols + col`). Gravity pulls down (towards
//! larger rows) and refill enters at the top of a column.
//!
//! Cell values: `0..=9` are gem colours. Any other value is a *hole*: a cell
//! whose gem is unknown (the refill the planner cannot see, or a cell that
//! could not be read). A hole never matches, cannot be swapped, and falls like
//! a gem. [`HOLE`] is [`crate::board::UNKNOWN`], so holes print as `?`; an
//! empty cell `.` in an input board is read as a hole too.
//!
//! Lines: a run of 3+ equal colours in a row or a column. Crossing runs of one
//! colour (an L, T or +) are two lines; their shared cell is cleared once.
//! A swap of two orthogonal neighbours is legal only if afterwards a line runs
//! through one of the two swapped cells. All lines on the board clear at once
//! (one *wave*); gems above fall, the refill fills the top, and the next wave
//! is looked for until the board is stable (a cascade).
//!
//! Invariant of [`MBoard`]: `rows * cols <= N` and cells past `rows * cols` are
//! [`HOLE`]. The [`naive`] module is the slow, obviously-correct reference the
//! tests check this fast board against.

use serde::{Deserialize, Serialize};

use crate::board::{Board, Cell, UNKNOWN};
use crate::games::GameError;

/// A cell whose gem is unknown: never matches, cannot be swapped.
pub const HOLE: u8 = UNKNOWN;

/// The largest colour index a gem may have.
pub const MAX_COLOUR: u8 = 9;

/// True for a gem (a cell that can match).
#[inline]
pub fn is_gem(v: u8) -> bool {
    v <= MAX_COLOUR
}

/// A swap of two orthogonal neighbours, as cell indices; `b` is right of or
/// below `a` (`a < b`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Swap {
    pub a: u16,
    pub b: u16,
}

impl Swap {
    /// The two cells on a board with `cols` columns.
    pub fn cells(self, cols: usize) -> (Cell, Cell) {
        let (a, b) = (self.a as usize, self.b as usize);
        (Cell::new(a / cols, a % cols), Cell::new(b / cols, b % cols))
    }

    /// The swap of two cells, if they are orthogonal neighbours inside a
    /// `rows` x `cols` board (in either order).
    pub fn from_cells(x: Cell, y: Cell, rows: usize, cols: usize) -> Option<Swap> {
        if x.row >= rows || y.row >= rows || x.col >= cols || y.col >= cols {
            return None;
        }
        let (p, q) = if (x.row, x.col) < (y.row, y.col) {
            (x, y)
        } else {
            (y, x)
        };
        let adjacent =
            (p.row == q.row && p.col + 1 == q.col) || (p.col == q.col && p.row + 1 == q.row);
        adjacent.then(|| Swap {
            a: (p.row * cols + p.col) as u16,
            b: (q.row * cols + q.col) as u16,
        })
    }
}

/// How clears are scored, as data. One wave (all lines clearing at once)
/// earns `per_cell * cells + sum over lines of line_points(len)`, then wave
/// `k` (0 = the swap's own wave) is multiplied by
/// `(100 + cascade_percent * k) / 100`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scoring {
    /// Points per cleared cell (a cell in two lines counts once).
    pub per_cell: i64,
    /// Points of a line of length 3.
    pub line_base: i64,
    /// Points per cell of a line past the third.
    pub line_extra: i64,
    /// Extra percent per cascade wave after the first.
    pub cascade_percent: i64,
}

impl Scoring {
    /// Cells cleared: 1 point a cell (the default for benches and planning).
    pub const CELLS: Scoring = Scoring {
        per_cell: 1,
        line_base: 0,
        line_extra: 0,
        cascade_percent: 0,
    };

    /// Gweled: `10 * multiplier * (length - 2)` per line; the multiplier rises
    /// with the level (1 at level 1).
    pub fn gweled(multiplier: i64) -> Scoring {
        Scoring {
            per_cell: 0,
            line_base: 10 * multiplier,
            line_extra: 10 * multiplier,
            cascade_percent: 0,
        }
    }

    /// Cells cleared with a per-cascade bonus: wave `k` is worth
    /// `(100 + percent * k)%` (Bejeweled-style cascade multiplier).
    pub fn cascade(percent: i64) -> Scoring {
        Scoring {
            cascade_percent: percent,
            ..Scoring::CELLS
        }
    }

    /// A named preset: `cells`, `gweled` (level 1), `gweled:M` (multiplier M),
    /// `cascade` (+50% a wave) or `cascade:P`.
    pub fn preset(name: &str) -> Result<Scoring, GameError> {
        let (head, arg) = match name.split_once(':') {
            Some((h, a)) => (h, Some(a)),
            None => (name, None),
        };
        let num = |default: i64| -> Result<i64, GameError> {
            match arg {
                None => Ok(default),
                Some(a) => a
                    .trim()
                    .parse::<i64>()
                    .ok()
                    .filter(|&v| (0..=1_000_000).contains(&v))
                    .ok_or_else(|| GameError::BadParams(format!("scoring {name:?}"))),
            }
        };
        match head {
            "cells" if arg.is_none() => Ok(Scoring::CELLS),
            "gweled" => Ok(Scoring::gweled(num(1)?)),
            "cascade" => Ok(Scoring::cascade(num(50)?)),
            _ => Err(GameError::BadParams(format!(
                "scoring {name:?} (known: cells, gweled[:M], cascade[:P])"
            ))),
        }
    }

    /// Points of one line of `len` cells (before the cascade multiplier).
    #[inline]
    pub fn line_points(&self, len: usize) -> i64 {
        self.line_base + self.line_extra * (len as i64 - 3)
    }

    /// Points of wave `k` (0-based) that cleared `cells` cells whose lines
    /// earned `line_points` together.
    #[inline]
    pub fn wave_points(&self, k: usize, cells: usize, line_points: i64) -> i64 {
        let raw = self.per_cell * cells as i64 + line_points;
        raw * (100 + self.cascade_percent * k as i64) / 100
    }

    /// An upper bound on the points per cleared cell on a board whose longest
    /// line is `max_len` and on which at most `max_cells` more cells can clear
    /// (admissible: used by the exact planner to cut).
    pub fn max_points_per_cell(&self, max_len: usize, max_cells: usize) -> f64 {
        // A cell lies in at most two lines (one row run, one column run).
        let mut line = 0.0f64;
        for len in 3..=max_len.max(3) {
            line = line.max(self.line_points(len) as f64 / len as f64);
        }
        let waves = (max_cells / 3).max(1) as i64;
        let mult = (100 + self.cascade_percent * (waves - 1)).max(100) as f64 / 100.0;
        (self.per_cell as f64 + 2.0 * line.max(0.0)) * mult
    }
}

impl Default for Scoring {
    fn default() -> Self {
        Scoring::CELLS
    }
}

/// Where refill gems come from.
pub trait Refill {
    /// The gem that enters column `col` from above.
    fn next(&mut self, col: usize) -> u8;
}

/// No refill: holes enter from above (the planner's model).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoRefill;

impl Refill for NoRefill {
    #[inline]
    fn next(&mut self, _col: usize) -> u8 {
        HOLE
    }
}

/// What one swap (with its cascade) did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Outcome {
    pub points: i64,
    /// Cells cleared over all waves.
    pub cells: usize,
    /// Lines cleared over all waves.
    pub lines: usize,
    /// Waves (1 = no cascade).
    pub waves: usize,
}

/// A fast match-3 board of at most `N` cells (fixed array, no allocation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MBoard<const N: usize> {
    rows: u8,
    cols: u8,
    cells: [u8; N],
}

impl<const N: usize> MBoard<N> {
    /// From the shared board; `.` and `?` become holes.
    pub fn from_board(b: &Board) -> Result<Self, GameError> {
        let (rows, cols) = (b.rows(), b.cols());
        if rows * cols > N || rows > 255 || cols > 255 || rows * cols > u16::MAX as usize {
            return Err(GameError::TooLarge {
                rows,
                cols,
                max_rows: N.min(255),
                max_cols: N.min(255),
            });
        }
        let mut cells = [HOLE; N];
        for (i, &v) in b.cells().iter().enumerate() {
            cells[i] = if is_gem(v) { v } else { HOLE };
        }
        Ok(MBoard {
            rows: rows as u8,
            cols: cols as u8,
            cells,
        })
    }

    /// The shared board (holes as `?`).
    pub fn to_board(&self) -> Board {
        Board::from_cells(self.rows(), self.cols(), self.cells[..self.len()].to_vec())
    }

    #[inline]
    pub fn rows(&self) -> usize {
        self.rows as usize
    }

    #[inline]
    pub fn cols(&self) -> usize {
        self.cols as usize
    }

    #[inline]
    fn len(&self) -> usize {
        self.rows() * self.cols()
    }

    /// The cells, row-major.
    pub fn cells(&self) -> &[u8] {
        &self.cells[..self.len()]
    }

    #[inline]
    pub fn get(&self, row: usize, col: usize) -> u8 {
        self.cells[row * self.cols() + col]
    }

    /// Gems of each colour (index = colour).
    pub fn colour_counts(&self) -> [u16; 10] {
        let mut n = [0u16; 10];
        for &v in self.cells() {
            if is_gem(v) {
                n[v as usize] += 1;
            }
        }
        n
    }

    /// Gems that could still clear: the gems of colours with 3 or more.
    pub fn clearable(&self) -> usize {
        self.colour_counts()
            .iter()
            .filter(|&&n| n >= 3)
            .map(|&n| n as usize)
            .sum()
    }

    /// Length of the run of `v` through `i` along a row (`horizontal`) or a column.
    #[inline]
    fn run_through(&self, i: usize, v: u8, horizontal: bool) -> usize {
        let cols = self.cols();
        let (r, c) = (i / cols, i % cols);
        let mut n = 1;
        if horizontal {
            let mut k = c;
            while k > 0 && self.cells[r * cols + k - 1] == v {
                n += 1;
                k -= 1;
            }
            let mut k = c + 1;
            while k < cols && self.cells[r * cols + k] == v {
                n += 1;
                k += 1;
            }
        } else {
            let mut k = r;
            while k > 0 && self.cells[(k - 1) * cols + c] == v {
                n += 1;
                k -= 1;
            }
            let mut k = r + 1;
            while k < self.rows() && self.cells[k * cols + c] == v {
                n += 1;
                k += 1;
            }
        }
        n
    }

    /// True when a line runs through cell `i`.
    #[inline]
    fn line_at(&self, i: usize) -> bool {
        let v = self.cells[i];
        is_gem(v) && (self.run_through(i, v, true) >= 3 || self.run_through(i, v, false) >= 3)
    }

    /// Is `s` legal: two different gems whose exchange makes a line through
    /// one of them?
    pub fn is_legal(&self, s: Swap) -> bool {
        let (a, b) = (s.a as usize, s.b as usize);
        if a >= self.len() || b >= self.len() {
            return false;
        }
        let (va, vb) = (self.cells[a], self.cells[b]);
        if !is_gem(va) || !is_gem(vb) || va == vb {
            return false;
        }
        let mut t = *self;
        t.cells.swap(a, b);
        t.line_at(a) || t.line_at(b)
    }

    /// Every legal swap, in order of `a` (row-major), the right neighbour
    /// before the one below.
    pub fn swaps(&self, out: &mut Vec<Swap>) {
        out.clear();
        let (rows, cols) = (self.rows(), self.cols());
        let mut t = *self;
        for r in 0..rows {
            for c in 0..cols {
                let a = r * cols + c;
                let va = self.cells[a];
                if !is_gem(va) {
                    continue;
                }
                for (ok, b) in [(c + 1 < cols, a + 1), (r + 1 < rows, a + cols)] {
                    if !ok {
                        continue;
                    }
                    let vb = self.cells[b];
                    if !is_gem(vb) || va == vb {
                        continue;
                    }
                    t.cells.swap(a, b);
                    if t.line_at(a) || t.line_at(b) {
                        out.push(Swap {
                            a: a as u16,
                            b: b as u16,
                        });
                    }
                    t.cells.swap(a, b);
                }
            }
        }
    }

    /// Marks the cells of every line; returns (cells, lines, line points).
    fn find_lines(&self, mark: &mut [bool; N], scoring: &Scoring) -> (usize, usize, i64) {
        let (rows, cols) = (self.rows(), self.cols());
        let mut lines = 0;
        let mut pts = 0;
        for r in 0..rows {
            let row = r * cols;
            let mut c = 0;
            while c < cols {
                let v = self.cells[row + c];
                let mut e = c + 1;
                while e < cols && self.cells[row + e] == v {
                    e += 1;
                }
                if is_gem(v) && e - c >= 3 {
                    lines += 1;
                    pts += scoring.line_points(e - c);
                    mark[row + c..row + e].iter_mut().for_each(|m| *m = true);
                }
                c = e;
            }
        }
        for c in 0..cols {
            let mut r = 0;
            while r < rows {
                let v = self.cells[r * cols + c];
                let mut e = r + 1;
                while e < rows && self.cells[e * cols + c] == v {
                    e += 1;
                }
                if is_gem(v) && e - r >= 3 {
                    lines += 1;
                    pts += scoring.line_points(e - r);
                    for k in r..e {
                        mark[k * cols + c] = true;
                    }
                }
                r = e;
            }
        }
        let cells = mark[..self.len()].iter().filter(|&&m| m).count();
        (cells, lines, pts)
    }

    /// Clears every line, lets gems fall and refills, wave after wave until
    /// the board is stable. Returns what was cleared and scored.
    pub fn resolve(&mut self, scoring: &Scoring, refill: &mut impl Refill) -> Outcome {
        let mut out = Outcome::default();
        let (rows, cols) = (self.rows(), self.cols());
        loop {
            let mut mark = [false; N];
            let (cells, lines, line_pts) = self.find_lines(&mut mark, scoring);
            if cells == 0 {
                return out;
            }
            out.points += scoring.wave_points(out.waves, cells, line_pts);
            out.cells += cells;
            out.lines += lines;
            out.waves += 1;
            for c in 0..cols {
                // Compact the surviving cells of column c to the bottom.
                let mut w = rows;
                for r in (0..rows).rev() {
                    let i = r * cols + c;
                    if !mark[i] {
                        w -= 1;
                        self.cells[w * cols + c] = self.cells[i];
                    }
                }
                // Refill from the top: the lowest new cell arrives first.
                for r in (0..w).rev() {
                    self.cells[r * cols + c] = refill.next(c);
                }
            }
        }
    }

    /// Plays a swap and its cascade. `None` (board unchanged) when illegal.
    pub fn apply(
        &mut self,
        s: Swap,
        scoring: &Scoring,
        refill: &mut impl Refill,
    ) -> Option<Outcome> {
        if !self.is_legal(s) {
            return None;
        }
        self.cells.swap(s.a as usize, s.b as usize);
        Some(self.resolve(scoring, refill))
    }

    /// Plays a swap known to be legal (from [`MBoard::swaps`]).
    #[inline]
    pub fn apply_legal(&mut self, s: Swap, scoring: &Scoring, refill: &mut impl Refill) -> Outcome {
        self.cells.swap(s.a as usize, s.b as usize);
        self.resolve(scoring, refill)
    }
}

/// The reference rules on the shared [`Board`]: plain loops, no shortcuts.
/// The board with every cell that is not a gem (empty, unread) as [`HOLE`].
pub fn holes_as_hole(b: &Board) -> Board {
    let cells = b
        .cells()
        .iter()
        .map(|&v| if is_gem(v) { v } else { HOLE })
        .collect();
    Board::from_cells(b.rows(), b.cols(), cells)
}

pub mod naive {
    use super::{is_gem, Outcome, Refill, Scoring};
    use crate::board::{Board, Cell};

    use super::holes_as_hole as norm;

    /// Refill from per-column lists, lowest new cell first; holes
    /// ([`crate::board::UNKNOWN`]) once a list runs out.
    pub struct Scripted(pub Vec<std::collections::VecDeque<u8>>);

    impl Refill for Scripted {
        fn next(&mut self, col: usize) -> u8 {
            self.0
                .get_mut(col)
                .and_then(|q| q.pop_front())
                .unwrap_or(crate::board::UNKNOWN)
        }
    }

    /// The board `after_swap` resolves to when column `c` takes the gems of
    /// `refills[c]` in order (a verifier's witness, replayed).
    pub fn replay(after_swap: &Board, refills: &[Vec<u8>]) -> Board {
        let mut t = after_swap.clone();
        let mut s = Scripted(
            refills
                .iter()
                .map(|v| v.iter().copied().collect())
                .collect(),
        );
        resolve(&mut t, &Scoring::CELLS, &mut s);
        t
    }

    /// Every line as its list of cells (rows first, then columns).
    pub fn lines(b: &Board) -> Vec<Vec<Cell>> {
        let mut out = Vec::new();
        for r in 0..b.rows() {
            let mut run = vec![Cell::new(r, 0)];
            for c in 1..=b.cols() {
                if c < b.cols() && b.get(r, c) == b.get(r, run[0].col) {
                    run.push(Cell::new(r, c));
                } else {
                    if run.len() >= 3 && is_gem(b.get(r, run[0].col)) {
                        out.push(run.clone());
                    }
                    if c < b.cols() {
                        run = vec![Cell::new(r, c)];
                    }
                }
            }
        }
        for c in 0..b.cols() {
            let mut run = vec![Cell::new(0, c)];
            for r in 1..=b.rows() {
                if r < b.rows() && b.get(r, c) == b.get(run[0].row, c) {
                    run.push(Cell::new(r, c));
                } else {
                    if run.len() >= 3 && is_gem(b.get(run[0].row, c)) {
                        out.push(run.clone());
                    }
                    if r < b.rows() {
                        run = vec![Cell::new(r, c)];
                    }
                }
            }
        }
        out
    }

    fn swapped(b: &Board, x: Cell, y: Cell) -> Board {
        let mut t = b.clone();
        let (vx, vy) = (b.get(x.row, x.col), b.get(y.row, y.col));
        t.set(x.row, x.col, vy);
        t.set(y.row, y.col, vx);
        t
    }

    /// Every legal swap as a cell pair (first cell first in row-major order).
    pub fn legal_swaps(b: &Board) -> Vec<(Cell, Cell)> {
        let b = norm(b);
        let mut out = Vec::new();
        for r in 0..b.rows() {
            for c in 0..b.cols() {
                let x = Cell::new(r, c);
                for y in [Cell::new(r, c + 1), Cell::new(r + 1, c)] {
                    if y.row >= b.rows() || y.col >= b.cols() {
                        continue;
                    }
                    let (vx, vy) = (b.get(x.row, x.col), b.get(y.row, y.col));
                    if !is_gem(vx) || !is_gem(vy) || vx == vy {
                        continue;
                    }
                    let t = swapped(&b, x, y);
                    if lines(&t).iter().any(|l| l.contains(&x) || l.contains(&y)) {
                        out.push((x, y));
                    }
                }
            }
        }
        out
    }

    /// Clears lines, applies gravity and refill until stable.
    pub fn resolve(b: &mut Board, scoring: &Scoring, refill: &mut impl Refill) -> Outcome {
        let mut out = Outcome::default();
        loop {
            let ls = lines(b);
            if ls.is_empty() {
                return out;
            }
            let mut cleared: Vec<Cell> = ls.iter().flatten().copied().collect();
            cleared.sort();
            cleared.dedup();
            let line_pts: i64 = ls.iter().map(|l| scoring.line_points(l.len())).sum();
            out.points += scoring.wave_points(out.waves, cleared.len(), line_pts);
            out.cells += cleared.len();
            out.lines += ls.len();
            out.waves += 1;
            for c in 0..b.cols() {
                let keep: Vec<u8> = (0..b.rows())
                    .filter(|&r| !cleared.contains(&Cell::new(r, c)))
                    .map(|r| b.get(r, c))
                    .collect();
                let fresh = b.rows() - keep.len();
                let mut new_top: Vec<u8> = (0..fresh).map(|_| refill.next(c)).collect();
                // The first refilled gem lands lowest.
                new_top.reverse();
                for (r, v) in new_top.into_iter().chain(keep).enumerate() {
                    b.set(r, c, v);
                }
            }
        }
    }

    /// Plays the swap of `x` and `y` if legal.
    pub fn apply(
        b: &Board,
        x: Cell,
        y: Cell,
        scoring: &Scoring,
        refill: &mut impl Refill,
    ) -> Option<(Board, Outcome)> {
        let n = norm(b);
        if !legal_swaps(&n).contains(&(x, y)) {
            return None;
        }
        let mut t = swapped(&n, x, y);
        let o = resolve(&mut t, scoring, refill);
        Some((t, o))
    }
}
