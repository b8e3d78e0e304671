//! Reading screenshots with no calibration: the grid is found, the palette is
//! learned from the picture, the board is read — on synthetic screenshots of
//! random layouts and skins (see `synth/mod.rs`), and screens without a board
//! are refused.
//!
//! Oracle: the rendered board. With no calibration the digits a colour reads
//! as are its order of first appearance, so boards are compared up to a
//! one-to-one renaming of colours (chosen to match the most cells); empty
//! stays empty. A cell counts as right when it reads as the (renamed) colour
//! drawn. Occluded cells (a popup covers about half of the tile) count as
//! right when they read right *or* as `?` (the board contract's "could not be
//! read"); a wrong colour on them counts as wrong. A picture that is refused
//! counts all of its cells as wrong.
//!
//! Seeded loop (pinned seeds, parallel with rayon) rather than proptest
//! shrinking: a failing case prints its seed; `SYNTH_CASE=N` runs one case and
//! `SYNTH_DIR=DIR` writes its picture. `SYNTH_CASES=N` changes the count
//! and `SYNTH_FROM=N` the first seed (default 1000); `SYNTH_HINTS=1` gives
//! the reader the board's size (as `--rows/--cols` do).

mod synth;

use gridbot::board::{Board, EMPTY, UNKNOWN};
use gridbot::vision::calibrate::{read_auto, CalibrateOptions};
use gridbot::vision::find::Hints;
use gridbot::vision::replay::labelled_images;
use image::imageops::FilterType;
use rayon::prelude::*;
use synth::{no_board_screens, random_board, render, sparse_case, Rng, Style};

/// Cells right (occluded cells: right or `?`), cells in all, and a note.
#[derive(Debug, Default, Clone)]
struct Tally {
    right: usize,
    total: usize,
    occluded_wrong: usize,
    refused: usize,
    /// Read at another size than drawn.
    wrong_size: usize,
    /// Cases read with every cell right (totals of [`tally_by`] only).
    exact: usize,
}

/// The renaming of read colours to drawn colours that matches the most cells
/// (greedy on the co-occurrence counts, one to one).
fn best_renaming(want: &Board, got: &Board) -> Vec<Option<u8>> {
    let mut counts = vec![[0usize; 10]; 10];
    for (&w, &g) in want.cells().iter().zip(got.cells()) {
        if w < 10 && g < 10 {
            counts[g as usize][w as usize] += 1;
        }
    }
    let mut pairs: Vec<(usize, usize, usize)> = (0..10)
        .flat_map(|g| (0..10).map(move |w| (g, w)))
        .map(|(g, w)| (counts[g][w], g, w))
        .filter(|p| p.0 > 0)
        .collect();
    pairs.sort_by(|a, b| b.cmp(a));
    let mut map = vec![None; 10];
    let mut used = [false; 10];
    for (_, g, w) in pairs {
        if map[g].is_none() && !used[w] {
            map[g] = Some(w as u8);
            used[w] = true;
        }
    }
    map
}

fn score(want: &Board, got: &Board, occluded: &[(usize, usize)]) -> Tally {
    let map = best_renaming(want, got);
    let mut t = Tally {
        total: want.rows() * want.cols(),
        ..Tally::default()
    };
    for r in 0..want.rows() {
        for c in 0..want.cols() {
            let (w, g) = (want.get(r, c), got.get(r, c));
            let ok = match g {
                EMPTY => w == EMPTY,
                UNKNOWN => false,
                g if g < 10 => map[g as usize] == Some(w),
                _ => false,
            };
            if occluded.contains(&(r, c)) {
                if ok || g == UNKNOWN {
                    t.right += 1;
                } else {
                    t.occluded_wrong += 1;
                }
            } else if ok {
                t.right += 1;
            }
        }
    }
    t
}

fn case(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let big = rng.chance(0.15);
    let rows = if big { rng.int(10, 20) } else { rng.int(3, 10) };
    let cols = if big { rng.int(10, 20) } else { rng.int(3, 10) };
    let k = rng.int(3, 7);
    let empty = if rng.chance(0.3) { 0.1 } else { 0.0 };
    let board = random_board(&mut rng, rows, cols, k, empty);
    let style = Style::random(&mut rng, rows, cols, k);
    let (img, occluded) = render(&board, &style, seed);
    (board, style, img, occluded)
}

/// An orb-drag board (one of the family's three sizes) in a random style.
fn orb_drag_case(seed: u64) -> Case {
    let mut rng = Rng::new(seed);
    let (rows, cols) = [(5, 6), (5, 6), (6, 7), (4, 5)][rng.int(0, 3)];
    let k = rng.int(4, 7);
    let board = random_board(&mut rng, rows, cols, k, 0.0);
    let style = Style::random(&mut rng, rows, cols, k);
    let (img, occluded) = render(&board, &style, seed);
    (board, style, img, occluded)
}

/// A drawn case: the board, its style, the picture and the occluded cells.
type Case = (Board, Style, image::RgbImage, Vec<(usize, usize)>);

