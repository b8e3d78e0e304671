//! The drag-path solver: a beam search over paths from every start cell.
//!
//! A state is the board after the swaps so far and the cell under the held
//! orb. Each round every state in the beam takes one more step (never
//! straight back); a state already seen this round, or kept in the beam of
//! an earlier round (a shorter path to the same board and cursor), is
//! dropped; the best `width` by rank go on. The rank shapes the objective's
//! value of the board as it would resolve now (see `Ctx::shaped`):
//! combos that waste triples (a combo of four when the colour's orbs make
//! exact triples) count against, and so do colours spread over many
//! columns. The best path seen at any depth is kept (ties go to the
//! shorter, found first); the search stops when the objective's ceiling is
//! reached (the board's theoretical maximum combos), at `max_path` steps,
//! or when the budget says stop. A round lists its new states in the
//! beam's order, each once (a Zobrist hash updated by the swap,
//! open-addressing key sets split in a fixed number of parts by the key's
//! top bits: the first listed of each state is kept); ties in rank go to
//! the earlier listed, so the result does not depend on the thread count.
//! Every step of a wide round runs on every core (rayon): the listing,
//! the repeats dropped (a part of the key sets a thread), the evaluation
//! with the round's best, the beam gathered in rank order and its keys
//! added (a part a thread); only the sort of the ranks (a radix sort) and
//! the limit per plan run on one.
//!
//! Pure and deterministic for a fixed width: the clock is only read through
//! the [`Stop`] it is given.

use serde::{Deserialize, Serialize};

use super::rules::{Bits, Combo, Geometry, Orbs, COLOURS, MAX_CELLS, MAX_COMBOS};
use crate::board::EMPTY;
use crate::games::Stop;
use crate::rng::SplitMix64;

/// What a path is worth.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Objective {
    /// The most combos (the default).
    Combos,
    /// pndopt-style: per colour a weight for a normal (3-4 orbs) and a mass
    /// (5+) match, a bonus per orb beyond three and per combo beyond one.
    Weights {
        normal: [f64; COLOURS],
        mass: [f64; COLOURS],
        extra_orb: f64,
        extra_combo: f64,
    },
    /// Clear every orb of `colour` (heal, say), then the most combos.
    ClearColour { colour: u8 },
    /// A whole row of `colour`, then the most combos.
    RowOf { colour: u8 },
    /// A match of exactly four orbs of `colour`, then the most combos.
    FourOf { colour: u8 },
}

impl Objective {
    /// pndopt's defaults: every colour 1 for a normal match, 3 for a mass one.
    pub fn pndopt() -> Self {
        Objective::Weights {
            normal: [1.0; COLOURS],
            mass: [3.0; COLOURS],
            extra_orb: 0.25,
            extra_combo: 0.25,
        }
    }

    /// A preset by name: `combos`, `pndopt`, `clear-heal`, `row-fire`, `four-fire`, ...
    pub fn preset(name: &str) -> Option<Self> {
        const NAMES: [&str; 8] = [
            "fire", "water", "wood", "light", "dark", "heal", "jammer", "poison",
        ];
        let colour = |s: &str| NAMES.iter().position(|&n| n == s).map(|c| c as u8);
        match name {
            "combos" => Some(Objective::Combos),
            "pndopt" => Some(Self::pndopt()),
            _ => {
                let (kind, c) = name.split_once('-')?;
                let colour = colour(c)?;
                match kind {
                    "clear" => Some(Objective::ClearColour { colour }),
                    "row" => Some(Objective::RowOf { colour }),
                    "four" => Some(Objective::FourOf { colour }),
                    _ => None,
                }
            }
        }
    }
}

/// Search settings.
#[derive(Debug, Clone, PartialEq)]
pub struct PadParams {
    /// Steps allowed in the path (cells visited minus one).
    pub max_path: usize,
    /// Diagonal steps allowed.
    pub diagonals: bool,
    /// States kept each round.
    pub width: usize,
    pub objective: Objective,
    /// How states rank in the beam.
    pub rank: Rank,
    /// States kept in the beam with the same plan (the cells the first
    /// pass would clear and the combos), while states with other plans
    /// are left; 0: no limit.
    pub per_plan: usize,
}

impl Default for PadParams {
    fn default() -> Self {
        PadParams {
            max_path: 150,
            diagonals: false,
            width: 4000,
            objective: Objective::Combos,
            rank: Rank::default(),
            per_plan: 2,
        }
    }
}

/// The best path found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PadSolution {
    /// Cells visited (index `row * cols + col`), start first.
    pub path: Vec<usize>,
    pub combos: u32,
    pub max_combos: u32,
    /// The objective's value (combos for `Combos`).
    pub value: f64,
    /// States evaluated.
    pub nodes: u64,
    /// Rounds (path lengths) searched.
    pub depth: usize,
}

/// Asks for the cache line of `p` ahead of its use (a hint: no effect on
/// results). The key sets of a wide search are far larger than the caches,
/// and their probes are at random.
#[inline(always)]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is only a hint; it never faults, whatever the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Probes of a key set started this many places ahead of where they are
/// needed ([`prefetch`]).
const AHEAD: usize = 8;

/// A set of 64-bit keys that are already well mixed (Zobrist hashes):
/// open addressing with linear probing, at most half full, the low bits of
/// a key its home slot; 0 marks a free slot (a key of 0 is stored as 1).
/// Cleared and reused across rounds without freeing.
#[derive(Debug, Clone)]
struct KeySet {
    slots: Vec<u64>,
    len: usize,
}

impl KeySet {
    fn new() -> Self {
        Self::with_capacity(1 << 9)
    }

    /// Room for `n` keys before it grows.
    fn with_capacity(n: usize) -> Self {
        KeySet {
            slots: vec![0; (2 * n).next_power_of_two().max(1 << 10)],
            len: 0,
        }
    }

    /// Empties the set, with room for `n` keys: a table of the size that
    /// needs, zeroed (in the memory it had: no page faults).
    fn reset(&mut self, n: usize) {
        let size = (2 * n).next_power_of_two().max(1 << 10);
        self.slots.clear();
        self.slots.resize(size, 0);
        self.len = 0;
    }

    /// [`prefetch`]es the home slot of `key`.
    #[inline]
    fn prefetch(&self, key: u64) {
        let i = key.max(1) as usize & (self.slots.len() - 1);
        prefetch(self.slots.as_ptr().wrapping_add(i));
    }

