//! Placements of a piece and the key scripts that reach them.
//!
//! After cold-clear's `moves.rs`: every placement carries the inputs that
//! reach it from the spawn position. The piece appears in its spawn state at
//! the top ([`Shapes::spawn_top`]), may be rotated and moved sideways there
//! (no gravity while it is manoeuvred), then is hard-dropped. Optionally
//! ([`MoveRules::slides`]) it may also be dropped without locking
//! ([`TetrisKey::SonicDrop`]) and then moved or rotated again, which reaches
//! the cells under an overhang.
//!
//! Scripts are shortest in key presses; among equally short ones, rotations
//! come before moves (breadth-first search that tries rotations first). A
//! placement is identified by the cells it fills: states that draw the same
//! shape at the same cells count once (the cheaper script wins).
//!
//! Speed: when the stack is below every row the piece can occupy at the top,
//! every placement is reachable as on an empty field, so the scripts come from
//! a table built once per field size and each landing row from the column
//! heights; only a crowded top needs the search.

use serde::{Deserialize, Serialize};

use super::field::{Field, MAX_WIDTH, ROWS};
use super::piece::{Piece, Shapes, State};
use super::TetrisError;
use crate::act::{Key, Move};

/// An abstract input of a falling-block game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TetrisKey {
    Left,
    Right,
    RotateCw,
    RotateCcw,
    /// Drop to the floor without locking (held soft drop).
    SonicDrop,
    /// Drop and lock.
    HardDrop,
}

/// Longest key script kept.
pub const SCRIPT_CAP: usize = 23;

/// A short key script, stored inline.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Script {
    len: u8,
    keys: [TetrisKey; SCRIPT_CAP],
}

impl Default for Script {
    fn default() -> Self {
        Script {
            len: 0,
            keys: [TetrisKey::HardDrop; SCRIPT_CAP],
        }
    }
}

impl std::fmt::Debug for Script {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.keys()).finish()
    }
}

impl Serialize for Script {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.keys().serialize(s)
    }
}

impl Script {
    /// The keys in order.
    #[inline]
    pub fn keys(&self) -> &[TetrisKey] {
        &self.keys[..self.len as usize]
    }

    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends a key; false when full.
    #[inline]
    pub fn push(&mut self, k: TetrisKey) -> bool {
        if (self.len as usize) < SCRIPT_CAP {
            self.keys[self.len as usize] = k;
            self.len += 1;
            true
        } else {
            false
        }
    }

    fn with(mut self, k: TetrisKey) -> Option<Self> {
        self.push(k).then_some(self)
    }
}

/// Which physical key carries each abstract one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyMap {
    pub left: Key,
    pub right: Key,
    pub rotate_cw: Option<Key>,
    pub rotate_ccw: Option<Key>,
    /// Held for a [`TetrisKey::SonicDrop`] (the loop decides how long).
    pub soft_drop: Key,
    pub hard_drop: Key,
}

impl KeyMap {
    /// Quadrapassel's keys: arrows move, Up rotates, Down soft-drops, Space
    /// hard-drops. Which way Up turns is to be found by watching the game; it
    /// is assumed clockwise here.
    pub fn quadrapassel() -> Self {
        KeyMap {
            left: Key::Left,
            right: Key::Right,
            rotate_cw: Some(Key::Up),
            rotate_ccw: None,
            soft_drop: Key::Down,
            hard_drop: Key::Space,
        }
    }

    /// The physical key for an abstract one (`None`: the game has no such key).
    pub fn key(&self, k: TetrisKey) -> Option<Key> {
        match k {
            TetrisKey::Left => Some(self.left),
            TetrisKey::Right => Some(self.right),
            TetrisKey::RotateCw => self.rotate_cw,
            TetrisKey::RotateCcw => self.rotate_ccw,
            TetrisKey::SonicDrop => Some(self.soft_drop),
            TetrisKey::HardDrop => Some(self.hard_drop),
        }
    }

    /// A script as the crate's key move, or the first key the game lacks.
    pub fn to_move(&self, s: &Script) -> Result<Move, TetrisKey> {
        s.keys()
            .iter()
            .map(|&k| self.key(k).ok_or(k))
            .collect::<Result<Vec<_>, _>>()
            .map(Move::Keys)
    }
}

/// What the player may do with a piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveRules {
    /// A counter-clockwise rotation key exists.
    pub ccw: bool,
    /// Also placements that need a drop and then a slide or a rotation.
    pub slides: bool,
}

