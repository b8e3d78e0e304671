//! Collapse rules and solver: hand-checked boards, the fast board against the
//! naive reference under proptest, and exact solver signatures.

use ethnum::U256;
use gridbot::act::Move;
use gridbot::board::Cell;
use gridbot::board::{Board, EMPTY};
use gridbot::games::collapse::endgame::improve;
use gridbot::games::collapse::mask::Mask;
use gridbot::games::collapse::rules::naive;
use gridbot::games::collapse::solver::SolverBoard;
use gridbot::games::collapse::{
    solve, BitBoard, CBoard, Census, Collapse, Group, Scoring, SolverParams,
};
use gridbot::games::{Budget, Game, NeverStop};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

fn b(s: &str) -> Board {
    s.parse().expect("test board")
}

#[test]
fn removes_group_applies_gravity_and_closes_columns() {
    // The 1s in column 0 form a group of 3; column 0 empties and closes left.
    let start = b("1.2/1.3/123");
    let game = Collapse::new(Scoring::PopStar);
    let (after, pts) = game
        .apply(&start, &Move::Click(Cell::new(2, 0)))
        .expect("legal");
    assert_eq!(pts, 5 * 9);
    assert_eq!(after.to_string(), ".2./.3./23.");
}

#[test]
fn hand_checked_moves() {
    let game = Collapse::new(Scoring::SameGame);
    // Lone cell: illegal.
    assert!(game
        .apply(&b("12/21"), &Move::Click(Cell::new(0, 0)))
        .is_err());
    // Removing the middle column's pair shifts the right column left.
    let (after, pts) = game
        .apply(&b("312/313"), &Move::Click(Cell::new(0, 1)))
        .expect("legal");
    assert_eq!(after.to_string(), "32./33.");
    assert_eq!(pts, 0); // (2-2)^2
                        // Cells fall into the hole.
    let (after, _) = game
        .apply(&b("2/1/1/1/3"), &Move::Click(Cell::new(1, 0)))
        .expect("legal");
    assert_eq!(after.to_string(), "./././2/3");
}

#[test]
fn scoring_formulas() {
    assert_eq!(Scoring::PopStar.group_points(2), 20);
    assert_eq!(Scoring::PopStar.group_points(10), 500);
    assert_eq!(Scoring::PopStar.end_bonus(0), 2000);
    assert_eq!(Scoring::PopStar.end_bonus(9), 2000 - 20 * 81);
    assert_eq!(Scoring::PopStar.end_bonus(10), 0);
    assert_eq!(Scoring::SameGame.group_points(2), 0);
    assert_eq!(Scoring::SameGame.group_points(7), 25);
    assert_eq!(Scoring::SameGame.end_bonus(0), 1000);
    assert_eq!(Scoring::SameGame.end_bonus(1), 0);
}

#[test]
fn floating_and_unread_boards_are_refused() {
    assert!(CBoard::<160>::from_board(&b("1./.1")).is_err());
    assert!(CBoard::<160>::from_board(&b("1?/11")).is_err());
    assert!(CBoard::<160>::from_board(&b("../.1")).is_err()); // empty column left of a filled one
    assert!(CBoard::<160>::from_board(&b("0./10")).is_ok()); // 0 is empty in collapse
}

fn arb_board() -> impl Strategy<Value = Board> {
    arb_board_rows(8)
}

/// Random boards of 2 to `max_rows` rows and 2 to 8 columns.
fn arb_board_rows(max_rows: usize) -> impl Strategy<Value = Board> {
    arb_board_sized(2..=max_rows, 2..=8)
}

fn arb_board_sized(
    rows: std::ops::RangeInclusive<usize>,
    cols: std::ops::RangeInclusive<usize>,
) -> impl Strategy<Value = Board> {
    (rows, cols, 2u8..6).prop_flat_map(|(rows, cols, k)| {
        proptest::collection::vec(1u8..=k, rows * cols)
            .prop_map(move |cells| Board::from_cells(rows, cols, cells))
    })
}

fn pinned_runner(cases: u32) -> TestRunner {
    TestRunner::new_with_rng(
        Config {
            cases,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]),
    )
}

