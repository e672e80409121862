//! Stable sorting with one compiled sort for the whole app.
//!
//! Every `slice::sort_by`, `sort_by_key` or `sort` call compiles its own copy of the standard
//! library's stable sort for its element type and comparison: 3–7 KB of WebAssembly each, 134 KB
//! of sorting code in the first-visit module (twiggy on the release wasm, 2026-11-25), all of it
//! downloaded before the landing page shows. The functions here sort a list of positions with the
//! one sort compiled for [`positions`], asking a comparison behind `dyn` about two positions at a
//! time, then move the elements into their places with swaps: per call site only the comparison
//! and the swap loop are compiled. Routing the app's own sorts through here took 50 KB off the
//! release wasm (17 KB of gzip). The result is the standard library's: stable, `O(n log n)`
//! comparisons, plus one `Vec<usize>` of the slice's length. The tight sorts of the graph layout
//! (`sort_unstable` of numbers, many times per layout) stay the standard library's.
//!
//! Natively they are used the same way, so the CLI and the tests run the code the browser runs.

use std::cmp::Ordering;

/// Sorts `items` by `compare`, keeping equal elements in their order (as `slice::sort_by`).
pub fn by<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    if items.len() < 2 {
        return;
    }
    let view: &[T] = items;
    let order = positions(view.len(), &mut |a, b| compare(&view[a], &view[b]));
    place(items, order);
}

/// Sorts `items` by the key `key` gives each, keeping equal keys in their order (as
/// `slice::sort_by_key`; the key is computed for each comparison).
pub fn by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `items` in their natural order (as `slice::sort`).
pub fn natural<T: Ord>(items: &mut [T]) {
    by(items, T::cmp);
}

/// `0..len` sorted stably by `compare` (which is asked about positions): the one compiled sort.
#[inline(never)]
fn positions(len: usize, compare: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

/// Rearranges `items` so that position `i` holds what was at `order[i]`, following each cycle of
/// the permutation once (`order` must be a permutation of `0..items.len()`).
fn place<T>(items: &mut [T], mut order: Vec<usize>) {
    const DONE: usize = usize::MAX;
    for start in 0..items.len() {
        if order[start] == DONE {
            continue;
        }
        // Walk the cycle through `start`: each step fills position `at` with the element it
        // wants, which is still where it was (only the cycle's first element has moved, always
        // one step ahead), so the cycle closes with the first element in its place.
        let mut at = start;
        loop {
            let from = order[at];
            order[at] = DONE;
            if from == start {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (no dependency for tests of a sort).
    fn numbers(seed: u64, n: usize, range: u64) -> Vec<u64> {
        let mut state = seed;
        (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 33) % range
            })
            .collect()
    }

    #[test]
    fn sorts_as_the_standard_library_does_and_keeps_equal_elements_in_order() {
        for (seed, n, range) in [
            (1, 0, 5),
            (2, 1, 5),
            (3, 2, 2),
            (4, 17, 3),
            (5, 1000, 10),
            (6, 5000, 100_000),
        ] {
            // Each element remembers where it was, so stability is visible.
            let items: Vec<(u64, usize)> = numbers(seed, n, range).into_iter().zip(0..).collect();
            let mut ours = items.clone();
            by_key(&mut ours, |&(key, _)| key);
            let mut std = items.clone();
            std.sort_by_key(|&(key, _)| key);
            assert_eq!(ours, std, "seed {seed}, {n} elements");

            let mut ours = items.clone();
            by(&mut ours, |a, b| b.0.cmp(&a.0));
            let mut std = items;
            std.sort_by_key(|&(key, _)| std::cmp::Reverse(key));
            assert_eq!(ours, std, "descending, seed {seed}");
        }
    }

    #[test]
    fn moves_owned_elements_without_losing_or_copying_any() {
        let mut names: Vec<String> = ["delta", "alpha", "charlie", "alpha", "bravo"]
            .map(String::from)
            .to_vec();
        natural(&mut names);
        assert_eq!(names, ["alpha", "alpha", "bravo", "charlie", "delta"]);
        // Already sorted, reversed, and one long cycle.
        let mut sorted: Vec<u32> = (0..50).collect();
        natural(&mut sorted);
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
        let mut reversed: Vec<u32> = (0..50).rev().collect();
        natural(&mut reversed);
        assert_eq!(reversed, (0..50).collect::<Vec<_>>());
        let mut rotated: Vec<u32> = (1..50).chain([0]).collect();
        natural(&mut rotated);
        assert_eq!(rotated, (0..50).collect::<Vec<_>>());
    }
}
