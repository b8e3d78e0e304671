//! A simulated collapse game (SameGame / PopStar / Swell Foop) for running the
//! whole loop without a display.
//!
//! [`Sim`] holds a board, a [`Scoring`] and the score; it draws the window in a
//! Swell Foop-like style ([`render`]: rounded coloured tiles with a small
//! symbol, a dark board background, a light title bar with the score) and
//! hands out two handles sharing its state: [`SimScreen`] (a [`FrameSource`])
//! and [`SimInput`] (an [`InputSink`]). A left press and release inside the
//! same tile clicks that cell: the group is removed with the collapse rules
//! ([`CBoard::remove_group`]); lone cells, gaps and points outside the board do
//! nothing.
//!
//! Coordinates: the window sits at a fixed screen position
//! ([`SIM_WINDOW_X`], [`SIM_WINDOW_Y`]); input events are screen pixels,
//! frames are window pixels plus that rectangle. The board's geometry in the
//! window comes from [`SimStyle`]: tile `(row, col)` has its top-left corner
//! at `(margin + col*cell, header + margin + row*cell)` and is `cell - gap`
//! pixels wide.
//!
//! Behaviour that exercises the loop: with `style.animate`, the first grab
//! after a click shows the group removed but the cells not yet fallen; with
//! `style.hover`, the group under the pointer is drawn brighter (it then reads
//! as `?`, as the real game's highlight does: park the pointer before
//! reading). Everything is deterministic (noise is a hash of the position).
//!
//! Invariants: the board always satisfies the collapse gravity rules (it only
//! changes through `remove_group`); the end-of-game bonus is added once, when
//! no move is left.

use std::sync::{Arc, Mutex, MutexGuard};

use image::{Rgb, RgbImage};

use super::{Frame, FrameSource, InputSink, PlatformError, Rect};
use crate::act::{Button, InputEvent};
use crate::board::{Board, Cell, EMPTY};
use crate::games::collapse::{CBoard, Scoring};
use crate::games::pad::Orbs;
use crate::rng::SplitMix64;
use crate::vision::calibrate::{calibrate, pick_anchors, CalibrateOptions};
use crate::vision::draw::draw_text_mut;
use crate::vision::{Calibration, Grid, Sampling};

/// Screen position of the simulated window's top-left corner.
pub const SIM_WINDOW_X: i32 = 100;
/// Screen position of the simulated window's top-left corner.
pub const SIM_WINDOW_Y: i32 = 80;
/// The simulated screen size.
pub const SIM_SCREEN: (u32, u32) = (1280, 1024);

/// How the simulated window looks (plain data; presets below).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SimStyle {
    /// Tile pitch in pixels (tile size plus gap).
    pub cell: u32,
    /// Gap between neighbouring tiles.
    pub gap: u32,
    /// Corner radius as a fraction of the tile size.
    pub corner: f32,
    /// Space between the board and the window's left, right and bottom edges
    /// (and between the title bar and the board).
    pub margin: u32,
    /// Height of the title bar above the board.
    pub header: u32,
    /// Board background (what an empty cell shows).
    pub background: [u8; 3],
    /// Title bar colour.
    pub chrome: [u8; 3],
    /// Title bar text colour.
    pub text: [u8; 3],
    /// Tile colours: colour index `i` (1..=9) is `colours[i - 1]`.
    pub colours: Vec<[u8; 3]>,
    /// Symbol radius as a fraction of the tile size (0 = no symbol).
    pub symbol: f32,
    /// Brightness change from a tile's top to its bottom (0 = flat).
    pub shading: f32,
    /// Amplitude of deterministic per-pixel noise (0 = none).
    pub noise: u8,
    /// Draw the group under the pointer brighter.
    pub hover: bool,
    /// After a click, show one frame with the group removed but not fallen.
    pub animate: bool,
    /// The cell value drawn in `colours[0]` (1 for the collapse games, whose
    /// colours are `1..=9`; 0 for orb-drag, whose colours are `0..=7`).
    #[serde(default = "one")]
    pub base: u8,
}

/// Tango-like tile colours, index 1 first.
const COLOURS: [[u8; 3]; 9] = [
    [220, 40, 40],   // 1 red
    [90, 190, 40],   // 2 green
    [50, 100, 210],  // 3 blue
    [240, 200, 30],  // 4 yellow
    [150, 80, 180],  // 5 purple
    [245, 130, 20],  // 6 orange
    [40, 190, 200],  // 7 cyan
    [240, 110, 200], // 8 pink
    [150, 110, 60],  // 9 brown
];

fn one() -> u8 {
    1
}

/// Orb colours of the orb-drag simulator: fire, water, wood, light, dark,
/// heal, jammer, poison (values 0..=7).
const ORBS: [[u8; 3]; 8] = [
    [224, 60, 49],
    [47, 125, 225],
    [60, 184, 74],
    [242, 208, 59],
    [155, 77, 202],
    [240, 124, 192],
    [140, 140, 140],
    [91, 42, 110],
];

