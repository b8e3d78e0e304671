//! Checking a played swap against the board seen afterwards.
//!
//! Pure: boards in, a [`Check`] out. The live loop reads the board before a
//! swap, plays it, waits for the game to settle, reads again and asks this
//! module what the two readings say about the move.
//!
//! The model of one swap with unknown refill ([`super::NoRefill`]): the swapped
//! board cascades with holes (`?`) entering from the top, so the prediction
//! (`expected`) knows every cell except the refilled ones. Two sets of cells
//! are reported:
//!
//! - *frozen* cells: in each column, the rows strictly below the lowest cell
//!   cleared in any wave of the prediction. They keep their post-swap value
//!   unless a refill cascade clears one of them.
//! - *known* cells: every cell the prediction names (frozen or fallen).
//!
//! A refilled gem that completes a line moves known gems too; the game is
//! not wrong then, the prediction just could not see it. Whether the seen
//! board is such a case is decided exactly by [`super::explain`]: is there a
//! refill (gems per column, arrival order) with which the rules turn the
//! swapped board into the seen one? Differences on known cells with such a
//! refill are a refill cascade; with none, a mismatch (a misread, a read
//! mid-cascade, a lost or different move, or a rule the model lacks) — or
//! Gweled's one known deviation from the rules: when the cascade leaves no
//! legal swap it deals a whole new board, stable and with a legal swap
//! ([`Check::new_board`]).
//!
//! Coordinates: row 0 at the top, as [`Board`].

use serde::Serialize;

use super::explain::{self, Consistency, Limits};
use super::rules::{is_gem, naive, HOLE};
use crate::board::{Board, Cell};

/// What the board seen after a swap says about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Check {
    /// The seen board differs from the board before the swap.
    pub changed: bool,
    /// The swap is legal on the board before it (the model's view).
    pub legal: bool,
    /// The prediction with unknown refill (`?` where gems were refilled).
    pub expected: String,
    /// Cells cleared by the swap's own cascade, over all waves (model).
    pub cleared: usize,
    /// Frozen cells (see the module docs) that differ from the prediction.
    pub frozen_mismatches: Vec<Cell>,
    /// Known (non-`?`) cells of the prediction that differ, frozen included.
    pub known_mismatches: Vec<Cell>,
    /// Known (non-`?`) cells of the prediction.
    pub known: usize,
    /// Does some refill make the rules produce the seen board
    /// ([`explain::explain`])? When undecided, [`Check::refill_cascade`]
    /// and [`Check::exact`] follow a rule of thumb instead.
    pub consistency: Consistency,
    /// Search nodes that answer took.
    pub nodes: usize,
    /// Known cells differ and some refill explains it (see module docs).
    pub refill_cascade: bool,
    /// No refill explains the seen board, but it is what Gweled shows after
    /// a cascade that left no legal swap: most known cells differ and the
    /// seen board is one Gweled deals (stable, with a legal swap). Whether
    /// the cascade really left no swap depends on the unknown refill and is
    /// not checked.
    pub new_board: bool,
}

impl Check {
    /// The seen board is what the model predicts on every known cell, and
    /// the refilled cells hold gems the rules allow there.
    pub fn exact(&self) -> bool {
        self.changed
            && self.known_mismatches.is_empty()
            && self.consistency != Consistency::Inconsistent
    }

    /// A changed board no refill explains and that is not a new board: a misread, a read mid-cascade,
    /// a dropped or different move, or a game rule the model does not have.
    pub fn unexplained(&self) -> bool {
        self.changed && !self.exact() && !self.refill_cascade && !self.new_board
    }
}

use super::rules::holes_as_hole as norm;

/// The board after swapping `x` and `y` (no legality check).
pub fn swapped(b: &Board, x: Cell, y: Cell) -> Board {
    let mut t = b.clone();
    let (vx, vy) = (b.get(x.row, x.col), b.get(y.row, y.col));
    t.set(x.row, x.col, vy);
    t.set(y.row, y.col, vx);
    t
}

