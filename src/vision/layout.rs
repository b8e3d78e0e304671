//! The calibration file: grid geometry, sampling pattern and palette for one
//! screen layout, with a schema version.
//!
//! Coordinates: window pixels of the *reference* window (`[window]` size),
//! x right, y down, origin at the window's top-left corner; pixel `(x, y)`
//! covers `[x, x+1) x [y, y+1)`, so the centre of pixel 0 is 0.5. The tile of
//! cell `(row, col)` covers `x in [left + col*(cell_width+gap_x), .. + cell_width)`
//! and likewise in y. A screenshot of another size with the same aspect ratio
//! is read by scaling all geometry by the size ratio ([`Calibration::scaled_to`]).
//!
//! Sampling points are offsets from a cell's centre in fractions of the tile
//! size (`[0.3, 0.0]` is 30 % of a tile width right of the centre), placed away
//! from the symbol drawn in the middle of a tile.
//!
//! The palette maps reference colours (CIE Lab, D65) to cell values: each
//! `[[palette.colours]]` entry has an `index` (the digit it reads as; several
//! entries may share one, e.g. a highlighted variant), and `palette.empty`
//! lists the colours that read as an empty cell; `palette.refuse` lists overlay
//! colours (a cell that reads `?` and matches one refuses the whole picture).
//! `threshold` is the largest ΔE (CIE76) at which a cell still reads as its
//! nearest palette colour; `max_spread` the largest spread of a cell's samples
//! before it reads as `?`. `[[anchors]]` (optional) are window points outside
//! the board with their colour: a uniform reading (every cell the same, e.g. a
//! cleared board) counts as a board only when most of them match, so without
//! anchors a cleared board reads as "no board". `[[second]]` (optional) are
//! second looks: a cell that reads `from` (a colour index, or 255 for empty)
//! is sampled again on `ring`; where it is uniform there and nearer `lab`
//! than `rest` (within `threshold`), it reads `index` (light discs with a
//! dark rim on a light board: the sampling pattern reads them as empty, their
//! rim tells them apart).
//!
//! Invariants checked on load: `schema == 1`, rows and cols in `1..=64`,
//! positive tile sizes, the grid inside the window, at least one sample point
//! and one palette colour, indices `0..=9` (a second look's `index` no
//! palette colour's).
//!
//! Example (see `calibration/*.toml`):
//!
//! ```toml
//! schema = 1
//! game = "samegame"
//! rows = 10
//! cols = 15
//!
//! [window]
//! width = 760
//! height = 556
//!
//! [grid]
//! left = 5.0
//! top = 50.0
//! cell_width = 47.0
//! cell_height = 47.0
//! gap_x = 3.0
//! gap_y = 3.0
//!
//! [sampling]
//! points = [[0.3, 0.0], [0.0, 0.3], [-0.3, 0.0], [0.0, -0.3]]
//!
//! [palette]
//! threshold = 12.0
//! max_spread = 12.0
//! empty = [[0.0, 0.0, 0.0]]
//! refuse = [[34.7, 10.1, -45.3]]
//!
//! [[palette.colours]]
//! index = 1
//! name = "blue"
//! lab = [30.8, 2.8, -28.9]
//!
//! [[palette.colours]]
//! index = 1
//! name = "blue highlighted"
//! lab = [43.8, 3.7, -38.3]
//!
//! [[anchors]]
//! at = [3.5, 3.5]
//! lab = [93.0, -0.6, 1.5]
//! ```

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::colour::Lab;
use super::VisionError;
use crate::board::Cell;

/// The calibration schema this build reads and writes.
pub const SCHEMA: u32 = 1;

/// How much the aspect ratio of a screenshot may differ from the reference
/// window's (relative) and still be read by scaling.
pub const ASPECT_TOLERANCE: f64 = 0.02;

/// The reference window size in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WindowSize {
    pub width: u32,
    pub height: u32,
}

/// Where the tiles are, in reference window pixels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Grid {
    /// Left edge of the tile of column 0.
    pub left: f64,
    /// Top edge of the tile of row 0.
    pub top: f64,
    /// Tile width (without the gap).
    pub cell_width: f64,
    /// Tile height (without the gap).
    pub cell_height: f64,
    /// Horizontal gap between neighbouring tiles.
    #[serde(default)]
    pub gap_x: f64,
    /// Vertical gap between neighbouring tiles.
    #[serde(default)]
    pub gap_y: f64,
}

