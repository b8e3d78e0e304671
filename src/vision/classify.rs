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
//! or the samples' spread exceeds `palette.max_spread` (nothing uniform there),
//! or when an arc of at least [`SPLIT_ARC`] of its ring departs from what the
//! cells of the same nearest value show at those points ([`split_arcs`]: two
//! colours in one tile, a popup over half of it).
//!
//! Whole-picture checks ([`read_board`]): an unreadable cell matching one of
//! the palette's `refuse` colours (learned from screenshots labelled `none`,
//! e.g. Swell Foop's game-over button), more than a quarter of the cells
//! unreadable, or a uniform reading (every cell the same value) whose window
//! anchors do not match, is [`VisionError::NoBoard`].

use image::RgbImage;

use super::colour::{delta_e, median_mut, rgb_to_lab, robust_centre, Lab};
use super::layout::{nearest_reference, Calibration, Sampling};
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
    /// The longest arc of the sampling ring (a fraction of its points, in
    /// angle order) whose samples depart from what the cells of the same
    /// nearest value show there by more than [`SPLIT_DISTANCE`]: a popup
    /// or a neighbour's shadow over part of the tile (see [`split_arcs`]).
    pub split: f32,
    /// The value read: `nearest`, or [`UNKNOWN`] when out of tolerance.
    pub value: u8,
    /// An unreadable cell that matches one of the palette's `refuse` colours
    /// (a dialog or game-over overlay): the picture is no board.
    pub refused: bool,
}

/// Largest fraction of unreadable cells before the picture is "no board".
pub const MAX_UNKNOWN_FRACTION: f64 = 0.25;

/// A sample departs from its class's ring when it is this far (ΔE) from
/// it: another colour (the palette learning's `split_distance`).
pub const SPLIT_DISTANCE: f32 = 20.0;

/// A cell whose ring departs from its class's ring over an arc of at least
/// this fraction of its points shows two colours: it reads as [`UNKNOWN`].
pub const SPLIT_ARC: f32 = 0.4;

/// Fewest cells of one value for their ring to be a template (below it a
/// cell's own colour is its template).
const TEMPLATE_CELLS: usize = 3;

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
    let n = offsets.len();
    let mut samples: Vec<Lab> = Vec::with_capacity(n * cal.rows * cal.cols);
    let mut out = Vec::with_capacity(cal.rows * cal.cols);
    for row in 0..cal.rows {
        for col in 0..cal.cols {
            let (cx, cy) = cal.cell_centre(Cell::new(row, col));
            let start = samples.len();
            samples.extend(
                offsets
                    .iter()
                    .map(|&(dx, dy)| rgb_to_lab(pixel_at(img, cx + dx, cy + dy))),
            );
            let (lab, spread) = robust_centre(&samples[start..]);
            let (nearest, distance) =
                nearest_reference(&refs, lab).unwrap_or((UNKNOWN, f32::INFINITY));
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
                split: 0.0,
                value: if ok { nearest } else { UNKNOWN },
                refused,
            });
        }
    }
    let arcs = split_arcs(&samples, &cal.sampling.points, &out);
    for (c, arc) in out.iter_mut().zip(arcs) {
        c.split = arc;
        if arc >= SPLIT_ARC {
            c.value = UNKNOWN;
        }
    }
    if !cal.second.is_empty() {
        for (i, c) in out.iter_mut().enumerate() {
            if let Some((index, distance)) = second_look(img, cal, Cell::at(i, cal.cols), c.value) {
                (c.value, c.nearest, c.distance) = (index, index, distance);
            }
        }
    }
    out
}

/// The robust colour and spread of `cell`'s samples on `ring` (offsets in
/// tile sizes); the calibration must match the picture's size.
pub fn ring_colour(img: &RgbImage, cal: &Calibration, cell: Cell, ring: &Sampling) -> (Lab, f32) {
    robust_centre(&samples_at(img, cal, cell, &ring.points))
}

