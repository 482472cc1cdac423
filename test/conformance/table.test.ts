import t from 'tap'
import type { Row } from '../../conformance/rows.js'
import { countResults, formatTable, summaryLine, wrap } from '../../conformance/table.js'

const rows: Row[] = [
  { call: 'POST v2/login', check: 'the test account signs in', result: 'pass', expected: '2xx with tokens', got: '200 {"auth":"<10 characters>"}' },
  { call: 'POST v2/login', check: 'a wrong password is refused', result: 'fail', expected: '4xx', got: `200 ${'x'.repeat(300)}` },
  { call: 'POST register', check: 'registering a taken address answers as a new one does', result: 'advisory', expected: '2xx', got: '409' },
  { call: 'POST register', check: 'a real Google ID token signs in', result: 'skip', expected: '2xx', got: 'needs --google-token' }
]

t.test('cells wrap at spaces, and a word longer than the column is cut', async (t) => {
  t.same(wrap('one two three four', 9), ['one two', 'three', 'four'])
  t.same(wrap('abcdefghijkl', 5), ['abcde', 'fghij', 'kl'])
  t.same(wrap('', 5), [''])
})

t.test('the table has a header, one group per call, no line wider than asked, and FAIL stands out', async (t) => {
  const table = formatTable(rows, 120)
  const lines = table.split('\n')
  t.match(lines[0], /^call +\| check +\| result +\| expected +\| got$/)
  t.ok(lines.every((line) => line.length <= 120), 'no line is wider than the terminal')
  t.equal(lines.filter((line) => line.startsWith('POST v2/login')).length, 1, 'a call is named once for its group')
  t.match(table, /\| FAIL +\|/)
  t.match(table, /\| advisory \|/)
  t.ok(lines.filter((line) => /^-+\+/.test(line)).length >= 2, 'groups are ruled off')
})

t.test('the summary counts each result and passes only without a failed row', async (t) => {
  t.same(countResults(rows), { pass: 1, fail: 1, skip: 1, advisory: 1 })
  t.match(summaryLine(rows, 1234, 60_000), /^conformance FAILED: 1 passed, 1 failed, 1 skipped, 1 advisory \(1\.2 s; the run is bounded at 60 s\)$/)
  t.match(summaryLine(rows.filter((row) => row.result !== 'fail'), 10, 60_000), /^conformance PASSED/)
})
