//! `read`, `calibrate` and `replay`: the vision front ends.
//!
//! They only parse arguments, load files and print; the work is in
//! `gridbot::vision`. Exit codes: 0 ok, 1 error or mismatch, 2 a screen with
//! no board (`read`).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context};
use clap::Args;
use gridbot::board::Board;
use gridbot::games;
use gridbot::vision::calibrate::{
    calibrate_shots as learn_shots, read_auto, CalibrateOptions, CalibrationReport, Label,
};
use gridbot::vision::find::Hints;
use gridbot::vision::overlay::draw_overlay;
use gridbot::vision::replay::{fixture_dirs, replay_dir, ReplaySummary};
use gridbot::vision::{load_image, read_board, Calibration, Reading, Sampling, VisionError};
use image::RgbImage;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// More images than this get a progress bar (when stderr is a terminal).
const PROGRESS_MIN: usize = 4;

#[derive(Args)]
pub struct ReadArgs {
    /// Game: samegame (Swell Foop; also `collapse`), popstar, gweled or
    /// match3 (`swap`), pad (`orb-drag`: boards of 6x5, 7x6 or 5x4 only),
    /// tetris (`falling`: the 10x20 well).
    #[arg(long, value_parser = super::game_arg)]
    game: String,
    /// Calibration file (from `gridbot calibrate`); without one the grid is
    /// found and the palette learned on each image (colour digits then follow
    /// the order of first appearance).
    #[arg(long)]
    calibration: Option<PathBuf>,
    /// Without a calibration: the board's rows, if known (a hint).
    #[arg(long)]
    rows: Option<usize>,
    /// Without a calibration: the board's columns, if known (a hint).
    #[arg(long)]
    cols: Option<usize>,
    /// Without a calibration: the number of tile colours, if known.
    #[arg(long)]
    colours: Option<usize>,
    /// Print one JSON object per image: board, per-cell distances, unread count.
    #[arg(long)]
    json: bool,
    /// Screenshots of the game window (PNG, JPEG, BMP or WebP).
    #[arg(required = true)]
    images: Vec<PathBuf>,
}

#[derive(Args)]
pub struct CalibrateArgs {
    /// Game: samegame (Swell Foop; also `collapse`), popstar, gweled or
    /// match3 (`swap`), pad (`orb-drag`: boards of 6x5, 7x6 or 5x4 only),
    /// tetris (`falling`: the 10x20 well).
    #[arg(long, value_parser = super::game_arg)]
    game: String,
    /// A screenshot of the game window; repeat for more (same size; the
    /// grid is found on the first, so put the fullest board first).
    #[arg(long, conflicts_with = "window", required_unless_present = "window")]
    image: Vec<PathBuf>,
    /// Grab one frame of the window with this title instead.
    #[arg(long)]
    window: Option<String>,
    /// Board rows (default: from --board, else found). With both --rows and
    /// --cols the board is located by its colourful tiles (the first-cut
    /// locator) unless --find is given.
    #[arg(long)]
    rows: Option<usize>,
    /// Board columns (default: from --board, else found).
    #[arg(long)]
    cols: Option<usize>,
    /// Find the grid by its periodic edges even when --rows and --cols are
    /// given (they are then hints).
    #[arg(long)]
    find: bool,
    /// Number of tile colours (default: chosen by a distance gap).
    #[arg(long)]
    colours: Option<usize>,
    /// The board shown on the screenshot, as text (or @FILE holding it): names
    /// every colour exactly; `none` for a screen that must read as no board
    /// (a game-over screen). Repeat once per --image.
    #[arg(long)]
    board: Vec<String>,
    /// Window anchors to record (uniform spots outside the board that tell the
    /// game window from a blank picture); 0 refuses every uniform reading,
    /// e.g. a cleared board (right for Swell Foop, which shows no cleared board).
    #[arg(long, default_value_t = 8)]
    anchors: usize,
    /// Brightness factor of the hovered group (sRGB); default: learned from
    /// labelled screenshots that show one; 1 = no highlighted variants.
    #[arg(long)]
    highlight: Option<f32>,
    /// The board rectangle X,Y,W,H in window pixels (tile extents) instead of finding it.
    #[arg(long, value_parser = parse_rect)]
    rect: Option<(f64, f64, f64, f64)>,
    /// Gap between tiles in pixels, with --rect.
    #[arg(long, default_value_t = 0.0)]
    gap: f64,
    /// Sampling pattern instead of choosing one: `ring:R` or `ring:R:N` (N
    /// points on a circle of R tile sizes), `rings:R1,R2,...` (12 points on
    /// each). Small rings read gems drawn on a patterned background (Gweled),
    /// where the automatic choice prefers the uniform background.
    #[arg(long, value_parser = parse_sampling)]
    sampling: Option<Sampling>,
    /// Where to write the calibration (default: standard output).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Write a picture of the grid and what each cell reads as.
    #[arg(long)]
    overlay: Option<PathBuf>,
}

