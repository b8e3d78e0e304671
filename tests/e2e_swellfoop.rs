//! End-to-end against the real Swell Foop under a private Xvfb session.
//!
//! `gridbot_plays_swell_foop_to_the_end` starts Swell Foop (normal size 15x10,
//! 3 colours, a known board loaded through `saved-game`), runs the built
//! `gridbot play ... --json` against its window and checks the run three ways:
//! the summary (no mismatch, score == predicted score), an independent replay
//! of the clicked cells with Swell Foop's rules (every board the bot read, up
//! to a renaming of colours, and the final score), and the score the game
//! itself stored in its high-score file once the game-over dialog is closed.
//! It skips (passes with a message) when Xvfb or the other session tools are
//! missing, and fails on anything else.
//!
//! The other tests here are `#[ignore]`d tools: `capture_fixtures` rewrites
//! `fixtures/swellfoop-*/` (with `GRIDBOT_CAPTURE_FIXTURES=1`), `measure`
//! prints capture and animation timings, and `snap` saves the window of an
//! existing display (see scripts/xsession.sh).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::*;
use gridbot::platform::live::LiveWindow;
use gridbot::platform::FrameSource;

/// Starts a session, or prints why the test is skipped and returns `None`.
fn session_or_skip(test: &str) -> Option<XSession> {
    if let Some(tool) = missing_tool() {
        eprintln!("SKIP {test}: {tool} is not installed (needs xvfb, openbox, dbus, x11-utils)");
        return None;
    }
    match XSession::start() {
        Ok(s) => Some(s),
        Err(e) => panic!("{test}: cannot start the X session: {e}"),
    }
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Moves the pointer to a spot outside every game window (not a corner).
fn park_pointer(s: &XSession) {
    if let Err(e) = s.xdotool(&["mousemove", "20", "1000"]) {
        panic!("cannot park the pointer: {e}");
    }
}

/// Board text (crate format) to rows of cell values; `.` = 0, `?` = 255.
fn parse_board(text: &str) -> Result<Vec<Vec<u8>>, String> {
    text.split('/')
        .map(|row| {
            row.chars()
                .map(|c| match c {
                    '.' => Ok(0),
                    '?' => Ok(255),
                    '0'..='9' => Ok(c as u8 - b'0' + 1),
                    _ => Err(format!("bad cell {c:?} in board {text:?}")),
                })
                .collect()
        })
        .collect()
}

/// True when `read` equals `truth` up to a one-to-one renaming of colours
/// (empty stays empty). `truth` uses 0 for empty, colours 1..=4.
fn same_up_to_colours(read: &[Vec<u8>], truth: &[Vec<u8>]) -> bool {
    if read.len() != truth.len() {
        return false;
    }
    let mut fwd = std::collections::HashMap::new();
    let mut back = std::collections::HashMap::new();
    for (ra, ta) in read.iter().zip(truth) {
        if ra.len() != ta.len() {
            return false;
        }
        for (&r, &t) in ra.iter().zip(ta) {
            if (r == 0) != (t == 0) || r == 255 {
                return false;
            }
            if *fwd.entry(r).or_insert(t) != t || *back.entry(t).or_insert(r) != r {
                return false;
            }
        }
    }
    true
}

/// The board gridbot plays in the end-to-end test: normal size, 3 colours.
fn e2e_board() -> SavedGame {
    let g = SavedGame::random(15, 10, 3, 20240607);
    if let Err(e) = g.validate(3) {
        panic!("the e2e board is not one Swell Foop accepts: {e}");
    }
    g
}

/// Parks the pointer and starts Swell Foop (normal size, 3 colours) on the e2e
/// board; returns the board and the game's window.
fn launch_e2e(s: &mut XSession) -> Result<(SavedGame, WindowInfo), String> {
    let game = e2e_board();
    park_pointer(s);
    let win = s.launch_swell_foop(&SwellFoop {
        size: Size::Normal,
        colors: 3,
        saved: Some(game.clone()),
        theme: None,
    })?;
    Ok((game, win))
}

#[test]
fn gridbot_plays_swell_foop_to_the_end() {
    let test = "gridbot_plays_swell_foop_to_the_end";
    let Some(mut s) = session_or_skip(test) else {
        return;
    };
    // GRIDBOT_E2E_CALIBRATION overrides the file (to try a new calibration).
    let calibration = std::env::var_os("GRIDBOT_E2E_CALIBRATION")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("calibration/swellfoop-normal.toml"));
    assert!(
        calibration.is_file(),
        "{} is missing",
        calibration.display()
    );
    let (game, win) = launch_e2e(&mut s).unwrap_or_else(|e| panic!("{test}: {e}"));
    assert_eq!((win.w, win.h), (760, 556), "unexpected window size {win:?}");
    park_pointer(&s);

    let mut cmd = s.command(env!("CARGO_BIN_EXE_gridbot"));
    cmd.args(["play", "--game", "samegame", "--window", "Swell Foop"])
        .arg("--calibration")
        .arg(&calibration)
        .arg("--json")
        .env("RUST_LOG", "info");
    let (status, stdout, stderr) =
        run_with_timeout(cmd, Duration::from_secs(900)).unwrap_or_else(|e| panic!("{test}: {e}"));
    assert!(
        status.success(),
        "gridbot exited with {status}; stderr tail:\n{}",
        tail(&stderr, 20)
    );

    // Every stdout line is JSON; the last one is the summary.
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
    let num = |k: &str| {
        summary
            .get(k)
            .and_then(|v| v.as_i64())
            .unwrap_or_else(|| panic!("summary has no integer {k:?}: {summary}"))
    };
    eprintln!("{test}: gridbot {last}");
    // Every check runs; the failures are reported together at the end.
    let mut problems: Vec<String> = Vec::new();
    if num("mismatches") != 0 {
        let bad: Vec<String> = moves
            .iter()
            .filter(|m| m.get("mismatch").and_then(|v| v.as_bool()) == Some(true))
            .map(|m| {
                format!(
                    "  move {}: read {} clicked {} expected {}",
                    m["index"], m["board"], m["cell"], m["expected"]
                )
            })
            .collect();
        problems.push(format!(
            "{} mismatches; the moves after which the board differed:\n{}",
            num("mismatches"),
            bad.join("\n")
        ));
    }
    if num("score") != num("predicted_score") {
        problems.push(format!(
            "score {} != predicted_score {}",
            num("score"),
            num("predicted_score")
        ));
    }
    if num("moves") <= 0 || num("moves") as usize != moves.len() {
        problems.push(format!(
            "summary says {} moves, {} move lines were printed",
            num("moves"),
            moves.len()
        ));
    }

    // Replay the clicks independently from the board we loaded.
    let mut truth = game.clone();
    for (i, m) in moves.iter().enumerate() {
        let before = truth
            .replay()
            .unwrap_or_else(|e| panic!("replay: {e}"))
            .board;
        let text = m.get("board").and_then(|b| b.as_str()).unwrap_or("");
        match parse_board(text) {
            Ok(read) if same_up_to_colours(&read, &before) => {}
            Ok(read) => {
                // Did the game ignore the previous click? Then the board is
                // still the one before it.
                let mut undone = truth.clone();
                undone.clicks.pop();
                let prev = undone.replay().map(|r| r.board).unwrap_or_default();
                if i > 0 && same_up_to_colours(&read, &prev) {
                    problems.push(format!(
                        "move {}: Swell Foop ignored the click (the board did not change)",
                        i - 1
                    ));
                    truth = undone;
                } else {
                    problems.push(format!(
                        "move {i}: gridbot read {text}\n  but the game shows {}",
                        board_text(&before)
                    ));
                }
            }
            Err(e) => problems.push(format!("move {i}: board {text:?}: {e}")),
        }
        let Some((row, col)) = m
            .get("cell")
            .and_then(|c| c.as_array())
            .and_then(|c| Some((c.first()?.as_u64()?, c.get(1)?.as_u64()?)))
        else {
            problems.push(format!("move {i} has no \"cell\": [row, col]: {m}"));
            break;
        };
        truth.clicks.push((col as u8, row as u8));
        if let Err(e) = truth.replay() {
            problems.push(format!(
                "move {i}: gridbot clicked a cell that is no move on the real board: {e}"
            ));
            truth.clicks.pop();
            break;
        }
    }
    let end = truth.replay().unwrap_or_else(|e| panic!("replay: {e}"));
    let over = is_over(&end.board);
    if !over {
        problems.push(format!(
            "gridbot stopped before the game ended; the board is {}",
            board_text(&end.board)
        ));
    }
    if num("score") as u64 != end.score {
        problems.push(format!(
            "gridbot's score {} != {} by Swell Foop's rules on the clicks it made",
            num("score"),
            end.score
        ));
    }

    // The game's own count: close the game-over dialog ("Congratulations!",
    // a fresh HOME makes every score a top ten), then Swell Foop writes
    // `SCORE TIMESTAMP USER` to ~/.local/share/swell-foop/scores/normal-3.
    if over {
        let scores = s.home().join(".local/share/swell-foop/scores/normal-3");
        let stored = s.wait_until(
            "Swell Foop to store its score",
            Duration::from_secs(20),
            |s| {
                if let Ok(text) = std::fs::read_to_string(&scores) {
                    return text.split_whitespace().next()?.parse::<i64>().ok();
                }
                if !find_window("congratulations").is_empty() {
                    let _ = s.xdotool(&["key", "Escape"]);
                    std::thread::sleep(Duration::from_millis(300));
                }
                None
            },
        );
        match stored {
            Ok(v) if v == num("score") => {}
            Ok(v) => problems.push(format!(
                "gridbot's score {} != {v}, the score Swell Foop stored",
                num("score")
            )),
            Err(e) => problems.push(e),
        }
    }
    assert!(
        problems.is_empty(),
        "{test}: {} problem(s):\n{}\nsummary: {summary}",
        problems.len(),
        problems.join("\n")
    );
}

