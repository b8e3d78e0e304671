//! End to end against a real Quadrapassel under Xvfb (issue 5): the bot plays
//! until 200 lines or 15 minutes; no top-out, at least 200 lines, no input
//! outside the window (the safety layer refuses any; keys only here).
//! The bot learns what the rotate key does by watching, then plays each
//! piece with one key script; the test also checks the pointer never moved
//! (a Tetris bot has no business with the mouse) and prints the level reached
//! and the time from a piece on screen to its keys sent.

mod common;

use common::*;

#[test]
fn gridbot_plays_quadrapassel_for_200_lines() {
    let test = "gridbot_plays_quadrapassel_for_200_lines";
    if let Some(tool) = missing_tool() {
        eprintln!("SKIP {test}: {tool} is not installed");
        return;
    }
    if !have_program("/usr/games/quadrapassel") {
        eprintln!("SKIP {test}: quadrapassel is not installed");
        return;
    }
    let mut s = XSession::start().unwrap_or_else(|e| panic!("{test}: cannot start X: {e}"));
    s.launch_quadrapassel()
        .unwrap_or_else(|e| panic!("{test}: {e}"));
    let pointer = |s: &XSession| {
        s.command("xdotool")
            .arg("getmouselocation")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default()
    };
    let pointer_before = pointer(&s);
    let out = s
        .command(env!("CARGO_BIN_EXE_gridbot"))
        .args([
            "play",
            "--game",
            "tetris",
            "--window",
            "Quadrapassel",
            "--json",
        ])
        .args(["--lines", "200", "--max-seconds", "900"])
        .env("RUST_LOG", "info")
        .output()
        .unwrap_or_else(|e| panic!("{test}: cannot run gridbot: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "gridbot failed: {}",
        stderr.lines().rev().take(20).collect::<Vec<_>>().join("\n")
    );
    let summary: serde_json::Value = stdout
        .lines()
        .rev()
        .find_map(|l| {
            serde_json::from_str::<serde_json::Value>(l)
                .ok()?
                .get("summary")
                .cloned()
        })
        .unwrap_or_else(|| panic!("{test}: no summary; stderr: {stderr}"));
    let lines = summary["score"].as_u64().unwrap_or(0);
    eprintln!(
        "{test}: {lines} lines, level {} (Quadrapassel: 1 + lines / 10), {} pieces, {} mismatches, \
         {} steered; piece on screen to keys sent: mean {:.1} ms, max {:.1} ms",
        lines / 10 + 1,
        summary["moves"],
        summary["mismatches"],
        summary["steered"],
        summary["mean_latency_ms"].as_f64().unwrap_or(f64::NAN),
        summary["max_latency_ms"].as_f64().unwrap_or(f64::NAN),
    );
    assert_eq!(pointer(&s), pointer_before, "the pointer moved");
    assert_eq!(summary["game_over"], serde_json::json!(false), "topped out");
    assert!(lines >= 200, "only {lines} lines");
}
