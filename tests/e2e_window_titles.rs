//! End to end under Xvfb: a window whose title is only a `WM_NAME` of type
//! `STRING` (xterm's and every X toolkit window's; xcap reads
//! `_NET_WM_NAME` or a `COMPOUND_TEXT` `WM_NAME` only) is found by its
//! title, and listed by it when another title is asked for.

mod common;

use std::time::{Duration, Instant};

use common::*;
use xcb::x;

/// Opens a 240x160 top-level window titled `title` (`WM_NAME`, type
/// `STRING`, no `_NET_WM_NAME`) on `display`; it lives while the connection does.
fn plain_window(display: &str, title: &str) -> Result<xcb::Connection, String> {
    let (conn, screen) =
        xcb::Connection::connect(Some(display)).map_err(|e| format!("connect: {e}"))?;
    let root = conn
        .get_setup()
        .roots()
        .nth(screen as usize)
        .ok_or("no screen")?;
    let window: x::Window = conn.generate_id();
    conn.send_request(&x::CreateWindow {
        depth: x::COPY_FROM_PARENT as u8,
        wid: window,
        parent: root.root(),
        x: 100,
        y: 100,
        width: 240,
        height: 160,
        border_width: 0,
        class: x::WindowClass::InputOutput,
        visual: root.root_visual(),
        value_list: &[x::Cw::BackPixel(root.white_pixel())],
    });
    conn.send_request(&x::ChangeProperty {
        mode: x::PropMode::Replace,
        window,
        property: x::ATOM_WM_NAME,
        r#type: x::ATOM_STRING,
        data: title.as_bytes(),
    });
    conn.send_request(&x::MapWindow { window });
    conn.flush().map_err(|e| format!("flush: {e}"))?;
    Ok(conn)
}

#[test]
fn a_window_titled_by_a_plain_wm_name_is_found() {
    let test = "a_window_titled_by_a_plain_wm_name_is_found";
    if let Some(tool) = missing_tool() {
        eprintln!("SKIP {test}: {tool} is not installed");
        return;
    }
    let s = XSession::start().unwrap_or_else(|e| panic!("{test}: cannot start X: {e}"));
    let _conn = plain_window(s.display(), "Plain X window").unwrap_or_else(|e| panic!("{e}"));
    let out = s.dir().join("plain.png");
    let grab = |title: &str| {
        s.command(env!("CARGO_BIN_EXE_gridbot"))
            .args(["grab", "--window", title, "--out"])
            .arg(&out)
            .output()
            .unwrap_or_else(|e| panic!("{test}: cannot run gridbot: {e}"))
    };
    // The window manager lists the window once it has managed it, and may
    // list it before it has its size (16x16 seen on a loaded machine).
    let start = Instant::now();
    let (found, size) = loop {
        let o = grab("plain x");
        let size = o
            .status
            .success()
            .then(|| image::open(&out).map(|i| (i.width(), i.height())).ok())
            .flatten();
        if size == Some((240, 160)) || start.elapsed() > Duration::from_secs(15) {
            break (o, size);
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(
        found.status.success(),
        "{}",
        String::from_utf8_lossy(&found.stderr)
    );
    assert_eq!(size, Some((240, 160)));
    let missing = grab("no such window");
    assert!(!missing.status.success());
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(err.contains("\"Plain X window\""), "{err}");
}
