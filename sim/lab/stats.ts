// Order statistics for measured times (lab transitions, failover benchmarks).

/** The median, or null for no samples. */
export function median(xs: number[]): number | null {
  if (xs.length === 0) return null
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}

/** The q-quantile of ascending `sorted` by nearest rank (q = 0.9: p90), or null for no samples. */
export function nearestRank(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]
}
