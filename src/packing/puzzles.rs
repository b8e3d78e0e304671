//! The classic pentomino puzzles, with the standard symmetry reduction.
//!
//! Boards: 6x10, 5x12, 4x15, 3x20, and 8x8 with the 2x2 centre removed, each
//! tiled by the 12 free pentominoes (each once, turned over allowed). Known
//! counts (Haselgrove 1960; Knuth, "Dancing Links", 2000): 2,339 / 1,010 / 368
//! / 2 / 65 up to symmetry, i.e. 9,356 / 4,040 / 1,472 / 8 / 520 in all.
//!
//! Symmetry reduction (the trick in Knuth's paper, made generic): let `G` be
//! the symmetries of the board. Keep only the X placements that are the least
//! (by sorted cells) of their orbit under `G`. An X placement fixed by some
//! `g != id` (X on an axis or a diagonal) would still admit both a solution
//! and its mirror image, so such X placements get a tag that the P placements
//! with `g(P) < P` also carry: P, having no symmetry, is then forced into the
//! canonical one of the two. Each class of solutions is counted once.
//!
//! Coordinates: `(row, col)`, row 0 at the top.

use std::collections::HashMap;

use super::shape::{Region, Shape};
use super::tiling::{Piece, Tiling};
use super::PackingError;
use crate::board::Cell;

/// The 12 pentominoes, in Conway's letters.
pub const PENTOMINOES: [(&str, &str); 12] = [
    ("F", ".##/##./.#."),
    ("I", "#####"),
    ("L", "#./#./#./##"),
    ("N", ".###/##.."),
    ("P", "##/##/#."),
    ("T", "###/.#./.#."),
    ("U", "#.#/###"),
    ("V", "#../#../###"),
    ("W", "#../##./.##"),
    ("X", ".#./###/.#."),
    ("Y", "####/.#.."),
    ("Z", "##./.#./.##"),
];

/// Puzzle names accepted by [`puzzle`], with their solution counts up to
/// symmetry and in all.
pub const PUZZLES: [(&str, u64, u64); 5] = [
    ("pentomino-6x10", 2339, 9356),
    ("pentomino-5x12", 1010, 4040),
    ("pentomino-4x15", 368, 1472),
    ("pentomino-3x20", 2, 8),
    ("pentomino-8x8-hole", 65, 520),
];

/// The 12 pentominoes as pieces (one each, reflections allowed).
pub fn pentomino_pieces() -> Vec<Piece> {
    PENTOMINOES
        .iter()
        .map(|&(name, text)| Piece {
            name: name.to_string(),
            shape: Shape::parse(text).expect("the pentomino table is well-formed (tested)"),
            count: 1,
            reflections: true,
        })
        .collect()
}

/// The board of a puzzle name.
pub fn board(name: &str) -> Result<Region, PackingError> {
    let known = || PUZZLES.iter().map(|p| p.0).collect::<Vec<_>>().join(", ");
    let region = match name {
        "pentomino-6x10" => Region::rectangle(6, 10),
        "pentomino-5x12" => Region::rectangle(5, 12),
        "pentomino-4x15" => Region::rectangle(4, 15),
        "pentomino-3x20" => Region::rectangle(3, 20),
        "pentomino-8x8-hole" => {
            let mut r = Region::rectangle(8, 8);
            for (row, col) in [(3, 3), (3, 4), (4, 3), (4, 4)] {
                r.remove(row, col);
            }
            r
        }
        _ => return Err(PackingError::UnknownPuzzle(name.to_string(), known())),
    };
    Ok(region)
}

/// A puzzle as a tiling problem; `all` keeps every solution, otherwise the
/// symmetry reduction applies.
pub fn puzzle(name: &str, all: bool) -> Result<Tiling, PackingError> {
    let mut t = Tiling::new(board(name)?, pentomino_pieces());
    if !all {
        break_symmetry(&mut t, "X", "P")?;
    }
    Ok(t)
}

/// A map of the grid onto itself: `(rows, cols, r, c) -> (r', c')`.
type Transform = fn(usize, usize, usize, usize) -> (usize, usize);

