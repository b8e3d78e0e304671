//! The shortest drag to a given board, by meeting in the middle.
//!
//! A drag is reversible: dragging the held orb back along the path on the
//! board it made gives back the board it started from. So the shortest
//! drag from `start` to a board `want` with the held orb ending on cell
//! `end` is found by a breadth-first search forward from `start` (every
//! start cell, every drag of up to `fwd` steps, each state (board, cursor)
//! kept once at its least depth) and one backward from (`want`, `end`)
//! meeting it: a backward state at depth j found forward at depth i is a
//! drag of i + j steps. Exact up to `fwd + bwd` steps (a drag that long
//! splits into a head of at most `fwd` and a tail of at most `bwd`).
//!
//! Boards are packed into a `u128` (4 bits a cell up to 32 cells, else 3);
//! states are keyed by a 64-bit mix of board and cursor, so a collision
//! could join two states: every drag returned is replayed and checked.
//!
//! Pure and deterministic; no clock.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::rules::{Geometry, Orbs};

const NONE: u32 = u32::MAX;

/// A hasher for keys that are already mixed.
#[derive(Default)]
struct Pass(u64);

impl Hasher for Pass {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u64 keys")
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = k;
    }
}

type Map = HashMap<u64, (u32, u8), BuildHasherDefault<Pass>>;

#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Packed boards of one geometry.
#[derive(Clone, Copy)]
struct Pack {
    bits: u32,
    mask: u128,
}

impl Pack {
    fn new(g: &Geometry) -> Self {
        let bits = if g.cells() <= 32 { 4 } else { 3 };
        Pack {
            bits,
            mask: (1u128 << bits) - 1,
        }
    }

    fn board(&self, g: &Geometry, o: &Orbs) -> u128 {
        (0..g.cells()).fold(0u128, |b, i| {
            b | (o.cells[i] as u128 & self.mask) << (i as u32 * self.bits)
        })
    }

    #[inline]
    fn swap(&self, b: u128, x: usize, y: usize) -> u128 {
        let (sx, sy) = (x as u32 * self.bits, y as u32 * self.bits);
        let d = ((b >> sx) ^ (b >> sy)) & self.mask;
        b ^ (d << sx) ^ (d << sy)
    }

    #[inline]
    fn key(b: u128, cur: usize) -> u64 {
        mix(b as u64 ^ mix((b >> 64) as u64 ^ (cur as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)))
    }
}

/// Every state within `depth` steps of a board: the forward half.
pub struct Forward {
    pack: Pack,
    /// (parent, cell) per state.
    arena: Vec<(u32, u8)>,
    /// Key -> (arena index, depth).
    map: Map,
    depth: usize,
}

#[derive(Clone, Copy)]
struct State {
    board: u128,
    cur: u8,
    prev: u8,
    at: u32,
}

fn expand(
    g: &Geometry,
    pack: &Pack,
    dirs: usize,
    layer: &[State],
    arena: &mut Vec<(u32, u8)>,
    mut fresh: impl FnMut(u64, u32) -> bool,
    keep: bool,
) -> Vec<State> {
    let mut next = Vec::with_capacity(if keep { layer.len() * 3 } else { 0 });
    for s in layer {
        let cur = s.cur as usize;
        for d in 0..dirs {
            let Some(n) = g.step(cur, d) else { continue };
            if n as u8 == s.prev {
                continue;
            }
            let b = pack.swap(s.board, cur, n);
            let k = Pack::key(b, n);
            if !fresh(k, arena.len() as u32) {
                continue;
            }
            arena.push((s.at, n as u8));
            if keep {
                next.push(State {
                    board: b,
                    cur: n as u8,
                    prev: cur as u8,
                    at: arena.len() as u32 - 1,
                });
            }
        }
    }
    next
}

fn cells_of(arena: &[(u32, u8)], mut at: u32) -> Vec<usize> {
    let mut path = Vec::new();
    while at != NONE {
        let (p, c) = arena[at as usize];
        path.push(c as usize);
        at = p;
    }
    path
}

