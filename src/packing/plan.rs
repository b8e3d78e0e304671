//! Chip planning: the best fillings of a circuit that an inventory can build.
//!
//! Two stages, so a large inventory never multiplies the tiling search:
//!
//! 1. Shapes: exact cover of the circuit by the chip *shapes* the inventory
//!    holds, each counted item capped at the number of chips of that shape
//!    (an optional one-cell "empty" piece, capped too, lets cells stay empty).
//!    The fast bitmask engine enumerates every tiling (on both cores, split
//!    at the root); tilings collapse to their shape combination (how many of
//!    each shape), keeping the first tiling of each in search order, as GFTool
//!    keeps one tiling per combination.
//! 2. Chips: for each combination, branch and bound over which chips fill
//!    its slots (a combination of `n` chips of a shape per shape), scoring the
//!    summed stats against the circuit's caps. A global top-`k` list gives the
//!    bar; a combination whose optimistic bound cannot beat the `k`-th filling
//!    is skipped whole, and combinations are visited best bound first.
//!
//! Score (GFChipCalc `Board.getStatPerc`): `Σ min(S_i, T_i) / rate_i` over
//! `Σ T_i / rate_i`, 1.0 when every stat reaches its cap. Ties: more cells of
//! the circuit's colour (resonance), then the one found first (combinations in
//! bound order, chips in candidate order: deterministic).
//! Bounds, both never below the true best, the smaller one used: (1) per
//! stat, the current sum plus the largest values any remaining slot could
//! add, capped; (2) the current score plus, per remaining slot, the best
//! single-chip value `Σ min(s_i, T_i) / rate_i` (additive, since
//! `min(a + b, T) <= min(a, T) + min(b, T)`). Candidates are sorted by that
//! value, so once (2) fails at one candidate it fails for all later ones.
//!
//! Deterministic for a given inventory; bounded by [`Limits`] (stage 1 nodes
//! and the stop check in both stages). Reports progress only through the
//! caller's callback.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::gfl::{ChipShape, Circuit, Colour, Stats, RATE_TENTHS};
use super::shape::Shape;
use super::tiling::{Piece, Tiling};
use super::{Halt, Limits, PackingError};
use crate::board::Cell;

/// Tunables of the planner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanParams {
    /// How many fillings to return.
    pub top: usize,
    /// Cells that may stay empty (0 = only full circuits).
    pub max_empty: u32,
    /// Circuit star level (1-5).
    pub star: u8,
    /// Threads for the tiling search (the result does not depend on it).
    pub threads: usize,
}

impl Default for PlanParams {
    fn default() -> Self {
        PlanParams {
            top: 10,
            max_empty: 0,
            star: 5,
            threads: 2,
        }
    }
}

/// One chip in a filling.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlacedChip {
    /// Index into the inventory.
    pub chip: usize,
    /// Covered cells, sorted.
    pub cells: Vec<Cell>,
    /// Quarter turns clockwise from the shape as drawn in chips.toml.
    pub turns: u8,
}

/// A filled circuit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Filling {
    pub chips: Vec<PlacedChip>,
    /// Cells left empty.
    pub empty: Vec<Cell>,
    /// Summed chip stats.
    pub stats: Stats,
    /// 0..=1, see the module doc.
    pub score: f64,
    /// Cells covered by chips of the circuit's colour.
    pub resonance: u32,
}

/// How the planning went.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PlanStats {
    /// Shape tilings enumerated.
    pub tilings: u64,
    /// Distinct shape combinations among them.
    pub combinations: usize,
    /// Combinations whose chips were searched (the rest were bounded out).
    pub searched: usize,
    /// Stage 1 search nodes.
    pub nodes: u64,
    /// Chip assignments scored in stage 2.
    pub assignments: u64,
    /// How stage 1 ended (`Complete` unless a limit cut it).
    pub halt: Halt,
    /// False when stage 2 was cut by the stop check.
    pub chips_complete: bool,
}

/// The planner's answer: best first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    pub fillings: Vec<Filling>,
    pub stats: PlanStats,
}

/// Progress reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Stage 1: tilings so far.
    Tilings(u64),
    /// Stage 2: combinations done of the total.
    Combinations { done: usize, of: usize },
}

/// Stat weights `1 / rate`, normalised so a full circuit scores 1.
fn weights(target: &Stats) -> [f64; 4] {
    let total: f64 = (0..4)
        .map(|k| target[k] as f64 * 10.0 / RATE_TENTHS[k] as f64)
        .sum();
    let mut w = [0.0; 4];
    for k in 0..4 {
        w[k] = if total > 0.0 {
            10.0 / RATE_TENTHS[k] as f64 / total
        } else {
            0.0
        };
    }
    w
}

