//! Choosing a placement: one piece, or a lookahead over the known next pieces.
//!
//! With no preview every placement of the current piece is scored
//! `reward + value` and the best wins (ties by the evaluator's priority).
//! With `K` preview pieces the search is a depth-`K+1` max over placements:
//! a line scores the sum of its rewards plus the value of its last field. To
//! stay fast each level is pruned: its placements are first scored as if the
//! line ended there, and only the best [`SearchParams::beam`] of them are
//! searched deeper (the last level is never pruned: it is the cheap one). A
//! line on which a later piece cannot be placed loses to every line on which
//! it can. With [`SearchParams::expect`] the line goes one piece further
//! than the known ones: the unknown next piece is averaged over the seven
//! kinds (expectimax; the uniform generator makes them equally likely).
//!
//! Pure and deterministic: no clock, the same choice for the same input.

use serde::{Deserialize, Serialize};

use super::eval::Eval;
use super::fast::{self, ColumnBase, Drops};
use super::field::Field;
use super::movegen::{Free, MoveGen, Placement};
use super::piece::{Piece, State};

/// Search knobs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchParams {
    /// Preview pieces used (0 = the current piece only).
    pub preview: usize,
    /// Placements kept per level for the deeper search.
    pub beam: usize,
    /// After the known pieces, one more level over the unknown next piece:
    /// the mean over the seven kinds of the best placement's score
    /// (expectimax; uses no preview information).
    #[serde(default)]
    pub expect: bool,
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            preview: 0,
            beam: 12,
            expect: false,
        }
    }
}

/// What the player decided.
#[derive(Debug, Clone, Copy)]
pub struct Decision {
    pub placement: Placement,
    /// The field after the placement (rows cleared).
    pub field: Field,
    /// Rows it clears.
    pub lines: u32,
    /// The score of the best line found.
    pub score: f32,
    /// Placements evaluated.
    pub nodes: u64,
}

/// `reward + value` of a placement, as [`Eval::play`] scores it, from the
/// column terms of the field.
#[inline(always)]
fn quick(eval: &Eval, base: &ColumnBase, gen: &MoveGen, field: &Field, pl: &Placement) -> f32 {
    base.score(
        eval,
        field,
        gen.state(pl),
        pl.column as usize,
        pl.row as usize,
    )
    .0
}

fn x_of(pl: &Placement) -> usize {
    pl.column as usize
}

/// A score below any reachable one, for lines that top out.
const DEAD: f32 = -1.0e7;

/// A player: an evaluator, search knobs and reusable buffers.
#[derive(Debug, Clone)]
pub struct Player {
    pub eval: Eval,
    pub params: SearchParams,
    levels: Vec<Vec<Placement>>,
    ranked: Vec<Vec<(f32, u32)>>,
    /// The field the last one-piece decision left and its column terms,
    /// kept up to date placement by placement: a game asks about that field
    /// next, and then the terms need not be counted again.
    last: Option<(Field, ColumnBase)>,
}

impl Player {
    pub fn new(eval: Eval, params: SearchParams) -> Self {
        Player {
            eval,
            params,
            levels: Vec::new(),
            ranked: Vec::new(),
            last: None,
        }
    }

    /// The best placement of `piece` on `field`, looking at up to
    /// `params.preview` of the `next` pieces. `None` when the piece cannot
    /// be placed (game over).
    pub fn choose(
        &mut self,
        gen: &MoveGen,
        field: &Field,
        piece: Piece,
        next: &[Piece],
    ) -> Option<Decision> {
        let depth = self.params.preview.min(next.len());
        if depth == 0 && !self.params.expect {
            if let Some(table) = gen.free_table(field, piece) {
                return self.choose_free(gen, field, piece, table);
            }
        }
        while self.levels.len() <= depth + 1 {
            self.levels.push(Vec::new());
            self.ranked.push(Vec::new());
        }
        let mut nodes = 0u64;
        let mut list = std::mem::take(&mut self.levels[0]);
        gen.placements_into(field, piece, &mut list);
        let base = ColumnBase::new(field, self.eval.extended());
        let mut best: Option<(f32, i32, usize)> = None;
        if depth == 0 && !self.params.expect {
            for (i, pl) in list.iter().enumerate() {
                let rv = quick(&self.eval, &base, gen, field, pl);
                nodes += 1;
                self.consider(gen, &mut best, rv, pl, i);
            }
        } else {
            let mut ranked = std::mem::take(&mut self.ranked[0]);
            ranked.clear();
            for (i, pl) in list.iter().enumerate() {
                let rv = quick(&self.eval, &base, gen, field, pl);
                nodes += 1;
                ranked.push((rv, i as u32));
            }
            ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            ranked.truncate(self.params.beam.max(1));
            // Searched in generation order so ties break as without preview.
            ranked.sort_by_key(|e| e.1);
            for &(shallow, i) in &ranked {
                let pl = &list[i as usize];
                let (r, _, after, _) = self.eval.play(gen, field, pl);
                let deeper = self.best_line(gen, &after, &next[..depth], 1, &mut nodes);
                let score = match deeper {
                    Some(s) => r + s,
                    None => DEAD + shallow,
                };
                self.consider(gen, &mut best, score, pl, i as usize);
            }
            self.ranked[0] = ranked;
        }
        let out = best.map(|(score, _, i)| {
            let pl = list[i];
            let (_, _, after, lines) = self.eval.play(gen, field, &pl);
            Decision {
                placement: pl,
                field: after,
                lines,
                score,
                nodes,
            }
        });
        self.levels[0] = list;
        out
    }

