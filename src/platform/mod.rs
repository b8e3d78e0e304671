//! The platform layer: the only code that touches the screen, the input devices
//! and the clock.
//!
//! Coordinates: [`Rect`] and every pointer position are absolute screen pixels
//! (x right, y down). A [`Frame`] is a picture of one window plus where that
//! window sits on screen, so window coordinates + `frame.rect.x/y` = screen.
//!
//! Implementations: `live` (xcap capture + enigo input), `fixture` (a directory of
//! PNGs), `sim` (a simulated game rendered with the game's own rules), and
//! `record` (an input sink that only records). [`SafeInput`] wraps any sink and
//! enforces the safety rules in one place.

pub mod clock;
pub mod fixture;
pub mod live;
pub mod live_tetris;
pub mod record;
pub mod sim;
pub mod sim_match3;
pub mod sim_tetris;

use image::RgbImage;

use crate::act::{Button, InputEvent};

/// A screen rectangle in absolute pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Rect {
    pub x: i32,
    pub y: i32,
    pub w: u32,
    pub h: u32,
}

impl Rect {
    pub fn contains(&self, x: i32, y: i32) -> bool {
        x >= self.x && y >= self.y && x < self.x + self.w as i32 && y < self.y + self.h as i32
    }
}

/// One captured picture of the game window.
#[derive(Debug, Clone)]
pub struct Frame {
    pub image: RgbImage,
    /// Where the window is on screen (its size equals the image's).
    pub rect: Rect,
}

/// Errors of the platform layer.
#[derive(Debug, thiserror::Error)]
pub enum PlatformError {
    #[error("no window titled {title:?}; open windows: {available}")]
    WindowNotFound { title: String, available: String },
    #[error("the game window is gone")]
    WindowGone,
    #[error("screen capture failed: {0}")]
    Capture(String),
    #[error("input failed: {0}")]
    Input(String),
    #[error("refused input at ({x},{y}): outside the game window {rect:?}")]
    OutsideWindow { x: i32, y: i32, rect: Rect },
    #[error("stopped: the pointer was pushed into a screen corner at ({x},{y})")]
    CornerStop { x: i32, y: i32 },
    #[error("stopped by the user (Ctrl-C)")]
    Interrupted,
    #[error("no more frames")]
    Exhausted,
    #[error("{path}: {reason}")]
    File { path: String, reason: String },
}

/// Something that can take pictures of the game window.
pub trait FrameSource {
    fn grab(&mut self) -> Result<Frame, PlatformError>;

    /// Whether the window has the keyboard focus; `None` when unknown (keys
    /// are then sent anyway).
    fn focused(&mut self) -> Option<bool> {
        None
    }
}

/// Something that can send input events.
pub trait InputSink {
    fn send(&mut self, ev: &InputEvent) -> Result<(), PlatformError>;
    /// The pointer position on screen, if the sink can tell.
    fn pointer(&mut self) -> Option<(i32, i32)>;
    /// The screen size, if known (for the corner stop).
    fn screen_size(&self) -> Option<(u32, u32)>;
}

/// How close to a screen corner (in pixels) the pointer must be to stop the bot.
pub const CORNER_MARGIN: i32 = 3;

/// Wraps a sink and enforces the safety rules, all in one place:
/// every pointer event must land inside `window`; held buttons are tracked and
/// released on [`SafeInput::release_all`] and on drop; a pointer parked in a
/// screen corner by the user stops everything.
pub struct SafeInput<S: InputSink> {
    inner: S,
    window: Rect,
    held: Vec<Button>,
    /// The last position this sink moved the pointer to.
    last_move: Option<(i32, i32)>,
}

impl<S: InputSink> SafeInput<S> {
    pub fn new(inner: S, window: Rect) -> Self {
        SafeInput {
            inner,
            window,
            held: Vec::new(),
            last_move: None,
        }
    }

    /// The window moved or was resized: input is allowed in the new rectangle.
    pub fn set_window(&mut self, window: Rect) {
        self.window = window;
    }

    pub fn window(&self) -> Rect {
        self.window
    }

    pub fn inner(&self) -> &S {
        &self.inner
    }

    pub fn inner_mut(&mut self) -> &mut S {
        &mut self.inner
    }

