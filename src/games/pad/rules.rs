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
/// Most rows a board may have (42 cells, three columns at least).
const MAX_ROWS: usize = MAX_CELLS / 3;
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
    /// Column-major bit of each row-major cell (see [`Bits`]).
    bit: [u8; MAX_CELLS],
    /// Column-major: bits of one column (the lowest column's).
    col: u64,
    /// Column-major: cells with a cell below (above) them in their column.
    has_below: u64,
    has_above: u64,
    /// Column-major: cells where a vertical run of three can start (going up).
    v_start: u64,
    /// Column-major: each row's cells.
    row_bits: [u64; MAX_ROWS],
    /// Column-major: every cell.
    all: u64,
    /// Column-major: the column of each bit.
    col_of: [u8; 64],
    /// Each cell's neighbour in each direction ([`Geometry::step`]), 255 off
    /// the board.
    nbr: [[u8; 8]; MAX_CELLS],
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
            bit: [0; MAX_CELLS],
            col: (1u64 << rows) - 1,
            has_below: 0,
            has_above: 0,
            v_start: 0,
            row_bits: [0; MAX_ROWS],
            all: 0,
            col_of: [0; 64],
            nbr: [[u8::MAX; 8]; MAX_CELLS],
        };
        for r in 0..rows {
            for c in 0..cols {
                // Column-major, the bottom row lowest in each column.
                let k = c * rows + (rows - 1 - r);
                g.bit[r * cols + c] = k as u8;
                let kb = 1u64 << k;
                g.all |= kb;
                g.row_bits[r] |= kb;
                if r + 1 < rows {
                    g.has_below |= kb;
                }
                if r > 0 {
                    g.has_above |= kb;
                }
                if r >= 2 {
                    g.v_start |= kb;
                }
                g.full |= 1u64 << (r * cols + c);
                g.col_of[k] = c as u8;
                const DR: [i32; 8] = [-1, 1, 0, 0, -1, -1, 1, 1];
                const DC: [i32; 8] = [0, 0, -1, 1, -1, 1, -1, 1];
                for d in 0..8 {
                    let (nr, nc) = (r as i32 + DR[d], c as i32 + DC[d]);
                    if nr >= 0 && nc >= 0 && (nr as usize) < rows && (nc as usize) < cols {
                        g.nbr[r * cols + c][d] = (nr as usize * cols + nc as usize) as u8;
                    }
                }
            }
        }
        Some(g)
    }

    pub fn cells(&self) -> usize {
        self.rows * self.cols
    }

    /// The neighbour of cell `i` one step in direction `d` (0-3 orthogonal:
    /// up, down, left, right; 4-7 diagonal), if on the board.
    #[inline]
    pub fn step(&self, i: usize, d: usize) -> Option<usize> {
        let n = self.nbr[i][d];
        (n != u8::MAX).then_some(n as usize)
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
        let (after, cleared) = Bits::new(g, self).resolve(g, on_combo);
        (after.orbs(g), cleared)
    }
}

/// A board as one bit mask per colour, column-major with each column's
/// bottom cell lowest (`Geometry::bit`), so that lines are shifts and a
/// column falls by packing its bits. What the solver works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bits {
    pub masks: [u64; COLOURS],
}

impl Bits {
    pub fn new(g: &Geometry, o: &Orbs) -> Self {
        let mut masks = [0u64; COLOURS];
        for (i, &v) in o.cells[..g.cells()].iter().enumerate() {
            if (v as usize) < COLOURS {
                masks[v as usize] |= 1 << g.bit[i];
            }
        }
        Bits { masks }
    }

    /// The orbs again, row-major.
    pub fn orbs(&self, g: &Geometry) -> Orbs {
        let mut cells = [EMPTY; MAX_CELLS];
        for (i, cell) in cells[..g.cells()].iter_mut().enumerate() {
            let b = 1u64 << g.bit[i];
            if let Some(k) = self.masks.iter().position(|&m| m & b != 0) {
                *cell = k as u8;
            }
        }
        Orbs { cells }
    }

