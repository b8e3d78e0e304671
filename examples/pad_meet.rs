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
//! per board the combos, the board's maximum, the path length and the
//! states, then the means.

use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};

use gridbot::board::Board;
use gridbot::games::pad::meet::Forward;
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
    let (mut boards, mut at_max, mut steps, mut states) = (0, 0, 0, 0);
    for (i, line) in text.lines().enumerate().take(a.to).skip(a.from) {
        let parsed = line
            .trim()
            .parse::<Board>()
            .map_err(|e| e.to_string())
            .and_then(|b| Orbs::from_board(&b).ok_or_else(|| "not an orb board".to_string()));
        let (g, o) = match parsed {
            Ok(x) => x,
            Err(e) => {
                eprintln!("line {i}: {e}");
                return ExitCode::from(2);
            }
        };
        let stop = Calls {
            n: AtomicU64::new(0),
            limit: a.calls,
        };
        let s = solve_anytime(&g, &o, &p, 200, &stop);
        let len = s.path.len().saturating_sub(1);
        let fd: usize = std::env::var("MEET_F").ok().and_then(|v| v.parse().ok()).unwrap_or(9);
        let bd: usize = std::env::var("MEET_B").ok().and_then(|v| v.parse().ok()).unwrap_or(12);
        let t0 = std::time::Instant::now();
        let fw = Forward::new(&g, &o, fd, false);
        let t1 = t0.elapsed();
        let end = *s.path.last().unwrap_or(&0);
        let bb = o.dragged(&s.path);
        let mode: usize = std::env::var("MEET_T").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
        let n = g.cells();
        let mut cands = vec![bb];
        if mode >= 2 {
            for x in 0..n {
                for y in x + 1..n {
                    if bb.cells[x] == bb.cells[y] {
                        continue;
                    }
                    let mut v = bb;
                    v.swap(x, y);
                    if v.resolve(&g).combos.len() as u32 >= s.max_combos {
                        cands.push(v);
                    }
                }
            }
        }
        let mut targets = Vec::new();
        for v in &cands {
            if mode >= 1 {
                for c in 0..n {
                    targets.push((*v, c));
                }
            } else {
                targets.push((*v, end));
            }
        }
        let m = fw.to(&g, &o, &targets, bd, len, false);
        eprintln!("{i} targets {}", targets.len());
        if let Some(ex) = std::env::var("MEET_X").ok().and_then(|v| v.parse::<usize>().ok()) {
            if len <= ex + 1 {
                let f = gridbot::games::pad::meet::fewest_steps_to(&g, &o, s.max_combos, len.min(ex + 1) - 1);
                println!("{i} beam {len} fewest {:?} (searched to {})", f, len.min(ex + 1) - 1);
            }
        }
        let t2 = t0.elapsed();
        let mlen = m.as_ref().map_or(len, |p| p.len() - 1);
        println!(
            "{i} combos {}/{} len {len} nodes {} meet {mlen} fwd {} {:?} {:?}",
            s.combos, s.max_combos, s.nodes, fw.len(), t1, t2
        );
        boards += 1;
        at_max += usize::from(s.combos >= s.max_combos);
        steps += len;
        states += s.nodes;
    }
    let per = boards.max(1) as f64;
    println!(
        "boards {boards}: at max {at_max}, mean path {:.2}, mean states {:.2} M",
        steps as f64 / per,
        states as f64 / per / 1e6
    );
    ExitCode::SUCCESS
}