impl Grid {
    /// Distance between the left edges of neighbouring columns.
    pub fn pitch_x(&self) -> f64 {
        self.cell_width + self.gap_x
    }
    /// Distance between the top edges of neighbouring rows.
    pub fn pitch_y(&self) -> f64 {
        self.cell_height + self.gap_y
    }
}

/// Where in a tile the reader looks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sampling {
    /// Offsets from the tile centre, in fractions of the tile size.
    pub points: Vec<[f64; 2]>,
}

impl Sampling {
    /// Two rings around the centre: 8 points at 30 % of the tile size
    /// (rotated by 22.5 degrees) and 8 at 40 % (on the axes and diagonals).
    /// Symbols in the middle of a tile rarely cover more than a few of them.
    pub fn rings() -> Self {
        let mut points = Vec::with_capacity(16);
        for k in 0..8 {
            let a = (k as f64 * 45.0 + 22.5).to_radians();
            points.push([round4(0.30 * a.cos()), round4(0.30 * a.sin())]);
        }
        for k in 0..8 {
            let a = (k as f64 * 45.0).to_radians();
            // On the diagonals 0.4 would reach a rounded corner: pull them in.
            let r = if k % 2 == 1 { 0.36 } else { 0.40 };
            points.push([round4(r * a.cos()), round4(r * a.sin())]);
        }
        Sampling { points }
    }
}

impl Sampling {
    /// The radii (in tile sizes) of the single rings among the
    /// [`Sampling::candidates`].
    pub const RING_RADII: [f64; 5] = [0.22, 0.28, 0.34, 0.40, 0.44];

    /// 1 to 64 points, each inside its tile; `what` names it in the error.
    fn validate(&self, what: &str) -> Result<(), String> {
        if self.points.is_empty() || self.points.len() > 64 {
            return Err(format!(
                "{what} needs 1..=64 points, found {}",
                self.points.len()
            ));
        }
        if let Some(p) = self
            .points
            .iter()
            .find(|p| p[0].abs() > 0.5 || p[1].abs() > 0.5)
        {
            return Err(format!(
                "{what} point {p:?} lies outside its tile (|offset| <= 0.5)"
            ));
        }
        Ok(())
    }

    /// `n` points on a circle of `radius` (fraction of the tile size), the
    /// first at `phase` degrees.
    pub fn ring(radius: f64, n: usize, phase: f64) -> Self {
        let points = (0..n)
            .map(|k| {
                let a = (phase + k as f64 * 360.0 / n as f64).to_radians();
                [round4(radius * a.cos()), round4(radius * a.sin())]
            })
            .collect();
        Sampling { points }
    }

    /// The patterns calibration chooses from: single rings from 22 % to 44 %
    /// of the tile size (12 points, off the axes) and [`Sampling::rings`].
    pub fn candidates() -> Vec<Sampling> {
        let mut out: Vec<Sampling> = Sampling::RING_RADII
            .iter()
            .map(|&r| Sampling::ring(r, 12, 15.0))
            .collect();
        out.push(Sampling::rings());
        out
    }

    /// Three rings filling the middle of a tile: 8 points at 14 % of the
    /// tile size, 12 at 24 % and 16 at 32 %. An outline drawn on the tile
    /// crosses one ring of them at a time, a minority of the points. Not
    /// among the [`Sampling::candidates`]; a last try when calibration
    /// with them finds no board.
    pub fn disc() -> Self {
        let mut points = Sampling::ring(0.14, 8, 22.5).points;
        points.extend(Sampling::ring(0.24, 12, 15.0).points);
        points.extend(Sampling::ring(0.32, 16, 11.25).points);
        Sampling { points }
    }

    /// Two rings near the centre: 12 points at 10 % of the tile size and 12
    /// at 20 %. Cut gems (facets of several shades, an outline where their
    /// corners are cut) show their colour best in their middle; not among
    /// the [`Sampling::candidates`] (a highlight or a symbol in a tile's
    /// middle splits its colour there), tried when none of them sees the
    /// cells as mostly one colour each.
    pub fn inner() -> Self {
        let mut points = Sampling::ring(0.10, 12, 15.0).points;
        points.extend(Sampling::ring(0.20, 12, 0.0).points);
        Sampling { points }
    }
}

fn round4(v: f64) -> f64 {
    (v * 10_000.0).round() / 10_000.0
}

