//! Pictures of planned circuits: one panel per filling, each chip in its own
//! colour with its id, chip edges drawn thick, empty circuit cells light grey,
//! cells outside the circuit dark.
//!
//! Coordinates: picture pixels; panel `i` sits at column `i % PER_ROW`, row
//! `i / PER_ROW`; inside a panel, circuit cell `(row, col)` is the square at
//! `(col * cell, title + row * cell)`. Pure: returns an image, writes no file.

use image::RgbImage;

use super::gfl::{Chip, Circuit};
use super::plan::Filling;
use crate::vision::draw::{draw_filled_rect_mut, draw_text_mut, text_width};

/// Panels per picture row.
const PER_ROW: usize = 5;
/// Pixels around and between panels.
const MARGIN: i32 = 12;
/// Height of a panel's title line.
const TITLE: i32 = 16;

const BACKGROUND: [u8; 3] = [24, 24, 28];
const OUTSIDE: [u8; 3] = [48, 48, 54];
const EMPTY: [u8; 3] = [190, 190, 190];
const EDGE: [u8; 3] = [10, 10, 10];
const TEXT: [u8; 3] = [235, 235, 235];

/// Chip fill colours (cycled).
const PALETTE: [[u8; 3]; 12] = [
    [230, 97, 72],
    [92, 135, 222],
    [95, 190, 110],
    [232, 190, 70],
    [170, 110, 210],
    [70, 190, 200],
    [240, 140, 180],
    [150, 160, 60],
    [210, 130, 60],
    [110, 110, 230],
    [60, 160, 140],
    [200, 80, 120],
];

/// Draws `fillings` of `circuit` (at star level `star`), `cell` pixels a cell.
pub fn draw_fillings(
    circuit: &Circuit,
    star: u8,
    fillings: &[Filling],
    chips: &[Chip],
    cell: i32,
) -> RgbImage {
    let region = circuit.region(star);
    let (rows, cols) = (region.rows() as i32, region.cols() as i32);
    let (pw, ph) = (cols * cell, TITLE + rows * cell);
    let n = fillings.len().max(1);
    let across = n.min(PER_ROW) as i32;
    let down = n.div_ceil(PER_ROW) as i32;
    let (w, h) = (
        MARGIN + across * (pw + MARGIN),
        MARGIN + down * (ph + MARGIN),
    );
    let mut img = RgbImage::new(w as u32, h as u32);
    draw_filled_rect_mut(&mut img, 0, 0, w, h, BACKGROUND);
    for (i, f) in fillings.iter().enumerate() {
        let x0 = MARGIN + (i % PER_ROW) as i32 * (pw + MARGIN);
        let y0 = MARGIN + (i / PER_ROW) as i32 * (ph + MARGIN);
        let title = format!("{}: {:.1}", i + 1, f.score * 100.0);
        draw_text_mut(&mut img, x0, y0 + 2, 2, TEXT, &title);
        let top = y0 + TITLE;
        // Owner of each cell: chip slot, or none.
        let mut owner = vec![None; (rows * cols) as usize];
        for (k, pc) in f.chips.iter().enumerate() {
            for c in &pc.cells {
                owner[c.row * cols as usize + c.col] = Some(k);
            }
        }
        for r in 0..rows {
            for c in 0..cols {
                let fill = match owner[(r * cols + c) as usize] {
                    Some(k) => PALETTE[k % PALETTE.len()],
                    None if region.contains(r, c) => EMPTY,
                    None => OUTSIDE,
                };
                draw_filled_rect_mut(&mut img, x0 + c * cell, top + r * cell, cell, cell, fill);
            }
        }
        // Edges: thin grid lines inside a chip, thick ones between chips.
        for r in 0..rows {
            for c in 0..cols {
                let me = owner[(r * cols + c) as usize];
                let (x, y) = (x0 + c * cell, top + r * cell);
                let right = if c + 1 < cols {
                    owner[(r * cols + c + 1) as usize]
                } else {
                    None
                };
                let below = if r + 1 < rows {
                    owner[((r + 1) * cols + c) as usize]
                } else {
                    None
                };
                let w_right = if me.is_some() && me == right { 1 } else { 3 };
                let w_below = if me.is_some() && me == below { 1 } else { 3 };
                draw_filled_rect_mut(&mut img, x + cell - w_right / 2 - 1, y, w_right, cell, EDGE);
                draw_filled_rect_mut(&mut img, x, y + cell - w_below / 2 - 1, cell, w_below, EDGE);
            }
        }
        // Ids, on each chip's first cell.
        for pc in &f.chips {
            let Some(first) = pc.cells.first() else {
                continue;
            };
            let id = chips
                .get(pc.chip)
                .map(|c| c.id.to_ascii_uppercase())
                .unwrap_or_default();
            let scale = if text_width(&id, 2) <= cell - 4 { 2 } else { 1 };
            let tx = x0 + first.col as i32 * cell + (cell - text_width(&id, scale)) / 2;
            let ty = top + first.row as i32 * cell + (cell - 5 * scale) / 2;
            draw_text_mut(&mut img, tx, ty, scale, EDGE, &id);
        }
    }
    img
}
