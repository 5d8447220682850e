// SPDX-License-Identifier: GPL-2.0

//! The SVG plots: phase time against N, log-log; or the time per function
//! against N (the scaling: a flat line is a constant cost per function).

use std::path::Path;

use benchreport::*;
use plotters::prelude::*;

use crate::tables::*;

/// What a plot's y axis shows.
#[derive(Clone, Copy)]
pub(crate) enum Scale {
    /// The median, ms.
    Total,
    /// The median over N, µs per function.
    PerFunction,
}

impl Scale {
    /// The plotted value of a median of `ns` nanoseconds at N = `n`.
    fn value(self, ns: f64, n: u64) -> f64 {
        match self {
            Scale::Total => ns / 1e6,
            Scale::PerFunction => per_function_us(ns, n),
        }
    }

    fn label(self) -> &'static str {
        match self {
            Scale::Total => "ms (median)",
            Scale::PerFunction => "µs per function (median / N)",
        }
    }
}

/// One log-log plot: a line per method × phase, its median (or median per
/// function, `scale`) against N.
pub(crate) fn plot(
    sum: &Summary,
    b: &Bench,
    (methods, phases): (&[&str], &[&str]),
    scale: Scale,
    title: &str,
    path: &Path,
) -> Result<(), Box<dyn std::error::Error>> {
    let ns = plotted_sizes(sum, b, methods, phases);
    let (Some(&xmin), Some(&xmax)) = (ns.first(), ns.last()) else {
        return Err("no data to plot".into());
    };
    let (ymin, ymax) = y_range(sum, methods, phases, scale);
    let root = SVGBackend::new(path, (1100, 700)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(
            ((xmin as f64 / 1.5)..(xmax as f64 * 1.5)).log_scale(),
            ((ymin / 2.0)..(ymax * 2.0)).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_desc("probes (N)")
        .y_desc(scale.label())
        .draw()?;
    lines(&mut chart, sum, (methods, phases), (&ns, scale), ymin)?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 12))
        .draw()?;
    root.present()?;
    Ok(())
}

/// The N at which some method measured some phase, in order.
pub(crate) fn plotted_sizes(
    sum: &Summary,
    b: &Bench,
    methods: &[&str],
    phases: &[&str],
) -> Vec<u64> {
    sizes(sum, b, methods)
        .into_iter()
        .filter(|&n| {
            methods
                .iter()
                .any(|m| phases.iter().any(|p| median(sum, m, p, n).is_some()))
        })
        .collect()
}

/// The smallest and largest value plotted (at least 0.001, a decade apart).
fn y_range(sum: &Summary, methods: &[&str], phases: &[&str], scale: Scale) -> (f64, f64) {
    let values: Vec<f64> = sum
        .iter()
        .filter(|(k, _)| {
            methods.contains(&k.0.as_str()) && phases.contains(&k.1.as_str()) && k.2 > 1
        })
        .map(|(k, (s, _, _))| scale.value(s.median, k.2))
        .filter(|v| *v > 0.0)
        .collect();
    let ymin = values
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min)
        .max(1e-3);
    let ymax = values.iter().copied().fold(0.0, f64::max).max(ymin * 10.0);
    (ymin, ymax)
}

/// Draws a line with markers per method × phase, its legend entry named.
fn lines(
    chart: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<LogCoord<f64>, LogCoord<f64>>>,
    sum: &Summary,
    (methods, phases): (&[&str], &[&str]),
    (ns, scale): (&[u64], Scale),
    ymin: f64,
) -> Result<(), Box<dyn std::error::Error>> {
    let palette = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
    ];
    for (mi, m) in methods.iter().enumerate() {
        for (pi, p) in phases.iter().enumerate() {
            let pts: Vec<(f64, f64)> = ns
                .iter()
                .filter_map(|&n| {
                    median(sum, m, p, n).map(|v| (n as f64, scale.value(v, n).max(ymin / 2.0)))
                })
                .collect();
            if pts.is_empty() {
                continue;
            }
            let color = palette[mi % palette.len()];
            let last = pi + 1 == phases.len();
            let style = ShapeStyle::from(&color).stroke_width(if last { 3 } else { 1 });
            chart
                .draw_series(LineSeries::new(pts.clone(), style))?
                .label(format!("{m} {p}"))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
            let marker = pi;
            chart.draw_series(pts.into_iter().map(move |(x, y)| -> DynElement<_, _> {
                match marker {
                    0 => Circle::new((x, y), 4, color.filled()).into_dyn(),
                    1 => TriangleMarker::new((x, y), 5, color.filled()).into_dyn(),
                    2 => Cross::new((x, y), 4, color).into_dyn(),
                    _ => Circle::new((x, y), 5, color).into_dyn(),
                }
            }))?;
        }
    }
    Ok(())
}
