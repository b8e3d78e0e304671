//! Orb-drag rules (Puzzle & Dragons, Tower of Saviors): the drag, then the
//! match, merge, clear, fall and cascade cycle with nothing falling in from
//! above (new orbs are unknown).
//!
//! Boards up to 7x6 (42 cells) live in a `[u8; 42]` plus one `u64` bit mask
//! per colour for matching: bit `r * cols + c`. Colours `0..=5` are fire,
//! water, wood, light, dark, heal (`R B G L D H`), [`JAMMER`] and [`POISON`]
//! match like the others; [`EMPTY`] never matches.

use crate::board::{Board, EMPTY, UNKNOWN};

/// Most cells a board may have (7x6).
pub const MAX_CELLS: usize = 42;
/// Colour index of jammer orbs.
pub const JAMMER: u8 = 6;
/// Colour index of poison orbs.
pub const POISON: u8 = 7;
/// Distinct orb colours.
pub const COLOURS: usize = 8;
/// Most combos one board can make (42 / 3).
pub const MAX_COMBOS: usize = MAX_CELLS / 3;

/// The letters of the colours, by index.
pub const LETTERS: [char; COLOURS] = ['R', 'B', 'G', 'L', 'D', 'H', 'J', 'P'];

/// Shape of a board: sizes and the bit masks matching needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    pub rows: usize,
    pub cols: usize,
    /// Every cell.
    pub full: u64,
    /// Cells not in the first (last) column.
    not_first: u64,
    not_last: u64,
    /// Cells where a horizontal run of three can start.
    h_start: u64,
}

impl Geometry {
    /// `None` when the board has more than [`MAX_CELLS`] cells or a side
    /// shorter than 3.
    pub fn new(rows: usize, cols: usize) -> Option<Self> {
        if rows < 3 || cols < 3 || rows * cols > MAX_CELLS {
            return None;
        }
        let mut g = Geometry {
            rows,
            cols,
            full: 0,
            not_first: 0,
            not_last: 0,
            h_start: 0,
        };
        for r in 0..rows {
            for c in 0..cols {
                let b = 1u64 << (r * cols + c);
                g.full |= b;
                if c > 0 {
                    g.not_first |= b;
                }
                if c + 1 < cols {
                    g.not_last |= b;
                }
                if c + 3 <= cols {
                    g.h_start |= b;
                }
            }
        }
        Some(g)
    }

    pub fn cells(&self) -> usize {
        self.rows * self.cols
    }

    /// Cells two columns from the right edge or more (where `x.x` can start).
    #[inline]
    pub fn gap_h(&self) -> u64 {
        self.h_start
    }

    /// Cells with a right neighbour (where a horizontal pair can start).
    #[inline]
    pub fn pair_h(&self) -> u64 {
        self.not_last
    }

    /// The 4-neighbours of the cells in `m` (within the board).
    #[inline]
    fn spread(&self, m: u64) -> u64 {
        (((m << 1) & self.not_first)
            | ((m >> 1) & self.not_last)
            | (m << self.cols)
            | (m >> self.cols))
            & self.full
    }

    /// The cells of `m` that are part of a line of three or more.
    #[inline]
    pub fn lines(&self, m: u64) -> u64 {
        let c = self.cols;
        let h = m & (m >> 1) & (m >> 2) & self.h_start;
        let v = m & (m >> c) & (m >> (2 * c));
        h | (h << 1) | (h << 2) | v | (v << c) | (v << (2 * c))
    }

    /// The neighbour of cell `i` one step in direction `d` (0-3 orthogonal:
    /// up, down, left, right; 4-7 diagonal), if on the board.
    #[inline]
    pub fn step(&self, i: usize, d: usize) -> Option<usize> {
        const DR: [i32; 8] = [-1, 1, 0, 0, -1, -1, 1, 1];
        const DC: [i32; 8] = [0, 0, -1, 1, -1, 1, -1, 1];
        let r = (i / self.cols) as i32 + DR[d];
        let c = (i % self.cols) as i32 + DC[d];
        (r >= 0 && c >= 0 && (r as usize) < self.rows && (c as usize) < self.cols)
            .then(|| r as usize * self.cols + c as usize)
    }
}

/// One combo: a connected set of matched orbs of one colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Combo {
    pub colour: u8,
    pub size: u8,
    /// Cascade pass it cleared in (0 = the first).
    pub pass: u8,
    /// Holds a whole row of the board.
    pub row: bool,
}

/// What a board's resolution did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    pub combos: Vec<Combo>,
    /// Orbs cleared.
    pub cleared: u32,
    /// The board after the last cascade (cleared cells empty, orbs fallen).
    pub after: Orbs,
}

