import type { ServerResponse } from 'node:http'
import t from 'tap'
import { parseConformanceArguments } from '../../conformance/arguments.js'
import { contractFor } from '../../conformance/contract-file.js'
import type { ProbeOptions, Row } from '../../conformance/rows.js'
import { runSuite, type SuiteReport } from '../../conformance/suite.js'
import { emailCodeStandIn, EMAIL_CODE_BROWSER_COOKIE } from '../fixtures/email-codes/email-code-stand-in.js'
import { startReference } from '../fixtures/servers/reference.js'
import { startUpstream, type RecordedRequest } from '../fixtures/servers/edge.js'

/*
 * The conformance check's rows of the emailed code (docs/conformance.md,
 * "Emailed codes"): a backend that answers as docs/accounts-api.openapi.yaml
 * says passes them, each bad habit fails its row with why, and without
 * --email-codes they are skipped.
 */

const OPTIONS: ProbeOptions = { googleToken: null, googleEmail: null, googleNonceSecret: null, googleClientId: null, ssoEmail: null, blockedAccount: null, emailCodes: true }
const { contract } = contractFor(null)
const ACCOUNT = { email: 'operator-test@example.com', password: 'Operator test password 1' }

const codeRows = (report: SuiteReport): Row[] => report.rows.filter((row) => row.call.startsWith('POST email-code/'))
const rowOf = (report: SuiteReport, check: string): Row => {
  const row = codeRows(report).find((candidate) => candidate.check.startsWith(check))
  if (row === undefined) throw new Error(`no row "${check}"`)
  return row
}

t.test('--email-codes asks for the rows; without it they are off', async (t) => {
  t.equal(parseConformanceArguments(['--accounts-url', 'https://accounts.example.test', '--email-codes']).probe.emailCodes, true)
  t.equal(parseConformanceArguments(['--accounts-url', 'https://accounts.example.test']).probe.emailCodes, false)
})

t.test('a backend answering as the document says passes every row of the emailed code, without any mail read', async (t) => {
  const standIn = emailCodeStandIn()
  const backend = await startUpstream(t, standIn.handler)
  const report = await runSuite({ accountsUrl: new URL(backend.url), timeoutMs: 5000, account: ACCOUNT, contract, probe: OPTIONS })
  const rows = codeRows(report)
  t.equal(rows.length, 8)
  t.same(rows.filter((row) => row.result !== 'pass'), [], 'every row passes')
  const logins = backend.requests.filter((request) => request.url === '/email-code/login')
  t.equal(logins.length, 3)
  t.equal(logins[1]?.headers.cookie, `${EMAIL_CODE_BROWSER_COOKIE}=${standIn.bindings.at(-1)!}`, 'the wrong code goes with the browser\'s binding')
  t.equal(logins[2]?.headers.cookie, undefined, 'the last one without it')
  t.notOk(logins.some((request) => request.body.toString().includes(ACCOUNT.email)), 'codes are tried on a made-up address, never the test account\'s')
})

t.test('without --email-codes every row of the emailed code is skipped, saying how to ask for them, and nothing is called', async (t) => {
  const backend = await startUpstream(t, emailCodeStandIn().handler)
  const report = await runSuite({ accountsUrl: new URL(backend.url), timeoutMs: 5000, account: ACCOUNT, contract, probe: { ...OPTIONS, emailCodes: false } })
  const rows = codeRows(report)
  t.equal(rows.length, 8)
  for (const row of rows) {
    t.equal(row.result, 'skip')
    t.match(row.got, /--email-codes/)
  }
  t.equal(backend.requests.filter((request) => request.url.startsWith('/email-code/')).length, 0)
})

t.test('the reference service passes the rows of the emailed code through the edge', async (t) => {
  const reference = await startReference(t)
  const report = await runSuite({ accountsUrl: new URL(`${reference.base}/accounts`), timeoutMs: 20_000, account: null, contract, probe: OPTIONS })
  t.same(codeRows(report).filter((row) => row.result === 'fail'), [], 'no row fails')
  t.ok(codeRows(report).filter((row) => row.result === 'pass').length >= 6, 'and the rows ran')
})

