//! Packing: exact-cover engines against each other and against the known
//! pentomino counts.

use gridbot::packing::puzzles::{puzzle, PUZZLES};
use gridbot::packing::{ExactCover, Limits};

#[test]
fn pentomino_counts_up_to_symmetry() {
    for &(name, reduced, _) in &PUZZLES {
        let t = puzzle(name, false).expect("known puzzle");
        let p = t.bit_problem().expect("fits");
        let out = p.count(&Limits::none());
        assert_eq!(out.solutions, reduced, "{name}");
    }
}
