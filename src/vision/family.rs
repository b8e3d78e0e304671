//! What a game's family says about its board's size (issue 3, item 1: "hints
//! narrow it when given: the family's usual sizes").
//!
//! Orb-drag boards come in three sizes only (Puzzle & Dragons and Tower of
//! Saviors: 6x5, 7x6 and 5x4 orbs, columns by rows), so with `--game pad` and
//! no `--rows/--cols` a lattice of any other size is a misreading: part of
//! the board, or the board plus a row of the UI beneath it, and is refused
//! ("no board found"): never a board of a size the game cannot have. Other
//! families have no fixed sizes (match-3 games differ from 8x8, collapse
//! boards come in any size, the falling family has its own reader) and are
//! read as they are found.
//!
//! Pure and deterministic like the rest of the reader.

use image::RgbImage;

use super::calibrate::{
    found_on, frame_within_a_line, open_sides, read_auto_free, read_found, read_last_tries,
    CalibrateOptions, Emptiness,
};
use super::find::{FoundGrid, Hints};
use super::layout::Calibration;
use super::{Reading, VisionError};
use crate::board::{Board, EMPTY};

/// The `(rows, cols)` a game's boards always have, most common first; empty
/// when the game's family has no fixed sizes.
pub fn fixed_sizes(game: &str) -> &'static [(usize, usize)] {
    match game {
        "pad" => &[(5, 6), (6, 7), (4, 5)],
        _ => &[],
    }
}

/// True for the games whose board is full whenever it is still (swap
/// and orb-drag: a cleared cell is refilled at once): an empty colour is
/// learned for them only from cells seen to be holes (`calibrate_on`),
/// never guessed from the colour round the board or between its tiles.
pub fn always_full(game: &str) -> bool {
    matches!(game, "match3" | "gweled" | "pad")
}

fn fits(sizes: &[(usize, usize)], reading: &Reading) -> bool {
    sizes.contains(&(reading.board.rows(), reading.board.cols()))
}

/// True when a reading agrees with the sizes given as hints.
fn agrees(hints: Hints, reading: &Reading) -> bool {
    hints.rows.is_none_or(|r| r == reading.board.rows())
        && hints.cols.is_none_or(|c| c == reading.board.cols())
}

/// [`read_auto_free`] with what is known of the board's size, and never a
/// lattice with a tile just beyond one of its sides (`closed`):
/// - sizes given as hints (`--rows/--cols`): the picture is first read as
///   if none were given, and that reading is kept when it has the sizes
///   asked for; else it is read with the hints, and a lattice with tiles
///   just beyond a side is `slid` towards them. (The finder held to given
///   sizes also weighs lattices that only look like a board of that size:
///   a line or two off, over part of the board and a line of UI. On
///   synthetic seeds 2000-2399 it read 358 boards exactly, and 15 at the
///   right size but mostly wrong, a made-up board each, where the free
///   finder read 366 exactly; with the free reading first, the sliding and
///   `closed`, 376 exact and none made up.)
/// - none given, and the game's family has [`fixed_sizes`]: a reading of
///   another size is refused. A reading of one of them, hinted or not, is
///   not held to `closed` (an orb-drag screen has the team's portraits
///   just above the board: a line of tile colours). (Reading it again with each fixed size as
///   the hint was tried: on 120 orb-drag styles the finder held to a size
///   put a lattice of the wrong fixed size over three boards and read
///   them, a made-up board each.)
///
/// A collapse game's board (`samegame`, `popstar`) has settled when it is
/// read: no tile above an empty cell of its column ([`floating`]). One that
/// has is refused: a misreading (UI over the emptied area read as tiles) or
/// a board caught falling.
pub fn read_sized(
    img: &RgbImage,
    opts: &CalibrateOptions,
) -> Result<(Reading, Calibration), VisionError> {
    let (reading, cal) = read_sized_any(img, opts)?;
    if collapses(&opts.game) {
        let (rows, cols) = (reading.board.rows(), reading.board.cols());
        if let Some((r, c)) = floating(&reading.board) {
            return Err(VisionError::NoBoard(format!(
                "a {rows}x{cols} lattice reads a tile at row {r}, column {c} above an empty cell: \
                 a {} board has its tiles fallen",
                opts.game
            )));
        }
        // Cells emptied up to the top row (the right column) say the board
        // goes on there unless its frame is seen just beyond.
        let limit = opts.params.empty_distance;
        let b = &reading.board;
        let look = Emptiness::of(img, &cal, limit);
        let top = (0..cols).any(|c| b.get(0, c) == EMPTY)
            && !frame_within_a_line(img, &cal, true, true, look);
        let right = (0..rows).any(|r| b.get(r, cols - 1) == EMPTY)
            && !frame_within_a_line(img, &cal, false, false, look);
        if top || right {
            return Err(VisionError::NoBoard(format!(
                "a {rows}x{cols} lattice has emptied cells in its {} with no frame beyond: \
                 where the board ends is not seen",
                if top { "top row" } else { "right column" }
            )));
        }
    }
    Ok((reading, cal))
}

