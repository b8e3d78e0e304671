//! Turning a move in board terms into timed input events in screen coordinates.
//!
//! Pure: no clock, no devices. A [`Move`] says what to do on the board; a
//! [`Plan`] is the list of [`Step`]s (a delay, then one [`InputEvent`]) that the
//! loop replays through an `InputSink`. Coordinates in a plan are absolute screen
//! pixels; the geometry that maps a cell to a point comes from the calibration
//! (window coordinates) plus the window's position on screen.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::board::Cell;

/// A mouse button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Button {
    Left,
    Right,
}

/// A key the bot may press.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Key {
    Left,
    Right,
    Up,
    Down,
    Space,
    Escape,
    Return,
}

/// One input event. Pointer positions are absolute screen pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum InputEvent {
    MoveTo { x: i32, y: i32 },
    Press(Button),
    Release(Button),
    Tap(Key),
}

/// An event and the pause to wait before sending it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub delay: Duration,
    pub event: InputEvent,
}

/// A move in board terms, for any family.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Move {
    /// Collapse: click one cell of a group.
    Click(Cell),
    /// Swap: exchange two neighbours (click-click).
    Swap(Cell, Cell),
    /// Orb-drag: press on the first cell, move through the rest, release.
    Drag(Vec<Cell>),
    /// Falling: a key script.
    Keys(Vec<Key>),
}

/// Compact text: `click r3c4`, `swap r1c2-r1c3`, `drag 24: r0c1 r0c2 ...`,
/// `keys Left Left Drop` (rows and columns from 0, row 0 on top).
impl std::fmt::Display for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let cell = |c: &Cell| format!("r{}c{}", c.row, c.col);
        match self {
            Move::Click(c) => write!(f, "click {}", cell(c)),
            Move::Swap(a, b) => write!(f, "swap {}-{}", cell(a), cell(b)),
            Move::Drag(path) => {
                let cells: Vec<String> = path.iter().map(cell).collect();
                write!(
                    f,
                    "drag {} steps: {}",
                    path.len().saturating_sub(1),
                    cells.join(" ")
                )
            }
            Move::Keys(keys) => {
                let keys: Vec<String> = keys.iter().map(|k| format!("{k:?}")).collect();
                write!(f, "keys {}", keys.join(" "))
            }
        }
    }
}

/// The timed events that carry out one move.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    pub steps: Vec<Step>,
}

/// Maps a cell to the screen point at its centre.
pub trait CellToScreen {
    fn cell_centre(&self, cell: Cell) -> (i32, i32);
}

/// Timing knobs for turning moves into events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timing {
    /// Pause after moving the pointer before pressing.
    pub settle_pointer_ms: u64,
    /// How long a button is held for a click.
    pub click_hold_ms: u64,
    /// Dwell per cell during a drag.
    pub drag_dwell_ms: u64,
    /// Pause between key taps.
    pub key_gap_ms: u64,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            settle_pointer_ms: 30,
            click_hold_ms: 40,
            drag_dwell_ms: 60,
            key_gap_ms: 30,
        }
    }
}

impl Plan {
    fn push(&mut self, delay_ms: u64, event: InputEvent) {
        self.steps.push(Step {
            delay: Duration::from_millis(delay_ms),
            event,
        });
    }

    /// The points the pointer visits, in order.
    pub fn pointer_points(&self) -> impl Iterator<Item = (i32, i32)> + '_ {
        self.steps.iter().filter_map(|s| match s.event {
            InputEvent::MoveTo { x, y } => Some((x, y)),
            _ => None,
        })
    }

    /// A click at a screen point.
    pub fn click_at(&mut self, p: (i32, i32), t: &Timing) {
        self.push(0, InputEvent::MoveTo { x: p.0, y: p.1 });
        self.push(t.settle_pointer_ms, InputEvent::Press(Button::Left));
        self.push(t.click_hold_ms, InputEvent::Release(Button::Left));
    }

    /// Moves the pointer to a point without pressing anything.
    pub fn move_to(&mut self, p: (i32, i32)) {
        self.push(0, InputEvent::MoveTo { x: p.0, y: p.1 });
    }
}

/// Number of interpolated points between two cell centres of a drag.
const DRAG_SUBSTEPS: u64 = 4;

/// Builds the plan that carries out `mv` on a grid mapped by `geo`.
pub fn plan_move(mv: &Move, geo: &dyn CellToScreen, t: &Timing) -> Plan {
    let mut plan = Plan::default();
    match mv {
        Move::Click(cell) => plan.click_at(geo.cell_centre(*cell), t),
        Move::Swap(a, b) => {
            plan.click_at(geo.cell_centre(*a), t);
            plan.click_at(geo.cell_centre(*b), t);
        }
        Move::Drag(path) => {
            let Some(first) = path.first() else {
                return plan;
            };
            let mut at = geo.cell_centre(*first);
            plan.move_to(at);
            plan.push(t.settle_pointer_ms, InputEvent::Press(Button::Left));
            for cell in &path[1..] {
                let to = geo.cell_centre(*cell);
                // Straight line to the next centre (diagonals included), so the
                // pointer never dwells inside an orthogonal neighbour.
                for k in 1..=DRAG_SUBSTEPS {
                    let x = at.0 + ((to.0 - at.0) as i64 * k as i64 / DRAG_SUBSTEPS as i64) as i32;
                    let y = at.1 + ((to.1 - at.1) as i64 * k as i64 / DRAG_SUBSTEPS as i64) as i32;
                    plan.push(t.drag_dwell_ms / DRAG_SUBSTEPS, InputEvent::MoveTo { x, y });
                }
                at = to;
            }
            plan.push(t.drag_dwell_ms, InputEvent::Release(Button::Left));
        }
        Move::Keys(keys) => {
            for k in keys {
                plan.push(t.key_gap_ms, InputEvent::Tap(*k));
            }
        }
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Grid;
    impl CellToScreen for Grid {
        fn cell_centre(&self, c: Cell) -> (i32, i32) {
            (100 + 10 * c.col as i32, 200 + 10 * c.row as i32)
        }
    }

    #[test]
    fn click_is_move_press_release() {
        let p = plan_move(&Move::Click(Cell::new(1, 2)), &Grid, &Timing::default());
        let ev: Vec<_> = p.steps.iter().map(|s| s.event).collect();
        assert_eq!(
            ev,
            vec![
                InputEvent::MoveTo { x: 120, y: 210 },
                InputEvent::Press(Button::Left),
                InputEvent::Release(Button::Left)
            ]
        );
    }

    #[test]
    fn diagonal_drag_stays_on_the_diagonal() {
        let path = vec![Cell::new(0, 0), Cell::new(1, 1)];
        let p = plan_move(&Move::Drag(path), &Grid, &Timing::default());
        for (x, y) in p.pointer_points() {
            assert_eq!(x - 100, y - 200, "point ({x},{y}) left the diagonal");
        }
        assert_eq!(
            p.steps.last().map(|s| s.event),
            Some(InputEvent::Release(Button::Left))
        );
    }
}
