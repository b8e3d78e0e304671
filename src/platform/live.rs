//! Live platform: window capture with xcap and input with enigo.
//!
//! [`LiveWindow`] is a [`FrameSource`] over one top-level window, found by a
//! case-insensitive substring of its title. Each grab re-reads the window's
//! position and size, so a moved window is followed; [`Frame::rect`] is the
//! window's rectangle in absolute screen pixels and the image is the window's
//! own pixels (what xcap returns: on X11 without a compositor, parts covered by
//! other windows read back black).
//!
//! [`EnigoSink`] is a thin [`InputSink`]: absolute pointer moves, left/right
//! button press and release, key taps. It keeps no state: held buttons are
//! tracked and released by [`super::SafeInput`], because enigo does not release
//! them when dropped. enigo's per-event X11 delay is set to 0 so presses do not
//! block (the default is 12 ms per event).
//!
//! On Linux both need an X11 session (`DISPLAY` set; `WAYLAND_DISPLAY` and
//! `XDG_SESSION_TYPE=wayland` make xcap take its Wayland path) and a window
//! manager (xcap lists windows from `_NET_CLIENT_LIST_STACKING`). A title
//! xcap reads empty (a `WM_NAME` of type `STRING`, as xterm and X toolkit
//! windows set it) is read again with xcb.

use enigo::{Direction, Enigo, Keyboard, Mouse, Settings};
use image::RgbImage;

use super::{Frame, FrameSource, InputSink, PlatformError, Rect};
use crate::act::{Button, InputEvent, Key};

/// One game window to capture.
pub struct LiveWindow {
    window: xcap::Window,
    id: u32,
    title: String,
    rect: Rect,
}

impl std::fmt::Debug for LiveWindow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveWindow")
            .field("id", &self.id)
            .field("title", &self.title)
            .field("rect", &self.rect)
            .finish()
    }
}

/// The rectangle of an xcap window, in screen pixels.
fn window_rect(w: &xcap::Window) -> Result<Rect, xcap::XCapError> {
    Ok(Rect {
        x: w.x()?,
        y: w.y()?,
        w: w.width()?,
        h: w.height()?,
    })
}

fn capture_err(e: impl std::fmt::Display) -> PlatformError {
    PlatformError::Capture(e.to_string())
}

impl LiveWindow {
    /// The window whose title contains `title` (any case). When several match,
    /// the largest visible one wins (toolkits keep tiny helper windows with the
    /// same title). With no match the error lists the titles that exist.
    pub fn find(title: &str) -> Result<Self, PlatformError> {
        let all = xcap::Window::all().map_err(capture_err)?;
        let needle = title.to_lowercase();
        let mut best: Option<(u64, LiveWindow)> = None;
        let mut titles = Vec::new();
        let mut x = None;
        for w in all {
            let mut t = w.title().unwrap_or_default();
            if t.is_empty() {
                // xcap misses a WM_NAME of type STRING (xterm's, any X
                // toolkit window's), or fails on it asking the frame.
                if let Ok(id) = w.id() {
                    t = plain_wm_name(&mut x, id).unwrap_or_default();
                }
            }
            if !t.is_empty() {
                titles.push(t.clone());
            }
            if !t.to_lowercase().contains(&needle) {
                continue;
            }
            if w.is_minimized().unwrap_or(false) {
                continue;
            }
            let (Ok(id), Ok(rect)) = (w.id(), window_rect(&w)) else {
                continue;
            };
            let area = rect.w as u64 * rect.h as u64;
            if best.as_ref().is_none_or(|(a, _)| area > *a) {
                let lw = LiveWindow {
                    window: w,
                    id,
                    title: t,
                    rect,
                };
                best = Some((area, lw));
            }
        }
        match best {
            Some((_, w)) => {
                tracing::debug!("found window {:?} at {:?}", w.title, w.rect);
                Ok(w)
            }
            None => {
                titles.sort();
                titles.dedup();
                let available = if titles.is_empty() {
                    "none (is a window manager running?)".to_string()
                } else {
                    titles
                        .iter()
                        .map(|t| format!("{t:?}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                Err(PlatformError::WindowNotFound {
                    title: title.to_string(),
                    available,
                })
            }
        }
    }

    /// Where the window was at the last [`LiveWindow::find`] or grab.
    pub fn rect(&self) -> Rect {
        self.rect
    }

    /// The window's full title.
    pub fn title(&self) -> &str {
        &self.title
    }

    /// True while the X server still lists the window.
    fn still_listed(&self) -> bool {
        match xcap::Window::all() {
            Ok(all) => all.iter().any(|w| w.id().ok() == Some(self.id)),
            // Cannot tell: assume it is there so the real error is reported.
            Err(_) => true,
        }
    }
}

/// A window's `WM_NAME` whatever its type (a `STRING` is Latin-1), on a
/// connection opened at the first call; `None` when there is none or the
/// server cannot be asked.
fn plain_wm_name(conn: &mut Option<Option<xcb::Connection>>, id: u32) -> Option<String> {
    use xcb::{x, XidNew};
    let conn = conn
        .get_or_insert_with(|| xcb::Connection::connect(None).ok().map(|(c, _)| c))
        .as_ref()?;
    // An id the server listed (`_NET_CLIENT_LIST_STACKING`); a window gone
    // since makes the request fail.
    let window = x::Window::new(id);
    let cookie = conn.send_request(&x::GetProperty {
        delete: false,
        window,
        property: x::ATOM_WM_NAME,
        r#type: x::ATOM_ANY,
        long_offset: 0,
        long_length: 1024,
    });
    let reply = conn.wait_for_reply(cookie).ok()?;
    let name: String = if reply.r#type() == x::ATOM_STRING {
        reply.value::<u8>().iter().map(|&b| b as char).collect()
    } else {
        String::from_utf8_lossy(reply.value::<u8>()).into_owned()
    };
    (!name.is_empty()).then_some(name)
}

