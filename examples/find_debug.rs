//! Diagnostics of the grid finder: every candidate lattice it scored, best
//! first, for a picture file or a synthetic case of `tests/vision_auto.rs`.
//!
//! `cargo run --example find_debug -- FILE.png` or `-- seed:1042` (the
//! synthetic case with that seed; `SYNTH_DIR=DIR` also writes its picture)
//! or `-- sparse:7007` (a case of `sparse_boards_measured`) or `-- phone` (the benches' 1080x1920 phone capture) or `-- desktop`
//! (their 1280x720 window); `FIND_ALL=1` lists
//! every candidate, not only the first 12 and the blob lattices;
//! `RUST_LOG=debug` adds why blob lattices were refused; `REPEAT=N` times
//! `read_auto` N times and prints the median (use `--release`); `GAME=G`
//! reads as game G (`generic` by default).

use gridbot::vision::calibrate::{read_auto, CalibrateOptions};
use gridbot::vision::find::{find_candidates, picture_blob_lattices, FindParams, Hints};

#[path = "../tests/synth/mod.rs"]
mod synth;

fn main() {
    // `RUST_LOG=debug` shows why lattices were refused.
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
        .with_writer(std::io::stderr)
        .init();
    for arg in std::env::args().skip(1) {
        let img = if arg == "desktop" {
            // The benches' desktop window.
            let (style, board) = synth::Style::desktop();
            synth::render(&board, &style, 5).0
        } else if arg == "phone" {
            // The benches' phone capture.
            let style = synth::Style::phone();
            let mut rng = synth::Rng::new(11);
            let board = synth::random_board(&mut rng, 5, 6, 6, 0.0);
            synth::render(&board, &style, 11).0
        } else if let Some(seed) = arg.strip_prefix("sparse:") {
            let Ok(seed) = seed.parse::<u64>() else {
                eprintln!("{arg}: not a seed");
                continue;
            };
            let (board, style, img, _, game) = synth::sparse_case(seed);
            println!(
                "{arg} ({game}): want {}x{} pitch {:.1} ({style:?})",
                board.rows(),
                board.cols(),
                style.pitch * style.scale
            );
            println!("  want {board}");
            if let Ok(dir) = std::env::var("SYNTH_DIR") {
                let _ = img.save(format!("{dir}/sparse-{seed}.png"));
            }
            img
        } else if let Some(seed) = arg.strip_prefix("seed:") {
            let Ok(seed) = seed.parse::<u64>() else {
                eprintln!("{arg}: not a seed");
                continue;
            };
            let mut rng = synth::Rng::new(seed);
            let big = rng.chance(0.15);
            let rows = if big { rng.int(10, 20) } else { rng.int(3, 10) };
            let cols = if big { rng.int(10, 20) } else { rng.int(3, 10) };
            let k = rng.int(3, 7);
            let empty = if rng.chance(0.3) { 0.1 } else { 0.0 };
            let board = synth::random_board(&mut rng, rows, cols, k, empty);
            let style = synth::Style::random(&mut rng, rows, cols, k);
            let (img, _) = synth::render(&board, &style, seed);
            println!(
                "{arg}: want {rows}x{cols} pitch {:.1} ({style:?})",
                style.pitch * style.scale
            );
            println!("  want {board}");
            if let Ok(dir) = std::env::var("SYNTH_DIR") {
                let _ = img.save(format!("{dir}/case-{seed}.png"));
            }
            img
        } else {
            match gridbot::vision::load_image(std::path::Path::new(&arg)) {
                Ok(i) => i,
                Err(e) => {
                    eprintln!("{arg}: {e}");
                    continue;
                }
            }
        };
        let t = std::time::Instant::now();
        let lattices = picture_blob_lattices(&img, &FindParams::default());
        let ms = t.elapsed().as_secs_f64() * 1e3;
        println!("{arg}: {} blob lattices in {ms:.1} ms", lattices.len());
        for l in &lattices {
            println!(
                "  blobs {:>3}: {:>2}x{:<2} pitch {:.2}x{:.2} size {:.1}x{:.1} first centre ({:.1},{:.1})",
                l.blobs, l.y.count, l.x.count, l.x.pitch, l.y.pitch, l.x.size, l.y.size, l.x.first, l.y.first
            );
        }
        if std::env::var("HALF").is_ok() {
            let half = image::imageops::resize(
                &img,
                img.width() / 2,
                img.height() / 2,
                image::imageops::FilterType::Triangle,
            );
            for l in picture_blob_lattices(&half, &FindParams::default()) {
                println!(
                    "  half: blobs {:>3}: {:>2}x{:<2} pitch {:.2}x{:.2} size {:.1}x{:.1}",
                    l.blobs, l.y.count, l.x.count, l.x.pitch, l.y.pitch, l.x.size, l.y.size
                );
            }
        }
        let t = std::time::Instant::now();
        let got = find_candidates(&img, Hints::default(), &FindParams::default());
        let ms = t.elapsed().as_secs_f64() * 1e3;
        match got {
            Ok(all) => {
                println!("{arg}: {} candidates in {ms:.1} ms", all.len());
                for (i, f) in all.iter().enumerate() {
                    if i >= 12 && !f.from_blobs && std::env::var("FIND_ALL").is_err() {
                        continue;
                    }
                    let g = f.grid;
                    println!(
                        "{} {:>2}x{:<2} score {:8.1} uniform {:.2} contrast {:5.1} pitch {:.2}x{:.2} tile {:.1}x{:.1} at ({:.1},{:.1})",
                        if f.from_blobs { "b" } else { " " },
                        f.rows,
                        f.cols,
                        f.score,
                        f.uniform,
                        f.contrast,
                        g.pitch_x(),
                        g.pitch_y(),
                        g.cell_width,
                        g.cell_height,
                        g.left,
                        g.top
                    );
                }
            }
            Err(e) => println!("{arg}: {e} ({ms:.1} ms)"),
        }
        let game = std::env::var("GAME").unwrap_or_else(|_| "generic".into());
        let opts = CalibrateOptions::find(&game, Hints::default());
        if let Ok(n) = std::env::var("REPEAT") {
            let mut ms: Vec<f64> = (0..n.parse().unwrap_or(1))
                .map(|_| {
                    let t = std::time::Instant::now();
                    let _ = read_auto(&img, &opts);
                    t.elapsed().as_secs_f64() * 1e3
                })
                .collect();
            ms.sort_by(f64::total_cmp);
            println!("  read_auto median {:.1} ms", ms[ms.len() / 2]);
        }
        match read_auto(&img, &opts) {
            Ok((r, cal)) => println!("  read {} at {:?}", r.board, cal.grid),
            Err(e) => println!("  read: {e}"),
        }
    }
}
