/** Whether the visitor asked for less motion, or for less data (Save-Data). */
export function prefersStillBackground (): boolean {
  const reducedMotion = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches === true
  const saveData = (navigator as Navigator & { connection?: { saveData?: boolean } }).connection?.saveData === true
  return reducedMotion || saveData
}
