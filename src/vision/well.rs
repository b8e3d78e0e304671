//! Reading a falling-block (Tetris) screen: the well, its cells, the preview.
//!
//! A Tetris well is a rectangle of one background colour, `cols` x `rows`
//! square cells, with the stack and the falling piece drawn over it; the
//! colour may be crossed by thin faint grid lines between the cells, or shade
//! smoothly from top to bottom (a gradient: the layout then holds the colour
//! at both ends). The preview ("Next") box is a smaller rectangle of the same
//! background beside it. Nothing here knows a particular game's skin: the
//! background colour is found as the colour whose largest connected region
//! has the well's aspect ratio and walls at its sides, and block colours are
//! only ever "not background" (what colour a piece has is learned by the
//! player, not assumed). A well whose empty cells show a textured picture
//! (KDE's KBlocks, LTris) is not found.
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
    /// The well's empty colour (sRGB); at its top row when it shades.
    pub background: [u8; 3],
    /// The well's empty colour at its bottom row when the well is shaded
    /// top to bottom (a gradient), the rows between in proportion; none for
    /// a well of one colour.
    #[serde(default)]
    pub background_bottom: Option<[u8; 3]>,
}

impl WellLayout {
    /// The well's empty colour at cell row `r`.
    pub fn background_at(&self, r: u32) -> [u8; 3] {
        match self.background_bottom {
            Some(b) if self.rows > 1 => {
                shade_at(self.background, b, r as f32 / (self.rows - 1) as f32)
            }
            _ => self.background,
        }
    }
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

