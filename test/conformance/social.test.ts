import type { ServerResponse } from 'node:http'
import t from 'tap'
import { parseConformanceArguments } from '../../conformance/arguments.js'
import { contractFor } from '../../conformance/contract-file.js'
import type { ProbeOptions, Row } from '../../conformance/rows.js'
import { runSuite, type SuiteReport } from '../../conformance/suite.js'
import { startUpstream, type RecordedRequest } from '../fixtures/servers/edge.js'
import { OAUTH2_PROVIDER, OIDC_PROVIDER, startSocialStack } from '../fixtures/social/social-stack.js'

/*
 * The conformance check's rows of the social connections (docs/social-sign-in.md,
 * "Own backends"): the reference service passes them, a careless backend
 * fails each with why, and without --social they are skipped.
 */

const OPTIONS: ProbeOptions = { googleToken: null, googleEmail: null, googleNonceSecret: null, googleClientId: null, ssoEmail: null, blockedAccount: null, social: [OIDC_PROVIDER, OAUTH2_PROVIDER] }
const { contract } = contractFor(null)
const ACCOUNT = { email: 'operator-test@example.com', password: 'Operator test password 1' }

const socialRows = (report: SuiteReport): Row[] => report.rows.filter((row) => row.call === 'POST auth/login/social' || row.check.includes('SOCIAL'))
const rowOf = (report: SuiteReport, check: string): Row => {
  const row = socialRows(report).find((candidate) => candidate.check.startsWith(check))
  if (row === undefined) throw new Error(`no row "${check}"`)
  return row
}

t.test('--social names the connections to check; a malformed id is refused, naming the option', async (t) => {
  t.same(parseConformanceArguments(['--accounts-url', 'https://accounts.example.test', '--social', 'github, gitlab']).probe.social, ['github', 'gitlab'])
  t.same(parseConformanceArguments(['--accounts-url', 'https://accounts.example.test']).probe.social, [])
  t.throws(() => parseConformanceArguments(['--accounts-url', 'https://accounts.example.test', '--social', 'Git Hub']), /--social names connection ids/)
})

t.test('the reference service passes the social rows through the edge, for each connection named', async (t) => {
  const stack = await startSocialStack(t)
  const report = await runSuite({ accountsUrl: new URL(`${stack.publicUrl}/accounts`), timeoutMs: 20_000, account: null, contract, probe: OPTIONS })
  const rows = socialRows(report)
  t.equal(rows.length, 6, 'a start per connection, and four refusals')
  t.same(rows.filter((row) => row.result !== 'pass'), [], 'every row passes')
  t.notMatch(JSON.stringify(rows), /code_challenge=|state=/, 'the provider\'s URL is reported without its query string')
})

t.test('without --social every row is skipped, saying how to ask for them, and nothing is called', async (t) => {
  const backend = await startUpstream(t, (_request, response) => json(response, 404, { error: 'Not found.' }))
  const report = await runSuite({ accountsUrl: new URL(backend.url), timeoutMs: 5000, account: ACCOUNT, contract, probe: { ...OPTIONS, social: [] } })
  const rows = socialRows(report)
  t.equal(rows.length, 5)
  for (const row of rows) t.match(row.got, /--social/)
  t.equal(backend.requests.filter((request) => request.url === '/auth/login/social').length, 0)
})

function json (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers })
  response.end(JSON.stringify(body))
}

/** A backend with the social calls and every bad habit: no PKCE, no cookie, any provider started, any id signed in. */
function carelessBackend (request: RecordedRequest, response: ServerResponse): void {
  if (request.url === '/auth/login/social') return json(response, 200, { url: 'https://provider.example.test/authorize?client_id=c&state=s' })
  if (request.url === '/v2/auth/login') return json(response, 200, { auth: 'a-token-anyone-gets', refresh: 'another-one' })
  return json(response, 404, { error: 'Not found.' })
}

t.test('a careless backend fails the social rows, each saying what came back and why it is wrong', async (t) => {
  const backend = await startUpstream(t, carelessBackend)
  const report = await runSuite({ accountsUrl: new URL(backend.url), timeoutMs: 5000, account: ACCOUNT, contract, probe: { ...OPTIONS, social: ['github'] } })
  const expectations: Array<[string, RegExp]> = [
    ['the start for github', /no PKCE code_challenge with code_challenge_method=S256/],
    ['an unknown provider is refused', /status 200/],
    ['a start without a provider is refused', /status 200/],
    ['a SOCIAL completion with an id the backend never issued is refused', /with tokens: the request was granted/]
  ]
  for (const [check, got] of expectations) {
    const row = rowOf(report, check)
    t.equal(row.result, 'fail', `${check}: fails`)
    t.match(row.got, got, 'and says why')
  }
  t.notMatch(JSON.stringify(report.rows), /a-token-anyone-gets/, 'tokens are never shown')
})
