//! Fixture replay: read every recorded screenshot of a directory and compare
//! it with its label. This is the test oracle for vision (and `gridbot replay`).
//!
//! A fixture directory holds `NAME.png` + `NAME.txt` pairs and one
//! `fixture.toml`:
//!
//! ```toml
//! game = "samegame"
//! # relative to this directory (absolute paths work too)
//! calibration = "../../calibration/swellfoop-normal.toml"
//! ```
//!
//! A falling-block game's directory (`game = "tetris"`) needs no
//! calibration: its well is found on each picture ([`super::well::find_well`],
//! the 10x20 well) and read as blocks (`1`), empty cells and unsure ones.
//!
//! A label is the board text (DESIGN.md contract) or `none` for a screen that
//! must be refused as "no board found". PNGs without a label are skipped.
//! With `bless`, labels are rewritten from what is read (`none` for a refused
//! screen) and every case counts as passed.
//!
//! Unlike the rest of `vision` this module does file I/O (it is the harness);
//! the comparison itself ([`compare`]) is pure.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{load_image, read_board, Calibration, Reading, VisionError};
use crate::board::Board;

/// The contents of `fixture.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixtureConfig {
    pub game: String,
    /// Path of the calibration, relative to the fixture directory; none for
    /// a falling-block game (its well is found on each picture).
    pub calibration: Option<PathBuf>,
}

/// How a fixture directory's pictures are read.
#[derive(Debug, Clone)]
pub enum FixtureReader {
    /// With the directory's calibration.
    Calibrated(Box<Calibration>),
    /// A falling-block well of `cols` x `rows` cells, found on each picture.
    Well { cols: u32, rows: u32 },
}

impl FixtureReader {
    /// Reads one picture as a board (a well's blocks as colour 1).
    pub fn read(&self, img: &image::RgbImage) -> Result<Reading, VisionError> {
        match self {
            FixtureReader::Calibrated(cal) => read_board(img, cal),
            FixtureReader::Well { cols, rows } => {
                let layout = super::well::find_well(img, *cols, *rows)?;
                Ok(Reading {
                    board: super::well::read_well(img, &layout)?.board(),
                    distances: Vec::new(),
                    cells: Vec::new(),
                })
            }
        }
    }
}

/// What a label says the screenshot shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expected {
    Board(Board),
    /// The screen must be refused with "no board found".
    NoBoard,
}

impl Expected {
    /// Parses a label file's text.
    pub fn parse(text: &str) -> Result<Expected, String> {
        let t = text.trim();
        if t.eq_ignore_ascii_case("none") {
            return Ok(Expected::NoBoard);
        }
        t.parse::<Board>()
            .map(Expected::Board)
            .map_err(|e| e.to_string())
    }
}

/// The outcome of one screenshot.
#[derive(Debug, Clone)]
pub struct CaseResult {
    pub image: PathBuf,
    pub passed: bool,
    /// One line: what was expected and what was read (empty when passed).
    pub detail: String,
    /// The board text read, or `none` for a refused screen.
    pub read: String,
}

/// The outcome of a directory.
#[derive(Debug, Clone, Default)]
pub struct ReplaySummary {
    pub cases: Vec<CaseResult>,
    pub passed: usize,
    pub failed: usize,
    /// Labels rewritten (with `bless`).
    pub blessed: usize,
}

impl ReplaySummary {
    /// Adds another directory's results.
    pub fn merge(&mut self, other: ReplaySummary) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.blessed += other.blessed;
        self.cases.extend(other.cases);
    }
}

/// Compares a reading (or refusal) with the expected result; `Ok(())` when they
/// agree, else a one-line description naming each differing cell with the
/// distances measured there.
pub fn compare(expected: &Expected, got: &Result<Reading, VisionError>) -> Result<(), String> {
    match (expected, got) {
        (Expected::NoBoard, Err(e)) if e.is_no_board() => Ok(()),
        (Expected::NoBoard, Ok(r)) => Err(format!("expected no board, read {}", r.board)),
        (_, Err(e)) => Err(format!("expected a board, got error: {e}")),
        (Expected::Board(want), Ok(r)) => {
            if (want.rows(), want.cols()) != (r.board.rows(), r.board.cols()) {
                return Err(format!(
                    "label is {}x{}, calibration reads {}x{}",
                    want.rows(),
                    want.cols(),
                    r.board.rows(),
                    r.board.cols()
                ));
            }
            let diff = want.diff(&r.board);
            if diff.is_empty() {
                return Ok(());
            }
            let cols = r.board.cols();
            let shown: Vec<String> = diff
                .iter()
                .take(12)
                .map(|c| {
                    let i = c.row * cols + c.col;
                    let cell = r.cells.get(i);
                    format!(
                        "({},{}) want {} got {} (ΔE {:.1} to nearest {}, spread {:.1})",
                        c.row,
                        c.col,
                        char_of(want.get(c.row, c.col)),
                        char_of(r.board.get(c.row, c.col)),
                        r.distances.get(i).copied().unwrap_or(f32::NAN),
                        cell.map(|x| char_of(x.nearest)).unwrap_or('?'),
                        cell.map(|x| x.spread).unwrap_or(f32::NAN),
                    )
                })
                .collect();
            let more = if diff.len() > 12 {
                format!(" and {} more", diff.len() - 12)
            } else {
                String::new()
            };
            Err(format!(
                "{} cells differ: {}{more}",
                diff.len(),
                shown.join(", ")
            ))
        }
    }
}