impl Forward {
    /// Every drag of at most `depth` steps from `orbs`, from every start cell.
    pub fn new(g: &Geometry, orbs: &Orbs, depth: usize, diagonals: bool) -> Self {
        let pack = Pack::new(g);
        let dirs = if diagonals { 8 } else { 4 };
        let start = pack.board(g, orbs);
        let mut arena = Vec::new();
        let mut map = Map::default();
        let mut layer: Vec<State> = (0..g.cells())
            .map(|i| {
                arena.push((NONE, i as u8));
                let at = arena.len() as u32 - 1;
                map.insert(Pack::key(start, i), (at, 0));
                State {
                    board: start,
                    cur: i as u8,
                    prev: u8::MAX,
                    at,
                }
            })
            .collect();
        for d in 1..=depth {
            let keep = d < depth;
            let fresh = |k: u64, at: u32| match map.entry(k) {
                std::collections::hash_map::Entry::Occupied(_) => false,
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert((at, d as u8));
                    true
                }
            };
            layer = expand(g, &pack, dirs, &layer, &mut arena, fresh, keep);
        }
        Forward {
            pack,
            arena,
            map,
            depth,
        }
    }

    /// States held.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The shortest drag (cells, start first) from the board of `self` to
    /// one of `targets` (a board and the cell its held orb ends on),
    /// shorter than `below` steps, searching back at most `bwd` steps;
    /// checked by replaying it on `orbs`.
    pub fn to(
        &self,
        g: &Geometry,
        orbs: &Orbs,
        targets: &[(Orbs, usize)],
        bwd: usize,
        below: usize,
        diagonals: bool,
    ) -> Option<Vec<usize>> {
        let dirs = if diagonals { 8 } else { 4 };
        let pack = self.pack;
        let mut arena: Vec<(u32, u8)> = Vec::new();
        let mut seen: HashMap<u64, (), BuildHasherDefault<Pass>> = HashMap::default();
        let mut layer = Vec::new();
        for (o, end) in targets {
            let b = pack.board(g, o);
            if seen.insert(Pack::key(b, *end), ()).is_none() {
                arena.push((NONE, *end as u8));
                layer.push(State {
                    board: b,
                    cur: *end as u8,
                    prev: u8::MAX,
                    at: arena.len() as u32 - 1,
                });
            }
        }
        // (total steps, forward index, backward index)
        let mut best: Option<(usize, u32, u32)> = None;
        let mut j = 0;
        loop {
            for s in &layer {
                if let Some(&(at, i)) = self.map.get(&Pack::key(s.board, s.cur as usize)) {
                    let total = i as usize + j;
                    if total < below && best.is_none_or(|b| total < b.0) {
                        best = Some((total, at, s.at));
                    }
                }
            }
            j += 1;
            // A deeper layer only helps if its matches can be shorter.
            let bound = best.map_or(below, |b| b.0);
            if j > bwd || j >= bound || layer.is_empty() {
                break;
            }
            let fresh = |k: u64, _| seen.insert(k, ()).is_none();
            layer = expand(g, &pack, dirs, &layer, &mut arena, fresh, true);
        }
        let (_, f, b) = best?;
        let mut path = cells_of(&self.arena, f);
        path.reverse();
        path.extend(cells_of(&arena, b).into_iter().skip(1));
        let done = orbs.dragged(&path);
        let ok = targets.iter().any(|(o, end)| {
            path.last() == Some(end) && done.cells[..g.cells()] == o.cells[..g.cells()]
        }) && path.windows(2).all(|w| (0..dirs).any(|d| g.step(w[0], d) == Some(w[1])));
        let _ = self.depth;
        ok.then_some(path)
    }
}

/// The fewest steps (at most `depth`) of any drag from `orbs` whose board
/// resolves to `want` combos or more, by breadth-first search over every
/// state (exhaustive: for measuring how far the beam is from the best).
pub fn fewest_steps_to(g: &Geometry, orbs: &Orbs, want: u32, depth: usize) -> Option<usize> {
    use super::rules::{Bits, Combo};
    let pack = Pack::new(g);
    let start = pack.board(g, orbs);
    let unpack = |b: u128| {
        let mut o = *orbs;
        for i in 0..g.cells() {
            o.cells[i] = ((b >> (i as u32 * pack.bits)) & pack.mask) as u8;
        }
        o
    };
    let mut arena = Vec::new();
    let mut seen: HashMap<u64, (), BuildHasherDefault<Pass>> = HashMap::default();
    let mut layer: Vec<State> = (0..g.cells())
        .map(|i| {
            seen.insert(Pack::key(start, i), ());
            State {
                board: start,
                cur: i as u8,
                prev: u8::MAX,
                at: 0,
            }
        })
        .collect();
    for d in 1..=depth {
        let fresh = |k: u64, _| seen.insert(k, ()).is_none();
        layer = expand(g, &pack, 4, &layer, &mut arena, fresh, true);
        arena.clear();
        for s in &layer {
            let mut n = 0u32;
            Bits::new(g, &unpack(s.board)).resolve(g, &mut |_: Combo| n += 1);
            if n >= want {
                return Some(d);
            }
        }
    }
    None
}
