//! End to end against the real Gweled under Xvfb: `gridbot play --game
//! gweled --window Gweled` plays 50 swaps of an Endless game (no level-ups:
//! Endless has no bonus round that deletes random gems), and every swap is
//! checked from the outside:
//!
//! - every swap is legal and the board the bot read next is what the rules
//!   predict on every cell they know (only refilled cells are free), or a
//!   refill cascade explains the difference, or (at most twice) Gweled dealt
//!   a new board because no swap was left;
//! - each move's "seen" board is the next move's "board" (one reading chain);
//! - every pointer point lies inside the game window;
//! - at the end the game is quit with "save the current game? Yes", and the
//!   board Gweled saved must be the bot's last reading (up to colour
//!   numbering); its score and gem count must be at least what Gweled's
//!   rules give for the bot's swaps without refill lines.
//!
//! Skips (with a SKIP line) only when Xvfb, openbox, dbus or Gweled are missing.

mod common;

use std::path::PathBuf;

use std::time::Duration;

use common::*;
use gridbot::board::{Board, Cell};
use gridbot::games::match3::explain;

const SWAPS: usize = 50;

/// Starts a session with Gweled on an Endless game, or says why not.
fn gweled_or_skip(test: &str) -> Option<(XSession, WindowInfo)> {
    if let Some(tool) = missing_tool() {
        eprintln!("SKIP {test}: {tool} is not installed (needs xvfb, openbox, dbus, x11-utils)");
        return None;
    }
    for need in ["/usr/games/gweled", "xdotool"] {
        if !have_program(need) {
            eprintln!("SKIP {test}: {need} is not installed (scripts/deps.sh --e2e)");
            return None;
        }
    }
    let mut s =
        XSession::start().unwrap_or_else(|e| panic!("{test}: cannot start the X session: {e}"));
    let win = s
        .launch_gweled()
        .unwrap_or_else(|e| panic!("{test}: cannot start Gweled: {e}"));
    s.gweled_start(&win, GweledMode::Endless)
        .unwrap_or_else(|e| panic!("{test}: cannot start a game: {e}"));
    Some((s, win))
}

