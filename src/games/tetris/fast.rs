//! Fast scoring of hard-drop placements: column bitboards and per-column
//! terms, so a placement that clears no row costs only the columns it touches.
//!
//! Every Value feature of [`super::eval`] is a sum of terms that each depend
//! on one column (column transitions, holes, hole depth, height), on two
//! neighbouring columns (row transitions — the walls count as filled columns
//! — and bumpiness) or on a column and its two neighbours (cumulative wells).
//! [`ColumnBase`] stores each term of the field before the placement once per
//! piece; a placement that clears no row changes only the columns it fills,
//! so its features are the stored totals plus the changes of the terms that
//! involve those columns. A placement that clears rows is counted from
//! scratch ([`value_features`] on the locked field). Either way the counts
//! are exactly those of [`value_features`] (checked by tests), so the scores
//! and hence the choices are the same, bit for bit, as the plain path's.
//!
//! Hard drops from above the stack (the one-piece player's case) go faster
//! still ([`ColumnBase::drops`], [`ColumnBase::drop_after`]): every cell of
//! such a drop lies above its column's top, so the landing row and the
//! holes and column transitions it adds follow from the column heights, for
//! all columns of a rotation state at once; row transitions and full rows
//! are counted on the four rows the piece spans, side by side in a `u64`.
//! The scorers are compiled per state width (the loops over the piece's
//! columns unroll), and with Dellacherie's features alone
//! ([`ColumnBase::drop_score_basic`]) on a field of at most 20 rows the
//! wells are counted three columns to a word. A drop that fills rows is
//! not counted again: clearing a full row changes the features of the
//! field with the piece only in a few known ways (`clear_after`).
//! [`ColumnBase::place`] carries the terms over to the field a placement
//! leaves, moving the totals by the changes, so a game counts a whole
//! field only once.
//!
//! Coordinates: column `c` is a `u64` with bit `y` = row `y` from the bottom;
//! `cols[c + 2]` holds column `c`, and `cols[0..2]`, `cols[w + 2..w + 4]` are
//! walls (filled over the field's height).
//!
//! Counting is popcounts and leading/trailing zero counts: on x86-64 the
//! callers run [`ColumnBase`] inside a copy compiled with `popcnt` (see
//! [`has_popcnt`]).

use super::eval::{value_features, Eval, ValueFeatures};
use super::field::{Field, MAX_WIDTH, ROWS};
use super::piece::State;

/// Columns stored: the field's, two walls each side, and empty padding so a
/// placement's window is a fixed-size copy.
const SLOTS: usize = MAX_WIDTH + 8;

/// The terms of a field, per column, and their totals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnBase {
    w: usize,
    h: usize,
    extended: bool,
    /// Bits of the visible rows.
    mask_h: u64,
    cols: [u64; SLOTS],
    heights: [u8; MAX_WIDTH],
    ct: [u8; MAX_WIDTH],
    holes: [u8; MAX_WIDTH],
    wells: [u16; MAX_WIDTH],
    /// `rt[c]`: row transitions between column `c - 1` (or the left wall)
    /// and column `c` (or the right wall when `c == w`).
    rt: [u8; MAX_WIDTH + 1],
    hole_depth: [u16; MAX_WIDTH],
    hole_mask: [u64; MAX_WIDTH],
    lanes: RowLanes,
    total: ValueFeatures,
}

/// Masks for four field rows side by side in a `u64` (lane `r`, bits
/// `16 r ..`, is row `y + r`): counting row transitions and finding full
/// rows of four rows at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct RowLanes {
    /// A full row in every lane.
    full: u64,
    /// Bits `0..w - 1` of every lane: the pairs of neighbouring columns.
    inner: u64,
    /// Bits `0` and `w - 1` of every lane: the cells next to a wall.
    edges: u64,
}

/// Hard drops of one state at every left column (see [`ColumnBase::drops`]);
/// entries past the last column the state fits at mean nothing.
#[derive(Debug, Clone, Copy)]
pub struct Drops {
    /// The landing row.
    pub row: [u8; MAX_WIDTH],
    /// Holes the drop adds.
    pub holes: [u8; MAX_WIDTH],
    /// Column transitions the drop adds.
    pub col_transitions: [u8; MAX_WIDTH],
    /// The shape at column 0 as row lanes ([`RowLanes`]).
    shape: u64,
}

/// Bit 0 of every lane.
const LANE_LOW: u64 = 0x0001_0001_0001_0001;
/// Bit 15 of every lane.
const LANE_HIGH: u64 = 0x8000_8000_8000_8000;

impl RowLanes {
    fn new(w: usize) -> Self {
        let full = (1u64 << w) - 1;
        RowLanes {
            full: full * LANE_LOW,
            inner: (full >> 1) * LANE_LOW,
            edges: (1 | 1 << (w - 1)) * LANE_LOW,
        }
    }

    /// Rows `y..y + 4` of `rows` as lanes.
    #[inline(always)]
    fn load(rows: &[u16; ROWS], y: usize) -> u64 {
        u64::from(rows[y])
            | u64::from(rows[y + 1]) << 16
            | u64::from(rows[y + 2]) << 32
            | u64::from(rows[y + 3]) << 48
    }

    /// The shape of `st` at column `x` as lanes.
    #[inline(always)]
    fn shape(st: &State, x: usize) -> u64 {
        (u64::from(st.mask[0])
            | u64::from(st.mask[1]) << 16
            | u64::from(st.mask[2]) << 32
            | u64::from(st.mask[3]) << 48)
            << x
    }

