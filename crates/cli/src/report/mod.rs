//! `planlens report`: one self-contained HTML file with the web app and a plan inside, for CI jobs
//! that attach artifacts instead of hosting a site. Opened from disk it makes no request at all:
//! the style sheet is inline, the app's JavaScript and WebAssembly travel in the page (zlib, then
//! base64) and a small inline module unpacks them into `data:` URLs and memory.
//!
//! The plan goes in as a full link's payload (`share::strip` then `load::link::encode`, as
//! `share::full_payload`: the same stripping of sensitive values as every full link), in an inert
//! element the app reads at start
//! (`src/ui/report.rs`), before the address's fragment:
//!
//! ```html
//! <script type="application/octet-stream" id="planlens-report" data-name="plan.json"
//!   data-rules="…" data-env="prod">PAYLOAD</script>
//! ```
//!
//! The app's files come from a Trunk build (`trunk build --release`, its `dist/`): the CLI is
//! compiled before that build exists (and in the same workspace), so it reads them at run time
//! rather than embedding them.
//!
//! The style is inline; the glue is zlib + base64; the worker and the wasm are unpacked into
//! `data:` URLs and memory by an inline module whose hash is in the page's CSP. A plan above
//! `link::MAX_DECODED_BYTES` is refused, since the app would not open it and the file fetches
//! nothing (`connect-src 'none'`). There is no second stripping: the payload is exactly a full
//! link's.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use sha2::{Digest, Sha256};

/// The id of the element carrying the plan; `src/ui/report.rs` reads it.
const PLAN_ID: &str = "planlens-report";

/// The environment variable naming the built app's directory when `--app` is not given.
pub const APP_ENV: &str = "PLANLENS_APP";

/// What a report carries besides the app: the plan and how to show it.
pub struct Plan<'a> {
    /// A full link's payload (`share::full_payload`).
    pub payload: &'a str,
    /// The plan file's name, shown in the app and the page title.
    pub name: &'a str,
    /// The rule file as a link payload, when one was given.
    pub rules: Option<&'a str>,
    /// The `environment` label.
    pub environment: Option<&'a str>,
    /// The payload is a set of plans (`share::set::set_payload`), reopened as the roll-up.
    pub set: bool,
}

/// The built web app: the files its `index.html` names.
pub struct App {
    /// The style sheet.
    css: String,
    /// wasm-bindgen's JavaScript glue (an ES module).
    glue: Vec<u8>,
    /// The WebAssembly module.
    wasm: Vec<u8>,
    /// The parsing worker's script (`worker.js`), in builds that have one.
    worker: Option<Vec<u8>>,
    /// The lazily loaded parts (`part-NAME.js` and `part-NAME_bg.wasm`): name, glue, wasm.
    parts: Vec<(String, Vec<u8>, Vec<u8>)>,
}

/// The lazily loaded parts Trunk built into `dir` (the Rego engine, the YAML reader): every
/// `part-NAME.js` with its `part-NAME_bg.wasm`, by name.
fn parts(dir: &Path) -> Vec<(String, Vec<u8>, Vec<u8>)> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let file = entry.file_name().into_string().ok()?;
            let name = file.strip_prefix("part-")?.strip_suffix(".js")?;
            let plain = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
            plain.then(|| name.to_string())
        })
        .collect();
    names.sort();
    names
        .into_iter()
        .filter_map(|name| {
            let glue = std::fs::read(dir.join(format!("part-{name}.js"))).ok()?;
            let wasm = std::fs::read(dir.join(format!("part-{name}_bg.wasm"))).ok()?;
            Some((name, glue, wasm))
        })
        .collect()
}

/// The directory of the built app: `--app DIR`, else `$PLANLENS_APP`, else `dist/` here.
pub fn app_dir(option: Option<&str>) -> PathBuf {
    option
        .map(PathBuf::from)
        .or_else(|| std::env::var_os(APP_ENV).map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("dist"))
}

/// The value of attribute `name` in one HTML tag's text (`<link rel="x" href="y">`).
fn attribute<'t>(tag: &'t str, name: &str) -> Option<&'t str> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    let len = tag[start..].find('"')?;
    Some(&tag[start..start + len])
}