    /// One piece, no lookahead, every placement reachable as on an empty
    /// field: scores each entry of the table by dropping it on the column
    /// terms of the field ([`ColumnBase::drop_score`]) and builds only the
    /// chosen placement (same choice, same order and ties as the general
    /// path). The terms are those of the last decision's field when `field`
    /// is that one, and are carried over to the field this decision leaves.
    fn choose_free(
        &mut self,
        gen: &MoveGen,
        field: &Field,
        piece: Piece,
        table: &[Free],
    ) -> Option<Decision> {
        let extended = self.eval.extended();
        if !matches!(&self.last, Some((f, base)) if f == field && base.extended() == extended) {
            self.last = None;
        }
        let (last_field, base) = self
            .last
            .get_or_insert_with(|| (*field, ColumnBase::new(field, extended)));
        #[cfg(target_arch = "x86_64")]
        let best = if fast::has_popcnt() {
            // SAFETY: the CPU has the features (checked just above).
            unsafe { best_free_popcnt(&self.eval, base, gen, field, piece, table) }
        } else {
            best_free(&self.eval, base, gen, field, piece, table)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let best = best_free(&self.eval, base, gen, field, piece, table);
        let (score, i, y, nodes) = best?;
        let placement = gen.free_placement(piece, &table[i], y);
        let st = gen.state(&placement);
        let x = x_of(&placement);
        let mut after = *field;
        let cleared = after.lock(st, x, y);
        base.place(st, x, y, cleared);
        *last_field = after;
        Some(Decision {
            placement,
            field: after,
            lines: cleared.count_ones(),
            score,
            nodes,
        })
    }

    /// Keeps `pl` when it beats the best so far (strictly, or equal with a
    /// higher priority).
    #[inline]
    fn consider(
        &self,
        gen: &MoveGen,
        best: &mut Option<(f32, i32, usize)>,
        score: f32,
        pl: &Placement,
        i: usize,
    ) {
        let better = match *best {
            None => true,
            Some((s, p, _)) => score > s || (score == s && self.eval.priority(gen, pl) > p),
        };
        if better {
            *best = Some((score, self.eval.priority(gen, pl), i));
        }
    }

    /// The best `sum of rewards + last value` over placements of
    /// `pieces[0]`, then the rest (then, with `expect`, the unknown piece);
    /// `None` when `pieces[0]` cannot be placed.
    fn best_line(
        &mut self,
        gen: &MoveGen,
        field: &Field,
        pieces: &[Piece],
        level: usize,
        nodes: &mut u64,
    ) -> Option<f32> {
        let Some((&piece, rest)) = pieces.split_first() else {
            return Some(self.expected(gen, field, level, nodes));
        };
        let mut list = std::mem::take(&mut self.levels[level]);
        gen.placements_into(field, piece, &mut list);
        let base = ColumnBase::new(field, self.eval.extended());
        let mut best: Option<f32> = None;
        if rest.is_empty() && !self.params.expect {
            for pl in &list {
                let rv = quick(&self.eval, &base, gen, field, pl);
                *nodes += 1;
                let s = rv;
                if best.is_none_or(|b| s > b) {
                    best = Some(s);
                }
            }
        } else {
            let mut ranked = std::mem::take(&mut self.ranked[level]);
            ranked.clear();
            for (i, pl) in list.iter().enumerate() {
                let rv = quick(&self.eval, &base, gen, field, pl);
                *nodes += 1;
                ranked.push((rv, i as u32));
            }
            ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            ranked.truncate(self.params.beam.max(1));
            for &(shallow, i) in &ranked {
                let pl = list[i as usize];
                let (r, _, after, _) = self.eval.play(gen, field, &pl);
                let s = match self.best_line(gen, &after, rest, level + 1, nodes) {
                    Some(s) => r + s,
                    None => DEAD + shallow,
                };
                if best.is_none_or(|b| s > b) {
                    best = Some(s);
                }
            }
            self.ranked[level] = ranked;
        }
        self.levels[level] = list;
        best
    }

    /// The mean over the seven kinds of the best `reward + value` of a piece
    /// placed on `field` (a kind that cannot be placed counts as dead).
    fn expected(&mut self, gen: &MoveGen, field: &Field, level: usize, nodes: &mut u64) -> f32 {
        if self.levels.len() <= level {
            self.levels.resize_with(level + 1, Vec::new);
            self.ranked.resize_with(level + 1, Vec::new);
        }
        let mut list = std::mem::take(&mut self.levels[level]);
        let mut total = 0.0;
        let base = ColumnBase::new(field, self.eval.extended());
        for p in Piece::ALL {
            gen.placements_into(field, p, &mut list);
            let mut best = DEAD;
            for pl in &list {
                let rv = quick(&self.eval, &base, gen, field, pl);
                *nodes += 1;
                best = best.max(rv);
            }
            total += best;
        }
        self.levels[level] = list;
        total / Piece::ALL.len() as f32
    }
}

/// [`best_free`] compiled with hardware bit counts.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,lzcnt,bmi1")]
unsafe fn best_free_popcnt(
    eval: &Eval,
    base: &ColumnBase,
    gen: &MoveGen,
    field: &Field,
    piece: Piece,
    table: &[Free],
) -> Option<(f32, usize, usize, u64)> {
    best_free(eval, base, gen, field, piece, table)
}

/// The best entry of a free table on `field` (whose terms are `base`):
/// `(score, table index, landing row, placements scored)`. The best is the
/// highest score, then the highest priority, then the first.
#[inline(always)]
fn best_free(
    eval: &Eval,
    base: &ColumnBase,
    gen: &MoveGen,
    field: &Field,
    piece: Piece,
    table: &[Free],
) -> Option<(f32, usize, usize, u64)> {
    let states = gen.shapes.of(piece);
    let spawn_x = gen.shapes.spawn_x[piece.index()];
    let mut nodes = 0u64;
    // (score, priority, table index, row)
    let mut best: Option<(f32, i32, usize, usize)> = None;
    // The table runs state by state: the drops of a state are worked out
    // when it comes up, and its entries are scored by code for its width.
    let mut start = 0;
    while let Some(first) = table.get(start) {
        let state = first.state;
        let end = table[start..]
            .iter()
            .position(|f| f.state != state)
            .map_or(table.len(), |n| start + n);
        let st = &states[state as usize];
        let run = StateRun {
            eval,
            base,
            field,
            st,
            drops: base.drops(st),
            spawn_x,
            start,
            entries: &table[start..end],
        };
        match (st.w, base.extended(), base.well_lanes()) {
            (1, false, 3) => run.scan::<1, true, 3>(&mut best, &mut nodes),
            (2, false, 3) => run.scan::<2, true, 3>(&mut best, &mut nodes),
            (3, false, 3) => run.scan::<3, true, 3>(&mut best, &mut nodes),
            (_, false, 3) => run.scan::<4, true, 3>(&mut best, &mut nodes),
            (1, false, _) => run.scan::<1, true, 1>(&mut best, &mut nodes),
            (2, false, _) => run.scan::<2, true, 1>(&mut best, &mut nodes),
            (3, false, _) => run.scan::<3, true, 1>(&mut best, &mut nodes),
            (_, false, _) => run.scan::<4, true, 1>(&mut best, &mut nodes),
            (1, true, _) => run.scan::<1, false, 1>(&mut best, &mut nodes),
            (2, true, _) => run.scan::<2, false, 1>(&mut best, &mut nodes),
            (3, true, _) => run.scan::<3, false, 1>(&mut best, &mut nodes),
            (_, true, _) => run.scan::<4, false, 1>(&mut best, &mut nodes),
        }
        start = end;
    }
    best.map(|(score, _, i, y)| (score, i, y, nodes))
}

/// The entries of a free table for one rotation state (from table index
/// `start`), with what scoring them needs.
struct StateRun<'a> {
    eval: &'a Eval,
    base: &'a ColumnBase,
    field: &'a Field,
    st: &'a State,
    drops: Drops,
    spawn_x: i32,
    start: usize,
    entries: &'a [Free],
}

