//! The generic exact-cover engine: Knuth's Algorithm X on dancing links.
//!
//! Sources: D. E. Knuth, "Dancing Links" (Millennial Perspectives in Computer
//! Science, 2000), and TAOCP Vol. 4B, 7.2.2.1, Algorithm X (program DLX1): the
//! node layout (item headers, then the options' nodes separated by spacers
//! whose ULINK/DLINK point to the first/last node of the neighbouring option),
//! `cover`/`hide`/`uncover`/`unhide`, and the "minimum remaining values" choice
//! of the primary item with the fewest live options.
//!
//! Items come in three kinds: primary (exactly once), secondary (at most once;
//! never chosen for branching, covered when an option uses them, as in DLX1's
//! secondary list) and counted (at most `k` times: a counter per item, and the
//! item is covered, hiding its remaining options, only when the counter reaches
//! zero; undone in exact reverse order). A counted item with `k = 1` behaves as
//! a secondary item. Counted items cannot be primary here (no lower bound), a
//! deliberate subset of Knuth's Algorithm M that covers chip inventories.
//!
//! Invariants: links are restored exactly on backtrack (every `cover` is
//! undone by an `uncover` in reverse order), so a search leaves the structure
//! as it found it; each solution is visited once.

use std::ops::ControlFlow;

use super::{ExactCover, Halt, Limits, Outcome, PackingError, Visit, STOP_CHECK_EVERY};

/// Kind of an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ItemKind {
    /// Covered exactly once.
    Primary,
    /// Covered at most `k` times (`k >= 1`; `k = 1` is a secondary item).
    AtMost(u32),
}

/// An exact-cover problem under construction: items, then options.
#[derive(Debug, Clone, Default)]
pub struct Problem {
    kinds: Vec<ItemKind>,
    options: Vec<Vec<usize>>,
}

impl Problem {
    pub fn new() -> Problem {
        Problem::default()
    }

    /// Adds a primary item; returns its index.
    pub fn primary(&mut self) -> usize {
        self.kinds.push(ItemKind::Primary);
        self.kinds.len() - 1
    }

    /// Adds a secondary item (at most once); returns its index.
    pub fn secondary(&mut self) -> usize {
        self.kinds.push(ItemKind::AtMost(1));
        self.kinds.len() - 1
    }

    /// Adds an item usable at most `k` times; returns its index.
    pub fn at_most(&mut self, k: u32) -> Result<usize, PackingError> {
        if k == 0 {
            return Err(PackingError::ZeroCapacity {
                item: self.kinds.len(),
            });
        }
        self.kinds.push(ItemKind::AtMost(k));
        Ok(self.kinds.len() - 1)
    }

    /// Adds an option (a set of distinct items); returns its index.
    pub fn option(&mut self, items: &[usize]) -> Result<usize, PackingError> {
        let o = self.options.len();
        if items.is_empty() {
            return Err(PackingError::EmptyOption(o));
        }
        for (k, &i) in items.iter().enumerate() {
            if i >= self.kinds.len() {
                return Err(PackingError::BadItem {
                    option: o,
                    item: i,
                    items: self.kinds.len(),
                });
            }
            if items[..k].contains(&i) {
                return Err(PackingError::RepeatedItem { option: o, item: i });
            }
        }
        self.options.push(items.to_vec());
        Ok(o)
    }

    pub fn items(&self) -> usize {
        self.kinds.len()
    }

    pub fn kinds(&self) -> &[ItemKind] {
        &self.kinds
    }

    pub fn option_items(&self, o: usize) -> &[usize] {
        &self.options[o]
    }

    pub fn option_count(&self) -> usize {
        self.options.len()
    }
}

/// The dancing-links structure of one search (Knuth's DLX1 arrays). Nodes
/// `1..=n` are item headers (node 0 is the root of the primary list); option
/// nodes follow, with a spacer before each option and one at the end.
struct Links {
    llink: Vec<usize>,
    rlink: Vec<usize>,
    /// For a header: nothing; for a node: its item + 1; for a spacer: 0.
    top: Vec<usize>,
    ulink: Vec<usize>,
    dlink: Vec<usize>,
    len: Vec<u32>,
    /// Option index of each node (spacers: usize::MAX).
    opt: Vec<usize>,
    /// Remaining uses of counted items (by header node).
    left: Vec<u32>,
    /// Whether a header is a counted/secondary item.
    counted: Vec<bool>,
}