const TRANSFORMS: [(bool, Transform); 8] = [
    (false, |_, _, r, c| (r, c)),
    (false, |h, _, r, c| (h - 1 - r, c)),
    (false, |_, w, r, c| (r, w - 1 - c)),
    (false, |h, w, r, c| (h - 1 - r, w - 1 - c)),
    (true, |_, _, r, c| (c, r)),
    (true, |h, _, r, c| (h - 1 - c, h - 1 - r)),
    (true, |h, _, r, c| (c, h - 1 - r)),
    (true, |h, _, r, c| (h - 1 - c, r)),
];

/// The symmetries of the region (identity first).
fn symmetries(region: &Region) -> Vec<Transform> {
    let (h, w) = (region.rows(), region.cols());
    TRANSFORMS
        .iter()
        .filter(|(swaps, _)| !*swaps || h == w)
        .map(|&(_, f)| f)
        .filter(|f| {
            region.cells().all(|c| {
                let (r, col) = f(h, w, c.row, c.col);
                region.contains(r as i32, col as i32)
            })
        })
        .collect()
}

fn image(f: Transform, region: &Region, cells: &[Cell]) -> Vec<Cell> {
    let mut v: Vec<Cell> = cells
        .iter()
        .map(|c| {
            let (r, col) = f(region.rows(), region.cols(), c.row, c.col);
            Cell::new(r, col)
        })
        .collect();
    v.sort_unstable();
    v
}

/// Removes the board's symmetry: `anchor` (a fully symmetric piece, X) keeps
/// only canonical placements; where it sits on an axis, `chiral` (a piece
/// without symmetry, P) must take the canonical one of each mirror pair.
pub fn break_symmetry(t: &mut Tiling, anchor: &str, chiral: &str) -> Result<(), PackingError> {
    let find = |name: &str| {
        t.pieces.iter().position(|p| p.name == name).ok_or_else(|| {
            PackingError::UnknownChipShape(
                name.to_string(),
                t.pieces
                    .iter()
                    .map(|p| p.name.clone())
                    .collect::<Vec<_>>()
                    .join(", "),
            )
        })
    };
    let (ax, ch) = (find(anchor)?, find(chiral)?);
    let group = symmetries(&t.region);
    // Stabiliser elements (by index in `group`) that need a tag.
    let mut tag_of: HashMap<usize, u32> = HashMap::new();
    let mut keep = vec![true; t.options.len()];
    let mut anchor_tags = vec![0u64; t.options.len()];
    for (i, o) in t.options.iter().enumerate() {
        if o.piece != ax {
            continue;
        }
        let cells = &o.placement.cells;
        let images: Vec<Vec<Cell>> = group.iter().map(|&g| image(g, &t.region, cells)).collect();
        if images.iter().any(|im| im < cells) {
            keep[i] = false;
            continue;
        }
        let fixed: Vec<usize> = (1..group.len()).filter(|&g| &images[g] == cells).collect();
        match fixed.as_slice() {
            [] => {}
            [g] => {
                let next = tag_of.len() as u32;
                let tag = *tag_of.entry(*g).or_insert(next);
                anchor_tags[i] |= 1u64 << tag;
            }
            _ => {
                return Err(PackingError::BadShape {
                    text: t.region.to_text(),
                    why: format!(
                        "{anchor} fixed by {} symmetries: not supported",
                        fixed.len() + 1
                    ),
                })
            }
        }
    }
    for (i, o) in t.options.iter_mut().enumerate() {
        o.tags |= anchor_tags[i];
        if o.piece == ch {
            for (&g, &tag) in &tag_of {
                let im = image(group[g], &t.region, &o.placement.cells);
                if im < o.placement.cells {
                    o.tags |= 1u64 << tag;
                }
            }
        }
    }
    let mut k = 0;
    t.options.retain(|_| {
        k += 1;
        keep[k - 1]
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pentomino_table_is_well_formed() {
        let pieces = pentomino_pieces();
        assert_eq!(pieces.len(), 12);
        assert!(pieces.iter().all(|p| p.shape.len() == 5));
        let fixed: usize = pieces
            .iter()
            .map(|p| p.shape.orientations(true).len())
            .sum();
        assert_eq!(fixed, 63);
    }

    #[test]
    fn symmetry_groups() {
        assert_eq!(symmetries(&Region::rectangle(6, 10)).len(), 4);
        assert_eq!(
            symmetries(&board("pentomino-8x8-hole").expect("known")).len(),
            8
        );
        assert!(board("pentomino-7x7").is_err());
    }
}