    /// Row transitions of the four rows (walls filled), as
    /// [`value_features`] counts them.
    #[inline(always)]
    fn transitions(&self, r: u64) -> u32 {
        ((r ^ (r >> 1)) & self.inner).count_ones() + (!r & self.edges).count_ones()
    }

    /// True when a lane is a full row (SWAR zero-lane test on the empty
    /// cells: only a zero lane can make its top bit borrow).
    #[inline(always)]
    fn any_full(&self, r: u64) -> bool {
        let empty = !r & self.full;
        empty.wrapping_sub(LANE_LOW) & !empty & LANE_HIGH != 0
    }
}

#[inline(always)]
fn col_height(c: u64) -> u32 {
    64 - c.leading_zeros()
}

#[inline(always)]
fn col_transitions(c: u64, mask_h1: u64) -> u32 {
    ((c ^ ((c << 1) | 1)) & mask_h1).count_ones()
}

#[inline(always)]
fn col_holes(c: u64) -> u32 {
    col_height(c) - c.count_ones()
}

/// Cumulative wells of column `c` between `l` and `r`: for every empty cell
/// whose neighbours are filled, the empty cells from it straight down.
#[inline(always)]
fn col_wells(l: u64, c: u64, r: u64, mask_h: u64) -> u32 {
    well_depths(c, !c & l & r & mask_h)
}

/// For every cell of `m` (empty cells of column `c`), the empty cells from
/// it straight down to the first filled one or the floor.
///
/// Counted a row at a time for all the cells at once: the cells with at
/// least `k + 1` empty cells below them are `m` shifted down `k` times,
/// kept where empty. Wells are shallow, so four steps are taken without a
/// test (no branch to mispredict) and deeper ones finish in a loop.
#[inline(always)]
fn well_depths(c: u64, m: u64) -> u32 {
    well_depths_in(c, m, !0)
}

/// [`well_depths`] counting only down the rows of `rows`: with `rows` the
/// bits of the field's rows in each lane, several columns side by side in
/// one word are counted at once (a cell never steps into the lane below).
#[inline(always)]
fn well_depths_in(c: u64, m: u64, rows: u64) -> u32 {
    let empty = !c & rows;
    let mut s = m.count_ones();
    let mut m = (m >> 1) & empty;
    s += m.count_ones();
    m = (m >> 1) & empty;
    s += m.count_ones();
    m = (m >> 1) & empty;
    s += m.count_ones();
    m = (m >> 1) & empty;
    while m != 0 {
        s += m.count_ones();
        m = (m >> 1) & empty;
    }
    s
}

/// `COMPRESS[m][b]`: the bits of the 4-bit `b` outside the mask `m`,
/// packed down (rows `m` taken out of four rows).
const COMPRESS: [[u8; 16]; 16] = {
    let mut t = [[0u8; 16]; 16];
    let mut m = 0;
    while m < 16 {
        let mut b = 0;
        while b < 16 {
            let (mut out, mut k, mut r) = (0u8, 0, 0);
            while r < 4 {
                if m >> r & 1 == 0 {
                    out |= ((b >> r & 1) as u8) << k;
                    k += 1;
                }
                r += 1;
            }
            t[m][b] = out;
            b += 1;
        }
        m += 1;
    }
    t
};

/// Column `c` with the rows `y + r` (bits `r` of the 4-bit `cleared`)
/// taken out; the cells above move down.
#[inline(always)]
fn remove_rows(c: u64, y: usize, cleared: u8) -> u64 {
    let cleared = cleared as usize & 0xF;
    let low = c & ((1u64 << y) - 1);
    let four = COMPRESS[cleared][(c >> y) as usize & 0xF] as u64;
    let high = c >> (y + 4);
    low | four << y | high << (y + 4 - cleared.count_ones() as usize)
}

/// For every hole (empty below the column top), the filled cells above it.
#[inline(always)]
fn col_hole_depth(c: u64) -> u32 {
    let mut m = !c & ((1u64 << col_height(c)) - 1);
    let mut s = 0;
    while m != 0 {
        let y = m.trailing_zeros();
        s += (c >> y).count_ones();
        m &= m - 1;
    }
    s
}

#[inline(always)]
fn hole_mask(c: u64) -> u64 {
    !c & ((1u64 << col_height(c)) - 1)
}

impl ColumnBase {
    /// The terms of `f` (the extended ones only when `extended`).
    #[inline(always)]
    pub fn new(f: &Field, extended: bool) -> Self {
        let (w, h) = (f.width(), f.height());
        let mask_h = (1u64 << h) - 1;
        let mut cols = [0u64; SLOTS];
        cols[0] = mask_h;
        cols[1] = mask_h;
        cols[w + 2] = mask_h;
        cols[w + 3] = mask_h;
        let rows = f.rows();
        for (y, &row) in rows.iter().enumerate().take(f.pile_height()) {
            let mut r = row;
            while r != 0 {
                let x = r.trailing_zeros() as usize;
                cols[x + 2] |= 1 << y;
                r &= r - 1;
            }
        }
        let mut b = ColumnBase {
            w,
            h,
            extended,
            mask_h,
            cols,
            heights: [0; MAX_WIDTH],
            ct: [0; MAX_WIDTH],
            holes: [0; MAX_WIDTH],
            wells: [0; MAX_WIDTH],
            rt: [0; MAX_WIDTH + 1],
            hole_depth: [0; MAX_WIDTH],
            hole_mask: [0; MAX_WIDTH],
            lanes: RowLanes::new(w),
            total: ValueFeatures::default(),
        };
        b.refresh(0, w - 1);
        b
    }

