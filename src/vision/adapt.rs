//! Following a game window while playing (issue 3, item 5).
//!
//! A calibration is measured once; a live window then changes under it. The
//! [`Tracker`] keeps a live copy of the calibration and decides, for each
//! settled picture, whether it shows a board the loop may act on:
//!
//! - **Layout**: a picture of another size with the same aspect ratio is read
//!   through the scaled calibration (as before). When the aspect ratio
//!   changed (the window was resized and the game laid itself out again), or
//!   when [`AdaptParams::refind_after`] pictures in a row could not be read
//!   (the board moved inside the window), the grid is found again
//!   ([`find_grid`] with the calibration's rows and columns as hints) and kept
//!   if every cell then reads with the live palette.
//! - **Palette drift**: after each board read with confidence, every palette
//!   colour moves a share ([`AdaptParams::drift_rate`]) of the way towards the
//!   mean colour of the cells read as it, at most [`AdaptParams::max_drift`]
//!   ΔE from the calibrated colour, and never so close to another value's
//!   colour that the two could be confused. A slow change of brightness is
//!   followed; the calibration file is never rewritten.
//! - **Sudden change**: the median ΔE of the cells is tracked; a picture whose
//!   median jumps above the usual level by more than [`AdaptParams::jump`]
//!   times the palette threshold (a board dimmed during the enemy's turn, a
//!   flash) is a pause, not a board, even when every cell still reads. If the
//!   new look stays with the same board for [`AdaptParams::adopt_after`]
//!   pictures, it is taken as the new normal and followed.
//!
//! Pure and deterministic: no clock, no I/O (logging only).

use image::RgbImage;

use super::classify::{read_board, CellReading};
use super::colour::{delta_e, median_mut, Lab};
use super::find::{find_grid, FindParams, Hints};
use super::layout::{Calibration, WindowSize};
use super::{Reading, VisionError};
use crate::board::{Board, EMPTY};

/// Tunables of the [`Tracker`] (plain data).
#[derive(Debug, Clone, PartialEq)]
pub struct AdaptParams {
    /// Share of the way a palette colour moves towards the mean of its cells
    /// after each confident reading.
    pub drift_rate: f32,
    /// Largest ΔE a palette colour may drift from its calibrated colour.
    pub max_drift: f32,
    /// A median cell ΔE above the usual level by more than this many palette
    /// thresholds is a sudden change (pause).
    pub jump: f32,
    /// Pictures in a row showing the same board with a sudden change before
    /// the new look is followed.
    pub adopt_after: u32,
    /// Unreadable pictures in a row before the grid is searched for again.
    pub refind_after: u32,
    /// Parameters of the grid finder used to re-find the layout.
    pub find: FindParams,
}

impl Default for AdaptParams {
    fn default() -> Self {
        AdaptParams {
            drift_rate: 0.3,
            max_drift: 15.0,
            jump: 0.35,
            adopt_after: 6,
            refind_after: 2,
            find: FindParams::default(),
        }
    }
}

/// What one picture showed.
#[derive(Debug, Clone)]
pub enum Seen {
    /// A board read with confidence, and the calibration (scaled to the
    /// picture) that read it.
    Board(Box<Reading>, Box<Calibration>),
    /// Nothing to act on now; the text says why.
    Pause(String),
}

/// The live calibration of one game window; see the module docs.
#[derive(Debug, Clone)]
pub struct Tracker {
    base: Calibration,
    live: Calibration,
    params: AdaptParams,
    /// Running median ΔE of accepted readings.
    level: Option<f32>,
    unreadable: u32,
    /// The board and the count of sudden-change pauses in a row showing it.
    jumped: Option<(Board, u32)>,
    /// Tracked brightness scale of the picture against the calibration.
    scale: f32,
    /// Each palette entry's own drift on top of the scale (colours, then
    /// empty colours).
    offsets: Vec<Lab>,
    /// How often the grid was found again.
    pub refinds: u32,
    /// How often a sudden change paused the reading.
    pub sudden: u32,
    /// Pictures not acted on (unreadable, no board, or a sudden change).
    pub pauses: u32,
}