fn cells(v: &serde_json::Value) -> Vec<[i64; 2]> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|p| Some([p.get(0)?.as_i64()?, p.get(1)?.as_i64()?]))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn gridbot_plays_50_gweled_swaps() {
    let test = "gridbot_plays_50_gweled_swaps";
    let Some((mut s, win)) = gweled_or_skip(test) else {
        return;
    };
    let mut cmd = s.command(env!("CARGO_BIN_EXE_gridbot"));
    cmd.args(["play", "--game", "gweled", "--window", "Gweled", "--json"])
        .args(["--moves", &SWAPS.to_string()])
        .env("RUST_LOG", "info");
    let (ok, stdout, stderr) =
        run_with_timeout(cmd, Duration::from_secs(240)).unwrap_or_else(|e| panic!("{test}: {e}"));
    let ok = ok.success();
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let (last, moves) = lines
        .split_last()
        .unwrap_or_else(|| panic!("gridbot printed nothing; stderr:\n{}", tail(&stderr, 20)));
    let summary = last
        .get("summary")
        .unwrap_or_else(|| panic!("last line is not a summary: {last}"));
    eprintln!("{test}: {summary}");
    let num = |k: &str| summary.get(k).and_then(|v| v.as_i64()).unwrap_or(-1);
    let mut problems: Vec<String> = Vec::new();
    // The verifier decides whether some refill explains each seen board
    // (games::match3::explain), so a refill cascade is never a mismatch;
    // except past its bound of a board's height of refills per column, which
    // real swaps sometimes need (docs/gweled.md): a mismatch that some refill
    // of up to twice that explains is tolerated, any other fails the test.
    let beyond_bound = moves
        .iter()
        .filter(|m| m.get("verdict").and_then(|v| v.as_str()) == Some("mismatch"))
        .filter(|m| explained_with_more_refills(m))
        .count() as i64;
    let only_tolerated = num("illegal") == 0 && num("mismatches") == beyond_bound;
    if !ok && !only_tolerated {
        problems.push(format!(
            "gridbot failed; stderr tail:\n{}",
            tail(&stderr, 20)
        ));
    }
    if moves.len() != SWAPS || num("moves") != SWAPS as i64 {
        problems.push(format!(
            "{} move lines, summary moves {}, wanted {SWAPS}",
            moves.len(),
            num("moves")
        ));
    }
    let mut cascades = 0;
    let mut new_boards = 0;
    for (i, m) in moves.iter().enumerate() {
        let verdict = m.get("verdict").and_then(|v| v.as_str()).unwrap_or("");
        match verdict {
            "exact" => {}
            "refill-cascade" => cascades += 1,
            // Gweled deals a new board when the cascade leaves no legal swap
            // (Endless and level 1); most cells change at once. Allowed, and
            // the new board must have a legal swap (it is the next "board").
            "new-board" => new_boards += 1,
            _ => {
                let what = format!(
                    "swap {i}: {verdict}: read {} swapped {} expected {} seen {} (cells {})",
                    m["board"], m["swap"], m["expected"], m["seen"], m["mismatched"]
                );
                if verdict == "mismatch" && explained_with_more_refills(m) {
                    eprintln!("{test}: tolerated: {what}");
                } else {
                    problems.push(what);
                }
            }
        }
        // One reading chain: what was seen after a swap is what the next starts from.
        if let Some(next) = moves.get(i + 1) {
            if m["seen"] != next["board"] {
                problems.push(format!(
                    "swap {i}: seen {} but swap {} read {}",
                    m["seen"],
                    i + 1,
                    next["board"]
                ));
            }
        }
        // Input only inside the game window.
        let w = &m["window"];
        let (x, y, ww, wh) = (
            w["x"].as_i64().unwrap_or(-1),
            w["y"].as_i64().unwrap_or(-1),
            w["w"].as_i64().unwrap_or(0),
            w["h"].as_i64().unwrap_or(0),
        );
        let pts = cells(&m["points"]);
        if pts.len() < 2 {
            problems.push(format!("swap {i}: {} pointer points", pts.len()));
        }
        for [px, py] in pts {
            if px < x || py < y || px >= x + ww || py >= y + wh {
                problems.push(format!(
                    "swap {i}: point ({px},{py}) outside the window {w}"
                ));
            }
        }
        if (x, y, ww as u32, wh as u32) != (win.x as i64, win.y as i64, win.w, win.h) {
            problems.push(format!("swap {i}: window {w}, the test saw {win:?}"));
        }
    }
    // The frozen cells (below every clear) only change in a refill cascade.
    // Gweled's deals are random: a fresh-clone CI run of 2026-12-02 saw 3
    // in 50 swaps with no mismatch and an unbroken reading chain (another
    // run of the same code: 0). A misread taken for a new board breaks
    // the chain above; more than one in ten swaps is more than the game.
    if new_boards > SWAPS / 10 {
        problems.push(format!(
            "{new_boards} new boards in {SWAPS} swaps: more than Gweled deals"
        ));
    }
    if !only_tolerated {
        problems.push(format!(
            "summary: {} mismatches, {} illegal",
            num("mismatches"),
            num("illegal")
        ));
    }

    // Gweled's own record: quit, save, read the saved game.
    match s.gweled_quit_and_read_saved() {
        Ok(saved) => {
            let last_seen = moves
                .last()
                .and_then(|m| m["seen"].as_str())
                .unwrap_or("")
                .to_string();
            if !same_up_to_colours(&last_seen, &saved.board_text()) {
                problems.push(format!(
                    "gridbot's last reading {last_seen} is not Gweled's saved board {}",
                    saved.board_text()
                ));
            }
            // Refilled gems that make lines score too, unseen by the model
            // (a line of refilled gems only changes no known cell), so the
            // model's count is a lower bound of the game's, and so is the
            // number of gems it saw cleared.
            let model = num("gweled_score");
            if saved.score < model || model <= 0 {
                problems.push(format!(
                    "Gweled scored {}, the model's lower bound is {model}",
                    saved.score
                ));
            }
            if saved.removed < num("cleared") {
                problems.push(format!(
                    "Gweled removed {} gems, the model saw {} cleared",
                    saved.removed,
                    num("cleared")
                ));
            }
            eprintln!(
                "{test}: Gweled's score {} (model without refill lines {model}, {cascades} refill cascades)",
                saved.score
            );
        }
        Err(e) => problems.push(format!("reading Gweled's saved game: {e}")),
    }
    assert!(
        problems.is_empty(),
        "{test}: {} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// True for a move line whose seen board some refill explains when a column
/// may take up to twice the board's height of refills (the bot's verifier
/// stops at once the height).
fn explained_with_more_refills(m: &serde_json::Value) -> bool {
    let boards = (
        m["board"].as_str().and_then(|b| b.parse::<Board>().ok()),
        m["seen"].as_str().and_then(|b| b.parse::<Board>().ok()),
    );
    let (Some(before), Some(seen)) = boards else {
        return false;
    };
    let cell = |k: usize| -> Option<Cell> {
        let c = &m["swap"][k];
        Some(Cell::new(c[0].as_u64()? as usize, c[1].as_u64()? as usize))
    };
    let (Some(x), Some(y)) = (cell(0), cell(1)) else {
        return false;
    };
    if x.row.max(y.row) >= before.rows() || x.col.max(y.col) >= before.cols() {
        return false;
    }
    let mut after = before.clone();
    after.set(x.row, x.col, before.get(y.row, y.col));
    after.set(y.row, y.col, before.get(x.row, x.col));
    let limits = explain::Limits {
        max_column_refills: Some(2 * before.rows()),
        ..explain::Limits::DEFAULT
    };
    let colours = explain::palette_of(&[&before, &seen]);
    explain::explain(&after, &seen, colours, &limits).consistency
        == explain::Consistency::Consistent
}

/// The same board up to a renaming of colours (the bot's palette indices are
/// not Gweled's gem numbers): a bijection must map one onto the other.
fn same_up_to_colours(a: &str, b: &str) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut fwd = std::collections::HashMap::new();
    let mut back = std::collections::HashMap::new();
    a.chars().zip(b.chars()).all(|(x, y)| {
        if x == '/' || y == '/' {
            return x == y;
        }
        *fwd.entry(x).or_insert(y) == y && *back.entry(y).or_insert(x) == x
    })
}

/// The recorded screenshots read exactly as labelled, and the labels are
/// the boards Gweled itself saved at that moment (its gem numbers, as
/// printed by `capture_fixtures`), up to the colour numbering. No X needed.
#[test]
fn gweled_fixtures_read_exactly() {
    use gridbot::vision::{load_image, read_board, Calibration};
    let cal = Calibration::load(&repo().join("calibration/gweled.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    let cases = [
        (
            "start",
            "06365514/30026430/21241522/14543463/55100604/23453065/46612216/31021314",
        ),
        (
            "played",
            "66400311/43055264/01613636/12213150/51346451/44260320/24532133/63430145",
        ),
    ];
    for (name, gweled) in cases {
        let dir = repo().join("fixtures/gweled");
        let img = load_image(&dir.join(format!("{name}.png"))).unwrap_or_else(|e| panic!("{e}"));
        let r = read_board(&img, &cal).unwrap_or_else(|e| panic!("{name}: {e}"));
        let label = std::fs::read_to_string(dir.join(format!("{name}.txt")))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!((r.board.rows(), r.board.cols()), (8, 8));
        assert_eq!(r.board.to_string(), label.trim(), "{name}: read vs label");
        assert!(
            same_up_to_colours(label.trim(), gweled),
            "{name}: label {} is not Gweled's board {gweled}",
            label.trim()
        );
        // Every cell is well inside its colour's tolerance.
        let worst = r.distances.iter().copied().fold(0.0f32, f32::max);
        assert!(
            worst < cal.palette.threshold / 2.0,
            "{name}: worst ΔE {worst}"
        );
    }
}

#[test]
fn colour_renaming_is_a_bijection() {
    assert!(same_up_to_colours("01/10", "45/54"));
    assert!(!same_up_to_colours("01/10", "44/54"));
    assert!(!same_up_to_colours("00/10", "45/54"));
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Records `fixtures/gweled/{start,played}.png` and their labels: the board
/// read with `calibration/gweled.toml`, checked against the board Gweled
/// itself saves on quit (up to the colour numbering). `played` is taken
/// after 3 swaps by gridbot. Run by hand:
/// `cargo test --test e2e_gweled capture_fixtures -- --ignored`.
#[test]
#[ignore]
fn capture_fixtures() {
    use gridbot::platform::live::LiveWindow;
    use gridbot::platform::FrameSource;
    use gridbot::vision::{read_board, Calibration};
    let test = "capture_fixtures";
    let cal = Calibration::load(&repo().join("calibration/gweled.toml"))
        .unwrap_or_else(|e| panic!("{test}: {e}"));
    let dir = repo().join("fixtures/gweled");
    for (name, swaps) in [("start", 0), ("played", 3)] {
        let Some((mut s, _)) = gweled_or_skip(test) else {
            return;
        };
        if swaps > 0 {
            let mut cmd = s.command(env!("CARGO_BIN_EXE_gridbot"));
            cmd.args(["play", "--game", "gweled", "--window", "Gweled"])
                .args(["--moves", &swaps.to_string()]);
            let (ok, _, stderr) = run_with_timeout(cmd, Duration::from_secs(60))
                .unwrap_or_else(|e| panic!("{test}: {e}"));
            assert!(
                ok.success(),
                "{test}: gridbot failed: {}",
                tail(&stderr, 10)
            );
        }
        let img = LiveWindow::find("Gweled")
            .and_then(|mut w| w.grab())
            .unwrap_or_else(|e| panic!("{test}: {e}"))
            .image;
        let read = read_board(&img, &cal)
            .unwrap_or_else(|e| panic!("{test}: {e}"))
            .board
            .to_string();
        let saved = s
            .gweled_quit_and_read_saved()
            .unwrap_or_else(|e| panic!("{test}: {e}"));
        assert!(
            same_up_to_colours(&read, &saved.board_text()),
            "{test}: read {read}, Gweled saved {}",
            saved.board_text()
        );
        save_png_small(&img, &dir.join(format!("{name}.png"))).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.join(format!("{name}.txt")), format!("{read}\n"))
            .unwrap_or_else(|e| panic!("{e}"));
        eprintln!("{test}: {name}: {read} (Gweled: {})", saved.board_text());
    }
}

/// Live policy against greedy on the real game: 3 games of 50 swaps each,
/// fresh Gweled each game, in-game score from the game Gweled saves on quit.
/// `GWELED_MODE=normal` plays Normal games (level-ups, bonus deletions)
/// instead of Endless; `GWELED_GAMES=N` changes the count. Run by hand:
/// `cargo test --test e2e_gweled measure_policies -- --ignored --nocapture`.
#[test]
#[ignore]
fn measure_policies() {
    let test = "measure_policies";
    let mode = match std::env::var("GWELED_MODE").as_deref() {
        Ok("normal") => GweledMode::Normal,
        _ => GweledMode::Endless,
    };
    let games: usize = std::env::var("GWELED_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let mut table = Vec::new();
    for policy in ["expected", "greedy"] {
        let mut scores = Vec::new();
        for g in 0..games {
            if missing_tool().is_some() || !have_program("/usr/games/gweled") {
                eprintln!("SKIP {test}: Xvfb, openbox or Gweled missing");
                return;
            }
            let mut s = XSession::start().unwrap_or_else(|e| panic!("{test}: {e}"));
            let win = s.launch_gweled().unwrap_or_else(|e| panic!("{test}: {e}"));
            s.gweled_start(&win, mode)
                .unwrap_or_else(|e| panic!("{test}: {e}"));
            let mut cmd = s.command(env!("CARGO_BIN_EXE_gridbot"));
            cmd.args(["play", "--game", "gweled", "--window", "Gweled", "--json"])
                .args(["--moves", &SWAPS.to_string(), "--policy", policy]);
            let (_, stdout, stderr) = run_with_timeout(cmd, Duration::from_secs(300))
                .unwrap_or_else(|e| panic!("{test}: {e}"));
            let summary = stdout
                .lines()
                .last()
                .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
                .and_then(|v| v.get("summary").cloned())
                .unwrap_or_else(|| panic!("{test}: no summary; stderr {}", tail(&stderr, 10)));
            let saved = s
                .gweled_quit_and_read_saved()
                .unwrap_or_else(|e| panic!("{test}: {e}"));
            eprintln!(
                "{test}: {policy} game {g}: Gweled score {} (level {}, {} gems removed); bot: {summary}",
                saved.score, saved.level, saved.removed
            );
            if summary.get("mismatches").and_then(|v| v.as_i64()) != Some(0) {
                let warns: Vec<&str> = stderr.lines().filter(|l| l.contains("differs")).collect();
                eprintln!("{test}: mismatches:\n{}", warns.join("\n"));
            }
            scores.push(saved.score as f64);
        }
        let mean = scores.iter().sum::<f64>() / scores.len().max(1) as f64;
        table.push(format!("{policy}: scores {scores:?}, mean {mean:.1}"));
    }
    eprintln!(
        "{test} ({mode:?}, {SWAPS} swaps a game):\n{}",
        table.join("\n")
    );
}
