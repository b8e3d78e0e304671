//! Finding a regular grid of tiles in a screenshot with no calibration: the
//! board rectangle, rows, columns, pitch and gaps.
//!
//! Coordinates: picture pixels (x right, y down, origin top-left); profile
//! index `x` is the boundary between pixel columns `x` and `x+1` for the
//! horizontal-gradient profile (so a tile edge at window position `x+1` shows
//! at index `x`). The result is a [`Grid`] in the picture's own pixels.
//!
//! Method (no assumption about the skin or the background):
//! 1. *Edge maps*: per pixel, the largest channel difference to the right
//!    and to the lower neighbour, minus a noise floor, clamped (so a few
//!    strong UI lines cannot outweigh the many tile outlines).
//! 2. *Profiles*: summed edge strength per column (vertical edges) over a band
//!    of rows, and per row over a band of columns (prefix sums make every
//!    profile O(length)).
//! 3. *Comb scoring* (a matched filter for a periodic pulse train, cf. comb
//!    filters / autocorrelation pitch detection): for each pitch on a
//!    geometric ladder and each phase, the teeth `phase + k*pitch` score their
//!    edge strength minus the mean strength between them; the best run of
//!    consecutive teeth (Kadane's maximum subarray over the per-tooth gains
//!    minus a noise allowance) is that pitch's evidence and extent. The best
//!    few pitches per axis are kept as candidates (harmonics included).
//!    Teeth are read from the profile dilated by about a sixteenth of the
//!    pitch, so phases that far apart cover every position (the fine comb
//!    recovers the exact phase).
//! 4. *Pairing*: each axis' comb is paired with the other axis' combs over
//!    its extent, and again over only the stretch where its own lattice holds
//!    (per line across it, edge strength at the teeth minus half a pitch
//!    away): text or UI beside the board cannot set the other pitch. Square
//!    tiles (the other pitch within 3 %) are always tried, also over the
//!    stretch where the teeth stand out relative to their strength (a dense
//!    pixel-font bar no longer outweighs a board's soft circle sides).
//! 5. *Refinement*: the teeth are fitted by least squares (sub-pixel peak
//!    positions) to get an exact pitch; the profile folded modulo the pitch
//!    gives the tile centre as a centre of symmetry (tile centre or gap centre;
//!    the lattice test below decides) and the tile width.
//! 6. *Extent*: a column belongs to the board when edges are seen on both of
//!    its sides (a column just outside sees the board's edge on one side only);
//!    the longest such run around the comb's extent, then the same for rows,
//!    twice (each axis' profile restricted to the other's extent).
//! 7. *Lattice test*: every cell is sampled on a ring (robust Lab centre and
//!    spread, as the reader does); the candidate is scored by the uniformity
//!    of its cells and the colour differences between neighbours, and must pass
//!    absolute limits (most cells uniform, at least two colours, clear edges)
//!    or the picture is [`VisionError::NoBoard`] — never a made-up grid.
//!    The score also weighs, per axis, the fraction of tiles whose sides are
//!    edges and whose middle line is not (a lattice at 2x, 1.5x or 2/3 of
//!    the pitch fails on many tiles).
//! 8. *Finer lattices*: a lattice twice or three times too coarse passes
//!    every test above (its cells are uniform inside the true tiles), so the
//!    best is split in halves or thirds along each axis; the split is kept
//!    (and found again at that pitch) when its cells pass the lattice tests,
//!    the parts of one coarse cell differ like neighbours across its sides
//!    (they do not when the coarse cell was one tile), and its score is at
//!    least `finer_score` of the best's.
//!
//! 9. *Gaps and parities*: a lattice claiming gaps must show a background in
//!    them (not tiles: twice the pitch, or a UI row paired with the board),
//!    and the colours at even and odd places along a row or column must
//!    overlap (a lattice twice too fine alternates tiles and background).
//!
//! 10. *Blob lattices*: a second source of candidates, independent of the
//!     combs: lattices fitted to classes of equal blobs of colour
//!     ([`super::blobs`]), tested as in 7 and marked
//!     [`FoundGrid::from_blobs`] (the reader always tries them).
//!
//! 11. *Edge repeats*: the lag along each axis at which the picture's
//!     binary edge map best matches itself ([`super::repeat`], a 2D
//!     autocorrelation at lags of at least six repeats in the picture).
//!     Where an axis' combs have no comb near that lag, one is added at it,
//!     and the two axes' repeat combs are paired with each other. A comb
//!     within 2 % of a strong repeat ([`FindParams::min_repeat`]) is held
//!     to [`FindParams::repeat_periodicity`]; a lattice with both axes
//!     vouched for so is judged as `Source::Repeats` (sides held to the
//!     same, gaps not looked at). Small tiles with symbols (outlined stars
//!     on 15-pixel diamonds) give profiles whose symbol edges are as strong
//!     as the tile sides; matched in two dimensions each tile's drawing
//!     lands on the next one's.
//!
//! Pictures of [`FindParams::reduce_above`] pixels or more are searched at
//! half size first (full size when nothing is found there); the band
//! ladders, pairings and pair evaluations run in parallel and are merged in
//! a fixed order.
//!
//! Invariants: pure and deterministic; the result has `min_cells..=max_cells`
//! rows and columns, positive tile sizes and lies inside the picture.

use image::RgbImage;
use rayon::prelude::*;

use super::blobs::{blob_lattices, few_blob_lattices, BlobAxis, BlobLattice, BlobParams};
use super::colour::{delta_e, rgb_to_lab, robust_centre, Lab};
use super::layout::Grid;
use super::repeat::{edge_repeats, Repeat, Repeats};
use super::VisionError;

/// Tunables of the grid finder (plain data; `Default` is the preset for
/// screenshots of any skin).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FindParams {
    /// Fewest and most cells a side.
    pub min_cells: usize,
    pub max_cells: usize,
    /// Smallest and largest pitch (tile plus gap) in pixels.
    pub min_pitch: f64,
    pub max_pitch: f64,
    /// Channel differences up to this are texture/noise, not edges.
    pub edge_floor: u8,
    /// Edge strengths are clamped to this (after the floor).
    pub edge_clamp: u8,
    /// Step of the pitch ladder (relative).
    pub pitch_step: f64,
    /// Candidate pitches kept per axis.
    pub candidates: usize,
    /// A tooth counts towards a run when it beats the mean between teeth by
    /// more than this fraction of the best tooth gain (noise allowance).
    pub tooth_allowance: f32,
    /// A column/row belongs to the board when both of its sides have at least
    /// this fraction of the median side strength of the comb's extent.
    pub side_fraction: f32,
    /// Least tile size, in pitches (the gap is at most the rest).
    pub min_tile: f64,
    /// Sampling ring radius, in pitches.
    pub ring: f64,
    /// Samples on the ring.
    pub ring_points: usize,
    /// A cell whose samples spread (median ΔE to their centre) more than this is
    /// not uniform.
    pub max_spread: f32,
    /// Least fraction of uniform cells on a board.
    pub min_uniform: f64,
    /// Least mean ΔE between neighbouring cells (a board has colours).
    pub min_contrast: f32,
    /// Largest fraction of cells of one colour (a background, a panel).
    pub max_mode: f64,
    /// Largest fraction of neighbour pairs of the same colour along rows or
    /// columns.
    pub max_same: f64,
    /// Least ratio of tooth strength to the strength between teeth.
    pub min_periodicity: f32,
    /// The least periodicity of a comb at the pitch of a strong edge
    /// repeat ([`super::repeat`]).
    pub repeat_periodicity: f32,
    /// The least prominence of an edge repeat that vouches for a comb.
    pub min_repeat: f64,
    /// A lattice at half the pitch of the best replaces it when its cells
    /// pass the lattice tests and its score is at least this fraction of
    /// the best's.
    pub finer_score: f64,
    /// Pictures of at least this many pixels are searched at half size
    /// first.
    pub reduce_above: f64,
    /// The picture searched is a half-size copy of a large one (set by
    /// [`find_candidates`]).
    pub halved: bool,
    /// The second source of lattices: classes of equal blobs of colour.
    pub blobs: BlobParams,
}

impl Default for FindParams {
    fn default() -> Self {
        FindParams {
            min_cells: 3,
            max_cells: 25,
            min_pitch: 12.0,
            max_pitch: 250.0,
            edge_floor: 10,
            edge_clamp: 80,
            pitch_step: 0.015,
            candidates: 6,
            tooth_allowance: 0.2,
            side_fraction: 0.3,
            min_tile: 0.55,
            ring: 0.22,
            ring_points: 12,
            max_spread: 14.0,
            min_uniform: 0.7,
            min_contrast: 6.0,
            max_mode: 0.7,
            max_same: 0.75,
            min_periodicity: 1.5,
            repeat_periodicity: 1.2,
            min_repeat: 0.1,
            finer_score: 0.5,
            reduce_above: 1.2e6,
            halved: false,
            blobs: BlobParams::default(),
        }
    }
}

/// Known facts that narrow the search.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hints {
    pub rows: Option<usize>,
    pub cols: Option<usize>,
}

/// The grid found and what was measured.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundGrid {
    pub rows: usize,
    pub cols: usize,
    pub grid: Grid,
    /// Fraction of cells whose samples are uniform.
    pub uniform: f64,
    /// Mean ΔE between neighbouring cells.
    pub contrast: f32,
    /// The lattice score (higher is better; for comparing candidates).
    pub score: f64,
    /// Robust colour of each cell, row-major.
    pub cells: Vec<Lab>,
    /// Whether the lattice came from classes of equal blobs
    /// ([`super::blobs`]) rather than the edge combs.
    pub from_blobs: bool,
}

/// Edge maps and their prefix sums.
struct Edges {
    w: usize,
    h: usize,
    /// `colsum[y * w + x]`: sum of the horizontal-gradient edge at column x over
    /// rows `0..y` (so `h + 1` rows).
    colsum: Vec<u32>,
    /// `rowsum[y * (w + 1) + x]`: sum of the vertical-gradient edge in row y
    /// over columns `0..x`.
    rowsum: Vec<u32>,
}

impl Edges {
    fn new(img: &RgbImage, p: &FindParams) -> Edges {
        let (w, h) = (img.width() as usize, img.height() as usize);
        let raw = img.as_raw();
        let floor = p.edge_floor as i32;
        let clamp = p.edge_clamp as i32;
        #[inline(always)]
        fn diff(a: &[u8], b: &[u8]) -> i32 {
            let d0 = (a[0] as i32 - b[0] as i32).abs();
            let d1 = (a[1] as i32 - b[1] as i32).abs();
            let d2 = (a[2] as i32 - b[2] as i32).abs();
            d0.max(d1).max(d2)
        }
        let mut colsum = vec![0u32; (h + 1) * w];
        let mut rowsum = vec![0u32; h * (w + 1)];
        for y in 0..h {
            let row = &raw[y * w * 3..(y + 1) * w * 3];
            let below = (y + 1 < h).then(|| &raw[(y + 1) * w * 3..(y + 2) * w * 3]);
            let (prev, rest) = colsum.split_at_mut((y + 1) * w);
            let prev = &prev[y * w..];
            let cur = &mut rest[..w];
            // Vertical edges (between columns x and x+1), summed down columns.
            for x in 0..w {
                let ex = if x + 1 < w {
                    (diff(&row[x * 3..x * 3 + 3], &row[x * 3 + 3..x * 3 + 6]) - floor)
                        .clamp(0, clamp) as u32
                } else {
                    0
                };
                cur[x] = prev[x] + ex;
            }
            // Horizontal edges (between rows y and y+1), summed along the row.
            let out = &mut rowsum[y * (w + 1)..(y + 1) * (w + 1)];
            let mut acc = 0u32;
            match below {
                Some(below) => {
                    for x in 0..w {
                        out[x] = acc;
                        acc += (diff(&row[x * 3..x * 3 + 3], &below[x * 3..x * 3 + 3]) - floor)
                            .clamp(0, clamp) as u32;
                    }
                }
                None => out[..w].fill(0),
            }
            out[w] = acc;
        }
        Edges {
            w,
            h,
            colsum,
            rowsum,
        }
    }

    /// Mean vertical-edge strength per column over rows `y0..y1`.
    fn x_profile(&self, y0: usize, y1: usize) -> Vec<f32> {
        let n = (y1 - y0).max(1) as f32;
        (0..self.w)
            .map(|x| (self.colsum[y1 * self.w + x] - self.colsum[y0 * self.w + x]) as f32 / n)
            .collect()
    }

    /// [`Edges::x_profile`] computed only at columns `xa..xb` (zero
    /// elsewhere; for measurements near a lattice).
    fn x_profile_in(&self, y0: usize, y1: usize, (xa, xb): (usize, usize)) -> Vec<f32> {
        let n = (y1 - y0).max(1) as f32;
        let mut out = vec![0f32; self.w];
        for (x, v) in out.iter_mut().enumerate().take(xb.min(self.w)).skip(xa) {
            *v = (self.colsum[y1 * self.w + x] - self.colsum[y0 * self.w + x]) as f32 / n;
        }
        out
    }

    /// [`Edges::y_profile`] computed only at rows `ya..yb` (zero elsewhere).
    fn y_profile_in(&self, x0: usize, x1: usize, (ya, yb): (usize, usize)) -> Vec<f32> {
        let n = (x1 - x0).max(1) as f32;
        let mut out = vec![0f32; self.h];
        for (y, v) in out.iter_mut().enumerate().take(yb.min(self.h)).skip(ya) {
            let r = y * (self.w + 1);
            *v = (self.rowsum[r + x1] - self.rowsum[r + x0]) as f32 / n;
        }
        out
    }

    /// Vertical-edge strength at pixel `(x, y)` (between columns x and x+1).
    fn ex(&self, x: usize, y: usize) -> f32 {
        (self.colsum[(y + 1) * self.w + x] - self.colsum[y * self.w + x]) as f32
    }

    /// Horizontal-edge strength at pixel `(x, y)` (between rows y and y+1).
    fn ey(&self, x: usize, y: usize) -> f32 {
        let r = y * (self.w + 1);
        (self.rowsum[r + x + 1] - self.rowsum[r + x]) as f32
    }

