//! `gridbot tune tetris`: cross-entropy tuning of the Tetris weights.
//!
//! Prints one progress line per generation on stderr and writes the final
//! mean weights as an evaluator TOML (`--out FILE`, else stdout), ready to be
//! checked in as `data/tetris/tuned.toml` or passed to `bench --eval FILE`.

use anyhow::{bail, Context};
use clap::Args;
use gridbot::games::tetris::eval::FEATURE_NAMES;
use gridbot::games::tetris::game::Randomizer;
use gridbot::games::tetris::tune::{cross_entropy, TuneParams};
use gridbot::games::tetris::{GameSetup, SearchParams};

use super::bench_tetris::{load_eval, move_gen};

#[derive(Args)]
pub struct TuneArgs {
    /// Game to tune: tetris.
    #[arg(value_parser = super::game_arg)]
    game: String,
    /// Starting weights: a preset or a TOML file.
    #[arg(long, default_value = "bcts")]
    start: String,
    /// Tuned features, comma separated (default: all).
    #[arg(long)]
    features: Option<String>,
    #[arg(long, default_value_t = 20)]
    generations: usize,
    #[arg(long, default_value_t = 50)]
    population: usize,
    /// Fraction of each generation kept to refit the distribution.
    #[arg(long, default_value_t = 0.2)]
    elite: f64,
    /// Games per weight vector.
    #[arg(long, default_value_t = 10)]
    games: usize,
    /// Starting standard deviation of every tuned weight.
    #[arg(long, default_value_t = 4.0)]
    sigma: f64,
    /// Variance noise added at the first generation, fading to 0.
    #[arg(long, default_value_t = 4.0)]
    noise: f64,
    /// The generation at which the noise reaches 0.
    #[arg(long, default_value_t = 15)]
    noise_until: usize,
    #[arg(long, default_value_t = 10)]
    width: usize,
    #[arg(long, default_value_t = 10)]
    height: usize,
    /// Preview pieces used while tuning.
    #[arg(long, default_value_t = 0)]
    preview: usize,
    #[arg(long, default_value_t = SearchParams::default().beam)]
    beam: usize,
    /// Stop each game after this many pieces.
    #[arg(long, default_value_t = 100_000)]
    max_pieces: u64,
    /// 7-bag piece generator instead of uniform.
    #[arg(long)]
    bag: bool,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads (weight vectors evaluated in parallel).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Name written into the evaluator.
    #[arg(long, default_value = "tuned")]
    name: String,
    /// Write the weights here (TOML) instead of stdout.
    #[arg(long)]
    out: Option<std::path::PathBuf>,
    #[arg(long, default_value = "srs")]
    rotation: String,
}

pub fn run(a: TuneArgs) -> anyhow::Result<i32> {
    if a.game != "tetris" {
        bail!("tune knows only tetris, not {:?}", a.game);
    }
    let start = load_eval(&a.start)?;
    let features: Vec<String> = match &a.features {
        Some(s) => s.split(',').map(|f| f.trim().to_string()).collect(),
        None => FEATURE_NAMES.iter().map(|s| s.to_string()).collect(),
    };
    let params = TuneParams {
        generations: a.generations,
        population: a.population,
        elite: a.elite,
        games: a.games,
        setup: GameSetup {
            width: a.width,
            height: a.height,
            randomizer: if a.bag {
                Randomizer::Bag
            } else {
                Randomizer::Uniform
            },
            max_pieces: Some(a.max_pieces),
        },
        search: SearchParams {
            preview: a.preview,
            beam: a.beam,
            expect: false,
        },
        seed: a.seed,
        features,
        sigma: a.sigma,
        noise: a.noise,
        noise_until: a.noise_until,
    };
    let gen = move_gen(&a.rotation, a.width, a.height, false)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads.max(1))
        .build()
        .context("cannot start worker threads")?;
    let t0 = std::time::Instant::now();
    let eval = pool.install(|| {
        cross_entropy(&gen, &start, &params, &a.name, &mut |r| {
            let w: Vec<String> = FEATURE_NAMES
                .iter()
                .zip(r.weights.to_array())
                .filter(|(n, _)| params.features.iter().any(|f| f == *n))
                .map(|(n, v)| format!("{n}={v:.2}"))
                .collect();
            eprintln!(
                "gen {:3} [{:6.0}s]: lines pop {:.1} elite {:.1} best {:.1} mean-vector {:.1}; \
                 sigma max {:.2}; {}",
                r.generation,
                t0.elapsed().as_secs_f64(),
                r.population_mean,
                r.elite_mean,
                r.best,
                r.mean_vector,
                r.sigma.iter().copied().fold(0.0, f64::max),
                w.join(" ")
            );
        })
    })?;
    let text = format!(
        "# Written by `gridbot tune tetris` ({}x{}, {} generations x {} vectors x {} games, \
         preview {}, seed {}, start {}).\n{}",
        a.width,
        a.height,
        a.generations,
        a.population,
        a.games,
        a.preview,
        a.seed,
        a.start,
        eval.to_toml()
    );
    match &a.out {
        Some(p) => {
            std::fs::write(p, text).with_context(|| format!("cannot write {}", p.display()))?;
            eprintln!("wrote {}", p.display());
        }
        None => print!("{text}"),
    }
    Ok(0)
}
