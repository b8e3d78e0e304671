//! Candidate lattices from colour blobs: a second source of lattices for the
//! grid finder ([`super::find`]), independent of its edge combs.
//!
//! Tiles are compact patches of smooth colour, parted from what is around
//! them by an edge; text glyphs are thin, narrow (a pixel font is 3 x 5) and
//! not on a regular 2D lattice of equal patches. So:
//! 1. *Boundary pixels*: a pixel whose colour changes across it (largest
//!    channel difference of its two neighbours, left/right or up/down) by
//!    more than [`BlobParams::edge`] belongs to no blob. The difference spans
//!    two pixels, so a blurred tile outline is a boundary as well.
//! 2. *Blobs*: 4-connected components of the other pixels (union-find),
//!    with their bounding boxes and areas; kept when squarish, filled enough
//!    and not tiny (tiles, their inner faces and symbols; not a bar, a
//!    button, a glyph or the background).
//! 3. *Size classes*: blobs of about one size (within
//!    [`BlobParams::size_spread`]) are one class (the tile bodies, the
//!    faces of gems, the symbols).
//! 4. *Lattice per class*: per axis, the distance from each blob to its
//!    nearest neighbour of the class further along the same line is a
//!    multiple of the pitch; the pitch is the smallest distance that
//!    explains most of them (as a multiple), refined by least squares; the
//!    phase is the circular mean of the centres modulo the pitch. Blobs near
//!    lattice points are indexed; the largest cluster of indexed sites
//!    (sites at most two apart are linked, so a board with holes stays one
//!    cluster) is the board's extent, kept when it holds
//!    [`BlobParams::min_occupied`] of its sites. On a board with no gaps,
//!    neighbours of one colour are one blob: such a blob whose box is whole
//!    tiles of the class on the lattice holds the sites it covers
//!    (`merged_sites`).
//! 5. *One lattice per set of points*: a class's lattice on the same points
//!    as another's and inside its extent (gem faces, where some tiles' faces
//!    are missed) is folded into the larger.
//! 6. *A refitted twin*: the pitch from neighbours' distances and the phase
//!    from a circular mean can leave the far end of a long board a few
//!    pixels off; each lattice is also offered refitted through all its
//!    blob centres (a robust line), when that moves it by 3 % of a pitch
//!    or more: the refitted one first, the plain one last.
//!
//! Coordinates: picture pixels, tile centres at `first + i * pitch`.
//! Invariants: pure and deterministic; every lattice returned has
//! `min_cells..=max_cells` tiles a side and a pitch of at least the blob
//! size.

use image::RgbImage;

/// Tunables of the blob source (plain data; `Default` is the preset for
/// screenshots of any skin).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlobParams {
    /// A pixel whose neighbours on either side differ by more than this
    /// (largest channel difference) is a boundary pixel.
    pub edge: u8,
    /// Least side of a blob's bounding box, in pixels.
    pub min_side: usize,
    /// Largest ratio of the long to the short side of a blob's box.
    pub max_aspect: f64,
    /// Least fraction of its box a blob covers (a diamond's face, less
    /// its boundary pixels and facets, covers 0.24-0.32).
    pub min_fill: f64,
    /// Blobs within this factor of a class's size belong to it.
    pub size_spread: f64,
    /// Fewest blobs of a class on a lattice.
    pub min_blobs: usize,
    /// Most size classes tried.
    pub classes: usize,
    /// A blob is on the lattice when its centre is within this fraction of
    /// the pitch of a lattice point along both axes.
    pub on_lattice: f64,
    /// Least fraction of the lattice's sites holding a blob.
    pub min_occupied: f64,
    /// A blob of several tiles (`merged_sites`) has each box side within
    /// this fraction of a pitch of a tile's side.
    pub merged_align: f64,
    /// ... and its area at least the class's median area times the tiles
    /// it covers over this factor.
    pub merged_area: f64,
    /// Pictures of more pixels than this are looked at half size (each
    /// blob a quarter of the pixels; tiles under `2 * min_side` are left
    /// to the combs).
    pub reduce_above: f64,
    /// Pictures looked at half size and of up to this many pixels are
    /// also looked at full size for tiles too small for the half size.
    pub small_tiles_up_to: f64,
}

impl Default for BlobParams {
    fn default() -> Self {
        BlobParams {
            edge: 24,
            min_side: 6,
            max_aspect: 1.35,
            min_fill: 0.2,
            size_spread: 1.18,
            min_blobs: 6,
            classes: 4,
            on_lattice: 0.2,
            min_occupied: 0.5,
            merged_align: 0.15,
            merged_area: 1.3,
            reduce_above: 3.5e5,
            small_tiles_up_to: 1.5e6,
        }
    }
}

/// A connected patch of smooth colour: bounding box (inclusive) and area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Blob {
    pub x0: usize,
    pub y0: usize,
    pub x1: usize,
    pub y1: usize,
    pub area: usize,
}

impl Blob {
    fn width(&self) -> f64 {
        (self.x1 - self.x0 + 1) as f64
    }
    fn height(&self) -> f64 {
        (self.y1 - self.y0 + 1) as f64
    }
    /// Geometric mean of the box's sides.
    fn size(&self) -> f64 {
        (self.width() * self.height()).sqrt()
    }
    /// Centre of the box (pixel centres at `x + 0.5`).
    fn centre(&self) -> (f64, f64) {
        (
            0.5 * (self.x0 + self.x1 + 1) as f64,
            0.5 * (self.y0 + self.y1 + 1) as f64,
        )
    }
}

/// One axis of a blob lattice: tile centres `first + i * pitch` for
/// `i in 0..count`, and the median blob extent along the axis.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlobAxis {
    pub pitch: f64,
    pub first: f64,
    pub count: usize,
    pub size: f64,
}

/// A lattice fitted to a class of blobs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BlobLattice {
    pub x: BlobAxis,
    pub y: BlobAxis,
    /// Sites holding a blob of the class.
    pub blobs: usize,
}

impl BlobLattice {
    /// The lattice in the pixels of a picture `f` times as large.
    pub fn scaled(self, f: f64) -> BlobLattice {
        let axis = |a: BlobAxis| BlobAxis {
            pitch: f * a.pitch,
            first: f * a.first,
            size: f * a.size,
            ..a
        };
        BlobLattice {
            x: axis(self.x),
            y: axis(self.y),
            ..self
        }
    }
}

