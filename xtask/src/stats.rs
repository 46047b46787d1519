//! Order statistics of a benchmark's samples.

/// The summary of one engine's samples of one figure, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// First and third quartiles.
    pub p25: f64,
    pub p75: f64,
    pub count: usize,
}

/// The value at quantile `q` (0..=1) of sorted `xs`, interpolating linearly.
fn quantile(xs: &[f64], q: f64) -> f64 {
    let pos = q * (xs.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    xs[lo] + (xs[hi] - xs[lo]) * (pos - lo as f64)
}

impl Summary {
    /// The summary of `samples`, or `None` when there are none.
    pub fn of(samples: &[f64]) -> Option<Summary> {
        if samples.is_empty() {
            return None;
        }
        let mut xs = samples.to_vec();
        xs.sort_by(|a, b| a.total_cmp(b));
        Some(Summary {
            median: quantile(&xs, 0.5),
            min: xs[0],
            max: xs[xs.len() - 1],
            p25: quantile(&xs, 0.25),
            p75: quantile(&xs, 0.75),
            count: xs.len(),
        })
    }

    /// Half the interquartile range relative to the median, in percent: the
    /// spread printed as `±x%`.
    pub fn spread_percent(&self) -> f64 {
        if self.median == 0.0 {
            return 0.0;
        }
        (self.p75 - self.p25) / 2.0 / self.median * 100.0
    }
}

/// The geometric mean of positive `xs`, or `None` when there are none.
pub fn geomean(xs: &[f64]) -> Option<f64> {
    let xs: Vec<f64> = xs.iter().copied().filter(|x| *x > 0.0 && x.is_finite()).collect();
    if xs.is_empty() {
        return None;
    }
    Some((xs.iter().map(|x| x.ln()).sum::<f64>() / xs.len() as f64).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_quartiles() {
        let s = Summary::of(&[5.0, 1.0, 3.0, 2.0, 4.0]).unwrap();
        assert_eq!((s.median, s.min, s.max, s.p25, s.p75), (3.0, 1.0, 5.0, 2.0, 4.0));
        assert_eq!(Summary::of(&[1.0, 2.0]).unwrap().median, 1.5);
        assert!(Summary::of(&[]).is_none());
        assert!((s.spread_percent() - 100.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn geometric_mean() {
        assert!((geomean(&[2.0, 8.0]).unwrap() - 4.0).abs() < 1e-12);
        assert!((geomean(&[0.5, 2.0]).unwrap() - 1.0).abs() < 1e-12);
        assert_eq!(geomean(&[]), None);
    }
}
