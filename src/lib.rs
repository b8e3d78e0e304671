//! gridbot: a screen-reading auto-player for grid puzzle games.
//!
//! Data flows one way: `platform` (capture) -> `vision` (pixels to a [`board::Board`])
//! -> `games` (rules and solvers) -> `act` (a move to timed input events) ->
//! `platform` (input). `bot` is the loop that ties them together. `games` and
//! `vision` are pure and deterministic; only `bot`, `platform` and the binary
//! touch the clock, the screen or the input devices.

pub mod act;
pub mod bench;
pub mod board;
pub mod bot;
pub mod bot_match3;
pub mod bot_tetris;
pub mod games;
pub mod packing;
pub mod platform;
pub mod rng;
pub mod vision;
