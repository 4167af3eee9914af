//! Renders the Mandelbrot set in parallel, one image row per chunk, and
//! writes it as a PNG, by default to `target/stealpool-examples/mandelbrot.png`.
//!
//! ```sh
//! cargo run --release --example mandelbrot -- --threads 2 --size 1024
//! cargo run --release --example mandelbrot -- --help
//! ```
//!
//! Rows near the set cost up to `--iterations` steps per pixel, rows far
//! from it a few: the work is uneven, which is what adaptive splitting
//! (`ThreadPool::for_each_chunk_mut`) is for. The image is checked
//! byte for byte against a sequential render.

#[path = "common/cli.rs"]
mod cli;

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use stealpool::ThreadPool;

const ABOUT: &str = "Renders the Mandelbrot set on the pool, one row per chunk, checks it against a \
sequential render and writes it as a PNG.";

const OPTIONS: &[cli::Opt] = &[
    cli::THREADS,
    cli::opt("size", "PIXELS", "width and height of the image (default 1024)"),
    cli::opt("iterations", "N", "escape-time limit per pixel (default 1000)"),
    cli::opt(
        "out",
        "PATH",
        "the PNG to write (default target/stealpool-examples/mandelbrot.png)",
    ),
];

/// Writes `rgb` (`size` x `size` pixels, 3 bytes each) to `path` as a PNG.
fn write_png(path: &Path, size: usize, rgb: &[u8]) -> std::io::Result<()> {
    let side = u32::try_from(size).map_err(std::io::Error::other)?;
    let mut encoder = png::Encoder::new(BufWriter::new(File::create(path)?), side, side);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(std::io::Error::other)?;
    writer.write_image_data(rgb).map_err(std::io::Error::other)?;
    writer.finish().map_err(std::io::Error::other)
}

/// Escape time of the point `(x, y)`: iterations before `|z| > 2`.
fn escape_time(x: f64, y: f64, limit: u32) -> u32 {
    let (mut zx, mut zy) = (0.0f64, 0.0f64);
    for i in 0..limit {
        let (zx2, zy2) = (zx * zx, zy * zy);
        if zx2 + zy2 > 4.0 {
            return i;
        }
        zy = 2.0 * zx * zy + y;
        zx = zx2 - zy2 + x;
    }
    limit
}

/// Renders row `row` of a `size` × `size` view of [-2.1, 0.7] × [-1.4, 1.4]
/// into `line` (RGB bytes).
fn render_row(row: usize, line: &mut [u8], size: usize, limit: u32) {
    let scale = 2.8 / size as f64;
    let y = 1.4 - row as f64 * scale;
    for (column, pixel) in line.chunks_exact_mut(3).enumerate() {
        let n = escape_time(-2.1 + column as f64 * scale, y, limit);
        let colour = if n == limit {
            [0, 0, 0]
        } else {
            // Escape times span orders of magnitude: colour by their log.
            let t = (n as f64).ln_1p() / (limit as f64).ln_1p();
            [
                (255.0 * t) as u8,
                (255.0 * t * t) as u8,
                (128.0 + 127.0 * t) as u8,
            ]
        };
        pixel.copy_from_slice(&colour);
    }
}

fn main() -> std::io::Result<()> {
    let args = cli::Args::parse(ABOUT, OPTIONS);
    let threads = args.threads();
    let size: usize = args.get("size", 1024);
    let limit: u32 = args.get("iterations", 1000);
    let out: PathBuf = args
        .get_opt("out")
        .unwrap_or_else(|| cli::output_path("mandelbrot.png"));
    let pool = ThreadPool::new(threads);
    let row_bytes = size * 3;

    let (sequential_image, sequential) = cli::timed(|| {
        let mut image = vec![0u8; size * row_bytes];
        for (row, line) in image.chunks_mut(row_bytes).enumerate() {
            render_row(row, line, size, limit);
        }
        image
    });
    let (image, parallel) = cli::timed(|| {
        let mut image = vec![0u8; size * row_bytes];
        pool.for_each_chunk_mut(&mut image, row_bytes, |row, line| {
            render_row(row, line, size, limit)
        });
        image
    });
    assert!(
        image == sequential_image,
        "the parallel render differs from the sequential one"
    );

    write_png(&out, size, &image)?;

    cli::report(
        &format!(
            "Mandelbrot {size}x{size}, {limit} iterations: same image as sequential, written to {}",
            out.display()
        ),
        sequential,
        parallel,
        threads,
    );
    let stats = pool.stats();
    println!(
        "  pool            {} jobs stolen in {} of {} steal attempts",
        stats.tasks_stolen, stats.successful_steals, stats.steal_attempts
    );
    Ok(())
}