/// Plays random legal moves with both implementations and compares after each.
#[test]
fn fast_board_matches_naive_reference() {
    let mut runner = pinned_runner(300);
    runner
        .run(
            &(arb_board(), proptest::collection::vec(0usize..1000, 40)),
            |(board, picks)| {
                let mut slow = board.clone();
                let mut fast = CBoard::<160>::from_board(&board).expect("fits");
                let colours_before = fast.colour_counts();
                let mut removed = [0u16; 10];
                for pick in picks {
                    let moves = naive::moves(&slow);
                    let mut groups = Vec::new();
                    fast.groups(&mut groups);
                    let fast_moves = groups.iter().filter(|g| g.size >= 2).count();
                    prop_assert_eq!(moves.len(), fast_moves, "move count on {}", slow);
                    // Every group, lone cells included, has the naive size, and
                    // together they cover every filled cell once.
                    for g in &groups {
                        let cell = fast.cell_of(g.rep);
                        let naive_group = naive::group(&slow, cell.row, cell.col);
                        prop_assert_eq!(
                            naive_group.len(),
                            g.size as usize,
                            "group at {:?} on {}",
                            cell,
                            slow
                        );
                        prop_assert_eq!(slow.get(cell.row, cell.col), g.colour);
                    }
                    let covered: usize = groups.iter().map(|g| g.size as usize).sum();
                    prop_assert_eq!(covered, slow.filled_count());
                    prop_assert_eq!(fast.has_move(), !moves.is_empty());
                    if moves.is_empty() {
                        break;
                    }
                    let (r, c) = moves[pick % moves.len()];
                    let colour = slow.get(r, c);
                    let n_slow = naive::play(&mut slow, r, c);
                    let idx = fast.index_of(Cell::new(r, c)).expect("inside");
                    let n_fast = fast.remove_group(idx);
                    prop_assert_eq!(n_slow as u32, n_fast);
                    removed[colour as usize] += n_fast as u16;
                    prop_assert_eq!(fast.to_board(), slow.clone());
                    // No floating cells: every empty cell has only empties above it.
                    for col in 0..slow.cols() {
                        for row in 1..slow.rows() {
                            if slow.get(row, col) == EMPTY {
                                prop_assert_eq!(slow.get(row - 1, col), EMPTY);
                            }
                        }
                    }
                }
                // Cells are conserved: what is left plus what was removed is what we had.
                let after = fast.colour_counts();
                for c in 1..10 {
                    prop_assert_eq!(after[c] + removed[c], colours_before[c]);
                }
                Ok(())
            },
        )
        .expect("fast and naive agree");
}

/// The bit board lists the same groups, lone cells and boards as the byte
/// board under random play, and the solver makes the same search on both.
fn bit_board_agrees<M: Mask>(board: &Board, picks: &[usize]) -> Result<(), TestCaseError> {
    let mut bytes = CBoard::<400>::from_board(board).expect("fits");
    let mut bits = BitBoard::<5, M>::from_board(board).expect("fits");
    let (mut g1, mut g2) = (Vec::new(), Vec::new());
    let (mut c1, mut c2) = (Census::default(), Census::default());
    let mut found = Vec::new();
    for &pick in picks {
        bytes.census(&mut g1, &mut c1);
        bits.census_masks(&mut g2, &mut c2, &mut found);
        prop_assert_eq!(c1, c2, "census on {}", bytes.to_board());
        prop_assert_eq!(g1.len(), g2.len());
        for (a, b) in g1.iter().zip(&g2) {
            prop_assert_eq!(bytes.cell_of(a.rep), bits.cell_of(b.rep));
            prop_assert_eq!((a.size, a.colour), (b.size, b.colour));
        }
        prop_assert_eq!(bytes.has_move(), bits.has_move());
        prop_assert_eq!(bytes.remaining(), bits.remaining());
        if g1.is_empty() {
            break;
        }
        let k = pick % g1.len();
        let n1 = bytes.remove_group(g1[k].rep);
        let parent = bits.clone();
        let n2 = bits.remove_group(g2[k].rep);
        prop_assert_eq!(n1, n2);
        prop_assert_eq!(bytes.to_board(), bits.to_board());
        // Removing the group by the mask its census found makes the same
        // child (what the solver does).
        let mut by_mask = parent.clone();
        prop_assert_eq!(by_mask.remove_found(&found, k), n2);
        prop_assert_eq!(&by_mask, &bits);
        // The child's census from its parent's groups equals the census
        // from scratch (groups compared by size and colour).
        let (mut g3, mut g4) = (Vec::new(), Vec::new());
        let (mut c3, mut c4) = (Census::default(), Census::default());
        parent.child_census(&found, k, &bits, &mut g3, &mut c3);
        bits.census_any_order(&mut g4, &mut c4);
        prop_assert_eq!(c3, c4);
        let key = |g: &Vec<Group>| {
            let mut v: Vec<(u16, u8)> = g.iter().map(|g| (g.size, g.colour)).collect();
            v.sort_unstable();
            v
        };
        prop_assert_eq!(key(&g3), key(&g4), "child of {}", parent.to_board());
    }
    for scoring in [Scoring::PopStar, Scoring::SameGame] {
        let p = SolverParams::preset(scoring);
        let root1 = CBoard::<400>::from_board(board).expect("fits");
        let root2 = BitBoard::<5, M>::from_board(board).expect("fits");
        let s1 = solve(&root1, scoring, &p, &Budget::width(8));
        let s2 = solve(&root2, scoring, &p, &Budget::width(8));
        prop_assert_eq!((s1.score, s1.stats.nodes), (s2.score, s2.stats.nodes));
        prop_assert_eq!(s1.moves, s2.moves);
    }
    Ok(())
}