/// Whether a blob could be one tile: not tiny, squarish, filling its box,
/// under half the picture a side.
fn tile_like(b: &Blob, p: &BlobParams, w: usize, h: usize) -> bool {
    let (bw, bh) = (b.width(), b.height());
    bw.min(bh) >= p.min_side as f64
        && bw.max(bh) <= p.max_aspect * bw.min(bh)
        && b.area as f64 >= p.min_fill * bw * bh
        && bw < 0.5 * w as f64
        && bh < 0.5 * h as f64
}

/// Every connected patch of smooth colour of a picture (step 1-2 of the
/// module docs, unfiltered) and which patch each pixel belongs to, kept as
/// runs of pixels per row.
struct Labels {
    /// All blobs, in raster order of their first pixel.
    blobs: Vec<Blob>,
    /// Runs of inside pixels `(row, x0, x1)`, `x1` exclusive, row by row.
    runs: Vec<(usize, usize, usize)>,
    /// Index of each row's first run (one more entry than rows).
    row_start: Vec<usize>,
    /// The blob (index into `blobs`) of each run.
    blob_of_run: Vec<u32>,
}

impl Labels {
    fn of(img: &RgbImage, p: &BlobParams) -> Labels {
        let (w, h) = (img.width() as usize, img.height() as usize);
        if w < 3 || h < 3 {
            return Labels {
                blobs: Vec::new(),
                runs: Vec::new(),
                row_start: vec![0; h + 1],
                blob_of_run: Vec::new(),
            };
        }
        let raw = img.as_raw();
        let stride = 3 * w;
        // Connected-component labelling by runs: Rosenfeld and Pfaltz's two
        // passes, with union-find over the runs.
        let mut runs: Vec<(usize, usize, usize)> = Vec::new();
        let mut row_start: Vec<usize> = Vec::with_capacity(h + 1);
        let mut inside = vec![false; w];
        for y in 0..h {
            row_start.push(runs.len());
            let (up, down) = (y.saturating_sub(1), (y + 1).min(h - 1));
            let (r, ru, rd) = (
                &raw[y * stride..(y + 1) * stride],
                &raw[up * stride..(up + 1) * stride],
                &raw[down * stride..(down + 1) * stride],
            );
            for (x, v) in inside.iter_mut().enumerate() {
                let (xl, xr) = (3 * x.saturating_sub(1), 3 * (x + 1).min(w - 1));
                let i = 3 * x;
                let mut d = 0u8;
                for k in 0..3 {
                    d = d
                        .max(r[xl + k].abs_diff(r[xr + k]))
                        .max(ru[i + k].abs_diff(rd[i + k]));
                }
                *v = d <= p.edge;
            }
            let mut x = 0;
            while x < w {
                if !inside[x] {
                    x += 1;
                    continue;
                }
                let x0 = x;
                while x < w && inside[x] {
                    x += 1;
                }
                runs.push((y, x0, x));
            }
        }
        row_start.push(runs.len());
        // Union-find over runs: a run joins the runs of the row above that
        // share a pixel column with it (4-connected).
        let mut parent: Vec<u32> = (0..runs.len() as u32).collect();
        fn root(parent: &mut [u32], mut i: usize) -> usize {
            while parent[i] as usize != i {
                let g = parent[parent[i] as usize];
                parent[i] = g;
                i = g as usize;
            }
            i
        }
        for y in 1..h {
            let (mut a, a_end) = (row_start[y - 1], row_start[y]);
            for b in row_start[y]..row_start[y + 1] {
                let (_, bx0, bx1) = runs[b];
                while a < a_end && runs[a].2 <= bx0 {
                    a += 1;
                }
                let mut k = a;
                while k < a_end && runs[k].1 < bx1 {
                    let (ra, rb) = (root(&mut parent, k), root(&mut parent, b));
                    if ra != rb {
                        parent[ra.max(rb)] = ra.min(rb) as u32;
                    }
                    k += 1;
                }
            }
        }
        // Boxes per root, in the order of the root (its first run).
        let mut slot: Vec<u32> = vec![u32::MAX; runs.len()];
        let mut blob_of_run: Vec<u32> = Vec::with_capacity(runs.len());
        let mut blobs: Vec<Blob> = Vec::new();
        for (i, &(y, x0, x1)) in runs.iter().enumerate() {
            let r = root(&mut parent, i);
            if slot[r] == u32::MAX {
                slot[r] = blobs.len() as u32;
                blobs.push(Blob {
                    x0,
                    y0: y,
                    x1: x1 - 1,
                    y1: y,
                    area: 0,
                });
            }
            blob_of_run.push(slot[r]);
            let b = &mut blobs[slot[r] as usize];
            b.x0 = b.x0.min(x0);
            b.x1 = b.x1.max(x1 - 1);
            b.y1 = y;
            b.area += x1 - x0;
        }
        Labels {
            blobs,
            runs,
            row_start,
            blob_of_run,
        }
    }

    /// The blob pixel `(x, y)` belongs to (None: a boundary pixel, or
    /// outside the picture).
    fn blob_at(&self, x: f64, y: f64) -> Option<usize> {
        if x < 0.0 || y < 0.0 {
            return None;
        }
        let (x, y) = (x as usize, y as usize);
        let (a, b) = (*self.row_start.get(y)?, *self.row_start.get(y + 1)?);
        let row = &self.runs[a..b];
        let k = row.partition_point(|r| r.2 <= x);
        let &(_, x0, _) = row.get(k)?;
        (x0 <= x).then(|| self.blob_of_run[a + k] as usize)
    }
}

