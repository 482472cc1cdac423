import { build } from 'esbuild'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { GRPC_STATUS, grpcStatusForHttpStatus, HTTP_STATUS_TO_GRPC_STATUS } from '../../../common/domain-check/grpc-status.js'
import { encodeFrame, encodeTrailers } from '../../../server/shared/domain-check/grpc-web-frames.js'
import { browserSkip, openPage } from '../../fixtures/browsers/chromium.js'
import { startUpstream } from '../../fixtures/servers/edge.js'

/**
 * The domain-check client in real Chromium: grpc-web's XMLHttpRequest path is
 * what maps HTTP statuses to gRPC statuses, so the table is held to it in a
 * real browser. The client module is bundled as is and exposed to the page.
 */
t.test('the real grpc-web client follows the HTTP → gRPC status table and the deadline', { skip: browserSkip }, async (t) => {
  const bundle = await build({
    stdin: {
      contents: "import { checkDomainAuthorization } from './client/domain-check/check-domain-authorization.ts'; window.checkDomainAuthorization = checkDomainAuthorization",
      resolveDir: fileURLToPath(new URL('../../../', import.meta.url)),
      loader: 'ts'
    },
    bundle: true,
    format: 'iife',
    write: false,
    define: { 'process.env.NODE_ENV': '"production"' }
  })
  let answer: { status: number, delayMs: number, body?: Buffer } = { status: 200, delayMs: 0 }
  const server = await startUpstream(t, (request, response) => {
    if (request.method === 'GET') {
      const page = request.url === '/harness.js' ? bundle.outputFiles[0]!.text : '<!doctype html><script src="/harness.js"></script>'
      response.writeHead(200, { 'content-type': request.url === '/harness.js' ? 'text/javascript' : 'text/html' })
      response.end(page)
      return
    }
    setTimeout(() => {
      // A gRPC-web failure without a grpc-status header: the client must derive it from the HTTP status.
      response.writeHead(answer.status, { 'content-type': 'application/grpc-web+proto' })
      response.end(answer.body ?? '')
    }, answer.delayMs)
  })
  const { page, problems } = await openPage(t)
  await page.goto(`${server.url}/harness.html`)
  const check = (timeoutMs: number | null) => page.evaluate(async ([origin, timeout]) =>
    (window as unknown as { checkDomainAuthorization: (domain: string, options: object) => Promise<unknown> })
      .checkDomainAuthorization('example.com', { origin, timeoutMs: timeout }), [server.url, timeoutMs] as const)

  for (const status of [...Object.keys(HTTP_STATUS_TO_GRPC_STATUS).map(Number), 500, 502, 418]) {
    answer = { status, delayMs: 0 }
    t.same(await check(null), { kind: 'failed', code: grpcStatusForHttpStatus(status) }, `HTTP ${status} → ${HTTP_STATUS_TO_GRPC_STATUS[status] ?? 'UNKNOWN'}`)
  }

  const authorized = Buffer.concat([encodeFrame(0, Buffer.from([0x08, 0x01])), encodeTrailers(0)])
  answer = { status: 200, delayMs: 700, body: authorized }
  t.same(await check(null), { kind: 'answered', authorization: 'authorized' }, 'without a timeout a slow answer is waited for')
  const started = Date.now()
  t.same(await check(250), { kind: 'failed', code: GRPC_STATUS.DEADLINE_EXCEEDED }, 'a configured timeout ends the call')
  t.ok(Date.now() - started < 650, `the deadline cut the call short (${Date.now() - started} ms)`)
  // The failures above are deliberate; Chromium logs each as a failed load. Nothing else may appear.
  t.same(problems.filter((problem) => !/Failed to load resource: the server responded with a status of/.test(problem)), [],
    'no other console errors and no CSP violations')
})
