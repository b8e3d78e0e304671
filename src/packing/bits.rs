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
//! fastest known pentomino method). Options are precompiled into lists per
//! cell holding the options whose lowest primary cell it is; such an option can
//! only conflict with covered cells, so a candidate test is
//! `mask & filled == 0` plus the piece count and the tags. Each cell's list is
//! further split by the 8 cells that follow it in bit order ([`WINDOW`]): the
//! covered pattern of those cells, read with one shift, selects a list holding
//! only the options that avoid it, so most failing candidates are never
//! looked at. The caller chooses the bit order: numbering cells along the
//! board's short side first keeps the frontier short (what makes
//! first-empty-cell branching fast on rectangles).
//!
//! Root piece (optional): when a piece is known to appear in every solution
//! (an exact tiling that uses every piece), the search may place it first,
//! over all its options, and branch on cells below that: the most constrained
//! piece (X among pentominoes) then splits the tree at the root.
//!
//! Pruning (optional, given cell adjacency): every piece is connected, so each
//! connected region of uncovered cells must be tiled on its own, and its size
//! must be a sum of piece sizes. After a placement, the regions next to it are
//! flood-filled (bounded: a fill that grows past [`DEAD_REGION_LIMIT`] cells
//! stops, it is the big open area) and a closed region of an impossible size
//! (an isolated cell, 7 cells among pentominoes) cuts the branch. This is the
//! "dead region" test of classic polyomino solvers, cheap because it only looks
//! around the new piece.
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

/// Cells after the branching cell whose covered pattern selects its list.
pub const WINDOW: u32 = 8;
const PATTERNS: usize = 1 << WINDOW;

/// A compiled problem (immutable; searches keep their own state).
#[derive(Debug, Clone)]
pub struct BitProblem {
    primary: u64,
    caps: Vec<u32>,
    options: Vec<BitOption>,
    /// Flat: mask, tags, piece and original index of each usable option.
    masks: Vec<u64>,
    tags: Vec<u64>,
    pieces: Vec<u32>,
    ids: Vec<u32>,
    /// `win_list[win_start[c * PATTERNS + p]..win_start[c * PATTERNS + p + 1]]`:
    /// the options anchored at cell `c` that avoid window pattern `p`.
    win_start: Vec<u32>,
    win_list: Vec<u32>,
    /// Options of the root piece (`None`: branch on cells from the start;
    /// `Some` of none: no solution).
    root: Option<Vec<u32>>,
    /// Neighbour masks per cell, for dead-region pruning (empty = off).
    adjacent: Vec<u64>,
    /// Bit `n`: a region of `n` cells can be tiled, as far as sizes go.
    sizes_ok: u128,
}

