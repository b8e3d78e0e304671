//! Learning a calibration from screenshots of one window layout.
//!
//! Coordinates: the screenshots' window pixels become the calibration's
//! reference window (so the calibration fits that window size exactly); all
//! screenshots must have the same size.
//!
//! Steps: find the grid on the first screenshot — with no size given
//! (`rows` or `cols` 0, see [`CalibrateOptions::find`]) by its periodic edges
//! ([`super::find`]), else by its colourful tiles ([`super::locate`]) — or
//! take a given rectangle; choose the sampling pattern whose samples agree best; read
//! every cell's robust colour; then name the colours:
//! - with known boards (one per screenshot): every colour index is the robust
//!   centre of the cells labelled with it (exact indices, the cleanest way).
//!   Cells far from their class (a hover highlight) are outliers; when they are
//!   a consistent brightness change of their class colour in sRGB, that
//!   factor is learned and every colour gets a highlighted variant with the
//!   same index (Swell Foop draws the hovered group about 1.42x brighter);
//! - without: cells close to the background just outside the board read as
//!   empty; the rest are clustered by k-means in Lab (Lloyd's algorithm with
//!   farthest-point seeding, Gonzalez 1985), `K` given or chosen by adding
//!   centres while some cell is farther than [`CalibrateParams::split_distance`]
//!   from all; clusters are numbered in order of first appearance (reading
//!   order) from `first_index`.
//!
//! The threshold is set from the measurements: `max(floor, margin x the worst
//! in-class distance)`, capped at half the closest pair of references. Window
//! anchors are uniform spots outside the board that differ from the empty
//! colour. The result is read back with the new calibration and compared.
//!
//! Pure: no I/O.

use image::RgbImage;

use super::classify::{own_split, read_board, read_cells, ring_colour, CellReading};
use super::colour::{
    along, chroma, delta_e, lab_to_rgb, mean, median_mut, rgb_to_lab, robust_centre, Lab,
};
use super::find::{
    few_candidates, find_candidates, find_grid, sparse_candidates, FindParams, FoundGrid, Hints,
};
use super::layout::{
    nearest_reference, Anchor, Calibration, Grid, Palette, PaletteColour, Sampling, SecondLook,
};
use super::locate::{locate_grid, Extent, LocateParams, Located};
use super::VisionError;
use crate::board::{Board, Cell, EMPTY, UNKNOWN};

/// Tunables of the palette learning (plain data, `Default` is the preset).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CalibrateParams {
    /// Without K: a new cluster starts when a cell is this far from all centres.
    pub split_distance: f32,
    /// Cells within this ΔE of the background outside the board read as empty.
    pub empty_distance: f32,
    /// The threshold is at least this.
    pub threshold_floor: f32,
    /// ... and at least this times the worst in-class distance.
    pub threshold_margin: f32,
    /// `max_spread` is at least this ...
    pub spread_floor: f32,
    /// ... and at least this times the worst measured spread.
    pub spread_margin: f32,
    /// Most window anchors to keep.
    pub max_anchors: usize,
    /// Without K: a colour on a single cell is no palette colour when an
    /// arc of at least this fraction of the cell's ring departs from its
    /// colour ([`own_split`]: two colours in one tile, a popup over it).
    pub lone_split: f32,
    /// Without K: a cluster's tight outliers are a colour of their own
    /// unless their hue is within this many degrees of the cluster's (a
    /// lighter or darker shade of it: a hover highlight).
    pub shade_hue: f32,
    pub locate: LocateParams,
}

impl Default for CalibrateParams {
    fn default() -> Self {
        CalibrateParams {
            split_distance: 20.0,
            empty_distance: 12.0,
            threshold_floor: 12.0,
            threshold_margin: 3.0,
            spread_floor: 10.0,
            spread_margin: 3.0,
            max_anchors: 8,
            lone_split: 0.25,
            shade_hue: 10.0,
            locate: LocateParams::default(),
        }
    }
}

/// What to calibrate.
#[derive(Debug, Clone)]
pub struct CalibrateOptions {
    /// Game name stored in the file (informational).
    pub game: String,
    /// Board size; 0 (either) finds the grid with [`find_grid`], using the
    /// non-zero one and `hints` as hints.
    pub rows: usize,
    pub cols: usize,
    /// Hints for the grid finder when `rows` or `cols` is 0.
    pub hints: Hints,
    /// Tunables of the grid finder.
    pub find: FindParams,
    /// Tunables of the choice among the finder's lattices ([`read_auto`]).
    pub read: ReadParams,
    /// Number of colours (without `board`); `None` chooses by distance gap.
    pub colours: Option<usize>,
    /// The board shown on the screenshot, if known: exact palette indices
    /// (used by [`calibrate`]; [`calibrate_shots`] takes one per screenshot).
    pub board: Option<Board>,
    /// Highlighted variants: `None` learns a factor from outliers of labelled
    /// screenshots (if any), `Some(1.0)` turns them off, `Some(f)` forces `f`.
    pub highlight: Option<f32>,
    /// The board rectangle `(x, y, w, h)` (tile extents) if known; else found.
    pub rect: Option<(f64, f64, f64, f64)>,
    /// The gap between tiles when `rect` is given.
    pub gap: f64,
    /// First colour index when numbering clusters (1 for collapse games).
    pub first_index: u8,
    /// The sampling pattern; `None` picks, among [`Sampling::candidates`], the
    /// one whose cells' samples agree best (lowest 90th-percentile spread).
    pub sampling: Option<Sampling>,
    pub params: CalibrateParams,
}

impl CalibrateOptions {
    pub fn new(game: &str, rows: usize, cols: usize) -> Self {
        let first_index = match game {
            "samegame" | "swell-foop" | "popstar" => 1,
            _ => 0,
        };
        CalibrateOptions {
            game: game.to_string(),
            rows,
            cols,
            hints: Hints::default(),
            find: FindParams::default(),
            read: ReadParams::default(),
            colours: None,
            board: None,
            highlight: None,
            rect: None,
            gap: 0.0,
            first_index,
            sampling: None,
            params: CalibrateParams::default(),
        }
    }

    /// Options that find the grid (rows and columns only as hints).
    pub fn find(game: &str, hints: Hints) -> Self {
        let mut o = CalibrateOptions::new(game, 0, 0);
        o.hints = hints;
        o
    }

    /// True when the grid is to be found (no rectangle and no full size).
    pub fn finds_grid(&self) -> bool {
        self.rect.is_none() && (self.rows == 0 || self.cols == 0)
    }
}

/// What a calibration screenshot is known to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Label<'a> {
    /// Not known: colours are clustered.
    Unknown,
    /// This board (exact palette indices).
    Board(&'a Board),
    /// No board (a dialog or game-over screen): its unreadable cells'
    /// colours become the palette's `refuse` colours, if needed to refuse it.
    NoBoard,
}

impl<'a> Label<'a> {
    fn board(self) -> Option<&'a Board> {
        match self {
            Label::Board(b) => Some(b),
            _ => None,
        }
    }
}

/// Statistics of one palette class.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassStats {
    /// Colour index or [`EMPTY`].
    pub value: u8,
    pub cells: usize,
    pub lab: Lab,
    /// Largest ΔE of a member (outliers excluded) to the class colour.
    pub max_distance: f32,
    /// Members farther than the class allows (e.g. a hover highlight), as
    /// (screenshot index, cell).
    pub outliers: Vec<(usize, Cell)>,
    /// The outliers' colours.
    pub outlier_labs: Vec<Lab>,
}

/// What calibration measured and decided.
#[derive(Debug, Clone)]
pub struct CalibrationReport {
    /// The locator's measurements (None when the rectangle was given or the
    /// grid was found).
    pub located: Option<Located>,
    /// The grid finder's result (when no size was given).
    pub found: Option<FoundGrid>,
    pub classes: Vec<ClassStats>,
    /// Closest pair of references with different values, and their ΔE.
    pub min_separation: Option<(u8, u8, f32)>,
    pub threshold: f32,
    pub max_spread: f32,
    /// The colour just outside the board.
    pub background: Option<Lab>,
    /// The learned (or given) highlight factor, if variants were added.
    pub highlight: Option<f32>,
    /// Each screenshot read back with the new calibration (or the error text).
    pub read_back: Vec<Result<Board, String>>,
    /// (screenshot index, cell) where the read-back differs from the given board.
    pub mismatches: Vec<(usize, Cell)>,
    /// Each no-board screenshot: `Ok` when the new calibration refuses it.
    pub refusal_reads: Vec<Result<(), String>>,
    pub warnings: Vec<String>,
}

fn grid_from_rect(rect: (f64, f64, f64, f64), gap: f64, rows: usize, cols: usize) -> Grid {
    let (x, y, w, h) = rect;
    Grid {
        left: x,
        top: y,
        cell_width: (w - (cols as f64 - 1.0) * gap) / cols as f64,
        cell_height: (h - (rows as f64 - 1.0) * gap) / rows as f64,
        gap_x: gap,
        gap_y: gap,
    }
}

/// The extent of filled cells of a known board (colours, not empty/unknown).
fn filled_extent(b: &Board) -> Option<Extent> {
    let mut e: Option<Extent> = None;
    for r in 0..b.rows() {
        for c in 0..b.cols() {
            if b.get(r, c) <= 9 {
                e = Some(match e {
                    None => Extent {
                        row0: r,
                        row1: r,
                        col0: c,
                        col1: c,
                    },
                    Some(e) => Extent {
                        row0: e.row0.min(r),
                        row1: e.row1.max(r),
                        col0: e.col0.min(c),
                        col1: e.col1.max(c),
                    },
                });
            }
        }
    }
    e
}

/// The Lab colour of the pixel at `(x, y)`, if that point is in the picture.
fn lab_at(img: &RgbImage, x: f64, y: f64) -> Option<Lab> {
    (x >= 0.0 && y >= 0.0 && x < img.width() as f64 && y < img.height() as f64)
        .then(|| rgb_to_lab(img.get_pixel(x as u32, y as u32).0))
}

/// How many cells' colours lie farther than `apart` from the commonest
/// cell colour (the cell colour with the most others within `apart`).
fn cells_apart_from_mode(members: &[Member], apart: f32) -> usize {
    hued_apart_from_mode(members, apart, 0.0)
}

/// True when a pattern's cells read as a checker of two colours: in every
/// screenshot, the cells of each parity (row plus column, even or odd)
/// all but a tenth within `apart` of their parity's commonest colour, and
/// the two colours farther than `apart` from each other. Dealt tiles
/// never fall so; a ring reading a checkered backdrop between the pieces
/// does (Gweled's brightened: the ring at the cells' edge read the
/// backdrop's two squares as two colours, the same every other column).
fn checkered(members: &[Member], apart: f32) -> bool {
    let shots = members.iter().map(|m| m.0).max().map_or(0, |k| k + 1);
    (0..shots).all(|k| {
        let mode = |parity: usize| -> Option<(Lab, usize, usize)> {
            let labs: Vec<Lab> = members
                .iter()
                .filter(|m| m.0 == k && (m.1.row + m.1.col) % 2 == parity)
                .map(|m| m.2.lab)
                .collect();
            mode_of(&labs, apart).map(|(mode, near)| (mode, near, labs.len()))
        };
        let (Some((a, na, la)), Some((b, nb, lb))) = (mode(0), mode(1)) else {
            return false;
        };
        la + lb >= CHECKER_CELLS && 10 * na >= 9 * la && 10 * nb >= 9 * lb && delta_e(a, b) > apart
    })
}

/// The fewest cells a screenshot's lattice needs for [`checkered`] to
/// judge it.
const CHECKER_CELLS: usize = 12;

/// [`cells_apart_from_mode`] counting only cells of chroma `min_chroma`
/// or more.
fn hued_apart_from_mode(members: &[Member], apart: f32, min_chroma: f32) -> usize {
    apart_from_mode(members, apart)
        .iter()
        .filter(|b| chroma(**b) >= min_chroma)
        .count()
}

/// The cells' colours farther than `apart` from the commonest cell colour
/// (the cell colour with the most others within `apart`).
fn apart_from_mode(members: &[Member], apart: f32) -> Vec<Lab> {
    let Some(mode) = mode_colour(members, apart) else {
        return Vec::new();
    };
    members
        .iter()
        .map(|m| m.2.lab)
        .filter(|b| delta_e(mode, *b) > apart)
        .collect()
}

/// The commonest cell colour: the one with the most others within `apart`.
fn mode_colour(members: &[Member], apart: f32) -> Option<Lab> {
    let labs: Vec<Lab> = members.iter().map(|m| m.2.lab).collect();
    mode_of(&labs, apart).map(|m| m.0)
}

/// The colour of `labs` with the most of them within `apart` (itself
/// included), and how many those are.
fn mode_of(labs: &[Lab], apart: f32) -> Option<(Lab, usize)> {
    let near = |a: &Lab| labs.iter().filter(|b| delta_e(*a, **b) <= apart).count();
    let mode = *labs.iter().max_by_key(|a| near(a))?;
    Some((mode, near(&mode)))
}

/// How many colours (of two cells or more, of chroma `min_chroma` or
/// more) the cells apart from the commonest cell colour show, clustered as
/// the palette learning does.
fn hues_apart_from_mode(members: &[Member], apart: f32, min_chroma: f32) -> usize {
    let points = apart_from_mode(members, apart);
    let (assign, centres) = kmeans(&points, None, apart);
    (0..centres.len())
        .filter(|&j| {
            let n = assign.iter().filter(|&&a| a == j).count();
            n >= 2 && chroma(centres[j]) >= min_chroma
        })
        .count()
}

/// How many times further apart than every other pattern the rings near
/// the middle ([`Sampling::inner`]) must set the colours ([`separation`])
/// to be used, against those that see cells apart and are about as uniform
/// as the most uniform of them ([`UNIFORM_SLACK`]): Gweled's gems 2.3 and
/// 3.3 times, 1.43 scaled by 1.33 and saved at JPEG 55 (blurred facets);
/// lattices off the tiles' centres (the dual of diamonds on a checker) 0.7
/// and 1.1 times. Between the two: about the geometric mean of 1.1 and
/// 1.43 (2.0 until the JPEG'd gems were measured; the synthetic sets read
/// the same at 2.0, 1.4 and 1.25).
const GEM_SEPARATION: f32 = 1.25;

/// Chroma a pattern's cells seen apart must have for a pattern that sees
/// none apart to be taken as blind (see `calibrate_on`): colours, not the
/// black and white strokes of symbols on tiles of one grey.
const HUED: f32 = 20.0;

/// A sampling pattern whose cells' 90th-percentile spread is at most this
/// fraction of the split distance reads each cell as mostly one colour:
/// when it also sees a quarter of the cells apart from the commonest
/// colour, a pattern that sees half as few is blind to the tiles (a ring
/// outside diamonds, on the backdrop between them).
const SEEING_SPREAD: f32 = 0.75;

/// A sampling pattern whose cells' 90th-percentile spread is within this
/// factor (plus 1 ΔE) of the most uniform pattern's competes on
/// [`separation`]; a less uniform one reads symbols or the backdrop.
const UNIFORM_SLACK: f32 = 1.3;

/// A pattern outside [`UNIFORM_SLACK`] still competes when it sets the
/// colours this many times as far apart ([`separation`]) as every pattern
/// within it.
const FAR_APART: f32 = 4.0;

/// The cells' colours clustered as the palette learning does: k-means
/// (`colours` clusters when given), then, when not given, outliers split
/// off ([`split_outliers`]), overlapping clusters merged
/// ([`merge_overlapping`]) and lone cells joined to a near colour
/// ([`merge_lone`]). Returns each member's cluster.
fn cluster(members: &[Member], colours: Option<usize>, p: &CalibrateParams) -> Vec<usize> {
    let points: Vec<Lab> = members.iter().map(|m| m.2.lab).collect();
    let cells: Vec<(usize, Cell)> = members.iter().map(|m| (m.0, m.1)).collect();
    let (mut assign, mut centres) = kmeans(&points, colours, p.split_distance);
    if colours.is_none() {
        let limits = (p.shade_hue, p.split_distance);
        split_outliers(&points, &cells, &mut assign, &mut centres, limits);
        split_two_modes(&points, &mut assign, limits);
        merge_overlapping(&points, &mut assign, p.split_distance);
        merge_lone(&points, &mut assign, p.split_distance);
    }
    assign
}

/// How well a sampling pattern tells the colours apart: the cells' colours
/// clustered as the palette learning does, the least distance between two
/// clusters (of two cells or more) over the distance within which nine
/// cells in ten lie from their cluster's colour. A ring through the
/// outlines of symbols (each colour's own symbol) can be uniform within
/// each cell yet split one colour into near shades by where it meets the
/// outline; a ring clear of them finds fewer colours farther apart.
fn separation(members: &[Member], colours: Option<usize>, p: &CalibrateParams) -> f32 {
    let points: Vec<Lab> = members.iter().map(|m| m.2.lab).collect();
    let assign = cluster(members, colours, p);
    let n = assign.iter().copied().max().map_or(0, |m| m + 1);
    let centres: Vec<Option<Lab>> = (0..n)
        .map(|j| {
            let labs = members_of(&points, &assign, j);
            (labs.len() >= 2).then(|| robust_centre(&labs).0)
        })
        .collect();
    let mut within: Vec<f32> = points
        .iter()
        .zip(&assign)
        .filter_map(|(l, &a)| centres[a].map(|c| delta_e(*l, c)))
        .collect();
    within.sort_unstable_by(f32::total_cmp);
    let d90 = within
        .get(within.len() * 9 / 10)
        .copied()
        .unwrap_or(0.0)
        .max(1.0);
    let kept: Vec<Lab> = centres.iter().flatten().copied().collect();
    let mut least = f32::INFINITY;
    for (i, a) in kept.iter().enumerate() {
        for b in &kept[i + 1..] {
            least = least.min(delta_e(*a, *b));
        }
    }
    if least.is_finite() {
        least / d90
    } else {
        0.0
    }
}

/// The colour of a board that pieces are drawn on (discs, balls, stones
/// smaller than their cells), when its empty cells show it: the corners of
/// the cells holding a piece agree with each other and with the empty
/// cells, so it is what an emptied cell shows, though no band around the
/// board nor any boundary between tiles shows it (a window's frame around
/// the board; grid lines between the cells).
///
/// Taken when 3+ cells of 2+ piece colours (unlike their corners by more
/// than the empty distance: a board dimmed by a quarter with its contrast
/// cut brings dark discs within the split distance of their backdrop, and
/// the white ones alone are one colour; and about uniform where sampled: spread within the split
/// distance; a glossy disc's highlight spreads up to ~19) have corners that agree (within the empty distance of their
/// median) and at least two thirds of those corners show one colour.
/// Square tiles filling their cells show their own colour in the corners,
/// so boards of tiles have no backdrop; a symbol on a tile is no piece (the
/// ring through it is not uniform: Swell Foop's grey `boringshapes` tiles
/// read their grey as empty without that). `cells`: the cells' colours and
/// spreads in reading order.
fn backdrop(
    img: &RgbImage,
    grid: &Grid,
    rows: usize,
    cols: usize,
    cells: &[(Lab, f32)],
    p: &CalibrateParams,
) -> Option<Lab> {
    if cells.len() != rows * cols {
        return None;
    }
    // Corners at 0.42 of the pitch from the tile's centre along both axes:
    // 0.59 of the pitch on the diagonal, outside any piece drawn within its
    // cell (a lattice of blobs has tiles the size of the pieces).
    let corner = |r: usize, c: usize| -> Option<Lab> {
        let cx = grid.left + c as f64 * grid.pitch_x() + grid.cell_width / 2.0;
        let cy = grid.top + r as f64 * grid.pitch_y() + grid.cell_height / 2.0;
        let (dx, dy) = (0.42 * grid.pitch_x(), 0.42 * grid.pitch_y());
        let labs: Option<Vec<Lab>> = [(-dx, -dy), (dx, -dy), (-dx, dy), (dx, dy)]
            .iter()
            .map(|(ox, oy)| lab_at(img, cx + ox, cy + oy))
            .collect();
        let labs = labs?;
        let med = median_lab(&labs);
        labs.iter()
            .all(|l| delta_e(*l, med) <= p.empty_distance)
            .then_some(med)
    };
    let mut pieces: Vec<(Lab, Lab)> = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            let (own, spread) = cells[r * cols + c];
            if spread > p.split_distance {
                continue;
            }
            if let Some(k) = corner(r, c) {
                if delta_e(own, k) > p.empty_distance {
                    pieces.push((own, k));
                }
            }
        }
    }
    if pieces.len() < 3 {
        return None;
    }
    let corners: Vec<Lab> = pieces.iter().map(|x| x.1).collect();
    let b = median_lab(&corners);
    let on_b: Vec<Lab> = pieces
        .iter()
        .filter(|x| delta_e(x.1, b) <= p.empty_distance)
        .map(|x| x.0)
        .collect();
    let two_colours = on_b
        .iter()
        .any(|a| on_b.iter().any(|c| delta_e(*a, *c) > p.split_distance));
    (3 * on_b.len() >= 2 * pieces.len() && on_b.len() >= 3 && two_colours).then_some(b)
}

/// The component-wise median of some Lab colours (`[0; 3]` for none).
fn median_lab(labs: &[Lab]) -> Lab {
    let mut med = [0f32; 3];
    if labs.is_empty() {
        return med;
    }
    for (k, m) in med.iter_mut().enumerate() {
        let mut v: Vec<f32> = labs.iter().map(|s| s[k]).collect();
        *m = median_mut(&mut v);
    }
    med
}

/// A point midway between two neighbouring tiles of lattice line `line` (a
/// row when `row`): on the boundary before tile `boundary` along the line,
/// `t` pitches off the line's centre across it.
fn between_tiles(grid: &Grid, row: bool, line: usize, boundary: usize, t: f64) -> (f64, f64) {
    if row {
        (
            grid.left + boundary as f64 * grid.pitch_x() - grid.gap_x / 2.0,
            grid.top + (line as f64 + 0.5 + t) * grid.pitch_y() - grid.gap_y / 2.0,
        )
    } else {
        (
            grid.left + (line as f64 + 0.5 + t) * grid.pitch_x() - grid.gap_x / 2.0,
            grid.top + boundary as f64 * grid.pitch_y() - grid.gap_y / 2.0,
        )
    }
}

/// The colours around the board rectangle ([`background_around`]) that an
/// emptied cell may show, most likely first: the median of the band all
/// round, then, when the sides show two colours, one on each pair of
/// opposite sides (within `apart`), each of the two. A board in a window's
/// panel may have the panel on two sides and a toolbar and a status bar on
/// the other two (Klickety): the median of all four is then a toss-up
/// between them, which blurring or scaling the picture tips. (Any colour of
/// two sides made up a board over a row of buttons on a backdrop of the
/// empty colour: synthetic seed 3122.)
fn backgrounds_around(
    img: &RgbImage,
    grid: &Grid,
    rows: usize,
    cols: usize,
    apart: f32,
) -> Vec<Lab> {
    let mut out: Vec<Lab> = background_around(img, grid, rows, cols)
        .into_iter()
        .collect();
    let sides: Vec<Lab> = (0..4)
        .filter_map(|side| side_around(img, grid, rows, cols, side))
        .collect();
    let [top, bottom, left, right] = sides[..] else {
        return out;
    };
    let pair = |a: Lab, b: Lab| delta_e(a, b) <= apart;
    if pair(top, bottom) && pair(left, right) && !pair(top, left) {
        for bg in [left, top] {
            if out.iter().all(|o| !pair(*o, bg)) {
                out.push(bg);
            }
        }
    }
    out
}

/// Median Lab of the band just outside side `side` of the board rectangle
/// (0 top, 1 bottom, 2 left, 3 right), if enough of it is in the picture.
fn side_around(img: &RgbImage, grid: &Grid, rows: usize, cols: usize, side: usize) -> Option<Lab> {
    let samples: Vec<Lab> = (0..=AROUND_STEPS)
        .filter_map(|k| {
            let (px, py) = around_point(grid, rows, cols, side, k);
            lab_at(img, px, py)
        })
        .collect();
    (2 * samples.len() > AROUND_STEPS).then(|| median_lab(&samples))
}

/// Points sampled along each side of the band round the board.
const AROUND_STEPS: usize = 64;

/// Point `k` of [`AROUND_STEPS`] along side `side` (0 top, 1 bottom, 2
/// left, 3 right) of the band just outside the board rectangle, a third of
/// a pitch wide (2 pixels at least).
fn around_point(grid: &Grid, rows: usize, cols: usize, side: usize, k: usize) -> (f64, f64) {
    let (x, y) = (grid.left, grid.top);
    let w = cols as f64 * grid.pitch_x() - grid.gap_x;
    let h = rows as f64 * grid.pitch_y() - grid.gap_y;
    let band = (grid.pitch_x().min(grid.pitch_y()) * 0.3).max(2.0);
    let t = k as f64 / AROUND_STEPS as f64;
    match side {
        0 => (x + t * w, y - band),
        1 => (x + t * w, y + h + band),
        2 => (x - band, y + t * h),
        _ => (x + w + band, y + t * h),
    }
}

/// Median Lab of the pixels in a band around the board rectangle (outside
/// it), if any of the band is in the picture.
fn background_around(img: &RgbImage, grid: &Grid, rows: usize, cols: usize) -> Option<Lab> {
    let (x, y) = (grid.left, grid.top);
    let h = rows as f64 * grid.pitch_y() - grid.gap_y;
    let mut samples: Vec<Lab> = Vec::new();
    let mut push = |px: f64, py: f64| samples.extend(lab_at(img, px, py));
    let steps = AROUND_STEPS;
    for k in 0..=steps {
        for side in 0..4 {
            let (px, py) = around_point(grid, rows, cols, side, k);
            push(px, py);
        }
    }
    // The gaps between tiles are background too.
    if grid.gap_x >= 2.0 {
        for c in 1..cols {
            let gx = x + c as f64 * grid.pitch_x() - grid.gap_x / 2.0;
            for k in 0..=steps / 4 {
                push(gx, y + k as f64 / (steps / 4) as f64 * h);
            }
        }
    }
    (samples.len() >= 8).then(|| median_lab(&samples))
}

/// The colour seen between neighbouring tiles, if the board shows one: the
/// board's own background, what an emptied cell shows. Per boundary between
/// two neighbouring cells (colours `cells`, row-major), a short line along the
/// boundary (the gap's middle, or the cells' common side when no gap was
/// measured: a gap of a pixel or two is below what the finder resolves) is
/// sampled at a few offsets across it; the line most unlike both cells is
/// kept when it is uniform and unlike both by more than `apart`. When at
/// least an eighth of the boundaries (4 or more) show such a line (on a
/// board half emptied, most boundaries have an empty cell on one side and
/// show nothing unlike it) and two thirds of those agree (within `apart` of their median), the median is the gap
/// colour. Tiles that touch show no such line (or blends of the two sides
/// that do not agree), so there is none.
fn background_between(
    img: &RgbImage,
    grid: &Grid,
    rows: usize,
    cols: usize,
    cells: &[Lab],
    apart: f32,
) -> Option<Lab> {
    if cells.len() != rows * cols || rows < 2 || cols < 2 {
        return None;
    }
    // Offsets across the boundary: up to 2.5 pixels, at most a tenth of
    // the pitch.
    let reach = (0.1 * grid.pitch_x().min(grid.pitch_y())).min(2.5);
    let offsets: Vec<f64> = [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5]
        .into_iter()
        .filter(|o: &f64| o.abs() <= reach.max(0.5))
        .collect();
    // Per boundary: along columns (`vertical`), its two cells, and the line
    // most unlike both when uniform and unlike both by more than `apart`.
    let mut seen: Vec<(bool, Lab, Lab, Option<Lab>)> = Vec::new();
    // `vertical`: the boundary between cells (r, c-1) and (r, c).
    let mut look = |vertical: bool, r: usize, c: usize| {
        let (a, b) = if vertical {
            (cells[r * cols + c - 1], cells[r * cols + c])
        } else {
            (cells[(r - 1) * cols + c], cells[r * cols + c])
        };
        let line = |o: f64| -> Option<(Lab, f32)> {
            let samples: Option<Vec<Lab>> = (-2..=2)
                .map(|k| {
                    let t = k as f64 * 0.15;
                    if vertical {
                        let (x, y) = between_tiles(grid, true, r, c, t);
                        lab_at(img, x + o, y)
                    } else {
                        let (x, y) = between_tiles(grid, false, c, r, t);
                        lab_at(img, x, y + o)
                    }
                })
                .collect();
            let (lab, spread) = robust_centre(&samples?);
            (spread <= apart / 2.0).then_some((lab, delta_e(lab, a).min(delta_e(lab, b))))
        };
        let best = offsets
            .iter()
            .filter_map(|&o| line(o))
            .max_by(|x, y| x.1.total_cmp(&y.1));
        seen.push((vertical, a, b, best.filter(|b| b.1 > apart).map(|b| b.0)));
    };
    for r in 0..rows {
        for c in 1..cols {
            look(true, r, c);
        }
    }
    for r in 1..rows {
        for c in 0..cols {
            look(false, r, c);
        }
    }
    let found: Vec<Lab> = seen.iter().filter_map(|s| s.3).collect();
    if found.len() < 4 || 8 * found.len() < seen.len() {
        return None;
    }
    let mut med = [0f32; 3];
    for (k, m) in med.iter_mut().enumerate() {
        let mut v: Vec<f32> = found.iter().map(|s| s[k]).collect();
        *m = median_mut(&mut v);
    }
    let agree = found.iter().filter(|l| delta_e(**l, med) <= apart).count();
    // Along both axes, between two tiles (cells unlike that colour), most
    // boundaries show it: a board's gaps run all around its tiles (the
    // spacing between lines of text runs one way only).
    let around = [true, false].iter().all(|&vertical| {
        let between: Vec<&Option<Lab>> = seen
            .iter()
            .filter(|s| s.0 == vertical && delta_e(s.1, med) > apart && delta_e(s.2, med) > apart)
            .map(|s| &s.3)
            .collect();
        let shows = between
            .iter()
            .filter(|l| l.is_some_and(|l| delta_e(l, med) <= apart))
            .count();
        shows >= 2 && 2 * shows >= between.len()
    });
    (around && 3 * agree >= 2 * found.len()).then_some(med)
}

/// The points assigned to cluster `j`.
fn members_of(points: &[Lab], assign: &[usize], j: usize) -> Vec<Lab> {
    points
        .iter()
        .zip(assign)
        .filter(|(_, &a)| a == j)
        .map(|(p, _)| *p)
        .collect()
}

/// k-means (Lloyd) with farthest-point seeding; deterministic. Returns the
/// assignment of each point and the centres.
fn kmeans(points: &[Lab], k: Option<usize>, split: f32) -> (Vec<usize>, Vec<Lab>) {
    if points.is_empty() {
        return (Vec::new(), Vec::new());
    }
    // Seed: the point farthest from the mean, then repeatedly the point
    // farthest from all chosen centres.
    let m = mean(points);
    let far = |centres: &[Lab]| {
        points
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let d = centres
                    .iter()
                    .map(|c| delta_e(*p, *c))
                    .fold(f32::INFINITY, f32::min);
                (i, d)
            })
            .max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)))
    };
    let mut centres: Vec<Lab> = Vec::new();
    if let Some((i, _)) = far(&[m]) {
        centres.push(points[i]);
    }
    let kmax = k.unwrap_or(10).min(points.len());
    while centres.len() < kmax {
        match far(&centres) {
            Some((i, d)) if k.is_some() || d > split => centres.push(points[i]),
            _ => break,
        }
    }
    let mut assign = vec![0usize; points.len()];
    for _ in 0..100 {
        let mut changed = false;
        for (a, p) in assign.iter_mut().zip(points) {
            let best = centres
                .iter()
                .enumerate()
                .min_by(|x, y| delta_e(*p, *x.1).total_cmp(&delta_e(*p, *y.1)))
                .map(|(i, _)| i)
                .unwrap_or(0);
            if best != *a {
                *a = best;
                changed = true;
            }
        }
        for (j, c) in centres.iter_mut().enumerate() {
            let members = members_of(points, &assign, j);
            if !members.is_empty() {
                *c = mean(&members);
            }
        }
        if !changed {
            break;
        }
    }
    (assign, centres)
}

/// Cells of a class farther than this from its robust colour are its
/// outliers (`d`: each member's ΔE to it): four times the median distance,
/// at least 6.
fn outlier_limit(d: &[f32]) -> f32 {
    (4.0 * median_mut(&mut d.to_vec())).max(6.0)
}

/// Outliers of a colour's shade dealt apart over the board are a colour
/// of their own ([`split_outliers`]) when this fraction of the split
/// distance or more from the cluster's colour: a light and a dark green
/// 19 apart (synthetic seed 3080); not the shades of one colour's pieces
/// lit apart, 8-12 (Five or More's shapes brightened, seed 6311).
const DEALT_APART: f32 = 0.75;

/// The least outlier limit of [`split_outliers`].
const TIGHT_FLOOR: f32 = 4.0;

/// Splits off, from each k-means cluster, its outliers when there are two
/// or more (at most half the cluster), they agree with each other (each
/// within the cluster's outlier limit, here floored at [`TIGHT_FLOOR`],
/// of their robust colour) and their colour is twice that limit from the
/// cluster's and not a shade of it ([`shade_of`] within `hue` degrees,
/// and lighter or darker by half their distance or more, on one group of
/// touching cells of one screenshot (`cells`, the points' cells), or on
/// under a quarter of the cluster's cells: a hover highlight, a dimmed
/// group, a few pieces shaded apart; two greens of one lightness whose
/// chroma differs are two colours, and so are a light and a dark green
/// dealt apart over the board, on four of nine cells ([`DEALT_APART`]):
/// two colours closer than the
/// split distance (two tiles of near hues after a brightness change), told
/// apart by how tight each group is. New clusters get new indices.
fn split_outliers(
    points: &[Lab],
    cells: &[(usize, Cell)],
    assign: &mut [usize],
    centres: &mut Vec<Lab>,
    (hue, split): (f32, f32),
) {
    for j in 0..centres.len() {
        let members: Vec<usize> = (0..points.len()).filter(|&i| assign[i] == j).collect();
        let labs: Vec<Lab> = members.iter().map(|&i| points[i]).collect();
        let (centre, _) = robust_centre(&labs);
        let d: Vec<f32> = labs.iter().map(|l| delta_e(*l, centre)).collect();
        let limit = (4.0 * median_mut(&mut d.clone())).max(TIGHT_FLOOR);
        let out: Vec<usize> = (0..members.len()).filter(|&k| d[k] > limit).collect();
        if out.len() < 2 || out.len() * 2 > members.len() {
            continue;
        }
        let out_labs: Vec<Lab> = out.iter().map(|&k| labs[k]).collect();
        let (other, _) = robust_centre(&out_labs);
        let tight = out_labs.iter().all(|l| delta_e(*l, other) <= limit);
        let apart = delta_e(other, centre);
        let group: Vec<(usize, Cell)> = out
            .iter()
            .filter_map(|&k| cells.get(members[k]).copied())
            .collect();
        // Dealt apart over the board, a quarter of the cluster or more and
        // near the split distance, a second colour; a few cells, or a
        // little lighter, a shading.
        let dealt =
            !one_group(&group) && 4 * out.len() >= members.len() && apart >= DEALT_APART * split;
        let shade =
            shade_of(centre, other, hue) && (other[0] - centre[0]).abs() >= 0.5 * apart && !dealt;
        if tight && apart >= 2.0 * limit && !shade {
            for &k in &out {
                assign[members[k]] = centres.len();
            }
            centres.push(other);
        }
    }
}

/// Splits each cluster whose cells are two tight groups with a gap between
/// them: two colours that k-means left in one centre because the centre,
/// between them, lies within the split distance of both (Five or More's
/// red and orange balls dimmed by a quarter: 26 ΔE apart, each about 12
/// from their mean; [`split_outliers`] sees no outliers from such a
/// centre). The cluster is cut in two by 2-means; the parts split when
/// each holds [`MODE_SHARE`] of its cells (2 at least), at most
/// [`MODE_EMPTY`] of the cells lie in the middle of the way from one part's
/// colour to the other's ([`MODE_MIDDLE`]: a gap), the colours lie at
/// least three quarters of the split distance apart, and they are two
/// hues (each of [`HUED_MODE`] chroma or more, more than `hue` degrees
/// apart: not a hover, a dimmed group, or a flat black beside a dark
/// colour). A colour shaded across the board varies without a gap and
/// stays one.
fn split_two_modes(points: &[Lab], assign: &mut [usize], (hue, split): (f32, f32)) {
    let n = assign.iter().copied().max().map_or(0, |m| m + 1);
    for j in 0..n {
        let members: Vec<usize> = (0..points.len()).filter(|&i| assign[i] == j).collect();
        if members.len() < 4 {
            continue;
        }
        let labs: Vec<Lab> = members.iter().map(|&i| points[i]).collect();
        let (c, side) = two_means(&labs);
        let n1 = side.iter().sum::<usize>();
        let n0 = labs.len() - n1;
        let least = ((MODE_SHARE * labs.len() as f32).ceil() as usize).max(2);
        let gap = delta_e(c[0], c[1]);
        // Where each cell lies on the line from one part's colour to the
        // other's (0 and 1 at the colours): few in the middle, a gap.
        let middle = labs
            .iter()
            .filter(|&&l| (0.5 - along(l, c[0], c[1]).0).abs() < MODE_MIDDLE)
            .count();
        let empty_gap = middle as f32 <= MODE_EMPTY * labs.len() as f32;
        let hues =
            chroma(c[0]) >= HUED_MODE && chroma(c[1]) >= HUED_MODE && !shade_of(c[0], c[1], hue);
        if n0.min(n1) >= least && empty_gap && gap >= 0.75 * split && hues {
            for (k, &i) in members.iter().enumerate() {
                if side[k] == 1 {
                    assign[i] = n + j;
                }
            }
        }
    }
    // Close the numbering's holes (clusters are numbered 0..n).
    let mut used: Vec<usize> = assign.to_vec();
    used.sort_unstable();
    used.dedup();
    for a in assign.iter_mut() {
        *a = used.partition_point(|&u| u < *a);
    }
}

/// `labs` cut in two by 2-means seeded by the colour farthest from their
/// robust centre and the one farthest from it: the parts' robust colours
/// and each colour's part (0 or 1).
fn two_means(labs: &[Lab]) -> ([Lab; 2], Vec<usize>) {
    let (mean, _) = robust_centre(labs);
    let far = |from: Lab| {
        labs.iter()
            .copied()
            .max_by(|a, b| delta_e(*a, from).total_cmp(&delta_e(*b, from)))
            .unwrap_or(from)
    };
    let mut c = [far(mean), far(far(mean))];
    let mut side = vec![0usize; labs.len()];
    for _ in 0..12 {
        for (k, l) in labs.iter().enumerate() {
            side[k] = usize::from(delta_e(*l, c[1]) < delta_e(*l, c[0]));
        }
        for (s, centre) in c.iter_mut().enumerate() {
            let part: Vec<Lab> = (0..labs.len())
                .filter(|&k| side[k] == s)
                .map(|k| labs[k])
                .collect();
            if !part.is_empty() {
                *centre = robust_centre(&part).0;
            }
        }
    }
    (c, side)
}

/// Least chroma of each part's colour for [`split_two_modes`]: two hues
/// are split, not a grey from a black or a colour from its own shade.
const HUED_MODE: f32 = 10.0;

