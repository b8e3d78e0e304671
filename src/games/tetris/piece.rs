//! The seven tetrominoes and a pluggable rotation system.
//!
//! A [`RotationSystem`] is plain data: for each piece, its rotation states in
//! clockwise order, each drawn in a box as text (rows top to bottom joined by
//! `/`, `#` a cell of the piece, `.` empty), plus where the box spawns. State 0
//! is the spawn state; `RotateCw` goes from state `i` to `i + 1` (mod the
//! number of states), `RotateCcw` back. Rotation keeps the box where it is
//! (no wall kicks): a rotation that would overlap a wall or a cell is refused,
//! as in games without kicks. The live game's behaviour is found by watching
//! it; write what was seen as another table ([`RotationSystem::from_toml`]).
//!
//! Coordinates: a piece position is `(state, x, top)`: `x` is the field column
//! of the box's left edge, `top` the field row (counted from the bottom, 0 =
//! bottom row) of the box's top row. Inside a box, `dx` grows to the right and
//! `dy` grows downwards.
//!
//! [`Shapes`] is the compiled form the move generator uses: per state its cells
//! as bottom-up row masks relative to the shape's lowest row and leftmost
//! column, the lowest cell of each shape column, and which states draw the same
//! shape (SRS I, S and Z have 4 states but 2 shapes).

use serde::{Deserialize, Serialize};

use super::TetrisError;

/// A tetromino.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Piece {
    I,
    O,
    T,
    S,
    Z,
    J,
    L,
}

impl Piece {
    /// All pieces, in index order.
    pub const ALL: [Piece; 7] = [
        Piece::I,
        Piece::O,
        Piece::T,
        Piece::S,
        Piece::Z,
        Piece::J,
        Piece::L,
    ];

    /// 0..7, the position in [`Piece::ALL`].
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The piece with this index (0..7).
    pub fn from_index(i: usize) -> Option<Piece> {
        Piece::ALL.get(i).copied()
    }

    /// The piece's letter.
    pub fn letter(self) -> char {
        ['I', 'O', 'T', 'S', 'Z', 'J', 'L'][self.index()]
    }

    /// The piece named by a letter (either case).
    pub fn from_letter(c: char) -> Option<Piece> {
        Piece::ALL
            .into_iter()
            .find(|p| p.letter() == c.to_ascii_uppercase())
    }
}

impl std::fmt::Display for Piece {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// One piece's rotation states and spawn place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PieceRotations {
    /// States in clockwise order, state 0 first (the spawn state); each a box
    /// drawn as text, e.g. `"..../####/..../...."`.
    pub states: Vec<String>,
    /// Box left column at spawn; default: centred, rounded left
    /// (`(width - box width) / 2`).
    #[serde(default)]
    pub spawn_x: Option<i32>,
}

/// A rotation system: the states of each piece and where pieces appear.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RotationSystem {
    pub name: String,
    /// Rows above the top visible row where the spawn state's highest cell
    /// appears (0 = in the top row; negative = lower). Cells above the top
    /// row are allowed while manoeuvring, never in a locked piece.
    #[serde(default)]
    pub spawn_above: i32,
    #[serde(rename = "I")]
    pub i: PieceRotations,
    #[serde(rename = "O")]
    pub o: PieceRotations,
    #[serde(rename = "T")]
    pub t: PieceRotations,
    #[serde(rename = "S")]
    pub s: PieceRotations,
    #[serde(rename = "Z")]
    pub z: PieceRotations,
    #[serde(rename = "J")]
    pub j: PieceRotations,
    #[serde(rename = "L")]
    pub l: PieceRotations,
}

fn rot(states: &[&str]) -> PieceRotations {
    PieceRotations {
        states: states.iter().map(|s| s.to_string()).collect(),
        spawn_x: None,
    }
}

impl RotationSystem {
    /// The Guideline Super Rotation System's states (without its wall kicks):
    /// pieces spawn flat side down, centred (left of centre when odd).
    pub fn srs() -> Self {
        RotationSystem {
            name: "srs".into(),
            spawn_above: 0,
            i: rot(&[
                "..../####/..../....",
                "..#./..#./..#./..#.",
                "..../..../####/....",
                ".#../.#../.#../.#..",
            ]),
            o: rot(&[".##./.##./...."]),
            t: rot(&[".#./###/...", ".#./.##/.#.", ".../###/.#.", ".#./##./.#."]),
            s: rot(&[".##/##./...", ".#./.##/..#", ".../.##/##.", "#../##./.#."]),
            z: rot(&["##./.##/...", "..#/.##/.#.", ".../##./.##", ".#./##./#.."]),
            j: rot(&["#../###/...", ".##/.#./.#.", ".../###/..#", ".#./.#./##."]),
            l: rot(&["..#/###/...", ".#./.#./.##", ".../###/#..", "##./.#./.#."]),
        }
    }

