//! Does some refill explain the board seen after a swap?
//!
//! Pure: boards in, an [`Explanation`] out; no clock (the search is bounded
//! by a node count, [`Limits`]).
//!
//! The question, exactly: given the board right after a swap (before any
//! line clears) and the board seen once the game settled, is there a stream
//! of refill gems for each column such that the rules of [`super::rules`]
//! (all lines of a wave clear at once, gems fall, refills enter at the top,
//! lowest first, waves repeat until no line is left) turn the one into the
//! other? Refilled gems are unknown, so they are *variables*; the search runs
//! the rules on a board whose cells are either a known colour or a variable
//! with the set of colours it may still take (a bit mask):
//!
//! - a *wave* looks at every 3-cell window of a row or column. A window whose
//!   cells share a colour for sure is a line; a window whose masks have no
//!   colour in common is not; any other window is *undecided*, and the
//!   search branches on one of its variables `x` with candidate colours `C`
//!   (the colours the window could share): `x` takes no colour of `C` (the
//!   window is no line), or `x` is one of them. A variable no window ever
//!   asks about keeps its full mask: its colour changed nothing.
//! - once every window is decided, the lines clear, gems fall and new
//!   variables (full mask) enter at the top; no line means the board is
//!   stable, and it explains the seen board when every known colour equals
//!   the seen one and every variable's mask holds the seen colour.
//!
//! This is a case split, so it is exact: every branch is a set of refill
//! streams, and the branches of a node cover all of its streams. The
//! question is bounded ([`Limits::max_column_refills`], a board's height by
//! default): a column takes at most that many refill gems over the whole
//! swap, its own wave included. Each wave takes at least 3, so the waves
//! are bounded too. A board state (colours, masks, refills taken per
//! column; variables have no identity) determines its future, so each
//! state is expanded once.
//!
//! Pruning, sound, at each state between waves:
//!
//! - *fixed cells*: a cell can only change if it or a cell below it clears.
//!   The cells that may ever clear are found as a fixpoint: a window may
//!   become a line if its cells' possible colours share one (a known cell
//!   that nothing below can move has its colour; a variable its mask; a
//!   cell above one that may clear any colour) and its columns have refill
//!   budget left for it; then it and every cell above its cells may change.
//!   A cell outside that set keeps its value forever, so it must already
//!   be what is seen.
//! - *columns*: a column ends as its surviving gems (in order, at the
//!   bottom) under the `f` refills it still takes, `f` within its budget;
//!   so for some such `f` the seen column's bottom `rows - f` cells are a
//!   subsequence of the current column. Most misreads and new boards fail
//!   one of the two at the start, with no branching.
//!
//! When an explanation is found it comes with its witness: the refill gems
//! of each column in arrival order; replaying the swap with them through the
//! rules gives the seen board (the tests do). A cell that is not a gem in
//! the seen board (`?`) matches any gem; a hole in the board after the swap
//! is a variable too (it is a gem the reader could not see).
//!
//! Coordinates: row 0 at the top, as [`Board`]; cells row-major.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::rules::{is_gem, MAX_COLOUR};
use crate::board::Board;

/// A cell of the search: a colour (`0..=9`) or [`VAR`] with the mask of the
/// colours the unknown gem may still be (bit `k` = colour `k`).
type SCell = u16;
const VAR: SCell = 0x8000;
const MASK: SCell = 0x03ff;
/// The identity of a cell that is not a refill (for the witness).
const NO_ID: u32 = u32::MAX;

#[inline]
fn is_var(v: SCell) -> bool {
    v & VAR != 0
}

/// The colours a search cell may be.
#[inline]
fn colours_of(v: SCell) -> SCell {
    if is_var(v) {
        v & MASK
    } else {
        1 << v
    }
}

/// The bounds of the question and of the search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Refill gems a column may take over the whole swap (its own wave
    /// included); `None` = the board's height. Part of the question: an
    /// explanation needing more is not looked for. It also bounds the
    /// waves: each takes at least 3 refills.
    pub max_column_refills: Option<usize>,
    /// Waves (the swap's own first) an explanation may have. Part of the
    /// question too; shorter explanations are looked for first
    /// (iterative deepening), so the usual answer costs little.
    pub max_waves: usize,
    /// Search nodes (one branch decision or one wave each); past it the
    /// answer is [`Consistency::Undecided`].
    pub max_nodes: usize,
}