/// Sparse boards ([`sparse_case`]), seeds 7000-7199 (`SPARSE_FROM` and
/// `SPARSE_CASES` to measure others; the floors hold for the default
/// range only). A ratchet on what the reader reaches today. Before
/// `read_sparse`, `to_frame`, the collapse family's checks and
/// `empty_throughout` (2026-11-27): 28 exact, 145 refused, 27 wrong size;
/// then 51 exact, 12 wrong size and one with cells wrong (8 of them pieces
/// scattered on a panel read as `generic`: lattices of pixel-font text or
/// a corner of the board; seed 7199's two colours split into three). With
/// every board framed by its own empty colour, popups over a collapse
/// board's emptied area and its stricter empty lines (2026-11-27, fifth
/// session): 72 exact, 12 wrong size, 3 with cells wrong (two of them one
/// `?` each, an honest "unread"). Two wrong sizes are new (7020 at twice
/// the pitch across, 7101 a row over the panel's margin, both refused
/// before), two went (7125 and 7163, a row too many). With the blob
/// lattice's pitch first on collapse boards: 73 exact, 11 wrong size (7100
/// read right). Through the tiles side by side, specks on any framed board
/// and small lattices giving way (2026-11-28, first session): 118 exact, 5
/// wrong size; with frames at one margin all round (second session): 125;
/// with the grain of empty lines: 127, 4 wrong size; with blobs off a few
/// tiles' lattice left out: 133; markers read as empty taken for popups:
/// 135; frames of panels a few ΔE off their backdrop (third session):
/// 144; framed boards refitted through their tiles: 145; sides tried
/// again and collapse boards' empty colour learned while framing: 152;
/// the pitch of tiles never side by side: 155, and one board more read
/// with cells wrong (7148: two greens of its palette learned as one, a
/// board refused before), so at most 9 made up; blind sampling patterns
/// set aside on lattices of blobs: 156; an outer line of eight cells all
/// one colour refused (a band, 2026-11-28, fourth session): 157, 3 wrong
/// size.
#[test]
fn sparse_boards_measured() {
    let n: u64 = std::env::var("SPARSE_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let from: u64 = std::env::var("SPARSE_FROM")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(7000);
    let seeds: Vec<u64> = (from..from + n).collect();
    let (_, all) = tally_by(&seeds, |seed| {
        let (board, style, img, occluded, game) = sparse_case(seed);
        let case = (board, style, img, occluded);
        let (t, note) = read_case(seed, case, game, false);
        (
            t,
            if note.is_empty() {
                note
            } else {
                format!("{game} {note}")
            },
        )
    });
    if (from, n) == (7000, 200) {
        assert!(
            all.exact >= 157,
            "sparse boards read exactly: {}",
            all.exact
        );
        assert!(
            all.wrong_size <= 3,
            "sparse boards of a wrong size: {}",
            all.wrong_size
        );
        // Read as a board that is not the one drawn: a wrong size or cells.
        let made_up = seeds.len() - all.exact - all.refused;
        assert!(made_up <= 9, "sparse boards made up: {made_up}");
    }
}

/// Asserts that each sparse case ([`sparse_case`]) of `seeds` reads
/// exactly.
fn sparse_read_exactly(seeds: &[u64]) {
    for &seed in seeds {
        let (board, style, img, occluded, game) = sparse_case(seed);
        let (t, note) = read_case(seed, (board, style, img, occluded), game, false);
        assert_eq!(t.right, t.total, "seed {seed}: {note}");
    }
}

/// Asserts that no sparse case of `seeds` reads at a wrong size (refused
/// or read at the drawn size).
fn sparse_never_wrong_size(seeds: &[u64]) {
    for &seed in seeds {
        let (board, style, img, occluded, game) = sparse_case(seed);
        let (t, note) = read_case(seed, (board, style, img, occluded), game, false);
        assert_eq!(t.wrong_size, 0, "seed {seed}: {note}");
    }
}

/// Asserts that each seed's screenshot reads exactly right.
fn read_right(seeds: &[u64]) {
    for &seed in seeds {
        let (t, note) = run_case(seed);
        assert_eq!(t.right, t.total, "seed {seed}: {note}");
    }
}

fn run_case(seed: u64) -> (Tally, String) {
    // `SYNTH_HINTS=1`: the board's size is given, as `--rows/--cols` do.
    let sized = std::env::var("SYNTH_HINTS").is_ok();
    read_case(seed, case(seed), "generic", sized)
}

/// Reads one drawn case with no calibration as `game` and scores it.
fn read_case(
    seed: u64,
    (board, style, img, occluded): Case,
    game: &str,
    sized: bool,
) -> (Tally, String) {
    if let Ok(dir) = std::env::var("SYNTH_DIR") {
        let _ = img.save(format!("{dir}/case-{seed}.png"));
    }
    let hints = match sized {
        true => Hints {
            rows: Some(board.rows()),
            cols: Some(board.cols()),
        },
        false => Hints::default(),
    };
    let opts = CalibrateOptions::find(game, hints);
    match read_auto(&img, &opts) {
        Ok((reading, cal)) => {
            if (reading.board.rows(), reading.board.cols()) != (board.rows(), board.cols()) {
                let t = Tally {
                    total: board.rows() * board.cols(),
                    wrong_size: 1,
                    ..Tally::default()
                };
                let note = format!(
                    "seed {seed}: read {}x{} for {}x{} ({style:?})",
                    reading.board.rows(),
                    reading.board.cols(),
                    board.rows(),
                    board.cols()
                );
                return (t, note);
            }
            let t = score(&board, &reading.board, &occluded);
            let note = if t.right < t.total {
                let mut s = format!(
                    "seed {seed}: {} of {} right\n  want {board}\n  got  {}\n  ({style:?})",
                    t.right, t.total, reading.board
                );
                if std::env::var("SYNTH_VERBOSE").is_ok() {
                    s += &wrong_cells(&board, &reading, &occluded, &cal);
                }
                s
            } else {
                String::new()
            };
            (t, note)
        }
        Err(e) => {
            let t = Tally {
                total: board.rows() * board.cols(),
                refused: 1,
                ..Tally::default()
            };
            (t, format!("seed {seed}: refused: {e} ({style:?})"))
        }
    }
}

/// What the finder and reader reach today on the pinned seeds (a ratchet:
/// raise it as the finder improves; the target is [`TARGET`]). 0.963 until
/// the synthetic tiles included diamonds (`Shape::Diamond`); with them
/// 93.58 % (seed 1018, diamonds on a checker, refused), 98.04 % once a
/// refused lattice of blobs is tried again half a pitch off (`dual` in
/// `blob_candidates`); 99.96 % once the sampling ring is chosen by how far
/// apart it sets the colours (`separation` in `vision::calibrate`: seed
/// 1050, outlined symbols on shaded discs, read 166 of 252 cells with the
/// most uniform ring, which ran along the symbols' outlines).
const FLOOR: f64 = 0.999;
/// The bar: 99.9 % of cells right.
const TARGET: f64 = 0.999;

#[test]
fn synthetic_screenshots_read_back() {
    assert!(cell_accuracy(60) >= FLOOR);
}

/// The bar (not met yet: run with `--ignored` to measure).
#[test]
#[ignore]
fn synthetic_screenshots_meet_the_target() {
    let acc = cell_accuracy(160);
    assert!(
        acc >= TARGET,
        "cell accuracy {:.4}% below 99.9%",
        100.0 * acc
    );
}

/// Reads the pinned cases (or `SYNTH_CASE`/`SYNTH_CASES`), prints the
/// failures and the figures, returns the fraction of cells right.
fn cell_accuracy(default_cases: u64) -> f64 {
    let seeds: Vec<u64> = match std::env::var("SYNTH_CASE") {
        Ok(s) => vec![s.parse().expect("SYNTH_CASE is a number")],
        Err(_) => {
            let n: u64 = std::env::var("SYNTH_CASES")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(default_cases);
            let from: u64 = std::env::var("SYNTH_FROM")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(1000);
            (0..n).map(|i| from + i).collect()
        }
    };
    tally(&seeds).0
}

/// Reads the cases of `seeds`, prints the failures and the figures,
/// returns the fraction of cells right and the totals.
fn tally(seeds: &[u64]) -> (f64, Tally) {
    tally_by(seeds, run_case)
}

/// [`tally`] with another way to draw and read a case.
fn tally_by(seeds: &[u64], run: impl Fn(u64) -> (Tally, String) + Sync) -> (f64, Tally) {
    let results: Vec<(Tally, String)> = seeds.par_iter().map(|&s| run(s)).collect();
    let mut all = Tally::default();
    let mut perfect = 0;
    let mut cells_wrong = 0;
    for (t, note) in &results {
        all.right += t.right;
        all.total += t.total;
        all.occluded_wrong += t.occluded_wrong;
        all.refused += t.refused;
        all.wrong_size += t.wrong_size;
        perfect += (t.right == t.total) as usize;
        cells_wrong += (t.right < t.total && t.refused == 0 && t.wrong_size == 0) as usize;
        if !note.is_empty() {
            eprintln!("{note}");
        }
    }
    all.exact = perfect;
    let acc = all.right as f64 / all.total.max(1) as f64;
    eprintln!(
        "synthetic screenshots: {} cases, {perfect} read perfectly, {} refused; cells right {} of {} = {:.4}%; occluded cells read as a wrong colour: {}",
        results.len(),
        all.refused,
        all.right,
        all.total,
        100.0 * acc,
        all.occluded_wrong
    );
    eprintln!(
        "by case: {perfect} exact, {} refused, {} wrong size, {cells_wrong} right size with some cells wrong",
        all.refused, all.wrong_size
    );
    (acc, all)
}

/// Boards mostly empty on a panel: collapse boards mid-game framed ([`framed`] in
/// `vision::calibrate`) since the fifth session of 2026-11-27, all refused
/// before: 7019 (popups over an emptied cell and over a tile, read `?`; one
/// above the emptied area), 7034 (a panel a few ΔE off its backdrop: its
/// frame seen by the board's own empty colour), 7336 and 7385 (lattices a
/// fiftieth off in pitch: with half of each cell's points inside, a line
/// over the panel's margin passed for a row; four fifths must now); and
/// pieces scattered on a panel read as `generic`, framed where the panel's
/// own colour ends: 7031 (13x6), 7076 (9x15), 7131 (7x6); and collapse
/// boards whose edge lattice, its pitch guessed over a few rows of tiles,
/// framed a line too few or too many where the blob lattice of the same
/// tiles frames right (`blob_pitch_first`): 7100 (read 11x13 for 11x14),
/// 7293 (10x6 for 9x6); and generic boards with a piece or two covered
/// (`?`, specks), refused until the first session of 2026-11-28: 7004,
/// 7042.
#[test]
fn framed_boards_read_these() {
    sparse_read_exactly(&[
        7019, 7034, 7336, 7385, 7031, 7076, 7131, 7100, 7293, 7004, 7042,
    ]);
}

/// Generic boards of scattered pieces with no tile on their bottom row or
/// left column, read to their frame when it is seen all round at one
/// margin (`even_margins` in `vision::calibrate`; refused before the
/// second session of 2026-11-28): 7071 (7x11, its bottom row empty), 7313
/// (6x5, three empty rows), 7046, 7299, 7332 (8x6, read 7x6). A coarse
/// lattice over the whole screen, framed by the picture's edge, is not
/// taken (7093: 4x5 for 10x11), nor one framed a little off centre by
/// the picture's edge (7115: 6x7 for 7x13).
#[test]
fn framed_boards_at_one_margin_may_end_in_an_empty_line() {
    sparse_read_exactly(&[7071, 7313, 7046, 7299, 7332]);
    sparse_never_wrong_size(&[7093, 7115]);
}

/// A textured backdrop round a flat panel of nearly its colour is no line
/// of the board's empty cells (`grain` in `vision::calibrate`, second
/// session of 2026-11-28): boards grown a line past their panel before,
/// now refused (7232: 14x10 for 11x10; 7292: 10x13 for 9x13; 7432: 15x13
/// for 14x13), or read (7149, a 4x11 corner of its board refused before).
#[test]
fn a_grainy_backdrop_is_no_line_of_a_flat_board() {
    sparse_never_wrong_size(&[7232, 7292, 7432]);
    sparse_read_exactly(&[7149]);
}

/// Flat panels a few ΔE off their backdrop (under `EMPTY_NOISE`), framed
/// by a nearness measured on the board's own empty cells (`empty_noise`
/// in `vision::calibrate`, third session of 2026-11-28), and looked for by
/// it only where the usual one sees no frame: refused before, 7180 (a
/// panel 5.3 ΔE off a gradient), 7017, 7036, 7077, 7090, 7226, 7232,
/// 7292; 7179 read before and still (JPEG's ringing near a strong frame
/// lies past the measured nearness a few pixels inside it, so the
/// tighter test alone saw its frame there and its margins uneven).
#[test]
fn a_flat_panel_near_its_backdrop_frames_its_board() {
    sparse_read_exactly(&[7180, 7017, 7036, 7077, 7090, 7226, 7232, 7292, 7179]);
}

/// A board framed over many emptied lines from a lattice whose pitch was
/// measured on a few tiles, its margins uneven, is framed again from the
/// lattice refitted through its tiles' centres (`fitted_to_tiles` in
/// `vision::calibrate`, third session of 2026-11-28): samegame 7152, a
/// pitch of 21.27 for 21.8 down a stack of seven tiles, 16 rows read for
/// 15.
#[test]
fn a_framed_board_is_refitted_through_its_tiles() {
    sparse_read_exactly(&[7152]);
}

/// Collapse boards framed from a lattice of under three empty cells: the
/// board's own empty colour is learned as soon as framing has added lines
/// of them (`framed` in `vision::calibrate`, third session of 2026-11-28),
/// where before the palette's empty colours, within the empty distance,
/// took the backdrop round a dark panel for more of it; and a side that
/// fails is tried again once the others have grown (a line three cells
/// long may not hold a popup, the same line eight cells long may). Refused
/// before: samegame 7029, 7056, 7060, 7143, 7242, 7251, 7272, 7281 and
/// 7045 (a popup over the emptied cell above a column of three). And a
/// lattice of blobs framed over its board's emptied lines is no lattice
/// reaching past its blobs (`first_rescue`): samegame 7249.
#[test]
fn collapse_boards_framed_by_their_own_empty_colour() {
    sparse_read_exactly(&[7029, 7056, 7060, 7143, 7242, 7251, 7272, 7281, 7045, 7249]);
}

/// A few tiles of which no two of one size sit side by side: their pitch
/// is the one their distances along a line are whole multiples of
/// (`apart_pitch` in `vision::blobs`, third session of 2026-11-28).
/// Refused before: 7014, 7015, 7130.
#[test]
fn tiles_never_side_by_side_give_their_lattice() {
    sparse_read_exactly(&[7014, 7015, 7130]);
}

/// On a lattice of blobs, a sampling pattern that sees no cell apart is
/// blind when another, its cells mostly one colour, sees two or more
/// (`calibrate_on` in `vision::calibrate`, third session of 2026-11-28):
/// small diamonds on a flat panel, a ring outside them seeing the panel in
/// every cell. Refused before: 7039 (its lattice found by `apart_pitch`),
/// 7264.
#[test]
fn a_blind_sampling_pattern_gives_way_on_a_lattice_of_blobs() {
    sparse_read_exactly(&[7039, 7264]);
}

/// Boards of a few tiles whose class of blobs alike holds something else
/// of their size (a glyph of the UI's text, an occluding marker), read
/// through the lattice of the blobs on it (`few_blob_lattices` in
/// `vision::blobs`: from the blob that puts the most on it; the pitch from
/// the axis of the smaller gap when the two disagree), refused before the
/// second session of 2026-11-28: samegame 7065, 7096, 7138, 7221, 7363,
/// 7394; generic 7093, 7140, 7300; and samegame 7052, read 4x13 for 5x13
/// when its marker set the rows' pitch.
#[test]
fn a_few_tiles_read_past_blobs_off_their_lattice() {
    sparse_read_exactly(&[7065, 7096, 7138, 7221, 7363, 7394, 7093, 7140, 7300, 7052]);
}

/// Collapse boards framed past a marker over their emptied area that the
/// palette reads as empty (a dark square, the backdrop's colour): the cell
/// that is not empty all over counts as the one popup a line may hold
/// (`framed` in `vision::calibrate`, second session of 2026-11-28);
/// refused before: samegame 7067, 7084, 7278, 7288, 7298.
#[test]
fn a_marker_read_as_empty_is_a_popup_on_a_collapse_board() {
    sparse_read_exactly(&[7067, 7084, 7278, 7288, 7298]);
}

/// A small lattice, or one with tiles beyond it, read as a board over a
/// board of scattered pieces gives way to that board framed on its panel
/// (`sparse_instead` in `vision::calibrate`; since the first session of
/// 2026-11-28): 7168 (a 3x3 lattice of cells 172 pixels wide over 14x13
/// circles; their blob lattice found once the pitch is voted by
/// neighbours a few pitches apart only), 7134 (a 3x3 over a few pieces of
/// an 8x13 board). Small dense boards read right stay so (4038, 5x3;
/// 5326, 4x4: grown into the UI above them by a bigger board in their
/// place), and two the nearer vote reads (5315, 45 cells, one wrong
/// before; 5375, refused). On a collapse board at its own pitch too: 7080
/// (a 5x3 block of tiles in the corner of an 11x8 panel).
#[test]
fn small_lattices_give_way_to_the_board_of_pieces() {
    sparse_read_exactly(&[7168, 7134, 7080]);
    read_right(&[4038, 5326, 5315, 5375]);
}

/// Boards mostly empty whose tiles make no lattice of blobs (too few, or
/// too scattered: `blob_lattices` wants six and three neighbour distances
/// an axis), read through the lattice of the tiles alike that stand side
/// by side (`few_blob_lattices`) framed on the panel; refused until the
/// first session of 2026-11-28: samegame 7007, 7070, 7139; generic 7011,
/// 7035.
#[test]
fn tiles_side_by_side_give_a_mostly_empty_board() {
    sparse_read_exactly(&[7007, 7070, 7139, 7011, 7035]);
}

/// Lattices grown over UI to a framed extent with an unread cell or two,
/// which a board of pieces may show (`specks`): over a row of menu buttons
/// (1309: read as 12x4 for 8x3) and over header text (4331: 3x9 for
/// 10x4). Refused or read at the drawn size.
#[test]
fn specks_on_a_bar_of_ui_are_no_board() {
    for seed in [1309, 4331] {
        let (t, note) = run_case(seed);
        assert_eq!(t.wrong_size, 0, "seed {seed}: {note}");
    }
}

/// A lattice that grows far drifts off its tiles when its pitch is a
/// little off (`extended` in `vision::calibrate`): 4231 (16x16 diamonds at
/// 16 pixels, a blob lattice of 7x8 at 15.85) stopped at 14x9 and was
/// refused; fitted again through its tiles when it stops, it grows to the
/// board. 5012 (lines of colours the palette lacks: not fitted through)
/// and 3395 (a refit that grows nothing is dropped) read as before.
#[test]
fn a_lattice_grown_far_is_fitted_again_through_its_tiles() {
    for seed in [4231, 5012, 3395] {
        let (t, note) = run_case(seed);
        assert_eq!(t.wrong_size, 0, "seed {seed}: {note}");
        assert!(t.right + 1 >= t.total, "seed {seed}: {note}");
    }
    let (t, note) = run_case(4231);
    assert_eq!((t.right, t.total), (256, 256), "{note}");
}

/// A lattice of blobs that are the backdrop showing between tiles (a
/// checker behind diamonds) may sit a quarter of a pitch off the tiles,
/// not half (`shifts` in `vision::find`): these six, refused before, are
/// read now (3 unread cells at most, the occluded ones).
#[test]
fn blobs_a_quarter_pitch_off_their_tiles_give_the_lattice() {
    for seed in [2362, 3088, 3236, 4113, 4174, 6229] {
        let (t, note) = run_case(seed);
        assert_eq!((t.refused, t.wrong_size), (0, 0), "seed {seed}: {note}");
        assert!(t.right + 3 >= t.total, "seed {seed}: {note}");
    }
}

/// A colour on two thirds of two opposite outer lines (or of the ring)
/// and nowhere inside is the margin of a panel the lattice overran
/// (`plausible`): 6264 read 10x10 for 8x10, 6276 8x8 for 7x6; both are
/// refused now. A colour on half of the outer columns by chance (2224,
/// 5070: 5 of 10 cells) is still a board's.
#[test]
fn a_colour_only_round_the_edge_is_a_margin() {
    for seed in [6264, 6276] {
        let (t, note) = run_case(seed);
        assert_eq!(t.wrong_size, 0, "seed {seed}: {note}");
    }
    read_right(&[2224, 5070]);
}

/// Coarse lattices over a panel's corner and its backdrop, read as two
/// tile colours in one area each (`flat_areas`), are no board: sparse
/// 7313 and 7390 (3x3, `000/011/011`), dense 4281 (5x3 for 3x3).
#[test]
fn a_panel_on_its_backdrop_is_no_board() {
    sparse_never_wrong_size(&[7313, 7390]);
    let (t, note) = run_case(4281);
    assert_eq!(t.wrong_size, 0, "seed 4281: {note}");
}

/// Lattices whose cells are twice as tall as wide (or more than 1.8 times)
/// are no board (`MAX_PITCH_RATIO` in `vision::calibrate`): 7061 read 4x15
/// at 31x65 pixels for 7x15 (every other row), 7277 6x7 for 10x7, 7325
/// 3x4 for 5x12, 7364 3x8 for 12x7.
#[test]
fn cells_twice_as_tall_as_wide_are_no_board() {
    sparse_never_wrong_size(&[7061, 7277, 7325, 7364]);
}

/// Boards the blob lattice's refitted twin reads (`vision::blobs`, step 6)
/// and the plain lattice did not: 2106 (9x8 diamonds, refused: a lattice
/// of 288 cells read instead, most matching no colour), 3122 (5x7
/// diamonds, refused) and 5346 (8x6 gems, refused), 1365 (32 cells, one
/// read wrong); 5298 (120 cells, refused) once the twin is listed before
/// the plain lattice; 4171 (16x20, refused) and 6063 (20x20, read as
/// 22x22) once a twin 3 % of a pitch off its plain lattice is listed.
#[test]
fn refitted_blob_lattices_read_these_boards() {
    read_right(&[1365, 2106, 3122, 4171, 5298, 5346, 6063]);
}

/// Boards of generic screens read right since the thirty-ninth session
/// (`vision::calibrate`): 9069 and 9372 read two tile colours as one (the
/// most uniform ring lay on flat symbols alike in shade; a ring on the
/// tiles sets the colours `FAR_APART` times as far apart and now wins);
/// 9360 read 8x4 for 5x4 (a lattice at 2/3 of the row pitch, every other
/// row twice: `lines_twice`); 9238 read 4x3 for 5x3 (its top row of one
/// colour, merged into one blob, now grown as tiles alike: `like_its_tiles`).
#[test]
fn near_colours_rows_read_twice_and_rows_of_one_colour() {
    read_right(&[9069, 9372, 9360, 9238]);
}

/// Lattices of blobs whose tiles carry symbols near another colour fit
/// them (`footprints` in `vision::calibrate`: a point most tiles of a
/// colour disagree at is drawn on them): 5014 (circles with symbols on a
/// grey panel, fitted 0.57) and 3267 were refused.
#[test]
fn symbols_drawn_alike_do_not_unfit_a_lattice_of_blobs() {
    read_right(&[5014, 3267]);
}

/// Boards found from faint blobs (`faint_blobs` in `vision::calibrate`,
/// the last resort) with a popup or two over their tiles: read with those
/// cells unread, refused before when any was (14058, diamonds whose
/// finder's lattice lay at half their pitch; 12338; 4014).
#[test]
fn boards_of_faint_blobs_may_leave_a_popup_unread() {
    read_right(&[14058, 12338, 4014]);
}

/// A 6x3 board of large gems read as pieces on a backdrop at half their
/// pitch, 13x7 with the lines between them empty but for an unread cell
/// (`every_other_line` in `vision::calibrate`, now in `read_sparse` too).
#[test]
fn pieces_on_every_other_line_are_no_sparse_board() {
    read_right(&[16304]);
}

/// A lattice over the board and the score bar above it at the board's
/// pitch, the board alone among the finder's lattices fitting better
/// (`nested` in `vision::calibrate`): 12001 read 22x22 for 18x12.
/// So is a lattice of four times the cells or more fitting better
/// (`LARGER`): 16152 read a 3x3 of the header's text for its 5x10 board.
#[test]
fn a_part_of_the_lattice_fitting_better_is_the_board() {
    read_right(&[12001, 16152]);
}

/// Pictures looked at half size whose tiles show as small blobs only
/// (faces of gems inside their symbols, under half the pitch): when no
/// lattice is found at half size, small blobs of any share of the pitch
/// at whole size (`picture_blob_lattices`). 3241: 19x17 gems of 17
/// pixels, blurred, read at a pitch 4 % off before and refused; 6261.
#[test]
fn small_faces_are_looked_for_at_whole_size_when_half_size_sees_none() {
    read_right(&[3241, 6261]);
}

/// A lattice read over UI or part of the board, refused for the tiles
/// just beyond its sides, is followed by the last tries (`read_last_tries`
/// in `vision::calibrate`): 12155 (10x10 gems on a checker, whose class
/// of blobs at half size took in the checker at half their pitch: found
/// at whole size), 6014, 10235, 14083; all refused before.
#[test]
fn last_tries_follow_a_lattice_over_part_of_the_board() {
    read_right(&[12155, 6014, 10235, 14083]);
}

/// Boards whose edge combs are weak or off the tiles' pitch, found at the
/// lag where the picture's edge map repeats itself (`vision::repeat`):
/// 17102 (16x20 diamonds of 15 pixels on a checker: the combs' teeth only
/// 1.3 times the strength between them, under the 1.5 asked of combs no
/// repeat vouches for), 1188, 2097, 10134; all refused before.
#[test]
fn tiles_found_where_the_edges_repeat() {
    read_right(&[17102, 1188, 2097, 10134]);
}

/// Boards whose tiles are found only as the patches inside their symbols'
/// outlines, each colour its own symbol and size (`loose_blobs` in
/// `vision::calibrate`, size classes 1.35 wide when every lattice was
/// refused): 11048 (16x15 diamonds, blurred), 13074, 1337; all refused
/// before.
#[test]
fn tiles_found_by_symbols_of_several_sizes() {
    read_right(&[11048, 13074, 1337]);
}

/// Boards refused with every sampling ring, read with the cells sampled
/// over their whole middle (`disc_sampled` in `vision::calibrate`, a last
/// try): 14090 (diamonds with outlined symbols, learned as 8 colours for
/// 5), 4101, 10373, 15227. The lattices that try read which were not the
/// board are refused by their shape (`squarely_spaced`): 4320 and 11191
/// off square, 9158, 10251 and 14161 spaced apart one way.
#[test]
fn cells_sampled_over_their_middle_when_every_ring_fails() {
    read_right(&[14090, 4101, 10373, 15227]);
    for seed in [4320, 11191, 9158, 10251, 14161] {
        let (t, note) = run_case(seed);
        assert_eq!(t.wrong_size, 0, "seed {seed}: {note}");
    }
}

/// A lattice found over the board and the header's text above it, the
/// text's lines read as empty rows (`bare_lines_empty` in
/// `vision::calibrate`): 13096 read 8x6 for 6x6 and 4028 3x12 for 3x4.
#[test]
fn text_above_a_board_is_no_empty_row_of_it() {
    read_right(&[13096]);
    let (t, note) = run_case(4028);
    assert_eq!(t.wrong_size, 0, "seed 4028: {note}");
}

/// Lattices of uneven pitch whose gaps differ across and down
/// (`UNEVEN_PITCH` in `vision::calibrate`): 12272 read 4x4 for 3x4, 10159
/// 6x9 for 4x9; refused now.
#[test]
fn lattices_spaced_apart_one_way_only_are_refused() {
    for seed in [12272, 10159] {
        let (t, note) = run_case(seed);
        assert_eq!(t.refused, 1, "seed {seed}: {note}");
    }
}

/// Cells read as empty whose rim shows a tile colour at three in eight of
/// its points (`pieces_read_as_empty`): a marker over the middle of a
/// small tile, blurred to the backdrop's colour (9249: two red diamonds
/// read as holes), and lattices off their boards (10134 read 5x7 for 8x5,
/// 10150 3x7 for 9x3, their holes on tiles). Refused now, not wrong (10134
/// since read right: `tiles_found_where_the_edges_repeat`).
#[test]
fn holes_with_a_tile_round_them_are_refused() {
    for seed in [9249, 10150] {
        let (t, note) = run_case(seed);
        assert_eq!(t.refused, 1, "seed {seed}: {note}");
    }
}

/// A lattice at a third of the pitch reads blocks of 3x3 cells alike
/// (`blocks_of_one_tile`): refused, so the lattice of blobs is read
/// instead (seed 11137: 9x15 for 3x5, squares with symbols).
#[test]
fn blocks_of_cells_alike_give_way_to_the_tiles() {
    read_right(&[11137]);
}

/// A board refused whole keeps the tiles of its lattice of blobs: 2282
/// (8x3, its top row mostly empty) lost that row, whose one piece had a
/// colour of its own, and read 7x3. Now refused.
#[test]
fn a_refused_lattice_of_blobs_loses_no_line_of_tiles() {
    let (t, note) = run_case(2282);
    assert_eq!(t.wrong_size, 0, "seed 2282: {note}");
}

/// Seeds no round of work has studied (1160-1399; the pinned ones are
/// 1000-1159): the nearest thing here to layouts never seen. A ratchet on
/// what they reach today, and above all on the boards read at a wrong size
/// (made up: boards the live bot would act on), of which there must be no
/// more than today's.
#[test]
fn held_out_screenshots_make_up_no_more_boards() {
    let seeds: Vec<u64> = (1160..1400).collect();
    let (acc, all) = tally(&seeds);
    assert_eq!(all.wrong_size, 0, "boards of a wrong size");
    assert!(
        acc >= HELD_OUT_FLOOR,
        "held-out cells right {:.4}%",
        100.0 * acc
    );
}

/// Orb-drag boards come in three sizes only; read as `pad` (held to them,
/// see `vision::family`) none is read at a wrong size (as an unknown game
/// 2 of these 120 are: part of the board, or the board and the UI), and
/// every cell read right as an unknown game is read right as `pad` (more
/// may be: an orb-drag board is full, no empty colour is guessed for it).
#[test]
fn orb_drag_boards_are_read_at_their_sizes() {
    let seeds: Vec<u64> = (5000..5000 + ORB_DRAG_CASES).collect();
    eprintln!("as an unknown game:");
    let (free, _) = tally_by(&seeds, |s| read_case(s, orb_drag_case(s), "generic", false));
    eprintln!("as pad:");
    let (held, all) = tally_by(&seeds, |s| read_case(s, orb_drag_case(s), "pad", false));
    assert_eq!(all.wrong_size, 0, "orb-drag boards read at a wrong size");
    assert!(
        held >= free,
        "held to the sizes {:.4}%, free {:.4}%",
        100.0 * held,
        100.0 * free
    );
}

const ORB_DRAG_CASES: u64 = 120;

/// The held-out seeds again with the board's size given (`--rows/--cols`):
/// a hint must not make up boards. Until `vision::family` read the picture
/// without the hint first and slid or refused lattices with tiles beyond a
/// side, the hinted finder read boards a line or two off (the right size,
/// most cells wrong) where the free one read them right.
#[test]
fn given_sizes_make_up_no_board() {
    let seeds: Vec<u64> = (1160..1400).collect();
    let (acc, all) = tally_by(&seeds, |s| read_case(s, case(s), "generic", true));
    assert_eq!(
        all.wrong_size, 0,
        "boards of a wrong size with the size given"
    );
    assert!(
        acc >= HINTED_FLOOR,
        "held-out cells right with the size given {:.4}%",
        100.0 * acc
    );
}

/// `given_sizes_make_up_no_board` today: 98.74 %, 227 exact (free: 98.60 %;
/// before `parity_apart` needed a plain parity and `same_lattice`, 98.60 %
/// and 98.45 %; before a rescue could pass by its tiles' majorities (`TILES_AGREE`),
/// 98.41 % and 98.19 %; before a comb re-run kept to the board's stretch (`recomb`) and a
/// refused best lattice could be rescued by any lattice found, 98.17 % and
/// 97.09 %; before blurred narrow gaps were taken for gaps (`gaps_plain`),
/// 96.70 % and 95.62 %;
/// before diamonds were drawn, 94.90 % and 93.46 %; before the sampling
/// ring was chosen by `separation` and blind rings were set aside by
/// `SEEING_SPREAD`, 95.71 %; before blob lattices were sampled on more
/// rings, `BLOB_RINGS`, 96.25 %).
const HINTED_FLOOR: f64 = 0.987;

/// Today's figures on the held-out seeds (`vision::family::closed`,
/// `vision-games`): 93.46 % of cells, 2 boards of a wrong size (with
/// diamonds drawn, `vision-diamonds`: 89.10 % before blob lattices were
/// spared the side test and tried half a pitch off, 94.20 % and 2 after;
/// 94.60 % and **none** once the alternation test needed six boundaries
/// and a backdrop round a corner was trimmed)
/// (`vision-holes`: 93.16 %, 7); 94.67 % with the ring chosen by
/// `separation`, 95.17 % once a ring outside diamonds counts as blind
/// beside one whose cells are mostly one colour (`SEEING_SPREAD`); 95.62 %
/// with lattices of blobs sampled clear of symbols (`BLOB_RINGS`); 97.09 %
/// once a blurred narrow gap counts as a gap (`gaps_plain`); 98.19 % with
/// `recomb` kept to the board and rescues from any lattice found; 98.45 %
/// with rescues passed by their tiles' majorities (`TILES_AGREE`); 98.60 %
/// once parities apart need one parity mostly one colour (`parity_apart`)
/// and further rescues skip a lattice listed again (`same_lattice`).
const HELD_OUT_FLOOR: f64 = 0.985;

/// Per wrong cell: what was drawn, what was read and why (`SYNTH_VERBOSE`).
fn wrong_cells(
    want: &Board,
    reading: &gridbot::vision::Reading,
    occluded: &[(usize, usize)],
    cal: &gridbot::vision::layout::Calibration,
) -> String {
    let map = best_renaming(want, &reading.board);
    let mut s = format!(
        "\n  palette: threshold {:.1}, max spread {:.1}, {} colours, {} empty",
        cal.palette.threshold,
        cal.palette.max_spread,
        cal.palette.colours.len(),
        cal.palette.empty.len()
    );
    for r in 0..want.rows() {
        for c in 0..want.cols() {
            let (w, g) = (want.get(r, c), reading.board.get(r, c));
            let ok = match g {
                EMPTY => w == EMPTY,
                g if g < 10 => map[g as usize] == Some(w),
                _ => false,
            };
            if ok || (g == UNKNOWN && occluded.contains(&(r, c))) {
                continue;
            }
            let cell = &reading.cells[r * want.cols() + c];
            let count = reading.board.cells().iter().filter(|&&v| v == g).count();
            s += &format!(
                "\n  ({r},{c}) want {w} got {g} (x{count}){} lab {:.0?} spread {:.1} split {:.2} nearest {} at {:.1}",
                if occluded.contains(&(r, c)) { " occluded" } else { "" },
                cell.lab,
                cell.spread,
                cell.split,
                cell.nearest,
                cell.distance
            );
        }
    }
    s
}

#[test]
fn screens_without_a_board_are_refused() {
    let mut bad = Vec::new();
    let mut n = 0;
    // `NOBOARD_SEEDS=N` and `NOBOARD_GAME=G` to measure more (6, generic).
    let seeds: u64 = std::env::var("NOBOARD_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(6);
    let game = std::env::var("NOBOARD_GAME").unwrap_or_else(|_| "generic".into());
    for seed in 0..seeds {
        let mut rng = Rng::new(seed);
        for (name, img) in no_board_screens(&mut rng) {
            // With no hints, and with a size given (which relaxes the
            // whole-board checks, see `read_auto`).
            for (rows, cols) in [(None, None), (Some(8), Some(8)), (Some(10), Some(15))] {
                n += 1;
                let opts = CalibrateOptions::find(&game, Hints { rows, cols });
                match read_auto(&img, &opts) {
                    Err(e) if e.is_no_board() => {}
                    Err(e) => bad.push(format!(
                        "seed {seed} {name} {rows:?}x{cols:?}: wrong error {e}"
                    )),
                    Ok((r, _)) => bad.push(format!(
                        "seed {seed} {name} {rows:?}x{cols:?}: read {}",
                        r.board
                    )),
                }
            }
        }
    }
    eprintln!("no-board screens: {} of {n} refused", n - bad.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The recorded Swell Foop screenshots of full boards read right with no
/// calibration (up to a renaming of colours), and its game-over screens are
/// refused. (Gweled's checkered board with faceted gems is not read yet: the
/// finder halves its pitch.)
#[test]
fn swell_foop_fixtures_read_without_calibration() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut checked = 0;
    for size in ["small", "normal", "large"] {
        let dir = root.join(format!("swellfoop-{size}"));
        let Ok(pngs) = labelled_images(&dir) else {
            continue;
        };
        for png in pngs {
            let name = png
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let full = name.ends_with("-full");
            let over = name.ends_with("-gameover");
            if !full && !over {
                continue;
            }
            let img = gridbot::vision::load_image(&png).expect("fixture loads");
            let opts = CalibrateOptions::find("samegame", Hints::default());
            let got = read_auto(&img, &opts);
            if over {
                assert!(
                    matches!(&got, Err(e) if e.is_no_board()),
                    "{}: a game-over screen must be refused",
                    png.display()
                );
            } else {
                let text = std::fs::read_to_string(png.with_extension("txt")).expect("label");
                let want: Board = text.trim().parse().expect("board label");
                let (reading, _) = got.unwrap_or_else(|e| panic!("{}: {e}", png.display()));
                let t = score(&want, &reading.board, &[]);
                assert_eq!(
                    t.right,
                    t.total,
                    "{}: want {want}, got {}",
                    png.display(),
                    reading.board
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 0, "no Swell Foop fixtures found");
}

/// Swell Foop's two other tile themes, captured under Xvfb in every size
/// (`capture_theme_fixtures` in `tests/e2e_swellfoop.rs`): skins nothing here
/// was tuned on. Whatever the reader does with them, it never reports a wrong
/// board: each reads right (up to a renaming of colours) or is refused as "no
/// board". The full boards of the `colors` theme read right. Known refusals
/// (see docs/vision.md): `boringshapes` draws every tile the same grey, the
/// kind told only by its symbol, and mid-game boards, whose empty area is
/// plain background, are not extended to the board's full size.
/// A labelled fixture: its name, its picture and the board its `.txt` holds.
fn load_labelled(png: &std::path::Path) -> (String, image::RgbImage, Board) {
    let name = png
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let img = gridbot::vision::load_image(png).expect("fixture loads");
    let text = std::fs::read_to_string(png.with_extension("txt")).expect("label");
    let want: Board = text.trim().parse().expect("board label");
    (name, img, want)
}

/// [`load_labelled`] of the fixture at `rel` under `fixtures/`.
fn labelled_fixture(rel: &str) -> (String, image::RgbImage, Board) {
    load_labelled(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(rel),
    )
}

/// Asserts that `got` is `want` at its size with every cell right (up to
/// a renaming of colours); `name` says which picture.
fn assert_read_right(want: &Board, got: &Board, name: &str) {
    assert_eq!(
        (got.rows(), got.cols()),
        (want.rows(), want.cols()),
        "{name}: {got}"
    );
    assert_eq!(
        score(want, got, &[]).right,
        want.rows() * want.cols(),
        "{name}: {got}"
    );
}

/// Reads `img` with no calibration as `game` and asserts it is `want`
/// (see [`assert_read_right`]).
fn assert_reads_right_as(img: &image::RgbImage, game: &str, want: &Board, name: &str) {
    let got = read_auto(img, &CalibrateOptions::find(game, Hints::default()));
    let Ok((r, _)) = got else {
        panic!("{name}: refused: {:?}", got.err());
    };
    assert_read_right(want, &r.board, name);
}

/// `img` three quarters as bright with four fifths the contrast about
/// `pivot` (a board dimmed during the other side's turn).
fn dimmed(img: &mut image::RgbImage, pivot: f64) {
    *img = mapped(img, |v| (0.8 * (0.75 * v - pivot) + pivot).round());
}

/// `img` with every channel value `v` made `f(v)` (clamped to 0..=255).
fn mapped(img: &image::RgbImage, f: impl Fn(f64) -> f64) -> image::RgbImage {
    let mut out = img.clone();
    for p in out.pixels_mut() {
        for v in p.0.iter_mut() {
            *v = f(f64::from(*v)).clamp(0.0, 255.0) as u8;
        }
    }
    out
}

/// `img` dimmed as `auto_fixtures`' `RESAMPLE=dim`: three quarters as
/// bright, four fifths the contrast about the dimmed mean.
fn dimmed_about_its_mean(img: &image::RgbImage) -> image::RgbImage {
    let n = f64::from(img.width() * img.height());
    let mean = img.pixels().flat_map(|p| p.0).map(f64::from).sum::<f64>() / (3.0 * n) * 0.75;
    let mut dim = img.clone();
    dimmed(&mut dim, mean);
    dim
}

/// `img` saved as JPEG at `quality` and decoded again.
fn jpeg(img: &image::RgbImage, quality: u8) -> image::RgbImage {
    let mut buf = Vec::new();
    let enc = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut buf, quality);
    img.write_with_encoder(enc).expect("jpeg");
    image::load_from_memory_with_format(&buf, image::ImageFormat::Jpeg)
        .expect("jpeg")
        .into_rgb8()
}

#[test]
fn swell_foop_themes_read_right_or_are_refused() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/uncalibrated/swellfoop-themes");
    let pngs = labelled_images(&dir).expect("fixtures/uncalibrated/swellfoop-themes");
    assert_eq!(pngs.len(), 12, "the theme fixtures are missing");
    let mut wrong = Vec::new();
    let mut read_right = Vec::new();
    for png in &pngs {
        let (name, img, want) = load_labelled(png);
        let opts = CalibrateOptions::find("samegame", Hints::default());
        match read_auto(&img, &opts) {
            Ok((reading, _)) => {
                let b = &reading.board;
                let sized = (b.rows(), b.cols()) == (want.rows(), want.cols());
                if sized && score(&want, b, &[]).right == want.rows() * want.cols() {
                    read_right.push(name);
                } else {
                    wrong.push(format!("{name}: want {want}, got {}", reading.board));
                }
            }
            Err(e) if e.is_no_board() => {}
            Err(e) => wrong.push(format!("{name}: {e}")),
        }
    }
    eprintln!("theme fixtures read right: {read_right:?}");
    assert!(wrong.is_empty(), "wrong boards:\n{}", wrong.join("\n"));
    // The mid-game boards (empty rows on top, empty columns on the right)
    // read to the board's frame: the black empty area ends at the window's
    // border and header bar (`framed` in calibrate.rs).
    for must in [
        "colors-small-c4-full",
        "colors-normal-c4-full",
        "colors-large-c4-full",
        "colors-normal-c3-mid",
        "colors-large-c3-mid",
    ] {
        assert!(
            read_right.iter().any(|n| n == must),
            "{must} no longer reads right"
        );
    }
    // Given the board's size (what `gridbot read --rows R --cols C` passes),
    // every colour-theme picture reads right, mid-game boards too (empty top
    // rows and right columns). The normal size is the hard one: its board
    // fills the window's width to the frame, so the band sampled around it
    // for the background holds only the header bar and the window frame,
    // and the black empty area read as a colour (a wrong board) until the
    // colour between the tiles was taken as the background. The shape
    // themes (tiles of one grey told apart by their symbols) cannot be read
    // by colour: refused.
    let mut sized_wrong = Vec::new();
    for png in &pngs {
        let (name, img, want) = load_labelled(png);
        let hints = Hints {
            rows: Some(want.rows()),
            cols: Some(want.cols()),
        };
        let opts = CalibrateOptions::find("samegame", hints);
        match read_auto(&img, &opts) {
            Ok((reading, _)) => {
                let t = score(&want, &reading.board, &[]);
                if t.right != t.total {
                    sized_wrong.push(name.clone());
                    eprintln!("{name} sized: want {want}, got {}", reading.board);
                }
            }
            Err(e) if e.is_no_board() => {
                assert!(!name.starts_with("colors-"), "{name} sized: refused: {e}");
            }
            Err(e) => panic!("{name} sized: {e}"),
        }
    }
    // The large shape-theme mid-game board, sized, is found at half its row
    // pitch (its cells split into symbol and plain halves); it read as a
    // wrong board until lattices of given sizes with tiles just beyond a
    // side were slid or refused (`vision::family`).
    assert!(
        sized_wrong.is_empty(),
        "sized reads that are wrong boards: {sized_wrong:?}"
    );
}

/// The benches' phone capture (1080x1920, 6x5 board at the bottom) reads
/// right with no calibration.
#[test]
fn phone_capture_reads_back() {
    let style = Style::phone();
    let mut rng = Rng::new(11);
    let board = random_board(&mut rng, 5, 6, 6, 0.0);
    let (img, _) = render(&board, &style, 11);
    let opts = CalibrateOptions::find("pad", Hints::default());
    let (reading, _) = read_auto(&img, &opts).expect("the phone capture reads");
    let t = score(&board, &reading.board, &[]);
    assert_eq!(t.right, t.total, "want {board}, got {}", reading.board);
}

/// The PAD phone fixtures read right as `pad` with no size and with their
/// size given (the team's portraits just above the board read as a line of
/// tiles; a board of the game's size is not refused for it).
#[test]
fn pad_phone_fixtures_read_with_and_without_sizes() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/pad-phone");
    let pngs = labelled_images(&dir).expect("fixtures/pad-phone");
    assert_eq!(pngs.len(), 2, "the phone fixtures are missing");
    for png in &pngs {
        let (name, img, want) = load_labelled(png);
        for hints in [
            Hints::default(),
            Hints {
                rows: Some(5),
                cols: Some(6),
            },
        ] {
            let opts = CalibrateOptions::find("pad", hints);
            let (reading, _) =
                read_auto(&img, &opts).unwrap_or_else(|e| panic!("{name} ({hints:?}): {e}"));
            let t = score(&want, &reading.board, &[]);
            assert_eq!(
                t.right, t.total,
                "{name} ({hints:?}): got {}",
                reading.board
            );
        }
    }
}

/// Real screens of games the reader was never tuned on
/// (`fixtures/uncalibrated/{five-or-more,four-in-a-row,iagno}`, captured
/// under Xvfb on branch `vision-games`; `klickety`, `kdiamond`, `kblocks`,
/// KDE's SameGame, match-3 and Tetris, captured later: on main before
/// `striped`, KDiamond and KBlocks' empty wallpaper read as made-up 3x3 and
/// 3x6 boards; KDiamond's diamonds read since full blob lattices need no
/// strong box sides): none reads as a wrong board (a
/// board of another size or with a wrong cell, or a board on the new-game
/// menu); the ones that read right on that branch stay right (pieces drawn
/// on a backdrop: `backdrop` and `read_on_backdrop` in calibrate.rs).
#[test]
fn unseen_games_never_read_as_a_wrong_board() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/uncalibrated");
    let mut wrong = Vec::new();
    let mut read_right = Vec::new();
    let mut seen = 0;
    for game in [
        "five-or-more",
        "four-in-a-row",
        "iagno",
        "klickety",
        "kdiamond",
        "kblocks",
    ] {
        let pngs = labelled_images(&root.join(game)).expect("unseen-game fixtures");
        for png in &pngs {
            seen += 1;
            let name = format!(
                "{game}/{}",
                png.file_stem()
                    .map(|s| s.to_string_lossy())
                    .unwrap_or_default()
            );
            let img = gridbot::vision::load_image(png).expect("fixture loads");
            let text = std::fs::read_to_string(png.with_extension("txt")).expect("label");
            let got = read_auto(&img, &CalibrateOptions::find("match3", Hints::default()));
            match (text.trim(), got) {
                ("none", Err(e)) if e.is_no_board() => read_right.push(name),
                ("none", Ok((r, _))) => {
                    wrong.push(format!("{name}: a board on a menu: {}", r.board))
                }
                (label, Ok((r, _))) => {
                    let want: Board = label.parse().expect("board label");
                    let b = &r.board;
                    let sized = (b.rows(), b.cols()) == (want.rows(), want.cols());
                    if sized && score(&want, b, &[]).right == want.rows() * want.cols() {
                        read_right.push(name);
                    } else {
                        wrong.push(format!("{name}: want {want}, got {b}"));
                    }
                }
                (_, Err(e)) if e.is_no_board() => {}
                (_, Err(e)) => wrong.push(format!("{name}: {e}")),
            }
        }
    }
    assert_eq!(seen, 20, "the unseen-game fixtures are missing");
    eprintln!("unseen games read right: {read_right:?}");
    assert!(wrong.is_empty(), "wrong boards:\n{}", wrong.join("\n"));
    for must in [
        "five-or-more/balls-large-mid",
        "five-or-more/balls-medium-mid",
        "five-or-more/balls-medium-start",
        "five-or-more/tango-medium-mid",
        "five-or-more/shapes-medium-mid",
        "four-in-a-row/t2-win",
        "four-in-a-row/t3-win",
        "iagno/classic-mid",
        "iagno/classic-late",
        "iagno/adwaita-late",
        "iagno/high-contrast-late",
        "iagno/sun-and-star-late",
        "iagno/newgame",
        "klickety/easy-start",
        "klickety/easy-mid",
        "kblocks/idle",
        "kdiamond/veryhard-dialog",
        "kdiamond/veryhard",
        "kdiamond/veryeasy-small",
    ] {
        assert!(
            read_right.iter().any(|n| n == must),
            "{must} no longer reads right"
        );
    }
}

/// Swell Foop mid-game with no calibration: the small board's empty right
/// column and the margins of black around the tiles (under a pitch wide)
/// are read to the window's border (`framed`: the frame seen less than a
/// line away), not refused; the normal board as before. With the pointer
/// over a group (its tiles lit), the group reads as its colour (`unhovered`).
/// With one colour left (normal `c2-mid`: seven green tiles), the board is
/// read because its tiles are one picture (`tiles_alike`); `boringshapes`
/// (one grey, three symbols) stays refused in the theme test. With four
/// tiles left on the large 20x15 board (`c2-mid`, refused until the first
/// session of 2026-11-28), their lattice comes from the four tiles alike
/// (`find::few_candidates`) and is framed to the window's border.
#[test]
fn swellfoop_mid_game_reads_to_its_frame() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    for name in [
        "swellfoop-small/c4-mid",
        "swellfoop-normal/c4-mid",
        "swellfoop-normal/c2-mid",
        "swellfoop-large/c2-mid",
        "swellfoop-small/c3-hover",
        "swellfoop-normal/c3-hover",
        "swellfoop-large/c4-hover",
    ] {
        let (_, img, want) = load_labelled(&root.join(format!("{name}.png")));
        let (r, _) = read_auto(&img, &CalibrateOptions::find("samegame", Hints::default()))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_read_right(&want, &r.board, name);
    }
}

/// Gweled with no calibration: cut gems (facets of several shades) on a
/// checkered backdrop, the board against the window's left edge, a light
/// menu bar round it. Read through the lattice of blobs (`inside` moves it
/// onto the picture; its cells' uniformity measured with lightness weighed
/// down), the rings near the gems' middles (`Sampling::inner`), the ring
/// on the backdrop taken as blind, and the menu's grey not taken for empty
/// (the white gems show it in their middle only: `holes_show`). Every cell
/// is right or unread (`?`), none a wrong colour.
#[test]
fn gweled_reads_without_calibration() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/gweled");
    for (name, least) in [("played", 64), ("start", 63)] {
        let (_, img, want) = load_labelled(&root.join(format!("{name}.png")));
        let (r, _) = read_auto(&img, &CalibrateOptions::find("gweled", Hints::default()))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let b = &r.board;
        assert_eq!((b.rows(), b.cols()), (8, 8), "{name}: {b}");
        let right = score(&want, b, &[]).right;
        let unread = b.cells().iter().filter(|&&v| v == UNKNOWN).count();
        assert!(right >= least, "{name}: {right} of 64 right: {b}");
        assert_eq!(
            right + unread,
            64,
            "{name}: a cell read as a wrong colour: {b}"
        );
    }
}

