//! Tetris engine oracles: perft-style placement counts on fixed fields, key
//! scripts replayed cell by cell, and the bitboard engine against a naive
//! grid implementation (proptest, pinned seed).

use std::collections::{BTreeSet, VecDeque};

use gridbot::games::tetris::{
    play_game, play_game_with, Eval, Field, GameSetup, Model, MoveGen, MoveRules, Piece, Placement,
    Player, Randomizer, RotationSystem, SearchParams, Shapes, TetrisKey,
};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

fn gen(w: usize, h: usize, slides: bool) -> MoveGen {
    let rs = RotationSystem::srs();
    MoveGen::new(
        Shapes::new(&rs, w).unwrap(),
        MoveRules { ccw: true, slides },
        w,
        h,
    )
    .unwrap()
}

/// Placement counts per piece in `Piece::ALL` order (I O T S Z J L).
fn counts(g: &MoveGen, f: &Field) -> Vec<usize> {
    Piece::ALL
        .iter()
        .map(|&p| g.placements(f, p).len())
        .collect()
}

#[test]
fn perft_empty_fields() {
    // 10 wide: I 7+10, O 9, T/J/L 8+9+8+9, S/Z 8+9.
    let g = gen(10, 20, false);
    let f = Field::new(10, 20).unwrap();
    assert_eq!(counts(&g, &f), vec![17, 9, 34, 17, 17, 34, 34]);
    // Slides add nothing on an empty field.
    assert_eq!(
        counts(&gen(10, 20, true), &f),
        vec![17, 9, 34, 17, 17, 34, 34]
    );
    let g = gen(4, 6, false);
    let f = Field::new(4, 6).unwrap();
    assert_eq!(counts(&g, &f), vec![5, 3, 10, 5, 5, 10, 10]);
}

/// An overhang: a shelf at rows 2 and 3 over columns 0..=4, open below.
const OVERHANG: [&str; 8] = [
    "..........",
    "..........",
    "..........",
    "..........",
    "#####.....",
    "#####.....",
    "..........",
    "#.........",
];

#[test]
fn perft_overhang_and_slides() {
    let f = Field::parse(&OVERHANG).unwrap();
    let hard = counts(&gen(10, 8, false), &f);
    assert_eq!(hard, vec![17, 9, 34, 17, 17, 34, 34]);
    let slid = counts(&gen(10, 8, true), &f);
    // Under the shelf: every extra placement needs a drop, then a slide
    // left (and maybe a turn). Pinned from this engine; the naive search in
    // `fast_engine_matches_naive` agrees on random fields.
    assert_eq!(slid, vec![22, 13, 44, 21, 23, 44, 42]);
}

#[test]
fn perft_crowded_top() {
    // The stack reaches the spawn rows: only the open middle can be reached.
    // I: flat at columns 2, 3, 4 and upright only into the hole at column 4
    // (elsewhere it would stick out of the top); T: 2 + 3 + 2 + 3 (checked
    // by hand).
    let f = Field::parse(&["##......##", "###....###", "###....###", "####.#####"]).unwrap();
    let g = gen(10, 4, false);
    assert_eq!(counts(&g, &f), vec![4, 3, 10, 6, 6, 11, 11]);
    // A piece whose spawn cells are taken cannot appear.
    let full_top = Field::parse(&["###.######", "#########."]).unwrap();
    let g2 = gen(10, 2, false);
    assert!(g2.blocked(&full_top, Piece::T));
    assert!(g2.placements(&full_top, Piece::T).is_empty());
}

#[test]
fn line_clears() {
    let g = gen(10, 6, false);
    let mut f = Field::parse(&[
        "..........",
        "..........",
        "#.........",
        "#########.",
        "#########.",
        "#########.",
    ])
    .unwrap();
    // I vertical into column 9 clears three rows; the top cell lands on
    // the row above them and falls to the bottom row.
    let pl = g
        .placements(&f, Piece::I)
        .into_iter()
        .find(|p| p.rotation % 2 == 1 && p.column == 9)
        .unwrap();
    assert_eq!(pl.row, 0);
    assert_eq!(g.apply(&mut f, &pl).unwrap(), 0b0111);
    assert_eq!(
        f,
        Field::parse(&[
            "..........",
            "..........",
            "..........",
            "..........",
            "..........",
            "#........#",
        ])
        .unwrap()
    );
}

// ---- the naive oracle -------------------------------------------------------

/// A plain grid, `g[y][x]`, row 0 at the bottom.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Grid {
    w: i32,
    h: i32,
    g: Vec<Vec<bool>>,
}

