// How one tier of the suite runs on this machine now: how many test files at a
// time, and how long each may take before tap ends it. On an idle machine the
// tier's own pace (package.json's scripts) and tap's limit (package.json's tap
// section); on a busy one the same pace and a longer limit, so that a file
// slowed by the machine is not reported as a failure. Fewer files at a time
// would only lower the load the tier adds itself: where the load is other work
// it mostly lengthens the tier, and in CI (two cores, four unit files at a time)
// the tier's own load is always above the cores.

/** The most a file's limit is stretched: a test that hangs still ends within this many times tap's limit. */
export const MAX_STRETCH = 4

/**
 * @param {{ cores: number, load: number, jobs: number, timeout: number }} machine
 *   cores: os.availableParallelism(); load: the one-minute load average; jobs: the
 *   tier's files at a time on an idle machine; timeout: tap's limit a file, in seconds.
 * @returns {{ jobs: number, timeout: number, reason: string }} what to pass to tap's -j and --timeout, and one line saying why
 */
export function tierPlan ({ cores, load, jobs, timeout }) {
  const shown = `load ${load.toFixed(1)} on ${cores} core${cores === 1 ? '' : 's'}`
  if (load <= cores) {
    return { jobs, timeout, reason: `${shown}: ${filesAtATime(jobs)}, ${timeout} s per file (the machine is not busy)` }
  }
  // Each runnable process gets about cores / load of a core: a file takes that
  // much longer than alone, up to MAX_STRETCH times.
  const stretch = Math.min(MAX_STRETCH, load / cores)
  const planned = { jobs, timeout: Math.ceil(timeout * stretch / 10) * 10 }
  return {
    ...planned,
    reason: `${shown}: ${filesAtATime(planned.jobs)}, ${planned.timeout} s per file (the machine is busy: ` +
      `tap's ${timeout} s stretched ${stretch.toFixed(1)} times)`
  }
}

/** @param {number} jobs */
const filesAtATime = (jobs) => `${jobs} file${jobs === 1 ? '' : 's'} at a time`
