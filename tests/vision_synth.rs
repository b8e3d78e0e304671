//! Vision against synthetic pictures from the simulator's renderer: every
//! board drawn in a known style reads back exactly; blank and noise pictures
//! are refused; calibration from a picture finds the grid and the palette.
//!
//! Property tests use a pinned seed and a modest case count so the debug run
//! stays within seconds. `GRIDBOT_SYNTH_DIR=DIR cargo test --test vision_synth
//! -- --ignored` writes sample pictures for trying the CLI by hand.

use gridbot::board::{Board, EMPTY};
use gridbot::platform::sim::{calibration_for, random_board, render, SimStyle};
use gridbot::vision::calibrate::{calibrate, CalibrateOptions};
use gridbot::vision::{read_board, Calibration, VisionError};
use image::{imageops, Rgb, RgbImage};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

fn styles() -> Vec<SimStyle> {
    let mut big_symbol = SimStyle::swellfoop();
    big_symbol.symbol = 0.36;
    big_symbol.noise = 6;
    big_symbol.cell = 30;
    big_symbol.gap = 2;
    let mut no_gap = SimStyle::plain(16);
    no_gap.gap = 0;
    vec![
        SimStyle::swellfoop(),
        SimStyle::plain(12),
        big_symbol,
        no_gap,
    ]
}

fn board_strategy() -> impl Strategy<Value = Board> {
    (1usize..=10, 1usize..=15, 2u8..=6).prop_flat_map(|(rows, cols, k)| {
        proptest::collection::vec(prop_oneof![1 => Just(EMPTY), 4 => 1..=k], rows * cols)
            .prop_map(move |cells| Board::from_cells(rows, cols, cells))
    })
}

fn config(cases: u32) -> Config {
    Config {
        cases,
        rng_seed: RngSeed::Fixed(0x6772_6964),
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config(40))]

    #[test]
    fn rendered_boards_read_back(board in board_strategy(), style in 0usize..4) {
        let style = &styles()[style];
        let cal = calibration_for(style, board.rows(), board.cols());
        let img = render(&board, style);
        let r = read_board(&img, &cal).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(r.board.to_string(), board.to_string());
        let worst = r.distances.iter().copied().fold(0.0, f32::max);
        prop_assert!(worst < cal.palette.threshold, "worst ΔE {} vs threshold {}", worst, cal.palette.threshold);
    }

    #[test]
    fn resized_windows_read_back(board in board_strategy(), factor in prop_oneof![Just(0.75f64), Just(1.5), Just(2.0)]) {
        let style = SimStyle::swellfoop();
        let cal = calibration_for(&style, board.rows(), board.cols());
        let img = render(&board, &style);
        let (w, h) = ((img.width() as f64 * factor).round() as u32, (img.height() as f64 * factor).round() as u32);
        let img = imageops::resize(&img, w, h, imageops::FilterType::Triangle);
        let r = read_board(&img, &cal).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(r.board.to_string(), board.to_string());
    }

    #[test]
    fn noise_is_no_board(seed in any::<u64>(), style in 0usize..4) {
        let style = &styles()[style];
        let cal = calibration_for(style, 10, 15);
        let (w, h) = style.window_size(10, 15);
        let mut s = seed | 1;
        let img = RgbImage::from_fn(w, h, |_, _| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            Rgb([s as u8, (s >> 8) as u8, (s >> 16) as u8])
        });
        let e = read_board(&img, &cal).expect_err("noise must be refused");
        prop_assert!(e.is_no_board(), "{}", e);
    }
}

#[test]
fn blank_pictures_are_no_board() {
    for style in styles() {
        let cal = calibration_for(&style, 10, 15);
        let (w, h) = style.window_size(10, 15);
        let mut fills = vec![
            [0, 0, 0],
            [255, 255, 255],
            [128, 128, 128],
            style.background,
            style.chrome,
        ];
        fills.extend(style.colours.iter().copied());
        for fill in fills {
            let img = RgbImage::from_pixel(w, h, Rgb(fill));
            match read_board(&img, &cal) {
                Err(e) => assert!(e.is_no_board(), "{fill:?}: {e}"),
                Ok(r) => panic!("a blank {fill:?} picture read as {}", r.board),
            }
        }
    }
}

