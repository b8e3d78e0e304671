//! The fast exact-cover path for problems of at most 64 cells: one `u64` of
//! covered cells, counted pieces, and up to 64 secondary tags.
//!
//! Items: cells are bits 0..64 of a `u64`; a cell in `primary` must be covered
//! exactly once, one in `secondary` at most once. Every option belongs to one
//! *piece*, and piece `p` may be used at most `caps[p]` times (a pentomino
//! puzzle: every cap 1; a chip inventory: the chips of that shape). *Tags* are
//! 64 further secondary items (bit masks) for side constraints such as
//! symmetry breaking.
//!
//! Branching: de Bruijn's rule, always cover the lowest-numbered uncovered
//! primary cell (N. G. de Bruijn, "Programmeren van de pentomino puzzle",
//! Euclides 47, 1971/72; discussed in Knuth, "Dancing Links", 2000, as the
//! fastest known pentomino method). Options are precompiled into one list per
//! cell holding the options whose lowest primary cell it is, grouped by piece
//! so a used-up piece is skipped in one step. Such an option can only conflict
//! with covered cells, so a candidate test is `mask & filled == 0` plus the
//! piece count and the tags. The caller chooses the bit order: numbering cells
//! along the board's short side first keeps the frontier short (what makes
//! first-empty-cell branching fast on rectangles).
//!
//! Pruning (optional, given cell adjacency): after a placement, an uncovered
//! primary cell next to it with no uncovered neighbour cannot be covered by any
//! piece larger than one cell, so the branch is cut.
//!
//! Invariants: options are validated when the problem is built; the search
//! visits each solution once (one fixed order of choices per solution), with
//! the chosen option indices in the order the caller added them.

use super::{ExactCover, Halt, Limits, Outcome, PackingError, Visit, STOP_CHECK_EVERY};

/// One option: the cells it covers, its piece, its tags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BitOption {
    pub cells: u64,
    pub piece: usize,
    pub tags: u64,
}

#[derive(Debug, Clone, Copy)]
struct Group {
    piece: u32,
    start: u32,
    end: u32,
}

/// A compiled problem (immutable; searches keep their own state).
#[derive(Debug, Clone)]
pub struct BitProblem {
    primary: u64,
    caps: Vec<u32>,
    options: Vec<BitOption>,
    /// Per cell: its groups (a range of `groups`).
    cell_groups: Vec<(u32, u32)>,
    groups: Vec<Group>,
    /// Flat, grouped: mask, tags and original index of each option.
    masks: Vec<u64>,
    tags: Vec<u64>,
    ids: Vec<u32>,
    /// Neighbour masks per cell, for isolated-cell pruning (empty = off).
    adjacent: Vec<u64>,
}

impl BitProblem {
    /// Builds a problem: `primary` cells must be covered once, `secondary`
    /// cells at most once; `caps[p]` is how often piece `p` may be used.
    pub fn new(
        primary: u64,
        secondary: u64,
        caps: Vec<u32>,
        options: Vec<BitOption>,
    ) -> Result<BitProblem, PackingError> {
        let cells = (primary | secondary).count_ones() as usize;
        if primary & secondary != 0 {
            return Err(PackingError::RepeatedItem {
                option: usize::MAX,
                item: (primary & secondary).trailing_zeros() as usize,
            });
        }
        for (i, &c) in caps.iter().enumerate() {
            if c == 0 {
                return Err(PackingError::ZeroCapacity { item: 64 + i });
            }
        }
        for (i, o) in options.iter().enumerate() {
            if o.cells == 0 {
                return Err(PackingError::EmptyOption(i));
            }
            let outside = o.cells & !(primary | secondary);
            if outside != 0 {
                return Err(PackingError::BadItem {
                    option: i,
                    item: outside.trailing_zeros() as usize,
                    items: cells,
                });
            }
            if o.piece >= caps.len() {
                return Err(PackingError::BadItem {
                    option: i,
                    item: 64 + o.piece,
                    items: 64 + caps.len(),
                });
            }
        }
        // Bucket by lowest primary cell, then by piece (stable: caller order).
        let mut order: Vec<usize> = (0..options.len())
            .filter(|&i| options[i].cells & primary != 0)
            .collect();
        order.sort_by_key(|&i| {
            (
                (options[i].cells & primary).trailing_zeros(),
                options[i].piece,
            )
        });
        let mut masks = Vec::with_capacity(order.len());
        let mut tags = Vec::with_capacity(order.len());
        let mut ids = Vec::with_capacity(order.len());
        let mut groups: Vec<Group> = Vec::new();
        let mut cell_groups = vec![(0u32, 0u32); 64];
        let mut k = 0;
        while k < order.len() {
            let cell = (options[order[k]].cells & primary).trailing_zeros() as usize;
            let g0 = groups.len() as u32;
            while k < order.len()
                && (options[order[k]].cells & primary).trailing_zeros() as usize == cell
            {
                let piece = options[order[k]].piece;
                let start = masks.len() as u32;
                while k < order.len()
                    && (options[order[k]].cells & primary).trailing_zeros() as usize == cell
                    && options[order[k]].piece == piece
                {
                    let o = &options[order[k]];
                    masks.push(o.cells);
                    tags.push(o.tags);
                    ids.push(order[k] as u32);
                    k += 1;
                }
                groups.push(Group {
                    piece: piece as u32,
                    start,
                    end: masks.len() as u32,
                });
            }
            cell_groups[cell] = (g0, groups.len() as u32);
        }
        Ok(BitProblem {
            primary,
            caps,
            options,
            cell_groups,
            groups,
            masks,
            tags,
            ids,
            adjacent: Vec::new(),
        })
    }