/// One reference colour of the palette.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaletteColour {
    /// The cell value this colour reads as (`0..=9`).
    pub index: u8,
    /// A human name (optional, for the overlay and messages).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// CIE Lab (D65).
    pub lab: Lab,
}

/// Reference colours and the acceptance limits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Palette {
    /// Largest ΔE to the nearest reference that still reads as that colour.
    pub threshold: f32,
    /// Largest spread (median ΔE of the samples to their centre) of a cell.
    #[serde(default = "default_max_spread")]
    pub max_spread: f32,
    /// Colours that read as an empty cell.
    #[serde(default)]
    pub empty: Vec<Lab>,
    /// Colours that read as a colour index.
    pub colours: Vec<PaletteColour>,
    /// Colours of overlays (dialogs, game-over screens): an unreadable cell
    /// within `threshold` of one makes the picture "no board".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refuse: Vec<Lab>,
}

impl Palette {
    /// Every reference colour with the value it reads as: the colours
    /// (their index), then the empty colours (`EMPTY`).
    pub fn references(&self) -> Vec<(u8, Lab)> {
        self.colours
            .iter()
            .map(|c| (c.index, c.lab))
            .chain(self.empty.iter().map(|&l| (crate::board::EMPTY, l)))
            .collect()
    }
}

/// The reference of `refs` ([`Palette::references`]) nearest `lab`: its
/// value and ΔE (None when there are none).
pub fn nearest_reference(refs: &[(u8, Lab)], lab: Lab) -> Option<(u8, f32)> {
    refs.iter()
        .map(|&(v, r)| (v, super::colour::delta_e(lab, r)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

fn default_max_spread() -> f32 {
    15.0
}

/// Grid geometry, sampling pattern and palette for one screen layout.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Schema version; must be [`SCHEMA`].
    pub schema: u32,
    /// The game this layout belongs to (informational, e.g. `samegame`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub game: String,
    pub rows: usize,
    pub cols: usize,
    /// The window size the geometry is measured in.
    pub window: WindowSize,
    pub grid: Grid,
    pub sampling: Sampling,
    pub palette: Palette,
    /// Points outside the board that look the same in every frame of this
    /// window (title bar, margins). Used only to tell a cleared or uniform
    /// board from a blank or foreign picture.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub anchors: Vec<Anchor>,
    /// Pieces that the sampling pattern reads as another value and another
    /// ring tells apart (light discs with a dark rim: a ring inside reads
    /// their inside as the board's empty colour, a ring on the rim reads
    /// them as the dark discs): a cell that reads `from` is looked at again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub second: Vec<SecondLook>,
}

/// A second look at the cells that read `from`: those whose samples on
/// `ring` are uniform, nearer `lab` than `rest` and within the palette's
/// threshold of it read as `index`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SecondLook {
    /// The value read with the sampling pattern (a colour index, or
    /// [`crate::board::EMPTY`]).
    pub from: u8,
    /// The value these pieces read as (`0..=9`, no palette colour's).
    pub index: u8,
    /// A human name (optional, for the overlay and messages).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Where to look (offsets from the tile centre, in fractions of the
    /// tile size).
    pub ring: Sampling,
    /// What these pieces show on the ring, CIE Lab (D65).
    pub lab: Lab,
    /// What the other cells reading `from` show there.
    pub rest: Lab,
}

/// A window point outside the board with its expected colour.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Anchor {
    /// Reference window pixels `[x, y]`.
    pub at: [f64; 2],
    /// CIE Lab (D65).
    pub lab: Lab,
}

#[derive(Deserialize)]
struct SchemaOnly {
    schema: Option<toml::Value>,
}

impl Calibration {
    /// A calibration of the current schema with no anchors.
    pub fn new(
        game: &str,
        rows: usize,
        cols: usize,
        window: (u32, u32),
        grid: Grid,
        sampling: Sampling,
        palette: Palette,
    ) -> Self {
        Calibration {
            schema: SCHEMA,
            game: game.to_string(),
            rows,
            cols,
            window: WindowSize {
                width: window.0,
                height: window.1,
            },
            grid,
            sampling,
            palette,
            anchors: Vec::new(),
            second: Vec::new(),
        }
    }