/// A lattice of blobs holds a tile on every line: seed 4272's lattice of
/// diamonds reached over the backdrop to the "next" panel beside the board
/// (a column of nothing, then one of the panel's colour) and read a 4x5
/// board for the 4x3 drawn. Now it is refused or read at its size.
#[test]
fn a_blob_lattice_past_its_blobs_makes_no_board() {
    let (board, _, img, _) = case(4272);
    assert_eq!((board.rows(), board.cols()), (4, 3));
    if let Ok((r, _)) = read_auto(&img, &CalibrateOptions::find("generic", Hints::default())) {
        assert_eq!((r.board.rows(), r.board.cols()), (4, 3), "read {}", r.board);
    }
}

/// Klickety's board sits in a black panel with the toolbar above it and the
/// status bar below: the median colour all round is a toss-up between black
/// and grey, which any resampling tipped to grey, so its emptied cells read
/// as a fifth tile colour. The colour of two sides is tried when no cell
/// shows the median (`backgrounds_around`). Before: every one of these read
/// a wrong board.
#[test]
fn a_board_in_a_panel_between_bars_reads_its_empty_cells_resampled() {
    use image::imageops::{blur, resize, FilterType};
    let (_, img, want) = labelled_fixture("uncalibrated/klickety/easy-mid.png");
    let (w, h) = img.dimensions();
    let scaled = |f: f64| {
        let (sw, sh) = ((w as f64 * f) as u32, (h as f64 * f) as u32);
        resize(&img, sw, sh, FilterType::Triangle)
    };
    for (name, pic) in [
        ("blurred", blur(&img, 1.2)),
        ("at 0.6", scaled(0.6)),
        ("at 1.5", scaled(1.5)),
    ] {
        let got = read_auto(&pic, &CalibrateOptions::find("generic", Hints::default()));
        let Ok((r, _)) = got else {
            panic!("{name}: refused: {:?}", got.err());
        };
        assert_read_right(&want, &r.board, name);
    }
}