/// Lattices fitted to the picture's classes of equal blobs (see the module
/// docs), most blobs first, with `cells.0..=cells.1` tiles a side.
pub fn blob_lattices(img: &RgbImage, p: &BlobParams, cells: (usize, usize)) -> Vec<BlobLattice> {
    let labels = Labels::of(img, p);
    let (w, h) = (img.width() as usize, img.height() as usize);
    let tiles: Vec<Blob> = labels
        .blobs
        .iter()
        .filter(|b| tile_like(b, p, w, h))
        .copied()
        .collect();
    let mut out: Vec<BlobLattice> = Vec::new();
    let mut twins: Vec<(BlobLattice, BlobLattice)> = Vec::new();
    for class in size_classes(&tiles, p) {
        let Some(l) = lattice_of(&class, p, cells, &labels, false) else {
            // `--log trace`: classes that made no lattice.
            tracing::trace!(
                "{}x{}: {} blobs of size {:.1}..{:.1}: no lattice",
                w,
                h,
                class.len(),
                class.first().map_or(0.0, Blob::size),
                class.last().map_or(0.0, Blob::size)
            );
            continue;
        };
        // The same lattice from another class (a gem's face and its
        // outline): keep the larger blobs (the tile's own outline).
        let same = |o: &BlobLattice| {
            (o.x.pitch / l.x.pitch - 1.0).abs() < 0.03
                && (o.y.pitch / l.y.pitch - 1.0).abs() < 0.03
                && (o.x.first - l.x.first).abs() < 0.3 * l.x.pitch
                && (o.y.first - l.y.first).abs() < 0.3 * l.y.pitch
                && o.x.count == l.x.count
                && o.y.count == l.y.count
        };
        // Or the same lattice points, one extent inside the other (a
        // class that misses a line of the board: gem faces drawn smaller
        // on some tiles): the larger extent, with the larger blobs.
        // `a`'s first point in pitches of `b` from `b`'s first.
        let step = |a: &BlobAxis, b: &BlobAxis| (a.first - b.first) / b.pitch;
        let on_points = |o: &BlobLattice| {
            let (sx, sy) = (step(&o.x, &l.x), step(&o.y, &l.y));
            (o.x.pitch / l.x.pitch - 1.0).abs() < 0.03
                && (o.y.pitch / l.y.pitch - 1.0).abs() < 0.03
                && (sx - sx.round()).abs() < 0.3
                && (sy - sy.round()).abs() < 0.3
        };
        let inside = |a: &BlobAxis, b: &BlobAxis| {
            let k0 = step(a, b).round() as i64;
            k0 >= 0 && k0 + a.count as i64 <= b.count as i64
        };
        let contains = |o: &BlobLattice, l: &BlobLattice| inside(&l.x, &o.x) && inside(&l.y, &o.y);
        match out
            .iter_mut()
            .find(|o| same(o) || (on_points(o) && (contains(o, &l) || contains(&l, o))))
        {
            Some(o) => {
                let (sx, sy) = (o.x.size.max(l.x.size), o.y.size.max(l.y.size));
                if !contains(o, &l) {
                    *o = l;
                }
                o.x.size = sx;
                o.y.size = sy;
            }
            None => {
                out.push(l);
                twins.extend(lattice_of(&class, p, cells, &labels, true).map(|t| (l, t)));
            }
        }
    }
    out.sort_by_key(|l| std::cmp::Reverse(l.blobs));
    // Each lattice's refitted twin (see `lattice_of`), when it is the same
    // lattice (within a pitch of it, corner to corner) yet off it and every
    // other by 3 % of a pitch or more (the sums of both axes' corner
    // moves): the twin takes the plain one's place, and the plain one goes
    // after all the others.
    for (l, t) in twins {
        let far = |a: &BlobAxis| a.first + (a.count as f64 - 1.0) * a.pitch;
        let apart = |o: &BlobLattice| {
            (far(&o.x) - far(&t.x))
                .abs()
                .max((o.x.first - t.x.first).abs())
                / t.x.pitch
                + (far(&o.y) - far(&t.y))
                    .abs()
                    .max((o.y.first - t.y.first).abs())
                    / t.y.pitch
        };
        if apart(&l) < 1.0 && out.iter().all(|o| apart(o) >= 0.03) {
            match out.iter().position(|o| *o == l) {
                Some(i) => {
                    out[i] = t;
                    out.push(l);
                }
                None => out.push(t),
            }
        }
    }
    out
}

/// Lattices over a few tiles, too few or too scattered for
/// [`blob_lattices`] (a collapse board near its end, pieces left on a
/// panel; it wants `p.min_blobs` and three neighbour distances an axis):
/// per class of 2 or more blobs of about one size (within `p.size_spread`),
/// the pitch along an axis is the median distance between blobs side by
/// side on a line (centres within a quarter of the size across, apart by
/// 0.95 to 1.6 times the size: neighbouring tiles; pieces further apart
/// tell nothing), the other axis's pitch scaled by the sizes where no two
/// blobs stand side by side along it, or where the gaps the two axes
/// measure differ by more than [`GAP_SPREAD`] of a size (a tile and a
/// marker over the board above it) by the axis of the smaller gap. The
/// lattice's blobs are those on it (within `p.on_lattice`) from the blob
/// that puts the most of its class on it, at least 2; the extent is
/// theirs, any count a side: such a lattice says where the tiles are, not
/// where the board ends, which only framing can tell. Most blobs first.
pub fn few_blob_lattices(img: &RgbImage, p: &BlobParams) -> Vec<BlobLattice> {
    let labels = Labels::of(img, p);
    let (w, h) = (img.width() as usize, img.height() as usize);
    let mut tiles: Vec<Blob> = labels
        .blobs
        .iter()
        .filter(|b| tile_like(b, p, w, h))
        .copied()
        .collect();
    tiles.sort_by(|a, b| a.size().total_cmp(&b.size()));
    let mut out: Vec<BlobLattice> = Vec::new();
    let mut start = 0;
    while start < tiles.len() {
        // Runs of sizes within the spread of the run's smallest.
        let s0 = tiles[start].size();
        let end = start + tiles[start..].partition_point(|b| b.size() <= s0 * p.size_spread);
        let class = &tiles[start..end];
        start = end;
        if class.len() < 2 {
            continue;
        }
        if let Some(l) = few_lattice(class, p) {
            out.push(l);
        }
    }
    out.sort_by_key(|l| std::cmp::Reverse(l.blobs));
    out
}

/// A class's tile size, `(width, height)`: the median box of its blobs
/// and a pixel a side (the boxes miss the outline's boundary pixels).
fn tile_size(class: &[Blob]) -> Option<(f64, f64)> {
    Some((
        median(class.iter().map(Blob::width).collect())? + 2.0,
        median(class.iter().map(Blob::height).collect())? + 2.0,
    ))
}

/// How far apart (in tile sizes) the gaps of the two axes of
/// [`few_lattice`] may be.
const GAP_SPREAD: f64 = 0.15;