impl Limits {
    /// A board's height of refill per column; nodes enough for all but
    /// about 1 in 1,000 real 8x8 outcomes, and at most about 100 ms in a
    /// release build (see `docs/gweled.md` for measured counts).
    pub const DEFAULT: Limits = Limits {
        max_column_refills: None,
        max_waves: 6,
        max_nodes: 10_000,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// The answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Consistency {
    /// Some refill makes the rules produce the seen board.
    Consistent,
    /// No refill within [`Limits::max_column_refills`] does (proven: the
    /// search was complete).
    Inconsistent,
    /// The node limit was reached before either was shown.
    Undecided,
}

/// What [`explain`] found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Explanation {
    pub consistency: Consistency,
    /// Search nodes spent.
    pub nodes: usize,
    /// Waves of the explaining run (the swap's own wave is the first).
    pub waves: usize,
    /// The explaining refill: per column, its gems in arrival order (the
    /// lowest new gem of a wave first). Empty unless consistent.
    pub refills: Vec<Vec<u8>>,
}

/// The palette size the boards show: one more than the largest gem colour
/// on any of them (at least 1).
pub fn palette_of(boards: &[&Board]) -> u8 {
    boards
        .iter()
        .flat_map(|b| b.cells().iter().copied())
        .filter(|&v| is_gem(v))
        .max()
        .map_or(1, |m| m + 1)
}

/// Is `seen` what the rules make of `after_swap` with some refill of gems
/// of colours `0..colours`? See the module docs. Boards of different sizes
/// are inconsistent.
pub fn explain(after_swap: &Board, seen: &Board, colours: u8, limits: &Limits) -> Explanation {
    let (rows, cols) = (after_swap.rows(), after_swap.cols());
    let mut out = Explanation {
        consistency: Consistency::Inconsistent,
        nodes: 0,
        waves: 0,
        refills: Vec::new(),
    };
    if (seen.rows(), seen.cols()) != (rows, cols) || rows == 0 || cols == 0 {
        return out;
    }
    let colours = colours.clamp(1, MAX_COLOUR + 1);
    let full = VAR | ((1u16 << colours) - 1);
    let seen_cells: Vec<Option<u8>> = seen
        .cells()
        .iter()
        .map(|&v| is_gem(v).then_some(v))
        .collect();
    // A settled board has no line: a seen line is a read mid-cascade.
    let seen_s: Vec<SCell> = seen
        .cells()
        .iter()
        .map(|&v| if is_gem(v) { v as SCell } else { full })
        .collect();
    let geo = Geo { rows, cols };
    if geo.windows().any(|w| definite_line(&seen_s, w)) {
        return out;
    }
    let cells: Vec<SCell> = after_swap
        .cells()
        .iter()
        .map(|&v| if is_gem(v) { v as SCell } else { full })
        .collect();
    let mut s = Search {
        geo,
        seen: seen_cells,
        max_refills: limits.max_column_refills.unwrap_or(rows) as u32,
        full,
        visited: HashSet::new(),
        nodes: 0,
        max_nodes: limits.max_nodes,
        out_of_nodes: false,
        log: Vec::new(),
        waves: 0,
        max_waves: limits.max_waves,
        wave_limit: 0,
        deeper: false,
    };
    let root = Node {
        ids: vec![NO_ID; cells.len()],
        cells,
        arrivals: vec![0; cols],
        waves: 0,
    };
    let mut found = false;
    for limit in 1..=limits.max_waves {
        s.wave_limit = limit;
        s.deeper = false;
        s.visited.clear();
        found = s.settle(root.clone());
        if found || s.out_of_nodes || !s.deeper {
            break;
        }
    }
    out.nodes = s.nodes;
    if found {
        out.consistency = Consistency::Consistent;
        out.waves = s.waves;
        let mut refills = vec![Vec::new(); cols];
        let mut log = s.log;
        log.sort_unstable();
        for (id, v) in log {
            let (c, k) = ((id >> 16) as usize, (id & 0xffff) as usize);
            if c < cols && k == refills[c].len() {
                refills[c].push(v);
            }
        }
        out.refills = refills;
    } else if s.out_of_nodes {
        out.consistency = Consistency::Undecided;
    }
    out
}

