//! Match-3 rules, planner and policy: hand-checked boards and count tables,
//! cascades, the fast board against the naive reference under proptest, the
//! exact planner against plain exhaustive search, and exact signatures.

use gridbot::act::Move;
use gridbot::board::{Board, Cell};
use gridbot::games::match3::live::{RandomRefill, SplitMix64};
use gridbot::games::match3::rules::naive;
use gridbot::games::match3::{
    choose, plan, MBoard, Match3, NoRefill, PlanParams, Policy, PolicyParams, Scoring, Swap,
};
use gridbot::games::{Budget, Game, NeverStop};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

fn b(s: &str) -> Board {
    s.parse().expect("test board")
}

fn m(s: &str) -> MBoard<64> {
    MBoard::from_board(&b(s)).expect("fits")
}

fn unbounded() -> Budget<'static> {
    Budget {
        stop: &NeverStop,
        width: None,
        nodes: None,
        threads: 1,
    }
}

fn legal_count(s: &str) -> usize {
    let mut v = Vec::new();
    m(s).swaps(&mut v);
    v.len()
}

/// First boards of `../shared/bench/match3.txt` (8x8, 6 colours) and
/// `match3-7.txt` (7 colours).
const BENCH6: [&str; 3] = [
    "33646523/11636461/41525434/46414653/34516163/53253442/43442124/31212262",
    "36355654/61123211/46114154/33655116/25542431/45313663/24511622/26633556",
    "23134134/56243126/34511255/53124226/64143425/12346634/31626423/14423344",
];
const BENCH7: [&str; 2] = [
    "54131723/16422541/33551217/23153257/65441366/33515361/27717634/15241766",
    "44775162/77214431/27747524/21244357/53471562/41341331/43245544/71457756",
];

#[test]
fn hand_counted_legal_swaps() {
    // One row: only swapping the last two makes 111.
    assert_eq!(legal_count("1121"), 1);
    // One column, the same.
    assert_eq!(legal_count("1/1/2/1"), 1);
    // Checkerboard: only the four swaps with the centre make a line of 2s.
    assert_eq!(legal_count("121/212/121"), 4);
    // Holes never swap and never match.
    assert_eq!(legal_count("11?1"), 0);
    assert_eq!(legal_count("1121/????"), 1);
    // No two of a colour in reach: nothing.
    assert_eq!(legal_count("123/456/789"), 0);
    // Swapping two equal gems is never a move.
    assert_eq!(legal_count("111"), 0);
}

/// Count table (perft-style) of the bench boards, checked against the naive rules.
#[test]
fn legal_swap_count_table() {
    let counts: Vec<usize> = BENCH6
        .iter()
        .chain(&BENCH7)
        .map(|s| legal_count(s))
        .collect();
    let naive_counts: Vec<usize> = BENCH6
        .iter()
        .chain(&BENCH7)
        .map(|s| naive::legal_swaps(&b(s)).len())
        .collect();
    assert_eq!(counts, naive_counts);
    assert_eq!(counts, COUNT_TABLE);
}

const COUNT_TABLE: [usize; 5] = [13, 14, 13, 10, 18];

#[test]
fn crossing_lines_count_twice_their_cell_once() {
    let mut x = m("123/132/411/124");
    let s = Swap::from_cells(Cell::new(2, 0), Cell::new(3, 0), 4, 3).expect("neighbours");
    let o = x
        .apply(s, &Scoring::gweled(1), &mut NoRefill)
        .expect("legal");
    assert_eq!((o.cells, o.lines, o.waves, o.points), (5, 2, 1, 20));
    assert_eq!(x.to_board().to_string(), "???/?23/?32/424");
}

#[test]
fn cascade_scores_each_wave() {
    let start = "234/143/134/212";
    let s = Swap::from_cells(Cell::new(3, 0), Cell::new(3, 1), 4, 3).expect("neighbours");
    let mut x = m(start);
    let o = x.apply(s, &Scoring::CELLS, &mut NoRefill).expect("legal");
    assert_eq!((o.cells, o.lines, o.waves, o.points), (6, 2, 2, 6));
    assert_eq!(x.to_board().to_string(), "???/?34/?43/?34");
    // +50% on the second wave: 3 + 4 (4.5 rounded down).
    let mut y = m(start);
    let o = y
        .apply(s, &Scoring::cascade(50), &mut NoRefill)
        .expect("legal");
    assert_eq!(o.points, 7);
    // Gweled: two lines of 3 at multiplier 2.
    let mut z = m(start);
    assert_eq!(
        z.apply(s, &Scoring::gweled(2), &mut NoRefill)
            .map(|o| o.points),
        Some(40)
    );
    // Through the Game trait, as a Move.
    let game = Match3::new();
    let (after, pts) = game
        .apply(&b(start), &Move::Swap(Cell::new(3, 1), Cell::new(3, 0)))
        .expect("legal either order");
    assert_eq!((after.to_string().as_str(), pts), ("???/?34/?43/?34", 6));
    assert!(game
        .apply(&b(start), &Move::Swap(Cell::new(0, 0), Cell::new(0, 1)))
        .is_err());
    assert!(game
        .apply(&b(start), &Move::Swap(Cell::new(0, 0), Cell::new(1, 1)))
        .is_err());
}