    /// Loads and validates a calibration file. Errors are one line:
    /// `PATH: cannot read (...)`, `PATH: bad TOML at line L: ...`,
    /// `PATH: schema N is not supported (this build reads 1)`, `PATH: ...`.
    pub fn load(path: &Path) -> Result<Self, VisionError> {
        let err = |reason: String| VisionError::Calibration {
            path: path.display().to_string(),
            reason,
        };
        let text = std::fs::read_to_string(path).map_err(|e| err(format!("cannot read ({e})")))?;
        Self::from_toml(&text).map_err(err)
    }

    /// Parses and validates calibration text; the error is one line.
    pub fn from_toml(text: &str) -> Result<Self, String> {
        let one_line = |e: toml::de::Error| {
            let msg = e.message().replace('\n', " ");
            match e.span() {
                Some(span) => {
                    let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                    format!("bad TOML at line {line}: {msg}")
                }
                None => format!("bad TOML: {msg}"),
            }
        };
        let head: SchemaOnly = toml::from_str(text).map_err(one_line)?;
        match head.schema {
            None => {
                return Err(format!(
                    "no `schema` field (this build reads schema = {SCHEMA})"
                ))
            }
            Some(toml::Value::Integer(v)) if v == SCHEMA as i64 => {}
            Some(v) => {
                return Err(format!(
                    "schema {v} is not supported (this build reads schema = {SCHEMA})"
                ))
            }
        }
        let cal: Calibration = toml::from_str(text).map_err(one_line)?;
        cal.validate()?;
        Ok(cal)
    }

    /// The calibration as TOML text.
    pub fn to_toml(&self) -> String {
        // Serialising plain data cannot fail; fall back to Debug just in case.
        match toml::to_string(self) {
            Ok(t) => format!("# gridbot calibration (fields: src/vision/layout.rs)\n{t}"),
            Err(e) => format!("# cannot serialise: {e}\n# {self:?}\n"),
        }
    }

    /// Writes the calibration as TOML.
    pub fn save(&self, path: &Path) -> Result<(), VisionError> {
        std::fs::write(path, self.to_toml()).map_err(|e| VisionError::Calibration {
            path: path.display().to_string(),
            reason: format!("cannot write ({e})"),
        })
    }

    /// Checks the invariants listed in the module docs.
    pub fn validate(&self) -> Result<(), String> {
        if self.schema != SCHEMA {
            return Err(format!(
                "schema {} is not supported (this build reads schema = {SCHEMA})",
                self.schema
            ));
        }
        if !(1..=64).contains(&self.rows) || !(1..=64).contains(&self.cols) {
            return Err(format!(
                "rows {} x cols {} out of range 1..=64",
                self.rows, self.cols
            ));
        }
        if self.window.width == 0 || self.window.height == 0 {
            return Err("window size must be positive".into());
        }
        let g = &self.grid;
        let finite = [g.left, g.top, g.cell_width, g.cell_height, g.gap_x, g.gap_y]
            .iter()
            .all(|v| v.is_finite());
        if !finite || g.cell_width < 1.0 || g.cell_height < 1.0 || g.gap_x < 0.0 || g.gap_y < 0.0 {
            return Err(format!(
                "bad grid geometry {g:?} (tile sizes >= 1, gaps >= 0)"
            ));
        }
        let (x, y, w, h) = self.board_rect();
        let (ww, wh) = (self.window.width as f64, self.window.height as f64);
        if x < 0.0 || y < 0.0 || x + w > ww + 0.5 || y + h > wh + 0.5 {
            return Err(format!(
                "board rectangle ({x:.1}, {y:.1}, {w:.1}x{h:.1}) does not fit the {}x{} window",
                self.window.width, self.window.height
            ));
        }
        self.sampling.validate("sampling")?;
        for o in &self.second {
            o.ring.validate("second look's ring")?;
            if o.index > 9 || self.palette.colours.iter().any(|c| c.index == o.index) {
                return Err(format!(
                    "second look's index {} is out of range 0..=9 or a palette colour's",
                    o.index
                ));
            }
        }
        if self.palette.colours.is_empty() {
            return Err("palette has no colours".into());
        }
        if let Some(a) = self
            .anchors
            .iter()
            .find(|a| !(0.0..ww).contains(&a.at[0]) || !(0.0..wh).contains(&a.at[1]))
        {
            return Err(format!("anchor {:?} lies outside the window", a.at));
        }
        if let Some(c) = self.palette.colours.iter().find(|c| c.index > 9) {
            return Err(format!("palette index {} out of range 0..=9", c.index));
        }
        let positive = |v: f32| v.is_finite() && v > 0.0;
        if !positive(self.palette.threshold) || !positive(self.palette.max_spread) {
            return Err("palette threshold and max_spread must be positive".into());
        }
        Ok(())
    }

