//! Drawn components and lone items set side by side in rows (shelf packing), the row width
//! chosen so the whole comes closest to a screen's proportions.

/// Space between packed components and between isolated nodes.
const COMPONENT_GAP: f32 = 48.0;
/// Width : height the packing aims at, that of a typical screen.
const TARGET_ASPECT: f32 = 1.6;

/// Packs component boxes (largest first) into rows, then the loose nodes in rows below them,
/// choosing the row width whose result comes closest to [`TARGET_ASPECT`]. A `lead` box (the
/// component holding a box's ports) goes first at (0, 0) with everything else to its right, so
/// nothing is drawn under it. Returns top-left corners in the order given.
pub(super) fn pack(
    lead: Option<(f32, f32)>,
    comps: &[(f32, f32)],
    loose: &[(f32, f32)],
) -> Origins {
    let gap = COMPONENT_GAP;
    let (lead_w, lead_h) = lead.map_or((0.0, 0.0), |(w, h)| (w + gap, h));
    let area: f32 = comps
        .iter()
        .chain(loose)
        .map(|&(w, h)| (w + gap) * (h + gap))
        .sum();
    let widest = comps
        .iter()
        .chain(loose)
        .map(|&(w, _)| w)
        .fold(0.0f32, f32::max);
    let ideal = (area * TARGET_ASPECT).sqrt();
    // Shelf packing wastes space at row ends, so the ideal width is only a first guess: trying
    // a spread of widths is cheap (linear in the number of boxes) and finds a much closer fit.
    let mut best: Option<(f32, f32)> = None;
    for step in 0..=16 {
        let row_width = (ideal * (0.5 + step as f32 * 0.1)).max(widest);
        let (w, h) = shelf_pack(comps, loose, row_width, None);
        let (w, h) = (lead_w + w, h.max(lead_h));
        // How many times too wide or too tall: ordered like |ln|, without a logarithm, whose
        // last bit may differ between platforms (WebAssembly's libm and the system's).
        let ratio = (w.max(1.0) / h.max(1.0)) / TARGET_ASPECT;
        let miss = ratio.max(1.0 / ratio);
        if best.is_none_or(|(best_miss, _)| miss < best_miss) {
            best = Some((miss, row_width));
        }
    }
    let row_width = best.map_or(widest, |(_, w)| w);
    let mut origins = (Vec::new(), Vec::new());
    shelf_pack(comps, loose, row_width, Some(&mut origins));
    for (x, _) in origins.0.iter_mut().chain(origins.1.iter_mut()) {
        *x += lead_w;
    }
    origins
}

/// Output of [`pack`]: top-left corners of the components and of the loose nodes.
type Origins = (Vec<(f32, f32)>, Vec<(f32, f32)>);

/// Places boxes left to right in rows no wider than `row_width`; returns the size used.
fn shelf_pack(
    comps: &[(f32, f32)],
    loose: &[(f32, f32)],
    row_width: f32,
    mut origins: Option<&mut Origins>,
) -> (f32, f32) {
    let gap = COMPONENT_GAP;
    let mut used_w = 0.0f32;
    let mut top = 0.0f32;
    for (part, boxes) in [comps, loose].into_iter().enumerate() {
        if boxes.is_empty() {
            continue;
        }
        let (mut x, mut row_h) = (0.0f32, 0.0f32);
        for &(w, h) in boxes {
            if x > 0.0 && x + w > row_width {
                top += row_h + gap;
                x = 0.0;
                row_h = 0.0;
            }
            if let Some(o) = origins.as_deref_mut() {
                let list = if part == 0 { &mut o.0 } else { &mut o.1 };
                list.push((x, top));
            }
            used_w = used_w.max(x + w);
            row_h = row_h.max(h);
            x += w + gap;
        }
        // The loose grid starts on a fresh row below the components.
        top += row_h + gap;
    }
    (used_w, (top - gap).max(0.0))
}