/// A board of pieces on a coloured backdrop (Iagno's Adwaita theme: discs
/// on blue cells) dimmed by a quarter with its contrast cut by a fifth: its
/// dark discs are then under `split_distance` from the blue, so `backdrop`
/// saw the white discs alone and took the grid lines for the empty colour;
/// a piece is any cell unlike its corners by more than `empty_distance`.
/// Before: refused ("one colour all along its left column").
#[test]
fn a_dimmed_board_of_pieces_keeps_its_backdrop() {
    let (_, mut img, want) = labelled_fixture("uncalibrated/iagno/adwaita-late.png");
    dimmed(&mut img, 100.0);
    assert_reads_right_as(&img, "generic", &want, "dimmed");
}

/// Swell Foop's normal board mid-game (seven tiles in the bottom left
/// corner of a 10x15 board) scaled to 0.6: the lattice found over the seven
/// tiles is 1.4 % off in pitch, and grown over eleven empty columns it
/// stopped one short of the frame (10x14, a made-up size). The lattice is
/// fitted to its frame (`fitted_to_frame`).
#[test]
fn a_collapse_board_grown_from_a_corner_fills_its_frame() {
    use image::imageops::{resize, FilterType};
    let (_, img, want) = labelled_fixture("swellfoop-normal/c2-mid.png");
    let (w, h) = img.dimensions();
    for filter in [
        FilterType::Nearest,
        FilterType::Triangle,
        FilterType::CatmullRom,
        FilterType::Gaussian,
        FilterType::Lanczos3,
    ] {
        for f in [0.55, 0.6, 0.7] {
            let pic = resize(&img, (w as f64 * f) as u32, (h as f64 * f) as u32, filter);
            let got = read_auto(&pic, &CalibrateOptions::find("samegame", Hints::default()));
            let Ok((r, _)) = got else {
                continue;
            };
            assert_read_right(&want, &r.board, &format!("{filter:?} at {f}"));
        }
    }
}