impl SimStyle {
    /// Orb-drag: round orbs with a symbol on a dark board, no hover, no
    /// animation; colour values start at 0.
    pub fn pad() -> Self {
        SimStyle {
            cell: 64,
            gap: 4,
            corner: 0.5,
            margin: 10,
            header: 40,
            background: [32, 26, 22],
            chrome: [235, 235, 232],
            text: [40, 40, 40],
            colours: ORBS.to_vec(),
            symbol: 0.22,
            shading: 0.2,
            noise: 2,
            hover: false,
            animate: false,
            base: 0,
        }
    }

    /// Swell Foop-like: 40-pixel tiles, symbols reaching into the sampling
    /// ring, shading, hover highlight and a fall animation frame.
    pub fn swellfoop() -> Self {
        SimStyle {
            cell: 40,
            gap: 3,
            corner: 0.08,
            margin: 8,
            header: 46,
            background: [12, 12, 14],
            chrome: [235, 235, 232],
            text: [40, 40, 40],
            colours: COLOURS.to_vec(),
            symbol: 0.3,
            shading: 0.15,
            noise: 2,
            hover: true,
            animate: true,
            base: 1,
        }
    }

    /// Small tiles, no symbol, no shading, no hover, no animation.
    pub fn plain(cell: u32) -> Self {
        SimStyle {
            cell,
            gap: 1,
            corner: 0.0,
            margin: 4,
            header: 20,
            background: [0, 0, 0],
            chrome: [200, 200, 200],
            text: [0, 0, 0],
            colours: COLOURS.to_vec(),
            symbol: 0.0,
            shading: 0.0,
            noise: 0,
            hover: false,
            animate: false,
            base: 1,
        }
    }

    /// The tile pitch actually used (at least 2 pixels).
    pub fn pitch(&self) -> u32 {
        self.cell.max(2)
    }

    /// The tile size actually used: pitch minus gap, at least 1 pixel.
    pub fn tile(&self) -> u32 {
        self.pitch() - self.gap.min(self.pitch() - 1)
    }

    /// The window size for a board of `rows` x `cols`.
    pub fn window_size(&self, rows: usize, cols: usize) -> (u32, u32) {
        (
            2 * self.margin + (cols.max(1) as u32 - 1) * self.pitch() + self.tile(),
            self.header + 2 * self.margin + (rows.max(1) as u32 - 1) * self.pitch() + self.tile(),
        )
    }

    /// The grid geometry (window pixels).
    pub fn grid(&self) -> Grid {
        Grid {
            left: self.margin as f64,
            top: (self.header + self.margin) as f64,
            cell_width: self.tile() as f64,
            cell_height: self.tile() as f64,
            gap_x: (self.pitch() - self.tile()) as f64,
            gap_y: (self.pitch() - self.tile()) as f64,
        }
    }

    fn colour(&self, v: u8) -> Option<[u8; 3]> {
        if v < self.base || v > self.base + 8 {
            return None;
        }
        self.colours.get((v - self.base) as usize).copied()
    }
}

impl Default for SimStyle {
    fn default() -> Self {
        SimStyle::swellfoop()
    }
}

/// A deterministic hash of a pixel position (for noise).
fn hash(x: u32, y: u32, k: u32) -> u32 {
    let mut h =
        x.wrapping_mul(0x9E37_79B1) ^ y.wrapping_mul(0x85EB_CA77) ^ k.wrapping_mul(0xC2B2_AE3D);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^= h >> 12;
    h
}

fn mix(a: [u8; 3], b: [u8; 3], t: f32) -> [u8; 3] {
    let t = t.clamp(0.0, 1.0);
    [0, 1, 2].map(|k| (a[k] as f32 * (1.0 - t) + b[k] as f32 * t).round() as u8)
}

fn scale(c: [u8; 3], f: f32) -> [u8; 3] {
    c.map(|v| (v as f32 * f).round().clamp(0.0, 255.0) as u8)
}

/// Signed distance from `(x, y)` (relative to the centre) to the outline of
/// symbol `kind` of radius `r` (negative inside). Shapes after Inigo Quilez's
/// 2D distance functions.
fn symbol_sdf(kind: u8, x: f32, y: f32, r: f32) -> f32 {
    let (ax, ay) = (x.abs(), y.abs());
    let sdbox = |hx: f32, hy: f32| {
        let (qx, qy) = (ax - hx, ay - hy);
        (qx.max(0.0).hypot(qy.max(0.0))) + qx.max(qy).min(0.0)
    };
    match kind % 5 {
        0 => x.hypot(y) - r,
        1 => sdbox(r * 0.8, r * 0.8),
        2 => (ax + ay - r) * std::f32::consts::FRAC_1_SQRT_2,
        3 => {
            // Equilateral triangle pointing up (y grows downwards).
            let k = 3f32.sqrt();
            let (mut px, mut py) = (ax - r, -y + r / k);
            if px + k * py > 0.0 {
                (px, py) = ((px - k * py) / 2.0, (-k * px - py) / 2.0);
            }
            px -= px.clamp(-2.0 * r, 0.0);
            -(px.hypot(py)) * py.signum()
        }
        _ => sdbox(r, r * 0.28).min(sdbox(r * 0.28, r)),
    }
}