/// The lattice of a few blobs ([`few_blob_lattices`]).
fn few_lattice(class: &[Blob], p: &BlobParams) -> Option<BlobLattice> {
    let (size_x, size_y) = tile_size(class)?;
    let side_by_side = |along_x: bool, size: f64| {
        let mut d: Vec<f64> = Vec::new();
        for (i, a) in class.iter().enumerate() {
            for b in &class[i + 1..] {
                let ((ax, ay), (bx, by)) = (a.centre(), b.centre());
                let (along, across) = if along_x {
                    ((bx - ax).abs(), (by - ay).abs())
                } else {
                    ((by - ay).abs(), (bx - ax).abs())
                };
                if across < 0.25 * size && along >= 0.95 * size {
                    d.push(along);
                }
            }
        }
        let next: Vec<f64> = d.iter().copied().filter(|a| *a <= 1.6 * size).collect();
        if next.is_empty() {
            // No two tiles of the class side by side.
            apart_pitch(&d, size)
        } else {
            median(next)
        }
    };
    let (px, py) = match (side_by_side(true, size_x), side_by_side(false, size_y)) {
        // Tiles are parted by about one gap both ways: a pair much
        // farther apart on one axis is a tile and something else of its
        // size (a marker over the board), the nearer pair the tiles'.
        (Some(px), Some(py))
            if ((px - size_x) - (py - size_y)).abs() > GAP_SPREAD * size_x.max(size_y) =>
        {
            if px - size_x < py - size_y {
                (px, px * size_y / size_x)
            } else {
                (py * size_x / size_y, py)
            }
        }
        (Some(px), Some(py)) => (px, py),
        (Some(px), None) => (px, px * size_y / size_x),
        (None, Some(py)) => (py * size_x / size_y, py),
        (None, None) => return None,
    };
    // Sites from a reference blob's centre, and the centres' mean offset
    // from their sites (the phase). The reference is the blob that puts
    // the most of its class on the lattice; the others are left out (a
    // glyph of UI text of the tiles' size, a marker over the board: with
    // every blob held to the lattice, sparse synthetic seeds 7000-7599 read
    // 9 boards fewer, none more right). `on(r)`: per blob on the lattice
    // through `r`, its site and its centre's offset from it.
    let on = |r: &Blob| -> Vec<((i64, i64), (f64, f64))> {
        let (x0, y0) = r.centre();
        class
            .iter()
            .filter_map(|b| {
                let (x, y) = b.centre();
                let (tx, ty) = ((x - x0) / px, (y - y0) / py);
                let (kx, ky) = (tx.round(), ty.round());
                ((tx - kx).abs() <= p.on_lattice && (ty - ky).abs() <= p.on_lattice)
                    .then_some(((kx as i64, ky as i64), ((tx - kx) * px, (ty - ky) * py)))
            })
            .collect()
    };
    let (reference, kept) = class
        .iter()
        .map(|r| (r, on(r)))
        .max_by_key(|(_, k)| k.len())?;
    if kept.len() < 2 {
        return None;
    }
    let (x0, y0) = reference.centre();
    let n = kept.len() as f64;
    let fx = kept.iter().map(|k| k.1 .0).sum::<f64>() / n;
    let fy = kept.iter().map(|k| k.1 .1).sum::<f64>() / n;
    let mut sites: Vec<(i64, i64)> = kept.iter().map(|k| k.0).collect();
    sites.sort_unstable();
    sites.dedup();
    if sites.len() < kept.len() {
        return None;
    }
    let (c0, c1) = (
        sites.iter().map(|s| s.0).min()?,
        sites.iter().map(|s| s.0).max()?,
    );
    let (r0, r1) = (
        sites.iter().map(|s| s.1).min()?,
        sites.iter().map(|s| s.1).max()?,
    );
    Some(BlobLattice {
        x: BlobAxis {
            pitch: px,
            first: x0 + fx + c0 as f64 * px,
            count: (c1 - c0 + 1) as usize,
            size: size_x,
        },
        y: BlobAxis {
            pitch: py,
            first: y0 + fy + r0 as f64 * py,
            count: (r1 - r0 + 1) as usize,
            size: size_y,
        },
        blobs: kept.len(),
    })
}

/// Up to `p.classes` classes of blobs of about one size, largest class
/// first: each is the blobs within `p.size_spread` of a seed's size, seeds
/// taken greedily by how many blobs they gather (a seed already in a class
/// is not a seed again).
fn size_classes(all: &[Blob], p: &BlobParams) -> Vec<Vec<Blob>> {
    let mut sorted: Vec<Blob> = all.to_vec();
    sorted.sort_by(|a, b| a.size().total_cmp(&b.size()));
    let sizes: Vec<f64> = sorted.iter().map(Blob::size).collect();
    // Per blob, the range of blobs within the spread of its size.
    let ranges: Vec<(usize, usize)> = sizes
        .iter()
        .map(|&s| {
            let lo = sizes.partition_point(|&t| t < s / p.size_spread);
            let hi = sizes.partition_point(|&t| t <= s * p.size_spread);
            (lo, hi)
        })
        .collect();
    let mut used = vec![false; sorted.len()];
    let mut out = Vec::new();
    while out.len() < p.classes {
        let Some((i, &(lo, hi))) = ranges
            .iter()
            .enumerate()
            .filter(|(i, _)| !used[*i])
            .max_by_key(|(i, r)| (r.1 - r.0, usize::MAX - i))
        else {
            break;
        };
        if hi - lo < p.min_blobs {
            break;
        }
        used[lo..hi].iter_mut().for_each(|u| *u = true);
        used[i] = true;
        out.push(sorted[lo..hi].to_vec());
    }
    out
}