#[test]
fn bit_board_matches_byte_board() {
    let mut runner = pinned_runner(300);
    runner
        .run(
            // Up to 10 rows: PopStar's stride has code of its own.
            &(
                arb_board_rows(10),
                proptest::collection::vec(0usize..1000, 40),
            ),
            |(board, picks)| bit_board_agrees::<u128>(&board, &picks),
        )
        .expect("bit and byte boards agree");
}

/// The 256-bit board on boards too large for 128 bits (up to 15x15).
#[test]
fn wide_bit_board_matches_byte_board() {
    let mut runner = pinned_runner(120);
    runner
        .run(
            &(
                arb_board_sized(2..=15, 9..=15),
                proptest::collection::vec(0usize..1000, 80),
            ),
            |(board, picks)| bit_board_agrees::<U256>(&board, &picks),
        )
        .expect("256-bit and byte boards agree");
}

#[test]
fn bit_board_refuses_what_it_cannot_hold() {
    assert!(BitBoard::<5>::from_board(&b("1./.1")).is_err());
    assert!(BitBoard::<5>::from_board(&b("1?/11")).is_err());
    assert!(BitBoard::<5>::from_board(&b("123456/123456")).is_err()); // six colours
    assert!(BitBoard::<5>::from_board(&b("12345/12345")).is_ok());
    let tall = Board::new(15, 15, 1); // 15 x 16 bits
    assert!(BitBoard::<5>::from_board(&tall).is_err());
    assert!(BitBoard::<5, U256>::from_board(&tall).is_ok());
    assert!(BitBoard::<5, U256>::from_board(&Board::new(16, 16, 1)).is_err()); // 16 x 17
    assert!(BitBoard::<5, U256>::from_board(&Board::new(15, 16, 1)).is_ok()); // 16 x 16
    assert!(BitBoard::<5>::from_board(&Board::new(10, 11, 1)).is_ok()); // 11 x 11 = 121 bits
}

/// The solver's reported score equals replaying its moves with the naive rules.
#[test]
fn solver_score_matches_naive_replay() {
    let mut runner = pinned_runner(40);
    for scoring in [Scoring::PopStar, Scoring::SameGame] {
        runner
            .run(&arb_board(), |board| {
                let cb = CBoard::<160>::from_board(&board).expect("fits");
                let sol = solve(
                    &cb,
                    scoring,
                    &SolverParams::preset(scoring),
                    &Budget::width(8),
                );
                let mut slow = board.clone();
                let mut total = 0i64;
                for (mv, expected) in sol.moves.iter().zip(&sol.boards) {
                    let Move::Click(cell) = mv else {
                        panic!("collapse moves are clicks")
                    };
                    let n = naive::play(&mut slow, cell.row, cell.col);
                    prop_assert!(n >= 2, "illegal move {:?}", cell);
                    let n = n as i64;
                    total += match scoring {
                        Scoring::PopStar => 5 * n * n,
                        Scoring::SameGame => (n - 2) * (n - 2),
                    };
                    prop_assert_eq!(&slow, expected);
                }
                prop_assert!(
                    naive::moves(&slow).is_empty(),
                    "line of play must end the game"
                );
                let left = slow.filled_count() as i64;
                total += match scoring {
                    Scoring::PopStar if left < 10 => 2000 - 20 * left * left,
                    Scoring::SameGame if left == 0 => 1000,
                    _ => 0,
                };
                prop_assert_eq!(total, sol.score);
                Ok(())
            })
            .expect("solver scores are exact");
    }
}

