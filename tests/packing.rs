//! Packing: the known pentomino counts, the two exact-cover engines against
//! each other on random small problems (proptest, pinned seed), every answer
//! checked to be an exact cover, multiplicity and secondary items respected,
//! placement counts of known shapes, and the chip planner end to end.

use std::collections::BTreeSet;

use gridbot::packing::gfl;
use gridbot::packing::plan::{plan, PlanParams};
use gridbot::packing::puzzles::{pentomino_pieces, puzzle, PUZZLES};
use gridbot::packing::shape::{placements, Region, Shape};
use gridbot::packing::tiling::{Piece, Tiling};
use gridbot::packing::{ExactCover, Halt, Limits};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

fn pinned_runner(cases: u32) -> TestRunner {
    TestRunner::new_with_rng(
        Config {
            cases,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &[11; 32]),
    )
}

#[test]
fn pentomino_counts_up_to_symmetry() {
    for &(name, reduced, _) in &PUZZLES {
        let t = puzzle(name, false).expect("known puzzle");
        let (sols, out) = t
            .bit_problem()
            .expect("fits")
            .collect(&Limits::none(), 10_000);
        assert_eq!(out.solutions, reduced, "{name}");
        assert_eq!(out.halt, Halt::Complete);
        for s in &sols {
            assert!(t.is_exact_cover(s), "{name}: {}", t.render(s));
        }
        // No two solutions are the same.
        let distinct: BTreeSet<_> = sols.iter().collect();
        assert_eq!(distinct.len(), sols.len());
    }
}

#[test]
fn pentomino_counts_all_solutions() {
    for &(name, reduced, all) in &PUZZLES {
        for (sym, want) in [(true, all), (false, reduced)] {
            // The normal and mirrored scans split the root piece's placements.
            let t = puzzle(name, sym).expect("known puzzle");
            let split = t.split_bit_problems().expect("fits");
            let n: u64 = split
                .iter()
                .map(|p| p.count(&Limits::none()).solutions)
                .sum();
            assert_eq!(n, want, "{name} all={sym}");
        }
    }
    // One unsplit problem gives the same.
    let t = puzzle("pentomino-4x15", true).expect("known");
    assert_eq!(
        t.bit_problem()
            .expect("fits")
            .count(&Limits::none())
            .solutions,
        1472
    );
}

#[test]
fn dancing_links_agrees_on_a_real_puzzle() {
    // 3x20: 2 solutions up to symmetry, 8 in all, with both engines.
    for all in [false, true] {
        let t = puzzle("pentomino-3x20", all).expect("known");
        let (mut a, _) = t.bit_problem().expect("fits").collect(&Limits::none(), 100);
        let (mut b, _) = t.dlx_problem().collect(&Limits::none(), 100);
        a.sort();
        b.sort();
        assert_eq!(a, b);
        assert_eq!(a.len(), if all { 8 } else { 2 });
    }
}

#[test]
fn fixed_orientation_counts() {
    let pieces = pentomino_pieces();
    let per: Vec<(String, usize)> = pieces
        .iter()
        .map(|p| (p.name.clone(), p.shape.orientations(true).len()))
        .collect();
    let total: usize = per.iter().map(|p| p.1).sum();
    assert_eq!(total, 63);
    let of = |n: &str| per.iter().find(|p| p.0 == n).map(|p| p.1);
    assert_eq!(of("F"), Some(8));
    assert_eq!(of("X"), Some(1));
    assert_eq!(of("I"), Some(2));
    assert_eq!(of("T"), Some(4));
    // Placements in the 6x10 box: each fixed form at every translation.
    let region = Region::rectangle(6, 10);
    let f = &pieces[0].shape;
    assert_eq!(placements(f, &region, true).len(), 8 * 4 * 8);
    // The 28 GFL chip shapes turn but never flip: 5-cell chips are the 63
    // fixed pentominoes split by chirality; 10 hexomino chips.
    let shapes = gfl::chip_shapes().expect("chips.toml");
    let fives: usize = shapes
        .iter()
        .filter(|s| s.shape.len() == 5)
        .map(|s| s.shape.orientations(false).len())
        .sum();
    assert_eq!(fives, 63);
    let sixes: usize = shapes
        .iter()
        .filter(|s| s.shape.len() == 6)
        .map(|s| s.shape.orientations(false).len())
        .sum();
    // 6O, 6I, 6Z, 6Zm: 2 each; 6A, 6C, 6D, 6R, 6T, 6Y: 4 each.
    assert_eq!(sixes, 4 * 2 + 6 * 4);
}

/// Small pieces for random problems.
const SMALL: [&str; 7] = ["##", "###", "##/#.", "####", "##/##", "###/.#.", "##./.##"];

fn random_tiling() -> impl Strategy<Value = Tiling> {
    (
        2usize..=5,
        2usize..=6,
        prop::collection::vec(any::<bool>(), 30),
        prop::collection::vec((0usize..SMALL.len(), 1u32..=3, any::<bool>()), 1..=4),
        prop::collection::vec(0u64..16, 200),
    )
        .prop_map(|(rows, cols, holes, kinds, tags)| {
            let mut region = Region::rectangle(rows, cols);
            for (i, &h) in holes.iter().enumerate().take(rows * cols) {
                // About one cell in eight removed, never the first.
                if h && i % 4 == 3 && i > 0 {
                    region.remove(i / cols, i % cols);
                }
            }
            let pieces = kinds
                .iter()
                .enumerate()
                .map(|(i, &(k, count, refl))| Piece {
                    name: format!("{i}"),
                    shape: Shape::parse(SMALL[k]).expect("small shape"),
                    count,
                    reflections: refl,
                })
                .collect();
            let mut t = Tiling::new(region, pieces);
            // Random secondary tags on some options (at most once each).
            for (o, &tag) in t.options.iter_mut().zip(&tags) {
                if tag < 4 {
                    o.tags = 1 << tag;
                }
            }
            t
        })
}

