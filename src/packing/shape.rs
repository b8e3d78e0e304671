//! Polyominoes: shapes, their orientations, and every placement inside a region.
//!
//! Coordinates: `(row, col)`, row 0 at the top, col 0 at the left. Text form
//! (the board codec's convention): rows top to bottom joined by `/`, `#` a
//! cell of the shape or region, `.` none; e.g. the F pentomino is `.##/##./.#.`.
//!
//! Invariants: a [`Shape`] is normalised (its smallest row and column are 0)
//! and its cells are sorted, so two shapes are equal exactly when they are the
//! same fixed polyomino. [`Shape::orientations`] lists each distinct fixed form
//! once; [`placements`] lists each distinct set of covered cells once.

use std::collections::HashSet;

use super::PackingError;
use crate::board::Cell;

/// A fixed polyomino: normalised, sorted cells.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shape {
    cells: Vec<(i32, i32)>,
}

/// One orientation of a shape: the transform from the shape as given, and the
/// resulting fixed form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Orientation {
    /// Quarter turns clockwise applied (after the mirror, if any).
    pub turns: u8,
    /// Mirrored left-right before turning.
    pub mirrored: bool,
    pub shape: Shape,
}

/// A region of the grid: the cells a puzzle or circuit lets pieces cover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    rows: usize,
    cols: usize,
    cells: Vec<bool>,
}

/// One shape orientation at one position: the cells it covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// Index into [`Shape::orientations`] of the shape it came from.
    pub orientation: usize,
    /// Covered cells, sorted (row-major).
    pub cells: Vec<Cell>,
}

fn parse_grid(text: &str) -> Result<Vec<Vec<bool>>, String> {
    let mut rows = Vec::new();
    for (r, line) in text.trim().split('/').enumerate() {
        let mut row = Vec::new();
        for (c, ch) in line.trim().chars().enumerate() {
            match ch {
                '#' => row.push(true),
                '.' => row.push(false),
                _ => {
                    return Err(format!(
                        "unexpected {ch:?} at row {r}, column {c} (use # and .)"
                    ))
                }
            }
        }
        rows.push(row);
    }
    if rows.iter().all(|r| r.iter().all(|&b| !b)) {
        return Err("no cell".into());
    }
    Ok(rows)
}

impl Shape {
    /// A shape from cell coordinates (any offset; normalised here).
    pub fn from_cells(cells: impl IntoIterator<Item = (i32, i32)>) -> Result<Shape, PackingError> {
        let mut v: Vec<(i32, i32)> = cells.into_iter().collect();
        if v.is_empty() {
            return Err(PackingError::BadShape {
                text: String::new(),
                why: "no cell".into(),
            });
        }
        v.sort_unstable();
        v.dedup();
        Ok(Shape::normalised(v))
    }

    fn normalised(mut v: Vec<(i32, i32)>) -> Shape {
        let r0 = v.iter().map(|c| c.0).min().unwrap_or(0);
        let c0 = v.iter().map(|c| c.1).min().unwrap_or(0);
        for c in &mut v {
            c.0 -= r0;
            c.1 -= c0;
        }
        v.sort_unstable();
        Shape { cells: v }
    }

    /// Parses `#`/`.` rows joined by `/` (e.g. `".##/##./.#."`). The shape's
    /// cells must be connected edge to edge.
    pub fn parse(text: &str) -> Result<Shape, PackingError> {
        let bad = |why: String| PackingError::BadShape {
            text: text.to_string(),
            why,
        };
        let grid = parse_grid(text).map_err(bad)?;
        let mut cells = Vec::new();
        for (r, row) in grid.iter().enumerate() {
            for (c, &b) in row.iter().enumerate() {
                if b {
                    cells.push((r as i32, c as i32));
                }
            }
        }
        let s = Shape::normalised(cells);
        if !s.is_connected() {
            return Err(bad("cells are not connected".into()));
        }
        Ok(s)
    }