/// One tile to draw: top-left corner, size, value and colour.
struct Tile {
    x0: u32,
    y0: u32,
    size: u32,
    v: u8,
    base: [u8; 3],
    bright: bool,
}

/// Draws one tile.
fn draw_tile(img: &mut RgbImage, tile: &Tile, style: &SimStyle) {
    let Tile {
        x0,
        y0,
        size,
        v,
        base,
        bright,
    } = *tile;
    let s = size as f32;
    let half = s / 2.0;
    let radius = (style.corner * s).max(0.0);
    let stroke = (s * 0.07).max(1.5);
    let sym_r = style.symbol * s;
    let sym_colour = scale(base, 0.62);
    for ty in 0..size {
        for tx in 0..size {
            let (px, py) = (tx as f32 + 0.5 - half, ty as f32 + 0.5 - half);
            // Rounded-rectangle coverage (anti-aliased by one pixel).
            let (qx, qy) = (px.abs() - (half - radius), py.abs() - (half - radius));
            let d = qx.max(0.0).hypot(qy.max(0.0)) + qx.max(qy).min(0.0) - radius;
            let cover = (0.5 - d).clamp(0.0, 1.0);
            if cover <= 0.0 {
                continue;
            }
            let shade = 1.0 + style.shading * (0.5 - (ty as f32 + 0.5) / s);
            let mut c = scale(base, shade);
            if sym_r > 0.0 {
                let ds = symbol_sdf(v, px, py, sym_r).abs() - stroke / 2.0;
                let a = (0.5 - ds).clamp(0.0, 1.0);
                if a > 0.0 {
                    c = mix(c, sym_colour, a);
                }
            }
            if bright {
                c = mix(c, [255, 255, 255], 0.45);
            }
            let (x, y) = (x0 + tx, y0 + ty);
            if x < img.width() && y < img.height() {
                let bg = img.get_pixel(x, y).0;
                img.put_pixel(x, y, Rgb(mix(bg, c, cover)));
            }
        }
    }
}

/// What is drawn besides the board.
#[derive(Debug, Clone, Default)]
struct Extras {
    score: i64,
    /// Cells drawn brighter (the hovered group).
    bright: Vec<Cell>,
}

fn render_with(board: &Board, style: &SimStyle, extras: &Extras) -> RgbImage {
    let (w, h) = style.window_size(board.rows(), board.cols());
    let mut img = RgbImage::from_pixel(w, h, Rgb(style.background));
    for y in 0..style.header.min(h) {
        for x in 0..w {
            img.put_pixel(x, y, Rgb(style.chrome));
        }
    }
    let ts = ((style.header / 12).max(1)) as i32;
    let ty = (style.header as i32 - 5 * ts) / 2;
    draw_text_mut(&mut img, 2 * ts, ty, ts, style.text, "GRIDBOT SIM");
    let score = format!("SCORE {}", extras.score);
    let sx = w as i32 - crate::vision::draw::text_width(&score, ts) - 2 * ts;
    draw_text_mut(&mut img, sx, ty, ts, style.text, &score);
    let size = style.tile();
    for r in 0..board.rows() {
        for c in 0..board.cols() {
            let v = board.get(r, c);
            let Some(base) = style.colour(v) else {
                continue;
            };
            let x0 = style.margin + c as u32 * style.pitch();
            let y0 = style.header + style.margin + r as u32 * style.pitch();
            let bright = extras.bright.contains(&Cell::new(r, c));
            let tile = Tile {
                x0,
                y0,
                size,
                v,
                base,
                bright,
            };
            draw_tile(&mut img, &tile, style);
        }
    }
    if style.noise > 0 {
        let n = style.noise as i32;
        for (x, y, p) in img.enumerate_pixels_mut() {
            for k in 0..3 {
                let d = (hash(x, y, k) % (2 * n as u32 + 1)) as i32 - n;
                p.0[k as usize] = (p.0[k as usize] as i32 + d).clamp(0, 255) as u8;
            }
        }
    }
    img
}

/// Draws the window showing `board` (score 0, nothing hovered). Cells that are
/// empty or hold no style colour show the background.
pub fn render(board: &Board, style: &SimStyle) -> RgbImage {
    render_with(board, style, &Extras::default())
}