    /// Colin Fahey's "Standard Tetris" pieces (2003): each orientation is a
    /// set of cells around an origin that stays put when the piece turns
    /// (drawn here in 4x4 boxes with the origin at box column 2, box row 1);
    /// O has one orientation, I, S and Z two, the others four; orientation 1
    /// has no cell above the origin, which spawns in the top row, column
    /// `1 + width/2` (1-based). The pieces of [`super::model::Model::Fahey`].
    pub fn fahey() -> Self {
        RotationSystem {
            name: "fahey".into(),
            spawn_above: 0,
            i: rot(&["..../####/..../....", "..#./..#./..#./..#."]),
            o: rot(&["..../.##./.##./...."]),
            t: rot(&[
                "..../.###/..#./....",
                "..#./..##/..#./....",
                "..#./.###/..../....",
                "..#./.##./..#./....",
            ]),
            s: rot(&["..../..##/.##./....", "..#./..##/...#/...."]),
            z: rot(&["..../.##./..##/....", "...#/..##/..#./...."]),
            j: rot(&[
                "..../.###/...#/....",
                "..##/..#./..#./....",
                ".#../.###/..../....",
                "..#./..#./.##./....",
            ]),
            l: rot(&[
                "..../.###/.#../....",
                "..#./..#./..##/....",
                "...#/.###/..../....",
                ".##./..#./..#./....",
            ]),
        }
    }

    /// A named preset.
    pub fn preset(name: &str) -> Result<Self, TetrisError> {
        match name {
            "srs" => Ok(Self::srs()),
            "fahey" => Ok(Self::fahey()),
            _ => Err(TetrisError::UnknownPreset {
                kind: "rotation system",
                name: name.to_string(),
                known: "srs, fahey",
            }),
        }
    }

    /// Reads a rotation system written as TOML (the fields of this struct).
    pub fn from_toml(text: &str) -> Result<Self, TetrisError> {
        toml::from_str(text).map_err(|e| TetrisError::BadRotationSystem(e.to_string()))
    }

    /// The states of one piece, to change (e.g. with what a live game showed).
    pub fn piece_mut(&mut self, p: Piece) -> &mut PieceRotations {
        match p {
            Piece::I => &mut self.i,
            Piece::O => &mut self.o,
            Piece::T => &mut self.t,
            Piece::S => &mut self.s,
            Piece::Z => &mut self.z,
            Piece::J => &mut self.j,
            Piece::L => &mut self.l,
        }
    }

    /// The states of one piece.
    pub fn piece(&self, p: Piece) -> &PieceRotations {
        match p {
            Piece::I => &self.i,
            Piece::O => &self.o,
            Piece::T => &self.t,
            Piece::S => &self.s,
            Piece::Z => &self.z,
            Piece::J => &self.j,
            Piece::L => &self.l,
        }
    }
}

/// One compiled rotation state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct State {
    /// Rows of the shape, bottom-up from its lowest row; bit `c` = column
    /// `left + c` of the box.
    pub mask: [u16; 4],
    /// Shape width and height in cells.
    pub w: u8,
    pub h: u8,
    /// Box column of the shape's leftmost cell.
    pub left: u8,
    /// Box row (downwards) of the shape's lowest row.
    pub bottom: u8,
    /// Lowest cell of each shape column, counted from the shape's lowest row.
    pub col_bottom: [u8; 4],
    /// States of one piece with equal `shape` draw the same cells.
    pub shape: u8,
    /// The cells of each shape column as a bit mask of shape rows (bit `r` =
    /// row `r` from the shape's lowest row).
    pub col_bits: [u8; 4],
}

impl State {
    /// The cells as `(dx, dy_up)` from the shape's bottom-left corner.
    pub fn cells(&self) -> impl Iterator<Item = (u8, u8)> + '_ {
        (0..self.h).flat_map(move |r| {
            (0..self.w)
                .filter(move |c| self.mask[r as usize] >> c & 1 == 1)
                .map(move |c| (c, r))
        })
    }
}

