//! Learning a calibration from one screenshot.
//!
//! Coordinates: the screenshot's window pixels become the calibration's
//! reference window (so the calibration fits that window size exactly).
//!
//! Steps: find the grid ([`super::locate`]) or take a given rectangle; read
//! every cell's robust colour with the sampling pattern; then name the colours:
//! - with a known board (`board`): every colour index is the robust centre of
//!   the cells labelled with it (exact indices, the cleanest way);
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

use super::classify::{read_board, read_cells, CellReading};
use super::colour::{delta_e, mean, median_mut, rgb_to_lab, robust_centre, Lab};
use super::layout::{
    Anchor, Calibration, Grid, Palette, PaletteColour, Sampling, WindowSize, SCHEMA,
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
            locate: LocateParams::default(),
        }
    }
}

/// What to calibrate.
#[derive(Debug, Clone)]
pub struct CalibrateOptions {
    /// Game name stored in the file (informational).
    pub game: String,
    pub rows: usize,
    pub cols: usize,
    /// Number of colours (without `board`); `None` chooses by distance gap.
    pub colours: Option<usize>,
    /// The board shown on the screenshot, if known: exact palette indices.
    pub board: Option<Board>,
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
            colours: None,
            board: None,
            rect: None,
            gap: 0.0,
            first_index,
            sampling: None,
            params: CalibrateParams::default(),
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
    /// Members farther than the class allows (e.g. a hover highlight).
    pub outliers: Vec<Cell>,
}