/// The pitch along one axis of a class of blobs: per blob, the distance to
/// its nearest neighbour further along the same line (centres within a
/// quarter of the blob size across), which is a multiple of the pitch. The
/// smallest distance of which at least 60 % of those up to 4.5 times it
/// (at least 3) are a multiple (within 12 %, up to 4 times), refined by
/// least squares. Pieces scattered over a board have neighbours many
/// pitches apart along a line, which tell nothing (a tenth off at 8 times
/// a pitch rounded from the nearest pair); counted, they outvoted the
/// pairs a pitch or two apart (synthetic seed 7168: 35 circles, none
/// found). `None` under 3 distances.
fn class_pitch(class: &[Blob], along_x: bool) -> Option<f64> {
    let pos = |b: &Blob| {
        let (x, y) = b.centre();
        if along_x {
            (x, y)
        } else {
            (y, x)
        }
    };
    let mut d: Vec<f64> = Vec::new();
    for b in class {
        let (a, c) = pos(b);
        let s = b.size();
        let next = class
            .iter()
            .map(|o| (pos(o), o.size()))
            .filter(|&((oa, oc), os)| oa - a > 0.7 * s.min(os) && (oc - c).abs() < 0.25 * s)
            .map(|((oa, _), _)| oa - a)
            .min_by(f64::total_cmp);
        d.extend(next);
    }
    if d.len() < 3 {
        return None;
    }
    d.sort_by(f64::total_cmp);
    let multiple = |v: f64, p: f64| {
        let k = (v / p).round();
        ((1.0..=4.0).contains(&k) && (v / p - k).abs() <= 0.12).then_some(k)
    };
    let p0 = d.iter().copied().find(|&p| {
        let near = d.iter().filter(|&&v| v <= 4.5 * p);
        let (n, explained) = near.fold((0, 0), |(n, e), &v| {
            (n + 1, e + multiple(v, p).is_some() as usize)
        });
        n >= 3 && 5 * explained >= 3 * n
    })?;
    let (mut sv, mut sk) = (0.0, 0.0);
    for &v in &d {
        if let Some(k) = multiple(v, p0) {
            sv += v;
            sk += k;
        }
    }
    (sk > 0.0).then(|| sv / sk)
}

/// The lattice of one class of blobs (step 4 of the module docs); the
/// sites of merged tiles (`merged_sites`) count as held. `fitted`: the
/// axes are refitted through all the blob centres on them ([`refit`]).
/// The refitted lattice is a twin offered before the plain one, not
/// instead of it: on most boards the two agree; where they do not, the
/// plain one's small error has been what stopped some reads past it (a
/// KDiamond board under a dialog, read exactly, was refused by the gap
/// test and a comb lattice over its menu read instead), so the finder and
/// the reader still see both.
fn lattice_of(
    class: &[Blob],
    p: &BlobParams,
    cells: (usize, usize),
    labels: &Labels,
    fitted: bool,
) -> Option<BlobLattice> {
    let px = class_pitch(class, true)?;
    let py = class_pitch(class, false)?;
    let (size_x, size_y) = tile_size(class)?;
    if px < 0.9 * size_x || py < 0.9 * size_y || px > 2.5 * py || py > 2.5 * px {
        return None;
    }
    // Phase: circular mean of the centres modulo the pitch.
    let phase = |v: &mut dyn Iterator<Item = f64>, pitch: f64| {
        let (s, c) = v.fold((0.0, 0.0), |(s, c), t| {
            let a = std::f64::consts::TAU * t / pitch;
            (s + a.sin(), c + a.cos())
        });
        (s.atan2(c) / std::f64::consts::TAU * pitch).rem_euclid(pitch)
    };
    let fx = phase(&mut class.iter().map(|b| b.centre().0), px);
    let fy = phase(&mut class.iter().map(|b| b.centre().1), py);
    // Blobs on lattice sites: (column, row) indices.
    let index = |v: f64, first: f64, pitch: f64| {
        let t = (v - first) / pitch;
        let k = t.round();
        ((t - k).abs() <= p.on_lattice).then_some(k as i64)
    };
    // The blobs on sites, `((column, row), centre)`, of the lattice with
    // axes `(first, pitch)`.
    let on_sites = |(fx, px): (f64, f64), (fy, py): (f64, f64)| {
        class
            .iter()
            .filter_map(|b| {
                let (x, y) = b.centre();
                Some(((index(x, fx, px)?, index(y, fy, py)?), (x, y)))
            })
            .collect::<Vec<_>>()
    };
    let (mut xs, mut ys) = ((fx, px), (fy, py));
    if fitted {
        let held = on_sites(xs, ys);
        xs = refit(held.iter().map(|&((c, _), (x, _))| (c as f64, x)), xs);
        ys = refit(held.iter().map(|&((_, r), (_, y))| (r as f64, y)), ys);
    }
    let ((fx, px), (fy, py)) = (xs, ys);
    let mut sites: Vec<(i64, i64)> = on_sites(xs, ys).into_iter().map(|(s, _)| s).collect();
    if sites.len() < p.min_blobs {
        return None;
    }
    sites.extend(merged_sites(class, labels, p, (fx, px), (fy, py)));
    sites.sort_unstable();
    sites.dedup();
    // Clusters of sites (Chebyshev distance at most 2 links two sites).
    let mut label = vec![usize::MAX; sites.len()];
    let mut best: Option<(usize, Vec<usize>)> = None;
    for s in 0..sites.len() {
        if label[s] != usize::MAX {
            continue;
        }
        label[s] = s;
        let mut members = vec![s];
        let mut k = 0;
        while k < members.len() {
            let (a, b) = sites[members[k]];
            for (j, &(c, d)) in sites.iter().enumerate() {
                if label[j] == usize::MAX && (a - c).abs() <= 2 && (b - d).abs() <= 2 {
                    label[j] = s;
                    members.push(j);
                }
            }
            k += 1;
        }
        if best.as_ref().is_none_or(|b| members.len() > b.0) {
            best = Some((members.len(), members));
        }
    }
    let (_, members) = best?;
    let held: Vec<(i64, i64)> = members.iter().map(|&m| sites[m]).collect();
    let (n, (c0, c1), (r0, r1)) = core_extent(&held);
    let (cols, rows) = ((c1 - c0 + 1) as usize, (r1 - r0 + 1) as usize);
    let ok = |n: usize| (cells.0..=cells.1).contains(&n);
    if !ok(cols) || !ok(rows) || (n as f64) < p.min_occupied * (rows * cols) as f64 {
        return None;
    }
    Some(BlobLattice {
        x: BlobAxis {
            pitch: px,
            first: fx + c0 as f64 * px,
            count: cols,
            size: size_x,
        },
        y: BlobAxis {
            pitch: py,
            first: fy + r0 as f64 * py,
            count: rows,
            size: size_y,
        },
        blobs: n,
    })
}