/// A compiled rotation system for one field width.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shapes {
    pub name: String,
    pub spawn_above: i32,
    /// Per piece: its states.
    pub states: [Vec<State>; 7],
    /// Per piece: the box left column at spawn.
    pub spawn_x: [i32; 7],
    /// Per piece: the number of distinct shapes.
    pub shape_count: [u8; 7],
}

fn parse_state(p: Piece, i: usize, text: &str) -> Result<(State, [u16; 4]), TetrisError> {
    let bad = |why: &str| TetrisError::BadRotationSystem(format!("{p} state {i}: {why}"));
    let lines: Vec<&str> = text.split('/').map(str::trim).collect();
    let mut cells = Vec::new();
    for (dy, line) in lines.iter().enumerate() {
        for (dx, ch) in line.chars().enumerate() {
            match ch {
                '#' => cells.push((dx, dy)),
                '.' => {}
                _ => return Err(bad(&format!("unexpected {ch:?}"))),
            }
        }
    }
    if cells.len() != 4 {
        return Err(bad(&format!("{} cells, a tetromino has 4", cells.len())));
    }
    let x0 = cells.iter().map(|c| c.0).min().unwrap_or(0);
    let x1 = cells.iter().map(|c| c.0).max().unwrap_or(0);
    let y0 = cells.iter().map(|c| c.1).min().unwrap_or(0);
    let y1 = cells.iter().map(|c| c.1).max().unwrap_or(0);
    if x1 - x0 >= 4 || y1 - y0 >= 4 || x1 >= 16 || y1 >= 16 {
        return Err(bad("cells span more than 4 columns or rows"));
    }
    let mut mask = [0u16; 4];
    for &(dx, dy) in &cells {
        mask[y1 - dy] |= 1 << (dx - x0);
    }
    let mut col_bottom = [0u8; 4];
    for (c, cb) in col_bottom.iter_mut().enumerate().take(x1 - x0 + 1) {
        *cb = (0..4).find(|&r| mask[r] >> c & 1 == 1).unwrap_or(0) as u8;
    }
    let mut col_bits = [0u8; 4];
    for (c, cb) in col_bits.iter_mut().enumerate() {
        for (r, m) in mask.iter().enumerate() {
            if m >> c & 1 == 1 {
                *cb |= 1 << r;
            }
        }
    }
    let st = State {
        col_bits,
        mask,
        w: (x1 - x0 + 1) as u8,
        h: (y1 - y0 + 1) as u8,
        left: x0 as u8,
        bottom: y1 as u8,
        col_bottom,
        shape: 0,
    };
    Ok((st, mask))
}

impl Shapes {
    /// Compiles `rs` for a field `width` columns wide.
    pub fn new(rs: &RotationSystem, width: usize) -> Result<Self, TetrisError> {
        let mut states: [Vec<State>; 7] = Default::default();
        let mut spawn_x = [0i32; 7];
        let mut shape_count = [0u8; 7];
        for p in Piece::ALL {
            let pr = rs.piece(p);
            if pr.states.is_empty() || pr.states.len() > 4 {
                return Err(TetrisError::BadRotationSystem(format!(
                    "{p}: {} states (1 to 4 allowed)",
                    pr.states.len()
                )));
            }
            let mut seen: Vec<[u16; 4]> = Vec::new();
            let mut box_w = 0;
            for (i, text) in pr.states.iter().enumerate() {
                box_w = box_w.max(text.split('/').map(|l| l.trim().len()).max().unwrap_or(0));
                let (mut st, mask) = parse_state(p, i, text)?;
                st.shape = match seen.iter().position(|m| *m == mask) {
                    Some(k) => k as u8,
                    None => {
                        seen.push(mask);
                        (seen.len() - 1) as u8
                    }
                };
                if st.w as usize > width {
                    return Err(TetrisError::BadRotationSystem(format!(
                        "{p} state {i} is wider than the field ({width})"
                    )));
                }
                states[p.index()].push(st);
            }
            shape_count[p.index()] = seen.len() as u8;
            spawn_x[p.index()] = pr
                .spawn_x
                .unwrap_or((width as i32 - box_w as i32).max(0) / 2);
        }
        Ok(Shapes {
            name: rs.name.clone(),
            spawn_above: rs.spawn_above,
            states,
            spawn_x,
            shape_count,
        })
    }

    /// The states of a piece.
    #[inline]
    pub fn of(&self, p: Piece) -> &[State] {
        &self.states[p.index()]
    }