    /// The colour of row-major cell `i` ([`EMPTY`] if none).
    #[inline]
    pub fn colour(&self, g: &Geometry, i: usize) -> u8 {
        // Without branches: the colours are random, branches on them miss.
        let bit = g.bit[i];
        let (mut k, mut any) = (0u8, 0u8);
        for (c, &m) in self.masks.iter().enumerate() {
            let on = (m >> bit) as u8 & 1;
            k |= on * c as u8;
            any |= on;
        }
        if any == 0 {
            EMPTY
        } else {
            k
        }
    }

    /// Swaps the orbs of row-major cells `a` (colour `ca`) and `b` (`cb`).
    #[inline]
    pub fn swap(&mut self, g: &Geometry, a: usize, ca: u8, b: usize, cb: u8) {
        if ca == cb {
            return;
        }
        let both = (1u64 << g.bit[a]) | (1u64 << g.bit[b]);
        if (ca as usize) < COLOURS {
            self.masks[ca as usize] ^= both;
        }
        if (cb as usize) < COLOURS {
            self.masks[cb as usize] ^= both;
        }
    }

    /// Orbs of each colour.
    #[inline]
    pub fn counts(&self) -> [u32; COLOURS] {
        self.masks.map(|m| m.count_ones())
    }

    /// The cells of `m` in a line of three or more.
    #[inline]
    fn lines(g: &Geometry, m: u64) -> u64 {
        let r = g.rows;
        let h = m & (m >> r) & (m >> (2 * r));
        let v = m & (m >> 1) & (m >> 2) & g.v_start;
        h | (h << r) | (h << (2 * r)) | v | (v << 1) | (v << 2)
    }

    /// The 4-neighbours of the cells in `m`.
    #[inline]
    pub(crate) fn spread(g: &Geometry, m: u64) -> u64 {
        ((m & g.has_above) << 1)
            | ((m & g.has_below) >> 1)
            | ((m << g.rows) & g.all)
            | (m >> g.rows)
    }

    /// Columns spanned by the orbs of `m` (not empty): the last column less
    /// the first.
    #[inline]
    pub fn mask_columns(g: &Geometry, m: u64) -> u32 {
        let first = g.col_of[m.trailing_zeros() as usize];
        let last = g.col_of[63 - m.leading_zeros() as usize];
        (last - first) as u32
    }

    /// Rows spanned by the orbs of `m` (not empty): the last row less the
    /// first.
    #[inline]
    pub fn mask_rows(g: &Geometry, m: u64) -> u32 {
        // Fold the columns onto the first: 14 columns at most.
        let r = g.rows;
        let mut f = m;
        if g.cols > 8 {
            f |= f >> (8 * r);
        }
        f |= f >> (4 * r);
        f |= f >> (2 * r);
        f |= f >> r;
        f &= g.col;
        63 - f.leading_zeros() - f.trailing_zeros()
    }

    /// Columns spanned by each colour with three orbs or more, summed.
    #[inline]
    pub fn column_spread(&self, g: &Geometry) -> u32 {
        let mut s = 0;
        for &m in &self.masks {
            if m.count_ones() >= 3 {
                s += Self::mask_columns(g, m);
            }
        }
        s
    }

    /// Rows spanned by each colour with three orbs or more, summed.
    #[inline]
    pub fn row_spread(&self, g: &Geometry) -> u32 {
        let mut s = 0;
        for &m in &self.masks {
            if m.count_ones() >= 3 {
                s += Self::mask_rows(g, m);
            }
        }
        s
    }

    /// Matches, clears and cascades until nothing matches, reporting each
    /// combo; returns the board at the end and the orbs cleared. Columns
    /// fall by BMI2 bit extract and deposit where the processor has them
    /// (the whole board at once), else by shifts, one cleared height at a time.
    #[inline]
    pub fn resolve<F: FnMut(Combo) + ?Sized>(&self, g: &Geometry, on_combo: &mut F) -> (Bits, u32) {
        let (b, cleared, _) = self.resolve_first(g, on_combo);
        (b, cleared)
    }

