//! Collapse rules (SameGame, PopStar, Swell Foop) on a fast column-major board.
//!
//! A move removes a 4-connected group of 2 or more same-coloured cells; the cells
//! above fall down; empty columns close to the left. The game ends when no group
//! of 2+ is left.
//!
//! Representation: [`CBoard<N>`] stores `w` columns of height `h`, column-major and
//! bottom-up: index `col * h + row_from_bottom`. `0` is empty, colours are
//! `1..=9`. Invariant: in every column the filled cells form a run from the
//! bottom, and the filled columns form a run from the left. `N` is the capacity
//! (`w * h <= N`), chosen per board size so small boards copy little.
//!
//! Scoring (selected by [`Scoring`]):
//! - PopStar: `5 n^2` per group; at the end `2000 - 20 r^2` when `r < 10` cells remain.
//! - SameGame (Swell Foop, KSame): `(n - 2)^2` per group; `+1000` for a cleared board.

use serde::{Deserialize, Serialize};

use crate::board::{Board, Cell, EMPTY, UNKNOWN};
use crate::games::GameError;

/// The scoring rules of a collapse game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scoring {
    PopStar,
    SameGame,
}

impl Scoring {
    /// Points for removing a group of `n` cells.
    #[inline]
    pub fn group_points(self, n: u32) -> i32 {
        let n = n as i32;
        match self {
            Scoring::PopStar => 5 * n * n,
            Scoring::SameGame => (n - 2) * (n - 2),
        }
    }

    /// Bonus when the game ends with `remaining` cells left.
    #[inline]
    pub fn end_bonus(self, remaining: u32) -> i32 {
        let r = remaining as i32;
        match self {
            Scoring::PopStar if r < 10 => 2000 - 20 * r * r,
            Scoring::PopStar => 0,
            Scoring::SameGame if r == 0 => 1000,
            Scoring::SameGame => 0,
        }
    }
}

/// Largest supported board side.
pub const MAX_SIDE: usize = 32;

/// A group of same-coloured connected cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Group {
    /// Index of the group's lowest cell in its leftmost column (internal layout).
    pub rep: u16,
    pub size: u16,
    pub colour: u8,
}

/// Cells and lone cells (groups of one) per colour (index 0 unused).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Census {
    pub cells: [u16; 10],
    pub lone: [u16; 10],
}

impl Census {
    /// Lone cells of every colour.
    pub fn lone_total(&self) -> u32 {
        self.lone.iter().map(|&n| n as u32).sum()
    }
}

/// What a state's evaluation needs of its groups of 2+: their points
/// summed, a kept colour's apart, and their number.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GroupSums {
    pub points: i64,
    /// The points of the kept colour's groups.
    pub target: i64,
    pub count: u32,
}

/// Points of a group by its size, looked up, and the kept colour (0: none).
#[derive(Debug, Clone, Default)]
pub struct Points {
    table: Vec<i64>,
    target: u8,
}

impl Points {
    /// The table for groups of up to `cells` cells.
    pub fn new(scoring: Scoring, cells: usize, target: u8) -> Self {
        Points {
            table: (0..=cells as u32)
                .map(|n| scoring.group_points(n) as i64)
                .collect(),
            target,
        }
    }

    /// The kept colour (0: none).
    pub fn target(&self) -> u8 {
        self.target
    }

    /// Adds a group to `sums`.
    #[inline(always)]
    pub fn add(&self, sums: &mut GroupSums, g: Group) {
        let p = self.table.get(g.size as usize).copied().unwrap_or(0);
        if g.colour == self.target {
            sums.target += p;
        } else {
            sums.points += p;
        }
        sums.count += 1;
    }
}

/// A collapse board with capacity `N` bytes.
///
/// Layout: columns of stride `s = h + 1` (the extra top byte is always 0), with
/// one all-zero guard column on each side, so cell (col, row_from_bottom) lives
/// at `s * (col + 1) + row`. Every neighbour of a cell (`±1`, `±s`) is a valid
/// index, and guards never match a colour: no bounds checks, no divisions.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct CBoard<const N: usize> {
    w: u8,
    h: u8,
    cells: [u8; N],
}