impl StateRun<'_> {
    /// Scores the entries (the state is `SW` columns wide; `BASIC`: the
    /// evaluator weighs Dellacherie's features only, counted `LANES`
    /// columns at once, see [`ColumnBase::well_lanes`]) into `best`:
    /// `(score, priority, table index, row)`, kept when the score is higher,
    /// or equal with a higher priority.
    #[inline(always)]
    fn scan<const SW: usize, const BASIC: bool, const LANES: usize>(
        &self,
        best: &mut Option<(f32, i32, usize, usize)>,
        nodes: &mut u64,
    ) {
        let (eval, base) = (self.eval, self.base);
        let mut found = *best;
        let mut scored = 0;
        for (k, f) in self.entries.iter().enumerate() {
            let x = f.x as usize;
            let scored_drop = if BASIC {
                base.drop_score_basic::<SW, LANES>(eval, self.field, self.st, &self.drops, x)
            } else {
                base.drop_score_w::<SW>(eval, self.field, self.st, &self.drops, x)
            };
            let Some((score, y)) = scored_drop else {
                continue;
            };
            scored += 1;
            let better = match found {
                None => true,
                Some((s, p, _, _)) => {
                    score > s
                        || (score == s && eval.priority_at(self.spawn_x, f.bx as i32, f.state) > p)
                }
            };
            if better {
                let p = eval.priority_at(self.spawn_x, f.bx as i32, f.state);
                found = Some((score, p, self.start + k, y));
            }
        }
        *best = found;
        *nodes += scored;
    }
}
