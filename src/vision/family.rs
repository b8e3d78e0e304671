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

use super::calibrate::{read_auto_free, CalibrateOptions};
use super::find::Hints;
use super::layout::Calibration;
use super::{Reading, VisionError};

/// The `(rows, cols)` a game's boards always have, most common first; empty
/// when the game's family has no fixed sizes.
pub fn fixed_sizes(game: &str) -> &'static [(usize, usize)] {
    match game {
        "pad" => &[(5, 6), (6, 7), (4, 5)],
        _ => &[],
    }
}

fn fits(sizes: &[(usize, usize)], reading: &Reading) -> bool {
    sizes.contains(&(reading.board.rows(), reading.board.cols()))
}

/// [`read_auto_free`] held to the game's [`fixed_sizes`] when it has them and
/// no size is given: a reading of another size is refused.
///
/// (Reading such a picture again with each fixed size as the hint was
/// tried: on 120 orb-drag styles the hinted finder put a lattice of the
/// wrong fixed size over three boards and read them, a made-up board each,
/// where the free reading had been refused or of a size refused here.)
pub fn read_sized(
    img: &RgbImage,
    opts: &CalibrateOptions,
) -> Result<(Reading, Calibration), VisionError> {
    let sizes = fixed_sizes(&opts.game);
    let (reading, cal) = read_auto_free(img, opts)?;
    let (rows, cols) = (reading.board.rows(), reading.board.cols());
    if sizes.is_empty()
        || !opts.finds_grid()
        || opts.hints != Hints::default()
        || fits(sizes, &reading)
    {
        return Ok((reading, cal));
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
    fn a_screen_without_a_board_is_still_refused() {
        let img = RgbImage::from_pixel(300, 500, image::Rgb([40, 40, 48]));
        let opts = CalibrateOptions::find("pad", Hints::default());
        let err = read_sized(&img, &opts).map(|_| ()).unwrap_err();
        assert!(err.is_no_board(), "{err}");
    }
}
