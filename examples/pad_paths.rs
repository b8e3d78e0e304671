//! The orb-drag solver's anytime search under a simulated budget, for
//! work on path length without the noise of a shared machine:
//!
//! ```text
//! cargo run --release --example pad_paths -- FILE FROM TO CALLS [RANK_JSON]
//! ```
//!
//! Boards `FROM..TO` (0-based lines) of `FILE` go through
//! [`solve_anytime`] as `Pad` runs it under `--budget-ms` (width cap
//! 2^17, a first beam of 200), but the budget is a [`Stop`] that counts its
//! own calls and says stop after `CALLS` of them: about 32 states evaluated
//! a call, so 90000 calls is about 2.8 M states, 1 s of one idle core. On
//! one thread (`RAYON_NUM_THREADS=1`) a run is exact and repeatable. Prints
//! per board as it finishes (so a run cut short still tells) the combos,
//! the board's maximum, the path length and the states, then the means.
//! `PAD_JOBS=N` solves N boards at a time, each on a thread of its own
//! (with `RAYON_NUM_THREADS=1` the same results); `PAD_MAX=M` takes only
//! the boards whose maximum is `M` (lines still numbered as in the file).

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};

use gridbot::board::Board;
use gridbot::games::pad::{solve_anytime, Orbs, PadParams, Rank};
use gridbot::games::Stop;

/// A budget of `limit` calls to `should_stop`; `spent` is the share used.
struct Calls {
    n: AtomicU64,
    limit: u64,
}

impl Stop for Calls {
    fn should_stop(&self) -> bool {
        self.n.fetch_add(1, Ordering::Relaxed) + 1 >= self.limit
    }

    fn spent(&self) -> Option<f64> {
        Some((self.n.load(Ordering::Relaxed) as f64 / self.limit as f64).min(1.0))
    }
}

struct Args {
    file: String,
    from: usize,
    to: usize,
    calls: u64,
    rank: Rank,
}

fn args() -> Result<Args, String> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.len() < 4 {
        return Err("usage: pad_paths FILE FROM TO CALLS [RANK_JSON]".into());
    }
    let num = |i: usize| -> Result<u64, String> {
        a[i].parse()
            .map_err(|e| format!("argument {}: {:?}: {e}", i + 1, a[i]))
    };
    let rank = match a.get(4) {
        Some(text) => serde_json::from_str(text).map_err(|e| format!("rank {text:?}: {e}"))?,
        None => Rank::default(),
    };
    Ok(Args {
        file: a[0].clone(),
        from: num(1)? as usize,
        to: num(2)? as usize,
        calls: num(3)?,
        rank,
    })
}

fn main() -> ExitCode {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let text = match std::fs::read_to_string(&a.file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("{}: {e}", a.file);
            return ExitCode::from(2);
        }
    };
    let p = PadParams {
        width: 1 << 17,
        rank: a.rank,
        ..PadParams::default()
    };
    // `PAD_MAX=M`: only the boards whose maximum is M.
    let only = std::env::var("PAD_MAX")
        .ok()
        .and_then(|m| m.parse::<u32>().ok());
    let mut boards = Vec::new();
    for (i, line) in text.lines().enumerate().take(a.to).skip(a.from) {
        let parsed = line
            .trim()
            .parse::<Board>()
            .map_err(|e| e.to_string())
            .and_then(|b| Orbs::from_board(&b).ok_or_else(|| "not an orb board".to_string()));
        match parsed {
            Ok((g, o)) if only.is_none_or(|m| o.max_combos(&g) == m) => boards.push((i, (g, o))),
            Ok(_) => {}
            Err(e) => {
                eprintln!("line {i}: {e}");
                return ExitCode::from(2);
            }
        }
    }
    // Boards on `PAD_JOBS` threads of their own (each board's search on
    // one thread, its own budget: the same results as one job).
    let jobs = std::env::var("PAD_JOBS")
        .ok()
        .and_then(|j| j.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
    let next = AtomicU64::new(0);
    let mut solved: Vec<(usize, u32, u32, usize, u64)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let k = next.fetch_add(1, Ordering::Relaxed) as usize;
                        let Some((i, (g, o))) = boards.get(k) else {
                            break out;
                        };
                        let stop = Calls {
                            n: AtomicU64::new(0),
                            limit: a.calls,
                        };
                        let s = solve_anytime(g, o, &p, 200, &stop);
                        let len = s.path.len().saturating_sub(1);
                        // At once (as boards finish), so a run cut short
                        // still says something.
                        println!(
                            "{i} combos {}/{} len {len} nodes {}",
                            s.combos, s.max_combos, s.nodes
                        );
                        out.push((*i, s.combos, s.max_combos, len, s.nodes));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a solver thread panicked"))
            .collect()
    });
    solved.sort_unstable();
    let (mut boards, mut at_max, mut steps, mut states) = (0, 0, 0, 0);
    for (_, combos, max_combos, len, nodes) in solved {
        boards += 1;
        at_max += usize::from(combos >= max_combos);
        steps += len;
        states += nodes;
    }
    let per = boards.max(1) as f64;
    println!(
        "boards {boards}: at max {at_max}, mean path {:.2}, mean states {:.2} M",
        steps as f64 / per,
        states as f64 / per / 1e6
    );
    ExitCode::SUCCESS
}