    /// Cells as `(row, col)`, sorted.
    pub fn cells(&self) -> &[(i32, i32)] {
        &self.cells
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// Height and width of the bounding box.
    pub fn extent(&self) -> (usize, usize) {
        let h = self.cells.iter().map(|c| c.0).max().unwrap_or(-1) + 1;
        let w = self.cells.iter().map(|c| c.1).max().unwrap_or(-1) + 1;
        (h as usize, w as usize)
    }

    fn is_connected(&self) -> bool {
        let set: HashSet<(i32, i32)> = self.cells.iter().copied().collect();
        let mut seen = HashSet::new();
        let mut todo = vec![self.cells[0]];
        while let Some(p) = todo.pop() {
            if !seen.insert(p) {
                continue;
            }
            for d in [(0, 1), (1, 0), (0, -1), (-1, 0)] {
                let q = (p.0 + d.0, p.1 + d.1);
                if set.contains(&q) && !seen.contains(&q) {
                    todo.push(q);
                }
            }
        }
        seen.len() == self.cells.len()
    }

    /// Turned a quarter clockwise: `(r, c) -> (c, -r)`, normalised.
    pub fn turned(&self) -> Shape {
        Shape::normalised(self.cells.iter().map(|&(r, c)| (c, -r)).collect())
    }

    /// Mirrored left-right: `(r, c) -> (r, -c)`, normalised.
    pub fn mirrored(&self) -> Shape {
        Shape::normalised(self.cells.iter().map(|&(r, c)| (r, -c)).collect())
    }

    /// The distinct fixed forms under rotation (and reflection when
    /// `reflections`), the shape as given first. F pentomino: 8; X: 1.
    pub fn orientations(&self, reflections: bool) -> Vec<Orientation> {
        let mut out: Vec<Orientation> = Vec::new();
        for mirrored in [false, true] {
            if mirrored && !reflections {
                break;
            }
            let mut s = if mirrored {
                self.mirrored()
            } else {
                self.clone()
            };
            for turns in 0..4u8 {
                if !out.iter().any(|o| o.shape == s) {
                    out.push(Orientation {
                        turns,
                        mirrored,
                        shape: s.clone(),
                    });
                }
                s = s.turned();
            }
        }
        out
    }

    /// Text form (`#`/`.` rows joined by `/`).
    pub fn to_text(&self) -> String {
        let (h, w) = self.extent();
        let mut rows = vec![vec!['.'; w]; h];
        for &(r, c) in &self.cells {
            rows[r as usize][c as usize] = '#';
        }
        rows.into_iter()
            .map(|r| r.into_iter().collect::<String>())
            .collect::<Vec<_>>()
            .join("/")
    }
}

impl Region {
    /// A full `rows` x `cols` rectangle.
    pub fn rectangle(rows: usize, cols: usize) -> Region {
        Region {
            rows,
            cols,
            cells: vec![true; rows * cols],
        }
    }

    /// Parses `#`/`.` rows joined by `/`; rows may differ in length (short
    /// rows are padded with `.`).
    pub fn parse(text: &str) -> Result<Region, PackingError> {
        let grid = parse_grid(text).map_err(|why| PackingError::BadShape {
            text: text.to_string(),
            why,
        })?;
        let rows = grid.len();
        let cols = grid.iter().map(|r| r.len()).max().unwrap_or(0);
        let mut cells = vec![false; rows * cols];
        for (r, row) in grid.iter().enumerate() {
            for (c, &b) in row.iter().enumerate() {
                cells[r * cols + c] = b;
            }
        }
        Ok(Region { rows, cols, cells })
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    /// True when `(row, col)` is inside the grid and part of the region.
    pub fn contains(&self, row: i32, col: i32) -> bool {
        row >= 0
            && col >= 0
            && (row as usize) < self.rows
            && (col as usize) < self.cols
            && self.cells[row as usize * self.cols + col as usize]
    }

    /// Removes one cell (e.g. the hole of a puzzle board).
    pub fn remove(&mut self, row: usize, col: usize) {
        if row < self.rows && col < self.cols {
            self.cells[row * self.cols + col] = false;
        }
    }

    /// The region's cells, row-major.
    pub fn cells(&self) -> impl Iterator<Item = Cell> + '_ {
        (0..self.rows)
            .flat_map(move |r| (0..self.cols).map(move |c| Cell::new(r, c)))
            .filter(|c| self.cells[c.row * self.cols + c.col])
    }