    /// Recounts the terms of columns `lo..=hi` (and of the pairs they are
    /// part of, and of their neighbours' wells), then the totals.
    #[inline(always)]
    fn refresh(&mut self, lo: usize, hi: usize) {
        let (w, mask_h) = (self.w, self.mask_h);
        let mask_h1 = (mask_h << 1) | 1;
        let cols = &self.cols;
        for c in lo..=hi {
            let col = cols[c + 2];
            self.heights[c] = col_height(col) as u8;
            self.ct[c] = col_transitions(col, mask_h1) as u8;
            self.holes[c] = col_holes(col) as u8;
            if self.extended {
                self.hole_depth[c] = col_hole_depth(col) as u16;
                self.hole_mask[c] = hole_mask(col);
            }
        }
        for c in lo.saturating_sub(1)..=(hi + 1).min(w - 1) {
            self.wells[c] = col_wells(cols[c + 1], cols[c + 2], cols[c + 3], mask_h) as u16;
        }
        for p in lo..=hi + 1 {
            self.rt[p] = ((cols[p + 1] ^ cols[p + 2]) & mask_h).count_ones() as u8;
        }
        let mut t = ValueFeatures::default();
        let mut any_hole = 0u64;
        for c in 0..w {
            let hh = self.heights[c] as u32;
            t.col_transitions += self.ct[c] as u32;
            t.holes += self.holes[c] as u32;
            t.wells += self.wells[c] as u32;
            t.max_height = t.max_height.max(hh);
            if self.extended {
                any_hole |= self.hole_mask[c];
                t.hole_depth += self.hole_depth[c] as u32;
                t.total_height += hh;
                if c > 0 {
                    t.bumpiness += hh.abs_diff(self.heights[c - 1] as u32);
                }
            }
        }
        t.row_transitions = self.rt[..=w].iter().map(|&n| n as u32).sum();
        t.rows_with_holes = any_hole.count_ones();
        self.total = t;
    }

    /// Brings the terms up to date with the field this base was built from
    /// with `st` locked at column `x`, row `y`, which cleared the rows
    /// `cleared` (mask relative to `y`). Only the columns the piece fills
    /// and their neighbours are recounted, and the totals move by what
    /// their terms change. Cleared rows are taken out of every column (the
    /// cells above move down); Dellacherie's terms then change only where
    /// [`ColumnBase::drop_after`] says, the extended ones are recounted.
    pub fn place(&mut self, st: &State, x: usize, y: usize, cleared: u8) {
        #[cfg(target_arch = "x86_64")]
        if has_popcnt() {
            // SAFETY: the CPU has the features (checked just above).
            unsafe { self.place_popcnt(st, x, y, cleared) };
            return;
        }
        self.place_impl(st, x, y, cleared);
    }

    /// [`ColumnBase::place`] compiled with hardware bit counts.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,lzcnt,bmi1")]
    unsafe fn place_popcnt(&mut self, st: &State, x: usize, y: usize, cleared: u8) {
        self.place_impl(st, x, y, cleared);
    }

    #[inline(always)]
    fn place_impl(&mut self, st: &State, x: usize, y: usize, cleared: u8) {
        let sw = st.w as usize;
        for c in 0..sw {
            self.cols[x + c + 2] |= (st.col_bits[c] as u64) << y;
        }
        if self.extended {
            if cleared == 0 {
                self.refresh(x, x + sw - 1);
            } else {
                for col in &mut self.cols[2..self.w + 2] {
                    *col = remove_rows(*col, y, cleared);
                }
                self.refresh(0, self.w - 1);
            }
            return;
        }
        self.update(x, x + sw - 1);
        if cleared != 0 {
            self.clear_rows(y, cleared);
        }
    }

    /// Recounts Dellacherie's terms of columns `lo..=hi` (and of the pairs
    /// they are part of, and of their neighbours' wells) after cells were
    /// added to them, moving the totals by the changes.
    #[inline(always)]
    fn update(&mut self, lo: usize, hi: usize) {
        let (w, mask_h) = (self.w, self.mask_h);
        let mask_h1 = (mask_h << 1) | 1;
        let cols = &self.cols;
        let t = &mut self.total;
        for c in lo..=hi {
            let col = cols[c + 2];
            let (ct, holes) = (col_transitions(col, mask_h1), col_holes(col));
            t.col_transitions = t.col_transitions + ct - self.ct[c] as u32;
            t.holes = t.holes + holes - self.holes[c] as u32;
            self.ct[c] = ct as u8;
            self.holes[c] = holes as u8;
            self.heights[c] = col_height(col) as u8;
            // Cells were only added: the pile grows or stays.
            t.max_height = t.max_height.max(col_height(col));
        }
        for c in lo.saturating_sub(1)..=(hi + 1).min(w - 1) {
            let wells = col_wells(cols[c + 1], cols[c + 2], cols[c + 3], mask_h);
            t.wells = t.wells + wells - self.wells[c] as u32;
            self.wells[c] = wells as u16;
        }
        for p in lo..=hi + 1 {
            let rt = ((cols[p + 1] ^ cols[p + 2]) & mask_h).count_ones();
            t.row_transitions = t.row_transitions + rt - self.rt[p] as u32;
            self.rt[p] = rt as u8;
        }
    }

