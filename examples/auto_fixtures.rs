//! Reads every labelled fixture picture (`fixtures/*/*.png` with a `.txt`
//! board next to it) with no calibration and says, per picture, whether it
//! read right (up to a renaming of colours), was refused, or read wrong.
//!
//! `cargo run --release --example auto_fixtures [-- DIR...]`
//!
//! With no DIR it reads `fixtures/*/` (the games the reader was developed
//! on), then, with a total of their own, the screens of games never tuned on
//! under `fixtures/uncalibrated/*/` (all but `swellfoop-themes`, which has a
//! test of its own), counting cells right too (a refused board counts 0).
//!
//! `RESAMPLE=HOW` reads each picture changed as a phone capture or an
//! emulator would show it (the layouts the reader is measured on outside
//! this repository): `emu25` (scaled by 2.5, blurred), `half` (scaled by
//! 0.6), `jpeg` (scaled by 1.33, JPEG at quality 55), `dim` (three quarters
//! as bright, four fifths the contrast), `bright` (a quarter brighter),
//! `phone` (scaled to 1080 wide at the bottom of a 1080x1920 screen with a
//! status bar); `RESAMPLE=all` runs each in turn. Changes compose with `+`
//! (`RESAMPLE=dim+half`: dimmed, then scaled), and four more are there to
//! compose: `blur` (radius 1.2), `flat` (three quarters the contrast),
//! `warm` (red up a tenth, blue down 15 %) and `big` (scaled by 1.7);
//! `RESAMPLE=combo` runs the compositions in `COMBOS`, the way a real
//! capture stacks them. `RESAMPLE_DIR=DIR` saves each changed picture there
//! (to look at one with `find_debug`).
//!
//! A label `none` is a screen without a board: refusing it is right. A board
//! with empty cells on an outer row or column (a game part-played) is right
//! when read right or refused (its size cannot be seen).

use gridbot::board::{Board, EMPTY, UNKNOWN};
use gridbot::vision::calibrate::{read_auto, CalibrateOptions};
use gridbot::vision::find::Hints;
use gridbot::vision::replay::FixtureReader;

/// True when `got` is `want` up to a one-to-one renaming of colours.
fn same_up_to_renaming(want: &Board, got: &Board) -> bool {
    alike_but_unread(want, got, false)
}

