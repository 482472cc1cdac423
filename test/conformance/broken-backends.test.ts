import type { ServerResponse } from 'node:http'
import { gzipSync } from 'node:zlib'
import t from 'tap'
import { runConformanceCli } from '../../conformance/cli.js'
import { contractFor } from '../../conformance/contract-file.js'
import type { ProbeOptions, Row } from '../../conformance/rows.js'
import { runSuite, type SuiteReport } from '../../conformance/suite.js'
import { buildEdge, DEAD_UPSTREAM, listen, startUpstream, type RecordedRequest } from '../fixtures/servers/edge.js'

const NO_OPTIONS: ProbeOptions = { googleToken: null, googleEmail: null, googleNonceSecret: null, googleClientId: null, ssoEmail: null, blockedAccount: null }
const { contract } = contractFor(null)

const rowOf = (report: SuiteReport, call: string, check: string): Row => {
  const row = report.rows.find((candidate) => candidate.call === call && candidate.check.startsWith(check))
  if (row === undefined) throw new Error(`no row ${call} "${check}"`)
  return row
}

function json (response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  response.writeHead(status, { 'content-type': 'application/json' })
  response.end(text)
}

/**
 * A backend that answers in the right shapes and does the wrong things: any
 * password signs in, an unknown address is named as such, any bearer token
 * is taken for Google's, organisations are not checked, and the reset tells
 * known from unknown addresses.
 */
function gullibleBackend (): (request: RecordedRequest, response: ServerResponse) => void {
  const accounts = new Set<string>()
  return (request, response) => {
    const body = JSON.parse(request.body.toString() || '{}') as Record<string, unknown>
    const email = typeof body.email === 'string' ? body.email : null
    const tokens = { auth: 'a-token-anyone-gets', refresh: 'another-one' }
    switch (request.url) {
      case '/register':
        if (email === null) return json(response, 400, { error: 'Email?' })
        accounts.add(email)
        return json(response, 200, { success: 'Welcome.' })
      case '/v2/login':
        if (email === null || typeof body.password !== 'string') return json(response, 400, { error: 'Email and password, please.' })
        if (!accounts.has(email)) return json(response, 404, { error: 'There is no account with this email.' })
        return json(response, 200, tokens)
      case '/resetPasswordRequest':
        if (email === null) return json(response, 400, { error: 'Email?' })
        return accounts.has(email) ? json(response, 200, { success: 'Sent.' }) : json(response, 404, { error: 'Unknown address.' })
      case '/v2/auth/login':
        return request.headers.authorization === undefined ? json(response, 401, { error: 'Token?' }) : json(response, 200, tokens)
      case '/auth/register':
        return request.headers.authorization === undefined ? json(response, 401, { error: 'Token?' }) : json(response, 200, { success: 'Welcome.' })
      default:
        return json(response, 400, { error: 'No single sign-on here.' })
    }
  }
}

t.test('a gullible backend fails the rows of its duties, each with a readable explanation', async (t) => {
  const backend = await startUpstream(t, gullibleBackend())
  const report = await runSuite({ accountsUrl: new URL(backend.url), timeoutMs: 5000, account: null, contract, probe: NO_OPTIONS })
  const expectations: Array<[string, string, RegExp]> = [
    ['POST v2/login', 'a wrong password is refused', /200 .*"auth":"<\d+ characters>".* — status 200 with tokens: the request was granted/],
    ['POST v2/login', 'a login naming an organisation the account is not in is refused', /status 200 with tokens/],
    ['POST v2/login', 'an unknown address and a wrong password answer alike', /wrong password: 200 .* unknown address: 404 .*There is no account.* — the difference tells which addresses have accounts/],
    ['POST resetPasswordRequest', 'a reset for an unknown address is answered as a success', /404 \{"error":"Unknown address."\} — status 404, not 2xx/],
    ['POST resetPasswordRequest', 'known and unknown addresses answer alike', /the difference tells which addresses have accounts/],
    ['POST v2/auth/login', 'a Google ID token signed by a key that is not Google\'s is refused', /status 200 with tokens: the request was granted/],
    ['POST v2/auth/login', 'an unsigned Google ID token', /status 200 with tokens/],
    ['POST auth/register', 'a Google registration with a forged ID token is refused', /status 200: accepted, not refused/]
  ]
  for (const [call, check, got] of expectations) {
    const row = rowOf(report, call, check)
    t.equal(row.result, 'fail', `${call}: ${check} fails`)
    t.match(row.got, got, 'and says what came back and why it is wrong')
  }
  t.notMatch(JSON.stringify(report.rows), /a-token-anyone-gets/, 'tokens are reported by their length, never shown')

  let stdout = ''
  const status = await runConformanceCli(['--accounts-url', backend.url], { stdout: (text) => { stdout += text }, stderr: () => {} })
  t.equal(status, 1, 'the command exits 1')
  t.match(stdout, /conformance FAILED: \d+ passed, \d+ failed/)
})

