//! Finding the board rectangle in a screenshot, given its rows and columns.
//!
//! Coordinates: window pixels (x right, y down); column `x` of a profile is
//! the pixel column `[x, x+1)`. The result is a [`Grid`] (tile extents and
//! gaps) in the picture's own pixels.
//!
//! Method (for boards of coloured tiles on a dull background, e.g. Swell Foop):
//! 1. a *tile mask*: pixels whose chroma (distance from the grey axis in Lab)
//!    is at least [`LocateParams::min_chroma`];
//! 2. the board's bounding box from the mask's row and column profiles: the
//!    rows/columns holding at least `min_fill` of the best one's mask count,
//!    merged into one cluster across gaps narrower than a tile (so isolated
//!    colourful UI elements do not count), computed rows, columns, rows again;
//!    then grown over neighbouring rows/columns holding a third of a tile of
//!    mask (the sparse top of a half-cleared board) across gaps under a
//!    quarter tile. The box is the extent of *all* tiles: with a known board
//!    that is its filled extent, else the board must be full;
//! 3. the pitch and gap: with `n` tiles across a box of width `W`,
//!    `W = n * pitch - gap`; the gap is the width whose predicted gap columns
//!    have the least mask compared with the tile columns (a matched filter over
//!    the profile); no clear dip means no gap.
//!
//! Tiles that are grey (no chroma) are not found this way: pass the
//! rectangle by hand (`calibrate --rect`).

use image::RgbImage;

use super::colour::{chroma, rgb_to_lab};
use super::layout::Grid;
use super::VisionError;

/// Tunables of the locator (plain data; [`LocateParams::default`] is the preset
/// for Swell Foop-like pictures).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LocateParams {
    /// Chroma (Lab) from which a pixel counts as part of a tile.
    pub min_chroma: f32,
    /// Fraction of the fullest row/column's mask count a row/column needs.
    pub min_fill: f64,
    /// Least contrast (tile fill minus gap fill) for a gap to count as seen.
    pub min_gap_contrast: f64,
}

impl Default for LocateParams {
    fn default() -> Self {
        LocateParams {
            min_chroma: 18.0,
            min_fill: 0.3,
            min_gap_contrast: 0.25,
        }
    }
}

/// Which part of the grid holds tiles in the picture: the first and last
/// filled row and column (inclusive). A full board is `(0, rows-1, 0, cols-1)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    pub row0: usize,
    pub row1: usize,
    pub col0: usize,
    pub col1: usize,
}

impl Extent {
    pub fn full(rows: usize, cols: usize) -> Self {
        Extent {
            row0: 0,
            row1: rows.saturating_sub(1),
            col0: 0,
            col1: cols.saturating_sub(1),
        }
    }
}

/// What the locator measured, for reports.
#[derive(Debug, Clone, PartialEq)]
pub struct Located {
    pub grid: Grid,
    /// The tile mask's bounding box `(x, y, w, h)`.
    pub bbox: (u32, u32, u32, u32),
    /// Fraction of the box's pixels in the mask.
    pub fill: f64,
    /// Gap contrast measured across (x) and down (y).
    pub contrast: (f64, f64),
}

/// The tile mask: `true` where a pixel is colourful enough to be a tile.
pub fn tile_mask(img: &RgbImage, params: &LocateParams) -> Vec<bool> {
    img.pixels()
        .map(|p| chroma(rgb_to_lab(p.0)) >= params.min_chroma)
        .collect()
}

/// Indices `i` where `profile[i] >= thresh`, grouped into runs, then merged
/// into clusters across gaps narrower than the median run length; returns the
/// cluster with the most mass as `(first, last)` inclusive.
fn main_cluster(profile: &[u32], thresh: u32) -> Option<(usize, usize)> {
    main_cluster_runs(profile, thresh).map(|(c, _)| c)
}

