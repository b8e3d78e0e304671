//! The shared board: a rows x cols grid of `u8` cells, and its text codec.
//!
//! Coordinates: `Cell { row, col }` with row 0 at the top and col 0 at the left.
//! Cell values: `0..=9` are colour indices, [`EMPTY`] is an empty cell and
//! [`UNKNOWN`] a cell that could not be read.
//!
//! Text form (DESIGN.md contract): rows top to bottom joined by `/`, one
//! character a cell: `0`-`9` colours, `.` empty, `?` unread. Every row must have
//! the same length. Families keep faster private representations and convert
//! through this type.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Value of an empty cell.
pub const EMPTY: u8 = 255;
/// Value of a cell that could not be read.
pub const UNKNOWN: u8 = 254;

/// A cell position: row 0 is the top row, col 0 the left column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Cell {
    pub row: usize,
    pub col: usize,
}

impl Cell {
    pub fn new(row: usize, col: usize) -> Self {
        Cell { row, col }
    }

    /// The cell at row-major index `i` of a board `cols` wide.
    pub fn at(i: usize, cols: usize) -> Self {
        Cell::new(i / cols, i % cols)
    }

    /// True when `other` is beside this cell (4-connected).
    pub fn touches(self, other: Cell) -> bool {
        self.row.abs_diff(other.row) + self.col.abs_diff(other.col) == 1
    }
}

/// A rectangular grid of cells, row-major.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Board {
    rows: usize,
    cols: usize,
    cells: Vec<u8>,
}

/// Why a board text could not be parsed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BoardParseError {
    #[error("empty board text")]
    Empty,
    #[error("row {row} has {found} cells, expected {expected}")]
    RaggedRow {
        row: usize,
        found: usize,
        expected: usize,
    },
    #[error("unexpected character {ch:?} at row {row}, column {col} (allowed: 0-9 . ?)")]
    BadChar { ch: char, row: usize, col: usize },
}

impl Board {
    /// A board of `rows` x `cols` cells, all set to `fill`.
    pub fn new(rows: usize, cols: usize, fill: u8) -> Self {
        Board {
            rows,
            cols,
            cells: vec![fill; rows * cols],
        }
    }

    /// Builds a board from row-major cells. Panics if the length is not rows*cols
    /// (a programming error, never user input).
    pub fn from_cells(rows: usize, cols: usize, cells: Vec<u8>) -> Self {
        assert_eq!(cells.len(), rows * cols, "cell count must be rows*cols");
        Board { rows, cols, cells }
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    pub fn cells(&self) -> &[u8] {
        &self.cells
    }

    pub fn get(&self, row: usize, col: usize) -> u8 {
        self.cells[row * self.cols + col]
    }

    pub fn set(&mut self, row: usize, col: usize, v: u8) {
        self.cells[row * self.cols + col] = v;
    }

    /// Number of cells that could not be read.
    pub fn unknown_count(&self) -> usize {
        self.cells.iter().filter(|&&c| c == UNKNOWN).count()
    }

    /// Number of cells holding a colour.
    pub fn filled_count(&self) -> usize {
        self.cells.iter().filter(|&&c| c <= 9).count()
    }

    /// Positions where two boards of the same size differ.
    pub fn diff(&self, other: &Board) -> Vec<Cell> {
        if self.rows != other.rows || self.cols != other.cols {
            return (0..self.rows)
                .flat_map(|r| (0..self.cols).map(move |c| Cell::new(r, c)))
                .collect();
        }
        let mut out = Vec::new();
        for r in 0..self.rows {
            for c in 0..self.cols {
                if self.get(r, c) != other.get(r, c) {
                    out.push(Cell::new(r, c));
                }
            }
        }
        out
    }
}

fn cell_char(v: u8) -> char {
    match v {
        0..=9 => (b'0' + v) as char,
        EMPTY => '.',
        _ => '?',
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in 0..self.rows {
            if r > 0 {
                f.write_str("/")?;
            }
            for c in 0..self.cols {
                write!(f, "{}", cell_char(self.get(r, c)))?;
            }
        }
        Ok(())
    }
}

impl FromStr for Board {
    type Err = BoardParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if s.is_empty() {
            return Err(BoardParseError::Empty);
        }
        let mut cells = Vec::new();
        let mut cols = 0;
        let mut rows = 0;
        for (r, line) in s.split('/').enumerate() {
            let line = line.trim();
            let before = cells.len();
            for (c, ch) in line.chars().enumerate() {
                let v = match ch {
                    '0'..='9' => ch as u8 - b'0',
                    '.' => EMPTY,
                    '?' => UNKNOWN,
                    _ => return Err(BoardParseError::BadChar { ch, row: r, col: c }),
                };
                cells.push(v);
            }
            let n = cells.len() - before;
            if r == 0 {
                if n == 0 {
                    return Err(BoardParseError::Empty);
                }
                cols = n;
            } else if n != cols {
                return Err(BoardParseError::RaggedRow {
                    row: r,
                    found: n,
                    expected: cols,
                });
            }
            rows += 1;
        }
        Ok(Board { rows, cols, cells })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let text = "012/.?9/345";
        let b: Board = text.parse().unwrap();
        assert_eq!((b.rows(), b.cols()), (3, 3));
        assert_eq!(b.get(1, 0), EMPTY);
        assert_eq!(b.get(1, 1), UNKNOWN);
        assert_eq!(b.get(1, 2), 9);
        assert_eq!(b.to_string(), text);
        assert_eq!(b.unknown_count(), 1);
        assert_eq!(b.filled_count(), 7);
    }

    #[test]
    fn errors() {
        assert_eq!("".parse::<Board>(), Err(BoardParseError::Empty));
        assert_eq!(
            "12/3".parse::<Board>(),
            Err(BoardParseError::RaggedRow {
                row: 1,
                found: 1,
                expected: 2
            })
        );
        assert_eq!(
            "1x".parse::<Board>(),
            Err(BoardParseError::BadChar {
                ch: 'x',
                row: 0,
                col: 1
            })
        );
    }

    #[test]
    fn diff_lists_changed_cells() {
        let a: Board = "12/34".parse().unwrap();
        let b: Board = "12/44".parse().unwrap();
        assert_eq!(a.diff(&b), vec![Cell::new(1, 0)]);
    }
}