const BENCH0: &str = "3531154335/1142413414/1455345251/5122432353/5342355345/1532543355/3234332341/3515315441/2315152321/4542243213";

const SAMEGAME0: &str = "341523515143532/215441221412133/333532545545522/533314544345521/514414121121211/451444544154214/315513354221441/111554243554213/541312355112134/313432354554331/244121545543313/315434431413254/431132352225324/231113114253222/445432212524352";

/// Exact signatures: fixed board, fixed width, one thread.
#[test]
fn solver_signature_on_a_fixed_board() {
    let cb = CBoard::<160>::from_board(&b(BENCH0)).expect("fits");
    let reference = SolverParams::reference();
    let sol = solve(&cb, Scoring::PopStar, &reference, &Budget::width(64));
    assert_eq!((sol.score, sol.stats.nodes), (5025, 40721));
    let preset = SolverParams::preset(Scoring::PopStar);
    let sol = solve(&cb, Scoring::PopStar, &preset, &Budget::width(64));
    assert_eq!((sol.score, sol.stats.nodes), (5565, 58373));
    let bits = BitBoard::<5>::from_board(&b(BENCH0)).expect("fits");
    let sol = solve(&bits, Scoring::PopStar, &preset, &Budget::width(64));
    assert_eq!((sol.score, sol.stats.nodes), (5565, 58373));
    let big = CBoard::<400>::from_board(&b(SAMEGAME0)).expect("fits");
    let preset = SolverParams::preset(Scoring::SameGame);
    let sol = solve(&big, Scoring::SameGame, &preset, &Budget::width(16));
    assert_eq!((sol.score, sol.stats.nodes), (1328, 64312));
    let wide = BitBoard::<5, U256>::from_board(&b(SAMEGAME0)).expect("fits");
    let sol = solve(&wide, Scoring::SameGame, &preset, &Budget::width(16));
    assert_eq!((sol.score, sol.stats.nodes), (1328, 64312));
}

/// The best score of a board by plain recursion over every line (no memo, no bound).
fn naive_best(b: &Board, scoring: Scoring) -> i32 {
    let moves = naive::moves(b);
    if moves.is_empty() {
        return scoring.end_bonus(b.filled_count() as u32);
    }
    moves
        .into_iter()
        .map(|(r, c)| {
            let mut child = b.clone();
            let n = naive::play(&mut child, r, c);
            scoring.group_points(n as u32) + naive_best(&child, scoring)
        })
        .max()
        .unwrap_or(0)
}

/// Replays a line of group representatives; the score with the end bonus.
fn replay_reps<B: SolverBoard>(root: &B, scoring: Scoring, line: &[u16]) -> i32 {
    let mut b = root.clone();
    let mut total = 0;
    for &rep in line {
        let n = b.remove_group(rep);
        assert!(n >= 2, "illegal move in the end search's line");
        total += scoring.group_points(n);
    }
    let mut groups = Vec::new();
    b.census(&mut groups, &mut Census::default());
    assert!(groups.is_empty(), "the end search's line must end the game");
    total + scoring.end_bonus(b.remaining())
}

/// The end search from the root is exact: the fast search (memo, bounds,
/// bit board) against plain recursion, on small random boards.
#[test]
fn end_search_finds_the_best_line_of_small_boards() {
    let mut runner = pinned_runner(60);
    for scoring in [Scoring::PopStar, Scoring::SameGame] {
        runner
            .run(&arb_board_sized(2..=4, 2..=5), |board| {
                let best = naive_best(&board, scoring);
                let bits = BitBoard::<5>::from_board(&board).expect("fits");
                let start = scoring.end_bonus(bits.remaining());
                let (total, line, stats) =
                    improve(&bits, scoring, &[], start, &NeverStop, u64::MAX);
                prop_assert_eq!(total, best.max(start));
                prop_assert_eq!(stats.solved_from, bits.remaining());
                if total > start {
                    prop_assert_eq!(replay_reps(&bits, scoring, &line), total);
                }
                let cb = CBoard::<160>::from_board(&board).expect("fits");
                let (t2, _, s2) = improve(&cb, scoring, &[], start, &NeverStop, u64::MAX);
                prop_assert_eq!((t2, s2.nodes), (total, stats.nodes));
                Ok(())
            })
            .expect("the end search is exact");
    }
}