/// Share of a cluster's cells each part needs for [`split_two_modes`].
const MODE_SHARE: f32 = 0.15;

/// Half the width of the middle of the way between two parts' colours
/// that [`split_two_modes`] looks in (a quarter of the way, centred).
const MODE_MIDDLE: f32 = 0.125;

/// Most cells, as a share of the cluster, in that middle for a gap (a
/// colour varying evenly puts a quarter of its cells there).
const MODE_EMPTY: f32 = 0.05;

/// True when `cells` (screenshot, cell) are one group: all of one
/// screenshot, each reached from the first through cells of the group
/// side by side.
fn one_group(cells: &[(usize, Cell)]) -> bool {
    let Some(&(shot, first)) = cells.first() else {
        return true;
    };
    if cells.iter().any(|c| c.0 != shot) {
        return false;
    }
    let mut reached = vec![false; cells.len()];
    reached[0] = true;
    let mut stack = vec![first];
    while let Some(a) = stack.pop() {
        for (k, &(_, b)) in cells.iter().enumerate() {
            if !reached[k] && a.touches(b) {
                reached[k] = true;
                stack.push(b);
            }
        }
    }
    reached.iter().all(|&r| r)
}

/// Merges k-means clusters that overlap, nearest pair first: two clusters
/// of 2+ cells whose robust colours are closer than `split` and than the
/// sum of their reaches (each one's farthest member within its
/// [`outlier_limit`]) have no gap between them: one colour whose cells
/// vary (small tiles whose ring lands on a symbol's outline at one
/// sub-pixel phase and beside it at another, JPEG). Lloyd's iterations can
/// leave such a colour in two centres a few ΔE apart, and the palette's
/// threshold (at most half the least distance between colours) then
/// leaves most of its cells unread. Two near colours apart by more than
/// their spreads (see [`split_outliers`]) stay two.
fn merge_overlapping(points: &[Lab], assign: &mut [usize], split: f32) {
    loop {
        let n = assign.iter().copied().max().map_or(0, |m| m + 1);
        let stats: Vec<Option<(Lab, f32)>> = (0..n)
            .map(|j| {
                let labs = members_of(points, assign, j);
                if labs.len() < 2 {
                    return None;
                }
                let (c, _) = robust_centre(&labs);
                let d: Vec<f32> = labs.iter().map(|l| delta_e(*l, c)).collect();
                let limit = outlier_limit(&d);
                let reach = d
                    .iter()
                    .copied()
                    .filter(|&x| x <= limit)
                    .fold(0.0, f32::max);
                Some((c, reach))
            })
            .collect();
        let mut nearest: Option<(f32, usize, usize)> = None;
        for i in 0..n {
            for j in i + 1..n {
                let (Some(a), Some(b)) = (stats[i], stats[j]) else {
                    continue;
                };
                let d = delta_e(a.0, b.0);
                if d < split && d < a.1 + b.1 && nearest.is_none_or(|x| d < x.0) {
                    nearest = Some((d, i, j));
                }
            }
        }
        let Some((_, i, j)) = nearest else {
            return;
        };
        for a in assign.iter_mut().filter(|a| **a == j) {
            *a = i;
        }
    }
}

/// Joins each cluster of one cell to the nearest cluster of two or more
/// when it lies within `split` of that one's robust colour: k-means seeds
/// a colour at a cell farther than `split` from every centre so far, and
/// the centres then move (a ball scaled to half, read through its symbol,
/// ended 17.6 from its colour's centre; as a colour of its own it capped
/// the palette's threshold at half that, and ten balls read unread).
fn merge_lone(points: &[Lab], assign: &mut [usize], split: f32) {
    let n = assign.iter().copied().max().map_or(0, |m| m + 1);
    let sizes: Vec<usize> = (0..n)
        .map(|j| assign.iter().filter(|&&a| a == j).count())
        .collect();
    let centres: Vec<Option<Lab>> = (0..n)
        .map(|j| (sizes[j] >= 2).then(|| robust_centre(&members_of(points, assign, j)).0))
        .collect();
    for i in 0..points.len() {
        if sizes[assign[i]] != 1 {
            continue;
        }
        let nearest = centres
            .iter()
            .enumerate()
            .filter_map(|(j, c)| c.map(|c| (j, delta_e(points[i], c))))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((j, d)) = nearest {
            if d < split {
                assign[i] = j;
            }
        }
    }
}

/// True when `b` is a lighter or darker shade of `a`: both nearly grey
/// (chroma under 10), or their hues (angles in the a-b plane) within
/// `degrees` of each other.
fn shade_of(a: Lab, b: Lab, degrees: f32) -> bool {
    if chroma(a) < 10.0 && chroma(b) < 10.0 {
        return true;
    }
    let d = (a[2].atan2(a[1]) - b[2].atan2(b[1])).to_degrees().abs();
    d.min(360.0 - d) <= degrees
}

/// A cell of one screenshot: (screenshot index, cell, what was read).
type Member = (usize, Cell, CellReading);

/// Robust class colour and its stats from member cells.
fn class_stats(value: u8, members: &[Member]) -> ClassStats {
    let labs: Vec<Lab> = members.iter().map(|m| m.2.lab).collect();
    let (lab, _) = robust_centre(&labs);
    let mut d: Vec<f32> = labs.iter().map(|l| delta_e(*l, lab)).collect();
    let limit = outlier_limit(&d);
    let mut outliers = Vec::new();
    let mut max_distance = 0f32;
    for (m, dist) in members.iter().zip(d.iter_mut()) {
        if *dist > limit {
            outliers.push((m.0, m.1));
        } else {
            max_distance = max_distance.max(*dist);
        }
    }
    ClassStats {
        value,
        cells: members.len(),
        lab,
        max_distance,
        outliers,
        outlier_labs: members
            .iter()
            .zip(&d)
            .filter(|(_, &dist)| dist > limit)
            .map(|(m, _)| m.2.lab)
            .collect(),
    }
}

/// Orb-drag orb kinds by value (the order of `games::pad::rules::LETTERS`).
const ORB_NAMES: [&str; 8] = [
    "fire", "water", "wood", "light", "dark", "heal", "jammer", "poison",
];

/// A rough colour name from Lab (hue bins on the `a`/`b` plane).
pub fn colour_name(lab: Lab) -> &'static str {
    if chroma(lab) < 10.0 {
        return if lab[0] < 25.0 {
            "black"
        } else if lab[0] > 80.0 {
            "white"
        } else {
            "grey"
        };
    }
    let h = lab[2].atan2(lab[1]).to_degrees().rem_euclid(360.0);
    match h {
        h if h < 20.0 => "pink",
        h if h < 55.0 => "red",
        h if h < 75.0 => "orange",
        h if h < 110.0 => "yellow",
        h if h < 170.0 => "green",
        h if h < 230.0 => "cyan",
        h if h < 300.0 => "blue",
        h if h < 340.0 => "purple",
        _ => "pink",
    }
}

/// Estimates a highlight as a brightness factor in sRGB: the median ratio of
/// the outliers' channels to their class colour's (channels of at least 24
/// only). Returns `None` unless at least 80 % of the ratios lie within 8 %
/// of the median and the median differs from 1 by more than 8 %.
fn estimate_highlight(classes: &[ClassStats]) -> Option<f32> {
    let mut ratios = Vec::new();
    for c in classes.iter().filter(|c| c.value <= 9) {
        let base = lab_to_rgb(c.lab);
        for o in &c.outlier_labs {
            let v = lab_to_rgb(*o);
            for k in 0..3 {
                if base[k] >= 24 && v[k] < 255 {
                    ratios.push(v[k] as f32 / base[k] as f32);
                }
            }
        }
    }
    if ratios.len() < 3 {
        return None;
    }
    let m = median_mut(&mut ratios.clone());
    let close = ratios
        .iter()
        .filter(|r| (*r / m - 1.0).abs() <= 0.08)
        .count();
    let consistent = close as f32 >= 0.8 * ratios.len() as f32;
    (consistent && (m - 1.0).abs() > 0.08 && (0.3..=3.0).contains(&m)).then_some(m)
}

/// True when one tile colour of `palette` is another brightened or dimmed
/// ([`brightened`]). Likely one colour with a hover highlight on some of
/// its tiles, learned as two.
fn highlight_pair(palette: &Palette) -> bool {
    pair_alike(palette, brightened).is_some()
}

/// True when one tile colour of `palette` is another brightened from a
/// lifted black ([`brightened_lifted`]).
fn lifted_pair(palette: &Palette) -> bool {
    pair_alike(palette, brightened_lifted).is_some()
}

/// The first two tile colours of `palette` that are `alike`: (the lighter's
/// index, the darker's).
fn pair_alike(palette: &Palette, alike: fn(Lab, Lab) -> bool) -> Option<(u8, u8)> {
    let c = &palette.colours;
    c.iter().enumerate().find_map(|(i, a)| {
        let b = c[i + 1..].iter().find(|b| alike(a.lab, b.lab))?;
        Some(if a.lab[0] > b.lab[0] {
            (a.index, b.index)
        } else {
            (b.index, a.index)
        })
    })
}

/// True when colour `b` is colour `a` brightened or dimmed: every sRGB
/// channel dark (under 24) in one is dark (under 40) in the other, the
/// others all in the same ratio (within 8 %), off 1 by more than 8 %.
fn brightened(a: Lab, b: Lab) -> bool {
    brightened_over(a, b, 0)
}

/// [`brightened`] with the channels taken from a black level `black`.
fn brightened_over(a: Lab, b: Lab, black: u8) -> bool {
    let (a, b) = (lab_to_rgb(a), lab_to_rgb(b));
    let mut ratios = Vec::with_capacity(3);
    for k in 0..3 {
        let (a, b) = (
            a[k].saturating_sub(black) as f32,
            b[k].saturating_sub(black) as f32,
        );
        let (lo, hi) = (a.min(b), a.max(b));
        if lo < 24.0 {
            if hi >= 40.0 {
                return false;
            }
        } else {
            ratios.push(b / a);
        }
    }
    let Some(&first) = ratios.first() else {
        return false;
    };
    ratios.iter().all(|r| (r / first - 1.0).abs() <= 0.08) && (first - 1.0).abs() > 0.08
}

/// [`brightened`] from some black level up to [`BLACK_LEVEL`] (in steps
/// of 4): a picture at a lower contrast (a capture or an emulator's
/// output, `128 + 0.75 (v - 128)`) lifts black and brightens each tile
/// about it, and Swell Foop's hover highlight, a ratio in the game's own
/// colours, is a ratio from the lifted black. Too loose to say two
/// colours are one (dealt colours would be taken for a highlight, and
/// the board refused): only a highlight on one group of touching tiles
/// (`unhovered`) is folded by it.
fn brightened_lifted(a: Lab, b: Lab) -> bool {
    (0..=BLACK_LEVEL)
        .step_by(4)
        .any(|black| brightened_over(a, b, black))
}

/// See [`unhovered`]: a highlight found from a lifted black covers at
/// most one tile in this many.
const LIFTED_SHARE: f64 = 3.0;

/// See [`brightened_lifted`]: the highest black level tried.
const BLACK_LEVEL: u8 = 48;

/// A colour multiplied by `factor` in sRGB (clamped), in Lab.
fn brighten(lab: Lab, factor: f32) -> Lab {
    let c = lab_to_rgb(lab).map(|v| (v as f32 * factor).round().clamp(0.0, 255.0) as u8);
    rgb_to_lab(c)
}

fn value_name(v: u8) -> String {
    match v {
        EMPTY => "empty".into(),
        UNKNOWN => "?".into(),
        v => v.to_string(),
    }
}

/// Picks window anchors: uniform spots (5x5 pixels within ΔE 5 of their
/// mean) outside the board (and half a pitch away from it) whose colour differs from every empty reference by more than
/// 1.5 x `threshold`; spread out by farthest-point selection.
pub fn pick_anchors(img: &RgbImage, cal: &Calibration, max: usize) -> Vec<Anchor> {
    let (bx, by, bw, bh) = cal.board_rect();
    let margin = 0.5 * cal.grid.pitch_x().max(cal.grid.pitch_y());
    let (w, h) = (img.width() as i64, img.height() as i64);
    let step = ((w.min(h) / 40).max(4)) as usize;
    let mut cands: Vec<(i64, i64, Lab)> = Vec::new();
    for y in (3..h - 3).step_by(step) {
        for x in (3..w - 3).step_by(step) {
            let (fx, fy) = (x as f64 + 0.5, y as f64 + 0.5);
            if fx > bx - margin
                && fx < bx + bw + margin
                && fy > by - margin
                && fy < by + bh + margin
            {
                continue;
            }
            let block: Vec<Lab> = (-2..=2)
                .flat_map(|dy| (-2..=2).map(move |dx| (x + dx, y + dy)))
                .map(|(px, py)| rgb_to_lab(img.get_pixel(px as u32, py as u32).0))
                .collect();
            let c = mean(&block);
            let uniform = block.iter().all(|b| delta_e(*b, c) <= 5.0);
            let distinct = cal
                .palette
                .empty
                .iter()
                .all(|e| delta_e(*e, c) > 1.5 * cal.palette.threshold);
            if uniform && distinct {
                cands.push((x, y, c));
            }
        }
    }
    let mut chosen: Vec<(i64, i64, Lab)> = Vec::new();
    while chosen.len() < max {
        let next = cands
            .iter()
            .map(|c| {
                let d = chosen
                    .iter()
                    .map(|o| (o.0 - c.0).pow(2) + (o.1 - c.1).pow(2))
                    .min()
                    .unwrap_or(i64::MAX);
                (*c, d)
            })
            .filter(|(_, d)| *d > 0)
            .max_by_key(|(c, d)| (*d, -c.1, -c.0));
        match next {
            Some((c, _)) => chosen.push(c),
            None => break,
        }
    }
    chosen
        .into_iter()
        .map(|(x, y, lab)| Anchor {
            at: [x as f64 + 0.5, y as f64 + 0.5],
            lab: round_lab(lab),
        })
        .collect()
}

