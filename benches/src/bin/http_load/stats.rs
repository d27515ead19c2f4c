//! Latency samples and their exact percentiles (every sample is kept; a run of a few
//! hundred thousand requests needs a few megabytes).

use std::time::Duration;

/// Latencies of one kind of request, in nanoseconds.
#[derive(Debug, Default)]
pub struct Samples(Vec<u64>);

impl Samples {
    /// Records one latency.
    pub fn push(&mut self, latency: Duration) {
        self.0
            .push(u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX));
    }

    /// Takes in another client's samples.
    pub fn merge(&mut self, other: Samples) {
        self.0.extend(other.0);
    }

    /// How many latencies were recorded.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Sorts the samples and summarises them.
    pub fn summary(mut self) -> Summary {
        self.0.sort_unstable();
        let sorted = &self.0;
        let mean = if sorted.is_empty() {
            0
        } else {
            let sum: u128 = sorted.iter().map(|&n| u128::from(n)).sum();
            u64::try_from(sum / sorted.len() as u128).unwrap_or(u64::MAX)
        };
        Summary {
            count: sorted.len(),
            p50: Duration::from_nanos(percentile(sorted, 50.0)),
            p90: Duration::from_nanos(percentile(sorted, 90.0)),
            p99: Duration::from_nanos(percentile(sorted, 99.0)),
            max: Duration::from_nanos(sorted.last().copied().unwrap_or(0)),
            mean: Duration::from_nanos(mean),
        }
    }
}

/// The nearest-rank percentile `p` (0 < p <= 100) of `sorted`: the smallest sample that at
/// least `p` percent of the samples do not exceed. Zero when there are none.
pub fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (p / 100.0 * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// What a set of latencies looks like.
#[derive(Clone, Copy, Debug)]
pub struct Summary {
    pub count: usize,
    pub p50: Duration,
    pub p90: Duration,
    pub p99: Duration,
    pub max: Duration,
    pub mean: Duration,
}

/// A duration in microseconds, for the JSON line.
pub fn micros(d: Duration) -> f64 {
    (d.as_nanos() as f64 / 1e3 * 10.0).round() / 10.0
}

/// A duration in milliseconds with three decimals, for the table.
pub fn millis(d: Duration) -> String {
    format!("{:.3}", d.as_nanos() as f64 / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let sorted: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&sorted, 50.0), 50);
        assert_eq!(percentile(&sorted, 99.0), 99);
        assert_eq!(percentile(&sorted, 100.0), 100);
        assert_eq!(percentile(&[7], 50.0), 7);
        assert_eq!(percentile(&[7], 99.0), 7);
        assert_eq!(percentile(&[1, 2, 3], 50.0), 2);
        assert_eq!(percentile(&[], 50.0), 0);
    }

    #[test]
    fn a_summary_sorts_first() {
        let mut samples = Samples::default();
        for n in [5u64, 1, 4, 2, 3] {
            samples.push(Duration::from_micros(n));
        }
        let summary = samples.summary();
        assert_eq!(summary.count, 5);
        assert_eq!(summary.p50, Duration::from_micros(3));
        assert_eq!(summary.p99, Duration::from_micros(5));
        assert_eq!(summary.max, Duration::from_micros(5));
        assert_eq!(summary.mean, Duration::from_micros(3));
    }
}
