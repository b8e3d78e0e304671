//! The collapse family (SameGame, PopStar, Swell Foop) as a [`Game`].

pub mod bits;
pub mod endgame;
pub mod mask;
pub mod rules;
pub mod solver;

pub use bits::BitBoard;
pub use rules::{CBoard, Census, Group, Scoring};
pub use solver::{solve, SolverParams};

use ethnum::U256;

use crate::act::Move;
use crate::board::Board;
use crate::games::{Budget, Game, GameError, Solution};

/// A collapse game with one scoring.
#[derive(Debug, Clone)]
pub struct Collapse {
    pub scoring: Scoring,
    pub params: SolverParams,
}

impl Collapse {
    pub fn new(scoring: Scoring) -> Self {
        Collapse {
            scoring,
            params: SolverParams::preset(scoring),
        }
    }
}

impl Collapse {
    /// The game named `name` with its preset, and the solver's portfolio
    /// (`groups:colours,...` or a JSON list of weights), end search
    /// (`SHARE[:NODES]`, see [`SolverParams::endgame_share`]) and widening
    /// schedule (`START:JUMP:FILL:CUT`, see [`SolverParams::start_width`],
    /// [`SolverParams::max_jump`], [`SolverParams::fill`],
    /// [`SolverParams::beam_cut`]) when given.
    pub fn tuned(
        name: &str,
        portfolio: Option<&str>,
        endgame: Option<&str>,
        schedule: Option<&str>,
    ) -> Result<Box<dyn Game>, GameError> {
        let scoring = match name {
            "popstar" => Scoring::PopStar,
            "samegame" | "swell-foop" => Scoring::SameGame,
            _ => return Err(GameError::UnknownGame(name.to_string())),
        };
        let mut game = Collapse::new(scoring);
        if let Some(spec) = portfolio {
            game.params.portfolio = parse_portfolio(spec)?;
        }
        if let Some(spec) = endgame {
            let bad = || GameError::BadParams(format!("--endgame {spec}: want SHARE[:NODES]"));
            let mut it = spec.split(':');
            let share: f64 = it
                .next()
                .and_then(|x| x.trim().parse().ok())
                .ok_or_else(bad)?;
            if !(0.0..1.0).contains(&share) {
                return Err(bad());
            }
            game.params.endgame_share = share;
            if let Some(n) = it.next() {
                game.params.endgame_nodes = n.trim().parse().map_err(|_| bad())?;
            }
            if it.next().is_some() {
                return Err(bad());
            }
        }
        if let Some(spec) = schedule {
            let bad = || {
                GameError::BadParams(format!(
                    "--schedule {spec}: want START:JUMP:FILL:CUT[:NARROW] (widths of 1 or more, FILL above 0, CUT in 0..=1)"
                ))
            };
            let v: Vec<&str> = spec.split(':').map(str::trim).collect();
            let (&[start, jump, fill, cut], narrow) = (&v[..4.min(v.len())], v.get(4)) else {
                return Err(bad());
            };
            if v.len() > 5 {
                return Err(bad());
            }
            if let Some(n) = narrow {
                game.params.narrow = n.parse().map_err(|_| bad())?;
            }
            let p = &mut game.params;
            p.start_width = start.parse().map_err(|_| bad())?;
            p.max_jump = jump.parse().map_err(|_| bad())?;
            p.fill = fill.parse().map_err(|_| bad())?;
            p.beam_cut = cut.parse().map_err(|_| bad())?;
            if p.start_width == 0
                || p.narrow == 0
                || p.max_jump < 2
                || p.fill <= 0.0
                || !(0.0..=1.0).contains(&p.beam_cut)
            {
                return Err(bad());
            }
        }
        Ok(Box::new(game))
    }
}