/// [`main_cluster`] and the median run length (about one tile).
fn main_cluster_runs(profile: &[u32], thresh: u32) -> Option<((usize, usize), usize)> {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut start = None;
    for (i, &v) in profile.iter().enumerate() {
        match (v >= thresh && v > 0, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                runs.push((s, i - 1));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        runs.push((s, profile.len() - 1));
    }
    if runs.is_empty() {
        return None;
    }
    let mut lens: Vec<usize> = runs.iter().map(|r| r.1 - r.0 + 1).collect();
    lens.sort_unstable();
    let max_gap = lens[lens.len() / 2];
    let mut best: Option<((usize, usize), u64)> = None;
    let mut cur = runs[0];
    let mass = |r: (usize, usize)| profile[r.0..=r.1].iter().map(|&v| v as u64).sum::<u64>();
    for &r in &runs[1..] {
        if r.0 - cur.1 - 1 <= max_gap {
            cur.1 = r.1;
        } else {
            let m = mass(cur);
            if best.is_none_or(|b| m > b.1) {
                best = Some((cur, m));
            }
            cur = r;
        }
    }
    let m = mass(cur);
    if best.is_none_or(|b| m > b.1) {
        best = Some((cur, m));
    }
    best.map(|b| (b.0, max_gap))
}

/// Grows `range` over neighbouring indices with at least `min_count`, across
/// gaps of at most `max_gap` (so sparse rows of tiles next to the dense core,
/// e.g. the top of a half-cleared board, are included).
fn grow(profile: &[u32], range: (usize, usize), min_count: u32, max_gap: usize) -> (usize, usize) {
    let (mut lo, mut hi) = range;
    let mut gap = 0;
    let mut i = lo;
    while i > 0 {
        i -= 1;
        if profile[i] >= min_count {
            lo = i;
            gap = 0;
        } else {
            gap += 1;
            if gap > max_gap {
                break;
            }
        }
    }
    gap = 0;
    for (j, &v) in profile.iter().enumerate().skip(hi + 1) {
        if v >= min_count {
            hi = j;
            gap = 0;
        } else {
            gap += 1;
            if gap > max_gap {
                break;
            }
        }
    }
    (lo, hi)
}

fn row_profile(mask: &[bool], w: usize, xs: (usize, usize), h: usize) -> Vec<u32> {
    (0..h)
        .map(|y| {
            mask[y * w + xs.0..=y * w + xs.1]
                .iter()
                .filter(|&&m| m)
                .count() as u32
        })
        .collect()
}

fn col_profile(mask: &[bool], w: usize, ys: (usize, usize)) -> Vec<u32> {
    let mut p = vec![0u32; w];
    for y in ys.0..=ys.1 {
        for (x, v) in p.iter_mut().enumerate() {
            *v += mask[y * w + x] as u32;
        }
    }
    p
}

/// Fits `n` tiles with gaps over `profile[lo..=hi]` (a fill fraction per
/// pixel column). Returns `(pitch, gap, contrast)`.
fn fit_gaps(profile: &[f64], lo: usize, hi: usize, n: usize, min_contrast: f64) -> (f64, f64, f64) {
    let width = (hi - lo + 1) as f64;
    let no_gap = (width / n as f64, 0.0, 0.0);
    if n < 2 {
        return no_gap;
    }
    let mut best = no_gap;
    let max_gap = width / n as f64 / 3.0;
    let m = hi - lo + 1;
    let mut gap_w = vec![0f64; m];
    let mut g = 1.0;
    while g <= max_gap {
        let pitch = (width + g) / n as f64;
        // Weight of each pixel column inside the predicted gaps
        // [k*pitch - g, k*pitch), k = 1..n-1 (exact overlap, sub-pixel).
        gap_w.iter_mut().for_each(|w| *w = 0.0);
        for k in 1..n {
            let (a, b) = (k as f64 * pitch - g, k as f64 * pitch);
            let first = a.floor().max(0.0) as usize;
            let last = (b.ceil() as usize).min(m);
            for (x, w) in gap_w.iter_mut().enumerate().take(last).skip(first) {
                let overlap = b.min(x as f64 + 1.0) - a.max(x as f64);
                if overlap > 0.0 {
                    *w += overlap;
                }
            }
        }
        let (mut gap_sum, mut gap_n, mut tile_sum, mut tile_n) = (0.0, 0.0, 0.0, 0.0);
        for (w, &v) in gap_w.iter().zip(&profile[lo..=hi]) {
            gap_sum += w * v;
            gap_n += w;
            tile_sum += (1.0 - w) * v;
            tile_n += 1.0 - w;
        }
        if gap_n > 0.0 && tile_n > 0.0 {
            let contrast = tile_sum / tile_n - gap_sum / gap_n;
            if contrast > best.2 + 1e-9 {
                best = (pitch, g, contrast);
            }
        }
        g += 0.25;
    }
    if best.2 < min_contrast {
        (width / n as f64, 0.0, best.2)
    } else {
        best
    }
}

/// Finds the grid of a `rows` x `cols` board whose tiles span `extent`.
pub fn locate_grid(
    img: &RgbImage,
    rows: usize,
    cols: usize,
    extent: Extent,
    params: &LocateParams,
) -> Result<Located, VisionError> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    if w < 2 || h < 2 || rows == 0 || cols == 0 {
        return Err(VisionError::Calibrate(format!(
            "picture {w}x{h} or board {rows}x{cols} is empty"
        )));
    }
    let mask = tile_mask(img, params);
    let total = mask.iter().filter(|&&m| m).count();
    if total < rows * cols {
        return Err(VisionError::Calibrate(format!(
            "only {total} pixels have chroma >= {} (need tiles of colour; pass --rect for grey tiles)",
            params.min_chroma
        )));
    }
    let thresh = |p: &[u32]| {
        let max = p.iter().copied().max().unwrap_or(0);
        ((max as f64 * params.min_fill).ceil() as u32).max(1)
    };
    let no_cluster =
        |what: &str| VisionError::Calibrate(format!("no {what} cluster of tile pixels found"));
    let rp = row_profile(&mask, w, (0, w - 1), h);
    let ys = main_cluster(&rp, thresh(&rp)).ok_or_else(|| no_cluster("row"))?;
    let cp = col_profile(&mask, w, ys);
    let xs = main_cluster(&cp, thresh(&cp)).ok_or_else(|| no_cluster("column"))?;
    let rp = row_profile(&mask, w, xs, h);
    let (ys, tile_h) = main_cluster_runs(&rp, thresh(&rp)).ok_or_else(|| no_cluster("row"))?;
    let cp = col_profile(&mask, w, ys);
    let (xs, tile_w) = main_cluster_runs(&cp, thresh(&cp)).ok_or_else(|| no_cluster("column"))?;
    // Grow over sparse rows/columns of tiles next to the dense core: a row
    // counts with a third of a tile's width of tile pixels.
    let rp = row_profile(&mask, w, xs, h);
    let ys = grow(&rp, ys, (tile_w as u32 / 3).max(2), tile_h / 4);
    let cp = col_profile(&mask, w, ys);
    let xs = grow(&cp, xs, (tile_h as u32 / 3).max(2), tile_w / 4);
    let (bw, bh) = (xs.1 - xs.0 + 1, ys.1 - ys.0 + 1);
    let in_box: usize = (ys.0..=ys.1)
        .map(|y| {
            mask[y * w + xs.0..=y * w + xs.1]
                .iter()
                .filter(|&&m| m)
                .count()
        })
        .sum();
    let fill = in_box as f64 / (bw * bh) as f64;

    let cp: Vec<f64> = col_profile(&mask, w, ys)
        .iter()
        .map(|&v| v as f64 / bh as f64)
        .collect();
    let rp: Vec<f64> = row_profile(&mask, w, xs, h)
        .iter()
        .map(|&v| v as f64 / bw as f64)
        .collect();
    let ncols = extent.col1.saturating_sub(extent.col0) + 1;
    let nrows = extent.row1.saturating_sub(extent.row0) + 1;
    let (px, gx, cx) = fit_gaps(&cp, xs.0, xs.1, ncols, params.min_gap_contrast);
    let (py, gy, cy) = fit_gaps(&rp, ys.0, ys.1, nrows, params.min_gap_contrast);
    let grid = Grid {
        left: xs.0 as f64 - extent.col0 as f64 * px,
        top: ys.0 as f64 - extent.row0 as f64 * py,
        cell_width: px - gx,
        cell_height: py - gy,
        gap_x: gx,
        gap_y: gy,
    };
    let aspect = grid.cell_width / grid.cell_height;
    if !(0.4..=2.5).contains(&aspect) || grid.cell_width < 4.0 || grid.cell_height < 4.0 {
        return Err(VisionError::Calibrate(format!(
            "tile pixels span ({}, {}) {bw}x{bh}, which makes {ncols}x{nrows} tiles of {:.1}x{:.1}: \
             not a plausible grid (check --rows/--cols or pass --rect)",
            xs.0, ys.0, grid.cell_width, grid.cell_height
        )));
    }
    Ok(Located {
        grid,
        bbox: (xs.0 as u32, ys.0 as u32, bw as u32, bh as u32),
        fill,
        contrast: (cx, cy),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    #[test]
    fn finds_a_plain_grid() {
        // 4 cols x 3 rows of 10x10 red tiles, gap 2, at (7, 11), in a grey frame.
        let mut img = RgbImage::from_pixel(80, 60, Rgb([30, 30, 30]));
        for r in 0..3 {
            for c in 0..4 {
                for y in 0..10 {
                    for x in 0..10 {
                        img.put_pixel(7 + c * 12 + x, 11 + r * 12 + y, Rgb([200, 30, 30]));
                    }
                }
            }
        }
        let l =
            locate_grid(&img, 3, 4, Extent::full(3, 4), &LocateParams::default()).expect("found");
        assert_eq!(l.bbox, (7, 11, 46, 34));
        let g = l.grid;
        assert!(
            (g.left - 7.0).abs() < 0.01 && (g.top - 11.0).abs() < 0.01,
            "{g:?}"
        );
        assert!(
            (g.cell_width - 10.0).abs() < 0.01 && (g.gap_x - 2.0).abs() < 0.01,
            "{g:?}"
        );
        assert!(
            (g.cell_height - 10.0).abs() < 0.01 && (g.gap_y - 2.0).abs() < 0.01,
            "{g:?}"
        );
    }

    #[test]
    fn a_grey_picture_is_refused() {
        let img = RgbImage::from_pixel(50, 50, Rgb([90, 90, 90]));
        let e = locate_grid(&img, 3, 3, Extent::full(3, 3), &LocateParams::default()).unwrap_err();
        assert!(e.to_string().contains("chroma"), "{e}");
    }
}