/// A lattice axis `(first, pitch)` fitted to the blob centres on it,
/// `(index, position)`: the neighbours' distances set the pitch within a
/// few per cent, which over a board of 17 tiles puts its far end a few
/// pixels off; the line through all the centres does not. A robust line
/// (Theil and Sen's: the median slope over pairs of blobs, then the
/// median offset), so that blobs off their tile's centre (a face cut by a
/// symbol) do not pull it. The axis as it was with under 3 blobs or one
/// index, or when the fit moves the pitch more than 5 %.
pub(super) fn refit(
    points: impl Iterator<Item = (f64, f64)>,
    (first, pitch): (f64, f64),
) -> (f64, f64) {
    let pts: Vec<(f64, f64)> = points.collect();
    if pts.len() < 3 {
        return (first, pitch);
    }
    // Pairs of every `step`-th blob: at most ~11 k pairs.
    let step = (pts.len() / 150).max(1);
    let mut slopes: Vec<f64> = Vec::new();
    for (i, a) in pts.iter().enumerate().step_by(step) {
        for b in pts[i + 1..].iter().step_by(step) {
            if b.0 != a.0 {
                slopes.push((b.1 - a.1) / (b.0 - a.0));
            }
        }
    }
    let Some(slope) = median(slopes).filter(|s| (s / pitch - 1.0).abs() <= 0.05) else {
        return (first, pitch);
    };
    match median(pts.iter().map(|&(k, v)| v - slope * k).collect()) {
        Some(offset) => (offset, slope),
        None => (first, pitch),
    }
}

/// The extent of a cluster of sites `(column, row)`: how many sites it
/// holds, its columns and its rows (inclusive). An outer line whose
/// neighbour inside holds no site, and which holds at most a quarter of
/// the sites an average line of the rest holds, is dropped (with the empty
/// line): the cluster's links span one empty line, so such a line is a
/// blob of the UI beyond the board (a button above Five or More's board,
/// whose empty cells are the blobs). A class that misses some tiles (those
/// merged with a neighbour of their colour) can leave a line of a board
/// empty, with full lines on both sides.
fn core_extent(held: &[(i64, i64)]) -> (usize, (i64, i64), (i64, i64)) {
    let span = |f: fn(&(i64, i64)) -> i64, of: &[(i64, i64)]| {
        let lo = of.iter().map(f).min().unwrap_or(0);
        let hi = of.iter().map(f).max().unwrap_or(0);
        (lo, hi)
    };
    let mut kept: Vec<(i64, i64)> = held.to_vec();
    loop {
        let (c0, c1) = span(|s| s.0, &kept);
        let (r0, r1) = span(|s| s.1, &kept);
        // Line `k` of the rows (or columns) from `lo` to `hi` is stray when
        // the next one in holds no site and it holds at most a quarter of
        // the sites a line of the rest holds on average.
        let stray = |row: bool, k: i64, next: i64, lo: i64, hi: i64| {
            let on = |s: &(i64, i64), at: i64| if row { s.1 == at } else { s.0 == at };
            let n = kept.iter().filter(|s| on(s, k)).count();
            let rest = (hi - lo - 1) as usize;
            hi - lo >= 2 && !kept.iter().any(|s| on(s, next)) && 4 * n * rest <= kept.len() - n
        };
        let side = [
            (stray(true, r0, r0 + 1, r0, r1), true, r0),
            (stray(true, r1, r1 - 1, r0, r1), true, r1),
            (stray(false, c0, c0 + 1, c0, c1), false, c0),
            (stray(false, c1, c1 - 1, c0, c1), false, c1),
        ];
        let Some(&(_, row, k)) = side.iter().find(|s| s.0) else {
            return (kept.len(), (c0, c1), (r0, r1));
        };
        kept.retain(|s| if row { s.1 != k } else { s.0 != k });
    }
}

/// The lattice sites held by blobs of several tiles: tiles with no gap
/// between them, of one colour, are one blob (an L of three, a row of
/// four), so a lattice of single tiles misses them and can stop a line
/// short. A blob counts when its box is the union of whole tiles of the
/// class's size on the lattice (each side within [`BlobParams::merged_align`]
/// of a pitch of a tile's side), it covers each of its sites (at least 6 of
/// 8 points on a ring around the site's centre) and its area is that many
/// tiles' (at least the class's median area times the sites over
/// [`BlobParams::merged_area`], at most the sites' cells). A panel or
/// background around the board has margins beyond the tiles and more area
/// than its sites' cells. Sites as
/// `(column, row)` indices of the lattice `(first, pitch)` per axis.
fn merged_sites(
    class: &[Blob],
    labels: &Labels,
    p: &BlobParams,
    (fx, px): (f64, f64),
    (fy, py): (f64, f64),
) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    let (Some(tw), Some(th), Some(ta)) = (
        median(class.iter().map(Blob::width).collect()),
        median(class.iter().map(Blob::height).collect()),
        median(class.iter().map(|b| b.area as f64).collect()),
    ) else {
        return out;
    };
    // The lattice indices of the tiles a box side starts or ends with,
    // when the side is on a tile's side.
    let aligned = |lo: usize, hi: usize, first: f64, pitch: f64, t: f64| {
        let a = (lo as f64 + 0.5 * t - first) / pitch;
        let b = (hi as f64 + 1.0 - 0.5 * t - first) / pitch;
        let (ka, kb) = (a.round(), b.round());
        let tol = p.merged_align;
        ((a - ka).abs() <= tol && (b - kb).abs() <= tol && kb >= ka)
            .then_some((ka as i64, kb as i64))
    };
    for (id, b) in labels.blobs.iter().enumerate() {
        if (b.area as f64) < 1.5 * ta || b.width() < 0.8 * tw || b.height() < 0.8 * th {
            continue;
        }
        let (Some((c0, c1)), Some((r0, r1))) = (
            aligned(b.x0, b.x1, fx, px, tw),
            aligned(b.y0, b.y1, fy, py, th),
        ) else {
            continue;
        };
        let n = ((c1 - c0 + 1) * (r1 - r0 + 1)) as usize;
        if n < 2 {
            continue;
        }
        let held: Vec<(i64, i64)> = (r0..=r1)
            .flat_map(|r| (c0..=c1).map(move |c| (c, r)))
            .filter(|&(c, r)| {
                let (x, y) = (fx + c as f64 * px, fy + r as f64 * py);
                // Two rings, so a symbol on one does not hide the tile.
                [0.3, 0.4].iter().any(|&reach| {
                    (0..8)
                        .filter(|&k| {
                            let a = std::f64::consts::TAU * k as f64 / 8.0;
                            let (dx, dy) = (reach * tw * a.cos(), reach * th * a.sin());
                            labels.blob_at(x + dx, y + dy) == Some(id)
                        })
                        .count()
                        >= 6
                })
            })
            .collect();
        let spans = |f: fn(&(i64, i64)) -> i64, lo: i64, hi: i64| {
            held.iter().map(f).min() == Some(lo) && held.iter().map(f).max() == Some(hi)
        };
        let k = held.len() as f64;
        if held.len() >= 2
            && spans(|s| s.0, c0, c1)
            && spans(|s| s.1, r0, r1)
            && b.area as f64 >= k * ta / p.merged_area
            && b.area as f64 <= k * px * py
        {
            out.extend(held);
        }
    }
    out
}