#[test]
fn a_cleared_board_is_still_a_board() {
    let style = SimStyle::swellfoop();
    let cal = calibration_for(&style, 10, 15);
    let r =
        read_board(&render(&Board::new(10, 15, EMPTY), &style), &cal).expect("the window is there");
    assert_eq!(r.board.filled_count(), 0);
}

#[test]
fn wrong_aspect_is_wrong_size() {
    let style = SimStyle::swellfoop();
    let cal = calibration_for(&style, 10, 15);
    let img = RgbImage::new(600, 600);
    assert!(matches!(
        read_board(&img, &cal),
        Err(VisionError::WrongSize { .. })
    ));
}

#[test]
fn half_unreadable_is_no_board_with_measurements() {
    let style = SimStyle::swellfoop();
    let board = random_board(10, 15, 4, 3);
    let cal = calibration_for(&style, 10, 15);
    let mut img = render(&board, &style);
    // A dialog over the middle of the board.
    let (w, h) = (img.width(), img.height());
    for y in h / 4..3 * h / 4 {
        for x in w / 5..4 * w / 5 {
            img.put_pixel(x, y, Rgb([246, 245, 244]));
        }
    }
    let e = read_board(&img, &cal).expect_err("covered");
    let msg = e.to_string();
    assert!(msg.starts_with("no board found: "), "{msg}");
    assert!(
        msg.contains("cells match no palette colour") && msg.contains("ΔE"),
        "{msg}"
    );
}

/// Calibrating from a picture: the grid is found, and with the known board the
/// palette indices are exact.
#[test]
fn calibrate_finds_grid_and_palette() {
    for (i, style) in [SimStyle::swellfoop(), SimStyle::plain(20)]
        .into_iter()
        .enumerate()
    {
        let board = random_board(10, 15, 4, 11 + i as u64);
        let img = render(&board, &style);
        let mut opts = CalibrateOptions::new("samegame", 10, 15);
        opts.board = Some(board.clone());
        let (cal, report) = calibrate(&img, &opts).expect("calibrates");
        let want = style.grid();
        let g = cal.grid;
        for (a, b) in [
            (g.left, want.left),
            (g.top, want.top),
            (g.cell_width, want.cell_width),
            (g.gap_x, want.gap_x),
        ] {
            assert!(
                (a - b).abs() <= 0.5,
                "style {i}: found {g:?}, drawn {want:?}"
            );
        }
        assert!(report.mismatches.is_empty(), "{:?}", report.mismatches);
        assert_eq!(read_board(&img, &cal).expect("reads").board, board);
        // The calibration survives a save/load round trip.
        let back = Calibration::from_toml(&cal.to_toml()).expect("parses");
        assert_eq!(read_board(&img, &back).expect("reads").board, board);
    }
}

/// Without the board, clusters are numbered by first appearance: the reading
/// equals the board up to renaming colours.
#[test]
fn calibrate_without_board_names_colours_consistently() {
    let style = SimStyle::swellfoop();
    let mut board = random_board(10, 15, 5, 5);
    for c in 10..15 {
        for r in 0..10 {
            board.set(r, c, EMPTY); // some empty columns on the right
        }
    }
    let img = render(&board, &style);
    // The grid needs the full extent: give the rectangle.
    let g = style.grid();
    let mut opts = CalibrateOptions::new("samegame", 10, 15);
    opts.rect = Some((
        g.left,
        g.top,
        15.0 * g.pitch_x() - g.gap_x,
        10.0 * g.pitch_y() - g.gap_y,
    ));
    opts.gap = g.gap_x;
    opts.colours = Some(5);
    let (cal, _) = calibrate(&img, &opts).expect("calibrates");
    let got = read_board(&img, &cal).expect("reads").board;
    let mut map = [None::<u8>; 256];
    for (a, b) in board.cells().iter().zip(got.cells()) {
        let m = map[*a as usize].get_or_insert(*b);
        assert_eq!(*m, *b, "colour {a} read as both {m} and {b}");
    }
    assert_eq!(map[EMPTY as usize], Some(EMPTY));
    let mut seen: Vec<u8> = (1..=5).filter_map(|v| map[v as usize]).collect();
    seen.sort_unstable();
    assert_eq!(seen, vec![1, 2, 3, 4, 5]);
}

