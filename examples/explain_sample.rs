//! Times the refill search (`games::match3::explain`) on simulated swaps:
//! random stable boards, a random legal swap, uniform random refill; the
//! real outcome and the same with one known cell changed (a misread).
//!
//! `cargo run --release --example explain_sample -- [SWAPS] [ROWS] [COLS] [COLOURS] [SEED] [MAX_NODES]`
//! prints the answers and the median / p99 / max time of each kind, and
//! the boards of every undecided check.

use std::time::Instant;

use gridbot::board::{Board, UNKNOWN};
use gridbot::games::match3::explain::{explain, Consistency, Limits};
use gridbot::games::match3::live::SplitMix64;
use gridbot::games::match3::rules::{naive, Refill};
use gridbot::games::match3::verify::{self, swapped};
use gridbot::games::match3::Scoring;

/// Uniform refill that counts what each column took.
struct Uniform(SplitMix64, u8, Vec<usize>);

impl Refill for Uniform {
    fn next(&mut self, col: usize) -> u8 {
        if let Some(t) = self.2.get_mut(col) {
            *t += 1;
        }
        self.0.below(self.1 as usize) as u8
    }
}

fn arg(i: usize, default: u64) -> u64 {
    std::env::args()
        .nth(i)
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn report(name: &str, mut times: Vec<f64>, answers: [usize; 3]) {
    times.sort_by(f64::total_cmp);
    let n = times.len().max(1);
    let at = |q: f64| {
        times
            .get(((n as f64 * q) as usize).min(n - 1))
            .copied()
            .unwrap_or(0.0)
    };
    println!(
        "{name}: {} checks: {} explained, {} rejected, {} undecided ({:.2}%); ms median {:.3} p99 {:.3} max {:.3}",
        times.len(),
        answers[0],
        answers[1],
        answers[2],
        100.0 * answers[2] as f64 / n as f64,
        at(0.5),
        at(0.99),
        times.last().copied().unwrap_or(0.0)
    );
}

fn main() {
    let swaps = arg(1, 1000) as usize;
    let (rows, cols, k) = (arg(2, 8) as usize, arg(3, 8) as usize, arg(4, 7) as u8);
    let mut rng = SplitMix64::new(arg(5, 1));
    let limits = Limits {
        max_nodes: arg(6, Limits::DEFAULT.max_nodes as u64) as usize,
        max_waves: arg(7, Limits::DEFAULT.max_waves as u64) as usize,
        ..Limits::DEFAULT
    };
    let mut real = (Vec::new(), [0usize; 3]);
    let mut changed = (Vec::new(), [0usize; 3]);
    let mut done = 0;
    while done < swaps {
        let cells = (0..rows * cols)
            .map(|_| rng.below(k as usize) as u8)
            .collect();
        let mut board = Board::from_cells(rows, cols, cells);
        let mut refill = Uniform(SplitMix64::new(rng.next_u64()), k, vec![0; cols]);
        naive::resolve(&mut board, &Scoring::CELLS, &mut refill);
        let moves = naive::legal_swaps(&board);
        if moves.is_empty() {
            continue;
        }
        let (x, y) = moves[rng.below(moves.len())];
        let after = swapped(&board, x, y);
        let mut seen = after.clone();
        refill.2 = vec![0; cols];
        naive::resolve(&mut seen, &Scoring::CELLS, &mut refill);
        if refill.2.iter().any(|&t| t > rows) {
            // Past the question's bound (a board's height per column).
            continue;
        }
        done += 1;
        let (expected, _, _) = verify::cascade(&after);
        let known: Vec<usize> = (0..rows * cols)
            .filter(|&i| expected.cells()[i] != UNKNOWN)
            .collect();
        let mut bad = seen.clone();
        if !known.is_empty() {
            let i = known[rng.below(known.len())];
            let v = seen.cells()[i];
            bad.set(
                i / cols,
                i % cols,
                (v + 1 + rng.below(k as usize - 1) as u8) % k,
            );
        }
        for (kind, target) in [("real", &seen), ("changed", &bad)] {
            let t = Instant::now();
            let e = explain(&after, target, k, &limits);
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let slot = if kind == "real" {
                &mut real
            } else {
                &mut changed
            };
            slot.0.push(ms);
            let a = match e.consistency {
                Consistency::Consistent => 0,
                Consistency::Inconsistent => 1,
                Consistency::Undecided => 2,
            };
            slot.1[a] += 1;
            if a == 2 || ms > 100.0 {
                println!(
                    "slow {kind} {:?} {ms:.1} ms {} nodes: after {after} seen {target}",
                    e.consistency, e.nodes
                );
            }
            if kind == "real" && a == 1 {
                println!("BUG real outcome rejected: after {after} seen {target}");
            }
        }
    }
    report("real", real.0, real.1);
    report("changed", changed.0, changed.1);
}