fn round_lab(l: Lab) -> Lab {
    [
        (l[0] * 100.0).round() / 100.0,
        (l[1] * 100.0).round() / 100.0,
        (l[2] * 100.0).round() / 100.0,
    ]
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// Learns a calibration from a screenshot of the game window (with
/// `opts.board` if the board on it is known).
pub fn calibrate(
    img: &RgbImage,
    opts: &CalibrateOptions,
) -> Result<(Calibration, CalibrationReport), VisionError> {
    let label = match &opts.board {
        Some(b) => Label::Board(b),
        None => Label::Unknown,
    };
    calibrate_shots(&[(img, label)], opts)
}

fn calibrate_error(msg: impl Into<String>) -> VisionError {
    VisionError::Calibrate(msg.into())
}

/// Learns a calibration from several screenshots of the same window layout,
/// each with its label: boards for all or none of the board screenshots,
/// plus any number of [`Label::NoBoard`] screenshots. The grid is found on the
/// first board screenshot: put the fullest board first.
pub fn calibrate_shots(
    all_shots: &[(&RgbImage, Label)],
    opts: &CalibrateOptions,
) -> Result<(Calibration, CalibrationReport), VisionError> {
    let first = all_shots.iter().find(|s| s.1 != Label::NoBoard);
    let Some(&(first, first_label)) = first else {
        return Err(calibrate_error("no screenshot of a board"));
    };
    // 0. Geometry found with no sizes given.
    let found = find_for(first, opts, first_label.board())?;
    calibrate_on(all_shots, opts, found)
}

/// The lattice found on `img` when the options ask for it (sizes from the
/// options, else from the labelled board); None when they give the geometry.
fn find_for(
    img: &RgbImage,
    opts: &CalibrateOptions,
    board: Option<&Board>,
) -> Result<Option<FoundGrid>, VisionError> {
    if !opts.finds_grid() {
        return Ok(None);
    }
    Ok(Some(find_grid(img, find_hints(opts, board), &opts.find)?))
}

/// The finder's hints: the options' hints, else their non-zero size, else
/// the labelled board's size.
fn find_hints(opts: &CalibrateOptions, board: Option<&Board>) -> Hints {
    let hints = Hints {
        rows: opts.hints.rows.or((opts.rows > 0).then_some(opts.rows)),
        cols: opts.hints.cols.or((opts.cols > 0).then_some(opts.cols)),
    };
    Hints {
        rows: hints.rows.or(board.map(|b| b.rows())),
        cols: hints.cols.or(board.map(|b| b.cols())),
    }
}

/// [`calibrate_shots`] on a lattice already found (`None`: the options'
/// sizes and rectangle, or the located grid).
fn calibrate_on(
    all_shots: &[(&RgbImage, Label)],
    opts: &CalibrateOptions,
    found: Option<FoundGrid>,
) -> Result<(Calibration, CalibrationReport), VisionError> {
    let shots: Vec<(&RgbImage, Option<&Board>)> = all_shots
        .iter()
        .filter(|s| s.1 != Label::NoBoard)
        .map(|s| (s.0, s.1.board()))
        .collect();
    let refusals: Vec<&RgbImage> = all_shots
        .iter()
        .filter(|s| s.1 == Label::NoBoard)
        .map(|s| s.0)
        .collect();
    let Some(&(first, first_board)) = shots.first() else {
        return Err(calibrate_error("no screenshot of a board"));
    };
    let (rows, cols) = match &found {
        Some(f) => (f.rows, f.cols),
        None => (opts.rows, opts.cols),
    };
    if !(1..=64).contains(&rows) || !(1..=64).contains(&cols) {
        return Err(calibrate_error(format!(
            "rows {rows} x cols {cols} out of range 1..=64"
        )));
    }
    let (w, h) = (first.width(), first.height());
    if let Some(img) = refusals.iter().find(|i| (i.width(), i.height()) != (w, h)) {
        return Err(calibrate_error(format!(
            "a no-board screenshot is {}x{}, the first is {w}x{h}",
            img.width(),
            img.height()
        )));
    }
    let labelled = shots.iter().filter(|s| s.1.is_some()).count();
    if labelled != 0 && labelled != shots.len() {
        return Err(calibrate_error(format!(
            "{labelled} of {} screenshots have a board: give one for every screenshot or none",
            shots.len()
        )));
    }
    for (i, (img, board)) in shots.iter().enumerate() {
        if (img.width(), img.height()) != (w, h) {
            return Err(calibrate_error(format!(
                "screenshot {} is {}x{}, the first is {w}x{h}",
                i + 1,
                img.width(),
                img.height()
            )));
        }
        if let Some(b) = board {
            if (b.rows(), b.cols()) != (rows, cols) {
                return Err(calibrate_error(format!(
                    "board {} is {}x{} but rows/cols say {rows}x{cols}",
                    i + 1,
                    b.rows(),
                    b.cols()
                )));
            }
        }
    }
    let p = &opts.params;
    let mut warnings = Vec::new();

    // 1. Geometry.
    let (grid, located) = match (opts.rect, &found) {
        (_, Some(f)) => (f.grid, None),
        (Some(r), None) => (grid_from_rect(r, opts.gap, rows, cols), None),
        (None, None) => {
            let extent = match first_board {
                Some(b) => filled_extent(b).ok_or_else(|| {
                    calibrate_error("the first board has no coloured cell to locate")
                })?,
                None => Extent::full(rows, cols),
            };
            let l = locate_grid(first, rows, cols, extent, &p.locate)?;
            if l.fill < 0.5 {
                warnings.push(format!(
                    "tile pixels fill only {:.0}% of the board box: check the overlay",
                    100.0 * l.fill
                ));
            }
            (l.grid, Some(l))
        }
    };
    let grid = Grid {
        left: round2(grid.left),
        top: round2(grid.top),
        cell_width: round2(grid.cell_width),
        cell_height: round2(grid.cell_height),
        gap_x: round2(grid.gap_x),
        gap_y: round2(grid.gap_y),
    };
    let placeholder = Palette {
        threshold: 1.0,
        max_spread: 1.0,
        empty: Vec::new(),
        colours: vec![PaletteColour {
            index: 0,
            name: String::new(),
            lab: [0.0; 3],
        }],
        refuse: Vec::new(),
    };
    let mut cal = Calibration::new(
        &opts.game,
        rows,
        cols,
        (w, h),
        grid,
        Sampling::rings(),
        placeholder,
    );
    cal.validate()
        .map_err(|e| calibrate_error(format!("the found grid is unusable: {e}")))?;

    // 2. Sampling pattern and cell colours (pooled over the screenshots).
    let candidates = match &opts.sampling {
        Some(s) => vec![s.clone()],
        None => Sampling::candidates(),
    };
    // Each pattern's 90th-percentile spread, cells seen apart from the
    // commonest colour, separation, the pattern, the cells.
    type Tried = (f32, usize, f32, Sampling, Vec<Member>);
    let measure = |sampling: Sampling| -> Result<Tried, VisionError> {
        let probe = Calibration {
            sampling,
            ..cal.clone()
        };
        let mut members: Vec<Member> = Vec::with_capacity(shots.len() * rows * cols);
        for (k, (img, _)) in shots.iter().enumerate() {
            let cells = read_cells(img, &probe)?;
            members.extend(
                cells
                    .into_iter()
                    .enumerate()
                    .map(|(i, c)| (k, Cell::new(i / cols, i % cols), c)),
            );
        }
        let mut spreads: Vec<f32> = members.iter().map(|m| m.2.spread).collect();
        spreads.sort_unstable_by(f32::total_cmp);
        let p90 = spreads[(spreads.len() * 9 / 10).min(spreads.len() - 1)];
        let seen = cells_apart_from_mode(&members, p.split_distance);
        let apart = separation(&members, opts.colours, p);
        tracing::debug!(
            "sampling {:?}: p90 {p90:.2} seen {seen} of {} apart {apart:.2} hued {} checker {}",
            probe.sampling.points.first(),
            members.len(),
            hued_apart_from_mode(&members, p.split_distance, HUED),
            checkered(&members, p.split_distance)
        );
        Ok((p90, seen, apart, probe.sampling, members))
    };
    let mut tried: Vec<Tried> = candidates
        .into_iter()
        .map(&measure)
        .collect::<Result<_, _>>()?;
    // A pattern reading the cells as a checker reads a checkered backdrop
    // between the pieces, not the pieces ([`checkered`]).
    let checker: Vec<bool> = tried
        .iter()
        .map(|t| checkered(&t.4, p.split_distance))
        .collect();
    if checker.contains(&false) {
        let mut c = checker.iter();
        tried.retain(|_| !c.next().copied().unwrap_or(false));
    }
    // A pattern that sees no colour ([`HUED`]: every cell one colour, or
    // every cell a shade of grey) where another sees a quarter of the
    // cells apart in colours, however unevenly, is blind too: a ring on
    // the backdrop showing round cut gems, whose facets make every ring on
    // the gems uneven (Gweled), or on their dark outlines and the
    // backdrop's two shades (Gweled brightened). Grey pieces on a coloured
    // board are seen (Iagno's discs on green). (Strokes of symbols on
    // tiles of one grey are no colours: Swell Foop's `boringshapes` is
    // refused, not read as a wrong board.)
    let hued_seen: Vec<usize> = tried
        .iter()
        .map(|t| hued_apart_from_mode(&t.4, p.split_distance, HUED))
        .collect();
    let hued = tried
        .iter()
        .zip(&hued_seen)
        .any(|(t, &h)| 4 * t.1 >= t.4.len() && 4 * h >= t.4.len());
    if hued {
        let sees_colour: Vec<bool> = tried
            .iter()
            .zip(&hued_seen)
            .map(|(t, &h)| {
                let grey = mode_colour(&t.4, p.split_distance).is_none_or(|m| chroma(m) < HUED);
                h > 0 || (t.1 > 0 && !grey)
            })
            .collect();
        let mut k = sees_colour.iter();
        tried.retain(|_| k.next().copied().unwrap_or(true));
    }
    // Cut gems: when no candidate that sees cells apart sees each cell as
    // mostly one colour, the rings near the middle are tried too
    // ([`Sampling::inner`]), and kept when they set the colours far
    // further apart than every other that would compete (seeing cells
    // apart, about as uniform as the most uniform of them): otherwise they
    // are no better a guess. They are tried too when the patterns reading
    // cells as mostly one colour see less than half as many cells apart
    // as another (`few`: a ring at the tiles' edge sees only the tips of
    // some pieces), and kept, in either case, when they read each cell as
    // mostly one colour (or no pattern does: gems), see as many cells
    // apart as any other and set the colours as far apart as those seeing
    // half as many or more (Gweled brightened: its facets clipped, the
    // rings on the gems were as uneven as those in their middle): thin
    // pieces (Five or More's stars scaled 1.55x on a phone's screen, or
    // 0.6x, or dimmed) spread every ring that crosses their arms past the
    // limit; the least uneven ring read a colour as two, or the ring at
    // the edge took the pieces' dark outlines for the empty colour.
    let seeing = || tried.iter().filter(|t| t.1 > 0);
    let uniform_seeing = |t: &&Tried| t.0 <= SEEING_SPREAD * p.split_distance;
    let seen = seeing().map(|t| t.1).max().unwrap_or(0);
    let from_blobs = opts.sampling.is_none() && found.as_ref().is_some_and(|f| f.from_blobs);
    let gems = from_blobs && !seeing().any(|t| uniform_seeing(&t));
    let few = from_blobs && seeing().filter(uniform_seeing).all(|t| 2 * t.1 < seen);
    // The best separation among the patterns seeing `least_seen` cells
    // apart or more that are about as uniform as the most uniform of them.
    let rival = |least_seen: usize| {
        let near = || tried.iter().filter(|t| t.1 >= least_seen.max(1));
        let least = near().map(|t| t.0).fold(f32::INFINITY, f32::min);
        near()
            .filter(|t| t.0 <= UNIFORM_SLACK * least + 1.0)
            .map(|t| t.2)
            .fold(0.0, f32::max)
    };
    if gems || few {
        let others = rival(1);
        let inner = measure(Sampling::inner())?;
        // Against the patterns seeing as many cells apart (half as many
        // or more): a ring seeing a few tips of pieces sets their few
        // colours far apart.
        let rivals = rival(inner.1.div_ceil(2));
        let plain = (gems || uniform_seeing(&&inner)) && inner.1 >= seen && inner.2 >= rivals;
        if (gems && inner.2 >= GEM_SEPARATION * others) || plain {
            // Taken as the better guess: a pattern seeing under half as
            // many cells apart is blind to most pieces, however uniform
            // (a ring at the gems' edge seeing 3 of 64 was the most
            // uniform of Gweled's at 0.6, and read 18 cells unread).
            let sees = inner.1;
            tried.push(inner);
            tried.retain(|t| 2 * t.1 >= sees);
        }
    }
    // A pattern that sees half as many cells unlike the commonest colour as
    // another whose cells are uniform (90th-percentile spread within
    // [`SEEING_SPREAD`] of the split distance: each cell mostly one colour;
    // seeing at least a quarter of the cells apart) is blind to the pieces
    // (a ring outside discs drawn on a board: every cell shows the board,
    // spread zero). Among the others, those about as uniform within each
    // cell as the most uniform ([`UNIFORM_SLACK`]) are compared by how far
    // apart they set the colours ([`separation`]): a ring on the outline of
    // symbols drawn on the tiles is as uniform as one beside it, but splits
    // a colour by where it meets the outline. (The seeing pattern must see
    // a quarter of the cells apart: a ring through
    // symbols on tiles of one grey (Swell Foop's `boringshapes`) sees some
    // cells apart, uniform or not (at 0.21 of the tile: 29 of 150, spread
    // 9.4), and those boards read as wrong boards when it counted.)
    // Likewise, a pattern with cells mostly one colour that sees a quarter
    // more cells apart than every uniform one (and 4 more; `sees_more`)
    // leaves only those seeing as many: Iagno's high-contrast white stones
    // have a thick dark outline, the uniform rings lie on it and read them
    // black, one seeing their light inside is less uniform.
    let most_seen = tried
        .iter()
        .filter(|t| t.0 <= SEEING_SPREAD * p.split_distance && 4 * t.1 >= t.4.len())
        .map(|t| t.1)
        .max()
        .unwrap_or(0);
    tried.retain(|t| 2 * t.1 >= most_seen);
    // A lattice of blobs has a tile on each blob's site: a pattern that
    // sees no cell apart there is blind when another, its cells mostly one
    // colour, sees two or more (small diamonds on a flat panel, a tenth of
    // the cells: a ring outside them sees the panel everywhere, spread
    // zero, and was the most uniform; synthetic sparse seed 7039).
    let from_blobs = found.as_ref().is_some_and(|f| f.from_blobs);
    if from_blobs
        && tried
            .iter()
            .any(|t| t.1 >= 2 && t.0 <= SEEING_SPREAD * p.split_distance)
    {
        tried.retain(|t| t.1 > 0);
    }
    // A pattern that sees the cells apart all as one colour is blind to
    // the pieces' colours where another, its cells mostly one colour, sees
    // as many apart in two or more colours ([`HUED`]): a ring on the dark
    // outline every piece has (Five or More's balls), the colours inside.
    let hues: Vec<usize> = tried
        .iter()
        .map(|t| hues_apart_from_mode(&t.4, p.split_distance, HUED))
        .collect();
    let outline = tried.iter().zip(&hues).any(|(t, &h)| t.1 > 0 && h <= 1);
    let coloured = |seen: usize| {
        tried
            .iter()
            .zip(&hues)
            .any(|(t, &h)| h >= 2 && t.1 >= seen && t.0 <= SEEING_SPREAD * p.split_distance)
    };
    if outline {
        let keep: Vec<bool> = tried
            .iter()
            .zip(&hues)
            .map(|(t, &h)| h >= 2 || t.1 == 0 || !coloured(t.1))
            .collect();
        let mut k = keep.iter();
        tried.retain(|_| k.next().copied().unwrap_or(true));
    }
    let uniform = tried.iter().map(|t| t.0).fold(f32::INFINITY, f32::min);
    let seen_uniform = tried
        .iter()
        .filter(|t| t.0 <= UNIFORM_SLACK * uniform + 1.0)
        .map(|t| t.1)
        .max()
        .unwrap_or(0);
    // A pattern that sees a quarter more cells apart than every uniform
    // one, its cells still mostly one colour, sees pieces they miss (the
    // light inside of stones whose dark outline the uniform ring lies on).
    let cells = tried.first().map_or(0, |t| t.4.len());
    let sees_more = |p90: f32, seen: usize| {
        p90 <= SEEING_SPREAD * p.split_distance
            && 4 * seen >= 5 * seen_uniform + 4
            && 4 * seen >= cells
    };
    if let Some(s) = tried
        .iter()
        .filter(|t| sees_more(t.0, t.1))
        .map(|t| t.1)
        .max()
    {
        tried.retain(|t| t.1 >= s);
    }
    // A pattern less uniform than the slack allows, its cells still mostly
    // one colour, that sees as many cells apart as the uniform ones and
    // sets the colours [`FAR_APART`] times as far apart, reads the tiles
    // where they read the symbols drawn on them: flat symbols are the most
    // uniform of all, and symbols of two tile colours alike in shade (a
    // light cross on blue, a light diamond on steel blue) read as one.
    // (Not when the uniform ones learn a single colour: nothing to
    // compare, and the lattice is likely off the tiles.)
    let slack = |p90: f32| p90 <= UNIFORM_SLACK * uniform + 1.0;
    let (apart_uniform, seen_slack) = tried
        .iter()
        .filter(|t| slack(t.0))
        .fold((0.0f32, 0), |(a, s), t| (a.max(t.2), s.max(t.1)));
    let far_apart = |p90: f32, seen: usize, apart: f32| {
        p90 <= SEEING_SPREAD * p.split_distance
            && seen >= seen_slack
            && apart_uniform > 0.0
            && apart >= FAR_APART * apart_uniform
    };
    let mut best: Option<(f32, f32, Sampling, Vec<Member>)> = None;
    for (p90, seen, apart, sampling, members) in tried {
        if !slack(p90) && !sees_more(p90, seen) && !far_apart(p90, seen, apart) {
            continue;
        }
        let better = best
            .as_ref()
            .is_none_or(|b| apart > b.0 + 1e-3 || (apart > b.0 - 1e-3 && p90 < b.1 - 1e-3));
        if better {
            best = Some((apart, p90, sampling, members));
        }
    }
    let Some((_, _, sampling, members)) = best else {
        return Err(calibrate_error("no sampling pattern"));
    };
    cal.sampling = sampling;
    // What an emptied cell shows: the colour around the board, unless no
    // cell shows it (a header bar or a window frame beside a board that
    // fills its window) and the board shows a colour between its tiles.
    let first_cells: Vec<Lab> = members
        .iter()
        .filter(|m| m.0 == 0)
        .map(|m| m.2.lab)
        .collect();
    let first_spread: Vec<(Lab, f32)> = members
        .iter()
        .filter(|m| m.0 == 0)
        .map(|m| (m.2.lab, m.2.spread))
        .collect();
    let arounds = backgrounds_around(first, &cal.grid, rows, cols, p.empty_distance);
    let around = arounds.first().copied();
    // How many cells of the first picture read `bg`; shown when any does.
    let reading_it = |bg: &Lab| {
        first_cells
            .iter()
            .filter(|c| delta_e(**c, *bg) <= p.empty_distance)
            .count()
    };
    let shown = |bg: &Lab| reading_it(bg) > 0;
    // A backdrop between pieces shows plain where a piece is missing: a
    // cell whose ring meets the backdrop beside a narrow piece (Gweled's
    // triangles, dimmed) reads its colour too, unevenly. Nor is a colour
    // that only such cells read the empty colour, wherever it was seen
    // (the gems' dark outlines between them): no cell is empty then.
    let shown_plain = |bg: &Lab| {
        first_spread
            .iter()
            .any(|c| delta_e(c.0, *bg) <= p.empty_distance && c.1 <= p.empty_distance)
    };
    // The sides' own colours only when no cell shows the median of all.
    let tried = if around.is_some_and(|bg| !shown(&bg)) {
        &arounds[..]
    } else {
        &arounds[..arounds.len().min(1)]
    };
    let holes = tried
        .iter()
        .find(|bg| shown(bg) && holes_show(first, &cal, &first_cells, **bg, p.empty_distance));
    let background = match holes {
        Some(&bg) => Some(bg),
        None => backdrop(first, &cal.grid, rows, cols, &first_spread, p)
            .filter(|bg| shown_plain(bg))
            .or_else(|| {
                background_between(first, &cal.grid, rows, cols, &first_cells, p.empty_distance)
                    .filter(|bg| !shown(bg) || shown_plain(bg))
            })
            .or(around.filter(|bg| !shown(bg) || shown_plain(bg))),
    };
    // A swap or orb-drag board is full when it is still: unless cells are
    // seen to be holes, a few cells like the colour round the board or
    // between its tiles are tiles of that colour (Gweled's white gems,
    // JPEG'd, came within the empty distance of the window's grey; dimmed,
    // its purple triangles within that of the checker between the gems).
    // (`match3` is also what an unknown game's board is read as: a third
    // of the cells or more reading the guessed colour are holes, as on a
    // Five or More board.)
    let background = background.filter(|bg| {
        holes.is_some()
            || !super::family::always_full(&opts.game)
            || 3 * reading_it(bg) >= first_cells.len()
    });
    tracing::debug!(
        "empty colour {background:?} (around {around:?}, holes {})",
        holes.is_some()
    );

    // 3. Classes.
    let mut classes: Vec<ClassStats> = Vec::new();
    let mut second: Vec<SecondLook> = Vec::new();
    if labelled > 0 {
        let label = |m: &Member| {
            shots[m.0]
                .1
                .map(|b| b.get(m.1.row, m.1.col))
                .unwrap_or(UNKNOWN)
        };
        let mut values: Vec<u8> = members
            .iter()
            .map(label)
            .filter(|&v| v != UNKNOWN)
            .collect();
        values.sort_unstable();
        values.dedup();
        for v in values {
            let of_v: Vec<Member> = members.iter().filter(|m| label(m) == v).copied().collect();
            classes.push(class_stats(v, &of_v));
        }
    } else {
        let (mut rest, mut empties): (Vec<Member>, Vec<Member>) = (Vec::new(), Vec::new());
        for m in &members {
            match background {
                Some(bg) if delta_e(m.2.lab, bg) <= p.empty_distance => empties.push(*m),
                _ => rest.push(*m),
            }
        }
        let assign = cluster(&rest, opts.colours, p);
        let clusters = assign.iter().copied().max().map_or(0, |m| m + 1);
        // A colour seen on one cell only, whose ring shows two colours
        // (an arc of `lone_split` of its points departs from the cell's
        // colour), is no palette colour: a popup or an effect over part of
        // that tile. Its cell then matches no colour and reads as unknown.
        // (A lone tile of a colour of its own is uniform and stays.)
        let mut sizes = vec![0usize; clusters];
        for &a in &assign {
            sizes[a] += 1;
        }
        let lone = |a: usize| {
            opts.colours.is_none()
                && sizes[a] == 1
                && rest
                    .iter()
                    .zip(&assign)
                    .any(|(m, &b)| b == a && own_split(shots[m.0].0, &cal, m.1) >= p.lone_split)
        };
        // Number clusters by first appearance in reading order.
        let mut order: Vec<usize> = Vec::new();
        for &a in &assign {
            if !order.contains(&a) && !lone(a) {
                order.push(a);
            }
        }
        if order.len() + opts.first_index as usize > 10 {
            return Err(calibrate_error(format!(
                "found {} colours; at most {} fit the digits from {}",
                order.len(),
                10 - opts.first_index as usize,
                opts.first_index
            )));
        }
        if let Some(k) = opts.colours {
            if clusters < k {
                warnings.push(format!(
                    "asked for {k} colours but only {} distinct cell colours",
                    clusters
                ));
            }
        }
        let mut values: Vec<(u8, Vec<Member>)> = Vec::with_capacity(order.len() + 1);
        for (n, &cluster) in order.iter().enumerate() {
            let of_cluster: Vec<Member> = rest
                .iter()
                .zip(&assign)
                .filter(|(_, &a)| a == cluster)
                .map(|(m, _)| *m)
                .collect();
            let value = opts.first_index + n as u8;
            classes.push(class_stats(value, &of_cluster));
            values.push((value, of_cluster));
        }
        // Outside the collapse family (whose emptied cells must show apart
        // from every tile), an empty colour that is one of the tile colours
        // is that colour (KDiamond dimmed at half scale:
        // its orange gems' colour 0.4 ΔE from the colour round the board,
        // the palette's threshold cut to half that, the board unread).
        let alike = (!empties.is_empty())
            .then(|| class_stats(EMPTY, &empties).lab)
            .and_then(|e| {
                classes
                    .iter()
                    .position(|c| delta_e(c.lab, e) <= TIGHT_FLOOR)
            });
        if let Some(k) = alike.filter(|_| !super::family::collapses(&opts.game)) {
            // `classes` and `values` were filled together, a colour each.
            let (value, of) = &mut values[k];
            of.append(&mut empties);
            classes[k] = class_stats(*value, of);
        }
        // Two kinds of piece one value reads for, another ring tells apart.
        let mut next = opts.first_index as usize + order.len();
        let room = |next: usize| next <= 9 && opts.colours.is_none_or(|k| next < k);
        values.push((EMPTY, empties.clone()));
        for (value, of) in values {
            if !room(next) {
                break;
            }
            let Some((ring, lab, rest_lab, at)) = two_tones(&shots, &cal, &of, p) else {
                continue;
            };
            // A kind among the tiles is one whose inside is the board's empty
            // colour, its outline like the tiles (a ring through symbols on
            // tiles of one grey splits them by their symbols: Swell Foop's
            // `boringshapes`).
            let inside_empty = background.is_some_and(|bg| delta_e(lab, bg) <= p.split_distance);
            if value != EMPTY && !inside_empty {
                continue;
            };
            let kind: Vec<Lab> = at.iter().map(|&k| of[k].2.lab).collect();
            let (inside, _) = robust_centre(&kind);
            tracing::debug!(
                "second look at {}: {} cells apart on {:?}",
                value_name(value),
                at.len(),
                ring.points.first()
            );
            second.push(SecondLook {
                from: value,
                index: next as u8,
                name: format!("{} {}", colour_name(inside), colour_name(lab)),
                ring,
                lab: round_lab(lab),
                rest: round_lab(rest_lab),
            });
            next += 1;
            // The class's colour from the rest of its cells.
            let rest_of: Vec<Member> = (0..of.len())
                .filter(|k| !at.contains(k))
                .map(|k| of[k])
                .collect();
            if value == EMPTY {
                empties = rest_of;
            } else if let Some(c) = classes.iter_mut().find(|c| c.value == value) {
                *c = class_stats(value, &rest_of);
            }
        }
        if !empties.is_empty() {
            classes.push(class_stats(EMPTY, &empties));
        }
    }
    if classes.iter().all(|c| c.value == EMPTY) {
        return Err(calibrate_error("no coloured cells found"));
    }

    // 4. Highlighted variants.
    let highlight = match opts.highlight {
        Some(f) if (f - 1.0).abs() < 1e-3 => None,
        Some(f) => Some(f),
        None if labelled > 0 => estimate_highlight(&classes),
        None => None,
    };
    for c in &classes {
        if !c.outliers.is_empty() && highlight.is_none() {
            let shown: Vec<String> = c
                .outliers
                .iter()
                .take(8)
                .map(|(k, cell)| format!("#{} ({},{})", k + 1, cell.row, cell.col))
                .collect();
            warnings.push(format!(
                "{} of {} cells of {} look different (hover highlight?): {}",
                c.outliers.len(),
                c.cells,
                value_name(c.value),
                shown.join(" ")
            ));
        }
    }
    // Orb-drag values are orb kinds with names of their own; elsewhere a
    // colour is named by its hue.
    let name = |c: &ClassStats| match (opts.game.as_str(), ORB_NAMES.get(c.value as usize)) {
        ("pad", Some(n)) => n.to_string(),
        _ => colour_name(c.lab).to_string(),
    };
    let mut refs: Vec<(u8, Lab, String)> =
        classes.iter().map(|c| (c.value, c.lab, name(c))).collect();
    if let Some(f) = highlight {
        for c in classes.iter().filter(|c| c.value <= 9) {
            refs.push((
                c.value,
                brighten(c.lab, f),
                format!("{} highlighted", name(c)),
            ));
        }
    }

    // 5. Palette and limits.
    let mut min_sep: Option<(u8, u8, f32)> = None;
    for (i, a) in refs.iter().enumerate() {
        for b in refs[i + 1..].iter().filter(|b| b.0 != a.0) {
            let d = delta_e(a.1, b.1);
            if min_sep.is_none_or(|m| d < m.2) {
                min_sep = Some((a.0, b.0, d));
            }
        }
    }
    let worst_in = classes.iter().map(|c| c.max_distance).fold(0.0, f32::max);
    let mut threshold = (p.threshold_margin * worst_in).max(p.threshold_floor);
    if let Some((a, b, d)) = min_sep {
        if threshold > d / 2.0 {
            warnings.push(format!(
                "colours {} and {} are only ΔE {d:.1} apart; cells vary by up to {worst_in:.1}: \
                 readings may be fragile",
                value_name(a),
                value_name(b)
            ));
            threshold = d / 2.0;
        }
    }
    let mut spreads: Vec<f32> = members.iter().map(|m| m.2.spread).collect();
    let worst_spread = spreads.iter().copied().fold(0.0, f32::max);
    let median_spread = median_mut(&mut spreads);
    let max_spread = (p.spread_margin * worst_spread)
        .max(p.spread_floor)
        .max(4.0 * median_spread);
    cal.palette = Palette {
        threshold: (threshold * 100.0).round() / 100.0,
        max_spread: (max_spread * 100.0).round() / 100.0,
        empty: refs
            .iter()
            .filter(|r| r.0 == EMPTY)
            .map(|r| round_lab(r.1))
            .collect(),
        colours: refs
            .iter()
            .filter(|r| r.0 <= 9)
            .map(|r| PaletteColour {
                index: r.0,
                name: r.2.clone(),
                lab: round_lab(r.1),
            })
            .collect(),
        refuse: Vec::new(),
    };
    cal.second = second;
    if cal.palette.empty.is_empty() {
        if let Some(bg) = background {
            // No empty cell on the screenshots: the background outside the
            // board is the best guess for what an emptied cell shows.
            cal.palette.empty.push(round_lab(bg));
            warnings.push(
                "no empty cell on the screenshots: empty colour taken from around the board".into(),
            );
        }
    }
    cal.anchors = pick_anchors(first, &cal, p.max_anchors);
    cal.validate().map_err(VisionError::Calibrate)?;

    // 6. Refusal colours: what the no-board screenshots show where they
    //    cannot be read, for those the palette alone would read as a board.
    let mut refusal_reads = Vec::with_capacity(refusals.len());
    for img in &refusals {
        if read_board(img, &cal).is_ok() {
            for c in read_cells(img, &cal)?.iter().filter(|c| c.value == UNKNOWN) {
                let seen = cal
                    .palette
                    .refuse
                    .iter()
                    .any(|r| delta_e(*r, c.lab) <= cal.palette.threshold / 2.0);
                if !seen {
                    cal.palette.refuse.push(round_lab(c.lab));
                }
            }
        }
        refusal_reads.push(match read_board(img, &cal) {
            Ok(r) => Err(format!("still reads as a board: {}", r.board)),
            Err(e) if e.is_no_board() => Ok(()),
            Err(e) => Err(e.to_string()),
        });
    }

    // 7. Read back.
    let mut read_back = Vec::with_capacity(shots.len());
    let mut mismatches = Vec::new();
    for (k, (img, board)) in shots.iter().enumerate() {
        let got = read_board(img, &cal)
            .map(|r| r.board)
            .map_err(|e| e.to_string());
        if let (Some(want), Ok(got)) = (board, &got) {
            mismatches.extend(
                want.diff(got)
                    .into_iter()
                    .filter(|c| want.get(c.row, c.col) != UNKNOWN)
                    .map(|c| (k, c)),
            );
        }
        read_back.push(got);
    }
    let report = CalibrationReport {
        located,
        found,
        classes,
        min_separation: min_sep,
        threshold: cal.palette.threshold,
        max_spread: cal.palette.max_spread,
        background,
        highlight,
        read_back,
        mismatches,
        refusal_reads,
        warnings,
    };
    Ok((cal, report))
}

/// Reads a board from a screenshot with no calibration: [`read_auto_free`],
/// held to the game's fixed board sizes when its family has them
/// ([`super::family`]: orb-drag).
pub fn read_auto(
    img: &RgbImage,
    opts: &CalibrateOptions,
) -> Result<(super::Reading, Calibration), VisionError> {
    super::family::read_sized(img, opts)
}

/// Reads a board from a screenshot with no calibration: finds the grid,
/// learns the palette from this picture alone ([`calibrate_shots`] with
/// `opts`, normally [`CalibrateOptions::find`]) and reads it. Colour indices
/// are numbered by first appearance in reading order (from
/// `opts.first_index`), so they agree with another picture's only up to a
/// renaming. Returns the reading and the calibration learned.
///
/// The finder's best lattice is not always the board's: a lattice at 1.5
/// times the pitch, or one whose other axis took the pitch of text beside
/// the board, can score a little better on edges alone. So the few next
/// lattices that score nearly as well (see [`ReadParams`]) are learned and
/// read too (only when the best one reads as a board), and the reading
/// whose tiles fit their colours best (`footprint`) is kept: another
/// lattice must beat the best's fit by [`ReadParams::better_fit`]. (Asking
/// the others to read as a `varied` board too cost a right board and made
/// two wrong sizes.) When the best lattice is refused, another is read
/// instead only when it is a board beyond doubt (`rescued`: varied, its
/// tiles fitting their colours, no tile colour just beyond its edges).
/// A lattice at a multiple of the board's pitch reads each of its cells by
/// the one tile its centre falls on and fits nearly as well as the board's
/// own lattice, so another lattice also wins, with a fit as good (within
/// [`ReadParams::finer_slack`], at least `rescue_fit`) and a `varied`
/// board, when the two are finer and coarser one of the other
/// (`finer_cover`) and it reads one tile a cell (`one_tile_a_cell`): the
/// finer one when it does, the coarser one when the best reads tiles twice.
///
/// Last, cells read as empty must show no tile colour round their edge
/// (`pieces_read_as_empty`).
///
/// Errors: [`VisionError::NoBoard`] when no grid is found, when no palette can
/// be learned from it, or when the reading fails the whole-picture checks.
pub fn read_auto_free(
    img: &RgbImage,
    opts: &CalibrateOptions,
) -> Result<(super::Reading, Calibration), VisionError> {
    whole_picture_checks(img, opts, read_free(img, opts)?)
}

/// The last tries of [`read_free`] ([`last_tries`]) on their own, held to
/// the checks of [`read_auto_free`]: for a reading refused after it (its
/// lattice has tiles just beyond a side: `family::closed`), when the
/// lattice it took lay over UI or part of the board.
pub(super) fn read_last_tries(
    img: &RgbImage,
    opts: &CalibrateOptions,
) -> Result<(super::Reading, Calibration), VisionError> {
    let all = find_candidates(img, find_hints(opts, None), &opts.find).unwrap_or_default();
    let read = last_tries(img, opts, &all)
        .ok_or_else(|| VisionError::NoBoard("no last try read a board".into()))?;
    whole_picture_checks(img, opts, read)
}

/// The checks of a reading of [`read_auto_free`] over the whole picture.
fn whole_picture_checks(
    img: &RgbImage,
    opts: &CalibrateOptions,
    (reading, cal): (super::Reading, Calibration),
) -> Result<(super::Reading, Calibration), VisionError> {
    let (px, py) = (cal.grid.pitch_x(), cal.grid.pitch_y());
    if opts.finds_grid() && px.max(py) > MAX_PITCH_RATIO * px.min(py) {
        return Err(VisionError::NoBoard(format!(
            "a {}x{} lattice of {px:.1}x{py:.1} pixels: cells {:.1} times as {} as {}, \
             a lattice at a multiple of the tiles' pitch on one axis",
            cal.rows,
            cal.cols,
            px.max(py) / px.min(py),
            if py > px { "tall" } else { "wide" },
            if py > px { "wide" } else { "tall" },
        )));
    }
    let g = &cal.grid;
    let (sx, sy) = (g.gap_x / px, g.gap_y / py);
    if opts.finds_grid() && px.max(py) > UNEVEN_PITCH * px.min(py) && (sx - sy).abs() > GAPS_ALIKE {
        return Err(VisionError::NoBoard(format!(
            "a {}x{} lattice of {px:.1}x{py:.1} pixels with gaps of {:.0} % and {:.0} % of them: \
             tiles alike spaced apart on one axis only, a lattice off the tiles' pitch there",
            cal.rows,
            cal.cols,
            100.0 * sx,
            100.0 * sy
        )));
    }
    match pieces_read_as_empty(img, &cal, &reading.board)
        .or_else(|| seamless(img, &cal, &reading.board))
    {
        Some(msg) => Err(VisionError::NoBoard(msg)),
        None => Ok((reading, cal)),
    }
}

/// A message when one tile colour holds [`SEAMLESS_SHARE`] of the cells or
/// more and nine in ten of its cells side by side show it across their
/// common edge too (five points along it, each within the threshold of
/// the colour): one flat area, a backdrop (a game-over screen's emptied
/// board, dimmed, read as a board of one colour), not tiles drawn one by
/// one. Dealt tiles are a few colours in about equal shares.
fn seamless(img: &RgbImage, cal: &Calibration, board: &Board) -> Option<String> {
    let (rows, cols) = (board.rows(), board.cols());
    let counts = tile_counts(board.cells());
    let (v, n) = (0..10u8)
        .map(|v| (v, counts[v as usize]))
        .max_by_key(|x| x.1)?;
    if (n as f64) < SEAMLESS_SHARE * (rows * cols) as f64 {
        return None;
    }
    let lab = cal.palette.colours.iter().find(|c| c.index == v)?.lab;
    let g = &cal.grid;
    let (mut pairs, mut flat) = (0usize, 0usize);
    for r in 0..rows {
        for c in 0..cols {
            for (r2, c2) in [(r, c + 1), (r + 1, c)] {
                if r2 >= rows || c2 >= cols || board.get(r, c) != v || board.get(r2, c2) != v {
                    continue;
                }
                let (x1, y1) = cal.cell_centre(Cell::new(r, c));
                let (x2, y2) = cal.cell_centre(Cell::new(r2, c2));
                let (mx, my) = ((x1 + x2) / 2.0, (y1 + y2) / 2.0);
                let across = (0..5).all(|k| {
                    let t = 0.6 * (k as f64 / 4.0 - 0.5);
                    let (x, y) = match r2 == r {
                        true => (mx, my + t * g.cell_height),
                        false => (mx + t * g.cell_width, my),
                    };
                    lab_at(img, x, y).is_some_and(|l| delta_e(l, lab) <= cal.palette.threshold)
                });
                pairs += 1;
                flat += usize::from(across);
            }
        }
    }
    (pairs > 0 && 10 * flat >= 9 * pairs).then(|| {
        format!(
            "{n} of {} cells read as one colour, one flat area with no edge between its cells: \
             a backdrop, not tiles",
            rows * cols
        )
    })
}

/// See [`seamless`]: the least share of the cells one colour must hold to
/// be looked at as a backdrop.
const SEAMLESS_SHARE: f64 = 2.0 / 3.0;

/// Largest ratio of a found lattice's pitches ([`read_auto_free`]): tiles
/// are square or nearly so; a lattice whose cells are twice as tall as
/// wide took every other row of a board of pieces (synthetic seed 7061:
/// 4x15 at 31x65 pixels for 7x15 at 31), or the pitch of something else on
/// one axis. Measured: sparse boards read at a wrong size 9 -> 5, 17 -> 12
/// and 15 -> 13 in 7000-7599, nothing read right lost, the dense sets and
/// real screens unchanged.
const MAX_PITCH_RATIO: f64 = 1.8;

/// A lattice whose pitches differ by this factor or more and whose gaps,
/// as shares of them, differ by more than [`GAPS_ALIKE`] is refused
/// ([`read_auto_free`]): tiles about square, spaced apart across but not
/// down (or the other way), lie on a lattice off their pitch on that axis
/// (synthetic seed 12272: 4x4 of 47.7x82.3 pixels, gaps 4 % and 37 %, over
/// a 3x4 board and the text above it; 10159: 6x9 of 27.9x18.7, gaps 0 %
/// and 44 %, for 4x9). Games space their tiles alike both ways.
const UNEVEN_PITCH: f64 = 1.4;

/// [`read_auto_free`] before the check of its empty cells.
///
/// When the lattice read has tiles just beyond a side (`bounded` fails:
/// it lies over part of a larger board, or it is UI whose palette took a
/// tile's colour) and the game's family has no fixed sizes (where such a
/// reading is refused, see `family::read_sized`), the lattices of blobs
/// found are tried, each held to what a near alternative's rescue must
/// show (`first_rescue`: its tiles may agree with their colours by a
/// majority of their points, through symbols and highlights): the board's
/// own lattice of separate tiles may score below a bar of UI text, and is
/// taken instead.
fn read_free(
    img: &RgbImage,
    opts: &CalibrateOptions,
) -> Result<(super::Reading, Calibration), VisionError> {
    if !opts.finds_grid() {
        return Ok(grown(img, opts, read_found(img, opts, None)?));
    }
    let mut all = match find_candidates(img, find_hints(opts, None), &opts.find) {
        Ok(all) => all,
        Err(e) if e.is_no_board() => return read_sparse(img, opts).ok_or(e),
        Err(e) => return Err(e),
    };
    if super::family::collapses(&opts.game) {
        blob_pitch_first(&mut all);
    }
    let read = match read_among(img, opts, &all) {
        Err(e) if e.is_no_board() => read_sparse(img, opts)
            .or_else(|| last_tries(img, opts, &all))
            .ok_or(e),
        Ok(first) => Ok(sparse_instead(img, opts, first)),
        read => read,
    }?;
    let Some((blobs, msg)) = cuts_blobs(&all, &read.1) else {
        return Ok(read);
    };
    tracing::debug!("{msg}; the lattice of blobs tried instead");
    match first_rescue(img, opts, vec![blobs], 1) {
        Some(x) => Ok(grown(img, opts, x)),
        None => Err(VisionError::NoBoard(msg)),
    }
}

/// When every lattice was refused: the lattices of blobs found with the
/// smooth patches split at [`FAINT_EDGE`] in place of the finder's edge,
/// each held to a rescue's bar ([`blobs_rescued`] in [`last_tries`]). A picture dimmed and
/// scaled down (Gweled at 0.6 of its size, three quarters as bright with
/// four fifths the contrast) has its gems' outlines against the checker
/// under the finder's edge: they merge with the backdrop, and no lattice
/// of them is found. Only then: at that edge in general, boards read
/// right are lost to patches split by texture. A last resort, so only a
/// board with at most [`FAINT_UNREAD`] cells unread: KDiamond dimmed, its
/// seven colours learned as five, read three cells unknown.
fn faint_blobs(img: &RgbImage, opts: &CalibrateOptions) -> Vec<FoundGrid> {
    if opts.find.blobs.edge <= FAINT_EDGE {
        return Vec::new();
    }
    let mut find = opts.find;
    find.blobs.edge = FAINT_EDGE;
    blobs_found(img, opts, &find, "faint blobs")
}

/// When every lattice was refused (after `read_sparse`), in turn: the
/// lattices of faint blobs ([`faint_blobs`]), the lattices again and those
/// of faint blobs with the cells sampled over their whole middle
/// ([`disc_sampled`]), the lattices of blobs of loose classes
/// ([`loose_blobs`]), those of blobs found at whole size
/// ([`whole_size_blobs`]). The faint blobs are found once for both tries.
/// Also after a reading refused for tiles beyond its sides
/// ([`read_last_tries`]).
fn last_tries(
    img: &RgbImage,
    opts: &CalibrateOptions,
    all: &[FoundGrid],
) -> Option<(super::Reading, Calibration)> {
    let faint = faint_blobs(img, opts);
    blobs_rescued(img, opts, &faint)
        .or_else(|| disc_sampled(img, opts, all, &faint))
        .or_else(|| loose_blobs(img, opts))
        .or_else(|| whole_size_blobs(img, opts))
}

/// When every lattice was refused: the lattices of blobs of a picture the
/// finder looks at half size ([`reduce_above`](super::blobs::BlobParams::reduce_above)) found at its
/// whole size. A class of blobs at half size can take in patches of the
/// backdrop between the tiles, whose pitch is half the tiles' (synthetic
/// seed 12155: 10x10 gems of 41 pixels on a checker, seen at half size as
/// 157 blobs half a pitch apart, no lattice); at whole size the gems are
/// a class of their own. Not among the finder's candidates: a lattice of
/// the whole cells of a board of holes, found at whole size, outscored
/// the combs and read its empty cells as a colour (Four in a Row
/// brightened). Held to the bars of [`faint_blobs`].
fn whole_size_blobs(
    img: &RgbImage,
    opts: &CalibrateOptions,
) -> Option<(super::Reading, Calibration)> {
    let pixels = img.width() as f64 * img.height() as f64;
    let b = &opts.find.blobs;
    if pixels <= b.reduce_above || pixels > b.small_tiles_up_to {
        return None;
    }
    let mut find = opts.find;
    find.blobs.reduce_above = f64::INFINITY;
    let blobs = blobs_found(img, opts, &find, "blobs at whole size");
    blobs_rescued(img, opts, &blobs)
}

/// The lattices of blobs found with the finder's tunables `find`; `what`
/// names them in the log.
fn blobs_found(
    img: &RgbImage,
    opts: &CalibrateOptions,
    find: &FindParams,
    what: &str,
) -> Vec<FoundGrid> {
    let mut all = find_candidates(img, find_hints(opts, None), find).unwrap_or_default();
    all.retain(|f| f.from_blobs);
    tracing::debug!("{} lattices of {what}", all.len());
    all
}

/// Lattices of blobs found by a last try (`blobs`), each held to a
/// rescue's bar (`first_rescue`), the first taken grown, when it leaves at
/// most [`FAINT_UNREAD`] cells unread.
fn blobs_rescued(
    img: &RgbImage,
    opts: &CalibrateOptions,
    blobs: &[FoundGrid],
) -> Option<(super::Reading, Calibration)> {
    first_rescue(img, opts, blobs.iter().collect(), 0)
        .map(|x| grown(img, opts, x))
        .filter(|x| x.0.board.unknown_count() <= FAINT_UNREAD)
}

/// When every lattice was refused: the lattices of blobs found with size
/// classes [`LOOSE_SPREAD`] wide. Where symbols fill much of a tile, the
/// face round them is a broken ring, no blob, and the patches inside the
/// symbols (a disc, a cross, a square, each colour its own) are the
/// tiles' blobs, of several sizes, split into classes of too few sites
/// each at the finder's spread (synthetic seeds 11048, 16x15 blurred
/// diamonds, 13074, 1337: read now; 11380, diamonds 26 pixels wide whose
/// outlined symbols give blobs 8 and 10 wide, still refused: the lattice
/// found fits its tiles' colours by 0.92 of their points, under a further
/// rescue's bar). Held to the bars of [`faint_blobs`] and square tiles
/// ([`squarely_spaced`]).
fn loose_blobs(img: &RgbImage, opts: &CalibrateOptions) -> Option<(super::Reading, Calibration)> {
    if opts.find.blobs.size_spread >= LOOSE_SPREAD {
        return None;
    }
    let mut find = opts.find;
    find.blobs.size_spread = LOOSE_SPREAD;
    let blobs = blobs_found(img, opts, &find, "blobs of loose classes");
    blobs_rescued(img, opts, &blobs).filter(|x| squarely_spaced(&x.1.grid))
}

/// See [`loose_blobs`]: blobs within this factor of a class's size belong
/// to it.
const LOOSE_SPREAD: f64 = 1.35;

/// When every lattice was refused with the sampling patterns calibration
/// chooses from: the lattices again (and those of faint blobs) with the
/// cells sampled over their whole middle ([`Sampling::disc`]). Symbols
/// drawn as outlines (a circle, a diamond, a cross, each colour its own)
/// cross every single ring somewhere, each colour's tiles at other
/// places, and split the colours learned (synthetic seed 14090: diamonds
/// 26 pixels wide with outlined symbols, learned as 8 colours for 5);
/// over three rings an outline is a minority of the points. Not a
/// candidate beside the rings: chosen there it read cells half covered by
/// a popup as a wrong colour (the rings leave them unread) and cost boards
/// read right.
fn disc_sampled(
    img: &RgbImage,
    opts: &CalibrateOptions,
    all: &[FoundGrid],
    faint: &[FoundGrid],
) -> Option<(super::Reading, Calibration)> {
    if opts.sampling.is_some() {
        return None;
    }
    let disc = CalibrateOptions {
        sampling: Some(Sampling::disc()),
        ..opts.clone()
    };
    tracing::debug!("every lattice refused; sampled over the middle of the cells");
    read_among(img, &disc, all)
        .ok()
        .or_else(|| blobs_rescued(img, &disc, faint))
        .filter(|x| squarely_spaced(&x.1.grid) && hued_colours(&x.1) >= 2)
}

/// How many of a calibration's tile colours have a hue ([`HUED`] chroma
/// or more). Sampled over their whole middle, tiles of one grey told
/// apart by black and white symbols (Swell Foop's `boringshapes`) read as
/// greys as far apart as the symbols' shares of ink: the rings refuse
/// them, [`disc_sampled`] must not read them as colours.
fn hued_colours(cal: &Calibration) -> usize {
    cal.palette
        .colours
        .iter()
        .filter(|c| chroma(c.lab) >= HUED)
        .count()
}

/// Square tiles spaced alike both ways: pitches within [`SQUARE_PITCH`]
/// of each other and gaps (shares of the pitch) within [`SQUARE_GAPS`].
/// What [`disc_sampled`], a last try, must find: the lattices it read
/// that were not the board were off square (synthetic seeds 4320, 11191:
/// 1.2 and 1.4 times as wide as tall) or spaced apart one way (9158,
/// 10251, 14161: gaps 13, 10 and 22 points of the pitch apart); the
/// boards it read right, 0 to 6 points.
fn squarely_spaced(g: &Grid) -> bool {
    let (px, py) = (g.pitch_x(), g.pitch_y());
    px.max(py) <= SQUARE_PITCH * px.min(py) && (g.gap_x / px - g.gap_y / py).abs() <= SQUARE_GAPS
}

/// See [`squarely_spaced`].
const SQUARE_PITCH: f64 = 1.1;

/// See [`squarely_spaced`].
const SQUARE_GAPS: f64 = 0.08;

/// See [`faint_blobs`]: the edge (largest channel difference between a
/// pixel's neighbours) that splits faint patches.
const FAINT_EDGE: u8 = 16;

/// See [`faint_blobs`]: the most cells a board found from faint blobs may
/// leave unread: two popups over a tile each (synthetic seed 14058, its
/// diamonds' lattice at half their pitch refused, read right but for the
/// two), or a ball dimmed apart from its colour (Five or More large,
/// dimmed and at half size: 1 of 300). Not three: KDiamond dimmed, two of
/// its colours merged, read three.
const FAINT_UNREAD: usize = 2;

/// A message when the lattice read cuts through the tiles of a lattice of
/// blobs found over it: half or more of the blob lattice's sites inside
/// the board (four at least) have the middle of their box (
/// [`BLOB_CORE`] of it) across a line between cells, and the two pitches
/// are no whole multiple one of the other on some axis; blobs smaller than
/// a cell and at least [`BLOB_LEAST`] of it. Tiles, symbols
/// and pieces each lie inside one cell of the board's lattice; a lattice
/// whose lines run through a regular array of blobs at a pitch of its own
/// was fitted to something else (UI rows over half a board of gems hidden
/// by a dialog, scaled and compressed). Blob lattices at the read pitch
/// (or a multiple) are left out: their blobs may be the backdrop showing
/// between tiles, which the board's lines do run through. Returns that
/// lattice of blobs too.
fn cuts_blobs<'a>(all: &'a [FoundGrid], cal: &Calibration) -> Option<(&'a FoundGrid, String)> {
    let g = &cal.grid;
    let (px, py) = (g.pitch_x(), g.pitch_y());
    let (x0, y0) = (g.left - g.gap_x / 2.0, g.top - g.gap_y / 2.0);
    let (x1, y1) = (x0 + cal.cols as f64 * px, y0 + cal.rows as f64 * py);
    let whole = |a: f64, b: f64| {
        let r = a.max(b) / a.min(b);
        (r - r.round()).abs() <= WHOLE_MULTIPLE
    };
    let col = |x: f64| ((x - x0) / px).floor() as i64;
    let row = |y: f64| ((y - y0) / py).floor() as i64;
    all.iter()
        .filter(|b| b.from_blobs)
        .filter(|b| {
            let bg = &b.grid;
            (BLOB_LEAST * px..px).contains(&bg.cell_width)
                && (BLOB_LEAST * py..py).contains(&bg.cell_height)
        })
        .find_map(|b| {
            let bg = &b.grid;
            if whole(bg.pitch_x(), px) && whole(bg.pitch_y(), py) {
                return None;
            }
            let (hw, hh) = (
                BLOB_CORE * bg.cell_width / 2.0,
                BLOB_CORE * bg.cell_height / 2.0,
            );
            let (mut inside, mut cut) = (0usize, 0usize);
            for r in 0..b.rows {
                for c in 0..b.cols {
                    let cx = bg.left + c as f64 * bg.pitch_x() + bg.cell_width / 2.0;
                    let cy = bg.top + r as f64 * bg.pitch_y() + bg.cell_height / 2.0;
                    if cx < x0 || cx >= x1 || cy < y0 || cy >= y1 {
                        continue;
                    }
                    inside += 1;
                    let across = col(cx - hw) != col(cx + hw) || row(cy - hh) != row(cy + hh);
                    cut += usize::from(across);
                }
            }
            (inside >= 4 && 2 * cut >= inside).then(|| {
                let msg = format!(
                    "a {}x{} lattice cuts through {cut} of the {inside} tiles of a {}x{} lattice \
                     of blobs over it: fitted to something else",
                    cal.rows, cal.cols, b.rows, b.cols
                );
                (b, msg)
            })
        })
}

/// See [`cuts_blobs`]: the share of a blob's box (each way) that must lie
/// in one cell.
const BLOB_CORE: f64 = 0.7;

/// See [`cuts_blobs`]: the least size of a blob, as a share of the read
/// pitch, for a lattice of them to be tiles: smaller blobs in a regular
/// array may be the facets or the symbol of one tile (Gweled brightened).
const BLOB_LEAST: f64 = 0.3;

/// See [`cuts_blobs`]: how near a ratio of pitches must come to a whole
/// number to be a multiple.
const WHOLE_MULTIPLE: f64 = 0.15;

/// A lattice read as a board that may lie over a few pieces of a board of
/// scattered pieces, or over that board at several times its pitch: one
/// with tiles just beyond a side (open: it would be refused as part of a
/// larger board), or of [`SMALL_BOARD`] cells or fewer. The board of
/// pieces framed on its panel ([`read_sparse`]) is taken instead when it
/// overlaps it and has more cells, and, for a small lattice that is not
/// open, a pitch at most [`FINER`] of its on both axes: a 3x3 lattice of
/// cells 172 pixels wide over a panel of circles 29 apart (synthetic seed
/// 7168), a 3x3 over the few pieces of a 8x13 board (7134); on a
/// collapse board at any pitch: its tiles fall into a corner of the panel,
/// and a block of them read alone is that corner of a board framed on its
/// panel (7080: 5x3 for 11x8). (Any bigger board in place of a small one:
/// dense 5x3 and 4x4 boards, read right, were grown into the empty rows of
/// UI above them, seeds 4038, 5326.) Not for games of fixed sizes.
fn sparse_instead(
    img: &RgbImage,
    opts: &CalibrateOptions,
    first: (super::Reading, Calibration),
) -> (super::Reading, Calibration) {
    let cells = |c: &Calibration| c.rows * c.cols;
    let small = cells(&first.1) <= SMALL_BOARD;
    if !super::family::fixed_sizes(&opts.game).is_empty() {
        return first;
    }
    let open = !bounded(img, &first.1);
    if !small && !open {
        return first;
    }
    let collapse = super::family::collapses(&opts.game);
    let (a, g) = (&first.1, &first.1.grid);
    match read_sparse(img, opts) {
        Some(other)
            if overlaps(a, &other.1)
                && cells(&other.1) > cells(a)
                && (open
                    || collapse
                    || (other.1.grid.pitch_x() <= FINER * g.pitch_x()
                        && other.1.grid.pitch_y() <= FINER * g.pitch_y())) =>
        {
            tracing::debug!(
                "a {}x{} lattice gives way to the {}x{} board of pieces over it",
                a.rows,
                a.cols,
                other.1.rows,
                other.1.cols
            );
            other
        }
        _ => first,
    }
}

/// Most cells of a board [`sparse_instead`] looks past.
const SMALL_BOARD: usize = 16;

/// Largest ratio of pitches at which a board of pieces takes a small
/// lattice's place in [`sparse_instead`].
const FINER: f64 = 0.7;

/// True when the board rectangles of `a` and `b` overlap.
fn overlaps(a: &Calibration, b: &Calibration) -> bool {
    let span = |c: &Calibration| {
        let g = &c.grid;
        (
            g.left,
            g.left + c.cols as f64 * g.pitch_x(),
            g.top,
            g.top + c.rows as f64 * g.pitch_y(),
        )
    };
    let (a, b) = (span(a), span(b));
    a.0 < b.1 && b.0 < a.1 && a.2 < b.3 && b.2 < a.3
}

/// An edge lattice first in `all` and a lattice of blobs over the same
/// tiles (the same rows and columns, corners within 0.3 of a pitch) whose
/// pitch differs by 3-15 % on an axis: the blobs' lattice goes first (its
/// pitch is fitted through the tiles' centres; the edges' over a few lines
/// of tiles is a guess that framing multiplies).
fn blob_pitch_first(all: &mut [FoundGrid]) {
    let Some(top) = all.first() else { return };
    if top.from_blobs {
        return;
    }
    let (gt, rows, cols) = (top.grid, top.rows, top.cols);
    let off = |a: f64, b: f64| (a / b - 1.0).abs();
    let k = all.iter().position(|f| {
        let g = &f.grid;
        let d = off(g.pitch_x(), gt.pitch_x()).max(off(g.pitch_y(), gt.pitch_y()));
        f.from_blobs
            && (f.rows, f.cols) == (rows, cols)
            && (g.left - gt.left).abs() <= 0.3 * gt.pitch_x()
            && (g.top - gt.top).abs() <= 0.3 * gt.pitch_y()
            && (0.03..=0.15).contains(&d)
    });
    if let Some(k) = k {
        all[..=k].rotate_right(1);
    }
}

/// When no lattice read as a board: a board of a few pieces on many empty
/// cells, through the lattices of blobs the finder refused for their cells
/// being mostly alike (`find::sparse_candidates`: the empty cells are the
/// blobs). Taken only as pieces on a backdrop framed all round
/// ([`read_on_backdrop`]) or as a board being emptied inside its frame
/// ([`read_framed`]), its tiles fitting their colours as a rescue's must
/// (`footprint` at least [`ReadParams::rescue_fit`]: a button over a
/// collapse board's empty area at its game over reads as two tiles of a
/// blue, 0.93), and not on every other line only ([`every_other_line`]:
/// synthetic seed 16304, a 6x3 board of large gems read 13x7 at half
/// their pitch, the lines between them empty).
///
/// Last, the lattices over tiles alike side by side
/// (`find::few_candidates`: a collapse board with four tiles left, pieces
/// too scattered for a lattice of blobs), taken only as a board mostly
/// empty: where more tiles are seen, their lattice is the finder's to find
/// (a dense 3x3 board of gems, 15 pixels a tile, grew a row of its panel's
/// margin from three of its tiles: synthetic seed 4281).
fn read_sparse(img: &RgbImage, opts: &CalibrateOptions) -> Option<(super::Reading, Calibration)> {
    let hints = find_hints(opts, None);
    let few = || {
        few_candidates(img, &opts.find)
            .into_iter()
            .map(|f| (f, true))
    };
    sparse_candidates(img, hints, &opts.find)
        .into_iter()
        .map(|f| (f, false))
        .chain(std::iter::once_with(few).flatten())
        .find_map(|(found, few)| {
            let found = &*inside(img, &found);
            let cal = calibrate_on(&[(img, Label::Unknown)], opts, Some(found.clone()))
                .map_err(|e| tracing::debug!("sparse {}x{}: {e}", found.rows, found.cols))
                .ok()?
                .0;
            let read = read_on_backdrop(img, opts, &cal)
                .or_else(|| read_framed(img, opts, &cal))
                .filter(|(r, c)| {
                    let cells = r.board.cells();
                    let empty = cells.iter().filter(|&&v| v == EMPTY).count();
                    (!few || 2 * empty > cells.len())
                        && !every_other_line(&r.board)
                        && footprint(img, c, &r.board, opts.read.reach) >= opts.read.rescue_fit
                });
            tracing::debug!(
                "sparse {}x{}: {}",
                found.rows,
                found.cols,
                if read.is_some() {
                    "read"
                } else {
                    "not a board"
                }
            );
            read
        })
}

/// [`read_free`] over the lattices `all` found, best first.
fn read_among(
    img: &RgbImage,
    opts: &CalibrateOptions,
    all: &[FoundGrid],
) -> Result<(super::Reading, Calibration), VisionError> {
    let first = grown(img, opts, chosen(img, opts, all)?);
    if !super::family::fixed_sizes(&opts.game).is_empty() || bounded(img, &first.1) {
        return Ok(first);
    }
    // Only lattices of blobs: tiles seen apart, one by one (any lattice of
    // the finder tried here is one more chance to take a pattern for a
    // board; seed 2237's 3x3 at twice the pitch fitted its cells). Being
    // seen apart, they are held to what the near alternatives are.
    let blobs: Vec<&FoundGrid> = all.iter().filter(|f| f.from_blobs).collect();
    match first_rescue(img, opts, blobs.clone(), blobs.len()) {
        Some(x) => {
            tracing::debug!(
                "a {}x{} lattice with tiles beyond it; read {}x{} instead",
                first.1.rows,
                first.1.cols,
                x.1.rows,
                x.1.cols
            );
            Ok(grown(img, opts, x))
        }
        None => Ok(first),
    }
}

/// The reading of the finder's best lattice `all[0]`, or of another that
/// explains the picture better (see [`read_auto_free`]).
fn chosen(
    img: &RgbImage,
    opts: &CalibrateOptions,
    all: &[FoundGrid],
) -> Result<(super::Reading, Calibration), VisionError> {
    let p = &opts.read;
    let (reading, cal) = match read_lattice(img, opts, &all[0]) {
        Ok(x) => x,
        Err(e) if e.is_no_board() => {
            tracing::debug!("first {}x{}: {e}", all[0].rows, all[0].cols);
            rescued(img, opts, all).ok_or(e)?
        }
        Err(e) => return Err(e),
    };
    let mut fit = footprint(img, &cal, &reading.board, p.reach);
    let mut whole = one_tile_a_cell(&reading.board, p.repeat_excess);
    let mut best = (reading, cal);
    for alt in alternatives(all, p) {
        let Ok(x) = read_lattice(img, opts, alt) else {
            continue;
        };
        let f = footprint(img, &x.1, &x.0.board, p.reach);
        let one = one_tile_a_cell(&x.0.board, p.repeat_excess);
        let even = f >= fit - p.finer_slack && f >= p.rescue_fit && varied(&x.0.board) && one;
        // A finer lattice holding one tile a cell beats a coarse one;
        // a coarser one beats a lattice that reads tiles twice.
        let finer = even && finer_cover(&x.1, &best.1);
        let coarser = even && !whole && finer_cover(&best.1, &x.1);
        let inner = even && f >= fit + NESTED_FIT && nested(&x.1, &best.1);
        let larger = even
            && f >= fit + NESTED_FIT
            && x.1.rows * x.1.cols >= LARGER * best.1.rows * best.1.cols;
        tracing::debug!(
            "alternative {}x{}: fit {f:.3} against {fit:.3}, one tile a cell {one}, finer {finer}, coarser {coarser}, inner {inner}",
            x.1.rows,
            x.1.cols
        );
        if f >= fit + p.better_fit || finer || coarser || inner || larger {
            whole = one;
            fit = f;
            best = x;
        }
    }
    Ok(best)
}