impl Default for MoveRules {
    fn default() -> Self {
        MoveRules {
            ccw: true,
            slides: false,
        }
    }
}

/// One way to put a piece down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Placement {
    pub piece: Piece,
    /// Rotation state index in the rotation system (0 = spawn state).
    pub rotation: u8,
    /// Box left column of the state (may be negative).
    pub x: i8,
    /// Leftmost column the piece fills.
    pub column: u8,
    /// Landing row: the row of the piece's lowest cell, from the bottom (0).
    pub row: u8,
    /// The keys that reach it from spawn, ending with `HardDrop`.
    pub script: Script,
}

impl Placement {
    /// The filled cells as `(column, row from the bottom)`.
    pub fn cells(&self, shapes: &Shapes) -> [(usize, usize); 4] {
        let st = &shapes.of(self.piece)[self.rotation as usize];
        let mut out = [(0, 0); 4];
        for (o, (dx, dy)) in out.iter_mut().zip(st.cells()) {
            *o = (
                self.column as usize + dx as usize,
                self.row as usize + dy as usize,
            );
        }
        out
    }
}

/// A placement reachable on an empty field (per piece, per size).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Free {
    pub(crate) state: u8,
    pub(crate) bx: i8,
    pub(crate) x: u8,
    pub(crate) script: Script,
}

/// The move generator for one rotation system, field size and rules.
#[derive(Debug, Clone)]
pub struct MoveGen {
    pub shapes: Shapes,
    pub rules: MoveRules,
    width: usize,
    height: usize,
    /// Per piece: placements on an empty field, sorted by (state, column).
    free: [Vec<Free>; 7],
    /// Per piece: the lowest row any state covers at spawn height.
    spawn_low: [i32; 7],
}

/// Bounds of the box column during a search.
const BX_MIN: i32 = -4;
const BX_SPAN: usize = MAX_WIDTH + 8;

impl MoveGen {
    pub fn new(
        shapes: Shapes,
        rules: MoveRules,
        width: usize,
        height: usize,
    ) -> Result<Self, TetrisError> {
        let empty = Field::new(width, height)?;
        let mut g = MoveGen {
            shapes,
            rules,
            width,
            height,
            free: Default::default(),
            spawn_low: [0; 7],
        };
        for p in Piece::ALL {
            let top = g.shapes.spawn_top(p, height);
            // States that would reach below the floor at spawn height are
            // simply never reachable there.
            g.spawn_low[p.index()] = g
                .shapes
                .of(p)
                .iter()
                .map(|s| top - s.bottom as i32)
                .min()
                .unwrap_or(0)
                .max(0);
            if top >= ROWS as i32 - 4 {
                return Err(TetrisError::BadSize { width, height });
            }
            let mut free = Vec::new();
            for (state, bx, script) in g.top_search(&empty, p) {
                let st = &g.shapes.of(p)[state as usize];
                free.push(Free {
                    state,
                    bx: bx as i8,
                    x: (bx + st.left as i32) as u8,
                    script,
                });
            }
            free.sort_by_key(|f| (f.state, f.x));
            g.free[p.index()] = free;
        }
        Ok(g)
    }

    pub fn width(&self) -> usize {
        self.width
    }

    pub fn height(&self) -> usize {
        self.height
    }

    /// True when the piece cannot appear (its spawn cells are taken): game over.
    pub fn blocked(&self, field: &Field, p: Piece) -> bool {
        let st = &self.shapes.of(p)[0];
        let bx = self.shapes.spawn_x[p.index()];
        let top = self.shapes.spawn_top(p, self.height);
        !field.fits(st, bx + st.left as i32, top - st.bottom as i32)
    }

    /// Every (state, box column) reachable at spawn height, each with its
    /// shortest script (without the final drop), in search order, one per
    /// distinct shape and column.
    fn top_search(&self, field: &Field, p: Piece) -> Vec<(u8, i32, Script)> {
        let top = self.shapes.spawn_top(p, self.height);
        self.search_at(field, p, 0, self.shapes.spawn_x[p.index()], top)
    }