    #[inline]
    fn contains(&self, key: u64) -> bool {
        let key = key.max(1);
        let mask = self.slots.len() - 1;
        let mut i = key as usize & mask;
        loop {
            match self.slots[i] {
                0 => return false,
                k if k == key => return true,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Adds `key`; false if it was already there.
    #[inline]
    fn insert(&mut self, key: u64) -> bool {
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let key = key.max(1);
        let mask = self.slots.len() - 1;
        let mut i = key as usize & mask;
        loop {
            match self.slots[i] {
                0 => {
                    self.slots[i] = key;
                    self.len += 1;
                    return true;
                }
                k if k == key => return false,
                _ => i = (i + 1) & mask,
            }
        }
    }

    fn grow(&mut self) {
        let size = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, vec![0; size]);
        self.len = 0;
        for k in old.into_iter().filter(|&k| k != 0) {
            self.insert(k);
        }
    }
}

/// Key sets a key's top bits choose between ([`KeySets`]): a fixed
/// number, whatever the threads, so that the same keys land in the same
/// set on any machine; each part goes through the whole list, so as many
/// as the cores of the machines this runs on (two).
const SHARDS: usize = 2;

/// Lists shorter than this go through [`KeySets`] on one thread
/// (splitting costs more).
const SHARDS_PARALLEL_FROM: usize = 1024;

/// [`KeySet`]s split by the top bits of a key (their slots are chosen by
/// the low bits): one set for lookups, but each part filled on a thread
/// of its own. Which keys are in it never depends on the order the parts
/// were filled in.
#[derive(Debug, Clone)]
struct KeySets {
    sets: Vec<KeySet>,
    /// Per part, the keys it took of the last [`KeySets::first_of_each`]
    /// (a bit per key).
    took: Vec<Vec<u64>>,
}

impl KeySets {
    fn new() -> Self {
        KeySets {
            sets: (0..SHARDS).map(|_| KeySet::new()).collect(),
            took: vec![Vec::new(); SHARDS],
        }
    }

    #[inline]
    fn part(key: u64) -> usize {
        (key.max(1) >> (64 - SHARDS.trailing_zeros())) as usize
    }

    #[inline]
    fn prefetch(&self, key: u64) {
        self.sets[Self::part(key)].prefetch(key);
    }

    #[inline]
    fn contains(&self, key: u64) -> bool {
        self.sets[Self::part(key)].contains(key)
    }

    /// Whether `n` keys go through the parts on every core, each part on
    /// a thread (else on this thread, in one pass).
    fn in_parallel(n: usize) -> bool {
        n >= SHARDS_PARALLEL_FROM && rayon::current_num_threads() > 1
    }

    /// Runs `f` on each part with its index, on every core.
    fn each_part<F>(&mut self, f: F)
    where
        F: Fn(usize, &mut KeySet, &mut Vec<u64>) + Sync,
    {
        use rayon::prelude::*;
        self.sets
            .iter_mut()
            .zip(self.took.iter_mut())
            .enumerate()
            .collect::<Vec<_>>()
            .into_par_iter()
            .for_each(|(k, (set, took))| f(k, set, took));
    }

    /// Adds every key of `keys`.
    fn insert_all(&mut self, keys: &[u64]) {
        if !Self::in_parallel(keys.len()) {
            for (i, &key) in keys.iter().enumerate() {
                if let Some(&ahead) = keys.get(i + AHEAD) {
                    self.prefetch(ahead);
                }
                self.sets[Self::part(key)].insert(key);
            }
            return;
        }
        self.each_part(|part, set, _| {
            for (i, &key) in keys.iter().enumerate() {
                if let Some(&ahead) = keys.get(i + SHARDS * AHEAD) {
                    if Self::part(ahead) == part {
                        set.prefetch(ahead);
                    }
                }
                if Self::part(key) == part {
                    set.insert(key);
                }
            }
        });
    }

    /// Empties the sets, then keeps in `keep` (a bit per key, `n` keys:
    /// `key(i)` the `i`th) the first of each key.
    fn first_of_each<K>(&mut self, n: usize, key: K, keep: &mut Vec<u64>)
    where
        K: Fn(usize) -> u64 + Sync,
    {
        let words = n.div_ceil(64);
        let room = (n / SHARDS + n / (4 * SHARDS)).max(1 << 8);
        keep.clear();
        keep.resize(words, 0);
        if !Self::in_parallel(n) {
            for set in &mut self.sets {
                set.reset(room);
            }
            for i in 0..n {
                if i + AHEAD < n {
                    self.prefetch(key(i + AHEAD));
                }
                let k = key(i);
                if self.sets[Self::part(k)].insert(k) {
                    keep[i / 64] |= 1 << (i % 64);
                }
            }
            return;
        }
        self.each_part(|part, set, took| {
            // Room for a share of the keys: the sets of a wide pass are
            // no larger than its rounds need.
            set.reset(room);
            took.clear();
            took.resize(words, 0);
            for i in 0..n {
                if let Some(ahead) = (i + SHARDS * AHEAD < n).then(|| key(i + SHARDS * AHEAD)) {
                    if Self::part(ahead) == part {
                        set.prefetch(ahead);
                    }
                }
                let k = key(i);
                if Self::part(k) == part && set.insert(k) {
                    took[i / 64] |= 1 << (i % 64);
                }
            }
        });
        for took in &self.took {
            for (w, t) in keep.iter_mut().zip(took) {
                *w |= t;
            }
        }
    }
}

/// A count per 64-bit key (keys already mixed): open addressing as in
/// [`KeySet`], cleared and reused across rounds.
#[derive(Debug, Clone)]
struct KeyCount {
    keys: Vec<u64>,
    counts: Vec<u32>,
    len: usize,
}

impl KeyCount {
    fn new() -> Self {
        KeyCount {
            keys: vec![0; 1 << 10],
            counts: vec![0; 1 << 10],
            len: 0,
        }
    }

    fn clear(&mut self) {
        if self.len > 0 {
            self.keys.fill(0);
            self.len = 0;
        }
    }

    /// The home slot of `key`: its top bits (a plan's low bits are
    /// those of the cells it clears at the bottom of the first columns,
    /// shared by many plans; its top bits depend on every cell).
    #[inline]
    fn home(&self, key: u64) -> usize {
        (key >> (64 - self.keys.len().trailing_zeros())) as usize
    }

    /// [`prefetch`]es the home slot of `key`.
    #[inline]
    fn prefetch(&self, key: u64) {
        let i = self.home(key.max(1));
        prefetch(self.keys.as_ptr().wrapping_add(i));
        prefetch(self.counts.as_ptr().wrapping_add(i));
    }

    /// Counts `key` once more; returns its count.
    fn bump(&mut self, key: u64) -> usize {
        if (self.len + 1) * 2 > self.keys.len() {
            let size = self.keys.len() * 2;
            let keys = std::mem::replace(&mut self.keys, vec![0; size]);
            let counts = std::mem::replace(&mut self.counts, vec![0; size]);
            self.len = 0;
            for (k, c) in keys.into_iter().zip(counts).filter(|&(k, _)| k != 0) {
                let i = self.slot(k);
                self.keys[i] = k;
                self.counts[i] = c;
                self.len += 1;
            }
        }
        let key = key.max(1);
        let i = self.slot(key);
        if self.keys[i] == 0 {
            self.keys[i] = key;
            self.counts[i] = 0;
            self.len += 1;
        }
        self.counts[i] += 1;
        self.counts[i] as usize
    }

    /// The slot of `key` (not 0): where it is, or the free slot where it goes.
    fn slot(&self, key: u64) -> usize {
        let mask = self.keys.len() - 1;
        let mut i = self.home(key);
        while self.keys[i] != 0 && self.keys[i] != key {
            i = (i + 1) & mask;
        }
        i
    }
}

/// Zobrist keys: one per (cell, colour) and one per cursor cell.
struct Keys {
    orb: [[u64; COLOURS + 1]; MAX_CELLS],
    cursor: [u64; MAX_CELLS],
}

impl Keys {
    fn new() -> Self {
        let mut r = SplitMix64::new(0x0b5d_a6ed);
        let mut orb = [[0u64; COLOURS + 1]; MAX_CELLS];
        for cell in orb.iter_mut() {
            for k in cell.iter_mut() {
                *k = r.next_u64();
            }
        }
        let mut cursor = [0u64; MAX_CELLS];
        for k in cursor.iter_mut() {
            *k = r.next_u64();
        }
        Keys { orb, cursor }
    }

    #[inline]
    fn orb(&self, cell: usize, v: u8) -> u64 {
        self.orb[cell][(v as usize).min(COLOURS)]
    }

    fn board(&self, o: &Orbs, g: &Geometry) -> u64 {
        (0..g.cells()).fold(0, |h, i| h ^ self.orb(i, o.cells[i]))
    }
}

const NONE: u32 = u32::MAX;

/// A state in the beam.
#[derive(Clone, Copy)]
struct Node {
    bits: Bits,
    /// Board hash without the cursor.
    hash: u64,
    cur: u8,
    prev: u8,
    /// Colour of the held orb (the start cell's, all along the path).
    held: u8,
    /// Columns and rows spanned by the colours of `bits` ([`spreads`]).
    cols: u16,
    rows: u16,
    /// Index of this node's last cell in the path arena.
    at: u32,
}

/// One step out of a beam state, not yet evaluated: a new state (board and
/// cursor) of this round.
#[derive(Clone, Copy)]
struct Step {
    /// Index of the state in the beam.
    parent: u32,
    /// The cell entered and the colour of its orb.
    next: u8,
    colour: u8,
    /// The state's key: the board hash after the swap with the cursor's.
    key: u64,
}

/// A child made this round; it gets a place in the path arena only if it
/// goes on in the beam or is the best so far.
#[derive(Clone, Copy)]
struct Child {
    node: Node,
    /// Its rank in the beam ([`shaped`]).
    eval: f64,
    value: f64,
    combos: u32,
    /// The cells the first pass clears and the combos: states with the same
    /// plan differ in the orbs left over.
    plan: u64,
}

/// A key for an evaluation that sorts the best first (the reverse of
/// [`f64::total_cmp`]'s order).
#[inline]
fn rank_key(eval: f64) -> u64 {
    let b = eval.to_bits();
    !(if b >> 63 == 1 { !b } else { b | 1 << 63 })
}

/// Sorts pairs of a rank key and a place in the list, listed by place,
/// by key, the earlier place first among equal keys: the order of sorting
/// the pairs. A radix sort a byte of the key at a time from the lowest
/// (stable), skipping the bytes every key shares: a round's ranks take a
/// few hundred values, three bytes or so (a sort by comparisons of a
/// wide round took 5% of a 1 s search).
fn sort_ranked(v: &mut Vec<(u64, u32)>, spare: &mut Vec<(u64, u32)>) {
    debug_assert!(v.windows(2).all(|w| w[0].1 < w[1].1));
    let mut counts = [[0u32; 256]; 8];
    for &(k, _) in v.iter() {
        for (b, c) in counts.iter_mut().enumerate() {
            c[(k >> (8 * b)) as u8 as usize] += 1;
        }
    }
    for (b, c) in counts.iter().enumerate() {
        if c.iter().any(|&n| n as usize == v.len()) {
            continue;
        }
        let mut at = [0u32; 256];
        let mut sum = 0;
        for (a, &n) in at.iter_mut().zip(c) {
            *a = sum;
            sum += n;
        }
        spare.clear();
        spare.resize(v.len(), (0, 0));
        for &e in v.iter() {
            let d = (e.0 >> (8 * b)) as u8 as usize;
            spare[at[d] as usize] = e;
            at[d] += 1;
        }
        std::mem::swap(v, spare);
    }
}

/// Rounds with fewer new states than this evaluate on one thread
/// (splitting costs more).
const PARALLEL_FROM: usize = 768;
/// Evaluations between two looks at the clock.
const STOP_EVERY: usize = 32;

/// The value of a resolution under `obj`, and whether it reaches the
/// objective's ceiling (`after`: the board after it).
#[inline]
fn value(obj: &Objective, combos: &[Combo], after: &Bits, max_combos: u32) -> (f64, bool) {
    let n = combos.len() as f64;
    match obj {
        Objective::Combos => (n, combos.len() as u32 >= max_combos),
        Objective::Weights {
            normal,
            mass,
            extra_orb,
            extra_combo,
        } => {
            let mut v = 0.0;
            for c in combos {
                let k = c.colour as usize;
                v += if c.size >= 5 { mass[k] } else { normal[k] };
                v += extra_orb * (c.size as f64 - 3.0);
            }
            v *= 1.0 + extra_combo * (n - 1.0).max(0.0);
            (v, false)
        }
        Objective::ClearColour { colour } => {
            let done = after.masks[*colour as usize % COLOURS] == 0;
            (
                if done { 100.0 + n } else { n },
                done && combos.len() as u32 >= max_combos,
            )
        }
        Objective::RowOf { colour } => {
            let done = combos.iter().any(|c| c.row && c.colour == *colour);
            (if done { 100.0 + n } else { n }, false)
        }
        Objective::FourOf { colour } => {
            let done = combos.iter().any(|c| c.size == 4 && c.colour == *colour);
            (if done { 100.0 + n } else { n }, false)
        }
    }
}

/// What a resolution did, as the rank needs it.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    combos: u32,
    passes: u32,
    by_colour: [u8; COLOURS],
}

impl Tally {
    #[inline]
    fn add(&mut self, c: &Combo) {
        self.combos += 1;
        self.passes = self.passes.max(c.pass as u32 + 1);
        self.by_colour[c.colour as usize % COLOURS] += 1;
    }
}

/// Weights of the beam's ranking (`Ctx::shaped`), per unit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Rank {
    /// A combo made if the drag ended now.
    pub combo: f64,
    /// A triple lost for good by the combos made now: per colour, its
    /// triples (orbs / 3) less its combos and the triples its orbs left
    /// could still make.
    pub wasted_triple: f64,
    /// A column spanned by a colour with three orbs or more, on the board
    /// before and after resolving.
    pub column: f64,
    /// A row spanned, the same way.
    pub row: f64,
    /// A cascade pass.
    pub pass: f64,
    /// `combo` in the passes for a shorter path once the ceiling is
    /// reached ([`solve_anytime`], [`shorten_tails`]): there states with
    /// fewer combos but orbs gathered in fewer rows and columns get more
    /// of the beam (first paths at the maximum, 100 boards: 26.22 steps
    /// against 26.80 at width 3200, 23.77 against 24.01 at 12800).
    pub short_combo: f64,
    /// A step of the distance (`target_distance`) to the target in the
    /// passes for a shorter path limited to one step less
    /// ([`solve_anytime`]): the cells the first pass of the best path so
    /// far clears, with their colours; 0: no target (boards 0-47 under a
    /// simulated 1 s: 21.08 steps at 1.5 against 21.71 at 0; 0.75: 21.38,
    /// 3: 21.15, 6: 21.81; the whole board the best path makes as the
    /// target at 1 or 3: 21.40, at 10: 22.15).
    pub target: f64,
    /// On boards whose maximum leaves at most this many orbs uncleared
    /// (8 or 9 combos on 6x5: 6 or 3), the target is every cell whose orb
    /// clears, cascades included, not only the first pass's
    /// (`target_with_cascades`): there the cascades hold a good part of
    /// the combos. Under a simulated 1 s, paired against the first pass's
    /// cells: nine-combo boards -0.44 steps (standard error 0.24) on the
    /// 187 of the bench, -0.37 (0.15) on 300 others (Round 9, at 3);
    /// eight-combo boards of the bench -0.18 (0.12) on 381 (Round 10, at
    /// 6); on all boards (`usize::MAX`) it gained nothing on 48 boards
    /// (Round 8). `null`: never.
    pub cascades_within: Option<usize>,
}

