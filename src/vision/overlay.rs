//! A picture a person can check a calibration with: the screenshot, the tile
//! outlines, the sampling points, and per cell a small mark in the colour it
//! read as with its digit and, below it, its ΔE to that colour (yellow);
//! `?` cells framed in magenta; anchors as crosses
//! (green when they match, red when not).
//!
//! Coordinates: the picture's own window pixels; the calibration is scaled to
//! them (a wrong aspect ratio is an error, as for reading).

use image::RgbImage;

use super::classify::{read_cells, CellReading};
use super::colour::{delta_e, lab_to_rgb, rgb_to_lab};
use super::draw::{
    draw_filled_rect_mut, draw_hollow_rect_mut, draw_text_mut, put_pixel_mut, text_width,
};
use super::layout::Calibration;
use super::VisionError;
use crate::board::{Cell, EMPTY, UNKNOWN};

const GRID: [u8; 3] = [255, 255, 255];
const SAMPLE: [u8; 3] = [255, 0, 255];
const BAD: [u8; 3] = [255, 0, 255];

/// The overlay of `cal` read on `img`.
pub fn draw_overlay(img: &RgbImage, cal: &Calibration) -> Result<RgbImage, VisionError> {
    let cal = cal.scaled_to(img.width(), img.height())?;
    let cells = read_cells(img, &cal)?;
    let mut out = img.clone();
    draw_overlay_mut(&mut out, &cal, &cells);
    Ok(out)
}

/// Draws the overlay of `cells` (as read with `cal`, already scaled to `img`).
pub fn draw_overlay_mut(img: &mut RgbImage, cal: &Calibration, cells: &[CellReading]) {
    let g = cal.grid;
    let scale = ((g.cell_width.min(g.cell_height) / 16.0).floor() as i32).clamp(1, 4);
    for row in 0..cal.rows {
        for col in 0..cal.cols {
            let Some(cell) = cells.get(row * cal.cols + col) else {
                continue;
            };
            let x = (g.left + col as f64 * g.pitch_x()).round() as i32;
            let y = (g.top + row as f64 * g.pitch_y()).round() as i32;
            let (w, h) = (g.cell_width.round() as i32, g.cell_height.round() as i32);
            if cell.value == UNKNOWN {
                for k in 0..3 {
                    draw_hollow_rect_mut(img, x + k, y + k, w - 2 * k, h - 2 * k, BAD);
                }
            } else {
                draw_hollow_rect_mut(img, x, y, w, h, GRID);
            }
            let (cx, cy) = cal.cell_centre(Cell::new(row, col));
            for p in &cal.sampling.points {
                put_pixel_mut(
                    img,
                    (cx + p[0] * g.cell_width) as i32,
                    (cy + p[1] * g.cell_height) as i32,
                    SAMPLE,
                );
            }
            // The mark: a square in the read colour with the digit beside it.
            let label = match cell.value {
                EMPTY => ".".to_string(),
                UNKNOWN => "?".to_string(),
                v => v.to_string(),
            };
            let swatch = match cell.value {
                UNKNOWN => BAD,
                EMPTY => cal
                    .palette
                    .empty
                    .first()
                    .map(|l| lab_to_rgb(*l))
                    .unwrap_or([0, 0, 0]),
                v => cal
                    .palette
                    .colours
                    .iter()
                    .find(|c| c.index == v)
                    .map(|c| lab_to_rgb(c.lab))
                    .unwrap_or([0, 0, 0]),
            };
            let s = 5 * scale + 2;
            let (mx, my) = (cx as i32 - s, cy as i32 - s / 2);
            draw_filled_rect_mut(img, mx - 1, my - 1, s + 2, s + 2, [0, 0, 0]);
            draw_filled_rect_mut(img, mx, my, s, s, swatch);
            let tw = text_width(&label, scale);
            draw_filled_rect_mut(img, mx + s + 1, my - 1, tw + 4, s + 2, [0, 0, 0]);
            draw_text_mut(img, mx + s + 3, my + 1, scale, [255, 255, 255], &label);
            // The distance to the nearest palette colour (ΔE, whole units) below.
            let dist = format!("{:.0}", cell.distance.min(999.0));
            let dw = text_width(&dist, scale);
            let dy = my + s + 3;
            draw_filled_rect_mut(img, mx - 1, dy - 1, dw + 4, 5 * scale + 4, [0, 0, 0]);
            draw_text_mut(img, mx + 1, dy + 1, scale, [255, 255, 0], &dist);
        }
    }
    for a in &cal.anchors {
        let (x, y) = (a.at[0] as i32, a.at[1] as i32);
        let ok = x >= 0
            && y >= 0
            && (x as u32) < img.width()
            && (y as u32) < img.height()
            && delta_e(rgb_to_lab(img.get_pixel(x as u32, y as u32).0), a.lab)
                <= cal.palette.threshold;
        let c = if ok { [0, 255, 0] } else { [255, 0, 0] };
        for d in -3..=3 {
            put_pixel_mut(img, x + d, y, c);
            put_pixel_mut(img, x, y + d, c);
        }
    }
}
