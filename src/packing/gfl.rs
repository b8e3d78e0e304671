//! Girls' Frontline heavy-ordnance data: circuits, chip shapes, chip stats and
//! inventories.
//!
//! The circuits and shapes are checked-in data (`data/gfl/circuits.toml`,
//! `data/gfl/chips.toml`, compiled in; their headers cite the sources). An
//! inventory is a TOML file the player writes: one `[[chip]]` per chip with an
//! id, a shape code, a colour, and either its stat points (`pt`, turned into
//! stats with GFChipCalc's formula) or its stats.
//!
//! Coordinates: circuits are 8x8 grids, `(row, col)` with row 0 at the top.
//! Stats are always in the order damage, breakthrough, precision, reload.
//!
//! Invariants: a loaded [`Chip`] has a known shape, valid points or stats, and
//! an id unique in its inventory.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::shape::{Region, Shape};
use super::PackingError;

/// The circuits file, compiled in.
pub const CIRCUITS_TOML: &str = include_str!("../../data/gfl/circuits.toml");
/// The chip shapes file, compiled in.
pub const CHIPS_TOML: &str = include_str!("../../data/gfl/chips.toml");

/// Damage, breakthrough, precision, reload.
pub type Stats = [u32; 4];

/// Names of the four stats, in [`Stats`] order.
pub const STAT_NAMES: [&str; 4] = ["damage", "breakthrough", "precision", "reload"];

/// Stat per point, in tenths (GFChipCalc `Chip.RATES`: 4.4, 12.7, 7.1, 5.7).
pub const RATE_TENTHS: [u64; 4] = [44, 127, 71, 57];

/// A chip's (and a circuit's) colour; chips of the circuit's colour earn
/// resonance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Colour {
    Orange,
    Blue,
}

/// The game's chip classes of 5 and 6 cells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ChipClass {
    #[serde(rename = "5A")]
    FiveA,
    #[serde(rename = "5B")]
    FiveB,
    #[serde(rename = "6")]
    Six,
}

/// One chip shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChipShape {
    /// GFChipCalc's code, e.g. `5F`, `5Fm`, `6O`.
    pub code: String,
    pub class: ChipClass,
    pub shape: Shape,
}

/// One heavy-ordnance unit's circuit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Circuit {
    /// Command-line id, e.g. `bgm71`.
    pub id: String,
    /// Display name, e.g. `BGM-71`.
    pub name: String,
    pub colour: Colour,
    /// Star level (1-5) at which each cell opens, 6 = never; row-major 8x8.
    pub unlock: Vec<Vec<u8>>,
    /// Chip stat caps at 5 stars.
    pub target: Stats,
}