impl App {
    /// Reads the app Trunk built into `dir`, finding its files by what `index.html` links to.
    pub fn read(dir: &Path) -> Result<App, String> {
        let shown = dir.display();
        let index = std::fs::read_to_string(dir.join("index.html")).map_err(|e| {
            format!(
                "no built Planlens app in {shown} ({shown}/index.html: {e}). The report needs the \
                 web app's files: build the app first: trunk build --release (in a Planlens \
                 checkout; it writes dist/), then name that directory with --app DIR or {APP_ENV}=DIR."
            )
        })?;
        let (mut css, mut glue, mut wasm) = (None, None, None);
        for tag in index.split("<link").skip(1) {
            let tag = tag.split('>').next().unwrap_or_default();
            let (Some(rel), Some(href)) = (attribute(tag, "rel"), attribute(tag, "href")) else {
                continue;
            };
            // The files sit next to index.html; the href may carry the site's public URL.
            let file = href.rsplit('/').next().unwrap_or_default();
            if file.is_empty() || file.starts_with('.') {
                continue;
            }
            match rel {
                "stylesheet" => css = Some(file),
                // `scripts/csp-boot.mjs` renames Trunk's preloads of the app so that they fetch
                // nothing (the page's one module preload is a share link's first paint's).
                "planlens-glue" => glue = Some(file),
                "planlens-wasm" => wasm = Some(file),
                _ => {}
            }
        }
        let need = |file: Option<&str>, what: &str| {
            let file = file.ok_or_else(|| {
                format!(
                    "{shown}/index.html links no {what}: is {shown} a Planlens build? Build the \
                     app first: trunk build --release"
                )
            })?;
            std::fs::read(dir.join(file)).map_err(|e| {
                format!(
                    "cannot read {shown}/{file}: {e}. Build the app again: trunk build --release"
                )
            })
        };
        let css = String::from_utf8(need(css, "style sheet")?)
            .map_err(|_| format!("{shown}: the style sheet is not UTF-8 text"))?;
        // The style sheet goes inside <style>: text that would end the element cannot.
        if css.to_ascii_lowercase().contains("</style") {
            return Err(format!(
                "{shown}: the style sheet contains </style and cannot be put inline"
            ));
        }
        Ok(App {
            css,
            glue: need(glue, "JavaScript module (<link rel=\"planlens-glue\">)")?,
            wasm: need(wasm, "WebAssembly module (<link rel=\"planlens-wasm\">)")?,
            worker: std::fs::read(dir.join("worker.js")).ok(),
            parts: parts(dir),
        })
    }
}

/// The inline start-up module: unpacks the app's files, sets the globals the app reads for its
/// worker (`planlensGlueUrl`, `planlensWorkerUrl`) and starts the app from the bytes in the page.
/// No fetch, no service worker: a report opened from disk asks nothing of any network.
///
/// The scripts become `data:` URLs, not `blob:` ones: in a page opened from `file://` (an opaque
/// origin) Chromium refuses a module worker from a `blob:` URL and a worker's import of the
/// page's `blob:` URL, while `data:` modules load in the page and in a module worker alike.
const BOOT: &str = r#"
const unpack = async (id) => {
  const text = document.getElementById(id).textContent;
  let packed;
  if (Uint8Array.fromBase64) {
    packed = Uint8Array.fromBase64(text);
  } else {
    const binary = atob(text);
    packed = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) packed[i] = binary.charCodeAt(i);
  }
  const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new Response(stream).arrayBuffer();
};
const script = async (id) => {
  const blob = new Blob([await unpack(id)], { type: "text/javascript" });
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
};
window.planlensGlueUrl = await script("planlens-glue");
if (document.getElementById("planlens-worker")) {
  window.planlensWorkerUrl = await script("planlens-worker");
}
// The lazily loaded parts: their glue as `data:` URLs, their wasm as bytes (the page may fetch
// nothing, not even a `data:` URL).
window.planlensPartUrls = {};
for (const element of document.querySelectorAll("script[data-part]")) {
  const name = element.dataset.part;
  if (element.id === `planlens-part-${name}-glue`) {
    window.planlensPartUrls[name] = {
      glue: await script(element.id),
      wasm: await unpack(`planlens-part-${name}-wasm`),
    };
  }
}
const glue = await import(window.planlensGlueUrl);
await glue.default({ module_or_path: await unpack("planlens-wasm") });
"#;

/// `'sha256-…'`: a CSP source allowing exactly this inline text.
fn csp_hash(text: &str) -> String {
    format!(
        "'sha256-{}'",
        STANDARD.encode(Sha256::digest(text.as_bytes()))
    )
}

/// Text safe inside an HTML attribute value or element.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Bytes as the page carries them: zlib (the app's WebAssembly shrinks to about a third), then
/// standard base64 (what `atob` reads; no character of it can end a <script> element).
fn packed(bytes: &[u8]) -> String {
    STANDARD.encode(miniz_oxide::deflate::compress_to_vec_zlib(bytes, 9))
}

