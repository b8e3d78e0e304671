//! Collapse solver: anytime, portfolio beam search bucketed by cells remaining.
//!
//! Starting point (the PopStar beam search known from the community solvers):
//! states are bucketed by the number of cells left, duplicates are removed, each
//! bucket keeps its best `width` states by "score + potential of the groups on
//! the board", and buckets are expanded from the fullest to the emptiest, so
//! states are only ever compared with states that removed as many cells.
//!
//! What we add:
//! - a greedy pass first, so any budget returns a complete line of play;
//! - iterative widening under a [`Budget`]: a narrow probe pass, then a pass
//!   sized from its time to fill the budget, keeping the best complete game
//!   seen in any pass; a pass that runs past its time goes on narrower, and
//!   one cut short still finishes its lines greedily;
//! - a portfolio: each worker thread runs the search with its own evaluation
//!   weights ([`EvalWeights`]); boards differ in which weighting suits them, so
//!   two different searches beat one search twice as wide;
//! - a colour term in the evaluation (the points a colour would give if all its
//!   cells ended in one group), which steers play towards the big final group
//!   that dominates PopStar scores;
//! - an exact search of the end of each worker's best line
//!   ([`super::endgame`]) on the last `endgame_share` of a clock budget.
//!
//! Deterministic: with `Budget::width` (no clock) the result and node count are
//! fixed for a board.

use serde::{Deserialize, Serialize};

use super::bits::BitBoard;
use super::mask::Mask;
use super::rules::{CBoard, Census, Group, GroupSums, Points, Scoring};
use crate::act::Move;
use crate::board::{Board, Cell};
use crate::games::{Budget, SearchStats, Solution, Stop};

/// What the search needs of a board: the byte board ([`CBoard`]) for any
/// size, the bit board ([`BitBoard`]) for boards of up to 256 bits.
pub trait SolverBoard: Clone + Send + Sync {
    fn remaining(&self) -> u32;
    fn colour_counts(&self) -> [u16; 10];
    /// The groups of 2+ by their lowest index, and the cells per colour.
    fn census(&self, out: &mut Vec<Group>, census: &mut Census);
    /// The same groups in any order.
    fn census_any_order(&self, out: &mut Vec<Group>, census: &mut Census) {
        self.census(out, census)
    }
    fn remove_group(&mut self, rep: u16) -> u32;
    /// What [`SolverBoard::census_keep`] keeps of a board's groups for
    /// [`SolverBoard::child_sums`].
    type Kept: Default + Send;
    /// [`SolverBoard::census`], keeping what the census of a child needs.
    fn census_keep(&self, out: &mut Vec<Group>, census: &mut Census, _kept: &mut Self::Kept) {
        self.census(out, census)
    }
    /// The census of `child` (this board with group `removed` of the last
    /// `census_keep` taken), its groups summed by `points` (`scratch` is
    /// for boards that list them first).
    fn child_sums(
        &self,
        _kept: &Self::Kept,
        _removed: usize,
        child: &Self,
        points: &Points,
        scratch: &mut Vec<Group>,
        census: &mut Census,
    ) -> GroupSums {
        child.census_any_order(scratch, census);
        let mut sums = GroupSums::default();
        for &g in scratch.iter() {
            points.add(&mut sums, g);
        }
        sums
    }
    /// Removes group `removed` of the last `census_keep` (whose cell index
    /// is `rep`); returns its size.
    fn remove_kept(&mut self, _kept: &Self::Kept, _removed: usize, rep: u16) -> u32 {
        self.remove_group(rep)
    }
    fn hash64(&self) -> u64;
    fn cell_of(&self, rep: u16) -> Cell;
    fn to_board(&self) -> Board;
}

