import { once } from 'node:events'
import type { ServerResponse } from 'node:http'
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net'
import { brotliCompressSync, constants as zlib, deflateRawSync, deflateSync, gzipSync } from 'node:zlib'
import t, { type Test } from 'tap'
import { buildEdge, captureLog, listen, startUpstream, type LogLine, type RecordedRequest, startEdgeWithUpstream } from '../../fixtures/servers/edge.js'
import { postLogin } from '../../fixtures/sign-in/sign-in.js'

/**
 * Answers from an accounts backend in every content coding, and answers the
 * page cannot read, behind the real edge over real HTTP: a coding browsers
 * read is decoded within ACCOUNTS_ANSWER_LIMIT_BYTES and passed on as plain
 * JSON; anything else is the edge's "unreadable" answer with one warning.
 */

const UNREADABLE = 'The accounts service answered in a way this page cannot read. Please try again shortly.'
const TOKENS = { auth: 'a.b.c', refresh: 'r' }
const TOKENS_TEXT = JSON.stringify(TOKENS)

type Handler = (request: RecordedRequest, response: ServerResponse) => void

async function edgeFor (t: Test, handler: Handler, env: Record<string, string> = {}): Promise<{ base: string, lines: LogLine[], requests: RecordedRequest[] }> {
  const { base, lines, upstream } = await startEdgeWithUpstream(t, handler, {
    logged: true,
    env: { UPSTREAM_TIMEOUT_MS: '2000', RATE_LIMIT_PER_MINUTE: '100000', ALLOWED_HOSTS: '127.0.0.1', ...env }
  })
  return { base, lines, requests: upstream.requests }
}

/** A login with any credentials from a client that takes every coding; the answer's text as fetch decodes it. */
async function login (base: string, query = ''): Promise<{ status: number, headers: Headers, body: string }> {
  const answer = await postLogin(base, 'a@b.test', 'hunter2', { query, headers: { 'accept-encoding': 'gzip, deflate, br' } })
  return { status: answer.status, headers: answer.headers, body: answer.text }
}

/** An answer of `body` (already coded) with `content-encoding`. */
function coded (body: Buffer, encoding: string, extra: Record<string, string> = {}): Handler {
  return (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding, 'content-length': body.length, ...extra })
    response.end(body)
  }
}

const warnings = (lines: LogLine[]): LogLine[] => lines.filter((line) => line.level === 40)

/** The edge's unreadable answer, and exactly one warning with the reason and none of the body or query. */
function expectUnreadable (t: Test, outcome: { status: number, body: string }, lines: LogLine[], reason: string, what: string): void {
  t.equal(outcome.status, 502, `${what}: 502`)
  t.same(JSON.parse(outcome.body), { error: UNREADABLE }, `${what}: the unreadable message`)
  const logged = warnings(lines)
  t.equal(logged.length, 1, `${what}: one warning`)
  // An answer cut off mid-body is a connection that ended: the failure's kind is reset.
  const kind = reason === 'cut off' ? { msg: 'upstream call failed', kind: 'reset' } : { msg: 'upstream answer unreadable', kind: 'unreadable' }
  t.match(logged[0], { ...kind, upstream: 'accounts', reason, failure: 'unreadable', elapsedMs: Number }, `${what}: the warning names the reason`)
  t.ok(typeof logged[0]?.status === 'number', `${what}: and the status`)
  t.notMatch(JSON.stringify(lines), /hunter2|secret-query|<html|stolen/, `${what}: the log holds no body and no query`)
}

t.test('the accounts service is asked for identity, whatever the browser accepts', async (t) => {
  const { base, requests } = await edgeFor(t, coded(Buffer.from(TOKENS_TEXT), 'identity'))
  const outcome = await login(base)
  t.equal(outcome.status, 200)
  t.equal(requests[0]?.headers['accept-encoding'], 'identity')
  t.same(JSON.parse(outcome.body), TOKENS, 'an answer coded as identity is read as it is')
})

const readable: Array<[string, Buffer]> = [
  ['gzip', gzipSync(TOKENS_TEXT)],
  ['x-gzip', gzipSync(TOKENS_TEXT)],
  ['GZIP', gzipSync(TOKENS_TEXT)],
  ['deflate', deflateSync(TOKENS_TEXT)],
  ['br', brotliCompressSync(TOKENS_TEXT)],
  ['gzip, br', brotliCompressSync(gzipSync(TOKENS_TEXT))],
  ['identity, gzip', gzipSync(TOKENS_TEXT)]
]

