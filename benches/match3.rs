//! Criterion benches of the match-3 rules, the exact planner and the live
//! policy (release build): `cargo bench --bench match3`.

use criterion::{criterion_group, criterion_main, Criterion};
use gridbot::board::Board;
use gridbot::games::match3::{
    choose, plan, MBoard, NoRefill, PlanParams, Policy, PolicyParams, Scoring,
};
use gridbot::games::{Budget, NeverStop};
use std::hint::black_box;

/// The first board of `../shared/bench/match3.txt` (8x8, 6 colours).
const BOARD: &str = "33646523/11636461/41525434/46414653/34516163/53253442/43442124/31212262";

fn benches(c: &mut Criterion) {
    let board: Board = BOARD.parse().expect("valid board");
    let m = MBoard::<64>::from_board(&board).expect("fits");
    let mut swaps = Vec::new();
    c.bench_function("match3/legal swaps 8x8", |b| {
        b.iter(|| {
            black_box(&m).swaps(&mut swaps);
            swaps.len()
        })
    });
    m.swaps(&mut swaps);
    let first = swaps[0];
    c.bench_function("match3/apply swap 8x8", |b| {
        b.iter(|| {
            let mut x = *black_box(&m);
            x.apply_legal(black_box(first), &Scoring::CELLS, &mut NoRefill)
        })
    });
    let budget = Budget {
        stop: &NeverStop,
        width: None,
        nodes: None,
        threads: 1,
    };
    for x in [3, 4] {
        c.bench_function(&format!("match3/exact plan X={x} 8x8"), |b| {
            b.iter(|| {
                plan(
                    black_box(&m),
                    &Scoring::CELLS,
                    &PlanParams::exact(x),
                    &budget,
                )
                .score
            })
        });
    }
    let policy = Policy::Expected(PolicyParams::standard());
    c.bench_function("match3/expected policy 8x8", |b| {
        b.iter(|| choose(black_box(&m), &Scoring::CELLS, &policy).map(|c| c.swap))
    });
}

criterion_group!(match3, benches);
criterion_main!(match3);
