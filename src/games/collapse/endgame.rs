//! The end of a line, searched exactly: branch and bound over the last cells.
//!
//! The beam plays the last 40-60 cells of a board almost perfectly but not
//! always (docs/collapse.md, "Where the beam loses"): on the weakest boards
//! an exact search of the best line's state at ~50 cells finds hundreds of
//! points more. [`improve`] takes a complete line, splits it at the first
//! state with at most `k` cells, and searches everything after the split
//! depth first for a better ending, `k` growing while the budget lasts.
//!
//! Pruning: an upper bound on what a board can still earn, from its colour
//! counts alone (every colour in one group, and the end bonus of the colours
//! left with one cell), tightened by a memo of the bounds the search has
//! proved (a table of upper bounds per board hash: an entry overwritten or
//! a hash collision costs pruning, never a wrong line, since the line is
//! replayed). Children are tried best bound first.

use super::rules::{Census, Group, Scoring};
use super::solver::SolverBoard;
use crate::games::Stop;

/// Slots of the memo (a power of two).
const MEMO_SLOTS: usize = 1 << 18;

/// Cells left at the first split, and the step to the next (earlier) one.
const FIRST_SPLIT: u32 = 30;
const SPLIT_STEP: u32 = 5;

/// The upper bound on what a board with these colour counts can still earn.
fn bound(scoring: Scoring, counts: &[u16; 10]) -> i32 {
    let mut pts = 0;
    let mut single = 0;
    for &k in &counts[1..] {
        match k {
            0 => {}
            1 => single += 1,
            _ => pts += scoring.group_points(k as u32),
        }
    }
    pts + scoring.end_bonus(single)
}

/// Scratch of one depth: the board's groups, what removing one needs, and
/// their order (bound, index).
struct Level<B: SolverBoard> {
    groups: Vec<Group>,
    kept: B::Kept,
    order: Vec<(i32, usize)>,
}

impl<B: SolverBoard> Default for Level<B> {
    fn default() -> Self {
        Level {
            groups: Vec::new(),
            kept: B::Kept::default(),
            order: Vec::new(),
        }
    }
}

struct Search<'a, B: SolverBoard> {
    scoring: Scoring,
    stop: &'a dyn Stop,
    node_cap: u64,
    nodes: u64,
    aborted: bool,
    /// (hash, upper bound on the points still to earn from that board).
    memo: Vec<(u64, i32)>,
    /// Best points after the split known so far, and the moves of the best
    /// found by the search (`found`: better than the line's own).
    incumbent: i32,
    found: bool,
    best: Vec<u16>,
    path: Vec<u16>,
    /// Scratch per depth.
    levels: Vec<Level<B>>,
    census: Census,
}

impl<B: SolverBoard> Search<'_, B> {
    /// An upper bound on the points still to earn from `board` (exact when
    /// nothing under it was cut); `gained` is what the path to it earned
    /// since the split.
    fn dfs(&mut self, board: &B, counts: &[u16; 10], gained: i32, depth: usize) -> i32 {
        self.nodes += 1;
        if self.nodes >= self.node_cap || (self.nodes & 255 == 0 && self.stop.should_stop()) {
            self.aborted = true;
        }
        if self.aborted {
            return i32::MAX / 4;
        }
        let hash = board.hash64();
        let slot = hash as usize & (MEMO_SLOTS - 1);
        let mut ub = bound(self.scoring, counts);
        if self.memo[slot].0 == hash {
            ub = ub.min(self.memo[slot].1);
        }
        if gained + ub <= self.incumbent {
            return ub;
        }
        if self.levels.len() <= depth {
            self.levels.push(Level::default());
        }
        let Level {
            mut groups,
            mut kept,
            mut order,
        } = std::mem::take(&mut self.levels[depth]);
        board.census_keep(&mut groups, &mut self.census, &mut kept);
        let value = if groups.is_empty() {
            let v = self.scoring.end_bonus(board.remaining());
            if gained + v > self.incumbent {
                self.incumbent = gained + v;
                self.best.clone_from(&self.path);
                self.found = true;
            }
            v
        } else {
            // Best bound first.
            order.clear();
            order.extend(groups.iter().enumerate().map(|(i, g)| {
                let mut c = *counts;
                c[g.colour as usize] -= g.size;
                (
                    self.scoring.group_points(g.size as u32) + bound(self.scoring, &c),
                    i,
                )
            }));
            order.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            let mut value = i32::MIN;
            for &(key, i) in &order {
                if gained + key <= self.incumbent {
                    // Sorted: no later child can do better either.
                    value = value.max(key);
                    break;
                }
                let g = groups[i];
                let mut child = board.clone();
                let n = child.remove_kept(&kept, i, g.rep);
                let pts = self.scoring.group_points(n);
                let mut c = *counts;
                c[g.colour as usize] -= n as u16;
                self.path.push(g.rep);
                let v = pts + self.dfs(&child, &c, gained + pts, depth + 1);
                self.path.pop();
                if self.aborted {
                    break;
                }
                value = value.max(v);
            }
            value
        };
        self.levels[depth] = Level {
            groups,
            kept,
            order,
        };
        if self.aborted {
            return i32::MAX / 4;
        }
        let entry = &mut self.memo[slot];
        if entry.0 != hash || value < entry.1 {
            *entry = (hash, value);
        }
        value
    }
}

/// What [`improve`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EndgameStats {
    pub nodes: u64,
    /// Cells left at the last split searched to the end.
    pub solved_from: u32,
}

/// Searches the end of `line` (moves from `root`, scoring `total`) exactly
/// from its first state with at most 30 cells, then from earlier states (5
/// cells more each time, the memo kept) until the whole line is searched,
/// `stop` or `node_cap`; returns the best total and line found (the given
/// ones when nothing better is). An empty line searches from `root`.
pub fn improve<B: SolverBoard>(
    root: &B,
    scoring: Scoring,
    line: &[u16],
    total: i32,
    stop: &dyn Stop,
    node_cap: u64,
) -> (i32, Vec<u16>, EndgameStats) {
    let mut line = line.to_vec();
    let mut total = total;
    let mut stats = EndgameStats::default();
    let mut search: Search<B> = Search {
        scoring,
        stop,
        node_cap,
        nodes: 0,
        aborted: false,
        // No bound yet: an empty slot matches hash 0 harmlessly.
        memo: vec![(0, i32::MAX); MEMO_SLOTS],
        incumbent: 0,
        found: false,
        best: Vec::new(),
        path: Vec::new(),
        levels: Vec::new(),
        census: Census::default(),
    };
    let mut k = FIRST_SPLIT;
    let mut last_split = usize::MAX;
    loop {
        // The first state along the line with at most k cells.
        let mut board = root.clone();
        let mut score = 0;
        let mut split = line.len();
        for (i, &rep) in line.iter().enumerate() {
            if board.remaining() <= k {
                split = i;
                break;
            }
            score += scoring.group_points(board.remove_group(rep));
        }
        if split != last_split && board.remaining() <= k {
            last_split = split;
            let counts = board.colour_counts();
            search.incumbent = total - score;
            search.found = false;
            search.path.clear();
            search.dfs(&board, &counts, 0, 0);
            if search.found {
                total = score + search.incumbent;
                line.truncate(split);
                line.extend_from_slice(&search.best);
            }
            if search.aborted {
                break;
            }
            stats.solved_from = board.remaining();
        }
        if k >= root.remaining() {
            break;
        }
        k += SPLIT_STEP;
    }
    stats.nodes = search.nodes;
    (total, line, stats)
}