impl Links {
    fn build(p: &Problem) -> Links {
        let n = p.kinds.len();
        let nodes = n + 1 + p.options.iter().map(|o| o.len() + 1).sum::<usize>() + 1;
        let mut l = Links {
            llink: vec![0; n + 2],
            rlink: vec![0; n + 2],
            top: vec![0; nodes],
            ulink: vec![0; nodes],
            dlink: vec![0; nodes],
            len: vec![0; n + 1],
            opt: vec![usize::MAX; nodes],
            left: vec![0; n + 1],
            counted: vec![false; n + 1],
        };
        // Primary items in the list from root 0; counted ones self-linked.
        let mut last = 0;
        for (i, k) in p.kinds.iter().enumerate() {
            let h = i + 1;
            l.ulink[h] = h;
            l.dlink[h] = h;
            match *k {
                ItemKind::Primary => {
                    l.llink[h] = last;
                    l.rlink[last] = h;
                    last = h;
                }
                ItemKind::AtMost(c) => {
                    l.llink[h] = h;
                    l.rlink[h] = h;
                    l.left[h] = c;
                    l.counted[h] = true;
                }
            }
        }
        l.rlink[last] = 0;
        l.llink[0] = last;
        // Options.
        let mut x = n + 1; // first spacer
        let mut prev_first = 0;
        for (o, items) in p.options.iter().enumerate() {
            let spacer = x;
            l.ulink[spacer] = prev_first;
            l.dlink[spacer] = x + items.len();
            let first = x + 1;
            for (k, &i) in items.iter().enumerate() {
                let node = first + k;
                let h = i + 1;
                l.top[node] = h;
                l.opt[node] = o;
                // Append at the bottom of column h.
                let up = l.ulink[h];
                l.ulink[node] = up;
                l.dlink[node] = h;
                l.dlink[up] = node;
                l.ulink[h] = node;
                l.len[h] += 1;
            }
            prev_first = first;
            x = first + items.len();
        }
        // Final spacer.
        l.ulink[x] = prev_first;
        l.dlink[x] = x;
        l
    }

    fn hide(&mut self, p: usize) {
        let mut q = p + 1;
        while q != p {
            let x = self.top[q];
            if x == 0 {
                q = self.ulink[q];
            } else {
                let (u, d) = (self.ulink[q], self.dlink[q]);
                self.dlink[u] = d;
                self.ulink[d] = u;
                self.len[x] -= 1;
                q += 1;
            }
        }
    }

    fn unhide(&mut self, p: usize) {
        let mut q = p - 1;
        while q != p {
            let x = self.top[q];
            if x == 0 {
                q = self.dlink[q];
            } else {
                let (u, d) = (self.ulink[q], self.dlink[q]);
                self.dlink[u] = q;
                self.ulink[d] = q;
                self.len[x] += 1;
                q -= 1;
            }
        }
    }

    fn cover(&mut self, i: usize) {
        let mut p = self.dlink[i];
        while p != i {
            self.hide(p);
            p = self.dlink[p];
        }
        let (l, r) = (self.llink[i], self.rlink[i]);
        self.rlink[l] = r;
        self.llink[r] = l;
    }

    fn uncover(&mut self, i: usize) {
        let (l, r) = (self.llink[i], self.rlink[i]);
        self.rlink[l] = i;
        self.llink[r] = i;
        let mut p = self.ulink[i];
        while p != i {
            self.unhide(p);
            p = self.ulink[p];
        }
    }

    /// Covers the other items of the option holding node `x`, left to right
    /// cyclically (counted items: count down, cover at zero).
    fn commit(&mut self, x: usize) {
        let mut q = x + 1;
        while q != x {
            let j = self.top[q];
            if j == 0 {
                q = self.ulink[q];
                continue;
            }
            if self.counted[j] {
                self.left[j] -= 1;
                if self.left[j] == 0 {
                    self.cover(j);
                }
            } else {
                self.cover(j);
            }
            q += 1;
        }
    }

    /// Exactly undoes [`Links::commit`], right to left.
    fn uncommit(&mut self, x: usize) {
        let mut q = x - 1;
        while q != x {
            let j = self.top[q];
            if j == 0 {
                q = self.dlink[q];
                continue;
            }
            if self.counted[j] {
                if self.left[j] == 0 {
                    self.uncover(j);
                }
                self.left[j] += 1;
            } else {
                self.uncover(j);
            }
            q -= 1;
        }
    }
}

