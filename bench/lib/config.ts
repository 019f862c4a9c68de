// What every scenario is told about the run.

/** The run's mode and scratch space. */
export interface BenchConfig {
  /** `--full`: the sizes of the issue and more samples; otherwise a short run (under 3 minutes). */
  full: boolean;
  /** A scratch directory for databases and installs, removed at the end. */
  tmpDir: string;
  /** The repository root. */
  root: string;
}

/** Warm-up and sample counts for in-process comparisons. */
export function sampling(config: BenchConfig): { warmup: number; samples: number; minSampleMs: number } {
  return config.full ? { warmup: 1, samples: 6, minSampleMs: 100 } : { warmup: 1, samples: 3, minSampleMs: 30 };
}