impl Circuit {
    /// The cells open at `star` (1-5).
    pub fn region(&self, star: u8) -> Region {
        let text = self
            .unlock
            .iter()
            .map(|row| {
                row.iter()
                    .map(|&s| if s <= star { '#' } else { '.' })
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("/");
        // Every circuit has star-1 cells (checked when loading).
        Region::parse(&text).unwrap_or_else(|_| Region::rectangle(0, 0))
    }

    /// The full (5-star) circuit.
    pub fn full(&self) -> Region {
        self.region(5)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CircuitEntry {
    id: String,
    name: String,
    colour: Colour,
    unlock: Vec<String>,
    target: Stats,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CircuitsFile {
    circuit: Vec<CircuitEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShapeEntry {
    code: String,
    #[serde(rename = "type")]
    class: ChipClass,
    cells: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ShapesFile {
    shape: Vec<ShapeEntry>,
}

/// A TOML error as one line: the message and the line it points at.
fn toml_error(file: &str, text: &str, e: &toml::de::Error) -> PackingError {
    let line = e
        .span()
        .map(|s| text[..s.start.min(text.len())].lines().count().max(1));
    let msg = e.message().trim().replace('\n', " ");
    PackingError::Data {
        file: file.to_string(),
        why: match line {
            Some(l) => format!("line {l}: {msg}"),
            None => msg,
        },
    }
}

/// Parses a circuits file.
pub fn parse_circuits(text: &str, file: &str) -> Result<Vec<Circuit>, PackingError> {
    let f: CircuitsFile = toml::from_str(text).map_err(|e| toml_error(file, text, &e))?;
    let mut out = Vec::new();
    for c in f.circuit {
        let bad = |why: String| PackingError::Data {
            file: file.to_string(),
            why: format!("circuit {}: {why}", c.id),
        };
        let mut unlock = Vec::new();
        for row in &c.unlock {
            let digits: Option<Vec<u8>> = row
                .chars()
                .map(|ch| {
                    ch.to_digit(10)
                        .filter(|d| (1..=6).contains(d))
                        .map(|d| d as u8)
                })
                .collect();
            unlock.push(digits.ok_or_else(|| bad(format!("bad unlock row {row:?} (digits 1-6)")))?);
        }
        if unlock.is_empty() || unlock.iter().any(|r| r.len() != unlock[0].len()) {
            return Err(bad("unlock rows must be non-empty and of one length".into()));
        }
        if !unlock.iter().flatten().any(|&s| s == 1) {
            return Err(bad("no cell opens at star 1".into()));
        }
        out.push(Circuit {
            id: c.id,
            name: c.name,
            colour: c.colour,
            unlock,
            target: c.target,
        });
    }
    Ok(out)
}

/// Parses a chip shapes file.
pub fn parse_shapes(text: &str, file: &str) -> Result<Vec<ChipShape>, PackingError> {
    let f: ShapesFile = toml::from_str(text).map_err(|e| toml_error(file, text, &e))?;
    f.shape
        .into_iter()
        .map(|s| {
            let shape = Shape::parse(&s.cells).map_err(|e| PackingError::Data {
                file: file.to_string(),
                why: format!("shape {}: {e}", s.code),
            })?;
            Ok(ChipShape {
                code: s.code,
                class: s.class,
                shape,
            })
        })
        .collect()
}

/// The compiled-in circuits.
pub fn circuits() -> Result<Vec<Circuit>, PackingError> {
    parse_circuits(CIRCUITS_TOML, "data/gfl/circuits.toml")
}

/// The compiled-in chip shapes.
pub fn chip_shapes() -> Result<Vec<ChipShape>, PackingError> {
    parse_shapes(CHIPS_TOML, "data/gfl/chips.toml")
}

fn simplify(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// A circuit by id or name, ignoring case and punctuation (`bgm71`, `BGM-71`).
pub fn circuit(name: &str) -> Result<Circuit, PackingError> {
    let all = circuits()?;
    let want = simplify(name);
    let known = all
        .iter()
        .map(|c| c.id.clone())
        .collect::<Vec<_>>()
        .join(", ");
    all.into_iter()
        .find(|c| simplify(&c.id) == want || simplify(&c.name) == want)
        .ok_or(PackingError::UnknownCircuit(name.to_string(), known))
}

/// Stat of one stat kind for `pt` points, after GFChipCalc `Chip.getStat`:
/// `ceil(level_mult * ceil(pt * rate * class_mult))`, where the class
/// multiplier is `(20 * stars - b - c) / 100` (b = c = 4 for 5A chips, c only
/// above 3 stars) and the level multiplier `1 + 0.08 * level` below level 10,
/// else `1.1 + 0.07 * level`. Exact integer arithmetic.
pub fn stat_for_points(kind: usize, class: ChipClass, stars: u8, level: u8, pt: u8) -> u32 {
    let stars = stars as u64;
    let five_a = class == ChipClass::FiveA;
    let b = if five_a { 4 } else { 0 };
    let c = if five_a && stars > 3 { 4 } else { 0 };
    let class_mult = (20 * stars).saturating_sub(b + c); // /100
    let rate = RATE_TENTHS[kind.min(3)]; // /10
    let num = pt as u64 * rate * class_mult;
    let base = num.div_ceil(1000);
    let level = level as u64;
    let level_mult = if level < 10 {
        100 + 8 * level
    } else {
        110 + 7 * level
    }; // /100
    (base * level_mult).div_ceil(100) as u32
}

/// One chip of an inventory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Chip {
    pub id: String,
    /// Index into the chip shapes.
    pub shape: usize,
    pub colour: Colour,
    pub stats: Stats,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ChipEntry {
    id: String,
    shape: String,
    colour: Colour,
    #[serde(default = "five")]
    stars: u8,
    #[serde(default = "twenty")]
    level: u8,
    pt: Option<[u8; 4]>,
    stats: Option<Stats>,
}

fn five() -> u8 {
    5
}

fn twenty() -> u8 {
    20
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct InventoryFile {
    #[serde(default)]
    chip: Vec<ChipEntry>,
}

/// Parses an inventory: `[[chip]]` tables with `id`, `shape` (a code of
/// `shapes`), `colour`, optional `stars` (2-5, default 5) and `level` (0-20,
/// default 20), and `pt = [d, b, p, r]` (points, summing to the chip's cells,
/// each at most cells - 1) or `stats = [d, b, p, r]`.
pub fn parse_inventory(
    text: &str,
    file: &str,
    shapes: &[ChipShape],
) -> Result<Vec<Chip>, PackingError> {
    let f: InventoryFile = toml::from_str(text).map_err(|e| toml_error(file, text, &e))?;
    let mut ids = HashSet::new();
    let mut out = Vec::with_capacity(f.chip.len());
    for (n, c) in f.chip.into_iter().enumerate() {
        let bad = |why: String| PackingError::Data {
            file: file.to_string(),
            why: format!("chip {} (id {:?}): {why}", n + 1, c.id),
        };
        let Some(si) = shapes.iter().position(|s| s.code == c.shape) else {
            let known = shapes
                .iter()
                .map(|s| s.code.as_str())
                .collect::<Vec<_>>()
                .join(", ");
            return Err(bad(format!("unknown shape {:?} (known: {known})", c.shape)));
        };
        if !ids.insert(c.id.clone()) {
            return Err(bad("id used twice".into()));
        }
        if !(2..=5).contains(&c.stars) {
            return Err(bad(format!("stars {} (2-5)", c.stars)));
        }
        if c.level > 20 {
            return Err(bad(format!("level {} (0-20)", c.level)));
        }
        let size = shapes[si].shape.len() as u32;
        let stats = match (c.pt, c.stats) {
            (Some(_), Some(_)) => return Err(bad("give pt or stats, not both".into())),
            (None, None) => return Err(bad("needs pt = [d, b, p, r] or stats = [...]".into())),
            (None, Some(s)) => s,
            (Some(pt), None) => {
                let sum: u32 = pt.iter().map(|&p| p as u32).sum();
                if sum != size || pt.iter().any(|&p| p as u32 > size - 1) {
                    return Err(bad(format!(
                        "pt {pt:?} must sum to {size} with each at most {}",
                        size - 1
                    )));
                }
                let mut s = [0u32; 4];
                for (k, v) in s.iter_mut().enumerate() {
                    *v = stat_for_points(k, shapes[si].class, c.stars, c.level, pt[k]);
                }
                s
            }
        };
        out.push(Chip {
            id: c.id,
            shape: si,
            colour: c.colour,
            stats,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_files_load() {
        let cs = circuits().expect("circuits.toml");
        assert_eq!(cs.len(), 7);
        let shapes = chip_shapes().expect("chips.toml");
        assert_eq!(shapes.len(), 28);
        assert!(shapes
            .iter()
            .all(|s| s.shape.len() == if s.class == ChipClass::Six { 6 } else { 5 }));
        // BGM-71 at 5 stars is the 6x6 square (GFTool's "6x6").
        let bgm = circuit("BGM-71").expect("known");
        assert_eq!(bgm.full().cell_count(), 36);
        assert_eq!(bgm.region(1).cell_count(), 16);
        assert!(circuit("t-doll").is_err());
    }

    #[test]
    fn stats_follow_the_calculator_formula() {
        // A 5-star, level-20 6-cell chip with 5 breakthrough points:
        // ceil(2.5 * ceil(5 * 12.7)) = ceil(2.5 * 64) = 160.
        assert_eq!(stat_for_points(1, ChipClass::Six, 5, 20, 5), 160);
        // 5A chips carry 92%: ceil(2.5 * ceil(1 * 4.4 * 0.92)) = ceil(2.5 * 5) = 13.
        assert_eq!(stat_for_points(0, ChipClass::FiveA, 5, 20, 1), 13);
        assert_eq!(stat_for_points(3, ChipClass::FiveB, 5, 0, 0), 0);
    }

    #[test]
    fn inventory_errors_are_one_line() {
        let shapes = chip_shapes().expect("chips.toml");
        let ok = "[[chip]]\nid = \"a\"\nshape = \"5F\"\ncolour = \"blue\"\npt = [2, 1, 1, 1]\n";
        let inv = parse_inventory(ok, "inv.toml", &shapes).expect("valid");
        assert_eq!(inv.len(), 1);
        for bad in [
            "[[chip]]\nid = \"a\"\nshape = \"9Q\"\ncolour = \"blue\"\npt = [2, 1, 1, 1]\n",
            "[[chip]]\nid = \"a\"\nshape = \"5F\"\ncolour = \"blue\"\npt = [5, 0, 0, 0]\n",
            "[[chip]]\nid = \"a\"\nshape = \"5F\"\ncolour = \"red\"\npt = [2, 1, 1, 1]\n",
            "[[chip]\nid = 1",
            &format!("{ok}{ok}"),
        ] {
            let e = parse_inventory(bad, "inv.toml", &shapes).expect_err(bad);
            assert!(!e.to_string().contains('\n'), "{e}");
        }
    }
}