/// [`same_up_to_renaming`] on the cells `got` read (its unread cells
/// skipped when `skip_unread`).
fn alike_but_unread(want: &Board, got: &Board, skip_unread: bool) -> bool {
    if (want.rows(), want.cols()) != (got.rows(), got.cols()) {
        return false;
    }
    let mut fwd = [None::<u8>; 256];
    let mut back = [None::<u8>; 256];
    for (&w, &g) in want.cells().iter().zip(got.cells()) {
        if skip_unread && g == UNKNOWN {
            continue;
        }
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

/// Cells of `got` equal to `want` under the renaming that matches most cells
/// (greedy by pair counts); 0 when the sizes differ.
fn cells_right(want: &Board, got: &Board) -> usize {
    if (want.rows(), want.cols()) != (got.rows(), got.cols()) {
        return 0;
    }
    let mut pairs = std::collections::BTreeMap::<(u8, u8), usize>::new();
    for (&w, &g) in want.cells().iter().zip(got.cells()) {
        if (w == EMPTY) == (g == EMPTY) {
            *pairs.entry((w, g)).or_default() += 1;
        }
    }
    let mut pairs: Vec<((u8, u8), usize)> = pairs.into_iter().collect();
    pairs.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let (mut used_w, mut used_g, mut n) = (vec![], vec![], 0);
    for ((w, g), k) in pairs {
        if !used_w.contains(&w) && !used_g.contains(&g) {
            used_w.push(w);
            used_g.push(g);
            n += k;
        }
    }
    n
}

fn subdirs(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map(|r| {
            r.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[path = "../tests/resample/mod.rs"]
mod resample;
use resample::{resampled, COMBOS, RESAMPLINGS, STEPS};

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let how = std::env::var("RESAMPLE").ok();
    let hows: Vec<Option<&str>> = match how.as_deref() {
        None | Some("") => vec![None],
        Some("all") => RESAMPLINGS.iter().map(|h| Some(*h)).collect(),
        Some("combo") => COMBOS.iter().map(|h| Some(*h)).collect(),
        Some(h)
            if h.split('+')
                .all(|s| RESAMPLINGS.contains(&s) || STEPS.contains(&s)) =>
        {
            vec![Some(h)]
        }
        Some(h) => {
            eprintln!(
                "RESAMPLE={h}: not all, combo, nor steps joined by + from {}, {}",
                RESAMPLINGS.join(", "),
                STEPS.join(", ")
            );
            std::process::exit(2);
        }
    };
    for how in hows {
        let tag = how.map(|h| format!(" ({h})")).unwrap_or_default();
        if args.is_empty() {
            run(
                &root,
                subdirs(&root),
                &format!("fixtures with no calibration{tag}"),
                how,
            );
            let unseen: Vec<std::path::PathBuf> = subdirs(&root.join("uncalibrated"))
                .into_iter()
                .filter(|d| !d.ends_with("swellfoop-themes"))
                .collect();
            run(
                &root,
                unseen,
                &format!("unseen games with no calibration{tag}"),
                how,
            );
        } else {
            let dirs = args.iter().map(std::path::PathBuf::from).collect();
            run(&root, dirs, &format!("with no calibration{tag}"), how);
        }
    }
}

fn run(root: &std::path::Path, dirs: Vec<std::path::PathBuf>, what: &str, how: Option<&str>) {
    let (mut right, mut refused, mut wrong, mut unread) = (0, 0, 0, 0);
    let (mut cells, mut cells_total) = (0, 0);
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
        // A falling-block directory's well is found on each picture (its
        // family's own reader, no calibration); every other is read by
        // `read_auto`, its calibration unused.
        let well = gridbot::vision::replay::load_fixture_config(&dir)
            .ok()
            .map(|(_, r)| r)
            .filter(|r| matches!(r, FixtureReader::Well { .. }));
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
            let img = how.and_then(|h| resampled(&img, h)).unwrap_or(img);
            if let (Some(h), Ok(out)) = (how, std::env::var("RESAMPLE_DIR")) {
                let flat = png.strip_prefix(root).unwrap_or(&png).display().to_string();
                let file = format!(
                    "{}-{h}.png",
                    flat.trim_end_matches(".png").replace('/', "_")
                );
                let _ = img.save(std::path::Path::new(&out).join(file));
            }
            let t = std::time::Instant::now();
            let got = match &well {
                Some(reader) => reader.read(&img),
                None => read_auto(&img, &CalibrateOptions::find(&game, Hints::default()))
                    .map(|(r, _)| r),
            };
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let name = png.strip_prefix(root).unwrap_or(&png).display().to_string();
            if let Ok(want) = label.parse::<Board>() {
                cells_total += want.cells().len();
                if let Ok(r) = &got {
                    cells += cells_right(&want, &r.board);
                }
            }
            let verdict = match (label, &got) {
                ("none", Err(e)) if e.is_no_board() => {
                    right += 1;
                    "right (refused)".to_string()
                }
                ("none", Ok(r)) => {
                    wrong += 1;
                    format!("WRONG: a board on a boardless screen: {}", r.board)
                }
                (_, Ok(r)) => match label.parse::<Board>() {
                    Ok(want) if same_up_to_renaming(&want, &r.board) => {
                        right += 1;
                        "right".to_string()
                    }
                    // Not acted on (a board with an unread cell never
                    // is), and no cell read as another colour.
                    Ok(want) if alike_but_unread(&want, &r.board, true) => {
                        unread += 1;
                        format!(
                            "unread: {} of {} cells unread, the rest right",
                            r.board.unknown_count(),
                            want.cells().len()
                        )
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
    let pct = if cells_total == 0 {
        100.0
    } else {
        100.0 * cells as f64 / cells_total as f64
    };
    println!(
        "{what}: {right} right, {refused} refused, {wrong} wrong, {unread} right but for \
         unread cells; cells right {cells} of {cells_total} ({pct:.2}%)"
    );
}