    /// The occupied cells, `(row, col)` in row-major order.
    pub fn blocks(&self) -> Vec<(u32, u32)> {
        (0..self.rows)
            .flat_map(|r| (0..self.cols).map(move |c| (r, c)))
            .filter(|&(r, c)| self.occupied(r, c))
            .collect()
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
    // The empty cells' colour as the top row's would be (each cell's less
    // the well's shade at its row), summed.
    let (mut bg_sum, mut bg_n) = ([0i64; 3], 0u64);
    for r in 0..l.rows {
        let bg = l.background_at(r);
        for c in 0..l.cols {
            let x0 = l.well.x as f32 + c as f32 * cw;
            let y0 = l.well.y as f32 + r as f32 * ch;
            let (frac, mean, (sum, n)) = sample_box_with_background(img, x0, y0, cw, ch, bg);
            if frac <= 0.02 {
                for i in 0..3 {
                    bg_sum[i] += sum[i] as i64 + (l.background[i] as i64 - bg[i] as i64) * n as i64;
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
        background_seen: (bg_n > 0)
            .then(|| [0, 1, 2].map(|i| (bg_sum[i] / bg_n as i64).clamp(0, 255) as u8)),
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
                let moved = [0, 1, 2].map(|i| (bg[i] as u16 + seen[i] as u16).div_ceil(2) as u8);
                // A shaded well's bottom moves as far as its top.
                if let Some(b) = &mut self.layout.background_bottom {
                    *b = [0, 1, 2].map(|i| {
                        (b[i] as i32 + moved[i] as i32 - bg[i] as i32).clamp(0, 255) as u8
                    });
                }
                self.layout.background = moved;
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

/// Blocks of a falling piece.
const PIECE: u32 = 4;

/// Smallest cell of a well, in pixels (a block of one colour, or two, is no
/// well of cells a tenth its width).
const MIN_CELL: f32 = 8.0;

/// Widest line of another colour drawn across a well (grid lines between its
/// cells) that still counts as the well's background, in pixels.
const GRID_LINE: usize = 6;

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

/// Largest channel step between neighbouring pixels of a shaded well (a
/// gradient drawn across it); a block's edge steps further.
const SHADE_STEP: i32 = 6;

/// Largest channel difference of a shaded well's pixels from its seed colour.
const SHADE_SPAN: i32 = 72;

/// Regions of pixels within [`SHADE_SPAN`] of `colour` joined where
/// neighbours differ by [`SHADE_STEP`] or less (a well shaded top to bottom
/// is one region), and each pixel's region (an index into them, or
/// `u32::MAX`).
fn shaded_regions(img: &RgbImage, colour: [u8; 3]) -> (Vec<Region>, Vec<u32>) {
    let w = img.width() as usize;
    let px = |i: usize| img.get_pixel((i % w) as u32, (i / w) as u32).0;
    let near = |i: usize| !differs_by(px(i), colour, SHADE_SPAN);
    flood(img, near, |i, j| {
        near(j) && !differs_by(px(j), px(i), SHADE_STEP)
    })
}

/// The 4-connected regions of 64 pixels or more grown from every pixel
/// `seed` accepts, a neighbour `j` of a pixel `i` joining when `joins(i, j)`;
/// and each pixel's region (an index into them, or `u32::MAX`). Indices are
/// row-major.
fn flood(
    img: &RgbImage,
    seed: impl Fn(usize) -> bool,
    joins: impl Fn(usize, usize) -> bool,
) -> (Vec<Region>, Vec<u32>) {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let mut seen = vec![false; w * h];
    let mut region_of = vec![u32::MAX; w * h];
    let (mut out, mut stack, mut members) = (Vec::new(), Vec::new(), Vec::new());
    for start in 0..w * h {
        if seen[start] || !seed(start) {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        members.clear();
        let mut r = Region {
            area: 0,
            x0: u32::MAX,
            y0: u32::MAX,
            x1: 0,
            y1: 0,
        };
        while let Some(i) = stack.pop() {
            members.push(i);
            let (x, y) = (i % w, i / w);
            r.area += 1;
            r.x0 = r.x0.min(x as u32);
            r.y0 = r.y0.min(y as u32);
            r.x1 = r.x1.max(x as u32 + 1);
            r.y1 = r.y1.max(y as u32 + 1);
            let near = [
                (x > 0).then(|| i - 1),
                (x + 1 < w).then(|| i + 1),
                (y > 0).then(|| i - w),
                (y + 1 < h).then(|| i + w),
            ];
            for j in near.into_iter().flatten() {
                if !seen[j] && joins(i, j) {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        if r.area >= 64 {
            for &i in &members {
                region_of[i] = out.len() as u32;
            }
            out.push(r);
        }
    }
    (out, region_of)
}

/// The colour of a shaded well at its top and bottom cell rows: a line
/// fitted to the mean colour of each cell row's background pixels.
fn shade_ends(
    img: &RgbImage,
    in_well: impl Fn(u32, u32) -> bool,
    well: Region,
    rows: u32,
) -> ([u8; 3], [u8; 3]) {
    let ch = (well.y1 - well.y0) as f32 / rows as f32;
    let mut pts: Vec<(f32, [f32; 3])> = Vec::new();
    for r in 0..rows {
        let (ya, yb) = (
            well.y0 + (r as f32 * ch) as u32,
            (well.y0 + ((r + 1) as f32 * ch) as u32).min(img.height()),
        );
        let (mut n, mut sum) = (0u32, [0f32; 3]);
        for y in ya..yb {
            for x in well.x0..well.x1 {
                if in_well(x, y) {
                    n += 1;
                    let p = img.get_pixel(x, y).0;
                    for i in 0..3 {
                        sum[i] += p[i] as f32;
                    }
                }
            }
        }
        // A row mostly covered by the stack says little.
        if n as f32 >= 0.25 * (yb - ya) as f32 * (well.x1 - well.x0) as f32 {
            pts.push((r as f32, sum.map(|v| v / n as f32)));
        }
    }
    let at = |t: f32| -> [u8; 3] {
        let k = pts.len() as f32;
        if pts.is_empty() {
            return [0; 3];
        }
        let mt = pts.iter().map(|p| p.0).sum::<f32>() / k;
        let stt = pts.iter().map(|p| (p.0 - mt).powi(2)).sum::<f32>();
        [0, 1, 2].map(|i| {
            let mv = pts.iter().map(|p| p.1[i]).sum::<f32>() / k;
            let slope = if stt > 0.0 {
                pts.iter().map(|p| (p.0 - mt) * (p.1[i] - mv)).sum::<f32>() / stt
            } else {
                0.0
            };
            (mv + slope * (t - mt)).round().clamp(0.0, 255.0) as u8
        })
    };
    (at(0.0), at((rows - 1) as f32))
}

impl Region {
    /// "the WxH `kind` at X,Y `what`", for why a region is no well.
    fn described(&self, kind: &str, what: &str) -> String {
        format!(
            "the {}x{} {kind} at {},{} {what}",
            self.x1 - self.x0,
            self.y1 - self.y0,
            self.x0,
            self.y0
        )
    }

    /// The region's box as a rectangle.
    fn rect(&self) -> Rect {
        Rect {
            x: self.x0 as i32,
            y: self.y0 as i32,
            w: self.x1 - self.x0,
            h: self.y1 - self.y0,
        }
    }
}

/// Connected regions (4-neighbour, 64 pixels or more) of a mask of
/// `img`'s size.
fn regions(img: &RgbImage, mask: &[bool]) -> Vec<Region> {
    flood(img, |i| mask[i], |_, j| mask[j]).0
}

/// Shrinks a region's box past edge rows and columns that are mostly not the
/// background itself (a frame a few shades off, an anti-aliased border).
fn trim(img: &RgbImage, r: Region, bg: [u8; 3]) -> Region {
    const EXACT: i32 = 6;
    trim_by(r, |x, y| !differs_by(img.get_pixel(x, y).0, bg, EXACT))
}

/// [`trim`] by what `on` says is the background.
fn trim_by(mut r: Region, on: impl Fn(u32, u32) -> bool) -> Region {
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
    // The best well so far: its region's area, its layout (no preview yet)
    // and the regions of its colour.
    let mut best: Option<(u32, WellLayout, Vec<Region>)> = None;
    let mut why = String::from("no large uniform region");
    let frequent = frequent_colours(img, 6);
    // Grid lines are bridged only when no well is found without (a thin
    // separator line next to a well must not join it), and a well shaded
    // top to bottom is looked for last (smooth steps join a blurred frame
    // too).
    for (pass, &colour) in [Pass::Uniform, Pass::Bridged, Pass::Shaded]
        .into_iter()
        .flat_map(|b| frequent.iter().map(move |c| (b, c)))
    {
        if pass != Pass::Uniform && best.is_some() {
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
        // Per pixel: its region's index (shaded), or 0 for any region of
        // the colour (uniform, bridged; the preview box counts too).
        let (regs, region_of) = match pass {
            Pass::Shaded => shaded_regions(img, colour),
            _ => {
                let mask = background_mask(img, colour, same, pass == Pass::Bridged);
                let regs = regions(img, &mask);
                (
                    regs,
                    mask.iter().map(|&m| if m { 0 } else { u32::MAX }).collect(),
                )
            }
        };
        for (k, r) in regs.iter().enumerate() {
            let k = if pass == Pass::Shaded { k as u32 } else { 0 };
            let in_mask = |x: u32, y: u32| region_of[(y * img.width() + x) as usize] == k;
            let (bw, bh) = ((r.x1 - r.x0) as f32, (r.y1 - r.y0) as f32);
            let fill = r.area as f32 / (bw * bh);
            // The stack may hide the bottom of the well: the region may be
            // shorter than a whole well, never taller.
            let ratio = (bw / bh) / want;
            if fill < 0.5 || !(0.88..=1.5).contains(&ratio) || bw < cols as f32 * MIN_CELL {
                continue;
            }
            if best.as_ref().is_some_and(|b| r.area <= b.0) {
                continue;
            }
            // The seed colour is a bin's mean, which may lie between the
            // well's colour and a frame a few shades off (a brightened
            // capture): trim by the region's own most common colour (a
            // shaded well is trimmed by its shade).
            let colour = match pass {
                Pass::Shaded => colour,
                _ => dominant(img, *r, colour, same),
            };
            let mut well = match pass {
                // Trimmed by the shade fitted over the whole region: a
                // frame whose anti-aliased edge joined the region is off the
                // shade at its row.
                Pass::Shaded => {
                    let (t, b) = shade_ends(img, in_mask, *r, rows);
                    let h = (r.y1 - r.y0).max(1) as f32;
                    trim_by(*r, |x, y| {
                        in_mask(x, y)
                            && !differs_by(
                                img.get_pixel(x, y).0,
                                shade_at(t, b, (y - r.y0) as f32 / h),
                                8,
                            )
                    })
                }
                _ => trim(img, *r, colour),
            };
            // Square cells: the width gives the cell, the top (never covered
            // while the game runs) anchors the rows.
            let cell = (well.x1 - well.x0) as f32 / cols as f32;
            if cell < MIN_CELL {
                continue;
            }
            let full_h = (cell * rows as f32).round() as u32;
            if well.y0 + full_h > img.height() {
                why = format!(
                    "a {cols}-column region {} px wide is too short",
                    well.x1 - well.x0
                );
                continue;
            }
            if well.y1 > well.y0 + full_h + (cell / 2.0) as u32 {
                // More rows show than the well has (a spawn area above it):
                // the floor anchors the rows. The bottom row always has a
                // hole (a full row is cleared), so the region reaches it.
                well.y0 = well.y1 - full_h;
            } else {
                well.y1 = well.y0 + full_h;
            }
            // The top part of a well holds at most the falling piece: it must
            // be nearly all background (a window background with the well as
            // a hole in it is not).
            let top = (well.y1 - well.y0) * 3 / 10;
            let share = |y0: u32, y1: u32| {
                let (n, k) = (y0..y1)
                    .step_by(2)
                    .flat_map(|y| (well.x0..well.x1).step_by(2).map(move |x| (x, y)))
                    .fold((0u32, 0u32), |(n, k), (x, y)| {
                        (n + 1, k + in_mask(x, y) as u32)
                    });
                k as f32 / n.max(1) as f32
            };
            // And the whole well, trimmed and grown to its rows, is still
            // half background at least (a tetromino in the preview, its
            // lower row trimmed to, is not).
            if share(well.y0, well.y1) < 0.5 {
                why = well.described("box", "is mostly not background");
                continue;
            }
            if share(well.y0, well.y0 + top) < 0.85 {
                why = well.described("region", "is not background at the top");
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
            let (top_colour, bottom) = match pass {
                Pass::Shaded => {
                    let (t, b) = shade_ends(img, in_mask, well, rows);
                    (t, Some(b))
                }
                _ => (colour, None),
            };
            let colour_at = |y: u32| match bottom {
                Some(b) => shade_at(
                    top_colour,
                    b,
                    (y - well.y0) as f32 / (well.y1 - well.y0) as f32,
                ),
                None => top_colour,
            };
            let open_side = sides.is_empty()
                || sides.iter().any(|&x| {
                    let same = (well.y0..well.y1.min(img.height()))
                        .filter(|&y| !differs_by(img.get_pixel(x, y).0, colour_at(y), same))
                        .count();
                    same * 2 > (well.y1 - well.y0) as usize
                });
            if open_side {
                why = well.described("region", "has no walls");
                continue;
            }
            // A shade too slight to matter is a uniform well.
            let bottom = bottom.filter(|&b| differs_by(b, top_colour, 8));
            // Read as a well, its top rows hold at most the falling piece
            // (a cluster of same-coloured tiles of a collapse board, cut
            // into cells a fifth of a tile, holds whole rows of "blocks").
            let candidate = WellLayout {
                schema: 1,
                window: img.dimensions(),
                well: well.rect(),
                cols,
                rows,
                preview: None,
                background: top_colour,
                background_bottom: bottom,
            };
            // And a game is on: some block is there (the falling piece at
            // least; a tile of one colour, or two, on another game's board
            // makes an empty "well"), and few cells are in doubt (a piece
            // caught between rows, two).
            let top_rows = rows * 3 / 10;
            let (blocks, blocks_on_top, unsure) =
                read_well(img, &candidate).map_or((0, u32::MAX, u32::MAX), |read| {
                    let blocks = read.blocks();
                    let on_top = blocks.iter().filter(|&&(r, _)| r < top_rows).count();
                    (blocks.len() as u32, on_top as u32, read.unsure.len() as u32)
                });
            let doubt = if blocks == 0 {
                Some("no block".to_string())
            } else if blocks_on_top > PIECE {
                Some(format!("{blocks_on_top} blocks in its top rows"))
            } else if unsure > 2 * PIECE {
                Some(format!("{unsure} cells in doubt"))
            } else {
                None
            };
            if let Some(doubt) = doubt {
                why = well.described("region", &format!("has {doubt}"));
                continue;
            }
            best = Some((r.area, candidate, regs.clone()));
        }
    }
    let Some((_, mut layout, regs)) = best else {
        return Err(VisionError::NoBoard(format!(
            "no {cols}x{rows} well on a {}x{} picture ({why})",
            img.width(),
            img.height()
        )));
    };
    let well = layout.well;
    let cell = well.w as f32 / cols as f32;
    layout.preview = regs
        .iter()
        .filter(|r| r.x0 as i32 != well.x || r.y0 as i32 != well.y)
        .filter(|r| {
            let (bw, bh) = ((r.x1 - r.x0) as f32 / cell, (r.y1 - r.y0) as f32 / cell);
            (2.0..=8.0).contains(&bw) && (2.0..=8.0).contains(&bh)
        })
        .max_by_key(|r| r.area)
        .map(Region::rect);
    Ok(layout)
}

/// Which kind of region [`find_well`] looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// One colour.
    Uniform,
    /// One colour with thin grid lines across it.
    Bridged,
    /// A colour shading smoothly across the well.
    Shaded,
}

/// The colour a fraction `t` of the way from `top` to `bottom`.
fn shade_at(top: [u8; 3], bottom: [u8; 3], t: f32) -> [u8; 3] {
    let t = t.clamp(0.0, 1.0);
    [0, 1, 2].map(|i| (top[i] as f32 + (bottom[i] as f32 - top[i] as f32) * t).round() as u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::sim::scale_brightness;
    use image::Rgb;

    /// The well of [`screen`].
    const WELL: Rect = Rect {
        x: 40,
        y: 30,
        w: 200,
        h: 400,
    };

    /// Paints the `w` x `h` rectangle at (`x`, `y`) in colour `c`.
    fn fill(img: &mut RgbImage, x: u32, y: u32, w: u32, h: u32, c: [u8; 3]) {
        for yy in y..y + h {
            for xx in x..x + w {
                img.put_pixel(xx, yy, Rgb(c));
            }
        }
    }

    /// Paints an orange block in cell (`r`, `c`) of a well of 20 px cells
    /// whose corner is at (40, 30).
    fn block(img: &mut RgbImage, r: u32, c: u32) {
        fill(
            img,
            40 + c * 20 + 1,
            30 + r * 20 + 1,
            18,
            18,
            [230, 120, 30],
        );
    }

    /// A synthetic Tetris screen: grey window, black well at (40, 30) with
    /// 20 px cells, a preview box, blocks at the given cells.
    fn screen(blocks: &[(u32, u32)], preview: &[(u32, u32)]) -> RgbImage {
        let mut img = RgbImage::from_pixel(400, 480, Rgb([48, 48, 48]));
        fill(&mut img, 40, 30, 200, 400, [0, 0, 0]);
        fill(&mut img, 270, 40, 100, 100, [0, 0, 0]);
        for &(r, c) in blocks {
            block(&mut img, r, c);
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
                let got = read.blocks();
                let mut want = blocks.to_vec();
                want.sort();
                assert_eq!(got, want, "{line:?} x{width} ({name})");
                assert!(read.unsure.is_empty(), "{line:?} x{width} ({name})");
            }
        }
    }

    /// A well shaded top to bottom (a gradient of 60 levels, more than a
    /// region of one colour spans) is found, its shade learned at both ends,
    /// and read with each row's own empty colour; the tracker follows it as
    /// the screen dims, both ends together.
    #[test]
    fn a_shaded_well_is_found_and_read_row_by_row() {
        let blocks = [(0, 4), (0, 5), (1, 5), (19, 0), (19, 1), (18, 0), (19, 9)];
        let mut img = screen(&blocks, &[]);
        for y in 30..430u32 {
            let t = (y - 30) as f32 / 400.0;
            let c = [10.0 + 50.0 * t, 10.0 + 30.0 * t, 40.0 + 60.0 * t].map(|v| v as u8);
            for x in 40..240 {
                if img.get_pixel(x, y).0 == [0, 0, 0] {
                    img.put_pixel(x, y, Rgb(c));
                }
            }
        }
        let l = find_well(&img, 10, 20).expect("a shaded well");
        assert_eq!(l.well, WELL);
        let bottom = l.background_bottom.expect("a shade");
        assert!(
            !differs_by(l.background, [11, 11, 41], 4),
            "{:?}",
            l.background
        );
        assert!(!differs_by(bottom, [59, 39, 98], 4), "{bottom:?}");
        let mut tracker = WellTracker::new(l);
        for f in [1.0, 0.97, 0.94, 0.91, 0.88, 0.85] {
            let read = tracker
                .read(&scale_brightness(img.clone(), f))
                .expect("read");
            let got = read.blocks();
            let mut want = blocks.to_vec();
            want.sort();
            assert_eq!(got, want, "at {f}");
            assert!(read.unsure.is_empty(), "at {f}: {:?}", read.unsure);
        }
    }

    /// Two blocks of one colour (a plain skin's, scaled up) make a region of
    /// a well's shape, but no well of cells a tenth their width.
    /// An empty well (no block at all) is no game going on: refused, as the
    /// empty "wells" a tile or two of another game's board make.
    #[test]
    fn an_empty_well_is_refused() {
        let e = find_well(&screen(&[], &[]), 10, 20).expect_err("no block");
        assert!(e.to_string().contains("no block"), "{e}");
        assert!(find_well(&screen(&[(19, 4)], &[]), 10, 20).is_ok());
    }

    /// A well showing two rows more than the game's 20 (a spawn area
    /// above it) is read from its floor up: the bottom rows are the ones
    /// that matter.
    #[test]
    fn a_well_taller_than_its_rows_is_read_from_the_floor() {
        let mut img = RgbImage::from_pixel(400, 520, Rgb([48, 48, 48]));
        fill(&mut img, 40, 30, 200, 440, [0, 0, 0]);
        // Blocks on the floor (the 22nd row shown) and a piece up high.
        for (r, c) in [(21u32, 0u32), (21, 1), (21, 2), (20, 0), (1, 5), (1, 6)] {
            block(&mut img, r, c);
        }
        let l = find_well(&img, 10, 20).expect("well");
        assert_eq!(
            l.well,
            Rect {
                x: 40,
                y: 70,
                w: 200,
                h: 400
            }
        );
        let read = read_well(&img, &l).expect("read");
        let got = read.blocks();
        assert_eq!(got, vec![(18, 0), (19, 0), (19, 1), (19, 2)]);
    }

    #[test]
    fn a_pair_of_blocks_is_no_well() {
        let mut img = RgbImage::from_pixel(300, 300, Rgb([48, 48, 48]));
        fill(&mut img, 100, 100, 70, 140, [250, 250, 250]);
        assert!(find_well(&img, 10, 20).is_err());
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
        assert_eq!(l.well, WELL);
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
        let mut got = read.blocks();
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
        let mut img = screen(&[(19, 0)], &[]);
        fill(&mut img, 40 + 3 * 20, 30 + 5 * 20, 20, 10, [255, 255, 255]);
        let l = find_well(&img, 10, 20).expect("well");
        let read = read_well(&img, &l).expect("read");
        assert_eq!(read.unsure, vec![(5, 3)]);
    }
}
