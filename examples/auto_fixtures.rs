//! Reads every labelled fixture picture (`fixtures/*/*.png` with a `.txt`
//! board next to it) with no calibration and says, per picture, whether it
//! read right (up to a renaming of colours), was refused, or read wrong.
//!
//! `cargo run --release --example auto_fixtures [-- DIR...]`
//!
//! A label `none` is a screen without a board: refusing it is right. A board
//! with empty cells on an outer row or column (a game part-played) is right
//! when read right or refused (its size cannot be seen).

use gridbot::board::{Board, EMPTY};
use gridbot::vision::calibrate::{read_auto, CalibrateOptions};
use gridbot::vision::find::Hints;

/// True when `got` is `want` up to a one-to-one renaming of colours.
fn same_up_to_renaming(want: &Board, got: &Board) -> bool {
    if (want.rows(), want.cols()) != (got.rows(), got.cols()) {
        return false;
    }
    let mut fwd = [None::<u8>; 256];
    let mut back = [None::<u8>; 256];
    for (&w, &g) in want.cells().iter().zip(got.cells()) {
        if (w == EMPTY) != (g == EMPTY) {
            return false;
        }
        match (fwd[w as usize], back[g as usize]) {
            (None, None) => {
                fwd[w as usize] = Some(g);
                back[g as usize] = Some(w);
            }
            (Some(x), Some(y)) if x == g && y == w => {}
            _ => return false,
        }
    }
    true
}

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut dirs: Vec<std::path::PathBuf> = if args.is_empty() {
        std::fs::read_dir(&root)
            .map(|r| r.flatten().map(|e| e.path()).collect())
            .unwrap_or_default()
    } else {
        args.iter().map(std::path::PathBuf::from).collect()
    };
    dirs.sort();
    let (mut right, mut refused, mut wrong) = (0, 0, 0);
    for dir in dirs {
        let game = std::fs::read_to_string(dir.join("fixture.toml"))
            .ok()
            .and_then(|t| {
                t.lines().find_map(|l| {
                    l.strip_prefix("game = ")
                        .map(|g| g.trim_matches('"').to_string())
                })
            })
            .unwrap_or_else(|| "generic".into());
        let Ok(pngs) = gridbot::vision::replay::labelled_images(&dir) else {
            continue;
        };
        for png in pngs {
            let Ok(label) = std::fs::read_to_string(png.with_extension("txt")) else {
                continue;
            };
            let label = label.trim();
            let Ok(img) = gridbot::vision::load_image(&png) else {
                continue;
            };
            let t = std::time::Instant::now();
            let got = read_auto(&img, &CalibrateOptions::find(&game, Hints::default()));
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let name = png
                .strip_prefix(&root)
                .unwrap_or(&png)
                .display()
                .to_string();
            let verdict = match (label, &got) {
                ("none", Err(e)) if e.is_no_board() => {
                    right += 1;
                    "right (refused)".to_string()
                }
                ("none", Ok((r, _))) => {
                    wrong += 1;
                    format!("WRONG: a board on a boardless screen: {}", r.board)
                }
                (_, Ok((r, _))) => match label.parse::<Board>() {
                    Ok(want) if same_up_to_renaming(&want, &r.board) => {
                        right += 1;
                        "right".to_string()
                    }
                    Ok(want) => {
                        wrong += 1;
                        format!(
                            "WRONG: read {}x{} {} for {}x{}",
                            r.board.rows(),
                            r.board.cols(),
                            r.board,
                            want.rows(),
                            want.cols()
                        )
                    }
                    Err(e) => format!("bad label: {e}"),
                },
                (_, Err(e)) => {
                    refused += 1;
                    format!("refused: {e}")
                }
            };
            println!("{name} ({ms:.0} ms): {verdict}");
        }
    }
    println!("fixtures with no calibration: {right} right, {refused} refused, {wrong} wrong");
}
