//! What the benchmark report records while it runs, and what it makes of
//! it: the summary table with a verdict per comparison, the CSV of every
//! measured figure, and the SVG chart of the ratios.
//!
//! A section announces itself with [`Summary::section`], records each
//! figure it measures with [`Summary::row`] (CSV only) and each comparison
//! of this pool against a peer with [`Summary::compare`] (summary table,
//! chart and CSV): `compare` is the one way into the summary.
//!
//! Included next to `cli.rs` (as `cli`), whose `fixed` it prints with.

#![allow(dead_code)] // the tests use a subset

use super::cli::fixed;
use std::fmt::Write as _;
use std::path::Path;

/// What a compared figure is, which decides the words of the verdict.
/// For both, less is better.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// A time: "faster" / "slower".
    Time,
    /// CPU spent: "less CPU" / "more CPU"; when both figures are at most
    /// `floor`, too little to measure well, "level": their ratio would be
    /// noise.
    Cpu { floor: f64 },
}

/// One measured figure.
#[derive(Clone, Debug)]
pub struct Row {
    pub section: String,
    pub scenario: String,
    pub peer: String,
    /// 0 when the figure does not depend on a worker count.
    pub workers: usize,
    pub metric: String,
    pub value: f64,
    pub unit: String,
}

/// This pool's figure against a peer's for one scenario.
#[derive(Clone, Debug)]
pub struct Comparison {
    pub section: String,
    pub scenario: String,
    pub peer: String,
    pub ours: f64,
    pub theirs: f64,
    pub unit: String,
    pub kind: Kind,
}

impl Comparison {
    /// The verdict, `noise` being the half-width of the level band.
    pub fn verdict(&self, noise: f64) -> String {
        match self.kind {
            Kind::Cpu { floor } if self.ours <= floor && self.theirs <= floor => {
                format!("level with {}: both at most {floor} {}", self.peer, self.unit)
            }
            kind => verdict(self.ratio(), noise, &self.peer, kind),
        }
    }

    /// Ours over theirs: below 1, this pool did better. NaN (printed
    /// `n/a`) when either figure is missing or theirs is zero.
    pub fn ratio(&self) -> f64 {
        if !self.ours.is_finite() || !self.theirs.is_finite() {
            f64::NAN
        } else if self.theirs == 0.0 {
            // Nothing against nothing (idle CPU that no tick caught) is level.
            if self.ours == 0.0 {
                1.0
            } else {
                f64::NAN
            }
        } else {
            self.ours / self.theirs
        }
    }
}