    pub fn cell_count(&self) -> usize {
        self.cells.iter().filter(|&&b| b).count()
    }

    /// Text form (`#`/`.` rows joined by `/`).
    pub fn to_text(&self) -> String {
        (0..self.rows)
            .map(|r| {
                (0..self.cols)
                    .map(|c| {
                        if self.cells[r * self.cols + c] {
                            '#'
                        } else {
                            '.'
                        }
                    })
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("/")
    }
}

/// Every placement of `shape` inside `region`: each orientation (rotations, and
/// reflections when asked) at each translation that keeps all its cells in the
/// region. Duplicates (the same covered cells) are removed.
pub fn placements(shape: &Shape, region: &Region, reflections: bool) -> Vec<Placement> {
    let mut seen: HashSet<Vec<Cell>> = HashSet::new();
    let mut out = Vec::new();
    for (oi, o) in shape.orientations(reflections).iter().enumerate() {
        let (h, w) = o.shape.extent();
        if h > region.rows || w > region.cols {
            continue;
        }
        for r0 in 0..=(region.rows - h) as i32 {
            for c0 in 0..=(region.cols - w) as i32 {
                if !o
                    .shape
                    .cells
                    .iter()
                    .all(|&(r, c)| region.contains(r0 + r, c0 + c))
                {
                    continue;
                }
                let mut cells: Vec<Cell> = o
                    .shape
                    .cells
                    .iter()
                    .map(|&(r, c)| Cell::new((r0 + r) as usize, (c0 + c) as usize))
                    .collect();
                cells.sort_unstable();
                if seen.insert(cells.clone()) {
                    out.push(Placement {
                        orientation: oi,
                        cells,
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_round_trips_and_normalises() {
        let f = Shape::parse(".##/##./.#.").expect("F");
        assert_eq!(f.len(), 5);
        assert_eq!(f.to_text(), ".##/##./.#.");
        assert_eq!(
            Shape::parse("..../.##./.##.").expect("O").to_text(),
            "##/##"
        );
        assert!(Shape::parse("#.#").is_err(), "disconnected");
        assert!(Shape::parse("#x").is_err());
        assert!(Shape::parse("...").is_err());
    }

    #[test]
    fn orientation_counts() {
        let f = Shape::parse(".##/##./.#.").expect("F");
        assert_eq!(f.orientations(true).len(), 8);
        assert_eq!(f.orientations(false).len(), 4);
        let x = Shape::parse(".#./###/.#.").expect("X");
        assert_eq!(x.orientations(true).len(), 1);
        let i = Shape::parse("#####").expect("I");
        assert_eq!(i.orientations(true).len(), 2);
        let z = Shape::parse("##./.#./.##").expect("Z");
        assert_eq!(z.orientations(true).len(), 4);
        assert_eq!(z.orientations(false).len(), 2);
    }

    #[test]
    fn placements_in_a_rectangle() {
        // The I pentomino in a 5x5 square: 5 rows + 5 columns.
        let i = Shape::parse("#####").expect("I");
        assert_eq!(placements(&i, &Region::rectangle(5, 5), true).len(), 10);
        // The 2x2 square in a 3x3 square: 4, and none in a 3x3 ring.
        let o = Shape::parse("##/##").expect("O");
        assert_eq!(placements(&o, &Region::rectangle(3, 3), true).len(), 4);
        let ring = Region::parse("###/#.#/###").expect("ring");
        assert!(placements(&o, &ring, true).is_empty());
    }
}
