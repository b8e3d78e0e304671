//! Where a picture's edges repeat: the lags along each axis at which the
//! map of its edges matches itself, a third source of tile pitches for
//! [`super::find`].
//!
//! The combs of [`super::find`] look for periodic edges in a profile (the
//! edges summed down the columns or along the rows). A board of small tiles
//! with symbols drawn on them (outlined stars on 15-pixel diamonds, blurred)
//! gives a profile where the symbols' edges are as strong as the tiles'
//! sides: the comb at the tiles' pitch barely stands out, or one at half
//! the pitch does better. Matched in two dimensions the picture tells them
//! apart: shifted by one pitch every tile's outline and symbol lands on the
//! next tile's, whatever their colours, while half a pitch lands a tile's
//! side on the middle of its neighbour.
//!
//! The edge map is binary: a pixel is an edge when its largest channel
//! difference to the next pixel right or below is over a threshold set so
//! that about a fifth of the picture is edge (so dimmed, blurred or
//! low-contrast boards are matched the same way), at least
//! [`LEAST_THRESHOLD`]. For each whole lag `d` the count of edge pixels
//! whose partner `d` further on is an edge too, over the geometric mean of
//! the edge counts of the two overlapping parts (a cosine: 1 for a map that
//! repeats exactly). The lags kept are the strongest local maxima, their
//! multiples dropped, each refined to a fraction of a pixel from the peaks
//! at its multiples.
//!
//! Pure and deterministic.

use std::cell::Cell;

use image::RgbImage;
use rayon::prelude::*;

/// Share of the picture's pixels taken as edges.
const EDGE_SHARE: f64 = 0.22;
/// The least channel difference that counts as an edge.
const LEAST_THRESHOLD: u8 = 8;
/// Multiples of a lag looked at to refine it.
const MULTIPLES: usize = 8;
/// A peak at a fraction of a stronger one's lag standing out at least this
/// share of its prominence is the fundamental.
const FUNDAMENTAL: f64 = 0.5;

/// The repeats of a picture's edge map along each axis, strongest first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Repeats {
    /// Horizontal lags (pixels; the tiles' pitch along x).
    pub x: Vec<Repeat>,
    /// Vertical lags.
    pub y: Vec<Repeat>,
}

/// One repeat: its lag and how well the edge map matches itself there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Repeat {
    pub lag: f64,
    /// How far the cosine of the edge map and its shifted copy stands
    /// above its surroundings ([`prominence`]).
    pub strength: f64,
}

/// A binary edge map, one bit per pixel, rows of whole `u64` words.
struct EdgeBits {
    w: usize,
    h: usize,
    words: usize,
    bits: Vec<u64>,
    /// Edge pixels per column and per row.
    per_col: Vec<u32>,
    per_row: Vec<u32>,
}

impl EdgeBits {
    fn new(img: &RgbImage) -> EdgeBits {
        let (w, h) = (img.width() as usize, img.height() as usize);
        let raw = img.as_raw();
        let diff = |a: &[u8], b: &[u8]| -> u8 {
            a[0].abs_diff(b[0])
                .max(a[1].abs_diff(b[1]))
                .max(a[2].abs_diff(b[2]))
        };
        // Row `y`'s gradients (each pixel's larger difference to its right
        // and lower neighbours), handed to `f` pixel by pixel.
        let gradients = |y: usize, f: &mut dyn FnMut(usize, u8)| {
            let row = &raw[y * w * 3..(y + 1) * w * 3];
            let below = raw.get((y + 1) * w * 3..(y + 2) * w * 3);
            for (x, p) in row.chunks_exact(3).enumerate() {
                let right = row.get(3 * x + 3..3 * x + 6).map_or(0, |q| diff(p, q));
                let down = below.map_or(0, |b| diff(p, &b[3 * x..3 * x + 3]));
                f(x, right.max(down));
            }
        };
        // The threshold: the least with at most EDGE_SHARE of the pixels
        // over it (the gradients computed again below, rather than kept).
        let hist = (0..h)
            .into_par_iter()
            .map(|y| {
                let mut hist = [0usize; 256];
                gradients(y, &mut |_, g| hist[g as usize] += 1);
                hist
            })
            .reduce(
                || [0usize; 256],
                |mut a, b| {
                    a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
                    a
                },
            );
        let allowed = (EDGE_SHARE * hist.iter().sum::<usize>() as f64) as usize;
        let mut over = 0usize;
        let mut threshold = 255u8;
        for t in (0..255usize).rev() {
            over += hist[t + 1];
            if over > allowed {
                break;
            }
            threshold = t as u8;
        }
        let threshold = threshold.max(LEAST_THRESHOLD);
        let words = w.div_ceil(64);
        let mut bits = vec![0u64; words * h];
        let per_row: Vec<u32> = bits
            .par_chunks_mut(words.max(1))
            .enumerate()
            .map(|(y, out)| {
                let mut n = 0;
                gradients(y, &mut |x, g| {
                    if g > threshold {
                        out[x / 64] |= 1 << (x % 64);
                        n += 1;
                    }
                });
                n
            })
            .collect();
        let mut per_col = vec![0u32; w];
        for row in bits.chunks(words.max(1)) {
            for (i, &word) in row.iter().enumerate() {
                let mut m = word;
                while m != 0 {
                    per_col[i * 64 + m.trailing_zeros() as usize] += 1;
                    m &= m - 1;
                }
            }
        }
        EdgeBits {
            w,
            h,
            words,
            bits,
            per_col,
            per_row,
        }
    }

