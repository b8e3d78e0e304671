//! Reading a falling-block (Tetris) screen: the well, its cells, the preview.
//!
//! A Tetris well is a rectangle of one uniform background colour, `cols` x
//! `rows` square cells, with the stack and the falling piece drawn over it. The
//! preview ("Next") box is a smaller rectangle of the same background beside
//! it. Nothing here knows a particular game's skin: the background colour is
//! found as the colour whose largest connected region has the well's aspect
//! ratio, and block colours are only ever "not background" (what colour a
//! piece has is learned by the player, not assumed).
//!
//! Coordinates: window pixels, origin top left. Cells are `(row, col)` with row
//! 0 at the top of the well. A [`WellLayout`] is stored as plain data (serde).

use image::RgbImage;
use serde::{Deserialize, Serialize};

use super::VisionError;
use crate::board::{Board, EMPTY, UNKNOWN};
use crate::platform::Rect;

/// Where the well and the preview box are in a window.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WellLayout {
    /// Schema version of this record.
    pub schema: u32,
    /// Window size the layout was measured on.
    pub window: (u32, u32),
    /// The well's inner rectangle (cell extents), window pixels.
    pub well: Rect,
    pub cols: u32,
    pub rows: u32,
    /// The preview box, when the game shows one.
    pub preview: Option<Rect>,
    /// The well's empty colour (sRGB).
    pub background: [u8; 3],
}

/// A pixel is "not background" when a channel differs by more than this.
const DIFF: i32 = 48;

/// One read of the well.
#[derive(Debug, Clone, PartialEq)]
pub struct WellRead {
    pub cols: u32,
    pub rows: u32,
    /// Row-major; `Some(mean colour)` for an occupied cell.
    pub cells: Vec<Option<[u8; 3]>>,
    /// Cells that were neither clearly empty nor clearly filled (text, a
    /// half-drawn animation): a read with any is not to be acted on.
    pub unsure: Vec<(u32, u32)>,
    /// The mean colour of the background pixels of the clearly empty cells
    /// (`None` when no cell was), what [`WellTracker`] follows.
    pub background_seen: Option<[u8; 3]>,
}

impl WellRead {
    pub fn occupied(&self, r: u32, c: u32) -> bool {
        self.cells[(r * self.cols + c) as usize].is_some()
    }

    /// The well as a board: colour 1 for a block, empty, or unread for an
    /// unsure cell (`gridbot read --game tetris` prints it).
    pub fn board(&self) -> Board {
        let cells = (0..self.rows)
            .flat_map(|r| (0..self.cols).map(move |c| (r, c)))
            .map(|(r, c)| {
                if self.unsure.contains(&(r, c)) {
                    UNKNOWN
                } else if self.occupied(r, c) {
                    1
                } else {
                    EMPTY
                }
            })
            .collect();
        Board::from_cells(self.rows as usize, self.cols as usize, cells)
    }

    /// Rows as bit masks (bit c = column c), row 0 first (top).
    pub fn row_masks(&self) -> Vec<u32> {
        (0..self.rows)
            .map(|r| {
                (0..self.cols)
                    .filter(|&c| self.occupied(r, c))
                    .fold(0u32, |m, c| m | 1 << c)
            })
            .collect()
    }
}

/// Largest channel difference for a pixel to belong to a uniform region.
const SAME: i32 = 20;

fn differs(p: [u8; 3], bg: [u8; 3]) -> bool {
    differs_by(p, bg, DIFF)
}

fn differs_by(p: [u8; 3], bg: [u8; 3], t: i32) -> bool {
    (0..3).any(|i| (p[i] as i32 - bg[i] as i32).abs() > t)
}

/// Fraction of "not background" pixels in the middle half of a box, and their
/// mean colour.
fn sample_box(img: &RgbImage, x0: f32, y0: f32, w: f32, h: f32, bg: [u8; 3]) -> (f32, [u8; 3]) {
    let (frac, mean, _) = sample_box_with_background(img, x0, y0, w, h, bg);
    (frac, mean)
}