/// A full random board with colours `1..=colours` (deterministic in `seed`).
pub fn random_board(rows: usize, cols: usize, colours: u8, seed: u64) -> Board {
    let mut s = seed ^ 0x9E37_79B9_7F4A_7C15;
    let k = colours.clamp(1, 9) as u64;
    let cells = (0..rows * cols)
        .map(|_| {
            // xorshift64*
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            let r = s.wrapping_mul(0x2545_F491_4F6C_DD1D);
            1 + ((r >> 33) % k) as u8
        })
        .collect();
    Board::from_cells(rows, cols, cells)
}

/// The calibration that reads frames drawn in `style` for a `rows` x `cols`
/// board: exact geometry; the palette learned from a reference picture of
/// every style colour and the empty background with the real calibration
/// code; anchors picked from the title bar.
pub fn calibration_for(style: &SimStyle, rows: usize, cols: usize) -> Calibration {
    let game = if style.base == 0 { "pad" } else { "samegame" };
    // Reference: one row per colour pair, plus empty cells.
    let k = style.colours.len().clamp(1, 9);
    let (rr, rc) = (3, k + 1);
    let mut cells = Vec::with_capacity(rr * rc);
    for r in 0..rr {
        for c in 0..rc {
            cells.push(if c == k || (r == 0 && c % 2 == 1) {
                EMPTY
            } else {
                c as u8 + style.base
            });
        }
    }
    // Keep every colour present: row 0 dropped the odd ones, rows 1-2 hold all.
    let reference = Board::from_cells(rr, rc, cells);
    let grid = style.grid();
    let (rw, rh) = style.window_size(rr, rc);
    let ref_img = render(&reference, style);
    let mut opts = CalibrateOptions::new(game, rr, rc);
    opts.board = Some(reference.clone());
    opts.rect = Some((
        grid.left,
        grid.top,
        rc as f64 * grid.pitch_x() - grid.gap_x,
        rr as f64 * grid.pitch_y() - grid.gap_y,
    ));
    opts.gap = grid.gap_x;
    let (sampling, palette) = match calibrate(&ref_img, &opts) {
        Ok((cal, _)) => (cal.sampling, cal.palette),
        Err(e) => {
            // Unreachable for sane styles; fall back to an empty palette-less
            // calibration that refuses everything rather than panicking.
            tracing::error!("sim calibration failed ({rw}x{rh} reference): {e}");
            let palette = crate::vision::Palette {
                threshold: 1.0,
                max_spread: 1.0,
                empty: vec![],
                colours: vec![],
                refuse: vec![],
            };
            (Sampling::rings(), palette)
        }
    };
    let (w, h) = style.window_size(rows, cols);
    let mut cal = Calibration::new(game, rows, cols, (w, h), grid, sampling, palette);
    let frame = render(&Board::new(rows, cols, EMPTY), style);
    cal.anchors = pick_anchors(&frame, &cal, 8);
    cal
}

#[derive(Debug)]
struct State {
    board: Board,
    scoring: Scoring,
    style: SimStyle,
    score: i64,
    moves: usize,
    bonus_given: bool,
    rect: Rect,
    pointer: Option<(i32, i32)>,
    pressed_at: Option<Cell>,
    /// The board shown by the next grab (removed group, not yet fallen).
    pending: Option<Board>,
    grabs: u64,
    /// Orb-drag rules instead of clicks (see [`Sim::new_pad`]).
    pad: Option<PadPlay>,
    /// Brightness factor of every frame (1 = as drawn).
    brightness: f32,
    /// Frames still to be dimmed, and by what factor.
    dim: Option<(u32, f32)>,
    /// Screen changes still to come, by the move count that triggers them.
    schedule: Vec<(usize, ScreenChange)>,
}

/// A change of the simulated screen, for testing how the loop follows a live
/// window (see [`Sim::after_move`]).
#[derive(Debug, Clone, PartialEq)]
pub enum ScreenChange {
    /// Every frame's brightness scaled by this factor from now on (1 = as
    /// drawn; a slow fade is a series of these).
    Brightness(f32),
    /// The next `frames` frames dimmed by `factor` (the enemy's turn, a flash).
    Dim { frames: u32, factor: f32 },
    /// The window laid out again in another style (tile size, margins, title
    /// bar): its size and aspect ratio change, the board stays.
    Restyle(SimStyle),
}

/// The orb-drag side of the simulator: the held orb, the refill generator
/// and what each drag did.
#[derive(Debug)]
struct PadPlay {
    held: Option<Cell>,
    path: Vec<Cell>,
    rng: SplitMix64,
    /// New orbs are colours `0..colours`.
    colours: u8,
    drags: Vec<PadDrag>,
}