/// Orbs on a board of at most [`MAX_CELLS`] cells; row-major, row 0 on top.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Orbs {
    pub cells: [u8; MAX_CELLS],
}

impl Orbs {
    /// The orbs of a board; `None` if it has unread cells, a value that is
    /// no colour, or too many cells.
    pub fn from_board(b: &Board) -> Option<(Geometry, Orbs)> {
        let g = Geometry::new(b.rows(), b.cols())?;
        let mut cells = [EMPTY; MAX_CELLS];
        for (i, &v) in b.cells().iter().enumerate() {
            if v == UNKNOWN || (v != EMPTY && v as usize >= COLOURS) {
                return None;
            }
            cells[i] = v;
        }
        Some((g, Orbs { cells }))
    }

    pub fn to_board(&self, g: &Geometry) -> Board {
        Board::from_cells(g.rows, g.cols, self.cells[..g.cells()].to_vec())
    }

    /// One mask per colour.
    #[inline]
    pub fn masks(&self, g: &Geometry) -> [u64; COLOURS] {
        let mut m = [0u64; COLOURS];
        for (i, &v) in self.cells[..g.cells()].iter().enumerate() {
            if (v as usize) < COLOURS {
                m[v as usize] |= 1 << i;
            }
        }
        m
    }

    /// Orbs of each colour.
    pub fn counts(&self, g: &Geometry) -> [u32; COLOURS] {
        self.masks(g).map(|m| m.count_ones())
    }

    /// The theoretical most combos: Σ over colours ⌊count / 3⌋, at most
    /// ⌊cells / 3⌋.
    pub fn max_combos(&self, g: &Geometry) -> u32 {
        let s: u32 = self.counts(g).iter().map(|c| c / 3).sum();
        s.min(g.cells() as u32 / 3)
    }

    /// Swaps the orbs of two cells.
    #[inline]
    pub fn swap(&mut self, a: usize, b: usize) {
        self.cells.swap(a, b);
    }

    /// The board after dragging the orb at `path[0]` through `path[1..]`
    /// (each step swaps the held orb with the orb of the cell entered).
    pub fn dragged(&self, path: &[usize]) -> Orbs {
        let mut o = *self;
        for w in path.windows(2) {
            o.swap(w[0], w[1]);
        }
        o
    }

    /// Orbs fall down their columns into empty cells.
    #[inline]
    fn fall(&mut self, g: &Geometry) {
        for c in 0..g.cols {
            let mut w = g.rows;
            for r in (0..g.rows).rev() {
                let v = self.cells[r * g.cols + c];
                if v != EMPTY {
                    w -= 1;
                    self.cells[w * g.cols + c] = v;
                }
            }
            for r in 0..w {
                self.cells[r * g.cols + c] = EMPTY;
            }
        }
    }

    /// Matches, clears and cascades until nothing matches.
    pub fn resolve(&self, g: &Geometry) -> Resolution {
        let mut combos = Vec::new();
        let (after, cleared) = self.resolve_with(g, &mut |c| combos.push(c));
        Resolution {
            combos,
            cleared,
            after,
        }
    }

    /// [`Orbs::resolve`] reporting each combo to `on_combo`, without
    /// allocating; returns the board at the end and the orbs cleared.
    #[inline]
    pub fn resolve_with(&self, g: &Geometry, on_combo: &mut dyn FnMut(Combo)) -> (Orbs, u32) {
        let mut o = *self;
        let mut cleared = 0u32;
        let row0 = g.full >> (g.cols * (g.rows - 1));
        for pass in 0u8.. {
            let masks = o.masks(g);
            let mut gone = 0u64;
            for (colour, &m) in masks.iter().enumerate() {
                if m.count_ones() < 3 {
                    continue;
                }
                let mut marked = g.lines(m);
                gone |= marked;
                while marked != 0 {
                    // Grow one connected set of marked orbs from its lowest bit.
                    let mut comp = marked & marked.wrapping_neg();
                    loop {
                        let next = comp | (g.spread(comp) & marked);
                        if next == comp {
                            break;
                        }
                        comp = next;
                    }
                    marked &= !comp;
                    let row = (0..g.rows).any(|r| {
                        let rm = row0 << (r * g.cols);
                        comp & rm == rm
                    });
                    on_combo(Combo {
                        colour: colour as u8,
                        size: comp.count_ones() as u8,
                        pass,
                        row,
                    });
                }
            }
            if gone == 0 {
                break;
            }
            cleared += gone.count_ones();
            let mut m = gone;
            while m != 0 {
                let i = m.trailing_zeros() as usize;
                o.cells[i] = EMPTY;
                m &= m - 1;
            }
            o.fall(g);
        }
        (o, cleared)
    }
}