impl Default for Rank {
    fn default() -> Self {
        Rank {
            combo: 30.0,
            wasted_triple: 10.0,
            column: 1.0,
            row: 1.0,
            pass: 1.0,
            short_combo: 5.0,
            target: 1.5,
            cascades_within: Some(6),
        }
    }
}

impl Rank {
    /// The ranking of the passes for a shorter path: `combo` is
    /// `short_combo`.
    pub fn for_shorter(&self) -> Rank {
        Rank {
            combo: self.short_combo,
            ..*self
        }
    }
}

/// Everything a round's evaluation reads.
struct Ctx<'a> {
    g: &'a Geometry,
    p: &'a PadParams,
    max_combos: u32,
    /// Triples each colour has (its orbs / 3).
    triples: [u32; COLOURS],
    /// The colours with a triple, one bit each.
    with_triples: u32,
    /// Per colour the cells (column-major) the board steered to holds.
    target: Option<&'a [u64; COLOURS]>,
    /// The Zobrist key of each cursor cell ([`Keys`]).
    cursor_keys: &'a [u64; MAX_CELLS],
    stop: &'a dyn Stop,
}

/// What a part of a round's evaluation found ([`Ctx::evaluate`]); places
/// in the part.
#[derive(Debug, Clone, Copy, Default)]
struct Found {
    /// Children evaluated (all but when the budget stopped it).
    evaluated: usize,
    /// The first child at the objective's ceiling.
    ceiling: Option<usize>,
    /// The first child of the best value before it: (value, place).
    best: Option<(f64, usize)>,
}

/// Where a part of a round's evaluation writes ([`Ctx::evaluate`]), a
/// place for each step: the children, their (rank key, place in the
/// round's list) and their plans.
struct Made<'a> {
    children: &'a mut [Child],
    rank: &'a mut [(u64, u32)],
    plans: &'a mut [u64],
}

impl Ctx<'_> {
    /// The children of `beam` that `steps` name, in order: each board
    /// swapped, resolved and ranked, into `out` (`from`: the place of
    /// `steps[0]` in the round's list); stops early when the budget says
    /// so.
    fn evaluate(&self, beam: &[Node], steps: &[Step], from: usize, out: Made<'_>) -> Found {
        match self.p.objective {
            Objective::Combos => self.evaluate_with::<false>(beam, steps, from, out),
            _ => self.evaluate_with::<true>(beam, steps, from, out),
        }
    }

    /// [`Ctx::evaluate`]; `LIST`: the objective needs the combos listed
    /// (not only counted).
    #[inline(always)]
    fn evaluate_with<const LIST: bool>(
        &self,
        beam: &[Node],
        steps: &[Step],
        from: usize,
        out: Made<'_>,
    ) -> Found {
        let g = self.g;
        let mut found = Found::default();
        let mut combos: Vec<Combo> = Vec::with_capacity(MAX_COMBOS);
        for (i, s) in steps.iter().enumerate() {
            if i % STOP_EVERY == STOP_EVERY - 1 && self.stop.should_stop() {
                break;
            }
            let node = &beam[s.parent as usize];
            let (cur, next) = (node.cur as usize, s.next as usize);
            let mut o = node.bits;
            o.swap(g, cur, node.held, next, s.colour);
            // The spreads change only for the two colours swapped.
            let (mut cols, mut rows) = (node.cols as u32, node.rows as u32);
            if node.held != s.colour {
                for c in [node.held as usize, s.colour as usize] {
                    if c < COLOURS && o.masks[c].count_ones() >= 3 {
                        let (was, now) = (node.bits.masks[c], o.masks[c]);
                        cols = cols + Bits::mask_columns(g, now) - Bits::mask_columns(g, was);
                        rows = rows + Bits::mask_rows(g, now) - Bits::mask_rows(g, was);
                    }
                }
            }
            debug_assert_eq!((cols, rows), spreads(g, &o));
            combos.clear();
            let mut tally = Tally::default();
            let (after, _, first) = o.resolve_first(g, &mut |c: Combo| {
                tally.add(&c);
                if LIST {
                    combos.push(c);
                }
            });
            let (v, ceiling) = if LIST {
                value(&self.p.objective, &combos, &after, self.max_combos)
            } else {
                (tally.combos as f64, tally.combos >= self.max_combos)
            };
            let child = Child {
                node: Node {
                    bits: o,
                    hash: s.key ^ self.cursor_keys[next],
                    cur: next as u8,
                    prev: cur as u8,
                    held: node.held,
                    cols: cols as u16,
                    rows: rows as u16,
                    at: node.at,
                },
                eval: self.shaped((cols, rows), &after, &tally, v)
                    - self.target.map_or(0.0, |t| {
                        self.p.rank.target * target_distance(g, &o, t) as f64
                    }),
                value: v,
                combos: tally.combos,
                plan: first.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ tally.combos as u64,
            };
            found.evaluated = i + 1;
            if found.ceiling.is_none() {
                if ceiling {
                    found.ceiling = Some(i);
                } else if found.best.is_none_or(|(b, _)| v > b) {
                    found.best = Some((v, i));
                }
            }
            out.rank[i] = (rank_key(child.eval), (from + i) as u32);
            out.plans[i] = child.plan;
            out.children[i] = child;
        }
        found
    }
}