/// The end search lifts a beam's line on a fixed board: exact totals and
/// nodes, and the line it returns scores what it says.
#[test]
fn end_search_signature_on_a_fixed_board() {
    let bits = BitBoard::<5>::from_board(&b(BENCH0)).expect("fits");
    let mut p = SolverParams::preset(Scoring::PopStar);
    let beam = solve(&bits, Scoring::PopStar, &p, &Budget::width(64));
    p.endgame_nodes = 300_000;
    let sol = solve(&bits, Scoring::PopStar, &p, &Budget::width(64));
    assert_eq!(
        (beam.score, sol.score, sol.stats.nodes),
        (5565, 5645, 358_373)
    );
    // Cut short by its node cap, it keeps the best it found.
    p.endgame_nodes = 2_000;
    let cut = solve(&bits, Scoring::PopStar, &p, &Budget::width(64));
    assert!(cut.score >= beam.score && cut.score <= sol.score);
}

#[test]
fn wider_search_is_never_worse_than_greedy() {
    let cb = CBoard::<160>::from_board(&b(BENCH0)).expect("fits");
    let p = SolverParams::reference();
    let greedy = solve(&cb, Scoring::PopStar, &p, &Budget::width(1)).score;
    let wide = solve(&cb, Scoring::PopStar, &p, &Budget::width(256)).score;
    assert!(wide >= greedy, "{wide} < {greedy}");
}

/// Stops after a fixed number of checks: a deterministic stand-in for a deadline.
struct StopAfter(std::sync::atomic::AtomicUsize);

impl gridbot::games::Stop for StopAfter {
    fn should_stop(&self) -> bool {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst) <= 1
    }
}

#[test]
fn a_search_cut_short_still_ends_the_game_and_beats_greedy() {
    let cb = CBoard::<160>::from_board(&b(BENCH0)).expect("fits");
    for checks in [1, 50, 5000] {
        let stop = StopAfter(std::sync::atomic::AtomicUsize::new(checks));
        ends_and_beats_greedy(&cb, &stop, &format!("after {checks} checks"));
    }
}

/// Solved on one thread under `stop`, board `root` plays to its end and
/// scores at least the greedy line.
fn ends_and_beats_greedy<B: SolverBoard>(root: &B, stop: &dyn gridbot::games::Stop, when: &str) {
    let p = SolverParams::preset(Scoring::PopStar);
    let greedy = solve(root, Scoring::PopStar, &p, &Budget::width(1)).score;
    let budget = Budget {
        stop,
        width: None,
        nodes: None,
        threads: 1,
    };
    let sol = solve(root, Scoring::PopStar, &p, &budget);
    let last = sol.boards.last().expect("moves");
    assert!(Collapse::new(Scoring::PopStar).is_over(last), "{when}");
    assert!(
        sol.score >= greedy,
        "{} < greedy {greedy} {when}",
        sol.score
    );
}

/// A clock of calls: every check is a tick, `spent` is ticks over `total`
/// (a deterministic stand-in for a deadline that reports its share).
struct TickClock {
    ticks: std::sync::atomic::AtomicUsize,
    total: usize,
}

impl gridbot::games::Stop for TickClock {
    fn should_stop(&self) -> bool {
        self.ticks.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1 >= self.total
    }

    fn spent(&self) -> Option<f64> {
        let t = self.ticks.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        Some((t as f64 / self.total as f64).min(1.0))
    }
}

/// The schedule under a clock that reports its share: a probe, a fitted pass,
/// a pass past its time gone on narrower; every game ends and none is worse
/// than greedy.
#[test]
fn a_clock_schedule_ends_every_game_and_beats_greedy() {
    let bits = BitBoard::<5>::from_board(&b(BENCH0)).expect("fits");
    for total in [10, 100, 1_000, 10_000] {
        let clock = TickClock {
            ticks: std::sync::atomic::AtomicUsize::new(0),
            total,
        };
        ends_and_beats_greedy(&bits, &clock, &format!("at {total} ticks"));
    }
}