/// Largest region the dead-region test fills before giving up on it.
pub const DEAD_REGION_LIMIT: u32 = 12;

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
        // Usable options (covering a primary cell), in caller order.
        let usable: Vec<usize> = (0..options.len())
            .filter(|&i| options[i].cells & primary != 0)
            .collect();
        let masks: Vec<u64> = usable.iter().map(|&i| options[i].cells).collect();
        let tags = usable.iter().map(|&i| options[i].tags).collect();
        let pieces = usable.iter().map(|&i| options[i].piece as u32).collect();
        let ids = usable.iter().map(|&i| i as u32).collect();
        // Per anchor cell and window pattern, the compatible options.
        let mut win_start = Vec::with_capacity(64 * PATTERNS + 1);
        let mut win_list = Vec::new();
        for cell in 0..64u32 {
            let anchored: Vec<usize> = (0..masks.len())
                .filter(|&k| (masks[k] & primary).trailing_zeros() == cell)
                .collect();
            for pattern in 0..PATTERNS as u64 {
                win_start.push(win_list.len() as u32);
                for &k in &anchored {
                    if window(masks[k], cell) & pattern == 0 {
                        win_list.push(k as u32);
                    }
                }
            }
        }
        win_start.push(win_list.len() as u32);
        Ok(BitProblem {
            primary,
            caps,
            options,
            masks,
            tags,
            pieces,
            ids,
            win_start,
            win_list,
            root: None,
            adjacent: Vec::new(),
            sizes_ok: u128::MAX,
        })
    }

    /// Places piece `piece` first, over its options for which `keep` (by the
    /// caller's option index) holds. Sound only when every solution uses that
    /// piece (e.g. the pieces' cells add up to the board's); the solutions are
    /// then those with one of the kept placements.
    pub fn with_root_piece(mut self, piece: usize, keep: &dyn Fn(usize) -> bool) -> BitProblem {
        self.root = Some(
            (0..self.masks.len() as u32)
                .filter(|&k| {
                    self.pieces[k as usize] as usize == piece && keep(self.ids[k as usize] as usize)
                })
                .collect(),
        );
        self
    }

    /// Turns on dead-region pruning: `adjacent[c]` is the mask of cells next to
    /// cell `c`, and every option's cells must be connected through it. Sound
    /// only without secondary cells (a region must then be filled exactly);
    /// left off when sizes cannot rule anything out (a one-cell piece).
    pub fn with_adjacency(mut self, adjacent: Vec<u64>) -> BitProblem {
        if adjacent.len() != 64 {
            return self;
        }
        // Sizes reachable as sums of option sizes (unbounded: a relaxation).
        let mut piece_sizes = 0u128;
        for o in &self.options {
            piece_sizes |= 1u128 << o.cells.count_ones();
        }
        let mut ok = 1u128;
        for n in 1..=64u32 {
            let mut bits = piece_sizes;
            while bits != 0 {
                let s = bits.trailing_zeros();
                if s <= n && ok >> (n - s) & 1 == 1 {
                    ok |= 1u128 << n;
                }
                bits &= bits - 1;
            }
        }
        let limit_mask = (1u128 << (DEAD_REGION_LIMIT + 1)) - 1;
        if ok & limit_mask != limit_mask {
            self.adjacent = adjacent;
            self.sizes_ok = ok;
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
        let cell = open.trailing_zeros();
        let p = self.p;
        let slot = cell as usize * PATTERNS + window(filled, cell) as usize;
        let (a, b) = (p.win_start[slot] as usize, p.win_start[slot + 1] as usize);
        for &k in &p.win_list[a..b] {
            self.try_option(k as usize, filled, used_tags)?;
        }
        Ok(())
    }

    /// Places option `k` (flat index) if it fits, and searches below it.
    #[inline]
    fn try_option(&mut self, k: usize, filled: u64, used_tags: u64) -> Result<(), Halt> {
        let p = self.p;
        let m = p.masks[k];
        let piece = p.pieces[k] as usize;
        if m & filled != 0 || p.tags[k] & used_tags != 0 || self.left[piece] == 0 {
            return Ok(());
        }
        self.nodes += 1;
        if self.nodes > self.node_cap {
            return Err(Halt::Nodes);
        }
        if self.nodes.is_multiple_of(STOP_CHECK_EVERY) && self.limits.stop.should_stop() {
            return Err(Halt::Stopped);
        }
        let now = filled | m;
        if !p.adjacent.is_empty() && self.dead_region(m, now) {
            return Ok(());
        }
        self.left[piece] -= 1;
        self.stack.push(p.ids[k] as usize);
        let r = self.rec(now, used_tags | p.tags[k]);
        self.stack.pop();
        self.left[piece] += 1;
        r
    }

    /// True when a closed region of uncovered cells next to the new piece `m`
    /// has a size no set of pieces adds up to.
    #[inline]
    fn dead_region(&self, m: u64, filled: u64) -> bool {
        let empty = self.p.primary & !filled;
        let mut seeds = self.around(m) & empty;
        while seeds != 0 {
            let mut comp = seeds & seeds.wrapping_neg();
            let mut frontier = comp;
            loop {
                let grow = self.around(frontier) & empty & !comp;
                if grow == 0 {
                    if self.p.sizes_ok >> comp.count_ones() & 1 == 0 {
                        return true;
                    }
                    break;
                }
                comp |= grow;
                frontier = grow;
                if comp.count_ones() > DEAD_REGION_LIMIT {
                    break;
                }
            }
            seeds &= !comp;
        }
        false
    }

    /// Cells next to any cell of `m`.
    #[inline]
    fn around(&self, mut m: u64) -> u64 {
        let mut out = 0u64;
        while m != 0 {
            out |= self.p.adjacent[m.trailing_zeros() as usize];
            m &= m - 1;
        }
        out
    }
}