#[test]
fn refill_enters_from_the_top_lowest_first() {
    struct Seq(u8);
    impl gridbot::games::match3::rules::Refill for Seq {
        fn next(&mut self, _col: usize) -> u8 {
            self.0 += 1;
            self.0
        }
    }
    // Clearing the bottom three of a column: refills 1, 2, 3 land bottom-up.
    let mut x = m("5/7/8/9/2/2/6");
    let s = Swap::from_cells(Cell::new(5, 0), Cell::new(6, 0), 7, 1).expect("neighbours");
    assert!(x.apply(s, &Scoring::CELLS, &mut Seq(0)).is_none());
    let mut y = m("51/73/84/92/21/23");
    let s = Swap::from_cells(Cell::new(3, 0), Cell::new(3, 1), 6, 2).expect("neighbours");
    let mut refill = Seq(0);
    let o = y.apply(s, &Scoring::CELLS, &mut refill).expect("legal");
    // Column 0 gets 2,2,2 at rows 3..5, which clear; 5,7,8 fall to rows 3..5
    // and the refills 1, 2, 3 fill rows 2, 1, 0.
    assert_eq!((o.waves, o.cells), (1, 3));
    assert_eq!(y.to_board().to_string(), "31/23/14/59/71/83");
}

fn pinned_runner(cases: u32) -> TestRunner {
    TestRunner::new_with_rng(
        Config {
            cases,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &[11; 32]),
    )
}

/// Boards of 1-9 rows and columns, 2-6 colours, a few holes.
fn arb_board() -> impl Strategy<Value = Board> {
    (1usize..=8, 1usize..=8, 2u8..=6).prop_flat_map(|(r, c, k)| {
        proptest::collection::vec(prop_oneof![20 => 0..k, 1 => Just(254u8)], r * c)
            .prop_map(move |cells| Board::from_cells(r, c, cells))
    })
}

fn scorings() -> [Scoring; 3] {
    [Scoring::CELLS, Scoring::gweled(3), Scoring::cascade(50)]
}

/// Every legal swap, then random play with random refill: fast and naive agree
/// on the moves, the boards and the outcomes.
#[test]
fn fast_board_matches_naive_reference() {
    let mut runner = pinned_runner(400);
    runner
        .run(
            &(
                arb_board(),
                proptest::collection::vec(0usize..1000, 12),
                0u64..1000,
            ),
            |(board, picks, seed)| {
                let mut slow = board.clone();
                let mut fast = MBoard::<64>::from_board(&board).expect("fits");
                let colours = [0u8, 1, 2, 3];
                let mut rs = SplitMix64::new(seed);
                let mut rf = SplitMix64::new(seed);
                for (i, pick) in picks.into_iter().enumerate() {
                    let scoring = scorings()[i % 3];
                    let moves = naive::legal_swaps(&slow);
                    let mut fm = Vec::new();
                    fast.swaps(&mut fm);
                    let fm_cells: Vec<(Cell, Cell)> =
                        fm.iter().map(|s| s.cells(slow.cols())).collect();
                    prop_assert_eq!(&moves, &fm_cells, "moves on {}", slow);
                    for &(x, y) in &moves {
                        let (nb, no) = naive::apply(&slow, x, y, &scoring, &mut NoRefill)
                            .expect("naive says legal");
                        let mut f = fast;
                        let s = Swap::from_cells(x, y, slow.rows(), slow.cols()).expect("adj");
                        let fo = f
                            .apply(s, &scoring, &mut NoRefill)
                            .expect("fast says legal");
                        prop_assert_eq!(no, fo);
                        prop_assert_eq!(f.to_board(), nb);
                    }
                    if moves.is_empty() {
                        break;
                    }
                    let (x, y) = moves[pick % moves.len()];
                    let (nb, no) = naive::apply(
                        &slow,
                        x,
                        y,
                        &scoring,
                        &mut RandomRefill {
                            rng: &mut rs,
                            colours: &colours,
                        },
                    )
                    .expect("legal");
                    let s = Swap::from_cells(x, y, slow.rows(), slow.cols()).expect("adj");
                    let before = fast.colour_counts();
                    let fo = fast
                        .apply(
                            s,
                            &scoring,
                            &mut RandomRefill {
                                rng: &mut rf,
                                colours: &colours,
                            },
                        )
                        .expect("legal");
                    prop_assert_eq!(no, fo);
                    prop_assert_eq!(fast.to_board(), nb.clone());
                    // Stable after a move, and at least 3 cells went.
                    let mut again = fast;
                    prop_assert_eq!(again.resolve(&scoring, &mut NoRefill).cells, 0);
                    prop_assert!(fo.cells >= 3 && fo.waves >= 1);
                    let _ = before;
                    slow = nb;
                }
                Ok(())
            },
        )
        .expect("fast and naive agree");
}