/// The naive reference: the same rules written cell by cell (breadth-first
/// search for combos, array scans for lines), for tests.
pub fn resolve_naive(g: &Geometry, o: &Orbs) -> (usize, u32, Orbs) {
    let (rows, cols) = (g.rows, g.cols);
    let mut cells = o.cells;
    let mut combos = 0;
    let mut cleared = 0;
    loop {
        let mut marked = vec![false; rows * cols];
        for r in 0..rows {
            for c in 0..cols {
                let v = cells[r * cols + c];
                if v == EMPTY {
                    continue;
                }
                if c + 2 < cols && cells[r * cols + c + 1] == v && cells[r * cols + c + 2] == v {
                    for k in 0..3 {
                        marked[r * cols + c + k] = true;
                    }
                }
                if r + 2 < rows && cells[(r + 1) * cols + c] == v && cells[(r + 2) * cols + c] == v
                {
                    for k in 0..3 {
                        marked[(r + k) * cols + c] = true;
                    }
                }
            }
        }
        if !marked.iter().any(|&m| m) {
            break;
        }
        let mut seen = vec![false; rows * cols];
        for start in 0..rows * cols {
            if !marked[start] || seen[start] {
                continue;
            }
            combos += 1;
            let mut stack = vec![start];
            seen[start] = true;
            while let Some(i) = stack.pop() {
                let (r, c) = (i / cols, i % cols);
                let mut near = Vec::new();
                if r > 0 {
                    near.push(i - cols);
                }
                if r + 1 < rows {
                    near.push(i + cols);
                }
                if c > 0 {
                    near.push(i - 1);
                }
                if c + 1 < cols {
                    near.push(i + 1);
                }
                for j in near {
                    if marked[j] && !seen[j] && cells[j] == cells[i] {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        for (i, &m) in marked.iter().enumerate() {
            if m {
                cells[i] = EMPTY;
                cleared += 1;
            }
        }
        for c in 0..cols {
            let col: Vec<u8> = (0..rows)
                .map(|r| cells[r * cols + c])
                .filter(|&v| v != EMPTY)
                .collect();
            let top = rows - col.len();
            for r in 0..rows {
                cells[r * cols + c] = if r < top { EMPTY } else { col[r - top] };
            }
        }
    }
    (combos, cleared, Orbs { cells })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn orbs(text: &str) -> (Geometry, Orbs) {
        let b: Board = text.parse().expect("a board");
        Orbs::from_board(&b).expect("orbs")
    }

    #[test]
    fn lines_merge_into_one_combo_per_touching_colour() {
        // An L of fire (row of 3 + column of 3 sharing a corner) is one
        // combo; the water row is another; nothing cascades.
        let (g, o) = orbs("000345/014523/011123/234512/345123");
        let r = o.resolve(&g);
        assert_eq!(r.combos.len(), 2, "{:?}", r.combos);
        assert_eq!(r.cleared, 8);
        assert_eq!(r.combos[0].colour, 0);
        assert_eq!(r.combos[0].size, 5);
        assert_eq!(r.combos[1].colour, 1);
        assert_eq!(r.combos[1].size, 3);
        assert_eq!(
            r.after.to_board(&g).to_string(),
            "....45/...323/.14523/234512/345123"
        );
    }

    #[test]
    fn cascades_count_and_rows_are_flagged() {
        // The middle row of 2s clears (a whole row); the 1s above fall onto
        // the 1 below: a column of three in the second pass.
        let (g, o) = orbs("1../1../222/100");
        let r = o.resolve(&g);
        assert_eq!(
            r.combos,
            vec![
                Combo {
                    colour: 2,
                    size: 3,
                    pass: 0,
                    row: true
                },
                Combo {
                    colour: 1,
                    size: 3,
                    pass: 1,
                    row: false
                },
            ]
        );
        assert_eq!(r.cleared, 6);
        assert_eq!(r.after.to_board(&g).to_string(), ".../.../.../.00");
        let (n, cleared, after) = resolve_naive(&g, &o);
        assert_eq!((n, cleared, after), (2, 6, r.after));
    }

    #[test]
    fn max_combos_counts_triples_per_colour() {
        let (g, o) = orbs("033324/132134/302324/420155/421424");
        // Counts: 0:3 1:4 2:7 3:7 4:7 5:2 -> 1+1+2+2+2+0 = 8.
        assert_eq!(o.counts(&g)[..6], [3, 4, 7, 7, 7, 2]);
        assert_eq!(o.max_combos(&g), 8);
    }

    #[test]
    fn drag_swaps_along_the_path() {
        let (g, o) = orbs("012/345/012");
        let d = o.dragged(&[0, 1, 4, 3]);
        // The held 0 goes right, down, left: each cell entered gives its orb
        // to the cell left.
        assert_eq!(d.to_board(&g).to_string(), "142/035/012");
    }
}
