//! A practice window for orb-drag end-to-end tests: a real X window showing
//! a board of plain coloured orbs that a pointer can drag (press on an orb,
//! move, release), with the rules of `gridbot::games::pad`: the held orb
//! swaps with each cell it enters (diagonals too), and on release the board
//! resolves. Each drag is appended to `--out` as one JSON line (`round`,
//! `before`, `path` as `[row, col]` pairs, `combos`, `after`); the resolved
//! board stays on screen for `--show-ms`, then the next board (seeded) comes.
//!
//! A cell counts as entered when the pointer comes within 40% of a cell's
//! size of its centre, so a straight diagonal move through a corner never
//! touches the orthogonal neighbours. It is a test double: small on purpose.
//!
//! With `--phone` the window is phone-shaped (portrait, 9:16) with the board
//! at the bottom and a busy "team and enemy" picture above it, in orb-like
//! colours, as Puzzle & Dragons looks on a phone.
//!
//! Usage: `cargo run --example pad_practice -- [--board TEXT] [--rows 5 --cols 6]
//!         [--seed S] [--cell PX] [--phone] [--colours K] [--out FILE] [--show-ms MS] [--title T]`

use std::io::Write;

use gridbot::board::{Board, EMPTY};
use gridbot::games::pad::Orbs;
use gridbot::rng::SplitMix64;
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{
    Arc, AtomEnum, ChangeGCAux, ConnectionExt, CreateGCAux, CreateWindowAux, EventMask, PropMode,
    Rectangle, WindowClass,
};
use x11rb::protocol::Event;
use x11rb::wrapper::ConnectionExt as _;

type Error = Box<dyn std::error::Error>;

/// Fire, water, wood, light, dark, heal, jammer, poison.
const COLOURS: [u32; 8] = [
    0xe03c31, 0x2f7de1, 0x3cb84a, 0xf2d03b, 0x9b4dca, 0xf07cc0, 0x8c8c8c, 0x5b2a6e,
];
const BACKGROUND: u32 = 0x201a16;

struct Args {
    board: Option<String>,
    rows: usize,
    cols: usize,
    seed: u64,
    cell: u16,
    phone: bool,
    colours: usize,
    out: Option<String>,
    show_ms: u64,
    title: String,
}