    /// Takes the full rows `y + r` (bits `r` of `cleared`) out of every
    /// column and moves Dellacherie's terms as [`ColumnBase::drop_after`]
    /// explains: heights drop by the rows cleared and holes stay (a column
    /// whose top cell is cleared is counted again), each wall pair gains a
    /// row transition a row, and a column where a block of cleared rows had
    /// empty cells right below and above loses two column transitions and
    /// has its wells counted again.
    fn clear_rows(&mut self, y: usize, cleared: u8) {
        let w = self.w;
        let lines = cleared.count_ones();
        // Per block of cleared rows, the rows right below and above it
        // (none for a block on the floor).
        let mut ends = [0u64; 2];
        let mut rest = cleared;
        for e in &mut ends {
            if rest == 0 {
                break;
            }
            let a = rest.trailing_zeros() as usize;
            let b = a + (rest >> a).trailing_ones() as usize;
            rest &= !((1u8 << b) - 1);
            if y + a > 0 {
                *e = 1 << (y + a - 1) | 1 << (y + b);
            }
        }
        // Columns whose top cell is cleared may drop more than `lines`,
        // over holes that are holes no more (see `clear_after`).
        let top = y + 7 - cleared.leading_zeros() as usize;
        let t = &mut self.total;
        let tall = t.max_height as usize > top + 1;
        let mut max_height = 0;
        let mut joined = 0u32;
        for c in 0..w {
            let col = self.cols[c + 2];
            // Two column transitions fewer per block joining its sides.
            let joins = ends.iter().filter(|&&e| e != 0 && col & e == 0).count() as u32;
            if joins > 0 {
                joined |= 1 << c;
                self.ct[c] -= 2 * joins as u8;
                t.col_transitions -= 2 * joins;
            }
            let col2 = remove_rows(col, y, cleared);
            self.cols[c + 2] = col2;
            if col >> (top + 1) == 0 {
                let holes = col_holes(col2);
                t.holes = t.holes + holes - self.holes[c] as u32;
                self.holes[c] = holes as u8;
                self.heights[c] = col_height(col2) as u8;
                max_height = max_height.max(col_height(col2));
            } else {
                self.heights[c] -= lines as u8;
            }
        }
        t.row_transitions += 2 * lines;
        t.max_height = if tall {
            t.max_height - lines
        } else {
            max_height
        };
        self.rt[0] += lines as u8;
        self.rt[w] += lines as u8;
        while joined != 0 {
            let c = joined.trailing_zeros() as usize;
            joined &= joined - 1;
            let cols = &self.cols;
            let wells = col_wells(cols[c + 1], cols[c + 2], cols[c + 3], self.mask_h);
            t.wells = t.wells + wells - self.wells[c] as u32;
            self.wells[c] = wells as u16;
        }
    }

    /// How many columns the drop scorers count side by side in a word: 3
    /// when the field is at most 20 rows high (lanes of 21 bits), else 1.
    #[inline(always)]
    pub fn well_lanes(&self) -> usize {
        if self.h <= 20 {
            3
        } else {
            1
        }
    }

    /// True when the extended terms are counted.
    pub fn extended(&self) -> bool {
        self.extended
    }

    /// The column heights (row of the top cell + 1).
    #[inline(always)]
    pub fn heights(&self) -> &[u8; MAX_WIDTH] {
        &self.heights
    }

    /// The features of the field as a whole.
    pub fn features(&self) -> ValueFeatures {
        self.total
    }

    /// The row where `st` with its left column at `x` rests when dropped
    /// from above the stack.
    #[inline(always)]
    pub fn landing_row(&self, st: &State, x: usize) -> usize {
        Field::landing_row(st, &self.heights, x)
    }

    /// The Value features after locking `st` at column `x`, row `y` on `f`
    /// (the field this base was built from), and the rows it cleared (mask
    /// relative to `y`). `y + st.h` must not exceed the field height.
    #[inline(always)]
    pub fn after(&self, f: &Field, st: &State, x: usize, y: usize) -> (ValueFeatures, u8) {
        let full = f.full();
        let rows = f.rows();
        let mut cleared = 0u8;
        for r in 0..st.h as usize {
            if rows[y + r] | (st.mask[r] << x) == full {
                cleared |= 1 << r;
            }
        }
        if cleared != 0 {
            let mut after = *f;
            after.lock(st, x, y);
            return (value_features(&after, self.extended), cleared);
        }
        let sw = st.w as usize;
        // Window: columns x-2 ..= x+sw+1 at nc[0..sw+4]; piece column c at nc[c+2].
        let mut nc = [0u64; 8];
        nc.copy_from_slice(&self.cols[x..x + 8]);
        for c in 0..sw {
            nc[c + 2] |= (st.col_bits[c] as u64) << y;
        }
        let mask_h = self.mask_h;
        let mask_h1 = (mask_h << 1) | 1;
        let mut v = self.total;
        // Per column: transitions, holes (and depth, heights).
        let mut ct = v.col_transitions as i32;
        let mut holes = v.holes as i32;
        for c in 0..sw {
            let col = nc[c + 2];
            ct += col_transitions(col, mask_h1) as i32 - self.ct[x + c] as i32;
            holes += col_holes(col) as i32 - self.holes[x + c] as i32;
        }
        v.col_transitions = ct as u32;
        v.holes = holes as u32;
        // Pairs: column x-1 | x, ..., x+sw-1 | x+sw (walls included).
        let mut rt = v.row_transitions as i32;
        for i in 0..=sw {
            rt += ((nc[i + 1] ^ nc[i + 2]) & mask_h).count_ones() as i32 - self.rt[x + i] as i32;
        }
        v.row_transitions = rt as u32;
        // Wells: columns x-1 ..= x+sw (those inside the field).
        let mut wells = v.wells as i32;
        let lo = x.saturating_sub(1);
        let hi = (x + sw).min(self.w - 1);
        for c in lo..=hi {
            let i = c + 2 - x;
            wells += col_wells(nc[i - 1], nc[i], nc[i + 1], mask_h) as i32 - self.wells[c] as i32;
        }
        v.wells = wells as u32;
        if self.extended {
            let mut hd = v.hole_depth as i32;
            let mut th = v.total_height as i32;
            let mut any_hole = 0u64;
            let mut heights = self.heights;
            for c in 0..sw {
                let col = nc[c + 2];
                hd += col_hole_depth(col) as i32 - self.hole_depth[x + c] as i32;
                let hh = col_height(col);
                th += hh as i32 - heights[x + c] as i32;
                heights[x + c] = hh as u8;
                any_hole |= hole_mask(col);
            }
            for c in 0..self.w {
                if c < x || c >= x + sw {
                    any_hole |= self.hole_mask[c];
                }
            }
            v.hole_depth = hd as u32;
            v.total_height = th as u32;
            v.rows_with_holes = any_hole.count_ones();
            let mut bump = v.bumpiness as i32;
            for c in lo..(x + sw).min(self.w - 1) {
                bump += heights[c].abs_diff(heights[c + 1]) as i32
                    - self.heights[c].abs_diff(self.heights[c + 1]) as i32;
            }
            v.bumpiness = bump as u32;
            v.max_height = heights[..self.w].iter().copied().max().unwrap_or(0) as u32;
        } else {
            v.max_height = v.max_height.max((y + st.h as usize) as u32);
        }
        (v, 0)
    }

