//! The orb-drag family (Puzzle & Dragons, Tower of Saviors): rules and the
//! path solver.

pub mod rules;
pub mod solver;

pub use rules::{Combo, Geometry, Orbs, Resolution};
pub use solver::{Objective, PadParams, PadSolution};