#[test]
fn engines_agree_on_random_problems() {
    let mut runner = pinned_runner(300);
    runner
        .run(&random_tiling(), |t| {
            let limits = Limits::none();
            let (mut a, oa) = t.bit_problem().expect("small").collect(&limits, 5000);
            let (mut b, ob) = t.dlx_problem().collect(&limits, 5000);
            prop_assert_eq!(oa.halt == Halt::Complete, ob.halt == Halt::Complete);
            if oa.halt == Halt::Complete {
                a.sort();
                b.sort();
                prop_assert_eq!(&a, &b);
            }
            for s in a.iter().chain(&b) {
                // Exact cover, piece counts and tags all checked here.
                prop_assert!(t.is_exact_cover(s), "{}", t.render(s));
            }
            Ok(())
        })
        .expect("engines agree");
}

#[test]
fn multiplicity_and_secondary_items() {
    // A 2x4 box by dominoes: 5 tilings; with at most 3 dominoes, none.
    let domino = |count| Piece {
        name: "D".into(),
        shape: Shape::parse("##").expect("domino"),
        count,
        reflections: true,
    };
    let t = Tiling::new(Region::rectangle(2, 4), vec![domino(4)]);
    assert_eq!(
        t.bit_problem()
            .expect("fits")
            .count(&Limits::none())
            .solutions,
        5
    );
    assert_eq!(t.dlx_problem().count(&Limits::none()).solutions, 5);
    let t = Tiling::new(Region::rectangle(2, 4), vec![domino(3)]);
    assert_eq!(
        t.bit_problem()
            .expect("fits")
            .count(&Limits::none())
            .solutions,
        0
    );
    assert_eq!(t.dlx_problem().count(&Limits::none()).solutions, 0);
    // One tag (a secondary item) on every vertical placement: at most one
    // vertical domino.
    let mut t = Tiling::new(Region::rectangle(2, 4), vec![domino(4)]);
    for o in &mut t.options {
        if o.placement.cells[0].col == o.placement.cells[1].col {
            o.tags = 1;
        }
    }
    // A 2x4 tiling is a row of vertical dominoes (width 1) and stacked
    // horizontal pairs (width 2): with one vertical the pairs must fill width
    // 3, impossible; so only the all-horizontal tiling is left.
    assert_eq!(
        t.bit_problem()
            .expect("fits")
            .count(&Limits::none())
            .solutions,
        1
    );
    assert_eq!(t.dlx_problem().count(&Limits::none()).solutions, 1);
}

#[test]
fn limits_stop_the_search() {
    let t = puzzle("pentomino-6x10", true).expect("known");
    let out = t.bit_problem().expect("fits").count(&Limits::nodes(1000));
    assert_eq!(out.halt, Halt::Nodes);
    let (first, out) = t.dlx_problem().first(&Limits::none());
    assert_eq!(out.halt, Halt::Visitor);
    let first = first.expect("6x10 has solutions");
    assert!(t.is_exact_cover(&first));
}

#[test]
fn planner_respects_the_inventory() {
    let shapes = gfl::chip_shapes().expect("chips.toml");
    let text = include_str!("../data/gfl/example-inventory.toml");
    let chips = gfl::parse_inventory(text, "example", &shapes).expect("example inventory");
    assert!(chips.len() >= 200);
    let circuit = gfl::circuit("bgm71").expect("known");
    let params = PlanParams {
        top: 5,
        ..PlanParams::default()
    };
    let p = plan(
        &circuit,
        &shapes,
        &chips,
        &params,
        &Limits::none(),
        &mut |_| {},
    )
    .expect("plans");
    assert_eq!(p.fillings.len(), 5);
    let region = circuit.full();
    for w in p.fillings.windows(2) {
        assert!(w[0].score >= w[1].score);
    }
    for f in &p.fillings {
        // Every circuit cell covered exactly once, every chip used once.
        let mut cells: Vec<_> = f.chips.iter().flat_map(|c| c.cells.clone()).collect();
        cells.sort();
        let want: Vec<_> = region.cells().collect();
        assert_eq!(cells, want);
        let ids: BTreeSet<_> = f.chips.iter().map(|c| c.chip).collect();
        assert_eq!(ids.len(), f.chips.len());
        for pc in &f.chips {
            let shape = &shapes[chips[pc.chip].shape].shape;
            let placed = Shape::from_cells(pc.cells.iter().map(|c| (c.row as i32, c.col as i32)))
                .expect("cells");
            assert!(shape.orientations(false).iter().any(|o| o.shape == placed));
        }
        let mut sums = [0u32; 4];
        for pc in &f.chips {
            for (v, add) in sums.iter_mut().zip(chips[pc.chip].stats) {
                *v += add;
            }
        }
        assert_eq!(sums, f.stats);
    }
    // A one-chip inventory cannot fill a 36-cell circuit.
    let p = plan(
        &circuit,
        &shapes,
        &chips[..1],
        &params,
        &Limits::none(),
        &mut |_| {},
    )
    .expect("plans");
    assert!(p.fillings.is_empty());
}