impl Grid {
    fn from_field(f: &Field) -> Self {
        let (w, h) = (f.width() as i32, f.height() as i32);
        let g = (0..h)
            .map(|y| (0..w).map(|x| f.get(x as usize, y as usize)).collect())
            .collect();
        Grid { w, h, g }
    }

    fn filled(&self, x: i32, y: i32) -> bool {
        x < 0 || x >= self.w || y < 0 || (y < self.h && self.g[y as usize][x as usize])
    }
}

/// The cells of piece state `s` with its box's left column at `bx` and box
/// top row at `by` (box rows go down).
fn cells(rs: &RotationSystem, p: Piece, s: usize, bx: i32, by: i32) -> Vec<(i32, i32)> {
    let text = &rs.piece(p).states[s];
    let mut v = Vec::new();
    for (dy, line) in text.split('/').enumerate() {
        for (dx, ch) in line.chars().enumerate() {
            if ch == '#' {
                v.push((bx + dx as i32, by - dy as i32));
            }
        }
    }
    v
}

fn fits(grid: &Grid, c: &[(i32, i32)]) -> bool {
    c.iter().all(|&(x, y)| !grid.filled(x, y))
}

fn spawn(rs: &RotationSystem, p: Piece, w: i32, h: i32) -> (i32, i32) {
    let text = &rs.piece(p).states[0];
    let box_w = text.split('/').map(|l| l.len()).max().unwrap() as i32;
    let first = text.split('/').position(|l| l.contains('#')).unwrap() as i32;
    ((w - box_w) / 2, h - 1 + first)
}

/// Every placement as a sorted cell set, by brute force over positions.
fn naive_placements(
    rs: &RotationSystem,
    grid: &Grid,
    p: Piece,
    slides: bool,
) -> BTreeSet<Vec<(i32, i32)>> {
    let n = rs.piece(p).states.len();
    let (bx0, by0) = spawn(rs, p, grid.w, grid.h);
    let mut out = BTreeSet::new();
    if !fits(grid, &cells(rs, p, 0, bx0, by0)) {
        return out;
    }
    let mut seen = BTreeSet::new();
    let mut q = VecDeque::new();
    seen.insert((0usize, bx0, by0));
    q.push_back((0usize, bx0, by0));
    while let Some((s, bx, by)) = q.pop_front() {
        // Hard drop from here.
        let mut d = by;
        while fits(grid, &cells(rs, p, s, bx, d - 1)) {
            d -= 1;
        }
        let c = cells(rs, p, s, bx, d);
        if c.iter().all(|&(_, y)| y < grid.h) {
            let mut c = c;
            c.sort();
            out.insert(c);
        }
        let mut next = vec![
            ((s + 1) % n, bx, by),
            ((s + n - 1) % n, bx, by),
            (s, bx - 1, by),
            (s, bx + 1, by),
        ];
        if slides {
            next.push((s, bx, d));
        }
        for (s2, bx2, by2) in next {
            if fits(grid, &cells(rs, p, s2, bx2, by2)) && seen.insert((s2, bx2, by2)) {
                q.push_back((s2, bx2, by2));
            }
        }
    }
    out
}

/// Replays a script from spawn on the grid; the cells it locks, or why not.
fn replay(
    rs: &RotationSystem,
    grid: &Grid,
    p: Piece,
    keys: &[TetrisKey],
) -> Result<Vec<(i32, i32)>, String> {
    let n = rs.piece(p).states.len();
    let (mut bx, mut by) = spawn(rs, p, grid.w, grid.h);
    let mut s = 0usize;
    for (i, k) in keys.iter().enumerate() {
        let (s2, bx2, mut by2) = match k {
            TetrisKey::Left => (s, bx - 1, by),
            TetrisKey::Right => (s, bx + 1, by),
            TetrisKey::RotateCw => ((s + 1) % n, bx, by),
            TetrisKey::RotateCcw => ((s + n - 1) % n, bx, by),
            TetrisKey::SonicDrop | TetrisKey::HardDrop => (s, bx, by),
        };
        if matches!(k, TetrisKey::SonicDrop | TetrisKey::HardDrop) {
            while fits(grid, &cells(rs, p, s2, bx2, by2 - 1)) {
                by2 -= 1;
            }
        }
        if !fits(grid, &cells(rs, p, s2, bx2, by2)) {
            return Err(format!("key {i} {k:?} blocked"));
        }
        (s, bx, by) = (s2, bx2, by2);
        if *k == TetrisKey::HardDrop {
            if i + 1 != keys.len() {
                return Err("keys after the hard drop".into());
            }
            let mut c = cells(rs, p, s, bx, by);
            c.sort();
            return Ok(c);
        }
    }
    Err("no hard drop".into())
}