/// The session itself: a display that answers, a bus, a window manager, the
/// game settings round-trip, and nothing left running or on disk afterwards.
#[test]
fn xsession_starts_and_cleans_up() {
    let Some(s) = session_or_skip("xsession_starts_and_cleans_up") else {
        return;
    };
    let pids = s.pids();
    assert_eq!(pids.len(), 3, "Xvfb, dbus-daemon, openbox");
    let dir = s.dir().to_path_buf();
    assert!(s.home().is_dir());
    let out = s
        .command("xprop")
        .args(["-root", "_NET_SUPPORTING_WM_CHECK"])
        .output()
        .unwrap_or_else(|e| panic!("xprop: {e}"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("window id"));
    if have_program("/usr/games/swell-foop") {
        let g = SavedGame::from_text("12/21/12/11").unwrap_or_else(|e| panic!("{e}"));
        s.gsettings(&["set", "org.gnome.SwellFoop", "saved-game", &g.to_gvariant()])
            .unwrap_or_else(|e| panic!("{e}"));
        let back = s
            .gsettings(&["get", "org.gnome.SwellFoop", "saved-game"])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(gvariant_numbers(&back), g.numbers(), "{back}");
    }
    drop(s);
    for pid in pids {
        let ps = Command::new("ps")
            .args(["-o", "pid,stat,cmd", "-g", &pid.to_string()])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default();
        assert!(
            !group_alive(pid),
            "process group {pid} survived the session:\n{ps}"
        );
    }
    assert!(!dir.exists(), "{} was not removed", dir.display());
}

/// The rules replay that fixture labels come from, on a hand-checked game.
#[test]
fn saved_game_replay_follows_swell_foop_rules() {
    // Rows top to bottom; columns 2,1,1,1 and 3,2,3,2. Clicking (col 0,
    // row 2) removes the three 1s: 1 point; the 2 above falls.
    let mut g = SavedGame::from_text("23/12/13/12").unwrap_or_else(|e| panic!("{e}"));
    g.clicks.push((0, 2));
    let r = g.replay().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(board_text(&r.board), ".3/.2/.3/22");
    assert_eq!(r.score, 1);
    // The bottom pair of 2s: 0 points; column 0 empties and closes up left.
    g.clicks.push((0, 3));
    let r = g.replay().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(board_text(&r.board), "../3./2./3.");
    assert_eq!(r.score, 1);
    assert!(is_over(&r.board));
    assert!(g.validate(3).is_err(), "a finished game is refused");
    // A click on a single cell is no move.
    let mut bad = SavedGame::from_text("12/21").unwrap_or_else(|e| panic!("{e}"));
    bad.clicks.push((0, 0));
    assert!(bad.replay().is_err());
    // Clearing the board earns 1000.
    let mut clear = SavedGame::from_text("11/22").unwrap_or_else(|e| panic!("{e}"));
    clear.clicks.extend([(0, 0), (0, 1)]);
    assert_eq!(clear.replay().map(|r| r.score), Ok(1000));
    assert_eq!(
        gvariant_numbers("@m(aayqa(yy)) ([[0x01, 0x02]], 0, [(0x0a, 0x01)])"),
        vec![1, 2, 0, 10, 1]
    );
}

/// One fixture screenshot to take.
struct Shot {
    name: &'static str,
    colors: u8,
    /// Seed of the initial board.
    seed: u64,
    /// Greedy clicks stored in the saved game (mid-game boards).
    clicks: usize,
    kind: ShotKind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum ShotKind {
    /// The board as loaded, pointer parked outside the window.
    Still,
    /// The pointer rests on the largest group (drawn brighter).
    Hover,
    /// Play the last move live: the game-over dialog shows; expected `none`.
    GameOver,
}

/// A mid-game board: from `seed` on, the first board whose greedy play
/// reaches, after at least `min_clicks` clicks and before the game ends, a
/// position with an empty right column and a hole in the top row. With
/// `min_clicks == 0` the full initial board.
fn mid_game(cols: usize, rows: usize, colors: u8, seed: u64, min_clicks: usize) -> SavedGame {
    for s in seed..seed + 500 {
        let mut g = SavedGame::random(cols, rows, colors, s);
        if g.validate(colors).is_err() {
            continue;
        }
        if min_clicks == 0 {
            return g;
        }
        for _ in 0..cols * rows {
            if g.play_greedy(1).is_err() {
                break;
            }
            let Ok(r) = g.replay() else { break };
            if is_over(&r.board) {
                break;
            }
            let empty_right = r.board.iter().all(|row| row[cols - 1] == 0);
            let empty_top = r.board[0].contains(&0);
            if g.clicks.len() >= min_clicks && empty_right && empty_top {
                return g;
            }
        }
    }
    panic!("no suitable mid-game board from seed {seed}");
}

/// A board one move before its end: all but the last greedy click stored.
fn before_end(cols: usize, rows: usize, colors: u8, seed: u64) -> (SavedGame, (u8, u8)) {
    for s in seed..seed + 500 {
        let mut g = SavedGame::random(cols, rows, colors, s);
        if g.validate(colors).is_err() || g.play_greedy(1000).is_err() {
            continue;
        }
        let Some(last) = g.clicks.pop() else { continue };
        if g.validate(colors).is_ok() {
            return (g, last);
        }
    }
    panic!("no suitable end-game board from seed {seed}");
}

fn shots(size: Size) -> Vec<Shot> {
    use ShotKind::*;
    let (c, r) = size.dims();
    let mid = (c * r) / 30;
    let shot = |name, colors, seed, clicks, kind| Shot {
        name,
        colors,
        seed,
        clicks,
        kind,
    };
    match size {
        Size::Small => vec![
            shot("c2-full", 2, 11, 0, Still),
            shot("c3-full", 3, 12, 0, Still),
            shot("c4-mid", 4, 13, 2, Still),
            shot("c3-hover", 3, 14, 1, Hover),
            shot("c2-gameover", 2, 15, 0, GameOver),
        ],
        Size::Normal => vec![
            shot("c2-mid", 2, 21, mid, Still),
            shot("c3-full", 3, 22, 0, Still),
            shot("c4-mid", 4, 23, mid, Still),
            shot("c3-hover", 3, 24, mid / 2, Hover),
            shot("c3-gameover", 3, 25, 0, GameOver),
        ],
        Size::Large => vec![
            shot("c2-mid", 2, 31, mid, Still),
            shot("c3-mid", 3, 32, mid, Still),
            shot("c4-full", 4, 33, 0, Still),
            shot("c4-hover", 4, 34, mid, Hover),
            shot("c4-gameover", 4, 35, 0, GameOver),
        ],
    }
}

/// Takes one fixture; returns a line for the directory's `saved-games.tsv`.
fn take(s: &mut XSession, size: Size, shot: &Shot, dir: &Path) -> String {
    let (cols, rows) = size.dims();
    let (game, last) = match shot.kind {
        ShotKind::GameOver => {
            let (g, last) = before_end(cols, rows, shot.colors, shot.seed);
            (g, Some(last))
        }
        _ => (
            mid_game(cols, rows, shot.colors, shot.seed, shot.clicks),
            None,
        ),
    };
    park_pointer(s);
    let win = s
        .launch_swell_foop(&SwellFoop {
            size,
            colors: shot.colors,
            saved: Some(game.clone()),
            theme: None,
        })
        .unwrap_or_else(|e| panic!("{}: {e}", shot.name));
    let board = game.replay().unwrap_or_else(|e| panic!("{e}")).board;
    let mut pointer = String::from("parked");
    let expected = match shot.kind {
        ShotKind::Still => board_text(&board),
        ShotKind::Hover => {
            let mut g = game.clone();
            g.play_greedy(1).unwrap_or_else(|e| panic!("{e}"));
            let (c, r) = g.clicks[g.clicks.len() - 1];
            let (x, y) = cell_centre_in_window(win.w, cols, r as usize, c as usize);
            let (x, y) = ((win.x + x).to_string(), (win.y + y).to_string());
            s.xdotool(&["mousemove", &x, &y])
                .unwrap_or_else(|e| panic!("{e}"));
            pointer = format!("row {r} col {c}");
            std::thread::sleep(Duration::from_millis(500));
            board_text(&board)
        }
        ShotKind::GameOver => {
            let Some((c, r)) = last else {
                panic!("no last move")
            };
            let (x, y) = cell_centre_in_window(win.w, cols, r as usize, c as usize);
            let (x, y) = ((win.x + x).to_string(), (win.y + y).to_string());
            s.xdotool(&["mousemove", &x, &y, "click", "1"])
                .unwrap_or_else(|e| panic!("{e}"));
            park_pointer(s);
            s.wait_until("the game-over dialog", Duration::from_secs(10), |_| {
                (!find_window("congratulations").is_empty()).then_some(())
            })
            .unwrap_or_else(|e| panic!("{}: {e}", shot.name));
            pointer = format!("clicked row {r} col {c}, dialog up");
            std::thread::sleep(Duration::from_millis(700));
            "none".to_string()
        }
    };
    let img = capture_window("swell foop").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((img.width(), img.height()), (win.w, win.h));
    let png = dir.join(format!("{}.png", shot.name));
    save_png_small(&img, &png).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        dir.join(format!("{}.txt", shot.name)),
        format!("{expected}\n"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // Ground truth check: the game saves exactly the game we loaded.
    if shot.kind == ShotKind::GameOver {
        s.stop_game();
    } else {
        let saved = s
            .quit_game_and_read_saved()
            .unwrap_or_else(|e| panic!("{}: {e}", shot.name));
        assert_eq!(
            saved,
            game.numbers(),
            "{}: Swell Foop did not keep the loaded game",
            shot.name
        );
    }
    eprintln!(
        "{}/{}: {} bytes, {expected}",
        dir.display(),
        shot.name,
        std::fs::metadata(&png).map(|m| m.len()).unwrap_or(0)
    );
    format!(
        "{}\t{}\t{}\t{}\t{}",
        shot.name,
        size.name(),
        shot.colors,
        pointer,
        game.to_gvariant()
    )
}

/// Captures Swell Foop's other two tile themes (`boringshapes`, `colors`) in
/// every size, full and mid-game, into `fixtures/uncalibrated/swellfoop-themes/`: real
/// screens of skins the reader was never tuned on, for the no-calibration test
/// in `tests/vision_auto.rs`. Each board is checked against the game's own
/// saved game.
/// `GRIDBOT_CAPTURE_FIXTURES=1 cargo test --test e2e_swellfoop capture_theme_fixtures -- --ignored`
#[test]
#[ignore = "rewrites fixtures; run by hand with GRIDBOT_CAPTURE_FIXTURES=1"]
fn capture_theme_fixtures() {
    if std::env::var("GRIDBOT_CAPTURE_FIXTURES").as_deref() != Ok("1") {
        eprintln!(
            "set GRIDBOT_CAPTURE_FIXTURES=1 to rewrite fixtures/uncalibrated/swellfoop-themes"
        );
        return;
    }
    let Some(mut s) = session_or_skip("capture_theme_fixtures") else {
        return;
    };
    let dir = repo().join("fixtures/uncalibrated/swellfoop-themes");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let mut tsv = vec!["# name\ttheme\tsize\tcolors\tsaved-game (org.gnome.SwellFoop)".to_string()];
    let mut seed = 41;
    for theme in ["boringshapes", "colors"] {
        for size in [Size::Small, Size::Normal, Size::Large] {
            let (cols, rows) = size.dims();
            for (colors, clicks) in [(4u8, 0usize), (3, (cols * rows) / 30)] {
                seed += 1;
                let game = mid_game(cols, rows, colors, seed, clicks);
                park_pointer(&s);
                s.launch_swell_foop(&SwellFoop {
                    size,
                    colors,
                    saved: Some(game.clone()),
                    theme: Some(theme),
                })
                .unwrap_or_else(|e| panic!("{theme} {}: {e}", size.name()));
                let board = game.replay().unwrap_or_else(|e| panic!("{e}")).board;
                let kind = if clicks == 0 { "full" } else { "mid" };
                let name = format!("{theme}-{}-c{colors}-{kind}", size.name());
                let img = capture_window("swell foop").unwrap_or_else(|e| panic!("{e}"));
                let png = dir.join(format!("{name}.png"));
                save_png_small(&img, &png).unwrap_or_else(|e| panic!("{e}"));
                std::fs::write(
                    dir.join(format!("{name}.txt")),
                    format!("{}\n", board_text(&board)),
                )
                .unwrap_or_else(|e| panic!("{e}"));
                let saved = s
                    .quit_game_and_read_saved()
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(
                    saved,
                    game.numbers(),
                    "{name}: the game did not keep the board"
                );
                eprintln!("{}: {}", png.display(), board_text(&board));
                tsv.push(format!(
                    "{name}\t{theme}\t{}\t{colors}\t{}",
                    size.name(),
                    game.to_gvariant()
                ));
            }
        }
    }
    std::fs::write(dir.join("saved-games.tsv"), tsv.join("\n") + "\n")
        .unwrap_or_else(|e| panic!("{e}"));
}

/// Rewrites fixtures/swellfoop-{small,normal,large}/ from scratch.
/// `GRIDBOT_CAPTURE_FIXTURES=1 cargo test --test e2e_swellfoop capture_fixtures -- --ignored`
#[test]
#[ignore = "rewrites fixtures; run by hand with GRIDBOT_CAPTURE_FIXTURES=1"]
fn capture_fixtures() {
    if std::env::var("GRIDBOT_CAPTURE_FIXTURES").as_deref() != Ok("1") {
        eprintln!("set GRIDBOT_CAPTURE_FIXTURES=1 to rewrite fixtures/swellfoop-*");
        return;
    }
    let Some(mut s) = session_or_skip("capture_fixtures") else {
        return;
    };
    for size in [Size::Small, Size::Normal, Size::Large] {
        let dir = repo().join(format!("fixtures/swellfoop-{}", size.name()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let mut tsv =
            vec!["# name\tsize\tcolors\tpointer\tsaved-game (org.gnome.SwellFoop)".to_string()];
        for shot in shots(size) {
            tsv.push(take(&mut s, size, &shot, &dir));
        }
        std::fs::write(dir.join("saved-games.tsv"), tsv.join("\n") + "\n")
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

/// Prints capture time per frame (LiveWindow, this build) and how long the
/// board keeps changing after a click.
/// `cargo test --test e2e_swellfoop measure -- --ignored --nocapture`
#[test]
#[ignore = "a measurement, not a check"]
fn measure() {
    let Some(mut s) = session_or_skip("measure") else {
        return;
    };
    let (game, win) = launch_e2e(&mut s).unwrap_or_else(|e| panic!("{e}"));
    let mut lw = LiveWindow::find("Swell Foop").unwrap_or_else(|e| panic!("{e}"));
    let n = 50;
    let t = Instant::now();
    for _ in 0..n {
        lw.grab().unwrap_or_else(|e| panic!("{e}"));
    }
    let per = t.elapsed() / n;
    eprintln!("LiveWindow::grab of {}x{}: {per:?} per frame", win.w, win.h);

    let mut g = game.clone();
    for k in 0..5 {
        g.play_greedy(1).unwrap_or_else(|e| panic!("{e}"));
        let (c, r) = g.clicks[g.clicks.len() - 1];
        let (x, y) = cell_centre_in_window(win.w, 15, r as usize, c as usize);
        let (x, y) = ((win.x + x).to_string(), (win.y + y).to_string());
        s.xdotool(&["mousemove", &x, &y])
            .unwrap_or_else(|e| panic!("{e}"));
        std::thread::sleep(Duration::from_millis(400));
        s.xdotool(&["click", "1"]).unwrap_or_else(|e| panic!("{e}"));
        let t0 = Instant::now();
        park_pointer(&s);
        let mut prev = lw.grab().unwrap_or_else(|e| panic!("{e}")).image;
        let mut last_change = Duration::ZERO;
        while t0.elapsed() < Duration::from_millis(2000) {
            let img = lw.grab().unwrap_or_else(|e| panic!("{e}")).image;
            if img.as_raw() != prev.as_raw() {
                last_change = t0.elapsed();
            }
            prev = img;
        }
        eprintln!("click {k}: the window last changed {last_change:?} after the click");
    }
    s.stop_game();
}

/// Saves the window titled `GRIDBOT_SNAP_TITLE` (default "Swell Foop") of the
/// current `DISPLAY` to `GRIDBOT_SNAP`.
#[test]
#[ignore = "a tool for scripts/xsession.sh sessions"]
fn snap() {
    let Ok(out) = std::env::var("GRIDBOT_SNAP") else {
        eprintln!("set GRIDBOT_SNAP=FILE.png");
        return;
    };
    let title = std::env::var("GRIDBOT_SNAP_TITLE").unwrap_or_else(|_| "Swell Foop".into());
    for w in find_window("") {
        eprintln!("window {w:?}");
    }
    let img = capture_window(&title).unwrap_or_else(|e| panic!("{e}"));
    save_png_small(&img, Path::new(&out)).unwrap_or_else(|e| panic!("{e}"));
}

/// How reliably does Swell Foop take a click sent through `EnigoSink`, for a
/// few pauses between the pointer move and the press?
/// `cargo test --test e2e_swellfoop click_reliability -- --ignored --nocapture`
#[test]
#[ignore = "a measurement, not a check"]
fn click_reliability() {
    use gridbot::act::{Button, InputEvent};
    use gridbot::platform::live::EnigoSink;
    use gridbot::platform::InputSink;
    let Some(mut s) = session_or_skip("click_reliability") else {
        return;
    };
    let pauses: Vec<u64> = std::env::var("GRIDBOT_PAUSES")
        .ok()
        .map(|v| v.split(',').filter_map(|p| p.parse().ok()).collect())
        .unwrap_or_else(|| vec![30, 100, 300]);
    let hold: u64 = std::env::var("GRIDBOT_HOLD")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let xdo = std::env::var("GRIDBOT_XDOTOOL").is_ok();
    let after: u64 = std::env::var("GRIDBOT_AFTER")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    for pause in pauses {
        let (game, win) = launch_e2e(&mut s).unwrap_or_else(|e| panic!("{e}"));
        let mut lw = LiveWindow::find("Swell Foop").unwrap_or_else(|e| panic!("{e}"));
        let mut sink = EnigoSink::new().unwrap_or_else(|e| panic!("{e}"));
        let mut g = game.clone();
        let mut taken = Vec::new();
        for _ in 0..8 {
            park_pointer(&s);
            std::thread::sleep(Duration::from_millis(300));
            let before = lw.grab().unwrap_or_else(|e| panic!("{e}")).image;
            let mut next = g.clone();
            next.play_greedy(1).unwrap_or_else(|e| panic!("{e}"));
            let Some(&(c, r)) = next.clicks.last() else {
                break;
            };
            let (x, y) = cell_centre_in_window(win.w, 15, r as usize, c as usize);
            let ev = |e: InputEvent, sink: &mut EnigoSink| {
                sink.send(&e).unwrap_or_else(|e| panic!("{e}"));
            };
            ev(
                InputEvent::MoveTo {
                    x: win.x + x,
                    y: win.y + y,
                },
                &mut sink,
            );
            std::thread::sleep(Duration::from_millis(pause));
            ev(InputEvent::Press(Button::Left), &mut sink);
            std::thread::sleep(Duration::from_millis(40));
            ev(InputEvent::Release(Button::Left), &mut sink);
            std::thread::sleep(Duration::from_millis(after));
            ev(InputEvent::MoveTo { x: 20, y: 1000 }, &mut sink);
            std::thread::sleep(Duration::from_millis(800));
            let after = lw.grab().unwrap_or_else(|e| panic!("{e}")).image;
            // Both pictures are taken with the pointer parked outside.
            let changed = before.as_raw() != after.as_raw();
            taken.push(changed);
            if changed {
                g = next;
            }
        }
        eprintln!("pause {pause} ms, hold {hold} ms, park after {after} ms, xdotool {xdo}: clicks taken {taken:?}");
        s.stop_game();
    }
}