/// The cascade of the swapped board with holes as refill: the final board,
/// the cells cleared over all waves, and per column the lowest row cleared
/// (`None` for a column with no clear).
pub fn cascade(after_swap: &Board) -> (Board, usize, Vec<Option<usize>>) {
    let mut b = norm(after_swap);
    let (rows, cols) = (b.rows(), b.cols());
    let mut lowest: Vec<Option<usize>> = vec![None; cols];
    let mut cleared_total = 0;
    loop {
        let lines = naive::lines(&b);
        if lines.is_empty() {
            return (b, cleared_total, lowest);
        }
        let mut mark = vec![false; rows * cols];
        for c in lines.iter().flatten() {
            mark[c.row * cols + c.col] = true;
        }
        cleared_total += mark.iter().filter(|&&m| m).count();
        for c in 0..cols {
            let keep: Vec<u8> = (0..rows)
                .filter(|&r| !mark[r * cols + c])
                .map(|r| b.get(r, c))
                .collect();
            if let Some(r) = (0..rows).rev().find(|&r| mark[r * cols + c]) {
                lowest[c] = Some(lowest[c].map_or(r, |l: usize| l.max(r)));
            }
            let fresh = rows - keep.len();
            for (r, v) in std::iter::repeat_n(HOLE, fresh).chain(keep).enumerate() {
                b.set(r, c, v);
            }
        }
    }
}

/// Frozen cells of a swap (row-major): see the module docs.
pub fn frozen_mask(lowest: &[Option<usize>], rows: usize) -> Vec<bool> {
    let cols = lowest.len();
    let mut m = vec![false; rows * cols];
    for (c, low) in lowest.iter().enumerate() {
        let from = low.map_or(0, |l| l + 1);
        for r in from..rows {
            m[r * cols + c] = true;
        }
    }
    m
}

/// The known (gem) cells of `expected` that `seen` shows otherwise.
/// Boards must have the same size.
pub fn known_mismatches(expected: &Board, seen: &Board) -> Vec<Cell> {
    let mut out = Vec::new();
    for r in 0..expected.rows() {
        for c in 0..expected.cols() {
            let e = expected.get(r, c);
            if is_gem(e) && e != seen.get(r, c) {
                out.push(Cell::new(r, c));
            }
        }
    }
    out
}

/// The fallback when the refill search is undecided (its node limit): a
/// rule of thumb that accepts a difference as a refill cascade when, in
/// every column that differs, the lowest differing cell could have been in
/// a line of its colour made of cells that are refilled, differing, or above
/// the lowest differing cell of their column (they may have held other gems
/// mid-cascade). Neither sound nor complete; the search decides nearly all
/// swaps (see `docs/gweled.md`).
fn could_line(expected: &Board, wild: &[bool], own: &[bool], cell: Cell) -> bool {
    let v = expected.get(cell.row, cell.col);
    let (rows, cols) = (expected.rows() as isize, expected.cols() as isize);
    let fits = |r: isize, c: isize, w: &[bool]| {
        if r < 0 || c < 0 || r >= rows || c >= cols {
            return false;
        }
        let (r, c) = (r as usize, c as usize);
        let e = expected.get(r, c);
        e == v || !is_gem(e) || w[r * cols as usize + c]
    };
    let (r0, c0) = (cell.row as isize, cell.col as isize);
    (-2..=0).any(|s| (0..3).all(|k| fits(r0, c0 + s + k, wild)))
        || (-2..=0).any(|s| (0..3).all(|k| fits(r0 + s + k, c0, own)))
}
fn rule_of_thumb(expected: &Board, seen: &Board) -> bool {
    let (rows, cols) = (expected.rows(), expected.cols());
    let mut known_mismatches = Vec::new();
    let mut wild = vec![false; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            let e = expected.get(r, c);
            if is_gem(e) && e != seen.get(r, c) {
                known_mismatches.push(Cell::new(r, c));
                wild[r * cols + c] = true;
            }
        }
    }
    // Lowest differing row of each column; every cell above it may have
    // held another gem during the cascade, so it is wild too.
    let lowest_diff: Vec<Option<usize>> = (0..cols)
        .map(|c| (0..rows).rev().find(|&r| wild[r * cols + c]))
        .collect();
    let own = wild.clone();
    for (c, low) in lowest_diff.iter().enumerate() {
        if let Some(low) = *low {
            for r in 0..low {
                wild[r * cols + c] = true;
            }
        }
    }
    let refill_cascade = !known_mismatches.is_empty()
        && lowest_diff.iter().enumerate().all(|(c, low)| match low {
            None => true,
            Some(r) => could_line(expected, &wild, &own, Cell::new(*r, c)),
        });
    refill_cascade
}

/// Stable (no line) with at least one legal swap: a board Gweled deals.
fn dealt_board(b: &Board) -> bool {
    naive::lines(b).is_empty() && !naive::legal_swaps(b).is_empty()
}