/// True for the games of the collapse family, whose tiles fall.
pub fn collapses(game: &str) -> bool {
    matches!(game, "samegame" | "swell-foop" | "popstar")
}

/// The first tile (row, column) with an empty cell below it in its column
/// (an unread cell is no tile: a popup over the emptied area).
pub fn floating(board: &Board) -> Option<(usize, usize)> {
    let (rows, cols) = (board.rows(), board.cols());
    (0..cols).find_map(|c| {
        let below = (1..rows).rev().find(|&r| board.get(r, c) == EMPTY)?;
        let r = (0..below).find(|&r| board.get(r, c) <= 9)?;
        Some((r, c))
    })
}

/// [`read_sized`] before the collapse family's check.
fn read_sized_any(
    img: &RgbImage,
    opts: &CalibrateOptions,
) -> Result<(Reading, Calibration), VisionError> {
    if !opts.finds_grid() {
        return read_auto_free(img, opts);
    }
    let sizes = fixed_sizes(&opts.game);
    if opts.hints != Hints::default() {
        let free = CalibrateOptions {
            hints: Hints::default(),
            ..opts.clone()
        };
        if let Ok(x) = read_auto_free(img, &free) {
            if agrees(opts.hints, &x.0) {
                return match fits(sizes, &x.0) {
                    true => Ok(x),
                    false => closed(img, x),
                };
            }
        }
        let (reading, cal) = read_auto_free(img, opts)?;
        let open = open_sides(img, &cal);
        if !open.contains(&true) || fits(sizes, &reading) {
            return Ok((reading, cal));
        }
        return slid(img, opts, &cal, open).ok_or_else(|| beyond_error(&cal, open));
    }
    let (reading, cal) = read_auto_free(img, opts)?;
    let (rows, cols) = (reading.board.rows(), reading.board.cols());
    if fits(sizes, &reading) {
        // The size is the game's: no larger board to be part of (and an
        // orb-drag screen has the team's portraits just above the board,
        // which read as a line of tiles).
        return Ok((reading, cal));
    }
    if sizes.is_empty() {
        // Over UI or part of the board: the last tries may find it.
        return closed(img, (reading, cal)).or_else(|e| {
            read_last_tries(img, opts)
                .and_then(|x| closed(img, x))
                .map_err(|_| e)
        });
    }
    if let Some(x) = bottom_rows(img, opts, &cal, sizes) {
        return Ok(x);
    }
    let list = sizes
        .iter()
        .map(|(r, c)| format!("{c}x{r}"))
        .collect::<Vec<_>>()
        .join(", ");
    Err(VisionError::NoBoard(format!(
        "a lattice of {cols}x{rows} cells, and {} boards are {list} (columns by rows)",
        opts.game
    )))
}

/// A reading whose lattice has a cell just beyond a side that reads as one
/// of its tile colours (the line there not a bar of the UI: see
/// `calibrate::open_sides`) is refused: it lies over part of a larger board
/// (the finder stopped short, or the given sizes are not the board's), or
/// its palette took a colour of the surroundings as a tile's. Measured with
/// no sizes given, together with `vision-auto12`: boards of a wrong size on
/// synthetic seeds 1000-1399 and 2000-2799, 29 → 11, no board read exactly
/// lost; real screens unchanged (19 fixtures, 14 screens of unseen games:
/// no right reading refused once UI bars were told from tile lines: the
/// iagno header reads as its black stones' colour).
fn closed(
    img: &RgbImage,
    (reading, cal): (Reading, Calibration),
) -> Result<(Reading, Calibration), VisionError> {
    let open = open_sides(img, &cal);
    if !open.contains(&true) {
        return Ok((reading, cal));
    }
    Err(beyond_error(&cal, open))
}

/// The refusal of a lattice with tiles just beyond the `open` sides.
fn beyond_error(cal: &Calibration, open: [bool; 4]) -> VisionError {
    let sides: Vec<&str> = ["top", "bottom", "left", "right"]
        .into_iter()
        .zip(open)
        .filter_map(|(s, o)| o.then_some(s))
        .collect();
    VisionError::NoBoard(format!(
        "a {}x{} lattice has tiles just beyond its {} side: part of a larger board",
        cal.rows,
        cal.cols,
        sides.join(" and ")
    ))
}

