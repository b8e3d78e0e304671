//! Polyomino tiling as exact cover: a region, pieces with counts, and every
//! placement as an option; builds both the bitmask and the dancing-links form.
//!
//! Items: each region cell is a primary item (a piece of the "empty" kind, a
//! one-cell piece with a count, lets cells stay empty); each piece is a counted
//! item (used at most `count` times); tags are extra secondary items that side
//! constraints (symmetry breaking) attach to options.
//!
//! Bit order for the fast path: region cells numbered along the short side
//! first (column by column when the region is wider than tall), so that
//! first-empty-cell branching sweeps a short frontier.
//!
//! Invariants: option `i` here is option `i` in both engine forms, so a
//! solution from either maps back through [`Tiling::options`].

use std::collections::HashMap;

use super::bits::{BitOption, BitProblem};
use super::dlx::Problem;
use super::shape::{placements, Placement, Region, Shape};
use super::PackingError;
use crate::board::Cell;

/// A kind of piece and how many of it may be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    pub name: String,
    pub shape: Shape,
    pub count: u32,
    /// Whether mirror images are the same piece (turned over).
    pub reflections: bool,
}

/// One option: a piece at a placement, with its tags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TileOption {
    pub piece: usize,
    pub placement: Placement,
    /// Secondary tag items (bit `t` = tag `t`).
    pub tags: u64,
}

/// A tiling problem.
#[derive(Debug, Clone)]
pub struct Tiling {
    pub region: Region,
    pub pieces: Vec<Piece>,
    pub options: Vec<TileOption>,
    /// Cell of each bit / primary item, in bit order.
    order: Vec<Cell>,
    index: HashMap<Cell, usize>,
    /// Dead-region pruning in the fast form.
    pub prune: bool,
}

impl Tiling {
    /// All placements of all pieces in `region` (pieces with count 0 are kept
    /// in the list but get no options).
    pub fn new(region: Region, pieces: Vec<Piece>) -> Tiling {
        let mut order: Vec<Cell> = region.cells().collect();
        if region.cols() > region.rows() {
            order.sort_by_key(|c| (c.col, c.row));
        }
        let index = order.iter().enumerate().map(|(i, &c)| (c, i)).collect();
        let mut options = Vec::new();
        for (pi, p) in pieces.iter().enumerate() {
            if p.count == 0 {
                continue;
            }
            for placement in placements(&p.shape, &region, p.reflections) {
                options.push(TileOption {
                    piece: pi,
                    placement,
                    tags: 0,
                });
            }
        }
        Tiling {
            region,
            pieces,
            options,
            order,
            index,
            prune: true,
        }
    }

    /// Cells in bit order.
    pub fn cell_order(&self) -> &[Cell] {
        &self.order
    }

    /// Number of tags in use (highest tag bit + 1).
    pub fn tag_count(&self) -> usize {
        let all = self.options.iter().fold(0u64, |a, o| a | o.tags);
        64 - all.leading_zeros() as usize
    }

    /// The fast form (at most 64 cells), with dead-region pruning (on unless a
    /// one-cell piece makes every region size possible).
    pub fn bit_problem(&self) -> Result<BitProblem, PackingError> {
        self.bit_problem_with(false, &|_| true)
    }

    /// The fast form split in two by where the root piece sits: root
    /// placements in the half where the scan starts use the normal bit order,
    /// the others a mirrored one (the scan then starts next to them, which
    /// keeps their subtrees as small as the first half's). The two problems'
    /// solution sets partition the whole set. Without a root piece: one
    /// problem.
    pub fn split_bit_problems(&self) -> Result<Vec<BitProblem>, PackingError> {
        if self.root_piece().is_none() {
            return Ok(vec![self.bit_problem()?]);
        }
        let wide = self.region.cols() > self.region.rows();
        let len = if wide {
            self.region.cols()
        } else {
            self.region.rows()
        };
        let far = |c: &Cell| if wide { c.col } else { c.row };
        // Twice the mean coordinate along the scan, against the board's middle.
        let near = |o: usize| {
            let cells = &self.options[o].placement.cells;
            let sum: usize = cells.iter().map(far).sum();
            2 * sum < (len - 1) * cells.len() + 1
        };
        Ok(vec![
            self.bit_problem_with(false, &|o| near(o))?,
            self.bit_problem_with(true, &|o| !near(o))?,
        ])
    }