/// One drag as the orb-drag simulator saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PadDrag {
    /// The cells the held orb went through, the pick-up cell first.
    pub path: Vec<Cell>,
    /// Combos of the drag's own resolution (with its cascades).
    pub combos: u32,
    /// Combos made by orbs that fell in afterwards.
    pub skyfall: u32,
    /// The board after the drag's resolution, before new orbs fell in.
    pub after: Board,
}

impl State {
    fn grid_cell(&self, x: i32, y: i32) -> Option<Cell> {
        let (wx, wy) = (x - self.rect.x, y - self.rect.y);
        let s = &self.style;
        let (lx, ly) = (wx - s.margin as i32, wy - (s.header + s.margin) as i32);
        if lx < 0 || ly < 0 {
            return None;
        }
        let (p, t) = (s.pitch() as i32, s.tile() as i32);
        let (col, row) = ((lx / p) as usize, (ly / p) as usize);
        let inside = lx % p < t && ly % p < t;
        (inside && row < self.board.rows() && col < self.board.cols())
            .then_some(Cell::new(row, col))
    }

    /// The group (2+ cells) containing `cell` on the current board.
    fn group_of(&self, cell: Cell) -> Vec<Cell> {
        let b = &self.board;
        let colour = b.get(cell.row, cell.col);
        if colour == EMPTY || colour > 9 {
            return Vec::new();
        }
        let mut seen = vec![false; b.rows() * b.cols()];
        let mut stack = vec![cell];
        let mut out = Vec::new();
        seen[cell.row * b.cols() + cell.col] = true;
        while let Some(c) = stack.pop() {
            out.push(c);
            let mut nb = Vec::with_capacity(4);
            if c.row > 0 {
                nb.push(Cell::new(c.row - 1, c.col));
            }
            if c.row + 1 < b.rows() {
                nb.push(Cell::new(c.row + 1, c.col));
            }
            if c.col > 0 {
                nb.push(Cell::new(c.row, c.col - 1));
            }
            if c.col + 1 < b.cols() {
                nb.push(Cell::new(c.row, c.col + 1));
            }
            for n in nb {
                let i = n.row * b.cols() + n.col;
                if !seen[i] && b.get(n.row, n.col) == colour {
                    seen[i] = true;
                    stack.push(n);
                }
            }
        }
        if out.len() < 2 {
            out.clear();
        }
        out
    }

    fn click(&mut self, cell: Cell) {
        let group = self.group_of(cell);
        if group.is_empty() {
            return;
        }
        let Ok(mut cb) = CBoard::<1200>::from_board(&self.board) else {
            tracing::error!("sim board is not a collapse board: {}", self.board);
            return;
        };
        let Some(idx) = cb.index_of(cell) else {
            return;
        };
        let n = cb.remove_group(idx);
        if n < 2 {
            return;
        }
        if self.style.animate {
            let mut mid = self.board.clone();
            for c in &group {
                mid.set(c.row, c.col, EMPTY);
            }
            self.pending = Some(mid);
        }
        self.board = cb.to_board();
        self.score += self.scoring.group_points(n) as i64;
        self.moves += 1;
        self.apply_schedule();
        if !cb.has_move() && !self.bonus_given {
            self.score += self.scoring.end_bonus(cb.remaining()) as i64;
            self.bonus_given = true;
        }
    }

    /// Orb-drag: the pointer moved to window-independent screen `(x, y)`
    /// with an orb held. A cell counts as entered when the pointer comes
    /// within 40% of a pitch of its centre, so a straight diagonal through a
    /// corner never enters the orthogonal neighbours.
    fn pad_move(&mut self, x: i32, y: i32) {
        let Some(pad) = self.pad.as_ref() else {
            return;
        };
        let Some(held) = pad.held else {
            return;
        };
        let s = &self.style;
        let p = s.pitch() as f64;
        let (lx, ly) = (
            (x - self.rect.x) as f64 - s.margin as f64,
            (y - self.rect.y) as f64 - (s.header + s.margin) as f64,
        );
        let half = s.tile() as f64 / 2.0;
        let (col, row) = (((lx - half) / p).round(), ((ly - half) / p).round());
        if col < 0.0 || row < 0.0 {
            return;
        }
        let (dx, dy) = (lx - half - col * p, ly - half - row * p);
        let (row, col) = (row as usize, col as usize);
        if row >= self.board.rows() || col >= self.board.cols() || dx.hypot(dy) > 0.4 * p {
            return;
        }
        let to = Cell::new(row, col);
        if to == held || row.abs_diff(held.row) > 1 || col.abs_diff(held.col) > 1 {
            return;
        }
        let (a, b) = (
            self.board.get(held.row, held.col),
            self.board.get(to.row, to.col),
        );
        self.board.set(held.row, held.col, b);
        self.board.set(to.row, to.col, a);
        if let Some(pad) = self.pad.as_mut() {
            pad.held = Some(to);
            pad.path.push(to);
        }
    }

