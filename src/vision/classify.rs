//! Pixels to cells: sample each tile, take a robust colour, name it by the
//! nearest palette colour.
//!
//! Coordinates: the picture is the game window (window pixels, origin top-left);
//! the calibration is scaled to the picture's size first. A sampling point at
//! window position `(x, y)` reads pixel `(floor(x), floor(y))`, clamped to the
//! picture.
//!
//! Per cell: every sampling point is converted to Lab; the robust centre
//! ([`robust_centre`]: the mean of the half of the samples nearest the
//! component-wise median) ignores the symbol drawn in the tile and a partial
//! glow; the nearest palette reference by ΔE (CIE76) names the cell. A cell
//! reads as `?` ([`UNKNOWN`]) when that distance exceeds `palette.threshold`
//! or the samples' spread exceeds `palette.max_spread` (nothing uniform there).
//!
//! Whole-picture checks ([`read_board`]): an unreadable cell matching one of
//! the palette's `refuse` colours (learned from screenshots labelled `none`,
//! e.g. Swell Foop's game-over button), more than a quarter of the cells
//! unreadable, or a uniform reading (every cell the same value) whose window
//! anchors do not match, is [`VisionError::NoBoard`].

use image::RgbImage;

use super::colour::{delta_e, rgb_to_lab, robust_centre, Lab};
use super::layout::Calibration;
use super::{Reading, VisionError};
use crate::board::{Board, Cell, EMPTY, UNKNOWN};

/// What the reader saw in one cell.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellReading {
    /// The robust colour of the samples.
    pub lab: Lab,
    /// Median ΔE of the samples to that colour.
    pub spread: f32,
    /// The value of the nearest palette reference (a colour index or [`EMPTY`]).
    pub nearest: u8,
    /// ΔE to the nearest palette reference.
    pub distance: f32,
    /// The value read: `nearest`, or [`UNKNOWN`] when out of tolerance.
    pub value: u8,
    /// An unreadable cell that matches one of the palette's `refuse` colours
    /// (a dialog or game-over overlay): the picture is no board.
    pub refused: bool,
}

/// Largest fraction of unreadable cells before the picture is "no board".
pub const MAX_UNKNOWN_FRACTION: f64 = 0.25;

/// The pixel read for a window point, clamped into the picture.
#[inline]
fn pixel_at(img: &RgbImage, x: f64, y: f64) -> [u8; 3] {
    let px = (x.floor().max(0.0) as u32).min(img.width().saturating_sub(1));
    let py = (y.floor().max(0.0) as u32).min(img.height().saturating_sub(1));
    img.get_pixel(px, py).0
}

/// Reads every cell without the whole-picture checks, row-major. The
/// calibration must already match the picture's size (see
/// [`Calibration::scaled_to`]); [`read_cells`] does that for you.
fn read_cells_scaled(img: &RgbImage, cal: &Calibration) -> Vec<CellReading> {
    let g = &cal.grid;
    let refs = cal.palette.references();
    let offsets: Vec<(f64, f64)> = cal
        .sampling
        .points
        .iter()
        .map(|p| (p[0] * g.cell_width, p[1] * g.cell_height))
        .collect();
    let mut samples: Vec<Lab> = Vec::with_capacity(offsets.len());
    let mut out = Vec::with_capacity(cal.rows * cal.cols);
    for row in 0..cal.rows {
        for col in 0..cal.cols {
            let (cx, cy) = cal.cell_centre(Cell::new(row, col));
            samples.clear();
            samples.extend(
                offsets
                    .iter()
                    .map(|&(dx, dy)| rgb_to_lab(pixel_at(img, cx + dx, cy + dy))),
            );
            let (lab, spread) = robust_centre(&samples);
            let (nearest, distance) = refs
                .iter()
                .map(|&(v, r)| (v, delta_e(lab, r)))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap_or((UNKNOWN, f32::INFINITY));
            let ok = distance <= cal.palette.threshold && spread <= cal.palette.max_spread;
            let refused = !ok
                && cal
                    .palette
                    .refuse
                    .iter()
                    .any(|r| delta_e(lab, *r) <= cal.palette.threshold);
            out.push(CellReading {
                lab,
                spread,
                nearest,
                distance,
                value: if ok { nearest } else { UNKNOWN },
                refused,
            });
        }
    }
    out
}