/// A board read: the lattice may have stopped short of its edge (blur,
/// or UI beside the board cut it). Lines beyond it that the learned
/// palette reads as tiles belong to the board.
/// On a board with holes, a line beyond may hold holes too: grown over
/// such lines first, kept when the grown board passes the checks (an
/// outer line mostly empty must look like holes), else grown over lines
/// of tiles only. The reading as it was when nothing grows.
fn grown(
    img: &RgbImage,
    opts: &CalibrateOptions,
    (reading, cal): (super::Reading, Calibration),
) -> (super::Reading, Calibration) {
    let (reading, cal) = grown_known(img, opts, (reading, cal));
    let (reading, cal) = match extended(img, &cal, opts, Growth::Unseen)
        .and_then(|wider| relearned(img, opts, &reading.board, &cal, wider))
    {
        Some(x) => x,
        None => (reading, cal),
    };
    to_frame(img, opts, (reading, cal))
}

/// A collapse board read with cells emptied, whose empty colour goes on
/// past its lattice to a frame ([`framed`]): the board is the framed
/// extent (its tiles fill only its lower left corner) when the lines added
/// are above it and right of it (tiles fall, columns close to the left),
/// each of their cells shows the board's empty colour all over (points
/// across its whole pitch: a margin of the panel round a board is no
/// line) and the whole reads as a board of known size.
fn to_frame(
    img: &RgbImage,
    opts: &CalibrateOptions,
    (reading, cal): (super::Reading, Calibration),
) -> (super::Reading, Calibration) {
    let keep = |reading, cal| (reading, cal);
    if !super::family::collapses(&opts.game) {
        return keep(reading, cal);
    }
    let empties: Vec<Lab> = reading
        .cells
        .iter()
        .filter(|c| c.value == EMPTY)
        .map(|c| c.lab)
        .collect();
    if empties.is_empty() {
        return keep(reading, cal);
    }
    let empty = median_lab(&empties);
    let Some(wider) = framed(img, &cal, opts, false) else {
        return keep(reading, cal);
    };
    let (dr, dc) = lines_before(&cal, &wider);
    let grew = (wider.rows, wider.cols) != (cal.rows, cal.cols);
    // Added above and to the right only: the old lattice is the lower left.
    let corner = dc == 0 && dr + cal.rows == wider.rows;
    if !grew || !corner {
        return keep(reading, cal);
    }
    let limit = opts.params.empty_distance;
    let all_empty = (0..wider.rows)
        .flat_map(|r| (0..wider.cols).map(move |c| Cell::new(r, c)))
        .filter(|cell| cell.row < dr || cell.col >= cal.cols)
        .all(|cell| empty_points(img, &wider, cell, empty, limit) == EMPTY_POINTS);
    if !all_empty {
        return keep(reading, cal);
    }
    match read_board(img, &wider) {
        Ok(r) if plausible(&r.board, Seen::Known, false).is_ok() => {
            tracing::debug!(
                "{}x{} framed to {}x{}",
                cal.rows,
                cal.cols,
                wider.rows,
                wider.cols
            );
            (r, wider)
        }
        _ => keep(reading, cal),
    }
}

/// [`grown`] over lines of the palette's colours.
fn grown_known(
    img: &RgbImage,
    opts: &CalibrateOptions,
    (reading, cal): (super::Reading, Calibration),
) -> (super::Reading, Calibration) {
    let holed = reading.board.cells().contains(&EMPTY);
    for growth in [Growth::Holes, Growth::Tiles] {
        if growth == Growth::Holes && !holed {
            continue;
        }
        let Some(wider) = extended(img, &cal, opts, growth) else {
            continue;
        };
        let r = read_board(img, &wider)
            .and_then(|r| plausible(&r.board, Seen::Guessed, false).map(|_| r));
        tracing::debug!(
            "{}x{} grown to {}x{}: {}",
            cal.rows,
            cal.cols,
            wider.rows,
            wider.cols,
            r.as_ref().map_or_else(|e| e.to_string(), |_| "read".into())
        );
        if let Ok(r) = r {
            return (r, wider);
        }
    }
    (reading, cal)
}

/// The lattice `found` as the finder would hand it over (no cells, no
/// score): the calibration's size on `grid`.
pub(super) fn found_on(cal: &Calibration, grid: Grid) -> FoundGrid {
    FoundGrid {
        rows: cal.rows,
        cols: cal.cols,
        grid,
        uniform: 0.0,
        contrast: 0.0,
        score: 0.0,
        cells: Vec::new(),
        from_blobs: false,
    }
}

/// How many rows and columns `wider` (a lattice grown past `cal` on its
/// pitch) has before `cal`'s first.
fn lines_before(cal: &Calibration, wider: &Calibration) -> (usize, usize) {
    let (g, w) = (&cal.grid, &wider.grid);
    (
        ((g.top - w.top) / g.pitch_y()).round() as usize,
        ((g.left - w.left) / g.pitch_x()).round() as usize,
    )
}

/// The board of `wider` (a lattice grown past `cal` over tiles of colours
/// its palette lacks) with a palette learned again on all of it, when that
/// reads as a board and reads `cal`'s cells as `board` did, up to a
/// renaming (no two colours merged, none split, the empty cells empty).
fn relearned(
    img: &RgbImage,
    opts: &CalibrateOptions,
    board: &Board,
    cal: &Calibration,
    wider: Calibration,
) -> Option<(super::Reading, Calibration)> {
    let (reading, learned) = read_found(img, opts, Some(found_on(&wider, wider.grid))).ok()?;
    let (dr, dc) = lines_before(cal, &wider);
    // Old value -> new value, one to one.
    let mut to = [None::<u8>; 256];
    let mut from = [None::<u8>; 256];
    for r in 0..board.rows() {
        for c in 0..board.cols() {
            let (a, b) = (board.get(r, c), reading.board.get(r + dr, c + dc));
            if a == UNKNOWN {
                continue;
            }
            if *to[a as usize].get_or_insert(b) != b || *from[b as usize].get_or_insert(a) != a {
                return None;
            }
        }
    }
    Some((reading, learned))
}

/// When the finder's best lattice is refused, the first of its
/// [`alternatives`] that reads as a board beyond doubt: a `varied` board
/// whose tiles fit their colours (`footprint` at least
/// [`ReadParams::rescue_fit`], or [`TILES_AGREE`] of its tiles agreeing by
/// a majority of their points) and whose edges are seen ([`bounded`]: no
/// tile colour just beyond any side, so a filled corner of a half-played
/// board is not taken for the board). After the alternatives,
/// [`FURTHER_RESCUES`] more lattices in the finder's order (the best may be
/// UI that outscores the board far), which must also read one tile a cell
/// and fit by their points. A refusal stays a refusal otherwise.
fn rescued(
    img: &RgbImage,
    opts: &CalibrateOptions,
    all: &[FoundGrid],
) -> Option<(super::Reading, Calibration)> {
    let p = &opts.read;
    // The alternatives first, then the other lattices in the finder's
    // order: when the best is UI, the board's lattice may score far below.
    // Those must also read one tile a cell (a lattice at half the pitch
    // fits its tiles too).
    // The further ones count only when they are not the same lattice as
    // one tried (the finder lists a lattice again with its other axis
    // refined a little differently).
    let mut order = alternatives(all, p);
    let near = order.len();
    for f in all.iter().skip(1) {
        if order.len() >= near + FURTHER_RESCUES {
            break;
        }
        let tried = |o: &FoundGrid| std::ptr::eq(o, f) || same_lattice(o, f);
        if !order.iter().any(|o| tried(o)) && !same_lattice(&all[0], f) {
            order.push(f);
        }
    }
    first_rescue(img, opts, order, near)
}

/// True when two lattices found are one: the same rows and columns, their
/// pitches within 3 % and their corners within a quarter of a pitch.
fn same_lattice(a: &FoundGrid, b: &FoundGrid) -> bool {
    let (ga, gb) = (&a.grid, &b.grid);
    let near = |pa: f64, pb: f64, ea: f64, eb: f64| {
        (pa / pb - 1.0).abs() < 0.03 && (ea - eb).abs() < 0.25 * pa
    };
    a.rows == b.rows
        && a.cols == b.cols
        && near(ga.pitch_x(), gb.pitch_x(), ga.left, gb.left)
        && near(ga.pitch_y(), gb.pitch_y(), ga.top, gb.top)
}

/// The first lattice of `order` that reads as a board beyond doubt (see
/// [`rescued`]); the first `near` may fit by their tiles' majorities and
/// need not read one tile a cell.
fn first_rescue(
    img: &RgbImage,
    opts: &CalibrateOptions,
    order: Vec<&FoundGrid>,
    near: usize,
) -> Option<(super::Reading, Calibration)> {
    let p = &opts.read;
    order.into_iter().enumerate().find_map(|(i, alt)| {
        let (reading, cal) = read_lattice(img, opts, alt)
            .map_err(|e| tracing::debug!("rescue {}x{}: {e}", alt.rows, alt.cols))
            .ok()?;
        // Round a lattice of blobs' pieces is their backdrop.
        let (points, tiles) = footprints(img, &cal, &reading.board, p.reach, alt.from_blobs);
        // The further lattices, tried only because the best was refused,
        // must fit by their points (each lattice tried is a chance to take
        // a pattern for a board).
        let fit = if tiles >= TILES_AGREE && i < near {
            tiles
        } else {
            points
        };
        let (var, edged) = (varied(&reading.board), bounded(img, &cal));
        tracing::debug!(
            "rescue {}x{}: fit {fit:.2} (points {points:.2}, tiles {tiles:.2}), varied {var}, bounded {edged}: {}",
            alt.rows,
            alt.cols,
            reading.board
        );
        // A lattice of blobs holds a tile on every line: one with a line of
        // none reaches past its blobs (over the backdrop to a panel beside
        // the board). Unless it was framed (grown on every side it grew
        // to its board's frame, see `framed`): a collapse board's emptied
        // lines (synthetic sparse seed 7249). A reading trimmed of lines
        // is no such board (dense seed 4272: 4x5 of a 4x6 lattice reaching
        // over a panel beside a 4x3 board).
        let framed = cal.rows >= alt.rows
            && cal.cols >= alt.cols
            && (cal.rows, cal.cols) != (alt.rows, alt.cols);
        let whole = (i < near || one_tile_a_cell(&reading.board, p.repeat_excess))
            && !(alt.from_blobs && !framed && empty_line(&reading.board));
        // A swap or orb-drag board is full: a lattice reading every cell
        // as a tile of its colours is one (gems smaller than their cells,
        // cut in facets, fit their colours a little less at the rim).
        let full = super::family::always_full(&opts.game)
            && reading.board.cells().iter().all(|&v| v <= 9);
        let need = if full { FULL_RESCUE_FIT } else { p.rescue_fit };
        // The further lattices must space their tiles alike both ways (a
        // lattice of Four-in-a-row's holes JPEG'd at 1.33x, its columns
        // 0.39 of their pitch apart and its rows touching, read the blue
        // board as a colour).
        let g = &cal.grid;
        let even = i < near || (g.gap_x / g.pitch_x() - g.gap_y / g.pitch_y()).abs() <= GAPS_ALIKE;
        (fit >= need && var && edged && whole && even).then_some((reading, cal))
    })
}

/// Most difference between a further rescue's gaps, as shares of their
/// pitches, across and down ([`first_rescue`]).
const GAPS_ALIKE: f64 = 0.2;

/// True when lattice `a` is part of lattice `b`: the same pitch (within 2
/// %), its lines on `b`'s (within a tenth of the pitch), fewer lines, all
/// inside `b`'s. [`chosen`] takes such a part when it fits the picture
/// better by [`NESTED_FIT`]: the lines of `b` beyond it fit worse, and
/// they are what was not tiles (synthetic seed 12001: 22x12 over an 18x12
/// board of gems and the score bar's digits above it, fit 0.94; the board
/// alone 1.00).
fn nested(a: &Calibration, b: &Calibration) -> bool {
    let (ga, gb) = (&a.grid, &b.grid);
    let axis = |pa: f64, pb: f64, sa: f64, sb: f64, na: usize, nb: usize| {
        let off = (sa - sb) / pb;
        (pa / pb - 1.0).abs() <= 0.02
            && (off - off.round()).abs() <= 0.1
            && off.round() >= 0.0
            && off.round() as usize + na <= nb
    };
    a.rows * a.cols < b.rows * b.cols
        && axis(ga.pitch_x(), gb.pitch_x(), ga.left, gb.left, a.cols, b.cols)
        && axis(ga.pitch_y(), gb.pitch_y(), ga.top, gb.top, a.rows, b.rows)
}

/// See [`nested`].
const NESTED_FIT: f64 = 0.03;

/// [`chosen`] takes a lattice of this many times the cells of the best
/// one's when it fits better by [`NESTED_FIT`] (synthetic seed 16152: a
/// 3x3 over the header's text, fit 0.94, and the 5x10 board of diamonds
/// below it, 1.00).
const LARGER: usize = 4;

/// True when lattice `a` explains the board better than lattice `b` by
/// holding its tiles one a cell: `a` has more cells, its pitch is no
/// coarser than `b`'s along either axis and finer along one by
/// [`COARSER`] or more (`b` at a multiple of the pitch: each of its cells
/// holds several tiles, read by whichever its centre falls on), and at
/// least half of `a`'s extent lies in `b`'s. (A lattice at the same
/// pitch holding more cells is no such sign: it is as often the board
/// with a row of UI beside it.)
fn finer_cover(a: &Calibration, b: &Calibration) -> bool {
    let (ga, gb) = (&a.grid, &b.grid);
    let (ax, ay) = (ga.pitch_x(), ga.pitch_y());
    let (bx, by) = (gb.pitch_x(), gb.pitch_y());
    if a.rows * a.cols <= b.rows * b.cols || ax > bx * 1.03 || ay > by * 1.03 {
        return false;
    }
    let ra = a.board_rect();
    let rb = b.board_rect();
    if bx < ax * COARSER && by < ay * COARSER {
        return false;
    }
    let ix = (ra.0 + ra.2).min(rb.0 + rb.2) - ra.0.max(rb.0);
    let iy = (ra.1 + ra.3).min(rb.1 + rb.3) - ra.1.max(rb.1);
    ix > 0.0 && iy > 0.0 && 2.0 * ix * iy >= ra.2 * ra.3
}

/// True when the board read looks like one tile a cell along both axes:
/// no row or column all empty (a lattice whose extra lines fall on the
/// gaps between rows of tiles), and along each axis neighbouring tiles
/// are of one colour no more often than chance (the sum of the squared
/// colour frequencies) plus `excess`. A lattice at a fraction of the
/// pitch (2/3, 1/2) reads some tiles twice, in neighbouring cells.
fn one_tile_a_cell(board: &Board, excess: f64) -> bool {
    let (rows, cols) = (board.rows(), board.cols());
    let empty_line = (0..rows).any(|r| (0..cols).all(|c| board.get(r, c) == EMPTY))
        || (0..cols).any(|c| (0..rows).all(|r| board.get(r, c) == EMPTY));
    if empty_line {
        return false;
    }
    let counts = tile_counts(board.cells());
    let tiles: usize = counts.iter().sum();
    if tiles == 0 {
        return false;
    }
    let chance: f64 = counts
        .iter()
        .map(|&n| (n as f64 / tiles as f64).powi(2))
        .sum();
    let repeats = |pairs: &mut dyn Iterator<Item = (u8, u8)>| {
        let (mut same, mut all) = (0usize, 0usize);
        for (a, b) in pairs {
            if a <= 9 && b <= 9 {
                all += 1;
                same += (a == b) as usize;
            }
        }
        all == 0 || (same as f64 / all as f64) <= chance + excess
    };
    let across = &mut (0..rows)
        .flat_map(|r| (1..cols).map(move |c| (r, c)))
        .map(|(r, c)| (board.get(r, c - 1), board.get(r, c)));
    let down = &mut (1..rows)
        .flat_map(|r| (0..cols).map(move |c| (r, c)))
        .map(|(r, c)| (board.get(r - 1, c), board.get(r, c)));
    repeats(across) && repeats(down) && !lines_twice(board, chance)
}

/// True when neighbouring lines of tiles (every cell a tile) are the very
/// same line more often than chance allows: fewer than one board in
/// [`TWICE_ODDS`] dealt at random (each cell's colour drawn with the
/// board's frequencies, so a pair of lines `n` long is the same with
/// `chance^n`) would show as many. A lattice at 2/3 of the row pitch reads
/// every other row of tiles twice and little else: its neighbouring cells
/// repeat no more than a board of three colours does by chance, its
/// neighbouring rows do (synthetic seed 9360: 5 rows of 4 tiles read as
/// 8, three pairs of rows alike).
fn lines_twice(board: &Board, chance: f64) -> bool {
    let (rows, cols) = (board.rows(), board.cols());
    let tile = |r: usize, c: usize| board.get(r, c) <= 9;
    let twice = |lines: usize, len: usize, at: &dyn Fn(usize, usize) -> (usize, usize)| {
        let full = |i: usize| {
            (0..len).all(|j| {
                let (r, c) = at(i, j);
                tile(r, c)
            })
        };
        let (mut pairs, mut same) = (0usize, 0usize);
        for i in 1..lines {
            if full(i - 1) && full(i) {
                pairs += 1;
                same += usize::from((0..len).all(|j| {
                    let (a, b) = (at(i - 1, j), at(i, j));
                    board.get(a.0, a.1) == board.get(b.0, b.1)
                }));
            }
        }
        same >= 2 && binomial_tail(pairs, same, chance.powi(len as i32)) < 1.0 / TWICE_ODDS
    };
    twice(rows, cols, &|i, j| (i, j)) || twice(cols, rows, &|i, j| (j, i))
}

/// See [`lines_twice`].
const TWICE_ODDS: f64 = 1000.0;

/// The chance of `k` or more successes in `n` trials of chance `p`.
fn binomial_tail(n: usize, k: usize, p: f64) -> f64 {
    let mut term = (1.0 - p).powi(n as i32);
    let mut below = 0.0;
    for i in 0..k.min(n + 1) {
        below += term;
        // From P(X = i) to P(X = i + 1).
        term *= (n - i) as f64 / (i + 1) as f64 * p / (1.0 - p).max(f64::MIN_POSITIVE);
    }
    (1.0 - below).max(0.0)
}

/// See [`finer_cover`]: a lattice this much coarser than another along an
/// axis holds several of its tiles per cell.
const COARSER: f64 = 1.4;

/// When the finder's best lattice is refused, this many lattices beyond
/// its near [`alternatives`] are tried too (in the finder's order).
const FURTHER_RESCUES: usize = 4;

/// How far past the picture's edge, as a share of its extent, a lattice
/// found is squeezed onto the picture rather than cut (see [`inside`]).
const EDGE_SQUEEZE: f64 = 0.015;

/// A rescued lattice fits its tiles when nearly every tile (this fraction)
/// agrees with its colour by a majority of its footprint's points, however
/// many points a highlight or a shade on each tile costs ([`footprints`]).
const TILES_AGREE: f64 = 0.98;

/// The fit a rescued lattice needs ([`first_rescue`]) when it reads a
/// full board of a game whose boards are always full
/// (`family::always_full`), instead of [`ReadParams::rescue_fit`]: Gweled
/// scaled to 0.6 fits 0.94, read right.
const FULL_RESCUE_FIT: f64 = 0.9;

/// Tunables of [`read_auto`]'s choice among the finder's lattices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReadParams {
    /// Most lattices tried besides the finder's best.
    pub alternatives: usize,
    /// A lattice is tried when it scores at least this fraction of the
    /// best's.
    pub alternative_score: f64,
    /// ... and its pitch along each axis is within this factor of the
    /// best's (a lattice twice as fine is the finder's to judge: its
    /// halves of one tile read as two tiles of one colour).
    pub alternative_pitch: f64,
    /// The ring of `footprint`, in tile sizes from the tile's centre.
    pub reach: f64,
    /// Another lattice's reading replaces the best's when its footprint
    /// is at least this much higher.
    pub better_fit: f64,
    /// When the best lattice is refused, another is read instead only when
    /// its footprint is at least this (and it passes the checks of
    /// `rescued`).
    pub rescue_fit: f64,
    /// A finer lattice holding more of the board's tiles (see
    /// `finer_cover`) replaces the best when it fits at least
    /// `rescue_fit` and no worse than the best's fit less this.
    pub finer_slack: f64,
    /// ... and its neighbouring tiles are of one colour no more often than
    /// chance plus this (`one_tile_a_cell`).
    pub repeat_excess: f64,
}

impl Default for ReadParams {
    fn default() -> Self {
        ReadParams {
            alternatives: 3,
            alternative_score: 0.5,
            alternative_pitch: 1.7,
            reach: 0.3,
            better_fit: 0.1,
            rescue_fit: 0.95,
            finer_slack: 0.02,
            repeat_excess: 0.2,
        }
    }
}

/// How well the tiles read agree with the colour each was read as, over a
/// wider ring than the reader's: points on a ring at `reach` of the tile's
/// size around each tile cell's centre, each nearest to some palette
/// colour (tile colours and empty); a point nearest the cell's own colour
/// agrees, one within the threshold of another colour (a neighbouring
/// tile, the background) disagrees, others (a symbol, a highlight) do not
/// count. Returns the fraction that agree. A lattice whose cells straddle
/// two tiles (1.5 times the pitch, a pitch a tenth off) reads each cell by
/// its centre, but its wider ring runs into the neighbouring tiles.
fn footprint(img: &RgbImage, cal: &Calibration, board: &Board, reach: f64) -> f64 {
    footprints(img, cal, board, reach, false).0
}

/// [`footprint`], and the fraction of tiles most of whose counted points
/// agree (a highlight or a shade on some tiles costs those tiles only).
/// With `backdrop` (pieces apart on a backdrop: a lattice of blobs), a
/// point showing the colour round its cell's piece ([`cell_backdrop`]) does
/// not count either: the checker under Gweled's gems, dimmed, came within
/// the threshold of a dark gem's colour. (Not for any lattice: one of
/// cells a third as tall as the tiles, its corners on one tile and its
/// centre on the tile's symbol, fitted as a board then.) Nor does a point
/// that most of a colour's tiles disagree at: a symbol drawn on them.
fn footprints(
    img: &RgbImage,
    cal: &Calibration,
    board: &Board,
    reach: f64,
    backdrop: bool,
) -> (f64, f64) {
    const POINTS: usize = 12;
    let g = &cal.grid;
    let pal = &cal.palette;
    let refs = pal.references();
    let (rx, ry) = (reach * g.cell_width, reach * g.cell_height);
    // Per tile: its value and, per point, whether it agrees (`Some(true)`),
    // disagrees (`Some(false)`) or does not count.
    let mut seen: Vec<(u8, [Option<bool>; POINTS])> = Vec::new();
    for r in 0..board.rows() {
        for c in 0..board.cols() {
            let v = board.get(r, c);
            if v > 9 {
                continue;
            }
            let (cx, cy) = cal.cell_centre(Cell { row: r, col: c });
            let round = match backdrop {
                true => cell_backdrop(img, cx, cy, g, pal.threshold),
                false => None,
            };
            let mut points = [None; POINTS];
            for (k, point) in points.iter_mut().enumerate() {
                let a = std::f64::consts::TAU * (k as f64 + 0.5) / POINTS as f64;
                let Some(lab) = lab_at(img, cx + rx * a.cos(), cy + ry * a.sin()) else {
                    continue;
                };
                let nearest = refs
                    .iter()
                    .map(|&(i, l)| (delta_e(lab, l), i))
                    .min_by(|x, y| x.0.total_cmp(&y.0));
                let on_backdrop = round.is_some_and(|b| delta_e(lab, b) <= pal.threshold);
                *point = match nearest {
                    Some((_, i)) if i == v => Some(true),
                    Some((d, _)) if d <= pal.threshold && !on_backdrop => Some(false),
                    _ => None,
                };
            }
            seen.push((v, points));
        }
    }
    // On a lattice of blobs (`backdrop`: each site a piece seen whole), a
    // point where two thirds or more of a colour's tiles (three at least)
    // disagree is drawn on that colour's tiles (a symbol whose strokes
    // come near another colour: circles with symbols on a grey panel,
    // synthetic seed 5014, fitted 0.57): it does not count. A neighbouring
    // tile under a ring that straddles two differs from tile to tile.
    // (Not for any lattice: the board of pieces framed on its backdrop
    // (`read_sparse`) then took Iagno's discs at half size, their dark rims
    // drawn alike, on a lattice two columns short.)
    let mut of_colour = [(0usize, [0usize; POINTS]); 10];
    for (v, points) in &seen {
        let (n, off) = &mut of_colour[*v as usize];
        *n += 1;
        for (k, point) in points.iter().enumerate() {
            off[k] += usize::from(*point == Some(false));
        }
    }
    let drawn = |v: u8, k: usize| {
        let (n, off) = of_colour[v as usize];
        backdrop && n >= DRAWN_TILES && 3 * off[k] >= 2 * n
    };
    let (mut agree, mut disagree) = (0usize, 0usize);
    let (mut tiles_agree, mut tiles) = (0usize, 0usize);
    for (v, points) in &seen {
        let (mut a, mut d) = (0usize, 0usize);
        for (k, point) in points.iter().enumerate() {
            match point {
                Some(true) => a += 1,
                Some(false) if !drawn(*v, k) => d += 1,
                _ => {}
            }
        }
        agree += a;
        disagree += d;
        if a + d > 0 {
            tiles += 1;
            tiles_agree += (a > d) as usize;
        }
    }
    (
        agree as f64 / (agree + disagree).max(1) as f64,
        tiles_agree as f64 / tiles.max(1) as f64,
    )
}

/// See [`footprints`]: the fewest tiles of a colour whose common points of
/// disagreement are drawn on them.
const DRAWN_TILES: usize = 3;

/// What a cell shows round its piece: the colour at its tile's four
/// corners, when they agree (within twice `threshold` of their mean), as
/// a backdrop between pieces smaller than their cells does (a checker's
/// square under a gem). A ring point of that colour is the backdrop, not a
/// neighbour's tile ([`footprints`]).
fn cell_backdrop(img: &RgbImage, cx: f64, cy: f64, g: &Grid, threshold: f32) -> Option<Lab> {
    let (dx, dy) = (CORNER * g.cell_width, CORNER * g.cell_height);
    let corners = [(-dx, -dy), (dx, -dy), (-dx, dy), (dx, dy)]
        .iter()
        .map(|&(x, y)| lab_at(img, cx + x, cy + y))
        .collect::<Option<Vec<Lab>>>()?;
    let mean = mean(&corners);
    corners
        .iter()
        .all(|&l| delta_e(l, mean) <= 2.0 * threshold)
        .then_some(mean)
}

/// Where [`cell_backdrop`] looks: this fraction of the tile's size out
/// from its centre along each axis.
const CORNER: f64 = 0.45;

/// The lattices after the finder's best worth reading too (see
/// [`read_auto`]): scoring at least `alternative_score` of the best, pitches
/// within `alternative_pitch` of the best's, each unlike the best and the
/// ones before it (another size, pitch or placement); then every lattice
/// of equal blobs ([`FoundGrid::from_blobs`]) unlike those.
fn alternatives<'a>(all: &'a [FoundGrid], p: &ReadParams) -> Vec<&'a FoundGrid> {
    let Some(top) = all.first() else {
        return Vec::new();
    };
    let near = |a: f64, b: f64| a <= b * p.alternative_pitch && b <= a * p.alternative_pitch;
    let same = |a: &FoundGrid, b: &FoundGrid| {
        let (ga, gb) = (&a.grid, &b.grid);
        let close = |x: f64, y: f64, pitch: f64| (x - y).abs() <= 0.3 * pitch;
        (a.rows, a.cols) == (b.rows, b.cols)
            && (ga.pitch_x() / gb.pitch_x() - 1.0).abs() <= 0.03
            && (ga.pitch_y() / gb.pitch_y() - 1.0).abs() <= 0.03
            && close(ga.left, gb.left, ga.pitch_x())
            && close(ga.top, gb.top, ga.pitch_y())
    };
    let mut out: Vec<&FoundGrid> = Vec::new();
    for f in &all[1..] {
        if out.len() >= p.alternatives {
            break;
        }
        if f.score >= p.alternative_score * top.score
            && near(f.grid.pitch_x(), top.grid.pitch_x())
            && near(f.grid.pitch_y(), top.grid.pitch_y())
            && !same(f, top)
            && !out.iter().any(|o| same(f, o))
        {
            out.push(f);
        }
    }
    // Lattices of equal blobs are tried whatever their score and pitch:
    // they come from another source than the combs that set the best (a
    // pixel-font bar's comb outscores a board of circles with symbols).
    for f in &all[1..] {
        if f.from_blobs && !same(f, top) && !out.iter().any(|o| same(f, o)) {
            out.push(f);
        }
    }
    out
}

/// Learns and reads lattice `found`, then checks its extent with the
/// palette learned: a lattice that is refused is trimmed of outer lines
/// that hold no tile or only colours seen nowhere else in it (and must then
/// read as a varied board); a lattice that reads is trimmed of outer lines
/// holding tile colours seen nowhere else (text or a bar with a pitch like
/// the board's), when what is left reads as a varied board.
fn read_lattice(
    img: &RgbImage,
    opts: &CalibrateOptions,
    found: &FoundGrid,
) -> Result<(super::Reading, Calibration), VisionError> {
    let found = &*inside(img, found);
    match read_found(img, opts, Some(found.clone())) {
        Ok((reading, cal)) => {
            let values: Vec<u8> = reading.cells.iter().map(|c| c.value).collect();
            if let Some(t) = trimmed(opts, found, &values, false) {
                if let Ok(x) = read_found(img, opts, Some(t)) {
                    return Ok(x);
                }
            }
            Ok((reading, cal))
        }
        Err(e) if e.is_no_board() => {
            let cal = calibrate_on(&[(img, Label::Unknown)], opts, Some(found.clone()))
                .ok()
                .map(|x| x.0);
            // Empty outer lines with the board's frame beyond them: a board
            // being emptied (see `framed`).
            if let Some(x) = cal.as_ref().and_then(|c| read_framed(img, opts, c)) {
                return Ok(x);
            }
            // Pieces on a backdrop, the lattice framed by something else:
            // empty cells anywhere (see `read_on_backdrop`).
            if let Some(x) = cal.as_ref().and_then(|c| read_on_backdrop(img, opts, c)) {
                return Ok(x);
            }
            // The lattice may run one line or two past the board (into the
            // background beside it, or into UI there): its outer lines that
            // hold no tile are dropped and the rest read again.
            let values = cal
                .and_then(|cal| read_cells(img, &cal).ok())
                .map(|cells| cells.iter().map(|c| c.value).collect::<Vec<u8>>());
            let Some(t) = values.and_then(|v| trimmed(opts, found, &v, true)) else {
                return Err(e);
            };
            match read_found(img, opts, Some(t)) {
                Ok(x) if varied(&x.0.board) => Ok(x),
                _ => Err(e),
            }
        }
        Err(e) => Err(e),
    }
}

/// Learns the palette on lattice `found` (or the options' geometry), reads
/// the picture with it and applies the whole-board checks.
pub(super) fn read_found(
    img: &RgbImage,
    opts: &CalibrateOptions,
    found: Option<FoundGrid>,
) -> Result<(super::Reading, Calibration), VisionError> {
    let (cal, _) = calibrate_on(&[(img, Label::Unknown)], opts, found).map_err(|e| match e {
        VisionError::Calibrate(m) => VisionError::NoBoard(m),
        e => e,
    })?;
    let reading = read_board(img, &cal)?;
    let (rows, cols) = (reading.board.rows(), reading.board.cols());
    let sized = opts.hints.rows == Some(rows) && opts.hints.cols == Some(cols);
    let extent = if sized { Seen::Known } else { Seen::Guessed };
    plausible(&reading.board, extent, false)?;
    Ok((reading, cal))
}

/// Where a hole in the board shows the backdrop, it does so across the
/// whole tile: a cell read as empty whose rim (a ring at [`RIM`] of the
/// tile) shows a tile colour of the palette (as a whole, or at
/// [`RIM_SHARE`] of its points) is a piece on a tile whose
/// middle happens to match the backdrop (white discs on the squares of a
/// Reversi board beside a white window), and the board read from it is
/// wrong. Refused when most of two or more such cells do.
fn pieces_read_as_empty(img: &RgbImage, cal: &Calibration, board: &Board) -> Option<String> {
    let empties: Vec<Cell> = (0..board.rows())
        .flat_map(|r| (0..board.cols()).map(move |c| Cell::new(r, c)))
        .filter(|cell| board.get(cell.row, cell.col) == EMPTY)
        .collect();
    if empties.len() < 2 {
        return None;
    }
    let refs = cal.palette.references();
    let on_tiles = empties
        .iter()
        .filter(|&&cell| {
            let tile = |lab: Lab| {
                nearest_reference(&refs, lab)
                    .is_some_and(|(v, d)| v != EMPTY && d <= cal.palette.threshold)
            };
            // The rim as a whole, or a good part of its points: a marker
            // drawn over the middle of a small tile (a white cross on a red
            // diamond, blurred to the light backdrop's pink) covers part of
            // the rim too, and the rim's colour is a mix.
            let points = rim_points(img, cal, cell);
            // A point nearer a tile colour than any other, and well away
            // from the empty colours (a shade of the tile: shading, blur).
            let off_empty = |lab: Lab| {
                nearest_reference(&refs, lab).is_some_and(|(v, _)| v != EMPTY)
                    && cal
                        .palette
                        .empty
                        .iter()
                        .all(|e| delta_e(lab, *e) > 2.0 * cal.palette.threshold)
            };
            let on_tile = points.iter().filter(|&&lab| off_empty(lab)).count();
            let whole = (!points.is_empty()).then(|| robust_centre(&points).0);
            whole.is_some_and(tile)
                || (!points.is_empty() && RIM_SHARE * points.len() as f64 <= on_tile as f64)
        })
        .count();
    (2 * on_tiles > empties.len()).then(|| {
        format!(
            "{on_tiles} of {} cells read as empty show a tile colour round their edge: pieces on tiles, not holes",
            empties.len()
        )
    })
}

/// Whether the cells of colour `bg` (within `near` of it; colours `cells`
/// in reading order) are holes showing it across the whole tile: at least
/// half of them show it on their rim too ([`RIM`]). A light gem on a dark
/// backdrop beside a light window frame (Gweled's white gems) shows the
/// frame's colour in its middle only, and is a piece.
///
/// On a board whose tiles stand apart (gaps of [`HOLE_GAP`] of the pitch
/// or more each way), a hole shows the board's backdrop, the colour
/// between the tiles: half of its cells must show `bg` in the middle of
/// the gaps to their neighbours too. Gweled's white gems at three quarters
/// of the contrast, blurred, came within the empty distance of the
/// window's grey round the board and showed it to the rim of their blob
/// (the gem's own edge), the checker between them dark; Five or More's
/// white balls at 0.6, brightened and blurred, likewise the white window
/// round its dark board.
fn holes_show(img: &RgbImage, cal: &Calibration, cells: &[Lab], bg: Lab, near: f32) -> bool {
    let like: Vec<usize> = (0..cells.len())
        .filter(|&i| delta_e(cells[i], bg) <= near)
        .collect();
    let g = &cal.grid;
    let gapped = g.gap_x >= HOLE_GAP * g.pitch_x() && g.gap_y >= HOLE_GAP * g.pitch_y();
    let shows = |x: f64, y: f64| lab_at(img, x, y).is_some_and(|lab| delta_e(lab, bg) <= near);
    let across_gaps = |cell: Cell| {
        let (cx, cy) = cal.cell_centre(cell);
        let (dx, dy) = (
            (g.cell_width + g.gap_x) / 2.0,
            (g.cell_height + g.gap_y) / 2.0,
        );
        // The gaps to its neighbours on the board.
        let (r, c) = (cell.row, cell.col);
        let within: Vec<(f64, f64)> = [
            (c > 0, (cx - dx, cy)),
            (c + 1 < cal.cols, (cx + dx, cy)),
            (r > 0, (cx, cy - dy)),
            (r + 1 < cal.rows, (cx, cy + dy)),
        ]
        .into_iter()
        .filter_map(|(on, p)| on.then_some(p))
        .collect();
        2 * within.iter().filter(|&&(x, y)| shows(x, y)).count() >= within.len()
    };
    let holes = like
        .iter()
        .filter(|&&i| {
            let cell = Cell::at(i, cal.cols);
            rim_colour(img, cal, cell).is_some_and(|lab| delta_e(lab, bg) <= near)
                && (!gapped || across_gaps(cell))
        })
        .count();
    2 * holes >= like.len()
}

/// Two kinds of piece that the sampling pattern reads as one value and
/// another ring tells apart. Iagno's high-contrast discs: the white ones
/// are light grey inside a dark rim, on white squares; a ring inside reads
/// that grey as the squares' white (dimmed, it came within the empty
/// distance; brightened, it is white), a ring on the rim reads them as
/// the black discs. Among `members` (the cells of one value, read with
/// the chosen pattern), a candidate ring ([`Sampling::RING_RADII`]) on
/// which they show two colours: each cell uniform there and within [`SECOND_SPREAD`] of its
/// part's colour, two cells or more a part, the parts farther apart than
/// the split distance there and under a third of that apart with the
/// pattern (a hover highlight or a dimmed group differs as much on every
/// ring), and not split by the cells' parity (a checkered backdrop). A
/// hole shows the backdrop across its tile: a ring that meets the board
/// round every hole (Four-in-a-row's) shows one colour. The
/// part whose colour there lies farther from the value's own reading is
/// the new kind. Returns the ring with the most cells in the smaller part,
/// the new kind's colour on it, the rest's, and the new kind's places in
/// `members`.
fn two_tones(
    shots: &[(&RgbImage, Option<&Board>)],
    cal: &Calibration,
    members: &[Member],
    p: &CalibrateParams,
) -> Option<(Sampling, Lab, Lab, Vec<usize>)> {
    let size = (cal.window.width, cal.window.height);
    if members.len() < 4 || members.iter().any(|m| shots[m.0].0.dimensions() != size) {
        return None;
    }
    let seen: Vec<Lab> = members.iter().map(|m| m.2.lab).collect();
    let (own, _) = robust_centre(&seen);
    let mut best: Option<(usize, Sampling, Lab, Lab, Vec<usize>)> = None;
    for r in Sampling::RING_RADII {
        let ring = Sampling::ring(r, 12, 15.0);
        if ring == cal.sampling {
            continue;
        }
        let read: Vec<(Lab, f32)> = members
            .iter()
            .map(|m| ring_colour(shots[m.0].0, cal, m.1, &ring))
            .collect();
        if read.iter().any(|x| x.1 > SECOND_SPREAD) {
            continue;
        }
        let labs: Vec<Lab> = read.iter().map(|x| x.0).collect();
        let (c, side) = two_means(&labs);
        let part = |s: usize| -> Vec<usize> { (0..labs.len()).filter(|&k| side[k] == s).collect() };
        let parts = [part(0), part(1)];
        let tight = (0..labs.len()).all(|k| delta_e(labs[k], c[side[k]]) <= SECOND_SPREAD);
        let apart = delta_e(c[0], c[1]);
        let with_pattern = |s: usize| {
            let l: Vec<Lab> = parts[s].iter().map(|&k| seen[k]).collect();
            robust_centre(&l).0
        };
        let least = parts[0].len().min(parts[1].len());
        if least < 2 || !tight || apart <= p.split_distance {
            continue;
        }
        // Each part about one colour all round the ring: the ring lies on
        // a part of the piece drawn plain, not across strokes.
        let plain = parts.iter().all(|part| {
            let mut spreads: Vec<f32> = part.iter().map(|&k| read[k].1).collect();
            median_mut(&mut spreads) <= SECOND_PLAIN
        });
        if !plain {
            continue;
        }
        // Parts split by the cells' parity are a checkered backdrop the
        // ring reaches round the pieces (Gweled's, brightened).
        let parity = |k: usize| (members[k].1.row + members[k].1.col) % 2;
        let by_parity = (0..labs.len()).all(|k| parity(k) == side[k])
            || (0..labs.len()).all(|k| parity(k) != side[k]);
        if by_parity || delta_e(with_pattern(0), with_pattern(1)) * 3.0 >= apart {
            continue;
        }
        let new = usize::from(delta_e(c[1], own) > delta_e(c[0], own));
        if best.as_ref().is_none_or(|b| least > b.0) {
            let at = parts[new].clone();
            best = Some((least, ring, c[new], c[1 - new], at));
        }
    }
    best.map(|b| (b.1, b.2, b.3, b.4))
}