#[derive(Args)]
pub struct ReplayArgs {
    /// Fixture directories (each with fixture.toml), or parents of them.
    /// BLESS=1 rewrites the labels from what is read.
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
}

fn parse_rect(s: &str) -> Result<(f64, f64, f64, f64), String> {
    let v: Vec<f64> = s
        .split(',')
        .map(|p| p.trim().parse::<f64>().map_err(|e| format!("{p:?}: {e}")))
        .collect::<Result<_, _>>()?;
    match v[..] {
        [x, y, w, h] if w > 0.0 && h > 0.0 => Ok((x, y, w, h)),
        _ => Err("expected X,Y,W,H with positive W and H".into()),
    }
}

fn parse_sampling(s: &str) -> Result<Sampling, String> {
    let num = |p: &str| {
        p.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| (0.0..=0.5).contains(v))
            .ok_or_else(|| format!("{p:?} is not a radius in 0..=0.5 tile sizes"))
    };
    match s.split(':').collect::<Vec<_>>()[..] {
        ["ring", r] => Ok(Sampling::ring(num(r)?, 12, 15.0)),
        ["ring", r, n] => {
            let n: usize = n
                .parse()
                .ok()
                .filter(|&n| (1..=64).contains(&n))
                .ok_or_else(|| format!("{n:?} is not a point count in 1..=64"))?;
            Ok(Sampling::ring(num(r)?, n, 15.0))
        }
        ["rings", list] => {
            let mut points = Vec::new();
            for (k, r) in list.split(',').enumerate() {
                // Alternate the phase so the rings do not line up.
                let ring = Sampling::ring(num(r)?, 12, if k % 2 == 0 { 15.0 } else { 0.0 });
                points.extend(ring.points);
            }
            Ok(Sampling { points })
        }
        _ => Err("expected ring:R, ring:R:N or rings:R1,R2,...".into()),
    }
}

fn progress(n: usize) -> Option<ProgressBar> {
    if n <= PROGRESS_MIN || !std::io::stderr().is_terminal() {
        return None;
    }
    let pb = ProgressBar::with_draw_target(Some(n as u64), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}") {
        pb.set_style(style);
    }
    Some(pb)
}

fn same_game(a: &str, b: &str) -> bool {
    let norm = |s: &str| {
        if s == "swell-foop" {
            "samegame".to_string()
        } else {
            s.to_string()
        }
    };
    norm(a) == norm(b)
}

/// Per-row distances, rounded to 0.1, for JSON.
fn distance_rows(distances: &[f32], cols: usize) -> Vec<Vec<f64>> {
    distances
        .chunks(cols.max(1))
        .map(|r| {
            r.iter()
                .map(|d| (*d as f64 * 10.0).round() / 10.0)
                .collect()
        })
        .collect()
}

pub fn read(a: ReadArgs) -> anyhow::Result<i32> {
    if a.game == "tetris" {
        return read_wells(&a);
    }
    let game = games::by_name(&a.game)?;
    let Some(cal_path) = &a.calibration else {
        return read_auto_all(&a, game.name());
    };
    let cal = Calibration::load(cal_path)?;
    if !cal.game.is_empty() && !same_game(&cal.game, game.name()) {
        tracing::warn!(
            "{} is a calibration for {}, reading as {}",
            cal_path.display(),
            cal.game,
            game.name()
        );
    }
    read_images(&a, |img| read_board(img, &cal))
}

/// `read` with no calibration: find the grid and learn the palette per image.
fn read_auto_all(a: &ReadArgs, game: &str) -> anyhow::Result<i32> {
    let mut opts = CalibrateOptions::find(
        game,
        Hints {
            rows: a.rows,
            cols: a.cols,
        },
    );
    opts.colours = a.colours;
    read_images(a, |img| read_auto(img, &opts).map(|(r, _)| r))
}

