//! The orb-drag solver at a fixed width through the public API: exact
//! signatures (combos, path length, states) on boards of the bench, the
//! same on one thread and on two. The figures are those main's binary
//! gave at e40efb0 (`gridbot bench pad --boards
//! /work/shared/bench/pad.txt --width 3200 --threads 1 --json`, boards 0, 1
//! and 3): the rounds run their parts on every core, the search is the one
//! of before.

use gridbot::board::Board;
use gridbot::games::pad::{solve, Orbs, PadParams};
use gridbot::games::NeverStop;

/// (board, combos, path steps, states evaluated) at width 3200.
const SIGNATURES: [(&str, u32, usize, u64); 3] = [
    ("033324/132134/302324/420155/421424", 8, 28, 171_992),
    ("540552/203441/304322/102115/423035", 7, 16, 83_176),
    ("333110/254332/521134/215134/414342", 8, 19, 101_809),
];

#[test]
fn fixed_width_signatures_on_one_thread_and_two() {
    let p = PadParams {
        width: 3200,
        ..PadParams::default()
    };
    for (text, combos, steps, nodes) in SIGNATURES {
        let board: Board = text.parse().expect("a board");
        let (g, o) = Orbs::from_board(&board).expect("orbs");
        let run = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a pool")
                .install(|| solve(&g, &o, &p, &NeverStop))
        };
        let (one, two) = (run(1), run(2));
        assert_eq!(one, two, "{text}");
        assert_eq!(
            (one.combos, one.path.len() - 1, one.nodes),
            (combos, steps, nodes),
            "{text}"
        );
        assert_eq!(
            o.dragged(&one.path).resolve(&g).combos.len() as u32,
            one.combos,
            "{text}"
        );
    }
}

/// A width or thread count of 0 is refused with one line, before any search.
#[test]
fn bench_refuses_a_zero_width_or_thread_count() {
    for flag in ["--width", "--threads"] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_gridbot"))
            .args(["bench", "pad", "--boards", "no-such-file.txt", flag, "0"])
            .output()
            .expect("run gridbot");
        assert_eq!(out.status.code(), Some(2), "{flag} 0");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("must be at least 1"), "{flag} 0: {err}");
    }
}