/** 20 KiB of gzip that unpacks to 20 MiB. */
const GZIP_BOMB = gzipSync(Buffer.alloc(20 * 1024 * 1024, ' '))

/** Backends that answer something the edge cannot pass on, one per bad habit. */
const UNREADABLE: Array<[string, (request: RecordedRequest, response: ServerResponse) => void, RegExp]> = [
  ['an HTML page', (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' })
    response.end('<!doctype html><h1>Welcome to nginx!</h1>')
  }, /^200 with Content-Type text\/html, not JSON \(<!doctype html><h1>Welcome to nginx!<\/h1>\): the edge would answer 502 instead$/],
  ['a coding the edge does not read', (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'zstd' })
    response.end('(\u00b5/\u00fd not really zstd')
  }, /^200 with Content-Encoding zstd, which the edge cannot read \(unknown content encoding\): it would answer 502; send it uncoded/],
  ['gzip that is not gzip', (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
    response.end('{"auth": "a", "refresh": "b"}')
  }, /^200 with Content-Encoding gzip, which the edge cannot read \(undecodable content encoding\)/],
  ['a gzip bomb', (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
    response.end(GZIP_BOMB)
  }, /^200 with a body over 64 KiB once decoded from gzip: the edge would answer 502 \(unless ACCOUNTS_ANSWER_LIMIT_BYTES is raised\)$/],
  ['redirects', (_request, response) => {
    response.writeHead(302, { location: 'https://accounts.example.com/login' })
    response.end()
  }, /^302 redirect to https:\/\/accounts\.example\.com\/login: the edge does not follow redirects/],
  ['JSON that is not an object', (_request, response) => json(response, 200, ['auth', 'refresh']), /whose JSON is not an object/],
  ['a JSON type with a broken body', (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' })
    response.end('{"auth": "cut off')
  }, /whose body is not valid JSON \(\{"auth": "cut off\)/],
  ['a closed connection', (_request, response) => { response.socket?.destroy() }, /the backend closed the connection without answering/]
]

for (const [habit, handler, explanation] of UNREADABLE) {
  t.test(`a backend that answers ${habit} fails every row it answers, saying so`, async (t) => {
    const backend = await startUpstream(t, handler)
    const report = await runSuite({ accountsUrl: new URL(backend.url), timeoutMs: 2000, account: null, contract, probe: NO_OPTIONS })
    const ran = report.rows.filter((row) => row.result !== 'skip')
    t.ok(ran.length >= 1)
    for (const row of ran) {
      t.equal(row.result, 'fail', `${row.call}: ${row.check}`)
      t.match(row.got, explanation)
    }
    t.ok(report.rows.filter((row) => row.result === 'skip').every((row) => row.got !== ''), 'skipped rows say why')
  })
}

t.test('an unreachable backend: the first rows say the connection was refused, the rest are skipped, quickly', async (t) => {
  const started = Date.now()
  const report = await runSuite({ accountsUrl: new URL(DEAD_UPSTREAM), timeoutMs: 5000, account: null, contract, probe: NO_OPTIONS })
  const failedRows = report.rows.filter((row) => row.result === 'fail')
  t.equal(failedRows.length, 3)
  for (const row of failedRows) t.match(row.got, /^connection refused at 127\.0\.0\.1:9: nothing listens there$/)
  t.ok(report.rows.filter((row) => row.result === 'skip').some((row) => /not tried: 3 calls in a row got no answer/.test(row.got)))
  t.equal(report.rows.filter((row) => row.result === 'pass').length, 0, 'nothing passes')
  t.ok(Date.now() - started < 3000, 'no waiting on a refused connection')
})

t.test('a host name that does not resolve is said so', async (t) => {
  const report = await runSuite({ accountsUrl: new URL('http://accounts.invalid/'), timeoutMs: 5000, account: null, contract, probe: NO_OPTIONS })
  t.match(report.rows[0]!.got, /the host name accounts\.invalid does not resolve|no complete answer/)
})

t.test('a hanging backend: two rows time out, the rest are skipped, and the run ends within its bound', async (t) => {
  const backend = await startUpstream(t, () => { /* never answers */ })
  const timeoutMs = 300
  const started = Date.now()
  const report = await runSuite({ accountsUrl: new URL(backend.url), timeoutMs, account: null, contract, probe: NO_OPTIONS })
  const elapsed = Date.now() - started
  const failedRows = report.rows.filter((row) => row.result === 'fail')
  t.equal(failedRows.length, 2)
  for (const row of failedRows) t.match(row.got, /^no complete answer within 300 ms: the backend hangs or is too slow/)
  t.ok(report.rows.filter((row) => row.result === 'skip').some((row) => /not tried: 2 calls got no answer within their time limit, so the backend is taken to hang/.test(row.got)))
  t.ok(elapsed < report.budgetMs + 1000, `ended in ${elapsed} ms, within the bound of ${report.budgetMs} ms`)
})

t.test('a backend that trickles its answer is cut off by the same limit', async (t) => {
  const backend = await startUpstream(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' })
    const timer = setInterval(() => response.write(' '), 50)
    response.on('close', () => clearInterval(timer))
  })
  const started = Date.now()
  const report = await runSuite({ accountsUrl: new URL(backend.url), timeoutMs: 300, account: null, contract, probe: NO_OPTIONS })
  t.match(report.rows.find((row) => row.result === 'fail')?.got, /no complete answer within 300 ms/)
  t.ok(Date.now() - started < report.budgetMs + 1000)
})

t.test('a slow backend is stopped by the run\'s own limit, not the calls\' alone', async (t) => {
  // Each answer comes just inside the call's limit: only the run's budget bounds the whole.
  const backend = await startUpstream(t, (_request, response) => {
    setTimeout(() => json(response, 400, { error: 'Slowly refused.' }), 200)
  })
  // 200 ms a call, about 24 calls (no account registers, so its rows are not tried): well past the run's 3 s. A
  // call the run's end cuts short ends the run as the run's limit, however busy the machine (conformance/suite.ts).
  const report = await runSuite({ accountsUrl: new URL(backend.url), timeoutMs: 500, account: null, contract, probe: NO_OPTIONS })
  t.ok(report.rows.some((row) => /the run's time limit \(3000 ms, 6 × --timeout-ms\) was reached/.test(row.got)))
  t.ok(report.elapsedMs < report.budgetMs + 1000)
})

t.test('a backend that compresses all the same is read as the edge reads it: directly and behind the real edge, its rows pass alike', async (t) => {
  const asked: Array<string | undefined> = []
  const backend = await startUpstream(t, (request, response) => {
    asked.push(request.headers['accept-encoding'])
    response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
    response.end(gzipSync(JSON.stringify({ success: 'Registered, compressed.' })))
  })
  const direct = await runSuite({ accountsUrl: new URL(backend.url), timeoutMs: 5000, account: null, contract, probe: NO_OPTIONS })
  const edge = await buildEdge(t, { accountsUpstream: backend.url, env: { RATE_LIMIT_PER_MINUTE: '10000' } })
  const base = await listen(edge)
  const behindEdge = await runSuite({ accountsUrl: new URL(`${base}/accounts`), timeoutMs: 5000, account: null, contract, probe: NO_OPTIONS })
  for (const report of [direct, behindEdge]) {
    const registration = rowOf(report, 'POST register', 'a new address registers')
    t.equal(registration.result, 'pass')
    t.match(registration.got, /Registered, compressed\./)
  }
  t.ok(asked.length > 0 && asked.every((value) => value === 'identity'), 'the check and the edge both ask for identity')
})

t.test('an edge\'s rate limit is not taken for a refusal: the rows fail and say how to run the check', async (t) => {
  const backend = await startUpstream(t, (_request, response) => json(response, 400, { error: 'Refused.' }))
  const edge = await buildEdge(t, { accountsUpstream: backend.url, env: { RATE_LIMIT_PER_MINUTE: '3' } })
  const base = await listen(edge)
  const report = await runSuite({ accountsUrl: new URL(`${base}/accounts`), timeoutMs: 5000, account: null, contract, probe: NO_OPTIONS })
  const limited = report.rows.filter((row) => /^429 /.test(row.got))
  t.ok(limited.length > 10, 'most calls were rate limited')
  for (const row of limited) {
    t.equal(row.result, 'fail', `${row.call}: ${row.check}`)
    t.match(row.got, /rate limited, so the real answer was not seen: through an edge, raise its RATE_LIMIT_PER_MINUTE/)
  }
})

t.test('closed registration is an advisory, and the rows needing an account are skipped, saying how to name one', async (t) => {
  const backend = await startUpstream(t, (request, response) => request.url === '/register'
    ? json(response, 403, { error: 'Registration is closed.' })
    : json(response, 401, { error: 'Invalid email or password.' }))
  const report = await runSuite({ accountsUrl: new URL(backend.url), timeoutMs: 5000, account: null, contract, probe: NO_OPTIONS })
  const registration = rowOf(report, 'POST register', 'a new address registers')
  t.equal(registration.result, 'advisory')
  t.match(registration.got, /^403 \{"error":"Registration is closed\."\} — registration is refused here/)
  const signIn = rowOf(report, 'POST v2/login', 'the test account signs in')
  t.equal(signIn.result, 'skip')
  t.match(signIn.got, /name one with --email and --password/)
  t.equal(report.throwawayAccount, null)
  t.equal(rowOf(report, 'POST v2/login', 'an unknown address is refused').result, 'pass', 'rows without an account still run')
})