    /// Where along the other axis a comb's lattice holds: per line across
    /// the comb (a pixel row for a comb of vertical edges, `vertical`), the
    /// edge strength at the teeth minus that half a pitch away, smoothed over
    /// a pitch; the stretch around the strongest line where it stays above a
    /// quarter of the peak, widened by half a pitch. `None` when the lattice
    /// holds nowhere.
    ///
    /// `relative`: each tooth's difference is taken relative to the two
    /// strengths' sum (`(t - m) / (t + m + RELATIVE_FLOOR)`), so lines of
    /// dense, strong edges (a pixel font, a textured bar) where the teeth
    /// happen to land on edges no longer outweigh the board's softer but
    /// clean tile sides (circles, blurred tiles), whose middles are plain.
    fn support(&self, c: &Comb, vertical: bool, relative: bool) -> Option<(usize, usize)> {
        const RELATIVE_FLOOR: f32 = 4.0;
        let (along, across) = if vertical {
            (self.w, self.h)
        } else {
            (self.h, self.w)
        };
        let at = |t: usize, line: usize| {
            if vertical {
                self.ex(t, line)
            } else {
                self.ey(line, t)
            }
        };
        let teeth: Vec<(usize, usize)> = (c.k0..=c.k1)
            .filter_map(|k| {
                let t = c.tooth(k).round();
                let m = (c.tooth(k) + c.pitch / 2.0).round();
                (t >= 1.0 && t + 1.0 < along as f64 && m < along as f64)
                    .then_some((t as usize, m as usize))
            })
            .collect();
        if teeth.len() < 2 {
            return None;
        }
        let v: Vec<f32> = (0..across)
            .map(|line| {
                teeth
                    .iter()
                    .map(|&(t, m)| {
                        let tooth = at(t - 1, line).max(at(t, line)).max(at(t + 1, line));
                        let mid = at(m, line);
                        if relative {
                            (tooth - mid) / (tooth + mid + RELATIVE_FLOOR)
                        } else {
                            tooth - mid
                        }
                    })
                    .sum::<f32>()
                    / teeth.len() as f32
            })
            .collect();
        let win = (c.pitch.round() as usize).max(1);
        let pre = prefix(&v);
        let smooth: Vec<f32> = (0..across)
            .map(|i| {
                let a = i.saturating_sub(win / 2);
                let b = (i + win / 2 + 1).min(across);
                interval_mean(&pre, a, b)
            })
            .collect();
        let (peak_i, peak) = smooth
            .iter()
            .copied()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(&b.1))?;
        if peak <= 0.0 {
            return None;
        }
        let limit = 0.25 * peak;
        let mut a = peak_i;
        while a > 0 && smooth[a - 1] >= limit {
            a -= 1;
        }
        let mut b = peak_i + 1;
        while b < across && smooth[b] >= limit {
            b += 1;
        }
        let pad = win / 2;
        Some((a.saturating_sub(pad), (b + pad).min(across)))
    }

    /// Mean horizontal-edge strength per row over columns `x0..x1`.
    fn y_profile(&self, x0: usize, x1: usize) -> Vec<f32> {
        let n = (x1 - x0).max(1) as f32;
        (0..self.h)
            .map(|y| {
                let r = y * (self.w + 1);
                (self.rowsum[r + x1] - self.rowsum[r + x0]) as f32 / n
            })
            .collect()
    }
}

/// A periodic run of edges along one axis.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Comb {
    pitch: f64,
    /// Position of tooth 0.
    phase: f64,
    /// First and last tooth of the run (inclusive).
    k0: usize,
    k1: usize,
    score: f32,
    /// Mean tooth strength over mean strength between teeth.
    periodicity: f32,
    /// The noise allowance per tooth the run was scored with.
    allowance: f32,
    /// How far (pixels) the true phase may be from `phase`.
    slack: f64,
}

impl Comb {
    fn tooth(&self, k: usize) -> f64 {
        self.phase + k as f64 * self.pitch
    }
}

/// Prefix sums of a profile (for O(1) interval means).
fn prefix(p: &[f32]) -> Vec<f64> {
    let mut s = Vec::with_capacity(p.len() + 1);
    let mut acc = 0.0;
    s.push(0.0);
    for &v in p {
        acc += v as f64;
        s.push(acc);
    }
    s
}

fn interval_mean(pre: &[f64], a: usize, b: usize) -> f32 {
    if b <= a {
        return 0.0;
    }
    ((pre[b] - pre[a]) / (b - a) as f64) as f32
}

/// Strength of a tooth at `t`: the largest profile value within one pixel.
fn tooth_at(p: &[f32], t: f64) -> f32 {
    let i = t.round() as isize;
    let lo = (i - 1).max(0) as usize;
    let hi = ((i + 1).max(0) as usize).min(p.len().saturating_sub(1));
    p[lo.min(hi)..=hi].iter().copied().fold(0.0, f32::max)
}

/// Per-tooth gains of a comb `(pitch, phase)` over the profile: tooth strength
/// minus the mean strength between it and the next tooth. Coarse teeth take
/// the strongest value within a pixel (for the pitch ladder); fine teeth the
/// value interpolated at the exact position (for sub-pixel refinement).
fn gains_with(
    p: &[f32],
    pre: &[f64],
    pitch: f64,
    phase: f64,
    exact: bool,
    out: &mut Vec<(f32, f32)>,
) {
    out.clear();
    let n = p.len();
    let mut k = 0usize;
    loop {
        let t = phase + k as f64 * pitch;
        if t.round() as usize >= n {
            break;
        }
        let a = (t + 2.0).round() as usize;
        let b = ((t + pitch - 2.0).round() as usize).min(n);
        let tooth = if exact { sample(p, t) } else { tooth_at(p, t) };
        let between = if b > a {
            interval_mean(pre, a, b)
        } else {
            // The last tooth: compare with the stretch before it.
            let a = (t - pitch + 2.0).round().max(0.0) as usize;
            let b = (t - 2.0).round().max(0.0) as usize;
            interval_mean(pre, a, b)
        };
        out.push((tooth, between));
        k += 1;
    }
}

/// The profile dilated by `r`: the largest value within `r` places.
fn dilate(p: &[f32], r: usize) -> Vec<f32> {
    let n = p.len();
    (0..n)
        .map(|i| {
            p[i.saturating_sub(r)..(i + r + 1).min(n)]
                .iter()
                .copied()
                .fold(0.0, f32::max)
        })
        .collect()
}

/// [`gains`] with teeth read from a profile dilated by `r` (`dp`) and the
/// stretch between teeth kept `r + 1` away from them.
fn gains_coarse(
    dp: &[f32],
    pre: &[f64],
    pitch: f64,
    phase: f64,
    r: usize,
    out: &mut Vec<(f32, f32)>,
) {
    out.clear();
    let n = dp.len();
    let gap = (r + 1) as f64;
    let mut k = 0usize;
    loop {
        let t = phase + k as f64 * pitch;
        let i = t.round() as usize;
        if i >= n {
            break;
        }
        let a = (t + gap).round() as usize;
        let b = ((t + pitch - gap).round() as usize).min(n);
        let between = if b > a {
            interval_mean(pre, a, b)
        } else {
            let a = (t - pitch + gap).round().max(0.0) as usize;
            let b = (t - gap).round().max(0.0) as usize;
            interval_mean(pre, a, b)
        };
        out.push((dp[i], between));
        k += 1;
    }
}

/// Kadane's maximum subarray of `gain - allowance`: `(sum, first, last)`.
fn best_run(g: &[(f32, f32)], allowance: f32) -> Option<(f32, usize, usize)> {
    let mut best: Option<(f32, usize, usize)> = None;
    let (mut sum, mut start) = (0f32, 0usize);
    for (i, &(t, b)) in g.iter().enumerate() {
        let v = t - b - allowance;
        if sum <= 0.0 {
            sum = v;
            start = i;
        } else {
            sum += v;
        }
        if sum > 0.0 && best.is_none_or(|b| sum > b.0) {
            best = Some((sum, start, i));
        }
    }
    best
}

/// The best combs along a profile, strongest first, at most `keep`, with
/// pitches at least 4 % apart.
fn combs(p: &[f32], params: &FindParams, keep: usize) -> Vec<Comb> {
    let n = p.len();
    let pre = prefix(p);
    let max_pitch = params
        .max_pitch
        .min((n as f64 - 1.0) / params.min_cells as f64);
    if max_pitch < params.min_pitch {
        return Vec::new();
    }
    let peak = p.iter().copied().fold(0.0, f32::max);
    if peak <= 0.0 {
        return Vec::new();
    }
    // Coarse teeth: the profile dilated by `r` (the strongest value within r
    // pixels), phases `2r` apart, with r about a sixteenth of the pitch (a
    // power of two, 1..=8): every phase is covered and the cost per pitch
    // falls with the pitch. The fine comb recovers the exact phase.
    let mut dilated: Vec<(usize, Vec<f32>)> = Vec::new();
    let mut per_pitch: Vec<Comb> = Vec::new();
    let mut g = Vec::new();
    let mut all: Vec<(f32, f32)> = Vec::new();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut diffs: Vec<f32> = Vec::new();
    let mut pitch = params.min_pitch;
    while pitch <= max_pitch {
        let mut r = 1usize;
        while r < 8 && (2 * r) as f64 * 16.0 <= pitch {
            r *= 2;
        }
        if !dilated.iter().any(|d| d.0 == r) {
            dilated.push((r, dilate(p, r)));
        }
        let Some(dp) = dilated.iter().find(|d| d.0 == r).map(|d| &d.1) else {
            break;
        };
        let mut best: Option<Comb> = None;
        let phases = pitch.ceil() as usize;
        // First pass: the gains of all teeth at all phases. Most are noise
        // (their median); the strongest few (0.5 %, at least 3) are what a
        // tile edge looks like. A single strong UI line cannot set the scale.
        all.clear();
        spans.clear();
        for ph in (0..phases).step_by(2 * r) {
            gains_coarse(dp, &pre, pitch, ph as f64, r, &mut g);
            spans.push((all.len(), g.len()));
            all.extend_from_slice(&g);
        }
        if all.len() < 4 {
            pitch *= 1.0 + params.pitch_step;
            continue;
        }
        diffs.clear();
        diffs.extend(all.iter().map(|&(t, b)| t - b));
        let m = diffs.len();
        let top = (m / 200).max(3).min(m - 1);
        let (_, &mut strong, _) = diffs.select_nth_unstable_by(m - 1 - top, f32::total_cmp);
        let (_, &mut noise, _) = diffs.select_nth_unstable_by(m / 2, f32::total_cmp);
        let noise = noise.max(0.0);
        let allowance = noise + params.tooth_allowance * (strong - noise).max(0.0);
        for (i, &(at, len)) in spans.iter().enumerate() {
            let g = &all[at..at + len];
            let ph = i * 2 * r;
            let Some((score, k0, k1)) = best_run(g, allowance) else {
                continue;
            };
            if k1 - k0 < params.min_cells.saturating_sub(1) {
                continue;
            }
            if best.is_none_or(|b| score > b.score) {
                let (ts, bs) = g[k0..=k1]
                    .iter()
                    .fold((0f32, 0f32), |a, &(t, b)| (a.0 + t, a.1 + b));
                best = Some(Comb {
                    pitch,
                    phase: ph as f64,
                    k0,
                    k1,
                    score,
                    periodicity: ts / bs.max(1e-3),
                    allowance,
                    slack: r as f64,
                });
            }
        }
        if let Some(b) = best {
            per_pitch.push(b);
        }
        pitch *= 1.0 + params.pitch_step;
    }
    per_pitch.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut out: Vec<Comb> = Vec::new();
    for c in per_pitch {
        if out.len() >= keep {
            break;
        }
        if out.iter().all(|o| (o.pitch / c.pitch - 1.0).abs() > 0.04) {
            out.push(c);
        }
    }
    out
}

/// Sub-pixel position of the profile's peak near `t` (within `radius`).
fn peak_near(p: &[f32], t: f64, radius: f64) -> Option<(f64, f32)> {
    let lo = (t - radius).floor().max(0.0) as usize;
    let hi = ((t + radius).ceil() as usize).min(p.len().checked_sub(1)?);
    if lo > hi {
        return None;
    }
    let (i, v) = (lo..=hi)
        .map(|i| (i, p[i]))
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    let frac = if i > 0 && i + 1 < p.len() {
        let (a, b, c) = (p[i - 1], v, p[i + 1]);
        let den = a - 2.0 * b + c;
        if den.abs() > 1e-6 {
            (0.5 * (a - c) / den).clamp(-0.5, 0.5) as f64
        } else {
            0.0
        }
    } else {
        0.0
    };
    Some((i as f64 + frac, v))
}

/// Fine comb search around `c`: pitch within ±1.2 % (0.24 % steps over the
/// phase slack, then 0.12 %) then ±0.12 % (0.04 % steps), phase within ±1.5
/// pixels then ±0.75 (quarter-pixel steps), exact
/// (interpolated) teeth, same allowance.
fn fine_comb(p: &[f32], c: Comb, min_teeth: usize) -> Comb {
    let pre = prefix(p);
    // A coarse comb's phase is known within its slack: first whole pixels
    // over the slack, then the quarter-pixel search around the best.
    let c = if c.slack > 1.0 {
        let reach = (c.slack + 1.0).ceil() as i32;
        comb_search(p, &pre, c, (5, 0.0024), (reach, 1.0), min_teeth).unwrap_or(c)
    } else {
        c
    };
    let c = comb_search(p, &pre, c, (10, 0.0012), (2, 0.75), min_teeth).unwrap_or(c);
    comb_search(p, &pre, c, (3, 0.0004), (3, 0.25), min_teeth).unwrap_or(c)
}

/// The best comb with pitch `c.pitch * (1 + i * step)` for `|i| <= n` and
/// phase `c.phase + j * step` for `|j| <= n` (`pitches`, `phases`), exact
/// teeth, `c`'s allowance, at least `min_teeth` teeth in its run.
fn comb_search(
    p: &[f32],
    pre: &[f64],
    c: Comb,
    pitches: (i32, f64),
    phases: (i32, f64),
    min_teeth: usize,
) -> Option<Comb> {
    let mut g = Vec::new();
    let mut best: Option<Comb> = None;
    for i in -pitches.0..=pitches.0 {
        let pitch = c.pitch * (1.0 + pitches.1 * i as f64);
        for j in -phases.0..=phases.0 {
            let phase = c.phase + phases.1 * j as f64;
            if phase < 0.0 {
                continue;
            }
            gains_with(p, pre, pitch, phase, true, &mut g);
            let Some((score, k0, k1)) = best_run(&g, c.allowance) else {
                continue;
            };
            if best.is_none_or(|b| score > b.score) && k1 - k0 + 1 >= min_teeth {
                let (ts, bs) = g[k0..=k1]
                    .iter()
                    .fold((0f32, 0f32), |a, &(t, b)| (a.0 + t, a.1 + b));
                best = Some(Comb {
                    pitch,
                    phase,
                    k0,
                    k1,
                    score,
                    periodicity: ts / bs.max(1e-3),
                    allowance: c.allowance,
                    slack: 0.0,
                });
            }
        }
    }
    best
}

