#!/usr/bin/env node
// `planlens`: the Planlens CLI compiled to WebAssembly (wasm32-wasip1), run by Node's `node:wasi`.
// Every subcommand is the CLI's own, with its output and exit codes; `open` (lib/open.js) is the
// launcher's: WASI preview 1 has no sockets, so Node serves the packaged app.
import { run } from "../lib/wasi.js";

const args = process.argv.slice(2);
if (args[0] === "open") {
  const { open } = await import("../lib/open.js");
  process.exitCode = await open(args.slice(1));
} else {
  process.exitCode = await run(args);
}
