//! Fixture replay as a test oracle: every recorded screenshot under
//! `fixtures/*/` must read exactly as its label says (`NAME.txt`: the board
//! text, or `none` for a screen that must be refused). Rewrite labels with
//! `BLESS=1 gridbot replay fixtures` after checking the overlays.
//!
//! A directory of labelled screenshots without a `fixture.toml` is an error,
//! so fixtures are never skipped silently. The second test proves the oracle
//! bites: a wrong label, or `none` on a real board, fails.

mod resample;

use std::path::{Path, PathBuf};

use gridbot::board::Board;
use gridbot::platform::sim::{calibration_for, random_board, render, SimStyle};
use gridbot::vision::replay::{
    fixture_dirs, labelled_images, load_fixture_config, replay_dir, Expected,
};

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

#[test]
fn every_fixture_reads_as_labelled() {
    let root = fixtures_root();
    // Labelled screenshots must live in a configured directory.
    if let Ok(rd) = std::fs::read_dir(&root) {
        for d in rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir())
        {
            let labelled = labelled_images(&d).map(|v| v.len()).unwrap_or(0);
            assert!(
                labelled == 0 || d.join("fixture.toml").is_file(),
                "{} has {labelled} labelled screenshots but no fixture.toml",
                d.display()
            );
        }
    }
    let dirs = fixture_dirs(&root);
    if dirs.is_empty() {
        eprintln!("note: no fixture directories under {}", root.display());
    }
    let (mut passed, mut failures) = (0, Vec::new());
    for d in &dirs {
        let s = replay_dir(d, false).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        passed += s.passed;
        failures.extend(
            s.cases
                .into_iter()
                .filter(|c| !c.passed)
                .map(|c| format!("{}: {}", c.image.display(), c.detail)),
        );
    }
    eprintln!("{passed} passed, {} failed", failures.len());
    assert!(
        failures.is_empty(),
        "misread fixtures:\n{}",
        failures.join("\n")
    );
}

