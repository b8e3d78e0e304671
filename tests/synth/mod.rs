//! Test support: a seeded generator of synthetic game screenshots for the
//! vision reader (pure: the same seed gives the same picture).
//!
//! [`Style::random`] draws a screen layout and a skin: board size 3..=20 a
//! side, non-integer pitch (14..=130 px) and offset, portrait or landscape
//! screen, tiles as squares, rounded squares, circles or gems (octagons with
//! facets), symbols per colour, "enhanced" markers on random tiles, a
//! specular highlight and a top-to-bottom gradient on tiles, gaps or none,
//! the board on a panel or straight on a flat, gradient, textured or
//! checkered background, UI around the board (status bar with text, buttons,
//! text blocks), and then whole-picture damage: brightness and contrast
//! shifted by up to ±25 %, Gaussian blur, resampling by a non-integer
//! factor, JPEG compression, and up to two cells partly covered by a popup.
//!
//! [`render`] draws a board in a style and says which cells were occluded;
//! [`no_board_screens`] draws screens that hold no board (flat, noise,
//! smooth "photo" noise, a page of text, a menu of buttons, a results
//! dialog, a gradient).
//!
//! Board values: colour indices `0..K` and `EMPTY` (the panel shows through).

#![allow(dead_code)]

use gridbot::board::{Board, EMPTY};
use gridbot::rng::SplitMix64;
use gridbot::vision::colour::{delta_e, rgb_to_lab};
use gridbot::vision::draw::{draw_filled_rect_mut, draw_text_mut, text_width};
use image::{imageops, Rgb, RgbImage};

