// Planlens' Web Worker. The page sends the WebAssembly module it already compiled and the URL of
// its JavaScript glue; the same module is instantiated here (no second download) and reads,
// parses and analyses plans off the page's thread (src/worker.rs, src/ui/backend.rs).
//
// The same script also runs a lazily loaded part of the app on its own (the Rego engine): the
// first message then names the part, and the part's own module is fetched, instantiated and
// started instead.
//
// `parts` maps a part's name to where its files are ({ glue: URL, wasm: URL or bytes }); a part is
// fetched the first time something asks for it (`self.planlensPart(name)`, called from
// src/worker.rs) and kept for the worker's life.
const loading = new Map();

const loadPart = (parts, name) => {
  if (!loading.has(name)) {
    const where = parts && parts[name];
    if (!where) {
      return Promise.reject(new Error(`this copy of Planlens does not include its ${name} part`));
    }
    loading.set(
      name,
      (async () => {
        const bindings = await import(where.glue);
        await bindings.default({ module_or_path: where.wasm });
        return bindings;
      })(),
    );
  }
  return loading.get(name);
};

self.onmessage = async (event) => {
  self.onmessage = null;
  try {
    const { glue, module, parts, part } = event.data;
    self.planlensPart = (name) => loadPart(parts, name);
    if (part) {
      const bindings = await loadPart(parts, part);
      bindings.part_start();
      return;
    }
    const bindings = await import(glue);
    await bindings.default({ module_or_path: module });
    bindings.worker_start();
  } catch (error) {
    self.postMessage({ kind: "failed", message: String(error && error.message ? error.message : error) });
  }
};