/// A lattice with the columns of one of the game's `sizes` but a row or
/// two more, read again on its bottom rows only: an orb-drag screen's
/// team portraits stand above the board on its very pitch (a phone
/// capture dimmed, its board's own lattice too faint to be found). The
/// first size that reads as a board, `None` when none does.
fn bottom_rows(
    img: &RgbImage,
    opts: &CalibrateOptions,
    cal: &Calibration,
    sizes: &[(usize, usize)],
) -> Option<(Reading, Calibration)> {
    sizes
        .iter()
        .filter(|&&(r, c)| c == cal.cols && r < cal.rows && cal.rows - r <= MAX_EXTRA_ROWS)
        .find_map(|&(r, c)| {
            let mut grid = cal.grid;
            grid.top += (cal.rows - r) as f64 * grid.pitch_y();
            let found = FoundGrid {
                rows: r,
                cols: c,
                ..found_on(cal, grid)
            };
            let (reading, trimmed) = read_found(img, opts, Some(found))
                .map_err(|e| tracing::debug!("bottom {r}x{c}: {e}"))
                .ok()?;
            fits(sizes, &reading).then_some((reading, trimmed))
        })
}

/// Rows above a board of a fixed size that [`bottom_rows`] drops at most.
const MAX_EXTRA_ROWS: usize = 2;

/// Lines a lattice of given sizes is slid at most, per axis ([`slid`]).
const MAX_SLIDE: usize = 3;

/// A lattice held to given sizes with tiles just beyond one side (and none
/// beyond the opposite one) lies over part of the board and a line of
/// something else: the finder placed it a line or more off. It is slid
/// towards those tiles, up to [`MAX_SLIDE`] lines, and the nearest
/// placement that reads as a board with no tile beyond any side is
/// returned (its palette learned again there). `open`: the lattice's
/// [`open_sides`]. `None` when no placement reads so.
fn slid(
    img: &RgbImage,
    opts: &CalibrateOptions,
    cal: &Calibration,
    [top, bottom, left, right]: [bool; 4],
) -> Option<(Reading, Calibration)> {
    let steps = |before: bool, after: bool| -> Vec<i32> {
        let n = MAX_SLIDE as i32;
        match (before, after) {
            (true, false) => (0..=n).map(|k| -k).collect(),
            (false, true) => (0..=n).collect(),
            (false, false) => vec![0],
            (true, true) => Vec::new(),
        }
    };
    let (dys, dxs) = (steps(top, bottom), steps(left, right));
    let mut moves: Vec<(i32, i32)> = dys
        .iter()
        .flat_map(|&dy| dxs.iter().map(move |&dx| (dy, dx)))
        .filter(|&m| m != (0, 0))
        .collect();
    moves.sort_by_key(|&(dy, dx)| (dy.abs() + dx.abs(), dy.abs()));
    moves.into_iter().find_map(|(dy, dx)| {
        let mut grid = cal.grid;
        grid.top += dy as f64 * grid.pitch_y();
        grid.left += dx as f64 * grid.pitch_x();
        let (reading, moved) = read_found(img, opts, Some(found_on(cal, grid))).ok()?;
        (!open_sides(img, &moved).contains(&true)).then_some((reading, moved))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_orb_drag_has_fixed_sizes() {
        assert_eq!(fixed_sizes("pad"), &[(5, 6), (6, 7), (4, 5)]);
        for g in ["samegame", "popstar", "gweled", "match3", "generic"] {
            assert!(fixed_sizes(g).is_empty(), "{g}");
        }
    }

    #[test]
    fn a_tile_above_a_hole_floats() {
        let settled: Board = "..../.1../.12./2122".parse().expect("board");
        assert_eq!(floating(&settled), None);
        // A tile above the lowest hole of column 2 (not just the top one).
        let lifted: Board = "..../.1../.1../2122".parse().expect("board");
        assert_eq!(floating(&lifted), None);
        let hole: Board = "..../.13./.1../2122".parse().expect("board");
        assert_eq!(floating(&hole), Some((1, 2)));
        let bottom: Board = "..../..1./..1./21.2".parse().expect("board");
        assert_eq!(floating(&bottom), Some((1, 2)));
        // An unread cell over the emptied area is a popup, not a tile.
        let popup: Board = "..?./.1../.12./2122".parse().expect("board");
        assert_eq!(floating(&popup), None);
        assert!(collapses("samegame") && collapses("popstar") && !collapses("match3"));
        assert!(always_full("gweled") && always_full("pad") && !always_full("samegame"));
    }

    #[test]
    fn a_screen_without_a_board_is_still_refused() {
        let img = RgbImage::from_pixel(300, 500, image::Rgb([40, 40, 48]));
        let opts = CalibrateOptions::find("pad", Hints::default());
        let err = read_sized(&img, &opts).map(|_| ()).unwrap_err();
        assert!(err.is_no_board(), "{err}");
    }
}
