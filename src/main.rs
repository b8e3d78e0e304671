//! The `gridbot` command line: parse, resolve to a config, call the library,
//! map errors to exit codes (0 ok, 1 error, 2 no board found / refused input).

mod cmd;

use clap::{Parser, Subcommand};

/// Screen-reading auto-player for grid puzzle games.
///
/// Without arguments it plays a simulated PopStar/SameGame board end to end
/// (`gridbot play --sim`), which needs no display.
#[derive(Parser)]
#[command(name = "gridbot", version, about, long_about = None)]
struct Cli {
    /// Log level (error, warn, info, debug, trace); also RUST_LOG.
    #[arg(long, global = true, default_value = "info")]
    log: String,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Play a game: read the window (or the simulator), solve, act, verify, repeat.
    Play(cmd::play::PlayArgs),
    /// Read boards from screenshots: one board text line per image.
    Read(cmd::vision::ReadArgs),
    /// Solve one board given as text and print the line of play.
    Solve(cmd::solve::SolveArgs),
    /// Write a calibration (grid geometry and palette) from a screenshot or window.
    Calibrate(cmd::vision::CalibrateArgs),
    /// Read every recorded screenshot under the directories and compare with its label.
    Replay(cmd::vision::ReplayArgs),
    /// Save captures of a game window as PNG files.
    Grab(cmd::vision::GrabArgs),
    /// Run a solver over a file of boards (or whole seeded Tetris games) and report scores and times.
    Bench(cmd::bench::BenchArgs),
    /// Tune a game's evaluation weights (tetris: cross-entropy method).
    Tune(cmd::tune::TuneArgs),
    /// Plan a Girls' Frontline heavy-ordnance circuit from a chip inventory.
    Chips(cmd::chips::ChipsArgs),
}

fn main() {
    let cli = Cli::parse();
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        // enigo warns about every unmapped X modifier: noise for users.
        tracing_subscriber::EnvFilter::new(format!("{},enigo=error", cli.log))
    });
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .without_time()
        .with_target(false)
        .init();
    let result = match cli.command {
        None => cmd::play::run(cmd::play::PlayArgs::default_sim()),
        Some(Command::Play(a)) => cmd::play::run(a),
        Some(Command::Read(a)) => cmd::vision::read(a),
        Some(Command::Solve(a)) => cmd::solve::run(a),
        Some(Command::Calibrate(a)) => cmd::vision::calibrate(a),
        Some(Command::Replay(a)) => cmd::vision::replay(a),
        Some(Command::Bench(a)) => cmd::bench::run(a),
        Some(Command::Grab(a)) => cmd::vision::grab(a),
        Some(Command::Tune(a)) => cmd::tune::run(a),
        Some(Command::Chips(a)) => cmd::chips::run(a),
    };
    match result {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("gridbot: {e:#}");
            std::process::exit(cmd::exit_code(&e));
        }
    }
}