/// Refines pitch and phase: the fine comb, then (when the teeth are single
/// clean peaks) a least-squares fit of the sub-pixel peak positions.
fn refine(p: &[f32], c: Comb, params: &FindParams) -> Comb {
    fine_comb(p, c, params.min_cells)
}

/// Least-squares fit of the teeth positions (kept for single-edge profiles).
#[allow(dead_code)]
fn fit_teeth(p: &[f32], c: Comb) -> Comb {
    let mut c = c;
    for _ in 0..2 {
        let radius = (c.pitch / 12.0).max(1.5);
        let (mut sw, mut sk, mut st, mut skk, mut skt) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for k in c.k0..=c.k1 {
            let Some((t, v)) = peak_near(p, c.tooth(k), radius) else {
                continue;
            };
            let w = v.max(0.0) as f64;
            let kf = k as f64;
            sw += w;
            sk += w * kf;
            st += w * t;
            skk += w * kf * kf;
            skt += w * kf * t;
        }
        let den = sw * skk - sk * sk;
        if sw <= 0.0 || den.abs() < 1e-9 {
            break;
        }
        let pitch = (sw * skt - sk * st) / den;
        let phase = (st - pitch * sk) / sw;
        if !(pitch.is_finite() && phase.is_finite()) || (pitch / c.pitch - 1.0).abs() > 0.05 {
            break;
        }
        c.pitch = pitch;
        c.phase = phase;
    }
    c
}

/// Linear interpolation of the profile at a real position (0 outside).
fn sample(p: &[f32], t: f64) -> f32 {
    if t < 0.0 || t > (p.len() - 1) as f64 {
        return 0.0;
    }
    let i = t.floor() as usize;
    let f = (t - i as f64) as f32;
    match p.get(i + 1) {
        Some(&b) => p[i] * (1.0 - f) + b * f,
        None => p[i],
    }
}

/// One axis of a lattice: tile centres `centre + i * pitch` for the tiles
/// `0..count`, and the tile size.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Axis {
    pitch: f64,
    /// Centre of tile 0.
    centre: f64,
    count: usize,
    /// Tile size (pitch minus gap).
    tile: f64,
}

/// The profile folded modulo the pitch over the comb's run, in `bins` bins
/// (bin `j` is offset `j * pitch / bins` from the phase).
fn fold(p: &[f32], c: &Comb, bins: usize) -> Vec<f32> {
    let mut f = vec![0f32; bins];
    let n = (c.k1 - c.k0).max(1);
    for (j, v) in f.iter_mut().enumerate() {
        let off = j as f64 * c.pitch / bins as f64;
        let s: f32 = (c.k0..c.k0 + n).map(|k| sample(p, c.tooth(k) + off)).sum();
        *v = s / n as f32;
    }
    f
}

/// Centres of symmetry of the folded profile: the two offsets (half a pitch
/// apart) whose mirror images agree best, each with the tile size it implies.
/// Returns offsets from the phase, in pixels.
fn symmetry_centres(f: &[f32], pitch: f64) -> [(f64, f64); 2] {
    let bins = f.len();
    let at = |j: isize| f[j.rem_euclid(bins as isize) as usize];
    // Centre candidates at half-bin steps: 2c is an integer.
    let mut best = (0usize, f32::MIN);
    for c2 in 0..bins {
        // Centre at c2 / 2 bins; only half the pitch is distinct (c and c+p/2).
        let mut s = 0f32;
        for t in 1..=(bins as isize / 2) {
            let (a, b) = if c2 % 2 == 0 {
                (c2 as isize / 2 + t, c2 as isize / 2 - t)
            } else {
                (c2 as isize / 2 + t, c2 as isize / 2 + 1 - t)
            };
            s += at(a) * at(b);
        }
        if s > best.1 {
            best = (c2, s);
        }
    }
    let bin = pitch / bins as f64;
    let c = best.0 as f64 / 2.0 * bin;
    let other = (c + pitch / 2.0) % pitch;
    // Tile size implied: the strongest edge pair symmetric about the centre,
    // outside the middle fifth (symbols) — at most the pitch.
    let tile_for = |centre: f64| {
        let mut best = (pitch, f32::MIN);
        let steps = (bins / 2).max(1);
        for s in 0..=steps {
            let half = pitch / 2.0 * s as f64 / steps as f64;
            if half < pitch * 0.2 {
                continue;
            }
            let v = sample_circ(f, (centre + half) / bin) + sample_circ(f, (centre - half) / bin);
            if v > best.1 + 1e-4 {
                best = (2.0 * half, v);
            }
        }
        best.0.min(pitch)
    };
    [(c, tile_for(c)), (other, tile_for(other))]
}

/// Circular linear interpolation of a folded profile at a real bin position.
fn sample_circ(f: &[f32], j: f64) -> f32 {
    let n = f.len() as f64;
    let j = j.rem_euclid(n);
    let i = j.floor() as usize % f.len();
    let k = (i + 1) % f.len();
    let t = (j - j.floor()) as f32;
    f[i] * (1.0 - t) + f[k] * t
}

/// Edge evidence on both sides of each possible tile along one axis, then the
/// longest run of tiles with both sides seen that overlaps `core` (tile
/// centre range). Returns `(first_centre, count)`.
#[allow(clippy::too_many_arguments)]
fn extent(
    p: &[f32],
    pitch: f64,
    centre: f64,
    tile: f64,
    core: (f64, f64),
    params: &FindParams,
    hint: Option<usize>,
) -> Option<(f64, usize)> {
    let n = p.len() as f64;
    // Tile centres on the lattice whose tiles fit the picture (the gap
    // around them may fall outside it: a board flush with the picture's
    // edge). Profile index i is pixel position i + 1.
    let half = tile.min(pitch) / 2.0;
    let first = centre - ((centre + 1.0 - half) / pitch).floor() * pitch;
    let mut centres = Vec::new();
    let mut c = first;
    while c + 1.0 + half <= n + 1.0 {
        centres.push(c);
        c += pitch;
    }
    if centres.is_empty() {
        return None;
    }
    let side = |from: f64, to: f64| {
        let (a, b) = (from.min(to), from.max(to));
        let mut v = 0f32;
        let mut t = a;
        while t <= b {
            v = v.max(sample(p, t));
            t += 0.5;
        }
        v
    };
    let sides: Vec<(f32, f32)> = centres
        .iter()
        .map(|&c| {
            (
                side(c - 0.58 * pitch, c - 0.2 * pitch),
                side(c + 0.2 * pitch, c + 0.58 * pitch),
            )
        })
        .collect();
    let in_core: Vec<f32> = centres
        .iter()
        .zip(&sides)
        .filter(|(&c, _)| c >= core.0 - 0.5 * pitch && c <= core.1 + 0.5 * pitch)
        .map(|(_, s)| s.0.min(s.1))
        .collect();
    if in_core.is_empty() {
        return None;
    }
    let mut v = in_core.clone();
    v.sort_by(f32::total_cmp);
    let med = v[v.len() / 2];
    let limit = params.side_fraction * med;
    let ok: Vec<bool> = sides.iter().map(|s| s.0.min(s.1) >= limit).collect();
    let mid = 0.5 * (core.0 + core.1);
    if let Some(want) = hint {
        // The window of exactly `want` tiles with the most evidence, near the core.
        if want > centres.len() {
            return None;
        }
        let score = |i: usize| -> f32 {
            let s: f32 = sides[i..i + want].iter().map(|s| s.0.min(s.1)).sum();
            let centre_of = centres[i] + (want as f64 - 1.0) * pitch / 2.0;
            s - ((centre_of - mid).abs() / pitch) as f32 * 0.01 * med
        };
        let best = (0..=centres.len() - want).max_by(|&a, &b| score(a).total_cmp(&score(b)))?;
        return Some((centres[best], want));
    }
    // Runs of ok tiles; the one nearest the core's middle wins, longest first.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut start = None;
    for (i, &o) in ok.iter().enumerate() {
        match (o, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                runs.push((s, i - s));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        runs.push((s, ok.len() - s));
    }
    let overlaps = |r: &(usize, usize)| {
        let (a, b) = (centres[r.0], centres[r.0 + r.1 - 1]);
        b >= core.0 - 0.5 * pitch && a <= core.1 + 0.5 * pitch
    };
    let best = runs
        .iter()
        .filter(|r| overlaps(r))
        .max_by_key(|r| r.1)
        .copied()?;
    Some((centres[best.0], best.1))
}

/// Samples every cell of a lattice: robust colour and spread per cell.
fn sample_cells(img: &RgbImage, xs: &Axis, ys: &Axis, params: &FindParams) -> Vec<(Lab, f32)> {
    sample_ring(img, xs, ys, params.ring, params.ring_points)
}

/// Rings (in pitches) a lattice of blobs is sampled on besides
/// [`FindParams::ring`]: symbols drawn on gems often sit at about that
/// radius, and a blob's colour is what the gem shows beside them.
const BLOB_RINGS: [f64; 2] = [0.13, 0.32];

/// The cells of a lattice of blobs sampled on whichever ring (the finder's
/// first, then [`BLOB_RINGS`]) finds the most of them uniform; when too few
/// are, the rings are measured again with lightness weighed down
/// ([`FACET_LIGHTNESS`]).
fn sample_blob_cells(img: &RgbImage, xs: &Axis, ys: &Axis, params: &FindParams) -> Vec<(Lab, f32)> {
    let mut best = sample_cells(img, xs, ys, params);
    let mut most = uniform_cells(&best, params);
    // Lightness weighed down only where the cells fail the test at full
    // weight: a lattice that passes keeps its score.
    for lit in [1.0, FACET_LIGHTNESS] {
        if lit < 1.0 && most as f64 >= params.min_uniform * best.len() as f64 {
            break;
        }
        for ring in BLOB_RINGS {
            let cells = sample_ring_lit(img, xs, ys, ring, params.ring_points, lit);
            let n = uniform_cells(&cells, params);
            if n > most {
                (best, most) = (cells, n);
            }
        }
    }
    best
}

/// How many cells' samples spread no more than [`FindParams::max_spread`].
fn uniform_cells(cells: &[(Lab, f32)], params: &FindParams) -> usize {
    cells.iter().filter(|c| c.1 <= params.max_spread).count()
}

/// Each cell's robust colour and spread from `points` samples on a ring of
/// `ring` pitches round its centre.
fn sample_ring(img: &RgbImage, xs: &Axis, ys: &Axis, ring: f64, points: usize) -> Vec<(Lab, f32)> {
    sample_ring_lit(img, xs, ys, ring, points, 1.0)
}

/// The weight of lightness in the spread of a blob lattice's cells on
/// [`BLOB_RINGS`]: facets of a cut gem, a highlight or a gradient change a
/// tile's lightness round a ring and keep its hue (Gweled's gems).
const FACET_LIGHTNESS: f32 = 0.5;

/// [`sample_ring`] with the spread measured with lightness weighted by
/// `lit` (the colours are the pixels' own).
fn sample_ring_lit(
    img: &RgbImage,
    xs: &Axis,
    ys: &Axis,
    ring: f64,
    points: usize,
    lit: f32,
) -> Vec<(Lab, f32)> {
    let r = ring * xs.pitch.min(ys.pitch);
    let offs: Vec<(f64, f64)> = (0..points)
        .map(|k| {
            let a = (15.0 + k as f64 * 360.0 / points as f64).to_radians();
            (r * a.cos(), r * a.sin())
        })
        .collect();
    let (w, h) = (img.width() as f64, img.height() as f64);
    let mut samples = Vec::with_capacity(offs.len());
    let mut out = Vec::with_capacity(xs.count * ys.count);
    for row in 0..ys.count {
        let cy = ys.centre + row as f64 * ys.pitch;
        for col in 0..xs.count {
            let cx = xs.centre + col as f64 * xs.pitch;
            samples.clear();
            for &(dx, dy) in &offs {
                let x = (cx + dx).clamp(0.0, w - 1.0) as u32;
                let y = (cy + dy).clamp(0.0, h - 1.0) as u32;
                let [l, a, b] = rgb_to_lab(img.get_pixel(x, y).0);
                samples.push([lit * l, a, b]);
            }
            let ([l, a, b], spread) = robust_centre(&samples);
            out.push(([l / lit, a, b], spread));
        }
    }
    out
}

/// Scores a lattice: `None` when it fails the absolute limits.
fn score_lattice(
    cells: &[(Lab, f32)],
    xs: &Axis,
    ys: &Axis,
    params: &FindParams,
) -> Result<(f64, f64, f32), &'static str> {
    let (rows, cols) = (ys.count, xs.count);
    if cells.len() != rows * cols || cells.is_empty() {
        return Err("no cells");
    }
    let uniform = uniform_cells(cells, params) as f64 / cells.len() as f64;
    let (mut sum, mut n) = (0f32, 0usize);
    for r in 0..rows {
        for c in 0..cols {
            let a = cells[r * cols + c].0;
            if c + 1 < cols {
                sum += delta_e(a, cells[r * cols + c + 1].0).min(40.0);
                n += 1;
            }
            if r + 1 < rows {
                sum += delta_e(a, cells[(r + 1) * cols + c].0).min(40.0);
                n += 1;
            }
        }
    }
    let contrast = if n > 0 { sum / n as f32 } else { 0.0 };
    if uniform < params.min_uniform {
        return Err("too few uniform cells");
    }
    if contrast < params.min_contrast {
        return Err("too little contrast");
    }
    if alternates(cells, rows, cols) || parity_apart(cells, rows, cols) {
        return Err("cells alternate: twice too fine");
    }
    if mode_fraction(cells) > params.max_mode {
        return Err("mostly one colour");
    }
    let same = [true, false]
        .iter()
        .filter_map(|&h| parity_stats(cells, rows, cols, h))
        .map(|[(_, a), (_, b)]| 0.5 * (a + b))
        .fold(0.0, f64::max);
    if same > params.max_same {
        return Err("neighbours mostly alike");
    }
    // How clean the cells are, how much the neighbours differ, and (weakly)
    // the area covered.
    let area = rows as f64 * cols as f64 * xs.pitch * ys.pitch;
    let score = area.sqrt() * uniform * uniform * contrast.min(60.0) as f64;
    Ok((score, uniform, contrast))
}