fn score_of(sums: &[u32; 4], target: &Stats, w: &[f64; 4]) -> f64 {
    if target.iter().all(|&t| t == 0) {
        return 1.0;
    }
    (0..4).map(|k| sums[k].min(target[k]) as f64 * w[k]).sum()
}

/// A ranking key: higher is better.
#[derive(Debug, Clone, PartialEq)]
struct Ranked {
    score: f64,
    resonance: u32,
    /// Chip indices, sorted.
    chips: Vec<usize>,
    combo: usize,
}

/// Strictly better: a higher score, or as high with more resonance (among
/// equals the one found first stays ahead).
fn better(a: &Ranked, b: &Ranked) -> bool {
    a.score > b.score || (a.score == b.score && a.resonance > b.resonance)
}

/// The top-`k` list, best first.
struct Top {
    k: usize,
    list: Vec<Ranked>,
}

impl Top {
    fn push(&mut self, r: Ranked) {
        if self.k == 0 {
            return;
        }
        let pos = self
            .list
            .iter()
            .position(|x| better(&r, x))
            .unwrap_or(self.list.len());
        if pos < self.k {
            self.list.insert(pos, r);
            self.list.truncate(self.k);
        }
    }

    /// True when a filling scoring at most `score` with at most `resonance`
    /// could still enter the list.
    fn admits(&self, score: f64, resonance: u32) -> bool {
        if self.list.len() < self.k {
            return true;
        }
        match self.list.last() {
            None => true,
            Some(w) => score > w.score || (score == w.score && resonance > w.resonance),
        }
    }
}

/// One shape combination: counts per piece, and its first tiling.
struct Combo {
    counts: Vec<u8>,
    tiling: Vec<usize>,
}

/// Stage 2 state for one combination.
struct Assign<'a> {
    /// (shape, how many) groups of the combination.
    groups: Vec<(usize, usize)>,
    /// Per shape: candidate chips (inventory indices), best weighted first.
    cands: &'a [Vec<usize>],
    chips: &'a [super::gfl::Chip],
    colour: Colour,
    target: Stats,
    w: [f64; 4],
    /// Per group index: optimistic stat sums of groups from it on.
    rest: Vec<[u32; 4]>,
    /// Per group index: optimistic resonance of groups from it on.
    rest_res: Vec<u32>,
    /// Per shape and count: optimistic stat sums of that many chips.
    top_sums: &'a HashMap<(usize, usize), [u32; 4]>,
    /// Per shape: prefix sums of candidate values (in candidate order).
    prefix: &'a [Vec<f64>],
    /// Per group index: best total value of the groups from it on.
    rest_val: Vec<f64>,
    cells: &'a [u32],
    chosen: Vec<usize>,
    combo: usize,
    assignments: u64,
}

impl Assign<'_> {
    fn bound(&self, sums: &[u32; 4], extra: &[u32; 4], g: usize) -> f64 {
        let mut s = [0u32; 4];
        for k in 0..4 {
            s[k] = sums[k] + extra[k] + self.rest[g][k];
        }
        score_of(&s, &self.target, &self.w)
    }

    /// Chooses the chips of group `g` from candidate index `from`, `left` more.
    fn rec(&mut self, top: &mut Top, g: usize, from: usize, left: usize, sums: [u32; 4], res: u32) {
        if g == self.groups.len() {
            self.assignments += 1;
            let mut chips = self.chosen.clone();
            chips.sort_unstable();
            top.push(Ranked {
                score: score_of(&sums, &self.target, &self.w),
                resonance: res,
                chips,
                combo: self.combo,
            });
            return;
        }
        let shape = self.groups[g].0;
        if left == 0 {
            let next_left = self.groups.get(g + 1).map_or(0, |x| x.1);
            self.rec(top, g + 1, 0, next_left, sums, res);
            return;
        }
        let extra = self
            .top_sums
            .get(&(shape, left - 1))
            .copied()
            .unwrap_or([0; 4]);
        let cands = &self.cands[shape];
        let pre = &self.prefix[shape];
        let now = score_of(&sums, &self.target, &self.w);
        let res_any = res + left as u32 * self.cells[shape] + self.rest_res[g + 1];
        for i in from..cands.len() {
            if cands.len() - i < left {
                break;
            }
            // Bound (2): this chip and the next best left - 1, then the rest.
            let ub2 = now + (pre[i + left] - pre[i]) + self.rest_val[g + 1];
            if !top.admits(ub2, res_any) {
                break;
            }
            let c = cands[i];
            let chip = &self.chips[c];
            let mut s = sums;
            for (v, add) in s.iter_mut().zip(chip.stats) {
                *v += add;
            }
            let r = res
                + if chip.colour == self.colour {
                    self.cells[shape]
                } else {
                    0
                };
            let ub1 = self.bound(&s, &extra, g + 1);
            let ub_res = r + (left as u32 - 1) * self.cells[shape] + self.rest_res[g + 1];
            if !top.admits(ub1.min(ub2), ub_res) {
                continue;
            }
            self.chosen.push(c);
            self.rec(top, g, i + 1, left - 1, s, r);
            self.chosen.pop();
        }
    }
}