/// The cells no refill can ever change, of the board right after a swap
/// (row-major, `true` = fixed): the fixpoint of the module docs from the
/// start, with no bound on the refill. A seen board that differs from
/// `after_swap` on such a cell is never explained. (Few cells are fixed:
/// refills stacking up in a column can line up with any gem below them.)
pub fn fixed_cells(after_swap: &Board) -> Vec<bool> {
    let geo = Geo {
        rows: after_swap.rows(),
        cols: after_swap.cols(),
    };
    let cells: Vec<SCell> = after_swap
        .cells()
        .iter()
        .map(|&v| if is_gem(v) { v as SCell } else { VAR | MASK })
        .collect();
    let budget = vec![usize::MAX; geo.cols];
    let may = may_change(&geo, &cells, &budget, usize::MAX);
    may.iter().map(|&m| !m).collect()
}

#[derive(Debug, Clone, Copy)]
struct Geo {
    rows: usize,
    cols: usize,
}

impl Geo {
    /// Every 3-cell window of a row, then of a column, as cell indices.
    fn windows(&self) -> impl Iterator<Item = [usize; 3]> + '_ {
        let (rows, cols) = (self.rows, self.cols);
        let horiz = (0..rows).flat_map(move |r| {
            (0..cols.saturating_sub(2)).map(move |c| {
                let i = r * cols + c;
                [i, i + 1, i + 2]
            })
        });
        let vert = (0..rows.saturating_sub(2)).flat_map(move |r| {
            (0..cols).map(move |c| {
                let i = r * cols + c;
                [i, i + cols, i + 2 * cols]
            })
        });
        horiz.chain(vert)
    }
}

/// Three known cells of one colour.
#[inline]
fn definite_line(cells: &[SCell], w: [usize; 3]) -> bool {
    let [a, b, c] = w.map(|i| cells[i]);
    !is_var(a) && a == b && b == c
}