/// True when neighbouring cells differ only across every other boundary
/// along a row or a column: the lattice is twice too fine (each tile was cut in
/// two, or every other cell is a gap).
fn alternates(cells: &[(Lab, f32)], rows: usize, cols: usize) -> bool {
    [true, false]
        .iter()
        // Fewer than six boundaries of the odd parity (a board of 4 lines
        // by 3 has three) alternate by chance too often to tell.
        .filter(|&&h| {
            let (n_out, n_in) = if h { (rows, cols) } else { (cols, rows) };
            n_out * (n_in.saturating_sub(1) / 2) >= 6
        })
        .any(|&h| match parity_stats(cells, rows, cols, h) {
            Some([(d0, s0), (d1, s1)]) => {
                d0.min(d1) < 0.3 * d0.max(d1) || (s0.max(s1) >= 0.9 && s0.min(s1) <= 0.75)
            }
            None => false,
        })
}

/// True when, along rows or columns, the cells at even places and those at
/// odd places show different colours: fewer than `PARITY_SHARED` of the
/// cells (at most 200 of them, evenly spread) have a colour (within ΔE 10) seen at the other parity. On a
/// board every colour turns up at both; a lattice twice too fine puts tiles
/// at one parity and the gaps or background between them at the other.
fn parity_apart(cells: &[(Lab, f32)], rows: usize, cols: usize) -> bool {
    const PARITY_SHARED: f64 = 0.6;
    const PARITY_PLAIN: f64 = 0.5;
    [true, false].iter().any(|&horizontal| {
        let n_in = if horizontal { cols } else { rows };
        if n_in < 6 || cells.len() < 24 {
            return false;
        }
        let parity = |i: usize| {
            if horizontal {
                (i % cols) % 2
            } else {
                (i / cols) % 2
            }
        };
        let (mut shared, mut n) = (0usize, 0usize);
        let step = cells.len().div_ceil(200);
        for (i, c) in cells.iter().enumerate().step_by(step) {
            n += 1;
            let p = parity(i);
            shared += cells
                .iter()
                .enumerate()
                .any(|(j, d)| parity(j) != p && delta_e(c.0, d.0) < 10.0)
                as usize;
        }
        if (shared as f64) >= PARITY_SHARED * n as f64 {
            return false;
        }
        // The gaps' or background's parity is mostly one colour; tiles of
        // a few colours split unevenly between the parities by chance on
        // a small board are not.
        let side = |p: usize| -> Vec<(Lab, f32)> {
            (0..cells.len())
                .filter(|&i| parity(i) == p)
                .map(|i| cells[i])
                .collect()
        };
        mode_fraction(&side(0)).max(mode_fraction(&side(1))) >= PARITY_PLAIN
    })
}

/// Neighbour pairs along rows (`horizontal`) or columns, split by the parity
/// of their first cell: per parity, the mean ΔE (capped at 40) and the
/// fraction of pairs that look the same (ΔE below 8). `None` under 4 cells.
fn parity_stats(
    cells: &[(Lab, f32)],
    rows: usize,
    cols: usize,
    horizontal: bool,
) -> Option<[(f64, f64); 2]> {
    let (n_out, n_in) = if horizontal {
        (rows, cols)
    } else {
        (cols, rows)
    };
    if n_in < 4 {
        return None;
    }
    let mut s = [(0f64, 0usize, 0usize); 2];
    for o in 0..n_out {
        for i in 0..n_in - 1 {
            let (a, b) = if horizontal {
                (o * cols + i, o * cols + i + 1)
            } else {
                (i * cols + o, (i + 1) * cols + o)
            };
            let d = delta_e(cells[a].0, cells[b].0);
            let t = &mut s[i % 2];
            t.0 += d.min(40.0) as f64;
            t.1 += (d < 8.0) as usize;
            t.2 += 1;
        }
    }
    Some(s.map(|(d, same, n)| (d / n.max(1) as f64, same as f64 / n.max(1) as f64)))
}

/// The largest fraction of cells within ΔE 10 of one cell's colour (how much
/// of the lattice is one colour, e.g. a background).
fn mode_fraction(cells: &[(Lab, f32)]) -> f64 {
    let n = cells.len();
    let step = (n / 200).max(1);
    (0..n)
        .step_by(step)
        .map(|i| {
            cells
                .iter()
                .filter(|c| delta_e(c.0, cells[i].0) < 10.0)
                .count()
        })
        .max()
        .unwrap_or(0) as f64
        / n.max(1) as f64
}

fn no_board(msg: impl Into<String>) -> VisionError {
    VisionError::NoBoard(msg.into())
}

/// Finds the grid of tiles in a screenshot (see the module docs).
///
/// Errors: [`VisionError::NoBoard`] when no regular grid of uniform, varied
/// tiles is there (a menu, text, noise, a flat picture).
pub fn find_grid(
    img: &RgbImage,
    hints: Hints,
    params: &FindParams,
) -> Result<FoundGrid, VisionError> {
    let mut all = find_candidates(img, hints, params)?;
    Ok(all.swap_remove(0))
}

/// Every lattice that passed the tests, best first (never empty): what
/// [`find_grid`] chose from, for diagnostics.
///
/// Errors: as [`find_grid`].
pub fn find_candidates(
    img: &RgbImage,
    hints: Hints,
    params: &FindParams,
) -> Result<Vec<FoundGrid>, VisionError> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let least = (2.0 * params.min_pitch * params.min_cells as f64) as usize;
    if (w * h) as f64 >= params.reduce_above && w >= least && h >= least {
        // A large picture is searched at half size first (a quarter of the
        // pixels; its pitches from twice the least), the lattices found
        // mapped back and their cells sampled at full size. Nothing found
        // there (a board of small tiles): the full-size search.
        let half = half_size(img);
        let p2 = FindParams {
            max_pitch: params.max_pitch / 2.0,
            halved: true,
            ..*params
        };
        if let Ok(found) = search(&half, hints, &p2) {
            return Ok(found.into_iter().map(|f| doubled(img, f, params)).collect());
        }
    }
    search(img, hints, params)
}

/// The picture at half size (each pixel the mean of a 2x2 block).
fn half_size(img: &RgbImage) -> RgbImage {
    let (w, h) = (img.width() as usize / 2, img.height() as usize / 2);
    let src = img.as_raw();
    let stride = img.width() as usize * 3;
    let mut out = vec![0u8; w * h * 3];
    for y in 0..h {
        let (r0, r1) = (&src[2 * y * stride..], &src[(2 * y + 1) * stride..]);
        let o = &mut out[y * w * 3..(y + 1) * w * 3];
        for x in 0..w {
            for k in 0..3 {
                let i = 6 * x + k;
                let s = r0[i] as u16 + r0[i + 3] as u16 + r1[i] as u16 + r1[i + 3] as u16;
                o[3 * x + k] = ((s + 2) / 4) as u8;
            }
        }
    }
    RgbImage::from_raw(w as u32, h as u32, out).unwrap_or_else(|| img.clone())
}

/// A lattice found on the half-size picture, in the full picture's pixels,
/// its cells sampled there.
fn doubled(img: &RgbImage, f: FoundGrid, params: &FindParams) -> FoundGrid {
    let g = f.grid;
    let grid = Grid {
        left: 2.0 * g.left,
        top: 2.0 * g.top,
        cell_width: 2.0 * g.cell_width,
        cell_height: 2.0 * g.cell_height,
        gap_x: 2.0 * g.gap_x,
        gap_y: 2.0 * g.gap_y,
    };
    let f = FoundGrid {
        grid,
        score: 2.0 * f.score,
        ..f
    };
    let (xs, ys) = axes_of(&f);
    let cells = sample_cells(img, &xs, &ys, params)
        .into_iter()
        .map(|c| c.0)
        .collect();
    FoundGrid { cells, ..f }
}

/// [`find_candidates`] at the picture's own size.
fn search(
    img: &RgbImage,
    hints: Hints,
    params: &FindParams,
) -> Result<Vec<FoundGrid>, VisionError> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let least = (params.min_pitch * params.min_cells as f64) as usize;
    if w < least || h < least {
        return Err(no_board(format!(
            "the picture is {w}x{h}, smaller than {} tiles of {} pixels",
            params.min_cells, params.min_pitch
        )));
    }
    let edges = Edges::new(img, params);
    // Candidate combs per axis: over the whole picture and over three bands
    // (top, middle and bottom half; left, middle, right half), so a board
    // that fills only part of the picture is not drowned by UI elsewhere.
    let bands = |n: usize| [(0, n), (0, n / 2), (n / 4, 3 * n / 4), (n / 2, n)];
    let mut cx: Vec<Comb> = Vec::new();
    let mut cy: Vec<Comb> = Vec::new();
    // The eight ladders run in parallel; their results are merged in a fixed
    // order (deterministic).
    let jobs: Vec<(bool, usize, (usize, usize))> = bands(h)
        .iter()
        .enumerate()
        .map(|(i, &r)| (true, i, r))
        .chain(bands(w).iter().enumerate().map(|(i, &r)| (false, i, r)))
        .collect();
    let found: Vec<(bool, Vec<Comb>)> = jobs
        .par_iter()
        .map(|&(vertical, i, (a, b))| {
            let keep = if i == 0 { params.candidates } else { 2 };
            let p = if vertical {
                edges.x_profile(a, b)
            } else {
                edges.y_profile(a, b)
            };
            (vertical, combs(&p, params, keep))
        })
        .collect();
    // `--log trace`: each band's combs.
    for ((vertical, _, band), list) in jobs.iter().zip(&found) {
        for c in &list.1 {
            tracing::trace!(
                "band {band:?} vertical {vertical}: pitch {:.2} phase {:.1} teeth {}..{} score {:.1} periodicity {:.2}",
                c.pitch, c.phase, c.k0, c.k1, c.score, c.periodicity
            );
        }
    }
    for (vertical, list) in found {
        add_combs(if vertical { &mut cx } else { &mut cy }, list);
    }
    // Combs at the lags where the edge map repeats itself ([`repeat`]): a
    // board of small tiles with symbols, whose profile has no comb of the
    // tiles' pitch among the best, or one at half of it.
    let (mut rx, mut ry): (Vec<Comb>, Vec<Comb>) = (Vec::new(), Vec::new());
    let reps = edge_repeats(img, (params.min_pitch, params.max_pitch), REPEAT_CELLS, 1);
    for (vertical, list) in [(true, &reps.x), (false, &reps.y)] {
        let p = if vertical {
            edges.x_profile(0, h)
        } else {
            edges.y_profile(0, w)
        };
        for r in list.iter().filter(|r| r.strength >= params.min_repeat) {
            let at = FindParams {
                min_pitch: (r.lag * 0.985).max(params.min_pitch),
                max_pitch: (r.lag * 1.015).min(params.max_pitch),
                pitch_step: 0.005,
                ..*params
            };
            let found = combs(&p, &at, 1);
            tracing::trace!(
                "repeat vertical {vertical} in {}x{}: lag {:.2} strength {:.3}: {:?}",
                w,
                h,
                r.lag,
                r.strength,
                found
                    .first()
                    .map(|c| (c.pitch, c.phase, c.k0, c.k1, c.periodicity))
            );
            let list = if vertical { &mut rx } else { &mut ry };
            list.extend(found);
        }
    }
    // Each axis' own list gets a repeat's comb only when it has none near
    // that pitch (the pairs of a picture whose combs were right stay as
    // they were); the repeats are paired with each other below.
    let missing = |list: &[Comb], new: &[Comb]| -> Vec<Comb> {
        new.iter()
            .filter(|c| list.iter().all(|o| (o.pitch / c.pitch - 1.0).abs() >= 0.03))
            .copied()
            .collect()
    };
    let (missing_x, missing_y) = (missing(&cx, &rx), missing(&cy, &ry));
    cx.extend(&missing_x);
    cy.extend(&missing_y);
    if cx.is_empty() && cy.is_empty() {
        return Err(no_board("no periodic edges (no tile grid) in the picture"));
    }
    // Pair each comb with the best combs of the other axis over its extent.
    let span = |c: &Comb, n: usize| {
        let a = (c.tooth(c.k0) - 0.5 * c.pitch).floor().max(0.0) as usize;
        let b = ((c.tooth(c.k1) + 0.5 * c.pitch).ceil() as usize).min(n);
        (a.min(b.saturating_sub(1)), b)
    };
    // Tiles are at most twice as long as wide: the other axis' pitch ladder
    // only covers half to twice this one's pitch.
    let near = |c: &Comb| FindParams {
        min_pitch: (c.pitch * 0.5).max(params.min_pitch),
        max_pitch: (c.pitch * 2.0).min(params.max_pitch),
        ..*params
    };
    // Square tiles (the common case) are always tried.
    let square = |c: &Comb| FindParams {
        min_pitch: (c.pitch * 0.97).max(params.min_pitch),
        max_pitch: (c.pitch * 1.03).min(params.max_pitch),
        pitch_step: 0.005,
        ..*params
    };
    // The other axis' comb over this one's extent, and again over only the
    // stretch of the other axis where this comb's lattice holds (so text or
    // UI beside the board cannot set the other pitch).
    let shifted = |c: Comb, by: usize| Comb {
        phase: c.phase + by as f64,
        ..c
    };
    // Where the comb's lattice holds, by absolute tooth contrast (other
    // pitches near this one are tried there, and square tiles), and by
    // relative contrast when that finds another stretch (square tiles only:
    // the board beside a denser bar or text of its pitch).
    let supports = |c: &Comb, vertical: bool| -> Vec<((usize, usize), bool)> {
        let mut out: Vec<((usize, usize), bool)> = Vec::with_capacity(2);
        for relative in [false, true] {
            if let Some(s) = edges.support(c, vertical, relative) {
                if !out.iter().any(|o| o.0 == s) {
                    out.push((s, !relative));
                }
            }
        }
        out
    };
    let pair_x = |a: &Comb| -> Vec<(Comb, Comb)> {
        let mut out = Vec::new();
        let (x0, x1) = span(a, w);
        let py = edges.y_profile(x0, x1);
        for b in combs(&py, &near(a), 2) {
            out.push((*a, b));
        }
        for ((y0, y1), any) in supports(a, true) {
            let near = if any {
                combs(&py[y0..y1], &near(a), 2)
            } else {
                Vec::new()
            };
            for b in near.into_iter().chain(combs(&py[y0..y1], &square(a), 1)) {
                out.push((*a, shifted(b, y0)));
            }
        }
        out
    };
    let pair_y = |b: &Comb| -> Vec<(Comb, Comb)> {
        let mut out = Vec::new();
        let (y0, y1) = span(b, h);
        let px = edges.x_profile(y0, y1);
        for a in combs(&px, &near(b), 2) {
            out.push((a, *b));
        }
        for ((x0, x1), any) in supports(b, false) {
            let near = if any {
                combs(&px[x0..x1], &near(b), 2)
            } else {
                Vec::new()
            };
            for a in near.into_iter().chain(combs(&px[x0..x1], &square(b), 1)) {
                out.push((shifted(a, x0), *b));
            }
        }
        out
    };
    let axes: Vec<(bool, Comb)> = cx
        .iter()
        .map(|&c| (true, c))
        .chain(cy.iter().map(|&c| (false, c)))
        .collect();
    let pairs: Vec<(Comb, Comb)> = axes
        .par_iter()
        .map(|(vertical, c)| if *vertical { pair_x(c) } else { pair_y(c) })
        .collect::<Vec<_>>()
        .into_iter()
        .flatten()
        // The repeats of both axes with each other, when either was
        // missing from its axis' list (each axis' comb pairs only with the
        // other axis' combs over its own extent above).
        .chain(
            rx.iter()
                .flat_map(|a| ry.iter().map(|b| (*a, *b)))
                .filter(|(a, b)| missing_x.contains(a) || missing_y.contains(b)),
        )
        .collect();
    // Pairs found from both axes (or from the whole picture and a band) are
    // often the same lattice: evaluate each once.
    let mut unique: Vec<(Comb, Comb)> = Vec::with_capacity(pairs.len());
    for p in pairs {
        if !unique
            .iter()
            .any(|u| same_comb(&u.0, &p.0) && same_comb(&u.1, &p.1))
        {
            unique.push(p);
        }
    }
    let pairs = unique;
    let mut all: Vec<FoundGrid> = Vec::new();
    let mut why = String::from("no candidate grid");

    let pairs: Vec<&(Comb, Comb)> = pairs
        .iter()
        .filter(|(a, b)| (0.5..=2.0).contains(&(a.pitch / b.pitch)))
        .collect();
    let results: Vec<Result<Vec<FoundGrid>, String>> = pairs
        .par_iter()
        .map(|(a, b)| evaluate(img, &edges, (*a, *b), &reps, hints, params))
        .collect();
    for (r, (a, b)) in results.into_iter().zip(pairs) {
        match r {
            Ok(mut f) => {
                for g in &f {
                    tracing::trace!(
                        "combs {:.2}@{:.1} x {:.2}@{:.1}: a {}x{} lattice, score {:.1}",
                        a.pitch,
                        a.phase,
                        b.pitch,
                        b.phase,
                        g.rows,
                        g.cols,
                        g.score
                    );
                }
                all.append(&mut f)
            }
            Err(e) => {
                // `--log trace`: why each pair of combs gave no lattice.
                tracing::trace!(
                    "combs {:.2}@{:.1} x {:.2}@{:.1}: {e}",
                    a.pitch,
                    a.phase,
                    b.pitch,
                    b.phase
                );
                why = e
            }
        }
    }
    all.extend(blob_candidates(img, &edges, hints, params));
    if all.is_empty() {
        return Err(no_board(why));
    }
    all.sort_by(|a, b| b.score.total_cmp(&a.score));
    // A lattice twice too coarse along an axis passes every test above (its
    // cells are uniform, its sides are edges); the finer lattice explains
    // the picture better when it passes them too.
    for vertical in [true, false] {
        for parts in [2, 3] {
            if let Some(finer) = divided(img, &edges, &all[0], vertical, parts, hints, params)
                .filter(|f| f.score >= params.finer_score * all[0].score)
            {
                all.insert(0, finer);
                break;
            }
        }
    }
    Ok(all)
}

