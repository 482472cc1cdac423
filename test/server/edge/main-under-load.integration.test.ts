import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import t from 'tap'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { jsonAnswer, startUpstream } from '../../fixtures/servers/edge.js'

/**
 * SIGTERM in the middle of a steady load: the built server, in front of a
 * backend answering each login after 50–200 ms, gets a stream of concurrent
 * logins and page loads on keep-alive connections, and is stopped halfway.
 *
 * "Accepted" means the server read the request: such a request must get its
 * complete, correct answer (the proxied one, or a clean 503 with
 * `Connection: close` if it arrived once stopping had begun). For the logins
 * this is observable: every login the backend received must have come back
 * whole with that login's own tokens. A request the server never read (a new
 * connection after the listener closed, or bytes sent on an idle keep-alive
 * connection as the server closed it) fails before any byte of an answer and
 * is the client's to retry; no answer may be cut off part-way.
 */

const LOGIN_WORKERS = 12
const PAGE_WORKERS = 4
const BEFORE_SIGNAL_MS = 1500
const SETTLE_LIMIT_MS = 15_000

type Result =
  | { readonly kind: 'answered', readonly status: number, readonly headers: IncomingHttpHeaders, readonly body: string, readonly at: number }
  | { readonly kind: 'cut-off', readonly error: string, readonly at: number }
  | { readonly kind: 'no-answer', readonly code: string, readonly reusedConnection: boolean, readonly at: number }

interface Sent {
  readonly what: 'login' | 'page'
  readonly n: number
  readonly result: Result
}

function send (agent: Agent, port: number, what: 'login' | 'page', n: number): Promise<Result> {
  return new Promise((resolve) => {
    const body = what === 'login' ? JSON.stringify({ email: `load-${n}@example.test`, password: 'pw', n }) : undefined
    const call = httpRequest({
      host: '127.0.0.1',
      port,
      agent,
      method: what === 'login' ? 'POST' : 'GET',
      path: what === 'login' ? '/accounts/v2/login' : '/?view=login',
      headers: what === 'login' ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body!) } : {}
    }, (response) => {
      const chunks: Buffer[] = []
      let settled = false
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('error', (error) => {
        if (!settled) resolve({ kind: 'cut-off', error: error.message, at: Date.now() })
        settled = true
      })
      response.on('close', () => {
        if (settled) return
        settled = true
        resolve(response.complete
          ? { kind: 'answered', status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() }
          : { kind: 'cut-off', error: 'closed before the end of the answer', at: Date.now() })
      })
    })
    call.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ kind: 'no-answer', code: error.code ?? error.message, reusedConnection: call.reusedSocket, at: Date.now() }))
    call.end(body)
  })
}

