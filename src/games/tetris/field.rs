//! The Tetris field as a bitboard: one `u16` a row.
//!
//! Coordinates: row 0 is the bottom row, bit `c` of a row is column `c`
//! (0 = left). The field is `width` (4..=16) columns by `height`
//! (1..=[`MAX_HEIGHT`]) visible rows. Invariant: rows at and above `height`
//! are always empty (they are the space above the field a piece may pass
//! through while it is moved at the top), and no bit at or above `width` is
//! set. The shared [`Board`] (row 0 at the top) is the exchange format:
//! [`Field::from_board`] / [`Field::to_board`].

use crate::board::{Board, EMPTY, UNKNOWN};

use super::piece::State;
use super::TetrisError;

/// Rows stored (visible rows plus room above them).
pub const ROWS: usize = 64;
/// The tallest field supported.
pub const MAX_HEIGHT: usize = 48;
/// The widest field supported.
pub const MAX_WIDTH: usize = 16;

/// A Tetris field.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Field {
    rows: [u16; ROWS],
    width: u8,
    height: u8,
    /// Rows up to the highest filled cell (kept up to date by every change).
    pile: u8,
}

impl std::fmt::Debug for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "Field {}x{}", self.width, self.height)?;
        for y in (0..self.height as usize).rev() {
            let line: String = (0..self.width as usize)
                .map(|x| if self.get(x, y) { '#' } else { '.' })
                .collect();
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}

impl Field {
    /// An empty field.
    pub fn new(width: usize, height: usize) -> Result<Self, TetrisError> {
        if !(4..=MAX_WIDTH).contains(&width) || !(1..=MAX_HEIGHT).contains(&height) {
            return Err(TetrisError::BadSize { width, height });
        }
        Ok(Field {
            rows: [0; ROWS],
            width: width as u8,
            height: height as u8,
            pile: 0,
        })
    }

    /// A field from text rows, top row first (`#` or any non-`.` character
    /// filled), e.g. `Field::parse(&["....", "#..#"])`. For tests and tools.
    pub fn parse(lines: &[&str]) -> Result<Self, TetrisError> {
        let width = lines.first().map_or(0, |l| l.len());
        let mut f = Field::new(width, lines.len())?;
        for (i, line) in lines.iter().enumerate() {
            if line.len() != width {
                return Err(TetrisError::BadSize {
                    width: line.len(),
                    height: lines.len(),
                });
            }
            let y = lines.len() - 1 - i;
            for (x, ch) in line.chars().enumerate() {
                if ch != '.' {
                    f.rows[y] |= 1 << x;
                }
            }
        }
        f.pile = f.scan_pile() as u8;
        Ok(f)
    }

    /// A field from a shared board (row 0 at the top): a colour is filled,
    /// `.` empty; an unread cell is an error.
    pub fn from_board(b: &Board) -> Result<Self, TetrisError> {
        let mut f = Field::new(b.cols(), b.rows())?;
        let unread = b.unknown_count();
        if unread > 0 {
            return Err(TetrisError::Unread(unread));
        }
        for r in 0..b.rows() {
            let y = b.rows() - 1 - r;
            for c in 0..b.cols() {
                let v = b.get(r, c);
                if v != EMPTY && v != UNKNOWN {
                    f.rows[y] |= 1 << c;
                }
            }
        }
        f.pile = f.scan_pile() as u8;
        Ok(f)
    }

    /// The shared board: row 0 at the top, filled cells as colour `1`.
    pub fn to_board(&self) -> Board {
        let (w, h) = (self.width(), self.height());
        let mut b = Board::new(h, w, EMPTY);
        for y in 0..h {
            for x in 0..w {
                if self.get(x, y) {
                    b.set(h - 1 - y, x, 1);
                }
            }
        }
        b
    }

    #[inline]
    pub fn width(&self) -> usize {
        self.width as usize
    }

    #[inline]
    pub fn height(&self) -> usize {
        self.height as usize
    }

    /// The mask of a full row.
    #[inline]
    pub fn full(&self) -> u16 {
        ((1u32 << self.width) - 1) as u16
    }

    /// The rows, bottom first (all [`ROWS`] of them; those at and above
    /// `height` are empty).
    #[inline]
    pub fn rows(&self) -> &[u16; ROWS] {
        &self.rows
    }

    /// Is the cell at column `x`, row `y` (from the bottom) filled? Outside
    /// the stored rows: false.
    #[inline]
    pub fn get(&self, x: usize, y: usize) -> bool {
        y < ROWS && x < 16 && self.rows[y] >> x & 1 == 1
    }

    /// Fills or empties a cell of the visible field (others are ignored).
    pub fn set(&mut self, x: usize, y: usize, filled: bool) {
        if x < self.width() && y < self.height() {
            if filled {
                self.rows[y] |= 1 << x;
            } else {
                self.rows[y] &= !(1 << x);
            }
            self.pile = self.scan_pile() as u8;
        }
    }

    /// Number of rows up to the highest filled cell (0 for an empty field).
    #[inline]
    pub fn pile_height(&self) -> usize {
        self.pile as usize
    }

    fn scan_pile(&self) -> usize {
        let mut y = self.height();
        while y > 0 && self.rows[y - 1] == 0 {
            y -= 1;
        }
        y
    }

    /// Height of every column (row of its highest cell + 1, 0 when empty);
    /// columns at and above `width` are 0.
    #[inline]
    pub fn column_heights(&self) -> [u8; MAX_WIDTH] {
        let mut h = [0u8; MAX_WIDTH];
        let mut seen = 0u16;
        let full = self.full();
        let mut y = self.pile_height();
        while y > 0 && seen != full {
            y -= 1;
            let mut new = self.rows[y] & !seen;
            seen |= new;
            while new != 0 {
                h[new.trailing_zeros() as usize] = (y + 1) as u8;
                new &= new - 1;
            }
        }
        h
    }