/// Edge repeats are looked for at lags the picture holds at least this
/// many times: the match of a lag seen only a few times says little (the
/// tiles' own drawing outweighs it), and large tiles have combs of their
/// own.
const REPEAT_CELLS: usize = 6;

/// How far (a share of the pitch) a comb may be from an edge repeat's lag
/// and still be vouched for by it.
const REPEAT_TOLERANCE: f64 = 0.02;

/// Least size of the blobs, in pitches, of a lattice of small tiles looked
/// for at full size ([`picture_blob_lattices`]).
const FILLING: f64 = 0.6;

/// The picture's lattices of equal blobs ([`blob_lattices`]), a large
/// picture looked at half size, in the picture's pixels.
///
/// Tiles too small to be seen at half size (under `2 * min_side` there)
/// are looked for at full size too, in pictures of up to
/// [`BlobParams::small_tiles_up_to`] pixels: a large board of small tiles
/// (15x20 circles of 18 pixels, touching) often has no comb of its own.
/// Those are blobs filling most of their pitch, unless no lattice was
/// found at half size: then small blobs of any share of the pitch (the
/// faces of gems with a symbol, blurred: synthetic seed 3241, 19x17 gems
/// of 17 pixels whose faces are 9 wide, no comb at their pitch).
pub fn picture_blob_lattices(img: &RgbImage, params: &FindParams) -> Vec<BlobLattice> {
    let cells = (params.min_cells, params.max_cells);
    let pixels = (img.width() * img.height()) as f64;
    if pixels <= params.blobs.reduce_above {
        return blob_lattices(img, &params.blobs, cells);
    }
    let mut all: Vec<BlobLattice> = blob_lattices(&half_size(img), &params.blobs, cells)
        .into_iter()
        .map(|l| l.scaled(2.0))
        .collect();
    if pixels <= params.blobs.small_tiles_up_to {
        // Tiles, not their symbols or highlight dots (whose centres
        // need not be the tiles'): blobs filling most of the pitch.
        let filling =
            |l: &BlobLattice| l.x.size >= FILLING * l.x.pitch && l.y.size >= FILLING * l.y.pitch;
        let unseen = 4.0 * params.blobs.min_side as f64;
        // In a half-size copy of a large picture (a phone's screen), tiles
        // apart by thin lines merge at half size again (a one-pixel border
        // is a quarter of one there): a lattice of them is missing where
        // that shows no lattice of about their pitch with as many sites
        // (only the pieces on some of them).
        let near = |a: f64, b: f64| (a / b - 1.0).abs() <= 0.1;
        let sites = |l: &BlobLattice| l.x.count * l.y.count;
        let missed = |l: &BlobLattice, all: &[BlobLattice]| {
            !all.iter().any(|m| {
                near(m.x.pitch, l.x.pitch) && near(m.y.pitch, l.y.pitch) && sites(m) >= sites(l)
            })
        };
        // Small blobs of any share of the pitch when none at half size.
        let none_halved = all.is_empty();
        let full: Vec<BlobLattice> = blob_lattices(img, &params.blobs, cells)
            .into_iter()
            .filter(|l| {
                none_halved && l.x.size.min(l.y.size) < unseen
                    || filling(l)
                        && (l.x.size.min(l.y.size) < unseen || params.halved && missed(l, &all))
            })
            .collect();
        all.extend(full);
    }
    all
}

/// The lattices of equal blobs of colour ([`blob_lattices`]) that pass the
/// lattice tests: candidates found without the edge combs (a board of
/// circles with symbols, whose comb at a third of the pitch or a pixel-font
/// bar's comb wins over its own).
fn blob_candidates(
    img: &RgbImage,
    edges: &Edges,
    hints: Hints,
    params: &FindParams,
) -> Vec<FoundGrid> {
    picture_blob_lattices(img, params)
        .iter()
        .filter_map(|l| {
            let judge = |l: &BlobLattice| judge_blobs(img, edges, l, hints, params, Source::Blobs);
            judge(l)
                .or_else(|| judge(&gapless(l)))
                .or_else(|| judge(&dual(l)))
                .or_else(|| judge(&gapless(&dual(l))))
                .or_else(|| {
                    shifts(l)
                        .iter()
                        .filter_map(judge)
                        .max_by(|a, b| a.score.total_cmp(&b.score))
                })
        })
        .map(|f| FoundGrid {
            from_blobs: true,
            ..f
        })
        .collect()
}

/// The lattices of equal blobs, those refused for their cells being mostly
/// alike ([`SPARSE_REFUSALS`]) included, with sites as few as
/// [`SPARSE_OCCUPIED`] holding a blob: a board of a few pieces on many
/// empty cells (Five or More at its start, whose empty cells are the
/// blobs; pieces scattered on a panel; a collapse game near its end).
/// Those refused score 0; in the order found. For a reader
/// that holds them to more than a lattice of tiles: the board's frame
/// seen round them, pieces of two colours (see `calibrate::read_sparse`).
pub fn sparse_candidates(img: &RgbImage, hints: Hints, params: &FindParams) -> Vec<FoundGrid> {
    let edges = Edges::new(img, params);
    let params = &FindParams {
        blobs: BlobParams {
            min_occupied: SPARSE_OCCUPIED,
            ..params.blobs
        },
        ..*params
    };
    picture_blob_lattices(img, params)
        .iter()
        .filter_map(|l| judge_blobs(img, &edges, l, hints, params, Source::Sparse))
        .map(|f| FoundGrid {
            from_blobs: true,
            ..f
        })
        .collect()
}

/// Lattices over tiles alike standing side by side ([`few_blob_lattices`]),
/// too few or too scattered for a lattice of blobs: where they are and
/// their pitch, not where the board ends (their extent is the tiles').
/// Taken only as a board framed on its panel (`calibrate::read_sparse`).
pub fn few_candidates(img: &RgbImage, params: &FindParams) -> Vec<FoundGrid> {
    few_blob_lattices(img, &params.blobs)
        .iter()
        .filter(|l| (params.min_pitch..=params.max_pitch).contains(&l.x.pitch.min(l.y.pitch)))
        .map(|l| {
            let (xs, ys) = (blob_axis(l.x, params), blob_axis(l.y, params));
            let cells = sample_blob_cells(img, &xs, &ys, params);
            FoundGrid {
                from_blobs: true,
                ..unscored(&xs, &ys, &cells, params)
            }
        })
        .collect()
}

/// The lattice of blobs `l` through the lattice tests (`judged`, as
/// `source`), when it fits the hints and the pitch limits.
fn judge_blobs(
    img: &RgbImage,
    edges: &Edges,
    l: &BlobLattice,
    hints: Hints,
    params: &FindParams,
    source: Source,
) -> Option<FoundGrid> {
    let fits = hints.cols.is_none_or(|c| c == l.x.count)
        && hints.rows.is_none_or(|r| r == l.y.count)
        && (params.min_pitch..=params.max_pitch).contains(&l.x.pitch.min(l.y.pitch));
    if !fits {
        return None;
    }
    judged(
        img,
        edges,
        blob_axis(l.x, params),
        blob_axis(l.y, params),
        hints,
        params,
        source,
    )
    .map_err(|e| tracing::debug!("blob lattice refused: {e}"))
    .ok()
}

/// A lattice axis of blobs as the finder's: tiles the blobs' size, at
/// least `min_tile` of the pitch.
fn blob_axis(a: BlobAxis, params: &FindParams) -> Axis {
    Axis {
        pitch: a.pitch,
        centre: a.first,
        count: a.count,
        tile: a.size.clamp(params.min_tile * a.pitch, a.pitch),
    }
}

/// The lattice half a pitch off a lattice of blobs, a line longer each way
/// (trimmed by `judged`). Diamonds tile the plane with the backdrop between
/// them in diamonds of their own size, on the lattice offset by half a
/// pitch both ways: when a lattice of blobs is refused (its cells one
/// backdrop colour, or two in a checker), this one is tried. The blobs may
/// also be the backdrop showing between tiles that nearly touch (gems with
/// their corners cut): then the tiles fill the pitch but for a gap of
/// unknown width, tried as none ([`gapless`]).
fn dual(l: &BlobLattice) -> BlobLattice {
    shifted(l, 2, 2)
}

/// A lattice of blobs with tiles filling the pitch: the blobs may be
/// smaller than the tiles (a face inside an outline, the tile less a
/// blurred rim), and a gap taken from their size would lie inside the
/// tiles (`judged`: "the gaps look like tiles"); tiles that nearly touch
/// are read as well with no gap.
fn gapless(l: &BlobLattice) -> BlobLattice {
    let whole = |a: BlobAxis| BlobAxis { size: a.pitch, ..a };
    BlobLattice {
        x: whole(l.x),
        y: whole(l.y),
        ..*l
    }
}

/// The lattice of blobs `l` moved by quarters of its pitch along each
/// axis (a line longer each way where moved; `dual` is the half both
/// ways): blobs that are the backdrop showing between tiles (a checker
/// behind diamonds) need not sit half a pitch off the tiles.
fn shifts(l: &BlobLattice) -> Vec<BlobLattice> {
    (0..4)
        .flat_map(|qx| (0..4).map(move |qy| (qx, qy)))
        .filter(|&q| q != (0, 0) && q != (2, 2))
        .map(|(qx, qy)| shifted(l, qx, qy))
        .collect()
}

/// The lattice of blobs `l` moved back by `qx` and `qy` quarters of its
/// pitch, a line longer along each axis it moves on.
fn shifted(l: &BlobLattice, qx: usize, qy: usize) -> BlobLattice {
    let moved = |a: BlobAxis, q: usize| BlobAxis {
        first: a.first - 0.25 * q as f64 * a.pitch,
        count: a.count + usize::from(q > 0),
        ..a
    };
    BlobLattice {
        x: moved(l.x, qx),
        y: moved(l.y, qy),
        ..*l
    }
}

/// The axes of a found grid.
fn axes_of(f: &FoundGrid) -> (Axis, Axis) {
    let g = &f.grid;
    (
        Axis {
            pitch: g.pitch_x(),
            centre: g.left + g.cell_width / 2.0,
            count: f.cols,
            tile: g.cell_width,
        },
        Axis {
            pitch: g.pitch_y(),
            centre: g.top + g.cell_height / 2.0,
            count: f.rows,
            tile: g.cell_height,
        },
    )
}