    /// Hard drops of `st` from above the stack at every left column: where
    /// it rests, and the holes and column transitions it adds. Every cell of
    /// a drop lies above its column's top, so these follow from the column
    /// heights alone; the loops run over all columns at once (vector code).
    #[inline(always)]
    pub fn drops(&self, st: &State) -> Drops {
        let sw = st.w as usize;
        // Heights padded so `x + c` stays inside for every `x`.
        let mut h = [0u8; MAX_WIDTH + 4];
        h[..MAX_WIDTH].copy_from_slice(&self.heights);
        let mut d = Drops {
            row: [0; MAX_WIDTH],
            holes: [0; MAX_WIDTH],
            col_transitions: [0; MAX_WIDTH],
            shape: RowLanes::shape(st, 0),
        };
        for c in 0..sw {
            let cb = st.col_bottom[c];
            for x in 0..MAX_WIDTH {
                d.row[x] = d.row[x].max(h[x + c].saturating_sub(cb));
            }
        }
        for c in 0..sw {
            let bits = st.col_bits[c];
            let cb = st.col_bottom[c];
            // Rows from the shape's bottom to the column's top cell, the
            // cells and the runs of cells (a run's bottom has no cell below).
            let top = 8 - bits.leading_zeros() as u8;
            let cells = bits.count_ones() as u8;
            let runs = (bits & !(bits << 1)).count_ones() as u8;
            for x in 0..MAX_WIDTH {
                // The column grows from its height to row + top, by the
                // piece's cells and new holes (row + top - cells >= height).
                d.holes[x] += d.row[x] + (top - cells) - h[x + c];
                // Two transitions for an empty gap under the piece, two
                // for each gap between runs of the piece's cells.
                d.col_transitions[x] += 2 * (runs - 1) + 2 * u8::from(d.row[x] + cb > h[x + c]);
            }
        }
        d
    }

    /// The Value features after hard-dropping `st` (whose [`ColumnBase::drops`]
    /// are `drops`) at column `x` from above the stack, and the rows it
    /// cleared: the same as [`ColumnBase::after`] at the landing row,
    /// cheaper. Row transitions and full rows are counted on the four rows
    /// the piece spans, side by side in a `u64`; holes and column
    /// transitions come with the drops; wells are counted again on the
    /// columns the piece fills and by what they gain on their neighbours.
    #[inline(always)]
    pub fn drop_after(
        &self,
        f: &Field,
        st: &State,
        drops: &Drops,
        x: usize,
    ) -> (ValueFeatures, u8) {
        match st.w {
            1 => self.drop_after_w::<1>(f, st, drops, x),
            2 => self.drop_after_w::<2>(f, st, drops, x),
            3 => self.drop_after_w::<3>(f, st, drops, x),
            _ => self.drop_after_w::<4>(f, st, drops, x),
        }
    }

    /// [`ColumnBase::drop_after`] for a state `SW` columns wide: the loops
    /// over the piece's columns unroll and the window stays in registers.
    #[inline(always)]
    fn drop_after_w<const SW: usize>(
        &self,
        f: &Field,
        st: &State,
        drops: &Drops,
        x: usize,
    ) -> (ValueFeatures, u8) {
        debug_assert_eq!(st.w as usize, SW);
        let y = drops.row[x] as usize;
        if self.extended {
            return self.after(f, st, x, y);
        }
        let rows_before = RowLanes::load(f.rows(), y);
        let rows_after = rows_before | drops.shape << x;
        let lanes = &self.lanes;
        let mut v = self.total;
        v.row_transitions =
            v.row_transitions + lanes.transitions(rows_after) - lanes.transitions(rows_before);
        v.holes += drops.holes[x] as u32;
        v.col_transitions += drops.col_transitions[x] as u32;
        v.wells = self.drop_wells::<SW, 1>(st, x, y);
        v.max_height = v.max_height.max((y + st.h as usize) as u32);
        if lanes.any_full(rows_after) {
            return self.clear_after(f, st, x, y, rows_after, v);
        }
        (v, 0)
    }

