//! The refill search (`games::match3::explain`) under proptest: every board
//! the rules make with some random refill is explained, with a witness that
//! replays to it; a board with one known cell changed is explained exactly
//! when a plain exhaustive search over refills (the naive oracle below, on
//! small boards) finds a refill for it; a changed cell no refill can reach
//! is always rejected. The search may give up ("undecided", its node
//! limit) on hard cases; that is counted and bounded here, never a wrong
//! answer. Seeds are pinned.

use std::cell::RefCell;
use std::collections::HashSet;

use gridbot::board::{Board, Cell, UNKNOWN};
use gridbot::games::match3::explain::{explain, fixed_cells, Consistency, Limits};
use gridbot::games::match3::live::SplitMix64;
use gridbot::games::match3::rules::{naive, Refill};
use gridbot::games::match3::verify::{self, swapped};
use gridbot::games::match3::Scoring;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

fn pinned_runner(cases: u32) -> TestRunner {
    TestRunner::new_with_rng(
        Config {
            cases,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &[23; 32]),
    )
}

/// Uniform random refill that records what each column took.
struct Recording {
    rng: SplitMix64,
    colours: u8,
    taken: Vec<Vec<u8>>,
}

impl Refill for Recording {
    fn next(&mut self, col: usize) -> u8 {
        let v = self.rng.below(self.colours as usize) as u8;
        self.taken[col].push(v);
        v
    }
}

use gridbot::games::match3::rules::naive::replay;

/// A played swap: the board right after it, the board the rules made of it
/// with a random refill, and what each column took.
struct Played {
    after_swap: Board,
    seen: Board,
    taken: Vec<Vec<u8>>,
}

/// A random stable board (random gems, cascaded away with random refill),
/// a random legal swap on it, played with random refill. `None` when the
/// board has no legal swap.
fn play_random(rows: usize, cols: usize, k: u8, seed: u64, pick: usize) -> Option<Played> {
    let mut rng = SplitMix64::new(seed);
    let cells = (0..rows * cols)
        .map(|_| rng.below(k as usize) as u8)
        .collect();
    let mut board = Board::from_cells(rows, cols, cells);
    let mut rec = Recording {
        rng,
        colours: k,
        taken: vec![Vec::new(); cols],
    };
    naive::resolve(&mut board, &Scoring::CELLS, &mut rec);
    let moves = naive::legal_swaps(&board);
    let &(x, y) = moves.get(pick % moves.len().max(1))?;
    let after_swap = swapped(&board, x, y);
    rec.taken = vec![Vec::new(); cols];
    let mut seen = after_swap.clone();
    naive::resolve(&mut seen, &Scoring::CELLS, &mut rec);
    Some(Played {
        after_swap,
        seen,
        taken: rec.taken,
    })
}

/// The naive oracle: depth-first over concrete boards, every colouring of
/// every wave's new cells tried, at most `max_refills` refills per column;
/// is `seen` a stable board it reaches? `None` past `max_states` states.
fn oracle(
    after_swap: &Board,
    seen: &Board,
    k: u8,
    max_refills: usize,
    max_states: usize,
) -> Option<bool> {
    let (rows, cols) = (after_swap.rows(), after_swap.cols());
    let mut stack = vec![(after_swap.clone(), vec![0usize; cols])];
    let mut visited: HashSet<(Board, Vec<usize>)> = HashSet::new();
    while let Some((b, taken)) = stack.pop() {
        if !visited.insert((b.clone(), taken.clone())) {
            continue;
        }
        if visited.len() > max_states {
            return None;
        }
        let lines = naive::lines(&b);
        if lines.is_empty() {
            if &b == seen {
                return Some(true);
            }
            continue;
        }
        let cleared: HashSet<Cell> = lines.into_iter().flatten().collect();
        let lost: Vec<usize> = (0..cols)
            .map(|c| {
                (0..rows)
                    .filter(|&r| cleared.contains(&Cell::new(r, c)))
                    .count()
            })
            .collect();
        if (0..cols).any(|c| taken[c] + lost[c] > max_refills) {
            continue;
        }
        // The fallen board with the new cells, then every colouring of them.
        let mut fallen = b.clone();
        let mut fresh = Vec::new();
        for c in 0..cols {
            let keep: Vec<u8> = (0..rows)
                .filter(|&r| !cleared.contains(&Cell::new(r, c)))
                .map(|r| b.get(r, c))
                .collect();
            let n = rows - keep.len();
            for (r, v) in std::iter::repeat_n(UNKNOWN, n).chain(keep).enumerate() {
                fallen.set(r, c, v);
            }
            fresh.extend((0..n).map(|r| Cell::new(r, c)));
        }
        let next_taken: Vec<usize> = (0..cols).map(|c| taken[c] + lost[c]).collect();
        let total = (k as usize).pow(fresh.len() as u32);
        for code in 0..total {
            let mut child = fallen.clone();
            let mut x = code;
            for cell in &fresh {
                child.set(cell.row, cell.col, (x % k as usize) as u8);
                x /= k as usize;
            }
            stack.push((child, next_taken.clone()));
        }
    }
    Some(false)
}