/// The lattice at a `parts`-th (2 or 3) of the pitch of `f` along one axis
/// (columns when `vertical`), when its cells pass the lattice tests at some
/// phase (halves: tile centres between `f`'s, or `f`'s own centres and the
/// lines between them; thirds: `f`'s centres and a third of a pitch either
/// side) and the cells it adds are not mostly one colour (gaps between
/// tiles); then found again at that pitch (refined pitch, tile size,
/// extent).
fn divided(
    img: &RgbImage,
    edges: &Edges,
    f: &FoundGrid,
    vertical: bool,
    parts: usize,
    hints: Hints,
    params: &FindParams,
) -> Option<FoundGrid> {
    let (xs, ys) = axes_of(f);
    let (a, b) = if vertical { (xs, ys) } else { (ys, xs) };
    let fixed = if vertical { hints.cols } else { hints.rows };
    let small = a.pitch / parts as f64;
    if fixed.is_some() || parts * a.count > params.max_cells || small < params.min_pitch {
        return None;
    }
    // (first centre, count, whether every other cell is new).
    let phases: Vec<(f64, usize, bool)> = if parts == 2 {
        vec![
            (a.centre - small / 2.0, 2 * a.count, false),
            (a.centre - small, 2 * a.count + 1, true),
        ]
    } else {
        vec![(a.centre - small, parts * a.count, false)]
    };
    let passes = phases.iter().any(|&(centre, count, alternate)| {
        let fine = Axis {
            pitch: small,
            centre,
            count,
            tile: small * 0.8,
        };
        let (fx, fy) = if vertical { (fine, b) } else { (b, fine) };
        let cells = sample_cells(img, &fx, &fy, params);
        if score_lattice(&cells, &fx, &fy, params).is_err() {
            return false;
        }
        // The outer parts of one of `f`'s cells (symmetric about its centre,
        // so alike on a tile with a symbol) must differ about as much as
        // neighbours across its sides (else `f` was right: its tiles cut
        // into parts).
        if !alternate {
            let (mut d, mut n) = ([0f64; 2], [0usize; 2]);
            let (rows, cols) = (fy.count, fx.count);
            let at = |r: usize, c: usize, k: usize| {
                if vertical {
                    (c + k < cols).then(|| r * cols + c + k)
                } else {
                    (r + k < rows).then(|| (r + k) * cols + c)
                }
            };
            for r in 0..rows {
                for c in 0..cols {
                    let k = if vertical { c } else { r };
                    let (step, kind) = match k % parts {
                        0 => (parts - 1, 0),
                        m if m == parts - 1 => (1, 1),
                        _ => continue,
                    };
                    let Some(j) = at(r, c, step) else { continue };
                    d[kind] += delta_e(cells[r * cols + c].0, cells[j].0).min(40.0) as f64;
                    n[kind] += 1;
                }
            }
            let mean = |i: usize| d[i] / n[i].max(1) as f64;
            if mean(0) < 0.5 * mean(1) {
                return false;
            }
        }
        // The added cells (every other one along the axis at the second
        // phase of halves) must not be one colour.
        if alternate {
            let added: Vec<(Lab, f32)> = cells
                .iter()
                .enumerate()
                .filter(|(i, _)| {
                    let k = if vertical { i % fx.count } else { i / fx.count };
                    k % 2 == 0
                })
                .map(|(_, c)| *c)
                .collect();
            if mode_fraction(&added) > params.max_mode {
                return false;
            }
        }
        true
    });
    if !passes {
        return None;
    }
    // Find it again at the finer pitch over the same stretch.
    let (ya0, ya1) = band_of(&b, 0, b.count, if vertical { edges.h } else { edges.w });
    let (xa0, xa1) = band_of(&a, 0, a.count, if vertical { edges.w } else { edges.h });
    let (pa, pb) = if vertical {
        (edges.x_profile(ya0, ya1), edges.y_profile(xa0, xa1))
    } else {
        (edges.y_profile(ya0, ya1), edges.x_profile(xa0, xa1))
    };
    let around = |pitch: f64| FindParams {
        min_pitch: (pitch * 0.97).max(params.min_pitch),
        max_pitch: (pitch * 1.03).min(params.max_pitch),
        pitch_step: 0.005,
        ..*params
    };
    let ca = combs(&pa, &around(small), 1).into_iter().next()?;
    let cb = combs(&pb, &around(b.pitch), 1).into_iter().next()?;
    let (cx, cy) = if vertical { (ca, cb) } else { (cb, ca) };
    let found = evaluate(img, edges, (cx, cy), &Repeats::default(), hints, params).ok()?;
    let count = |g: &FoundGrid| if vertical { g.cols } else { g.rows };
    found
        .into_iter()
        .filter(|g| 4 * count(g) > 3 * parts * a.count && count(g) > a.count)
        .max_by(|x, y| x.score.total_cmp(&y.score))
}

/// True when two combs describe the same teeth: pitches within 1.5 %, the
/// same phase (within their slack and 2 pixels) and first and last teeth
/// within a pitch of each other.
fn same_comb(a: &Comb, b: &Comb) -> bool {
    let pitch = 0.5 * (a.pitch + b.pitch);
    let d = (a.phase - b.phase).rem_euclid(pitch);
    (a.pitch / b.pitch - 1.0).abs() < 0.015
        && d.min(pitch - d) <= a.slack.max(b.slack) + 2.0
        && (a.tooth(a.k0) - b.tooth(b.k0)).abs() < pitch
        && (a.tooth(a.k1) - b.tooth(b.k1)).abs() < pitch
}

/// Adds combs to a candidate list, skipping near-duplicates (pitch within 3 %
/// and overlapping extents).
fn add_combs(list: &mut Vec<Comb>, new: Vec<Comb>) {
    for c in new {
        let dup = list.iter().position(|o| {
            (o.pitch / c.pitch - 1.0).abs() < 0.06
                && o.tooth(o.k0) <= c.tooth(c.k1)
                && c.tooth(c.k0) <= o.tooth(o.k1)
        });
        match dup {
            Some(i) if list[i].score < c.score => list[i] = c,
            Some(_) => {}
            None => list.push(c),
        }
    }
}

/// Refines one pair of combs to a lattice and tests it.
///
/// A comb at the pitch of one of the picture's strong edge `repeats` is
/// held to [`FindParams::repeat_periodicity`] instead of
/// [`FindParams::min_periodicity`]: the edge map matching itself at that
/// lag already says the picture is periodic there (diamonds, whose sides
/// are not upright, give soft teeth in a profile).
fn evaluate(
    img: &RgbImage,
    edges: &Edges,
    (cx, cy): (Comb, Comb),
    repeats: &Repeats,
    hints: Hints,
    params: &FindParams,
) -> Result<Vec<FoundGrid>, String> {
    let (w, h) = (edges.w, edges.h);
    // Ranges (pixel) of the current estimate along each axis.
    let mut xr = (cx.tooth(cx.k0), cx.tooth(cx.k1));
    let mut yr = (cy.tooth(cy.k0), cy.tooth(cy.k1));
    let (mut ca, mut cb) = (cx, cy);
    let mut result: Option<(Vec<Axis>, Vec<Axis>)> = None;
    for round in 0..2 {
        let band = |r: (f64, f64), n: usize| {
            let a = r.0.floor().max(0.0) as usize;
            let b = (r.1.ceil() as usize + 1).min(n);
            (a.min(b.saturating_sub(1)), b)
        };
        let (y0, y1) = band(yr, h);
        let (x0, x1) = band(xr, w);
        let px = edges.x_profile(y0, y1);
        let py = edges.y_profile(x0, x1);
        if round > 0 {
            // Re-run the comb on the restricted profiles near the same pitch.
            ca = recomb(&px, ca, xr, params).unwrap_or(ca);
            cb = recomb(&py, cb, yr, params).unwrap_or(cb);
        }
        let ra = refine(&px, ca, params);
        let rb = refine(&py, cb, params);
        let axes = |p: &[f32], c: &Comb, hint: Option<usize>| -> Vec<Axis> {
            let bins = (c.pitch.round() as usize).clamp(8, 256);
            let f = fold(p, c, bins);
            let core = (c.tooth(c.k0), c.tooth(c.k1));
            symmetry_centres(&f, c.pitch)
                .iter()
                .filter(|&&(_, tile)| tile >= params.min_tile * c.pitch)
                .filter_map(|&(off, tile)| {
                    let centre = c.phase + off;
                    let (first, count) = extent(p, c.pitch, centre, tile, core, params, hint)?;
                    (params.min_cells..=params.max_cells)
                        .contains(&count)
                        .then_some(Axis {
                            pitch: c.pitch,
                            // Profile index i is the edge at pixel position i + 1.
                            centre: first + 1.0,
                            count,
                            tile,
                        })
                })
                .collect()
        };
        let xa = axes(&px, &ra, hints.cols);
        let ya = axes(&py, &rb, hints.rows);
        if xa.is_empty() || ya.is_empty() {
            return Err(format!(
                "edges repeat every {:.1} x {:.1} pixels but no run of {}..{} tiles has edges on both sides",
                ra.pitch, rb.pitch, params.min_cells, params.max_cells
            ));
        }
        // Narrow the ranges to the first candidates' extents for the next round.
        let span = |a: &Axis| {
            (
                a.centre - a.pitch / 2.0,
                a.centre + (a.count as f64 - 0.5) * a.pitch,
            )
        };
        xr = span(&xa[0]);
        yr = span(&ya[0]);
        ca = ra;
        cb = rb;
        result = Some((xa, ya));
    }
    let Some((xa, ya)) = result else {
        return Err("no lattice".into());
    };
    let need = |c: &Comb, lags: &[Repeat]| {
        let repeats = lags.iter().any(|r| {
            r.strength >= params.min_repeat && (c.pitch / r.lag - 1.0).abs() < REPEAT_TOLERANCE
        });
        if repeats {
            params.repeat_periodicity
        } else {
            params.min_periodicity
        }
    };
    let (na, nb) = (need(&ca, &repeats.x), need(&cb, &repeats.y));
    if ca.periodicity < na || cb.periodicity < nb {
        return Err(format!(
            "edges are weakly periodic (teeth {:.2}x / {:.2}x the strength between them, need {:.2}x / {:.2}x)",
            ca.periodicity, cb.periodicity, na, nb
        ));
    }
    // Vouched for on both axes: the tile sides are held to the lesser
    // periodicity too, and the gaps are not looked at (see
    // [`Source::Repeats`]).
    let source = if na.max(nb) < params.min_periodicity {
        Source::Repeats
    } else {
        Source::Edges
    };
    let mut found: Vec<FoundGrid> = Vec::new();
    let mut why = String::new();
    for xs in &xa {
        for ys in &ya {
            match judged(img, edges, *xs, *ys, hints, params, source) {
                Ok(f) => found.push(f),
                Err(e) => {
                    tracing::trace!(
                        "lattice at ({:.1}, {:.1}) tile {:.1}x{:.1}: {e}",
                        xs.centre,
                        ys.centre,
                        xs.tile,
                        ys.tile
                    );
                    why = e
                }
            }
        }
    }
    if found.is_empty() {
        Err(why)
    } else {
        Ok(found)
    }
}

/// Where a lattice judged by [`judged`] came from.
#[derive(Clone, Copy, PartialEq)]
enum Source {
    /// The edge combs: trimmed by its edges as well as by its cells, and
    /// held to strong edges at the tile sides.
    Edges,
    /// The edge combs at the pitches where the picture's edge map repeats
    /// itself on both axes ([`super::repeat`]): as [`Source::Edges`] with
    /// the tile sides held to [`FindParams::repeat_periodicity`], and no
    /// test of the gaps (the tips of diamonds meet across them; a lattice
    /// half a pitch off, the one that test is for, has its cells on the
    /// gaps and corners and fails the cell tests).
    Repeats,
    /// A lattice of equal blobs, each closed by its own edges: no test of
    /// the sides (tiles whose outline is not upright, diamonds or
    /// hexagons, have weak edges at their box sides).
    Blobs,
    /// A lattice of equal blobs taken only when it fails for its cells
    /// being mostly alike ([`SPARSE_REFUSALS`], see [`sparse_candidates`]).
    Sparse,
}

/// Samples, trims and tests one lattice (step 7 of the module docs): the
/// found grid with its score, or why it is no board.
fn judged(
    img: &RgbImage,
    edges: &Edges,
    xs: Axis,
    ys: Axis,
    hints: Hints,
    params: &FindParams,
    source: Source,
) -> Result<FoundGrid, String> {
    let (mut xs, mut ys) = (xs, ys);
    let mut cells = match source {
        Source::Blobs | Source::Sparse => sample_blob_cells(img, &xs, &ys, params),
        Source::Edges | Source::Repeats => sample_cells(img, &xs, &ys, params),
    };
    trim(&mut cells, &mut xs, &mut ys, hints, params);
    if matches!(source, Source::Edges | Source::Repeats) {
        trim_by_edges(edges, &mut cells, &mut xs, &mut ys, hints, params);
    }
    let (xs, ys) = (&xs, &ys);
    let sides = side_ratio(edges, xs, ys);
    let min_sides = match source {
        Source::Blobs | Source::Sparse => 0.0,
        Source::Edges => params.min_periodicity,
        Source::Repeats => params.repeat_periodicity,
    };
    let scored = match (source, score_lattice(&cells, xs, ys, params)) {
        (Source::Sparse, Err(why)) if SPARSE_REFUSALS.contains(&why) => {
            return Ok(unscored(xs, ys, &cells, params));
        }
        (_, scored) => scored,
    };
    let scored = scored.and_then(|s| {
        if sides < min_sides {
            Err("weak edges at the tile sides")
        } else if source != Source::Repeats && !gaps_plain(img, &cells, xs, ys, s.2) {
            Err("the gaps look like tiles")
        } else {
            Ok(s)
        }
    });
    match scored {
        Ok((score, uniform, contrast)) => {
            let (fx, fy) = line_fractions(edges, xs, ys);
            let score = score * (sides.min(100.0) as f64).sqrt() * (fx * fy).powi(2);
            Ok(found_grid(xs, ys, &cells, (score, uniform, contrast)))
        }
        Err(why) => {
            let uniform = uniform_cells(&cells, params);
            Err(format!(
                "a {}x{} lattice of {:.1}x{:.1} pixels ({uniform} of {} cells uniform): {why}",
                ys.count,
                xs.count,
                xs.pitch,
                ys.pitch,
                cells.len()
            ))
        }
    }
}