t.test('SIGTERM under load: every accepted request completes, nothing is cut off, and the process exits 0 within 10 s', async (t) => {
  const upstream = await startUpstream(t, (request, response) => {
    // /readyz's probes ask the backends too (a GET without a body): any answer below 500 is up.
    if (request.method === 'GET') return jsonAnswer(200, {})(request, response)
    const { n } = JSON.parse(request.body.toString('utf8')) as { n: number }
    setTimeout(() => jsonAnswer(200, { auth: `auth-${n}`, refresh: `refresh-${n}` })(request, response), 50 + Math.random() * 150)
  })
  const server = await startBuiltServer(t, {
    ACCOUNTS_URL: upstream.url,
    EDGE_AUTH_URL: upstream.url,
    RATE_LIMIT_PER_MINUTE: '1000000',
    // The stop itself, from the drain's end: main-restart.integration.test.ts covers the drain before it.
    DRAIN_SECONDS: '0'
  })
  const exited = new Promise<{ code: number | null, at: number }>((resolve) =>
    server.process.once('exit', (code) => resolve({ code, at: Date.now() })))

  const agent = new Agent({ keepAlive: true, maxSockets: LOGIN_WORKERS + PAGE_WORKERS })
  t.teardown(() => agent.destroy())
  const sent: Sent[] = []
  let next = 0
  let stopped = false
  async function worker (what: 'login' | 'page'): Promise<void> {
    while (!stopped) {
      const n = next++
      const result = await send(agent, server.port, what, n)
      sent.push({ what, n, result })
      if (result.kind === 'no-answer' && result.code === 'ECONNREFUSED') return
    }
  }
  const workers = [
    ...Array.from({ length: LOGIN_WORKERS }, () => worker('login')),
    ...Array.from({ length: PAGE_WORKERS }, () => worker('page'))
  ]

  await new Promise((resolve) => setTimeout(resolve, BEFORE_SIGNAL_MS))
  const signalledAt = Date.now()
  const answeredBeforeSignal = sent.filter((entry) => entry.result.kind === 'answered').length
  server.process.kill('SIGTERM')
  const exit = await exited
  const settleLimit = setTimeout(() => { stopped = true }, SETTLE_LIMIT_MS)
  await Promise.all(workers)
  clearTimeout(settleLimit)
  stopped = true

  const exitMs = exit.at - signalledAt
  t.equal(exit.code, 0, 'the process exits 0')
  t.ok(exitMs < 10_000, `within 10 s of SIGTERM (took ${exitMs} ms)`)
  t.ok(answeredBeforeSignal > 50, `the load was running when the signal came (${answeredBeforeSignal} answers before it)`)

  const answered = sent.filter((entry) => entry.result.kind === 'answered')
  const cutOff = sent.filter((entry) => entry.result.kind === 'cut-off')
  const unanswered = sent.filter((entry) => entry.result.kind === 'no-answer')
  t.same(cutOff.map((entry) => `${entry.what} ${entry.n}: ${(entry.result as { error: string }).error}`), [], 'no answer was cut off part-way')

  const statuses = new Map<string, number>()
  for (const { what, n, result } of answered) {
    if (result.kind !== 'answered') continue
    statuses.set(`${what} ${result.status}`, (statuses.get(`${what} ${result.status}`) ?? 0) + 1)
    if (result.status === 503) {
      t.equal(result.headers.connection, 'close', `${what} ${n}: a 503 while stopping closes its connection`)
      t.doesNotThrow(() => JSON.parse(result.body), `${what} ${n}: the 503 is readable JSON`)
    } else if (what === 'login') {
      t.equal(result.status, 200, `login ${n}: 200`)
      t.same(JSON.parse(result.body), { auth: `auth-${n}`, refresh: `refresh-${n}` }, `login ${n}: its own tokens`)
    } else {
      t.equal(result.status, 200, `page ${n}: 200`)
      t.equal(Buffer.byteLength(result.body), Number(result.headers['content-length']), `page ${n}: the whole page`)
    }
  }

  const answeredLogins = new Set(answered.filter((entry) => entry.what === 'login').map((entry) => entry.n))
  const receivedLogins = upstream.requests.filter((request) => request.method === 'POST').map((request) => (JSON.parse(request.body.toString('utf8')) as { n: number }).n)
  const lost = receivedLogins.filter((n) => !answeredLogins.has(n))
  t.same(lost, [], `every login the backend received (${receivedLogins.length}) came back whole`)
  const completedAfterSignal = answered.filter((entry) => entry.what === 'login' && entry.result.at > signalledAt &&
    (entry.result as { status: number }).status === 200).length
  t.ok(completedAfterSignal > 0, `logins in flight at the signal completed after it (${completedAfterSignal})`)

  const unansweredCodes = new Map<string, number>()
  for (const { result } of unanswered) {
    if (result.kind !== 'no-answer') continue
    const key = `${result.code}${result.reusedConnection ? ' (reused keep-alive connection)' : ''}`
    unansweredCodes.set(key, (unansweredCodes.get(key) ?? 0) + 1)
  }
  t.ok(unanswered.every(({ result }) => result.kind === 'no-answer' && ['ECONNREFUSED', 'ECONNRESET', 'EPIPE'].includes(result.code)),
    `requests without an answer failed before any byte of one: ${JSON.stringify(Object.fromEntries(unansweredCodes))}`)

  t.comment(`sent ${sent.length}: ${JSON.stringify(Object.fromEntries(statuses))}; ` +
    `${completedAfterSignal} logins completed after SIGTERM; unanswered ${JSON.stringify(Object.fromEntries(unansweredCodes))}; ` +
    `backend received ${receivedLogins.length} logins, lost 0 of them; exit 0 after ${exitMs} ms`)
})