/// What calibration measured and decided.
#[derive(Debug, Clone)]
pub struct CalibrationReport {
    /// The locator's measurements (None when the rectangle was given).
    pub located: Option<Located>,
    pub classes: Vec<ClassStats>,
    /// Closest pair of references with different values, and their ΔE.
    pub min_separation: Option<(u8, u8, f32)>,
    pub threshold: f32,
    pub max_spread: f32,
    /// The colour just outside the board.
    pub background: Option<Lab>,
    /// The board read back with the new calibration (or the error text).
    pub read_back: Result<Board, String>,
    /// Cells where the read-back differs from the given board.
    pub mismatches: Vec<Cell>,
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

/// Median Lab of the pixels in a band around the board rectangle (outside
/// it), if any of the band is in the picture.
fn background_around(img: &RgbImage, grid: &Grid, rows: usize, cols: usize) -> Option<Lab> {
    let (x, y) = (grid.left, grid.top);
    let w = cols as f64 * grid.pitch_x() - grid.gap_x;
    let h = rows as f64 * grid.pitch_y() - grid.gap_y;
    let band = (grid.pitch_x().min(grid.pitch_y()) * 0.3).max(2.0);
    let mut samples: Vec<Lab> = Vec::new();
    let (iw, ih) = (img.width() as f64, img.height() as f64);
    let mut push = |px: f64, py: f64| {
        if px >= 0.0 && py >= 0.0 && px < iw && py < ih {
            samples.push(rgb_to_lab(img.get_pixel(px as u32, py as u32).0));
        }
    };
    let steps = 64;
    for k in 0..=steps {
        let t = k as f64 / steps as f64;
        push(x + t * w, y - band);
        push(x + t * w, y + h + band);
        push(x - band, y + t * h);
        push(x + w + band, y + t * h);
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
    if samples.len() < 8 {
        return None;
    }
    let mut med = [0f32; 3];
    for (k, m) in med.iter_mut().enumerate() {
        let mut v: Vec<f32> = samples.iter().map(|s| s[k]).collect();
        *m = median_mut(&mut v);
    }
    Some(med)
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
            let members: Vec<Lab> = points
                .iter()
                .zip(&assign)
                .filter(|(_, &a)| a == j)
                .map(|(p, _)| *p)
                .collect();
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

/// Robust class colour and its stats from member cells.
fn class_stats(value: u8, members: &[(Cell, CellReading)]) -> ClassStats {
    let labs: Vec<Lab> = members.iter().map(|m| m.1.lab).collect();
    let (lab, _) = robust_centre(&labs);
    let mut d: Vec<f32> = labs.iter().map(|l| delta_e(*l, lab)).collect();
    let med = median_mut(&mut d.clone());
    let limit = (4.0 * med).max(6.0);
    let mut outliers = Vec::new();
    let mut max_distance = 0f32;
    for (m, dist) in members.iter().zip(d.iter_mut()) {
        if *dist > limit {
            outliers.push(m.0);
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
    }
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

/// Learns a calibration from a screenshot of the game window.
pub fn calibrate(
    img: &RgbImage,
    opts: &CalibrateOptions,
) -> Result<(Calibration, CalibrationReport), VisionError> {
    let (rows, cols) = (opts.rows, opts.cols);
    if !(1..=64).contains(&rows) || !(1..=64).contains(&cols) {
        return Err(VisionError::Calibrate(format!(
            "rows {rows} x cols {cols} out of range 1..=64"
        )));
    }
    if let Some(b) = &opts.board {
        if (b.rows(), b.cols()) != (rows, cols) {
            return Err(VisionError::Calibrate(format!(
                "--board is {}x{} but --rows/--cols say {rows}x{cols}",
                b.rows(),
                b.cols()
            )));
        }
    }
    let p = &opts.params;
    let mut warnings = Vec::new();

    // 1. Geometry.
    let (grid, located) = match opts.rect {
        Some(r) => (grid_from_rect(r, opts.gap, rows, cols), None),
        None => {
            let extent = match &opts.board {
                Some(b) => filled_extent(b).ok_or_else(|| {
                    VisionError::Calibrate("the given board has no coloured cell to locate".into())
                })?,
                None => Extent::full(rows, cols),
            };
            let l = locate_grid(img, rows, cols, extent, &p.locate)?;
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
    let mut cal = Calibration {
        schema: SCHEMA,
        game: opts.game.clone(),
        rows,
        cols,
        window: WindowSize {
            width: img.width(),
            height: img.height(),
        },
        grid,
        sampling: Sampling::rings(),
        palette: Palette {
            threshold: 1.0,
            max_spread: 1.0,
            empty: Vec::new(),
            colours: vec![PaletteColour {
                index: 0,
                name: String::new(),
                lab: [0.0; 3],
            }],
        },
        anchors: Vec::new(),
    };
    cal.validate()
        .map_err(|e| VisionError::Calibrate(format!("the found grid is unusable: {e}")))?;

    // 2. Sampling pattern and cell colours.
    let candidates = match &opts.sampling {
        Some(s) => vec![s.clone()],
        None => Sampling::candidates(),
    };
    let mut best: Option<(f32, Sampling, Vec<CellReading>)> = None;
    for s in candidates {
        cal.sampling = s;
        let cells = read_cells(img, &cal)?;
        let mut spreads: Vec<f32> = cells.iter().map(|c| c.spread).collect();
        spreads.sort_unstable_by(f32::total_cmp);
        let p90 = spreads[(spreads.len() * 9 / 10).min(spreads.len() - 1)];
        if best.as_ref().is_none_or(|b| p90 < b.0 - 1e-3) {
            best = Some((p90, cal.sampling.clone(), cells));
        }
    }
    let Some((_, sampling, cells)) = best else {
        return Err(VisionError::Calibrate("no sampling pattern".into()));
    };
    cal.sampling = sampling;
    let at = |i: usize| Cell::new(i / cols, i % cols);
    let background = background_around(img, &cal.grid, rows, cols);

    // 3. Classes.
    let mut classes: Vec<ClassStats> = Vec::new();
    match &opts.board {
        Some(b) => {
            let mut values: Vec<u8> = b
                .cells()
                .iter()
                .copied()
                .filter(|&v| v != UNKNOWN)
                .collect();
            values.sort_unstable();
            values.dedup();
            for v in values {
                let members: Vec<(Cell, CellReading)> = (0..cells.len())
                    .filter(|&i| b.cells()[i] == v)
                    .map(|i| (at(i), cells[i]))
                    .collect();
                classes.push(class_stats(v, &members));
            }
        }
        None => {
            let mut rest: Vec<usize> = Vec::new();
            let mut empties: Vec<(Cell, CellReading)> = Vec::new();
            for (i, c) in cells.iter().enumerate() {
                match background {
                    Some(bg) if delta_e(c.lab, bg) <= p.empty_distance => empties.push((at(i), *c)),
                    _ => rest.push(i),
                }
            }
            let points: Vec<Lab> = rest.iter().map(|&i| cells[i].lab).collect();
            let (assign, centres) = kmeans(&points, opts.colours, p.split_distance);
            // Number clusters by first appearance in reading order.
            let mut order: Vec<usize> = Vec::new();
            for &a in &assign {
                if !order.contains(&a) {
                    order.push(a);
                }
            }
            if order.len() + opts.first_index as usize > 10 {
                return Err(VisionError::Calibrate(format!(
                    "found {} colours; at most {} fit the digits from {}",
                    order.len(),
                    10 - opts.first_index as usize,
                    opts.first_index
                )));
            }
            if let Some(k) = opts.colours {
                if centres.len() < k {
                    warnings.push(format!(
                        "asked for {k} colours but only {} distinct cell colours",
                        centres.len()
                    ));
                }
            }
            for (n, &cluster) in order.iter().enumerate() {
                let members: Vec<(Cell, CellReading)> = rest
                    .iter()
                    .zip(&assign)
                    .filter(|(_, &a)| a == cluster)
                    .map(|(&i, _)| (at(i), cells[i]))
                    .collect();
                classes.push(class_stats(opts.first_index + n as u8, &members));
            }
            if !empties.is_empty() {
                classes.push(class_stats(EMPTY, &empties));
            }
        }
    }
    for c in &classes {
        if !c.outliers.is_empty() {
            warnings.push(format!(
                "{} of {} cells of {} look different (hover highlight?): {:?}",
                c.outliers.len(),
                c.cells,
                value_name(c.value),
                c.outliers
                    .iter()
                    .map(|c| (c.row, c.col))
                    .collect::<Vec<_>>()
            ));
        }
    }
    if classes.iter().all(|c| c.value == EMPTY) {
        return Err(VisionError::Calibrate("no coloured cells found".into()));
    }

    // 4. Palette and limits.
    let mut min_sep: Option<(u8, u8, f32)> = None;
    for (i, a) in classes.iter().enumerate() {
        for b in &classes[i + 1..] {
            let d = delta_e(a.lab, b.lab);
            if min_sep.is_none_or(|m| d < m.2) {
                min_sep = Some((a.value, b.value, d));
            }
        }
    }
    let worst_in = classes.iter().map(|c| c.max_distance).fold(0.0, f32::max);
    let mut threshold = (p.threshold_margin * worst_in).max(p.threshold_floor);
    if let Some((a, b, d)) = min_sep {
        if threshold > d / 2.0 {
            if p.threshold_floor > d / 2.0 || p.threshold_margin * worst_in > d / 2.0 {
                warnings.push(format!(
                    "colours {} and {} are only ΔE {d:.1} apart; cells vary by up to {worst_in:.1}: \
                     readings may be fragile",
                    value_name(a),
                    value_name(b)
                ));
            }
            threshold = d / 2.0;
        }
    }
    let mut spreads: Vec<f32> = cells.iter().map(|c| c.spread).collect();
    let worst_spread = spreads.iter().copied().fold(0.0, f32::max);
    let median_spread = median_mut(&mut spreads);
    let max_spread = (p.spread_margin * worst_spread)
        .max(p.spread_floor)
        .max(4.0 * median_spread);
    cal.palette = Palette {
        threshold: (threshold * 100.0).round() / 100.0,
        max_spread: (max_spread * 100.0).round() / 100.0,
        empty: classes
            .iter()
            .filter(|c| c.value == EMPTY)
            .map(|c| round_lab(c.lab))
            .collect(),
        colours: classes
            .iter()
            .filter(|c| c.value <= 9)
            .map(|c| PaletteColour {
                index: c.value,
                name: String::new(),
                lab: round_lab(c.lab),
            })
            .collect(),
    };
    if cal.palette.empty.is_empty() {
        if let Some(bg) = background {
            // No empty cell on the screenshot: the background outside the
            // board is the best guess for what an emptied cell shows.
            cal.palette.empty.push(round_lab(bg));
            warnings.push(
                "no empty cell on the screenshot: empty colour taken from around the board".into(),
            );
        }
    }
    cal.anchors = pick_anchors(img, &cal, p.max_anchors);
    cal.validate().map_err(VisionError::Calibrate)?;

    // 5. Read back.
    let read_back = read_board(img, &cal)
        .map(|r| r.board)
        .map_err(|e| e.to_string());
    let mismatches = match (&opts.board, &read_back) {
        (Some(want), Ok(got)) => want
            .diff(got)
            .into_iter()
            .filter(|c| want.get(c.row, c.col) != UNKNOWN)
            .collect(),
        _ => Vec::new(),
    };
    let report = CalibrationReport {
        located,
        classes,
        min_separation: min_sep,
        threshold: cal.palette.threshold,
        max_spread: cal.palette.max_spread,
        background,
        read_back,
        mismatches,
        warnings,
    };
    Ok((cal, report))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
