// Runs planlens.wasm with the caller's standard streams, arguments, environment and exit code.
//
// WASI preview 1 has no working directory, and it reaches only the folders it is given
// ("preopened"). The file system's root is preopened (each drive used, on Windows, as /c, /d, …)
// and the caller's working directory is named in PLANLENS_WASI_CWD, which the CLI enters first
// (crates/cli/src/wasi.rs): relative and absolute paths then work as they do natively, and the
// CLI's messages name them as the user wrote them. PLANLENS_APP, when the caller has not set it,
// names the app packaged beside this file, so `planlens report` needs no --app.
import { writeSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { constants } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
/** The installed package's folder. */
export const PACKAGE = path.resolve(here, "..");
/** The built app (Trunk's dist/), served by `open` and inlined by `report`. */
export const SITE = path.join(PACKAGE, "site");
const WASM = path.join(PACKAGE, "planlens.wasm");

const windows = process.platform === "win32";

/** The guest's name for a host path: itself on POSIX, `/c/Users/…` for `C:\Users\…` on Windows. */
export function guestPath(host) {
  if (!windows) return host;
  const full = path.resolve(host);
  const drive = full.slice(0, 1).toLowerCase();
  return `/${drive}${full.slice(2).replaceAll("\\", "/")}`;
}

/** The preopened folders: the root, or every drive the working directory and package are on. */
function preopens() {
  if (!windows) return { "/": "/" };
  const drives = {};
  for (const p of [process.cwd(), PACKAGE]) {
    const root = path.parse(path.resolve(p)).root;
    drives[`/${root.slice(0, 1).toLowerCase()}`] = root;
  }
  return drives;
}

// Node announces node:wasi as experimental on stderr when it is loaded; the CLI's stderr must be
// the native CLI's, byte for byte, so that one warning (and only it) is dropped.
function quietWasiWarning() {
  const emit = process.emitWarning;
  process.emitWarning = function (warning, ...rest) {
    const type = typeof rest[0] === "string" ? rest[0] : rest[0]?.type;
    if (type === "ExperimentalWarning" && String(warning?.message ?? warning).includes("WASI")) return;
    return emit.call(process, warning, ...rest);
  };
}

// WASI numbers its errors its own way: the CLI says `No such file or directory (os error 44)`
// where the native one says `(os error 2)`. Its stderr is read line by line here and each `(os
// error N)` given the host's number for the same error (POSIX hosts; Windows numbers its errors
// differently anyway), so messages are the native CLI's. The names are WASI preview 1's errno.
const WASI_ERRNO = [
  "", "2BIG", "ACCES", "ADDRINUSE", "ADDRNOTAVAIL", "AFNOSUPPORT", "AGAIN", "ALREADY", "BADF",
  "BADMSG", "BUSY", "CANCELED", "CHILD", "CONNABORTED", "CONNREFUSED", "CONNRESET", "DEADLK",
  "DESTADDRREQ", "DOM", "DQUOT", "EXIST", "FAULT", "FBIG", "HOSTUNREACH", "IDRM", "ILSEQ",
  "INPROGRESS", "INTR", "INVAL", "IO", "ISCONN", "ISDIR", "LOOP", "MFILE", "MLINK", "MSGSIZE",
  "MULTIHOP", "NAMETOOLONG", "NETDOWN", "NETRESET", "NETUNREACH", "NFILE", "NOBUFS", "NODEV",
  "NOENT", "NOEXEC", "NOLCK", "NOLINK", "NOMEM", "NOMSG", "NOPROTOOPT", "NOSPC", "NOSYS",
  "NOTCONN", "NOTDIR", "NOTEMPTY", "NOTRECOVERABLE", "NOTSOCK", "NOTSUP", "NOTTY", "NXIO",
  "OVERFLOW", "OWNERDEAD", "PERM", "PIPE", "PROTO", "PROTONOSUPPORT", "PROTOTYPE", "RANGE", "ROFS",
  "SPIPE", "SRCH", "STALE", "TIMEDOUT", "TXTBSY", "XDEV",
];

function hostErrors(text) {
  return text.replace(/\(os error (\d+)\)/g, (whole, n) => {
    const host = constants.errno[`E${WASI_ERRNO[Number(n)] ?? ""}`];
    return host === undefined ? whole : `(os error ${host})`;
  });
}

/**
 * Replaces the import `fd_write` so that what the CLI writes to its stderr goes to `fd` a line
 * at a time, with the host's error numbers; returns the function writing what is left at exit.
 */
function translateStderr(imports, memory, fd) {
  if (windows) return () => {};
  const fdWrite = imports.fd_write;
  let pending = Buffer.alloc(0);
  const flush = (all) => {
    const end = all ? pending.length : pending.lastIndexOf(10) + 1;
    if (end === 0) return;
    writeSync(fd, hostErrors(pending.subarray(0, end).toString("utf8")));
    pending = pending.subarray(end);
  };
  imports.fd_write = (target, iovs, count, written) => {
    if (target !== 2) return fdWrite(target, iovs, count, written);
    const view = new DataView(memory().buffer);
    const parts = [pending];
    let total = 0;
    for (let i = 0; i < count; i++) {
      const base = view.getUint32(iovs + i * 8, true);
      const length = view.getUint32(iovs + i * 8 + 4, true);
      parts.push(Buffer.from(new Uint8Array(memory().buffer, base, length)));
      total += length;
    }
    pending = Buffer.concat(parts);
    flush(false);
    view.setUint32(written, total, true);
    return 0;
  };
  return () => flush(true);
}

let compiled;

/** The compiled module, once per process. */
async function module() {
  compiled ??= WebAssembly.compile(await readFile(WASM));
  return compiled;
}

/**
 * Runs the CLI with `args` (without the program name) on the given streams (file descriptors;
 * the process's own by default) and returns its exit code.
 */
export async function run(args, { stdin = 0, stdout = 1, stderr = 2 } = {}) {
  quietWasiWarning();
  const { WASI } = await import("node:wasi");
  const env = { ...process.env, PLANLENS_WASI_CWD: guestPath(process.cwd()) };
  if (!env.PLANLENS_APP) env.PLANLENS_APP = guestPath(SITE);
  const wasi = new WASI({
    version: "preview1",
    args: ["planlens", ...args],
    env,
    preopens: preopens(),
    stdin,
    stdout,
    stderr,
    returnOnExit: true,
  });
  const imports = wasi.getImportObject();
  let instance;
  const finish = translateStderr(imports.wasi_snapshot_preview1, () => instance.exports.memory, stderr);
  instance = await WebAssembly.instantiate(await module(), imports);
  try {
    return wasi.start(instance);
  } catch (e) {
    finish();
    // A trap: the CLI panicked (its message is already on stderr; the release build aborts on
    // panic, as the native one does) or ran out of memory.
    process.stderr.write(`planlens: the WebAssembly CLI stopped: ${e?.message ?? e}\n`);
    return 134;
  } finally {
    finish();
  }
}