/// Reads every image with `read_one`, printing one line each (see `read`).
fn read_images(
    a: &ReadArgs,
    read_one: impl Fn(&RgbImage) -> Result<Reading, VisionError>,
) -> anyhow::Result<i32> {
    let pb = progress(a.images.len());
    let (mut no_board, mut failed) = (false, false);
    for path in &a.images {
        let mut ms = 0.0;
        let result = load_image(path).and_then(|img| {
            let t0 = Instant::now();
            let r = read_one(&img);
            ms = t0.elapsed().as_secs_f64() * 1000.0;
            r
        });
        match result {
            Ok(r) => {
                if a.json {
                    let v = serde_json::json!({
                        "image": path.display().to_string(),
                        "board": r.board.to_string(),
                        "unknown": r.board.unknown_count(),
                        "distances": distance_rows(&r.distances, r.board.cols()),
                        "ms": (ms * 1000.0).round() / 1000.0,
                    });
                    println!("{v}");
                } else {
                    println!("{}", r.board);
                }
            }
            Err(e) => {
                no_board |= e.is_no_board();
                failed |= !e.is_no_board();
                if a.json {
                    let v = serde_json::json!({
                        "image": path.display().to_string(),
                        "error": e.to_string(),
                        "no_board": e.is_no_board(),
                    });
                    println!("{v}");
                }
                let line = match e {
                    VisionError::Image { .. } => format!("gridbot: {e}"),
                    _ => format!("gridbot: {}: {e}", path.display()),
                };
                match &pb {
                    Some(pb) => pb.suspend(|| eprintln!("{line}")),
                    None => eprintln!("{line}"),
                }
            }
        }
        if let Some(pb) = &pb {
            pb.inc(1);
        }
    }
    if let Some(pb) = pb {
        pb.finish_and_clear();
    }
    Ok(if failed {
        1
    } else if no_board {
        2
    } else {
        0
    })
}

fn grab_window(title: &str) -> anyhow::Result<RgbImage> {
    use gridbot::platform::FrameSource;
    let mut w = gridbot::platform::live::LiveWindow::find(title)?;
    Ok(w.grab()?.image)
}

fn print_report(cal: &Calibration, r: &CalibrationReport, board_pos: &[usize]) {
    let g = &cal.grid;
    if let Some(f) = &r.found {
        eprintln!(
            "grid found: {}x{} cells, {:.0}% uniform, neighbour ΔE {:.1}",
            f.rows,
            f.cols,
            100.0 * f.uniform,
            f.contrast
        );
    }
    if let Some(l) = &r.located {
        eprintln!(
            "tile pixels: box {:?}, fill {:.0}%, gap contrast x {:.2} y {:.2}",
            l.bbox,
            100.0 * l.fill,
            l.contrast.0,
            l.contrast.1
        );
    }
    eprintln!(
        "grid: {}x{} tiles of {:.2}x{:.2} at ({:.2}, {:.2}), gaps {:.2}/{:.2}, window {}x{}",
        cal.rows,
        cal.cols,
        g.cell_width,
        g.cell_height,
        g.left,
        g.top,
        g.gap_x,
        g.gap_y,
        cal.window.width,
        cal.window.height
    );
    for c in &r.classes {
        let name = match c.value {
            gridbot::board::EMPTY => ".".to_string(),
            v => v.to_string(),
        };
        eprintln!(
            "colour {name}: {} cells, Lab ({:.1}, {:.1}, {:.1}), worst ΔE {:.1}{}",
            c.cells,
            c.lab[0],
            c.lab[1],
            c.lab[2],
            c.max_distance,
            if c.outliers.is_empty() {
                String::new()
            } else {
                format!(", {} outliers", c.outliers.len())
            }
        );
    }
    if let Some((a, b, d)) = r.min_separation {
        let n = |v: u8| {
            if v == gridbot::board::EMPTY {
                ".".to_string()
            } else {
                v.to_string()
            }
        };
        eprintln!("closest colours: {} and {} at ΔE {d:.1}", n(a), n(b));
    }
    eprintln!(
        "threshold ΔE {:.1}, max spread {:.1}, {} anchors",
        r.threshold,
        r.max_spread,
        cal.anchors.len()
    );
    for w in &r.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(f) = r.highlight {
        eprintln!("highlight: hovered tiles are {f:.3}x brighter; variants added");
    }
    for (k, rb) in r.read_back.iter().enumerate() {
        let n = board_pos.get(k).map_or(0, |p| p + 1);
        match rb {
            Ok(b) => eprintln!("#{n} reads: {b}"),
            Err(e) => eprintln!("#{n} reads: {e}"),
        }
    }
}

