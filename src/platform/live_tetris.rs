//! A live Tetris window (Quadrapassel and the like) as a [`TetrisScreen`].
//!
//! Each view grabs frames until a new piece is on screen: the well is read
//! cell by cell ([`crate::vision::well`]); the falling piece is what is
//! occupied beyond the locked cells the loop expects ([`TetrisScreen::expect`]),
//! and must be a tetromino near the top. Until then (the drop not drawn yet,
//! a line-clear animation, text over the well) the screen waits; after
//! `wait` without a consistent picture it resynchronises from the picture
//! alone (the falling piece is the topmost free-standing 4-cell tetromino)
//! or, when even that fails, reports the game as over. Pieces are told apart
//! by shape only, so no colour is assumed; the colour each piece type shows
//! is learned as it is seen (for diagnostics and the overlay).
//!
//! What the keys do is not assumed: Quadrapassel, for one, spawns pieces in
//! a random orientation and turns them about its own centres, so no fixed
//! table predicts where a script leaves a piece. [`TetrisScreen::falling`]
//! reports the piece after each key so the loop steers it by watching (turn,
//! look, shift, look) and drops it only once its shape and columns are the
//! planned ones.
//!
//! Coordinates: the well's cells `(row, col)` with row 0 at the top, as the
//! reader gives them; [`Field`] rows count from the bottom.

use std::time::{Duration, Instant};

use crate::bot::BotError;
use crate::bot_tetris::{TetrisScreen, TetrisView};
use crate::games::tetris::{Field, Piece, RotationSystem};
use crate::platform::{FrameSource, PlatformError};
use crate::vision::well::{read_preview, WellLayout, WellRead, WellTracker};

/// How long [`LiveTetris::new`] looks for the well (a well with no block yet
/// is not taken for one).
const FIND_WAIT: Duration = Duration::from_secs(5);

/// Cells `(row, col)`, row 0 at the top of the well.
type Cells = Vec<(u32, u32)>;

/// A frame with a falling piece: locked rows, the piece's cells, the read,
/// the preview's cells and when the frame was taken.
type Sighting = (Vec<u32>, Cells, WellRead, Option<Cells>, Instant);

/// A live window showing a Tetris well.
pub struct LiveTetris<F: FrameSource> {
    frames: F,
    /// The well's layout, followed through resizes and brightness drift.
    tracker: WellTracker,
    /// The locked cells the loop expects next (rows top-down, bit = column).
    expected: Option<Vec<u32>>,
    /// The falling piece's cells in the last view.
    active: Cells,
    /// The locked cells of the last view.
    view_locked: Option<Vec<u32>>,
    /// How long to wait for a consistent picture before resynchronising.
    pub wait: Duration,
    /// Pause between grabs while waiting.
    pub poll: Duration,
    /// How long an unexpected picture must hold still before play goes on
    /// from it.
    pub settle: Duration,
    /// The colour each piece type was seen in (learned, never assumed).
    pub colours: [Option<[u8; 3]>; 7],
    /// Frames grabbed and the time spent grabbing and reading them.
    pub frames_read: u64,
    pub read_time: Duration,
    /// When the last view's frame was grabbed (for the piece-to-keys time).
    pub seen_at: Option<Instant>,
}

/// The canonical shapes (SRS state 0) the pieces are recognised by.
fn shape_table() -> Vec<(Piece, Cells)> {
    let rs = RotationSystem::srs();
    Piece::ALL
        .iter()
        .filter_map(|&p| {
            let text = rs.piece(p).states.first()?;
            let cells: Cells = text
                .split('/')
                .enumerate()
                .flat_map(|(r, row)| {
                    row.chars()
                        .enumerate()
                        .filter(|&(_, ch)| ch == '#')
                        .map(move |(c, _)| (r as u32, c as u32))
                })
                .collect();
            Some((p, normalise(&cells)))
        })
        .collect()
}

/// Cells moved so the smallest row and column are 0, sorted.
fn normalise(cells: &[(u32, u32)]) -> Cells {
    let r0 = cells.iter().map(|c| c.0).min().unwrap_or(0);
    let c0 = cells.iter().map(|c| c.1).min().unwrap_or(0);
    let mut v: Cells = cells.iter().map(|&(r, c)| (r - r0, c - c0)).collect();
    v.sort_unstable();
    v
}

/// The cells turned a quarter (clockwise on screen), normalised.
fn turn(cells: &[(u32, u32)]) -> Cells {
    let h = cells.iter().map(|c| c.0).max().unwrap_or(0);
    let turned: Cells = cells.iter().map(|&(r, c)| (c, h - r)).collect();
    normalise(&turned)
}