/// Checks the swap of `x` and `y` played on `before` against `seen`, for a
/// game whose gems have colours `0..colours` (see [`explain::palette_of`]).
/// `before` and `seen` must have the same size.
pub fn check(before: &Board, x: Cell, y: Cell, seen: &Board, colours: u8) -> Check {
    let rows = before.rows();
    let before = norm(before);
    let legal = naive::legal_swaps(&before).contains(&(x.min(y), x.max(y)));
    let after_swap = swapped(&before, x, y);
    let (expected, cleared, lowest) = cascade(&after_swap);
    let frozen = frozen_mask(&lowest, rows);
    let known_mismatches = known_mismatches(&expected, seen);
    let known = expected.cells().iter().filter(|&&v| is_gem(v)).count();
    let changed = &before != seen;
    let e = explain::explain(&after_swap, seen, colours, &Limits::DEFAULT);
    let consistent = match e.consistency {
        Consistency::Consistent => true,
        Consistency::Inconsistent => false,
        Consistency::Undecided => changed && rule_of_thumb(&expected, seen),
    };
    let new_board =
        changed && !consistent && 2 * known_mismatches.len() > known && dealt_board(&norm(seen));
    let frozen_mismatches = known_mismatches
        .iter()
        .copied()
        .filter(|c| frozen[c.row * before.cols() + c.col])
        .collect();
    Check {
        changed,
        legal,
        expected: expected.to_string(),
        cleared,
        frozen_mismatches,
        refill_cascade: consistent && !known_mismatches.is_empty(),
        known_mismatches,
        known,
        consistency: e.consistency,
        nodes: e.nodes,
        new_board,
    }
}

/// Gweled's own count of one wave on `b` (its `gweled_check_for_alignments`
/// and `delete_alignment_from_board`, board_engine.c): a cell is "aligned"
/// if it is in a 3-run of its colour; consecutive aligned cells of a column,
/// then of a row, form one alignment (two touching runs of different
/// colours count as one long alignment); columns are scored first, and an
/// alignment scores `10 * multiplier * (cells not yet removed - 2)`, so a
/// row crossing an already-scored column scores less (possibly negative).
/// Returns the points and the cleared cells (row-major).
pub fn gweled_wave(b: &Board, multiplier: i64) -> (i64, Vec<bool>) {
    let (rows, cols) = (b.rows(), b.cols());
    let gem = |r: usize, c: usize| {
        let v = b.get(r, c);
        is_gem(v).then_some(v)
    };
    let run3 = |cells: [(usize, usize); 3]| {
        let [p, q, t] = cells;
        matches!((gem(p.0, p.1), gem(q.0, q.1), gem(t.0, t.1)), (Some(x), Some(y), Some(z)) if x == y && y == z)
    };
    let mut vert = vec![false; rows * cols];
    let mut horiz = vec![false; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            if r + 2 < rows && run3([(r, c), (r + 1, c), (r + 2, c)]) {
                for k in 0..3 {
                    vert[(r + k) * cols + c] = true;
                }
            }
            if c + 2 < cols && run3([(r, c), (r, c + 1), (r, c + 2)]) {
                for k in 0..3 {
                    horiz[r * cols + c + k] = true;
                }
            }
        }
    }
    let mut alignments: Vec<Vec<usize>> = Vec::new();
    for c in 0..cols {
        let mut run = Vec::new();
        for r in 0..=rows {
            if r < rows && vert[r * cols + c] {
                run.push(r * cols + c);
            } else if !run.is_empty() {
                alignments.push(std::mem::take(&mut run));
            }
        }
    }
    for r in 0..rows {
        let mut run = Vec::new();
        for c in 0..=cols {
            if c < cols && horiz[r * cols + c] {
                run.push(r * cols + c);
            } else if !run.is_empty() {
                alignments.push(std::mem::take(&mut run));
            }
        }
    }
    let mut removed = vec![false; rows * cols];
    let mut points = 0;
    for a in &alignments {
        let new = a.iter().filter(|&&i| !removed[i]).count() as i64;
        for &i in a {
            removed[i] = true;
        }
        points += 10 * multiplier * (new - 2);
    }
    (points, removed)
}