/// Every board the rules make with a random refill (within the default
/// bound) is explained, and the witness refill replays to it. Boards up to
/// 8x8, 3-7 colours.
#[test]
fn every_real_outcome_is_explained_by_a_replayable_refill() {
    let mut runner = pinned_runner(300);
    let stats = RefCell::new((0usize, 0usize, 0usize, 0usize)); // cases, nodes, max nodes, undecided
    runner
        .run(
            &(3usize..=8, 3usize..=8, 3u8..=7, any::<u64>(), 0usize..100),
            |(rows, cols, k, seed, pick)| {
                let Some(p) = play_random(rows, cols, k, seed, pick) else {
                    return Ok(());
                };
                prop_assume!(p.taken.iter().all(|t| t.len() <= rows));
                let e = explain(&p.after_swap, &p.seen, k, &Limits::DEFAULT);
                if e.consistency == Consistency::Undecided {
                    stats.borrow_mut().3 += 1;
                    return Ok(());
                }
                prop_assert_eq!(
                    e.consistency,
                    Consistency::Consistent,
                    "after swap {} seen {} refill {:?}",
                    &p.after_swap,
                    &p.seen,
                    &p.taken
                );
                prop_assert_eq!(replay(&p.after_swap, &e.refills), p.seen.clone());
                let mut st = stats.borrow_mut();
                st.0 += 1;
                st.1 += e.nodes;
                st.2 = st.2.max(e.nodes);
                Ok(())
            },
        )
        .expect("every real outcome is explained");
    let stats = stats.into_inner();
    eprintln!(
        "explained {} outcomes, {:.1} nodes on average, {} at most; {} undecided",
        stats.0,
        stats.1 as f64 / stats.0.max(1) as f64,
        stats.2,
        stats.3
    );
    assert!(stats.3 * 20 <= stats.0, "too many undecided: {stats:?}");
}

/// One known cell changed to another colour, on small boards: the search
/// says "consistent" exactly when the naive oracle finds a refill; a
/// consistent answer's witness replays to the changed board; a cell no
/// refill can reach (`fixed_cells`) is always rejected.
#[test]
fn a_changed_known_cell_is_rejected_exactly_when_no_refill_explains_it() {
    let mut runner = pinned_runner(300);
    let tally = RefCell::new([0usize; 4]); // explained, rejected, oracle gave up, undecided
    runner
        .run(
            &(
                3usize..=5,
                3usize..=5,
                4u8..=5,
                any::<u64>(),
                0usize..100,
                0usize..1000,
                1u8..=4,
            ),
            |(rows, cols, k, seed, pick, at, shift)| {
                let Some(p) = play_random(rows, cols, k, seed, pick) else {
                    return Ok(());
                };
                let (expected, _, _) = verify::cascade(&p.after_swap);
                let known: Vec<usize> = (0..rows * cols)
                    .filter(|&i| expected.cells()[i] != UNKNOWN)
                    .collect();
                prop_assume!(!known.is_empty());
                let i = known[at % known.len()];
                let (r, c) = (i / cols, i % cols);
                let mut bad = p.seen.clone();
                bad.set(r, c, (p.seen.get(r, c) + shift % k) % k);
                prop_assume!(bad != p.seen);
                let e = explain(&p.after_swap, &bad, k, &Limits::DEFAULT);
                if e.consistency == Consistency::Undecided {
                    tally.borrow_mut()[3] += 1;
                    return Ok(());
                }
                let consistent = e.consistency == Consistency::Consistent;
                if consistent {
                    prop_assert_eq!(replay(&p.after_swap, &e.refills), bad.clone());
                }
                if fixed_cells(&p.after_swap)[i] {
                    prop_assert!(!consistent, "a fixed cell changed: {}", &bad);
                }
                match oracle(&p.after_swap, &bad, k, rows, 200_000) {
                    Some(truth) => {
                        prop_assert_eq!(
                            consistent,
                            truth,
                            "after swap {} changed seen {}",
                            &p.after_swap,
                            &bad
                        );
                        tally.borrow_mut()[usize::from(!truth)] += 1;
                    }
                    None => tally.borrow_mut()[2] += 1,
                }
                Ok(())
            },
        )
        .expect("the search agrees with the oracle");
    let tally = tally.into_inner();
    eprintln!(
        "changed boards: {} explained, {} rejected, oracle gave up on {}, search undecided on {}",
        tally[0], tally[1], tally[2], tally[3]
    );
    assert!(tally[3] * 10 <= tally[0] + tally[1], "{tally:?}");
    assert!(tally[1] > 50 && tally[0] > 5, "{tally:?}");
}