    /// Cumulative wells after dropping `st` (`SW` columns wide) at column
    /// `x` to row `y` from above the stack, no row cleared.
    ///
    /// The columns the piece fills are counted again; a neighbour keeps its
    /// cells and its wells, and gains a well cell where the piece fills the
    /// cell beside an empty one with a filled far side. That is `SW + 2`
    /// columns to count down, `LANES` of them side by side in a word (lanes
    /// of `64 / LANES` bits; the field must be lower than a lane).
    #[inline(always)]
    fn drop_wells<const SW: usize, const LANES: usize>(
        &self,
        st: &State,
        x: usize,
        y: usize,
    ) -> u32 {
        debug_assert!(LANES == 1 || self.h < 64 / LANES);
        let mask_h = self.mask_h;
        // Window: columns x-2 ..= x+SW+1 at k = 0..SW+4; piece column c at k = c+2.
        let win = &self.cols[x..x + 8];
        let nc = |k: usize| {
            if (2..SW + 2).contains(&k) {
                win[k] | (st.col_bits[k - 2] as u64) << y
            } else {
                win[k]
            }
        };
        // Item `i`: a column and the cells whose wells are counted down it.
        // Beside a wall, `!wall` leaves no cell: no test needed.
        let item = |i: usize| {
            if i < SW {
                let k = i + 2;
                (nc(k), !nc(k) & nc(k - 1) & nc(k + 1) & mask_h)
            } else if i == SW {
                (nc(1), (st.col_bits[0] as u64) << y & !nc(1) & nc(0))
            } else {
                let k = SW + 2;
                (
                    nc(k),
                    (st.col_bits[SW - 1] as u64) << y & !nc(k) & nc(k + 1),
                )
            }
        };
        let mut wells = self.total.wells as i32;
        for c in 0..SW {
            wells -= self.wells[x + c] as i32;
        }
        let lane = 64 / LANES;
        let mut rows = 0u64;
        for l in 0..LANES {
            rows |= mask_h << (l * lane);
        }
        for j in (0..SW + 2).step_by(LANES) {
            let (mut c, mut m) = (0u64, 0u64);
            for l in 0..LANES.min(SW + 2 - j) {
                let (cl, ml) = item(j + l);
                c |= cl << (l * lane);
                m |= ml << (l * lane);
            }
            wells += well_depths_in(c, m, rows) as i32;
        }
        wells as u32
    }

    /// [`ColumnBase::drop_score`] for a state `SW` columns wide when the
    /// evaluator weighs Dellacherie's features only (the base is not
    /// [`ColumnBase::extended`]): the same score, bit for bit, with the four
    /// Value features kept in registers. A drop that fills a row is handed
    /// to [`ColumnBase::drop_after`]. `LANES` columns are counted at once
    /// (see [`ColumnBase::well_lanes`]).
    #[inline(always)]
    pub fn drop_score_basic<const SW: usize, const LANES: usize>(
        &self,
        eval: &Eval,
        f: &Field,
        st: &State,
        drops: &Drops,
        x: usize,
    ) -> Option<(f32, usize)> {
        debug_assert!(!self.extended && st.w as usize == SW);
        let y = drops.row[x] as usize;
        if y + st.h as usize > self.h {
            return None;
        }
        let rows_before = RowLanes::load(f.rows(), y);
        let rows_after = rows_before | drops.shape << x;
        let lanes = &self.lanes;
        let t = &self.total;
        let rt = t.row_transitions + lanes.transitions(rows_after) - lanes.transitions(rows_before);
        let ct = t.col_transitions + drops.col_transitions[x] as u32;
        let holes = t.holes + drops.holes[x] as u32;
        let wells = self.drop_wells::<SW, LANES>(st, x, y);
        if lanes.any_full(rows_after) {
            let v = ValueFeatures {
                row_transitions: rt,
                col_transitions: ct,
                holes,
                wells,
                max_height: t.max_height.max((y + st.h as usize) as u32),
                ..ValueFeatures::default()
            };
            return Some(self.clearing_score(eval, f, st, x, y, rows_after, v));
        }
        let value = eval.basic_value(rt, ct, holes, wells);
        Some((eval.reward(st, y, 0) + value, y))
    }

    /// The score of a drop that may fill rows, from the features `v` of
    /// the field with the piece and no row cleared (out of the hot loop).
    #[cold]
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn clearing_score(
        &self,
        eval: &Eval,
        f: &Field,
        st: &State,
        x: usize,
        y: usize,
        rows_after: u64,
        v: ValueFeatures,
    ) -> (f32, usize) {
        let (v, cleared) = self.clear_after(f, st, x, y, rows_after, v);
        (eval.reward(st, y, cleared) + eval.value_of_basic(&v), y)
    }

    /// Slot `k` of `cols` with `st` locked at column `x`, row `y`.
    #[inline(always)]
    fn with_piece(&self, st: &State, x: usize, y: usize, k: usize) -> u64 {
        let c = self.cols[k];
        match k.wrapping_sub(x + 2) {
            i if i < st.w as usize => c | u64::from(st.col_bits[i]) << y,
            _ => c,
        }
    }