    fn row(&self, y: usize) -> &[u64] {
        &self.bits[y * self.words..(y + 1) * self.words]
    }

    /// Edge pixels at `(x, y)` with an edge at `(x + d, y)`.
    fn matches_x(&self, d: usize) -> u64 {
        let (q, s) = (d / 64, d % 64);
        let mut n = 0u64;
        for y in 0..self.h {
            let r = self.row(y);
            for i in 0..self.words.saturating_sub(q) {
                let lo = r[i + q] >> s;
                let hi = if s > 0 && i + q + 1 < self.words {
                    r[i + q + 1] << (64 - s)
                } else {
                    0
                };
                n += u64::from((r[i] & (lo | hi)).count_ones());
            }
        }
        n
    }

    /// Edge pixels at `(x, y)` with an edge at `(x, y + d)`.
    fn matches_y(&self, d: usize) -> u64 {
        (0..self.h.saturating_sub(d))
            .map(|y| {
                self.row(y)
                    .iter()
                    .zip(self.row(y + d))
                    .map(|(a, b)| u64::from((a & b).count_ones()))
                    .sum::<u64>()
            })
            .sum()
    }
}

/// The cosine of the edge counts `matched` against the two overlapping
/// parts' counts: `counts[..n - d]` and `counts[d..]`.
fn cosine(matched: u64, counts: &[u32], d: usize) -> f64 {
    let n = counts.len();
    let a: u64 = counts[..n - d].iter().map(|&c| u64::from(c)).sum();
    let b: u64 = counts[d..].iter().map(|&c| u64::from(c)).sum();
    if a == 0 || b == 0 {
        0.0
    } else {
        matched as f64 / ((a as f64) * (b as f64)).sqrt()
    }
}

/// The picture's edge repeats with lags in `lags` (pixels) and at least
/// `min_cells` repeats within the picture, at most `keep` an axis.
pub fn edge_repeats(img: &RgbImage, lags: (f64, f64), min_cells: usize, keep: usize) -> Repeats {
    let e = EdgeBits::new(img);
    let axis = |n: usize, counts: &[u32], matches: &(dyn Fn(usize) -> u64 + Sync)| {
        let lo = lags.0.ceil().max(2.0) as usize;
        let hi = (lags.1.floor() as usize).min((n.saturating_sub(1)) / min_cells.max(1));
        if lo > hi {
            return Vec::new();
        }
        // Measured from a third below the least lag (the surroundings of a
        // peak there) to the picture's size, each lag when first asked for.
        let curve = Curve {
            first: lo - lo / 3,
            memo: (0..n).map(|_| Cell::new(UNMEASURED)).collect(),
            measure: &|d| cosine(matches(d), counts, d),
        };
        peaks(&curve, lo, hi, keep)
    };
    let (x, y) = rayon::join(
        || axis(e.w, &e.per_col, &|d| e.matches_x(d)),
        || axis(e.h, &e.per_row, &|d| e.matches_y(d)),
    );
    Repeats { x, y }
}

/// A lag's value not measured yet.
const UNMEASURED: f64 = f64::INFINITY;