/// Gweled-sized: 8x8, 7 colours, one known cell changed. When explained,
/// the witness replays to it; most are decided within a small node limit.
#[test]
fn changed_gweled_boards_are_mostly_decided_and_explanations_replay() {
    let mut runner = pinned_runner(100);
    let limits = Limits {
        max_nodes: 50_000,
        ..Limits::DEFAULT
    };
    let tally = RefCell::new([0usize; 4]); // explained, rejected, max nodes, undecided
    runner
        .run(
            &(any::<u64>(), 0usize..100, 0usize..1000, 1u8..=6),
            |(seed, pick, at, shift)| {
                let Some(p) = play_random(8, 8, 7, seed, pick) else {
                    return Ok(());
                };
                let (expected, _, _) = verify::cascade(&p.after_swap);
                let known: Vec<usize> = (0..64)
                    .filter(|&i| expected.cells()[i] != UNKNOWN)
                    .collect();
                let i = known[at % known.len()];
                let mut bad = p.seen.clone();
                bad.set(i / 8, i % 8, (p.seen.get(i / 8, i % 8) + shift) % 7);
                let e = explain(&p.after_swap, &bad, 7, &limits);
                let mut t = tally.borrow_mut();
                t[2] = t[2].max(e.nodes);
                if e.consistency == Consistency::Undecided {
                    t[3] += 1;
                } else if e.consistency == Consistency::Consistent {
                    prop_assert_eq!(replay(&p.after_swap, &e.refills), bad.clone());
                    t[0] += 1;
                } else {
                    t[1] += 1;
                }
                Ok(())
            },
        )
        .expect("decided, and explanations replay");
    let tally = tally.into_inner();
    eprintln!(
        "8x8 changed boards: {} explained, {} rejected, {} undecided, {} nodes at most",
        tally[0], tally[1], tally[3], tally[2]
    );
    assert!(
        tally[1] > tally[0] && tally[3] * 3 < tally[0] + tally[1],
        "{tally:?}"
    );
}

/// Naive against fast on small boards with few colours (long cascades, many
/// refill lines): the real outcome, the outcome with up to three cells
/// changed, and the outcome of another legal swap on the same board. Where
/// the oracle decides, the search must give the same answer and must not
/// be undecided; this covers the narrowing of frozen variables to their
/// seen colour and the per-round wave bound of the deepening.
#[test]
fn the_search_agrees_with_the_oracle_on_small_boards_with_few_colours() {
    let mut runner = pinned_runner(400);
    let tally = RefCell::new([0usize; 3]); // explained, rejected, oracle gave up
    runner
        .run(
            &(
                3usize..=5,
                3usize..=4,
                3u8..=4,
                any::<u64>(),
                0usize..100,
                prop::collection::vec((0usize..100, 1u8..=3), 0..=3),
                any::<bool>(),
            ),
            |(rows, cols, k, seed, pick, changes, other)| {
                let Some(p) = play_random(rows, cols, k, seed, pick) else {
                    return Ok(());
                };
                let mut seen = if other {
                    match play_random(rows, cols, k, seed, pick + 1) {
                        Some(q) => q.seen,
                        None => p.seen.clone(),
                    }
                } else {
                    p.seen.clone()
                };
                for &(at, shift) in &changes {
                    let i = at % (rows * cols);
                    let (r, c) = (i / cols, i % cols);
                    seen.set(r, c, (seen.get(r, c) + shift % k) % k);
                }
                let e = explain(&p.after_swap, &seen, k, &Limits::DEFAULT);
                let Some(truth) = oracle(&p.after_swap, &seen, k, rows, 100_000) else {
                    tally.borrow_mut()[2] += 1;
                    return Ok(());
                };
                prop_assert_ne!(
                    e.consistency,
                    Consistency::Undecided,
                    "after swap {} seen {}",
                    &p.after_swap,
                    &seen
                );
                let consistent = e.consistency == Consistency::Consistent;
                prop_assert_eq!(
                    consistent,
                    truth,
                    "after swap {} seen {}",
                    &p.after_swap,
                    &seen
                );
                if consistent {
                    prop_assert_eq!(replay(&p.after_swap, &e.refills), seen.clone());
                }
                tally.borrow_mut()[usize::from(!truth)] += 1;
                Ok(())
            },
        )
        .expect("the search agrees with the oracle");
    let tally = tally.into_inner();
    eprintln!(
        "small boards, few colours: {} explained, {} rejected, oracle gave up on {}",
        tally[0], tally[1], tally[2]
    );
    assert!(tally[0] > 50 && tally[1] > 50, "{tally:?}");
}