    /// [`ColumnBase::drop_after`] for a drop that may fill rows: `v` are
    /// the features of the field with the piece locked and no row cleared,
    /// `rows_after` its rows `y..y + 4` as lanes. Clearing full rows
    /// changes them little: a full row has no row transition and an empty
    /// one two; every column loses as many cells as its height drops, so
    /// the holes stay; the cells of the other rows keep their neighbours,
    /// so only a column where a block of cleared rows has empty cells right
    /// below and above it changes — two column transitions fewer, and the
    /// empty runs join, which deepens the wells above (counted again on
    /// those columns).
    #[cold]
    #[inline(never)]
    fn clear_after(
        &self,
        f: &Field,
        st: &State,
        x: usize,
        y: usize,
        rows_after: u64,
        mut v: ValueFeatures,
    ) -> (ValueFeatures, u8) {
        let full = u64::from(f.full());
        let lane = |r: usize| (rows_after >> (16 * r)) & 0xFFFF;
        let mut cleared = 0u8;
        for r in 0..st.h as usize {
            if lane(r) == full {
                cleared |= 1 << r;
            }
        }
        if cleared == 0 {
            // A full row above the piece was there before (a field built
            // by hand): it stays, as `Field::lock` leaves it.
            return (v, 0);
        }
        let lines = cleared.count_ones();
        let row = |r: usize| {
            if (y..y + 4).contains(&r) {
                lane(r - y)
            } else {
                u64::from(f.rows()[r])
            }
        };
        // Columns where a block of cleared rows has empty cells right below
        // and right above it (the floor below row 0 is filled).
        let mut joined = 0u64;
        let mut rest = cleared;
        while rest != 0 {
            let a = rest.trailing_zeros() as usize;
            let b = a + (rest >> a).trailing_ones() as usize;
            rest &= !((1u8 << b) - 1);
            if y + a > 0 {
                let m = !row(y + a - 1) & !row(y + b) & full;
                v.col_transitions -= 2 * m.count_ones();
                joined |= m;
            }
        }
        v.row_transitions += 2 * lines;
        let (w, mask_h) = (self.w, self.mask_h);
        // Slot `k` of `cols` with the piece, before and after the clear
        // (the walls stay filled).
        let col = |k: usize| self.with_piece(st, x, y, k);
        let after = |k: usize| {
            if (2..w + 2).contains(&k) {
                remove_rows(col(k), y, cleared)
            } else {
                col(k)
            }
        };
        // A column with a cell above the highest cleared row loses as many
        // cells as its height drops: its holes stay. One whose top cell is
        // cleared may drop further, over holes that are holes no more.
        let top = y + 7 - cleared.leading_zeros() as usize;
        let pile = v.max_height as usize;
        let mut above = 0u64;
        for r in top + 1..pile {
            above |= row(r);
        }
        let mut topped = full & !above;
        let mut max_height = 0;
        while topped != 0 {
            let k = topped.trailing_zeros() as usize + 2;
            topped &= topped - 1;
            let (c, c2) = (col(k), after(k));
            v.holes = v.holes + col_holes(c2) - col_holes(c);
            max_height = max_height.max(col_height(c2));
        }
        v.max_height = if pile > top + 1 {
            v.max_height - lines
        } else {
            max_height
        };
        while joined != 0 {
            let k = joined.trailing_zeros() as usize + 2;
            joined &= joined - 1;
            v.wells = v.wells + col_wells(after(k - 1), after(k), after(k + 1), mask_h)
                - col_wells(col(k - 1), col(k), col(k + 1), mask_h);
        }
        (v, cleared)
    }

    /// The score of hard-dropping `st` (whose drops are `drops`) at column
    /// `x` from above the stack and the row it rests at; `None` when it
    /// would end above the top.
    #[inline(always)]
    pub fn drop_score(
        &self,
        eval: &Eval,
        f: &Field,
        st: &State,
        drops: &Drops,
        x: usize,
    ) -> Option<(f32, usize)> {
        if !self.extended {
            return match (st.w, self.well_lanes()) {
                (1, 3) => self.drop_score_basic::<1, 3>(eval, f, st, drops, x),
                (2, 3) => self.drop_score_basic::<2, 3>(eval, f, st, drops, x),
                (3, 3) => self.drop_score_basic::<3, 3>(eval, f, st, drops, x),
                (_, 3) => self.drop_score_basic::<4, 3>(eval, f, st, drops, x),
                (1, _) => self.drop_score_basic::<1, 1>(eval, f, st, drops, x),
                (2, _) => self.drop_score_basic::<2, 1>(eval, f, st, drops, x),
                (3, _) => self.drop_score_basic::<3, 1>(eval, f, st, drops, x),
                (_, _) => self.drop_score_basic::<4, 1>(eval, f, st, drops, x),
            };
        }
        match st.w {
            1 => self.drop_score_w::<1>(eval, f, st, drops, x),
            2 => self.drop_score_w::<2>(eval, f, st, drops, x),
            3 => self.drop_score_w::<3>(eval, f, st, drops, x),
            _ => self.drop_score_w::<4>(eval, f, st, drops, x),
        }
    }