impl<const N: usize> std::fmt::Debug for CBoard<N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.to_board())
    }
}

/// Bytes a `cols` x `rows` board needs.
pub const fn capacity_for(rows: usize, cols: usize) -> usize {
    (cols + 2) * (rows + 1)
}

impl<const N: usize> CBoard<N> {
    #[inline]
    fn stride(&self) -> usize {
        self.h as usize + 1
    }

    #[inline]
    fn idx(&self, c: usize, rb: usize) -> usize {
        self.stride() * (c + 1) + rb
    }

    /// First and one-past-last index of the playing area.
    #[inline]
    fn span(&self) -> (usize, usize) {
        let s = self.stride();
        (s, s * (self.w as usize + 1))
    }

    /// Converts a shared board: colours `1..=9`; `0` and `.` are empty.
    pub fn from_board(b: &Board) -> Result<Self, GameError> {
        let (rows, cols) = (b.rows(), b.cols());
        if capacity_for(rows, cols) > N
            || rows > MAX_SIDE
            || cols > MAX_SIDE
            || rows == 0
            || cols == 0
        {
            return Err(GameError::TooLarge {
                rows,
                cols,
                max_rows: MAX_SIDE,
                max_cols: MAX_SIDE,
            });
        }
        let unknown = b.unknown_count();
        if unknown > 0 {
            return Err(GameError::Unread(unknown));
        }
        let mut out = CBoard {
            w: cols as u8,
            h: rows as u8,
            cells: [0u8; N],
        };
        for c in 0..cols {
            let mut seen_empty = false;
            for rb in 0..rows {
                let r = rows - 1 - rb;
                let v = match b.get(r, c) {
                    0 | EMPTY => 0,
                    v @ 1..=9 => v,
                    v => {
                        return Err(GameError::BadCell {
                            row: r,
                            col: c,
                            value: v,
                        })
                    }
                };
                if v == 0 {
                    seen_empty = true;
                } else if seen_empty {
                    return Err(GameError::Floating { row: r, col: c });
                }
                let i = out.idx(c, rb);
                out.cells[i] = v;
            }
        }
        // Filled columns must form a run from the left.
        let mut seen_empty_col = false;
        for c in 0..cols {
            if out.cells[out.idx(c, 0)] == 0 {
                seen_empty_col = true;
            } else if seen_empty_col {
                return Err(GameError::Floating {
                    row: rows - 1,
                    col: c,
                });
            }
        }
        Ok(out)
    }

    /// The shared board (row 0 on top, empty cells as `.`).
    pub fn to_board(&self) -> Board {
        let (w, h) = (self.w as usize, self.h as usize);
        let mut b = Board::new(h, w, EMPTY);
        for c in 0..w {
            for rb in 0..h {
                let v = self.at(c, rb);
                b.set(h - 1 - rb, c, if v == 0 { EMPTY } else { v });
            }
        }
        b
    }

    pub fn width(&self) -> usize {
        self.w as usize
    }

    pub fn height(&self) -> usize {
        self.h as usize
    }

    /// The colour at column `c`, row-from-bottom `rb` (0 = empty).
    #[inline]
    pub fn at(&self, c: usize, rb: usize) -> u8 {
        self.cells[self.idx(c, rb)]
    }

    /// The shared-board cell of an index.
    pub fn cell_of(&self, idx: u16) -> Cell {
        let s = self.stride();
        let (c, rb) = (idx as usize / s - 1, idx as usize % s);
        Cell::new(self.h as usize - 1 - rb, c)
    }

    /// The index of a shared-board cell.
    pub fn index_of(&self, cell: Cell) -> Option<u16> {
        let h = self.h as usize;
        if cell.row >= h || cell.col >= self.w as usize {
            return None;
        }
        Some(self.idx(cell.col, h - 1 - cell.row) as u16)
    }

    /// Number of filled cells.
    pub fn remaining(&self) -> u32 {
        let (a, b) = self.span();
        self.cells[a..b].iter().filter(|&&v| v != 0).count() as u32
    }