/// Gweled's points for swapping `x` and `y` on `before`, cascades with
/// unknown refill included (what the game adds to its score when no
/// refilled gem makes a line).
pub fn gweled_points(before: &Board, x: Cell, y: Cell, multiplier: i64) -> i64 {
    let mut b = swapped(&norm(before), x, y);
    let (rows, cols) = (b.rows(), b.cols());
    let mut total = 0;
    loop {
        let (pts, mark) = gweled_wave(&b, multiplier);
        if !mark.iter().any(|&m| m) {
            return total;
        }
        total += pts;
        for c in 0..cols {
            let keep: Vec<u8> = (0..rows)
                .filter(|&r| !mark[r * cols + c])
                .map(|r| b.get(r, c))
                .collect();
            let fresh = rows - keep.len();
            for (r, v) in std::iter::repeat_n(HOLE, fresh).chain(keep).enumerate() {
                b.set(r, c, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(s: &str) -> Board {
        s.parse().expect("board literal")
    }

    // Swapping (2,0) and (2,1) makes vertical threes in columns 0 and 1.
    const BEFORE: &str = "0123/0145/1023/2301/3012";
    const X: Cell = Cell { row: 2, col: 0 };
    const Y: Cell = Cell { row: 2, col: 1 };

    #[test]
    fn cascade_reports_holes_and_lowest_clears() {
        let (exp, cleared, lowest) = cascade(&swapped(&b(BEFORE), X, Y));
        assert_eq!(exp.to_string(), "??23/??45/??23/2301/3012");
        assert_eq!(cleared, 6);
        assert_eq!(lowest, vec![Some(2), Some(2), None, None]);
        let f = frozen_mask(&lowest, 5);
        let frozen: Vec<usize> = (0..20).filter(|&i| f[i]).collect();
        assert_eq!(
            frozen,
            vec![2, 3, 6, 7, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19]
        );
    }

    #[test]
    fn exact_when_only_refilled_cells_are_new() {
        let (exp, _, _) = cascade(&swapped(&b(BEFORE), X, Y));
        let mut seen = exp.clone();
        for r in 0..3 {
            seen.set(r, 0, 4 + r as u8);
            seen.set(r, 1, 6 - r as u8);
        }
        let chk = check(&b(BEFORE), X, Y, &seen, 7);
        assert!(chk.legal && chk.changed && chk.exact(), "{chk:?}");
        assert!(!chk.unexplained());
    }

    #[test]
    fn a_misread_far_from_the_refill_is_unexplained() {
        let (exp, _, _) = cascade(&swapped(&b(BEFORE), X, Y));
        let mut seen = exp.clone();
        for r in 0..3 {
            seen.set(r, 0, 4 + r as u8);
            seen.set(r, 1, 6 - r as u8);
        }
        seen.set(4, 3, 6);
        let chk = check(&b(BEFORE), X, Y, &seen, 7);
        assert_eq!(chk.frozen_mismatches, vec![Cell::new(4, 3)]);
        assert!(chk.unexplained(), "{chk:?}");
    }

    #[test]
    fn a_refill_line_next_to_the_hole_is_a_cascade() {
        // Only column 0 clears; a refilled 3 at (0,0) then lines up with the
        // 3s at (0,1) and (0,2), which the game clears and refills.
        let before = "0332/0145/1023/2301/3012";
        let (exp, cleared, _) = cascade(&swapped(&b(before), X, Y));
        assert_eq!(
            (exp.to_string().as_str(), cleared),
            ("?332/?145/?123/2301/3012", 3)
        );
        let mut seen = exp.clone();
        for (r, v) in [(0, 4), (1, 5), (2, 6)] {
            seen.set(r, 0, v);
        }
        seen.set(0, 1, 6);
        seen.set(0, 2, 5);
        let chk = check(&b(before), X, Y, &seen, 7);
        assert_eq!(chk.known_mismatches, vec![Cell::new(0, 1), Cell::new(0, 2)]);
        assert_eq!(chk.frozen_mismatches, chk.known_mismatches);
        assert!(chk.refill_cascade && !chk.unexplained(), "{chk:?}");
    }

    #[test]
    fn gweled_counts_crossings_once_and_merges_touching_runs() {
        // An L: column 0 rows 0-2 and row 2 columns 0-2 of colour 1. The
        // column scores 10, the row only has 2 new cells: 0.
        let l = b("1234/1567/1118/2345");
        let (pts, mark) = gweled_wave(&l, 1);
        assert_eq!(pts, 10);
        assert_eq!(mark.iter().filter(|&&m| m).count(), 5);
        // Two touching runs in one row (000111) are one alignment of 6: 40.
        let six = b("000111/234523/452345");
        assert_eq!(gweled_wave(&six, 1).0, 40);
        // Level multiplier 2 doubles it.
        assert_eq!(gweled_wave(&six, 2).0, 80);
        // The swap in BEFORE: two vertical threes, 10 each.
        assert_eq!(gweled_points(&b(BEFORE), X, Y, 1), 20);
    }

    #[test]
    fn an_unchanged_board_is_a_dropped_swap() {
        let chk = check(&b(BEFORE), X, Y, &b(BEFORE), 7);
        assert!(chk.legal && !chk.changed && !chk.exact());
    }
}