/// Drops the alpha channel.
fn rgba_to_rgb(img: image::RgbaImage) -> Option<RgbImage> {
    let (w, h) = img.dimensions();
    let raw = img.into_raw();
    let mut rgb = Vec::with_capacity(raw.len() / 4 * 3);
    for px in raw.chunks_exact(4) {
        rgb.extend_from_slice(&px[..3]);
    }
    RgbImage::from_raw(w, h, rgb)
}

impl FrameSource for LiveWindow {
    fn focused(&mut self) -> Option<bool> {
        self.window.is_focused().ok()
    }

    fn grab(&mut self) -> Result<Frame, PlatformError> {
        let rect = match window_rect(&self.window) {
            Ok(r) => r,
            Err(e) if !self.still_listed() => {
                tracing::debug!("window {:?} gone: {e}", self.title);
                return Err(PlatformError::WindowGone);
            }
            Err(e) => return Err(capture_err(e)),
        };
        if rect.w == 0 || rect.h == 0 {
            return Err(PlatformError::WindowGone);
        }
        let rgba = match self.window.capture_image() {
            Ok(img) => img,
            Err(e) if !self.still_listed() => {
                tracing::debug!("window {:?} gone: {e}", self.title);
                return Err(PlatformError::WindowGone);
            }
            Err(e) => return Err(capture_err(e)),
        };
        let image = rgba_to_rgb(rgba)
            .ok_or_else(|| PlatformError::Capture("capture returned a malformed image".into()))?;
        // The picture is authoritative for the size (a resize may race the query).
        let rect = Rect {
            w: image.width(),
            h: image.height(),
            ..rect
        };
        self.rect = rect;
        Ok(Frame { image, rect })
    }
}

/// Input through enigo (XTest on X11). Thin on purpose: see the module docs.
pub struct EnigoSink {
    enigo: Enigo,
    screen: Option<(u32, u32)>,
}

impl std::fmt::Debug for EnigoSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnigoSink")
            .field("screen", &self.screen)
            .finish()
    }
}

fn input_err(e: impl std::fmt::Display) -> PlatformError {
    PlatformError::Input(e.to_string())
}

impl EnigoSink {
    /// Connects to the display in `DISPLAY`.
    pub fn new() -> Result<Self, PlatformError> {
        let settings = Settings {
            // No server-side delay per event: the plan carries the timing.
            linux_delay: 0,
            // enigo releases held keys on drop; buttons are SafeInput's job.
            release_keys_when_dropped: true,
            ..Settings::default()
        };
        let enigo = Enigo::new(&settings)
            .map_err(|e| PlatformError::Input(format!("cannot connect to the display: {e}")))?;
        let screen = enigo
            .main_display()
            .ok()
            .and_then(|(w, h)| Some((u32::try_from(w).ok()?, u32::try_from(h).ok()?)));
        Ok(EnigoSink { enigo, screen })
    }
}

fn enigo_button(b: Button) -> enigo::Button {
    match b {
        Button::Left => enigo::Button::Left,
        Button::Right => enigo::Button::Right,
    }
}

fn enigo_key(k: Key) -> enigo::Key {
    match k {
        Key::Left => enigo::Key::LeftArrow,
        Key::Right => enigo::Key::RightArrow,
        Key::Up => enigo::Key::UpArrow,
        Key::Down => enigo::Key::DownArrow,
        Key::Space => enigo::Key::Space,
        Key::Escape => enigo::Key::Escape,
        Key::Return => enigo::Key::Return,
    }
}

impl InputSink for EnigoSink {
    fn send(&mut self, ev: &InputEvent) -> Result<(), PlatformError> {
        match *ev {
            InputEvent::MoveTo { x, y } => self
                .enigo
                .move_mouse(x, y, enigo::Coordinate::Abs)
                .map_err(input_err),
            InputEvent::Press(b) => self
                .enigo
                .button(enigo_button(b), Direction::Press)
                .map_err(input_err),
            InputEvent::Release(b) => self
                .enigo
                .button(enigo_button(b), Direction::Release)
                .map_err(input_err),
            InputEvent::Tap(k) => self
                .enigo
                .key(enigo_key(k), Direction::Click)
                .map_err(input_err),
        }
    }

    fn pointer(&mut self) -> Option<(i32, i32)> {
        self.enigo.location().ok()
    }

    fn screen_size(&self) -> Option<(u32, u32)> {
        self.screen
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_alpha() {
        let img = image::RgbaImage::from_raw(2, 1, vec![1, 2, 3, 255, 4, 5, 6, 0]);
        let rgb = img.and_then(rgba_to_rgb).map(|i| i.into_raw());
        assert_eq!(rgb, Some(vec![1, 2, 3, 4, 5, 6]));
    }

    #[test]
    fn every_key_maps_to_a_distinct_enigo_key() {
        let keys = [
            Key::Left,
            Key::Right,
            Key::Up,
            Key::Down,
            Key::Space,
            Key::Escape,
            Key::Return,
        ];
        let mapped: Vec<String> = keys
            .iter()
            .map(|&k| format!("{:?}", enigo_key(k)))
            .collect();
        let mut uniq = mapped.clone();
        uniq.sort();
        uniq.dedup();
        assert_eq!(uniq.len(), keys.len(), "{mapped:?}");
    }
}