/// A lattice handed over with no score (a board of pieces on many empty
/// cells, which the lattice tests refuse): its share of uniform cells only.
fn unscored(xs: &Axis, ys: &Axis, cells: &[(Lab, f32)], params: &FindParams) -> FoundGrid {
    let uniform = uniform_cells(cells, params) as f64 / cells.len().max(1) as f64;
    found_grid(xs, ys, cells, (0.0, uniform, 0.0))
}

/// What a lattice that passed its tests is handed over as: its axes, its
/// cells and `(score, uniform, contrast)`.
fn found_grid(
    xs: &Axis,
    ys: &Axis,
    cells: &[(Lab, f32)],
    (score, uniform, contrast): (f64, f64, f32),
) -> FoundGrid {
    let grid = Grid {
        left: xs.centre - xs.tile / 2.0,
        top: ys.centre - ys.tile / 2.0,
        cell_width: xs.tile,
        cell_height: ys.tile,
        gap_x: xs.pitch - xs.tile,
        gap_y: ys.pitch - ys.tile,
    };
    FoundGrid {
        rows: ys.count,
        cols: xs.count,
        grid,
        uniform,
        contrast,
        score,
        cells: cells.iter().map(|c| c.0).collect(),
        from_blobs: false,
    }
}

/// Least fraction of a sparse lattice's sites holding a blob
/// ([`sparse_candidates`]: pieces scattered over a board, the lattice's
/// blobs being the pieces; the lattice test is that every blob lies on it).
const SPARSE_OCCUPIED: f64 = 0.1;

/// The lattice tests a board of a few pieces on many empty cells fails
/// (its cells are mostly one colour), by which [`sparse_candidates`] takes
/// a lattice of blobs.
const SPARSE_REFUSALS: [&str; 3] = [
    "too little contrast",
    "mostly one colour",
    "neighbours mostly alike",
];

/// True when the gaps between tiles look like a background, not like tiles:
/// along each axis with a clear gap (at least 4 pixels and a tenth of the
/// pitch), the gap's middle is sampled beside every tile (a short line
/// across the tile's width). A lattice at twice the pitch of the board (or
/// one pairing a row of UI with the board) claims gaps where tiles are: its
/// gap samples differ from each other like tiles do (at least half the
/// lattice's `contrast` between neighbours) and mostly match neither tile on
/// their two sides. A narrow gap, blurred, takes some colour from the tiles
/// beside it; the part of its steps that follows theirs is not counted. (On a board without gaps whose tile size was measured
/// short, the gap samples fall on the tiles' borders and match one side.)
fn gaps_plain(img: &RgbImage, cells: &[(Lab, f32)], xs: &Axis, ys: &Axis, contrast: f32) -> bool {
    let (w, h) = (img.width() as f64, img.height() as f64);
    let at = |x: f64, y: f64| {
        let x = x.clamp(0.0, w - 1.0) as u32;
        let y = y.clamp(0.0, h - 1.0) as u32;
        rgb_to_lab(img.get_pixel(x, y).0)
    };
    let cols = xs.count;
    // `a`: the axis across whose gaps we look; `b`: the other one.
    let check = |a: &Axis, b: &Axis, vertical: bool| -> bool {
        let gap = a.pitch - a.tile;
        if gap < 4.0 || gap < 0.1 * a.pitch || a.count < 2 || b.count < 2 {
            return true;
        }
        let cell = |i: usize, j: usize| {
            if vertical {
                cells[j * cols + i].0
            } else {
                cells[i * cols + j].0
            }
        };
        // Per gap sample, the sample and the mean of the two tiles beside it.
        let mut line: Vec<(Lab, Lab)> = Vec::with_capacity(b.count);
        let mut steps: Vec<([f32; 3], [f32; 3])> = Vec::new();
        let (mut matched, mut m) = (0usize, 0usize);
        for i in 0..a.count - 1 {
            let g = a.centre + (i as f64 + 0.5) * a.pitch;
            line.clear();
            for j in 0..b.count {
                let c = b.centre + j as f64 * b.pitch;
                let samples: Vec<Lab> = (-2..=2)
                    .map(|k| {
                        let t = c + k as f64 * 0.1 * b.tile;
                        if vertical {
                            at(g, t)
                        } else {
                            at(t, g)
                        }
                    })
                    .collect();
                let lab = robust_centre(&samples).0;
                let (p, q) = (cell(i, j), cell(i + 1, j));
                matched += (delta_e(lab, p).min(delta_e(lab, q)) < 12.0) as usize;
                m += 1;
                line.push((lab, std::array::from_fn(|k| 0.5 * (p[k] + q[k]))));
            }
            for pair in line.windows(2) {
                let d = |f: fn(&(Lab, Lab)) -> Lab| -> [f32; 3] {
                    std::array::from_fn(|k| f(&pair[1])[k] - f(&pair[0])[k])
                };
                steps.push((d(|s| s.0), d(|s| s.1)));
            }
        }
        // A narrow gap, blurred, takes some of the tiles' colour on its two
        // sides: the part of the steps between gap samples that follows the
        // steps of the tiles beside them (a least-squares share in 0..1) is
        // not counted.
        let dot = |u: &[f32; 3], v: &[f32; 3]| u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
        let (num, den) = steps.iter().fold((0f32, 0f32), |(n, d), (s, t)| {
            (n + dot(s, t), d + dot(t, t))
        });
        let share = if den > 0.0 {
            (num / den).clamp(0.0, 1.0)
        } else {
            0.0
        };
        // (Or not at all, when that leaves less: the share is fitted to
        // squares, the test sums distances.)
        let steps_sum = |share: f32| -> f32 {
            steps
                .iter()
                .map(|(s, t)| {
                    let r: [f32; 3] = std::array::from_fn(|k| s[k] - share * t[k]);
                    dot(&r, &r).sqrt().min(40.0)
                })
                .sum()
        };
        let sum = steps_sum(share).min(steps_sum(0.0));
        let n = steps.len();
        n == 0 || sum / (n as f32) < 0.5 * contrast || 2 * matched >= m
    };
    check(xs, ys, true) && check(ys, xs, false)
}

/// Edge strength at the tile sides of one lattice axis over a band of the
/// other: per tile, the strongest profile value near each side (within 8 % of
/// the pitch). Returns the per-tile means and the profile's mean over the span.
fn side_strengths(p: &[f32], a: &Axis) -> (Vec<f32>, f32) {
    let r = (0.08 * a.pitch).max(1.5);
    let near = |t: f64| {
        let (lo, hi) = (
            (t - r).floor().max(0.0) as usize,
            ((t + r).ceil() as usize).min(p.len()),
        );
        p[lo.min(hi)..hi].iter().copied().fold(0.0, f32::max)
    };
    let per: Vec<f32> = (0..a.count)
        .map(|i| {
            // Profile index = pixel position - 1.
            let c = a.centre + i as f64 * a.pitch - 1.0;
            0.5 * (near(c - a.tile / 2.0) + near(c + a.tile / 2.0))
        })
        .collect();
    let lo = (a.centre - a.pitch / 2.0).max(0.0) as usize;
    let hi = ((a.centre + (a.count as f64 - 0.5) * a.pitch) as usize).min(p.len());
    let mean = if hi > lo {
        p[lo..hi].iter().sum::<f32>() / (hi - lo) as f32
    } else {
        0.0
    };
    (per, mean)
}

/// The fraction of an axis' tiles whose two sides are edges and whose middle
/// is not: per tile, the strongest profile value near each side (within 8 %
/// of the pitch) must beat 1.5 x the strongest near its centre line (within
/// 4 %). A lattice at the right pitch has all of them; at twice the pitch the
/// middles are tile edges too, at half (or two thirds, three halves) the
/// pitch some sides fall inside tiles.
fn line_fraction(p: &[f32], a: &Axis) -> f64 {
    let near = |t: f64, r: f64| {
        let (lo, hi) = (
            (t - r).floor().max(0.0) as usize,
            ((t + r).ceil() as usize + 1).min(p.len()),
        );
        p[lo.min(hi)..hi].iter().copied().fold(0.0, f32::max)
    };
    let (rs, rm) = ((0.08 * a.pitch).max(1.5), (0.04 * a.pitch).max(1.0));
    let good = (0..a.count)
        .filter(|&i| {
            // Profile index = pixel position - 1.
            let c = a.centre + i as f64 * a.pitch - 1.0;
            let side = near(c - a.tile / 2.0, rs).min(near(c + a.tile / 2.0, rs));
            side > 1.5 * near(c, rm)
        })
        .count();
    good as f64 / a.count.max(1) as f64
}

/// [`line_fraction`] of both axes of a lattice (x, y).
fn line_fractions(edges: &Edges, xs: &Axis, ys: &Axis) -> (f64, f64) {
    let (y0, y1) = band_of(ys, 0, ys.count, edges.h);
    let (x0, x1) = band_of(xs, 0, xs.count, edges.w);
    (
        line_fraction(&edges.x_profile_in(y0, y1, window_of(xs)), xs),
        line_fraction(&edges.y_profile_in(x0, x1, window_of(ys)), ys),
    )
}

/// The profile indices an axis' measurements read: its span and a pitch
/// either side.
fn window_of(a: &Axis) -> (usize, usize) {
    let lo = (a.centre - 1.5 * a.pitch - 1.0).floor().max(0.0) as usize;
    let hi = (a.centre + (a.count as f64 + 0.5) * a.pitch + 1.0)
        .ceil()
        .max(0.0) as usize;
    (lo, hi)
}

/// The band of pixels `[a, b)` covered by tiles `i0..i1` of an axis.
fn band_of(a: &Axis, i0: usize, i1: usize, n: usize) -> (usize, usize) {
    let lo = (a.centre + i0 as f64 * a.pitch - a.tile / 2.0)
        .floor()
        .max(0.0) as usize;
    let hi = ((a.centre + (i1 as f64 - 1.0) * a.pitch + a.tile / 2.0)
        .ceil()
        .max(0.0) as usize)
        .min(n);
    (lo.min(hi.saturating_sub(1)), hi.max(lo + 1).min(n))
}

/// How clearly the lattice's tile sides are edges: the mean side strength
/// over the mean profile, the smaller of the two axes.
fn side_ratio(edges: &Edges, xs: &Axis, ys: &Axis) -> f32 {
    let (y0, y1) = band_of(ys, 0, ys.count, edges.h);
    let (x0, x1) = band_of(xs, 0, xs.count, edges.w);
    let (sx, mx) = side_strengths(&edges.x_profile_in(y0, y1, window_of(xs)), xs);
    let (sy, my) = side_strengths(&edges.y_profile_in(x0, x1, window_of(ys)), ys);
    let ratio = |s: &[f32], m: f32| s.iter().sum::<f32>() / s.len().max(1) as f32 / m.max(1e-3);
    ratio(&sx, mx).min(ratio(&sy, my))
}

/// Drops outer rows/columns without tile sides of their own: the vertical
/// edges inside an outer row (horizontal edges inside an outer column) at the
/// lattice's tile sides are weaker than a third of the median row's.
fn trim_by_edges(
    edges: &Edges,
    cells: &mut Vec<(Lab, f32)>,
    xs: &mut Axis,
    ys: &mut Axis,
    hints: Hints,
    params: &FindParams,
) {
    loop {
        let (rows, cols) = (ys.count, xs.count);
        let row_strength = |r: usize| {
            let (y0, y1) = band_of(ys, r, r + 1, edges.h);
            let (s, _) = side_strengths(&edges.x_profile_in(y0, y1, window_of(xs)), xs);
            s.iter().sum::<f32>() / s.len().max(1) as f32
        };
        let col_strength = |c: usize| {
            let (x0, x1) = band_of(xs, c, c + 1, edges.w);
            let (s, _) = side_strengths(&edges.y_profile_in(x0, x1, window_of(ys)), ys);
            s.iter().sum::<f32>() / s.len().max(1) as f32
        };
        let median = |v: Vec<f32>| {
            let mut v = v;
            v.sort_by(f32::total_cmp);
            v[v.len() / 2]
        };
        // Which end (first or last) of a line of strengths is weak, if any.
        let weak_end = |all: Vec<f32>| -> Option<bool> {
            let m = median(all.clone());
            let n = all.len();
            if all[0] < 0.35 * m {
                Some(true)
            } else if all[n - 1] < 0.35 * m {
                Some(false)
            } else {
                None
            }
        };
        let mut cut: Option<(bool, bool)> = None;
        if hints.rows.is_none() && rows > params.min_cells {
            cut = weak_end((0..rows).map(row_strength).collect()).map(|f| (true, f));
        }
        if cut.is_none() && hints.cols.is_none() && cols > params.min_cells {
            cut = weak_end((0..cols).map(col_strength).collect()).map(|f| (false, f));
        }
        let Some((horizontal, first)) = cut else {
            return;
        };
        drop_line(cells, xs, ys, horizontal, first);
    }
}

/// Removes the first or last row (`horizontal`) or column of a lattice.
fn drop_line(
    cells: &mut Vec<(Lab, f32)>,
    xs: &mut Axis,
    ys: &mut Axis,
    horizontal: bool,
    first: bool,
) {
    let (rows, cols) = (ys.count, xs.count);
    let mut k = 0;
    cells.retain(|_| {
        let (r, c) = (k / cols, k % cols);
        k += 1;
        if horizontal {
            r != if first { 0 } else { rows - 1 }
        } else {
            c != if first { 0 } else { cols - 1 }
        }
    });
    let axis = if horizontal { &mut *ys } else { &mut *xs };
    if first {
        axis.centre += axis.pitch;
    }
    axis.count -= 1;
}