for (const [encoding, body] of readable) {
  t.test(`an answer coded ${encoding} reaches the browser decoded, with its own length and no Content-Encoding`, async (t) => {
    const { base, lines } = await edgeFor(t, coded(body, encoding, { 'set-cookie': 'threshold_browser=b; HttpOnly' }))
    const outcome = await login(base)
    t.equal(outcome.status, 200)
    t.equal(outcome.body, TOKENS_TEXT, 'the JSON as the backend wrote it')
    t.equal(outcome.headers.get('content-length'), String(Buffer.byteLength(TOKENS_TEXT)), 'the decoded length')
    t.equal(outcome.headers.get('content-encoding'), null, 'no coding')
    t.ok(outcome.headers.getSetCookie().includes('threshold_browser=b; HttpOnly'), 'the backend\'s cookie passes')
    t.same(warnings(lines), [], 'no warning')
  })
}

t.test('deflate sent raw, without its zlib wrapper, is read as browsers read it', async (t) => {
  const { base } = await edgeFor(t, coded(deflateRawSync(TOKENS_TEXT), 'deflate'))
  t.equal((await login(base)).body, TOKENS_TEXT)
})

const unreadable: Array<[string, Handler, string]> = [
  ['an unknown coding', coded(Buffer.from(TOKENS_TEXT), 'zstd'), 'unknown content encoding'],
  ['a made-up coding', coded(Buffer.from(TOKENS_TEXT), 'rot13'), 'unknown content encoding'],
  ['three codings stacked', coded(gzipSync(gzipSync(gzipSync(TOKENS_TEXT))), 'gzip, gzip, gzip'), 'too many content encodings'],
  ['br that is garbage', coded(Buffer.from('this is not brotli at all, just bytes'), 'br'), 'undecodable content encoding'],
  ['gzip that is garbage', coded(Buffer.from('{"auth":"not gzip"}'), 'gzip'), 'undecodable content encoding'],
  ['gzip cut short', coded(gzipSync(TOKENS_TEXT).subarray(0, 12), 'gzip'), 'undecodable content encoding'],
  ['codings named in the wrong order', coded(brotliCompressSync(gzipSync(TOKENS_TEXT)), 'br, gzip'), 'undecodable content encoding'],
  ['gzip of something that is not JSON', coded(gzipSync('<html>Login</html>'), 'gzip'), 'malformed JSON'],
  ['a JSON array', coded(Buffer.from('[1,2,3]'), 'identity'), 'not a JSON object'],
  ['a JSON string', coded(Buffer.from('"stolen"'), 'identity'), 'not a JSON object'],
  ['JSON null', coded(Buffer.from('null'), 'identity'), 'not a JSON object'],
  ['an HTML login page with 200', (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' })
    response.end('<html><form action="/sso">Sign in</form></html>')
  }, 'not JSON'],
  ['an HTML 404 page', (_request, response) => {
    response.writeHead(404, { 'content-type': 'text/html; charset=utf-8' })
    response.end('<html>Cannot POST /v2/login</html>')
  }, 'not JSON']
]

for (const [what, handler, reason] of unreadable) {
  t.test(`${what} is an answer the page cannot read: 502, its own message, one warning (${reason})`, async (t) => {
    const { base, lines } = await edgeFor(t, handler)
    expectUnreadable(t, await login(base, '?secret-query=1'), lines, reason, what)
  })
}

t.test('redirects are never followed, whatever their status, and their Location never reaches the browser', async (t) => {
  const elsewhere = await startUpstream(t, (_request, response) => { response.end('{"auth":"stolen"}') })
  for (const status of [301, 302, 303, 307, 308]) {
    const { base, lines } = await edgeFor(t, (_request, response) => {
      response.writeHead(status, { location: `${elsewhere.url}/steal`, 'content-type': 'application/json' })
      response.end('{"moved":true}')
    })
    const outcome = await login(base)
    expectUnreadable(t, outcome, lines, 'a redirect', `${status}`)
    t.equal(outcome.headers.get('location'), null, `${status}: no Location`)
  }
  t.equal(elsewhere.requests.length, 0, 'the password never went to the redirect\'s target')
})

t.test('a gzip bomb stops at the limit: 1 GiB of zeros is refused without being inflated in memory', async (t) => {
  // gzip members may follow one another; 128 members of 8 MiB of zeros make 1 GiB in about 1 MiB.
  const member = gzipSync(Buffer.alloc(8 * 1024 * 1024), { level: zlib.Z_BEST_COMPRESSION })
  const bomb = Buffer.concat(Array.from({ length: 128 }, () => member))
  const { base, lines } = await edgeFor(t, coded(bomb, 'gzip'))
  const before = process.memoryUsage().rss
  const started = Date.now()
  const outcome = await login(base)
  const grewMiB = (process.memoryUsage().rss - before) / 1024 / 1024
  expectUnreadable(t, outcome, lines, 'larger than the limit', 'the bomb')
  t.ok(grewMiB < 200, `memory grew by ${grewMiB.toFixed(1)} MiB, far from 1 GiB`)
  t.comment(`${bomb.length} bytes of gzip refused in ${Date.now() - started} ms; memory grew by ${grewMiB.toFixed(1)} MiB`)
})