fn naive_lock(grid: &Grid, c: &[(i32, i32)]) -> Grid {
    let mut g = grid.clone();
    for &(x, y) in c {
        g.g[y as usize][x as usize] = true;
    }
    let mut rows: Vec<Vec<bool>> = g.g.into_iter().filter(|r| !r.iter().all(|&b| b)).collect();
    while rows.len() < grid.h as usize {
        rows.push(vec![false; grid.w as usize]);
    }
    Grid {
        w: grid.w,
        h: grid.h,
        g: rows,
    }
}

fn random_field(w: usize, h: usize, bits: &[u16], pile: usize) -> Field {
    let mut f = Field::new(w, h).unwrap();
    let full = ((1u32 << w) - 1) as u16;
    for (y, &b) in bits.iter().enumerate().take(pile.min(h)) {
        let mut r = b & full;
        if r == full {
            r &= !(1 << (y % w));
        }
        for x in 0..w {
            f.set(x, y, r >> x & 1 == 1);
        }
    }
    f
}

#[test]
fn fast_engine_matches_naive() {
    let rs = RotationSystem::srs();
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases: 96,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    );
    let strat = (
        4usize..=10,
        3usize..=12,
        proptest::collection::vec(any::<u16>(), 12),
        0usize..=12,
        any::<bool>(),
    );
    runner
        .run(&strat, |(w, h, bits, pile, slides)| {
            let f = random_field(w, h, &bits, pile);
            let g = gen(w, h, slides);
            let grid = Grid::from_field(&f);
            for p in Piece::ALL {
                let fast = g.placements(&f, p);
                let mut fast_set = BTreeSet::new();
                for pl in &fast {
                    let mut c: Vec<(i32, i32)> = pl
                        .cells(&g.shapes)
                        .iter()
                        .map(|&(x, y)| (x as i32, y as i32))
                        .collect();
                    c.sort();
                    // The script really reaches the placement.
                    let got = replay(&rs, &grid, p, pl.script.keys());
                    prop_assert_eq!(got.as_ref(), Ok(&c), "{:?} {:?}", p, pl);
                    // Locking matches the naive lock and clear.
                    let mut after = f;
                    g.apply(&mut after, pl).unwrap();
                    prop_assert_eq!(Grid::from_field(&after), naive_lock(&grid, &c));
                    prop_assert!(fast_set.insert(c), "duplicate placement {:?}", pl);
                }
                let naive = naive_placements(&rs, &grid, p, slides);
                prop_assert_eq!(&fast_set, &naive, "{:?} on {:?}", p, f);
            }
            Ok(())
        })
        .unwrap();
}

#[test]
fn games_are_reproducible_and_evaluator_independent() {
    let g = gen(10, 10, false);
    let setup = GameSetup {
        width: 10,
        height: 10,
        randomizer: Randomizer::Uniform,
        max_pieces: Some(300),
    };
    let mut a = Player::new(Eval::dellacherie(), SearchParams::default());
    let r1 = play_game(&g, &mut a, &setup, 42).unwrap();
    let r2 = play_game(&g, &mut a, &setup, 42).unwrap();
    assert_eq!(r1, r2);
    // Dellacherie on 10x10 clears some lines before the cap or topping out.
    assert!(r1.lines > 0);
    let mut b = Player::new(
        Eval::el_tetris(),
        SearchParams {
            preview: 1,
            beam: 4,
            expect: false,
        },
    );
    let r3 = play_game(&g, &mut b, &setup, 42).unwrap();
    assert!(r3.pieces > 0);
    let mut c = Player::new(
        Eval::dellacherie(),
        SearchParams {
            preview: 0,
            beam: 3,
            expect: true,
        },
    );
    let short = GameSetup {
        max_pieces: Some(40),
        ..setup
    };
    let r4 = play_game(&g, &mut c, &short, 42).unwrap();
    assert_eq!(r4, play_game(&g, &mut c, &short, 42).unwrap());
}