/// Reads every cell, row-major, without the whole-picture checks (for
/// calibration reports and overlays). Fails only on a wrong picture size.
pub fn read_cells(img: &RgbImage, cal: &Calibration) -> Result<Vec<CellReading>, VisionError> {
    if img.width() == 0 || img.height() == 0 {
        return Err(VisionError::WrongSize {
            found_w: img.width(),
            found_h: img.height(),
            want_w: cal.window.width,
            want_h: cal.window.height,
        });
    }
    if (img.width(), img.height()) == (cal.window.width, cal.window.height) {
        Ok(read_cells_scaled(img, cal))
    } else {
        let scaled = cal.scaled_to(img.width(), img.height())?;
        Ok(read_cells_scaled(img, &scaled))
    }
}

/// How many of the calibration's anchors match the picture (and how many
/// there are).
pub fn anchors_matching(img: &RgbImage, cal: &Calibration) -> Result<(usize, usize), VisionError> {
    let scaled;
    let cal = if (img.width(), img.height()) == (cal.window.width, cal.window.height) {
        cal
    } else {
        scaled = cal.scaled_to(img.width(), img.height())?;
        &scaled
    };
    let hits = cal
        .anchors
        .iter()
        .filter(|a| {
            delta_e(rgb_to_lab(pixel_at(img, a.at[0], a.at[1])), a.lab) <= cal.palette.threshold
        })
        .count();
    Ok((hits, cal.anchors.len()))
}

fn cell_name(cal: &Calibration, v: u8) -> String {
    match v {
        EMPTY => "empty".into(),
        UNKNOWN => "nothing".into(),
        v => format!("colour {}", cal.colour_name(v)),
    }
}

/// Reads a board from a window picture using a calibration.
///
/// Errors: [`VisionError::WrongSize`] when the picture's aspect ratio does not
/// match the calibration's window; [`VisionError::NoBoard`] when more than a
/// quarter of the cells match no palette colour, when an unreadable cell
/// matches a `refuse` colour, or when every cell reads the
/// same (e.g. a cleared board) and fewer than half of the window anchors match
/// (a calibration without anchors refuses such uniform readings).
pub fn read_board(img: &RgbImage, cal: &Calibration) -> Result<Reading, VisionError> {
    let cells = read_cells(img, cal)?;
    let n = cells.len();
    let Some(&first) = cells.first() else {
        return Err(VisionError::NoBoard("the calibration has no cells".into()));
    };
    if let Some((i, c)) = cells.iter().enumerate().find(|(_, c)| c.refused) {
        let refused = cells.iter().filter(|c| c.refused).count();
        return Err(VisionError::NoBoard(format!(
            "{refused} cells show a refusal colour (a dialog or game-over overlay), first at \
             row {}, column {}: Lab ({:.1}, {:.1}, {:.1}), nearest {} at ΔE {:.1}",
            i / cal.cols,
            i % cal.cols,
            c.lab[0],
            c.lab[1],
            c.lab[2],
            cell_name(cal, c.nearest),
            c.distance
        )));
    }
    let unknown = cells.iter().filter(|c| c.value == UNKNOWN).count();
    if unknown as f64 > MAX_UNKNOWN_FRACTION * n as f64 {
        let mut d: Vec<f32> = cells.iter().map(|c| c.distance).collect();
        let median = super::colour::median_mut(&mut d);
        let (worst_i, worst) = cells
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.distance.total_cmp(&b.1.distance))
            .map(|(i, c)| (i, *c))
            .unwrap_or((0, first));
        return Err(VisionError::NoBoard(format!(
            "{unknown} of {n} cells match no palette colour (limit {}); median ΔE {median:.1} \
             (threshold {:.1}); worst: row {}, column {}, nearest {} at ΔE {:.1}, spread {:.1}",
            (MAX_UNKNOWN_FRACTION * n as f64) as usize,
            cal.palette.threshold,
            worst_i / cal.cols,
            worst_i % cal.cols,
            cell_name(cal, worst.nearest),
            worst.distance,
            worst.spread
        )));
    }
    let first = first.value;
    if n > 1 && cells.iter().all(|c| c.value == first) {
        let (hits, total) = anchors_matching(img, cal)?;
        if total == 0 {
            return Err(VisionError::NoBoard(format!(
                "every cell reads as {} and the calibration has no window anchors to \
                 tell a cleared board from a blank picture",
                cell_name(cal, first)
            )));
        }
        if hits * 2 < total {
            return Err(VisionError::NoBoard(format!(
                "every cell reads as {} and {hits} of {total} window anchors match \
                 (a uniform picture, not the game window)",
                cell_name(cal, first)
            )));
        }
    }
    let board = Board::from_cells(cal.rows, cal.cols, cells.iter().map(|c| c.value).collect());
    let distances = cells.iter().map(|c| c.distance).collect();
    Ok(Reading {
        board,
        distances,
        cells,
    })
}