t.test('a brotli bomb stops at the limit too', async (t) => {
  const bomb = brotliCompressSync(Buffer.alloc(64 * 1024 * 1024), { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } })
  const { base, lines } = await edgeFor(t, coded(bomb, 'br'))
  expectUnreadable(t, await login(base), lines, 'larger than the limit', 'the brotli bomb')
})

t.test('ACCOUNTS_ANSWER_LIMIT_BYTES bounds the answer as sent and as decoded', async (t) => {
  const fits = JSON.stringify({ error: 'x'.repeat(1900) })
  const over = JSON.stringify({ error: 'x'.repeat(2100) })
  let answer: Handler = coded(Buffer.from(fits), 'identity')
  const { base, lines } = await edgeFor(t, (request, response) => answer(request, response), { ACCOUNTS_ANSWER_LIMIT_BYTES: '2048' })
  t.equal((await login(base)).body, fits, 'an answer within the limit passes')
  answer = coded(Buffer.from(over), 'identity')
  expectUnreadable(t, await login(base), lines, 'larger than the limit', 'plain, over the limit')
  lines.length = 0
  const small = gzipSync(over)
  t.ok(small.length < 2048, 'the coded answer itself is small')
  answer = coded(small, 'gzip')
  expectUnreadable(t, await login(base), lines, 'larger than the limit', 'small when coded, over the limit decoded')
})

/** A TCP backend answering every request with `bytes`, then doing `after` with the socket. */
async function rawBackend (t: Test, bytes: string | Buffer, after: (socket: Socket) => void = () => {}): Promise<string> {
  const server = createTcpServer((socket) => {
    socket.on('error', () => {})
    socket.once('data', () => {
      socket.write(bytes)
      after(socket)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

async function edgeForRaw (t: Test, upstream: string): Promise<{ base: string, lines: LogLine[] }> {
  const { lines, logger } = captureLog()
  const app = await buildEdge(t, { accountsUpstream: upstream, logger, env: { UPSTREAM_TIMEOUT_MS: '2000', ALLOWED_HOSTS: '127.0.0.1' } })
  return { base: await listen(app), lines }
}

t.test('a lying Content-Length: a body longer than announced is cut where announced, a shorter one is cut off', async (t) => {
  const longer = await rawBackend(t, `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 10\r\n\r\n${TOKENS_TEXT}`, (socket) => socket.end())
  const cut = await edgeForRaw(t, longer)
  expectUnreadable(t, await login(cut.base), cut.lines, 'malformed JSON', 'longer than announced')

  const shorter = await rawBackend(t, `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n${TOKENS_TEXT}`, (socket) => socket.end())
  const short = await edgeForRaw(t, shorter)
  expectUnreadable(t, await login(short.base), short.lines, 'cut off', 'shorter than announced')
})

t.test('a Content-Length that hides a gzip bomb changes nothing', async (t) => {
  const member = gzipSync(Buffer.alloc(8 * 1024 * 1024))
  const upstream = await rawBackend(t, Buffer.concat([
    Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\ncontent-length: 20\r\n\r\n`),
    ...Array.from({ length: 16 }, () => member)
  ]), (socket) => socket.end())
  const { base, lines } = await edgeForRaw(t, upstream)
  const outcome = await login(base)
  t.equal(outcome.status, 502)
  t.same(JSON.parse(outcome.body), { error: UNREADABLE })
  t.equal(warnings(lines).length, 1, 'one warning')
})

t.test('headers larger than any answer needs are an answer the page cannot read', async (t) => {
  const upstream = await rawBackend(t, `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-filler: ${'a'.repeat(64 * 1024)}\r\ncontent-length: 2\r\n\r\n{}`, (socket) => socket.end())
  const { base } = await edgeForRaw(t, upstream)
  const outcome = await login(base)
  t.equal(outcome.status, 502)
  t.same(JSON.parse(outcome.body), { error: UNREADABLE })
})

t.test('a non-JSON 502 from a gateway in front still says the service could not be reached', async (t) => {
  const { base, lines } = await edgeFor(t, (_request, response) => {
    response.writeHead(502, { 'content-type': 'text/html' })
    response.end('<html>502 Bad Gateway</html>')
  })
  const outcome = await login(base)
  t.equal(outcome.status, 502)
  t.same(JSON.parse(outcome.body), { error: 'The accounts service could not be reached. Please try again shortly.' })
  t.match(warnings(lines), [{ msg: 'upstream server error', kind: 'server_error', status: 502, contentType: 'text/html', reason: 'not JSON', failure: 'bad-gateway' }])
})