/// The pitch of a few tiles none of which sits beside another of its
/// class: from distances `d` between tiles on one line (each a whole
/// number of pitches), the pitch between 0.95 and 1.6 tile sizes
/// (`size`) that the most of them are whole multiples of (within
/// [`MULTIPLE_SLACK`] of a pitch), at least two and two thirds of them;
/// the larger on a tie. Refined to the median of each distance over its
/// multiple.
fn apart_pitch(d: &[f64], size: f64) -> Option<f64> {
    let fits = |p: f64| -> Vec<f64> {
        d.iter()
            .filter_map(|&a| {
                let k = (a / p).round();
                (k >= 1.0 && (a / p - k).abs() <= MULTIPLE_SLACK).then_some(a / k)
            })
            .collect()
    };
    let mut best: Option<(usize, f64)> = None;
    for &a in d {
        for k in 1..=MAX_MULTIPLE {
            let p = a / k as f64;
            if !(0.95 * size..=1.6 * size).contains(&p) {
                continue;
            }
            let n = fits(p).len();
            if best.is_none_or(|(m, q)| n > m || (n == m && p > q)) {
                best = Some((n, p));
            }
        }
    }
    let (n, p) = best?;
    if n < 2 || 3 * n < 2 * d.len() {
        return None;
    }
    median(fits(p))
}

/// Largest multiple of the pitch [`apart_pitch`] takes a distance for.
const MAX_MULTIPLE: usize = 8;

/// How far from a whole number of pitches a distance may be in
/// [`apart_pitch`], in pitches.
const MULTIPLE_SLACK: f64 = 0.08;

