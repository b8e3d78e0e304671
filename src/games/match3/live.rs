//! The live policy: which swap to play now, when the refill is unknown.
//!
//! Pure and deterministic: randomness comes from a seeded [`SplitMix64`].
//! [`Policy::Expected`] scores each legal swap by its mean over `samples`
//! sampled refills (uniform over the colours on the board) of: the swap's
//! points with that refill (so refill cascades count), plus `next_weight` times
//! the best immediate swap left on the sampled board (future legal moves
//! count; a board with none costs `dead_end_moves` average moves). The same refill samples are used
//! for every swap (common random numbers), so the comparison between swaps is
//! not drowned by sampling noise. [`Policy::Greedy`] is the usual bot baseline:
//! the biggest immediate match, first in row-major order on ties.
//!
//! Board convention: cells that are not gems (`?`, `.`) are holes (see
//! [`super::rules`]); the live loop passes the board it read, holes only where
//! it could not read.

use serde::{Deserialize, Serialize};

use super::rules::{MBoard, NoRefill, Refill, Scoring, Swap, HOLE};
use crate::games::GameError;
pub use crate::rng::SplitMix64;

/// Refill drawn uniformly from a colour set.
pub struct RandomRefill<'a> {
    pub rng: &'a mut SplitMix64,
    pub colours: &'a [u8],
}

impl Refill for RandomRefill<'_> {
    fn next(&mut self, _col: usize) -> u8 {
        if self.colours.is_empty() {
            return HOLE;
        }
        self.colours[self.rng.below(self.colours.len())]
    }
}

/// The distinct gem colours on a board, ascending (the refill's colour set).
pub fn colours_of<const N: usize>(b: &MBoard<N>) -> Vec<u8> {
    b.colour_counts()
        .iter()
        .enumerate()
        .filter(|(_, &n)| n > 0)
        .map(|(c, _)| c as u8)
        .collect()
}

/// Knobs of the expected-value policy.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PolicyParams {
    /// Sampled refills per swap.
    pub samples: usize,
    /// Weight of the best next swap on the sampled board.
    pub next_weight: f64,
    /// Cost of a sampled board with no legal swap (game over in Gweled), in
    /// moves: times the mean immediate points of the swaps on the board now.
    pub dead_end_moves: f64,
    /// Seed of the refill samples.
    pub seed: u64,
}

impl PolicyParams {
    /// The default live policy.
    pub fn standard() -> Self {
        PolicyParams {
            samples: 32,
            next_weight: 0.9,
            dead_end_moves: 10.0,
            seed: 0x6d33,
        }
    }

    /// Fewer samples, for slow machines or debug builds.
    pub fn fast() -> Self {
        PolicyParams {
            samples: 8,
            ..PolicyParams::standard()
        }
    }
}

/// How the live loop picks a swap.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Policy {
    /// Biggest immediate match (no refill), first on ties.
    Greedy,
    /// Expected value over sampled refills, with the next move counted.
    Expected(PolicyParams),
}

impl Policy {
    /// A named preset: `greedy`, `expected` (standard) or `expected-fast`.
    pub fn preset(name: &str) -> Result<Policy, GameError> {
        match name {
            "greedy" => Ok(Policy::Greedy),
            "expected" | "live" => Ok(Policy::Expected(PolicyParams::standard())),
            "expected-fast" => Ok(Policy::Expected(PolicyParams::fast())),
            _ => Err(GameError::BadParams(format!(
                "policy {name:?} (known: greedy, expected, expected-fast)"
            ))),
        }
    }
}

/// The swap a policy picked.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Choice {
    pub swap: Swap,
    /// Points the swap earns with no refill (what the model can promise).
    pub immediate: i64,
    /// The policy's value of the swap (the immediate points for greedy).
    pub value: f64,
}

/// Best immediate points of any legal swap on `b` (no refill), if any.
fn best_immediate<const N: usize>(
    b: &MBoard<N>,
    scoring: &Scoring,
    buf: &mut Vec<Swap>,
) -> Option<i64> {
    b.swaps(buf);
    buf.iter()
        .map(|&s| {
            let mut c = *b;
            c.apply_legal(s, scoring, &mut NoRefill).points
        })
        .max()
}

/// Picks a swap on `board`, or `None` when no swap is legal.
pub fn choose<const N: usize>(
    board: &MBoard<N>,
    scoring: &Scoring,
    policy: &Policy,
) -> Option<Choice> {
    let mut moves = Vec::new();
    board.swaps(&mut moves);
    let immediate: Vec<i64> = moves
        .iter()
        .map(|&s| {
            let mut c = *board;
            c.apply_legal(s, scoring, &mut NoRefill).points
        })
        .collect();
    let mut best: Option<Choice> = None;
    let mut consider = |c: Choice| {
        if best.is_none_or(|b| c.value > b.value) {
            best = Some(c);
        }
    };
    match policy {
        Policy::Greedy => {
            for (&s, &p) in moves.iter().zip(&immediate) {
                consider(Choice {
                    swap: s,
                    immediate: p,
                    value: p as f64,
                });
            }
        }
        Policy::Expected(p) => {
            let colours = colours_of(board);
            let mut buf = Vec::new();
            let mean_now = immediate.iter().sum::<i64>() as f64 / immediate.len().max(1) as f64;
            let dead_end = p.dead_end_moves * mean_now;
            for (&s, &imm) in moves.iter().zip(&immediate) {
                let mut total = 0.0;
                for i in 0..p.samples.max(1) {
                    let mut rng =
                        SplitMix64::new(p.seed ^ (i as u64).wrapping_mul(0xA076_1D64_78BD_642F));
                    let mut b = *board;
                    let o = b.apply_legal(
                        s,
                        scoring,
                        &mut RandomRefill {
                            rng: &mut rng,
                            colours: &colours,
                        },
                    );
                    let next = match best_immediate(&b, scoring, &mut buf) {
                        Some(v) => p.next_weight * v as f64,
                        None => -dead_end,
                    };
                    total += o.points as f64 + next;
                }
                consider(Choice {
                    swap: s,
                    immediate: imm,
                    value: total / p.samples.max(1) as f64,
                });
            }
        }
    }
    best
}
