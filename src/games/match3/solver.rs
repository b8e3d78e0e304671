//! The exact match-3 planner: the best total over up to X swaps with no
//! refill (refilled cells are holes), proven optimal.
//!
//! Depth-first search over swap sequences (the backtracking of the published
//! approach), with only cuts that cannot lose the optimum:
//! - a transposition table keyed by the whole board and the swaps left (swaps
//!   in separate places commute, so many sequences reach one board); entries
//!   are exact values or upper bounds, never guesses;
//! - fail-soft alpha cuts against an admissible upper bound: the gems that can
//!   still clear (colours with 3+ gems left) times the most a cleared cell can
//!   earn under the scoring ([`Scoring::max_points_per_cell`]), and at most
//!   that per-board bound however many swaps are left;
//! - move ordering by immediate reward, so the best line is usually found first
//!   and the bound cuts the rest.
//!
//! The value of a board with `d` swaps left is
//! `V(b, d) = max(0, max over legal swaps s of reward(s) + V(b after s, d - 1))`
//! (playing fewer than X swaps is allowed; rewards are never negative).
//! Deterministic: no clock reads; the [`Budget`]'s stop and node cap may end a
//! search early, and then the answer says it is not exact.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use serde::{Deserialize, Serialize};

use super::rules::{MBoard, NoRefill, Scoring, Swap};
use crate::games::Budget;

/// Planner switches, as data. Every combination is exact; they only change speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanParams {
    /// Swaps to plan (X).
    pub swaps: usize,
    /// Use the transposition table.
    pub transpositions: bool,
    /// Cut with the admissible upper bound.
    pub bound: bool,
    /// Search children by immediate reward, best first.
    pub ordering: bool,
}

impl PlanParams {
    /// Everything on: the planner `solve` and `bench` run.
    pub fn exact(swaps: usize) -> Self {
        PlanParams {
            swaps,
            transpositions: true,
            bound: true,
            ordering: true,
        }
    }

    /// Plain exhaustive search (the reference the tests compare with).
    pub fn exhaustive(swaps: usize) -> Self {
        PlanParams {
            swaps,
            transpositions: false,
            bound: false,
            ordering: false,
        }
    }
}

/// The planner's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan<const N: usize> {
    /// The best line, first swap first (may be shorter than X).
    pub swaps: Vec<Swap>,
    /// The board after each swap (refill cells are holes).
    pub boards: Vec<MBoard<N>>,
    /// Points of each swap, cascade included.
    pub rewards: Vec<i64>,
    /// The optimum (the sum of `rewards`).
    pub score: i64,
    /// Swaps played during the search (children generated).
    pub nodes: u64,
    /// Transposition-table hits that answered a node.
    pub tt_hits: u64,
    /// False when the budget stopped the search: then `score` is only the best
    /// found, not proven optimal.
    pub exact: bool,
}

/// FxHash (rustc's hasher): fast, and a collision only costs time because the
/// table's key is the whole board.
#[derive(Default)]
struct Fx(u64);

impl Hasher for Fx {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for ch in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(ch);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ b as u64).wrapping_mul(K);
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.0 = (self.0.rotate_left(5) ^ i as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.0 = (self.0.rotate_left(5) ^ i as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    value: i64,
    /// `value` is exact (else an upper bound).
    exact: bool,
}

struct Search<'a, const N: usize> {
    scoring: Scoring,
    params: PlanParams,
    budget: &'a Budget<'a>,
    tt: HashMap<(MBoard<N>, u8), Entry, BuildHasherDefault<Fx>>,
    nodes: u64,
    tt_hits: u64,
    stopped: bool,
    checks: u64,
    per_cell: f64,
    scratch: Vec<Vec<Swap>>,
}

