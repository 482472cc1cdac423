import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { rmSync, writeFileSync } from 'node:fs'
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { connect } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { freeLoopbackPort } from '../../fixtures/servers/local-services.js'
import { GOOD_PASSWORD, temporaryDataDir } from '../../fixtures/servers/reference.js'
import { registerAccount } from '../../fixtures/registration/registration.js'

/**
 * The built server restarting behind a balancer: it takes connections only
 * once its embedded service can serve sign-in, and on SIGTERM it drains
 * (DRAIN_SECONDS) with /readyz at 503 while answering everything, closes each
 * keep-alive connection after its answer, and exits 0 with nothing cut.
 */

const MAIN = fileURLToPath(new URL('../../../dist/server/main.js', import.meta.url))
const EMAIL = 'restart@example.com'

interface Answer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: string
  readonly at: number
}

/** One request; resolves with the whole answer, or rejects with why there was none. */
function send (port: number, options: { agent?: Agent | false, method?: string, path: string, body?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const call = httpRequest({
      host: '127.0.0.1',
      port,
      agent: options.agent ?? false,
      method: options.method ?? 'GET',
      path: options.path,
      headers: options.body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(options.body) }
    }, (response) => {
      let body = ''
      response.on('data', (chunk: Buffer) => { body += chunk.toString() })
      response.on('end', () => {
        if (!response.complete) reject(new Error('answer cut off'))
        else resolve({ status: response.statusCode ?? 0, headers: response.headers, body, at: Date.now() })
      })
      response.on('error', reject)
    })
    call.on('error', (error: NodeJS.ErrnoException) => reject(new Error(`${error.code ?? error.message}${call.reusedSocket ? ' on a reused connection' : ''}`)))
    call.end(options.body)
  })
}

const login = JSON.stringify({ email: EMAIL, password: GOOD_PASSWORD })

t.test('SIGTERM during a stream of keep-alive requests: /readyz answers 503 at once, every request is answered through the drain, and the edge exits 0', async (t) => {
  const server = await startBuiltServer(t, { DRAIN_SECONDS: '2', RATE_LIMIT_PER_MINUTE: '1000000' })
  await registerAccount(server.base, EMAIL)
  const exited = new Promise<{ code: number | null, at: number }>((resolve) => server.process.once('exit', (code) => resolve({ code, at: Date.now() })))

  const agent = new Agent({ keepAlive: true, maxSockets: 4 })
  t.teardown(() => agent.destroy())
  let sending = true
  const answers: Array<{ what: string, answer: Answer }> = []
  const failures: string[] = []
  async function worker (what: 'login' | 'page'): Promise<void> {
    while (sending) {
      try {
        const answer = await send(server.port, what === 'login'
          ? { agent, method: 'POST', path: '/accounts/v2/login', body: login }
          : { agent, path: '/?view=login' })
        answers.push({ what, answer })
      } catch (error) {
        failures.push(`${what}: ${(error as Error).message}`)
      }
    }
  }
  const readiness: Array<{ status: number, body: string, at: number }> = []
  async function readinessPoller (): Promise<void> {
    while (sending) {
      const answer = await send(server.port, { path: '/readyz' }).catch(() => null)
      if (answer !== null) readiness.push(answer)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  const workers = [worker('login'), worker('login'), worker('login'), worker('page'), readinessPoller()]

  await new Promise((resolve) => setTimeout(resolve, 1000))
  const signalledAt = Date.now()
  server.process.kill('SIGTERM')
  // Well inside the drain, a POST whose body is still coming when the drain ends: in flight across the close.
  await new Promise((resolve) => setTimeout(resolve, 1500))
  sending = false
  const slow = new Promise<Answer>((resolve, reject) => {
    const call = httpRequest({
      host: '127.0.0.1', port: server.port, method: 'POST', path: '/accounts/v2/login', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(login) }
    }, (response) => {
      let body = ''
      response.on('data', (chunk: Buffer) => { body += chunk.toString() })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body, at: Date.now() }))
    })
    call.on('error', reject)
    call.write(login.slice(0, 10))
    setTimeout(() => call.end(login.slice(10)), 1100)
  })
  await Promise.all(workers)
  const inFlight = await slow
  const exit = await exited

  t.same(failures, [], 'no request failed')
  t.equal(exit.code, 0, 'exit code 0')
  t.ok(exit.at - signalledAt >= 2000, `the edge served through the 2 s drain (exited after ${exit.at - signalledAt} ms)`)
  t.equal(inFlight.status, 200, 'a login in flight when the drain ended is answered')
  t.ok(inFlight.at - signalledAt > 2000, 'after the drain ended')
  t.equal(inFlight.headers.connection, 'close', 'on a connection closed after it')

  const before = answers.filter(({ answer }) => answer.at < signalledAt)
  const during = answers.filter(({ answer }) => answer.at > signalledAt + 100)
  t.ok(before.length > 0 && during.length > 5, `the stream ran before (${before.length}) and during (${during.length}) the drain`)
  t.same([...new Set(answers.map(({ what, answer }) => `${what} ${answer.status}`))].sort(), ['login 200', 'page 200'], 'every answer a 200')
  t.same(during.filter(({ answer }) => answer.headers.connection !== 'close').map(({ what, answer }) => `${what} at ${answer.at - signalledAt} ms: ${answer.headers.connection}`), [], 'every answer during the drain closes its connection')

  const readyBefore = readiness.filter((answer) => answer.at < signalledAt)
  const readyDuring = readiness.filter((answer) => answer.at > signalledAt + 100)
  t.ok(readyBefore.length > 0 && readyBefore.every((answer) => answer.status === 200), '/readyz 200 before the signal')
  t.ok(readyDuring.length > 5 && readyDuring.every((answer) => answer.status === 503), `/readyz 503 through the drain (${readyDuring.length} asked)`)
  t.same(JSON.parse(readyDuring[0]!.body), { status: 'stopping' })
})