    /// [`Bits::resolve`], and the cells cleared by the first pass
    /// (column-major bits).
    #[inline]
    pub fn resolve_first<F: FnMut(Combo) + ?Sized>(
        &self,
        g: &Geometry,
        on_combo: &mut F,
    ) -> (Bits, u32, u64) {
        #[cfg(target_arch = "x86_64")]
        if fast_pdep() {
            // SAFETY: the processor has BMI2 (checked by `fast_pdep`).
            return unsafe { self.resolve_bmi2(g, on_combo) };
        }
        self.resolve_by::<false, F>(g, on_combo)
    }

    /// [`Bits::resolve`] compiled with BMI2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi2")]
    unsafe fn resolve_bmi2<F: FnMut(Combo) + ?Sized>(
        &self,
        g: &Geometry,
        on_combo: &mut F,
    ) -> (Bits, u32, u64) {
        self.resolve_by::<true, F>(g, on_combo)
    }

    /// [`Bits::resolve`] with falls by BMI2 (`PEXT`, x86-64 only; the caller
    /// checks the processor has it) or by shifts.
    #[inline(always)]
    fn resolve_by<const PEXT: bool, F: FnMut(Combo) + ?Sized>(
        &self,
        g: &Geometry,
        on_combo: &mut F,
    ) -> (Bits, u32, u64) {
        let mut b = *self;
        let mut cleared = 0u32;
        let mut first = 0u64;
        // Colours with three orbs or more (fewer never match), and those of
        // them whose orbs moved since their lines were last looked for (a
        // colour's lines depend on its own mask only).
        let mut active = 0u32;
        for (k, m) in b.masks.iter().enumerate() {
            active |= u32::from(m.count_ones() >= 3) << k;
        }
        let mut moved = active;
        for pass in 0u8.. {
            let mut gone = 0u64;
            let mut todo = moved & active;
            while todo != 0 {
                let colour = todo.trailing_zeros() as usize;
                todo &= todo - 1;
                let m = b.masks[colour];
                if m.count_ones() < 3 {
                    active &= !(1 << colour);
                    continue;
                }
                let mut marked = Self::lines(g, m);
                gone |= marked;
                // Two lines of three that do not touch hold six orbs at
                // least: fewer marked orbs are one combo (no flood fill).
                if marked != 0 && marked.count_ones() < 6 {
                    on_combo(Combo {
                        colour: colour as u8,
                        size: marked.count_ones() as u8,
                        pass,
                        row: g.row_bits[..g.rows].iter().any(|&rm| rm & !marked == 0),
                    });
                    continue;
                }
                while marked != 0 {
                    // Grow one connected set of marked orbs from its lowest bit.
                    let mut comp = marked & marked.wrapping_neg();
                    loop {
                        let next = comp | (Self::spread(g, comp) & marked);
                        if next == comp {
                            break;
                        }
                        comp = next;
                    }
                    marked &= !comp;
                    let row = g.row_bits[..g.rows].iter().any(|&rm| rm & !comp == 0);
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
            if pass == 0 {
                first = gone;
            }
            cleared += gone.count_ones();
            let before = b.masks;
            #[cfg(target_arch = "x86_64")]
            if PEXT {
                use std::arch::x86_64::{_pdep_u64, _pext_u64};
                // The cells kept, in order, go to the lowest cells of their
                // columns: each column loses its top `lost` cells.
                let keep = g.all & !gone;
                let mut target = g.all;
                for c in 0..g.cols {
                    let shift = c * g.rows;
                    let lost = ((gone >> shift) & g.col).count_ones();
                    target ^= (g.col ^ (g.col >> lost)) << shift;
                }
                for m in b.masks.iter_mut() {
                    if *m != 0 {
                        // SAFETY: `PEXT` is only set where the processor
                        // has BMI2 (`resolve`).
                        *m = unsafe { _pdep_u64(_pext_u64(*m, keep), target) };
                    }
                }
                moved = 0;
                for (k, (now, was)) in b.masks.iter().zip(before).enumerate() {
                    moved |= u32::from(*now != was) << k;
                }
                continue;
            }
            // The cleared cells go, then each height from the top down
            // where a cell went: in those columns the orbs above it come
            // down one (every colour at once, no branch per column; the
            // heights below are not moved by a fall above them).
            for m in b.masks.iter_mut() {
                *m &= !gone;
            }
            for h in (0..g.rows - 1).rev() {
                let at = gone & g.row_bits[g.rows - 1 - h];
                if at == 0 {
                    continue;
                }
                // The cells above height `h` in those columns (one run of
                // `rows - 1 - h` bits a column: the product never carries).
                let above = (at << 1).wrapping_mul(g.col >> (h + 1));
                for m in b.masks.iter_mut() {
                    *m = (*m & !above) | ((*m & above) >> 1);
                }
            }
            moved = 0;
            for (k, (now, was)) in b.masks.iter().zip(before).enumerate() {
                moved |= u32::from(*now != was) << k;
            }
        }
        (b, cleared, first)
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

/// True when the processor has BMI2 and runs PDEP/PEXT in hardware: AMD
/// before Zen 3 (families up to 0x18) microcodes them at some 250 cycles
/// each, slower than the table fall. Checked once.
#[cfg(target_arch = "x86_64")]
fn fast_pdep() -> bool {
    static FAST: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FAST.get_or_init(|| {
        if !std::arch::is_x86_feature_detected!("bmi2") {
            return false;
        }
        // CPUID leaves 0 (vendor) and 1 (family) exist on every x86-64.
        let (v, f) = (std::arch::x86_64::__cpuid(0), std::arch::x86_64::__cpuid(1));
        let amd = (v.ebx, v.edx, v.ecx) == (0x6874_7541, 0x6974_6e65, 0x444d_4163);
        let base = (f.eax >> 8) & 0xf;
        let family = if base == 0xf {
            base + ((f.eax >> 20) & 0xff)
        } else {
            base
        };
        !(amd && family < 0x19)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The bit-mask resolution agrees with the cell-by-cell reference on
        /// every shape up to 42 cells: combos, orbs cleared, the board after.
        #[test]
        fn fast_resolution_matches_naive(
            rows in 3usize..=14,
            cols in 3usize..=14,
            colours in 2u8..=8,
            seed in any::<u64>(),
        ) {
            prop_assume!(rows * cols <= MAX_CELLS);
            let mut r = crate::rng::SplitMix64::new(seed);
            let cells: Vec<u8> = (0..rows * cols).map(|_| r.below(colours as usize) as u8).collect();
            let b = Board::from_cells(rows, cols, cells);
            let (g, o) = Orbs::from_board(&b).expect("orbs");
            let fast = o.resolve(&g);
            let (n, cleared, after) = resolve_naive(&g, &o);
            // The portable falls (by shifts) agree with the BMI2 ones.
            let bits = Bits::new(&g, &o);
            let mut by_shifts = Vec::new();
            let (t_after, t_cleared, _) = bits.resolve_by::<false, _>(&g, &mut |c| by_shifts.push(c));
            prop_assert_eq!(&by_shifts, &fast.combos);
            prop_assert_eq!(t_cleared, cleared);
            prop_assert_eq!(t_after.orbs(&g), after);
            prop_assert_eq!(fast.combos.len(), n, "board {}", b);
            prop_assert_eq!(fast.cleared, cleared);
            prop_assert_eq!(fast.after, after);
            prop_assert_eq!(Bits::new(&g, &o).orbs(&g), o);
            // Rows spanned per colour with three orbs or more, cell by cell.
            let mut rows_spanned = 0;
            for k in 0..COLOURS as u8 {
                let rs: Vec<usize> = (0..rows * cols).filter(|&i| o.cells[i] == k).map(|i| i / cols).collect();
                if rs.len() >= 3 {
                    rows_spanned += rs.iter().max().unwrap_or(&0) - rs.iter().min().unwrap_or(&0);
                }
            }
            prop_assert_eq!(Bits::new(&g, &o).row_spread(&g) as usize, rows_spanned);
        }
    }

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