#[test]
fn placements_from_a_fallen_piece() {
    let g = gen(10, 8, false);
    let f = Field::parse(&OVERHANG).unwrap();
    for p in Piece::ALL {
        let top = g.shapes.spawn_top(p, 8);
        let bx = g.shapes.spawn_x[p.index()];
        // From the spawn position: the same placements as from spawn.
        let mut a = g.placements_from(&f, p, 0, bx, top);
        let mut b = g.placements(&f, p);
        a.sort_by_key(|pl| (pl.rotation, pl.column));
        b.sort_by_key(|pl| (pl.rotation, pl.column));
        assert_eq!(a, b, "{p}");
    }
    // A T that has fallen to box top row 2 at box column 6 (nose up in row
    // 2, flat in row 1): nose up it cannot pass the shelf (rows 2..=3,
    // columns 0..=4); turned nose down it slides under it to column 0.
    let from = g.placements_from(&f, Piece::T, 0, 6, 2);
    assert!(from.iter().all(|pl| pl.rotation != 0 || pl.column >= 4));
    let pl = from
        .iter()
        .find(|pl| pl.rotation == 2 && pl.column == 0)
        .unwrap();
    assert_eq!(pl.row, 0);
    assert_eq!(pl.script.len(), 9);
    assert_eq!(
        &pl.script.keys()[..2],
        &[TetrisKey::RotateCw, TetrisKey::RotateCw]
    );
}

// ---- the fast chooser against the plain one ---------------------------------

/// The plain one-piece choice: every placement from `placements`, scored by
/// `Eval::play`, the best by score then priority then generation order.
fn plain_choice(g: &MoveGen, eval: &Eval, f: &Field, p: Piece) -> Option<(Placement, f32)> {
    let mut best: Option<(Placement, f32, i32)> = None;
    for pl in g.placements(f, p) {
        let (r, v, _, _) = eval.play(g, f, &pl);
        let s = r + v;
        let pr = eval.priority(g, &pl);
        if best.is_none_or(|(_, bs, bp)| s > bs || (s == bs && pr > bp)) {
            best = Some((pl, s, pr));
        }
    }
    best.map(|(pl, s, _)| (pl, s))
}

/// Whole games: at every piece the player (fast path when the pile is low)
/// makes the plain choice, with the same score, for every preset.
#[test]
fn fast_choice_matches_plain_choice_in_games() {
    for (w, h) in [(10, 10), (10, 20), (6, 8)] {
        let g = gen(w, h, false);
        for name in ["dellacherie", "el-tetris", "bcts", "tuned"] {
            let eval = Eval::preset(name).unwrap();
            let mut player = Player::new(eval.clone(), SearchParams::default());
            let mut pieces = gridbot::games::tetris::PieceGen::new(Randomizer::Uniform, 11);
            let mut f = Field::new(w, h).unwrap();
            for _ in 0..400 {
                let p = pieces.next_piece();
                let plain = plain_choice(&g, &eval, &f, p);
                let d = player.choose(&g, &f, p, &[]);
                assert_eq!(
                    plain,
                    d.map(|d| (d.placement, d.score)),
                    "{name} {w}x{h} {p} on {f:?}"
                );
                let Some(d) = d else { break };
                let mut after = f;
                g.apply(&mut after, &d.placement).unwrap();
                assert_eq!(after, d.field);
                f = after;
            }
        }
    }
}

/// Exact results of short seeded games (signatures: any change to the
/// engine, the features or the tie-break shows here).
#[test]
fn seeded_game_signatures() {
    let setup = GameSetup {
        width: 10,
        height: 10,
        randomizer: Randomizer::Uniform,
        max_pieces: Some(2_000),
    };
    let g = gen(10, 10, false);
    let mut got = Vec::new();
    for model in [Model::Reach, Model::Fahey, Model::Drop] {
        let mut player = Player::new(Eval::dellacherie(), SearchParams::default());
        let r = play_game_with(model, &g, &mut player, &setup, 42).unwrap();
        got.push((r.lines, r.pieces, r.topped_out));
    }
    assert_eq!(
        got,
        vec![(799, 2000, false), (184, 475, true), (799, 2000, false)]
    );
}

#[test]
fn fahey_pieces() {
    let sh = Shapes::new(&RotationSystem::fahey(), 10).unwrap();
    let counts: Vec<usize> = Piece::ALL.iter().map(|&p| sh.of(p).len()).collect();
    assert_eq!(counts, vec![2, 1, 4, 2, 2, 4, 4]);
    // The origin (box column 2) spawns in column 1 + 10/2 (1-based).
    assert!(sh.spawn_x.iter().all(|&x| x + 2 == 5));
    // Orientation 1 has no cell above the origin row: the spawn cells are
    // the top row (and the one below).
    for p in Piece::ALL {
        assert_eq!(sh.spawn_top(p, 20), 20, "{p}");
    }
}
