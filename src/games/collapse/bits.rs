//! A bit-mask collapse board for the solver: one mask per colour, a `u128`
//! or a 256-bit integer ([`Mask`]).
//!
//! Boards with `cols * (rows + 1) <= 128` (PopStar's 10x10, Swell Foop's small
//! size) fit a `u128` a colour, boards up to 256 bits (SameGame's 15x15, Swell
//! Foop's normal 15x10) a `U256`. Layout as in [`CBoard`](super::CBoard): column
//! major, bottom up, cell (col, row_from_bottom) at bit `s * col + row` with
//! `s = rows + 1`; the top bit of each column is a guard that is always 0, so
//! the four neighbours of a set of cells are four shifts (`±1`, `±s`) and a
//! mask, with no bounds checks.
//!
//! What the solver does most, finding the groups of every child board, becomes
//! a few word operations: lone cells of a colour are the cells with no
//! same-coloured neighbour, found for the whole board at once; only groups of
//! two or more are flood-filled, each in a few shifts per ring. A clone is `K`
//! words instead of a byte per cell.
//!
//! The groups come out in the same order as [`CBoard::census`](super::rules::CBoard::census) lists them
//! (by their lowest index), so the solver makes the same choices on either
//! board: `tests/collapse.rs` checks equal scores and node counts.

use super::mask::Mask;
use super::rules::{Census, Group, GroupSums, Points, MAX_SIDE};
use crate::board::{Board, Cell, EMPTY};
use crate::games::GameError;

/// A collapse board of at most `M::BITS` bits with up to `K` colours.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct BitBoard<const K: usize, M: Mask = u128> {
    /// One mask per colour slot.
    masks: [M; K],
    /// The board's colour of each slot (1..=9; 0 for an unused slot).
    ids: [u8; K],
    w: u8,
    h: u8,
}

impl<const K: usize, M: Mask> std::fmt::Debug for BitBoard<K, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.to_board())
    }
}

/// PopStar's stride (10 rows and a guard bit). The hot paths are compiled
/// for it as a constant too: a `u128` shift by a constant is two
/// instructions, by a variable amount five or more.
const FAST_STRIDE: u32 = 11;

/// The stride `s`, or `S` when it is a constant (not 0).
#[inline(always)]
fn stride_of<const S: u32>(s: u32) -> u32 {
    if S == 0 {
        s
    } else {
        S
    }
}

/// The cells of `m` that touch a cell of `m`, and `m`'s four-neighbourhood
/// grown by one ring: both from the same four shifts.
#[inline(always)]
fn ring<M: Mask>(m: M, s: u32) -> M {
    (m << 1) | (m >> 1) | (m << s) | (m >> s)
}

/// The cells of `m` connected to `seed` (a subset of `m`).
#[inline(always)]
fn flood<M: Mask>(seed: M, m: M, s: u32) -> M {
    let mut g = seed;
    loop {
        let next = (g | ring(g, s)) & m;
        if next == g {
            return g;
        }
        g = next;
    }
}

impl<const K: usize, M: Mask> BitBoard<K, M> {
    /// True when a `rows` x `cols` board fits one mask.
    pub const fn fits(rows: usize, cols: usize) -> bool {
        rows > 0 && cols > 0 && cols * (rows + 1) <= M::BITS as usize
    }

    #[inline]
    fn stride(&self) -> u32 {
        self.h as u32 + 1
    }

    /// The bits of column 0's real cells.
    #[inline]
    fn column_bits(&self) -> M {
        M::below(self.h as u32)
    }

    /// All filled cells.
    #[inline]
    fn occupied(&self) -> M {
        self.masks.iter().fold(M::ZERO, |a, &m| a | m)
    }