    /// Turns on isolated-cell pruning: `adjacent[c]` is the mask of cells next
    /// to cell `c`. Only sound when every option covers at least two cells.
    pub fn with_adjacency(mut self, adjacent: Vec<u64>) -> BitProblem {
        let all_big = self.options.iter().all(|o| o.cells.count_ones() >= 2);
        if all_big && adjacent.len() == 64 {
            self.adjacent = adjacent;
        }
        self
    }

    pub fn options(&self) -> &[BitOption] {
        &self.options
    }

    pub fn caps(&self) -> &[u32] {
        &self.caps
    }

    pub fn primary(&self) -> u64 {
        self.primary
    }
}

struct Run<'p, 'l, 'v, 'w> {
    p: &'p BitProblem,
    left: Vec<u32>,
    stack: Vec<usize>,
    nodes: u64,
    solutions: u64,
    node_cap: u64,
    limits: &'l Limits<'l>,
    visit: &'v mut Visit<'w>,
}

impl Run<'_, '_, '_, '_> {
    fn rec(&mut self, filled: u64, used_tags: u64) -> Result<(), Halt> {
        let open = self.p.primary & !filled;
        if open == 0 {
            self.solutions += 1;
            return match (self.visit)(&self.stack) {
                std::ops::ControlFlow::Continue(()) => Ok(()),
                std::ops::ControlFlow::Break(()) => Err(Halt::Visitor),
            };
        }
        let cell = open.trailing_zeros() as usize;
        let (g0, g1) = self.p.cell_groups[cell];
        for g in g0..g1 {
            let grp = self.p.groups[g as usize];
            if self.left[grp.piece as usize] == 0 {
                continue;
            }
            for k in grp.start as usize..grp.end as usize {
                let m = self.p.masks[k];
                if m & filled != 0 || self.p.tags[k] & used_tags != 0 {
                    continue;
                }
                self.nodes += 1;
                if self.nodes > self.node_cap {
                    return Err(Halt::Nodes);
                }
                if self.nodes % STOP_CHECK_EVERY == 0 && self.limits.stop.should_stop() {
                    return Err(Halt::Stopped);
                }
                let now = filled | m;
                if !self.p.adjacent.is_empty() && self.isolated(m, now) {
                    continue;
                }
                self.left[grp.piece as usize] -= 1;
                self.stack.push(self.p.ids[k] as usize);
                let r = self.rec(now, used_tags | self.p.tags[k]);
                self.stack.pop();
                self.left[grp.piece as usize] += 1;
                r?;
            }
        }
        Ok(())
    }

    /// True when an uncovered primary cell next to the new piece `m` has no
    /// uncovered neighbour left.
    #[inline]
    fn isolated(&self, m: u64, filled: u64) -> bool {
        let mut around = 0u64;
        let mut bits = m;
        while bits != 0 {
            let c = bits.trailing_zeros() as usize;
            around |= self.p.adjacent[c];
            bits &= bits - 1;
        }
        let mut check = around & self.p.primary & !filled;
        while check != 0 {
            let c = check.trailing_zeros() as usize;
            if self.p.adjacent[c] & !filled == 0 {
                return true;
            }
            check &= check - 1;
        }
        false
    }
}

impl ExactCover for BitProblem {
    fn search(&self, limits: &Limits, visit: &mut Visit) -> Outcome {
        let mut run = Run {
            p: self,
            left: self.caps.clone(),
            stack: Vec::with_capacity(64),
            nodes: 0,
            solutions: 0,
            node_cap: limits.nodes.unwrap_or(u64::MAX),
            limits,
            visit,
        };
        let halt = match run.rec(0, 0) {
            Ok(()) => Halt::Complete,
            Err(h) => h,
        };
        Outcome {
            solutions: run.solutions,
            nodes: run.nodes,
            halt,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dominoes on a 2x3 board: 3 tilings.
    #[test]
    fn dominoes_2x3() {
        // Cells: bit r*3+c.
        let mut opts = Vec::new();
        for r in 0..2 {
            for c in 0..3 {
                let b = r * 3 + c;
                if c + 1 < 3 {
                    opts.push(BitOption {
                        cells: (1 << b) | (1 << (b + 1)),
                        piece: 0,
                        tags: 0,
                    });
                }
                if r + 1 < 2 {
                    opts.push(BitOption {
                        cells: (1 << b) | (1 << (b + 3)),
                        piece: 0,
                        tags: 0,
                    });
                }
            }
        }
        let p = BitProblem::new(0b111111, 0, vec![3], opts.clone()).expect("valid");
        assert_eq!(p.count(&Limits::none()).solutions, 3);
        // Only two dominoes allowed: no cover.
        let p = BitProblem::new(0b111111, 0, vec![2], opts.clone()).expect("valid");
        assert_eq!(p.count(&Limits::none()).solutions, 0);
        // The last column secondary: 2 dominoes cover the first two columns
        // (2 ways) or ... every cover of the 2x2 part: 2, plus those using the
        // third column with horizontal dominoes: 1 (top and bottom rows).
        let p = BitProblem::new(0b011011, 0b100100, vec![3], opts).expect("valid");
        assert_eq!(p.count(&Limits::none()).solutions, 3);
    }

    #[test]
    fn rejects_bad_options() {
        let o = BitOption {
            cells: 0b100,
            piece: 0,
            tags: 0,
        };
        assert!(BitProblem::new(0b11, 0, vec![1], vec![o]).is_err());
        let o = BitOption {
            cells: 0b1,
            piece: 3,
            tags: 0,
        };
        assert!(BitProblem::new(0b11, 0, vec![1], vec![o]).is_err());
        assert!(BitProblem::new(0b11, 0, vec![0], vec![]).is_err());
    }
}
