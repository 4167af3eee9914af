//! Progress lines of the model harnesses, included with `#[path]`: one line
//! per write to the process's standard error, where libtest does not capture
//! it, so that a plain `cargo test --features loom` (or `shuttle`) shows each
//! model as it starts and ends, not only under `--nocapture`.
//!
//! libtest captures what the `print!` family writes (`eprintln!` included)
//! and shows it only for a failed test or under `--show-output`. It does not
//! capture a write to `std::io::stderr()` (checked with Rust 1.95); on Unix
//! the line goes through a duplicate of descriptor 2, which no capture can
//! reach, should a later libtest capture `std::io::stderr()` too.
//! `model/scripts/verify.sh` redirects stderr into its logs, so it reads these lines
//! ("... N executions in T", "... N schedules in T") as before.

use std::io::Write;

/// Writes `text` and a newline to standard error in one write.
pub fn line(text: std::fmt::Arguments<'_>) {
    let line = format!("{text}\n");
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = std::io::stderr().as_fd().try_clone_to_owned() {
            let _ = std::fs::File::from(fd).write_all(line.as_bytes());
            return;
        }
    }
    let _ = std::io::stderr().write_all(line.as_bytes());
}