/// Drops outer rows/columns that are no part of the board: mostly
/// non-uniform cells (text, pictures), or one colour seen nowhere else on the
/// board (a bar or panel next to it). Sizes given as hints are kept.
fn trim(
    cells: &mut Vec<(Lab, f32)>,
    xs: &mut Axis,
    ys: &mut Axis,
    hints: Hints,
    params: &FindParams,
) {
    const SAME: f32 = 10.0;
    const SEEN: f32 = 12.0;
    loop {
        let (rows, cols) = (ys.count, xs.count);
        let line = |horizontal: bool, i: usize| -> Vec<usize> {
            if horizontal {
                (0..cols).map(|c| i * cols + c).collect()
            } else {
                (0..rows).map(|r| r * cols + i).collect()
            }
        };
        let foreign = |idx: &[usize]| -> bool {
            let uniform: Vec<usize> = idx
                .iter()
                .copied()
                .filter(|&i| cells[i].1 <= params.max_spread)
                .collect();
            if (uniform.len() as f64) < 0.5 * idx.len() as f64 {
                return true;
            }
            let first = cells[uniform[0]].0;
            let one_colour = uniform.iter().all(|&i| delta_e(cells[i].0, first) <= SAME);
            let seen_elsewhere = (0..cells.len())
                .filter(|i| !idx.contains(i))
                .any(|i| delta_e(cells[i].0, first) <= SEEN);
            one_colour && !seen_elsewhere
        };
        let mut cut = None;
        if hints.rows.is_none() && rows > params.min_cells {
            if foreign(&line(true, 0)) {
                cut = Some((true, true));
            } else if foreign(&line(true, rows - 1)) {
                cut = Some((true, false));
            }
        }
        if cut.is_none() && hints.cols.is_none() && cols > params.min_cells {
            if foreign(&line(false, 0)) {
                cut = Some((false, true));
            } else if foreign(&line(false, cols - 1)) {
                cut = Some((false, false));
            }
        }
        let Some((horizontal, first)) = cut else {
            return;
        };
        drop_line(cells, xs, ys, horizontal, first);
    }
}

/// The comb nearest `c`'s pitch (within 3 %) on a new profile. When its
/// run lies mostly outside the stretch `r` (pixels) the lattice was found
/// on (text or UI of about the same pitch elsewhere on the profile), the
/// comb over that stretch and two pitches beyond each end.
fn recomb(p: &[f32], c: Comb, r: (f64, f64), params: &FindParams) -> Option<Comb> {
    let local = FindParams {
        min_pitch: c.pitch * 0.97,
        max_pitch: c.pitch * 1.03,
        pitch_step: 0.005,
        ..*params
    };
    let whole = combs(p, &local, 1).into_iter().next()?;
    let (t0, t1) = (whole.tooth(whole.k0), whole.tooth(whole.k1));
    let inside = (t1.min(r.1) - t0.max(r.0)).max(0.0);
    if 2.0 * inside >= (t1 - t0).min(r.1 - r.0) {
        return Some(whole);
    }
    let a = (r.0 - 2.0 * c.pitch).floor().max(0.0) as usize;
    let b = ((r.1 + 2.0 * c.pitch).ceil().max(0.0) as usize).min(p.len());
    let found = combs(p.get(a..b)?, &local, 1).into_iter().next()?;
    Some(Comb {
        phase: found.phase + a as f64,
        ..found
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    /// `rows` x `cols` tiles of `tile` px with `gap` px between, at `(x0, y0)`,
    /// colours from a fixed cycle, on a grey background with a bar on top.
    fn grid_picture(rows: u32, cols: u32, tile: u32, gap: u32, x0: u32, y0: u32) -> RgbImage {
        let colours = [[200, 40, 40], [40, 170, 60], [50, 90, 210], [230, 200, 40]];
        let pitch = tile + gap;
        let w = x0 + cols * pitch + 37;
        let h = y0 + rows * pitch + 53;
        let mut img = RgbImage::from_pixel(w, h, Rgb([60, 60, 64]));
        for y in 0..20 {
            for x in 0..w {
                img.put_pixel(x, y, Rgb([230, 230, 230]));
            }
        }
        for r in 0..rows {
            for c in 0..cols {
                let col = colours[((r * 7 + c * 3 + r * c) % 4) as usize];
                for y in 0..tile {
                    for x in 0..tile {
                        img.put_pixel(x0 + c * pitch + x, y0 + r * pitch + y, Rgb(col));
                    }
                }
            }
        }
        img
    }

    #[test]
    fn finds_a_plain_grid_without_sizes() {
        let img = grid_picture(5, 6, 30, 4, 17, 61);
        let f = find_grid(&img, Hints::default(), &FindParams::default()).expect("found");
        assert_eq!((f.rows, f.cols), (5, 6), "{f:?}");
        let g = f.grid;
        assert!((g.pitch_x() - 34.0).abs() < 0.2, "{g:?}");
        assert!((g.pitch_y() - 34.0).abs() < 0.2, "{g:?}");
        // Tile centres within a pixel.
        assert!((g.left + g.cell_width / 2.0 - 32.0).abs() < 1.0, "{g:?}");
        assert!((g.top + g.cell_height / 2.0 - 76.0).abs() < 1.0, "{g:?}");
    }

    #[test]
    fn hints_fix_the_size() {
        let img = grid_picture(8, 8, 24, 0, 9, 40);
        let hints = Hints {
            rows: Some(8),
            cols: Some(8),
        };
        let f = find_grid(&img, hints, &FindParams::default()).expect("found");
        assert_eq!((f.rows, f.cols), (8, 8), "{f:?}");
    }

    /// A narrow gap blurred takes some colour from the tiles on its two
    /// sides: still a gap. A lattice at twice the pitch, whose "gaps" are
    /// tiles, is not.
    #[test]
    fn blurred_narrow_gaps_are_gaps_and_tiles_are_not() {
        let (tile, gap, x0, y0) = (30u32, 5u32, 17u32, 61u32);
        let colours = [
            [200, 40, 40],
            [40, 170, 60],
            [50, 90, 210],
            [230, 200, 40],
            [150, 60, 190],
        ];
        let mut img = RgbImage::from_pixel(270, 340, Rgb([60, 60, 64]));
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for r in 0..6 {
            for c in 0..6 {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let col = Rgb(colours[(s % 5) as usize]);
                for y in 0..tile {
                    for x in 0..tile {
                        img.put_pixel(x0 + c * (tile + gap) + x, y0 + r * (tile + gap) + y, col);
                    }
                }
            }
        }
        let img = image::imageops::blur(&img, 2.0);
        let params = FindParams::default();
        let pitch = (tile + gap) as f64;
        let axis = |first: u32, pitch: f64, count: usize| Axis {
            pitch,
            centre: first as f64 + tile as f64 / 2.0,
            count,
            tile: tile as f64,
        };
        let (xs, ys) = (axis(x0, pitch, 6), axis(y0, pitch, 6));
        let cells = sample_cells(&img, &xs, &ys, &params);
        let contrast = 30.0;
        assert!(gaps_plain(&img, &cells, &xs, &ys, contrast));
        let (xs, ys) = (axis(x0, 2.0 * pitch, 3), axis(y0, 2.0 * pitch, 3));
        let cells = sample_cells(&img, &xs, &ys, &params);
        assert!(!gaps_plain(&img, &cells, &xs, &ys, contrast));
    }

    /// Four tile colours for the pictures drawn by the tests.
    const TILE_COLOURS: [Rgb<u8>; 4] = [
        Rgb([220, 60, 50]),
        Rgb([60, 180, 80]),
        Rgb([140, 60, 230]),
        Rgb([240, 200, 40]),
    ];

    /// A picture past the half-size limit holding a board of small
    /// touching circles (18 pixels: 9 at half size, under twice the least
    /// blob side): their lattice is found at full size.
    #[test]
    fn small_tiles_of_a_large_picture_are_looked_for_at_full_size() {
        let colours = &TILE_COLOURS[..3];
        let mut img = RgbImage::from_pixel(700, 600, Rgb([25u8, 28, 30]));
        let (left, top, pitch) = (100.0, 150.0, 18.0);
        for r in 0..15 {
            for c in 0..20 {
                let colour = colours[(r * 7 + c * 3 + (r * c) % 5) % 3];
                let (cx, cy) = (
                    left + (c as f64 + 0.5) * pitch,
                    top + (r as f64 + 0.5) * pitch,
                );
                for y in (cy - 9.0) as u32..(cy + 9.0) as u32 {
                    for x in (cx - 9.0) as u32..(cx + 9.0) as u32 {
                        let (dx, dy) = (x as f64 + 0.5 - cx, y as f64 + 0.5 - cy);
                        if dx * dx + dy * dy <= 8.5 * 8.5 {
                            img.put_pixel(x, y, colour);
                        }
                    }
                }
            }
        }
        let params = FindParams::default();
        assert!(f64::from(img.width() * img.height()) > params.blobs.reduce_above);
        let lattices = picture_blob_lattices(&img, &params);
        let board = lattices.iter().find(|l| l.x.count == 20 && l.y.count == 15);
        let l = board.unwrap_or_else(|| panic!("no 20x15 lattice in {lattices:?}"));
        assert!(
            (l.x.pitch - pitch).abs() < 0.3 && (l.y.pitch - pitch).abs() < 0.3,
            "{l:?}"
        );
        assert!((l.x.first - (left + 9.0)).abs() < 2.0, "{l:?}");
    }

    /// Tiles parted by a one-pixel gap, and a lattice of blobs at the
    /// gaps' crossings (the backdrop showing where the tiles' corners are
    /// cut): the lattice half a pitch off, taken gapless, is the board, to
    /// its tiles' edges.
    #[test]
    fn blobs_between_tiles_give_the_board_gapless() {
        let colours = TILE_COLOURS;
        let mut img = RgbImage::from_pixel(260, 240, Rgb([250u8, 250, 250]));
        let (left, top, pitch, tile) = (30u32, 40u32, 17u32, 16u32);
        let (rows, cols) = (8u32, 10u32);
        for r in 0..rows {
            for c in 0..cols {
                let colour = colours[((r * 7 + c * 3 + (r * c) % 5) % 4) as usize];
                for y in 0..tile {
                    for x in 0..tile {
                        img.put_pixel(left + c * pitch + x, top + r * pitch + y, colour);
                    }
                }
            }
        }
        let params = FindParams::default();
        let edges = Edges::new(&img, &params);
        // The crossings: between tiles k and k + 1, at the gap's middle.
        let crossings = |start: u32, n: u32| BlobAxis {
            pitch: f64::from(pitch),
            first: f64::from(start + tile) + 0.5,
            count: n as usize - 1,
            size: 13.0,
        };
        let between = BlobLattice {
            x: crossings(left, cols),
            y: crossings(top, rows),
            blobs: ((rows - 1) * (cols - 1)) as usize,
        };
        let judge = |l: &BlobLattice| {
            judge_blobs(&img, &edges, l, Hints::default(), &params, Source::Blobs)
        };
        let f = judge(&gapless(&dual(&between))).expect("the board");
        assert_eq!((f.rows, f.cols), (rows as usize, cols as usize));
        assert!((f.grid.left - f64::from(left)).abs() < 1.5, "{:?}", f.grid);
        assert!((f.grid.top - f64::from(top)).abs() < 1.5, "{:?}", f.grid);
        assert!(
            f.grid.cell_width >= 15.0 && f.grid.cell_height >= 15.0,
            "{:?}",
            f.grid
        );
        // Blobs inside the tiles (faces of 10 pixels at their centres):
        // taken gapless, the same board.
        let faces = |start: u32, n: u32| BlobAxis {
            pitch: f64::from(pitch),
            first: f64::from(start) + f64::from(tile) / 2.0,
            count: n as usize,
            size: 10.0,
        };
        let inner = BlobLattice {
            x: faces(left, cols),
            y: faces(top, rows),
            blobs: (rows * cols) as usize,
        };
        let g = judge(&gapless(&inner)).expect("the board").grid;
        assert_eq!(g, f.grid);
    }

    /// Cells at even and odd columns with no colour in common: a lattice
    /// twice too fine (tiles, then the one background colour) is told
    /// apart; a small board whose five colours fell unevenly between the
    /// parities (two colours at even columns only, one at odd only) is not.
    #[test]
    fn parities_apart_need_a_plain_side() {
        let colour = |k: u8| -> (Lab, f32) {
            let labs = [
                [50.0, 60.0, 40.0],
                [60.0, -50.0, 40.0],
                [40.0, 30.0, -60.0],
                [70.0, 0.0, 70.0],
                [30.0, 40.0, 0.0],
                [90.0, 0.0, 0.0],
            ];
            (labs[k as usize], 1.0)
        };
        let cells = |board: &str| -> Vec<(Lab, f32)> {
            board
                .bytes()
                .filter(|&b| b != b'/')
                .map(|b| colour(b - b'0'))
                .collect()
        };
        // Tiles at even columns, background (5) at odd ones.
        let fine = cells("0515253/1525354/2535051/3545152");
        assert!(parity_apart(&fine, 4, 7));
        // A board: 0, 1 only at even columns, 2 only at odd ones, 3 and 4 at
        // both (12 of 28 cells show a colour of the other parity).
        let board = cells("0213023/1402431/3214034/0412341");
        assert!(!parity_apart(&board, 4, 7));
    }

    /// Re-run over the board's stretch, the comb stays on the board when
    /// stronger text of about its pitch lies elsewhere on the profile.
    #[test]
    fn recomb_stays_on_the_board() {
        let mut p = vec![0.5f32; 480];
        // Text: strong edges every 16.3 pixels over 20..140.
        for k in 0..8 {
            p[20 + (k as f64 * 16.3).round() as usize] = 60.0;
        }
        // The board: weaker edges every 16.8 pixels over 208..310.
        for k in 0..7 {
            p[208 + (k as f64 * 16.8).round() as usize] = 25.0;
        }
        let params = FindParams::default();
        let board = Comb {
            pitch: 16.7,
            phase: 6.0,
            k0: 12,
            k1: 18,
            score: 1.0,
            periodicity: 2.0,
            allowance: 0.0,
            slack: 1.0,
        };
        // Over the whole profile the text's comb wins.
        let whole = recomb(&p, board, (0.0, 480.0), &params).expect("a comb");
        assert!(whole.tooth(whole.k1) < 150.0, "{whole:?}");
        let c = recomb(&p, board, (208.0, 309.0), &params).expect("a comb");
        let (t0, t1) = (c.tooth(c.k0), c.tooth(c.k1));
        assert!(
            (200.0..216.0).contains(&t0) && (300.0..316.0).contains(&t1),
            "{c:?}: teeth {t0:.1}..{t1:.1}"
        );
    }

    #[test]
    fn flat_and_noise_are_no_board() {
        let flat = RgbImage::from_pixel(300, 400, Rgb([120, 30, 200]));
        let e = find_grid(&flat, Hints::default(), &FindParams::default()).unwrap_err();
        assert!(e.is_no_board(), "{e}");
        let mut s = 0x1234_5678_9abc_def1u64;
        let noise = RgbImage::from_fn(300, 400, |_, _| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            Rgb([s as u8, (s >> 8) as u8, (s >> 16) as u8])
        });
        let e = find_grid(&noise, Hints::default(), &FindParams::default()).unwrap_err();
        assert!(e.is_no_board(), "{e}");
    }
}