    /// Converts a shared board (colours `1..=9`, `0` and `.` empty). Fails when
    /// it does not fit, holds more than `K` colours, or has floating cells.
    pub fn from_board(b: &Board) -> Result<Self, GameError> {
        let (rows, cols) = (b.rows(), b.cols());
        if !Self::fits(rows, cols) || rows > MAX_SIDE || cols > MAX_SIDE {
            return Err(GameError::TooLarge {
                rows,
                cols,
                max_rows: MAX_SIDE,
                max_cols: MAX_SIDE,
            });
        }
        // Reuse the byte board's checks (unread, bad and floating cells).
        super::rules::CBoard::<1200>::from_board(b)?;
        let mut out = BitBoard {
            masks: [M::ZERO; K],
            ids: [0; K],
            w: cols as u8,
            h: rows as u8,
        };
        let s = rows + 1;
        for c in 0..cols {
            for rb in 0..rows {
                let v = match b.get(rows - 1 - rb, c) {
                    0 | EMPTY => continue,
                    v => v,
                };
                let slot = match out.ids.iter().position(|&id| id == v) {
                    Some(k) => k,
                    None => {
                        let Some(k) = out.ids.iter().position(|&id| id == 0) else {
                            return Err(GameError::BadParams(format!(
                                "more than {K} colours for a bit board"
                            )));
                        };
                        out.ids[k] = v;
                        k
                    }
                };
                out.masks[slot] |= M::bit((s * c + rb) as u32);
            }
        }
        Ok(out)
    }

    /// The shared board (row 0 on top, empty cells as `.`).
    pub fn to_board(&self) -> Board {
        let (w, h) = (self.w as usize, self.h as usize);
        let s = h + 1;
        let mut b = Board::new(h, w, EMPTY);
        for (&m, &id) in self.masks.iter().zip(&self.ids) {
            let mut m = m;
            while !m.is_zero() {
                let i = m.trailing_zeros() as usize;
                m &= m.wrapping_sub(M::ONE);
                b.set(h - 1 - i % s, i / s, id);
            }
        }
        b
    }

    /// Number of filled cells.
    pub fn remaining(&self) -> u32 {
        self.occupied().count_ones()
    }

    /// Cells per colour (index 0 unused).
    pub fn colour_counts(&self) -> [u16; 10] {
        let mut out = [0u16; 10];
        for (&m, &id) in self.masks.iter().zip(&self.ids) {
            out[id as usize] += m.count_ones() as u16;
        }
        out[0] = 0;
        out
    }

    /// The groups of 2+ cells, by their lowest index (as [`CBoard::census`](super::rules::CBoard::census)
    /// orders them), and the cells and lone cells per colour.
    pub fn census(&self, out: &mut Vec<Group>, census: &mut Census) {
        self.census_any_order(out, census);
        out.sort_unstable_by_key(|g| g.rep);
    }

    /// [`BitBoard::census`] with the groups by colour (what an evaluation
    /// that only sums over them needs; the sort is a sixth of its time).
    pub fn census_any_order(&self, out: &mut Vec<Group>, census: &mut Census) {
        out.clear();
        *census = Census::default();
        self.tally_any(!M::ZERO, census, |g| out.push(g));
    }

    /// [`BitBoard::tally`] with the stride as a constant where it can be.
    #[inline(always)]
    fn tally_any(&self, band: M, census: &mut Census, sink: impl FnMut(Group)) {
        if self.stride() == FAST_STRIDE {
            self.tally::<FAST_STRIDE>(band, census, sink)
        } else {
            self.tally::<0>(band, census, sink)
        }
    }

    /// Adds to `census` the cells and lone cells of every colour, and hands
    /// `sink` the groups of 2+ that have a cell in `band`.
    #[inline(always)]
    fn tally<const S: u32>(&self, band: M, census: &mut Census, mut sink: impl FnMut(Group)) {
        let s = stride_of::<S>(self.stride());
        for (&m, &id) in self.masks.iter().zip(&self.ids) {
            if m.is_zero() {
                continue;
            }
            census.cells[id as usize] += m.count_ones() as u16;
            let paired = m & ring(m, s);
            census.lone[id as usize] += (m & !paired).count_ones() as u16;
            let mut near = paired & band;
            while !near.is_zero() {
                let seed = near & near.wrapping_neg();
                let g = flood(seed, m, s);
                near &= !g;
                sink(Group {
                    rep: seed.trailing_zeros() as u16,
                    size: g.count_ones() as u16,
                    colour: id,
                });
            }
        }
    }