/// Plans the best `params.top` fillings of `circuit` from `chips`.
pub fn plan(
    circuit: &Circuit,
    shapes: &[ChipShape],
    chips: &[super::gfl::Chip],
    params: &PlanParams,
    limits: &Limits,
    progress: &mut dyn FnMut(Progress),
) -> Result<Plan, PackingError> {
    let region = circuit.region(params.star);
    // Stage 1: the shape tilings.
    let mut pieces: Vec<Piece> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| Piece {
            name: s.code.clone(),
            shape: s.shape.clone(),
            count: chips.iter().filter(|c| c.shape == i).count() as u32,
            reflections: false,
        })
        .collect();
    let empty_piece = pieces.len();
    pieces.push(Piece {
        name: ".".into(),
        shape: Shape::from_cells([(0, 0)])?,
        count: params.max_empty,
        reflections: false,
    });
    let tiling = Tiling::new(region, pieces);
    let problem = tiling.bit_problem()?;
    // Per branch: its combinations in first-seen order, with a tiling each;
    // merged in branch order, so the first tiling of a combination is the
    // one a serial search would meet first.
    struct Found {
        seen: HashMap<Vec<u8>, ()>,
        combos: Vec<Combo>,
        key: Vec<u8>,
        tilings: u64,
    }
    let pieces_n = tiling.pieces.len();
    let (parts, outcome) = problem.par_search(
        limits,
        params.threads,
        || Found {
            seen: HashMap::new(),
            combos: Vec::new(),
            key: vec![0u8; pieces_n],
            tilings: 0,
        },
        |f, sol| {
            f.key.iter_mut().for_each(|k| *k = 0);
            for &o in sol {
                f.key[tiling.options[o].piece] += 1;
            }
            if !f.seen.contains_key(f.key.as_slice()) {
                f.seen.insert(f.key.clone(), ());
                f.combos.push(Combo {
                    counts: f.key.clone(),
                    tiling: sol.to_vec(),
                });
            }
            f.tilings += 1;
            std::ops::ControlFlow::Continue(())
        },
    );
    let mut index: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut combos: Vec<Combo> = Vec::new();
    let mut tilings = 0u64;
    for part in parts {
        tilings += part.tilings;
        for c in part.combos {
            if !index.contains_key(&c.counts) {
                index.insert(c.counts.clone(), combos.len());
                combos.push(c);
            }
        }
    }
    progress(Progress::Tilings(tilings));

    // Stage 2: chips. Candidates per shape, best weighted stats first.
    let w = weights(&circuit.target);
    let value = |c: &super::gfl::Chip| -> f64 {
        (0..4)
            .map(|k| c.stats[k].min(circuit.target[k]) as f64 * w[k])
            .sum()
    };
    let mut cands: Vec<Vec<usize>> = vec![Vec::new(); shapes.len()];
    for (i, c) in chips.iter().enumerate() {
        cands[c.shape].push(i);
    }
    for list in &mut cands {
        list.sort_by(|&a, &b| {
            value(&chips[b])
                .total_cmp(&value(&chips[a]))
                .then(a.cmp(&b))
        });
    }
    let prefix: Vec<Vec<f64>> = cands
        .iter()
        .map(|list| {
            let mut p = vec![0.0];
            for &i in list {
                p.push(p[p.len() - 1] + value(&chips[i]));
            }
            p
        })
        .collect();
    let cells: Vec<u32> = shapes.iter().map(|s| s.shape.len() as u32).collect();
    // Optimistic sums of `n` chips of a shape: per stat, its n largest values.
    let mut top_sums: HashMap<(usize, usize), [u32; 4]> = HashMap::new();
    for c in &combos {
        for (s, &n) in c.counts.iter().enumerate().take(shapes.len()) {
            for m in 0..=n as usize {
                top_sums.entry((s, m)).or_insert_with(|| {
                    let mut out = [0u32; 4];
                    for (k, o) in out.iter_mut().enumerate() {
                        let mut v: Vec<u32> = cands[s].iter().map(|&i| chips[i].stats[k]).collect();
                        v.sort_unstable_by(|a, b| b.cmp(a));
                        *o = v.iter().take(m).sum();
                    }
                    out
                });
            }
        }
    }
    let combo_groups = |c: &Combo| -> Vec<(usize, usize)> {
        c.counts
            .iter()
            .enumerate()
            .take(shapes.len())
            .filter(|(_, &n)| n > 0)
            .map(|(s, &n)| (s, n as usize))
            .collect()
    };
    // Bound of each combination, best first.
    let mut order: Vec<(f64, u32, usize)> = combos
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut s = [0u32; 4];
            let mut res = 0;
            let mut val = 0.0;
            for (sh, n) in combo_groups(c) {
                let t = top_sums.get(&(sh, n)).copied().unwrap_or([0; 4]);
                for k in 0..4 {
                    s[k] += t[k];
                }
                res += cells[sh] * n as u32;
                val += prefix[sh][n];
            }
            (score_of(&s, &circuit.target, &w).min(val), res, i)
        })
        .collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    let mut top = Top {
        k: params.top,
        list: Vec::new(),
    };
    let mut searched = 0;
    let mut assignments = 0;
    let mut chips_complete = true;
    for (n, &(ub, ub_res, ci)) in order.iter().enumerate() {
        if !top.admits(ub, ub_res) {
            break;
        }
        if limits.stop.should_stop() {
            chips_complete = false;
            break;
        }
        let groups = combo_groups(&combos[ci]);
        let mut rest = vec![[0u32; 4]; groups.len() + 1];
        let mut rest_res = vec![0u32; groups.len() + 1];
        let mut rest_val = vec![0.0f64; groups.len() + 1];
        for g in (0..groups.len()).rev() {
            rest_val[g] = rest_val[g + 1] + prefix[groups[g].0][groups[g].1];
            let t = top_sums.get(&groups[g]).copied().unwrap_or([0; 4]);
            for k in 0..4 {
                rest[g][k] = rest[g + 1][k] + t[k];
            }
            rest_res[g] = rest_res[g + 1] + cells[groups[g].0] * groups[g].1 as u32;
        }
        let first_left = groups.first().map_or(0, |g| g.1);
        let mut a = Assign {
            groups,
            cands: &cands,
            chips,
            colour: circuit.colour,
            target: circuit.target,
            w,
            rest,
            rest_res,
            top_sums: &top_sums,
            prefix: &prefix,
            rest_val,
            cells: &cells,
            chosen: Vec::new(),
            combo: ci,
            assignments: 0,
        };
        a.rec(&mut top, 0, 0, first_left, [0; 4], 0);
        assignments += a.assignments;
        searched += 1;
        if n % 256 == 0 {
            progress(Progress::Combinations {
                done: n,
                of: order.len(),
            });
        }
    }

    // Lay the chosen chips onto each combination's first tiling.
    let mut fillings = Vec::new();
    for r in &top.list {
        let combo = &combos[r.combo];
        let mut by_shape: Vec<Vec<usize>> = vec![Vec::new(); shapes.len()];
        for &c in &r.chips {
            by_shape[chips[c].shape].push(c);
        }
        let mut placed = Vec::new();
        let mut empty = Vec::new();
        let mut stats = [0u32; 4];
        for &o in &combo.tiling {
            let opt = &tiling.options[o];
            if opt.piece == empty_piece {
                empty.extend(opt.placement.cells.iter().copied());
                continue;
            }
            let Some(c) = by_shape[opt.piece].pop() else {
                continue;
            };
            for (v, add) in stats.iter_mut().zip(chips[c].stats) {
                *v += add;
            }
            let orientations = shapes[opt.piece].shape.orientations(false);
            let turns = orientations
                .get(opt.placement.orientation)
                .map_or(0, |o| o.turns);
            placed.push(PlacedChip {
                chip: c,
                cells: opt.placement.cells.clone(),
                turns,
            });
        }
        placed.sort_by_key(|p| p.cells[0]);
        empty.sort_unstable();
        fillings.push(Filling {
            chips: placed,
            empty,
            stats,
            score: r.score,
            resonance: r.resonance,
        });
    }
    Ok(Plan {
        fillings,
        stats: PlanStats {
            tilings,
            combinations: combos.len(),
            searched,
            nodes: outcome.nodes,
            assignments,
            halt: outcome.halt,
            chips_complete,
        },
    })
}