impl BitProblem {
    /// The first-level branches (flat option indices): the root piece's
    /// options, else the options anchored at the first primary cell.
    fn root_branches(&self) -> Vec<u32> {
        if let Some(root) = &self.root {
            return root.clone();
        }
        if self.primary == 0 {
            return Vec::new();
        }
        let slot = self.primary.trailing_zeros() as usize * PATTERNS;
        let (a, b) = (
            self.win_start[slot] as usize,
            self.win_start[slot + 1] as usize,
        );
        self.win_list[a..b].to_vec()
    }

    /// Searches the first-level branches in parallel on up to `threads`
    /// threads. Each branch gets its own state from `make`, and `visit` sees
    /// that state with each solution. Returns the states in branch order (the
    /// serial search order, so merging them in order gives the same result as
    /// [`ExactCover::search`]) and the summed outcome. A node cap applies per
    /// branch; a visitor's `Break` ends its own branch only.
    pub fn par_search<S: Send>(
        &self,
        limits: &Limits,
        threads: usize,
        make: impl Fn() -> S + Sync,
        visit: impl Fn(&mut S, &[usize]) -> std::ops::ControlFlow<()> + Sync,
    ) -> (Vec<S>, Outcome) {
        use rayon::prelude::*;
        let branches = self.root_branches();
        if branches.is_empty() && self.root.is_none() {
            let mut state = make();
            let out = self.search(limits, &mut |sol| visit(&mut state, sol));
            return (vec![state], out);
        }
        let one = |k: u32| {
            let mut state = make();
            let mut v = |sol: &[usize]| visit(&mut state, sol);
            let mut run = Run {
                p: self,
                left: self.caps.clone(),
                stack: Vec::with_capacity(64),
                nodes: 0,
                solutions: 0,
                node_cap: limits.nodes.unwrap_or(u64::MAX),
                limits,
                visit: &mut v,
            };
            let r = run.try_option(k as usize, 0, 0);
            let out = Outcome::of(r, run.solutions, run.nodes);
            (state, out)
        };
        let results: Vec<(S, Outcome)> = match rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()
        {
            Ok(pool) => pool.install(|| branches.par_iter().map(|&k| one(k)).collect()),
            Err(_) => branches.iter().map(|&k| one(k)).collect(),
        };
        let mut total = Outcome::of(Ok(()), 0, 0);
        let mut visitors = Vec::with_capacity(results.len());
        for (v, o) in results {
            total.solutions += o.solutions;
            total.nodes += o.nodes;
            // A limit outranks a visitor's stop, which outranks completion.
            total.halt = match (total.halt, o.halt) {
                (Halt::Stopped, _) | (_, Halt::Stopped) => Halt::Stopped,
                (Halt::Nodes, _) | (_, Halt::Nodes) => Halt::Nodes,
                (Halt::Visitor, _) | (_, Halt::Visitor) => Halt::Visitor,
                _ => Halt::Complete,
            };
            visitors.push(v);
        }
        (visitors, total)
    }
}

/// The [`WINDOW`] bits of `bits` that follow cell `cell`.
#[inline]
fn window(bits: u64, cell: u32) -> u64 {
    bits.checked_shr(cell + 1).unwrap_or(0) & (PATTERNS as u64 - 1)
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
        let result = match &self.root {
            None => run.rec(0, 0),
            Some(root) => root
                .iter()
                .try_for_each(|&k| run.try_option(k as usize, 0, 0)),
        };
        Outcome::of(result, run.solutions, run.nodes)
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