/// A `--board` value: board text, `none`, or `@FILE` holding either.
fn parse_board_arg(arg: &str) -> anyhow::Result<Option<Board>> {
    let text = match arg.strip_prefix('@') {
        Some(path) => {
            std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?
        }
        None => arg.to_string(),
    };
    if text.trim().eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    text.trim()
        .parse()
        .map(Some)
        .with_context(|| format!("bad --board {arg:?}"))
}

pub fn calibrate(a: CalibrateArgs) -> anyhow::Result<i32> {
    if a.game == "tetris" {
        return calibrate_well(&a);
    }
    games::by_name(&a.game)?;
    let boards: Vec<Option<Board>> = a
        .board
        .iter()
        .map(|b| parse_board_arg(b))
        .collect::<anyhow::Result<_>>()?;
    let first = boards.iter().flatten().next();
    let rows = a.rows.or(first.map(|b| b.rows()));
    let cols = a.cols.or(first.map(|b| b.cols()));
    let images: Vec<RgbImage> = match (&a.image[..], &a.window) {
        ([], Some(t)) => vec![grab_window(t)?],
        ([], None) => bail!("need --image FILE or --window TITLE"),
        (paths, _) => paths
            .iter()
            .map(|p| load_image(p))
            .collect::<Result<_, _>>()?,
    };
    if !boards.is_empty() && boards.len() != images.len() {
        bail!(
            "{} --board for {} screenshots: give one per screenshot or none",
            boards.len(),
            images.len()
        );
    }
    let mut opts = match (rows, cols) {
        (Some(r), Some(c)) if !a.find || a.rect.is_some() => CalibrateOptions::new(&a.game, r, c),
        _ => CalibrateOptions::find(&a.game, Hints { rows, cols }),
    };
    opts.colours = a.colours;
    opts.rect = a.rect;
    opts.gap = a.gap;
    opts.highlight = a.highlight;
    opts.sampling = a.sampling.clone();
    opts.params.max_anchors = a.anchors;
    let label = |i: usize| match boards.get(i) {
        None => Label::Unknown,
        Some(None) => Label::NoBoard,
        Some(Some(b)) => Label::Board(b),
    };
    let shots: Vec<(&RgbImage, Label)> = images
        .iter()
        .enumerate()
        .map(|(i, img)| (img, label(i)))
        .collect();
    // Report numbering: the position among the --image arguments.
    let board_pos: Vec<usize> = (0..images.len())
        .filter(|&i| label(i) != Label::NoBoard)
        .collect();
    let none_pos: Vec<usize> = (0..images.len())
        .filter(|&i| label(i) == Label::NoBoard)
        .collect();
    let (cal, report) = learn_shots(&shots, &opts)?;
    print_report(&cal, &report, &board_pos);
    match &a.out {
        Some(p) => {
            cal.save(p)?;
            eprintln!("wrote {}", p.display());
        }
        None => print!("{}", cal.to_toml()),
    }
    if let Some(p) = &a.overlay {
        let ov = draw_overlay(&images[board_pos.first().copied().unwrap_or(0)], &cal)?;
        ov.save(p)
            .with_context(|| format!("cannot write {}", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    let mut code = 0;
    if !report.mismatches.is_empty() {
        let cells: Vec<String> = report
            .mismatches
            .iter()
            .map(|(k, c)| {
                format!(
                    "#{} ({},{})",
                    board_pos.get(*k).map_or(0, |p| p + 1),
                    c.row,
                    c.col
                )
            })
            .collect();
        eprintln!(
            "gridbot: the new calibration misreads {} cells of the given boards: {}",
            cells.len(),
            cells.join(" ")
        );
        code = 1;
    }
    for (k, r) in report.read_back.iter().enumerate() {
        if let Err(e) = r {
            let n = board_pos.get(k).map_or(0, |p| p + 1);
            eprintln!("gridbot: the new calibration cannot read screenshot #{n}: {e}");
            code = 1;
        }
    }
    for (k, r) in report.refusal_reads.iter().enumerate() {
        let n = none_pos.get(k).map_or(0, |p| p + 1);
        match r {
            Ok(()) => eprintln!("#{n} refused as no board (as labelled)"),
            Err(e) => {
                eprintln!("gridbot: screenshot #{n} is labelled none but {e}");
                code = 1;
            }
        }
    }
    Ok(code)
}

fn expand_dirs(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for d in dirs {
        if d.join("fixture.toml").is_file() {
            out.push(d.clone());
        } else {
            let subs = fixture_dirs(d);
            if subs.is_empty() {
                // Let replay_dir report the missing fixture.toml.
                out.push(d.clone());
            } else {
                out.extend(subs);
            }
        }
    }
    out
}

fn short(p: &Path) -> String {
    p.display().to_string()
}

pub fn replay(a: ReplayArgs) -> anyhow::Result<i32> {
    let bless = std::env::var("BLESS").is_ok_and(|v| v == "1");
    let mut total = ReplaySummary::default();
    for dir in expand_dirs(&a.dirs) {
        let s = replay_dir(&dir, bless).map_err(|e: VisionError| anyhow::anyhow!(e))?;
        for c in s.cases.iter().filter(|c| !c.passed) {
            println!("FAIL {}: {}", short(&c.image), c.detail);
        }
        total.merge(s);
    }
    if bless {
        println!("blessed {} labels", total.blessed);
    }
    println!("{} passed, {} failed", total.passed, total.failed);
    Ok(if total.failed > 0 { 1 } else { 0 })
}

#[derive(Args)]
pub struct GrabArgs {
    /// Title (or part of it) of the window to capture.
    #[arg(long)]
    window: String,
    /// Output PNG; with --count above 1, a `{}` in it is replaced by the frame number.
    #[arg(long)]
    out: PathBuf,
    /// Number of frames.
    #[arg(long, default_value_t = 1)]
    count: usize,
    /// Pause between frames.
    #[arg(long, default_value_t = 500)]
    interval_ms: u64,
}

/// `gridbot grab`: save window captures as PNG (to record fixtures or study a game).
pub fn grab(a: GrabArgs) -> anyhow::Result<i32> {
    use gridbot::platform::FrameSource;
    let mut w = gridbot::platform::live::LiveWindow::find(&a.window)?;
    let pattern = a.out.to_string_lossy().to_string();
    if a.count > 1 && !pattern.contains("{}") {
        bail!("--out must contain {{}} when --count is above 1");
    }
    for i in 0..a.count {
        if i > 0 {
            std::thread::sleep(std::time::Duration::from_millis(a.interval_ms));
        }
        let frame = w.grab()?;
        let path = PathBuf::from(pattern.replace("{}", &format!("{i:03}")));
        frame
            .image
            .save(&path)
            .with_context(|| format!("cannot write {}", path.display()))?;
        println!(
            "{} {}x{} at {},{}",
            path.display(),
            frame.image.width(),
            frame.image.height(),
            frame.rect.x,
            frame.rect.y
        );
    }
    Ok(0)
}

/// `calibrate --game tetris`: the well found on the first screenshot (or
/// the window), written as a `WellLayout` (what `read --calibration` and the
/// live loop take), with an overlay of its cells when asked.
fn calibrate_well(a: &CalibrateArgs) -> anyhow::Result<i32> {
    use gridbot::vision::well::{find_well, read_well};
    let img = match (a.image.first(), &a.window) {
        (Some(p), _) => load_image(p)?,
        (None, Some(t)) => grab_window(t)?,
        (None, None) => bail!("need --image FILE or --window TITLE"),
    };
    let (cols, rows) = (a.cols.unwrap_or(10) as u32, a.rows.unwrap_or(20) as u32);
    let layout = match find_well(&img, cols, rows) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("gridbot: {e}");
            return Ok(2);
        }
    };
    let read = read_well(&img, &layout)?;
    let w = layout.well;
    eprintln!(
        "well {}x{} px at {},{} ({cols}x{rows} cells of {:.1} px), empty colour {:?}{}; {} blocks, {} unsure cells{}",
        w.w,
        w.h,
        w.x,
        w.y,
        w.w as f32 / cols as f32,
        layout.background,
        layout
            .background_bottom
            .map(|b| format!(" shading to {b:?} at the bottom"))
            .unwrap_or_default(),
        read.blocks().len(),
        read.unsure.len(),
        layout
            .preview
            .map(|p| format!("; preview box {}x{} at {},{}", p.w, p.h, p.x, p.y))
            .unwrap_or_default(),
    );
    let text = toml::to_string(&layout)?;
    match &a.out {
        Some(p) => {
            std::fs::write(p, text).with_context(|| format!("cannot write {}", p.display()))?;
            eprintln!("wrote {}", p.display());
        }
        None => print!("{text}"),
    }
    if let Some(p) = &a.overlay {
        let mut ov = img.clone();
        let (cw, ch) = (w.w as f32 / cols as f32, w.h as f32 / rows as f32);
        let mut mark = |x: f32, y: f32, c: [u8; 3]| {
            let (x, y) = (x.round() as i64, y.round() as i64);
            if x >= 0 && y >= 0 && (x as u32) < ov.width() && (y as u32) < ov.height() {
                ov.put_pixel(x as u32, y as u32, image::Rgb(c));
            }
        };
        for r in 0..rows {
            for c in 0..cols {
                let (x0, y0) = (w.x as f32 + c as f32 * cw, w.y as f32 + r as f32 * ch);
                let colour = if read.unsure.contains(&(r, c)) {
                    [0, 255, 255]
                } else if read.occupied(r, c) {
                    [255, 0, 255]
                } else {
                    [0, 200, 0]
                };
                // The cell's outline; blocks and unsure cells a second one inside.
                let insets: &[f32] = if colour == [0, 200, 0] {
                    &[0.0]
                } else {
                    &[0.0, 3.0]
                };
                for &d in insets {
                    for i in 0..=((cw - 2.0 * d).max(0.0) as u32) {
                        mark(x0 + d + i as f32, y0 + d, colour);
                        mark(x0 + d + i as f32, y0 + ch - 1.0 - d, colour);
                    }
                    for i in 0..=((ch - 2.0 * d).max(0.0) as u32) {
                        mark(x0 + d, y0 + d + i as f32, colour);
                        mark(x0 + cw - 1.0 - d, y0 + d + i as f32, colour);
                    }
                }
            }
        }
        ov.save(p)
            .with_context(|| format!("cannot write {}", p.display()))?;
        eprintln!("wrote {}", p.display());
    }
    Ok(0)
}

/// `read --game tetris`: the well as rows of `1` (block), `.` (empty), `?`
/// (unsure), found on each image (or from a `WellLayout` TOML), and the preview.
fn read_wells(a: &ReadArgs) -> anyhow::Result<i32> {
    use gridbot::vision::well::{find_well, read_preview, read_well, WellLayout};
    let fixed: Option<WellLayout> = match &a.calibration {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read {}", p.display()))?;
            Some(toml::from_str(&text).map_err(|e| {
                anyhow::anyhow!(
                    "{}: not a well layout: {}",
                    p.display(),
                    e.message().replace('\n', " ")
                )
            })?)
        }
        None => None,
    };
    let mut code = 0;
    for path in &a.images {
        let img = load_image(path)?;
        let t0 = Instant::now();
        let layout = match fixed {
            Some(l) => l,
            None => match find_well(
                &img,
                a.cols.unwrap_or(10) as u32,
                a.rows.unwrap_or(20) as u32,
            ) {
                Ok(l) => l,
                Err(e) => {
                    eprintln!("{}: {e}", path.display());
                    code = 2;
                    continue;
                }
            },
        };
        let read = read_well(&img, &layout)?;
        let preview = read_preview(&img, &layout);
        let ms = t0.elapsed().as_secs_f64() * 1000.0;
        let text = read.board().to_string();
        if a.json {
            let v = serde_json::json!({
                "image": path.display().to_string(),
                "board": text,
                "unknown": read.unsure.len(),
                "preview": preview,
                "layout": layout,
                "ms": (ms * 1000.0).round() / 1000.0,
            });
            println!("{v}");
        } else {
            println!("{text}");
        }
    }
    Ok(code)
}