    /// Cells per colour (index 0 unused).
    pub fn colour_counts(&self) -> [u16; 10] {
        let mut out = [0u16; 10];
        let (a, b) = self.span();
        for &v in &self.cells[a..b] {
            out[v as usize] += 1;
        }
        out[0] = 0;
        out
    }

    /// Every group (singletons included), in index order of their lowest cell.
    pub fn groups(&self, out: &mut Vec<Group>) {
        out.clear();
        let s = self.stride();
        let a = self.span().0;
        // Visited cells are zeroed in a scratch copy; guards are already zero.
        let mut work = self.cells;
        let mut stack = [0u16; N];
        for c in 0..self.w as usize {
            let base = a + c * s;
            for start in base..base + s - 1 {
                if self.cells[start] == 0 {
                    if start == base {
                        // Empty bottom cell: this and every later column is empty.
                        return;
                    }
                    break;
                }
                let colour = work[start];
                if colour == 0 {
                    continue; // already in a group
                }
                work[start] = 0;
                // A lone cell (most groups on a random board): no flood. A
                // matching neighbour to the left or below would have taken
                // this cell into its group already, so only the cell above
                // and the one to the right can still match.
                if work[start + 1] != colour && work[start + s] != colour {
                    out.push(Group {
                        rep: start as u16,
                        size: 1,
                        colour,
                    });
                    continue;
                }
                stack[0] = start as u16;
                let mut sp = 1;
                let mut size = 0u16;
                while sp > 0 {
                    sp -= 1;
                    let i = stack[sp] as usize;
                    size += 1;
                    for j in [i + 1, i - 1, i + s, i - s] {
                        if work[j] == colour {
                            work[j] = 0;
                            stack[sp] = j as u16;
                            sp += 1;
                        }
                    }
                }
                out.push(Group {
                    rep: start as u16,
                    size,
                    colour,
                });
            }
        }
    }

    /// The groups of 2+ cells (as [`CBoard::groups`] orders them), and the
    /// cells and lone cells per colour.
    pub fn census(&self, out: &mut Vec<Group>, census: &mut Census) {
        self.groups(out);
        *census = Census::default();
        for g in out.iter() {
            census.cells[g.colour as usize] += g.size;
            census.lone[g.colour as usize] += (g.size == 1) as u16;
        }
        out.retain(|g| g.size >= 2);
    }

    /// True when some group of 2+ is left (checks neighbours only).
    pub fn has_move(&self) -> bool {
        let s = self.stride();
        let (a, b) = self.span();
        (a..b).any(|i| {
            let v = self.cells[i];
            v != 0 && (self.cells[i + 1] == v || self.cells[i + s] == v)
        })
    }

    /// Removes the group holding cell `idx`; returns its size (0 if the cell is
    /// empty or outside, 1 if it is a lone cell, in which case nothing changes).
    pub fn remove_group(&mut self, idx: u16) -> u32 {
        let s = self.stride();
        let (a, b) = self.span();
        let start = idx as usize;
        if start < a || start >= b || start % s == s - 1 {
            return 0;
        }
        let colour = self.cells[start];
        if colour == 0 {
            return 0;
        }
        let mut stack = [0u16; N];
        let mut sp = 1;
        stack[0] = idx;
        self.cells[start] = 0;
        let mut size = 0u32;
        let mut touched = 0u64; // bit c: column c lost a cell (w <= 32)
        while sp > 0 {
            sp -= 1;
            let i = stack[sp] as usize;
            size += 1;
            touched |= 1 << (i / s - 1);
            for j in [i + 1, i - 1, i + s, i - s] {
                if self.cells[j] == colour {
                    self.cells[j] = 0;
                    stack[sp] = j as u16;
                    sp += 1;
                }
            }
        }
        if size == 1 {
            self.cells[start] = colour;
            return 1;
        }
        // Gravity in the touched columns.
        let mut empty_cols = false;
        let mut t = touched;
        while t != 0 {
            let c = t.trailing_zeros() as usize;
            t &= t - 1;
            let base = a + c * s;
            let col = &mut self.cells[base..base + s - 1];
            let mut wr = 0;
            for rd in 0..col.len() {
                let v = col[rd];
                if v != 0 {
                    col[wr] = v;
                    wr += 1;
                }
            }
            col[wr..].fill(0);
            empty_cols |= wr == 0;
        }
        // Close empty columns to the left.
        if empty_cols {
            let mut wc = a;
            for base in (a..b).step_by(s) {
                if self.cells[base] != 0 {
                    if wc != base {
                        self.cells.copy_within(base..base + s, wc);
                    }
                    wc += s;
                }
            }
            self.cells[wc..b].fill(0);
        }
        size
    }

