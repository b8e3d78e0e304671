//! Criterion benches of the vision reader (run in release: `cargo bench --bench vision`).
//!
//! `read_board` on a 15x10 board drawn by the simulator in the Swell Foop-like
//! style (613x459 window), on the same picture scaled to another window size,
//! and on each real fixture directory's first screenshot when present.

use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, Criterion};
use gridbot::platform::sim::{calibration_for, random_board, render, SimStyle};
use gridbot::vision::replay::{fixture_dirs, labelled_images, load_fixture_config};
use gridbot::vision::{load_image, read_board};
use image::imageops;

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
        let Ok((_, cal)) = load_fixture_config(&dir) else {
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

criterion_group!(vision, benches);
criterion_main!(vision);