/// Most median spread of the cells of each part of [`two_tones`] on the
/// ring: a ring on a plain part of the pieces is about one colour all
/// round (Iagno's discs: 0 to 1.1, scaled, dimmed or JPEG'd); one across
/// the symbols drawn on tiles is not (Swell Foop's `boringshapes`: 8).
const SECOND_PLAIN: f32 = 4.0;

/// Most spread of a cell's samples on a ring of [`two_tones`], and most
/// distance of a cell there from its part's colour.
const SECOND_SPREAD: f32 = 10.0;

/// See [`holes_show`]: the least gap, as a share of the pitch, at which
/// a hole must show its colour between the tiles too.
const HOLE_GAP: f64 = 0.15;

/// The robust colour of a cell's rim (16 points on a ring at [`RIM`] of the
/// tile), when any of it is in the picture.
fn rim_colour(img: &RgbImage, cal: &Calibration, cell: Cell) -> Option<Lab> {
    let labs = rim_points(img, cal, cell);
    (!labs.is_empty()).then(|| robust_centre(&labs).0)
}

/// The colours of a cell's rim's points ([`rim_colour`]) in the picture.
fn rim_points(img: &RgbImage, cal: &Calibration, cell: Cell) -> Vec<Lab> {
    let (w, h) = (cal.grid.cell_width, cal.grid.cell_height);
    let (cx, cy) = cal.cell_centre(cell);
    Sampling::ring(RIM, 16, 0.0)
        .points
        .iter()
        .filter_map(|p| lab_at(img, cx + p[0] * w, cy + p[1] * h))
        .collect()
}

/// See [`pieces_read_as_empty`]: the share of a rim's points showing a tile
/// colour that says a piece is there.
const RIM_SHARE: f64 = 0.375;

/// The ring, in tile sizes, on which [`pieces_read_as_empty`] looks at the
/// rim of a cell read as empty: inside the tile, outside what is drawn on it.
const RIM: f64 = 0.45;

/// A board that was read only after its lattice was trimmed must look like
/// one more clearly: at least three tile colours, none of them confined to
/// one row or one column (a page of text trimmed to its lines, a menu to
/// its buttons, reads as a few colours in lines) where that is unlikely by
/// chance: `n` cells of a colour all in one of `k` lines happen with odds
/// of about `k^(1-n)` on a board of random tiles, so the confinement counts
/// when `k^(n-1)` is at least [`CONFINED_ODDS`] (three cells of a colour
/// in one column of a 3-column board are chance).
fn varied(board: &Board) -> bool {
    let (rows, cols) = (board.rows(), board.cols());
    let unlikely =
        |lines: usize, n: usize| (lines as f64).powi(n.saturating_sub(1) as i32) >= CONFINED_ODDS;
    let mut colours = 0;
    for v in 0..=9u8 {
        let at: Vec<(usize, usize)> = (0..rows * cols)
            .filter(|&i| board.cells()[i] == v)
            .map(|i| (i / cols, i % cols))
            .collect();
        let Some(&(r, c)) = at.first() else {
            continue;
        };
        colours += 1;
        let n = at.len();
        if n >= 2
            && ((at.iter().all(|p| p.0 == r) && unlikely(rows, n))
                || (at.iter().all(|p| p.1 == c) && unlikely(cols, n)))
        {
            return false;
        }
    }
    colours >= 3
}

/// See `varied`: the odds against chance at which a colour confined to
/// one line says "lines of UI or text, not tiles".
const CONFINED_ODDS: f64 = 20.0;

/// The sides of a lattice an outer block may be trimmed from
/// ([`trimmed`]): each is one more chance to see a colour confined to one.
const SIDES: f64 = 4.0;

/// Lattice `found` without blocks of outer rows and columns (on one side,
/// or up to three lines on each of two sides that meet at a corner) whose
/// tile colours (`values`: each cell's reading with the palette learned on
/// the whole lattice, row-major) are seen nowhere else in it, or (when `bare`)
/// that hold no tile at all, dropped from the outside in while at least
/// `min_cells` lines stay; sizes given as hints are kept. None when no line
/// is dropped.
fn trimmed(
    opts: &CalibrateOptions,
    found: &FoundGrid,
    values: &[u8],
    mut bare: bool,
) -> Option<FoundGrid> {
    let (rows, cols) = (found.rows, found.cols);
    if values.len() != rows * cols {
        return None;
    }
    let value = |r: usize, c: usize| values[r * cols + c];
    // The tile colours (a bit set) of rows r0..r1 and columns c0..c1.
    let colours = |r0: usize, r1: usize, c0: usize, c1: usize| {
        let mut set = 0u16;
        for r in r0..r1 {
            for c in c0..c1 {
                let v = value(r, c);
                if v <= 9 {
                    set |= 1 << v;
                }
            }
        }
        set
    };
    // The tiles (cells read as a tile colour) of rows r0..r1 and columns
    // c0..c1.
    let tiles = |r0: usize, r1: usize, c0: usize, c1: usize| {
        (r0..r1)
            .flat_map(|r| (c0..c1).map(move |c| (r, c)))
            .filter(|&(r, c)| value(r, c) <= 9)
            .count()
    };
    let (mut r0, mut r1, mut c0, mut c1) = (0, rows, 0, cols);
    let min = opts.find.min_cells;
    loop {
        // The fewest outer lines on one side whose tile colours are seen
        // nowhere in the rest of the lattice (none: lines of background
        // or unreadable cells; or a bar, buttons or text beside the board,
        // whose colours the palette learned too).
        let rows_free = opts.hints.rows.is_none() && r1 - r0 > min;
        let cols_free = opts.hints.cols.is_none() && c1 - c0 > min;
        let foreign = |block: u16, rest: u16| block & rest == 0 && (bare || block != 0);
        // A block's tiles whose colours are seen nowhere else, by chance:
        // `n` tiles all in a block of a `share` of the lattice happen with
        // odds of about `share^n` (a 3x4 board's only two cells of a colour
        // in its first column: 1 in 16), on any of four sides. Dropped only
        // when the odds against one side are four times [`CONFINED_ODDS`]
        // or more (a 3x6 board's first column: 1 in 36). (When `bare`, the lattice
        // was refused whole or has lost lines already: what it ran into is
        // cut away as before; but not the tiles of a lattice of blobs,
        // each a tile seen whole and alike: a board's top row with one
        // piece of a colour of its own, refused as mostly empty, lost that
        // row and read a line short, synthetic seed 2282.)
        let area = ((r1 - r0) * (c1 - c0)) as f64;
        let all_tiles = tiles(r0, r1, c0, c1);
        let unlikely = |tiles: usize, cells: usize| {
            (bare && !found.from_blobs)
                || tiles == 0
                || (area / cells as f64).powi(tiles as i32) >= SIDES * CONFINED_ODDS
        };
        let apart = |(a0, a1, b0, b1): (usize, usize, usize, usize),
                     (i0, i1, j0, j1): (usize, usize, usize, usize)| {
            foreign(colours(a0, a1, b0, b1), colours(i0, i1, j0, j1))
                && unlikely(tiles(a0, a1, b0, b1), (a1 - a0) * (b1 - b0))
        };
        let mut cut = None;
        for k in 1..=(r1 - r0).saturating_sub(min) {
            if !rows_free {
                break;
            }
            if apart((r0, r0 + k, c0, c1), (r0 + k, r1, c0, c1)) {
                cut = Some((r0 + k, r1, c0, c1));
            } else if apart((r1 - k, r1, c0, c1), (r0, r1 - k, c0, c1)) {
                cut = Some((r0, r1 - k, c0, c1));
            }
            if cut.is_some() {
                break;
            }
        }
        for k in 1..=(c1 - c0).saturating_sub(min) {
            if !cols_free || cut.is_some() {
                break;
            }
            if apart((r0, r1, c0, c0 + k), (r0, r1, c0 + k, c1)) {
                cut = Some((r0, r1, c0 + k, c1));
            } else if apart((r0, r1, c1 - k, c1), (r0, r1, c0, c1 - k)) {
                cut = Some((r0, r1, c0, c1 - k));
            }
        }
        // Rows on one side and columns on a side next to it whose colours
        // are seen nowhere inside both (a backdrop the lattice ran over
        // round a corner of the board): the fewest lines.
        if cut.is_none() && rows_free && cols_free {
            let mut best = usize::MAX;
            for (top, left) in [(true, true), (true, false), (false, true), (false, false)] {
                for a in 1..=3.min(r1 - r0 - min) {
                    for b in 1..=3.min(c1 - c0 - min) {
                        let (ir0, ir1) = if top { (r0 + a, r1) } else { (r0, r1 - a) };
                        let (ic0, ic1) = if left { (c0 + b, c1) } else { (c0, c1 - b) };
                        let frame = colours(r0, ir0, c0, c1)
                            | colours(ir1, r1, c0, c1)
                            | colours(r0, r1, c0, ic0)
                            | colours(r0, r1, ic1, c1);
                        let inner = (ir1 - ir0) * (ic1 - ic0);
                        let frame_tiles = all_tiles - tiles(ir0, ir1, ic0, ic1);
                        if a + b < best
                            && foreign(frame, colours(ir0, ir1, ic0, ic1))
                            && unlikely(frame_tiles, area as usize - inner)
                        {
                            best = a + b;
                            cut = Some((ir0, ir1, ic0, ic1));
                        }
                    }
                }
            }
        }
        match cut {
            // Lines with no tile beyond a foreign block are part of what
            // the lattice ran into (UI parted from the board by background).
            Some(c) => {
                (r0, r1, c0, c1) = c;
                bare = true;
            }
            None => break,
        }
    }
    if (r0, r1, c0, c1) == (0, rows, 0, cols) {
        return None;
    }
    Some(cropped(found, (r0, r1), (c0, c1)))
}

/// Rows `r0..r1` and columns `c0..c1` of a lattice found.
fn cropped(found: &FoundGrid, (r0, r1): (usize, usize), (c0, c1): (usize, usize)) -> FoundGrid {
    let g = found.grid;
    let grid = Grid {
        left: g.left + c0 as f64 * g.pitch_x(),
        top: g.top + r0 as f64 * g.pitch_y(),
        ..g
    };
    let cols = found.cols;
    let cells = (r0..r1)
        .flat_map(|r| (c0..c1).map(move |c| (r, c)))
        .filter_map(|(r, c)| found.cells.get(r * cols + c).copied())
        .collect();
    FoundGrid {
        rows: r1 - r0,
        cols: c1 - c0,
        grid,
        cells,
        ..found.clone()
    }
}

/// A lattice found cut to the lines whose tiles lie in the picture (a
/// lattice of blobs taken half a pitch off, a line longer each way, may
/// reach past the picture's edge); itself when all do. The tests of the
/// board then judge what is left. A lattice reaching a little past the
/// picture's edges (a board against the window's edge, its pitch measured
/// from its blobs' centres a fraction off: Gweled scaled by 2.5 came out
/// 8 x 120.29 pixels in a picture 960 wide) is first squeezed onto the
/// picture, its far ends kept where they are inside: "a little" is a pixel,
/// or up to [`EDGE_SQUEEZE`] of the lattice's extent (at most a fifth of a
/// pitch), each side.
fn inside<'a>(img: &RgbImage, found: &'a FoundGrid) -> std::borrow::Cow<'a, FoundGrid> {
    let (w, h) = (f64::from(img.width()), f64::from(img.height()));
    // Start, tile size and gap along an axis, squeezed onto the picture
    // when they reach a little past either end: onto 0 and the half pixel
    // past the far end that the calibration's check allows, less what
    // rounding its grid to hundredths may add (a hundredth a tile).
    let fitted = |start: f64, size: f64, gap: f64, n: usize, limit: f64| {
        let pitch = size + gap;
        let end = start + n as f64 * pitch - gap;
        let tol = (EDGE_SQUEEZE * (end - start)).min(0.2 * pitch).max(1.0);
        let lo = if start < 0.0 && -start <= tol {
            0.0
        } else {
            start
        };
        let far = limit + 0.5 - 0.01 * n as f64;
        let hi = if end > far && end - far <= tol {
            far
        } else {
            end
        };
        if (lo, hi) == (start, end) || end <= start {
            return (start, size, gap);
        }
        let k = (hi - lo) / (end - start);
        (lo, size * k, gap * k)
    };
    let g0 = &found.grid;
    let (left, cell_width, gap_x) = fitted(g0.left, g0.cell_width, g0.gap_x, found.cols, w);
    let (top, cell_height, gap_y) = fitted(g0.top, g0.cell_height, g0.gap_y, found.rows, h);
    let g = Grid {
        left,
        top,
        cell_width,
        cell_height,
        gap_x,
        gap_y,
    };
    // The lines k of n whose tile spans [start + k pitch, .. + size] within
    // 0..=limit (with the slack above).
    let within = |start: f64, pitch: f64, size: f64, n: usize, limit: f64| {
        let fits = |k: usize| {
            let a = start + k as f64 * pitch;
            a >= 0.0 && a + size <= limit + 0.5 + 1e-9
        };
        let k0 = (0..n).find(|&k| fits(k)).unwrap_or(n);
        let k1 = (k0..n)
            .take_while(|&k| fits(k))
            .last()
            .map_or(k0, |k| k + 1);
        (k0, k1)
    };
    let rows = within(g.top, g.pitch_y(), g.cell_height, found.rows, h);
    let cols = within(g.left, g.pitch_x(), g.cell_width, found.cols, w);
    let whole = rows == (0, found.rows) && cols == (0, found.cols);
    if rows.0 >= rows.1 || cols.0 >= cols.1 || (whole && g == *g0) {
        return std::borrow::Cow::Borrowed(found);
    }
    let moved = FoundGrid {
        grid: g,
        ..found.clone()
    };
    std::borrow::Cow::Owned(cropped(&moved, rows, cols))
}

/// The calibration grown by the rows and columns just beyond its lattice
/// that read as tiles with its own palette: every cell of the line a
/// palette colour (not empty, not unreadable) and, on lines of 3 cells or
/// more, at least two colours (a bar or a row of buttons of one colour is
/// no board line). With `holes` (a board read with empty cells), a line
/// may hold empty cells too, as long as it holds a tile and no unreadable
/// cell (the caller checks the grown board again: an outer line mostly
/// empty must look like holes). Sizes given as hints are kept; the lattice
/// stays inside the picture and within 25 cells a side. None when nothing
/// was added.
fn extended(
    img: &RgbImage,
    cal: &Calibration,
    opts: &CalibrateOptions,
    growth: Growth,
) -> Option<Calibration> {
    let mut cur = cal.clone();
    let mut grown = false;
    let mut refit = false;
    let mut unfitted = None;
    'grow: loop {
        // (rows, not columns; before, not after)
        for (rows, before) in [(true, true), (true, false), (false, true), (false, false)] {
            if !may_grow(&cur, opts, rows) {
                continue;
            }
            let Some((next, read, cells)) = beyond_read(img, &cur, rows, before) else {
                continue;
            };
            let line: Vec<u8> = read.iter().map(|c| c.value).collect();
            let n_tiles = line.iter().filter(|&&v| v <= 9).count();
            // One cell of a long line may be covered (a popup, the
            // pointer): unread, it does not stop the line.
            let unread = line.iter().filter(|&&v| v == UNKNOWN).count();
            let covered = |n: usize| n <= usize::from(line.len() >= 3);
            let tiles = match growth {
                Growth::Holes => {
                    n_tiles >= 1
                        && covered(unread)
                        && line.iter().all(|&v| v <= 9 || v == EMPTY || v == UNKNOWN)
                }
                Growth::Tiles => covered(unread) && n_tiles + unread == line.len(),
                Growth::Unseen => {
                    // Unread cells of one plain colour are tiles of a
                    // colour the palette has not seen: at least one, and
                    // two colours apart on a line of three or more.
                    let unseen: Vec<Lab> = read
                        .iter()
                        .filter(|c| c.value == UNKNOWN && c.spread <= cur.palette.max_spread)
                        .map(|c| c.lab)
                        .collect();
                    let labs: Vec<Lab> = read
                        .iter()
                        .filter(|c| {
                            c.value <= 9 || c.value == UNKNOWN && c.spread <= cur.palette.max_spread
                        })
                        .map(|c| c.lab)
                        .collect();
                    let apart = labs.iter().any(|a| {
                        labs.iter()
                            .any(|b| delta_e(*a, *b) > opts.params.empty_distance)
                    });
                    !unseen.is_empty()
                        && !line.contains(&EMPTY)
                        && covered(line.len() - labs.len())
                        && (line.len() < 3 || apart)
                }
            };
            // Where the tiles along the board's outer line are parted by a
            // plain background, the new line's are parted by the same (a
            // row of UI squares on a panel of its own is not). Tiles that
            // touch have no gaps to compare.
            let parted = || {
                let gap = if rows {
                    next.grid.gap_x
                } else {
                    next.grid.gap_y
                };
                if gap < 1.0 {
                    return true;
                }
                let n = if rows { next.rows } else { next.cols };
                let (new_k, inner_k) = if before { (0, 1) } else { (n - 1, n - 2) };
                let inner = line_gaps(img, &next, rows, inner_k);
                let new = line_gaps(img, &next, rows, new_k);
                inner.1 > 6.0
                    || (new.1 <= 12.0 && delta_e(new.0, inner.0) <= opts.params.empty_distance)
            };
            // A line of one colour is taken when its tiles look like that
            // colour's tiles inside, corners and symbols alike: the tiles of
            // a board with hardly a gap merge into one blob with their
            // neighbours of the same colour, and the lattice of the others
            // stopped short of them (synthetic seed 9238: the top row of a
            // 5x3 board, three of one colour). A bar of that colour is
            // plain where the tiles are not.
            let varied_or_alike = || {
                tiles_vary(&line)
                    || like_its_tiles(
                        img,
                        (&next, &cells),
                        (rows, before),
                        opts.params.split_distance,
                    )
            };
            if tiles && varied_or_alike() && parted() {
                cur = next;
                grown = true;
                refit = true;
                unfitted = None;
                continue 'grow;
            }
        }
        // A pitch a little off drifts off the tiles as the lattice grows
        // (1% is a tile's fifth over twenty lines): stopped, the lattice
        // is fitted again through the tiles it holds and grows on; kept
        // only when it grows (lines of colours the palette lacks are not
        // fitted through).
        if std::mem::take(&mut refit) && growth != Growth::Unseen {
            if let Some(fitted) = refitted(img, &cur) {
                unfitted = Some(std::mem::replace(&mut cur, fitted));
                continue 'grow;
            }
        }
        if let Some(u) = unfitted.take() {
            cur = u;
        }
        break;
    }
    grown.then_some(cur)
}

/// `cal` fitted again through the tiles it reads ([`fitted_to_tiles`])
/// when that reads no cell less well: `None` when it moves nothing or
/// reads worse.
fn refitted(img: &RgbImage, cal: &Calibration) -> Option<Calibration> {
    let reading = read_board(img, cal).ok()?;
    let fitted = fitted_to_tiles(img, cal, &reading.board);
    if fitted.grid == cal.grid {
        return None;
    }
    let again = read_board(img, &fitted).ok()?;
    let unread = |r: &super::Reading| r.board.cells().iter().filter(|&&v| v == UNKNOWN).count();
    let changed = reading
        .board
        .cells()
        .iter()
        .zip(again.board.cells())
        .any(|(a, b)| a != b && *a != UNKNOWN);
    (unread(&again) <= unread(&reading) && !changed).then_some(fitted)
}

/// True when a line's tiles (values `0..=9`) are fewer than three or of
/// two colours or more: three tiles of one colour in a line beyond a board
/// are more likely a bar or a margin whose colour a tile shares (the
/// window's white round Iagno's white stones) than the board going on.
fn tiles_vary(line: &[u8]) -> bool {
    let mut colours: Vec<u8> = line.iter().copied().filter(|&v| v <= 9).collect();
    let n = colours.len();
    colours.sort_unstable();
    colours.dedup();
    n < 3 || colours.len() >= 2
}

/// What a line beyond a lattice may hold to be taken into it
/// ([`extended`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Growth {
    /// Tiles of the palette and empty cells (at least one tile).
    Holes,
    /// Tiles of the palette only.
    Tiles,
    /// Tiles of the palette and plain cells of colours it lacks (at least
    /// one): the palette is learned again on the grown lattice.
    Unseen,
}

/// True when the lattice may take one more row (when `rows`) or column:
/// the user did not give their number, and it is under the finder's most.
fn may_grow(cal: &Calibration, opts: &CalibrateOptions, rows: bool) -> bool {
    let (given, count) = if rows {
        (opts.hints.rows, cal.rows)
    } else {
        (opts.hints.cols, cal.cols)
    };
    given.is_none() && count < opts.find.max_cells
}

/// The calibration grown by one line just beyond its lattice (a row when
/// `rows`, before the first when `before`, else after the last), that
/// line's readings with the calibration's palette and every cell's (in
/// reading order); None when the line does not fit in the picture.
fn beyond_read(
    img: &RgbImage,
    cal: &Calibration,
    rows: bool,
    before: bool,
) -> Option<(Calibration, Vec<CellReading>, Vec<CellReading>)> {
    let mut next = cal.clone();
    if rows {
        next.rows += 1;
        if before {
            next.grid.top -= next.grid.pitch_y();
        }
    } else {
        next.cols += 1;
        if before {
            next.grid.left -= next.grid.pitch_x();
        }
    }
    next.validate().ok()?;
    let cells = read_cells(img, &next).ok()?;
    let line: Vec<CellReading> = (0..cells.len())
        .filter(|&i| on_new_line(&next, (rows, before), i))
        .map(|i| cells[i])
        .collect();
    Some((next, line, cells))
}

/// Whether cell `i` (in reading order) of `next`, a lattice grown by one
/// line on side (`rows`, `before`) ([`beyond_read`]), lies on that line.
fn on_new_line(next: &Calibration, (rows, before): (bool, bool), i: usize) -> bool {
    let (r, c) = (i / next.cols, i % next.cols);
    match (rows, before) {
        (true, true) => r == 0,
        (true, false) => r == next.rows - 1,
        (false, true) => c == 0,
        (false, false) => c == next.cols - 1,
    }
}

/// True when each tile of the new outer line of `next` (a lattice grown by
/// one line, [`beyond_read`]) looks like the tiles of its colour inside:
/// over [`CELL_GRID`] points across each cell's pitch, the inside tiles of
/// its colour (two or more) agree on a pattern (the median at each point)
/// that departs from its own middle by more than the split distance at
/// [`PATTERN_POINTS`] points or more (corners showing the backdrop, a
/// symbol), and the new tile shows that pattern within the split distance
/// at four in five of those points. Tiles that fill their pitch with one
/// flat colour have no pattern: nothing tells them from a bar.
fn like_its_tiles(
    img: &RgbImage,
    (next, cells): (&Calibration, &[CellReading]),
    side: (bool, bool),
    split: f32,
) -> bool {
    let outer = |i: usize| on_new_line(next, side, i);
    let pitch = (next.grid.pitch_x(), next.grid.pitch_y());
    let at = |k: usize| k as f64 / (CELL_GRID - 1) as f64 - 0.5;
    let points = |i: usize| -> Option<Vec<Lab>> {
        cell_points(img, next, Cell::at(i, next.cols), pitch, at, CELL_GRID).collect()
    };
    let middle = CELL_GRID * CELL_GRID / 2;
    // Each tile colour's pattern inside (the median at each point) and the
    // points where it departs from its middle; None with under two tiles.
    let pattern_of = |v: u8| -> Option<Pattern> {
        let inside: Vec<Vec<Lab>> = (0..cells.len())
            .filter(|&j| !outer(j) && cells[j].value == v)
            .filter_map(points)
            .collect();
        if inside.len() < 2 {
            return None;
        }
        let pattern = medians_at(&inside);
        let marked = (0..pattern.len())
            .filter(|&k| delta_e(pattern[k], pattern[middle]) > split)
            .collect();
        Some((pattern, marked))
    };
    let mut patterns: Vec<(u8, Option<Pattern>)> = Vec::new();
    (0..cells.len()).filter(|&i| outer(i)).all(|i| {
        let v = cells[i].value;
        if v > 9 {
            return true;
        }
        if !patterns.iter().any(|p| p.0 == v) {
            patterns.push((v, pattern_of(v)));
        }
        let Some((_, Some((pattern, marked)))) = patterns.iter().find(|p| p.0 == v) else {
            return false;
        };
        let Some(mine) = points(i) else {
            return false;
        };
        let shown = marked
            .iter()
            .filter(|&&k| delta_e(mine[k], pattern[k]) <= split)
            .count();
        marked.len() >= PATTERN_POINTS && 5 * shown >= 4 * marked.len()
    })
}

/// A tile colour's pattern in [`like_its_tiles`]: the median colour at each
/// point, and the points where it departs from its middle.
type Pattern = (Vec<Lab>, Vec<usize>);

/// See [`like_its_tiles`]: points a side of the grid across a cell.
const CELL_GRID: usize = 5;

/// See [`like_its_tiles`]: the fewest points of a tile colour's pattern
/// that depart from its middle.
const PATTERN_POINTS: usize = 3;

/// [`beyond_read`]'s line as the values read.
fn beyond(
    img: &RgbImage,
    cal: &Calibration,
    rows: bool,
    before: bool,
) -> Option<(Calibration, Vec<u8>)> {
    let (next, line, _) = beyond_read(img, cal, rows, before)?;
    Some((next, line.iter().map(|c| c.value).collect()))
}

/// True when the board's frame is seen just beyond side (`rows`, `before`)
/// of the lattice: at nine in ten places along the side (three a cell), a
/// point 1 to 4 pixels past its outer edge is off the picture or unlike
/// the board's empty colour ([`Emptiness`]). The empty board ends there, at
/// a border (however thin), a bar or the window's edge, not in more of the
/// same background.
fn frame_seen(img: &RgbImage, cal: &Calibration, rows: bool, before: bool, e: Emptiness) -> bool {
    frame_seen_within(img, cal, rows, before, e, 4)
}

/// What the board's empty cells look like to the frame tests: every empty
/// colour of the palette within `limit`, or, when known (`inside`), the
/// board's own empty colour and how near its points lie to it
/// ([`empty_inside`]): a panel a few ΔE off the backdrop ends where it does.
#[derive(Clone, Copy)]
pub(super) struct Emptiness {
    pub(super) limit: f32,
    pub(super) inside: Option<(Lab, f32)>,
    /// How near a point must lie to the board's own empty colour on a
    /// surface as flat as its empty cells show ([`empty_noise`]), when
    /// nearer than `inside`'s: where no point up to the reach is unlike
    /// it by `inside`, the frame is looked for again by this (a panel
    /// under [`EMPTY_NOISE`] off the backdrop round it).
    pub(super) tight: Option<f32>,
    /// The median ΔE of the points of the board's empty cells from their
    /// colour ([`grain`]), when `inside` is known.
    pub(super) grain: Option<f32>,
}

impl Emptiness {
    /// The emptiness of `cal`'s board in `img`: its own empty colour when
    /// it shows three empty cells or more ([`empty_inside`]); no grain.
    pub(super) fn of(img: &RgbImage, cal: &Calibration, limit: f32) -> Emptiness {
        Self::measured(img, cal, limit, false)
    }

    /// [`Emptiness::of`] with the [`grain`] of the board's empty cells.
    fn grained(img: &RgbImage, cal: &Calibration, limit: f32) -> Emptiness {
        Self::measured(img, cal, limit, true)
    }

    fn measured(img: &RgbImage, cal: &Calibration, limit: f32, grained: bool) -> Emptiness {
        let empty = empty_cells(img, cal);
        let inside = empty_inside(&empty, limit);
        let grain = |(e, _): (Lab, f32)| {
            let cells: Vec<Cell> = empty.iter().map(|e| e.0).collect();
            grain(img, cal, &cells, e)
        };
        Emptiness {
            limit,
            inside,
            tight: inside.and_then(|i| empty_noise(img, cal, &empty, i)),
            grain: inside.filter(|_| grained).and_then(grain),
        }
    }

    /// The board's empty colour: its own when measured, else the palette's
    /// first.
    fn colour(&self, cal: &Calibration) -> Option<Lab> {
        self.inside
            .map(|i| i.0)
            .or_else(|| cal.palette.empty.first().copied())
    }

    /// True when `lab` is unlike the board's empty cells (by the `tight`
    /// nearness when asked and known).
    fn unlike(&self, cal: &Calibration, lab: Lab, tight: bool) -> bool {
        match self.inside {
            Some((e, near)) => {
                let near = if tight {
                    self.tight.unwrap_or(near)
                } else {
                    near
                };
                delta_e(lab, e) > near
            }
            None => cal
                .palette
                .empty
                .iter()
                .all(|&e| delta_e(lab, e) > self.limit),
        }
    }
}

/// The cells of `cal` read as empty in `img`, with their colours (none when
/// the lattice cannot be read).
fn empty_cells(img: &RgbImage, cal: &Calibration) -> Vec<(Cell, Lab)> {
    read_cells(img, cal)
        .map(|cells| {
            (0..cal.rows * cal.cols)
                .filter(|&i| cells[i].value == EMPTY)
                .map(|i| (Cell::new(i / cal.cols, i % cal.cols), cells[i].lab))
                .collect()
        })
        .unwrap_or_default()
}

/// [`frame_seen_within`] up to nine tenths of a pitch past the edge: a
/// margin too thin to hold another line, then the board's border.
pub(super) fn frame_within_a_line(
    img: &RgbImage,
    cal: &Calibration,
    rows: bool,
    before: bool,
    e: Emptiness,
) -> bool {
    let g = &cal.grid;
    let pitch = if rows { g.pitch_y() } else { g.pitch_x() };
    let reach = (0.9 * pitch).max(4.0) as usize;
    frame_seen_within(img, cal, rows, before, e, reach)
}

/// [`frame_seen`] with the points up to `reach` pixels past the edge.
fn frame_seen_within(
    img: &RgbImage,
    cal: &Calibration,
    rows: bool,
    before: bool,
    e: Emptiness,
    reach: usize,
) -> bool {
    let found = frame_distances(img, cal, rows, before, e, reach);
    let framed = found.iter().filter(|d| d.is_some()).count();
    !found.is_empty() && 10 * framed >= 9 * found.len()
}

/// For each of three points a cell along side (`rows`, `before`) of the
/// lattice, how many pixels past the tiles' outer edge the first point
/// off the picture or unlike the board's empty colour lies (1 to
/// `reach`) and whether it is on the picture; None where every point up to
/// `reach` looks empty.
fn frame_distances(
    img: &RgbImage,
    cal: &Calibration,
    rows: bool,
    before: bool,
    e: Emptiness,
    reach: usize,
) -> Vec<Option<(usize, bool)>> {
    let g = &cal.grid;
    let along = if rows { cal.cols } else { cal.rows };
    let (edge, out) = match (rows, before) {
        (true, true) => (g.top - g.gap_y / 2.0, -1.0),
        (true, false) => (g.top + cal.rows as f64 * g.pitch_y() - g.gap_y / 2.0, 1.0),
        (false, true) => (g.left - g.gap_x / 2.0, -1.0),
        (false, false) => (g.left + cal.cols as f64 * g.pitch_x() - g.gap_x / 2.0, 1.0),
    };
    let pitch = if rows { g.pitch_y() } else { g.pitch_x() };
    let halo = (pitch * HALO_SHARE).max(2.0) as usize;
    let empty = e.colour(cal);
    let mut found = Vec::with_capacity(3 * along);
    let mut lines = Vec::with_capacity(3 * along);
    for i in 0..along {
        for t in [0.25, 0.5, 0.75] {
            let at = |d: f64| {
                let e = edge + out * d;
                if rows {
                    (g.left + (i as f64 + t) * g.pitch_x(), e)
                } else {
                    (e, g.top + (i as f64 + t) * g.pitch_y())
                }
            };
            let lab_past = |d: f64| {
                let (x, y) = at(d);
                lab_at(img, x, y)
            };
            let lab_d = |d: usize| lab_past(d as f64);
            let unlike_at = |d: usize, tight: bool| lab_d(d).map(|lab| e.unlike(cal, lab, tight));
            // The outer cell's colour, half a pitch inside the edge: the
            // blur of a tile there spills past the edge as a blend of it
            // and the empty colour, no frame.
            let tile = lab_past(-0.5 * pitch);
            let first = |tight: bool| {
                (1..=reach).find_map(|d| match unlike_at(d, tight) {
                    None => Some((d, false)),
                    Some(true) if d <= halo && blend_of(lab_d(d), tile, empty) => None,
                    Some(u) => u.then_some((d, true)),
                })
            };
            let hit = first(false)
                .map(|f| (f, false))
                .or_else(|| e.tight.and_then(|_| first(true).map(|f| (f, true))));
            lines.push(match hit {
                Some(((d, true), tight)) => line_goes_on(d, pitch, |d| unlike_at(d, tight), lab_d),
                _ => None,
            });
            found.push(hit.map(|h| h.0));
        }
    }
    // Lines between cells are straight: the same two lines at nearly every
    // point of the side (grain on a backdrop makes some at random).
    let seen: Vec<(usize, usize)> = lines.iter().flatten().copied().collect();
    if 10 * seen.len() >= 9 * found.len() {
        let median = |mut v: Vec<usize>| {
            v.sort_unstable();
            v[v.len() / 2]
        };
        let first = median(seen.iter().map(|l| l.0).collect());
        let next = median(seen.iter().map(|l| l.1).collect());
        let straight = seen
            .iter()
            .filter(|l| l.0.abs_diff(first) <= 1 && l.1.abs_diff(next) <= 2)
            .count();
        if 10 * straight >= 9 * found.len() {
            found.iter_mut().for_each(|f| *f = None);
        }
    }
    found
}

/// Share of a pitch past a side within which a blend of the outer tile and
/// the empty colour is the tile's blur ([`blend_of`]), not a frame.
const HALO_SHARE: f64 = 0.1;

/// True when `p` lies on the way from the empty colour `empty` to a tile's
/// colour `tile` (projected between a twentieth of the way and the tile,
/// within [`HALO_OFF`] of the line), the tile being unlike the empty colour
/// by twice that: the blur of a tile past its edge (a collapse board's full
/// last column blurred by scaling, its frame taken a pixel past it, an
/// empty column beyond it lost: Swell Foop at 0.6 and blurred read 10x14).
fn blend_of(p: Option<Lab>, tile: Option<Lab>, empty: Option<Lab>) -> bool {
    let (Some(p), Some(t), Some(e)) = (p, tile, empty) else {
        return false;
    };
    let len = delta_e(t, e);
    if len < 2.0 * HALO_OFF {
        return false;
    }
    // Not `colour::along`: its rounding differs in the last bit, and one
    // synthetic case (sparse 7313, a framed board) turns on it.
    let axis = [t[0] - e[0], t[1] - e[1], t[2] - e[2]];
    let way = (0..3).map(|i| (p[i] - e[i]) * axis[i]).sum::<f32>() / (len * len);
    let foot = [
        e[0] + way * axis[0],
        e[1] + way * axis[1],
        e[2] + way * axis[2],
    ];
    (0.05..=1.0).contains(&way) && delta_e(p, foot) <= HALO_OFF
}

/// Farthest a blur's colour lies from the line between a tile's colour and
/// the empty one ([`blend_of`]).
const HALO_OFF: f32 = 6.0;

/// Where the line unlike the empty cells met `d` pixels past a side
/// (`unlike(d)`: None off the picture; `lab(d)` its colour) and the next
/// one are, when they look like lines between cells of a grid going on
/// past the lattice, not the board's frame: the empty colour comes back
/// within a third of a `pitch` and another line of the same colour follows
/// a pitch from the first (a lattice over part of a board drawn with grid
/// lines, Five or More blurred: its frame was taken at the first line past
/// it). Not the window's edge a pitch beyond a board's black frame (Iagno).
fn line_goes_on(
    d: usize,
    pitch: f64,
    unlike: impl Fn(usize) -> Option<bool>,
    lab: impl Fn(usize) -> Option<Lab>,
) -> Option<(usize, usize)> {
    let thin = d + (pitch / 3.0).max(2.0) as usize;
    let back = (d + 1..=thin).find(|&x| unlike(x) == Some(false))?;
    let slack = (0.15 * pitch).max(2.0);
    let (lo, hi) = (
        (d as f64 + pitch - slack).max(back as f64 + 1.0),
        d as f64 + pitch + slack,
    );
    let next = (back + 1..=hi as usize).find(|&x| unlike(x) != Some(false))?;
    // The next line: as wide as the first (what follows it is not looked
    // at: the board's frame may come right after its last line).
    let end = next + (back - d).max(1);
    // Each line's colour where it stands out most from the empty colour
    // between them (a blurred line's edges are blends).
    let empty = lab(back)?;
    let core = |from: usize, to: usize| {
        (from..to)
            .filter_map(&lab)
            .max_by(|a, b| delta_e(*a, empty).total_cmp(&delta_e(*b, empty)))
    };
    let alike = match (core(d, back), core(next, end)) {
        (Some(a), Some(b)) => delta_e(a, b) <= LINE_ALIKE,
        _ => false,
    };
    (next as f64 >= lo && unlike(next) == Some(true) && alike).then_some((d, next))
}

/// Largest ΔE between two lines of one grid ([`line_goes_on`]).
const LINE_ALIKE: f32 = 15.0;

/// True when the board's frame is seen on all four sides of the lattice
/// within a line ([`frame_within_a_line`]'s reach), on the picture (its
/// edge is no frame: a coarse lattice over the whole screen), at one margin: the
/// median distance to it on each side within [`MARGIN_SLACK`] of a pitch
/// (at least 3 pixels) of every other side's. A panel drawn round a board
/// keeps the same margin all round; a lattice one line short of its board
/// (an empty last row taken for the margin) sees a pitch more on that side.
fn even_margins(img: &RgbImage, cal: &Calibration, e: Emptiness) -> bool {
    let g = &cal.grid;
    let pitch = g.pitch_x().min(g.pitch_y());
    let reach = (0.9 * g.pitch_x().max(g.pitch_y())).max(4.0) as usize;
    let mut medians = Vec::with_capacity(4);
    for (rows, before) in [(true, true), (true, false), (false, true), (false, false)] {
        let found = frame_distances(img, cal, rows, before, e, reach);
        let mut d: Vec<f32> = found
            .iter()
            .flatten()
            .filter(|f| f.1)
            .map(|&(d, _)| d as f32)
            .collect();
        if d.is_empty() || 10 * d.len() < 9 * found.len() {
            return false;
        }
        medians.push(median_mut(&mut d) as f64);
    }
    let (lo, hi) = medians
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &m| (lo.min(m), hi.max(m)));
    tracing::debug!("margins {medians:?}");
    hi - lo <= (MARGIN_SLACK * pitch).max(3.0)
}

/// How far apart (in pitches) the margins of [`even_margins`] may be.
const MARGIN_SLACK: f64 = 0.15;

