//! Vision: from a window picture to a board.
//!
//! Layers (each a submodule):
//! - [`layout`]: the calibration file (geometry, sampling pattern, palette) and
//!   its scaling to other window sizes;
//! - [`classify`]: pixels to cells ([`read_board`]);
//! - [`locate`]: finding the board rectangle in a screenshot, given rows and cols;
//! - [`find`]: finding the grid (rectangle, rows, cols, pitch, gaps) with no
//!   calibration and no sizes; [`blobs`] a second source of its lattices;
//! - [`calibrate`]: learning a calibration from a screenshot; [`family`] the
//!   board sizes a game's family allows;
//! - [`overlay`]: pictures a person can check; [`draw`] the primitives;
//! - [`replay`]: reading recorded fixtures and comparing with their labels;
//! - [`adapt`]: following a live window (layout found again, palette drift,
//!   pausing on a sudden change).
//!
//! Coordinates: window pixels (x right, y down, origin at the window's
//! top-left); calibrations store them for a reference window size and are
//! scaled to the picture. Colours are CIE Lab (D65), differences CIE76 ΔE
//! ([`colour`]).
//!
//! Invariants: reading is pure and deterministic (no clock, no I/O). File I/O
//! happens only at the edges: [`Calibration::load`]/[`Calibration::save`],
//! [`load_image`] and the fixture [`replay`].

pub mod adapt;
pub mod blobs;
pub mod calibrate;
pub mod classify;
pub mod colour;
pub mod draw;
pub mod family;
pub mod find;
pub mod layout;
pub mod locate;
pub mod overlay;
pub mod repeat;
pub mod replay;
pub mod well;

use std::path::Path;

use image::RgbImage;

use crate::board::Board;

pub use classify::{read_board, read_cells, CellReading};
pub use layout::{
    Anchor, Calibration, Grid, Palette, PaletteColour, Sampling, ScreenGrid, SecondLook, WindowSize,
};

/// Errors of the vision layer; they carry their measurements.
#[derive(Debug, thiserror::Error)]
pub enum VisionError {
    /// The picture shows no usable board (exit code 2); the text says what was
    /// measured.
    #[error("no board found: {0}")]
    NoBoard(String),
    #[error("{path}: {reason}")]
    Calibration { path: String, reason: String },
    #[error(
        "screenshot is {found_w}x{found_h}, calibration expects {want_w}x{want_h} \
         (or the same aspect ratio within 2%)"
    )]
    WrongSize {
        found_w: u32,
        found_h: u32,
        want_w: u32,
        want_h: u32,
    },
    #[error("{path}: cannot read image: {reason}")]
    Image { path: String, reason: String },
    /// Calibration from a screenshot failed; the text says what was measured.
    #[error("cannot calibrate: {0}")]
    Calibrate(String),
}

impl VisionError {
    /// True when the screen showed no usable board (exit code 2).
    pub fn is_no_board(&self) -> bool {
        matches!(self, VisionError::NoBoard(_))
    }
}

/// A board read from a picture, with the colour distance of each cell.
#[derive(Debug, Clone)]
pub struct Reading {
    pub board: Board,
    /// ΔE of each cell (row-major) to the palette colour it was named after.
    pub distances: Vec<f32>,
    /// Everything measured per cell, row-major.
    pub cells: Vec<CellReading>,
}

/// Loads a PNG (or any format the `image` build supports) as RGB.
pub fn load_image(path: &Path) -> Result<RgbImage, VisionError> {
    image::open(path)
        .map(|i| i.into_rgb8())
        .map_err(|e| VisionError::Image {
            path: path.display().to_string(),
            reason: e.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Screenshots come as PNG, JPEG (a phone's), BMP or WebP; each loads
    /// to the same picture (JPEG within its loss).
    #[test]
    fn screenshots_load_in_every_common_format() {
        let img = RgbImage::from_fn(40, 30, |x, y| {
            image::Rgb([
                (x * 6) as u8,
                (y * 8) as u8,
                if (x / 10 + y / 10) % 2 == 0 { 200 } else { 30 },
            ])
        });
        let dir = std::env::temp_dir().join(format!("gridbot-formats-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        for (ext, lossy) in [
            ("png", false),
            ("jpg", true),
            ("bmp", false),
            ("webp", false),
        ] {
            let path = dir.join(format!("shot.{ext}"));
            img.save(&path).expect("save");
            let back = load_image(&path).unwrap_or_else(|e| panic!("{ext}: {e}"));
            assert_eq!(back.dimensions(), img.dimensions(), "{ext}");
            let worst = back
                .as_raw()
                .iter()
                .zip(img.as_raw())
                .map(|(a, b)| a.abs_diff(*b))
                .max()
                .unwrap_or(0);
            assert!(
                if lossy { worst <= 60 } else { worst == 0 },
                "{ext}: off by {worst}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
        let err = load_image(&dir.join("missing.png"))
            .map(|_| ())
            .unwrap_err();
        assert!(err.to_string().contains("missing.png"), "{err}");
    }
}