    /// Orb-drag: the orb is let go: the board resolves, new orbs fall into
    /// the holes (their matches resolve too), combos are scored.
    fn pad_release(&mut self) {
        let Some(pad) = self.pad.as_mut() else {
            return;
        };
        if pad.held.take().is_none() {
            return;
        }
        let path = std::mem::take(&mut pad.path);
        let Some((g, orbs)) = Orbs::from_board(&self.board) else {
            tracing::error!("sim board is not an orb-drag board: {}", self.board);
            return;
        };
        let r = orbs.resolve(&g);
        let combos = r.combos.len() as u32;
        let after = r.after.to_board(&g);
        let mut board = after.clone();
        let mut skyfall = 0;
        // Fill and resolve until nothing matches (a bounded number of times:
        // random orbs could in principle keep matching).
        for _ in 0..100 {
            for r in 0..board.rows() {
                for c in 0..board.cols() {
                    if board.get(r, c) == EMPTY {
                        let v = pad.rng.below(pad.colours.max(1) as usize) as u8;
                        board.set(r, c, v);
                    }
                }
            }
            let Some((g, o)) = Orbs::from_board(&board) else {
                break;
            };
            let r = o.resolve(&g);
            if r.combos.is_empty() {
                break;
            }
            skyfall += r.combos.len() as u32;
            board = r.after.to_board(&g);
        }
        self.score += (combos + skyfall) as i64;
        self.moves += 1;
        pad.drags.push(PadDrag {
            path,
            combos,
            skyfall,
            after,
        });
        self.board = board;
        self.apply_schedule();
    }

    /// Applies the screen changes due at the current move count.
    fn apply_schedule(&mut self) {
        let moves = self.moves;
        let due: Vec<ScreenChange> = self
            .schedule
            .iter()
            .filter(|(m, _)| *m == moves)
            .map(|(_, c)| c.clone())
            .collect();
        self.schedule.retain(|(m, _)| *m != moves);
        for change in due {
            match change {
                ScreenChange::Brightness(f) => self.brightness = f,
                ScreenChange::Dim { frames, factor } => self.dim = Some((frames, factor)),
                ScreenChange::Restyle(style) => {
                    let (w, h) = style.window_size(self.board.rows(), self.board.cols());
                    self.rect.w = w;
                    self.rect.h = h;
                    self.style = style;
                }
            }
        }
    }

    fn frame(&mut self) -> Frame {
        self.grabs += 1;
        let (board, hover) = match self.pending.take() {
            Some(mid) => (mid, Vec::new()),
            None => {
                let hover = match (self.style.hover, self.pointer) {
                    (true, Some((x, y))) => self
                        .grid_cell(x, y)
                        .map(|c| self.group_of(c))
                        .unwrap_or_default(),
                    _ => Vec::new(),
                };
                (self.board.clone(), hover)
            }
        };
        let image = render_with(
            &board,
            &self.style,
            &Extras {
                score: self.score,
                bright: hover,
            },
        );
        let mut factor = self.brightness;
        if let Some((n, f)) = self.dim {
            factor *= f;
            self.dim = (n > 1).then_some((n - 1, f));
        }
        Frame {
            image: scale_brightness(image, factor),
            rect: self.rect,
        }
    }
}

/// Every pixel's RGB scaled by `factor` (1: the picture unchanged).
pub fn scale_brightness(mut img: RgbImage, factor: f32) -> RgbImage {
    if factor != 1.0 {
        for p in img.pixels_mut() {
            for c in p.0.iter_mut() {
                *c = (*c as f32 * factor).round().clamp(0.0, 255.0) as u8;
            }
        }
    }
    img
}

fn lock(s: &Arc<Mutex<State>>) -> MutexGuard<'_, State> {
    // A panic while holding the lock leaves plain data behind: keep going.
    s.lock().unwrap_or_else(|e| e.into_inner())
}

/// A simulated collapse game. Cloning shares the same game.
#[derive(Debug, Clone)]
pub struct Sim {
    state: Arc<Mutex<State>>,
}

/// The simulator's screen: grabs render the current window.
#[derive(Debug, Clone)]
pub struct SimScreen {
    state: Arc<Mutex<State>>,
}

/// The simulator's input: clicks play the game.
#[derive(Debug, Clone)]
pub struct SimInput {
    state: Arc<Mutex<State>>,
}

