import type { ServerResponse } from 'node:http'
import t from 'tap'
import { contractFor } from '../../conformance/contract-file.js'
import type { ProbeOptions, Row } from '../../conformance/rows.js'
import { runSuite } from '../../conformance/suite.js'
import { startReference } from '../fixtures/servers/reference.js'
import { startUpstream, type RecordedRequest } from '../fixtures/servers/edge.js'

/*
 * The conformance rows of the account view (conformance/calls/account-view.ts):
 * the reference service passes each of them, and a backend that answers the
 * calls in the right shapes but ends any session, reads without a token and
 * deletes on a bearer token alone fails the rows that say so.
 */

const NO_OPTIONS: ProbeOptions = { googleToken: null, googleEmail: null, googleNonceSecret: null, googleClientId: null, ssoEmail: null, blockedAccount: null }
const { contract } = contractFor(null)
const ACCOUNT_VIEW_CALLS = new Set(['POST account/overview', 'POST sessions/list', 'POST sessions/end', 'POST activity/list', 'POST account/delete'])
const accountViewRows = (rows: readonly Row[]): Row[] => rows.filter((row) => ACCOUNT_VIEW_CALLS.has(row.call))

function json (response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify(body))
}

/** Right shapes, wrong deeds: no token asked, any session ended, an account deleted on a bearer token alone. */
function carelessBackend (request: RecordedRequest, response: ServerResponse): void {
  const overview = {
    account: { email: 'x@example.com', firstName: null, lastName: null, emailVerified: true, hasPassword: true, google: false },
    secondFactor: { enrolled: false, recoveryCodesLeft: 0, rememberedBrowsers: 0 },
    features: ['sessions', 'activity', 'delete']
  }
  switch (request.url) {
    case '/register': return json(response, 200, { success: 'Registered.' })
    case '/v2/login': return json(response, 200, { auth: 'a-token', refresh: 'r' })
    case '/account/overview': return json(response, 200, overview)
    case '/sessions/list': return json(response, 200, { sessions: [{ id: 's1', current: true, browser: 'Firefox on Linux', signedInAt: 1, lastUsedAt: 2, addressRange: '203.0.113.0/24', method: 'password' }] })
    case '/sessions/end': return json(response, 200, { success: 'Ended.' })
    case '/activity/list': return json(response, 200, { events: [] })
    case '/account/delete': return json(response, 200, { success: 'Deleted.' })
    default: return json(response, 404, { error: 'Not found.' })
  }
}

t.test('the reference service passes every account view row', async (t) => {
  const reference = await startReference(t)
  const report = await runSuite({ accountsUrl: new URL(`${reference.base}/accounts`), timeoutMs: 20_000, account: null, contract, probe: NO_OPTIONS })
  const rows = accountViewRows(report.rows)
  t.equal(rows.length, 7)
  for (const row of rows) t.equal(row.result, 'pass', `${row.call}: ${row.check} (${row.got})`)
})

t.test('a backend that reads without a token, ends any session and deletes on a bearer token alone fails those rows', async (t) => {
  const backend = await startUpstream(t, carelessBackend)
  const report = await runSuite({ accountsUrl: new URL(backend.url), timeoutMs: 5000, account: null, contract, probe: NO_OPTIONS })
  const resultOf = (check: string): string | undefined => accountViewRows(report.rows).find((row) => row.check.startsWith(check))?.result
  t.equal(resultOf('no overview without an auth token'), 'fail')
  t.equal(resultOf('a session id that is not the account\'s is refused'), 'fail')
  t.equal(resultOf('a bearer auth token alone cannot delete the account'), 'fail')
  t.equal(resultOf('the signed-in account\'s overview'), 'pass', 'while the overview itself fits the document')
  t.equal(resultOf('the caller\'s own session ends'), 'fail', 'and its token still reads')
})

t.test('a backend without the account view has its rows skipped, saying why', async (t) => {
  const backend = await startUpstream(t, (request, response) => {
    if (request.url === '/register') return json(response, 200, { success: 'Registered.' })
    if (request.url === '/v2/login') return json(response, 200, { auth: 'a-token', refresh: 'r' })
    return json(response, 404, { error: 'Not found.' })
  })
  const report = await runSuite({ accountsUrl: new URL(backend.url), timeoutMs: 5000, account: null, contract, probe: NO_OPTIONS })
  const rows = accountViewRows(report.rows)
  t.equal(rows.length, 7)
  for (const row of rows) t.match(row, { result: 'skip', got: /not served \(404\)/ }, `${row.call}: ${row.check}`)
})