struct Run<'l, 'v, 'w> {
    links: Links,
    stack: Vec<usize>,
    nodes: u64,
    solutions: u64,
    node_cap: u64,
    limits: &'l Limits<'l>,
    visit: &'v mut Visit<'w>,
}

impl Run<'_, '_, '_> {
    fn rec(&mut self) -> Result<(), Halt> {
        let l = &self.links;
        if l.rlink[0] == 0 {
            self.solutions += 1;
            return match (self.visit)(&self.stack) {
                ControlFlow::Continue(()) => Ok(()),
                ControlFlow::Break(()) => Err(Halt::Visitor),
            };
        }
        // MRV: the primary item with the fewest live options.
        let mut best = l.rlink[0];
        let mut p = l.rlink[best];
        while p != 0 {
            if l.len[p] < l.len[best] {
                best = p;
            }
            p = l.rlink[p];
        }
        if l.len[best] == 0 {
            return Ok(());
        }
        let i = best;
        self.links.cover(i);
        let mut x = self.links.dlink[i];
        let mut result = Ok(());
        while x != i {
            self.nodes += 1;
            if self.nodes > self.node_cap {
                result = Err(Halt::Nodes);
                break;
            }
            if self.nodes.is_multiple_of(STOP_CHECK_EVERY) && self.limits.stop.should_stop() {
                result = Err(Halt::Stopped);
                break;
            }
            self.links.commit(x);
            self.stack.push(self.links.opt[x]);
            let r = self.rec();
            self.stack.pop();
            self.links.uncommit(x);
            if r.is_err() {
                result = r;
                break;
            }
            x = self.links.dlink[x];
        }
        self.links.uncover(i);
        result
    }
}

impl ExactCover for Problem {
    fn search(&self, limits: &Limits, visit: &mut Visit) -> Outcome {
        let mut run = Run {
            links: Links::build(self),
            stack: Vec::new(),
            nodes: 0,
            solutions: 0,
            node_cap: limits.nodes.unwrap_or(u64::MAX),
            limits,
            visit,
        };
        // No primary item at all: the empty selection is the one solution.
        let result = run.rec();
        Outcome::of(result, run.solutions, run.nodes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Knuth's example from "Dancing Links" (items A..G): one solution,
    /// options {A,D}, {E,F,C}, {B,G}.
    #[test]
    fn knuth_example() {
        let mut p = Problem::new();
        let it: Vec<usize> = (0..7).map(|_| p.primary()).collect();
        let (a, b, c, d, e, f, g) = (it[0], it[1], it[2], it[3], it[4], it[5], it[6]);
        p.option(&[c, e, f]).expect("ok");
        p.option(&[a, d, g]).expect("ok");
        p.option(&[b, c, f]).expect("ok");
        p.option(&[a, d]).expect("ok");
        p.option(&[b, g]).expect("ok");
        p.option(&[d, e, g]).expect("ok");
        let (sols, out) = p.collect(&Limits::none(), 10);
        assert_eq!(out.solutions, 1);
        assert_eq!(sols, vec![vec![0, 3, 4]]);
    }

    #[test]
    fn secondary_and_counted_items() {
        // Two primary items x, y; options {x}, {y}, each also using counted t.
        let mut p = Problem::new();
        let x = p.primary();
        let y = p.primary();
        let t = p.at_most(1).expect("ok");
        p.option(&[x, t]).expect("ok");
        p.option(&[y, t]).expect("ok");
        assert_eq!(p.count(&Limits::none()).solutions, 0);
        let mut p = Problem::new();
        let x = p.primary();
        let y = p.primary();
        let t = p.at_most(2).expect("ok");
        p.option(&[x, t]).expect("ok");
        p.option(&[y, t]).expect("ok");
        p.option(&[x, y]).expect("ok");
        assert_eq!(p.count(&Limits::none()).solutions, 2);
        // A secondary item need not be covered.
        let mut p = Problem::new();
        let x = p.primary();
        let s = p.secondary();
        p.option(&[x]).expect("ok");
        p.option(&[x, s]).expect("ok");
        assert_eq!(p.count(&Limits::none()).solutions, 2);
    }

    #[test]
    fn rejects_bad_options() {
        let mut p = Problem::new();
        let x = p.primary();
        assert!(p.option(&[]).is_err());
        assert!(p.option(&[x, x]).is_err());
        assert!(p.option(&[7]).is_err());
        assert!(p.at_most(0).is_err());
    }
}