    /// Centre of a cell's tile in reference window pixels.
    pub fn cell_centre(&self, cell: Cell) -> (f64, f64) {
        let g = &self.grid;
        (
            g.left + cell.col as f64 * g.pitch_x() + g.cell_width / 2.0,
            g.top + cell.row as f64 * g.pitch_y() + g.cell_height / 2.0,
        )
    }

    /// The board rectangle in reference window pixels: `(x, y, w, h)` from the
    /// top-left tile's corner to the bottom-right tile's far corner.
    pub fn board_rect(&self) -> (f64, f64, f64, f64) {
        let g = &self.grid;
        (
            g.left,
            g.top,
            self.cols as f64 * g.pitch_x() - g.gap_x,
            self.rows as f64 * g.pitch_y() - g.gap_y,
        )
    }

    /// The cell whose tile contains a window point (gaps belong to no cell).
    pub fn cell_at(&self, x: f64, y: f64) -> Option<Cell> {
        let g = &self.grid;
        let (fx, fy) = ((x - g.left) / g.pitch_x(), (y - g.top) / g.pitch_y());
        if fx < 0.0 || fy < 0.0 {
            return None;
        }
        let (col, row) = (fx.floor() as usize, fy.floor() as usize);
        if col >= self.cols || row >= self.rows {
            return None;
        }
        let inside_x = x - g.left - col as f64 * g.pitch_x() < g.cell_width;
        let inside_y = y - g.top - row as f64 * g.pitch_y() < g.cell_height;
        (inside_x && inside_y).then_some(Cell::new(row, col))
    }

    /// This calibration for a window of `width` x `height`: geometry scaled by
    /// the size ratio. Fails with [`VisionError::WrongSize`] when the aspect
    /// ratio differs by more than [`ASPECT_TOLERANCE`].
    pub fn scaled_to(&self, width: u32, height: u32) -> Result<Calibration, VisionError> {
        let (rw, rh) = (self.window.width, self.window.height);
        if (width, height) == (rw, rh) {
            return Ok(self.clone());
        }
        let wrong = VisionError::WrongSize {
            found_w: width,
            found_h: height,
            want_w: rw,
            want_h: rh,
        };
        if width == 0 || height == 0 {
            return Err(wrong);
        }
        let want = rw as f64 / rh as f64;
        let found = width as f64 / height as f64;
        if ((found - want) / want).abs() > ASPECT_TOLERANCE {
            return Err(wrong);
        }
        Ok(self.stretched_to(width, height))
    }

    /// This calibration with its geometry stretched to a `width` x `height`
    /// window whatever the aspect ratio (each axis by its own ratio). For
    /// reading, use [`Calibration::scaled_to`]; this is for what needs only
    /// roughly where the board is (telling a still board, parking the
    /// pointer) while the layout is found again.
    pub fn stretched_to(&self, width: u32, height: u32) -> Calibration {
        let (rw, rh) = (self.window.width.max(1), self.window.height.max(1));
        let (sx, sy) = (width as f64 / rw as f64, height as f64 / rh as f64);
        let mut out = self.clone();
        out.window = WindowSize { width, height };
        let g = &mut out.grid;
        g.left *= sx;
        g.cell_width *= sx;
        g.gap_x *= sx;
        g.top *= sy;
        g.cell_height *= sy;
        g.gap_y *= sy;
        for a in &mut out.anchors {
            a.at = [a.at[0] * sx, a.at[1] * sy];
        }
        out
    }

    /// The human name of a palette index (its first named entry), or the digit.
    pub fn colour_name(&self, index: u8) -> String {
        self.palette
            .colours
            .iter()
            .find(|c| c.index == index && !c.name.is_empty())
            .map(|c| c.name.clone())
            .unwrap_or_else(|| index.to_string())
    }
}

/// Maps cells to absolute screen points for one window position and size
/// (the calibration scaled to the window, plus the window's screen origin).
#[derive(Debug, Clone, PartialEq)]
pub struct ScreenGrid {
    /// The calibration scaled to the window's size.
    pub cal: Calibration,
    /// The window's top-left corner on screen.
    pub origin: (i32, i32),
}

