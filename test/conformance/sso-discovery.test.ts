import type { ServerResponse } from 'node:http'
import t from 'tap'
import { ArgumentError, parseConformanceArguments } from '../../conformance/arguments.js'
import { contractFor } from '../../conformance/contract-file.js'
import type { ProbeOptions, Row } from '../../conformance/rows.js'
import { runSuite, type SuiteReport } from '../../conformance/suite.js'
import { startReference } from '../fixtures/servers/reference.js'
import { startUpstream, type RecordedRequest } from '../fixtures/servers/edge.js'

/*
 * The conformance check's rows of SSO found by the address (docs/conformance.md,
 * "SSO found by the address"): the reference service passes them, a backend
 * that tells accounts apart or answers from the wrong thing fails its rows
 * with why, and without --sso-discovery they are skipped.
 */

const OPTIONS: ProbeOptions = {
  googleToken: null, googleEmail: null, googleNonceSecret: null, googleClientId: null, ssoEmail: null, blockedAccount: null, ssoDiscovery: true, ssoDomain: 'corp.example'
}
const { contract } = contractFor(null)
const ACCOUNT = { email: 'operator-test@corp.example', password: 'Operator test password 1' }
const CONNECTIONS = JSON.stringify([{ domain: 'corp.example', type: 'oidc', issuer: 'http://127.0.0.1:9', client_id: 'threshold', client_secret: 'a-secret' }])

const discoveryRows = (report: SuiteReport): Row[] => report.rows.filter((row) => row.call === 'POST auth/sso/discover')
const rowOf = (report: SuiteReport, check: string): Row => {
  const row = discoveryRows(report).find((candidate) => candidate.check.startsWith(check))
  if (row === undefined) throw new Error(`no row "${check}"`)
  return row
}

function json (response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(JSON.stringify(body))
}

t.test('--sso-discovery asks for the rows, --sso-domain names the domain; a bad one is refused naming it', async (t) => {
  const parsed = parseConformanceArguments(['--accounts-url', 'https://accounts.example.test', '--sso-discovery', '--sso-domain', 'corp.example'])
  t.equal(parsed.probe.ssoDiscovery, true)
  t.equal(parsed.probe.ssoDomain, 'corp.example')
  t.equal(parseConformanceArguments(['--accounts-url', 'https://accounts.example.test']).probe.ssoDiscovery, false)
  t.throws(() => parseConformanceArguments(['--accounts-url', 'https://a.example.test', '--sso-discovery', '--sso-domain', 'ann@corp.example']), ArgumentError)
  t.throws(() => parseConformanceArguments(['--accounts-url', 'https://a.example.test', '--sso-domain', 'corp.example']), /--sso-domain goes with --sso-discovery/)
})

t.test('the reference service passes every row through the edge, with a throwaway account in a domain with a connection', async (t) => {
  const reference = await startReference(t, { env: { SSO_CONNECTIONS: CONNECTIONS, SSO_DISCOVERY: 'true' }, edgeEnv: { SSO_DISCOVERY: 'true' } })
  const report = await runSuite({ accountsUrl: new URL(`${reference.base}/accounts`), timeoutMs: 20_000, account: null, contract, probe: OPTIONS })
  const rows = discoveryRows(report)
  t.equal(rows.length, 5)
  t.same(rows.filter((row) => row.result !== 'pass'), [], 'every row passes')
})

t.test('without --sso-discovery every row is skipped, saying how to ask for them, and nothing is called', async (t) => {
  const backend = await startUpstream(t, (_request, response) => json(response, 404, { error: 'Not found.' }))
  const report = await runSuite({ accountsUrl: new URL(backend.url), timeoutMs: 5000, account: ACCOUNT, contract, probe: { ...OPTIONS, ssoDiscovery: false, ssoDomain: null } })
  const rows = discoveryRows(report)
  t.equal(rows.length, 5)
  for (const row of rows) {
    t.equal(row.result, 'skip')
    t.match(row.got, /--sso-discovery/)
  }
  t.equal(backend.requests.filter((request) => request.url === '/auth/sso/discover').length, 0)
})

/** A backend that looks the address up: an account's address is "sso", any other is not, and bad bodies fail it. */
function accountReadingBackend (request: RecordedRequest, response: ServerResponse): void {
  if (request.url !== '/auth/sso/discover') return json(response, 404, { error: 'Not found.' })
  const body = JSON.parse(request.body.toString() || '{}') as Record<string, unknown>
  if (typeof body.email !== 'string') return json(response, 500, { error: 'Internal error.' })
  if (body.email === ACCOUNT.email) return json(response, 200, { sso: true, required: false })
  return json(response, 200, { sso: false })
}

t.test('a backend that answers from the account rather than the domain fails the rows of its habits, each saying why', async (t) => {
  const backend = await startUpstream(t, accountReadingBackend)
  const report = await runSuite({ accountsUrl: new URL(backend.url), timeoutMs: 5000, account: ACCOUNT, contract, probe: OPTIONS })
  const expectations: Array<[string, RegExp]> = [
    ['a body without an address is refused', /status 500/],
    ['an invalid address is refused', /status 200: accepted, not refused/],
    ['two addresses of one domain, one with an account, answer alike', /the difference tells which addresses have accounts/],
    ['an address of the --sso-domain gets single sign-on', /"sso" is false, not true/]
  ]
  for (const [check, got] of expectations) {
    const row = rowOf(report, check)
    t.equal(row.result, 'fail', `${check}: fails`)
    t.match(row.got, got, 'and says why')
  }
  t.equal(rowOf(report, 'an address of a domain without a connection').result, 'pass')
})