macro_rules! solver_board {
    ($ty:ty, [$($gen:tt)*], $kept:ty $(, $any:ident)?) => {
        impl<$($gen)*> SolverBoard for $ty {
            type Kept = $kept;
            fn remaining(&self) -> u32 {
                <$ty>::remaining(self)
            }
            fn colour_counts(&self) -> [u16; 10] {
                <$ty>::colour_counts(self)
            }
            fn census(&self, out: &mut Vec<Group>, census: &mut Census) {
                <$ty>::census(self, out, census)
            }
            fn remove_group(&mut self, rep: u16) -> u32 {
                <$ty>::remove_group(self, rep)
            }
            fn hash64(&self) -> u64 {
                <$ty>::hash64(self)
            }
            fn cell_of(&self, rep: u16) -> Cell {
                <$ty>::cell_of(self, rep)
            }
            fn to_board(&self) -> Board {
                <$ty>::to_board(self)
            }
            $(fn $any(&self, out: &mut Vec<Group>, census: &mut Census) {
                <$ty>::$any(self, out, census)
            }
            fn census_keep(&self, out: &mut Vec<Group>, census: &mut Census, kept: &mut Self::Kept) {
                <$ty>::census_masks(self, out, census, kept)
            }
            fn child_sums(
                &self,
                kept: &Self::Kept,
                removed: usize,
                child: &Self,
                points: &Points,
                _scratch: &mut Vec<Group>,
                census: &mut Census,
            ) -> GroupSums {
                <$ty>::child_sums(self, kept, removed, child, points, census)
            }
            fn remove_kept(&mut self, kept: &Self::Kept, removed: usize, _rep: u16) -> u32 {
                <$ty>::remove_found(self, kept, removed)
            })?
        }
    };
}
solver_board!(CBoard<N>, [const N: usize], ());
solver_board!(BitBoard<K, M>, [const K: usize, M: Mask], Vec<(Group, M)>, census_any_order);

/// Weights of the state evaluation `score + g * Σ_groups pts(n) + c * Σ_colours pts(k)`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EvalWeights {
    /// Weight of the points the groups now on the board would give.
    pub groups: f32,
    /// Weight of the points each colour would give as one group.
    pub colours: f32,
    /// Keep one colour for a big final group: the colour ranked `target` by
    /// initial cell count (0 = most frequent), or none when negative. Its groups
    /// leave the group term and enter with weight `keep` instead (above 1, taking
    /// them costs more than it earns, so they wait to merge: TabuColor as an
    /// evaluation, after Schadd et al.'s SP-MCTS SameGame playouts).
    #[serde(default = "no_target")]
    pub target: i8,
    #[serde(default)]
    pub keep: f32,
    /// Points per lone cell (a group of 1) on the board, usually negative:
    /// lone cells tend to stay to the end and cost the end bonus.
    #[serde(default)]
    pub lone: f32,
    /// Extra weight on the points of the colours ranked 1st, 2nd and 3rd by
    /// cell count on the board (on top of `colours`).
    #[serde(default)]
    pub ranked: [f32; 3],
    /// Weight of (cells remaining)².
    #[serde(default)]
    pub rem2: f32,
    /// Points per group of 2+ on the board.
    #[serde(default)]
    pub ngroups: f32,
}

fn no_target() -> i8 {
    -1
}

impl EvalWeights {
    /// These weights with a kept colour (see [`EvalWeights::target`]).
    pub const fn with_target(self, target: i8, keep: f32) -> Self {
        EvalWeights {
            target,
            keep,
            ..self
        }
    }

    /// Plain weights with no target colour.
    pub const fn plain(groups: f32, colours: f32) -> Self {
        EvalWeights {
            groups,
            colours,
            target: -1,
            keep: 0.0,
            lone: 0.0,
            ranked: [0.0; 3],
            rem2: 0.0,
            ngroups: 0.0,
        }
    }
}

/// Tunables of the collapse solver (plain data, named presets).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SolverParams {
    /// Width of the first beam pass after the greedy one under a clock: a
    /// probe whose time sizes the next pass (see `max_jump`).
    pub start_width: usize,
    /// Largest width a pass may use.
    pub max_width: usize,
    /// One evaluation per worker; with one thread only the first is used.
    pub portfolio: Vec<EvalWeights>,
    /// Share of the remaining budget the last pass is sized to fill.
    pub fill: f64,
    /// Passes widen by this factor while the budget left would fit a pass
    /// twice as wide again; then the next pass is sized to the budget left
    /// (at most twice this factor wider than the pass before).
    #[serde(default = "default_max_jump")]
    pub max_jump: usize,
    /// Share of a clock budget at which a beam pass is cut short. Passes are
    /// sized to end at `1 - endgame_share`; one that runs over eats into the
    /// end search's share up to here (cheaper than a cut, whose lines end
    /// greedily).
    #[serde(default = "default_beam_cut")]
    pub beam_cut: f64,
    /// A pass still going at `1 - endgame_share` goes on this many times
    /// narrower until `beam_cut` (1: no narrowing; it runs on at full width).
    #[serde(default = "default_narrow")]
    pub narrow: usize,
    /// Share of a clock budget kept for the exact search of the end of each
    /// worker's best line ([`super::endgame`]); 0: none.
    #[serde(default)]
    pub endgame_share: f64,
    /// Nodes of that search under a width budget (no clock); 0: none.
    #[serde(default)]
    pub endgame_nodes: u64,
}