impl<const N: usize> Search<'_, N> {
    /// Admissible: nothing can earn more than every clearable gem at the best
    /// per-cell rate.
    fn upper(&self, b: &MBoard<N>) -> i64 {
        (b.clearable() as f64 * self.per_cell).floor() as i64
    }

    fn out_of_budget(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        self.checks += 1;
        if self.budget.nodes.is_some_and(|n| self.nodes >= n)
            || (self.checks.is_multiple_of(256) && self.budget.stop.should_stop())
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// Fail-soft: the exact value when it is above `alpha`, else an upper
    /// bound that is at most `alpha`.
    fn search(&mut self, b: &MBoard<N>, d: usize, alpha: i64) -> i64 {
        if d == 0 {
            return 0;
        }
        if self.params.bound {
            let ub = self.upper(b);
            if ub <= alpha {
                return ub;
            }
        }
        let key = (*b, d as u8);
        if self.params.transpositions {
            if let Some(e) = self.tt.get(&key) {
                if e.exact || e.value <= alpha {
                    self.tt_hits += 1;
                    return e.value;
                }
            }
        }
        let mut moves = self.scratch.pop().unwrap_or_default();
        b.swaps(&mut moves);
        let mut children: Vec<(i64, Swap, MBoard<N>)> = Vec::with_capacity(moves.len());
        for &s in &moves {
            let mut c = *b;
            let o = c.apply_legal(s, &self.scoring, &mut NoRefill);
            self.nodes += 1;
            children.push((o.points, s, c));
        }
        self.scratch.push(moves);
        if self.params.ordering {
            // Stable: ties keep generation order.
            children.sort_by_key(|c| std::cmp::Reverse(c.0));
        }
        let mut best = 0i64;
        for (r, _, c) in children {
            if self.out_of_budget() {
                break;
            }
            let floor = alpha.max(best);
            let v = if d == 1 {
                r
            } else {
                r + self.search(&c, d - 1, floor - r)
            };
            best = best.max(v);
        }
        if self.params.transpositions && !self.stopped {
            let e = Entry {
                value: best,
                exact: best > alpha,
            };
            match self.tt.get(&key) {
                Some(old) if old.exact && !e.exact => {}
                _ => {
                    self.tt.insert(key, e);
                }
            }
        }
        best
    }
}

/// Plans the best line of up to `params.swaps` swaps on `board`.
pub fn plan<const N: usize>(
    board: &MBoard<N>,
    scoring: &Scoring,
    params: &PlanParams,
    budget: &Budget,
) -> Plan<N> {
    let mut s = Search {
        scoring: *scoring,
        params: *params,
        budget,
        tt: HashMap::default(),
        nodes: 0,
        tt_hits: 0,
        stopped: false,
        checks: 0,
        per_cell: scoring.max_points_per_cell(board.rows().max(board.cols()), board.clearable()),
        scratch: Vec::new(),
    };
    // Root: search each child fully so the line can be rebuilt without the table.
    let mut moves = Vec::new();
    board.swaps(&mut moves);
    let mut children: Vec<(i64, Swap, MBoard<N>)> = moves
        .iter()
        .map(|&m| {
            let mut c = *board;
            let o = c.apply_legal(m, scoring, &mut NoRefill);
            (o.points, m, c)
        })
        .collect();
    s.nodes += children.len() as u64;
    if params.ordering {
        children.sort_by_key(|c| std::cmp::Reverse(c.0));
    }
    let mut best: Option<(i64, usize)> = None;
    if params.swaps > 0 {
        for (i, (r, _, c)) in children.iter().enumerate() {
            let floor = best.map_or(-1, |b| b.0) - r;
            let v = r + s.search(c, params.swaps - 1, floor);
            if s.stopped {
                break;
            }
            if best.is_none_or(|b| v > b.0) {
                best = Some((v, i));
            }
        }
    }
    let mut line = Plan {
        swaps: Vec::new(),
        boards: Vec::new(),
        rewards: Vec::new(),
        score: 0,
        nodes: 0,
        tt_hits: 0,
        exact: !s.stopped,
    };
    if let Some((v, i)) = best {
        let (r, m, c) = children[i];
        line.swaps.push(m);
        line.boards.push(c);
        line.rewards.push(r);
        // Rebuild the rest of the line by exact re-search of each step: cheap,
        // since the table holds the values.
        let mut cur = c;
        let mut left = v - r;
        let mut d = params.swaps - 1;
        while d > 0 && left > 0 && !s.stopped {
            let mut ms = Vec::new();
            cur.swaps(&mut ms);
            let mut found = None;
            for m in ms {
                let mut n = cur;
                let o = n.apply_legal(m, scoring, &mut NoRefill);
                let rest = s.search(&n, d - 1, left - o.points - 1);
                if o.points + rest == left {
                    found = Some((m, n, o.points));
                    break;
                }
            }
            let Some((m, n, pts)) = found else { break };
            line.swaps.push(m);
            line.boards.push(n);
            line.rewards.push(pts);
            cur = n;
            left -= pts;
            d -= 1;
        }
        line.score = line.rewards.iter().sum();
    }
    line.nodes = s.nodes;
    line.tt_hits = s.tt_hits;
    line
}