    /// [`ColumnBase::drop_score`] for a state `SW` columns wide (`st.w`).
    #[inline(always)]
    pub fn drop_score_w<const SW: usize>(
        &self,
        eval: &Eval,
        f: &Field,
        st: &State,
        drops: &Drops,
        x: usize,
    ) -> Option<(f32, usize)> {
        let y = drops.row[x] as usize;
        if y + st.h as usize > self.h {
            return None;
        }
        let (v, cleared) = self.drop_after_w::<SW>(f, st, drops, x);
        let value = if self.extended {
            eval.value_of(&v)
        } else {
            eval.value_of_basic(&v)
        };
        Some((eval.reward(st, y, cleared) + value, y))
    }

    /// The score (`reward + value`) of locking `st` at column `x`, row `y`,
    /// exactly as [`Eval::play`] computes it; and the rows it cleared.
    #[inline(always)]
    pub fn score(&self, eval: &Eval, f: &Field, st: &State, x: usize, y: usize) -> (f32, u8) {
        let (v, cleared) = self.after(f, st, x, y);
        (eval.reward(st, y, cleared) + eval.value_of(&v), cleared)
    }

    /// Field height.
    pub fn height(&self) -> usize {
        self.h
    }
}

/// True when the CPU counts bits in hardware (`popcnt`, `lzcnt`, `bmi1`):
/// the default x86-64 target has none of them and software counts make the
/// scoring ~3x slower, so hot callers keep a copy compiled with them
/// (`#[target_feature]` on a small wrapper around `#[inline(always)]` code,
/// chosen with this test).
#[inline(always)]
pub fn has_popcnt() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("lzcnt")
            && std::is_x86_feature_detected!("bmi1")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::tetris::piece::{Piece, RotationSystem, Shapes};

    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};

    /// Runs `check` on `cases` random fields (a pinned seed) with a random
    /// `extended` flag. A field is 4..=16 wide, 4..=24 high, with up to 20
    /// random rows; `dense` fields OR every row with another (line clears
    /// and deep wells common), the others every second row (overhangs).
    fn on_random_fields(
        cases: u32,
        seed: u8,
        check: impl Fn(Field, bool) -> Result<(), TestCaseError>,
    ) {
        let mut runner = TestRunner::new_with_rng(
            Config {
                cases,
                ..Config::default()
            },
            TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]),
        );
        let strat = (
            4usize..=16,
            4usize..=24,
            proptest::collection::vec(any::<u16>(), 24),
            0usize..=20,
            any::<bool>(),
            any::<bool>(),
        );
        runner
            .run(&strat, |(w, h, bits, pile, ext, dense)| {
                let mut f = Field::new(w, h).unwrap();
                for (y, &b) in bits.iter().enumerate().take(pile.min(h)) {
                    let b = if dense {
                        b | bits[(y + 7) % 24]
                    } else if y % 2 == 1 {
                        b | bits[(y + 5) % 24]
                    } else {
                        b
                    };
                    for x in 0..w {
                        f.set(x, y, b >> x & 1 == 1);
                    }
                }
                check(f, ext)
            })
            .unwrap();
    }

    /// Every placement of every piece on random fields: the incremental
    /// features equal `value_features` of the locked field.
    #[test]
    fn incremental_features_match_full_count() {
        on_random_fields(200, 9, |f, ext| {
            let (w, h) = (f.width(), f.height());
            let sh = Shapes::new(&RotationSystem::srs(), w).unwrap();
            let base = ColumnBase::new(&f, ext);
            prop_assert_eq!(base.features(), value_features(&f, ext));
            for p in Piece::ALL {
                for st in sh.of(p) {
                    for x in 0..=(w - st.w as usize) {
                        let y = base.landing_row(st, x);
                        if y + st.h as usize > h {
                            continue;
                        }
                        let mut after = f;
                        let cleared = after.lock(st, x, y);
                        let (v, c) = base.after(&f, st, x, y);
                        prop_assert_eq!(c, cleared);
                        prop_assert_eq!(v, value_features(&after, ext), "{:?} {} {}", p, x, y);
                    }
                }
            }
            Ok(())
        });
    }

    /// Hard drops from above on random fields (full rows cleared first):
    /// the drop scorer's features equal `value_features` of the locked
    /// field, its scores those of the plain evaluation, and a base brought
    /// up to date by `place` equals one built from the locked field.
    #[test]
    fn drops_and_updates_match_full_count() {
        on_random_fields(300, 23, |mut f, ext| {
            f.clear_full_rows();
            let (w, h) = (f.width(), f.height());
            let sh = Shapes::new(&RotationSystem::srs(), w).unwrap();
            let base = ColumnBase::new(&f, ext);
            for p in Piece::ALL {
                for st in sh.of(p) {
                    let drops = base.drops(st);
                    for x in 0..=(w - st.w as usize) {
                        let y = base.landing_row(st, x);
                        prop_assert_eq!(drops.row[x] as usize, y);
                        if y + st.h as usize > h {
                            continue;
                        }
                        let mut after = f;
                        let cleared = after.lock(st, x, y);
                        let (v, c) = base.drop_after(&f, st, &drops, x);
                        prop_assert_eq!(c, cleared);
                        prop_assert_eq!(v, value_features(&after, ext), "{:?} {} {}", p, x, y);
                        let eval = if ext {
                            Eval::bcts()
                        } else {
                            Eval::dellacherie()
                        };
                        let score = base.drop_score(&eval, &f, st, &drops, x);
                        let want = eval.reward(st, y, cleared) + eval.value(&after);
                        prop_assert_eq!(score, Some((want, y)));
                        let mut placed = base.clone();
                        placed.place(st, x, y, cleared);
                        prop_assert_eq!(placed, ColumnBase::new(&after, ext));
                    }
                }
            }
            Ok(())
        });
    }
}