/// The crate's SplitMix64 with the draws the generator needs.
#[derive(Debug, Clone)]
pub struct Rng(SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(SplitMix64::new(seed ^ 0x5851_F42D_4C95_7F2D))
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    /// Uniform in `[a, b)`.
    pub fn f64(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.0.unit()
    }
    /// Uniform in `a..=b`.
    pub fn int(&mut self, a: usize, b: usize) -> usize {
        a + self.0.below(b - a + 1)
    }
    pub fn chance(&mut self, p: f64) -> bool {
        self.f64(0.0, 1.0) < p
    }
    pub fn colour(&mut self) -> [u8; 3] {
        [0, 1, 2].map(|_| self.int(0, 255) as u8)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Square,
    Rounded,
    Circle,
    Gem,
    /// A square turned 45 degrees, corners on the box sides (KDiamond).
    Diamond,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backdrop {
    Flat,
    Gradient,
    Texture,
    /// Cell-aligned light/dark squares behind the tiles (Gweled-like).
    Checker,
}

/// How a synthetic screenshot looks (plain data).
#[derive(Debug, Clone)]
pub struct Style {
    pub width: u32,
    pub height: u32,
    pub rows: usize,
    pub cols: usize,
    /// Tile pitch (tile plus gap) in pixels, before `scale`.
    pub pitch: f64,
    /// Gap between tiles, as a fraction of the pitch.
    pub gap: f64,
    /// Top-left corner of tile (0, 0), before `scale`.
    pub origin: (f64, f64),
    pub shape: Shape,
    /// Tile colours, index 0 first.
    pub palette: Vec<[u8; 3]>,
    /// Symbol radius (fraction of the tile) drawn in each tile, 0 = none.
    pub symbol: f64,
    /// Symbols filled (else outlined).
    pub symbol_filled: bool,
    /// Probability of an "enhanced" marker on a tile.
    pub markers: f64,
    /// Brightness change from a tile's top to its bottom.
    pub shading: f64,
    /// A white specular spot on each tile.
    pub highlight: bool,
    pub backdrop: Backdrop,
    pub background: [u8; 3],
    pub background2: [u8; 3],
    /// The board panel (what empty cells show), if any.
    pub panel: Option<[u8; 3]>,
    /// Status bar, buttons, text blocks.
    pub ui: bool,
    pub brightness: f64,
    pub contrast: f64,
    /// Gaussian blur sigma (0 = none).
    pub blur: f32,
    /// Resampling factor applied to the finished picture (1 = none).
    pub scale: f64,
    /// JPEG quality (None = lossless).
    pub jpeg: Option<u8>,
    /// Cells partly covered by a popup (at most two).
    pub occlude: usize,
}

/// Least ΔE between two tile colours and between a tile colour and what
/// shows behind the tiles.
pub const MIN_COLOUR_DISTANCE: f32 = 32.0;

fn hsv(h: f64, s: f64, v: f64) -> [u8; 3] {
    let c = v * s;
    let hp = (h.rem_euclid(360.0)) / 60.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    [r, g, b].map(|t| ((t + m) * 255.0).round().clamp(0.0, 255.0) as u8)
}

fn far_from(c: [u8; 3], others: &[[u8; 3]], d: f32) -> bool {
    let l = rgb_to_lab(c);
    others.iter().all(|o| delta_e(l, rgb_to_lab(*o)) >= d)
}

impl Style {
    /// A random style for a `rows` x `cols` board of `k` colours.
    pub fn random(rng: &mut Rng, rows: usize, cols: usize, k: usize) -> Style {
        let dark = rng.chance(0.5);
        let background = if dark {
            hsv(rng.f64(0.0, 360.0), rng.f64(0.0, 0.5), rng.f64(0.05, 0.3))
        } else {
            hsv(rng.f64(0.0, 360.0), rng.f64(0.0, 0.3), rng.f64(0.7, 0.95))
        };
        let backdrop = match rng.int(0, 3) {
            0 => Backdrop::Flat,
            1 => Backdrop::Gradient,
            2 => Backdrop::Texture,
            _ => Backdrop::Checker,
        };
        let shade = |c: [u8; 3], f: f64| c.map(|v| (v as f64 * f).clamp(0.0, 255.0) as u8);
        let background2 = match backdrop {
            Backdrop::Gradient => shade(background, rng.f64(0.7, 1.3)),
            Backdrop::Checker => shade(background, rng.f64(0.85, 0.93)),
            _ => background,
        };
        let panel = match backdrop {
            Backdrop::Checker => None,
            _ if rng.chance(0.6) => Some(if dark {
                hsv(rng.f64(0.0, 360.0), rng.f64(0.0, 0.4), rng.f64(0.1, 0.35))
            } else {
                hsv(rng.f64(0.0, 360.0), rng.f64(0.0, 0.2), rng.f64(0.6, 0.9))
            }),
            _ => None,
        };
        // What shows behind the tiles: keep tile colours away from it.
        let mut behind = vec![background, background2];
        behind.extend(panel);
        let mut palette: Vec<[u8; 3]> = Vec::new();
        let mut tries = 0;
        while palette.len() < k && tries < 5000 {
            tries += 1;
            let c = hsv(rng.f64(0.0, 360.0), rng.f64(0.45, 1.0), rng.f64(0.45, 1.0));
            if far_from(c, &palette, MIN_COLOUR_DISTANCE)
                && far_from(c, &behind, MIN_COLOUR_DISTANCE)
            {
                palette.push(c);
            }
        }
        let landscape = rng.chance(0.35);
        // Pitch so that the board fits a screen of at most ~1.1 Mpx.
        let max_side = if landscape {
            (1280.0, 800.0)
        } else {
            (800.0, 1300.0)
        };
        let fit = (max_side.0 * 0.9 / cols as f64).min(max_side.1 * 0.6 / rows as f64);
        let pitch = rng.f64(14.0, fit.clamp(14.5, 130.0));
        let bw = pitch * cols as f64;
        let bh = pitch * rows as f64;
        let width = (bw + rng.f64(0.3, 2.5) * pitch + rng.f64(0.0, 200.0)).ceil() as u32;
        let height = (bh + rng.f64(1.5, 5.0) * pitch + rng.f64(60.0, 400.0)).ceil() as u32;
        let left = rng.f64(
            0.15 * pitch,
            (width as f64 - bw - 0.15 * pitch).max(0.15 * pitch + 1.0),
        );
        let top = rng.f64(0.2, 0.8) * (height as f64 - bh);
        let shape = match rng.int(0, 3) {
            0 => Shape::Square,
            1 => Shape::Rounded,
            2 => Shape::Circle,
            _ => Shape::Gem,
        };
        let gap = match shape {
            Shape::Circle | Shape::Gem => rng.f64(0.0, 0.12),
            _ if rng.chance(0.3) => 0.0,
            _ => rng.f64(0.02, 0.2),
        };
        // Half the gems are diamonds, picked without a draw of their own so
        // every other case stays the one it was.
        let shape = if shape == Shape::Gem && pitch.fract() < 0.5 {
            Shape::Diamond
        } else {
            shape
        };
        Style {
            width,
            height,
            rows,
            cols,
            pitch,
            gap,
            origin: (left, top),
            shape,
            palette,
            symbol: if rng.chance(0.6) {
                rng.f64(0.1, 0.3)
            } else {
                0.0
            },
            symbol_filled: rng.chance(0.5),
            markers: if rng.chance(0.3) { 0.08 } else { 0.0 },
            shading: rng.f64(0.0, 0.25),
            highlight: rng.chance(0.4),
            backdrop,
            background,
            background2,
            panel,
            ui: rng.chance(0.8),
            brightness: rng.f64(0.75, 1.25),
            contrast: rng.f64(0.75, 1.25),
            blur: if rng.chance(0.4) {
                rng.f64(0.4, 1.3) as f32
            } else {
                0.0
            },
            scale: if rng.chance(0.3) {
                rng.f64(0.8, 1.6)
            } else {
                1.0
            },
            jpeg: if rng.chance(0.4) {
                Some(rng.int(55, 95) as u8)
            } else {
                None
            },
            occlude: if rng.chance(0.3) { rng.int(1, 2) } else { 0 },
        }
    }

    /// A phone capture: 1080x1920, a 6x5 board of 6 colours at the bottom,
    /// rounded tiles with symbols, a busy area above (for benches).
    pub fn phone() -> Style {
        let mut rng = Rng::new(7);
        let mut s = Style::random(&mut rng, 5, 6, 6);
        s.width = 1080;
        s.height = 1920;
        s.pitch = 176.0;
        s.gap = 0.04;
        s.origin = (12.0, 1920.0 - 5.0 * 176.0 - 60.0);
        s.shape = Shape::Rounded;
        s.symbol = 0.2;
        s.blur = 0.0;
        s.scale = 1.0;
        s.jpeg = None;
        s.occlude = 0;
        s.ui = true;
        s
    }

    /// A desktop window (1280x720) with a 15x20 board of 4 colours in
    /// 18-pixel circles, and that board (for benches).
    pub fn desktop() -> (Style, Board) {
        let mut rng = Rng::new(5);
        let mut s = Style::random(&mut rng, 15, 20, 4);
        s.width = 1280;
        s.height = 720;
        s.pitch = 18.0;
        s.gap = 0.04;
        s.origin = (400.0, 150.0);
        s.shape = Shape::Circle;
        s.scale = 1.0;
        s.occlude = 0;
        let board = random_board(&mut rng, 15, 20, 4, 0.0);
        (s, board)
    }
}

/// A random board of `k` colours with about `empty` of the cells empty.
pub fn random_board(rng: &mut Rng, rows: usize, cols: usize, k: usize, empty: f64) -> Board {
    let cells = (0..rows * cols)
        .map(|_| {
            if rng.chance(empty) {
                EMPTY
            } else {
                rng.int(0, k - 1) as u8
            }
        })
        .collect();
    Board::from_cells(rows, cols, cells)
}

fn mix(a: [u8; 3], b: [u8; 3], t: f64) -> [u8; 3] {
    let t = t.clamp(0.0, 1.0);
    [0, 1, 2].map(|k| (a[k] as f64 * (1.0 - t) + b[k] as f64 * t).round() as u8)
}

fn scale_colour(c: [u8; 3], f: f64) -> [u8; 3] {
    c.map(|v| (v as f64 * f).round().clamp(0.0, 255.0) as u8)
}

fn hash(x: u32, y: u32, k: u32) -> u32 {
    let mut h =
        x.wrapping_mul(0x9E37_79B1) ^ y.wrapping_mul(0x85EB_CA77) ^ k.wrapping_mul(0xC2B2_AE3D);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2C1B_3C6D);
    h ^= h >> 12;
    h
}

/// Signed distance to a tile outline of half-size `r` (negative inside).
fn tile_sdf(shape: Shape, x: f64, y: f64, r: f64) -> f64 {
    let (ax, ay) = (x.abs(), y.abs());
    let rounded = |corner: f64| {
        let (qx, qy) = (ax - (r - corner), ay - (r - corner));
        qx.max(0.0).hypot(qy.max(0.0)) + qx.max(qy).min(0.0) - corner
    };
    match shape {
        Shape::Square => rounded(0.0),
        Shape::Rounded => rounded(0.25 * r),
        Shape::Circle => x.hypot(y) - r,
        // Octagon: a square with its corners cut.
        Shape::Gem => rounded(0.0).max((ax + ay) * std::f64::consts::FRAC_1_SQRT_2 - 0.92 * r),
        Shape::Diamond => (ax + ay - r) * std::f64::consts::FRAC_1_SQRT_2,
    }
}

/// Signed distance to symbol `kind` of radius `r`.
fn symbol_sdf(kind: usize, x: f64, y: f64, r: f64) -> f64 {
    let (ax, ay) = (x.abs(), y.abs());
    let sdbox = |hx: f64, hy: f64| {
        let (qx, qy) = (ax - hx, ay - hy);
        qx.max(0.0).hypot(qy.max(0.0)) + qx.max(qy).min(0.0)
    };
    match kind % 5 {
        0 => x.hypot(y) - r,
        1 => sdbox(0.8 * r, 0.8 * r),
        2 => (ax + ay - r) * std::f64::consts::FRAC_1_SQRT_2,
        3 => sdbox(r, 0.3 * r).min(sdbox(0.3 * r, r)),
        _ => (ay - 0.3 * r)
            .max(ax - r)
            .min((ax - 0.3 * r).max(ay - r))
            .max(x.hypot(y) - r),
    }
}

fn fill_backdrop(img: &mut RgbImage, style: &Style) {
    let (w, h) = (img.width(), img.height());
    for (x, y, p) in img.enumerate_pixels_mut() {
        let c = match style.backdrop {
            Backdrop::Flat => style.background,
            Backdrop::Gradient => mix(
                style.background,
                style.background2,
                (x as f64 / w as f64 + y as f64 / h as f64) / 2.0,
            ),
            Backdrop::Texture => {
                // Grain (per pixel) and slow waves: no lattice of its own.
                let n = (hash(x, y, 9) % 25) as f64 - 12.0;
                let wave = 8.0 * ((x as f64 * 0.05).sin() + (y as f64 * 0.037).cos());
                style
                    .background
                    .map(|v| (v as f64 + n + wave).clamp(0.0, 255.0) as u8)
            }
            Backdrop::Checker if !inside(style, x, y) => style.background,
            Backdrop::Checker => {
                let (cx, cy) = (
                    ((x as f64 - style.origin.0) / style.pitch).floor() as i64,
                    ((y as f64 - style.origin.1) / style.pitch).floor() as i64,
                );
                if (cx + cy).rem_euclid(2) == 0 {
                    style.background
                } else {
                    style.background2
                }
            }
        };
        *p = Rgb(c);
    }
}

/// True inside the board rectangle (tile extents plus a third of a pitch).
fn inside(style: &Style, x: u32, y: u32) -> bool {
    let m = style.pitch / 3.0;
    let (x, y) = (x as f64, y as f64);
    let (x0, y0) = style.origin;
    x >= x0 - m
        && y >= y0 - m
        && x < x0 + style.cols as f64 * style.pitch + m
        && y < y0 + style.rows as f64 * style.pitch + m
}

fn blend(img: &mut RgbImage, x: i64, y: i64, c: [u8; 3], a: f64) {
    if x < 0 || y < 0 || x >= img.width() as i64 || y >= img.height() as i64 || a <= 0.0 {
        return;
    }
    let p = img.get_pixel_mut(x as u32, y as u32);
    p.0 = mix(p.0, c, a);
}

/// A filled rounded rectangle, anti-aliased.
fn rounded_rect(img: &mut RgbImage, x: f64, y: f64, w: f64, h: f64, corner: f64, c: [u8; 3]) {
    let (cx, cy, hx, hy) = (x + w / 2.0, y + h / 2.0, w / 2.0, h / 2.0);
    let corner = corner.min(hx).min(hy);
    for py in y.floor() as i64..(y + h).ceil() as i64 + 1 {
        for px in x.floor() as i64..(x + w).ceil() as i64 + 1 {
            let (dx, dy) = ((px as f64 + 0.5 - cx).abs(), (py as f64 + 0.5 - cy).abs());
            let (qx, qy) = (dx - (hx - corner), dy - (hy - corner));
            let d = qx.max(0.0).hypot(qy.max(0.0)) + qx.max(qy).min(0.0) - corner;
            blend(img, px, py, c, 0.5 - d);
        }
    }
}

fn draw_tile(
    img: &mut RgbImage,
    style: &Style,
    x0: f64,
    y0: f64,
    size: f64,
    v: usize,
    marker: bool,
) {
    let base = style.palette[v];
    let r = size / 2.0;
    let (cx, cy) = (x0 + r, y0 + r);
    let sym_r = style.symbol * size;
    let sym_colour = if rgb_to_lab(base)[0] > 60.0 {
        scale_colour(base, 0.55)
    } else {
        mix(base, [255, 255, 255], 0.55)
    };
    let stroke = (size * 0.06).max(1.5);
    for py in y0.floor() as i64..(y0 + size).ceil() as i64 + 1 {
        for px in x0.floor() as i64..(x0 + size).ceil() as i64 + 1 {
            let (dx, dy) = (px as f64 + 0.5 - cx, py as f64 + 0.5 - cy);
            let d = tile_sdf(style.shape, dx, dy, r);
            let cover = 0.5 - d;
            if cover <= 0.0 {
                continue;
            }
            let mut c = scale_colour(base, 1.0 + style.shading * (0.5 - (dy + r) / size));
            if matches!(style.shape, Shape::Gem | Shape::Diamond) {
                // Facets: the outer band a little darker, the table lighter.
                if d > -0.18 * size {
                    c = scale_colour(c, 0.88);
                }
            }
            if sym_r > 0.0 {
                let ds = symbol_sdf(v, dx, dy, sym_r);
                let ds = if style.symbol_filled {
                    ds
                } else {
                    ds.abs() - stroke / 2.0
                };
                c = mix(c, sym_colour, 0.5 - ds);
            }
            if marker {
                let ds = symbol_sdf(4, dx, dy, 0.14 * size);
                c = mix(c, [255, 255, 255], 0.5 - ds);
            }
            if style.highlight {
                let hd = (dx + 0.22 * size).hypot(dy + 0.22 * size) - 0.1 * size;
                c = mix(c, [255, 255, 255], 0.6 * (0.5 - hd / 2.0).clamp(0.0, 1.0));
            }
            blend(img, px, py, c, cover);
        }
    }
}

fn draw_ui(img: &mut RgbImage, style: &Style, rng: &mut Rng, board: (f64, f64, f64, f64)) {
    let (w, h) = (img.width() as f64, img.height() as f64);
    let (bx, by, bw, bh) = board;
    let keep = 0.5 * style.pitch;
    let top_room = by - keep;
    let bottom_room = h - (by + bh) - keep;
    let bar_colour = rng.colour();
    let text_colour = if rgb_to_lab(bar_colour)[0] > 55.0 {
        [20, 20, 20]
    } else {
        [240, 240, 240]
    };
    // Status bar.
    if top_room > 30.0 {
        let bar = rng.f64(20.0, top_room.min(90.0));
        draw_filled_rect_mut(img, 0, 0, w as i32, bar as i32, bar_colour);
        let ts = ((bar / 10.0) as i32).max(1);
        draw_text_mut(
            img,
            6,
            (bar as i32 - 5 * ts) / 2,
            ts,
            text_colour,
            "12:34 LEVEL 7",
        );
        let score = "SCORE 004250";
        let sx = w as i32 - text_width(score, ts) - 6;
        draw_text_mut(img, sx, (bar as i32 - 5 * ts) / 2, ts, text_colour, score);
        // A text block under it.
        if top_room - bar > 40.0 {
            let ts = rng.int(2, 4) as i32;
            let lines = ((top_room - bar - 10.0) / (7.0 * ts as f64)).min(4.0) as i32;
            let c = rng.colour();
            for l in 0..lines {
                draw_text_mut(
                    img,
                    10,
                    bar as i32 + 8 + l * 7 * ts,
                    ts,
                    c,
                    "MATCH THREE TO WIN",
                );
            }
        }
    }
    // Buttons along the bottom.
    if bottom_room > 30.0 {
        let bh2 = rng.f64(20.0, bottom_room.min(80.0) - 6.0);
        let y = h - bh2 - rng.f64(3.0, (bottom_room - bh2).max(4.0) - 1.0).max(3.0);
        let n = rng.int(2, 4);
        let bw2 = (w - 20.0) / n as f64 - 10.0;
        let c = rng.colour();
        for i in 0..n {
            let x = 10.0 + i as f64 * (bw2 + 10.0);
            rounded_rect(img, x, y, bw2, bh2, 0.3 * bh2, c);
            let ts = ((bh2 / 12.0) as i32).max(1);
            draw_text_mut(
                img,
                x as i32 + 8,
                (y + bh2 / 2.0) as i32 - 5 * ts / 2,
                ts,
                text_colour,
                "MENU",
            );
        }
    }
    // A side panel when there is room.
    let right_room = w - (bx + bw) - keep;
    if right_room > 60.0 {
        let pw = rng.f64(40.0, right_room - 10.0);
        let c = rng.colour();
        rounded_rect(img, w - pw - 5.0, by, pw, bh.min(200.0), 8.0, c);
        draw_text_mut(img, (w - pw) as i32, by as i32 + 10, 2, text_colour, "NEXT");
    }
}

/// Draws `board` in `style`; returns the picture and the occluded cells.
pub fn render(board: &Board, style: &Style, seed: u64) -> (RgbImage, Vec<(usize, usize)>) {
    let mut rng = Rng::new(seed);
    let mut img = RgbImage::new(style.width, style.height);
    fill_backdrop(&mut img, style);
    let (ox, oy) = style.origin;
    let p = style.pitch;
    let tile = p * (1.0 - style.gap);
    let bw = board.cols() as f64 * p - p * style.gap;
    let bh = board.rows() as f64 * p - p * style.gap;
    if style.ui {
        draw_ui(&mut img, style, &mut rng, (ox, oy, bw, bh));
    }
    if let Some(panel) = style.panel {
        let m = 0.4 * p;
        rounded_rect(
            &mut img,
            ox - m,
            oy - m,
            bw + 2.0 * m,
            bh + 2.0 * m,
            0.3 * p,
            panel,
        );
    }
    for r in 0..board.rows() {
        for c in 0..board.cols() {
            let v = board.get(r, c);
            if (v as usize) < style.palette.len() {
                let marker = rng.chance(style.markers);
                draw_tile(
                    &mut img,
                    style,
                    ox + c as f64 * p,
                    oy + r as f64 * p,
                    tile,
                    v as usize,
                    marker,
                );
            }
        }
    }
    // Popups over up to two cells: a rounded box over a corner of the tile.
    let mut occluded = Vec::new();
    for _ in 0..style.occlude {
        let (r, c) = (rng.int(0, board.rows() - 1), rng.int(0, board.cols() - 1));
        let (x, y) = (ox + c as f64 * p, oy + r as f64 * p);
        let (fx, fy) = (rng.f64(0.45, 0.6), rng.f64(0.45, 0.6));
        let colour = rng.colour();
        rounded_rect(
            &mut img,
            x + tile * (1.0 - fx) - 0.3 * p,
            y - 0.3 * p,
            fx * tile + 0.3 * p,
            fy * tile + 0.3 * p,
            0.1 * p,
            colour,
        );
        occluded.push((r, c));
    }
    // Damage: brightness/contrast, blur, resampling, JPEG.
    let (b, k) = (style.brightness, style.contrast);
    for px in img.pixels_mut() {
        px.0 = px.0.map(|v| {
            (((v as f64 - 128.0) * k + 128.0) * b)
                .round()
                .clamp(0.0, 255.0) as u8
        });
    }
    if style.blur > 0.0 {
        img = imageops::blur(&img, style.blur);
    }
    if (style.scale - 1.0).abs() > 1e-6 {
        let w = (img.width() as f64 * style.scale).round() as u32;
        let h = (img.height() as f64 * style.scale).round() as u32;
        img = imageops::resize(&img, w, h, imageops::FilterType::Triangle);
    }
    if let Some(q) = style.jpeg {
        img = jpeg_round_trip(&img, q);
    }
    (img, occluded)
}

/// A board mostly empty, on a panel (what its empty cells show): half the
/// seeds a collapse game well into play (columns of random heights, the
/// empty ones on the right; read as `samegame`), half pieces scattered
/// over a board (a lines game at its start, 10-40 % of the cells held;
/// read as `generic`). Styles drawn until one has a panel: with none, the
/// empty cells show the screen's backdrop and where the board ends is
/// not drawn at all.
pub fn sparse_case(seed: u64) -> (Board, Style, RgbImage, Vec<(usize, usize)>, &'static str) {
    let mut rng = Rng::new(seed);
    let rows = rng.int(4, 15);
    let cols = rng.int(4, 15);
    let k = rng.int(2, 5);
    let settled = rng.chance(0.5);
    let cells: Vec<u8> = if settled {
        let used = rng.int(2, cols);
        let heights: Vec<usize> = (0..cols)
            .map(|c| {
                if c < used {
                    rng.int(1, (rows / 2).max(1))
                } else {
                    0
                }
            })
            .collect();
        (0..rows * cols)
            .map(|i| {
                let (r, c) = (i / cols, i % cols);
                if r + heights[c] >= rows {
                    rng.int(0, k - 1) as u8
                } else {
                    EMPTY
                }
            })
            .collect()
    } else {
        let held = rng.f64(0.1, 0.4);
        (0..rows * cols)
            .map(|_| {
                if rng.chance(held) {
                    rng.int(0, k - 1) as u8
                } else {
                    EMPTY
                }
            })
            .collect()
    };
    let board = Board::from_cells(rows, cols, cells);
    let mut draw = seed;
    let style = loop {
        let s = Style::random(&mut Rng::new(draw), rows, cols, k);
        if s.panel.is_some() {
            break s;
        }
        draw += 1 << 32;
    };
    let (img, occluded) = render(&board, &style, seed);
    let game = if settled { "samegame" } else { "generic" };
    (board, style, img, occluded, game)
}

/// Encodes as JPEG at quality `q` and decodes again.
pub fn jpeg_round_trip(img: &RgbImage, q: u8) -> RgbImage {
    let mut buf = Vec::new();
    let enc = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut buf, q);
    if img.write_with_encoder(enc).is_err() {
        return img.clone();
    }
    match image::load_from_memory_with_format(&buf, image::ImageFormat::Jpeg) {
        Ok(d) => d.into_rgb8(),
        Err(_) => img.clone(),
    }
}

