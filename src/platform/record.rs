//! An input sink that sends nothing and records every event (tests, `--dry-run`).
//!
//! The pointer position it reports is the last `MoveTo` it received, unless a
//! test sets `user_pointer` to simulate the user moving the mouse.

use std::sync::{Arc, Mutex};

use super::{InputSink, PlatformError};
use crate::act::InputEvent;

/// Records events instead of sending them.
#[derive(Debug, Clone)]
pub struct RecordingSink {
    pub events: Vec<InputEvent>,
    shared: Arc<Mutex<Vec<InputEvent>>>,
    pointer: Option<(i32, i32)>,
    /// When set, `pointer()` reports this (a user moving the mouse).
    pub user_pointer: Option<(i32, i32)>,
    screen: (u32, u32),
}

impl RecordingSink {
    pub fn new(screen: (u32, u32)) -> Self {
        RecordingSink {
            events: Vec::new(),
            shared: Arc::new(Mutex::new(Vec::new())),
            pointer: None,
            user_pointer: None,
            screen,
        }
    }

    /// A handle on the log that outlives the sink.
    pub fn shared_log(&self) -> Arc<Mutex<Vec<InputEvent>>> {
        Arc::clone(&self.shared)
    }
}

impl InputSink for RecordingSink {
    fn send(&mut self, ev: &InputEvent) -> Result<(), PlatformError> {
        if let InputEvent::MoveTo { x, y } = *ev {
            self.pointer = Some((x, y));
        }
        self.events.push(*ev);
        if let Ok(mut l) = self.shared.lock() {
            l.push(*ev);
        }
        Ok(())
    }

    fn pointer(&mut self) -> Option<(i32, i32)> {
        self.user_pointer.or(self.pointer)
    }

    fn screen_size(&self) -> Option<(u32, u32)> {
        Some(self.screen)
    }
}