/// [`sample_box`], plus the sum and count of the background pixels.
fn sample_box_with_background(
    img: &RgbImage,
    x0: f32,
    y0: f32,
    w: f32,
    h: f32,
    bg: [u8; 3],
) -> (f32, [u8; 3], ([u64; 3], u64)) {
    let (iw, ih) = img.dimensions();
    let xa = (x0 + w * 0.25).round().max(0.0) as u32;
    let xb = ((x0 + w * 0.75).round() as u32).min(iw);
    let ya = (y0 + h * 0.25).round().max(0.0) as u32;
    let yb = ((y0 + h * 0.75).round() as u32).min(ih);
    let (mut n, mut hit) = (0u32, 0u32);
    let mut sum = [0u64; 3];
    let mut bg_sum = [0u64; 3];
    for y in ya..yb {
        for x in xa..xb {
            let p = img.get_pixel(x, y).0;
            n += 1;
            let acc = if differs(p, bg) {
                hit += 1;
                &mut sum
            } else {
                &mut bg_sum
            };
            for i in 0..3 {
                acc[i] += p[i] as u64;
            }
        }
    }
    if n == 0 {
        return (0.0, bg, (bg_sum, 0));
    }
    let mean = if hit == 0 {
        bg
    } else {
        [0, 1, 2].map(|i| (sum[i] / hit as u64) as u8)
    };
    (hit as f32 / n as f32, mean, (bg_sum, (n - hit) as u64))
}

/// Reads every cell of the well.
pub fn read_well(img: &RgbImage, l: &WellLayout) -> Result<WellRead, VisionError> {
    let (iw, ih) = img.dimensions();
    if (iw, ih) != l.window {
        return Err(VisionError::WrongSize {
            found_w: iw,
            found_h: ih,
            want_w: l.window.0,
            want_h: l.window.1,
        });
    }
    let cw = l.well.w as f32 / l.cols as f32;
    let ch = l.well.h as f32 / l.rows as f32;
    let mut cells = Vec::with_capacity((l.cols * l.rows) as usize);
    let mut unsure = Vec::new();
    let (mut bg_sum, mut bg_n) = ([0u64; 3], 0u64);
    for r in 0..l.rows {
        for c in 0..l.cols {
            let x0 = l.well.x as f32 + c as f32 * cw;
            let y0 = l.well.y as f32 + r as f32 * ch;
            let (frac, mean, (sum, n)) =
                sample_box_with_background(img, x0, y0, cw, ch, l.background);
            if frac <= 0.02 {
                for i in 0..3 {
                    bg_sum[i] += sum[i];
                }
                bg_n += n;
            }
            if frac >= 0.85 {
                cells.push(Some(mean));
            } else {
                if frac > 0.15 {
                    unsure.push((r, c));
                }
                cells.push(None);
            }
        }
    }
    Ok(WellRead {
        cols: l.cols,
        rows: l.rows,
        cells,
        unsure,
        background_seen: (bg_n > 0).then(|| [0, 1, 2].map(|i| (bg_sum[i] / bg_n) as u8)),
    })
}

/// Follows a live well: finds it again when the window changes size, and
/// follows the well's background colour as it drifts (a screen dimming or
/// brightening slowly), so "not background" keeps meaning a block. Pure: the
/// caller grabs the pictures.
#[derive(Debug, Clone)]
pub struct WellTracker {
    layout: WellLayout,
    /// Times the well was found again after a size change.
    pub refinds: u32,
}

impl WellTracker {
    pub fn new(layout: WellLayout) -> Self {
        WellTracker { layout, refinds: 0 }
    }

    pub fn layout(&self) -> &WellLayout {
        &self.layout
    }

