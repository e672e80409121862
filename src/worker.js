// Planlens' Web Worker. The page sends the WebAssembly module it already compiled and the URL of
// its JavaScript glue; the same module is instantiated here (no second download) and reads,
// parses and analyses plans off the page's thread (src/worker.rs, src/ui/backend.rs).
self.onmessage = async (event) => {
  self.onmessage = null;
  try {
    const { glue, module } = event.data;
    const bindings = await import(glue);
    await bindings.default({ module_or_path: module });
    bindings.worker_start();
  } catch (error) {
    self.postMessage({ kind: "failed", message: String(error && error.message ? error.message : error) });
  }
};