/// A child to fill a list with before it is written.
const BLANK: Child = Child {
    node: Node {
        bits: Bits {
            masks: [0; COLOURS],
        },
        hash: 0,
        cur: 0,
        prev: 0,
        held: 0,
        cols: 0,
        rows: 0,
        at: 0,
    },
    eval: 0.0,
    value: 0.0,
    combos: 0,
    plan: 0,
};

/// Searches a path for the board `orbs` of shape `g`: a beam of `p.width`
/// states a round, at most `p.max_path` rounds. The same result on one
/// thread or many: the new states of a round are listed in the beam's
/// order (the first of each state kept), evaluated in parallel, and
/// ranked by a total order (rank, then place in that list).
pub fn solve(g: &Geometry, orbs: &Orbs, p: &PadParams, stop: &dyn Stop) -> PadSolution {
    solve_from(g, orbs, p, stop, &[], None)
}

/// [`solve`] from the end of the drag `prefix` (cells, start first) instead
/// of every start cell: the paths found begin with it, and `p.max_path`
/// counts the steps after it.
fn solve_from(
    g: &Geometry,
    orbs: &Orbs,
    p: &PadParams,
    stop: &dyn Stop,
    prefix: &[usize],
    target: Option<&[u64; COLOURS]>,
) -> PadSolution {
    use rayon::prelude::*;

    let keys = Keys::new();
    let max_combos = orbs.max_combos(g);
    let n = g.cells();
    let dirs = if p.diagonals { 8 } else { 4 };
    // Path arena: (parent index, cell).
    let mut arena: Vec<(u32, u8)> =
        Vec::with_capacity(p.width.clamp(1, 1 << 14) * (p.max_path.min(64) + 1) + n + prefix.len());
    let mut nodes = 0u64;
    let bits = Bits::new(g, orbs);
    let mut beam: Vec<Node> = if let [start, .., last] | [start @ last] = *prefix {
        let o = orbs.dragged(prefix);
        let b = Bits::new(g, &o);
        let (cols, rows) = spreads(g, &b);
        for &cell in prefix {
            let parent = arena.len().checked_sub(1).map_or(NONE, |k| k as u32);
            arena.push((parent, cell as u8));
        }
        vec![Node {
            bits: b,
            hash: keys.board(&o, g),
            cur: last as u8,
            prev: prefix
                .len()
                .checked_sub(2)
                .map_or(u8::MAX, |k| prefix[k] as u8),
            held: orbs.cells[start],
            cols: cols as u16,
            rows: rows as u16,
            at: arena.len() as u32 - 1,
        }]
    } else {
        let base_hash = keys.board(orbs, g);
        let (cols, rows) = spreads(g, &bits);
        (0..n)
            .map(|i| {
                arena.push((NONE, i as u8));
                Node {
                    bits,
                    hash: base_hash,
                    cur: i as u8,
                    prev: u8::MAX,
                    held: orbs.cells[i],
                    cols: cols as u16,
                    rows: rows as u16,
                    at: arena.len() as u32 - 1,
                }
            })
            .collect()
    };
    let mut best: Option<(f64, u32, u32, usize)> = None; // (value, combos, arena index, depth)
    let mut depth = 0;
    // States listed this round; states that went on in an earlier round
    // (board and cursor): reached again by a longer path, they are dropped.
    let mut seen = KeySets::new();
    let mut visited = KeySets::new();
    // A bit per listed step: the first of its state this round.
    let mut first_bits: Vec<u64> = Vec::new();
    // The keys (board and cursor) of the beam's states.
    let mut beam_keys: Vec<u64> = Vec::new();
    let mut steps: Vec<Step> = Vec::new();
    // (rank key: the best first, place in the list).
    let mut rank: Vec<(u64, u32)> = Vec::new();
    let mut plans = KeyCount::new();
    // The plan of each child of the round, by its place in the list (read
    // in rank order: a small array, not the children).
    let mut plan_of: Vec<u64> = Vec::new();
    let mut over: Vec<(u64, u32)> = Vec::new();
    let mut spare: Vec<(u64, u32)> = Vec::new();
    let mut made: Vec<Child> = Vec::new();
    let ctx = Ctx {
        g,
        p,
        max_combos,
        cursor_keys: &keys.cursor,
        triples: bits.counts().map(|k| k / 3),
        with_triples: bits
            .counts()
            .iter()
            .enumerate()
            .fold(0, |a, (k, &c)| a | u32::from(c >= 3) << k),
        target,
        stop,
    };
    for d in 1..=p.max_path {
        depth = d;
        // The new states, in the beam's order, each once: listed (on every
        // core when the round is wide), then the repeats dropped in order.
        steps.clear();
        let list = |from: usize, part: &[Node], out: &mut Vec<Step>| {
            // `out[read..]`: listed, not yet looked up; the steps kept
            // are moved down to `write`.
            let (mut read, mut write) = (out.len(), out.len());
            for (k, node) in part.iter().enumerate() {
                let cur = node.cur as usize;
                for dir in 0..dirs {
                    let Some(next) = g.step(cur, dir) else {
                        continue;
                    };
                    if next as u8 == node.prev {
                        continue;
                    }
                    let (a, b) = (node.held, node.bits.colour(g, next));
                    let hash = node.hash
                        ^ keys.orb(cur, a)
                        ^ keys.orb(next, b)
                        ^ keys.orb(cur, b)
                        ^ keys.orb(next, a);
                    // Listed now, looked up in `visited` `AHEAD` steps
                    // later (its slot fetched meanwhile), dropped then if
                    // it was kept in an earlier round.
                    let key = hash ^ keys.cursor[next];
                    visited.prefetch(key);
                    out.push(Step {
                        parent: (from + k) as u32,
                        next: next as u8,
                        colour: b,
                        key,
                    });
                    if out.len() - read > AHEAD {
                        let s = out[read];
                        read += 1;
                        if !visited.contains(s.key) {
                            out[write] = s;
                            write += 1;
                        }
                    }
                }
            }
            for i in read..out.len() {
                let s = out[i];
                if !visited.contains(s.key) {
                    out[write] = s;
                    write += 1;
                }
            }
            out.truncate(write);
        };
        if beam.len() * 2 < PARALLEL_FROM || rayon::current_num_threads() < 2 {
            list(0, &beam, &mut steps);
        } else {
            let chunk = beam.len().div_ceil(rayon::current_num_threads() * 4);
            let parts: Vec<Vec<Step>> = beam
                .par_chunks(chunk)
                .enumerate()
                .map(|(i, part)| {
                    let mut out = Vec::with_capacity(part.len() * 3);
                    list(i * chunk, part, &mut out);
                    out
                })
                .collect();
            for part in parts {
                steps.extend(part);
            }
        }
        seen.first_of_each(steps.len(), |i| steps[i].key, &mut first_bits);
        let mut i = 0;
        steps.retain(|_| {
            i += 1;
            first_bits[(i - 1) / 64] >> ((i - 1) % 64) & 1 == 1
        });
        // Each step's child, rank key and plan written in its place.
        let listed = steps.len();
        made.resize(listed, BLANK);
        rank.resize(listed, (0, 0));
        plan_of.resize(listed, 0);
        // (first place, steps, what it found) for each part, in order.
        let parts: Vec<(usize, usize, Found)> =
            if listed < PARALLEL_FROM || rayon::current_num_threads() < 2 {
                let out = Made {
                    children: &mut made,
                    rank: &mut rank,
                    plans: &mut plan_of,
                };
                vec![(0, listed, ctx.evaluate(&beam, &steps, 0, out))]
            } else {
                let chunk = listed.div_ceil(rayon::current_num_threads() * 4);
                made.par_chunks_mut(chunk)
                    .zip(rank.par_chunks_mut(chunk))
                    .zip(plan_of.par_chunks_mut(chunk))
                    .zip(steps.par_chunks(chunk))
                    .enumerate()
                    .map(|(k, (((children, rank), plans), part))| {
                        let out = Made {
                            children,
                            rank,
                            plans,
                        };
                        (
                            k * chunk,
                            part.len(),
                            ctx.evaluate(&beam, part, k * chunk, out),
                        )
                    })
                    .collect()
            };
        // In order: the first child at the ceiling ends the search (the
        // states after it are not counted); else the first of the best
        // value, if better than the best so far. A part the budget cut
        // short counts the children it made.
        let mut ceiling = None;
        let mut top: Option<(f64, usize)> = None;
        let mut cut = false;
        for &(from, len, f) in &parts {
            if let Some(c) = f.ceiling {
                nodes += c as u64 + 1;
                ceiling = Some(from + c);
                break;
            }
            nodes += f.evaluated as u64;
            if let Some((v, i)) = f.best {
                if top.is_none_or(|(t, _)| v > t) {
                    top = Some((v, from + i));
                }
            }
            cut |= f.evaluated < len;
        }
        let round_best = ceiling.or_else(|| {
            top.filter(|&(v, _)| best.is_none_or(|(bv, ..)| v > bv))
                .map(|(_, i)| i)
        });
        if let Some(c) = round_best.map(|i| &made[i]) {
            arena.push((c.node.at, c.node.cur));
            best = Some((c.value, c.combos, arena.len() as u32 - 1, d));
        }
        if ceiling.is_some() || listed == 0 || stop.should_stop() || cut {
            break;
        }
        // The best `width` by rank, ties to the earlier listed; at most
        // `per_plan` of them with the same plan while others are left.
        if p.per_plan > 0 && rank.len() > p.width {
            // The pairs are distinct: one order on any number of threads.
            sort_ranked(&mut rank, &mut spare);
            plans.clear();
            over.clear();
            let mut kept = 0;
            for k in 0..rank.len() {
                if let Some(&(_, j)) = rank.get(k + 2 * AHEAD) {
                    prefetch(&plan_of[j as usize]);
                }
                if let Some(&(_, j)) = rank.get(k + AHEAD) {
                    plans.prefetch(plan_of[j as usize]);
                }
                let e = rank[k];
                if plans.bump(plan_of[e.1 as usize]) <= p.per_plan {
                    rank[kept] = e;
                    kept += 1;
                    if kept == p.width {
                        break;
                    }
                } else {
                    over.push(e);
                }
            }
            rank.truncate(kept);
            let fill = p.width - kept;
            rank.extend(over.iter().take(fill));
        }
        if rank.len() > p.width {
            rank.select_nth_unstable(p.width - 1);
            rank.truncate(p.width);
        }
        // The beam in rank order, each state's cell appended to the
        // arena, its key kept (on every core when wide).
        let base = arena.len();
        let w = rank.len();
        let filler = made[rank[0].1 as usize].node;
        beam.resize(w, filler);
        arena.resize(base + w, (NONE, 0));
        beam_keys.resize(w, 0);
        let gather = |from: usize,
                      part: &[(u64, u32)],
                      beam: &mut [Node],
                      cells: &mut [(u32, u8)],
                      bkeys: &mut [u64]| {
            for (k, &(_, i)) in part.iter().enumerate() {
                if let Some(&(_, j)) = part.get(k + AHEAD) {
                    let c: *const Node = &made[j as usize].node;
                    prefetch(c);
                    prefetch(c.cast::<u8>().wrapping_add(64));
                }
                let mut c = made[i as usize].node;
                cells[k] = (c.at, c.cur);
                c.at = (base + from + k) as u32;
                bkeys[k] = c.hash ^ keys.cursor[c.cur as usize];
                beam[k] = c;
            }
        };
        if w < PARALLEL_FROM / 2 || rayon::current_num_threads() < 2 {
            gather(0, &rank, &mut beam, &mut arena[base..], &mut beam_keys);
        } else {
            let chunk = w.div_ceil(rayon::current_num_threads() * 4);
            beam.par_chunks_mut(chunk)
                .zip(arena[base..].par_chunks_mut(chunk))
                .zip(beam_keys.par_chunks_mut(chunk))
                .zip(rank.par_chunks(chunk))
                .enumerate()
                .for_each(|(k, (((b, c), v), r))| gather(k * chunk, r, b, c, v));
        }
        visited.insert_all(&beam_keys);
    }
    let (value, combos_found, at, _) = best.unwrap_or((0.0, 0, 0, 0));
    let mut path = Vec::new();
    let mut i = at;
    if best.is_some() {
        while i != NONE {
            let (parent, cell) = arena[i as usize];
            path.push(cell as usize);
            i = parent;
        }
        path.reverse();
    }
    PadSolution {
        path,
        combos: combos_found,
        max_combos,
        value,
        nodes,
        depth,
    }
}

