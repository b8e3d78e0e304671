//! Vision: from a window picture to a board.
//!
//! STUB: API only; the implementation is in progress.

use std::path::Path;

use image::RgbImage;

use crate::board::{Board, Cell};

/// Errors of the vision layer; they carry their measurements.
#[derive(Debug, thiserror::Error)]
pub enum VisionError {
    #[error("no board found: {0}")]
    NoBoard(String),
    #[error("{path}: {reason}")]
    Calibration { path: String, reason: String },
    #[error("screenshot is {found_w}x{found_h}, calibration expects {want_w}x{want_h}")]
    WrongSize {
        found_w: u32,
        found_h: u32,
        want_w: u32,
        want_h: u32,
    },
    #[error("{path}: cannot read image: {reason}")]
    Image { path: String, reason: String },
}

impl VisionError {
    /// True when the screen showed no usable board (exit code 2).
    pub fn is_no_board(&self) -> bool {
        matches!(self, VisionError::NoBoard(_))
    }
}

/// Grid geometry and palette for one screen layout (window coordinates).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Calibration {
    pub rows: usize,
    pub cols: usize,
}

impl Calibration {
    pub fn load(path: &Path) -> Result<Self, VisionError> {
        Err(VisionError::Calibration {
            path: path.display().to_string(),
            reason: "not implemented".into(),
        })
    }
    /// Centre of a cell in window pixels.
    pub fn cell_centre(&self, _cell: Cell) -> (f64, f64) {
        (0.0, 0.0)
    }
    /// The board rectangle in window pixels: (x, y, w, h).
    pub fn board_rect(&self) -> (f64, f64, f64, f64) {
        (0.0, 0.0, 0.0, 0.0)
    }
}

/// A board read from a picture, with the colour distance of each cell.
#[derive(Debug, Clone)]
pub struct Reading {
    pub board: Board,
    pub distances: Vec<f32>,
}

/// Reads a board from a window picture using a calibration.
pub fn read_board(_img: &RgbImage, _cal: &Calibration) -> Result<Reading, VisionError> {
    Err(VisionError::NoBoard("not implemented".into()))
}
