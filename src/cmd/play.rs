//! `gridbot play`. STUB: in progress.

use clap::Args;

#[derive(Args)]
pub struct PlayArgs {
    #[arg(long, default_value = "popstar")]
    game: String,
}

impl PlayArgs {
    pub fn default_sim() -> Self {
        PlayArgs {
            game: "popstar".into(),
        }
    }
}

pub fn run(_a: PlayArgs) -> anyhow::Result<i32> {
    anyhow::bail!("play: not implemented yet")
}