fn default_max_jump() -> usize {
    32
}

fn default_beam_cut() -> f64 {
    0.95
}

fn default_narrow() -> usize {
    8
}

impl SolverParams {
    /// The tuned preset for a scoring.
    pub fn preset(scoring: Scoring) -> Self {
        let with_lone = |groups, colours, lone| EvalWeights {
            lone,
            ..EvalWeights::plain(groups, colours)
        };
        // Chosen on the first 40 boards of bench/popstar.txt (width 100,
        // portfolio of two): (1, 0) alone 4839 mean, (0.5, 0.25) 5023, this
        // pair 5291; and on the first 20 of bench/samegame15.txt (width 50).
        let portfolio = match scoring {
            Scoring::PopStar => vec![with_lone(0.5, 0.25, -60.0), EvalWeights::plain(0.5, 0.25)],
            Scoring::SameGame => vec![with_lone(0.5, 0.25, -3.0), EvalWeights::plain(1.0, 0.0)],
        };
        SolverParams {
            start_width: 4,
            max_width: 1 << 20,
            portfolio,
            fill: 1.0,
            max_jump: default_max_jump(),
            beam_cut: default_beam_cut(),
            narrow: default_narrow(),
            endgame_share: 0.2,
            endgame_nodes: 0,
        }
    }

    /// The reference algorithm: groups potential only, one evaluation.
    pub fn reference() -> Self {
        SolverParams {
            start_width: 16,
            max_width: 1 << 20,
            portfolio: vec![EvalWeights::plain(1.0, 0.0)],
            fill: 1.0,
            max_jump: default_max_jump(),
            beam_cut: default_beam_cut(),
            narrow: default_narrow(),
            endgame_share: 0.0,
            endgame_nodes: 0,
        }
    }
}

#[derive(Clone)]
struct Node<B> {
    board: B,
    score: i32,
    value: i32,
    hash: u64,
    /// Index in the history arena of the parent's entry.
    parent: u32,
    /// The move that led here (cell index of the group).
    rep: u16,
}

const NO_PARENT: u32 = u32::MAX;

/// The value of a board from its census and its groups of 2+ (`sums`).
fn evaluate(
    score: i32,
    scoring: Scoring,
    w: &EvalWeights,
    target: u8,
    sums: GroupSums,
    census: &Census,
) -> i32 {
    let lone = census.lone_total();
    if sums.count == 0 {
        // Every group is a lone cell: their count is the cells left.
        return score + scoring.end_bonus(lone);
    }
    let gsum = sums.points;
    let mut tsum = sums.target;
    let ngroups = sums.count;
    let counts = census.cells;
    if target != 0 {
        tsum += census.lone[target as usize] as i64 * scoring.group_points(1) as i64;
    }
    let mut v = score as f32 + w.groups * gsum as f32 + w.keep * tsum as f32 + w.lone * lone as f32;
    if w.colours != 0.0 {
        let csum: i64 = counts[1..]
            .iter()
            .filter(|&&k| k >= 2)
            .map(|&k| scoring.group_points(k as u32) as i64)
            .sum();
        v += w.colours * csum as f32;
    }
    if w.ranked != [0.0; 3] {
        let mut top = [0u16; 3];
        for &k in &counts[1..] {
            if k > top[2] {
                top[2] = k;
                if top[2] > top[1] {
                    top.swap(1, 2);
                    if top[1] > top[0] {
                        top.swap(0, 1);
                    }
                }
            }
        }
        for (wk, &k) in w.ranked.iter().zip(&top) {
            if k >= 2 {
                v += wk * scoring.group_points(k as u32) as f32;
            }
        }
    }
    let r: f32 = counts.iter().map(|&k| k as f32).sum();
    v += w.rem2 * r * r + w.ngroups * ngroups as f32;
    v as i32
}

/// The best complete game a pass found: final score and its history entry.
#[derive(Clone, Copy)]
struct Best {
    total: i32,
    hist: u32,
}