/// The match of the edge map with itself per lag, measured when first
/// asked for (a search looks at a few hundred lags of a picture's
/// thousand).
struct Curve<'a> {
    /// The least lag measured; below it and past the picture, NaN.
    first: usize,
    memo: Vec<Cell<f64>>,
    measure: &'a (dyn Fn(usize) -> f64 + Sync),
}

impl Curve<'_> {
    fn at(&self, d: usize) -> f64 {
        let Some(m) = self.memo.get(d).filter(|_| d >= self.first) else {
            return f64::NAN;
        };
        if m.get() == UNMEASURED {
            m.set((self.measure)(d));
        }
        m.get()
    }

    /// A local maximum (NaN neighbours are not).
    fn is_peak(&self, d: usize) -> bool {
        d >= 1 && self.at(d) >= self.at(d - 1) && self.at(d) > self.at(d + 1)
    }

    /// How far the curve at `d` stands above the lowest points within a
    /// third of `d` on either side (their mean): the curve falls with the
    /// lag (and sits high everywhere in a picture dense with edges), so a
    /// peak is judged against its own surroundings. NaN lags are left out.
    fn prominence(&self, d: usize) -> f64 {
        let r = (d / 3).max(2);
        let low = |a: usize, b: usize| (a..=b).map(|i| self.at(i)).fold(f64::INFINITY, f64::min);
        self.at(d) - 0.5 * (low(d.saturating_sub(r), d) + low(d, d + r))
    }

    /// The peak at `i` to a fraction of a lag (a parabola through it and
    /// its neighbours).
    fn sub(&self, i: usize) -> f64 {
        let (a, b, c) = (self.at(i - 1), self.at(i), self.at(i + 1));
        let den = a - 2.0 * b + c;
        let f = if den.abs() > 1e-12 {
            0.5 * (a - c) / den
        } else {
            0.0
        };
        i as f64 + f.clamp(-0.5, 0.5)
    }
}

/// The most prominent local maxima of the curve at lags `lo..=hi` (not a
/// multiple of one kept), each taken down to its fundamental and refined
/// from its multiples.
fn peaks(curve: &Curve, lo: usize, hi: usize, keep: usize) -> Vec<Repeat> {
    let mut found: Vec<(usize, f64)> = (lo..=hi)
        .filter(|&d| curve.is_peak(d))
        .map(|d| (d, curve.prominence(d)))
        .filter(|&(_, p)| p > 0.0)
        .collect();
    found.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut out: Vec<Repeat> = Vec::new();
    for (d, _) in found {
        if out.len() >= keep {
            break;
        }
        let d = fundamental(curve, d, lo);
        let lag = refined(curve, d);
        let multiple = out.iter().any(|o| {
            let k = (lag / o.lag).round();
            k >= 1.0 && (lag / (k * o.lag) - 1.0).abs() < 0.04
        });
        if !multiple {
            out.push(Repeat {
                lag,
                strength: curve.prominence(d),
            });
        }
    }
    out
}

/// A lattice matches itself about as well at two pitches as at one: the
/// peak at `d` is taken for a multiple of the one near `d / k` (the
/// largest `k` up to [`MULTIPLES`], lag `lo` at least) that stands out
/// nearly as far ([`FUNDAMENTAL`] of its prominence).
fn fundamental(curve: &Curve, d: usize, lo: usize) -> usize {
    let own = curve.prominence(d);
    for k in (2..=MULTIPLES).rev() {
        let at = d as f64 / k as f64;
        if at + 1.0 < lo as f64 {
            continue;
        }
        let centre = at.round() as usize;
        let near = (centre.saturating_sub(1).max(lo)..=centre + 1)
            .filter(|&i| curve.is_peak(i))
            .map(|i| (i, curve.prominence(i)))
            .filter(|&(_, p)| p >= FUNDAMENTAL * own)
            .max_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((i, _)) = near {
            return i;
        }
    }
    d
}