/// `cell`'s samples at `points` (offsets in tile sizes); the calibration
/// must match the picture's size.
fn samples_at(img: &RgbImage, cal: &Calibration, cell: Cell, points: &[[f64; 2]]) -> Vec<Lab> {
    let g = &cal.grid;
    let (cx, cy) = cal.cell_centre(cell);
    points
        .iter()
        .map(|p| {
            rgb_to_lab(pixel_at(
                img,
                cx + p[0] * g.cell_width,
                cy + p[1] * g.cell_height,
            ))
        })
        .collect()
}

/// The value a second look ([`Calibration::second`]) at `cell`, read as
/// `value`, tells, with its distance.
fn second_look(img: &RgbImage, cal: &Calibration, cell: Cell, value: u8) -> Option<(u8, f32)> {
    cal.second
        .iter()
        .filter(|o| o.from == value)
        .filter_map(|o| {
            let (lab, spread) = ring_colour(img, cal, cell, &o.ring);
            let d = delta_e(lab, o.lab);
            let ok = d <= cal.palette.threshold
                && d < delta_e(lab, o.rest)
                && spread <= cal.palette.max_spread;
            ok.then_some((o.index, d))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// Per cell (`cells`, with `samples`: each cell's samples at `points`, in
/// order), the longest arc of its ring that departs from its class's ring,
/// as a fraction of the points.
///
/// A cell's residuals are its samples minus its robust colour; the class's
/// ring (its template) is the component-wise median of the residuals at each
/// point over the cells of the same nearest value (at least
/// `TEMPLATE_CELLS` of them; fewer: all zero). So a symbol, a highlight
/// or shading, drawn alike on every tile of a colour, and a whole tile
/// brightened (a hover), are no departure; a popup or a shadow over one
/// side of the tile departs over a contiguous arc, on one cell. Points are
/// taken in order of their angle around the centre, the arc circular.
pub fn split_arcs(samples: &[Lab], points: &[[f64; 2]], cells: &[CellReading]) -> Vec<f32> {
    let n = points.len();
    if n == 0 || samples.len() != n * cells.len() {
        return vec![0.0; cells.len()];
    }
    let mut order: Vec<usize> = (0..n).collect();
    let angle = |k: usize| points[k][1].atan2(points[k][0]);
    order.sort_by(|&a, &b| angle(a).total_cmp(&angle(b)));
    let residual = |i: usize, k: usize| {
        let (s, l) = (samples[i * n + k], cells[i].lab);
        [s[0] - l[0], s[1] - l[1], s[2] - l[2]]
    };
    let mut values: Vec<u8> = cells.iter().map(|c| c.nearest).collect();
    values.sort_unstable();
    values.dedup();
    let mut templates: Vec<(u8, Vec<Lab>)> = Vec::new();
    let mut buf: Vec<f32> = Vec::new();
    for v in values {
        let members: Vec<usize> = (0..cells.len())
            .filter(|&i| cells[i].nearest == v)
            .collect();
        if members.len() < TEMPLATE_CELLS {
            continue;
        }
        let ring = (0..n)
            .map(|k| {
                let mut t = [0f32; 3];
                for (ch, tc) in t.iter_mut().enumerate() {
                    buf.clear();
                    buf.extend(members.iter().map(|&i| residual(i, k)[ch]));
                    *tc = median_mut(&mut buf);
                }
                t
            })
            .collect();
        templates.push((v, ring));
    }
    (0..cells.len())
        .map(|i| {
            let template = templates
                .iter()
                .find(|t| t.0 == cells[i].nearest)
                .map(|t| t.1.as_slice());
            let off: Vec<bool> = order
                .iter()
                .map(|&k| {
                    let t = template.map_or([0.0; 3], |t| t[k]);
                    delta_e(residual(i, k), t) > SPLIT_DISTANCE
                })
                .collect();
            longest_circular_run(&off) as f32 / n as f32
        })
        .collect()
}

/// The longest arc of cell `cell`'s ring departing from the cell's own
/// robust colour (a fraction of the ring's points; [`split_arcs`] with no
/// template): a tile half covered by something of another colour has one.
/// The calibration must match the picture's size.
pub fn own_split(img: &RgbImage, cal: &Calibration, cell: Cell) -> f32 {
    let samples = samples_at(img, cal, cell, &cal.sampling.points);
    let (lab, spread) = robust_centre(&samples);
    let reading = CellReading {
        lab,
        spread,
        nearest: UNKNOWN,
        distance: 0.0,
        split: 0.0,
        value: UNKNOWN,
        refused: false,
    };
    split_arcs(&samples, &cal.sampling.points, &[reading])[0]
}

/// The longest run of `true` in `flags` read as a circle.
fn longest_circular_run(flags: &[bool]) -> usize {
    let n = flags.len();
    if flags.iter().all(|&f| f) {
        return n;
    }
    let (mut best, mut run) = (0, 0);
    for k in 0..2 * n {
        if flags[k % n] {
            run += 1;
            best = best.max(run.min(n));
        } else {
            run = 0;
        }
    }
    best
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::layout::{Grid, Palette, PaletteColour, SecondLook};

    const WHITE: [u8; 3] = [250, 250, 250];
    const DARK: [u8; 3] = [60, 60, 60];

    /// Three 40-pixel cells in a row: white; a white disc with a dark rim
    /// (0.30 to 0.40 of the tile out); a dark disc (to 0.40).
    fn discs() -> RgbImage {
        RgbImage::from_fn(120, 40, |x, y| {
            let (col, dx, dy) = (x / 40, x as f64 % 40.0 - 19.5, y as f64 - 19.5);
            let r = (dx * dx + dy * dy).sqrt() / 40.0;
            image::Rgb(match col {
                1 if (0.30..0.40).contains(&r) => DARK,
                2 if r < 0.40 => DARK,
                _ => WHITE,
            })
        })
    }

    /// Reads `discs()` on a ring at `radius`, with a dark colour 0, white
    /// empty and `second` looks.
    fn read(radius: f64, second: Vec<SecondLook>) -> Vec<u8> {
        let grid = Grid {
            left: 0.0,
            top: 0.0,
            cell_width: 40.0,
            cell_height: 40.0,
            gap_x: 0.0,
            gap_y: 0.0,
        };
        let palette = Palette {
            threshold: 12.0,
            max_spread: 10.0,
            empty: vec![rgb_to_lab(WHITE)],
            colours: vec![PaletteColour {
                index: 0,
                name: "dark".into(),
                lab: rgb_to_lab(DARK),
            }],
            refuse: vec![],
        };
        let sampling = Sampling::ring(radius, 12, 15.0);
        let mut cal = Calibration::new("generic", 1, 3, (120, 40), grid, sampling, palette);
        cal.second = second;
        cal.validate().expect("valid calibration");
        let cells = read_cells(&discs(), &cal).expect("reads");
        cells.iter().map(|c| c.value).collect()
    }

    /// A ring inside the discs reads the white one as empty; a second look
    /// on its rim tells it apart. A ring on the rim reads it as the dark
    /// disc; a second look inside tells it apart. Empty cells and the dark
    /// disc read as they did.
    #[test]
    fn a_second_look_on_another_ring_tells_a_piece_apart() {
        let (white, dark) = (rgb_to_lab(WHITE), rgb_to_lab(DARK));
        let look = |from: u8, radius: f64, lab, rest| SecondLook {
            from,
            index: 1,
            name: "white disc".into(),
            ring: Sampling::ring(radius, 12, 15.0),
            lab,
            rest,
        };
        assert_eq!(read(0.2, vec![]), [EMPTY, EMPTY, 0]);
        assert_eq!(
            read(0.2, vec![look(EMPTY, 0.35, dark, white)]),
            [EMPTY, 1, 0]
        );
        assert_eq!(read(0.35, vec![]), [EMPTY, 0, 0]);
        assert_eq!(read(0.35, vec![look(0, 0.2, white, dark)]), [EMPTY, 1, 0]);
    }
}