struct Pass<'a, B> {
    scoring: Scoring,
    weights: EvalWeights,
    budget: &'a Budget<'a>,
    /// (parent, rep) of every expanded node.
    history: Vec<(u32, u16)>,
    nodes: u64,
    groups: Vec<Group>,
    census: Census,
    /// Boards made this pass: (hash, best score), one slot per low bits of
    /// the hash. A slot is overwritten by a new board, so a board is only
    /// known while its slot holds it: small enough to stay in cache.
    seen: Vec<(u64, i32)>,
    /// Group points by size, and the kept colour (0 = none).
    points: Points,
    /// A pass still going when its budget share is spent goes on this many
    /// times narrower, until the stop ([`SolverParams::narrow`]).
    narrow: usize,
    marker: std::marker::PhantomData<B>,
}

/// Slots of [`Pass::seen`] (a power of two).
const SEEN_SLOTS: usize = 1 << 15;

impl<'a, B: SolverBoard> Pass<'a, B> {
    fn record(&mut self, parent: u32, rep: u16) -> u32 {
        self.history.push((parent, rep));
        (self.history.len() - 1) as u32
    }

    /// Keeps the best `width` distinct states of a bucket.
    fn prune(bucket: &mut Vec<Node<B>>, width: usize) {
        // Sort small keys, not the nodes: each node moves at most once.
        let mut keys: Vec<(u64, i32, i32, u32)> = bucket
            .iter()
            .enumerate()
            .map(|(i, n)| (n.hash, n.score, n.value, i as u32))
            .collect();
        // Of equal boards the best score is kept, then the first pushed: the
        // choice does not depend on the hash function, so every board type
        // makes the same search.
        keys.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.3.cmp(&b.3)));
        keys.dedup_by(|a, b| a.0 == b.0);
        if keys.len() > width {
            keys.select_nth_unstable_by(width - 1, |a, b| b.2.cmp(&a.2).then(a.3.cmp(&b.3)));
            keys.truncate(width);
        }
        if keys.len() == bucket.len() {
            return;
        }
        let mut keep = vec![false; bucket.len()];
        for k in &keys {
            keep[k.3 as usize] = true;
        }
        let mut i = 0;
        bucket.retain(|_| {
            i += 1;
            keep[i - 1]
        });
    }

    /// One beam pass; returns the best complete game and whether it ran to the end.
    fn run(&mut self, root: &B, width: usize, node_cap: u64) -> (Option<Best>, bool) {
        let total = root.remaining() as usize;
        self.seen.clear();
        self.seen.resize(SEEN_SLOTS, (0, i32::MIN));
        let mut buckets: Vec<Vec<Node<B>>> = (0..=total).map(|_| Vec::new()).collect();
        buckets[total].push(Node {
            board: root.clone(),
            score: 0,
            value: 0,
            hash: root.hash64(),
            parent: NO_PARENT,
            rep: u16::MAX,
        });
        let mut best: Option<Best> = None;
        let mut groups = std::mem::take(&mut self.groups);
        let mut child_groups = Vec::new();
        let mut kept = B::Kept::default();
        let mut complete = true;
        let mut greedy_finish = false;
        let mut width = width;
        for r in (0..=total).rev() {
            let mut bucket = std::mem::take(&mut buckets[r]);
            if bucket.is_empty() {
                continue;
            }
            Self::prune(&mut bucket, width);
            for node in bucket {
                if !greedy_finish && (self.nodes >= node_cap || self.budget.stop.should_stop()) {
                    // Out of budget: finish the pass greedily (width 1) from
                    // the best state of each remaining bucket, so a pass cut
                    // short still yields its deepest lines instead of nothing.
                    complete = false;
                    greedy_finish = true;
                    width = 1;
                    break;
                }
                if complete && self.narrow > 1 && self.budget.stop.spent().is_some_and(|s| s >= 1.0)
                {
                    // Past the time the pass was sized for (it was slower
                    // than the pass before foretold): the rest of it goes on
                    // narrower, so it ends before the cut.
                    complete = false;
                    width = (width / self.narrow).max(1);
                    break;
                }
                let hist = if node.parent == NO_PARENT && node.rep == u16::MAX {
                    NO_PARENT
                } else {
                    self.record(node.parent, node.rep)
                };
                node.board
                    .census_keep(&mut groups, &mut self.census, &mut kept);
                let mut any = false;
                for (i, g) in groups.iter().enumerate() {
                    any = true;
                    let mut child = node.board.clone();
                    let n = child.remove_kept(&kept, i, g.rep);
                    let score = node.score + self.scoring.group_points(n);
                    self.nodes += 1;
                    let hash = child.hash64();
                    // A board already made this pass with as good a score
                    // would win the bucket's duplicate removal over this one
                    // (best score, then first made): skip its evaluation.
                    let slot = &mut self.seen[hash as usize & (SEEN_SLOTS - 1)];
                    if slot.0 == hash && slot.1 >= score {
                        continue;
                    }
                    *slot = (hash, score);
                    let sums = node.board.child_sums(
                        &kept,
                        i,
                        &child,
                        &self.points,
                        &mut child_groups,
                        &mut self.census,
                    );
                    let value = evaluate(
                        score,
                        self.scoring,
                        &self.weights,
                        self.points.target(),
                        sums,
                        &self.census,
                    );
                    let dest = &mut buckets[r - n as usize];
                    dest.push(Node {
                        hash,
                        board: child,
                        score,
                        value,
                        parent: hist,
                        rep: g.rep,
                    });
                    if dest.len() >= 4 * width.max(16) {
                        Self::prune(dest, width);
                    }
                }
                if !any {
                    let t = node.score + self.scoring.end_bonus(r as u32);
                    if best.is_none_or(|b| t > b.total) {
                        best = Some(Best { total: t, hist });
                    }
                }
            }
        }
        self.groups = groups;
        (best, complete)
    }

    /// The moves (group cell indices) leading to a history entry, first move first.
    fn line(&self, mut hist: u32) -> Vec<u16> {
        let mut out = Vec::new();
        while hist != NO_PARENT {
            let (parent, rep) = self.history[hist as usize];
            out.push(rep);
            hist = parent;
        }
        out.reverse();
        out
    }
}

