//! Criterion benches of the Tetris engine (release build):
//! `cargo bench --bench tetris`.

use criterion::{criterion_group, criterion_main, Criterion};
use gridbot::games::tetris::eval::value_features;
use gridbot::games::tetris::fast::ColumnBase;
use gridbot::games::tetris::{
    play_game_with, standard, Eval, Field, GameSetup, Model, Piece, Player, Randomizer,
    RotationSystem, SearchParams,
};
use std::hint::black_box;

/// A mid-game 10x20 field: a ragged stack with a well and two holes.
const FIELD: [&str; 8] = [
    "..........",
    "....#.....",
    "##..##...#",
    "###.###..#",
    "####.###.#",
    "#####.##.#",
    "########.#",
    "###.####.#",
];

fn field() -> Field {
    let mut f = Field::new(10, 20).expect("valid size");
    for (i, line) in FIELD.iter().enumerate() {
        let y = FIELD.len() - 1 - i;
        for (x, ch) in line.chars().enumerate() {
            f.set(x, y, ch == '#');
        }
    }
    f
}

fn benches(c: &mut Criterion) {
    let gen = standard(&RotationSystem::srs(), 10, 20).expect("srs compiles");
    let f = field();
    let mut out = Vec::new();
    c.bench_function("tetris/placements T 10x20", |b| {
        b.iter(|| {
            gen.placements_into(black_box(&f), Piece::T, &mut out);
            out.len()
        })
    });
    c.bench_function("tetris/placements all 7 10x20", |b| {
        b.iter(|| {
            let mut n = 0;
            for p in Piece::ALL {
                gen.placements_into(black_box(&f), p, &mut out);
                n += out.len();
            }
            n
        })
    });
    c.bench_function("tetris/value features basic", |b| {
        b.iter(|| value_features(black_box(&f), false))
    });
    c.bench_function("tetris/value features extended", |b| {
        b.iter(|| value_features(black_box(&f), true))
    });
    c.bench_function("tetris/column base", |b| {
        b.iter(|| ColumnBase::new(black_box(&f), false).features())
    });
    // 2,000 pieces of a seeded 10x20 game: time / 2,000 = time per piece
    // (generate, score every placement, apply the best).
    for model in [Model::Reach, Model::Fahey] {
        let setup = GameSetup {
            width: 10,
            height: 20,
            randomizer: Randomizer::Uniform,
            max_pieces: Some(2_000),
        };
        let mut player = Player::new(Eval::dellacherie(), SearchParams::default());
        c.bench_function(
            &format!("tetris/game 2000 pieces dellacherie {model:?}"),
            |b| {
                b.iter(|| {
                    play_game_with(model, &gen, &mut player, &setup, black_box(7)).map(|r| r.lines)
                })
            },
        );
    }
    for eval in [Eval::dellacherie(), Eval::tuned()] {
        let mut player = Player::new(eval.clone(), SearchParams::default());
        c.bench_function(&format!("tetris/choose T {}", eval.name), |b| {
            b.iter(|| {
                player
                    .choose(&gen, black_box(&f), Piece::T, &[])
                    .map(|d| d.score)
            })
        });
    }
    let mut player = Player::new(
        Eval::tuned(),
        SearchParams {
            preview: 1,
            ..SearchParams::default()
        },
    );
    c.bench_function("tetris/choose T preview 1 tuned", |b| {
        b.iter(|| {
            player
                .choose(&gen, black_box(&f), Piece::T, &[Piece::I])
                .map(|d| d.score)
        })
    });
}

criterion_group!(tetris, benches);
criterion_main!(tetris);