/// An orb-drag phone capture dimmed (the enemy's turn): the board's own
/// lattice is too faint to be found, the lattice of blobs takes the team's
/// portraits above it on its very pitch (6x6), and orb-drag boards are 6x5,
/// 7x6 or 5x4. Read on its bottom rows (`family::bottom_rows`), it is the
/// board.
#[test]
fn a_dimmed_phone_capture_reads_the_board_under_the_team() {
    let (_, mut img, want) = labelled_fixture("pad-phone/a-540x960.png");
    dimmed(&mut img, 60.0);
    assert_reads_right_as(&img, "pad", &want, "dimmed");
}

/// Gweled's window scaled by 1.33 and saved at JPEG 55 (as a phone's
/// screenshot): the gems' facets blur, no ring reads a cell as one colour,
/// and the rings near the middle set the colours 1.43 times as far apart
/// as any other (2.3-3.3 on the window as it is): under the 2.0 asked
/// then, the 8x8 board was refused (9 cells unread on the ring taken).
#[test]
fn blurred_gems_are_read_in_their_middle() {
    let (_, img, want) = labelled_fixture("gweled/start.png");
    assert_reads_right_as(&scaled_jpeg(&img), "gweled", &want, "scaled, JPEG 55");
}

/// Gweled's window scaled to 0.6 (Lanczos): once the rings near the middle
/// were taken for its gems, a ring at the gems' edge seeing 3 of 64 cells
/// apart was still the most uniform and was read (18 cells unread); with
/// it dropped the board reads right but fits its colours 0.94 by the
/// rescue's footprint (0.95 asked): a full board of a swap game needs 0.9.
#[test]
fn small_gems_read_as_a_full_board() {
    let (_, img, want) = labelled_fixture("gweled/start.png");
    let small = scaled(&img, 0.6, FilterType::Lanczos3);
    assert_reads_right_as(&small, "gweled", &want, "scaled 0.6");
}