/// Rounds the first (narrow) pass of [`solve_anytime`] may take: a narrow
/// beam that has not reached the ceiling by then is not worth more time.
const FIRST_ROUNDS: usize = 50;
/// Beam width per state allowed with the same plan in the passes for a
/// shorter path ([`solve_anytime`]).
const PLAN_WIDTH: usize = 400;
/// Rounds a pass sized to the time left is planned for (most paths to the
/// ceiling take 20 to 35).
const PLANNED_ROUNDS: usize = 40;

/// Anytime search under `stop`: beams of growing width until the
/// objective's ceiling is reached or the budget ends: `first` wide (at most
/// `FIRST_ROUNDS` rounds), then four times wider each time (at most
/// `p.width`), under a deadline only as wide as the time left allows (but
/// at least twice). Once at the ceiling, the rest of the
/// budget goes to shorter paths: wider beams (twice as wide each time)
/// limited to one step less than the best path so far. The best path over
/// all of them (ties: the shorter).
pub fn solve_anytime(
    g: &Geometry,
    orbs: &Orbs,
    p: &PadParams,
    first: usize,
    stop: &dyn Stop,
) -> PadSolution {
    let mut width = first.max(1);
    let mut best: Option<PadSolution> = None;
    let mut nodes = 0;
    let at_ceiling =
        |s: &PadSolution| matches!(p.objective, Objective::Combos) && s.combos >= s.max_combos;
    let mut max_path = p.max_path.min(FIRST_ROUNDS);
    loop {
        let pass = PadParams {
            width,
            max_path,
            ..p.clone()
        };
        let s = solve(g, orbs, &pass, stop);
        max_path = p.max_path;
        nodes += s.nodes;
        let s_nodes = s.nodes;
        let better = best.as_ref().is_none_or(|b| {
            s.value > b.value || (s.value == b.value && s.path.len() < b.path.len())
        });
        let done = at_ceiling(&s);
        if better {
            best = Some(s);
        }
        if done {
            let mut last = s_nodes;
            while let Some(b) = best.as_ref().filter(|b| b.path.len() > 2) {
                if stop.should_stop() || width >= p.width {
                    break;
                }
                // Twice as wide; under a deadline as wide as the time left
                // allows at the cost of the last pass, up to four times (a
                // pass cut short by the clock is lost; fewer passes leave
                // more for the last: 22.3 steps against 22.5 and 22.4
                // against 22.7 on two sets of 24 boards, a budget of about
                // 1 s of one core), and none narrower than this one.
                let next = match stop.spent() {
                    Some(f) if f > 0.0 && f < 1.0 => {
                        let left = nodes as f64 * (1.0 - f) / f;
                        let fits = (width as f64 * 0.9 * left / last.max(1) as f64) as usize;
                        if fits <= width {
                            // No wider pass fits: the tails of the path
                            // at this width, until the clock stops them.
                            if let Some(b) = best.take() {
                                let was = b.nodes;
                                let t = shorten_tails(g, orbs, p, b, width, stop);
                                nodes += t.nodes - was;
                                best = Some(t);
                            }
                            break;
                        }
                        fits.min(width.saturating_mul(4))
                    }
                    _ => width.saturating_mul(2),
                };
                width = next.min(p.width);
                // Wider beams keep more states of a plan: a short path
                // needs the best of them, diversity matters less.
                let per_plan = match p.per_plan {
                    0 => 0,
                    k => k.max(width / PLAN_WIDTH),
                };
                let shorter = PadParams {
                    width,
                    max_path: b.path.len() - 2,
                    per_plan,
                    rank: p.rank.for_shorter(),
                    ..p.clone()
                };
                let want = (p.rank.target > 0.0).then(|| {
                    let left = g.cells().saturating_sub(3 * orbs.max_combos(g) as usize);
                    if p.rank.cascades_within.is_some_and(|k| left <= k) {
                        target_with_cascades(g, orbs, &b.path)
                    } else {
                        target_of(g, orbs, &b.path)
                    }
                });
                let s = solve_from(g, orbs, &shorter, stop, &[], want.as_ref());
                nodes += s.nodes;
                last = s.nodes;
                if at_ceiling(&s) {
                    best = Some(s);
                }
            }
            break;
        }
        if stop.should_stop() || width >= p.width {
            break;
        }
        // Four times wider; under a deadline less when the time left at the
        // rate seen so far would not finish that (but at least twice): a
        // beam cut short by the clock is worth less than a narrower one
        // that finished.
        let sized = match stop.spent() {
            Some(f) if f > 0.0 && f < 1.0 => {
                let affordable = nodes as f64 * (1.0 - f) / f;
                ((affordable / (3 * PLANNED_ROUNDS) as f64) as usize)
                    .clamp(width * 2, width.saturating_mul(4))
            }
            _ => width.saturating_mul(4),
        };
        width = sized.min(p.width);
    }
    let mut b = best.unwrap_or_else(|| solve(g, orbs, p, stop));
    b.nodes = nodes;
    // What is left of the budget: cut the path by local search (it keeps
    // the value or betters it: the combos and value of the new path).
    let cut = shorten(g, orbs, p, &b.path, stop);
    if cut != b.path {
        b.value = path_value(g, orbs, &p.objective, b.max_combos, &cut);
        b.combos = orbs.dragged(&cut).resolve(g).combos.len() as u32;
        b.path = cut;
    }
    b
}

