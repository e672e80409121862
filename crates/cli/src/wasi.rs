//! The working directory when the CLI runs as WebAssembly under WASI preview 1 (`planlens.wasm`
//! in the npm package, run by `npm/bin/planlens.js` with Node's `node:wasi`).
//!
//! WASI preview 1 gives a program no working directory: relative paths resolve against `/`. The
//! launcher preopens the file system's root and names the caller's directory (in the guest's
//! path form) in [`CWD_ENV`]; entering it here makes `plan.json` and `../x/plan.json` on the
//! command line mean what they mean to the native CLI, and messages name them as given. Natively
//! this does nothing. Never reads or changes anything else.

/// The variable the launcher sets to the caller's working directory.
#[cfg_attr(not(target_os = "wasi"), allow(dead_code))]
pub const CWD_ENV: &str = "PLANLENS_WASI_CWD";

/// Enters the directory named by [`CWD_ENV`] (WASI only).
pub fn enter_working_directory() {
    #[cfg(target_os = "wasi")]
    if let Some(dir) = std::env::var_os(CWD_ENV)
        && let Err(e) = std::env::set_current_dir(&dir)
    {
        // A launcher bug, not the user's: say so, and let relative paths fail as they will.
        eprintln!(
            "planlens: cannot enter the working directory {}: {e}",
            dir.to_string_lossy()
        );
    }
}