impl Calibration {
    /// The mapping from cells to screen points for a window at `(x, y)` of
    /// `width` x `height` pixels (fails like [`Calibration::scaled_to`]).
    pub fn screen_grid(
        &self,
        x: i32,
        y: i32,
        width: u32,
        height: u32,
    ) -> Result<ScreenGrid, VisionError> {
        Ok(ScreenGrid {
            cal: self.scaled_to(width, height)?,
            origin: (x, y),
        })
    }
}

impl crate::act::CellToScreen for ScreenGrid {
    fn cell_centre(&self, cell: Cell) -> (i32, i32) {
        let (cx, cy) = self.cal.cell_centre(cell);
        (
            self.origin.0 + cx.floor() as i32,
            self.origin.1 + cy.floor() as i32,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample() -> Calibration {
        Calibration {
            schema: SCHEMA,
            game: "samegame".into(),
            rows: 2,
            cols: 3,
            window: WindowSize {
                width: 100,
                height: 80,
            },
            grid: Grid {
                left: 10.0,
                top: 20.0,
                cell_width: 18.0,
                cell_height: 18.0,
                gap_x: 2.0,
                gap_y: 2.0,
            },
            sampling: Sampling::rings(),
            palette: Palette {
                threshold: 12.0,
                max_spread: 15.0,
                empty: vec![[0.0, 0.0, 0.0]],
                colours: vec![PaletteColour {
                    index: 1,
                    name: "red".into(),
                    lab: [50.0, 60.0, 40.0],
                }],
                refuse: vec![],
            },
            anchors: vec![Anchor {
                at: [1.5, 1.5],
                lab: [90.0, 0.0, 0.0],
            }],
            second: vec![],
        }
    }

    #[test]
    fn geometry() {
        let c = sample();
        assert_eq!(c.cell_centre(Cell::new(0, 0)), (19.0, 29.0));
        assert_eq!(c.cell_centre(Cell::new(1, 2)), (59.0, 49.0));
        assert_eq!(c.board_rect(), (10.0, 20.0, 58.0, 38.0));
        assert_eq!(c.cell_at(59.0, 49.0), Some(Cell::new(1, 2)));
        assert_eq!(c.cell_at(29.0, 29.0), None, "gap");
        assert_eq!(c.cell_at(9.0, 29.0), None);
        assert_eq!(c.cell_at(70.0, 29.0), None);
    }

    #[test]
    fn round_trips_through_toml() {
        let c = sample();
        let back = Calibration::from_toml(&c.to_toml()).expect("parses");
        assert_eq!(back, c);
        // With a second look; its value must be no palette colour's.
        let mut c = sample();
        c.second.push(SecondLook {
            from: crate::board::EMPTY,
            index: 2,
            name: "white disc".into(),
            ring: Sampling::ring(0.34, 12, 15.0),
            lab: [30.0, 0.0, 0.0],
            rest: [95.0, 0.0, 0.0],
        });
        let back = Calibration::from_toml(&c.to_toml()).expect("parses");
        assert_eq!(back, c);
        c.second[0].index = 1;
        let e = Calibration::from_toml(&c.to_toml()).unwrap_err();
        assert!(e.contains("second look's index 1"), "{e}");
    }

    #[test]
    fn one_line_errors() {
        let e = Calibration::from_toml("schema = 2\nrows = 1").unwrap_err();
        assert!(e.contains("schema 2 is not supported"), "{e}");
        let e = Calibration::from_toml("rows = [").unwrap_err();
        assert!(e.starts_with("bad TOML at line 1"), "{e}");
        assert!(!e.contains('\n'));
        let e = Calibration::from_toml("rows = 3").unwrap_err();
        assert!(e.contains("no `schema`"), "{e}");
        let mut text = sample().to_toml();
        text = text.replace("rows = 2", "rows = 0");
        let e = Calibration::from_toml(&text).unwrap_err();
        assert!(e.contains("out of range"), "{e}");
        let e = Calibration::load(Path::new("/nonexistent/x.toml")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("/nonexistent/x.toml: cannot read"),
            "{e}"
        );
    }

    #[test]
    fn scaling() {
        let c = sample();
        let s = c.scaled_to(200, 160).expect("same aspect");
        assert_eq!(s.cell_centre(Cell::new(1, 2)), (118.0, 98.0));
        assert!(matches!(
            c.scaled_to(200, 100),
            Err(VisionError::WrongSize { .. })
        ));
    }
}