/// A lattice whose outer lines are mostly empty, grown over lines that read
/// as tiles and empty cells until the board's frame is seen on all four
/// sides ([`frame_seen`], with no tile in the line beyond), or, where the
/// line beyond does not fit or does not read as tiles and background, until
/// the frame is seen less than a line away (a margin too thin to hold
/// another line); `None` when a side meets anything else first (an
/// unreadable cell, the picture's edge with no frame). A collapse board
/// mid-game has empty rows on top and columns on the right, and its stacks
/// of tiles alone do not tell where it ends; its empty background does,
/// when something else borders it.
///
/// With `held`, a side whose outer line is not mostly empty is taken as
/// the board's edge as it is (a board on a wide backdrop: Klickety's
/// columns on a black area wider than the board, its top row mostly
/// empty below the toolbar); only the mostly empty sides need their frame.
fn framed(
    img: &RgbImage,
    cal: &Calibration,
    opts: &CalibrateOptions,
    held: bool,
) -> Option<Calibration> {
    if cal.palette.empty.is_empty() {
        return None;
    }
    let limit = opts.params.empty_distance;
    // The board's empty cells show its own background (a panel): lines
    // added to it must show that colour, not merely one near it, and its
    // frame is where that colour ends. A collapse game's emptied area is
    // flat all over: there a line must show it at four fifths of its
    // points and may hold a popup.
    let collapse = super::family::collapses(&opts.game);
    let mut look = Emptiness::grained(img, cal, limit);
    if !bare_lines_empty(img, cal, look)? {
        return None;
    }
    let mut cur = cal.clone();
    // The outer line's empty cells and tiles.
    let outer = |cur: &Calibration, rows: bool, before: bool| -> Option<(usize, usize)> {
        let cells = read_cells(img, cur).ok()?;
        let (n, along) = if rows {
            (cur.rows, cur.cols)
        } else {
            (cur.cols, cur.rows)
        };
        let k = if before { 0 } else { n - 1 };
        let line: Vec<u8> = (0..along)
            .map(|i| cells[if rows { k * along + i } else { i * n + k }].value)
            .collect();
        let count = |f: fn(u8) -> bool| line.iter().filter(|&&v| f(v)).count();
        Some((count(|v| v == EMPTY), count(|v| v <= 9)))
    };
    // One side grown until its frame is seen: Some(true) when it is,
    // Some(false) when the side fails for now, None when the board is
    // refused; `grew` set when a line was added.
    let mut side = |rows: bool, before: bool, grew: &mut bool| -> Option<bool> {
        if held {
            let (empty, tiles) = outer(&cur, rows, before)?;
            let along = if rows { cur.cols } else { cur.rows };
            if 2 * empty <= along {
                // Held as it is: the backdrop goes on beyond it, a line
                // of background or of UI, no tile there (or no room for a
                // line). (Klickety on a phone's screen: a full bottom row,
                // the status bar and the screen's edge below it read as
                // unread cells; the board's end is seen.)
                match beyond(img, &cur, rows, before) {
                    Some((_, line)) if line.iter().any(|&v| v <= 9) => return None,
                    _ => return Some(true),
                }
            }
            // A mostly empty line is the board's when a stack of tiles
            // reaches it (and its frame is seen where it is, below).
            if tiles == 0 {
                return None;
            }
        }
        loop {
            // The line beyond, when it fits: tiles there mean the board
            // goes on (a tile's edge is no frame).
            let next = beyond(img, &cur, rows, before);
            let tiles = next
                .as_ref()
                .is_some_and(|(_, line)| line.iter().any(|&v| v <= 9) && tiles_vary(line));
            if !tiles && frame_seen(img, &cur, rows, before, look) {
                break;
            }
            // No room for the line beyond, or it reads as something else
            // than tiles and background (UI): the board ends here when
            // that something is less than a line away (a margin of
            // background too thin to hold another line, then its border).
            // A line of empty cells only is the board's when each cell
            // shows one empty colour all over (a margin of the board's
            // panel with the backdrop beyond is no line). On a collapse
            // board one cell of the line may be unread: a popup over its
            // emptied area (the board's checks allow two, apart), unless
            // the frame is seen less than a line away. In a line of no
            // tile, a cell read as empty must show the board's empty colour
            // all over; one that does not counts as unread (a dark marker
            // the palette takes for the backdrop).
            let unread = next.as_ref().map_or(0, |(next, line)| {
                let odd = if line.iter().any(|&v| v <= 9) {
                    0
                } else {
                    outer_cells(next, rows, before)
                        .zip(line)
                        .filter(|(_, &v)| v == EMPTY)
                        .filter(|(cell, _)| !empty_throughout(img, next, *cell, look, collapse))
                        .count()
                };
                odd + line.iter().filter(|&&v| v != EMPTY && v > 9).count()
            });
            let grows = next.as_ref().is_some_and(|(_, line)| {
                unread == 0 || (collapse && look.inside.is_some() && unread == 1 && line.len() >= 4)
            });
            if !tiles
                && (!grows || unread > 0)
                && frame_within_a_line(img, &cur, rows, before, look)
            {
                break;
            }
            // Held: a mostly empty side shows its frame where it is.
            if held {
                return None;
            }
            if !may_grow(&cur, opts, rows) || !grows {
                return Some(false);
            }
            let (next, _) = next?;
            cur = next;
            *grew = true;
            // Under three empty cells the board's own empty colour was
            // not known: it is as soon as lines of them are added.
            if look.inside.is_none() {
                look = Emptiness::grained(img, &cur, limit);
            }
        }
        Some(true)
    };
    // A side that fails is tried again once the others have grown (a line
    // three cells long may not hold a popup, the same line grown to the
    // board's width may): the board is refused when a round grows nothing.
    let mut sides = vec![(true, true), (true, false), (false, true), (false, false)];
    while !sides.is_empty() {
        let mut grew = false;
        let mut failed = Vec::new();
        for &(rows, before) in &sides {
            if !side(rows, before, &mut grew)? {
                failed.push((rows, before));
            }
        }
        if failed.len() == sides.len() && !grew {
            return None;
        }
        sides = failed;
    }
    let look = Emptiness::grained(img, &cur, limit);
    for rows in [false, true] {
        if let Some(fitted) = fitted_to_frame(img, &cur, rows, look, opts) {
            cur = fitted;
        }
    }
    Some(cur)
}

/// Whether the outer lines of lattice `cal` that hold no tile (from each
/// side in, up to the first line holding one) show the board's empty
/// colour over most of each cell read as empty ([`empty_throughout`], not
/// strict: a popup may lie over part of a cell), as a line [`framed`]
/// grows by must: a lattice found over a board and the header's text
/// above it reads the text's lines as empty cells (synthetic seed 13096:
/// 8x6 for 6x6; 4028: 3x12 for 3x4, now refused). Lines inside hold
/// scattered pieces' neighbours, blurred into them (sparse seed 7331).
/// `None` when the cells cannot be read.
fn bare_lines_empty(img: &RgbImage, cal: &Calibration, look: Emptiness) -> Option<bool> {
    let cells = read_cells(img, cal).ok()?;
    let (rows, cols) = (cal.rows, cal.cols);
    let value = |r: usize, c: usize| cells[r * cols + c].value;
    let bare_row = |r: usize| (0..cols).all(|c| value(r, c) > 9);
    let bare_col = |c: usize| (0..rows).all(|r| value(r, c) > 9);
    // The bare lines from each side in, up to the first holding a tile.
    let top = (0..rows).take_while(|&r| bare_row(r)).count();
    let bottom = (0..rows).rev().take_while(|&r| bare_row(r)).count();
    let left = (0..cols).take_while(|&c| bare_col(c)).count();
    let right = (0..cols).rev().take_while(|&c| bare_col(c)).count();
    let outer = |r: usize, c: usize| r < top || r + bottom >= rows || c < left || c + right >= cols;
    Some((0..rows * cols).all(|i| {
        let (r, c) = (i / cols, i % cols);
        value(r, c) != EMPTY
            || !outer(r, c)
            || empty_throughout(img, cal, Cell::new(r, c), look, false)
    }))
}

/// Most a lattice's pitch may change to fill its frame ([`fitted_to_frame`]).
const FRAME_FIT: f64 = 0.03;

/// How far from a whole number of lines the frame's extent may be, in
/// lines ([`fitted_to_frame`]).
const WHOLE: f64 = 0.25;

/// The larger margin [`fitted_to_frame`] allows on the side the lattice
/// is flush with, in pitches.
const FLUSH: f64 = 0.15;

/// `cal` with its lines along one axis (rows when `rows`) fitted to its
/// frame, when a margin of the board's empty colour is left between them
/// and the frame: the frame's extent (where it is first seen past each
/// side, [`frame_seen_within`]) divided into the nearest whole number of
/// lines, the pitch changing by at most [`FRAME_FIT`]. Taken when the
/// margins add up to a third of a pitch or more, one of them is under
/// [`FLUSH`] of a pitch, the frame is then seen
/// within 4 pixels of both sides, and every tile reads as before in its
/// place (the lines are counted from the side with the smaller margin,
/// where a collapse board's tiles settle) with any new line empty. A
/// lattice grown from a few tiles carries their pitch error over every
/// empty line it grows by: Swell Foop's normal board at 0.6 (7 tiles in a
/// corner, 30.42 pixels for 30) stopped a column short of its frame.
fn fitted_to_frame(
    img: &RgbImage,
    cal: &Calibration,
    rows: bool,
    look: Emptiness,
    opts: &CalibrateOptions,
) -> Option<Calibration> {
    let g = &cal.grid;
    let (pitch, n) = if rows {
        (g.pitch_y(), cal.rows)
    } else {
        (g.pitch_x(), cal.cols)
    };
    let reach = pitch.ceil() as usize;
    let margin =
        |before: bool| (1..=reach).find(|&r| frame_seen_within(img, cal, rows, before, look, r));
    let (a, b) = (margin(true)?, margin(false)?);
    let (a, b) = (a as f64 - 1.0, b as f64 - 1.0);
    // Flush with the frame on one side: the lattice was grown from there
    // (margins on both sides are a panel's, round a board that ends where
    // its lattice does: synthetic sparse 7024).
    if a + b < pitch / 3.0 || a.min(b) > FLUSH * pitch {
        return None;
    }
    let (start, gap) = if rows {
        (g.top, g.gap_y)
    } else {
        (g.left, g.gap_x)
    };
    let extent = n as f64 * pitch - gap + a + b;
    // The extent must hold a whole number of lines near enough to say
    // which (15.55 lines of a pitch 4 % short is neither 15 nor 16).
    let lines = extent / pitch;
    if (lines - lines.round()).abs() > WHOLE {
        return None;
    }
    let count = lines.round() as usize;
    let fitted = (extent + gap) / count as f64;
    if count < n || count > n + 1 || (fitted / pitch - 1.0).abs() > FRAME_FIT {
        return None;
    }
    let given = if rows {
        opts.hints.rows
    } else {
        opts.hints.cols
    };
    if count > n && (given.is_some() || count > opts.find.max_cells) {
        return None;
    }
    let k = fitted / pitch;
    let mut next = cal.clone();
    let first = start - a;
    if rows {
        next.rows = count;
        next.grid.top = first;
        next.grid.cell_height = g.cell_height * k;
        next.grid.gap_y = g.gap_y * k;
    } else {
        next.cols = count;
        next.grid.left = first;
        next.grid.cell_width = g.cell_width * k;
        next.grid.gap_x = g.gap_x * k;
    }
    next.validate().ok()?;
    // Lines counted from the side with the smaller margin.
    let shift = if a <= b { 0 } else { count - n };
    let old = read_board(img, cal).ok()?;
    let new = read_board(img, &next).ok()?;
    let (ob, nb) = (&old.board, &new.board);
    for r in 0..nb.rows() {
        for c in 0..nb.cols() {
            let (or, oc) = if rows {
                (r.checked_sub(shift), Some(c))
            } else {
                (Some(r), c.checked_sub(shift))
            };
            let was = match (or, oc) {
                (Some(or), Some(oc)) if or < ob.rows() && oc < ob.cols() => ob.get(or, oc),
                _ => EMPTY,
            };
            if nb.get(r, c) != was {
                return None;
            }
        }
    }
    [true, false]
        .into_iter()
        .all(|before| frame_seen(img, &next, rows, before, look))
        .then_some(next)
}

/// The colour the board's own empty cells show (`labs`, their colours),
/// and how near a point of an empty cell lies to it: three times the cells'
/// median departure from it plus [`EMPTY_NOISE`], within `limit`. None
/// under three empty cells.
/// A panel a few ΔE off the backdrop round it (under the empty distance)
/// still ends where the backdrop starts.
fn empty_inside(empty: &[(Cell, Lab)], limit: f32) -> Option<(Lab, f32)> {
    if empty.len() < 3 {
        return None;
    }
    let labs: Vec<Lab> = empty.iter().map(|e| e.1).collect();
    let centre = median_lab(&labs);
    let mut d: Vec<f32> = labs.iter().map(|l| delta_e(*l, centre)).collect();
    let near = (3.0 * median_mut(&mut d) + EMPTY_NOISE).min(limit);
    Some((centre, near))
}

/// [`empty_inside`]'s nearness with the noise the board's empty cells
/// show in place of [`EMPTY_NOISE`]: [`NOISE_FACTOR`] times the 90th
/// percentile of their points' ΔE from their colour ([`departures`]), at
/// least [`NOISE_MIN`]; None when that is no nearer.
fn empty_noise(
    img: &RgbImage,
    cal: &Calibration,
    empty: &[(Cell, Lab)],
    (centre, near): (Lab, f32),
) -> Option<f32> {
    let mut points: Vec<f32> = empty
        .iter()
        .flat_map(|e| departures(img, cal, e.0, centre))
        .flatten()
        .collect();
    if points.is_empty() {
        return None;
    }
    let k = points.len() * 9 / 10;
    let p90 = *points.select_nth_unstable_by(k, f32::total_cmp).1;
    let noise = (NOISE_FACTOR * p90).max(NOISE_MIN);
    (noise < EMPTY_NOISE).then_some(near - EMPTY_NOISE + noise)
}

/// See [`empty_noise`].
const NOISE_FACTOR: f32 = 2.0;
const NOISE_MIN: f32 = 2.5;

/// ΔE a single pixel of a flat empty cell may lie off its cell's colour
/// (JPEG, blur, texture) in [`empty_inside`].
const EMPTY_NOISE: f32 = 6.0;

/// The cells of the outer line of `cal` (a row when `rows`; the first
/// when `before`, else the last).
fn outer_cells(cal: &Calibration, rows: bool, before: bool) -> impl Iterator<Item = Cell> {
    let (n, along) = if rows {
        (cal.rows, cal.cols)
    } else {
        (cal.cols, cal.rows)
    };
    let k = if before { 0 } else { n - 1 };
    (0..along).map(move |i| {
        if rows {
            Cell::new(k, i)
        } else {
            Cell::new(i, k)
        }
    })
}

/// True when cell `cell` of `cal` shows one of the palette's empty colours
/// over most of it: of 5x5 points across nine tenths of its pitch, more
/// than half within `limit` of the empty colour nearest its centre. A line
/// of a board's empty cells shows it all over, a line laid over the
/// board's margin (0.4 of a pitch on the synthetic panels) and what lies
/// beyond shows it in two fifths at most; a lattice whose pitch is a
/// twentieth off (Four-in-a-row's 74 pixels measured as 78) sees its
/// seventh column three fifths on the board.
///
/// `look.inside`: the board's own empty colour and how near a point must
/// lie to it ([`empty_inside`]), in place of the palette's nearest empty
/// colour and `look.limit`; with it and `strict` (a collapse board, whose emptied area is
/// flat) four fifths of the points must: a lattice a fiftieth off in
/// pitch, grown ten lines past its tiles, sees a line over the margin more
/// than half inside. (Not for every game: Four-in-a-row's lattice, 78
/// pixels for 74, sees its seventh column three fifths on the board.)
///
/// With `look.grain` (and `inside`), the cell's points may lie no farther
/// from the empty colour, at their median, than [`GRAIN_FACTOR`] times the
/// board's empty cells' points plus [`GRAIN_SLACK`]: a textured backdrop
/// round a flat panel of nearly its colour is no line of the board
/// (synthetic sparse seeds 7232, 7292, 7432: boards grown a line past
/// their panel).
fn empty_throughout(
    img: &RgbImage,
    cal: &Calibration,
    cell: Cell,
    look: Emptiness,
    strict: bool,
) -> bool {
    let (cx, cy) = cal.cell_centre(cell);
    let Some(centre) = lab_at(img, cx, cy) else {
        return false;
    };
    let nearest = cal
        .palette
        .empty
        .iter()
        .min_by(|a, b| delta_e(**a, centre).total_cmp(&delta_e(**b, centre)))
        .map(|&e| (e, look.limit));
    let Some((empty, limit)) = look.inside.or(nearest) else {
        return false;
    };
    // The line's empty cells show the board's surface, not another of its
    // colour: no grainier than the board's own empty cells (a textured
    // backdrop round a flat panel of the same colour).
    if let (Some(g), true) = (look.grain, look.inside.is_some()) {
        if grain(img, cal, &[cell], empty).is_none_or(|d| d > GRAIN_FACTOR * g + GRAIN_SLACK) {
            return false;
        }
    }
    let n = empty_points(img, cal, cell, empty, limit);
    if strict && look.inside.is_some() {
        return 5 * n >= 4 * EMPTY_POINTS;
    }
    2 * n > EMPTY_POINTS
}

/// How much grainier than the board's empty cells a cell may be to be one
/// of them ([`empty_throughout`]): `GRAIN_FACTOR * grain + GRAIN_SLACK`.
const GRAIN_FACTOR: f32 = 2.0;
const GRAIN_SLACK: f32 = 2.0;

/// Points [`empty_points`] looks at in a cell (5x5).
const EMPTY_POINTS: usize = 25;

/// How many of 5x5 points across nine tenths of cell `cell`'s pitch lie
/// within `limit` of colour `empty`.
fn empty_points(img: &RgbImage, cal: &Calibration, cell: Cell, empty: Lab, limit: f32) -> usize {
    departures(img, cal, cell, empty)
        .filter(|d| d.is_some_and(|d| d <= limit))
        .count()
}

/// ΔE from colour `empty` of each of 5x5 points across nine tenths of cell
/// `cell`'s pitch (None off the picture).
fn departures<'a>(
    img: &'a RgbImage,
    cal: &Calibration,
    cell: Cell,
    empty: Lab,
) -> impl Iterator<Item = Option<f32>> + 'a {
    let (cx, cy) = cal.cell_centre(cell);
    let (px, py) = (cal.grid.pitch_x(), cal.grid.pitch_y());
    let t = |i: usize| 0.9 * ((i as f64 + 0.5) / 5.0 - 0.5);
    (0..EMPTY_POINTS).map(move |k| {
        lab_at(img, cx + t(k % 5) * px, cy + t(k / 5) * py).map(|lab| delta_e(lab, empty))
    })
}

/// The median ΔE of the points of `cells` (5x5 each, see [`departures`])
/// from `empty`: how grainy an empty surface is.
fn grain(img: &RgbImage, cal: &Calibration, cells: &[Cell], empty: Lab) -> Option<f32> {
    let mut d: Vec<f32> = cells
        .iter()
        .flat_map(|&c| departures(img, cal, c, empty))
        .flatten()
        .collect();
    (!d.is_empty()).then(|| median_mut(&mut d))
}

/// A lattice refused for its empty outer lines, read over its framed extent
/// ([`framed`]) with the checks for a board of known size: any line may be
/// mostly empty, the bottom row and the left column must hold a tile
/// unless the frame is seen all round at one margin ([`even_margins`]) on a
/// board that does not collapse (scattered pieces need not touch them).
/// Unread cells must be a hover ([`unhovered`]) or [`specks`]: popups over
/// a cell or two, read `?` (a dialog over the emptied area, Swell Foop's
/// "Play again", is two unread cells side by side), or pieces covered by a
/// cursor or an effect. Outside the collapse family no outer line of a
/// board with specks may be a [`bar`] ([`outer_bar`]): a lattice grown over
/// a row of menu buttons reads them as one tile colour and an unread one
/// (synthetic seed 1309), over header text as one colour (4331).
fn read_framed(
    img: &RgbImage,
    opts: &CalibrateOptions,
    cal: &Calibration,
) -> Option<(super::Reading, Calibration)> {
    let first = read_framed_on(img, opts, cal);
    let limit = opts.params.empty_distance;
    let even =
        |(_, c): &(super::Reading, Calibration)| even_margins(img, c, Emptiness::of(img, c, limit));
    if first.as_ref().is_none_or(even) {
        return first;
    }
    let Ok(reading) = read_board(img, cal) else {
        return first;
    };
    let fitted = fitted_to_tiles(img, cal, &reading.board);
    if fitted.grid == cal.grid {
        return first;
    }
    match read_framed_on(img, opts, &fitted) {
        Some(r) if even(&r) => Some(r),
        _ => first,
    }
}

/// [`read_framed`] on lattice `cal` as it is.
fn read_framed_on(
    img: &RgbImage,
    opts: &CalibrateOptions,
    cal: &Calibration,
) -> Option<(super::Reading, Calibration)> {
    [false, true].into_iter().find_map(|held| {
        let grown = framed(img, cal, opts, held)?;
        let reading = read_board(img, &grown).ok()?;
        let lit = highlight_pair(&grown.palette);
        let unread = reading.board.cells().contains(&UNKNOWN);
        let lifted = !lit && lifted_pair(&grown.palette);
        let (reading, grown) = if unread || lit || lifted {
            match unhovered(&reading, &grown) {
                Some(x) => x,
                // A pair alike only from a lifted black is no proof of a
                // highlight: the board stands as read.
                None if lifted && !unread => (reading, grown),
                None if !lit
                    && specks(&reading.board)
                    && (super::family::collapses(&opts.game) || !outer_bar(&reading.board)) =>
                {
                    (reading, grown)
                }
                None => return None,
            }
        } else {
            (reading, grown)
        };
        // Held sides were not framed: every line must hold a tile (a
        // lattice at another pitch leaves lines of background between).
        if held && empty_line(&reading.board) {
            return None;
        }
        let mut tiles = reading.board.cells().iter().filter(|&&v| v <= 9);
        let first = tiles.next();
        let one_colour = first.is_some() && tiles.all(|v| Some(v) == first);
        // One colour left is a board of the collapse family only (pixel
        // font on a bar is one colour of squares alike too).
        let one_kind = one_colour
            && super::family::collapses(&opts.game)
            && tiles_alike(img, &grown, &reading.board);
        // A board of scattered pieces need not have a tile on its bottom
        // row or left column; where its frame is seen all round at one
        // margin, its extent is seen (a collapse board's tiles settle
        // into that corner). The margins are looked at only when the
        // board fails as `Known` (`Framed` differs from it in that check
        // alone).
        let board = &reading.board;
        plausible(board, Seen::Known, one_kind)
            .or_else(|e| {
                let margins = || {
                    let look = Emptiness::of(img, &grown, opts.params.empty_distance);
                    even_margins(img, &grown, look)
                };
                if !super::family::collapses(&opts.game) && margins() {
                    plausible(board, Seen::Framed, one_kind)
                } else {
                    Err(e)
                }
            })
            .ok()?;
        Some((reading, grown))
    })
}

/// `cal` with each axis refitted to the centres of the tiles `board` reads
/// on it ([`super::blobs::refit`]: a robust line through them, moving the
/// pitch by at most 5 %). A tile's centre is the centroid of the points
/// (24 a pitch) nearest its colour of the palette's within an area a
/// quarter of a pitch wider than its cell all round; a tile with a
/// neighbour of its colour on the same side (diagonals too) is left out on
/// that axis (their areas overlap). A lattice found over a few tiles may be
/// a few per cent off in pitch, which growing it over many empty lines
/// multiplies (synthetic sparse seed 7152: a pitch of 21.27 pixels for
/// 21.8 down a stack of seven tiles; framed over the emptied rows above,
/// its 15 rows read as 16).
fn fitted_to_tiles(img: &RgbImage, cal: &Calibration, board: &Board) -> Calibration {
    const REACH: f64 = 0.25;
    let g = &cal.grid;
    let (px, py) = (g.pitch_x(), g.pitch_y());
    let refs = cal.palette.references();
    let cols = board.cols();
    let step = (px.min(py) / 24.0).max(1.0);
    // The cells' areas, a quarter of a pitch wider than the cell all round.
    let area = |cell: usize| {
        let (r, c) = (cell / cols, cell % cols);
        let (x0, y0) = (
            g.left + c as f64 * px - REACH * px,
            g.top + r as f64 * py - REACH * py,
        );
        (
            x0,
            y0,
            x0 + g.cell_width + 2.0 * REACH * px,
            y0 + g.cell_height + 2.0 * REACH * py,
        )
    };
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for group in tile_groups(board) {
        let v = board.cells()[group[0]];
        let bounds = group
            .iter()
            .map(|&i| area(i))
            .fold((f64::MAX, f64::MAX, f64::MIN, f64::MIN), |a, b| {
                (a.0.min(b.0), a.1.min(b.1), a.2.max(b.2), a.3.max(b.3))
            });
        let within = |x: f64, y: f64| {
            group.iter().any(|&i| {
                let (x0, y0, x1, y1) = area(i);
                (x0..x1).contains(&x) && (y0..y1).contains(&y)
            })
        };
        let (mut sx, mut sy, mut n) = (0.0, 0.0, 0usize);
        let mut y = bounds.1 + step / 2.0;
        while y < bounds.3 {
            let mut x = bounds.0 + step / 2.0;
            while x < bounds.2 {
                let nearest = within(x, y)
                    .then(|| lab_at(img, x, y))
                    .flatten()
                    .and_then(|lab| nearest_reference(&refs, lab));
                if nearest.is_some_and(|(value, d)| value == v && d <= cal.palette.threshold) {
                    sx += x;
                    sy += y;
                    n += 1;
                }
                x += step;
            }
            y += step;
        }
        // Tiles mostly hidden (a popup) or of another shape than their
        // colour's: no centre.
        let tiles = group.len() as f64;
        if (n as f64) * step * step < 0.25 * tiles * g.cell_width * g.cell_height {
            continue;
        }
        let mean = |f: fn(usize, usize) -> usize| {
            group.iter().map(|&i| f(i, cols) as f64).sum::<f64>() / tiles
        };
        xs.push((mean(|i, cols| i % cols), sx / n as f64));
        ys.push((mean(|i, cols| i / cols), sy / n as f64));
    }
    let axis = |points: Vec<(f64, f64)>, start: f64, cell: f64, gap: f64| {
        let pitch = cell + gap;
        let (first, fitted) = super::blobs::refit(points.into_iter(), (start + cell / 2.0, pitch));
        let k = fitted / pitch;
        (first - k * cell / 2.0, k * cell, k * gap)
    };
    let (left, cell_width, gap_x) = axis(xs, g.left, g.cell_width, g.gap_x);
    let (top, cell_height, gap_y) = axis(ys, g.top, g.cell_height, g.gap_y);
    let mut fitted = cal.clone();
    fitted.grid = Grid {
        left,
        top,
        cell_width,
        cell_height,
        gap_x,
        gap_y,
    };
    fitted
}

/// The groups of tiles of one colour touching (diagonals too) on `board`,
/// each its cells' indices.
fn tile_groups(board: &Board) -> Vec<Vec<usize>> {
    let (rows, cols) = (board.rows(), board.cols());
    let cells = board.cells();
    let mut seen = vec![false; cells.len()];
    let mut groups = Vec::new();
    for start in 0..cells.len() {
        if seen[start] || cells[start] > 9 {
            continue;
        }
        seen[start] = true;
        let mut group = vec![start];
        let mut k = 0;
        while k < group.len() {
            let (r, c) = (group[k] / cols, group[k] % cols);
            k += 1;
            for (dr, dc) in (-1..=1).flat_map(|a| (-1..=1).map(move |b| (a, b))) {
                let (rr, cc) = (r.wrapping_add_signed(dr), c.wrapping_add_signed(dc));
                if rr >= rows || cc >= cols {
                    continue;
                }
                let i = rr * cols + cc;
                if !seen[i] && cells[i] == cells[start] {
                    seen[i] = true;
                    group.push(i);
                }
            }
        }
        groups.push(group);
    }
    groups
}

/// A board read with a hover highlight over one group of tiles (the
/// pointer over a collapse board lights the group under it): the group's
/// cells, one 4-connected group of two or more of one tile colour
/// brightened ([`brightened`], and lighter; or [`brightened_lifted`], with
/// the lifted pair's conditions below), are read as that colour (a lone
/// cell is as likely a button beside the board). They were either unread
/// (`?`, no other cell is) or learned as a colour of their own (then
/// [`highlight_pair`]: that colour is folded into the other, the palette
/// renumbered by first appearance). None when the board shows no such
/// group.
fn unhovered(reading: &super::Reading, cal: &Calibration) -> Option<(super::Reading, Calibration)> {
    let board = &reading.board;
    let colours = &cal.palette.colours;
    // (the highlight, the colour under it): the lighter of the two.
    let strict = pair_alike(&cal.palette, brightened);
    let pair = strict.or_else(|| pair_alike(&cal.palette, brightened_lifted));
    let mut lifted = strict.is_none() && pair.is_some();
    let mut cal = cal.clone();
    let (hovered, base): (Vec<usize>, u8) = match pair {
        Some((lit, base)) => {
            if board.cells().contains(&UNKNOWN) {
                return None;
            }
            for c in cal.palette.colours.iter_mut().filter(|c| c.index == lit) {
                c.index = base;
            }
            let at = (0..board.cells().len()).filter(|&i| board.cells()[i] == lit);
            (at.collect(), base)
        }
        None => {
            let at: Vec<usize> = (0..board.cells().len())
                .filter(|&i| board.cells()[i] == UNKNOWN)
                .collect();
            // The colour every unread cell is a lighter shade of; from a
            // lifted black (a picture at a lower contrast) when none is
            // from black.
            let under = |alike: fn(Lab, Lab) -> bool| {
                colours.iter().find(|c| {
                    at.iter().all(|&i| {
                        let lab = reading.cells[i].lab;
                        lab[0] > c.lab[0] && alike(c.lab, lab)
                    })
                })
            };
            let base = match under(brightened) {
                Some(c) => c,
                None => {
                    lifted = true;
                    under(brightened_lifted)?
                }
            };
            (at, base.index)
        }
    };
    if hovered.len() < 2 || !connected(&hovered, board.cols()) {
        return None;
    }
    // A pair alike only from a lifted black: the highlight is on one
    // group, a small share of the tiles (two colours dealt on a board
    // dimmed and warmed, one of them in one area, are no highlight).
    // And the group is whole: no tile of the colour under it touches it
    // (it would be lit too).
    let tiles = board.cells().iter().filter(|&&v| v <= 9).count();
    let cell = |i: usize| Cell::at(i, board.cols());
    let whole = !(0..board.cells().len())
        .filter(|&j| board.cells()[j] == base)
        .any(|j| hovered.iter().any(|&i| cell(i).touches(cell(j))));
    // Nor all along one outer line: a bar the lattice ran into (Iagno's
    // header over its board, JPEG'd: a lifted black beside the black discs).
    let (rows, cols) = (board.rows(), board.cols());
    let outer = (0..4).any(|side| {
        let line = side_line(rows, cols, side, 0);
        hovered
            .iter()
            .all(|&i| line.contains(&(i / cols, i % cols)))
    });
    if !whole || lifted && (LIFTED_SHARE * hovered.len() as f64 > tiles as f64 || outer) {
        return None;
    }
    let mut cells = board.cells().to_vec();
    for &i in &hovered {
        cells[i] = base;
    }
    // Renumber by first appearance in reading order.
    let mut to = [None::<u8>; 10];
    let mut next = 0u8;
    for v in cells.iter_mut().filter(|v| **v <= 9) {
        let n = *to[*v as usize].get_or_insert_with(|| {
            next += 1;
            next - 1
        });
        *v = n;
    }
    cal.palette
        .colours
        .retain(|c| to[c.index as usize].is_some());
    for c in cal.palette.colours.iter_mut() {
        c.index = to[c.index as usize]?;
    }
    let mut read = reading.clone();
    read.board = Board::from_cells(board.rows(), board.cols(), cells);
    for (cell, &v) in read.cells.iter_mut().zip(read.board.cells()) {
        cell.value = v;
    }
    Some((read, cal))
}

/// True when cells `at` (indices into a row-major board of `cols`
/// columns) form one 4-connected group.
fn connected(at: &[usize], cols: usize) -> bool {
    let Some(&first) = at.first() else {
        return false;
    };
    let mut seen = vec![first];
    let mut k = 0;
    while k < seen.len() {
        let i = seen[k];
        k += 1;
        for &j in at {
            if Cell::at(i, cols).touches(Cell::at(j, cols)) && !seen.contains(&j) {
                seen.push(j);
            }
        }
    }
    seen.len() == at.len()
}

/// True when the unread cells of `board` are at most two, none beside
/// another (diagonals too): small popups over single cells, not a dialog.
fn specks(board: &Board) -> bool {
    let at: Vec<(usize, usize)> = (0..board.rows())
        .flat_map(|r| (0..board.cols()).map(move |c| (r, c)))
        .filter(|&(r, c)| board.get(r, c) == UNKNOWN)
        .collect();
    at.len() <= 2
        && at.iter().enumerate().all(|(i, a)| {
            at[i + 1..]
                .iter()
                .all(|b| a.0.abs_diff(b.0) > 1 || a.1.abs_diff(b.1) > 1)
        })
}

/// True when an outer row or column of `board` is a [`bar`]: three
/// quarters or more of it one tile colour. A lattice grown over a row of
/// menu buttons or a line of header text reads so; a board whose pieces are
/// scattered over a panel does not.
fn outer_bar(board: &Board) -> bool {
    (0..4).any(|side| {
        let line: Vec<u8> = side_line(board.rows(), board.cols(), side, 0)
            .into_iter()
            .map(|(r, c)| board.get(r, c))
            .collect();
        bar(&line)
    })
}

/// True when a board of [`FLAT_AREAS_UP_TO`] cells or fewer reads at most
/// two tile colours, each one 4-connected area: a coarse lattice laid over a
/// panel's corner and its backdrop (`000/011/011`, cells a fifth of the
/// picture wide; synthetic seeds 7313, 7390; a 5x3 over a column of UI,
/// 4281), not tiles dealt at random. An unread cell may be of either
/// colour and joins both areas (a 3x5 over KDiamond's window dimmed and
/// scaled to 0.6: `00000/11?1./11000`).
fn flat_areas(board: &Board) -> bool {
    let (rows, cols) = (board.rows(), board.cols());
    if rows * cols > FLAT_AREAS_UP_TO {
        return false;
    }
    let mut colours: Vec<u8> = board.cells().iter().copied().filter(|&v| v <= 9).collect();
    colours.sort_unstable();
    colours.dedup();
    colours.len() <= 2
        && colours.iter().all(|&v| {
            // The colour's cells and the unread ones, which may be of it.
            let cells: Vec<Cell> = (0..rows * cols)
                .map(|i| Cell::new(i / cols, i % cols))
                .filter(|c| [v, UNKNOWN].contains(&board.get(c.row, c.col)))
                .collect();
            let of_v = |c: &Cell| board.get(c.row, c.col) == v;
            // Flood fill over them from the colour's first cell.
            let Some(&first) = cells.iter().find(|c| of_v(c)) else {
                return true;
            };
            let mut area = vec![first];
            let mut k = 0;
            while k < area.len() {
                let a = area[k];
                for &n in &cells {
                    if !area.contains(&n) && a.touches(n) {
                        area.push(n);
                    }
                }
                k += 1;
            }
            area.iter().filter(|c| of_v(c)).count() == cells.iter().filter(|c| of_v(c)).count()
        })
}

/// Most cells of a board [`flat_areas`] looks at.
const FLAT_AREAS_UP_TO: usize = 16;

/// True when some row or column of `board` holds no tile.
fn empty_line(board: &Board) -> bool {
    let (rows, cols) = (board.rows(), board.cols());
    let tile = |r: usize, c: usize| board.get(r, c) <= 9;
    (0..rows).any(|r| !(0..cols).any(|c| tile(r, c)))
        || (0..cols).any(|c| !(0..rows).any(|r| tile(r, c)))
}

/// A lattice refused for its empty cells (most of the board, or most of an
/// outer line), read as a board of pieces drawn on a backdrop (discs,
/// balls, stones on a board of one colour: Four-in-a-row, Five or More,
/// Reversi): its empty colour is the [`backdrop`] the pieces' cells show in
/// their corners and the board's frame is seen just beyond all four sides
/// ([`frame_seen`]). The backdrop then says where the board ends, so any
/// cell may be empty. (Not [`bounded`]: a light header bar beside the board
/// reads as white stones. A board going on past a side shows its backdrop
/// just beyond it, between its pieces, so the frame is not seen.) The
/// board must still read every cell, hold 2+ piece colours with one
/// repeated. (Not [`highlight_pair`]: grey and white stones are one grey
/// brightened, by its test.)
fn read_on_backdrop(
    img: &RgbImage,
    opts: &CalibrateOptions,
    cal: &Calibration,
) -> Option<(super::Reading, Calibration)> {
    let p = &opts.params;
    let [empty] = cal.palette.empty[..] else {
        return None;
    };
    let reading = read_board(img, cal).ok()?;
    let cells = reading.board.cells();
    if cells.contains(&UNKNOWN) {
        return None;
    }
    let counts = tile_counts(cells);
    let colours = counts.iter().filter(|&&n| n > 0).count();
    if colours < 2 || !counts.iter().any(|&n| n >= 2) {
        return None;
    }
    let labs: Vec<(Lab, f32)> = reading.cells.iter().map(|c| (c.lab, c.spread)).collect();
    let b = backdrop(img, &cal.grid, cal.rows, cal.cols, &labs, p)?;
    let sides = [(true, true), (true, false), (false, true), (false, false)];
    // A lattice fitted to the pieces may sit a few pixels inside the board's
    // edge: the frame is looked for up to 0.15 of a pitch out. (Five or
    // More's tango balls, dark at the bottom, are blobs 0.11 of a pitch
    // above their cells' centres: on a phone's screen the frame below was
    // 9 pixels out at a pitch of 84, past a tenth.)
    let g = &cal.grid;
    let reach = (0.15 * g.pitch_x().min(g.pitch_y())).max(4.0) as usize;
    let e = Emptiness {
        limit: p.empty_distance,
        inside: None,
        tight: None,
        grain: None,
    };
    let framed = sides
        .iter()
        .all(|&(rows, before)| frame_seen_within(img, cal, rows, before, e, reach));
    // The checks of any board read in its frame: a lattice that overran
    // the board by a line all round reads the window's margin there as a
    // ring of one colour (Four-in-a-row scaled at JPEG 55: 8x9 for 6x7).
    let whole = plausible(&reading.board, Seen::Framed, false)
        .map_err(|e| tracing::debug!("on a backdrop: {e}"))
        .is_ok();
    (delta_e(b, empty) <= p.empty_distance && framed && whole).then(|| (reading, cal.clone()))
}

/// How many cells read each tile colour (`0..=9`; empty and unread cells
/// are not counted).
fn tile_counts(cells: &[u8]) -> [usize; 10] {
    let mut counts = [0usize; 10];
    for &v in cells {
        if let Some(n) = counts.get_mut(v as usize) {
            *n += 1;
        }
    }
    counts
}

