import type { Result, Row } from './rows.js'

/** The report as an operator reads it in a terminal: a wrapped table, then one summary line. */

const LABELS: Readonly<Record<Result, string>> = { pass: 'pass', fail: 'FAIL', skip: 'skip', advisory: 'advisory' }

/** Narrower than this, the columns get too thin to read; wider, lines get too long to follow. */
const MIN_WIDTH = 100
const MAX_WIDTH = 200

/** Splits `text` into lines of at most `width` characters, at spaces where it can. */
export function wrap (text: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(/\s+/).filter(Boolean)) {
    let rest = word
    while (rest.length > width) {
      if (line !== '') { lines.push(line); line = '' }
      lines.push(rest.slice(0, width))
      rest = rest.slice(width)
    }
    if (line === '') line = rest
    else if (line.length + 1 + rest.length <= width) line += ` ${rest}`
    else { lines.push(line); line = rest }
  }
  if (line !== '' || lines.length === 0) lines.push(line)
  return lines
}

export interface Counts { readonly pass: number, readonly fail: number, readonly skip: number, readonly advisory: number }

export function countResults (rows: readonly Row[]): Counts {
  const counts = { pass: 0, fail: 0, skip: 0, advisory: 0 }
  for (const row of rows) counts[row.result]++
  return counts
}

/** The summary line: the counts and the verdict (only a run without a failed row passes). */
export function summaryLine (rows: readonly Row[], elapsedMs: number, budgetMs: number): string {
  const counts = countResults(rows)
  const verdict = counts.fail === 0 ? 'PASSED' : 'FAILED'
  return `conformance ${verdict}: ${counts.pass} passed, ${counts.fail} failed, ${counts.skip} skipped, ${counts.advisory} advisory ` +
    `(${(elapsedMs / 1000).toFixed(1)} s; the run is bounded at ${(budgetMs / 1000).toFixed(0)} s)`
}

/** The rows as a table `width` characters wide. */
export function formatTable (rows: readonly Row[], width: number): string {
  const total = Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, width))
  const gaps = 4 * 3
  const fixed = { call: Math.max(...rows.map((row) => row.call.length), 4), result: 8 }
  const flexible = total - gaps - fixed.call - fixed.result
  const widths = [fixed.call, Math.floor(flexible * 0.32), fixed.result, Math.floor(flexible * 0.24), flexible - Math.floor(flexible * 0.32) - Math.floor(flexible * 0.24)]
  const line = (cells: readonly string[]): string[] => {
    const wrapped = cells.map((cell, index) => wrap(cell, widths[index]!))
    const height = Math.max(...wrapped.map((lines) => lines.length))
    return Array.from({ length: height }, (_, lineIndex) =>
      wrapped.map((lines, index) => (lines[lineIndex] ?? '').padEnd(widths[index]!)).join(' | ').trimEnd())
  }
  const rule = widths.map((cellWidth) => '-'.repeat(cellWidth)).join('-+-')
  const out = [...line(['call', 'check', 'result', 'expected', 'got']), rule]
  let previousCall = ''
  for (const row of rows) {
    if (previousCall !== '' && row.call !== previousCall) out.push(rule)
    out.push(...line([row.call === previousCall ? '' : row.call, row.check, LABELS[row.result], row.expected, row.got]))
    previousCall = row.call
  }
  return out.join('\n')
}