/// Gweled's window a quarter brighter: the ring at the cells' edge read
/// the checker between the gems as two colours (the board repeated every
/// other column, refused), the ring inside it the gems' black outlines
/// and the checker's shades, and every ring on the gems was uneven with
/// their clipped facets. A pattern reading a checker, and one seeing only
/// greys where another sees the gems' colours, are blind; the middle of
/// the gems reads them.
#[test]
fn brightened_gems_are_read_off_their_checker() {
    for name in ["gweled/start.png", "gweled/played.png"] {
        let (_, img, want) = labelled_fixture(name);
        let bright = mapped(&img, |v| (1.25 * v).round());
        assert_reads_right_as(&bright, "gweled", &want, name);
    }
}

/// Five or More (tango) scaled to 0.6, brightened by a quarter and
/// blurred (`auto_fixtures`' `RESAMPLE=half+bright+blur`): the white balls
/// showed the window's white round the board to the rim of their blob and
/// were learned as holes, the board's dark empty cells as a tile colour.
/// A hole on a board of tiles apart shows its colour between the tiles
/// too: the dark cells are the holes.
#[test]
fn white_balls_beside_a_white_window_are_no_holes() {
    let (_, img, want) = labelled_fixture("uncalibrated/five-or-more/tango-medium-mid.png");
    let small = scaled(&img, 0.6, FilterType::Lanczos3);
    let img = image::imageops::blur(&mapped(&small, |v| (1.25 * v).round()), 1.2);
    assert_reads_right_as(&img, "generic", &want, "0.6, brightened, blurred");
}