    /// Reads a picture. A picture of another size is searched for the well
    /// first (an error when none is there). After the read, the background
    /// moves half way to the colour the empty cells showed, when that is near
    /// enough to still be the background (a sudden larger change is left to
    /// the read's unsure cells and the loop's checks).
    pub fn read(&mut self, img: &RgbImage) -> Result<WellRead, VisionError> {
        if img.dimensions() != self.layout.window {
            let l = find_well(img, self.layout.cols, self.layout.rows)?;
            tracing::info!(
                "the window is now {}x{}: well found again at {},{} ({}x{})",
                img.width(),
                img.height(),
                l.well.x,
                l.well.y,
                l.well.w,
                l.well.h
            );
            self.layout = l;
            self.refinds += 1;
        }
        let read = read_well(img, &self.layout)?;
        if let Some(seen) = read.background_seen {
            let bg = self.layout.background;
            if !differs_by(seen, bg, DIFF / 2) {
                self.layout.background =
                    [0, 1, 2].map(|i| (bg[i] as u16 + seen[i] as u16).div_ceil(2) as u8);
            }
        }
        Ok(read)
    }
}

/// The blocks shown in the preview box, as `(row, col)` cells with the top-left
/// block at row 0 / col 0 of their bounding box; `None` when the box is empty or
/// its content is not a tetromino-sized picture.
pub fn read_preview(img: &RgbImage, l: &WellLayout) -> Option<Vec<(u32, u32)>> {
    let p = l.preview?;
    let bg = l.background;
    // Bounding box of the non-background pixels.
    let (mut x0, mut y0, mut x1, mut y1) = (u32::MAX, u32::MAX, 0u32, 0u32);
    let (iw, ih) = img.dimensions();
    for y in p.y.max(0) as u32..((p.y + p.h as i32).max(0) as u32).min(ih) {
        for x in p.x.max(0) as u32..((p.x + p.w as i32).max(0) as u32).min(iw) {
            if differs(img.get_pixel(x, y).0, bg) {
                x0 = x0.min(x);
                y0 = y0.min(y);
                x1 = x1.max(x + 1);
                y1 = y1.max(y + 1);
            }
        }
    }
    if x0 >= x1 || y0 >= y1 {
        return None;
    }
    let (bw, bh) = ((x1 - x0) as f32, (y1 - y0) as f32);
    // A tetromino's box is 4x1, 1x4, 2x2, 3x2 or 2x3 cells: pick the one whose
    // aspect ratio is nearest.
    let shapes = [(4u32, 1u32), (1, 4), (2, 2), (3, 2), (2, 3)];
    let aspect = (bw / bh).ln();
    let &(nc, nr) = shapes.iter().min_by(|a, b| {
        let da = (aspect - (a.0 as f32 / a.1 as f32).ln()).abs();
        let db = (aspect - (b.0 as f32 / b.1 as f32).ln()).abs();
        da.total_cmp(&db)
    })?;
    let (cw, ch) = (bw / nc as f32, bh / nr as f32);
    let mut cells = Vec::new();
    for r in 0..nr {
        for c in 0..nc {
            let (frac, _) = sample_box(
                img,
                x0 as f32 + c as f32 * cw,
                y0 as f32 + r as f32 * ch,
                cw,
                ch,
                bg,
            );
            if frac >= 0.5 {
                cells.push((r, c));
            }
        }
    }
    (cells.len() == 4).then_some(cells)
}

/// A connected region of one colour: pixel count and bounding box.
#[derive(Debug, Clone, Copy)]
struct Region {
    area: u32,
    x0: u32,
    y0: u32,
    x1: u32,
    y1: u32,
}

/// Widest line of another colour drawn across a well (grid lines between its
/// cells) that still counts as the well's background, in pixels.
const GRID_LINE: usize = 3;

/// Largest channel difference of a grid line from the well's colour (a faint
/// line; text and blocks are further off).
const GRID_NEAR: i32 = 80;