impl Sim {
    /// A game starting from `board` (which must satisfy the collapse gravity
    /// rules to be playable; clicks on an invalid board do nothing).
    pub fn new(scoring: Scoring, board: Board, style: SimStyle) -> Sim {
        let (w, h) = style.window_size(board.rows(), board.cols());
        let rect = Rect {
            x: SIM_WINDOW_X,
            y: SIM_WINDOW_Y,
            w,
            h,
        };
        Sim {
            state: Arc::new(Mutex::new(State {
                board,
                scoring,
                style,
                score: 0,
                moves: 0,
                bonus_given: false,
                rect,
                pointer: None,
                pressed_at: None,
                pending: None,
                grabs: 0,
                pad: None,
                brightness: 1.0,
                dim: None,
                schedule: Vec::new(),
            })),
        }
    }

    /// An orb-drag game starting from `board` (colours `0..colours`, drawn
    /// with [`SimStyle::pad`] colours when `style` is that): press on an orb,
    /// move through cell centres (diagonals too), release; new orbs from
    /// `seed` fall into the holes. The score counts combos.
    pub fn new_pad(board: Board, style: SimStyle, colours: u8, seed: u64) -> Sim {
        let sim = Sim::new(Scoring::SameGame, board, style);
        lock(&sim.state).pad = Some(PadPlay {
            held: None,
            path: Vec::new(),
            rng: SplitMix64::new(seed),
            colours,
            drags: Vec::new(),
        });
        sim
    }

    /// Makes `change` happen to the screen right after move number `moves`
    /// (1 = after the first move).
    pub fn after_move(&self, moves: usize, change: ScreenChange) {
        lock(&self.state).schedule.push((moves, change));
    }

    /// Orb-drag: every drag so far, oldest first.
    pub fn pad_drags(&self) -> Vec<PadDrag> {
        lock(&self.state)
            .pad
            .as_ref()
            .map(|p| p.drags.clone())
            .unwrap_or_default()
    }

    /// The frame source handle.
    pub fn screen(&self) -> SimScreen {
        SimScreen {
            state: Arc::clone(&self.state),
        }
    }

    /// The input sink handle.
    pub fn input(&self) -> SimInput {
        SimInput {
            state: Arc::clone(&self.state),
        }
    }

    /// A calibration that reads this simulator's frames.
    pub fn calibration(&self) -> Calibration {
        let s = lock(&self.state);
        calibration_for(&s.style, s.board.rows(), s.board.cols())
    }

    /// The score so far (including the end bonus once the game is over).
    pub fn score(&self) -> i64 {
        lock(&self.state).score
    }

    /// The current board (after gravity; what a settled frame shows).
    pub fn board(&self) -> Board {
        lock(&self.state).board.clone()
    }

    /// Moves played.
    pub fn moves(&self) -> usize {
        lock(&self.state).moves
    }

    /// Frames grabbed so far.
    pub fn grabs(&self) -> u64 {
        lock(&self.state).grabs
    }

    /// The window's screen rectangle.
    pub fn window_rect(&self) -> Rect {
        lock(&self.state).rect
    }

    /// True when no group of 2+ is left (never for orb-drag: new orbs come).
    pub fn is_over(&self) -> bool {
        if lock(&self.state).pad.is_some() {
            return false;
        }
        let b = self.board();
        CBoard::<1200>::from_board(&b)
            .map(|cb| !cb.has_move())
            .unwrap_or(true)
    }
}

impl FrameSource for SimScreen {
    fn grab(&mut self) -> Result<Frame, PlatformError> {
        Ok(lock(&self.state).frame())
    }
}

impl InputSink for SimInput {
    fn send(&mut self, ev: &InputEvent) -> Result<(), PlatformError> {
        let mut s = lock(&self.state);
        match *ev {
            InputEvent::MoveTo { x, y } => {
                s.pointer = Some((x, y));
                s.pad_move(x, y);
            }
            InputEvent::Press(Button::Left) => {
                s.pressed_at = s.pointer.and_then(|(x, y)| s.grid_cell(x, y));
                let at = s.pressed_at;
                if let Some(pad) = s.pad.as_mut() {
                    pad.held = at;
                    pad.path = at.into_iter().collect();
                }
            }
            InputEvent::Release(Button::Left) if s.pad.is_some() => {
                s.pressed_at = None;
                s.pad_release();
            }
            InputEvent::Release(Button::Left) => {
                let at = s.pointer.and_then(|(x, y)| s.grid_cell(x, y));
                if let (Some(a), Some(b)) = (s.pressed_at.take(), at) {
                    if a == b {
                        s.click(a);
                    }
                }
            }
            InputEvent::Press(Button::Right)
            | InputEvent::Release(Button::Right)
            | InputEvent::Tap(_) => {}
        }
        Ok(())
    }

    fn pointer(&mut self) -> Option<(i32, i32)> {
        lock(&self.state).pointer
    }