    /// The box top row at spawn on a field `height` rows high.
    pub fn spawn_top(&self, p: Piece, height: usize) -> i32 {
        let s0 = &self.states[p.index()][0];
        // The spawn state's highest cell sits at `height - 1 + spawn_above`.
        let highest_dy = s0.bottom as i32 - (s0.h as i32 - 1);
        height as i32 - 1 + self.spawn_above + highest_dy
    }
}

impl Shapes {
    /// Which piece states draw exactly these cells (`(column, row from the
    /// bottom)`, any order): every match as `(piece, state, box column, box
    /// top row)`. A screen reader uses it to name the falling piece and its
    /// rotation; a state's shape may match several states (SRS I, S, Z).
    pub fn identify(&self, cells: &[(i32, i32)]) -> Vec<(Piece, u8, i32, i32)> {
        let mut out = Vec::new();
        if cells.len() != 4 {
            return out;
        }
        let x0 = cells.iter().map(|c| c.0).min().unwrap_or(0);
        let y0 = cells.iter().map(|c| c.1).min().unwrap_or(0);
        let mut mask = [0u16; 4];
        for &(x, y) in cells {
            let (dx, dy) = (x - x0, y - y0);
            if !(0..4).contains(&dx) || !(0..4).contains(&dy) {
                return out;
            }
            mask[dy as usize] |= 1 << dx;
        }
        for p in Piece::ALL {
            for (i, st) in self.of(p).iter().enumerate() {
                if st.mask == mask {
                    out.push((p, i as u8, x0 - st.left as i32, y0 + st.bottom as i32));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srs_compiles_with_expected_shape_counts() {
        let sh = Shapes::new(&RotationSystem::srs(), 10).unwrap();
        let counts: Vec<u8> = Piece::ALL
            .iter()
            .map(|p| sh.shape_count[p.index()])
            .collect();
        assert_eq!(counts, vec![2, 1, 4, 2, 2, 4, 4]);
        assert_eq!(sh.spawn_x[Piece::I.index()], 3);
        assert_eq!(sh.spawn_x[Piece::T.index()], 3);
        // I horizontal: one row of four.
        let i0 = sh.of(Piece::I)[0];
        assert_eq!(
            (i0.w, i0.h, i0.mask[0], i0.left, i0.bottom),
            (4, 1, 0b1111, 0, 1)
        );
        // T spawn: flat side down, nose up.
        let t0 = sh.of(Piece::T)[0];
        assert_eq!(t0.mask, [0b111, 0b010, 0, 0]);
        assert_eq!(t0.col_bottom, [0, 0, 0, 0]);
        let t1 = sh.of(Piece::T)[1];
        assert_eq!(
            (t1.mask, t1.col_bottom, t1.left),
            ([1, 3, 1, 0], [0, 1, 0, 0], 1)
        );
    }

    #[test]
    fn rotation_system_round_trips_through_toml() {
        let rs = RotationSystem::srs();
        let text = toml::to_string(&rs).unwrap();
        assert_eq!(RotationSystem::from_toml(&text).unwrap(), rs);
        let bad = text.replacen("##./.##/...", "##./###/...", 1);
        assert!(RotationSystem::from_toml(&bad)
            .and_then(|r| Shapes::new(&r, 10))
            .is_err());
    }

    #[test]
    fn identify_names_piece_and_state() {
        let sh = Shapes::new(&RotationSystem::srs(), 10).unwrap();
        // T pointing down (state 2) with its flat row at row 5, columns 3..=5.
        let cells = [(3, 5), (4, 5), (5, 5), (4, 4)];
        let m = sh.identify(&cells);
        assert_eq!(m.len(), 1);
        let (p, s, bx, top) = m[0];
        assert_eq!((p, s), (Piece::T, 2));
        // Box rows: the flat row is box row 1, so the box top is row 6.
        assert_eq!((bx, top), (3, 6));
        // An upright I matches both upright SRS states.
        let i: Vec<u8> = sh
            .identify(&[(7, 0), (7, 1), (7, 2), (7, 3)])
            .iter()
            .map(|m| m.1)
            .collect();
        assert_eq!(i, vec![1, 3]);
        assert!(sh.identify(&[(0, 0), (5, 0), (1, 0), (2, 0)]).is_empty());
    }

    #[test]
    fn letters_round_trip() {
        for p in Piece::ALL {
            assert_eq!(Piece::from_letter(p.letter()), Some(p));
            assert_eq!(Piece::from_index(p.index()), Some(p));
        }
    }
}
