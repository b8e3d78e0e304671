//! A simulated Tetris game for running the falling-family loop without a
//! display.
//!
//! [`TetrisSim`] is the game: a field, a seeded piece generator, the falling
//! piece and the preview. It takes key taps as an [`InputSink`] (its own
//! rules, from the same rotation-system table as the bot: Left and Right move,
//! the rotate keys turn the piece without kicks, Down drops it one row, the
//! hard-drop key drops and locks it, clears rows and brings the next piece)
//! and shows what a screen reader would see through
//! [`TetrisScreen::view`] (through [`SharedTetrisSim`]): the locked cells, the piece at spawn and the
//! preview. There is no gravity: the simulator waits for keys.
//!
//! Coordinates: the field's (row 0 = bottom); no pointer input is accepted.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use super::{InputSink, PlatformError};
use crate::act::{InputEvent, Key};
use crate::bot::BotError;
use crate::bot_tetris::{TetrisScreen, TetrisView};
use crate::games::tetris::{Field, KeyMap, MoveGen, Piece, PieceGen, Randomizer, TetrisError};

/// The simulated game.
#[derive(Debug, Clone)]
pub struct TetrisSim {
    gen: MoveGen,
    keys: KeyMap,
    field: Field,
    pieces: PieceGen,
    queue: VecDeque<Piece>,
    preview: usize,
    /// The falling piece: (piece, state, box column, box top row).
    falling: Option<(Piece, usize, i32, i32)>,
    pub lines: u64,
    pub locked: u64,
}

impl TetrisSim {
    /// A new game on an empty field of `gen`'s size, pieces from `seed`,
    /// showing `preview` next pieces.
    pub fn new(
        gen: MoveGen,
        keys: KeyMap,
        randomizer: Randomizer,
        seed: u64,
        preview: usize,
    ) -> Result<Self, TetrisError> {
        let field = Field::new(gen.width(), gen.height())?;
        let mut sim = TetrisSim {
            gen,
            keys,
            field,
            pieces: PieceGen::new(randomizer, seed),
            queue: VecDeque::new(),
            preview,
            falling: None,
            lines: 0,
            locked: 0,
        };
        sim.spawn();
        Ok(sim)
    }

    fn spawn(&mut self) {
        while self.queue.len() < self.preview + 1 {
            self.queue.push_back(self.pieces.next_piece());
        }
        self.falling = None;
        if let Some(p) = self.queue.pop_front() {
            self.queue.push_back(self.pieces.next_piece());
            if !self.gen.blocked(&self.field, p) {
                let bx = self.gen.shapes.spawn_x[p.index()];
                let top = self.gen.shapes.spawn_top(p, self.gen.height());
                self.falling = Some((p, 0, bx, top));
            }
        }
    }

    fn fits(&self, p: Piece, s: usize, bx: i32, top: i32) -> bool {
        let st = &self.gen.shapes.of(p)[s];
        self.field
            .fits(st, bx + st.left as i32, top - st.bottom as i32)
    }

    /// The locked field.
    pub fn field(&self) -> &Field {
        &self.field
    }

    pub fn game_over(&self) -> bool {
        self.falling.is_none()
    }

    /// One key tap.
    pub fn press(&mut self, k: Key) {
        let Some((p, s, bx, top)) = self.falling else {
            return;
        };
        let n = self.gen.shapes.of(p).len();
        let mut to = None;
        if k == self.keys.left {
            to = Some((s, bx - 1, top));
        } else if k == self.keys.right {
            to = Some((s, bx + 1, top));
        } else if Some(k) == self.keys.rotate_cw {
            to = Some(((s + 1) % n, bx, top));
        } else if Some(k) == self.keys.rotate_ccw {
            to = Some(((s + n - 1) % n, bx, top));
        } else if k == self.keys.soft_drop {
            to = Some((s, bx, top - 1));
        }
        if let Some((s2, bx2, top2)) = to {
            if self.fits(p, s2, bx2, top2) {
                self.falling = Some((p, s2, bx2, top2));
            }
            return;
        }
        if k == self.keys.hard_drop {
            let mut t = top;
            while self.fits(p, s, bx, t - 1) {
                t -= 1;
            }
            let st = self.gen.shapes.of(p)[s];
            let (x, y) = (bx + st.left as i32, t - st.bottom as i32);
            if y + st.h as i32 > self.gen.height() as i32 {
                // Locked above the field: topped out.
                self.falling = None;
                return;
            }
            let cleared = self.field.lock(&st, x as usize, y as usize);
            self.lines += cleared.count_ones() as u64;
            self.locked += 1;
            self.spawn();
        }
    }
}

/// A handle on a shared simulator: clone it to pass one copy as the screen
/// and one as the input sink.
#[derive(Debug, Clone)]
pub struct SharedTetrisSim(pub Arc<Mutex<TetrisSim>>);

impl SharedTetrisSim {
    pub fn new(sim: TetrisSim) -> Self {
        SharedTetrisSim(Arc::new(Mutex::new(sim)))
    }

    /// Locks the simulator (a poisoned lock still holds a usable game).
    pub fn lock(&self) -> MutexGuard<'_, TetrisSim> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl InputSink for SharedTetrisSim {
    fn send(&mut self, ev: &InputEvent) -> Result<(), PlatformError> {
        match ev {
            InputEvent::Tap(k) => {
                self.lock().press(*k);
                Ok(())
            }
            _ => Err(PlatformError::Input(format!(
                "the Tetris simulator takes only key taps, not {ev:?}"
            ))),
        }
    }

    fn pointer(&mut self) -> Option<(i32, i32)> {
        None
    }

    fn screen_size(&self) -> Option<(u32, u32)> {
        None
    }
}

impl TetrisScreen for SharedTetrisSim {
    fn view(&mut self) -> Result<TetrisView, BotError> {
        let sim = self.lock();
        Ok(TetrisView {
            field: sim.field,
            piece: sim.falling.map(|f| f.0),
            preview: sim.queue.iter().take(sim.preview).copied().collect(),
            falling: Vec::new(),
        })
    }
}