/// The falling-block fixtures (real Quadrapassel windows, four themes, two
/// window sizes, a game-over screen) read exactly as labelled when captured
/// as a phone or an emulator would show them too: scaled, blurred, JPEG,
/// dimmed, brightened, and those composed. Each change once broke the well
/// finder: brightened, a frame a few shades off the well joined it; on a
/// phone's dark backdrop the backdrop was taken for the well (a well has
/// walls); dimmed and scaled, the well's colour came within the region
/// tolerance of the frame's.
#[test]
fn falling_block_fixtures_read_right_resampled() {
    let dir = fixtures_root().join("quadrapassel");
    let (_, reader) = load_fixture_config(&dir).expect("fixture config");
    let mut failures = Vec::new();
    let mut n = 0;
    for png in labelled_images(&dir).expect("list") {
        let img = gridbot::vision::load_image(&png).expect("png");
        let label = std::fs::read_to_string(png.with_extension("txt")).expect("label");
        let want = Expected::parse(&label).expect("label parses");
        for how in resample::RESAMPLINGS.iter().chain(&resample::COMBOS) {
            let changed = resample::resampled(&img, how).expect("known change");
            n += 1;
            let got = reader.read(&changed);
            let right = match (&want, &got) {
                (Expected::NoBoard, Err(e)) => e.is_no_board(),
                (Expected::Board(b), Ok(r)) => *b == r.board,
                _ => false,
            };
            if !right {
                let got = got
                    .map(|r| r.board.to_string())
                    .unwrap_or_else(|e| e.to_string());
                failures.push(format!("{} ({how}): {got}", png.display()));
            }
        }
    }
    assert!(n >= 80, "only {n} pictures");
    assert!(failures.is_empty(), "misread:\n{}", failures.join("\n"));
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

#[test]
fn the_oracle_fails_on_a_misread() {
    let dir = std::env::temp_dir().join(format!("gridbot-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let style = SimStyle::swellfoop();
    let board = random_board(5, 6, 3, 9);
    let cal = calibration_for(&style, 5, 6);
    cal.save(&dir.join("cal.toml")).expect("save calibration");
    write(
        &dir.join("fixture.toml"),
        "game = \"samegame\"\ncalibration = \"cal.toml\"\n",
    );
    let img = render(&board, &style);
    let (w, h) = (img.width(), img.height());
    img.save(dir.join("a.png")).expect("png");
    write(&dir.join("a.txt"), &format!("{board}\n"));
    image::RgbImage::from_pixel(w, h, image::Rgb([0, 0, 0]))
        .save(dir.join("blank.png"))
        .expect("png");
    write(&dir.join("blank.txt"), "none\n");

    let s = replay_dir(&dir, false).expect("replays");
    assert_eq!((s.passed, s.failed), (2, 0), "{:?}", s.cases);

    // One cell wrong in the label: the case fails and names the cell.
    let mut wrong = board.clone();
    let v = wrong.get(2, 3);
    wrong.set(2, 3, if v == 1 { 2 } else { 1 });
    write(&dir.join("a.txt"), &format!("{wrong}\n"));
    let s = replay_dir(&dir, false).expect("replays");
    assert_eq!((s.passed, s.failed), (1, 1));
    let detail = &s
        .cases
        .iter()
        .find(|c| !c.passed)
        .expect("a failure")
        .detail;
    assert!(detail.starts_with("1 cells differ: (2,3) want"), "{detail}");

    // `none` on a real board fails too.
    write(&dir.join("a.txt"), "none\n");
    assert_eq!(replay_dir(&dir, false).expect("replays").failed, 1);

    // Blessing rewrites the label from what is read.
    let s = replay_dir(&dir, true).expect("blesses");
    assert_eq!(s.blessed, 2);
    let text = std::fs::read_to_string(dir.join("a.txt")).expect("label");
    assert_eq!(text.trim().parse::<Board>().expect("board"), board);
    assert_eq!(replay_dir(&dir, false).expect("replays").failed, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `gridbot replay DIR`: a line per mismatch, the summary, exit 1 on failure.
#[test]
fn cli_replay_reports_and_exits_1_on_a_mismatch() {
    use std::process::Command;
    let dir = std::env::temp_dir().join(format!("gridbot-replay-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let style = SimStyle::plain(16);
    let board = random_board(3, 4, 3, 4);
    calibration_for(&style, 3, 4)
        .save(&dir.join("cal.toml"))
        .expect("save");
    write(
        &dir.join("fixture.toml"),
        "game = \"samegame\"\ncalibration = \"cal.toml\"\n",
    );
    render(&board, &style).save(dir.join("a.png")).expect("png");
    write(&dir.join("a.txt"), &format!("{board}\n"));
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_gridbot"))
            .arg("replay")
            .arg(&dir)
            .output()
            .expect("runs")
    };
    let out = run();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "1 passed, 0 failed\n");
    write(&dir.join("a.txt"), "none\n");
    let out = run();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("FAIL ") && text.contains("expected no board"),
        "{text}"
    );
    assert!(text.ends_with("0 passed, 1 failed\n"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `gridbot calibrate --game tetris` writes the well's layout (no numbers
/// typed), and `gridbot read --calibration` reads every Quadrapassel
/// fixture of that window size with it as labelled; a game-over screen
/// gives exit code 2 from `calibrate`, and so does `read` asked for a well
/// of 12 columns.
#[test]
fn cli_calibrates_a_well_and_reads_with_it() {
    use std::process::Command;
    let dir = fixtures_root().join("quadrapassel");
    let out = std::env::temp_dir().join(format!("gridbot-well-{}.toml", std::process::id()));
    let bin = env!("CARGO_BIN_EXE_gridbot");
    // Runs `cmd`, which must succeed.
    let succeeds = |cmd: &mut Command| {
        let out = cmd.output().expect("runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    succeeds(
        Command::new(bin)
            .args(["calibrate", "--game", "tetris", "--image"])
            .arg(dir.join("clean-mid.png"))
            .arg("--out")
            .arg(&out),
    );
    let same_size = ["clean-mid", "clean-start", "plain-mid", "tangoflat-mid"];
    let read = succeeds(
        Command::new(bin)
            .args(["read", "--game", "tetris", "--calibration"])
            .arg(&out)
            .args(same_size.map(|n| dir.join(format!("{n}.png")))),
    );
    let got: Vec<String> = String::from_utf8_lossy(&read.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    let want: Vec<String> = same_size
        .iter()
        .map(|n| {
            std::fs::read_to_string(dir.join(format!("{n}.txt")))
                .expect("label")
                .trim()
                .to_string()
        })
        .collect();
    assert_eq!(got, want);
    let over = Command::new(bin)
        .args(["calibrate", "--game", "tetris", "--image"])
        .arg(dir.join("clean-gameover.png"))
        .output()
        .expect("runs");
    assert_eq!(over.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&over.stderr).contains("no board found"));
    // `--cols` / `--rows` size the well looked for: no 12-column well here.
    let wide = Command::new(bin)
        .args(["read", "--game", "tetris", "--cols", "12"])
        .arg(dir.join("clean-mid.png"))
        .output()
        .expect("runs");
    assert_eq!(wide.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&wide.stderr).contains("no 12x20 well"));
    let _ = std::fs::remove_file(&out);
}

/// True when `got` is `want` up to a one-to-one renaming of colours (a
/// board read with no calibration numbers its colours as it meets them).
fn same_up_to_renaming(want: &Board, got: &Board) -> bool {
    if (want.rows(), want.cols()) != (got.rows(), got.cols()) {
        return false;
    }
    let mut pairs = std::collections::HashMap::new();
    let mut back = std::collections::HashMap::new();
    want.cells()
        .iter()
        .zip(got.cells())
        .all(|(&w, &g)| *pairs.entry(w).or_insert(g) == g && *back.entry(g).or_insert(w) == w)
}

/// Boards drawn with lines between their cells, read with no calibration
/// from captures scaled down and blurred: a lattice of part of the board
/// (the cells whose lines the blur left sharp enough) took the first line
/// past it for the board's frame and read as a smaller board (Five or More
/// 9x9 as 6x8, Four-in-a-row 6x7 as 4x7, Swell Foop's large board 15x20 as
/// 15x19). A line a pitch from another of its colour is the grid going on
/// (`line_goes_on` in `vision::calibrate`).
#[test]
fn grid_lines_past_a_lattice_are_no_frame() {
    reads_right_resampled(&[
        (
            "uncalibrated/five-or-more/balls-medium-start",
            "match3",
            "half+bright+blur",
        ),
        (
            "uncalibrated/four-in-a-row/t4-win",
            "match3",
            "half+bright+blur",
        ),
        ("swellfoop-large/c3-mid", "samegame", "flat+blur"),
    ]);
}

/// Collapse boards with their last column emptied, scaled to 0.6 and
/// blurred: the blur of the full column before it spilled a pixel past the
/// lattice and was taken for the board's frame (Swell Foop 10x15 read as
/// 10x14, 15x20 as 15x19). A blend of the outer tile and the empty colour
/// just past the edge is no frame (`blend_of` in `vision::calibrate`).
#[test]
fn a_tiles_blur_past_the_edge_is_no_frame() {
    reads_right_resampled(&[
        ("swellfoop-normal/c3-hover", "samegame", "half+bright+blur"),
        ("swellfoop-large/c3-mid", "samegame", "half+bright+blur"),
    ]);
}

/// KDiamond's gems warmed and dimmed: two of its hues came within the
/// split distance of their mean and k-means left them in one colour (read
/// as a wrong board). A cluster of two hues with a gap between them is two
/// colours (`split_two_modes` in `vision::calibrate`).
#[test]
fn two_hues_in_one_cluster_are_two_colours() {
    reads_right_resampled(&[("uncalibrated/kdiamond/veryhard", "match3", "warm+dim")]);
}

/// Each (fixture, game, resampling) reads as labelled with no calibration,
/// up to a renaming of colours.
fn reads_right_resampled(cases: &[(&str, &str, &str)]) {
    use gridbot::vision::calibrate::{read_auto, CalibrateOptions};
    use gridbot::vision::find::Hints;
    let root = fixtures_root();
    for &(file, game, how) in cases {
        let png = root.join(format!("{file}.png"));
        let img = gridbot::vision::load_image(&png).expect("fixture loads");
        let want: Board = std::fs::read_to_string(png.with_extension("txt"))
            .expect("label")
            .trim()
            .parse()
            .expect("board label");
        let changed = resample::resampled(&img, how).expect("known change");
        let got = read_auto(&changed, &CalibrateOptions::find(game, Hints::default()))
            .unwrap_or_else(|e| panic!("{file} ({how}): {e}"));
        assert!(
            same_up_to_renaming(&want, &got.0.board),
            "{file} ({how}): want {want}, got {}",
            got.0.board
        );
    }
}

/// Iagno's high-contrast discs: the white ones are light grey inside a
/// dark rim, on white squares. Brightened, their inside is the squares'
/// white (read as empty: the outline on another ring tells them apart);
/// dimmed, the rings inside them came within the empty distance, and the
/// pattern chosen lies on the rim, reading them as the black discs (a
/// ring inside tells them apart). Both were refused as one tile colour
/// (`two_tones` in `vision::calibrate`, `Calibration::second`).
#[test]
fn pieces_told_apart_by_a_second_ring_read_right() {
    reads_right_resampled(&[
        ("uncalibrated/iagno/high-contrast-late", "generic", "bright"),
        ("uncalibrated/iagno/high-contrast-late", "generic", "dim"),
        ("uncalibrated/iagno/high-contrast-late", "generic", "phone"),
    ]);
}

/// Four-in-a-row JPEG'd at 1.33x: its real lattice was refused (two
/// colours only), and a further lattice the finder listed, its columns
/// 0.39 of their pitch apart and its rows touching, read the blue board
/// as a colour (a wrong 6x6 board). A further rescue must space its tiles
/// alike both ways (`GAPS_ALIKE` in `vision::calibrate`).
#[test]
fn a_rescue_spaces_its_tiles_alike_both_ways() {
    reads_right_resampled(&[("uncalibrated/four-in-a-row/t4-win", "generic", "big+jpeg")]);
}

/// KDiamond dimmed and scaled to half: its orange gems' colour came 0.4
/// ΔE from the colour round the board, learned as the empty colour; the
/// palette's threshold, at most half the least distance between two
/// values' colours, fell to 0.2 and the board read as unread cells. Outside
/// the collapse family such an empty colour is the tile colour.
#[test]
fn an_empty_colour_that_is_a_tile_colour_is_that_colour() {
    reads_right_resampled(&[("uncalibrated/kdiamond/veryhard", "generic", "dim+half")]);
}

/// Swell Foop's hover highlight at a lower contrast, blurred: the lit
/// group's cells read `?` and are a brightened shade of their colour only
/// from a lifted black, so the board was refused. Unread cells that are a
/// lighter shade of one colour from a lifted black are a hover too (with
/// a lifted pair's own conditions: a small share of the tiles, the group
/// whole, not along an outer line).
#[test]
fn a_hover_at_a_lower_contrast_is_a_hover() {
    reads_right_resampled(&[("swellfoop-normal/c3-hover", "samegame", "flat+blur")]);
}