/// The median of some values (`None` when there are none).
fn median(mut v: Vec<f64>) -> Option<f64> {
    // By selection, not sorting: `refit` takes it over thousands of slopes.
    let mid = v.len() / 2;
    (!v.is_empty()).then(|| *v.select_nth_unstable_by(mid, f64::total_cmp).1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    /// Circles of `d` px on a `pitch` lattice at `(x0, y0)`, each with a
    /// ring symbol inside, colours from a cycle, on a dark background with
    /// a strip of pixel-font-like bars on top.
    /// Fills a square of `side` pixels at `at` (its top left) with `c`.
    fn fill_square(img: &mut RgbImage, at: (u32, u32), side: u32, c: [u8; 3]) {
        for y in at.1..at.1 + side {
            for x in at.0..at.0 + side {
                img.put_pixel(x, y, Rgb(c));
            }
        }
    }

    fn circles(rows: usize, cols: usize, pitch: f64, d: f64, x0: f64, y0: f64) -> RgbImage {
        let colours = [[200, 40, 40], [40, 170, 60], [50, 90, 210], [230, 200, 40]];
        let w = (x0 + cols as f64 * pitch + 31.0) as u32;
        let h = (y0 + rows as f64 * pitch + 47.0) as u32;
        let mut img = RgbImage::from_pixel(w, h, Rgb([30, 34, 38]));
        // "Text": 3x5 glyph-like bars.
        for g in 0..(w / 8).saturating_sub(1) {
            for y in 4..14 {
                for x in 0..5 {
                    if (x + y + g) % 3 != 0 {
                        img.put_pixel(g * 8 + 4 + x, y, Rgb([230, 230, 230]));
                    }
                }
            }
        }
        for r in 0..rows {
            for c in 0..cols {
                let col = colours[(r * 7 + c * 3 + r * c) % 4];
                let (cx, cy) = (x0 + (c as f64 + 0.5) * pitch, y0 + (r as f64 + 0.5) * pitch);
                for y in (cy - d) as u32..(cy + d) as u32 {
                    for x in (cx - d) as u32..(cx + d) as u32 {
                        let t = (x as f64 + 0.5 - cx).hypot(y as f64 + 0.5 - cy);
                        if t < d / 2.0 {
                            let ring = (t - 0.25 * d).abs() < 1.5;
                            let v = if ring { [240, 240, 240] } else { col };
                            img.put_pixel(x, y, Rgb(v));
                        }
                    }
                }
            }
        }
        img
    }

    #[test]
    fn four_tiles_left_give_their_lattice() {
        // Four squares of 40 px on a 46 px pitch on black, in an L (two
        // side by side in the bottom row, two above the right one), and a
        // square of another size far off.
        let mut img = RgbImage::from_pixel(400, 300, Rgb([0, 0, 0]));
        let mut square = |x0, y0, side, c| fill_square(&mut img, (x0, y0), side, c);
        let (blue, green) = ([50, 90, 210], [90, 180, 40]);
        for (col, row, c) in [(0, 4, blue), (1, 4, blue), (1, 3, green), (1, 2, green)] {
            square(20 + 46 * col, 40 + 46 * row, 40, c);
        }
        square(300, 30, 20, [200, 40, 40]);
        let found = few_blob_lattices(&img, &BlobParams::default());
        let l = found.first().expect("a lattice");
        assert_eq!((l.blobs, l.x.count, l.y.count), (4, 2, 3), "{found:?}");
        assert!(
            (l.x.pitch - 46.0).abs() < 0.5 && (l.y.pitch - 46.0).abs() < 0.5,
            "{l:?}"
        );
        assert!((l.x.first - 40.0).abs() < 1.0, "{l:?}");
        assert!(
            (l.y.first - (40.0 + 2.0 * 46.0 + 20.0)).abs() < 1.0,
            "{l:?}"
        );
        // Two tiles apart by more than 1.6 sizes tell no pitch.
        let mut apart = RgbImage::from_pixel(400, 300, Rgb([0, 0, 0]));
        for x0 in [20u32, 120] {
            fill_square(&mut apart, (x0, 40), 40, blue);
        }
        assert!(few_blob_lattices(&apart, &BlobParams::default()).is_empty());
    }

    #[test]
    fn tiles_never_side_by_side_still_give_their_pitch() {
        // Tiles 36 pixels wide at a pitch of 40, two, seven and five
        // pitches apart (and a little off): 40, not 80 nor 20.
        let p = apart_pitch(&[80.5, 280.0, 199.0, 80.0, 201.0], 36.0);
        assert!(p.is_some_and(|p| (p - 40.0).abs() < 0.5), "{p:?}");
        // No whole pitch between 0.95 and 1.6 tile sizes fits them.
        assert_eq!(apart_pitch(&[50.0, 73.0, 131.0], 36.0), None);
        // One distance is no pitch.
        assert_eq!(apart_pitch(&[80.0], 36.0), None);
    }

    #[test]
    fn a_few_tiles_keep_their_lattice_past_a_blob_off_it() {
        // Three squares of 40 px side by side on a 46 px pitch, a square
        // of their size half a pitch off them, and one 64 px above the
        // first (a marker: the vertical pair's gap is 24 px, the row's 6).
        let mut img = RgbImage::from_pixel(500, 400, Rgb([0, 0, 0]));
        let mut square = |x0, y0, c| fill_square(&mut img, (x0, y0), 40, c);
        let (blue, green) = ([50, 90, 210], [90, 180, 40]);
        for col in 0..3 {
            square(20 + 46 * col, 300, if col == 1 { green } else { blue });
        }
        square(20 + 46 * 5 + 23, 40, blue);
        square(20, 300 - 64, [20, 20, 120]);
        let found = few_blob_lattices(&img, &BlobParams::default());
        let l = found.first().expect("a lattice");
        assert_eq!((l.blobs, l.x.count, l.y.count), (3, 3, 1), "{found:?}");
        assert!(
            (l.x.pitch - 46.0).abs() < 0.5 && (l.y.pitch - 46.0).abs() < 0.5,
            "{l:?}"
        );
        assert!((l.y.first - 320.0).abs() < 1.0, "{l:?}");
    }

    #[test]
    fn the_blob_lattice_of_a_board_of_circles_is_the_drawn_lattice() {
        let (pitch, x0, y0) = (37.3, 21.6, 58.2);
        let img = circles(6, 7, pitch, 33.0, x0, y0);
        let found = blob_lattices(&img, &BlobParams::default(), (3, 25));
        let l = found.first().expect("a lattice");
        assert_eq!((l.y.count, l.x.count), (6, 7), "{found:?}");
        assert!((l.x.pitch - pitch).abs() < 0.3, "{l:?}");
        assert!((l.y.pitch - pitch).abs() < 0.3, "{l:?}");
        // First tile centre within a pixel.
        assert!((l.x.first - (x0 + pitch / 2.0)).abs() < 1.0, "{l:?}");
        assert!((l.y.first - (y0 + pitch / 2.0)).abs() < 1.0, "{l:?}");
        assert!((l.x.size - 33.0).abs() < 2.0, "{l:?}");
    }

    #[test]
    fn a_stray_blob_across_an_empty_line_is_off_the_extent() {
        // A full 4x5 block of sites (columns 0-4, rows 2-5) and one site two
        // rows above it: that row is dropped with the empty row.
        let mut held: Vec<(i64, i64)> = (2..6).flat_map(|r| (0..5).map(move |c| (c, r))).collect();
        held.push((3, 0));
        assert_eq!(core_extent(&held), (20, (0, 4), (2, 5)));
        // A line of the board beyond an empty one that holds as many sites
        // as the rest (a class that missed a column) stays.
        let block: Vec<(i64, i64)> = (0..4)
            .flat_map(|r| [0, 2, 3, 4].into_iter().map(move |c| (c, r)))
            .collect();
        assert_eq!(core_extent(&block), (16, (0, 4), (0, 3)));
        // Two sparse outer lines, each beyond an empty one, both go.
        let mut two = held.clone();
        two.push((6, 4));
        assert_eq!(core_extent(&two), (20, (0, 4), (2, 5)));
    }

    #[test]
    fn a_refit_follows_the_centres_not_the_outliers() {
        // Centres of 17 tiles at pitch 20.23 from 31.4, three of them off
        // by 6 px (a face cut by a symbol), and a start from a pitch 1 %
        // short: the robust line gives the drawn axis back.
        let (first, pitch) = (31.4, 20.23);
        let pts: Vec<(f64, f64)> = (0..17)
            .map(|k| {
                let off = if k % 6 == 1 { 6.0 } else { 0.0 };
                (k as f64, first + k as f64 * pitch + off)
            })
            .collect();
        let (f, p) = refit(pts.iter().copied(), (30.0, 20.0));
        assert!((p - pitch).abs() < 0.01, "pitch {p}");
        assert!((f - first).abs() < 0.1, "first {f}");
        // A least-squares line would be pulled by the outliers.
        let n = pts.len() as f64;
        let (mk, mv) = pts
            .iter()
            .fold((0.0, 0.0), |a, &(k, v)| (a.0 + k / n, a.1 + v / n));
        let (skk, skv) = pts.iter().fold((0.0, 0.0), |a, &(k, v)| {
            (a.0 + (k - mk) * (k - mk), a.1 + (k - mk) * (v - mv))
        });
        assert!((mv - skv / skk * mk - first).abs() > 0.5);
        // Too few points, one index, or a pitch moved past 5 %: as given.
        assert_eq!(refit(pts[..2].iter().copied(), (30.0, 20.0)), (30.0, 20.0));
        let same = [(3.0, 90.0), (3.0, 91.0), (3.0, 92.0)];
        assert_eq!(refit(same.into_iter(), (30.0, 20.0)), (30.0, 20.0));
        assert_eq!(refit(pts.iter().copied(), (30.0, 25.0)), (30.0, 25.0));
    }

    #[test]
    fn text_and_flat_pictures_have_no_blob_lattice() {
        let flat = RgbImage::from_pixel(200, 300, Rgb([90, 120, 40]));
        assert!(blob_lattices(&flat, &BlobParams::default(), (3, 25)).is_empty());
        // Only the "text" strip of the board picture.
        let mut text = circles(3, 3, 30.0, 26.0, 10.0, 40.0);
        for y in 20..text.height() {
            for x in 0..text.width() {
                text.put_pixel(x, y, Rgb([30, 34, 38]));
            }
        }
        assert!(blob_lattices(&text, &BlobParams::default(), (3, 25)).is_empty());
    }
}