    /// Checks the corner stop: fails if the user pushed the pointer to a corner.
    pub fn check_corner(&mut self) -> Result<(), PlatformError> {
        let (Some((x, y)), Some((w, h))) = (self.inner.pointer(), self.inner.screen_size()) else {
            return Ok(());
        };
        let near = |v: i32, hi: i32| v <= CORNER_MARGIN || v >= hi - 1 - CORNER_MARGIN;
        if near(x, w as i32) && near(y, h as i32) {
            return Err(PlatformError::CornerStop { x, y });
        }
        Ok(())
    }

    /// Sends one event after the safety checks.
    pub fn send(&mut self, ev: &InputEvent) -> Result<(), PlatformError> {
        if let Err(e) = self.check_corner() {
            self.release_all();
            return Err(e);
        }
        match *ev {
            InputEvent::MoveTo { x, y } => {
                if !self.window.contains(x, y) {
                    self.release_all();
                    return Err(PlatformError::OutsideWindow {
                        x,
                        y,
                        rect: self.window,
                    });
                }
                self.inner.send(ev)?;
                self.last_move = Some((x, y));
            }
            InputEvent::Press(b) => {
                // A press happens where the pointer is: it must be one we put in the window.
                let inside = match self.inner.pointer().or(self.last_move) {
                    Some((x, y)) => self.window.contains(x, y),
                    None => false,
                };
                if !inside {
                    let (x, y) = self.inner.pointer().unwrap_or((-1, -1));
                    return Err(PlatformError::OutsideWindow {
                        x,
                        y,
                        rect: self.window,
                    });
                }
                self.inner.send(ev)?;
                self.held.push(b);
            }
            InputEvent::Release(b) => {
                self.inner.send(ev)?;
                self.held.retain(|&h| h != b);
            }
            InputEvent::Tap(_) => self.inner.send(ev)?,
        }
        Ok(())
    }

    /// Releases every button this sink pressed. Never fails; errors are logged.
    pub fn release_all(&mut self) {
        for b in std::mem::take(&mut self.held) {
            if let Err(e) = self.inner.send(&InputEvent::Release(b)) {
                tracing::error!("could not release {b:?}: {e}");
            }
        }
    }

    /// Buttons currently held down by this sink.
    pub fn held(&self) -> &[Button] {
        &self.held
    }
}

impl<S: InputSink> Drop for SafeInput<S> {
    fn drop(&mut self) {
        self.release_all();
    }
}

#[cfg(test)]
mod tests {
    use super::record::RecordingSink;
    use super::*;

    fn window() -> Rect {
        Rect {
            x: 100,
            y: 100,
            w: 200,
            h: 100,
        }
    }

    #[test]
    fn refuses_points_outside_the_window() {
        let mut s = SafeInput::new(RecordingSink::new((1000, 800)), window());
        assert!(s.send(&InputEvent::MoveTo { x: 150, y: 150 }).is_ok());
        let err = s.send(&InputEvent::MoveTo { x: 99, y: 150 });
        assert!(matches!(
            err,
            Err(PlatformError::OutsideWindow { x: 99, .. })
        ));
        assert_eq!(s.inner().events.len(), 1);
    }

    #[test]
    fn releases_held_buttons_on_drop_and_on_error() {
        let rec = RecordingSink::new((1000, 800));
        let log = rec.shared_log();
        {
            let mut s = SafeInput::new(rec, window());
            s.send(&InputEvent::MoveTo { x: 150, y: 150 }).unwrap();
            s.send(&InputEvent::Press(Button::Left)).unwrap();
            assert_eq!(s.held(), &[Button::Left]);
        }
        let events = log.lock().map(|l| l.clone()).unwrap_or_default();
        assert_eq!(events.last(), Some(&InputEvent::Release(Button::Left)));
    }

    #[test]
    fn corner_stops() {
        let mut rec = RecordingSink::new((1000, 800));
        rec.user_pointer = Some((999, 0));
        let mut s = SafeInput::new(rec, window());
        let err = s.send(&InputEvent::MoveTo { x: 150, y: 150 });
        assert!(matches!(err, Err(PlatformError::CornerStop { .. })));
    }
}