/// An inert element carrying `text` (never run: its type is not a script's).
fn data(out: &mut String, id: &str, attributes: &str, text: &str) {
    let _ = writeln!(
        out,
        r#"<script type="application/octet-stream" id="{id}"{attributes}>{text}</script>"#
    );
}

/// The report: one HTML page with `app` and `plan` inside. Its Content-Security-Policy allows its
/// own inline style and start-up module (by hash), the `data:` scripts and worker that module
/// makes, WebAssembly, and nothing else: no origin, no connection. (Plan text is only ever
/// rendered as text, so no markup can add a `data:` script.)
pub fn html(app: &App, plan: &Plan<'_>) -> String {
    let worker_src = if app.worker.is_some() {
        "; worker-src data:"
    } else {
        ""
    };
    let csp = format!(
        "default-src 'none'; script-src {} 'wasm-unsafe-eval' data:{worker_src}; style-src {}; \
         img-src data: blob:; connect-src 'none'; base-uri 'none'; form-action 'none'; \
         object-src 'none'",
        csp_hash(BOOT),
        csp_hash(&app.css),
    );
    let name = escape(plan.name);
    let mut out = String::with_capacity(app.wasm.len() / 2 + plan.payload.len() + app.css.len());
    let _ = write!(
        out,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <!-- A Planlens report (planlens report): the app and the plan are in this file; it \
         fetches nothing. Sensitive values were removed from the plan as in a full share link. -->\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <title>{name} — Planlens report</title>\n\
         <link rel=\"icon\" href=\"data:,\">\n<style>{}</style>\n",
        app.css
    );
    let mut attributes = format!(" data-name=\"{name}\"");
    if let Some(rules) = plan.rules {
        let _ = write!(attributes, " data-rules=\"{}\"", escape(rules));
    }
    if let Some(env) = plan.environment {
        let _ = write!(attributes, " data-env=\"{}\"", escape(env));
    }
    if plan.set {
        attributes.push_str(" data-kind=\"set\"");
    }
    data(&mut out, PLAN_ID, &attributes, plan.payload);
    data(&mut out, "planlens-glue", "", &packed(&app.glue));
    if let Some(worker) = &app.worker {
        data(&mut out, "planlens-worker", "", &packed(worker));
    }
    data(&mut out, "planlens-wasm", "", &packed(&app.wasm));
    for (name, glue, wasm) in &app.parts {
        let part = format!(" data-part=\"{}\"", escape(name));
        data(
            &mut out,
            &format!("planlens-part-{name}-glue"),
            &part,
            &packed(glue),
        );
        data(
            &mut out,
            &format!("planlens-part-{name}-wasm"),
            &part,
            &packed(wasm),
        );
    }
    let _ = write!(
        out,
        "<script type=\"module\">{BOOT}</script>\n</head>\n<body>\n<noscript>This Planlens \
         report needs JavaScript and WebAssembly: it reads the plan entirely inside this \
         page.</noscript>\n</body>\n</html>\n"
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_hashes_the_inline_module_and_style_exactly() {
        let app = App {
            css: "body{color:red}".into(),
            glue: b"export default async function(){}".to_vec(),
            wasm: vec![0, 97, 115, 109],
            worker: None,
            parts: Vec::new(),
        };
        let page = html(
            &app,
            &Plan {
                payload: "AbC-_",
                set: false,
                name: "a\"<b>.json",
                rules: None,
                environment: Some("p&q"),
            },
        );
        // SHA-256 of "body{color:red}", base64.
        assert_eq!(
            csp_hash("body{color:red}"),
            "'sha256-FcQqt3aNlV7AZnGV4zkQRVeCeJOxbMPnQSx258L803E='"
        );
        assert!(page.contains(&csp_hash(BOOT)) && page.contains(&csp_hash(&app.css)));
        assert!(page.contains(&format!("<script type=\"module\">{BOOT}</script>")));
        assert!(page.contains("<style>body{color:red}</style>"));
        assert!(page.contains("data-name=\"a&quot;&lt;b&gt;.json\" data-env=\"p&amp;q\">AbC-_<"));
        assert!(page.contains("connect-src 'none'") && !page.contains("worker-src"));
    }

    #[test]
    fn attributes_are_read_from_one_tag() {
        let tag = r#" rel="modulepreload" href="/planlens/x.js" crossorigin="anonymous""#;
        assert_eq!(attribute(tag, "rel"), Some("modulepreload"));
        assert_eq!(attribute(tag, "href"), Some("/planlens/x.js"));
        assert_eq!(attribute(tag, "as"), None);
    }
}