    fn screen_size(&self) -> Option<(u32, u32)> {
        let r = lock(&self.state).rect;
        let w = SIM_SCREEN.0.max((r.x + r.w as i32 + 20).max(0) as u32);
        let h = SIM_SCREEN.1.max((r.y + r.h as i32 + 20).max(0) as u32);
        Some((w, h))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::read_board;

    fn click(input: &mut SimInput, sim: &Sim, cal: &Calibration, cell: Cell) {
        let (x, y) = cal.cell_centre(cell);
        let r = sim.window_rect();
        let (sx, sy) = (r.x + x as i32, r.y + y as i32);
        for ev in [
            InputEvent::MoveTo { x: sx, y: sy },
            InputEvent::Press(Button::Left),
            InputEvent::Release(Button::Left),
        ] {
            input.send(&ev).expect("sim input never fails");
        }
    }

    #[test]
    fn a_click_removes_the_group_and_scores() {
        let board: Board = "1122/1233/2233".parse().expect("board");
        let sim = Sim::new(Scoring::SameGame, board, SimStyle::swellfoop());
        let cal = sim.calibration();
        let (mut screen, mut input) = (sim.screen(), sim.input());
        let f = screen.grab().expect("grab");
        assert_eq!(f.rect.x, SIM_WINDOW_X);
        assert_eq!(
            read_board(&f.image, &cal).expect("reads").board.to_string(),
            "1122/1233/2233"
        );

        // The 3s: a group of 4 -> (4-2)^2 = 4 points.
        click(&mut input, &sim, &cal, Cell::new(2, 3));
        assert_eq!(sim.board().to_string(), "11../12../2222");
        assert_eq!(sim.score(), 4);
        // First grab: removed, not fallen (pointer hovers the empty cell).
        let mid = screen.grab().expect("grab");
        assert_eq!(
            read_board(&mid.image, &cal)
                .expect("reads")
                .board
                .to_string(),
            "1122/12../22.."
        );
        // Park the pointer away from the board, then the settled board.
        input
            .send(&InputEvent::MoveTo {
                x: SIM_WINDOW_X + 1,
                y: SIM_WINDOW_Y + 1,
            })
            .expect("move");
        let f = screen.grab().expect("grab");
        assert_eq!(
            read_board(&f.image, &cal).expect("reads").board.to_string(),
            "11../12../2222"
        );

        // Empty cells, gaps and outside points do nothing.
        click(&mut input, &sim, &cal, Cell::new(0, 3));
        let r = sim.window_rect();
        for (x, y) in [(r.x + 2, r.y + 2), (r.x + 8 + 40 - 1, r.y + 54 + 45)] {
            input.send(&InputEvent::MoveTo { x, y }).expect("move");
            input.send(&InputEvent::Press(Button::Left)).expect("press");
            input
                .send(&InputEvent::Release(Button::Left))
                .expect("release");
        }
        assert_eq!(sim.moves(), 1);
        assert_eq!(input.pointer(), Some((r.x + 8 + 40 - 1, r.y + 54 + 45)));
    }

    #[test]
    fn hovered_groups_read_as_unknown_not_as_another_colour() {
        let style = SimStyle::swellfoop();
        let board = Board::from_cells(2, 9, (0..18).map(|i| (i % 9) as u8 + 1).collect());
        let sim = Sim::new(Scoring::SameGame, board, style);
        let cal = sim.calibration();
        let (mut screen, mut input) = (sim.screen(), sim.input());
        for col in 0..9 {
            let (x, y) = cal.cell_centre(Cell::new(0, col));
            let r = sim.window_rect();
            input
                .send(&InputEvent::MoveTo {
                    x: r.x + x as i32,
                    y: r.y + y as i32,
                })
                .expect("move");
            let f = screen.grab().expect("grab");
            let cells = crate::vision::read_cells(&f.image, &cal).expect("cells");
            for row in 0..2 {
                let v = cells[row * 9 + col].value;
                assert_eq!(
                    v,
                    crate::board::UNKNOWN,
                    "hovered colour {} read as {v}",
                    col + 1
                );
            }
        }
    }

    #[test]
    fn end_bonus_once() {
        let board: Board = "11/22".parse().expect("board");
        let sim = Sim::new(Scoring::SameGame, board, SimStyle::plain(10));
        let cal = sim.calibration();
        let mut input = sim.input();
        click(&mut input, &sim, &cal, Cell::new(0, 0));
        assert_eq!(sim.score(), 0);
        click(&mut input, &sim, &cal, Cell::new(1, 0));
        assert_eq!(sim.score(), 1000);
        assert!(sim.is_over());
    }

    #[test]
    fn random_boards_are_deterministic() {
        assert_eq!(random_board(3, 4, 3, 7), random_board(3, 4, 3, 7));
        assert_ne!(random_board(3, 4, 3, 7), random_board(3, 4, 3, 8));
        assert!(random_board(5, 5, 3, 1)
            .cells()
            .iter()
            .all(|&v| (1..=3).contains(&v)));
    }
}
