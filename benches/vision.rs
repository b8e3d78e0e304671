//! Criterion benches of the vision reader (run in release: `cargo bench --bench vision`).
//!
//! `read_board` on a 15x10 board drawn by the simulator in the Swell Foop-like
//! style (613x459 window), on the same picture scaled to another window size,
//! and on each real fixture directory's first screenshot when present.
//!
//! No calibration (issue 3): on a synthetic 1080x1920 phone capture with a 6x5
//! board (`tests/synth`), `read_board` with the calibration learned from it
//! (target < 1 ms), `find_grid` from scratch (target < 50 ms) and the whole
//! `read_auto` (find, learn the palette, read); the same two on a 1280x720
//! desktop window with a 15x20 board of small circles.

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use gridbot::platform::sim::{calibration_for, random_board, render, SimStyle};
use gridbot::vision::calibrate::{read_auto, CalibrateOptions};
use gridbot::vision::find::{find_grid, FindParams, Hints};
use gridbot::vision::replay::{fixture_dirs, labelled_images, load_fixture_config, FixtureReader};
use gridbot::vision::{load_image, read_board};
use image::imageops;

#[path = "../tests/synth/mod.rs"]
mod synth;

fn phone_benches(c: &mut Criterion) {
    let style = synth::Style::phone();
    let mut rng = synth::Rng::new(11);
    let board = synth::random_board(&mut rng, 5, 6, 6, 0.0);
    let (img, _) = synth::render(&board, &style, 11);
    let opts = CalibrateOptions::find("pad", Hints::default());
    let Ok((_, cal)) = read_auto(&img, &opts) else {
        eprintln!("the phone picture does not read: no issue-3 benches");
        return;
    };
    c.bench_function("vision/read_board phone 1080x1920 6x5 calibrated", |b| {
        b.iter(|| read_board(black_box(&img), &cal).map(|r| r.board.filled_count()))
    });
    let params = FindParams::default();
    c.bench_function("vision/find_grid phone 1080x1920 6x5", |b| {
        b.iter(|| find_grid(black_box(&img), Hints::default(), &params).map(|f| f.rows))
    });
    c.bench_function("vision/read_auto phone 1080x1920 6x5", |b| {
        b.iter(|| read_auto(black_box(&img), &opts).map(|(r, _)| r.board.filled_count()))
    });
}

/// A desktop window (1280x720, 0.92 Mpx: looked at half size, and at full
/// size for small tiles) with a 15x20 board of 18-pixel circles.
fn desktop_benches(c: &mut Criterion) {
    let (style, board) = synth::Style::desktop();
    let (img, _) = synth::render(&board, &style, 5);
    let opts = CalibrateOptions::find("generic", Hints::default());
    let params = FindParams::default();
    c.bench_function("vision/find_grid desktop 1280x720 20x15", |b| {
        b.iter(|| find_grid(black_box(&img), Hints::default(), &params).map(|f| f.rows))
    });
    c.bench_function("vision/read_auto desktop 1280x720 20x15", |b| {
        b.iter(|| read_auto(black_box(&img), &opts).map(|(r, _)| r.board.filled_count()))
    });
}

fn benches(c: &mut Criterion) {
    let style = SimStyle::swellfoop();
    let board = random_board(10, 15, 4, 1);
    let cal = calibration_for(&style, 10, 15);
    let img = render(&board, &style);
    c.bench_function("vision/read_board sim 15x10", |b| {
        b.iter(|| read_board(black_box(&img), &cal).map(|r| r.board.filled_count()))
    });
    let big = imageops::resize(
        &img,
        img.width() * 3 / 2,
        img.height() * 3 / 2,
        imageops::FilterType::Triangle,
    );
    c.bench_function("vision/read_board sim 15x10 scaled 1.5x", |b| {
        b.iter(|| read_board(black_box(&big), &cal).map(|r| r.board.filled_count()))
    });
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    for dir in fixture_dirs(&root) {
        // The calibrated fast path only (a falling-block well is found on
        // each picture).
        let Ok((_, FixtureReader::Calibrated(cal))) = load_fixture_config(&dir) else {
            continue;
        };
        let Some(first) = labelled_images(&dir)
            .ok()
            .and_then(|v| v.into_iter().next())
        else {
            continue;
        };
        let Ok(img) = load_image(&first) else {
            continue;
        };
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        c.bench_function(&format!("vision/read_board fixture {name}"), |b| {
            b.iter(|| read_board(black_box(&img), &cal).map(|r| r.board.filled_count()))
        });
    }
}

criterion_group!(vision, benches, phone_benches, desktop_benches);
criterion_main!(vision);