/// With no refill, gems are conserved: what is left plus what cleared.
#[test]
fn no_refill_conserves_gems() {
    let mut runner = pinned_runner(200);
    runner
        .run(&arb_board(), |board| {
            let x = MBoard::<64>::from_board(&board).expect("fits");
            let mut v = Vec::new();
            x.swaps(&mut v);
            let before: u16 = x.colour_counts().iter().sum();
            for s in v {
                let mut y = x;
                let o = y.apply_legal(s, &Scoring::CELLS, &mut NoRefill);
                let after: u16 = y.colour_counts().iter().sum();
                prop_assert_eq!(after as usize + o.cells, before as usize);
                prop_assert_eq!(o.points as usize, o.cells);
            }
            Ok(())
        })
        .expect("conserved");
}

/// Replays a plan with the naive rules; returns the total.
fn replay(board: &Board, swaps: &[Swap], scoring: &Scoring) -> i64 {
    let mut cur = board.clone();
    let mut total = 0;
    for s in swaps {
        let (x, y) = s.cells(board.cols());
        let (nb, o) = naive::apply(&cur, x, y, scoring, &mut NoRefill).expect("plan is legal");
        total += o.points;
        cur = nb;
    }
    total
}

/// The exact planner finds exactly the optimum of plain exhaustive search.
#[test]
fn exact_planner_equals_exhaustive_search() {
    let mut runner = pinned_runner(60);
    let strat = (4usize..=6, 4usize..=6, 3u8..=5, 1usize..=3, 0usize..3).prop_flat_map(
        |(r, c, k, x, sc)| {
            proptest::collection::vec(0..k, r * c)
                .prop_map(move |cells| (Board::from_cells(r, c, cells), x, sc))
        },
    );
    runner
        .run(&strat, |(board, x, sc)| {
            let scoring = scorings()[sc];
            let mb = MBoard::<64>::from_board(&board).expect("fits");
            let exact = plan(&mb, &scoring, &PlanParams::exact(x), &unbounded());
            let plain = plan(&mb, &scoring, &PlanParams::exhaustive(x), &unbounded());
            prop_assert_eq!(exact.score, plain.score, "board {} x {}", board, x);
            prop_assert!(exact.exact && plain.exact);
            prop_assert!(exact.nodes <= plain.nodes + plain.nodes / 2 + 50);
            prop_assert!(exact.swaps.len() <= x);
            prop_assert_eq!(replay(&board, &exact.swaps, &scoring), exact.score);
            prop_assert_eq!(exact.rewards.iter().sum::<i64>(), exact.score);
            Ok(())
        })
        .expect("exact = exhaustive");
}

/// Exact signatures: optimum and node count on fixed boards at X = 3.
#[test]
fn planner_signatures() {
    let sig: Vec<(i64, u64)> = BENCH6
        .iter()
        .chain(&BENCH7)
        .map(|s| {
            let p = plan(&m(s), &Scoring::CELLS, &PlanParams::exact(3), &unbounded());
            assert!(p.exact);
            assert_eq!(replay(&b(s), &p.swaps, &Scoring::CELLS), p.score);
            (p.score, p.nodes)
        })
        .collect();
    assert_eq!(sig, SIGNATURES);
}

const SIGNATURES: [(i64, u64); 5] = [(22, 958), (21, 786), (20, 699), (22, 533), (25, 1360)];

/// The planner stops on its node cap and says it is not exact.
#[test]
fn planner_respects_node_cap() {
    let budget = Budget {
        nodes: Some(50),
        ..unbounded()
    };
    let p = plan(
        &m(BENCH6[0]),
        &Scoring::CELLS,
        &PlanParams::exact(5),
        &budget,
    );
    assert!(!p.exact);
    assert!(p.nodes < 50 + 200);
}

#[test]
fn policies_pick_legal_swaps_deterministically() {
    let board = m(BENCH6[1]);
    let mut legal = Vec::new();
    board.swaps(&mut legal);
    let g = choose(&board, &Scoring::CELLS, &Policy::Greedy).expect("a move");
    let best_imm = legal
        .iter()
        .map(|&s| {
            let mut c = board;
            c.apply_legal(s, &Scoring::CELLS, &mut NoRefill).points
        })
        .max()
        .expect("moves");
    assert_eq!(g.immediate, best_imm);
    let p = Policy::Expected(PolicyParams::fast());
    let e1 = choose(&board, &Scoring::CELLS, &p).expect("a move");
    let e2 = choose(&board, &Scoring::CELLS, &p).expect("a move");
    assert_eq!(e1, e2);
    assert!(legal.contains(&e1.swap));
    assert!(choose(&m("123/456/789"), &Scoring::CELLS, &p).is_none());
    assert!(Policy::preset("nope").is_err());
    assert!(Scoring::preset("gweled:3").is_ok_and(|s| s == Scoring::gweled(3)));
    assert!(Scoring::preset("gweled:x").is_err());
}