fn args() -> Result<Args, Error> {
    let mut a = Args {
        board: None,
        rows: 5,
        cols: 6,
        seed: 1,
        cell: 80,
        phone: false,
        colours: 6,
        out: None,
        show_ms: 400,
        title: "gridbot pad practice".into(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let mut v = || it.next().ok_or(format!("{k} needs a value"));
        match k.as_str() {
            "--board" => a.board = Some(v()?),
            "--rows" => a.rows = v()?.parse()?,
            "--cols" => a.cols = v()?.parse()?,
            "--seed" => a.seed = v()?.parse()?,
            "--cell" => a.cell = v()?.parse()?,
            "--phone" => a.phone = true,
            "--colours" => a.colours = v()?.parse::<usize>()?.clamp(1, COLOURS.len()),
            "--out" => a.out = Some(v()?),
            "--show-ms" => a.show_ms = v()?.parse()?,
            "--title" => a.title = v()?,
            _ => return Err(format!("unknown argument {k}").into()),
        }
    }
    Ok(a)
}

fn random_board(rows: usize, cols: usize, colours: usize, rng: &mut SplitMix64) -> Board {
    Board::from_cells(
        rows,
        cols,
        (0..rows * cols).map(|_| rng.below(colours) as u8).collect(),
    )
}

/// The phone layout's picture above the board: a dark sky, a band of five
/// "team" portraits in orb colours, and an "enemy" of overlapping discs.
fn draw_art(
    conn: &impl Connection,
    win: u32,
    gc: u32,
    w: u16,
    board_top: u16,
) -> Result<(), Error> {
    let fill = |colour: u32, r: Rectangle| -> Result<(), Error> {
        conn.change_gc(gc, &ChangeGCAux::new().foreground(colour))?;
        conn.poly_fill_rectangle(win, gc, &[r])?;
        Ok(())
    };
    fill(
        0x1b2a44,
        Rectangle {
            x: 0,
            y: 0,
            width: w,
            height: board_top,
        },
    )?;
    // Team band just above the board.
    let slot = w / 6;
    for k in 0..6u16 {
        fill(
            COLOURS[k as usize % 6],
            Rectangle {
                x: (k * slot + slot / 10) as i16,
                y: (board_top - slot - slot / 8) as i16,
                width: slot * 8 / 10,
                height: slot * 8 / 10,
            },
        )?;
    }
    // Enemy: discs in the middle of the sky.
    for (k, &(fx, fy, fr)) in [
        (0.5f32, 0.3f32, 0.22f32),
        (0.38, 0.36, 0.12),
        (0.62, 0.36, 0.12),
    ]
    .iter()
    .enumerate()
    {
        let r = (fr * w as f32) as u16;
        conn.change_gc(gc, &ChangeGCAux::new().foreground(COLOURS[(k + 3) % 8]))?;
        conn.poly_fill_arc(
            win,
            gc,
            &[Arc {
                x: (fx * w as f32) as i16 - r as i16,
                y: (fy * board_top as f32) as i16 - r as i16,
                width: 2 * r,
                height: 2 * r,
                angle1: 0,
                angle2: 360 * 64,
            }],
        )?;
    }
    // A status bar with "text" blocks.
    fill(
        0x000000,
        Rectangle {
            x: 0,
            y: 0,
            width: w,
            height: w / 14,
        },
    )?;
    for k in 0..4u16 {
        fill(
            0xd0d0d0,
            Rectangle {
                x: (w / 30 + k * w / 12) as i16,
                y: (w / 50) as i16,
                width: w / 16,
                height: w / 40,
            },
        )?;
    }
    Ok(())
}

fn main() -> Result<(), Error> {
    let a = args()?;
    let mut rng = SplitMix64::new(a.seed);
    let mut board = match &a.board {
        Some(t) => t.parse::<Board>()?,
        None => random_board(a.rows, a.cols, a.colours, &mut rng),
    };
    let (rows, cols) = (board.rows(), board.cols());
    let (geo, _) = Orbs::from_board(&board).ok_or("the board is too large or has unread cells")?;
    let cell = a.cell;
    // The board's top-left corner in the window.
    let (w, h, ox, oy) = if a.phone {
        let w = cell * cols as u16;
        let h = w * 16 / 9;
        (w, h, 0i16, (h - cell * rows as u16 - cell / 4) as i16)
    } else {
        (cell * cols as u16, cell * rows as u16, 0, 0)
    };

    let (conn, screen_num) = x11rb::connect(None)?;
    let screen = &conn.setup().roots[screen_num];
    let win = conn.generate_id()?;
    conn.create_window(
        x11rb::COPY_DEPTH_FROM_PARENT,
        win,
        screen.root,
        0,
        0,
        w,
        h,
        0,
        WindowClass::INPUT_OUTPUT,
        0,
        &CreateWindowAux::new()
            .background_pixel(BACKGROUND)
            .event_mask(
                EventMask::EXPOSURE
                    | EventMask::BUTTON_PRESS
                    | EventMask::BUTTON_RELEASE
                    | EventMask::BUTTON1_MOTION,
            ),
    )?;
    let utf8 = conn.intern_atom(false, b"UTF8_STRING")?.reply()?.atom;
    let net_name = conn.intern_atom(false, b"_NET_WM_NAME")?.reply()?.atom;
    conn.change_property8(
        PropMode::REPLACE,
        win,
        AtomEnum::WM_NAME,
        AtomEnum::STRING,
        a.title.as_bytes(),
    )?;
    conn.change_property8(PropMode::REPLACE, win, net_name, utf8, a.title.as_bytes())?;
    let gc = conn.generate_id()?;
    conn.create_gc(gc, win, &CreateGCAux::new())?;
    conn.map_window(win)?;
    conn.flush()?;

    let draw = |b: &Board| -> Result<(), Error> {
        conn.change_gc(gc, &ChangeGCAux::new().foreground(BACKGROUND))?;
        conn.poly_fill_rectangle(
            win,
            gc,
            &[Rectangle {
                x: 0,
                y: 0,
                width: w,
                height: h,
            }],
        )?;
        if a.phone {
            draw_art(&conn, win, gc, w, oy as u16)?;
        }
        for r in 0..rows {
            for c in 0..cols {
                let v = b.get(r, c);
                if v == EMPTY || v as usize >= COLOURS.len() {
                    continue;
                }
                let pad = (cell / 10) as i16;
                let d = cell - 2 * pad as u16;
                conn.change_gc(gc, &ChangeGCAux::new().foreground(COLOURS[v as usize]))?;
                conn.poly_fill_arc(
                    win,
                    gc,
                    &[Arc {
                        x: ox + (c as u16 * cell) as i16 + pad,
                        y: oy + (r as u16 * cell) as i16 + pad,
                        width: d,
                        height: d,
                        angle1: 0,
                        angle2: 360 * 64,
                    }],
                )?;
            }
        }
        conn.flush()?;
        Ok(())
    };
    // The cell whose centre the pointer is near, if any.
    let near = |x: i16, y: i16| -> Option<usize> {
        let (x, y) = ((x - ox) as i32, (y - oy) as i32);
        let (cz, r, c) = (cell as i32, y / cell as i32, x / cell as i32);
        if x < 0 || y < 0 || r >= rows as i32 || c >= cols as i32 {
            return None;
        }
        let (dx, dy) = (x - c * cz - cz / 2, y - r * cz - cz / 2);
        (dx.abs() * 10 <= cz * 4 && dy.abs() * 10 <= cz * 4)
            .then_some(r as usize * cols + c as usize)
    };
    let mut out = match &a.out {
        Some(p) => Some(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(p)?,
        ),
        None => None,
    };
    let mut path: Vec<usize> = Vec::new();
    let mut before = board.clone();
    let mut round = 0u64;
    loop {
        match conn.wait_for_event()? {
            Event::Expose(_) => draw(&board)?,
            Event::ButtonPress(e) if e.detail == 1 => {
                path.clear();
                before = board.clone();
                if let Some(i) = near(e.event_x, e.event_y) {
                    path.push(i);
                }
            }
            Event::MotionNotify(e) => {
                let (Some(&last), Some(i)) = (path.last(), near(e.event_x, e.event_y)) else {
                    continue;
                };
                let (lr, lc, r, c) = (last / cols, last % cols, i / cols, i % cols);
                if i != last && lr.abs_diff(r) <= 1 && lc.abs_diff(c) <= 1 {
                    let (va, vb) = (board.get(lr, lc), board.get(r, c));
                    board.set(lr, lc, vb);
                    board.set(r, c, va);
                    path.push(i);
                    draw(&board)?;
                }
            }
            Event::ButtonRelease(e) if e.detail == 1 && !path.is_empty() => {
                let (_, orbs) = Orbs::from_board(&board).ok_or("unreadable board")?;
                let res = orbs.resolve(&geo);
                let after = res.after.to_board(&geo);
                let line = serde_json::json!({
                    "round": round,
                    "before": before.to_string(),
                    "path": path.iter().map(|&i| [i / cols, i % cols]).collect::<Vec<_>>(),
                    "combos": res.combos.len(),
                    "after": after.to_string(),
                });
                if let Some(f) = out.as_mut() {
                    writeln!(f, "{line}")?;
                    f.flush()?;
                } else {
                    println!("{line}");
                }
                round += 1;
                path.clear();
                draw(&after)?;
                std::thread::sleep(std::time::Duration::from_millis(a.show_ms));
                board = random_board(rows, cols, a.colours, &mut rng);
                draw(&board)?;
            }
            _ => {}
        }
    }
}