/// Screens with no board: `(name, picture)`.
pub fn no_board_screens(rng: &mut Rng) -> Vec<(String, RgbImage)> {
    let (w, h) = if rng.chance(0.5) {
        (720, 1280)
    } else {
        (1024, 640)
    };
    let mut out = Vec::new();
    let flat = rng.colour();
    out.push(("flat".into(), RgbImage::from_pixel(w, h, Rgb(flat))));
    let mut s = rng.next_u64() | 1;
    out.push((
        "noise".into(),
        RgbImage::from_fn(w, h, |_, _| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            Rgb([s as u8, (s >> 8) as u8, (s >> 16) as u8])
        }),
    ));
    // Smooth random blobs (photo-like): a sum of random waves per channel.
    let waves: Vec<(f64, f64, f64, usize)> = (0..12)
        .map(|_| {
            (
                rng.f64(-0.03, 0.03),
                rng.f64(-0.03, 0.03),
                rng.f64(0.0, 6.3),
                rng.int(0, 2),
            )
        })
        .collect();
    out.push((
        "photo".into(),
        RgbImage::from_fn(w, h, |x, y| {
            let mut c = [128.0f64; 3];
            for &(fx, fy, ph, ch) in &waves {
                c[ch] += 40.0 * (fx * x as f64 + fy * y as f64 + ph).sin();
            }
            let n = (hash(x, y, 1) % 17) as f64 - 8.0;
            Rgb(c.map(|v| (v + n).clamp(0.0, 255.0) as u8))
        }),
    ));
    // A page of text.
    let mut page = RgbImage::from_pixel(w, h, Rgb([250, 250, 245]));
    let ts = rng.int(2, 4) as i32;
    let mut y = 20;
    while y + 5 * ts < h as i32 - 10 {
        draw_text_mut(
            &mut page,
            12,
            y,
            ts,
            [30, 30, 30],
            "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG 0123456789",
        );
        y += 8 * ts;
    }
    out.push(("text".into(), page));
    // A menu: title and a stack of buttons.
    let bg = rng.colour();
    let mut menu = RgbImage::from_pixel(w, h, Rgb(bg));
    draw_text_mut(&mut menu, 40, 40, 6, [255, 255, 255], "PUZZLE QUEST");
    let bc = rng.colour();
    for i in 0..5 {
        let y = 200.0 + i as f64 * 110.0;
        if y + 80.0 < h as f64 {
            rounded_rect(&mut menu, w as f64 * 0.2, y, w as f64 * 0.6, 80.0, 20.0, bc);
            draw_text_mut(
                &mut menu,
                (w as f64 * 0.25) as i32,
                y as i32 + 25,
                5,
                [20, 20, 20],
                "PLAY",
            );
        }
    }
    out.push(("menu".into(), menu));
    // A results dialog over a dimmed backdrop.
    let mut res = RgbImage::from_pixel(w, h, Rgb(scale_colour(rng.colour(), 0.4)));
    rounded_rect(
        &mut res,
        60.0,
        120.0,
        w as f64 - 120.0,
        400.0,
        30.0,
        [240, 230, 200],
    );
    for i in 0..3 {
        rounded_rect(
            &mut res,
            120.0 + i as f64 * 100.0,
            180.0,
            70.0,
            70.0,
            35.0,
            [250, 200, 40],
        );
    }
    draw_text_mut(&mut res, 100, 300, 5, [60, 40, 20], "STAGE CLEAR");
    draw_text_mut(&mut res, 100, 380, 4, [60, 40, 20], "SCORE 12345");
    out.push(("results".into(), res));
    let (a, b) = (rng.colour(), rng.colour());
    out.push((
        "gradient".into(),
        RgbImage::from_fn(w, h, |x, y| Rgb(mix(a, b, (x + y) as f64 / (w + h) as f64))),
    ));
    out
}