/// The report's record.
#[derive(Debug)]
pub struct Summary {
    /// A ratio within `1 ± noise` is "within noise".
    pub noise: f64,
    section: String,
    rows: Vec<Row>,
    comparisons: Vec<Comparison>,
    /// (target, what was measured, status).
    targets: Vec<(String, String, &'static str)>,
}

/// Where a finite ratio lies against the noise band `1 ± noise`: `Less`
/// below it (this pool did better), `Equal` within, `Greater` above. The
/// ratio is taken rounded to two decimals, as it is printed, so a verdict
/// never disagrees with the ratio shown beside it.
fn band(ratio: f64, noise: f64) -> std::cmp::Ordering {
    let shown = (ratio * 100.0).round() / 100.0;
    if shown < 1.0 - noise {
        std::cmp::Ordering::Less
    } else if shown > 1.0 + noise {
        std::cmp::Ordering::Greater
    } else {
        std::cmp::Ordering::Equal
    }
}

/// The verdict on a ratio (ours / theirs, less is better) against `peer`,
/// `noise` being the half-width of the band counted as level.
pub fn verdict(ratio: f64, noise: f64, peer: &str, kind: Kind) -> String {
    let (better, worse) = match kind {
        Kind::Time => ("faster than", "slower than"),
        Kind::Cpu { .. } => ("less CPU than", "more CPU than"),
    };
    if !ratio.is_finite() {
        return "n/a".into();
    }
    match band(ratio, noise) {
        std::cmp::Ordering::Less => format!("{better} {peer} ({ratio:.2}x)"),
        std::cmp::Ordering::Greater => format!("{worse} {peer} ({ratio:.2}x)"),
        std::cmp::Ordering::Equal => format!("within noise of {peer} ({ratio:.2}x)"),
    }
}

/// A figure for the table: three significant digits or so, `n/a` if
/// there is none.
fn figure(x: f64) -> String {
    let precision = match x.abs() {
        a if a >= 100.0 => 1,
        a if a >= 1.0 => 2,
        _ => 3,
    };
    fixed(x, precision)
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

impl Summary {
    /// An empty record; ratios within `1 ± noise` are "within noise".
    pub fn new(noise: f64) -> Summary {
        Summary {
            noise,
            section: String::new(),
            rows: Vec::new(),
            comparisons: Vec::new(),
            targets: Vec::new(),
        }
    }

    /// Records a target, what this run measured of it and its status.
    pub fn target(&mut self, target: impl Into<String>, measured: String, status: &'static str) {
        self.targets.push((target.into(), measured, status));
    }

    pub fn targets(&self) -> &[(String, String, &'static str)] {
        &self.targets
    }

    /// The status of an "ours <= theirs" target from the ratio ours /
    /// theirs, within the noise band counting as level.
    pub fn at_most(&self, ratio: f64) -> &'static str {
        if !ratio.is_finite() {
            "n/a"
        } else if ratio <= 1.0 {
            "met"
        } else if ratio <= 1.0 + self.noise {
            "level within noise"
        } else {
            "NOT met"
        }
    }

    /// Starts a section: what follows is recorded under `name`.
    pub fn section(&mut self, name: &str) {
        self.section = name.to_string();
    }

    /// Records a measured figure (it goes to the CSV).
    pub fn row(&mut self, scenario: &str, peer: &str, workers: usize, metric: &str, value: f64, unit: &str) {
        self.rows.push(Row {
            section: self.section.clone(),
            scenario: scenario.into(),
            peer: peer.into(),
            workers,
            metric: metric.into(),
            value,
            unit: unit.into(),
        });
    }

    /// Records this pool's figure `ours` against `peer`'s `theirs` in
    /// `scenario` (less is better for both): a line of the summary table, a
    /// bar of the chart and a row of the CSV.
    pub fn compare(&mut self, scenario: &str, peer: &str, ours: f64, theirs: f64, unit: &str, kind: Kind) {
        self.comparisons.push(Comparison {
            section: self.section.clone(),
            scenario: scenario.into(),
            peer: peer.into(),
            ours,
            theirs,
            unit: unit.into(),
            kind,
        });
    }

    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    pub fn comparisons(&self) -> &[Comparison] {
        &self.comparisons
    }

    /// The summary table, verdicts and thresholds included.
    pub fn table(&self) -> String {
        let mut text = String::new();
        let noise = self.noise;
        let _ = writeln!(
            text,
            "summary: stealpool against each peer; ratio = stealpool's figure / the peer's, less is better for \
             both,\nso below 1 stealpool did better; \"within noise\": {:.2}x to {:.2}x (--noise {}; repeated \
             runs of one build vary by about 3%); n/a: not measured",
            1.0 - noise,
            1.0 + noise,
            noise * 100.0
        );
        if self.comparisons.is_empty() {
            text += "  (no comparisons in this run)\n";
            return text;
        }
        let width = self
            .comparisons
            .iter()
            .map(|c| c.scenario.len())
            .max()
            .unwrap_or(0)
            .max("scenario".len());
        let _ = writeln!(
            text,
            "  {:<width$}  {:>12} {:>12} {:<9}  verdict",
            "scenario", "stealpool", "peer", "unit"
        );
        for c in &self.comparisons {
            let _ = writeln!(
                text,
                "  {:<width$}  {:>12} {:>12} {:<9}  {}",
                c.scenario,
                figure(c.ours),
                figure(c.theirs),
                c.unit,
                c.verdict(noise)
            );
        }
        text
    }

    /// Every measured row, then every comparison, as CSV.
    pub fn csv(&self) -> String {
        let mut text = String::from("section,scenario,peer,workers,metric,value,unit,verdict\n");
        let value = |x: f64| {
            if x.is_finite() {
                format!("{x}")
            } else {
                "n/a".into()
            }
        };
        for r in &self.rows {
            let workers = if r.workers == 0 {
                String::new()
            } else {
                r.workers.to_string()
            };
            let fields = [
                csv_field(&r.section),
                csv_field(&r.scenario),
                csv_field(&r.peer),
                workers,
                csv_field(&r.metric),
                value(r.value),
                csv_field(&r.unit),
                String::new(),
            ];
            text += &fields.join(",");
            text.push('\n');
        }
        for c in &self.comparisons {
            let fields = [
                csv_field(&c.section),
                csv_field(&c.scenario),
                csv_field(&c.peer),
                String::new(),
                csv_field(&format!("stealpool / peer ({})", c.unit)),
                value(c.ratio()),
                "ratio".into(),
                csv_field(&c.verdict(self.noise)),
            ];
            text += &fields.join(",");
            text.push('\n');
        }
        text
    }

    /// Draws the ratios as horizontal bars from 1 on a log scale into an
    /// SVG file at `path`: green where stealpool did better beyond the
    /// noise band, red where worse, grey within it; comparisons without a
    /// ratio are listed with `n/a` and no bar.
    pub fn chart(&self, path: &Path) -> Result<(), Box<dyn std::error::Error>> {
        use plotters::prelude::*;

        let bars = &self.comparisons;
        let n = bars.len();
        if n == 0 {
            return Err("no comparisons to chart".into());
        }
        let labels: Vec<String> = bars
            .iter()
            .map(|c| format!("{} vs {}: {}", c.scenario, c.peer, fixed(c.ratio(), 2)))
            .collect();
        let finite = || {
            bars.iter()
                .map(Comparison::ratio)
                .filter(|r| r.is_finite() && *r > 0.0)
        };
        // The x axis is log2 of the ratio, so that 0.5x and 2x lie as far
        // from 1x and the key points fall on round powers of two.
        let low = (finite().fold(0.5f64, f64::min) / 1.2).log2();
        let high = (finite().fold(2.0f64, f64::max) * 1.2).log2();
        let label_width = labels.iter().map(String::len).max().unwrap_or(0) as u32 * 6 + 20;
        let height = 110 + 26 * n as u32;
        let root = SVGBackend::new(path, (label_width + 620, height)).into_drawing_area();
        root.fill(&WHITE)?;
        // Row 0 at the top: comparison i sits in segment n - 1 - i.
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!(
                    "stealpool / peer (less is better for stealpool; grey: within {:.0}%)",
                    self.noise * 100.0
                ),
                ("sans-serif", 16),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(label_width)
            .build_cartesian_2d(low..high, (0..n - 1).into_segmented())?;
        let label_of = |v: &SegmentValue<usize>| match v {
            SegmentValue::CenterOf(i) if *i < n => labels[n - 1 - i].clone(),
            _ => String::new(),
        };
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(n)
            .y_label_formatter(&label_of)
            .x_labels(12)
            .x_label_formatter(&|x| format!("{:.2}x", x.exp2()))
            .x_desc("ratio (log scale)")
            .draw()?;
        chart.draw_series(bars.iter().enumerate().filter_map(|(i, c)| {
            let ratio = c.ratio();
            if !ratio.is_finite() || ratio <= 0.0 {
                return None;
            }
            let row = n - 1 - i;
            let colour = match band(ratio, self.noise) {
                std::cmp::Ordering::Less => GREEN.mix(0.8),
                std::cmp::Ordering::Greater => RED.mix(0.8),
                std::cmp::Ordering::Equal => BLACK.mix(0.35),
            };
            let top = if row + 1 < n {
                SegmentValue::Exact(row + 1)
            } else {
                SegmentValue::Last
            };
            let mut bar = Rectangle::new(
                [(0.0, SegmentValue::Exact(row)), (ratio.log2(), top)],
                colour.filled(),
            );
            bar.set_margin(4, 4, 0, 0);
            Some(bar)
        }))?;
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(0.0, SegmentValue::Exact(0)), (0.0, SegmentValue::Last)],
            BLACK.stroke_width(1),
        )))?;
        root.present()?;
        Ok(())
    }
}