/// True when no cell just beyond the lattice (the row or column past each
/// side, where it fits in the picture) reads as a tile colour of its own
/// palette: the board's edges are seen. A lattice over part of a larger
/// board (a fully filled corner of a half-played board) has tiles beyond it.
fn bounded(img: &RgbImage, cal: &Calibration) -> bool {
    !open_sides(img, cal).contains(&true)
}

/// True when one tile colour fills three quarters or more of a line of 3+
/// cells: a bar of the UI (a header, a panel) in a colour the palette also
/// has, not a line of tiles.
fn bar(line: &[u8]) -> bool {
    let most = (0..=9u8)
        .map(|v| line.iter().filter(|&&x| x == v).count())
        .max()
        .unwrap_or(0);
    line.len() >= 3 && 4 * most >= 3 * line.len()
}

/// Which sides of the lattice (top, bottom, left, right) have a cell just
/// beyond them that reads as a tile colour of its own palette, the line
/// there being no [`bar`] (see [`bounded`]; iagno's header bar reads as its
/// black stones' colour).
pub(super) fn open_sides(img: &RgbImage, cal: &Calibration) -> [bool; 4] {
    [(true, true), (true, false), (false, true), (false, false)].map(|(rows, before)| {
        beyond(img, cal, rows, before)
            .is_some_and(|(_, line)| line.iter().any(|&v| v <= 9) && !bar(&line))
    })
}

/// The robust colour and spread of the gaps between the cells of lattice
/// line `k` (a row when `rows`): sampled midway between neighbouring cells,
/// at the line's centre and a fifth of a pitch either side.
fn line_gaps(img: &RgbImage, cal: &Calibration, rows: bool, k: usize) -> (Lab, f32) {
    let along = if rows { cal.cols } else { cal.rows };
    let mut samples: Vec<Lab> = Vec::with_capacity(3 * along);
    for i in 1..along {
        for t in [-0.2, 0.0, 0.2] {
            let (x, y) = between_tiles(&cal.grid, rows, k, i, t);
            samples.extend(lab_at(img, x, y));
        }
    }
    robust_centre(&samples)
}

/// Whole-board checks for a reading with a palette learned from the same
/// picture: at most a tenth of the cells (at least 2) unreadable, at least
/// two tile colours, at most half the cells empty, some
/// colour on more than one cell (a lattice over a menu, a page of text or a
/// photograph fails one of these), no colour found only on most of an outer
/// row or column (a bar beside the board), and no outer row or column mostly
/// empty (the board's edge must be seen). When the user gave the board's size
/// (`sized`) and the lattice has it, outer lines may be mostly empty and so
/// may most cells (a collapse board mid-game empties from the top and the
/// right, its columns stand at any height; a well empties from the top), but
/// the bottom row and the left column must each hold a tile.
fn plausible(board: &Board, extent: Seen, one_kind: bool) -> Result<(), VisionError> {
    checked(board, extent, one_kind).inspect_err(|_| tracing::trace!("refused board {board}"))
}

/// [`plausible`]'s checks, untraced.
fn checked(board: &Board, extent: Seen, one_kind: bool) -> Result<(), VisionError> {
    let sized = extent != Seen::Guessed;
    let cells = board.cells();
    let counts = tile_counts(cells);
    let colours = counts.iter().filter(|&&c| c > 0).count();
    let empty = cells.iter().filter(|&&v| v == EMPTY).count();
    // The palette was learned from these very cells: on a board it explains
    // all but a few (a popup, an effect), far fewer than the reader's
    // general limit for a calibration learned elsewhere.
    let unknown = cells.iter().filter(|&&v| v == UNKNOWN).count();
    let unknown_limit = (cells.len() / 10).max(2);
    if unknown > unknown_limit {
        return Err(VisionError::NoBoard(format!(
            "{unknown} of {} cells of a {}x{} lattice match none of the colours learned from it \
             (limit {unknown_limit}): not a board",
            cells.len(),
            board.rows(),
            board.cols()
        )));
    }
    if let Some(axis) = striped(board) {
        return Err(VisionError::NoBoard(format!(
            "a {}x{} lattice reads one colour along each {axis}: a backdrop's shading, not tiles",
            board.rows(),
            board.cols()
        )));
    }
    if every_other_line(board) {
        return Err(VisionError::NoBoard(format!(
            "a {}x{} lattice holds tiles on every other row and column only: a lattice at half \
             the tiles' pitch",
            board.rows(),
            board.cols()
        )));
    }
    if let Some(k) = blocks_of_one_tile(board) {
        return Err(VisionError::NoBoard(format!(
            "a {}x{} lattice reads blocks of {k}x{k} cells alike: a lattice at 1/{k} of the \
             tiles' pitch",
            board.rows(),
            board.cols()
        )));
    }
    if flat_areas(board) {
        return Err(VisionError::NoBoard(format!(
            "a {}x{} lattice reads two areas of one colour each: a panel on its backdrop, not tiles",
            board.rows(),
            board.cols()
        )));
    }
    if let Some((line, p)) = repeats(board) {
        return Err(VisionError::NoBoard(format!(
            "a {}x{} lattice repeats itself every {p} {line}{}: the same UI over and over, not tiles",
            board.rows(),
            board.cols(),
            if p > 1 { "s" } else { "" }
        )));
    }
    let repeated = counts.iter().any(|&c| c >= 2);
    // One colour is a board only where its extent is known, cells were
    // cleared and its tiles were seen to be one picture (`one_kind`): a
    // collapse game near its end.
    let one_left = colours == 1 && sized && empty > 0 && one_kind;
    if (colours < 2 && !one_left) || (2 * empty > cells.len() && !sized) || !repeated {
        return Err(VisionError::NoBoard(format!(
            "a {}x{} lattice reads {colours} tile colours and {empty} empty cells: not a board",
            board.rows(),
            board.cols()
        )));
    }
    // An outer row or column mostly empty: where the board ends is not seen
    // (its tiles are gone or it is no board), so its size would be a guess.
    let (rows, cols) = (board.rows(), board.cols());
    const SIDES: [&str; 4] = ["top row", "bottom row", "left column", "right column"];
    let sparse: [bool; 4] =
        std::array::from_fn(|i| mostly_empty(board, &side_line(rows, cols, i, 0)));
    // A colour on at least two thirds of an outer line (4 cells or more)
    // and nowhere else, the lattice at least 4 lines across it: a bar or
    // a row of buttons beside the board that the lattice ran into (tile
    // colours are spread over a board).
    for v in 0..10u8 {
        let at: Vec<(usize, usize)> = (0..rows * cols)
            .filter(|&i| cells[i] == v)
            .map(|i| (i / cols, i % cols))
            .collect();
        let confined = |on: &dyn Fn(&(usize, usize)) -> bool, len: usize, across: usize| {
            at.len() >= 4 && 3 * at.len() >= 2 * len && across >= 4 && at.iter().all(on)
        };
        let bar = [
            ("top row", confined(&|p| p.0 == 0, cols, rows)),
            ("bottom row", confined(&|p| p.0 == rows - 1, cols, rows)),
            ("left column", confined(&|p| p.1 == 0, rows, cols)),
            ("right column", confined(&|p| p.1 == cols - 1, rows, cols)),
        ];
        // On two opposite outer lines (or round the ring) and nowhere
        // inside, on two thirds of them: the panel's margin round a board the
        // lattice overran on both sides.
        let ring = |a: bool, b: bool| {
            let len = if a && b {
                2 * (rows + cols) - 4
            } else if a {
                2 * cols
            } else {
                2 * rows
            };
            let on = |p: &(usize, usize)| {
                a && (p.0 == 0 || p.0 == rows - 1) || b && (p.1 == 0 || p.1 == cols - 1)
            };
            rows >= 5 && cols >= 5 && at.len() >= 6 && 3 * at.len() >= 2 * len && at.iter().all(on)
        };
        let margin = [
            ("top and bottom rows", ring(true, false)),
            ("left and right columns", ring(false, true)),
            ("outer lines", ring(true, true)),
        ];
        let found = (bar
            .iter()
            .find(|b| b.1)
            .map(|b| (b.0, "a bar beside the board")))
        .or_else(|| {
            margin
                .iter()
                .find(|b| b.1)
                .map(|b| (b.0, "a margin round the board"))
        });
        if let Some((name, what)) = found {
            return Err(VisionError::NoBoard(format!(
                "a {rows}x{cols} lattice has a colour only on its {name}, on {} cells: \
                 {what}, not tiles",
                at.len()
            )));
        }
    }
    // An outer line of eight cells or more all of one tile colour: a bar or
    // a margin the lattice ran into (the band under a header's pixel
    // text). Tiles in a line that long are never all alike: a swap game
    // would have matched them, a collapse board of even three colours
    // holds such a line once in thousands.
    let uniform_line = |i: &usize| {
        let line = side_line(rows, cols, *i, 0);
        let first = board.get(line[0].0, line[0].1);
        line.len() >= UNIFORM_LINE
            && first <= 9
            && line.iter().all(|p| board.get(p.0, p.1) == first)
    };
    if let Some(i) = (0..4).find(uniform_line) {
        return Err(VisionError::NoBoard(format!(
            "a {rows}x{cols} lattice reads one colour all along its {}: a bar or a margin, not tiles",
            SIDES[i]
        )));
    }
    if extent == Seen::Framed {
        return Ok(());
    }
    if sized {
        let bottom = (0..cols).any(|c| board.get(rows - 1, c) != EMPTY);
        let left = (0..rows).any(|r| board.get(r, 0) != EMPTY);
        if bottom && left {
            return Ok(());
        }
        return Err(VisionError::NoBoard(format!(
            "the {rows}x{cols} lattice holds no tile in its {}",
            if bottom { "left column" } else { "bottom row" }
        )));
    }
    if let Some(i) = (0..4).find(|&i| sparse[i]) {
        let name = SIDES[i];
        if !holes(board, sparse) {
            return Err(VisionError::NoBoard(format!(
                "a {rows}x{cols} lattice has its {name} mostly empty: where the board ends is not seen"
            )));
        }
    }
    Ok(())
}

/// What [`plausible`] knows of a lattice's extent.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Seen {
    /// Found from the tiles alone.
    Guessed,
    /// Given by the user, or framed on a collapse board: the bottom row and
    /// the left column must each hold a tile.
    Known,
    /// Framed all round at one margin ([`even_margins`]): any line may be
    /// empty.
    Framed,
}

/// True when every tile of `board` (its cells read as a colour) shows the
/// same picture: at [`ALIKE_SIDE`]² points spread over the inner part of
/// the tile, no tile departs from the points' median across the tiles by
/// more than [`ALIKE_DISTANCE`] at more than [`ALIKE_POINTS`] of them. Tiles
/// of one colour told apart by their symbols (Swell Foop's `boringshapes`:
/// circles, squares and stars on one grey) are not alike.
fn tiles_alike(img: &RgbImage, cal: &Calibration, board: &Board) -> bool {
    let g = &cal.grid;
    let at = |i: usize| (i as f64 + 0.5) / ALIKE_SIDE as f64 - 0.5;
    let tiles: Vec<Vec<Lab>> = (0..board.rows())
        .flat_map(|r| (0..board.cols()).map(move |c| Cell::new(r, c)))
        .filter(|cell| board.get(cell.row, cell.col) <= 9)
        .map(|cell| {
            cell_points(
                img,
                cal,
                cell,
                (g.cell_width, g.cell_height),
                at,
                ALIKE_SIDE,
            )
            .map(|l| l.unwrap_or([0.0; 3]))
            .collect()
        })
        .collect();
    if tiles.len() < 2 {
        return false;
    }
    let medians = medians_at(&tiles);
    let limit = (ALIKE_POINTS * medians.len() as f64) as usize;
    tiles.iter().all(|t| {
        let off = t
            .iter()
            .zip(&medians)
            .filter(|(a, m)| delta_e(**a, **m) > ALIKE_DISTANCE)
            .count();
        off <= limit
    })
}

/// The colours at `side`² points spread over 0.8 of `span` (a width and a
/// height) round `cell`'s centre, row by row: point `(i, j)` at `at(i)`,
/// `at(j)` of that (shares from -0.5 to 0.5); None off the picture.
fn cell_points<'a>(
    img: &'a RgbImage,
    cal: &Calibration,
    cell: Cell,
    (w, h): (f64, f64),
    at: impl Fn(usize) -> f64 + 'a,
    side: usize,
) -> impl Iterator<Item = Option<Lab>> + 'a {
    let (cx, cy) = cal.cell_centre(cell);
    (0..side * side).map(move |k| {
        let (x, y) = (at(k % side), at(k / side));
        lab_at(img, cx + 0.8 * x * w, cy + 0.8 * y * h)
    })
}

/// The median colour at each point over `tiles` (each the same points, at
/// least one tile).
fn medians_at(tiles: &[Vec<Lab>]) -> Vec<Lab> {
    (0..tiles[0].len())
        .map(|k| median_lab(&tiles.iter().map(|t| t[k]).collect::<Vec<_>>()))
        .collect()
}

/// Points a side of the grid [`tiles_alike`] compares tiles on.
const ALIKE_SIDE: usize = 7;
/// ΔE past which a tile's point departs from the tiles' median there.
const ALIKE_DISTANCE: f32 = 20.0;
/// The share of a tile's points that may depart (edges of a symbol one
/// pixel off between tiles).
const ALIKE_POINTS: f64 = 0.15;

/// True when a board's tiles (at least [`HALF_PITCH_TILES`]) all lie on
/// every other row and every other column, the lines between them all
/// empty or unread (two or more each way; synthetic seed 16304, large
/// gems read at half their pitch, had an unread cell between two): a lattice at half the tiles' pitch, its
/// lines between theirs falling on the backdrop (Gweled on a phone screen
/// read 13x13 for 8x8; Five or More's shapes 17x17 for 9x9). Pieces
/// dealt on a board fall so by chance at odds of about 4^-tiles.
fn every_other_line(board: &Board) -> bool {
    let (rows, cols) = (board.rows(), board.cols());
    let cells = board.cells();
    let tiles = cells.iter().filter(|&&v| v <= 9).count();
    if tiles < HALF_PITCH_TILES || rows < 5 || cols < 5 {
        return false;
    }
    let bare = |v: u8| v == EMPTY || v == UNKNOWN;
    let row_empty = |r: usize| (0..cols).all(|c| bare(board.get(r, c)));
    let col_empty = |c: usize| (0..rows).all(|r| bare(board.get(r, c)));
    let parity_empty =
        |n: usize, empty: &dyn Fn(usize) -> bool| (0..2).any(|p| (p..n).step_by(2).all(empty));
    parity_empty(rows, &row_empty) && parity_empty(cols, &col_empty)
}

/// The tiles a board needs before [`every_other_line`] judges it.
const HALF_PITCH_TILES: usize = 4;

/// `Some(k)` when the board, cut into blocks of `k`x`k` cells at some
/// offset (`k` 2 to 4), has [`BLOCKS`] or more blocks of tiles only and
/// three in four of them read one colour (but for one cell of a block of
/// 9 or 16: a symbol in the tile's middle): a lattice at `1/k` of the
/// tiles' pitch, each tile read `k`x`k` times (synthetic seed 11137: a 3x5
/// board of squares with symbols read 9x15). Dealt tiles fill a block of
/// four alike at odds of 1 in 8 with two colours, far less with more.
fn blocks_of_one_tile(board: &Board) -> Option<usize> {
    let (rows, cols) = (board.rows(), board.cols());
    (2..=4usize).find(|&k| {
        let odd = usize::from(k >= 3);
        (0..k).any(|oy| {
            (0..k).any(|ox| {
                let (mut full, mut alike) = (0usize, 0usize);
                for by in (oy..rows).step_by(k).take_while(|&y| y + k <= rows) {
                    for bx in (ox..cols).step_by(k).take_while(|&x| x + k <= cols) {
                        let block: Vec<u8> = (by..by + k)
                            .flat_map(|r| (bx..bx + k).map(move |c| board.get(r, c)))
                            .collect();
                        if block.iter().any(|&v| v > 9) {
                            continue;
                        }
                        full += 1;
                        let most = (0..=9u8)
                            .map(|v| block.iter().filter(|&&x| x == v).count())
                            .max()
                            .unwrap_or(0);
                        alike += usize::from(most + odd >= k * k);
                    }
                }
                full >= BLOCKS && 4 * alike >= 3 * full
            })
        })
    })
}

/// See [`blocks_of_one_tile`]: the fewest blocks of tiles it judges.
const BLOCKS: usize = 6;

/// `Some("row")` (or `"column"`) when a board with no empty cell reads one
/// colour along every row (every column), but for `?` cells and one odd
/// cell in 25: a lattice laid over a backdrop whose light changes across
/// the picture (a vignette, a gradient, the space between sprites), read
/// as stripes. The tiles of a game are dealt at random; stripes across a
/// whole board are not (8x8 with 6 colours: odds of 6^-56).
fn striped(board: &Board) -> Option<&'static str> {
    let (rows, cols) = (board.rows(), board.cols());
    if board.cells().contains(&EMPTY) {
        return None;
    }
    let known = board.cells().iter().filter(|&&v| v <= 9).count();
    let allowed = (known / 25).max(1);
    let odd_along = |lines: usize, len: usize, at: &dyn Fn(usize, usize) -> u8| {
        (0..lines)
            .map(|l| {
                let mut counts = [0usize; 10];
                (0..len)
                    .map(|i| at(l, i))
                    .filter(|&v| v <= 9)
                    .for_each(|v| counts[v as usize] += 1);
                counts.iter().sum::<usize>() - counts.iter().max().copied().unwrap_or(0)
            })
            .sum::<usize>()
    };
    if cols >= 3 && odd_along(rows, cols, &|r, c| board.get(r, c)) <= allowed {
        return Some("row");
    }
    if rows >= 3 && odd_along(cols, rows, &|c, r| board.get(r, c)) <= allowed {
        return Some("column");
    }
    None
}

/// The shortest period (in columns, or in rows) with which the whole board
/// repeats itself, when one repeats it over 12 or more cells: `Some(("column",
/// p))` when every column equals the one `p` to its right (`?` matching
/// anything). A row of the same buttons, or the same word on each of them,
/// read as a board (dealt tiles repeat a whole board over 12 cells with odds
/// under one in 4000 at two colours). `p` is at most half the length, and
/// boards with no tile are left to the other checks.
fn repeats(board: &Board) -> Option<(&'static str, usize)> {
    let (rows, cols) = (board.rows(), board.cols());
    let same = |a: u8, b: u8| a == b || a == UNKNOWN || b == UNKNOWN;
    let period = |len: usize, across: usize, at: &dyn Fn(usize, usize) -> u8| {
        (1..=len / 2).find(|&p| {
            across * (len - p) >= 12
                && (0..len - p).all(|i| (0..across).all(|j| same(at(i, j), at(i + p, j))))
        })
    };
    if let Some(p) = period(cols, rows, &|c, r| board.get(r, c)) {
        return Some(("column", p));
    }
    period(rows, cols, &|r, c| board.get(r, c)).map(|p| ("row", p))
}

/// The cells of the line `depth` lines in from side `side` of a
/// `rows`x`cols` board (0 top row, 1 bottom row, 2 left column, 3 right
/// column; clamped to the board).
fn side_line(rows: usize, cols: usize, side: usize, depth: usize) -> Vec<(usize, usize)> {
    let (r, c) = (depth.min(rows - 1), depth.min(cols - 1));
    match side {
        0 => (0..cols).map(|x| (r, x)).collect(),
        1 => (0..cols).map(|x| (rows - 1 - r, x)).collect(),
        2 => (0..rows).map(|y| (y, c)).collect(),
        _ => (0..rows).map(|y| (y, cols - 1 - c)).collect(),
    }
}

/// The fewest cells of an outer line all of one colour that make it a bar
/// or a margin, not tiles ([`plausible`]).
const UNIFORM_LINE: usize = 8;

/// More than half of `line`'s cells empty.
fn mostly_empty(board: &Board, line: &[(usize, usize)]) -> bool {
    2 * line.iter().filter(|p| board.get(p.0, p.1) == EMPTY).count() > line.len()
}

