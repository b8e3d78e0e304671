//! Packing: exact cover, polyomino placements, and the Girls' Frontline chip
//! planner built on them.
//!
//! Exact cover (Knuth, TAOCP 7.2.2.1): given *items* and *options* (each option a
//! set of items), choose options so that every *primary* item is covered exactly
//! once and every *secondary* item at most once. We add *counted* items: an item
//! that may be covered at most `k` times (a chip type the inventory holds `k`
//! of). Two engines solve the same problem:
//!
//! - [`dlx`]: the generic engine, Knuth's Algorithm X on dancing links
//!   (Knuth, "Dancing Links", 2000; TAOCP 7.2.2.1 Algorithm X / DLX1), any size;
//! - [`bits`]: the fast path for up to 64 cells, one `u64` of covered cells and
//!   de Bruijn's "fill the first empty cell" branching with precomputed
//!   placement lists per cell.
//!
//! Both report solutions through a visitor ([`Visit`]) that may stop the search,
//! and both obey [`Limits`] (a node cap and a [`Stop`] check). Nothing here
//! reads the clock: a deadline comes in as a `Stop`.
//!
//! Coordinates: polyomino cells are `(row, col)` with row 0 at the top, as in
//! [`crate::board::Cell`].

pub mod bits;
pub mod dlx;
pub mod draw;
pub mod gfl;
pub mod plan;
pub mod puzzles;
pub mod shape;
pub mod tiling;

use std::ops::ControlFlow;

use serde::Serialize;

use crate::games::{NeverStop, Stop};

/// What a search may spend.
#[derive(Clone, Copy)]
pub struct Limits<'a> {
    /// Stop after this many search nodes (options tried).
    pub nodes: Option<u64>,
    /// Checked every few thousand nodes (a wall-clock deadline in the CLI).
    pub stop: &'a dyn Stop,
}

impl Limits<'static> {
    /// No limit at all: the search runs to the end.
    pub fn none() -> Self {
        Limits {
            nodes: None,
            stop: &NeverStop,
        }
    }

    /// Only a node cap (deterministic).
    pub fn nodes(n: u64) -> Self {
        Limits {
            nodes: Some(n),
            stop: &NeverStop,
        }
    }
}

/// How often (in nodes) a search asks its [`Stop`].
pub(crate) const STOP_CHECK_EVERY: u64 = 4096;

/// Why a search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Halt {
    /// The whole search space was visited.
    Complete,
    /// The visitor asked to stop.
    Visitor,
    /// The node cap was reached.
    Nodes,
    /// The [`Stop`] check said stop (time).
    Stopped,
}

/// The result of a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// Solutions visited.
    pub solutions: u64,
    /// Options tried (search tree nodes below the root).
    pub nodes: u64,
    pub halt: Halt,
}

impl Outcome {
    /// The outcome of a search that ran to `result` (`Err` holds why it stopped early).
    pub fn of(result: Result<(), Halt>, solutions: u64, nodes: u64) -> Self {
        Outcome {
            solutions,
            nodes,
            halt: result.err().unwrap_or(Halt::Complete),
        }
    }
}

/// A solution visitor: gets the chosen options (indices in the order they were
/// added), returns `Break` to stop the search.
pub type Visit<'v> = dyn FnMut(&[usize]) -> ControlFlow<()> + 'v;

/// Both engines: search with a visitor, plus the usual modes on top.
pub trait ExactCover {
    /// Visits solutions until the visitor breaks or the limits run out.
    fn search(&self, limits: &Limits, visit: &mut Visit) -> Outcome;

    /// Counts all solutions.
    fn count(&self, limits: &Limits) -> Outcome {
        self.search(limits, &mut |_| ControlFlow::Continue(()))
    }

    /// The first solution found, if any.
    fn first(&self, limits: &Limits) -> (Option<Vec<usize>>, Outcome) {
        let mut found = None;
        let out = self.search(limits, &mut |s| {
            found = Some(s.to_vec());
            ControlFlow::Break(())
        });
        (found, out)
    }

    /// Up to `max` solutions, each sorted by option index.
    fn collect(&self, limits: &Limits, max: usize) -> (Vec<Vec<usize>>, Outcome) {
        let mut all = Vec::new();
        let out = self.search(limits, &mut |s| {
            let mut v = s.to_vec();
            v.sort_unstable();
            all.push(v);
            if all.len() >= max {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        (all, out)
    }

    /// The best solution by `score` (ties: the first found); stops early once a
    /// solution scores `good_enough` or more.
    fn best(
        &self,
        limits: &Limits,
        score: &mut dyn FnMut(&[usize]) -> i64,
        good_enough: Option<i64>,
    ) -> (Option<(Vec<usize>, i64)>, Outcome) {
        let mut best: Option<(Vec<usize>, i64)> = None;
        let out = self.search(limits, &mut |s| {
            let v = score(s);
            if best.as_ref().is_none_or(|(_, b)| v > *b) {
                let mut sol = s.to_vec();
                sol.sort_unstable();
                best = Some((sol, v));
            }
            match good_enough {
                Some(g) if v >= g => ControlFlow::Break(()),
                _ => ControlFlow::Continue(()),
            }
        });
        (best, out)
    }
}

/// Errors of the packing layer: problem construction, shapes, data files.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PackingError {
    #[error("option {option} names item {item}, but there are only {items} items")]
    BadItem {
        option: usize,
        item: usize,
        items: usize,
    },
    #[error("option {option} names item {item} more than once")]
    RepeatedItem { option: usize, item: usize },
    #[error("option {0} covers no item")]
    EmptyOption(usize),
    #[error("item {item} has capacity 0; an item must be coverable at least once")]
    ZeroCapacity { item: usize },
    #[error("the bitmask path holds at most 64 cells and 64 tags; this problem has {cells} cells and {tags} tags")]
    TooLarge { cells: usize, tags: usize },
    #[error("bad shape text {text:?}: {why}")]
    BadShape { text: String, why: String },
    #[error("unknown puzzle {0:?} (known: {1})")]
    UnknownPuzzle(String, String),
    #[error("unknown circuit {0:?} (known: {1})")]
    UnknownCircuit(String, String),
    #[error("unknown chip shape {0:?} (known: {1})")]
    UnknownChipShape(String, String),
    #[error("{file}: {why}")]
    Data { file: String, why: String },
}