    /// The fast form with the scan mirrored or not, keeping the root piece's
    /// options for which `root_keep` (by option index) holds.
    fn bit_problem_with(
        &self,
        mirrored: bool,
        root_keep: &dyn Fn(usize) -> bool,
    ) -> Result<BitProblem, PackingError> {
        let cells = self.order.len();
        if cells > 64 {
            return Err(PackingError::TooLarge {
                cells,
                tags: self.tag_count(),
            });
        }
        let (rows, cols) = (self.region.rows(), self.region.cols());
        let mut order = self.order.clone();
        if mirrored {
            if cols > rows {
                order.sort_by_key(|c| (cols - 1 - c.col, c.row));
            } else {
                order.sort_by_key(|c| (rows - 1 - c.row, c.col));
            }
        }
        let bit: HashMap<Cell, usize> = order.iter().enumerate().map(|(i, &c)| (c, i)).collect();
        let mask = |cs: &[Cell]| {
            cs.iter()
                .filter_map(|c| bit.get(c))
                .fold(0u64, |m, &b| m | (1u64 << b))
        };
        let primary = if cells == 64 {
            u64::MAX
        } else {
            (1u64 << cells) - 1
        };
        let caps: Vec<u32> = self.pieces.iter().map(|p| p.count.max(1)).collect();
        let options = self
            .options
            .iter()
            .map(|o| BitOption {
                cells: mask(&o.placement.cells),
                piece: o.piece,
                tags: o.tags,
            })
            .collect();
        let mut adjacent = vec![0u64; 64];
        for (b, c) in order.iter().enumerate() {
            let (r, col) = (c.row as i64, c.col as i64);
            for (dr, dc) in [(0i64, 1i64), (1, 0), (0, -1), (-1, 0)] {
                let (nr, nc) = (r + dr, col + dc);
                if nr < 0 || nc < 0 {
                    continue;
                }
                if let Some(&n) = bit.get(&Cell::new(nr as usize, nc as usize)) {
                    adjacent[b] |= 1u64 << n;
                }
            }
        }
        let mut problem = BitProblem::new(primary, 0, caps, options)?;
        if let Some(root) = self.root_piece() {
            problem = problem.with_root_piece(root, root_keep);
        }
        if self.prune {
            problem = problem.with_adjacency(adjacent);
        }
        Ok(problem)
    }

    /// A piece every solution must use once, with the fewest options: when the
    /// pieces' cells add up to exactly the region's, every piece is used to
    /// its count, so a count-1 piece can be placed first.
    pub fn root_piece(&self) -> Option<usize> {
        let area: u64 = self
            .pieces
            .iter()
            .map(|p| p.count as u64 * p.shape.len() as u64)
            .sum();
        if area != self.order.len() as u64 {
            return None;
        }
        (0..self.pieces.len())
            .filter(|&i| self.pieces[i].count == 1)
            .min_by_key(|&i| self.options.iter().filter(|o| o.piece == i).count())
    }

    /// The generic dancing-links form: cells primary, pieces counted, tags
    /// secondary.
    pub fn dlx_problem(&self) -> Problem {
        let mut p = Problem::new();
        let cells: Vec<usize> = self.order.iter().map(|_| p.primary()).collect();
        // In an exact tiling (the pieces' cells add up to the region's) every
        // piece is used to its count: a count-1 piece is then a primary item,
        // which lets the MRV choice branch on pieces too.
        let exact = self.root_piece().is_some();
        let pieces: Vec<usize> = self
            .pieces
            .iter()
            .map(|pc| {
                if exact && pc.count == 1 {
                    p.primary()
                } else {
                    // count.max(1) is never 0, so at_most cannot fail.
                    p.at_most(pc.count.max(1)).unwrap_or(0)
                }
            })
            .collect();
        let tags: Vec<usize> = (0..self.tag_count()).map(|_| p.secondary()).collect();
        for o in &self.options {
            let mut items: Vec<usize> = o
                .placement
                .cells
                .iter()
                .filter_map(|c| self.index.get(c).map(|&b| cells[b]))
                .collect();
            items.push(pieces[o.piece]);
            for (t, &item) in tags.iter().enumerate() {
                if o.tags >> t & 1 == 1 {
                    items.push(item);
                }
            }
            // Placements hold distinct region cells, so the option is valid.
            let _ = p.option(&items);
        }
        p
    }

    /// True when `solution` (option indices) covers every region cell exactly
    /// once, uses no piece more than its count, and no tag twice.
    pub fn is_exact_cover(&self, solution: &[usize]) -> bool {
        let mut seen = vec![0u32; self.order.len()];
        let mut used = vec![0u32; self.pieces.len()];
        let mut tags = 0u64;
        for &i in solution {
            let Some(o) = self.options.get(i) else {
                return false;
            };
            if tags & o.tags != 0 {
                return false;
            }
            tags |= o.tags;
            used[o.piece] += 1;
            for c in &o.placement.cells {
                match self.index.get(c) {
                    Some(&b) => seen[b] += 1,
                    None => return false,
                }
            }
        }
        seen.iter().all(|&n| n == 1) && used.iter().zip(&self.pieces).all(|(&u, p)| u <= p.count)
    }

    /// The solution as a text grid: each cell shows the first character of its
    /// piece's name, `.` outside the region, `?` uncovered.
    pub fn render(&self, solution: &[usize]) -> String {
        let (rows, cols) = (self.region.rows(), self.region.cols());
        let mut grid = vec![vec!['.'; cols]; rows];
        for c in self.region.cells() {
            grid[c.row][c.col] = '?';
        }
        for &i in solution {
            if let Some(o) = self.options.get(i) {
                let ch = self.pieces[o.piece].name.chars().next().unwrap_or('#');
                for c in &o.placement.cells {
                    grid[c.row][c.col] = ch;
                }
            }
        }
        grid.into_iter()
            .map(|r| r.into_iter().collect::<String>())
            .collect::<Vec<_>>()
            .join("/")
    }
}
