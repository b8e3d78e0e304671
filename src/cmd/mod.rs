//! Subcommand front ends: argument structs and the glue that calls the library.

pub mod bench;
pub mod bench_match3;
pub mod bench_pad;
pub mod bench_tetris;
pub mod chips;
pub mod play;
pub mod play_match3;
pub mod play_tetris;
pub mod solve;
pub mod tune;
pub mod vision;

/// `--game` values: the canonical name of what was typed
/// ([`gridbot::games::canonical_name`]); unknown names pass unchanged and
/// are refused by the command with the list of known ones.
pub fn game_arg(s: &str) -> Result<String, std::convert::Infallible> {
    Ok(gridbot::games::canonical_name(s))
}

/// Exit code for an error: 2 when the screen showed no usable board, else 1.
pub fn exit_code(e: &anyhow::Error) -> i32 {
    if let Some(v) = e.downcast_ref::<gridbot::vision::VisionError>() {
        if v.is_no_board() {
            return 2;
        }
    }
    1
}

/// True when a display to find windows on is set (`DISPLAY` or
/// `WAYLAND_DISPLAY`, not empty).
pub fn has_display() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|d| !d.is_empty()))
}