/// The tetromino these four cells draw, in any rotation.
pub fn identify(cells: &[(u32, u32)]) -> Option<Piece> {
    if cells.len() != 4 {
        return None;
    }
    let mut shape = normalise(cells);
    let table = shape_table();
    for _ in 0..4 {
        if let Some((p, _)) = table.iter().find(|(_, s)| *s == shape) {
            return Some(*p);
        }
        shape = turn(&shape);
    }
    None
}

/// True when the cells are 4-connected.
fn connected(cells: &[(u32, u32)]) -> bool {
    let Some(&first) = cells.first() else {
        return false;
    };
    let mut seen = vec![first];
    let mut i = 0;
    while i < seen.len() {
        let (r, c) = seen[i];
        for &n in cells {
            let adj = (n.0 == r && n.1.abs_diff(c) == 1) || (n.1 == c && n.0.abs_diff(r) == 1);
            if adj && !seen.contains(&n) {
                seen.push(n);
            }
        }
        i += 1;
    }
    seen.len() == cells.len()
}

/// Rows (top-down bit masks) as a [`Field`] (rows from the bottom).
fn to_field(rows: &[u32], cols: u32) -> Result<Field, BotError> {
    let h = rows.len();
    let mut f = Field::new(cols as usize, h).map_err(BotError::Tetris)?;
    for (r, &m) in rows.iter().enumerate() {
        for c in 0..cols {
            if m >> c & 1 == 1 {
                f.set(c as usize, h - 1 - r, true);
            }
        }
    }
    Ok(f)
}

/// A [`Field`] as top-down row masks.
fn from_field(f: &Field) -> Vec<u32> {
    let h = f.height();
    (0..h)
        .map(|r| {
            (0..f.width())
                .filter(|&c| f.get(c, h - 1 - r))
                .fold(0u32, |m, c| m | 1 << c)
        })
        .collect()
}

/// Finds the falling piece from the picture alone: the topmost whole
/// 4-connected component of 4 occupied cells that draws a tetromino (a
/// guess: a lone locked piece lower down could be one too, so this is used
/// only at the start and to resynchronise).
fn split_alone(rows: &[u32], cols: u32) -> Option<(Vec<u32>, Cells)> {
    let occupied = |r: u32, c: u32| rows.get(r as usize).is_some_and(|m| m >> c & 1 == 1);
    let mut seen = vec![false; rows.len() * cols as usize];
    for r in 0..rows.len() as u32 {
        for c in 0..cols {
            if !occupied(r, c) || seen[(r * cols + c) as usize] {
                continue;
            }
            let mut comp = vec![(r, c)];
            seen[(r * cols + c) as usize] = true;
            let mut i = 0;
            while i < comp.len() && comp.len() <= 4 {
                let (cr, cc) = comp[i];
                let around = [
                    (cr.wrapping_sub(1), cc),
                    (cr + 1, cc),
                    (cr, cc.wrapping_sub(1)),
                    (cr, cc + 1),
                ];
                for (nr, nc) in around {
                    if nc < cols && occupied(nr, nc) && !seen[(nr * cols + nc) as usize] {
                        seen[(nr * cols + nc) as usize] = true;
                        comp.push((nr, nc));
                    }
                }
                i += 1;
            }
            if plausible_piece(&comp) {
                let mut locked = rows.to_vec();
                for &(pr, pc) in &comp {
                    locked[pr as usize] &= !(1 << pc);
                }
                return Some((locked, comp));
            }
        }
    }
    None
}

/// A falling piece: four 4-connected cells drawing a tetromino.
fn plausible_piece(cells: &[(u32, u32)]) -> bool {
    cells.len() == 4 && connected(cells) && identify(cells).is_some()
}

impl<F: FrameSource> LiveTetris<F> {
    /// A screen over `frames`; the well is found on the first frame (`cols` x
    /// `rows`) unless a layout is given.
    pub fn new(
        mut frames: F,
        layout: Option<WellLayout>,
        cols: u32,
        rows: u32,
    ) -> Result<Self, BotError> {
        let layout = match layout {
            Some(l) => l,
            // The well may show no block yet (before the first piece
            // comes): look again for a few seconds.
            None => {
                let start = Instant::now();
                loop {
                    let frame = frames.grab().map_err(BotError::Platform)?;
                    match crate::vision::well::find_well(&frame.image, cols, rows) {
                        Ok(l) => break l,
                        Err(e) if e.is_no_board() && start.elapsed() < FIND_WAIT => {
                            std::thread::sleep(Duration::from_millis(100));
                        }
                        Err(e) => return Err(BotError::Vision(e)),
                    }
                }
            }
        };
        Ok(LiveTetris {
            frames,
            tracker: WellTracker::new(layout),
            expected: None,
            active: Vec::new(),
            view_locked: None,
            wait: Duration::from_secs(3),
            poll: Duration::from_millis(2),
            settle: Duration::from_millis(100),
            colours: [None; 7],
            frames_read: 0,
            read_time: Duration::ZERO,
            seen_at: None,
        })
    }