/// The lag of the peak at `d`, to a fraction of a pixel: the peaks at its
/// multiples (each the local maximum nearest `k * d`, interpolated), fitted
/// through the origin.
fn refined(curve: &Curve, d: usize) -> f64 {
    let (mut sk, mut skk) = (curve.sub(d), 1.0);
    let mut estimate = sk;
    for k in 2..=MULTIPLES {
        let at = k as f64 * estimate;
        let reach = (k as f64 * 0.5).ceil() as usize + 1;
        let centre = at.round() as usize;
        let near = (centre.saturating_sub(reach)..=centre + reach)
            .filter(|&i| curve.is_peak(i))
            .min_by(|&a, &b| (a as f64 - at).abs().total_cmp(&(b as f64 - at).abs()));
        let Some(i) = near else {
            break;
        };
        sk += k as f64 * curve.sub(i);
        skk += (k * k) as f64;
        estimate = sk / skk;
    }
    estimate
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    /// Tiles of `pitch` pixels (a fraction allowed) in random colours, each
    /// with a ring drawn at half its size, on a grey picture.
    fn tiles(w: u32, h: u32, pitch: f64, seed: u64) -> RgbImage {
        let mut s = seed;
        let mut next = move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 33) as u8
        };
        let cols = ((w as f64 - 20.0) / pitch) as usize;
        let rows = ((h as f64 - 20.0) / pitch) as usize;
        let colours: Vec<[u8; 3]> = (0..rows * cols).map(|_| [next(), next(), next()]).collect();
        RgbImage::from_fn(w, h, |x, y| {
            let (fx, fy) = ((x as f64 - 10.0) / pitch, (y as f64 - 10.0) / pitch);
            if fx < 0.0 || fy < 0.0 || fx >= cols as f64 || fy >= rows as f64 {
                return Rgb([128, 128, 128]);
            }
            let (c, r) = (fx as usize, fy as usize);
            let (u, v) = (fx.fract() - 0.5, fy.fract() - 0.5);
            if u.abs() > 0.45 || v.abs() > 0.45 {
                return Rgb([40, 40, 40]);
            }
            let ring = (u * u + v * v).sqrt();
            if (0.2..0.26).contains(&ring) {
                return Rgb([250, 250, 250]);
            }
            Rgb(colours[r * cols + c])
        })
    }

    #[test]
    fn the_tiles_pitch_is_the_strongest_repeat() {
        for (pitch, seed) in [(15.3, 1), (23.7, 2), (41.0, 3)] {
            let img = tiles(400, 330, pitch, seed);
            let r = edge_repeats(&img, (12.0, 250.0), 3, 2);
            let (x, y) = (r.x[0].lag, r.y[0].lag);
            assert!((x / pitch - 1.0).abs() < 0.01, "pitch {pitch}: x {x}");
            assert!((y / pitch - 1.0).abs() < 0.01, "pitch {pitch}: y {y}");
        }
    }

    #[test]
    fn multiples_of_a_kept_lag_are_dropped() {
        let img = tiles(400, 330, 20.0, 4);
        let r = edge_repeats(&img, (12.0, 250.0), 3, 3);
        for axis in [&r.x, &r.y] {
            let first = axis[0].lag;
            assert!((first - 20.0).abs() < 0.15, "{first}");
            for o in &axis[1..] {
                let k = (o.lag / first).round();
                assert!(
                    k < 2.0 || (o.lag / (k * first) - 1.0).abs() >= 0.04,
                    "{axis:?}"
                );
            }
        }
    }

    #[test]
    fn a_plain_picture_has_no_repeats() {
        let img = RgbImage::from_pixel(200, 150, Rgb([90, 90, 90]));
        let r = edge_repeats(&img, (12.0, 250.0), 3, 2);
        assert!(r.x.is_empty() && r.y.is_empty(), "{r:?}");
    }

    #[test]
    fn shifted_rows_match_the_naive_count() {
        let img = tiles(150, 90, 13.4, 5);
        let e = EdgeBits::new(&img);
        let at = |x: usize, y: usize| e.bits[y * e.words + x / 64] >> (x % 64) & 1 == 1;
        for d in [1, 13, 63, 64, 65, 100] {
            let naive_x = (0..e.h)
                .flat_map(|y| (0..e.w - d).map(move |x| (x, y)))
                .filter(|&(x, y)| at(x, y) && at(x + d, y))
                .count() as u64;
            assert_eq!(e.matches_x(d), naive_x, "x lag {d}");
        }
        for d in [1, 13, 45] {
            let naive_y = (0..e.h - d)
                .flat_map(|y| (0..e.w).map(move |x| (x, y)))
                .filter(|&(x, y)| at(x, y) && at(x, y + d))
                .count() as u64;
            assert_eq!(e.matches_y(d), naive_y, "y lag {d}");
        }
    }
}