function json (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers })
  response.end(JSON.stringify(body))
}

/**
 * A backend with the emailed code's calls and every bad habit: it tells an
 * address without an account, binds no code to a browser, signs in any code
 * of the test account's, names its own reasons and fails on malformed bodies.
 */
function carelessBackend (request: RecordedRequest, response: ServerResponse): void {
  let body: Record<string, unknown> = {}
  try {
    body = JSON.parse(request.body.toString() || '{}') as Record<string, unknown>
  } catch {
    // Answered below as a body without its fields.
  }
  if (request.url === '/email-code/send') {
    if (typeof body.email !== 'string') return json(response, 500, { error: 'Internal error.' })
    if (body.email !== ACCOUNT.email) return json(response, 404, { error: 'There is no account with this email.' })
    return json(response, 200, { success: 'Code sent.', expires_in: 600 })
  }
  if (request.url === '/email-code/login') {
    if (typeof body.code !== 'string') return json(response, 500, { error: 'Internal error.' })
    if (body.email === ACCOUNT.email) return json(response, 200, { auth: 'a-token-anyone-gets', refresh: 'another-one' })
    return json(response, 401, { error: 'No such account.', reason: 'no_account' })
  }
  return json(response, 404, { error: 'Not found.' })
}

t.test('a careless backend fails the rows of its habits, each saying what came back and why it is wrong', async (t) => {
  const backend = await startUpstream(t, carelessBackend)
  const report = await runSuite({ accountsUrl: new URL(backend.url), timeoutMs: 5000, account: ACCOUNT, contract, probe: OPTIONS })
  const expectations: Array<[string, RegExp]> = [
    ['a code for the test account is sent', /no email_code_browser cookie: the code is bound to no browser/],
    ['a code for an unknown address is answered as a success', /404 .*There is no account.* — status 404, not 2xx/],
    ['known and unknown addresses answer alike', /the difference tells which addresses have accounts/],
    ['a send for an invalid email is refused', /— status 404, not 400$/],
    ['a send with an empty body is refused', /status 500: a server failure/],
    ['a sign-in without a code is refused', /status 500: a server failure/],
    ['a code from a browser without the binding cookie is refused', /— "reason" "no_account" is none of code_wrong, code_expired, code_other_browser$/]
  ]
  for (const [check, got] of expectations) {
    const row = rowOf(report, check)
    t.equal(row.result, 'fail', `${check}: fails`)
    t.match(row.got, got, 'and says why')
  }
  t.equal(rowOf(report, 'a wrong code is refused').result, 'skip', 'with no binding to send, the wrong-code row cannot run, and says so')
  t.notMatch(JSON.stringify(report.rows), /a-token-anyone-gets/, 'tokens are never shown')
})

t.test('a backend that signs in any code from the browser that asked fails the wrong-code row', async (t) => {
  const standIn = emailCodeStandIn()
  const backend = await startUpstream(t, (request, response) => {
    if (request.url === '/email-code/login' && (request.headers.cookie ?? '').includes(EMAIL_CODE_BROWSER_COOKIE)) {
      return json(response, 200, { auth: 'a-token-anyone-gets', refresh: 'another-one' })
    }
    standIn.handler(request, response)
  })
  const report = await runSuite({ accountsUrl: new URL(backend.url), timeoutMs: 5000, account: ACCOUNT, contract, probe: OPTIONS })
  const row = rowOf(report, 'a wrong code is refused')
  t.equal(row.result, 'fail')
  t.match(row.got, /status 200 with tokens: the request was granted/)
  t.equal(rowOf(report, 'a code from a browser without the binding cookie is refused').result, 'pass', 'the binding alone still holds')
})