/// Cells that may change in some future of the state `cells` (row-major):
/// the fixpoint of the module docs. A window can only clear if each column
/// it touches may still lose that many cells (`budget`, per column).
/// At most `rounds` rounds: a cell that may first change after wave `i`
/// only joins a line in wave `i + 1` or later, so `rounds` bounds the
/// waves still to come.
fn may_change(geo: &Geo, cells: &[SCell], budget: &[usize], rounds: usize) -> Vec<bool> {
    let cols = geo.cols;
    // Per column, rows above this one may change (they sit above a cell
    // that may clear).
    let mut moving_to = vec![0usize; cols];
    let possible = |moving_to: &[usize], i: usize| -> SCell {
        if i / cols < moving_to[i % cols] {
            MASK
        } else {
            colours_of(cells[i])
        }
    };
    for _ in 0..rounds {
        let mut changed = false;
        let wild_to = moving_to.clone();
        for w in geo.windows() {
            let share = w.iter().fold(MASK, |m, &i| m & possible(&wild_to, i));
            let vertical = w[1] == w[0] + cols;
            let affordable = if vertical {
                budget[w[0] % cols] >= 3
            } else {
                w.iter().all(|&i| budget[i % cols] >= 1)
            };
            if share == 0 || !affordable {
                continue;
            }
            for &i in &w {
                let (r, c) = (i / cols, i % cols);
                if moving_to[c] < r + 1 {
                    moving_to[c] = r + 1;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    (0..cells.len())
        .map(|i| i / cols < moving_to[i % cols])
        .collect()
}

/// A state of the search, with what the witness needs.
#[derive(Debug, Clone)]
struct Node {
    cells: Vec<SCell>,
    /// Refill identity of each cell: `col << 16 | arrival`, or [`NO_ID`].
    ids: Vec<u32>,
    /// Refills that entered each column so far.
    arrivals: Vec<u32>,
    waves: usize,
}

struct Search {
    geo: Geo,
    seen: Vec<Option<u8>>,
    /// Refills a column may take in all.
    max_refills: u32,
    full: SCell,
    /// States expanded: cells, then refills taken per column.
    visited: HashSet<Vec<SCell>>,
    nodes: usize,
    max_nodes: usize,
    out_of_nodes: bool,
    /// The refill gems fixed along the current path: (identity, colour).
    log: Vec<(u32, u8)>,
    /// Waves of the explaining run.
    waves: usize,
    /// Waves an explanation may have.
    max_waves: usize,
    /// Waves allowed in this round of the deepening.
    wave_limit: usize,
    /// A branch was cut by `wave_limit`: a deeper round may find more.
    deeper: bool,
}

impl Search {
    /// A state between waves: expand it unless seen before or pruned.
    fn settle(&mut self, node: Node) -> bool {
        let mut key = node.cells.clone();
        key.extend(node.arrivals.iter().map(|&a| a as SCell));
        if !self.visited.insert(key) {
            return false;
        }
        self.decide(node)
    }

    /// Can the state (mid-wave too: some windows still undecided) still
    /// end as the seen board, in this round of the deepening? The cells of
    /// the lines already certain clear in this wave; the rest is the
    /// pruning of the module docs, with the waves this round still allows.
    /// A variable that can no longer change ends as it is, so it must be
    /// the seen colour: it is narrowed to it (in place).
    ///
    /// A state this round rejects that a deeper round might not sets
    /// [`Search::deeper`].
    fn viable(&mut self, node: &mut Node) -> bool {
        let left_waves = self.wave_limit.saturating_sub(node.waves);
        // The narrowing of a failed check holds for this round only.
        let before = (!self.deeper && self.wave_limit < self.max_waves).then(|| node.cells.clone());
        let (ok, narrowed) = self.viable_within(node, left_waves);
        if ok && !narrowed {
            return true;
        }
        // This round excluded something (a state or some of its colours)
        // that more waves might allow: a deeper round must look.
        if let Some(cells) = before {
            let mut loose = Node {
                cells,
                ..node.clone()
            };
            let all = self.max_waves.saturating_sub(node.waves);
            if self.viable_within(&mut loose, all).0 {
                self.deeper = true;
            }
        }
        ok
    }

    /// [`Search::viable`] with at most `rounds` waves with lines still to
    /// come (this one included): (viable, some variable was narrowed).
    fn viable_within(&self, node: &mut Node, rounds: usize) -> (bool, bool) {
        let Geo { rows, cols } = self.geo;
        // Narrowing can make new certain lines; a few passes reach the
        // fixpoint in practice, and stopping early is only less pruning.
        let mut any = false;
        for _ in 0..4 {
            let mut clears = vec![false; node.cells.len()];
            for w in self.geo.windows() {
                if definite_line(&node.cells, w) {
                    for i in w {
                        clears[i] = true;
                    }
                }
            }
            let mut budget = Vec::with_capacity(cols);
            for c in 0..cols {
                let now = (0..rows).filter(|&r| clears[r * cols + c]).count() as u32;
                let left = self.max_refills.saturating_sub(node.arrivals[c]);
                if now > left {
                    return (false, any);
                }
                budget.push((now as usize, left as usize));
            }
            let left: Vec<usize> = budget.iter().map(|&(_, l)| l).collect();
            let may = may_change(&self.geo, &node.cells, &left, rounds);
            let mut narrowed = false;
            for (i, (&m, s)) in may.iter().zip(&self.seen).enumerate() {
                let v = node.cells[i];
                if m {
                    continue;
                }
                match s {
                    Some(s) if colours_of(v) & (1 << s) == 0 => return (false, any),
                    Some(s) if is_var(v) => {
                        node.cells[i] = *s as SCell;
                        narrowed = true;
                    }
                    _ => {}
                }
            }
            if rounds == 1 {
                match self.land(&mut node.cells, &clears) {
                    None => return (false, any),
                    Some(n) => narrowed |= n,
                }
            }
            if !self.columns_ok(&node.cells, &clears, &budget) {
                return (false, any);
            }
            any |= narrowed;
            if !narrowed {
                return (true, any);
            }
        }
        (true, any)
    }

    /// In the last wave with lines (mid-wave too), a cell that is in no
    /// line lands `k` rows lower, `k` the cells below it that clear, and
    /// stays there: so when every cell below it is decided (in a certain
    /// line, or in no window that may be one), it is in a line of this wave
    /// or it is the colour seen where it lands. Narrows variables to that
    /// (in place; `Some(narrowed)`), `None` when some cell can be neither.
    fn land(&self, cells: &mut [SCell], clears: &[bool]) -> Option<bool> {
        let Geo { rows, cols } = self.geo;
        // Per cell: the colours of the windows through it that may be a
        // line; and whether one of them is still undecided.
        let mut line_colours = vec![0 as SCell; cells.len()];
        let mut open = vec![false; cells.len()];
        for w in self.geo.windows() {
            let share = w.iter().fold(MASK, |m, &i| m & colours_of(cells[i]));
            if share == 0 {
                continue;
            }
            let certain = definite_line(cells, w);
            for i in w {
                line_colours[i] |= share;
                open[i] |= !certain;
            }
        }
        let mut narrowed = false;
        for c in 0..cols {
            let mut cleared_below = 0;
            for r in (0..rows).rev() {
                let i = r * cols + c;
                if clears[i] {
                    cleared_below += 1;
                    continue;
                }
                if let Some(s) = self.seen[(r + cleared_below) * cols + c] {
                    let v = cells[i];
                    let allowed = colours_of(v) & ((1 << s) | line_colours[i]);
                    if allowed == 0 {
                        return None;
                    }
                    if is_var(v) && allowed != colours_of(v) {
                        cells[i] = if allowed.count_ones() == 1 {
                            allowed.trailing_zeros() as SCell
                        } else {
                            VAR | allowed
                        };
                        narrowed = true;
                    }
                }
                if open[i] {
                    // Whether this cell clears is not known: the cells
                    // above it do not know where they land.
                    break;
                }
            }
        }
        Some(narrowed)
    }

    /// Each column can still become the seen one: it ends as its surviving
    /// gems (in order, at the bottom) under the `f` new ones it still takes,
    /// where `f` is at least the cells it loses in this wave (`clears`) and
    /// at most its refill budget (`budget`: (now, left) per column). So for
    /// some such `f` the seen column's bottom `rows - f` cells are a
    /// subsequence of the column's cells that do not clear now, bottom up
    /// (greedy matching decides that).
    fn columns_ok(&self, cells: &[SCell], clears: &[bool], budget: &[(usize, usize)]) -> bool {
        let Geo { rows, cols } = self.geo;
        let fits = |x: SCell, s: Option<u8>| s.is_none_or(|s| colours_of(x) & (1 << s) != 0);
        (0..cols).all(|c| {
            let (now, left) = budget[c];
            (now..=left.min(rows)).any(|f| {
                let mut j = rows; // next cell to try, bottom up (exclusive)
                (0..rows - f).all(|k| {
                    let s = self.seen[(rows - 1 - k) * cols + c];
                    while j > 0 {
                        j -= 1;
                        let i = j * cols + c;
                        if !clears[i] && fits(cells[i], s) {
                            return true;
                        }
                    }
                    false
                })
            })
        })
    }

    /// The undecided window with the fewest variables, as (its first
    /// variable, the colours the window could share).
    /// A window whose cells all clear anyway (in certain lines) changes
    /// nothing, so it is not asked about.
    fn pick(&self, cells: &[SCell]) -> Option<(usize, SCell)> {
        let mut clears = vec![false; cells.len()];
        for w in self.geo.windows() {
            if definite_line(cells, w) {
                for i in w {
                    clears[i] = true;
                }
            }
        }
        let mut best: Option<(usize, usize, SCell)> = None;
        for w in self.geo.windows() {
            let vars = w.iter().filter(|&&i| is_var(cells[i])).count();
            if vars == 0 || w.iter().all(|&i| clears[i]) {
                continue;
            }
            let share = w.iter().fold(MASK, |m, &i| m & colours_of(cells[i]));
            if share == 0 {
                continue;
            }
            // Fewest variables first, then the lowest window (the seen
            // board constrains low cells most).
            if best.is_none_or(|(n, _, _)| vars <= n) {
                let x = w.iter().copied().rev().find(|&i| is_var(cells[i]))?;
                best = Some((vars, x, share));
            }
        }
        best.map(|(_, x, share)| (x, share))
    }

    /// Decides the windows of the current wave, then plays it.
    fn decide(&mut self, mut node: Node) -> bool {
        self.nodes += 1;
        if self.nodes > self.max_nodes {
            self.out_of_nodes = true;
            return false;
        }
        if !self.viable(&mut node) {
            return false;
        }
        if let Some((x, share)) = self.pick(&node.cells) {
            let mask = colours_of(node.cells[x]);
            let rest = mask & !share;
            // Try first what the seen board suggests: the colour seen where
            // `x` lands if only this wave's certain lines clear below it.
            let Geo { rows, cols } = self.geo;
            let (r, c) = (x / cols, x % cols);
            let below = (r + 1..rows)
                .filter(|&rr| {
                    let i = rr * cols + c;
                    self.geo
                        .windows()
                        .any(|w| w.contains(&i) && definite_line(&node.cells, w))
                })
                .count();
            let guess = self
                .seen
                .get((r + below).min(rows - 1) * cols + c)
                .copied()
                .flatten();
            let mut order: Vec<SCell> = Vec::with_capacity(11);
            match guess {
                Some(g) if share & (1 << g) != 0 => {
                    order.push(g as SCell);
                    if rest != 0 {
                        order.push(VAR | rest);
                    }
                }
                _ => {
                    if rest != 0 {
                        order.push(VAR | rest);
                    }
                }
            }
            for v in 0..=MAX_COLOUR as SCell {
                if share & (1 << v) != 0 && !order.contains(&v) {
                    order.push(v);
                }
            }
            for v in order {
                let mut n = node.clone();
                n.cells[x] = v;
                if self.decide(n) || self.out_of_nodes {
                    return !self.out_of_nodes;
                }
            }
            return false;
        }
        let geo = self.geo;
        let mut mark = vec![false; node.cells.len()];
        for w in geo.windows() {
            if definite_line(&node.cells, w) {
                for i in w {
                    mark[i] = true;
                }
            }
        }
        if !mark.iter().any(|&m| m) {
            return self.accept(&node);
        }
        if node.waves >= self.wave_limit {
            self.deeper = true;
            return false;
        }
        let (rows, cols) = (geo.rows, geo.cols);
        for c in 0..cols {
            let lost = (0..rows).filter(|&r| mark[r * cols + c]).count() as u32;
            if node.arrivals[c] + lost > self.max_refills {
                return false;
            }
        }
        let log_len = self.log.len();
        let mut next = Node {
            cells: vec![self.full; node.cells.len()],
            ids: vec![NO_ID; node.cells.len()],
            arrivals: node.arrivals.clone(),
            waves: node.waves + 1,
        };
        for c in 0..cols {
            let mut w = rows;
            for r in (0..rows).rev() {
                let i = r * cols + c;
                if mark[i] {
                    if node.ids[i] != NO_ID {
                        // Cleared cells are known (a line is three known cells).
                        self.log.push((node.ids[i], node.cells[i] as u8));
                    }
                } else {
                    w -= 1;
                    next.cells[w * cols + c] = node.cells[i];
                    next.ids[w * cols + c] = node.ids[i];
                }
            }
            // New gems: the lowest arrives first.
            for r in (0..w).rev() {
                next.ids[r * cols + c] = ((c as u32) << 16) | next.arrivals[c];
                next.arrivals[c] += 1;
            }
        }
        if self.settle(next) {
            return true;
        }
        self.log.truncate(log_len);
        false
    }

    /// A stable state: is it the seen board? Then log the refills still on
    /// the board with their seen colours.
    fn accept(&mut self, node: &Node) -> bool {
        let ok = node
            .cells
            .iter()
            .zip(&self.seen)
            .all(|(&v, s)| s.is_none_or(|s| colours_of(v) & (1 << s) != 0));
        if !ok {
            return false;
        }
        for (i, (&v, s)) in node.cells.iter().zip(&self.seen).enumerate() {
            if node.ids[i] == NO_ID {
                continue;
            }
            let colour = match s {
                Some(s) => *s,
                None => colours_of(v).trailing_zeros() as u8,
            };
            self.log.push((node.ids[i], colour));
        }
        self.waves = node.waves;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Cell;

    fn b(s: &str) -> Board {
        s.parse().expect("board literal")
    }

    use crate::games::match3::rules::naive::replay;

    fn swapped(b: &Board, x: Cell, y: Cell) -> Board {
        super::super::verify::swapped(b, x, y)
    }

    #[test]
    fn a_plain_refill_is_consistent_and_its_witness_replays() {
        // Column 0 rows 0-2 clear; 7, 8, 9 come in (lowest first: 9 at row 2).
        let before = b("1234/1356/2178/4567");
        let after = swapped(&before, Cell::new(2, 0), Cell::new(2, 1));
        let seen = b("7234/8356/9278/4567");
        let e = explain(&after, &seen, 10, &Limits::DEFAULT);
        assert_eq!(e.consistency, Consistency::Consistent, "{e:?}");
        assert_eq!(e.refills[0], vec![9, 8, 7]);
        assert_eq!(replay(&after, &e.refills), seen);
        assert_eq!(e.waves, 1);
    }

    #[test]
    fn a_refill_that_makes_a_line_moves_known_gems() {
        // Swapping (3,0) and (3,1) lines up three 1s in column 0 (rows 1-3).
        // The second refill of column 0 lands at (1,0); a 5 there lines up
        // with the 5s at (1,1) and (1,2), which clear, so the known 3 and 4
        // above them fall to row 1: known gems move, a second wave.
        let before = b("0342/1554/1236/2146/0303");
        let after = swapped(&before, Cell::new(3, 0), Cell::new(3, 1));
        let truth = vec![vec![6, 5, 3, 2], vec![4], vec![6], vec![]];
        let seen = replay(&after, &truth);
        assert_eq!(seen.to_string(), "2462/3344/6236/0246/0303");
        let e = explain(&after, &seen, 7, &Limits::DEFAULT);
        assert_eq!(e.consistency, Consistency::Consistent, "{seen} {e:?}");
        assert_eq!(e.waves, 2);
        assert_eq!(replay(&after, &e.refills), seen);
        // The same board with the fallen known 4 at (1,2) read as 0: the
        // 4 can only have come from (0,2), nothing else explains a 0 there.
        let mut bad = seen.clone();
        bad.set(1, 2, 0);
        let e = explain(&after, &bad, 7, &Limits::DEFAULT);
        assert_eq!(e.consistency, Consistency::Inconsistent, "{bad} {e:?}");
    }

    #[test]
    fn a_changed_fixed_cell_is_inconsistent_at_the_root() {
        let before = b("1234/1356/2178/4567");
        let after = swapped(&before, Cell::new(2, 0), Cell::new(2, 1));
        let fixed = fixed_cells(&after);
        assert!(fixed[3 * 4 + 3] && !fixed[0]);
        let seen = b("7234/8356/9278/4566");
        let e = explain(&after, &seen, 10, &Limits::DEFAULT);
        assert_eq!(e.consistency, Consistency::Inconsistent);
        assert!(e.nodes <= 1, "{e:?}");
    }

    #[test]
    fn a_seen_line_is_a_read_mid_cascade() {
        let before = b("1234/1356/2178/4567");
        let after = swapped(&before, Cell::new(2, 0), Cell::new(2, 1));
        let seen = b("7234/7356/7278/4567");
        let e = explain(&after, &seen, 10, &Limits::DEFAULT);
        assert_eq!(e.consistency, Consistency::Inconsistent);
    }

    #[test]
    fn the_last_wave_of_a_round_takes_the_seen_colours_without_branching() {
        // One wave: the round with one wave fixes the three new gems from
        // the seen board (nothing may change after it): root and one wave.
        let before = b("1234/1356/2178/4567");
        let after = swapped(&before, Cell::new(2, 0), Cell::new(2, 1));
        let seen = b("7234/8356/9278/4567");
        let e = explain(&after, &seen, 10, &Limits::DEFAULT);
        assert_eq!(e.consistency, Consistency::Consistent);
        assert!(e.nodes <= 2, "{e:?}");
        // Two waves: still a handful of nodes, not a branch per colour of
        // every new gem.
        let before = b("0342/1554/1236/2146/0303");
        let after = swapped(&before, Cell::new(3, 0), Cell::new(3, 1));
        let seen = b("2462/3344/6236/0246/0303");
        let e = explain(&after, &seen, 7, &Limits::DEFAULT);
        assert_eq!(e.consistency, Consistency::Consistent);
        assert!(e.nodes <= 40, "{e:?}");
    }

    #[test]
    fn a_new_gem_that_cannot_move_must_be_its_seen_colour() {
        // Column 0 loses rows 0-2; the new gems can be in no line (column
        // 0 has one refill left) and nothing below them can clear, so each
        // must be its seen colour; a seen 9 at (2,0) is not in a palette of
        // 0-8 and is rejected without branching.
        let before = b("1234/1356/2178/4567");
        let after = swapped(&before, Cell::new(2, 0), Cell::new(2, 1));
        let seen = b("7234/8356/9278/4567");
        let e = explain(&after, &seen, 9, &Limits::DEFAULT);
        assert_eq!(e.consistency, Consistency::Inconsistent, "{e:?}");
        assert!(e.nodes <= 2, "{e:?}");
    }

    #[test]
    fn the_node_limit_makes_it_undecided() {
        let before = b("1234/1356/2178/4567");
        let after = swapped(&before, Cell::new(2, 0), Cell::new(2, 1));
        let seen = b("7234/8356/9278/4567");
        let e = explain(
            &after,
            &seen,
            10,
            &Limits {
                max_nodes: 0,
                ..Limits::DEFAULT
            },
        );
        assert_eq!(e.consistency, Consistency::Undecided);
    }
}