    /// True when a state's shape with its bottom-left corner at column `x`,
    /// row `y` stays inside the walls and the floor and overlaps nothing.
    /// Rows above the field are empty space.
    #[inline]
    pub fn fits(&self, st: &State, x: i32, y: i32) -> bool {
        if x < 0 || y < 0 || x + st.w as i32 > self.width as i32 || y + st.h as i32 > ROWS as i32 {
            return false;
        }
        let y = y as usize;
        (0..st.h as usize).all(|r| self.rows[y + r] & (st.mask[r] << x) == 0)
    }

    /// The row where a shape with its left column at `x` comes to rest when
    /// dropped from above the stack, from the column heights.
    #[inline]
    pub fn landing_row(st: &State, heights: &[u8; MAX_WIDTH], x: usize) -> usize {
        let mut y = 0i32;
        for c in 0..st.w as usize {
            y = y.max(heights[x + c] as i32 - st.col_bottom[c] as i32);
        }
        y as usize
    }

    /// Drops a shape straight down from row `y` (which must fit) to where it
    /// rests, by collision; returns the resting row.
    pub fn drop_from(&self, st: &State, x: i32, mut y: i32) -> i32 {
        while self.fits(st, x, y - 1) {
            y -= 1;
        }
        y
    }

    /// Writes a shape into the field (bottom-left corner at `x`, `y`) and
    /// clears full rows. Returns the cleared rows as a bit mask relative to
    /// `y` (bit `r` = shape row `r`). The caller guarantees the shape fits
    /// and lies below `height`.
    #[inline]
    pub fn lock(&mut self, st: &State, x: usize, y: usize) -> u8 {
        let full = self.full();
        let mut cleared = 0u8;
        for r in 0..st.h as usize {
            self.rows[y + r] |= st.mask[r] << x;
            if self.rows[y + r] == full {
                cleared |= 1 << r;
            }
        }
        self.pile = self.pile.max((y + st.h as usize) as u8);
        if cleared != 0 {
            self.clear_rows(y, cleared);
            self.pile -= cleared.count_ones() as u8;
            // Empty rows under a cleared top row (a field read or built by
            // hand can have them; play cannot) leave the pile lower still.
            while self.pile > 0 && self.rows[self.pile as usize - 1] == 0 {
                self.pile -= 1;
            }
        }
        debug_assert_eq!(self.pile as usize, self.scan_pile());
        cleared
    }

    /// Removes the rows `y + r` for every bit `r` of `mask`; rows above fall.
    #[inline]
    fn clear_rows(&mut self, y: usize, mask: u8) {
        let top = self.pile_height();
        let mut dst = y;
        for src in y..top {
            let r = src - y;
            if r < 8 && mask >> r & 1 == 1 {
                continue;
            }
            self.rows[dst] = self.rows[src];
            dst += 1;
        }
        for row in &mut self.rows[dst..top] {
            *row = 0;
        }
    }

    /// Clears every full row (for fields built by hand); returns how many.
    pub fn clear_full_rows(&mut self) -> usize {
        let full = self.full();
        let mut dst = 0;
        let h = self.height();
        for src in 0..h {
            if self.rows[src] != full {
                self.rows[dst] = self.rows[src];
                dst += 1;
            }
        }
        let n = h - dst;
        for row in &mut self.rows[dst..h] {
            *row = 0;
        }
        self.pile = self.scan_pile() as u8;
        n
    }

    /// Number of filled cells.
    pub fn count(&self) -> usize {
        self.rows.iter().map(|r| r.count_ones() as usize).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::tetris::piece::{Piece, RotationSystem, Shapes};

    #[test]
    fn parse_board_round_trip() {
        let f = Field::parse(&["....", "#...", "##.#"]).unwrap();
        assert_eq!(f.rows()[0], 0b1011);
        assert_eq!(f.rows()[1], 0b0001);
        assert_eq!(f.pile_height(), 2);
        assert_eq!(&f.column_heights()[..4], &[2, 1, 0, 1]);
        let b = f.to_board();
        assert_eq!(b.to_string(), "..../1.../11.1");
        assert_eq!(Field::from_board(&b).unwrap(), f);
        let unread: Board = "?.../..../....".parse().unwrap();
        assert_eq!(Field::from_board(&unread), Err(TetrisError::Unread(1)));
    }

    #[test]
    fn lock_clears_full_rows_and_drops_the_rest() {
        // I vertical into the right well of a 4-wide field: clears 3 rows.
        let mut f = Field::parse(&["....", "###.", "###.", "#.#.", "###."]).unwrap();
        let sh = Shapes::new(&RotationSystem::srs(), 4).unwrap();
        let iv = sh.of(Piece::I)[1];
        let h = f.column_heights();
        let y = Field::landing_row(&iv, &h, 3);
        assert_eq!(y, 0);
        let cleared = f.lock(&iv, 3, y);
        assert_eq!(cleared, 0b1101);
        assert_eq!(
            f,
            Field::parse(&["....", "....", "....", "....", "#.##"]).unwrap()
        );
        assert_eq!(f.count(), 3);
    }

    #[test]
    fn sizes_are_checked() {
        assert!(Field::new(3, 10).is_err());
        assert!(Field::new(17, 10).is_err());
        assert!(Field::new(10, MAX_HEIGHT + 1).is_err());
        assert!(Field::new(16, MAX_HEIGHT).is_ok());
    }
}