t.test('the edge takes no connection until its embedded service can serve sign-in: its first /readyz and sign-in are answered for real', async (t) => {
  const dataDir = temporaryDataDir(t)
  // Holds the reference process (the one child with an IPC channel) 1.5 s before it starts: a slow store or migration.
  const slowStart = join(dataDir, '..', `slow-reference-start-${process.pid}.mjs`)
  writeFileSync(slowStart, 'if (process.send !== undefined) await new Promise((resolve) => setTimeout(resolve, 1500))\n')
  t.teardown(() => rmSync(slowStart, { force: true }))
  const port = await freeLoopbackPort()
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      BREACHED_PASSWORDS: 'off',
      DRAIN_SECONDS: '0',
      NODE_OPTIONS: `--import=${slowStart}`
    },
    stdio: ['ignore', 'ignore', 'inherit']
  })
  t.teardown(async () => {
    if (child.exitCode !== null) return
    child.kill('SIGTERM')
    await once(child, 'exit')
  })
  const startedAt = Date.now()

  // Connect attempts until one is taken: each refused one is what a balancer retries elsewhere.
  let refused = 0
  for (;;) {
    if (Date.now() - startedAt > 20_000) throw new Error('the edge never listened')
    const taken = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1')
      socket.once('connect', () => { socket.destroy(); resolve(true) })
      socket.once('error', () => resolve(false))
    })
    if (taken) break
    refused++
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  const listenedAfter = Date.now() - startedAt
  const [readyz, signIn] = await Promise.all([
    send(port, { path: '/readyz' }),
    send(port, { method: 'POST', path: '/accounts/v2/login', body: login })
  ])
  t.ok(listenedAfter >= 1500, `connections refused while the embedded service starts (${refused} refused, listened after ${listenedAfter} ms)`)
  t.equal(readyz.status, 200, 'the first /readyz answered is 200')
  t.equal(signIn.status, 401, 'the first sign-in call is answered by the accounts service (no such account), not 503')
})

t.test('SIGTERM to the whole process group (Ctrl-C, `timeout`, a supervisor that signals every process): the embedded service serves through the drain and the edge exits 0', async (t) => {
  const server = await startBuiltServer(t, { LOG_LEVEL: 'info', DRAIN_SECONDS: '2', RATE_LIMIT_PER_MINUTE: '1000000' }, { detached: true })
  const exited = new Promise<number | null>((resolve) => server.process.once('exit', (code) => resolve(code)))
  await registerAccount(server.base, EMAIL)

  process.kill(-server.process.pid!, 'SIGTERM')
  const signalledAt = Date.now()
  const during: Answer[] = []
  while (Date.now() - signalledAt < 1500) {
    during.push(await send(server.port, { method: 'POST', path: '/accounts/v2/login', body: login }))
  }
  t.ok(during.length > 0 && during.every((answer) => answer.status === 200), `every sign-in through the drain signed in (${during.map((answer) => answer.status).join(' ')})`)
  t.equal(await exited, 0, 'the edge exits 0')
  t.match(server.output(), /"service":"reference".*"signal":"SIGTERM".*the edge stops this process once it has drained/, 'the service says it waits for the edge')
  t.notMatch(server.output(), /stopped unexpectedly/, 'no fatal line')
})