/// A shorter path to the objective's ceiling than `best` (a solution at
/// it), by searching its tails again: from the end of all but the last `t`
/// steps, a beam `width` wide looks for the ceiling in fewer than `t`
/// steps (`t` = 4, 6, ... while the path is longer; after a success the
/// same `t` on the new path). The beam spends all its width on the one
/// state, deep in the path, where the first search spread it over many.
pub fn shorten_tails(
    g: &Geometry,
    orbs: &Orbs,
    p: &PadParams,
    best: PadSolution,
    width: usize,
    stop: &dyn Stop,
) -> PadSolution {
    let mut best = best;
    let mut t = 4;
    let mut nodes = best.nodes;
    while t < best.path.len() && !stop.should_stop() {
        let k = best.path.len() - 1 - t;
        let tail = PadParams {
            width,
            max_path: t - 1,
            rank: p.rank.for_shorter(),
            ..p.clone()
        };
        let s = solve_from(g, orbs, &tail, stop, &best.path[..=k], None);
        nodes += s.nodes;
        if s.value >= best.value && s.combos >= best.combos && s.path.len() < best.path.len() {
            best = s;
        } else {
            t += 2;
        }
    }
    best.nodes = nodes;
    best
}

/// The objective's value of dragging `path` on `orbs`.
fn path_value(g: &Geometry, orbs: &Orbs, obj: &Objective, max_combos: u32, path: &[usize]) -> f64 {
    let mut o = *orbs;
    for w in path.windows(2) {
        o.swap(w[0], w[1]);
    }
    let bits = Bits::new(g, &o);
    match obj {
        Objective::Combos => {
            let mut n = 0u32;
            bits.resolve(g, &mut |_: Combo| n += 1);
            n as f64
        }
        _ => {
            let mut combos = Vec::with_capacity(MAX_COMBOS);
            let (after, _) = bits.resolve(g, &mut |c: Combo| combos.push(c));
            value(obj, &combos, &after, max_combos).0
        }
    }
}

/// Steps a drag needs from cell `a` to cell `b` at least.
fn distance(g: &Geometry, a: usize, b: usize, diagonals: bool) -> usize {
    let dr = (a / g.cols).abs_diff(b / g.cols);
    let dc = (a % g.cols).abs_diff(b % g.cols);
    if diagonals {
        dr.max(dc)
    } else {
        dr + dc
    }
}

/// Appends a shortest route from cell `a` to cell `b` (`b` included, `a`
/// not) to `out`: rows first or columns first (`alt`); with diagonals,
/// diagonal steps first or last.
fn route(g: &Geometry, a: usize, b: usize, diagonals: bool, alt: bool, out: &mut Vec<usize>) {
    let (mut r, mut c) = ((a / g.cols) as i32, (a % g.cols) as i32);
    let (tr, tc) = ((b / g.cols) as i32, (b % g.cols) as i32);
    while (r, c) != (tr, tc) {
        let (dr, dc) = ((tr - r).signum(), (tc - c).signum());
        let (left_r, left_c) = ((tr - r).abs(), (tc - c).abs());
        if diagonals && dr != 0 && dc != 0 && (!alt || left_r == left_c) {
            r += dr;
            c += dc;
        } else if diagonals {
            // Straight along the longer way.
            if left_r > left_c {
                r += dr;
            } else {
                c += dc;
            }
        } else if alt {
            if dc != 0 {
                c += dc;
            } else {
                r += dr;
            }
        } else if dr != 0 {
            r += dr;
        } else {
            c += dc;
        }
        out.push(r as usize * g.cols + c as usize);
    }
}

/// Drops steps straight back (a, b, a is a, and leaves the same board).
fn drop_returns(path: &mut Vec<usize>) {
    let mut k = 0;
    for i in 0..path.len() {
        let cell = path[i];
        if k >= 2 && path[k - 2] == cell {
            k -= 1;
        } else {
            path[k] = cell;
            k += 1;
        }
    }
    path.truncate(k);
}

/// Evaluations [`shorten`] may spend on one path.
const SHORTEN_EVALS: usize = 100_000;

/// A shorter path worth as much as `path` under the objective, by local
/// search: a stretch of the path between two of its cells is replaced by a
/// shortest route between them (a loop dropped), or steps are cut from
/// either end, whenever the board still resolves to the same value; the
/// largest cut is tried first, and the search goes on from each shorter
/// path until no cut keeps the value (or `SHORTEN_EVALS` evaluations, or
/// `stop`). Deterministic for a given path.
pub fn shorten(
    g: &Geometry,
    orbs: &Orbs,
    p: &PadParams,
    path: &[usize],
    stop: &dyn Stop,
) -> Vec<usize> {
    let max_combos = orbs.max_combos(g);
    let mut best = path.to_vec();
    drop_returns(&mut best);
    if best.len() < 3 {
        return path.to_vec();
    }
    let want = path_value(g, orbs, &p.objective, max_combos, path);
    let mut evals = 0;
    let mut cuts: Vec<(usize, usize, usize, u8)> = Vec::new();
    let mut cand = Vec::with_capacity(best.len());
    'outer: loop {
        // (cells saved, i, j, kind): kind 0/1 a route from best[i] to
        // best[j], 2 the path best[i..=j] alone.
        cuts.clear();
        let n = best.len();
        for i in 0..n {
            for j in i + 2..n {
                let d = distance(g, best[i], best[j], p.diagonals);
                if d < j - i {
                    cuts.push((j - i - d, i, j, 0));
                    if d >= 2 {
                        cuts.push((j - i - d, i, j, 1));
                    }
                }
            }
        }
        for k in 1..n - 1 {
            cuts.push((k, k, n - 1, 2));
            cuts.push((k, 0, n - 1 - k, 2));
        }
        cuts.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
        for &(_, i, j, kind) in &cuts {
            if evals >= SHORTEN_EVALS || (evals % STOP_EVERY == 0 && stop.should_stop()) {
                break 'outer;
            }
            cand.clear();
            if kind == 2 {
                cand.extend_from_slice(&best[i..=j]);
            } else {
                cand.extend_from_slice(&best[..=i]);
                route(g, best[i], best[j], p.diagonals, kind == 1, &mut cand);
                cand.extend_from_slice(&best[j + 1..]);
            }
            drop_returns(&mut cand);
            if cand.len() >= best.len() || cand.len() < 2 {
                continue;
            }
            evals += 1;
            if path_value(g, orbs, &p.objective, max_combos, &cand) >= want {
                std::mem::swap(&mut best, &mut cand);
                continue 'outer;
            }
        }
        break;
    }
    best
}

impl Ctx<'_> {
    /// How a state ranks in the beam ([`Rank`]): the combos the drag
    /// would make now, the objective's bonus on top (30 a point), less the
    /// triples those combos waste (a combo of four when the colour has six
    /// orbs leaves two that can never match; one of four when it has seven
    /// wastes nothing), less the columns (and rows) each colour spans on
    /// the board before and after resolving (orbs of a colour gathered in
    /// few columns are on the way to lines), plus one per cascade pass.
    /// `swapped`: the columns and rows spanned on the board before
    /// resolving ([`spreads`]).
    #[inline]
    fn shaped(&self, swapped: (u32, u32), after: &Bits, t: &Tally, v: f64) -> f64 {
        let w = &self.p.rank;
        let n = t.combos as f64;
        let mut lost = 0;
        let mut todo = self.with_triples;
        while todo != 0 {
            let c = todo.trailing_zeros() as usize;
            todo &= todo - 1;
            let kept = t.by_colour[c] as u32 + after.masks[c].count_ones() / 3;
            lost += self.triples[c].saturating_sub(kept);
        }
        // Nothing matched: the board after is the board before.
        let (cols, rows) = if t.combos == 0 {
            swapped
        } else {
            let s = spreads_of(self.g, after, self.with_triples);
            debug_assert_eq!(s, spreads(self.g, after));
            s
        };
        w.combo * n + 30.0 * (v - n) - w.wasted_triple * lost as f64 + w.pass * t.passes as f64
            - w.column * (swapped.0 + cols) as f64
            - w.row * (swapped.1 + rows) as f64
    }
}

/// The cells the first pass of the board `path` makes on `orbs` clears,
/// per colour (column-major bits): the board the passes for a shorter path
/// steer to ([`Rank::target`]).
fn target_of(g: &Geometry, orbs: &Orbs, path: &[usize]) -> [u64; COLOURS] {
    let b = Bits::new(g, &orbs.dragged(path));
    let (_, _, first) = b.resolve_first(g, &mut |_: Combo| {});
    b.masks.map(|m| m & first)
}