/// The pixels within `same` of `colour`, row-major; with `bridge`, the thin
/// faint lines across them (up to [`GRID_LINE`] pixels, between two such
/// pixels in a row or a column, within [`GRID_NEAR`]) counted in: a well
/// drawn with grid lines between its cells is one region, not 200.
fn background_mask(img: &RgbImage, colour: [u8; 3], same: i32, bridge: bool) -> Vec<bool> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let on: Vec<bool> = img
        .pixels()
        .map(|p| !differs_by(p.0, colour, same))
        .collect();
    if !bridge {
        return on;
    }
    let mut mask = on.clone();
    let k = GRID_LINE;
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            if on[i] || differs_by(img.get_pixel(x as u32, y as u32).0, colour, GRID_NEAR) {
                continue;
            }
            let across =
                (1..=k).any(|a| x >= a && on[i - a]) && (1..=k).any(|b| x + b < w && on[i + b]);
            let down = (1..=k).any(|a| y >= a && on[i - a * w])
                && (1..=k).any(|b| y + b < h && on[i + b * w]);
            mask[i] = across || down;
        }
    }
    mask
}

/// Connected regions (4-neighbour) of a mask of `img`'s size.
fn regions(img: &RgbImage, mask: &[bool]) -> Vec<Region> {
    let (w, h) = img.dimensions();
    let mut seen = vec![false; mask.len()];
    let mut out = Vec::new();
    let mut stack = Vec::new();
    for start in 0..mask.len() {
        if !mask[start] || seen[start] {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let mut r = Region {
            area: 0,
            x0: u32::MAX,
            y0: u32::MAX,
            x1: 0,
            y1: 0,
        };
        while let Some(i) = stack.pop() {
            let (x, y) = ((i as u32) % w, (i as u32) / w);
            r.area += 1;
            r.x0 = r.x0.min(x);
            r.y0 = r.y0.min(y);
            r.x1 = r.x1.max(x + 1);
            r.y1 = r.y1.max(y + 1);
            let mut push = |j: usize| {
                if mask[j] && !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            };
            if x > 0 {
                push(i - 1);
            }
            if x + 1 < w {
                push(i + 1);
            }
            if y > 0 {
                push(i - w as usize);
            }
            if y + 1 < h {
                push(i + w as usize);
            }
        }
        if r.area >= 64 {
            out.push(r);
        }
    }
    out
}

/// Shrinks a region's box past edge rows and columns that are mostly not the
/// background itself (a frame a few shades off, an anti-aliased border).
fn trim(img: &RgbImage, mut r: Region, bg: [u8; 3]) -> Region {
    const EXACT: i32 = 6;
    let on = |x: u32, y: u32| !differs_by(img.get_pixel(x, y).0, bg, EXACT);
    let row_ok = |y: u32, r: &Region| {
        (r.x0..r.x1).filter(|&x| on(x, y)).count() * 2 >= (r.x1 - r.x0) as usize
    };
    let col_ok = |x: u32, r: &Region| {
        (r.y0..r.y1).filter(|&y| on(x, y)).count() * 2 >= (r.y1 - r.y0) as usize
    };
    while r.y1 - r.y0 > 2 && !row_ok(r.y0, &r) {
        r.y0 += 1;
    }
    while r.y1 - r.y0 > 2 && !row_ok(r.y1 - 1, &r) {
        r.y1 -= 1;
    }
    while r.x1 - r.x0 > 2 && !col_ok(r.x0, &r) {
        r.x0 += 1;
    }
    while r.x1 - r.x0 > 2 && !col_ok(r.x1 - 1, &r) {
        r.x1 -= 1;
    }
    r
}

/// The most common colour (5 bits a channel, the bin's mean) of the pixels
/// of a region's box within `same` of `colour`.
fn dominant(img: &RgbImage, r: Region, colour: [u8; 3], same: i32) -> [u8; 3] {
    let mut bins = std::collections::HashMap::<u32, (u32, [u64; 3])>::new();
    for y in r.y0..r.y1 {
        for x in r.x0..r.x1 {
            let p = img.get_pixel(x, y).0;
            if differs_by(p, colour, same) {
                continue;
            }
            let key = p.iter().fold(0u32, |k, &v| k << 5 | (v as u32 >> 3));
            let e = bins.entry(key).or_insert((0, [0; 3]));
            e.0 += 1;
            for (acc, &v) in e.1.iter_mut().zip(&p) {
                *acc += v as u64;
            }
        }
    }
    bins.into_iter()
        .max_by_key(|&(k, (n, _))| (n, std::cmp::Reverse(k)))
        .map(|(_, (n, s))| [0, 1, 2].map(|i| (s[i] / n as u64) as u8))
        .unwrap_or(colour)
}

/// The most frequent colours of a picture (4 bits a channel), most frequent first.
fn frequent_colours(img: &RgbImage, k: usize) -> Vec<[u8; 3]> {
    let mut hist = vec![(0u32, [0u64; 3]); 4096];
    for p in img.pixels() {
        let q =
            ((p.0[0] as usize >> 4) << 8) | ((p.0[1] as usize >> 4) << 4) | (p.0[2] as usize >> 4);
        hist[q].0 += 1;
        for i in 0..3 {
            hist[q].1[i] += p.0[i] as u64;
        }
    }
    let mut bins: Vec<(u32, [u64; 3])> = hist.into_iter().filter(|b| b.0 > 0).collect();
    bins.sort_by_key(|b| std::cmp::Reverse(b.0));
    bins.iter()
        .take(k)
        .map(|(n, s)| [0, 1, 2].map(|i| (s[i] / *n as u64) as u8))
        .collect()
}

/// Finds the well (and the preview box) on a screenshot with no calibration.
///
/// The well is the largest uniformly coloured region whose bounding box is
/// `cols` wide and up to `rows` tall in square cells (within 12%; shorter when
/// the stack hides the bottom rows) and at least half filled by that colour
/// (the stack and the falling piece cover the rest). Rows are counted down
/// from its top. The preview box is
/// the largest other region of the same colour between 2 and 8 cells a side.
pub fn find_well(img: &RgbImage, cols: u32, rows: u32) -> Result<WellLayout, VisionError> {
    let want = cols as f32 / rows as f32;
    let mut best: Option<(u32, [u8; 3], Region, Vec<Region>)> = None;
    let mut why = String::from("no large uniform region");
    let frequent = frequent_colours(img, 6);
    // Grid lines are bridged only when no well is found without (a thin
    // separator line next to a well must not join it).
    for (bridge, &colour) in [false, true]
        .into_iter()
        .flat_map(|b| frequent.iter().map(move |c| (b, c)))
    {
        if bridge && best.is_some() {
            break;
        }
        // Within `SAME` of the colour, but not half way to another common
        // colour 12 or more apart (a dimmed capture brings the well's colour
        // near a frame's).
        let same = frequent
            .iter()
            .map(|&o| {
                (0..3)
                    .map(|i| (o[i] as i32 - colour[i] as i32).abs())
                    .max()
                    .unwrap_or(0)
            })
            .filter(|&d| d >= 12)
            .map(|d| d / 2)
            .fold(SAME, i32::min)
            .max(8);
        let mask = background_mask(img, colour, same, bridge);
        let regs = regions(img, &mask);
        for r in &regs {
            let (bw, bh) = ((r.x1 - r.x0) as f32, (r.y1 - r.y0) as f32);
            let fill = r.area as f32 / (bw * bh);
            // The stack may hide the bottom of the well: the region may be
            // shorter than a whole well, never taller.
            let ratio = (bw / bh) / want;
            if fill < 0.5 || !(0.88..=1.5).contains(&ratio) || bw < cols as f32 * 6.0 {
                continue;
            }
            if best.as_ref().is_some_and(|b| r.area <= b.0) {
                continue;
            }
            // The seed colour is a bin's mean, which may lie between the
            // well's colour and a frame a few shades off (a brightened
            // capture): trim by the region's own most common colour.
            let colour = dominant(img, *r, colour, same);
            let mut well = trim(img, *r, colour);
            // Square cells: the width gives the cell, the top (never covered
            // while the game runs) anchors the rows.
            let cell = (well.x1 - well.x0) as f32 / cols as f32;
            let full_h = (cell * rows as f32).round() as u32;
            if well.y0 + full_h > img.height() {
                why = format!(
                    "a {cols}-column region {} px wide is too short",
                    well.x1 - well.x0
                );
                continue;
            }
            well.y1 = well.y0 + full_h;
            // The top part of a well holds at most the falling piece: it must
            // be nearly all background (a window background with the well as
            // a hole in it is not).
            let top = (well.y1 - well.y0) * 3 / 10;
            let share = |y0: u32, y1: u32| {
                let (n, k) = (y0..y1)
                    .step_by(2)
                    .flat_map(|y| (well.x0..well.x1).step_by(2).map(move |x| (x, y)))
                    .fold((0u32, 0u32), |(n, k), (x, y)| {
                        (n + 1, k + mask[(y * img.width() + x) as usize] as u32)
                    });
                k as f32 / n.max(1) as f32
            };
            // And the whole well, trimmed and grown to its rows, is still
            // half background at least (a tetromino in the preview, its
            // lower row trimmed to, is not).
            if share(well.y0, well.y1) < 0.5 {
                why = format!(
                    "the {}x{} box at {},{} is mostly not background",
                    well.x1 - well.x0,
                    well.y1 - well.y0,
                    well.x0,
                    well.y0
                );
                continue;
            }
            if share(well.y0, well.y0 + top) < 0.85 {
                why = format!(
                    "the {}x{} region at {},{} is not background at the top",
                    well.x1 - well.x0,
                    well.y1 - well.y0,
                    well.x0,
                    well.y0
                );
                continue;
            }
            // A well has walls: half a cell outside its sides (past a thin
            // frame a few shades off) the colour is not the well's (a
            // backdrop of that colour round a window is not a well, however
            // the window cuts it).
            let half = ((well.x1 - well.x0) / cols / 2).max(2);
            let sides: Vec<u32> = [well.x0.checked_sub(half), Some(well.x1 + half - 1)]
                .into_iter()
                .flatten()
                .filter(|&x| x < img.width())
                .collect();
            // (A region as wide as the picture has no side to see: open.)
            let open_side = sides.is_empty()
                || sides.iter().any(|&x| {
                    let same = (well.y0..well.y1.min(img.height()))
                        .filter(|&y| !differs_by(img.get_pixel(x, y).0, colour, same))
                        .count();
                    same * 2 > (well.y1 - well.y0) as usize
                });
            if open_side {
                why = format!(
                    "the {}x{} region at {},{} has no walls",
                    well.x1 - well.x0,
                    well.y1 - well.y0,
                    well.x0,
                    well.y0
                );
                continue;
            }
            best = Some((r.area, colour, well, regs.clone()));
        }
    }
    let Some((_, background, well, regs)) = best else {
        return Err(VisionError::NoBoard(format!(
            "no {cols}x{rows} well on a {}x{} picture ({why})",
            img.width(),
            img.height()
        )));
    };
    let cell = (well.x1 - well.x0) as f32 / cols as f32;
    let preview = regs
        .iter()
        .filter(|r| r.x0 != well.x0 || r.y0 != well.y0)
        .filter(|r| {
            let (bw, bh) = ((r.x1 - r.x0) as f32 / cell, (r.y1 - r.y0) as f32 / cell);
            (2.0..=8.0).contains(&bw) && (2.0..=8.0).contains(&bh)
        })
        .max_by_key(|r| r.area)
        .map(|r| Rect {
            x: r.x0 as i32,
            y: r.y0 as i32,
            w: r.x1 - r.x0,
            h: r.y1 - r.y0,
        });
    Ok(WellLayout {
        schema: 1,
        window: img.dimensions(),
        well: Rect {
            x: well.x0 as i32,
            y: well.y0 as i32,
            w: well.x1 - well.x0,
            h: well.y1 - well.y0,
        },
        cols,
        rows,
        preview,
        background,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::sim::scale_brightness;
    use image::Rgb;

    /// A synthetic Tetris screen: grey window, black well at (40, 30) with
    /// 20 px cells, a preview box, blocks at the given cells.
    fn screen(blocks: &[(u32, u32)], preview: &[(u32, u32)]) -> RgbImage {
        let mut img = RgbImage::from_pixel(400, 480, Rgb([48, 48, 48]));
        let fill = |img: &mut RgbImage, x: u32, y: u32, w: u32, h: u32, c: [u8; 3]| {
            for yy in y..y + h {
                for xx in x..x + w {
                    img.put_pixel(xx, yy, Rgb(c));
                }
            }
        };
        fill(&mut img, 40, 30, 200, 400, [0, 0, 0]);
        fill(&mut img, 270, 40, 100, 100, [0, 0, 0]);
        for &(r, c) in blocks {
            fill(
                &mut img,
                40 + c * 20 + 1,
                30 + r * 20 + 1,
                18,
                18,
                [230, 120, 30],
            );
        }
        for &(r, c) in preview {
            fill(
                &mut img,
                290 + c * 16 + 1,
                70 + r * 16 + 1,
                14,
                14,
                [60, 90, 200],
            );
        }
        img
    }

    /// Grid lines between the cells (as many web Tetris games draw them,
    /// 1 or 2 px, a grey near the well's black) leave one well, found and
    /// read as without them; and a backdrop of the well's colour round the
    /// window (a phone's) is not taken for the well: a well has walls.
    #[test]
    fn a_well_with_grid_lines_and_a_dark_backdrop_is_found() {
        let blocks = [(1, 4), (1, 5), (2, 5), (19, 0), (19, 1), (18, 0), (19, 9)];
        for (line, width) in [([40, 40, 40], 1), ([70, 70, 70], 1), ([30, 30, 40], 2)] {
            let mut img = screen(&blocks, &[]);
            for k in 1..20u32 {
                for d in 0..width {
                    for x in 40..240 {
                        if img.get_pixel(x, 30 + k * 20 + d).0 == [0, 0, 0] {
                            img.put_pixel(x, 30 + k * 20 + d, Rgb(line));
                        }
                    }
                    for y in 30..430 {
                        if k < 10 && img.get_pixel(40 + k * 20 + d, y).0 == [0, 0, 0] {
                            img.put_pixel(40 + k * 20 + d, y, Rgb(line));
                        }
                    }
                }
            }
            // On a phone: a dark backdrop above and round the window.
            let mut phone = RgbImage::from_pixel(600, 1300, Rgb([8, 8, 12]));
            image::imageops::overlay(&mut phone, &img, 100, 820);
            for (name, pic, x0, y0) in [("window", &img, 40, 30), ("phone", &phone, 140, 850)] {
                let l = find_well(pic, 10, 20)
                    .unwrap_or_else(|e| panic!("{line:?} x{width} ({name}): {e}"));
                assert_eq!((l.well.x, l.well.y), (x0, y0), "{line:?} x{width} ({name})");
                assert_eq!(
                    (l.well.w, l.well.h),
                    (200, 400),
                    "{line:?} x{width} ({name})"
                );
                let read = read_well(pic, &l).expect("read");
                let got: Vec<(u32, u32)> = (0..20)
                    .flat_map(|r| (0..10).map(move |c| (r, c)))
                    .filter(|&(r, c)| read.occupied(r, c))
                    .collect();
                let mut want = blocks.to_vec();
                want.sort();
                assert_eq!(got, want, "{line:?} x{width} ({name})");
                assert!(read.unsure.is_empty(), "{line:?} x{width} ({name})");
            }
        }
    }

    #[test]
    fn finds_the_well_and_reads_blocks() {
        let blocks = [
            (0, 4),
            (0, 5),
            (1, 4),
            (1, 5),
            (19, 0),
            (19, 1),
            (18, 0),
            (19, 9),
        ];
        let img = screen(&blocks, &[(0, 1), (1, 0), (1, 1), (1, 2)]);
        let l = find_well(&img, 10, 20).expect("well");
        assert_eq!(
            l.well,
            Rect {
                x: 40,
                y: 30,
                w: 200,
                h: 400
            }
        );
        assert_eq!(
            l.preview,
            Some(Rect {
                x: 270,
                y: 40,
                w: 100,
                h: 100
            })
        );
        let read = read_well(&img, &l).expect("read");
        assert!(read.unsure.is_empty());
        let mut got: Vec<(u32, u32)> = (0..20)
            .flat_map(|r| (0..10).map(move |c| (r, c)))
            .filter(|&(r, c)| read.occupied(r, c))
            .collect();
        got.sort();
        let mut want = blocks.to_vec();
        want.sort();
        assert_eq!(got, want);
        assert_eq!(
            read_preview(&img, &l),
            Some(vec![(0, 1), (1, 0), (1, 1), (1, 2)])
        );
    }

    fn occupied(read: &WellRead) -> Vec<(u32, u32)> {
        (0..read.rows)
            .flat_map(|r| (0..read.cols).map(move |c| (r, c)))
            .filter(|&(r, c)| read.occupied(r, c))
            .collect()
    }

    /// A grey well (not black: a brightness change moves it) with the blocks
    /// a darker grey: 60% brightness in 4% steps loses every block with the
    /// background fixed, and none when the tracker follows it.
    #[test]
    fn the_tracker_follows_a_slowly_dimming_well() {
        let mut img = screen(&[(19, 0), (19, 1), (18, 0), (10, 5)], &[]);
        for p in img.pixels_mut() {
            p.0 = match p.0 {
                [0, 0, 0] => [200, 200, 200],
                [230, 120, 30] => [80, 80, 80],
                x => x,
            };
        }
        let l = find_well(&img, 10, 20).expect("well");
        let want = occupied(&read_well(&img, &l).expect("read"));
        assert_eq!(want.len(), 4);
        let mut t = WellTracker::new(l);
        let mut f = 1.0;
        while f > 0.6 {
            f -= 0.04;
            let frame = scale_brightness(img.clone(), f);
            let read = t.read(&frame).expect("read");
            assert_eq!(occupied(&read), want, "at {f:.2}");
            assert!(read.unsure.is_empty(), "at {f:.2}");
        }
        let fixed = read_well(&scale_brightness(img.clone(), f), &l).expect("read");
        assert_ne!(
            occupied(&fixed),
            want,
            "the fixed background should fail at {f:.2}"
        );
        assert_eq!(t.refinds, 0);
    }

    #[test]
    fn the_tracker_finds_the_well_again_in_a_resized_window() {
        let blocks = [(19, 0), (19, 1), (18, 0), (3, 4)];
        let img = screen(&blocks, &[]);
        let l = find_well(&img, 10, 20).expect("well");
        let mut t = WellTracker::new(l);
        // The same picture in a wider window, shifted right and down.
        let mut wide = RgbImage::from_pixel(520, 520, Rgb([48, 48, 48]));
        image::imageops::replace(&mut wide, &img, 70, 25);
        let read = t.read(&wide).expect("read");
        assert_eq!(t.refinds, 1);
        assert_eq!(t.layout().well.x, 110);
        let mut want = blocks.to_vec();
        want.sort();
        assert_eq!(occupied(&read), want);
        // A picture with no well is an error, not a guess.
        let blank = RgbImage::from_pixel(300, 300, Rgb([48, 48, 48]));
        assert!(t.read(&blank).is_err());
    }

    #[test]
    fn a_screen_without_a_well_is_refused() {
        let img = RgbImage::from_fn(300, 300, |x, y| {
            Rgb([(x * 7 % 256) as u8, (y * 13 % 256) as u8, 90])
        });
        let e = find_well(&img, 10, 20).expect_err("no well");
        assert!(e.is_no_board());
    }

    #[test]
    fn a_half_covered_cell_is_unsure() {
        let mut img = screen(&[], &[]);
        for y in 30 + 5 * 20..30 + 5 * 20 + 10 {
            for x in 40 + 3 * 20..40 + 4 * 20 {
                img.put_pixel(x, y, Rgb([255, 255, 255]));
            }
        }
        let l = find_well(&img, 10, 20).expect("well");
        let read = read_well(&img, &l).expect("read");
        assert_eq!(read.unsure, vec![(5, 3)]);
    }
}