fn char_of(v: u8) -> char {
    Board::from_cells(1, 1, vec![v])
        .to_string()
        .chars()
        .next()
        .unwrap_or('?')
}

fn dir_error(dir: &Path, reason: String) -> VisionError {
    VisionError::Calibration {
        path: dir.display().to_string(),
        reason,
    }
}

/// Loads `DIR/fixture.toml` and the calibration it names.
pub fn load_fixture_config(dir: &Path) -> Result<(FixtureConfig, FixtureReader), VisionError> {
    let path = dir.join("fixture.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| VisionError::Calibration {
        path: path.display().to_string(),
        reason: format!(
            "cannot read ({e}); a fixture directory needs game = \"...\" and calibration = \"...\""
        ),
    })?;
    let cfg: FixtureConfig = toml::from_str(&text).map_err(|e| VisionError::Calibration {
        path: path.display().to_string(),
        reason: format!("bad fixture config: {}", e.message().replace('\n', " ")),
    })?;
    let reader = match (&cfg.calibration, cfg.game.as_str()) {
        (Some(c), _) => FixtureReader::Calibrated(Box::new(Calibration::load(&dir.join(c))?)),
        (None, "tetris" | "falling") => FixtureReader::Well { cols: 10, rows: 20 },
        (None, game) => {
            return Err(VisionError::Calibration {
                path: path.display().to_string(),
                reason: format!(
                    "no calibration = \"...\" (only a falling-block game's fixtures go without one; game is {game})"
                ),
            })
        }
    };
    Ok((cfg, reader))
}

/// The `NAME.png` files of a directory that have a `NAME.txt` label, sorted.
pub fn labelled_images(dir: &Path) -> Result<Vec<PathBuf>, VisionError> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| dir_error(dir, format!("cannot list ({e})")))?;
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("png")))
        .filter(|p| p.with_extension("txt").is_file())
        .collect();
    out.sort();
    Ok(out)
}

/// Replays one screenshot against its label.
pub fn replay_image(png: &Path, reader: &FixtureReader, bless: bool) -> CaseResult {
    let label_path = png.with_extension("txt");
    let got = load_image(png).and_then(|img| reader.read(&img));
    let read = match &got {
        Ok(r) => r.board.to_string(),
        Err(e) if e.is_no_board() => "none".to_string(),
        Err(e) => format!("error: {e}"),
    };
    if bless {
        let readable = got.is_ok() || got.as_ref().err().is_some_and(|e| e.is_no_board());
        if readable {
            return match std::fs::write(&label_path, format!("{read}\n")) {
                Ok(()) => CaseResult {
                    image: png.to_path_buf(),
                    passed: true,
                    detail: "blessed".into(),
                    read,
                },
                Err(e) => CaseResult {
                    image: png.to_path_buf(),
                    passed: false,
                    detail: format!("cannot write {}: {e}", label_path.display()),
                    read,
                },
            };
        }
    }
    let expected = std::fs::read_to_string(&label_path)
        .map_err(|e| format!("cannot read label {}: {e}", label_path.display()))
        .and_then(|t| {
            Expected::parse(&t).map_err(|e| format!("bad label {}: {e}", label_path.display()))
        });
    let outcome = expected.and_then(|exp| compare(&exp, &got));
    CaseResult {
        image: png.to_path_buf(),
        passed: outcome.is_ok(),
        detail: outcome.err().unwrap_or_default(),
        read,
    }
}

/// Replays every labelled screenshot of a fixture directory.
pub fn replay_dir(dir: &Path, bless: bool) -> Result<ReplaySummary, VisionError> {
    let (_cfg, reader) = load_fixture_config(dir)?;
    let mut summary = ReplaySummary::default();
    for png in labelled_images(dir)? {
        let case = replay_image(&png, &reader, bless);
        if case.passed {
            summary.passed += 1;
            if bless {
                summary.blessed += 1;
            }
        } else {
            summary.failed += 1;
        }
        summary.cases.push(case);
    }
    Ok(summary)
}

/// The fixture directories under `root` (those holding a `fixture.toml`), sorted.
pub fn fixture_dirs(root: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.join("fixture.toml").is_file())
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        assert_eq!(Expected::parse(" none\n"), Ok(Expected::NoBoard));
        assert!(matches!(Expected::parse("12/34"), Ok(Expected::Board(_))));
        assert!(Expected::parse("12/3").is_err());
    }
}