    /// Keys go to the focused window: wait (up to `wait`) while the game
    /// window does not have the focus, then fail rather than type elsewhere.
    fn wait_focus(&mut self) -> Result<(), BotError> {
        let start = Instant::now();
        let mut warned = false;
        while self.frames.focused() == Some(false) {
            if !warned {
                tracing::warn!("the game window does not have the keyboard focus: waiting");
                warned = true;
            }
            if start.elapsed() >= self.wait {
                return Err(BotError::Platform(PlatformError::Input(
                    "the game window lost the keyboard focus; no keys sent".into(),
                )));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(())
    }

    pub fn layout(&self) -> &WellLayout {
        self.tracker.layout()
    }

    /// Times the well was found again after the window changed size.
    pub fn layout_refinds(&self) -> u32 {
        self.tracker.refinds
    }

    /// One frame: the well read and the preview's cells.
    fn read(&mut self) -> Result<(WellRead, Option<Cells>, Instant), BotError> {
        let t0 = Instant::now();
        let frame = self.frames.grab().map_err(BotError::Platform)?;
        let read = self.tracker.read(&frame.image).map_err(BotError::Vision)?;
        let preview = read_preview(&frame.image, self.tracker.layout());
        self.frames_read += 1;
        self.read_time += t0.elapsed();
        Ok((read, preview, t0))
    }

    /// Splits occupied rows into (locked rows, falling piece cells) using the
    /// expected locked cells; `None` when the picture does not fit them.
    fn split_expected(&self, rows: &[u32], expected: &[u32]) -> Option<(Vec<u32>, Cells)> {
        if rows.len() != expected.len() || rows.iter().zip(expected).any(|(&o, &e)| o & e != e) {
            return None;
        }
        let active: Cells = rows
            .iter()
            .zip(expected)
            .enumerate()
            .flat_map(|(r, (&o, &e))| {
                let extra = o & !e;
                (0..32)
                    .filter(move |c| extra >> c & 1 == 1)
                    .map(move |c| (r as u32, c))
            })
            .collect();
        plausible_piece(&active).then(|| (expected.to_vec(), active))
    }

    /// The locked cells under the current falling piece (those of the last view).
    fn locked_now(&self) -> Option<Vec<u32>> {
        self.view_locked.clone()
    }

    fn split_alone(&self, rows: &[u32]) -> Option<(Vec<u32>, Cells)> {
        split_alone(rows, self.layout().cols)
    }

    /// Waits for a picture with a falling piece; `Ok(None)` when none came
    /// within `wait` (game over, or something covers the well).
    fn wait_piece(&mut self) -> Result<Option<Sighting>, BotError> {
        let start = Instant::now();
        // A picture that does not fit the expectation but shows a piece
        // alone, and since when it has been the same.
        let mut alone: Option<((Vec<u32>, Cells), Instant)> = None;
        loop {
            let (read, preview, at) = self.read()?;
            let rows = read.row_masks();
            // A full row on screen is a line being cleared: the game has
            // already moved on, the picture has not yet.
            let full = (1u32 << self.layout().cols) - 1;
            if read.unsure.is_empty() && !rows.contains(&full) {
                let split = match &self.expected {
                    Some(e) => self.split_expected(&rows, e),
                    None => self.split_alone(&rows),
                };
                if let Some((locked, active)) = split {
                    return Ok(Some((locked, active, read, preview, at)));
                }
                // The last piece landed elsewhere than planned: once the
                // picture holds still (not an animation frame), go on from it.
                match (self.split_alone(&rows), &alone) {
                    (Some(now), Some((prev, since)))
                        if now == *prev && since.elapsed() >= self.settle =>
                    {
                        tracing::warn!(
                            "the last piece landed elsewhere: resynchronising from the picture"
                        );
                        self.expected = None;
                        let (locked, active) = now;
                        return Ok(Some((locked, active, read, preview, at)));
                    }
                    (Some(now), Some((prev, _))) if now == *prev => {}
                    (now, _) => alone = now.map(|n| (n, at)),
                }
                if start.elapsed() >= self.wait {
                    if let Some((locked, active)) = self.split_alone(&rows) {
                        tracing::warn!(
                            "the well is not as expected: resynchronising from the picture"
                        );
                        self.expected = None;
                        return Ok(Some((locked, active, read, preview, at)));
                    }
                }
            }
            if start.elapsed() >= self.wait {
                tracing::warn!(
                    "no falling piece for {:?} ({} unsure cells): game over or the well is covered",
                    self.wait,
                    read.unsure.len()
                );
                return Ok(None);
            }
            std::thread::sleep(self.poll);
        }
    }
}

impl<F: FrameSource> TetrisScreen for LiveTetris<F> {
    fn view(&mut self) -> Result<TetrisView, BotError> {
        let Some((locked, active, read, preview, at)) = self.wait_piece()? else {
            let rows = from_field(
                &Field::new(self.layout().cols as usize, self.layout().rows as usize)
                    .map_err(BotError::Tetris)?,
            );
            return Ok(TetrisView {
                field: to_field(
                    self.expected.as_deref().unwrap_or(&rows),
                    self.layout().cols,
                )?,
                piece: None,
                preview: Vec::new(),
                falling: Vec::new(),
            });
        };
        let t = Instant::now();
        self.wait_focus()?;
        tracing::debug!(
            "piece seen {:.1} ms after its frame was grabbed; focus check {:.1} ms",
            at.elapsed().as_secs_f64() * 1e3,
            t.elapsed().as_secs_f64() * 1e3
        );
        let piece = identify(&active);
        if let Some(p) = piece {
            let (r, c) = active[0];
            if let Some(colour) = read.cells[(r * read.cols + c) as usize] {
                self.colours[p.index()].get_or_insert(colour);
            }
        }
        let h = self.layout().rows as usize;
        let falling = active
            .iter()
            .map(|&(r, c)| (c as usize, h - 1 - r as usize))
            .collect();
        self.active = active;
        self.view_locked = Some(locked.clone());
        self.seen_at = Some(at);
        Ok(TetrisView {
            field: to_field(&locked, self.layout().cols)?,
            piece,
            preview: preview.as_deref().and_then(identify).into_iter().collect(),
            falling,
        })
    }

    fn expect(&mut self, field: &Field) {
        self.expected = Some(from_field(field));
    }

    fn seen_at(&self) -> Option<Instant> {
        self.seen_at
    }

    fn falling(&mut self) -> Result<Option<Vec<(usize, usize)>>, BotError> {
        // The piece as it is after the keys sent: wait until a frame shows it
        // moved (or a short while, when the keys changed nothing).
        let Some(locked) = self.locked_now() else {
            return Ok(None);
        };
        // Games animate a move or a turn over a few frames (cells half
        // covered read as unsure): only a clean frame counts.
        let before = self.active.clone();
        let until = Instant::now() + Duration::from_millis(120);
        let mut last = None;
        loop {
            let (read, _, _) = self.read()?;
            if read.unsure.is_empty() {
                if let Some((_, a)) = self.split_expected(&read.row_masks(), &locked) {
                    // Settled: moved since the keys, and the same in two
                    // clean frames in a row (not a frame of the animation).
                    let settled = a != before && last.as_ref() == Some(&a);
                    last = Some(a);
                    if settled || Instant::now() >= until {
                        break;
                    }
                    continue;
                }
            }
            if Instant::now() >= until {
                break;
            }
            std::thread::sleep(self.poll);
        }
        let Some(a) = last else {
            return Ok(None);
        };
        self.active = a.clone();
        let h = self.layout().rows as usize;
        Ok(Some(
            a.iter()
                .map(|&(r, c)| (c as usize, h - 1 - r as usize))
                .collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifies_every_piece_in_every_rotation() {
        for (p, shape) in shape_table() {
            let mut s = shape.clone();
            for _ in 0..4 {
                let moved: Cells = s.iter().map(|&(r, c)| (r + 3, c + 2)).collect();
                assert_eq!(identify(&moved), Some(p));
                s = turn(&s);
            }
        }
        assert_eq!(identify(&[(0, 0), (0, 1), (0, 2), (1, 5)]), None);
        assert_eq!(identify(&[(0, 0), (0, 1)]), None);
    }

    fn rows(text: &str) -> Vec<u32> {
        text.split('/')
            .map(|r| {
                r.chars()
                    .enumerate()
                    .filter(|&(_, ch)| ch != '.')
                    .fold(0, |m, (c, _)| m | 1 << c)
            })
            .collect()
    }

    #[test]
    fn finds_the_falling_piece_without_expectations() {
        // Read from a Quadrapassel window: a T at the top over a stack.
        let r = rows("........../....1...../....11..../....1...../........../........../........../........../........../........../.......11./....1...1./...111..1./...111.111/....1..111/....1..111/.111111111/..11111111/111.1.1111/.111111111");
        let (locked, piece) = split_alone(&r, 10).expect("a piece");
        assert_eq!(identify(&piece), Some(Piece::T));
        assert_eq!(piece.len(), 4);
        assert_eq!(locked[1..4], [0, 0, 0]);
        assert_eq!(locked[10..], r[10..]);
    }
}
