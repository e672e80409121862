//! The Graph tab's export: the current view as an SVG file (written by `crate::graph::export`, with
//! the marks since the last plan while a comparison is open) or rasterised to PNG, saved through
//! a temporary object URL.

use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue};

use super::canvas::context;
use crate::graph::export::{Since, svg_title, view_to_svg_since};
use crate::graph::view::Highlight;
use crate::ui::AppState;

/// The current view as SVG, with a file name stem.
pub(super) fn svg_for_export(state: AppState, highlight: &Highlight) -> Option<(String, String)> {
    let gs = state.graph;
    let g = gs.graph.get_untracked()?;
    let v = gs.view.get_untracked()?;
    let name = state
        .loaded
        .with_untracked(|l| l.as_ref().map(|l| l.doc.name.clone()))?;
    let stem = name.trim_end_matches(".json").to_string();
    // While the plan is compared with the last one, the picture marks what changed since.
    let marks = state.since_marks.get_untracked();
    let gone = state
        .since
        .with_untracked(|s| s.as_ref().map(|s| s.comparison.removed.len()));
    let since = gone.map(|gone| Since {
        marks: &marks,
        gone,
    });
    let svg = view_to_svg_since(&g.0, &v.0, highlight, &svg_title(&name), since.as_ref());
    Some((svg, format!("{stem}-graph")))
}

/// Saves text as a file through a temporary object URL.
pub(in crate::ui) fn download(content: &str, mime: &str, file_name: &str) {
    let parts = js_sys::Array::of1(&JsValue::from_str(content));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else {
        return;
    };
    download_blob(&blob, file_name);
}

fn download_blob(blob: &web_sys::Blob, file_name: &str) {
    let Ok(url) = web_sys::Url::create_object_url_with_blob(blob) else {
        return;
    };
    if let Ok(a) = document().create_element("a")
        && let Ok(a) = a.dyn_into::<web_sys::HtmlAnchorElement>()
    {
        a.set_href(&url);
        a.set_download(file_name);
        a.click();
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

/// Rasterises the SVG (through an image and a canvas, so the PNG matches the SVG) and saves it.
pub(super) fn svg_to_png(svg: String, file_name: String) {
    let Ok(img) = web_sys::HtmlImageElement::new() else {
        return;
    };
    let src = format!(
        "data:image/svg+xml;charset=utf-8,{}",
        String::from(js_sys::encode_uri_component(&svg))
    );
    let image = img.clone();
    let onload = wasm_bindgen::closure::Closure::once_into_js(move || {
        let (w, h) = (
            f64::from(image.natural_width()),
            f64::from(image.natural_height()),
        );
        // Browsers refuse canvases much over 16k px a side or ~250 M px.
        let scale = 2.0f64
            .min(16000.0 / w.max(h))
            .min((2.0e8 / (w * h)).sqrt())
            .max(0.05);
        let Ok(Some(c)) = document()
            .create_element("canvas")
            .map(|c| c.dyn_into::<web_sys::HtmlCanvasElement>().ok())
        else {
            return;
        };
        c.set_width((w * scale) as u32);
        c.set_height((h * scale) as u32);
        let Some(ctx) = context(&c) else { return };
        let _ = ctx.draw_image_with_html_image_element_and_dw_and_dh(
            &image,
            0.0,
            0.0,
            w * scale,
            h * scale,
        );
        let done =
            wasm_bindgen::closure::Closure::once_into_js(move |blob: Option<web_sys::Blob>| {
                if let Some(blob) = blob {
                    download_blob(&blob, &file_name);
                }
            });
        let _ = c.to_blob_with_type(done.unchecked_ref(), "image/png");
    });
    img.set_onload(Some(onload.unchecked_ref()));
    img.set_src(&src);
}