    /// [`BitBoard::census`], also keeping each group with its mask (in
    /// `found`, in the order of `out`) for [`BitBoard::child_census`].
    ///
    /// The groups come out by their lowest index with no sort: the lowest
    /// cell of all colours' paired cells is the next group's lowest cell.
    pub fn census_masks(
        &self,
        out: &mut Vec<Group>,
        census: &mut Census,
        found: &mut Vec<(Group, M)>,
    ) {
        if self.stride() == FAST_STRIDE {
            self.census_masks_s::<FAST_STRIDE>(out, census, found)
        } else {
            self.census_masks_s::<0>(out, census, found)
        }
    }

    #[inline(always)]
    fn census_masks_s<const S: u32>(
        &self,
        out: &mut Vec<Group>,
        census: &mut Census,
        found: &mut Vec<(Group, M)>,
    ) {
        out.clear();
        found.clear();
        *census = Census::default();
        let s = stride_of::<S>(self.stride());
        let mut paired = [M::ZERO; K];
        let mut all = M::ZERO;
        for (k, (&m, &id)) in self.masks.iter().zip(&self.ids).enumerate() {
            if m.is_zero() {
                continue;
            }
            census.cells[id as usize] += m.count_ones() as u16;
            paired[k] = m & ring(m, s);
            census.lone[id as usize] += (m & !paired[k]).count_ones() as u16;
            all |= paired[k];
        }
        while !all.is_zero() {
            let seed = all & all.wrapping_neg();
            let Some(k) = paired.iter().position(|&p| !(p & seed).is_zero()) else {
                break;
            };
            let g = flood(seed, self.masks[k], s);
            all &= !g;
            let group = Group {
                rep: seed.trailing_zeros() as u16,
                size: g.count_ones() as u16,
                colour: self.ids[k],
            };
            out.push(group);
            found.push((group, g));
        }
    }

    /// The census of `child`, which is this board with group `removed` of
    /// `found` taken (from [`BitBoard::census_masks`]), in any order
    /// and with the `rep` of unchanged groups left as on this board.
    ///
    /// Only the columns of the removed group and one on each side change
    /// (cells fall in the group's columns; columns to the right close in
    /// whole when one empties), so a group that touches none of them is a
    /// group of the child, as it was: only groups meeting that band are
    /// flood-filled again.
    pub fn child_census(
        &self,
        found: &[(Group, M)],
        removed: usize,
        child: &Self,
        out: &mut Vec<Group>,
        census: &mut Census,
    ) {
        out.clear();
        self.child_groups(found, removed, child, census, |g| out.push(g));
    }

    /// [`BitBoard::child_census`] with the groups summed as they are found,
    /// not listed: all the solver's evaluation of a child needs.
    pub fn child_sums(
        &self,
        found: &[(Group, M)],
        removed: usize,
        child: &Self,
        points: &Points,
        census: &mut Census,
    ) -> GroupSums {
        let mut sums = GroupSums::default();
        self.child_groups(found, removed, child, census, |g| points.add(&mut sums, g));
        sums
    }

    /// [`BitBoard::child_census`], handing the groups to `sink`.
    #[inline(always)]
    fn child_groups(
        &self,
        found: &[(Group, M)],
        removed: usize,
        child: &Self,
        census: &mut Census,
        mut sink: impl FnMut(Group),
    ) {
        let s = self.stride();
        let w = self.w as u32;
        let taken = found[removed].1;
        let (lo, hi) = (taken.trailing_zeros() / s, taken.top_bit() / s);
        let lo = lo.saturating_sub(1);
        let hi = (hi + 1).min(w - 1);
        let emptied = self.used_columns() - child.used_columns();
        let band = |lo: u32, hi: u32| -> M { M::below((hi + 1) * s) & !M::below(lo * s) };
        let parent_band = band(lo, hi);
        let child_band = band(lo, hi.saturating_sub(emptied).max(lo));
        *census = Census::default();
        for &(g, m) in found {
            if (m & parent_band).is_zero() {
                sink(g);
            }
        }
        child.tally_any(child_band, census, sink);
    }