    /// Like [`MoveGen::top_search`] from any start `(state, box column)` at
    /// box top row `top`.
    fn search_at(
        &self,
        field: &Field,
        p: Piece,
        s0: usize,
        bx0: i32,
        top: i32,
    ) -> Vec<(u8, i32, Script)> {
        let states = self.shapes.of(p);
        let n = states.len();
        let fits = |s: usize, bx: i32| {
            let st = &states[s];
            field.fits(st, bx + st.left as i32, top - st.bottom as i32)
        };
        let mut out = Vec::new();
        if s0 >= n || bx0 < BX_MIN || bx0 - BX_MIN >= BX_SPAN as i32 || !fits(s0, bx0) {
            return out;
        }
        let mut seen = [[false; BX_SPAN]; 4];
        let mut shape_seen = [[false; MAX_WIDTH]; 4];
        let idx = |bx: i32| (bx - BX_MIN) as usize;
        let mut queue = std::collections::VecDeque::new();
        seen[s0][idx(bx0)] = true;
        queue.push_back((s0, bx0, Script::default()));
        while let Some((s, bx, script)) = queue.pop_front() {
            let st = &states[s];
            let x = (bx + st.left as i32) as usize;
            if !shape_seen[st.shape as usize][x] {
                shape_seen[st.shape as usize][x] = true;
                out.push((s as u8, bx, script));
            }
            let mut next = [None; 4];
            if n > 1 {
                next[0] = Some(((s + 1) % n, bx, TetrisKey::RotateCw));
                if self.rules.ccw {
                    next[1] = Some(((s + n - 1) % n, bx, TetrisKey::RotateCcw));
                }
            }
            next[2] = Some((s, bx - 1, TetrisKey::Left));
            next[3] = Some((s, bx + 1, TetrisKey::Right));
            for (s2, bx2, k) in next.into_iter().flatten() {
                if bx2 < BX_MIN || idx(bx2) >= BX_SPAN || seen[s2][idx(bx2)] || !fits(s2, bx2) {
                    continue;
                }
                seen[s2][idx(bx2)] = true;
                if let Some(sc) = script.with(k) {
                    queue.push_back((s2, bx2, sc));
                }
            }
        }
        out
    }

    /// Every placement of `p` on `field`, into `out` (cleared first). Empty
    /// when the piece cannot appear or nothing fits below the top.
    pub fn placements_into(&self, field: &Field, p: Piece, out: &mut Vec<Placement>) {
        out.clear();
        let states = self.shapes.of(p);
        let h = self.height;
        if field.pile_height() as i32 <= self.spawn_low[p.index()] {
            let heights = field.column_heights();
            for f in &self.free[p.index()] {
                let st = &states[f.state as usize];
                let y = Field::landing_row(st, &heights, f.x as usize);
                if y + st.h as usize > h {
                    continue;
                }
                out.push(self.free_placement(p, f, y));
            }
        } else {
            let top = self.shapes.spawn_top(p, h);
            let found = self.top_search(field, p);
            self.drop_found(field, p, top, found, out);
        }
        if self.rules.slides && !out.is_empty() {
            self.add_slides(field, p, out);
        }
    }

    /// When every placement of `p` on `field` is reachable as on an empty
    /// field (the pile is below the rows the piece turns in, no slides): the
    /// table of them, in [`MoveGen::placements_into`] order, each to be
    /// dropped by the column heights (and skipped when it ends above the
    /// top). The fast path of the search uses it to score placements
    /// without building their scripts.
    #[inline]
    pub(crate) fn free_table(&self, field: &Field, p: Piece) -> Option<&[Free]> {
        if self.rules.slides || field.pile_height() as i32 > self.spawn_low[p.index()] {
            None
        } else {
            Some(&self.free[p.index()])
        }
    }

    /// The placement of a [`MoveGen::free_table`] entry landing at `row`.
    #[inline]
    pub(crate) fn free_placement(&self, p: Piece, f: &Free, row: usize) -> Placement {
        let mut script = f.script;
        script.push(TetrisKey::HardDrop);
        Placement {
            piece: p,
            rotation: f.state,
            x: f.bx,
            column: f.x,
            row: row as u8,
            script,
        }
    }

    /// Every placement of `p` on `field`.
    pub fn placements(&self, field: &Field, p: Piece) -> Vec<Placement> {
        let mut v = Vec::new();
        self.placements_into(field, p, &mut v);
        v
    }

    /// Placements of a piece that is already on screen at `(state, box
    /// column, box top row)` (e.g. after it fell some rows), reached by turns
    /// and moves at that height and a hard drop; scripts start from there.
    /// For resynchronising with a piece that is not at its spawn position.
    pub fn placements_from(
        &self,
        field: &Field,
        p: Piece,
        state: usize,
        bx: i32,
        top: i32,
    ) -> Vec<Placement> {
        let mut out = Vec::new();
        let found = self.search_at(field, p, state, bx, top);
        self.drop_found(field, p, top, found, &mut out);
        out
    }