/// Swell Foop's hover highlight at three quarters of the contrast,
/// blurred (`auto_fixtures`' `RESAMPLE=flat+blur`): the lit group is its
/// colour times a ratio in the game's pixels, a ratio from a lifted black
/// in the picture's, so it was learned as a colour of its own (`22.22`
/// read `33.44`). A pair of colours alike from a lifted black folds a
/// whole group (no tile of the colour under it touching it) of a third
/// of the tiles at most.
#[test]
fn a_hover_highlight_at_low_contrast_is_its_colour() {
    for name in [
        "swellfoop-small/c3-hover.png",
        "swellfoop-large/c4-hover.png",
    ] {
        let (_, img, want) = labelled_fixture(name);
        assert_reads_right_as(&flat_blurred(&img), "samegame", &want, name);
    }
}

/// Gweled's window dimmed (three quarters as bright, four fifths the
/// contrast) and scaled to 0.6 (`auto_fixtures`' `RESAMPLE=dim+half`): the
/// gems' outlines against the checker fell under the blob finder's edge,
/// no lattice of gems was found and every lattice of the combs was
/// refused. The blobs split at a fainter edge, as a last resort, give it.
#[test]
fn dimmed_small_gems_are_found_by_their_faint_outlines() {
    for name in ["gweled/start.png", "gweled/played.png"] {
        let (_, img, want) = labelled_fixture(name);
        let img = scaled(&dimmed_about_its_mean(&img), 0.6, FilterType::Lanczos3);
        assert_reads_right_as(&img, "gweled", &want, name);
    }
}

/// Gweled's window at three quarters of the contrast and blurred
/// (`auto_fixtures`' `RESAMPLE=flat+blur`): its white gems came within the
/// empty distance of the window's grey round the board and showed it to
/// the rim of their blob (the gem's own edge), so they were learned as
/// holes and read empty. A swap board is full when still: a colour of
/// some of its cells is a tile colour.
#[test]
fn white_gems_at_low_contrast_are_no_holes() {
    for name in ["gweled/start.png", "gweled/played.png"] {
        let (_, img, want) = labelled_fixture(name);
        assert_reads_right_as(&flat_blurred(&img), "gweled", &want, name);
    }
}