/// True when the empty cells of `board`, whose outer lines flagged in
/// `sparse` (top row, bottom row, left column, right column) are mostly
/// empty, are holes in a board of that size rather than the cleared part
/// of a larger board (or the background a lattice ran into):
/// - the board has empty cells outside its sparse lines too (it is a board
///   with holes; empties only on an outer line are a lattice one line too
///   long), and the line in from each sparse line is not mostly empty as
///   well (two such lines are an empty area: text lines on a background);
/// - each sparse line holds a tile whose colour is seen elsewhere on the
///   board (not a lone button or glyph beyond the board);
/// - some empty cell has a tile above it: the board is not settled under
///   gravity, as a board being cleared is (its tiles fall and close up, so
///   its empties are on top and its emptied lines could run on beyond the
///   tiles' extent: a collapse board mid-game, a game-over remnant).
fn holes(board: &Board, sparse: [bool; 4]) -> bool {
    let (rows, cols) = (board.rows(), board.cols());
    let on_sparse = |r: usize, c: usize| {
        (sparse[0] && r == 0)
            || (sparse[1] && r == rows - 1)
            || (sparse[2] && c == 0)
            || (sparse[3] && c == cols - 1)
    };
    let (mut off, mut off_empty) = (0, 0);
    for (r, c) in (0..rows).flat_map(|r| (0..cols).map(move |c| (r, c))) {
        if !on_sparse(r, c) {
            off += 1;
            off_empty += usize::from(board.get(r, c) == EMPTY);
        }
    }
    // Holes are some of the cells: empties off the sparse lines as well, but
    // not a quarter of them or more (a lattice finer than the tiles, whose
    // extra lines fall on the gaps between them, has empties everywhere).
    if off_empty == 0 || 4 * off_empty >= off {
        return false;
    }
    // A whole row or column empty: a gap between the board and something
    // else the lattice ran on to (buttons, a second panel), not holes.
    let empty_row = (0..rows).any(|r| (0..cols).all(|c| board.get(r, c) == EMPTY));
    let empty_col = (0..cols).any(|c| (0..rows).all(|r| board.get(r, c) == EMPTY));
    if empty_row || empty_col {
        return false;
    }
    // The line in from a sparse line mostly empty too: an empty area (text
    // lines over a background, a cleared corner), not holes.
    if (0..4).any(|i| sparse[i] && mostly_empty(board, &side_line(rows, cols, i, 1))) {
        return false;
    }
    let tile = |v: u8| v <= 9;
    let seen_elsewhere = |line: &[(usize, usize)]| {
        line.iter().any(|&(r, c)| {
            let v = board.get(r, c);
            tile(v)
                && (0..rows)
                    .flat_map(|r2| (0..cols).map(move |c2| (r2, c2)))
                    .any(|p| !line.contains(&p) && board.get(p.0, p.1) == v)
        })
    };
    if (0..4).any(|i| sparse[i] && !seen_elsewhere(&side_line(rows, cols, i, 0))) {
        return false;
    }
    (0..cols).any(|c| {
        (1..rows).any(|r| board.get(r, c) == EMPTY && (0..r).any(|r2| tile(board.get(r2, c))))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cells of one screenshot, row by row, coloured by `lab(row, col)`.
    fn members_coloured(
        rows: usize,
        cols: usize,
        lab: &dyn Fn(usize, usize) -> Lab,
    ) -> Vec<Member> {
        (0..rows * cols)
            .map(|i| {
                let (r, c) = (i / cols, i % cols);
                let reading = CellReading {
                    lab: lab(r, c),
                    spread: 0.0,
                    nearest: 0,
                    distance: 0.0,
                    split: 0.0,
                    value: 0,
                    refused: false,
                };
                (0, Cell::new(r, c), reading)
            })
            .collect()
    }

    #[test]
    fn a_checker_is_told_from_dealt_tiles() {
        let (dark, light, red) = ([20.0, 0.0, 0.0], [45.0, 0.0, 0.0], [50.0, 60.0, 40.0]);
        let checker = |r: usize, c: usize| {
            if (r + c).is_multiple_of(2) {
                dark
            } else {
                light
            }
        };
        assert!(checkered(&members_coloured(8, 8, &checker), 20.0));
        // A gem over a tenth of one parity's squares is still the checker;
        // over a fifth it is not.
        let some = |n: usize| {
            move |r: usize, c: usize| {
                if r * 8 + c < 2 * n && (r + c).is_multiple_of(2) {
                    red
                } else {
                    checker(r, c)
                }
            }
        };
        assert!(checkered(&members_coloured(8, 8, &some(3)), 20.0));
        assert!(!checkered(&members_coloured(8, 8, &some(7)), 20.0));
        // Stripes, one colour, shades too close, too few cells: no checker.
        let stripes = |_: usize, c: usize| if c.is_multiple_of(2) { dark } else { light };
        assert!(!checkered(&members_coloured(8, 8, &stripes), 20.0));
        assert!(!checkered(&members_coloured(8, 8, &|_, _| dark), 20.0));
        let near = |r: usize, c: usize| {
            if (r + c).is_multiple_of(2) {
                dark
            } else {
                [35.0, 0.0, 0.0]
            }
        };
        assert!(!checkered(&members_coloured(8, 8, &near), 20.0));
        assert!(!checkered(&members_coloured(3, 3, &checker), 20.0));
    }

    /// Gives `cal` the palette `colours` (indices in order) and `empty`.
    fn paint(cal: &mut Calibration, colours: &[[u8; 3]], empty: [u8; 3]) {
        cal.palette.colours = colours
            .iter()
            .enumerate()
            .map(|(i, &c)| PaletteColour {
                index: i as u8,
                name: String::new(),
                lab: rgb_to_lab(c),
            })
            .collect();
        cal.palette.empty = vec![rgb_to_lab(empty)];
    }

    fn lattice(rows: usize, cols: usize, at: (f64, f64), pitch: (f64, f64)) -> Calibration {
        let palette = Palette {
            threshold: 10.0,
            max_spread: 10.0,
            empty: Vec::new(),
            colours: Vec::new(),
            refuse: Vec::new(),
        };
        let grid = Grid {
            left: at.0,
            top: at.1,
            cell_width: 0.9 * pitch.0,
            cell_height: 0.9 * pitch.1,
            gap_x: 0.1 * pitch.0,
            gap_y: 0.1 * pitch.1,
        };
        Calibration::new(
            "t",
            rows,
            cols,
            (800, 800),
            grid,
            Sampling::rings(),
            palette,
        )
    }

    #[test]
    fn a_frame_at_one_margin_all_round_is_even() {
        // A grey panel (100..290 x 100..260) on a blue backdrop, a 4x5
        // lattice of 30 pixels 20 in from its edges.
        let panel = |right: u32| {
            RgbImage::from_fn(400, 400, |x, y| {
                if (100..right).contains(&x) && (100..260).contains(&y) {
                    image::Rgb([150, 150, 150])
                } else {
                    image::Rgb([40, 60, 160])
                }
            })
        };
        let img = panel(290);
        let grey = rgb_to_lab([150, 150, 150]);
        let e = Emptiness {
            limit: 12.0,
            inside: Some((grey, 6.0)),
            tight: None,
            grain: Some(0.0),
        };
        assert!(even_margins(
            &img,
            &lattice(4, 5, (121.5, 121.5), (30.0, 30.0)),
            e
        ));
        // One row short: its last row's place taken for the margin.
        assert!(!even_margins(
            &img,
            &lattice(3, 5, (121.5, 121.5), (30.0, 30.0)),
            e
        ));
        // Off centre by more than the slack.
        assert!(!even_margins(
            &img,
            &lattice(4, 5, (111.5, 121.5), (30.0, 30.0)),
            e
        ));
        // The panel runs on to the picture's edge: no frame on that side.
        let cut = panel(400);
        let wide = lattice(4, 9, (121.5, 121.5), (30.0, 30.0));
        assert!(!even_margins(&cut, &wide, e));
    }

    #[test]
    fn tiles_of_one_colour_touching_are_one_group() {
        let b = Board::from_cells(3, 3, vec![0, 1, EMPTY, 0, EMPTY, 1, EMPTY, 0, 1]);
        let mut groups = tile_groups(&b);
        groups.iter_mut().for_each(|g| g.sort_unstable());
        groups.sort();
        // 0 at (0,0), (1,0) and, diagonally, (2,1); 1 at (0,1), (1,2)
        // diagonally and (2,2).
        assert_eq!(groups, vec![vec![0, 3, 7], vec![1, 5, 8]]);
    }

    #[test]
    fn a_lattice_is_refitted_through_its_tiles() {
        // Red and blue tiles of 27 pixels at a pitch of 30 from (20, 20) on
        // grey; a stack of three reds in the first column.
        let (red, blue, grey) = ([200, 30, 30], [30, 60, 200], [150, 150, 150]);
        let e = EMPTY;
        #[rustfmt::skip]
        let cells = vec![
            0, e, 1, e, 0, e,
            e, e, e, e, e, 1,
            1, e, 0, e, e, e,
            0, e, e, 1, e, 0,
            0, e, e, e, e, e,
            0, e, 1, e, 0, 1,
        ];
        let board = Board::from_cells(6, 6, cells);
        let img = RgbImage::from_fn(220, 220, |x, y| {
            let (c, r) = ((x as i64 - 20) / 30, (y as i64 - 20) / 30);
            let inside = x >= 20 && y >= 20 && (x - 20) % 30 < 27 && (y - 20) % 30 < 27;
            let v = (inside && r < 6 && c < 6).then(|| board.get(r as usize, c as usize));
            image::Rgb(match v {
                Some(0) => red,
                Some(1) => blue,
                _ => grey,
            })
        });
        let mut cal = lattice(6, 6, (20.0, 20.0), (29.0, 29.0));
        paint(&mut cal, &[red, blue], grey);
        let fitted = fitted_to_tiles(&img, &cal, &board);
        let g = &fitted.grid;
        assert!((g.pitch_x() - 30.0).abs() < 0.3, "{g:?}");
        assert!((g.pitch_y() - 30.0).abs() < 0.3, "{g:?}");
        for k in 0..6 {
            let (x, y) = fitted.cell_centre(Cell::new(k, k));
            let want = 20.0 + 30.0 * k as f64 + 13.5;
            assert!(
                (x - want).abs() < 1.0 && (y - want).abs() < 1.0,
                "{k}: {x} {y}"
            );
        }
    }

    #[test]
    fn a_flat_panel_ends_where_a_backdrop_near_its_colour_starts() {
        // A flat grey panel (100..290 x 100..260) on a backdrop a few ΔE
        // off it (under EMPTY_NOISE), a 4x5 lattice 20 pixels in.
        let grey = [150, 150, 150];
        let near = [156, 150, 146];
        let d = delta_e(rgb_to_lab(grey), rgb_to_lab(near));
        assert!(d > NOISE_MIN && d < EMPTY_NOISE, "{d}");
        let img = RgbImage::from_fn(400, 400, |x, y| {
            let on = (100..290).contains(&x) && (100..260).contains(&y);
            image::Rgb(if on { grey } else { near })
        });
        let cal = lattice(4, 5, (121.5, 121.5), (30.0, 30.0));
        let cells: Vec<(Cell, Lab)> = (0..20)
            .map(|i| (Cell::new(i / 5, i % 5), rgb_to_lab(grey)))
            .collect();
        let inside = empty_inside(&cells, 12.0);
        assert_eq!(inside, Some((rgb_to_lab(grey), EMPTY_NOISE)));
        let tight = inside.and_then(|i| empty_noise(&img, &cal, &cells, i));
        assert_eq!(tight, Some(NOISE_MIN));
        let loose = Emptiness {
            limit: 12.0,
            inside,
            tight: None,
            grain: None,
        };
        // By EMPTY_NOISE the backdrop looks like the panel: no frame.
        assert!(!even_margins(&img, &cal, loose));
        assert!(even_margins(&img, &cal, Emptiness { tight, ..loose }));
        // A grainy panel: no nearness tighter than EMPTY_NOISE.
        let grainy = RgbImage::from_fn(400, 400, |x, y| {
            let v = (150 + 2 * (((x * 7 + y * 13) % 17) as i32 - 8)) as u8;
            image::Rgb([v, v, v])
        });
        assert_eq!(
            empty_noise(&grainy, &cal, &cells, (rgb_to_lab(grey), 6.0)),
            None
        );
    }

    #[test]
    fn a_grainy_cell_is_not_one_of_a_flat_boards_empty_cells() {
        // Left half a flat grey panel, right half the same grey with grain.
        let img = RgbImage::from_fn(200, 100, |x, y| {
            let n = if x < 100 {
                0
            } else {
                ((x * 7 + y * 13) % 17) as i32 - 8
            };
            let v = (150 + 2 * n) as u8;
            image::Rgb([v, v, v])
        });
        let cal = lattice(2, 4, (10.0, 10.0), (40.0, 40.0));
        let grey = rgb_to_lab([150, 150, 150]);
        let flat = grain(&img, &cal, &[Cell::new(0, 0), Cell::new(1, 1)], grey);
        assert_eq!(flat, Some(0.0));
        let look = Emptiness {
            limit: 12.0,
            inside: Some((grey, 12.0)),
            tight: None,
            grain: flat,
        };
        assert!(empty_throughout(&img, &cal, Cell::new(0, 1), look, false));
        // Its points lie within the limit of the grey, but grainier.
        assert_eq!(
            empty_points(&img, &cal, Cell::new(0, 3), grey, 12.0),
            EMPTY_POINTS
        );
        assert!(!empty_throughout(&img, &cal, Cell::new(0, 3), look, false));
        let no_grain = Emptiness {
            grain: None,
            ..look
        };
        assert!(empty_throughout(
            &img,
            &cal,
            Cell::new(0, 3),
            no_grain,
            false
        ));
    }

    #[test]
    fn specks_are_two_unread_cells_apart_at_most() {
        let b = |s: &str| s.parse::<Board>().expect("board");
        assert!(specks(&b("..../.1../.12./2122")));
        assert!(specks(&b("?.../.1../.12./21?2")));
        assert!(specks(&b("?.?./.1../.12./2122")));
        // Side by side or corner to corner: a dialog, not popups.
        assert!(!specks(&b(".??./.1../.12./2122")));
        assert!(!specks(&b("?.../.?../.12./2122")));
        assert!(!specks(&b("?.?./.1../.12./21?2")));
    }

    #[test]
    fn two_colours_in_one_area_each_are_a_panel_on_a_backdrop() {
        // Either colour in two areas, a third colour, or past 16 cells: no.
        for (board, flat) in [
            ("000/011/011", true),
            ("001/001/00.", true),
            ("0000/0110/0110/0000", true),
            ("010/011/011", false),
            ("000/012/011", false),
            ("0.0/011/011", false),
            // An unread cell joins either colour's area; an empty one not.
            ("0?0/011/011", true),
            ("00000/11?1./11000", true),
            ("00000/11.1./11000", false),
            ("00000/01100/01100/00000", false),
        ] {
            let b = board.parse::<Board>().expect("board");
            assert_eq!(flat_areas(&b), flat, "{board}");
        }
    }

    #[test]
    fn white_discs_on_green_squares_are_no_holes() {
        // A 3x3 board of green squares (40 px, no gap) on a white window;
        // `discs` cells hold a white disc of radius 14 px, the rest are
        // either green or (`holes`) white all over.
        let (green, white) = ([40u8, 140, 90], [245u8, 245, 245]);
        let picture = |discs: &[(usize, usize)], holes: &[(usize, usize)]| {
            let mut img = RgbImage::from_pixel(160, 160, image::Rgb(white));
            for r in 0..3 {
                for c in 0..3 {
                    let hole = holes.contains(&(r, c));
                    let disc = discs.contains(&(r, c));
                    for y in 0..40 {
                        for x in 0..40 {
                            let (dx, dy) = (x as f64 - 19.5, y as f64 - 19.5);
                            let inside = dx * dx + dy * dy <= 14.0 * 14.0;
                            let px = if hole || (disc && inside) {
                                white
                            } else {
                                green
                            };
                            img.put_pixel(
                                20 + 40 * c as u32 + x,
                                20 + 40 * r as u32 + y,
                                image::Rgb(px),
                            );
                        }
                    }
                }
            }
            img
        };
        let mut cal = lattice(3, 3, (20.0, 20.0), (40.0, 40.0));
        cal.grid.cell_width = 40.0;
        cal.grid.cell_height = 40.0;
        cal.grid.gap_x = 0.0;
        cal.grid.gap_y = 0.0;
        cal.palette.empty = vec![rgb_to_lab(white)];
        cal.palette.colours = vec![PaletteColour {
            index: 0,
            name: String::new(),
            lab: rgb_to_lab(green),
        }];
        let board: Board = "0.0/000/.00".parse().expect("a board");
        let cells = [(0, 1), (2, 0)];
        let discs = picture(&cells, &[]);
        assert!(pieces_read_as_empty(&discs, &cal, &board).is_some());
        let holes = picture(&[], &cells);
        assert_eq!(pieces_read_as_empty(&holes, &cal, &board), None);
        // One disc read as empty is not enough to tell.
        let one: Board = "0.0/000/000".parse().expect("a board");
        assert_eq!(pieces_read_as_empty(&discs, &cal, &one), None);
    }

    /// A lattice as the finder hands it over: `rows` x `cols` tiles of
    /// `tile` pixels (width, height) at `pitch` (x, y) from `at`.
    fn lattice_at(
        rows: usize,
        cols: usize,
        at: (f64, f64),
        tile: (f64, f64),
        pitch: (f64, f64),
    ) -> FoundGrid {
        FoundGrid {
            rows,
            cols,
            grid: Grid {
                left: at.0,
                top: at.1,
                cell_width: tile.0,
                cell_height: tile.1,
                gap_x: pitch.0 - tile.0,
                gap_y: pitch.1 - tile.1,
            },
            uniform: 1.0,
            contrast: 30.0,
            score: 100.0,
            cells: Vec::new(),
            from_blobs: false,
        }
    }

    /// A collapse board in its frame with the pointer over a group of
    /// three tiles, drawn brighter (Swell Foop): the group reads as its
    /// colour, not as `?` or a colour of its own.
    #[test]
    fn a_hovered_group_reads_as_its_colour() {
        let colours = [[37u8, 71, 116], [62, 122, 5], [169, 149, 14]];
        let lit = |c: [u8; 3]| c.map(|v| (v as f32 * 1.6).round() as u8);
        let mut img = RgbImage::from_pixel(280, 300, image::Rgb([200u8, 200, 200]));
        for y in 40..240 {
            for x in 60..220 {
                img.put_pixel(x, y, image::Rgb([0, 0, 0]));
            }
        }
        let board = "..../1.../02../012./0112";
        let group = [(3, 1), (4, 1), (4, 2)];
        for (r, line) in board.split('/').enumerate() {
            for (c, v) in line.bytes().enumerate() {
                if v == b'.' {
                    continue;
                }
                let base = colours[(v - b'0') as usize];
                let colour = if group.contains(&(r, c)) {
                    lit(base)
                } else {
                    base
                };
                for y in 1..39 {
                    for x in 1..39 {
                        let (x, y) = (60 + 40 * c as u32 + x, 40 + 40 * r as u32 + y);
                        img.put_pixel(x, y, image::Rgb(colour));
                    }
                }
            }
        }
        let lattice = lattice_at(5, 4, (60.0, 40.0), (40.0, 40.0), (40.0, 40.0));
        let opts = CalibrateOptions::find("generic", Hints::default());
        let (reading, cal) = read_lattice(&img, &opts, &lattice).expect("the board");
        // Numbered by first appearance: 1, 0, 2.
        assert_eq!(reading.board.to_string(), "..../0.../12../102./1002");
        assert_eq!(cal.palette.colours.iter().map(|c| c.index).max(), Some(2));
    }

    /// A collapse board on a black area wider than itself, its top row
    /// mostly empty just below a toolbar (Klickety mid-game): the sides
    /// with tiles are its edges as they are, the top row's frame is seen,
    /// and it reads. A lattice taking in a square two columns beyond,
    /// with a column of background between, does not.
    #[test]
    fn a_board_on_a_wider_backdrop_is_read_to_its_tiles() {
        let colours = [[200u8, 90, 90], [90, 200, 90], [90, 90, 200]];
        let mut img = RgbImage::from_pixel(345, 400, image::Rgb([0u8, 0, 0]));
        for y in 0..56 {
            for x in 0..345 {
                img.put_pixel(x, y, image::Rgb([230, 230, 230]));
            }
        }
        let want = "0.../1201/2012/0120/1201";
        for (r, line) in want.split('/').enumerate() {
            for (c, v) in line.bytes().enumerate() {
                if v == b'.' {
                    continue;
                }
                for y in 0..40 {
                    for x in 0..40 {
                        let (x, y) = (100 + 40 * c as u32 + x, 60 + 40 * r as u32 + y);
                        let edge = x % 40 == 20 || y % 40 == 20;
                        let colour = if edge {
                            [0, 0, 0]
                        } else {
                            colours[(v - b'0') as usize]
                        };
                        img.put_pixel(x, y, image::Rgb(colour));
                    }
                }
            }
        }
        // A square of a tile colour two columns right of the board, by the
        // picture's edge.
        for y in 221..259 {
            for x in 301..339 {
                img.put_pixel(x, y, image::Rgb(colours[0]));
            }
        }
        let lattice = |cols: usize| lattice_at(5, cols, (100.0, 60.0), (40.0, 40.0), (40.0, 40.0));
        let opts = CalibrateOptions::find("generic", Hints::default());
        let (reading, cal) = read_lattice(&img, &opts, &lattice(4)).expect("the board");
        assert_eq!((cal.rows, cal.cols), (5, 4));
        assert_eq!(reading.board.to_string(), want);
        assert!(read_lattice(&img, &opts, &lattice(6)).is_err());
    }

    /// A lattice over the lower rows of a board of touching squares grows
    /// over the top row: where tiles touch, the colour found between two of
    /// them is theirs, and the top row's (mostly one colour) need not match
    /// the row below's.
    #[test]
    fn a_board_of_touching_tiles_grows_over_its_lines() {
        let colours = [[200u8, 40, 40], [40, 160, 60], [40, 70, 200]];
        let mut img = RgbImage::from_pixel(200, 200, image::Rgb([245u8, 245, 245]));
        let want = "2221/0001/1202/0120";
        for (r, line) in want.split('/').enumerate() {
            for (c, v) in line.bytes().enumerate() {
                for y in 0..30 {
                    for x in 0..30 {
                        let (x, y) = (20 + 30 * c as u32 + x, 20 + 30 * r as u32 + y);
                        img.put_pixel(x, y, image::Rgb(colours[(v - b'0') as usize]));
                    }
                }
            }
        }
        let lower = lattice_at(3, 4, (20.0, 50.0), (30.0, 30.0), (30.0, 30.0));
        let opts = CalibrateOptions::find("generic", Hints::default());
        let first = read_found(&img, &opts, Some(lower)).expect("the lower rows");
        assert_eq!(first.0.board.to_string(), "0001/1202/0120");
        let (reading, cal) = grown_known(&img, &opts, first);
        assert_eq!((cal.rows, cal.cols), (4, 4));
        assert_eq!(reading.board.to_string(), want);
    }

    /// A lattice over the left half of a board, where the palette lacks a
    /// colour of the right half: the lines beyond are plain tiles, and the
    /// board grows over them with a palette learned again; a panel of one
    /// colour beside the board is not taken in.
    #[test]
    fn a_board_grows_over_tiles_of_colours_unseen() {
        let colours = [
            [200u8, 40, 40],
            [40, 160, 60],
            [40, 70, 200],
            [150, 60, 190],
        ];
        let mut img = RgbImage::from_pixel(360, 200, image::Rgb([245u8, 245, 245]));
        let mut square = |x0: u32, y0: u32, w: u32, h: u32, colour: [u8; 3]| {
            for y in y0..y0 + h {
                for x in x0..x0 + w {
                    img.put_pixel(x, y, image::Rgb(colour));
                }
            }
        };
        // 30-pixel tiles at a pitch of 40 from (20, 20); the panel at the
        // seventh column's place.
        let want = "012303/120312/201031";
        for (r, line) in want.split('/').enumerate() {
            for (c, v) in line.bytes().enumerate() {
                let (x, y) = (20 + 40 * c as u32, 20 + 40 * r as u32);
                square(x, y, 30, 30, colours[(v - b'0') as usize]);
            }
        }
        square(260, 10, 60, 130, [230, 200, 40]);
        let left = lattice_at(3, 3, (20.0, 20.0), (30.0, 30.0), (40.0, 40.0));
        let opts = CalibrateOptions::find("generic", Hints::default());
        let first = read_found(&img, &opts, Some(left)).expect("the left half");
        assert_eq!(first.0.board.to_string(), "012/120/201");
        // Its own colours alone do not reach past the third column.
        let (known, _) = grown_known(&img, &opts, first.clone());
        assert_eq!(known.board.to_string(), "012/120/201");
        let (reading, cal) = grown(&img, &opts, first);
        assert_eq!((cal.rows, cal.cols), (3, 6));
        assert_eq!(reading.board.to_string(), want);
    }

    /// A picture with a header of coloured squares (a lattice of UI that
    /// the finder ranks first) beside a red panel, above a board of
    /// separate tiles: the header's lattice reads as a board with a tile
    /// colour just beyond its right side, so the lattice of blobs is read
    /// instead. With a highlight on each of the board's tiles (a quarter
    /// of the wider ring's points on the background's white), its tiles
    /// still agree with their colours by a majority, and it is read.
    #[test]
    fn a_lattice_with_tiles_beyond_gives_way_to_the_blobs() {
        for highlight in [false, true] {
            tiles_beyond_give_way(highlight);
        }
    }

    fn tiles_beyond_give_way(highlight: bool) {
        let colours = [
            [200u8, 40, 40],
            [40, 160, 60],
            [40, 70, 200],
            [230, 200, 40],
        ];
        let white = [245u8, 245, 245];
        let mut img = RgbImage::from_pixel(240, 400, image::Rgb(white));
        // The panel: beside the header's first two rows.
        for y in 20..74 {
            for x in 110..200 {
                img.put_pixel(x, y, image::Rgb(colours[0]));
            }
        }
        let mut square = |x0: u32, y0: u32, size: u32, colour: [u8; 3]| {
            for y in y0..y0 + size {
                for x in x0..x0 + size {
                    img.put_pixel(x, y, image::Rgb(colour));
                }
            }
        };
        // The header: 24-pixel squares at a pitch of 30 from (20, 20); the
        // board: 30-pixel tiles at a pitch of 40 from (20, 150).
        let want = "0123/1230/2301/3012/0213";
        for (rows, top, size, pitch) in [("012/120/201", 20, 24, 30), (want, 150, 30, 40)] {
            for (r, line) in rows.split('/').enumerate() {
                for (c, v) in line.bytes().enumerate() {
                    let (x, y) = (20 + pitch * c as u32, top + pitch * r as u32);
                    square(x, y, size, colours[(v - b'0') as usize]);
                    if highlight && top == 150 {
                        // 8 pixels, 6 up and left of the tile's centre.
                        square(x + 5, y + 5, 8, white);
                    }
                }
            }
        }
        let found =
            |rows: usize, cols: usize, at: (f64, f64), tile: f64, pitch: f64, blobs: bool| {
                FoundGrid {
                    score: if blobs { 0.0 } else { 100.0 },
                    from_blobs: blobs,
                    ..lattice_at(rows, cols, at, (tile, tile), (pitch, pitch))
                }
            };
        let header = found(3, 3, (20.0, 20.0), 24.0, 30.0, false);
        let board = found(5, 4, (20.0, 150.0), 30.0, 40.0, true);
        let opts = CalibrateOptions::find("generic", Hints::default());
        // The header alone reads as a board, with a tile colour just
        // beyond it.
        let (_, cal) = read_among(&img, &opts, std::slice::from_ref(&header)).expect("the header");
        assert_eq!((cal.rows, cal.cols), (3, 3));
        assert!(!bounded(&img, &cal));
        let (reading, cal) = read_among(&img, &opts, &[header, board]).expect("a board");
        assert_eq!((cal.rows, cal.cols), (5, 4));
        assert_eq!(reading.board.to_string(), want);
        // Held to an orb-drag board's sizes, the header is kept (and
        // refused later for its size).
        let pad = CalibrateOptions::find("pad", Hints::default());
        let (_, cal) = read_among(&img, &pad, &[found(3, 3, (20.0, 20.0), 24.0, 30.0, false)])
            .expect("the header");
        assert_eq!((cal.rows, cal.cols), (3, 3));
    }

    #[test]
    fn a_lattice_listed_again_is_the_same_lattice() {
        let found = |rows: usize, left: f64, pitch_y: f64| FoundGrid {
            rows,
            cols: 3,
            grid: Grid {
                left,
                top: 296.5,
                cell_width: 20.6,
                cell_height: pitch_y,
                gap_x: 10.3,
                gap_y: 0.0,
            },
            uniform: 1.0,
            contrast: 20.0,
            score: 1.0,
            cells: Vec::new(),
            from_blobs: false,
        };
        let a = found(3, 10.4, 23.26);
        // The other axis refined 2.7 % longer: the same.
        assert!(same_lattice(&a, &found(3, 10.4, 23.88)));
        // A row more, or a third of a pitch along, or 5 % longer: another.
        assert!(!same_lattice(&a, &found(4, 10.4, 23.26)));
        assert!(!same_lattice(&a, &found(3, 20.7, 23.26)));
        assert!(!same_lattice(&a, &found(3, 10.4, 24.5)));
    }

    /// An outer line whose tile colours are seen nowhere else is dropped
    /// only when that is unlikely by chance: a UI row of four cells of
    /// its own colour above a board is; a 3x4 board's first column, with
    /// the board's only two cells of one colour, is not (unless the lattice
    /// was refused whole: `bare`), nor a 3x6 board's.
    #[test]
    fn a_line_of_its_own_colours_is_dropped_unless_by_chance() {
        let found = |rows: usize, cols: usize| FoundGrid {
            rows,
            cols,
            grid: Grid {
                left: 10.0,
                top: 10.0,
                cell_width: 30.0,
                cell_height: 30.0,
                gap_x: 4.0,
                gap_y: 4.0,
            },
            uniform: 1.0,
            contrast: 20.0,
            score: 1.0,
            cells: Vec::new(),
            from_blobs: false,
        };
        let values = |board: &str| -> Vec<u8> {
            let b: Board = board.parse().expect("a board");
            b.cells().to_vec()
        };
        let opts = CalibrateOptions::find("generic", Hints::default());
        let ui = values("4444/0120/1201/2012/0210");
        let t = trimmed(&opts, &found(5, 4), &ui, false).expect("the UI row dropped");
        assert_eq!((t.rows, t.cols, t.grid.top), (4, 4, 44.0));
        let board = values("1222/1223/.2.2");
        assert!(trimmed(&opts, &found(3, 4), &board, false).is_none());
        let t = trimmed(&opts, &found(3, 4), &board, true).expect("refused whole: cut");
        assert_eq!((t.rows, t.cols), (3, 3));
        // Two cells of one colour in one of a 3x6 board's outer columns:
        // odds of 36 for that column, but four sides were looked at.
        let board = values(".23434/042231/043241");
        assert!(trimmed(&opts, &found(3, 6), &board, false).is_none());
    }

    #[test]
    fn lines_beyond_a_board_need_two_tile_colours() {
        assert!(tiles_vary(&[0, 0]));
        assert!(tiles_vary(&[0, 1, 1, EMPTY]));
        assert!(tiles_vary(&[EMPTY, 2, EMPTY, 2]));
        assert!(!tiles_vary(&[0, 0, 0, 0, 0]));
        assert!(!tiles_vary(&[3, EMPTY, 3, 3]));
    }

    #[test]
    fn a_lattice_is_cut_to_the_lines_inside_the_picture() {
        let img = RgbImage::new(100, 60);
        let found = |left: f64, top: f64, rows: usize, cols: usize| FoundGrid {
            rows,
            cols,
            grid: Grid {
                left,
                top,
                cell_width: 18.0,
                cell_height: 18.0,
                gap_x: 2.0,
                gap_y: 2.0,
            },
            uniform: 1.0,
            contrast: 20.0,
            score: 1.0,
            cells: (0..rows * cols).map(|i| [i as f32, 0.0, 0.0]).collect(),
            from_blobs: true,
        };
        // Columns at -10, 10, .., 90 (the first and last out), rows at
        // 1, 21, 41 (all in).
        let wide = found(-10.0, 1.0, 3, 6);
        let cut = inside(&img, &wide);
        assert_eq!((cut.rows, cut.cols), (3, 4));
        assert_eq!((cut.grid.left, cut.grid.top), (10.0, 1.0));
        assert_eq!(cut.cells[0], [1.0, 0.0, 0.0]);
        assert_eq!(cut.cells[4], [7.0, 0.0, 0.0]);
        // A lattice inside is itself.
        let fits = found(2.0, 2.0, 2, 4);
        assert!(matches!(inside(&img, &fits), std::borrow::Cow::Borrowed(_)));
        // Less than a pixel past the left edge: moved onto it, all kept,
        // its right end where it was.
        let moved = inside(&img, &found(-0.5, 1.0, 3, 5)).into_owned();
        assert_eq!((moved.rows, moved.cols), (3, 5));
        assert_eq!(moved.grid.left, 0.0);
        let right = 5.0 * moved.grid.pitch_x() - moved.grid.gap_x;
        assert!((right - 97.5).abs() < 1e-9, "{right}");
        // 1.2 past the right edge: the tiles narrowed to end there, all
        // kept.
        let narrowed = inside(&img, &found(3.2, 1.0, 3, 5)).into_owned();
        assert_eq!((narrowed.rows, narrowed.cols), (3, 5));
        let right = narrowed.grid.left + 5.0 * narrowed.grid.pitch_x() - narrowed.grid.gap_x;
        assert!((right - 100.45).abs() < 1e-9, "{right}");
        // Two pixels past, a tenth of a pitch on a short lattice: the line
        // is cut.
        assert_eq!(inside(&img, &found(4.5, 1.0, 3, 5)).cols, 4);
        // On a long one, 1.5 % of its extent: squeezed, all kept (a board
        // against the window's edge, its pitch measured 0.3 % long).
        let img = RgbImage::new(960, 60);
        let long = FoundGrid {
            grid: Grid {
                cell_width: 120.29,
                gap_x: 0.0,
                ..found(-1.0, 1.0, 3, 8).grid
            },
            ..found(-1.0, 1.0, 3, 8)
        };
        let squeezed = inside(&img, &long).into_owned();
        assert_eq!((squeezed.rows, squeezed.cols), (3, 8));
        assert_eq!(squeezed.grid.left, 0.0);
        let right = 8.0 * squeezed.grid.pitch_x();
        assert!((right - 960.42).abs() < 1e-9, "{right}");
    }

    /// A highlight on every tile costs each tile a third of its footprint's
    /// points, but every tile still agrees by a majority; a lattice half a
    /// tile off, each cell over four tiles of a checker, does not.
    #[test]
    fn tiles_agree_by_majority_through_highlights() {
        let (green, red, white) = ([40u8, 140, 90], [200u8, 50, 40], [245u8, 245, 245]);
        let mut img = RgbImage::from_pixel(200, 200, image::Rgb(white));
        for r in 0..4u32 {
            for c in 0..4u32 {
                let colour = if (r + c).is_multiple_of(2) {
                    green
                } else {
                    red
                };
                for y in 0..40 {
                    for x in 0..40 {
                        // The top two fifths of each tile: a white highlight.
                        let px = if y < 16 { white } else { colour };
                        img.put_pixel(20 + 40 * c + x, 20 + 40 * r + y, image::Rgb(px));
                    }
                }
            }
        }
        let at = |left: f64, top: f64| {
            let mut cal = lattice(4, 4, (left, top), (40.0, 40.0));
            cal.grid.cell_width = 40.0;
            cal.grid.cell_height = 40.0;
            cal.grid.gap_x = 0.0;
            cal.grid.gap_y = 0.0;
            paint(&mut cal, &[green, red], white);
            cal
        };
        let board: Board = "0101/1010/0101/1010".parse().expect("a board");
        let (points, tiles) = footprints(&img, &at(20.0, 20.0), &board, 0.3, false);
        assert!((points - 8.0 / 12.0).abs() < 0.01, "{points}");
        assert_eq!(tiles, 1.0);
        // Half a tile off: 3x3 cells, each over four tiles.
        let mut off = at(40.0, 40.0);
        (off.rows, off.cols) = (3, 3);
        let board: Board = "010/101/010".parse().expect("a board");
        let (_, tiles) = footprints(&img, &off, &board, 0.3, false);
        assert!(tiles < TILES_AGREE, "{tiles}");
    }

    #[test]
    fn a_finer_lattice_covers_a_coarse_one_only_at_a_multiple_of_its_pitch() {
        // The board: 10x4 tiles of 20 px at (25, 95).
        let board = lattice(10, 4, (25.0, 95.0), (20.0, 20.0));
        // A 3x3 lattice at ~5x the pitch over the board and the panel.
        let coarse = lattice(3, 3, (8.0, 37.0), (99.4, 129.0));
        assert!(finer_cover(&board, &coarse));
        assert!(!finer_cover(&coarse, &board), "coarser, fewer cells");
        // Every other row of a 5x10 board: twice the row pitch.
        let rows2 = lattice(3, 10, (53.0, 132.0), (36.3, 72.6));
        assert!(finer_cover(
            &lattice(5, 10, (53.0, 132.0), (36.3, 36.3)),
            &rows2
        ));
        // The same pitch with more cells (a row of UI beside the board) is
        // no sign.
        let more = lattice(12, 4, (25.0, 55.0), (20.0, 20.0));
        assert!(!finer_cover(&more, &board));
        // A finer lattice elsewhere in the picture (text, a bar).
        let away = lattice(3, 12, (400.0, 600.0), (15.0, 15.0));
        assert!(!finer_cover(&away, &coarse));
    }

    #[test]
    fn blocks_of_one_tile_tell_a_lattice_too_fine() {
        let blocks = |t: &str| blocks_of_one_tile(&t.parse().expect("board text"));
        // Seed 11137's 3x5 board read at a third of its pitch: each tile
        // 3x3 cells, its middle the symbol's colour.
        let fine = "000000000111111/0.00.00.0121121/000000000111111/\
                    333111111333333/343121121343343/333111111333333/\
                    111333333111000/1213433431210.0/111333333111000";
        assert_eq!(blocks(fine), Some(3));
        // Half the pitch, one row of cells off the blocks.
        assert_eq!(blocks("0123/0011/0011/2233/2233/1100/1100"), Some(2));
        // Dealt boards, and a board of two colours with clusters.
        assert_eq!(blocks("0123/2301/1032/3210/0213/1302"), None);
        assert_eq!(blocks("001101/001100/110011/110101/001010/010110"), None);
        // Empty cells are no blocks of tiles.
        assert_eq!(blocks("..../..../..../..../0101/1010"), None);
    }

    #[test]
    fn binomial_tail_against_a_sum() {
        let choose = |n: u64, k: u64| (0..k).fold(1.0, |a, i| a * (n - i) as f64 / (i + 1) as f64);
        for (n, k, p) in [
            (7usize, 3usize, 0.021f64),
            (10, 0, 0.5),
            (10, 10, 0.5),
            (5, 2, 0.3),
            (4, 6, 0.2),
        ] {
            let sum: f64 = (k..=n)
                .map(|i| {
                    choose(n as u64, i as u64) * p.powi(i as i32) * (1.0 - p).powi((n - i) as i32)
                })
                .sum();
            assert!((binomial_tail(n, k, p) - sum).abs() < 1e-9, "{n} {k} {p}");
        }
    }

    #[test]
    fn one_tile_a_cell_tells_repeated_tiles_and_gap_lines() {
        let one = |t: &str| one_tile_a_cell(&t.parse().expect("board text"), 0.2);
        // Random tiles of four colours.
        assert!(one("0123/2301/1032/3210/0213"));
        assert!(one("012/1.0/201/120"), "holes are fine");
        // A lattice at 2/3 of the column pitch reads tiles twice.
        assert!(!one("00122233/11300022/00233122/33233000"));
        // Half the row pitch: each row twice.
        assert!(!one("0123/0123/2301/2301/1032/1032"));
        // Extra rows on the gaps between rows of tiles.
        assert!(!one("0120/..../1102/2122/..../0212"));
        // 2/3 of the row pitch on five rows of three colours: every other
        // row twice, the neighbouring cells alike no more than by chance.
        assert!(!one("0001/0001/2012/0101/0101/0221/2010/2010"));
        assert!(one("0001/1001/2012/0101/1101/0221/2010/1010"));
        // Lines alike by chance on a narrow board of two colours.
        assert!(one("010/010/101/101/011"));
    }

    #[test]
    fn stripes_of_one_colour_a_line_are_a_backdrop() {
        let striped_of = |t: &str| striped(&t.parse().expect("board text"));
        // KDiamond's gold backdrop under a lattice four gems a cell; KBlocks'
        // wallpaper with no game: darker towards the bottom.
        assert_eq!(striped_of("000/000/111"), Some("row"));
        assert_eq!(striped_of("12222?/111111/333333"), Some("row"));
        assert_eq!(striped_of("0120/0120/0120"), Some("column"));
        // Boards dealt at random, a match-3 board, a board with holes.
        assert_eq!(striped_of("0011/1200/2211/0022"), None);
        assert_eq!(striped_of("01201201/12012012/20120120"), None);
        assert_eq!(striped_of("000/0.0/111"), None);
        // Two odd cells on 18: stripes no longer.
        assert_eq!(striped_of("122221/111111/333333"), None);
        let b: Board = "000/000/111".parse().expect("board text");
        assert!(plausible(&b, Seen::Guessed, false).is_err());
        assert!(plausible(&b, Seen::Known, false).is_err());
    }

    #[test]
    fn a_board_repeating_itself_is_ui() {
        let repeats_of = |t: &str| repeats(&t.parse().expect("board text"));
        // The word on three buttons (held-out seed 1112 read it as 3x8).
        assert_eq!(
            repeats_of("00100100/10110110/00100100"),
            Some(("column", 3))
        );
        assert_eq!(repeats_of("0120/12?1/0120/1201/0120"), Some(("row", 2)));
        let b: Board = "00100100/10110110/00100100".parse().expect("board text");
        assert!(plausible(&b, Seen::Guessed, false).is_err());
        // Under 12 cells repeated: chance, not UI.
        assert_eq!(repeats_of("012/012/120"), None);
        // Dealt boards: none of 3000 (3-6 colours, 3-12 a side) repeats.
        for b in dealt_boards(7, 3) {
            assert_eq!(repeats(&b), None, "{b}");
        }
    }

    /// 3000 boards dealt at random from `seed`: 3-6 colours, `least` to 12
    /// cells a side.
    fn dealt_boards(seed: u64, least: usize) -> Vec<Board> {
        let mut rng = crate::rng::SplitMix64::new(seed);
        (0..3000)
            .map(|_| {
                let span = 13 - least;
                let (rows, cols) = (least + rng.below(span), least + rng.below(span));
                let k = 3 + rng.below(4);
                let text: Vec<String> = (0..rows)
                    .map(|_| {
                        (0..cols)
                            .map(|_| char::from(b'0' + rng.below(k) as u8))
                            .collect()
                    })
                    .collect();
                text.join("/").parse().expect("board text")
            })
            .collect()
    }

    #[test]
    fn a_band_or_a_margin_round_the_lattice_is_no_board() {
        let refused = |t: &str| {
            let b: Board = t.parse().expect("board text");
            plausible(&b, Seen::Guessed, false).is_err()
        };
        // The band under a header's pixel text (sparse 7459): its bottom
        // row all one colour, eight cells or more.
        assert!(refused("0100220000?1/000222000?02/222222222222"));
        // Seven cells alike: chance on a small board, still read.
        assert!(!refused("0121020/1002112/2110201/1111111"));
        // A panel's margin on the top and bottom rows only (dense 6264:
        // 14 of 20 cells), or round the ring (6276: 22 of 28).
        assert!(refused(
            "??00000012/1223424513/5245123453/1522445513/0000000012"
        ));
        assert!(refused("0000000/0123410/0412340/0234120/0000000"));
        // A colour on half the outer columns by chance (dense 2224: 5 of
        // 10 cells) is a board's.
        assert!(!refused("0010012/1101103/...2123/3001103/1002223"));
        // Dealt boards (3-6 colours, 5-12 a side): none of 3000 is refused
        // by either rule (other rules refuse a few: small boards that
        // happen to have their colours in areas).
        for b in dealt_boards(11, 5) {
            if let Err(e) = plausible(&b, Seen::Guessed, false) {
                let e = e.to_string();
                assert!(
                    !e.contains("a margin") && !e.contains("all along"),
                    "{b}: {e}"
                );
            }
        }
    }

    fn holes_of(text: &str) -> bool {
        let b: Board = text.parse().expect("board text");
        let (rows, cols) = (b.rows(), b.cols());
        holes(
            &b,
            std::array::from_fn(|i| mostly_empty(&b, &side_line(rows, cols, i, 0))),
        )
    }

    #[test]
    fn outer_lines_of_holes_are_told_from_cleared_areas() {
        // Holes scattered over the board, one outer line mostly holes.
        assert!(holes_of("1222/.13./212."));
        assert!(holes_of(".12.10/.0001./001222"));
        // Empties only on the sparse line: a lattice one line too long.
        assert!(!holes_of("400/211/043/333/..3"));
        // Settled under gravity (a collapse board mid-game): its size is
        // not seen.
        assert!(!holes_of("1.../12../121./1212"));
        // Two mostly empty lines in from the edge: an empty area.
        assert!(!holes_of("00010/00010/11111/..2../..2.."));
        // The sparse line's only tile has a colour seen nowhere else.
        assert!(!holes_of("1224/.13./212."));
        // A whole empty row between the tiles and a line below: a gap to
        // something else, not holes.
        assert!(!holes_of("1222/213./212./..../2.1."));
        // Empties everywhere: a lattice finer than the tiles.
        assert!(!holes_of(".1..2./111222/.1..2./.2.1../222111/.2..1."));
        // Through `plausible`: read, or refused as before.
        let b: Board = "1222/.13./212.".parse().expect("board text");
        assert!(plausible(&b, Seen::Guessed, false).is_ok());
        let b: Board = "1.../12../121./1212".parse().expect("board text");
        assert!(plausible(&b, Seen::Guessed, false).is_err());
    }

    #[test]
    fn tiles_on_every_other_line_are_a_lattice_at_half_the_pitch() {
        let half = |t: &str| every_other_line(&t.parse().expect("board text"));
        // Gweled on a phone screen at half the pitch: tiles on rows and
        // columns 0, 2, 4, .. only.
        assert!(half("0.1.0.2/......./5.5.6.0/......./3.6.4.3"));
        // On the odd lines.
        assert!(half("....../.1.2.3/....../.4.1.2/......"));
        // Refused through `plausible`, framed or not.
        let b: Board = "0.1.0.2/......./5.5.6.0/......./3.6.4.3"
            .parse()
            .expect("board");
        assert!(plausible(&b, Seen::Framed, false).is_err());
        // One tile between the lines: a board.
        assert!(!half("0.1.0.2/...1.../5.5.6.0/......./3.6.4.3"));
        // An unread cell between the lines is no tile (seed 16304).
        assert!(half(
            "......./.0.1?1./......./.0.2.3./......./.2.2.2./......."
        ));
        // Every other row empty but the columns full: a board emptied in
        // bands (no half pitch across).
        assert!(!half("0120120/......./5156140/......./3164313"));
        // A checker of pieces: no empty line.
        assert!(!half("0.1.0/.2.1./0.1.0/.2.1./0.1.0"));
        // Too few tiles to tell, or too small a lattice.
        assert!(!half("0.1../...../...../...../....2"));
        assert!(!half("0.1/.../2.3"));
    }

    #[test]
    fn clusters_with_no_gap_merge_and_separated_ones_stay() {
        // Two groups 8 apart, each spread over 6 around its centre: one
        // colour. A third 40 away stays.
        let around = |c: Lab| {
            [
                [0.0, 0.0, 0.0],
                [6.0, 0.0, 0.0],
                [-6.0, 0.0, 0.0],
                [0.0, 6.0, 0.0],
            ]
            .map(|d| [c[0] + d[0], c[1] + d[1], c[2] + d[2]])
        };
        let mut pts: Vec<Lab> = Vec::new();
        pts.extend(around([50.0, 20.0, 20.0]));
        pts.extend(around([50.0, 28.0, 20.0]));
        pts.extend(around([50.0, -20.0, 20.0]));
        let mut assign: Vec<usize> = (0..12).map(|i| i / 4).collect();
        merge_overlapping(&pts, &mut assign, 20.0);
        assert!(assign[..8].iter().all(|&a| a == assign[0]));
        assert!(assign[8..].iter().all(|&a| a == assign[8]));
        assert_ne!(assign[0], assign[8]);
        // Tight groups 16 apart (reaches 1): two colours.
        let tight = |c: Lab| [c, [c[0] + 1.0, c[1], c[2]], [c[0], c[1] + 1.0, c[2]]];
        let mut pts: Vec<Lab> = tight([50.0, 20.0, 20.0]).to_vec();
        pts.extend(tight([50.0, 36.0, 20.0]));
        let mut assign: Vec<usize> = (0..6).map(|i| i / 3).collect();
        merge_overlapping(&pts, &mut assign, 20.0);
        assert_ne!(assign[0], assign[3]);
    }

    #[test]
    fn a_blend_of_a_tile_and_the_empty_colour_is_its_blur() {
        let (black, green) = ([0.0, 0.0, 0.0], [60.0, -50.0, 40.0]);
        let blend = |f: f32| [60.0 * f, -50.0 * f, 40.0 * f];
        assert!(blend_of(Some(blend(0.3)), Some(green), Some(black)));
        assert!(blend_of(Some(blend(0.9)), Some(green), Some(black)));
        // A grey frame past the tile, the tile's own colour far past it,
        // the empty colour itself, a tile too near the empty colour: no.
        assert!(!blend_of(Some([30.0, 0.0, 0.0]), Some(green), Some(black)));
        assert!(!blend_of(Some(blend(1.3)), Some(green), Some(black)));
        assert!(!blend_of(Some(blend(0.01)), Some(green), Some(black)));
        assert!(!blend_of(
            Some([4.0, 0.0, 0.0]),
            Some([8.0, 0.0, 0.0]),
            Some(black)
        ));
        assert!(!blend_of(None, Some(green), Some(black)));
    }

    #[test]
    fn two_hues_in_one_cluster_split_and_a_shaded_colour_stays_one() {
        // Red and orange as Five or More's balls dimmed: 17 apart, each
        // spread over about 5 (a ball's highlight), in one k-means cluster.
        let spread = |c: Lab, k: usize| -> Lab {
            let d = [
                [0.0, 0.0, 0.0],
                [4.0, 2.0, 0.0],
                [-3.0, 0.0, 3.0],
                [0.0, -4.0, -2.0],
            ][k % 4];
            [c[0] + d[0], c[1] + d[1], c[2] + d[2]]
        };
        let (red, orange) = ([50.0, 19.0, 8.0], [54.0, 6.0, 19.0]);
        let mut pts: Vec<Lab> = (0..12).map(|k| spread(red, k)).collect();
        pts.extend((0..10).map(|k| spread(orange, k)));
        let mut assign = vec![0usize; pts.len()];
        split_two_modes(&pts, &mut assign, (20.0, 20.0));
        assert!(assign[..12].iter().all(|&a| a == assign[0]));
        assert!(assign[12..].iter().all(|&a| a == assign[12]));
        assert_ne!(assign[0], assign[12]);
        // Hues going evenly from orange-red to yellow-green, 40 apart end
        // to end (no gap): one cluster; with the middle taken out, two.
        let sweep: Vec<Lab> = (0..22)
            .map(|k| [50.0, 30.0 - 40.0 * k as f32 / 21.0, 20.0])
            .collect();
        let mut assign = vec![0usize; sweep.len()];
        split_two_modes(&sweep, &mut assign, (20.0, 20.0));
        assert!(assign.iter().all(|&a| a == 0));
        let ends: Vec<Lab> = sweep
            .iter()
            .enumerate()
            .filter(|(k, _)| !(7..15).contains(k))
            .map(|(_, l)| *l)
            .collect();
        let mut assign = vec![0usize; ends.len()];
        split_two_modes(&ends, &mut assign, (20.0, 20.0));
        assert_ne!(assign[0], assign[ends.len() - 1]);
        // A flat black beside a dark purple, 20 apart: no two hues, one
        // cluster (the labels of other clusters kept).
        let mut pts: Vec<Lab> = vec![[4.3, 0.0, 0.0]; 6];
        pts.extend((0..16).map(|k| spread([20.0, 9.0, -9.0], k)));
        pts.push([70.0, -40.0, 30.0]);
        let mut assign = vec![0usize; pts.len()];
        assign[22] = 1;
        split_two_modes(&pts, &mut assign, (20.0, 20.0));
        assert!(assign[..22].iter().all(|&a| a == 0));
        assert_eq!(assign[22], 1);
    }

    #[test]
    fn a_lone_cell_near_a_colour_joins_it() {
        let a = [50.0f32, 20.0, 0.0];
        let b = [50.0f32, -40.0, 0.0];
        let mut pts: Vec<Lab> = (0..5)
            .map(|i| [a[0] + i as f32 * 0.2, a[1], a[2]])
            .collect();
        pts.extend((0..5).map(|i| [b[0], b[1] + i as f32 * 0.2, b[2]]));
        // 15 from the first colour (a ball read through its symbol), 30
        // from both (a colour of its own).
        pts.push([a[0] + 15.0, a[1], a[2]]);
        pts.push([a[0] - 30.0, a[1] - 30.0, a[2]]);
        let mut assign = vec![0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 3];
        merge_lone(&pts, &mut assign, 20.0);
        assert_eq!(assign, vec![0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 3]);
    }

    /// Two tight groups of one hue and lightness, 10 apart in chroma (two
    /// greens of a skin), are two colours; a group of touching cells far
    /// off but darker (a dimmed group) is a shade, kept in the cluster,
    /// and the same cells dealt apart over the board are a dark green.
    #[test]
    fn near_colours_of_one_hue_split_unless_a_shade() {
        let green = [89.0f32, -71.3, 72.7];
        let tight = |c: Lab, n: usize| -> Vec<Lab> {
            (0..n)
                .map(|i| {
                    [
                        c[0] + 0.3 * (i % 3) as f32,
                        c[1] - 0.2 * (i % 2) as f32,
                        c[2],
                    ]
                })
                .collect()
        };
        // The green's cells along row 0; the other's along row 1 (one
        // group), or every other cell of rows 1 and 2 (dealt apart).
        let group: Vec<(usize, Cell)> = (0..12)
            .map(|c| (0, Cell::new(0, c)))
            .chain((0..6).map(|c| (0, Cell::new(1, c))))
            .collect();
        let apart: Vec<(usize, Cell)> = (0..12)
            .map(|c| (0, Cell::new(0, c)))
            .chain((0..6).map(|k| (0, Cell::new(1 + k % 2, 2 * k))))
            .collect();
        let darker = [72.0, -71.3 * 0.85, 72.7 * 0.85];
        for (other, cells, split) in [
            ([89.0f32, -75.0, 82.6], &group, true),
            (darker, &group, false),
            (darker, &apart, true),
        ] {
            let mut pts = tight(green, 12);
            pts.extend(tight(other, 6));
            let mut assign = vec![0usize; pts.len()];
            let mut centres = vec![mean(&pts)];
            split_outliers(&pts, cells, &mut assign, &mut centres, (10.0, 20.0));
            assert_eq!(centres.len() == 2, split, "{other:?}");
            assert_eq!(assign[12..].iter().all(|&a| a == 1), split);
        }
    }

    #[test]
    fn kmeans_separates_obvious_clusters() {
        let a = [50.0, 60.0, 40.0];
        let b = [80.0, -60.0, 60.0];
        let pts = vec![a, b, a, [51.0, 59.0, 41.0], b, [79.0, -61.0, 59.0]];
        let (assign, centres) = kmeans(&pts, None, 20.0);
        assert_eq!(centres.len(), 2);
        assert_eq!(assign[0], assign[2]);
        assert_eq!(assign[0], assign[3]);
        assert_eq!(assign[1], assign[4]);
        assert_ne!(assign[0], assign[1]);
        let (_, centres) = kmeans(&pts, Some(3), 20.0);
        assert_eq!(centres.len(), 3);
    }

    /// A profile past a side: `line` where a grid line is, else empty.
    fn goes_on(profile: &[Lab], d: usize, pitch: f64) -> Option<(usize, usize)> {
        let empty = [60.0, 0.0, -20.0];
        line_goes_on(
            d,
            pitch,
            |x| profile.get(x).map(|&l| delta_e(l, empty) > 5.0),
            |x| profile.get(x).copied(),
        )
    }

    #[test]
    fn a_line_a_pitch_from_its_like_is_the_grid_going_on() {
        let (empty, line) = ([60.0, 0.0, -20.0], [45.0, 0.0, -20.0]);
        let black = [5.0, 0.0, 0.0];
        let grey = [75.0, 0.0, 0.0];
        // Lines 3 px wide at 1..4 and 34..37, a pitch of 33.
        let grid: Vec<Lab> = (0..60)
            .map(|x| {
                if (1..4).contains(&(x % 33)) {
                    line
                } else {
                    empty
                }
            })
            .collect();
        assert_eq!(goes_on(&grid, 1, 33.0), Some((1, 34)));
        // The same line followed by the board's frame: still a line of the
        // grid (its last cells lie between them).
        let mut last = grid.clone();
        last[37..].iter_mut().for_each(|l| *l = black);
        assert_eq!(goes_on(&last, 1, 33.0), Some((1, 34)));
        // A frame (no line a pitch on), a thick band, a line of another
        // colour a pitch on (a window's edge past a black frame), a line
        // at two thirds of a pitch: no grid.
        let frame: Vec<Lab> = (0..60)
            .map(|x| if x >= 1 { black } else { empty })
            .collect();
        assert_eq!(goes_on(&frame, 1, 33.0), None);
        let lone: Vec<Lab> = (0..60)
            .map(|x| if (1..4).contains(&x) { line } else { empty })
            .collect();
        assert_eq!(goes_on(&lone, 1, 33.0), None);
        let edge: Vec<Lab> = (0..60)
            .map(|x| match x {
                1..=4 => black,
                34..=35 => grey,
                _ => empty,
            })
            .collect();
        assert_eq!(goes_on(&edge, 1, 33.0), None);
        let near: Vec<Lab> = (0..60)
            .map(|x| {
                if (1..4).contains(&x) || (23..26).contains(&x) {
                    line
                } else {
                    empty
                }
            })
            .collect();
        assert_eq!(goes_on(&near, 1, 33.0), None);
    }
}
