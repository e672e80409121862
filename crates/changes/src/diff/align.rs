//! Lines up the elements of two sequences (list elements, lines of a string) the way Terraform's
//! renderer does (`collections.ProcessSlice` over `objchange.LongestCommonSubsequence`): the
//! longest common subsequence stays in place, and between two of its elements, what is only before
//! was removed and what is only after was added — except that an object removed and an object added
//! at the same point are one object changed in place, so a firewall rule with one new port reads as
//! one rule changed, not one rule gone and another new.

/// One row of an alignment: an element's index before and after, `None` on the side it is not on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    /// Its index in the before sequence, if it was there.
    pub before: Option<usize>,
    /// Its index in the after sequence, if it is there.
    pub after: Option<usize>,
}

/// The largest table the longest common subsequence may fill (4 MB of `u32`). Common prefixes and
/// suffixes are matched before the table is built, so only lists of a thousand elements that
/// change throughout come near it; beyond it the changed middle is aligned by position (objects
/// changed in place, other elements removed and added), so a huge list never stalls the page.
const MAX_CELLS: usize = 1 << 20;

/// Aligns `before` with `after`. `pairable(b, a)` says whether `before[b]` and `after[a]` are both
/// objects, shown as one element changed in place when neither is in the common subsequence.
/// Rows come in order: removed (or changed) elements of a gap, then its added ones, then the next
/// common element.
pub fn align<T: PartialEq>(
    before: &[T],
    after: &[T],
    pairable: impl Fn(usize, usize) -> bool,
) -> Vec<Pair> {
    let common = common_subsequence(before, after);
    let mut rows = Vec::with_capacity(before.len().max(after.len()));
    let (mut b, mut a) = (0, 0);
    let end = (before.len(), after.len());
    for &(next_b, next_a) in common.iter().chain(std::iter::once(&end)) {
        while b < next_b {
            if a < next_a && pairable(b, a) {
                rows.push(Pair {
                    before: Some(b),
                    after: Some(a),
                });
                a += 1;
            } else {
                rows.push(Pair {
                    before: Some(b),
                    after: None,
                });
            }
            b += 1;
        }
        while a < next_a {
            rows.push(Pair {
                before: None,
                after: Some(a),
            });
            a += 1;
        }
        if (next_b, next_a) != end {
            rows.push(Pair {
                before: Some(next_b),
                after: Some(next_a),
            });
            b = next_b + 1;
            a = next_a + 1;
        }
    }
    rows
}

/// The index pairs of a longest common subsequence, in order.
fn common_subsequence<T: PartialEq>(before: &[T], after: &[T]) -> Vec<(usize, usize)> {
    let prefix = before.iter().zip(after).take_while(|(x, y)| x == y).count();
    let suffix = before[prefix..]
        .iter()
        .rev()
        .zip(after[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let xs = &before[prefix..before.len() - suffix];
    let ys = &after[prefix..after.len() - suffix];

    let mut pairs: Vec<(usize, usize)> = (0..prefix).map(|i| (i, i)).collect();
    let (n, m) = (xs.len(), ys.len());
    if n > 0 && m > 0 && (n + 1).saturating_mul(m + 1) <= MAX_CELLS {
        // lengths[i * (m + 1) + j]: the longest common subsequence of xs[..i] and ys[..j].
        let width = m + 1;
        let mut lengths = vec![0u32; (n + 1) * width];
        for i in 1..=n {
            for j in 1..=m {
                lengths[i * width + j] = if xs[i - 1] == ys[j - 1] {
                    lengths[(i - 1) * width + j - 1] + 1
                } else {
                    lengths[(i - 1) * width + j].max(lengths[i * width + j - 1])
                };
            }
        }
        // Walk back from the end as Terraform does: take a match where there is one, else drop
        // from the side that keeps the longer subsequence, the after side on a tie.
        let mut middle = Vec::with_capacity(lengths[n * width + m] as usize);
        let (mut i, mut j) = (n, m);
        while i > 0 && j > 0 {
            if xs[i - 1] == ys[j - 1] {
                middle.push((prefix + i - 1, prefix + j - 1));
                i -= 1;
                j -= 1;
            } else if lengths[(i - 1) * width + j] > lengths[i * width + j - 1] {
                i -= 1;
            } else {
                j -= 1;
            }
        }
        pairs.extend(middle.into_iter().rev());
    }
    pairs.extend((0..suffix).map(|k| (before.len() - suffix + k, after.len() - suffix + k)));
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The alignment as text: `=x` kept, `-x` removed, `+x` added, `~x>y` changed in place.
    fn show(before: &[&str], after: &[&str], objects: bool) -> Vec<String> {
        align(before, after, |_, _| objects)
            .into_iter()
            .map(|p| match (p.before, p.after) {
                (Some(b), Some(a)) if before[b] == after[a] => format!("={}", before[b]),
                (Some(b), Some(a)) => format!("~{}>{}", before[b], after[a]),
                (Some(b), None) => format!("-{}", before[b]),
                (None, Some(a)) => format!("+{}", after[a]),
                (None, None) => unreachable!("a row is on at least one side"),
            })
            .collect()
    }

    #[test]
    fn removing_the_first_element_is_one_removal() {
        let before: Vec<String> = (0..12).map(|i| format!("r{i}")).collect();
        let before: Vec<&str> = before.iter().map(String::as_str).collect();
        let rows = show(&before, &before[1..], true);
        assert_eq!(rows[0], "-r0");
        assert!(rows[1..].iter().all(|r| r.starts_with('=')), "{rows:?}");
        assert_eq!(rows.len(), 12);
    }

    #[test]
    fn lines_align_as_terraform_prints_them() {
        // Terraform's own equivalence test `basic_multiline_string_update`.
        let before = ["one", "two", "three", "four", "five"];
        let after = ["one", "three", "two", "four", "six", "seven"];
        assert_eq!(
            show(&before, &after, false),
            [
                "=one", "-two", "=three", "+two", "=four", "-five", "+six", "+seven"
            ]
        );
    }

    #[test]
    fn objects_between_common_elements_change_in_place() {
        assert_eq!(
            show(&["a", "b", "c"], &["a", "x", "c", "d"], true),
            ["=a", "~b>x", "=c", "+d"]
        );
        // Not objects: removed, then added.
        assert_eq!(
            show(&["a", "b", "c"], &["a", "x", "c"], false),
            ["=a", "-b", "+x", "=c"]
        );
    }

    #[test]
    fn empty_sides_and_a_middle_too_large_for_the_table() {
        assert_eq!(show(&[], &["a"], true), ["+a"]);
        assert_eq!(show(&["a"], &[], true), ["-a"]);
        assert!(show(&[], &[], true).is_empty());
        // 1100 × 1100 changed elements: aligned by position, the common prefix and suffix kept.
        let before: Vec<u32> = (0..1102).collect();
        let mut after: Vec<u32> = (0..1102).map(|i| i + 5000).collect();
        after[0] = 0;
        after[1101] = 1101;
        let rows = align(&before, &after, |_, _| false);
        assert_eq!(rows.len(), 2 + 2 * 1100);
        assert_eq!(
            rows[0],
            Pair {
                before: Some(0),
                after: Some(0)
            }
        );
        assert_eq!(
            rows[rows.len() - 1],
            Pair {
                before: Some(1101),
                after: Some(1101)
            }
        );
    }
}
