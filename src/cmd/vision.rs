//! `read`, `calibrate` and `replay`. STUB: in progress.

use clap::Args;

#[derive(Args)]
pub struct ReadArgs {
    #[arg(long)]
    game: String,
}
#[derive(Args)]
pub struct CalibrateArgs {
    #[arg(long)]
    game: String,
}
#[derive(Args)]
pub struct ReplayArgs {
    dirs: Vec<std::path::PathBuf>,
}

pub fn read(_a: ReadArgs) -> anyhow::Result<i32> {
    anyhow::bail!("read: not implemented yet")
}
pub fn calibrate(_a: CalibrateArgs) -> anyhow::Result<i32> {
    anyhow::bail!("calibrate: not implemented yet")
}
pub fn replay(_a: ReplayArgs) -> anyhow::Result<i32> {
    anyhow::bail!("replay: not implemented yet")
}