/// The colour ranked `rank` by cell count on `root` (ties: lower colour first); 0 for none.
fn target_colour<B: SolverBoard>(root: &B, rank: i8) -> u8 {
    if rank < 0 {
        return 0;
    }
    let counts = root.colour_counts();
    let mut order: Vec<u8> = (1..10u8).filter(|&c| counts[c as usize] > 0).collect();
    order.sort_by(|&a, &b| counts[b as usize].cmp(&counts[a as usize]).then(a.cmp(&b)));
    order.get(rank as usize).copied().unwrap_or(0)
}

/// One worker: a greedy pass, then widening passes until the budget ends.
fn worker<B: SolverBoard>(
    root: &B,
    scoring: Scoring,
    params: &SolverParams,
    weights: EvalWeights,
    budget: &Budget,
) -> (i32, Vec<u16>, SearchStats) {
    let target = target_colour(root, weights.target);
    // The beam stops early enough to leave the end search its share.
    let share = Share {
        inner: budget.stop,
        until: 1.0 - params.endgame_share,
        cut: params.beam_cut.max(1.0 - params.endgame_share),
    };
    let beam_budget = Budget {
        stop: &share,
        ..*budget
    };
    let budget = &beam_budget;
    let mut pass: Pass<B> = Pass {
        scoring,
        weights,
        budget,
        history: Vec::new(),
        nodes: 0,
        groups: Vec::new(),
        census: Census::default(),
        seen: Vec::new(),
        points: Points::new(scoring, root.remaining() as usize, target),
        narrow: params.narrow,
        marker: std::marker::PhantomData,
    };
    let mut stats = SearchStats::default();
    let node_cap = budget.nodes.unwrap_or(u64::MAX);
    // Width 1 ignores the clock so there is always a complete answer.
    let never = crate::games::NeverStop;
    let greedy_budget = Budget {
        stop: &never,
        ..*budget
    };
    let mut greedy: Pass<B> = Pass {
        budget: &greedy_budget,
        history: Vec::new(),
        nodes: 0,
        groups: Vec::new(),
        census: Census::default(),
        seen: Vec::new(),
        points: pass.points.clone(),
        marker: std::marker::PhantomData,
        ..pass
    };
    let (g, _) = greedy.run(root, 1, u64::MAX);
    let mut best_total = g.map_or(0, |b| b.total);
    let mut best_line = g.map(|b| greedy.line(b.hist)).unwrap_or_default();
    pass.nodes = greedy.nodes;
    stats.passes = 1;
    stats.width = 1;
    // A fixed width: one pass. A budget: a narrow probe, then passes widen by
    // `max_jump` while the budget left would fit one twice as wide again, and
    // the last pass is sized to the budget left (from the cost of the one
    // before), so most of the budget goes to the widest pass (narrower passes
    // are mostly lost time: with 16, 32 and then the fit, the last pass had
    // about half of the clock).  The fit from a short probe is rough on a
    // loaded machine; a pass that overruns goes on narrower (`narrow`) into
    // the end search's share until `beam_cut`, not greedily.
    let mut w = budget.width.unwrap_or(params.start_width).max(1);
    loop {
        pass.history.clear();
        let before = budget.stop.spent();
        let (b, complete) = pass.run(root, w, node_cap);
        if let Some(b) = b {
            if b.total > best_total {
                best_total = b.total;
                best_line = pass.line(b.hist);
            }
        }
        if !complete || budget.width.is_some() {
            if complete {
                stats.passes += 1;
                stats.width = w;
            }
            break;
        }
        stats.passes += 1;
        stats.width = w;
        let next = match (before, budget.stop.spent()) {
            (Some(f0), Some(f1)) if f1 > f0 => {
                let fit = (w as f64 * (1.0 - f1) * params.fill / (f1 - f0)) as usize;
                let jump = params.max_jump.max(2) * w;
                if fit >= 2 * jump {
                    jump
                } else {
                    fit
                }
            }
            _ => 2 * w,
        };
        if next <= w || next > params.max_width {
            break;
        }
        w = next;
    }
    let end_nodes = if share.inner.spent().is_some() && params.endgame_share > 0.0 {
        node_cap.saturating_sub(pass.nodes)
    } else {
        params.endgame_nodes
    };
    if end_nodes > 0 {
        let (total, line, end) = super::endgame::improve(
            root,
            scoring,
            &best_line,
            best_total,
            share.inner,
            end_nodes,
        );
        best_total = total;
        best_line = line;
        pass.nodes += end.nodes;
    }
    stats.nodes = pass.nodes;
    (best_total, best_line, stats)
}