#[test]
#[ignore = "writes sample pictures for manual CLI checks"]
fn write_samples() {
    let dir = std::env::var("GRIDBOT_SYNTH_DIR").unwrap_or_else(|_| "target/synth".into());
    std::fs::create_dir_all(&dir).expect("mkdir");
    for (name, style, rows, cols, seed) in [
        ("swell-15x10", SimStyle::swellfoop(), 10, 15, 1u64),
        ("plain-6x5", SimStyle::plain(24), 5, 6, 2),
    ] {
        let board = random_board(rows, cols, 4, seed);
        render(&board, &style)
            .save(format!("{dir}/{name}.png"))
            .expect("save");
        std::fs::write(format!("{dir}/{name}.txt"), format!("{board}\n")).expect("write");
    }
}

/// The `read` command: one board line per image; a blank screen exits 2 with
/// "no board found"; `--json` carries per-cell distances.
#[test]
fn cli_read_prints_boards_and_exits_2_without_a_board() {
    use std::process::Command;
    let dir = std::env::temp_dir().join(format!("gridbot-read-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let style = SimStyle::swellfoop();
    let board = random_board(4, 5, 3, 21);
    calibration_for(&style, 4, 5)
        .save(&dir.join("cal.toml"))
        .expect("save");
    let img = render(&board, &style);
    img.save(dir.join("a.png")).expect("png");
    RgbImage::new(img.width(), img.height())
        .save(dir.join("blank.png"))
        .expect("png");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_gridbot"))
            .args(["read", "--game", "samegame", "--calibration"])
            .arg(dir.join("cal.toml"))
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("runs")
    };
    let out = run(&["a.png", "a.png"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text, format!("{board}\n{board}\n"));

    let out = run(&["blank.png"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no board found"));

    let out = run(&["--json", "a.png"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["board"], board.to_string());
    assert_eq!(v["distances"].as_array().map(|r| r.len()), Some(4));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Calibrating from labelled screenshots learns the hover highlight as a
/// brightness factor (as Swell Foop draws it) and refusal colours from a
/// screenshot labelled `none`.
#[test]
fn calibrate_learns_highlight_and_refusals() {
    use gridbot::vision::calibrate::{calibrate_shots, Label};
    let mut style = SimStyle::plain(30);
    style.symbol = 0.25;
    let board = random_board(5, 6, 4, 17);
    let plain = render(&board, &style);
    // Brighten the tiles of column 0 by 1.42 in sRGB: a "hovered" group.
    let g = style.grid();
    let mut hovered = plain.clone();
    for (x, y, p) in hovered.enumerate_pixels_mut() {
        if (x as f64) < g.left + g.cell_width && (y as f64) >= g.top {
            p.0 = p.0.map(|v| (v as f32 * 1.42).round().min(255.0) as u8);
        }
    }
    // A "game over" screen: the board under a flat blue button.
    let mut over = plain.clone();
    for y in 80..120 {
        for x in 30..100 {
            over.put_pixel(x, y, Rgb([30, 90, 170]));
        }
    }
    let opts = CalibrateOptions::new("samegame", 5, 6);
    let shots = [
        (&plain, Label::Board(&board)),
        (&hovered, Label::Board(&board)),
        (&over, Label::NoBoard),
    ];
    let (cal, report) = calibrate_shots(&shots, &opts).expect("calibrates");
    let f = report.highlight.expect("a highlight was learned");
    assert!((f - 1.42).abs() < 0.03, "factor {f}");
    assert!(report.mismatches.is_empty(), "{:?}", report.mismatches);
    assert_eq!(read_board(&hovered, &cal).expect("reads").board, board);
    assert!(!cal.palette.refuse.is_empty(), "{:?}", report.refusal_reads);
    let e = read_board(&over, &cal).expect_err("refused");
    assert!(e.to_string().contains("refusal colour"), "{e}");
    assert_eq!(report.refusal_reads, vec![Ok(())]);
}