/// The cells of the board `path` makes whose orbs clear in any pass,
/// cascades included, with their colours (column-major bits): each pass's
/// matches are the rules' ([`Bits::resolve_first`]), and the orbs are
/// followed as they fall back to the cells they held on that board.
fn target_with_cascades(g: &Geometry, orbs: &Orbs, path: &[usize]) -> [u64; COLOURS] {
    let made = orbs.dragged(path);
    let mut now = made;
    // The cell of `made` whose orb is on each cell of `now`.
    let mut from: [usize; MAX_CELLS] = std::array::from_fn(|i| i);
    let mut cleared = Orbs {
        cells: [EMPTY; MAX_CELLS],
    };
    loop {
        let b = Bits::new(g, &now);
        let (_, _, first) = b.resolve_first(g, &mut |_: Combo| {});
        if first == 0 {
            break;
        }
        let gone = Bits {
            masks: b.masks.map(|m| m & first),
        }
        .orbs(g);
        // Each column falls: kept orbs packed from the bottom up.
        for c in 0..g.cols {
            let mut to = g.rows;
            for r in (0..g.rows).rev() {
                let i = r * g.cols + c;
                if gone.cells[i] != EMPTY {
                    cleared.cells[from[i]] = made.cells[from[i]];
                } else if now.cells[i] != EMPTY {
                    to -= 1;
                    let j = to * g.cols + c;
                    now.cells[j] = now.cells[i];
                    from[j] = from[i];
                }
            }
            for r in 0..to {
                now.cells[r * g.cols + c] = EMPTY;
            }
        }
    }
    Bits::new(g, &cleared).masks
}

/// Steps from `b` to the board `want` (per colour its cells) at a guess:
/// for each cell `want` gives a colour it lacks, the distance to the
/// nearest orb of that colour not on a cell `want` gives it (12 when there
/// is none).
#[inline]
fn target_distance(g: &Geometry, b: &Bits, want: &[u64; COLOURS]) -> u32 {
    let mut h = 0;
    for (&w, &m) in want.iter().zip(&b.masks) {
        let mut left = w & !m;
        if left == 0 {
            continue;
        }
        let mut reach = m & !w;
        if reach == 0 {
            h += 12 * left.count_ones();
            continue;
        }
        let mut d = 0;
        while left != 0 && d < 12 {
            d += 1;
            reach |= Bits::spread(g, reach);
            let hit = left & reach;
            h += d * hit.count_ones();
            left &= !hit;
        }
        h += 12 * left.count_ones();
    }
    h
}

/// Columns and rows spanned by each colour with three orbs or more, summed
/// ([`Bits::column_spread`], [`Bits::row_spread`]).
#[inline]
fn spreads(g: &Geometry, b: &Bits) -> (u32, u32) {
    let (mut cols, mut rows) = (0, 0);
    for &m in &b.masks {
        // Without a branch (the counts are random): a colour with fewer
        // than three orbs spans as one orb, nothing.
        let m = if m.count_ones() >= 3 { m } else { 1 };
        cols += Bits::mask_columns(g, m);
        rows += Bits::mask_rows(g, m);
    }
    (cols, rows)
}