    /// Hard-drops each `(state, box column, script)` found at box top row
    /// `top` and appends the placements that end inside the field, ordered by
    /// state then column.
    fn drop_found(
        &self,
        field: &Field,
        p: Piece,
        top: i32,
        mut found: Vec<(u8, i32, Script)>,
        out: &mut Vec<Placement>,
    ) {
        let states = self.shapes.of(p);
        found.sort_by_key(|&(s, bx, _)| (s, bx + states[s as usize].left as i32));
        for (s, bx, mut script) in found {
            let st = &states[s as usize];
            let x = bx + st.left as i32;
            let y = field.drop_from(st, x, top - st.bottom as i32);
            if y + st.h as i32 > self.height as i32 {
                continue;
            }
            script.push(TetrisKey::HardDrop);
            out.push(Placement {
                piece: p,
                rotation: s,
                x: bx as i8,
                column: x as u8,
                row: y as u8,
                script,
            });
        }
    }

    /// Adds the resting positions reachable only with a drop followed by more
    /// moves (breadth-first over every position; scripts end with `HardDrop`).
    fn add_slides(&self, field: &Field, p: Piece, out: &mut Vec<Placement>) {
        let states = self.shapes.of(p);
        let n = states.len();
        let h = self.height as i32;
        let top = self.shapes.spawn_top(p, self.height);
        let bx0 = self.shapes.spawn_x[p.index()];
        // Box rows: by = box top row; shape bottom y = by - bottom.
        let fits = |s: usize, bx: i32, by: i32| {
            let st = &states[s];
            field.fits(st, bx + st.left as i32, by - st.bottom as i32)
        };
        let mut done = std::collections::HashSet::new();
        for pl in out.iter() {
            let st = &states[pl.rotation as usize];
            done.insert((st.shape, pl.column as i32, pl.row as i32));
        }
        let key = |s: usize, bx: i32, by: i32| (s, bx, by);
        let mut seen = std::collections::HashSet::new();
        let mut queue = std::collections::VecDeque::new();
        seen.insert(key(0, bx0, top));
        queue.push_back((0usize, bx0, top, Script::default()));
        while let Some((s, bx, by, script)) = queue.pop_front() {
            let st = &states[s];
            let x = bx + st.left as i32;
            let y = by - st.bottom as i32;
            if !fits(s, bx, by - 1) && y + st.h as i32 <= h && done.insert((st.shape, x, y)) {
                if let Some(sc) = script.with(TetrisKey::HardDrop) {
                    out.push(Placement {
                        piece: p,
                        rotation: s as u8,
                        x: bx as i8,
                        column: x as u8,
                        row: y as u8,
                        script: sc,
                    });
                }
            }
            let mut next = [None; 5];
            if n > 1 {
                next[0] = Some(((s + 1) % n, bx, by, TetrisKey::RotateCw));
                if self.rules.ccw {
                    next[1] = Some(((s + n - 1) % n, bx, by, TetrisKey::RotateCcw));
                }
            }
            next[2] = Some((s, bx - 1, by, TetrisKey::Left));
            next[3] = Some((s, bx + 1, by, TetrisKey::Right));
            let mut drop = by;
            while fits(s, bx, drop - 1) {
                drop -= 1;
            }
            if drop != by {
                next[4] = Some((s, bx, drop, TetrisKey::SonicDrop));
            }
            for (s2, bx2, by2, k) in next.into_iter().flatten() {
                if !fits(s2, bx2, by2) || !seen.insert(key(s2, bx2, by2)) {
                    continue;
                }
                if let Some(sc) = script.with(k) {
                    queue.push_back((s2, bx2, by2, sc));
                }
            }
        }
    }

    /// Locks a placement into `field`; returns the rows it cleared (a mask
    /// relative to its landing row). Checks that the piece fits there.
    pub fn apply(&self, field: &mut Field, pl: &Placement) -> Result<u8, TetrisError> {
        let st = self
            .shapes
            .of(pl.piece)
            .get(pl.rotation as usize)
            .ok_or(TetrisError::BadPlacement(*pl))?;
        if pl.row as usize + st.h as usize > self.height
            || !field.fits(st, pl.column as i32, pl.row as i32)
        {
            return Err(TetrisError::BadPlacement(*pl));
        }
        Ok(field.lock(st, pl.column as usize, pl.row as usize))
    }

    /// The compiled state of a placement.
    #[inline]
    pub fn state(&self, pl: &Placement) -> &State {
        &self.shapes.of(pl.piece)[pl.rotation as usize]
    }
}