/// Gweled's board dimmed, a lattice of text UI scoring above the gems':
/// the gems' lattice (of blobs) is rescued when its tiles fit their
/// colours, and the checker round the small gems, dimmed within the
/// threshold of a dark gem's colour, counted against them (a fit of 0.74).
/// Round a lattice of blobs' pieces is their backdrop.
#[test]
fn dimmed_gems_fit_their_colours_off_their_backdrop() {
    let (_, img, want) = labelled_fixture("gweled/played.png");
    assert_reads_right_as(&dimmed_about_its_mean(&img), "gweled", &want, "dimmed");
}

/// Swell Foop's large game-over screen dimmed and scaled to 0.7: a
/// lattice framed over the emptied board read its black as a tile colour
/// on nine cells in ten, and the few tiles left in its corner made it a
/// board. One colour on most cells with no edge between them is one flat
/// area: no board.
#[test]
fn a_dimmed_game_over_is_no_board_of_one_flat_colour() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/swellfoop-large/c4-gameover.png");
    let base = gridbot::vision::load_image(&path).expect("fixture loads");
    for (a, b, filter) in [
        (0.7, 10.0, FilterType::Nearest),
        (0.75, 8.0, FilterType::Triangle),
    ] {
        let small = scaled(&mapped(&base, |v| (a * v + b).floor()), 0.7, filter);
        let got = read_auto(
            &small,
            &CalibrateOptions::find("samegame", Hints::default()),
        );
        assert!(
            matches!(&got, Err(e) if e.is_no_board()),
            "{a} {b} {filter:?}: a board on a game-over screen: {:?}",
            got.map(|r| r.0.board.to_string())
        );
    }
}

/// Four-in-a-row's board scaled by 1.33 and saved at JPEG quality 55: the
/// lattice of blobs overran the board by a line all round, and read on
/// its backdrop (`read_on_backdrop`, which held it to its frame only) the
/// window's margin was a ring of one colour round it: 8x9 for 6x7. Held
/// to a board's checks it is refused, and the board's own lattice read.
#[test]
fn a_board_on_its_backdrop_is_no_ring_of_margin() {
    let (_, img, want) = labelled_fixture("uncalibrated/four-in-a-row/t2-win.png");
    assert_reads_right_as(&scaled_jpeg(&img), "generic", &want, "scaled, JPEG 55");
}

/// Gweled's window saved as JPEG (a phone's screenshot) and dimmed: no
/// cell is a hole, but its white gems came within the empty distance of
/// the window's grey round the board (JPEG) and its purple triangles of
/// the checker between the gems (dimmed), and read as empty cells. A swap
/// board is full (`family::always_full`): an empty colour is not guessed
/// for it from a few cells.
#[test]
fn a_swap_board_guesses_no_empty_colour() {
    let (_, img, want) = labelled_fixture("gweled/start.png");
    let jpeg90 = jpeg(&img, 90);
    let dim = dimmed_about_its_mean(&img);
    for (name, img) in [("JPEG 90", jpeg90), ("dimmed", dim)] {
        let got = read_auto(&img, &CalibrateOptions::find("gweled", Hints::default()));
        let Ok((r, _)) = got else {
            panic!("{name}: refused: {:?}", got.err());
        };
        let b = &r.board;
        assert_eq!((b.rows(), b.cols()), (8, 8), "{name}: {b}");
        assert!(!b.cells().contains(&EMPTY), "{name}: {b}");
        assert!(score(&want, b, &[]).right >= 62, "{name}: {b}");
    }
}

/// Five or More's shapes on a phone's screen (scaled 1.55x by a triangle
/// filter, at the bottom of a dark 1080x1920 screen, as `auto_fixtures`'
/// `RESAMPLE=phone`), scaled to 0.6 and dimmed: its stars' thin arms
/// spread every ring through the pieces past the limit of a cell read as
/// one colour; the ring taken read the stars as two colours (phone), or
/// a ring at the tiles' edge, uniform but seeing only the tips of six
/// pieces, made the dark outlines the empty colour (0.6, dimmed): the
/// boards were refused. The rings near the middle read each piece as one
/// colour and see as many cells apart: they are taken (`Sampling::inner`).
#[test]
fn thin_pieces_are_read_in_their_middle() {
    let (_, img, want) = labelled_fixture("uncalibrated/five-or-more/shapes-medium-mid.png");
    assert_reads_right_as(&on_phone(&img), "generic", &want, "on a phone");
    let small = scaled(&img, 0.6, FilterType::Lanczos3);
    assert_reads_right_as(&small, "generic", &want, "scaled 0.6");
    let dim = dimmed_about_its_mean(&img);
    assert_reads_right_as(&dim, "generic", &want, "dimmed");
}

/// `img` as a phone shows it (`auto_fixtures`' `RESAMPLE=phone`): scaled
/// by a triangle filter to the width of a 1080x1920 screen (or 1720 pixels
/// high), at the bottom of the dark screen.
fn on_phone(img: &image::RgbImage) -> image::RgbImage {
    let (w, h) = img.dimensions();
    let inner = scaled(
        img,
        (1080.0 / f64::from(w)).min(1720.0 / f64::from(h)),
        FilterType::Triangle,
    );
    let mut phone = image::RgbImage::from_pixel(1080, 1920, image::Rgb([20, 20, 24]));
    let (x, y) = ((1080 - inner.width()) / 2, 1920 - inner.height() - 60);
    image::imageops::overlay(&mut phone, &inner, i64::from(x), i64::from(y));
    phone
}

/// Five or More's balls on a phone's screen: the picture is searched at
/// half size, where its lattices of blobs are looked for at half size
/// again, and there the one-pixel lines between the empty cells are gone:
/// only the balls were blobs, in blocks of a few (6x4: a wrong board). The
/// half-size copy's own lattice of cells, missing from the smaller one
/// (no lattice of about its pitch with as many sites), is taken too.
#[test]
fn cells_apart_by_thin_lines_are_found_on_a_phone() {
    let (_, img, want) = labelled_fixture("uncalibrated/five-or-more/balls-medium-mid.png");
    assert_reads_right_as(&on_phone(&img), "generic", &want, "on a phone");
}

/// Five or More's tango balls on a phone's screen: only the board of
/// pieces found by their blobs reads it (its edges' lattice is at another
/// pitch), and the blobs (the balls' light part, their bottom is dark) sit
/// a tenth of a pitch above their cells' centres, so the board's frame
/// below lies a little further than a tenth of a pitch out.
#[test]
fn pieces_high_in_their_cells_are_read_in_their_frame() {
    let (_, img, want) = labelled_fixture("uncalibrated/five-or-more/tango-medium-mid.png");
    assert_reads_right_as(&on_phone(&img), "generic", &want, "on a phone");
}

/// Klickety on a phone's screen: its top row mostly empty, the board is
/// read as held to its frame, and its full bottom row has the status bar
/// and the screen's dark edge below it, a line of unread cells (on the
/// window alone there is no room for a line there). UI beyond a side is
/// no tile: the board ends there.
#[test]
fn a_board_held_to_its_frame_may_have_ui_below() {
    let (_, img, want) = labelled_fixture("uncalibrated/klickety/easy-mid.png");
    assert_reads_right_as(&on_phone(&img), "generic", &want, "on a phone");
}

/// KDiamond's gems half hidden by its high-score dialog (KBlocks' idle
/// screen), read as no board in two forms.
///
/// Brightened by a quarter, scaled by 1.33 and saved at JPEG quality 55
/// (`auto_fixtures`' `RESAMPLE=bright+jpeg`): a 4x6 lattice of cells 98x82
/// pixels, fitted to the window's rows of UI, read a board of three
/// colours through the gems at 61 pixels. Its lines cut through the
/// lattice of blobs over it, which is refused in turn (tiles beyond its
/// side).
///
/// Dimmed and scaled to 0.6 (`RESAMPLE=dim+half`): a 3x5 lattice at twice
/// the gems' pitch read `00000/11?1./11000`, two colours in one area each
/// once the unread cell joins them: a panel on its backdrop.
#[test]
fn a_covered_board_is_no_board() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/uncalibrated/kblocks/idle.png");
    let img = gridbot::vision::load_image(&path).expect("fixture loads");
    let bright = scaled_jpeg(&mapped(&img, |v| (1.25 * v).round()));
    let dim = scaled(&dimmed_about_its_mean(&img), 0.6, FilterType::Lanczos3);
    for (name, img) in [("bright, JPEG", bright), ("dim, 0.6", dim)] {
        let got = read_auto(&img, &CalibrateOptions::find("generic", Hints::default()));
        assert!(
            matches!(&got, Err(e) if e.is_no_board()),
            "{name}: a board on a covered board: {:?}",
            got.map(|r| r.0.board.to_string())
        );
    }
}

/// `img` at three quarters of the contrast about 128, blurred by 1.2, as
/// `auto_fixtures`' `RESAMPLE=flat+blur`.
fn flat_blurred(img: &image::RgbImage) -> image::RgbImage {
    let flat = mapped(img, |v| (128.0 + 0.75 * (v - 128.0)).round());
    image::imageops::blur(&flat, 1.2)
}

/// `img` scaled by 1.33 (Catmull-Rom) and saved at JPEG quality 55, as
/// `auto_fixtures`' `RESAMPLE=jpeg`.
fn scaled_jpeg(img: &image::RgbImage) -> image::RgbImage {
    jpeg(&scaled(img, 1.33, FilterType::CatmullRom), 55)
}

/// `img` scaled by `f` (each side rounded) with `filter`.
fn scaled(img: &image::RgbImage, f: f64, filter: FilterType) -> image::RgbImage {
    let (w, h) = img.dimensions();
    let side = |n: u32| (f64::from(n) * f).round() as u32;
    image::imageops::resize(img, side(w), side(h), filter)
}