/// [`spreads`] over the colours of `colours` (a bit each) only: the
/// colours with a triple on the board searched (swaps and clears never
/// give a colour more orbs, so the others never span anything).
#[inline]
fn spreads_of(g: &Geometry, b: &Bits, colours: u32) -> (u32, u32) {
    let (mut cols, mut rows) = (0, 0);
    let mut todo = colours;
    while todo != 0 {
        let c = todo.trailing_zeros() as usize;
        todo &= todo - 1;
        let m = b.masks[c];
        let m = if m.count_ones() >= 3 { m } else { 1 };
        cols += Bits::mask_columns(g, m);
        rows += Bits::mask_rows(g, m);
    }
    (cols, rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::games::NeverStop;

    fn orbs(text: &str) -> (Geometry, Orbs) {
        let b: Board = text.parse().expect("a board");
        Orbs::from_board(&b).expect("orbs")
    }

    /// The most combos over every path of 1..=`steps` steps (no diagonals).
    fn brute(g: &Geometry, o: &Orbs, steps: usize) -> u32 {
        fn go(g: &Geometry, o: &Orbs, cur: usize, left: usize, best: &mut u32) {
            if left == 0 {
                return;
            }
            for d in 0..4 {
                if let Some(n) = g.step(cur, d) {
                    let mut b = *o;
                    b.swap(cur, n);
                    *best = (*best).max(b.resolve(g).combos.len() as u32);
                    go(g, &b, n, left - 1, best);
                }
            }
        }
        let mut best = 0;
        for start in 0..g.cells() {
            go(g, o, start, steps, &mut best);
        }
        best
    }

    #[test]
    fn unbounded_width_matches_brute_force() {
        let mut r = SplitMix64::new(5);
        for _ in 0..12 {
            let cells: Vec<u8> = (0..12).map(|_| r.below(3) as u8).collect();
            let b = Board::from_cells(3, 4, cells);
            let (g, o) = Orbs::from_board(&b).expect("orbs");
            let p = PadParams {
                max_path: 4,
                width: 1_000_000,
                ..PadParams::default()
            };
            let s = solve(&g, &o, &p, &NeverStop);
            let want = brute(&g, &o, 4).min(o.max_combos(&g));
            // The search stops early at the ceiling, so compare with the
            // brute force capped the same way.
            assert_eq!(s.combos.min(o.max_combos(&g)), want, "board {b}");
            assert_eq!(o.dragged(&s.path).resolve(&g).combos.len() as u32, s.combos);
        }
    }

    #[test]
    fn the_path_replays_to_the_reported_combos() {
        let (g, o) = orbs("033324/132134/302324/420155/421424");
        let p = PadParams {
            width: 500,
            ..PadParams::default()
        };
        let s = solve(&g, &o, &p, &NeverStop);
        let r = o.dragged(&s.path).resolve(&g);
        assert_eq!(r.combos.len() as u32, s.combos);
        assert!(s.combos <= s.max_combos);
        // Steps are to neighbours only (no diagonals asked for).
        for w in s.path.windows(2) {
            let (a, b) = (w[0] as i32, w[1] as i32);
            let (ra, ca, rb, cb) = (a / 6, a % 6, b / 6, b % 6);
            assert_eq!((ra - rb).abs() + (ca - cb).abs(), 1);
        }
    }

    /// The open-addressing key set against the standard one, through
    /// growth and clearing, keys 0 and 1 included (stored as one).
    #[test]
    fn key_set_matches_hash_set() {
        let mut r = SplitMix64::new(11);
        let mut fast = KeySet::new();
        let mut naive = std::collections::HashSet::new();
        for round in 0..3 {
            for _ in 0..5000 {
                // Few distinct keys so that repeats are common.
                let k = match r.below(50) {
                    0 => 0,
                    1 => 1,
                    _ => (r.below(4000) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
                };
                assert_eq!(fast.contains(k), naive.contains(&k.max(1)), "round {round}");
                assert_eq!(fast.insert(k), naive.insert(k.max(1)), "round {round}");
            }
            assert_eq!(fast.len, naive.len());
            // Emptied at a size too small for the next round: it grows.
            fast.reset(100);
            naive.clear();
        }
    }

    /// Exact signatures on a fixed board: the same path, combos and node
    /// count on one thread and on several.
    #[test]
    fn fixed_width_signature() {
        let (g, o) = orbs("033324/132134/302324/420155/421424");
        let p = PadParams {
            width: 1000,
            ..PadParams::default()
        };
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .expect("a pool")
            .install(|| solve(&g, &o, &p, &NeverStop));
        let many = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .expect("a pool")
            .install(|| solve(&g, &o, &p, &NeverStop));
        assert_eq!(one, many);
        assert_eq!(
            (one.combos, one.max_combos, one.path.len() - 1, one.nodes),
            (8, 8, 29, 59581)
        );
        // Without the limit per plan, the search of before it (the node
        // rate work changed nothing else).
        let free = PadParams { per_plan: 0, ..p };
        let s = solve(&g, &o, &free, &NeverStop);
        assert_eq!(
            (s.combos, s.max_combos, s.path.len() - 1, s.nodes),
            (8, 8, 30, 63410)
        );
    }

    /// The anytime search without a clock: passes up to `p.width`, then
    /// shorter paths; exact on a fixed board, the same on any thread count.
    #[test]
    fn anytime_without_a_clock() {
        let (g, o) = orbs("033324/132134/302324/420155/421424");
        let p = PadParams {
            width: 1600,
            ..PadParams::default()
        };
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a pool")
                .install(|| solve_anytime(&g, &o, &p, 200, &NeverStop))
        };
        let (one, two) = (run(1), run(2));
        assert_eq!(one, two);
        assert_eq!(
            o.dragged(&one.path).resolve(&g).combos.len() as u32,
            one.combos
        );
        // The passes for a shorter path steer to the cells the best
        // path's cascades clear (`cascades_within`, 6 orbs left on 8
        // combos): 26 steps; to the cells its first pass clears
        // (`target`, 1.5): 27; without a target 29.
        assert_eq!((one.combos, one.path.len() - 1, one.nodes), (8, 26, 169663));
        let first_pass = PadParams {
            rank: Rank {
                cascades_within: Some(3),
                ..Rank::default()
            },
            ..p.clone()
        };
        let s = solve_anytime(&g, &o, &first_pass, 200, &NeverStop);
        assert_eq!((s.combos, s.path.len() - 1, s.nodes), (8, 27, 177868));
        let plain = PadParams {
            rank: Rank {
                target: 0.0,
                ..Rank::default()
            },
            ..p.clone()
        };
        let s = solve_anytime(&g, &o, &plain, 200, &NeverStop);
        assert_eq!((s.combos, s.path.len() - 1, s.nodes), (8, 29, 183866));
        // Combos at 30 as in the first passes, no target: the search of
        // before `short_combo`.
        let old = PadParams {
            rank: Rank {
                short_combo: 30.0,
                target: 0.0,
                ..Rank::default()
            },
            ..p.clone()
        };
        let s = solve_anytime(&g, &o, &old, 200, &NeverStop);
        assert_eq!((s.combos, s.path.len() - 1, s.nodes), (8, 29, 185987));
        // A board of nine combos (three orbs left): the target takes the
        // cells the cascades clear too (`cascades_within`): 33 steps,
        // where with the first pass's cells only 41.
        let (g, o) = orbs("215202/230011/343354/120314/512543");
        let s = solve_anytime(&g, &o, &p, 200, &NeverStop);
        assert_eq!((s.combos, s.path.len() - 1, s.nodes), (9, 33, 200976));
        let first_pass = PadParams {
            rank: Rank {
                cascades_within: None,
                ..Rank::default()
            },
            ..p.clone()
        };
        let s = solve_anytime(&g, &o, &first_pass, 200, &NeverStop);
        assert_eq!((s.combos, s.path.len() - 1, s.nodes), (9, 41, 231027));
    }

    /// The target with the cascades: the first pass clears a row of
    /// three, the column above falls onto a 1 and clears with it.
    #[test]
    fn the_target_with_the_cascades() {
        let (g, o) = orbs("523450/134512/145023/000134/122345");
        let only = |cells: &[usize]| {
            let mut t = Orbs {
                cells: [EMPTY; MAX_CELLS],
            };
            for &i in cells {
                t.cells[i] = o.cells[i];
            }
            Bits::new(&g, &t).masks
        };
        assert_eq!(target_of(&g, &o, &[0]), only(&[18, 19, 20]));
        assert_eq!(
            target_with_cascades(&g, &o, &[0]),
            only(&[6, 12, 18, 19, 20, 24])
        );
        // After a drag: the cells of the board it made, as many as the
        // rules clear, the first pass's among them.
        let path = [0, 1, 7, 13, 14];
        let made = o.dragged(&path);
        let all = target_with_cascades(&g, &o, &path);
        let first = target_of(&g, &o, &path);
        let count = |m: &[u64; COLOURS]| m.iter().map(|x| x.count_ones()).sum::<u32>();
        assert_eq!(count(&all), made.resolve(&g).cleared);
        for (a, f) in all.iter().zip(&first) {
            assert_eq!(a & f, *f);
        }
    }

    /// The local search and the tail search give shorter paths that keep
    /// the combos: exact lengths on a fixed board.
    #[test]
    fn shorter_paths_keep_the_combos() {
        let (g, o) = orbs("033324/132134/302324/420155/421424");
        let p = PadParams {
            width: 300,
            ..PadParams::default()
        };
        let s = solve(&g, &o, &p, &NeverStop);
        assert_eq!((s.combos, s.path.len() - 1), (8, 34));
        // Three laps round a square at the end of the path leave the
        // board as it was: the local search drops them.
        let e = *s.path.last().expect("a path");
        let (r, c) = (e / g.cols, e % g.cols);
        let dr = if r + 1 < g.rows {
            g.cols
        } else {
            g.cols.wrapping_neg()
        };
        let dc = if c + 1 < g.cols { 1 } else { usize::MAX };
        let lap = [
            e.wrapping_add(dc),
            e.wrapping_add(dc).wrapping_add(dr),
            e.wrapping_add(dr),
            e,
        ];
        let mut long = s.path.clone();
        for _ in 0..3 {
            long.extend(lap);
        }
        assert_eq!(o.dragged(&long), o.dragged(&s.path));
        let cut = shorten(&g, &o, &p, &long, &NeverStop);
        assert_eq!(o.dragged(&cut).resolve(&g).combos.len(), 8);
        assert_eq!(cut.len() - 1, 34);
        let t = shorten_tails(&g, &o, &p, s.clone(), 300, &NeverStop);
        assert_eq!(o.dragged(&t.path).resolve(&g).combos.len() as u32, t.combos);
        assert_eq!((t.combos, t.path.len() - 1), (8, 32));
        assert!(t.nodes > s.nodes);
        // The tail search keeps a prefix of the path it started from.
        let k = (0..t.path.len())
            .take_while(|&i| s.path.get(i) == Some(&t.path[i]))
            .count();
        assert!(k >= 1);
        // Steps straight back are dropped: the same board.
        let mut back = vec![0, 1, 2, 1, 2, 3, 2, 1];
        drop_returns(&mut back);
        assert_eq!(back, vec![0, 1]);
        // Routes are shortest and step to neighbours.
        for (a, b) in [(0, 29), (5, 24), (14, 14), (7, 9), (2, 26), (29, 1)] {
            for (alt, diagonals) in [(false, false), (true, false), (false, true), (true, true)] {
                let mut r = vec![a];
                route(&g, a, b, diagonals, alt, &mut r);
                assert_eq!(r.len() - 1, distance(&g, a, b, diagonals));
                assert_eq!(*r.last().expect("a cell"), b);
                for w in r.windows(2) {
                    assert_eq!(distance(&g, w[0], w[1], diagonals), 1);
                }
            }
        }
    }

    /// The rank key sorts as the evaluations from the best, and the count
    /// per key matches the standard map.
    /// The radix sort of the ranks gives the order of a sort of the
    /// pairs, on ranks as a round makes them (few values) and on any.
    #[test]
    fn radix_sort_of_ranks() {
        let mut r = SplitMix64::new(11);
        let mut spare = Vec::new();
        for round in 0..40 {
            let n = r.below(5000);
            let mut v: Vec<(u64, u32)> = (0..n as u32)
                .map(|i| {
                    let key = match round % 3 {
                        0 => rank_key(r.below(600) as f64 * 0.5 - 150.0),
                        1 => r.next_u64(),
                        _ => rank_key(-(r.below(4) as f64)),
                    };
                    (key, i)
                })
                .collect();
            let mut want = v.clone();
            want.sort_unstable();
            sort_ranked(&mut v, &mut spare);
            assert_eq!(v, want, "round {round}");
        }
    }

    /// The key sets in parts: the first of each key kept, the same keys
    /// inside after, on one thread or two (a list long enough for the
    /// parts to run in parallel and one that is not).
    #[test]
    fn key_sets_keep_the_first_of_each() {
        for n in [300, 5000] {
            let mut r = SplitMix64::new(n as u64);
            let list: Vec<u64> = (0..n)
                .map(|_| match r.below(10) {
                    0 => 0,
                    _ => (r.below(n / 2) as u64).wrapping_mul(0x2545_f491_4f6c_dd1d),
                })
                .collect();
            let mut seen = std::collections::HashSet::new();
            let want: Vec<bool> = list.iter().map(|&k| seen.insert(k.max(1))).collect();
            for threads in [1, 2] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("a pool");
                let (keep, sets) = pool.install(|| {
                    let mut sets = KeySets::new();
                    let mut keep = Vec::new();
                    // Twice: the second must forget the first.
                    sets.first_of_each(n, |i| list[i] ^ 1, &mut keep);
                    sets.first_of_each(n, |i| list[i], &mut keep);
                    let mut all = KeySets::new();
                    all.insert_all(&list);
                    (keep, all)
                });
                let got: Vec<bool> = (0..n).map(|i| keep[i / 64] >> (i % 64) & 1 == 1).collect();
                assert_eq!(got, want, "{n} keys, {threads} threads");
                for &k in &list {
                    assert!(sets.contains(k));
                    assert_eq!(
                        sets.contains(k ^ 0x8000_0000_0000_0001),
                        seen.contains(&(k ^ 0x8000_0000_0000_0001).max(1))
                    );
                }
            }
        }
    }

    #[test]
    fn rank_keys_and_plan_counts() {
        let evals = [-1e9, -30.5, -1.0, -0.0, 0.0, 0.25, 1.0, 29.0, 30.0, 1e9];
        for w in evals.windows(2) {
            assert!(rank_key(w[0]) > rank_key(w[1]), "{} {}", w[0], w[1]);
        }
        let mut r = SplitMix64::new(3);
        let mut fast = KeyCount::new();
        let mut naive = std::collections::HashMap::new();
        for round in 0..2 {
            for _ in 0..4000 {
                let k = match r.below(40) {
                    0 => 0,
                    _ => (r.below(1500) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
                };
                let n = naive.entry(k.max(1)).or_insert(0);
                *n += 1;
                assert_eq!(fast.bump(k), *n, "round {round}");
            }
            fast.clear();
            naive.clear();
        }
    }

    #[test]
    fn presets_parse() {
        assert_eq!(Objective::preset("combos"), Some(Objective::Combos));
        assert_eq!(
            Objective::preset("clear-heal"),
            Some(Objective::ClearColour { colour: 5 })
        );
        assert_eq!(
            Objective::preset("row-fire"),
            Some(Objective::RowOf { colour: 0 })
        );
        assert_eq!(
            Objective::preset("four-poison"),
            Some(Objective::FourOf { colour: 7 })
        );
        assert_eq!(Objective::preset("row-purple"), None);
    }
}