    /// Columns holding at least one cell (they are the leftmost ones).
    fn used_columns(&self) -> u32 {
        let occ = self.occupied();
        if occ.is_zero() {
            return 0;
        }
        occ.top_bit() / self.stride() + 1
    }

    /// True when some group of 2+ is left.
    pub fn has_move(&self) -> bool {
        let s = self.stride();
        self.masks.iter().any(|&m| !(m & ring(m, s)).is_zero())
    }

    /// Removes the group holding bit `rep`; returns its size (0 for an empty
    /// cell, 1 for a lone cell, which is left in place).
    pub fn remove_group(&mut self, rep: u16) -> u32 {
        if rep as u32 >= M::BITS {
            return 0;
        }
        let bit = M::bit(rep as u32);
        let Some(k) = self.masks.iter().position(|&m| !(m & bit).is_zero()) else {
            return 0;
        };
        let g = flood(bit, self.masks[k], self.stride());
        self.remove_mask(k, g)
    }

    /// Removes group `removed` of `found` (from [`BitBoard::census_masks`]
    /// of this board); returns its size.
    pub fn remove_found(&mut self, found: &[(Group, M)], removed: usize) -> u32 {
        let Some(&(group, g)) = found.get(removed) else {
            return 0;
        };
        match self.ids.iter().position(|&id| id == group.colour) {
            Some(k) if self.masks[k] & g == g => self.remove_mask(k, g),
            _ => 0,
        }
    }

    /// Removes the cells `g` (a group of 2+ of colour slot `k`), lets the
    /// cells above fall and closes emptied columns; returns the group's size.
    fn remove_mask(&mut self, k: usize, g: M) -> u32 {
        let size = g.count_ones();
        if size < 2 {
            return size;
        }
        let s = self.stride();
        let occ = self.occupied();
        self.masks[k] &= !g;
        let col_bits = self.column_bits();
        // Bit c: column c lost its last cell.
        let mut emptied = 0u32;
        // Gravity, in the group's columns: the cells above the removed ones
        // in a column drop into the gap (the removed cells are empty in
        // every mask now).
        let (first, last) = (g.trailing_zeros() / s, g.top_bit() / s);
        for c in first..=last {
            let shift = c * s;
            let col = col_bits << shift;
            let gone = g & col;
            if gone.is_zero() {
                continue;
            }
            if occ & col == gone {
                emptied |= 1 << c;
                continue;
            }
            let t = gone.trailing_zeros();
            let len = gone.count_ones();
            let run = gone >> t;
            if (run & run.wrapping_add(M::ONE)).is_zero() {
                // Most groups take one run of cells from a column: all
                // above it drop at once.
                let above = col & !M::below(t + len);
                for m in self.masks.iter_mut() {
                    *m = (*m & !above) | ((*m & above) >> len);
                }
            } else {
                let mut r = gone;
                while !r.is_zero() {
                    let p = r.top_bit();
                    r &= !M::bit(p);
                    let above = col & !M::below(p + 1);
                    for m in self.masks.iter_mut() {
                        *m = (*m & !above) | ((*m & above) >> 1);
                    }
                }
            }
        }
        // Close the emptied columns to the left, rightmost first.
        while emptied != 0 {
            let c = 31 - emptied.leading_zeros();
            emptied &= !(1 << c);
            let low = M::below(c * s);
            for m in self.masks.iter_mut() {
                *m = (*m & low) | ((*m >> s) & !low);
            }
        }
        size
    }

    /// A 64-bit hash of the masks, for duplicate removal: each mask's two
    /// words multiplied together (after mixing in constants that differ per
    /// slot), folded and summed, so the multiplies do not wait on each other.
    #[inline]
    pub fn hash64(&self) -> u64 {
        let mut h = 0u64;
        for (k, &m) in self.masks.iter().enumerate() {
            h = h.wrapping_add(m.hash_words(k).rotate_left(k as u32 * 13));
        }
        h
    }

    /// The shared-board cell of a bit index.
    pub fn cell_of(&self, rep: u16) -> Cell {
        let s = self.stride() as usize;
        let (c, rb) = (rep as usize / s, rep as usize % s);
        Cell::new(self.h as usize - 1 - rb, c)
    }
}