/// A portfolio written `groups:colours[:target:keep[:lone]],...` or as JSON.
fn parse_portfolio(spec: &str) -> Result<Vec<solver::EvalWeights>, GameError> {
    if spec.trim_start().starts_with('[') {
        return serde_json::from_str(spec)
            .map_err(|e| GameError::BadParams(format!("{spec}: {e}")));
    }
    spec.split(',')
        .map(|w| {
            let v: Vec<f32> = w
                .split(':')
                .map(|x| x.trim().parse::<f32>())
                .collect::<Result<_, _>>()
                .map_err(|_| GameError::BadParams(spec.to_string()))?;
            match v[..] {
                [groups, colours] => Ok(solver::EvalWeights::plain(groups, colours)),
                [groups, colours, target, keep] => {
                    Ok(solver::EvalWeights::plain(groups, colours).with_target(target as i8, keep))
                }
                [groups, colours, target, keep, lone] => Ok(solver::EvalWeights {
                    lone,
                    ..solver::EvalWeights::plain(groups, colours).with_target(target as i8, keep)
                }),
                _ => Err(GameError::BadParams(spec.to_string())),
            }
        })
        .collect()
}

/// Colours a [`BitBoard`] holds in the solver; boards with more use [`CBoard`].
const BIT_COLOURS: usize = 5;

/// Runs `f` on the board converted to the smallest fitting capacity.
macro_rules! with_cboard {
    ($board:expr, |$cb:ident| $body:expr) => {{
        let need = rules::capacity_for($board.rows(), $board.cols());
        if need <= 160 {
            let $cb = CBoard::<160>::from_board($board)?;
            $body
        } else if need <= 400 {
            let $cb = CBoard::<400>::from_board($board)?;
            $body
        } else {
            let $cb = CBoard::<1200>::from_board($board)?;
            $body
        }
    }};
}

impl Game for Collapse {
    fn name(&self) -> &'static str {
        match self.scoring {
            Scoring::PopStar => "popstar",
            Scoring::SameGame => "samegame",
        }
    }

    fn solve(&self, board: &Board, budget: &Budget) -> Result<Solution, GameError> {
        // The bit board when it fits (same search, two to three times the
        // speed): a `u128` a colour up to 128 bits, a `U256` up to 256.
        if BitBoard::<BIT_COLOURS>::fits(board.rows(), board.cols()) {
            if let Ok(bb) = BitBoard::<BIT_COLOURS>::from_board(board) {
                return Ok(solve(&bb, self.scoring, &self.params, budget));
            }
        } else if BitBoard::<BIT_COLOURS, U256>::fits(board.rows(), board.cols()) {
            if let Ok(bb) = BitBoard::<BIT_COLOURS, U256>::from_board(board) {
                return Ok(solve(&bb, self.scoring, &self.params, budget));
            }
        }
        with_cboard!(board, |cb| Ok(solve(
            &cb,
            self.scoring,
            &self.params,
            budget
        )))
    }

    fn apply(&self, board: &Board, mv: &Move) -> Result<(Board, i64), GameError> {
        let Move::Click(cell) = mv else {
            return Err(GameError::IllegalMove(mv.clone()));
        };
        with_cboard!(board, |cb| {
            let mut cb = cb;
            let idx = cb
                .index_of(*cell)
                .ok_or_else(|| GameError::IllegalMove(mv.clone()))?;
            let n = cb.remove_group(idx);
            if n < 2 {
                return Err(GameError::IllegalMove(mv.clone()));
            }
            Ok((cb.to_board(), self.scoring.group_points(n) as i64))
        })
    }

    fn legal_moves(&self, board: &Board) -> Vec<Move> {
        let moves = || -> Result<Vec<Move>, GameError> {
            with_cboard!(board, |cb| {
                let mut groups = Vec::new();
                cb.groups(&mut groups);
                Ok(groups
                    .iter()
                    .filter(|g| g.size >= 2)
                    .map(|g| Move::Click(cb.cell_of(g.rep)))
                    .collect())
            })
        };
        moves().unwrap_or_default()
    }

    fn is_over(&self, board: &Board) -> bool {
        let over = || -> Result<bool, GameError> { with_cboard!(board, |cb| Ok(!cb.has_move())) };
        over().unwrap_or(true)
    }

    fn final_bonus(&self, board: &Board) -> i64 {
        let bonus = || -> Result<i64, GameError> {
            with_cboard!(
                board,
                |cb| Ok(self.scoring.end_bonus(cb.remaining()) as i64)
            )
        };
        bonus().unwrap_or(0)
    }
}