/// The part of `inner`'s budget up to `until` (what [`Stop::spent`] reports
/// against); it stops when `inner` has spent `cut` (at least `until`).
struct Share<'a> {
    inner: &'a dyn Stop,
    until: f64,
    cut: f64,
}

impl Stop for Share<'_> {
    fn should_stop(&self) -> bool {
        self.inner.should_stop() || self.inner.spent().is_some_and(|s| s >= self.cut)
    }

    fn spent(&self) -> Option<f64> {
        self.inner.spent().map(|s| (s / self.until).min(1.0))
    }
}

/// Searches for the best line of play from `root`.
pub fn solve<B: SolverBoard>(
    root: &B,
    scoring: Scoring,
    params: &SolverParams,
    budget: &Budget,
) -> Solution {
    let threads = budget.threads.clamp(1, params.portfolio.len().max(1));
    let fallback = [EvalWeights::plain(1.0, 0.0)];
    let portfolio = if params.portfolio.is_empty() {
        &fallback[..]
    } else {
        &params.portfolio[..threads]
    };
    let results: Vec<(i32, Vec<u16>, SearchStats)> = if portfolio.len() == 1 {
        vec![worker(root, scoring, params, portfolio[0], budget)]
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = portfolio
                .iter()
                .map(|&w| s.spawn(move || worker(root, scoring, params, w, budget)))
                .collect();
            handles.into_iter().filter_map(|h| h.join().ok()).collect()
        })
    };
    let mut stats = SearchStats::default();
    let mut best: (i32, Vec<u16>) = (i32::MIN, Vec::new());
    for (total, line, st) in results {
        stats.nodes += st.nodes;
        stats.width = stats.width.max(st.width);
        stats.passes += st.passes;
        if total > best.0 {
            best = (total, line);
        }
    }
    replay_line(root, scoring, &best.1, stats)
}

/// Turns a line of group indices into a [`Solution`] with the boards after each move.
fn replay_line<B: SolverBoard>(
    root: &B,
    scoring: Scoring,
    line: &[u16],
    stats: SearchStats,
) -> Solution {
    let mut b = root.clone();
    let mut moves = Vec::with_capacity(line.len());
    let mut boards = Vec::with_capacity(line.len());
    let mut rewards = Vec::with_capacity(line.len());
    let mut score = 0i64;
    for &rep in line {
        let cell = b.cell_of(rep);
        let n = b.remove_group(rep);
        debug_assert!(n >= 2, "solver produced an illegal move");
        let pts = scoring.group_points(n) as i64;
        score += pts;
        moves.push(Move::Click(cell));
        boards.push(b.to_board());
        rewards.push(pts);
    }
    score += scoring.end_bonus(b.remaining()) as i64;
    Solution {
        moves,
        boards,
        rewards,
        score,
        stats,
    }
}
