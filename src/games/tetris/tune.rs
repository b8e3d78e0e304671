//! Tuning the weights with the noisy cross-entropy method.
//!
//! After Szita & Lőrincz, "Learning Tetris Using the Noisy Cross-Entropy
//! Method" (2006), as Thiery & Scherrer used it for BCTS: keep a Gaussian
//! per tuned weight; each generation draw `population` weight vectors, play
//! `games` games with each (the same piece sequences for every vector of a
//! generation: common random numbers), refit the Gaussians to the best
//! `elite` fraction, and add a decreasing noise to the variances so the
//! search does not collapse early (`noise * max(0, 1 - g / noise_until)`).
//!
//! Deterministic for a seed whatever the number of threads: every draw comes
//! from one seeded generator in a fixed order, and each vector's games are
//! independent of the others.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::eval::{Eval, Weights, FEATURES, FEATURE_NAMES};
use super::game::{game_seed, play_game, GameSetup, SplitMix64};
use super::movegen::MoveGen;
use super::search::{Player, SearchParams};
use super::TetrisError;

/// Settings of a tuning run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TuneParams {
    pub generations: usize,
    pub population: usize,
    /// Fraction of the population refitted to.
    pub elite: f64,
    /// Games per weight vector.
    pub games: usize,
    pub setup: GameSetup,
    pub search: SearchParams,
    pub seed: u64,
    /// Names of the tuned features (the others keep the start weights).
    pub features: Vec<String>,
    /// Starting standard deviation of each tuned weight.
    pub sigma: f64,
    /// Variance noise at generation 0, fading to 0 at `noise_until`.
    pub noise: f64,
    pub noise_until: usize,
}

impl Default for TuneParams {
    fn default() -> Self {
        TuneParams {
            generations: 20,
            population: 50,
            elite: 0.2,
            games: 10,
            setup: GameSetup {
                width: 10,
                height: 10,
                randomizer: super::game::Randomizer::Uniform,
                max_pieces: Some(100_000),
            },
            search: SearchParams::default(),
            seed: 1,
            features: FEATURE_NAMES.iter().map(|s| s.to_string()).collect(),
            sigma: 4.0,
            noise: 4.0,
            noise_until: 15,
        }
    }
}

/// What one generation found.
#[derive(Debug, Clone, Serialize)]
pub struct GenerationReport {
    pub generation: usize,
    /// Mean lines of the whole population, of the elite, and of the best vector.
    pub population_mean: f64,
    pub elite_mean: f64,
    pub best: f64,
    /// Mean lines of the refitted mean vector on this generation's games.
    pub mean_vector: f64,
    /// The refitted means.
    pub weights: Weights,
    pub sigma: Vec<f64>,
    /// Pieces played in this generation (all vectors).
    pub pieces: u64,
}

/// Mean lines of an evaluator over games `0..games` of `seed`.
pub fn score(
    gen: &MoveGen,
    eval: &Eval,
    search: SearchParams,
    setup: &GameSetup,
    seed: u64,
    games: usize,
) -> Result<(f64, u64), TetrisError> {
    let mut player = Player::new(eval.clone(), search);
    let mut lines = 0u64;
    let mut pieces = 0u64;
    for i in 0..games {
        let r = play_game(gen, &mut player, setup, game_seed(seed, i as u64))?;
        lines += r.lines;
        pieces += r.pieces;
    }
    Ok((lines as f64 / games.max(1) as f64, pieces))
}

/// Runs the cross-entropy method from `start`; calls `progress` after each
/// generation; returns the final mean weights as an evaluator named `name`.
/// Parallel over the population on the current rayon pool.
pub fn cross_entropy(
    gen: &MoveGen,
    start: &Eval,
    p: &TuneParams,
    name: &str,
    progress: &mut dyn FnMut(&GenerationReport),
) -> Result<Eval, TetrisError> {
    let idx: Vec<usize> = p
        .features
        .iter()
        .map(|f| {
            FEATURE_NAMES
                .iter()
                .position(|n| n == f)
                .ok_or_else(|| TetrisError::BadTuning(format!("unknown feature {f:?}")))
        })
        .collect::<Result<_, _>>()?;
    if p.population < 2 || p.games == 0 || !(0.0..=1.0).contains(&p.elite) {
        return Err(TetrisError::BadTuning(
            "need population >= 2, games >= 1, elite in 0..1".into(),
        ));
    }
    let n_elite = ((p.population as f64 * p.elite).round() as usize).clamp(1, p.population);
    let base = start.weights.to_array();
    let mut mu: Vec<f64> = idx.iter().map(|&i| base[i] as f64).collect();
    let mut sigma: Vec<f64> = vec![p.sigma; idx.len()];
    let mut rng = SplitMix64::new(p.seed);
    let make = |v: &[f64]| {
        let mut a = base;
        for (k, &i) in idx.iter().enumerate() {
            a[i] = v[k] as f32;
        }
        Eval {
            name: name.to_string(),
            tie_break: start.tie_break,
            weights: Weights::from_array(a),
        }
    };
    for g in 0..p.generations {
        let samples: Vec<Vec<f64>> = (0..p.population)
            .map(|_| {
                mu.iter()
                    .zip(&sigma)
                    .map(|(m, s)| m + s * rng.normal())
                    .collect()
            })
            .collect();
        let seed = game_seed(p.seed, 1_000_000 + g as u64);
        let scores: Vec<(f64, u64)> = samples
            .par_iter()
            .map(|v| score(gen, &make(v), p.search, &p.setup, seed, p.games))
            .collect::<Result<_, _>>()?;
        let mut order: Vec<usize> = (0..p.population).collect();
        order.sort_by(|&a, &b| scores[b].0.total_cmp(&scores[a].0).then(a.cmp(&b)));
        let elite: Vec<usize> = order[..n_elite].to_vec();
        let noise = p.noise * (1.0 - g as f64 / p.noise_until.max(1) as f64).max(0.0);
        for k in 0..mu.len() {
            let m = elite.iter().map(|&e| samples[e][k]).sum::<f64>() / n_elite as f64;
            let var = elite
                .iter()
                .map(|&e| (samples[e][k] - m).powi(2))
                .sum::<f64>()
                / n_elite as f64;
            mu[k] = m;
            sigma[k] = (var + noise).sqrt();
        }
        let mean_eval = make(&mu);
        let (mean_vector, mean_pieces) = score(gen, &mean_eval, p.search, &p.setup, seed, p.games)?;
        progress(&GenerationReport {
            generation: g,
            population_mean: scores.iter().map(|s| s.0).sum::<f64>() / p.population as f64,
            elite_mean: elite.iter().map(|&e| scores[e].0).sum::<f64>() / n_elite as f64,
            best: scores[order[0]].0,
            mean_vector,
            weights: mean_eval.weights,
            sigma: sigma.clone(),
            pieces: scores.iter().map(|s| s.1).sum::<u64>() + mean_pieces,
        });
    }
    let _ = FEATURES;
    Ok(make(&mu))
}