    /// A 64-bit hash of the cells (FxHash-style), for duplicate removal.
    #[inline]
    pub fn hash64(&self) -> u64 {
        let (a, b) = self.span();
        let mut hsh = 0u64;
        for chunk in self.cells[a..b].chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            hsh =
                (hsh.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
        hsh
    }
}

/// Whether a shared board holds any unread cell.
pub fn has_unknown(b: &Board) -> bool {
    b.cells().contains(&UNKNOWN)
}

/// A deliberately simple reference implementation on the shared board
/// (row-major, row 0 on top), used to check the fast one in tests.
pub mod naive {
    use crate::board::{Board, EMPTY};

    fn is_empty(v: u8) -> bool {
        v == EMPTY || v == 0
    }

    /// The cells of the group at (r, c), by breadth-first search.
    pub fn group(b: &Board, r: usize, c: usize) -> Vec<(usize, usize)> {
        let colour = b.get(r, c);
        if is_empty(colour) {
            return vec![];
        }
        let mut seen = vec![false; b.rows() * b.cols()];
        let mut queue = std::collections::VecDeque::from([(r, c)]);
        seen[r * b.cols() + c] = true;
        let mut out = vec![];
        while let Some((r, c)) = queue.pop_front() {
            out.push((r, c));
            let mut nbrs = vec![];
            if r > 0 {
                nbrs.push((r - 1, c));
            }
            if r + 1 < b.rows() {
                nbrs.push((r + 1, c));
            }
            if c > 0 {
                nbrs.push((r, c - 1));
            }
            if c + 1 < b.cols() {
                nbrs.push((r, c + 1));
            }
            for (nr, nc) in nbrs {
                if !seen[nr * b.cols() + nc] && b.get(nr, nc) == colour {
                    seen[nr * b.cols() + nc] = true;
                    queue.push_back((nr, nc));
                }
            }
        }
        out
    }

    /// Removes the group at (r, c) if it has 2+ cells; returns its size.
    pub fn play(b: &mut Board, r: usize, c: usize) -> usize {
        let g = group(b, r, c);
        if g.len() < 2 {
            return 0;
        }
        for &(r, c) in &g {
            b.set(r, c, EMPTY);
        }
        let (rows, cols) = (b.rows(), b.cols());
        // Gravity: rebuild each column from its filled cells.
        let mut columns: Vec<Vec<u8>> = (0..cols)
            .map(|c| {
                (0..rows)
                    .rev()
                    .map(|r| b.get(r, c))
                    .filter(|&v| !is_empty(v))
                    .collect()
            })
            .collect();
        columns.retain(|col| !col.is_empty());
        for c in 0..cols {
            for rb in 0..rows {
                let v = columns
                    .get(c)
                    .and_then(|col| col.get(rb))
                    .copied()
                    .unwrap_or(EMPTY);
                b.set(rows - 1 - rb, c, v);
            }
        }
        g.len()
    }

    /// Every cell that starts a move (2+ group), one per group: its top-left-most cell.
    pub fn moves(b: &Board) -> Vec<(usize, usize)> {
        let mut seen = vec![false; b.rows() * b.cols()];
        let mut out = vec![];
        for r in 0..b.rows() {
            for c in 0..b.cols() {
                if seen[r * b.cols() + c] || is_empty(b.get(r, c)) {
                    continue;
                }
                let g = group(b, r, c);
                for &(gr, gc) in &g {
                    seen[gr * b.cols() + gc] = true;
                }
                if g.len() >= 2 {
                    out.push((r, c));
                }
            }
        }
        out
    }
}