/// Lab difference `a - b`.
fn sub(a: Lab, b: Lab) -> Lab {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

impl Tracker {
    pub fn new(cal: Calibration, params: AdaptParams) -> Self {
        Tracker {
            base: cal.clone(),
            live: cal,
            params,
            level: None,
            unreadable: 0,
            jumped: None,
            scale: 1.0,
            offsets: Vec::new(),
            refinds: 0,
            sudden: 0,
            pauses: 0,
        }
    }

    /// The live calibration (in its own window size).
    pub fn calibration(&self) -> &Calibration {
        &self.live
    }

    /// The live calibration for a `width` x `height` window, for telling a
    /// still board and parking the pointer: scaled, or stretched when the
    /// aspect ratio changed and [`Tracker::read`] has not found the new
    /// layout yet.
    pub fn settling_layout(&self, width: u32, height: u32) -> Result<Calibration, VisionError> {
        match self.live.scaled_to(width, height) {
            Err(VisionError::WrongSize { .. }) if width > 0 && height > 0 => {
                Ok(self.live.stretched_to(width, height))
            }
            other => other,
        }
    }

    /// The live calibration for a picture of this size. When the aspect ratio
    /// differs from the live layout's, the grid is found again first.
    ///
    /// Errors: [`VisionError::NoBoard`] when the layout changed and no grid of
    /// the calibration's size that reads with the live palette is there.
    pub fn layout_for(&mut self, img: &RgbImage) -> Result<Calibration, VisionError> {
        match self.live.scaled_to(img.width(), img.height()) {
            Err(VisionError::WrongSize { .. }) => self.refind(img).map(|(_, cal)| cal),
            other => other,
        }
    }

    /// Finds the grid again and keeps it when every cell reads with the live
    /// palette; returns that reading and the calibration for the picture.
    fn refind(&mut self, img: &RgbImage) -> Result<(Reading, Calibration), VisionError> {
        let hints = Hints {
            rows: Some(self.live.rows),
            cols: Some(self.live.cols),
        };
        let found = find_grid(img, hints, &self.params.find)?;
        if (found.rows, found.cols) != (self.live.rows, self.live.cols) {
            return Err(VisionError::NoBoard(format!(
                "the layout changed and the grid found is {}x{}, not the calibration's {}x{}",
                found.rows, found.cols, self.live.rows, self.live.cols
            )));
        }
        let mut cal = self.live.clone();
        cal.window = WindowSize {
            width: img.width(),
            height: img.height(),
        };
        // Anchors belong to the old layout.
        cal.anchors.clear();
        // The finder may place the grid a row or column off where the board
        // has empty cells at an edge: of the placements one pitch around it
        // that read every cell, keep the one with the fewest empty cells
        // (the board is where the tiles are).
        let (px, py) = (found.grid.pitch_x(), found.grid.pitch_y());
        let mut best: Option<(usize, Reading, Calibration)> = None;
        let mut unread_least = usize::MAX;
        for (dy, dx) in [(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)] {
            let mut c = cal.clone();
            c.grid = found.grid;
            c.grid.left += dx as f64 * px;
            c.grid.top += dy as f64 * py;
            let right = c.grid.left + c.cols as f64 * px;
            let bottom = c.grid.top + c.rows as f64 * py;
            if c.grid.left < 0.0
                || c.grid.top < 0.0
                || right > img.width() as f64 + px * 0.5
                || bottom > img.height() as f64 + py * 0.5
            {
                continue;
            }
            let Ok(r) = read_board(img, &c) else { continue };
            let unread = r.board.unknown_count();
            unread_least = unread_least.min(unread);
            if unread > 0 {
                continue;
            }
            let empty = r.board.cells().iter().filter(|&&v| v == EMPTY).count();
            if best.as_ref().is_none_or(|b| empty < b.0) {
                best = Some((empty, r, c));
            }
        }
        let Some((_, reading, cal)) = best else {
            return Err(VisionError::NoBoard(if unread_least == usize::MAX {
                "the grid found again reads as no board".to_string()
            } else {
                format!("the grid found again reads {unread_least} cells with no palette colour")
            }));
        };
        tracing::info!(
            "layout found again: {}x{} window, board at ({:.0}, {:.0}), pitch {:.1}x{:.1}",
            img.width(),
            img.height(),
            cal.grid.left,
            cal.grid.top,
            cal.grid.pitch_x(),
            cal.grid.pitch_y()
        );
        self.live = cal.clone();
        self.refinds += 1;
        self.unreadable = 0;
        Ok((reading, cal))
    }

    /// Reads a settled picture; see the module docs for what pauses.
    ///
    /// Errors: only what is not a pause (a picture of size 0).
    pub fn read(&mut self, img: &RgbImage) -> Result<Seen, VisionError> {
        let seen = self.read_inner(img)?;
        if matches!(seen, Seen::Pause(_)) {
            self.pauses += 1;
        }
        Ok(seen)
    }

    fn read_inner(&mut self, img: &RgbImage) -> Result<Seen, VisionError> {
        let cal = match self.layout_for(img) {
            Ok(c) => c,
            Err(e) if e.is_no_board() => return Ok(Seen::Pause(e.to_string())),
            Err(e) => return Err(e),
        };
        let (reading, cal) = match read_board(img, &cal) {
            Ok(r) if r.board.unknown_count() == 0 => (r, cal),
            other => {
                let why = match other {
                    Ok(r) => format!("{} unread cells in {}", r.board.unknown_count(), r.board),
                    Err(e) => e.to_string(),
                };
                self.unreadable += 1;
                if self.unreadable < self.params.refind_after {
                    return Ok(Seen::Pause(why));
                }
                match self.refind(img) {
                    Ok(found) => found,
                    Err(e) => return Ok(Seen::Pause(format!("{why}; searching again: {e}"))),
                }
            }
        };
        self.unreadable = 0;
        let median = median_mut(&mut reading.distances.clone());
        let limit = self.params.jump * self.live.palette.threshold;
        if let Some(level) = self.level.filter(|&l| median > l + limit) {
            let same = match &mut self.jumped {
                Some((b, n)) if *b == reading.board => {
                    *n += 1;
                    *n
                }
                _ => {
                    self.jumped = Some((reading.board.clone(), 1));
                    1
                }
            };
            if same < self.params.adopt_after {
                self.sudden += 1;
                return Ok(Seen::Pause(format!(
                    "sudden change: the cells' median ΔE is {median:.1}, usually {level:.1} \
                     (a dimmed board or an overlay)"
                )));
            }
            tracing::info!(
                "the new look (median ΔE {median:.1}, usually {level:.1}) stayed for {same} \
                 pictures: following it"
            );
            self.level = Some(median);
        }
        self.jumped = None;
        self.follow(&reading.cells);
        let rate = self.params.drift_rate;
        self.level = Some(match self.level {
            Some(l) => l + rate * (median - l),
            None => median,
        });
        Ok(Seen::Board(Box::new(reading), Box::new(cal)))
    }

    /// Moves the palette with the picture; see the module docs. A change of
    /// brightness scales (L + 16, a, b) alike (Lab is a cube root of linear
    /// light), so each live colour is its calibrated colour scaled by one
    /// tracked global factor plus its own offset: the factor follows all
    /// cells quickly (`2 x drift_rate`) and moves the colours no cell showed
    /// too; each offset follows its own cells at `drift_rate`, at most
    /// `max_drift` ΔE. Second looks' colours follow the factor alone.
    fn follow(&mut self, cells: &[CellReading]) {
        let pal = &self.live.palette;
        // Entries: the colours, then the empty colours, each with its value.
        let entries = pal.references();
        let base = &self.base.palette;
        let origin: Vec<Lab> = base
            .colours
            .iter()
            .map(|c| c.lab)
            .chain(base.empty.iter().copied())
            .collect();
        if entries.len() != origin.len() {
            return;
        }
        self.offsets.resize(entries.len(), [0.0; 3]);
        let lift = |l: Lab| [l[0] + 16.0, l[1], l[2]];
        // Each cell's entry: the nearest of its value's colours.
        let owner: Vec<Option<usize>> = cells
            .iter()
            .map(|c| {
                entries
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| e.0 == c.value)
                    .min_by(|a, b| delta_e(c.lab, a.1 .1).total_cmp(&delta_e(c.lab, b.1 .1)))
                    .map(|(k, _)| k)
            })
            .collect();
        // The global factor: least squares of (cell - offset) = s x origin.
        let (mut xo, mut oo) = (0f32, 0f32);
        for (c, k) in cells.iter().zip(&owner) {
            if let Some(k) = *k {
                let x = lift(sub(c.lab, self.offsets[k]));
                let o = lift(origin[k]);
                xo += x[0] * o[0] + x[1] * o[1] + x[2] * o[2];
                oo += o[0] * o[0] + o[1] * o[1] + o[2] * o[2];
            }
        }
        let rate = self.params.drift_rate;
        if oo > 0.0 {
            let fast = (2.0 * rate).min(1.0);
            self.scale += fast * (xo / oo - self.scale);
        }
        let scale = self.scale;
        let scaled = |o: Lab| [(o[0] + 16.0) * scale - 16.0, o[1] * scale, o[2] * scale];
        // Second looks follow the global factor.
        for (live, base) in self.live.second.iter_mut().zip(&self.base.second) {
            live.lab = scaled(base.lab);
            live.rest = scaled(base.rest);
        }
        // Each offset towards the mean residual of its cells.
        let mut sums = vec![([0f32; 3], 0u32); entries.len()];
        for (c, k) in cells.iter().zip(&owner) {
            if let Some(k) = *k {
                let d = sub(c.lab, scaled(origin[k]));
                for (acc, v) in sums[k].0.iter_mut().zip(d) {
                    *acc += v;
                }
                sums[k].1 += 1;
            }
        }
        let mut offsets = self.offsets.clone();
        for (off, &(sum, n)) in offsets.iter_mut().zip(&sums) {
            if n == 0 {
                continue;
            }
            for (o, s) in off.iter_mut().zip(sum) {
                *o += rate * (s / n as f32 - *o);
            }
            let len = delta_e(*off, [0.0; 3]);
            if len > self.params.max_drift {
                let k = self.params.max_drift / len;
                off.iter_mut().for_each(|o| *o *= k);
            }
        }
        let mut moved: Vec<Lab> = origin
            .iter()
            .zip(&offsets)
            .map(|(&o, off)| {
                let a = scaled(o);
                [a[0] + off[0], a[1] + off[1], a[2] + off[2]]
            })
            .collect();
        // Colours of different values must stay apart: a colour whose move
        // would bring it near another value's colour stays where it was.
        let threshold = pal.threshold;
        for i in 0..moved.len() {
            let clash = (0..moved.len()).any(|j| {
                j != i && entries[i].0 != entries[j].0 && delta_e(moved[i], moved[j]) < threshold
            });
            if clash {
                moved[i] = entries[i].1;
                offsets[i] = self.offsets[i];
            }
        }
        self.offsets = offsets;
        let nc = self.live.palette.colours.len();
        for (k, lab) in moved.into_iter().enumerate() {
            if k < nc {
                self.live.palette.colours[k].lab = lab;
            } else {
                self.live.palette.empty[k - nc] = lab;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::sim::{calibration_for, random_board, render, scale_brightness, SimStyle};

    fn dim(img: &RgbImage, f: f32) -> RgbImage {
        scale_brightness(img.clone(), f)
    }

    fn board_of(seen: &Seen) -> Option<String> {
        match seen {
            Seen::Board(r, _) => Some(r.board.to_string()),
            Seen::Pause(_) => None,
        }
    }

    fn setup() -> (SimStyle, Calibration) {
        let style = SimStyle::swellfoop();
        let cal = calibration_for(&style, 8, 10);
        (style, cal)
    }

    #[test]
    fn follows_a_slow_fade_that_the_fixed_palette_cannot_read() {
        let (style, cal) = setup();
        let mut t = Tracker::new(cal.clone(), AdaptParams::default());
        let mut last_fixed = None;
        // 1.5% darker per picture, to 55% of the brightness.
        for k in 0..31 {
            let board = random_board(8, 10, 4, k as u64);
            let img = dim(&render(&board, &style), 1.0 - 0.015 * k as f32);
            let seen = t.read(&img).expect("reads");
            assert_eq!(
                board_of(&seen).as_deref(),
                Some(board.to_string().as_str()),
                "picture {k}: {seen:?}"
            );
            last_fixed = Some(read_board(&img, &cal).map(|r| r.board == board));
        }
        assert_eq!(t.sudden, 0);
        // The calibrated palette alone no longer reads the last picture.
        assert!(
            !matches!(last_fixed, Some(Ok(true))),
            "the fade is too weak to prove anything: {last_fixed:?}"
        );
    }

    /// A second look's colours scale with the picture's brightness.
    #[test]
    fn second_looks_follow_a_fade() {
        let (style, mut cal) = setup();
        let (lab, rest) = ([60.0, 10.0, -20.0], [90.0, 0.0, 0.0]);
        cal.second.push(crate::vision::layout::SecondLook {
            from: crate::board::EMPTY,
            index: 9,
            name: String::new(),
            ring: crate::vision::layout::Sampling::ring(0.3, 12, 0.0),
            lab,
            rest,
        });
        let mut t = Tracker::new(cal, AdaptParams::default());
        for k in 0..31 {
            let board = random_board(8, 10, 4, k as u64);
            let img = dim(&render(&board, &style), 1.0 - 0.015 * k as f32);
            t.read(&img).expect("reads");
        }
        let live = &t.calibration().second[0];
        let f = t.scale;
        assert!(f < 0.9, "faded by {f}");
        for (got, want) in [(live.lab, lab), (live.rest, rest)] {
            let expect = [(want[0] + 16.0) * f - 16.0, want[1] * f, want[2] * f];
            assert!(delta_e(got, expect) < 1e-3, "{got:?} for {expect:?}");
        }
    }

    #[test]
    fn a_sudden_dim_pauses_and_a_lasting_one_is_followed() {
        let (style, cal) = setup();
        let mut t = Tracker::new(cal, AdaptParams::default());
        let board = random_board(8, 10, 4, 3);
        let img = render(&board, &style);
        for _ in 0..3 {
            assert!(board_of(&t.read(&img).expect("reads")).is_some());
        }
        // 7% darker at once: every cell still reads, but it is a pause.
        let dark = dim(&img, 0.93);
        let seen = t.read(&dark).expect("reads");
        assert!(
            matches!(seen, Seen::Pause(ref m) if m.contains("sudden")),
            "{seen:?}"
        );
        // Back to normal: a board again.
        assert_eq!(
            board_of(&t.read(&img).expect("reads")),
            Some(board.to_string())
        );
        // Dim to stay: paused until it has lasted `adopt_after` pictures.
        let mut reads = Vec::new();
        for _ in 0..8 {
            reads.push(board_of(&t.read(&dark).expect("reads")));
        }
        let first_board = reads.iter().position(Option::is_some);
        assert_eq!(first_board, Some(5), "{reads:?}");
        assert!(reads[5..]
            .iter()
            .all(|r| r.as_deref() == Some(&*board.to_string())));
    }

    #[test]
    fn a_relaid_window_is_found_again() {
        let (style, cal) = setup();
        let mut t = Tracker::new(cal.clone(), AdaptParams::default());
        let board = random_board(8, 10, 4, 5);
        // Another aspect ratio: a taller title bar and wider margins.
        let other = SimStyle {
            margin: style.margin + 23,
            header: style.header + 41,
            ..style.clone()
        };
        let img = render(&board, &other);
        assert!(matches!(
            read_board(&img, &cal),
            Err(VisionError::WrongSize { .. })
        ));
        let seen = t.read(&img).expect("reads");
        assert_eq!(board_of(&seen), Some(board.to_string()), "{seen:?}");
        assert_eq!(t.refinds, 1);
        // The next picture reads through the new layout directly.
        let next = random_board(8, 10, 4, 6);
        let seen = t.read(&render(&next, &other)).expect("reads");
        assert_eq!(board_of(&seen), Some(next.to_string()));
        assert_eq!(t.refinds, 1);
    }

    #[test]
    fn a_board_moved_inside_the_window_is_found_again() {
        let style = SimStyle {
            margin: 40,
            ..SimStyle::swellfoop()
        };
        let cal = calibration_for(&style, 8, 10);
        let mut t = Tracker::new(cal, AdaptParams::default());
        let board = random_board(8, 10, 4, 7);
        let img = render(&board, &style);
        assert!(board_of(&t.read(&img).expect("reads")).is_some());
        // The same window size, everything shifted by 17 x 13 pixels.
        let mut moved =
            RgbImage::from_pixel(img.width(), img.height(), image::Rgb(style.background));
        image::imageops::overlay(&mut moved, &img, 17, 13);
        let first = t.read(&moved).expect("reads");
        assert!(matches!(first, Seen::Pause(_)), "{first:?}");
        let seen = t.read(&moved).expect("reads");
        assert_eq!(board_of(&seen), Some(board.to_string()), "{seen:?}");
        assert_eq!(t.refinds, 1);
    }
}
