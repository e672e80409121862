// Command-line options of the benchmark scripts (scripts/bench.mjs, scripts/prlink.mjs):
// `--name VALUE` or `--name=VALUE`.

/** The value given for `name`, or `fallback`. */
export function option(name, fallback) {
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    if (args[i] === name && i + 1 < args.length) return args[i + 1];
    if (args[i].startsWith(name + "=")) return args[i].slice(name.length + 1);
  }
  return fallback;
}
