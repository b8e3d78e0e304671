//! Criterion benches of the collapse rules and solver (release build):
//! `cargo bench --bench collapse`.

use criterion::{criterion_group, criterion_main, Criterion};
use gridbot::board::Board;
use gridbot::games::collapse::{solve, CBoard, Scoring, SolverParams};
use gridbot::games::Budget;
use std::hint::black_box;

const BOARD: &str = "3531154335/1142413414/1455345251/5122432353/5342355345/1532543355/3234332341/3515315441/2315152321/4542243213";

fn benches(c: &mut Criterion) {
    let board: Board = BOARD.parse().expect("valid board");
    let cb = CBoard::<160>::from_board(&board).expect("fits");
    let mut groups = Vec::new();
    c.bench_function("collapse/groups 10x10", |b| {
        b.iter(|| {
            black_box(&cb).groups(&mut groups);
            groups.len()
        })
    });
    // A real group of 2+ (the bench must remove something).
    cb.groups(&mut groups);
    let pair = groups
        .iter()
        .find(|g| g.size >= 2)
        .map(|g| g.rep)
        .expect("the board has a move");
    c.bench_function("collapse/remove_group 10x10", |b| {
        b.iter(|| {
            let mut x = black_box(&cb).clone();
            x.remove_group(black_box(pair))
        })
    });
    let params = SolverParams::reference();
    c.bench_function("collapse/beam width 64 10x10", |b| {
        b.iter(|| {
            solve(
                black_box(&cb),
                Scoring::PopStar,
                &params,
                &Budget::width(64),
            )
            .score
        })
    });
}

criterion_group!(collapse, benches);
criterion_main!(collapse);
