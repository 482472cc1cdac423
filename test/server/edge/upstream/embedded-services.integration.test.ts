import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { edgeListeningAddress } from '../../../fixtures/servers/built-server.js'
import { GOOD_PASSWORD, temporaryDataDir } from '../../../fixtures/servers/reference.js'
import { postJson } from '../../../fixtures/http/post-json.js'
import { waitForEmail } from '../../../fixtures/emails/outbox.js'

const MAIN = fileURLToPath(new URL('../../../../dist/server/main.js', import.meta.url))

interface Started {
  readonly edge: ChildProcess
  readonly base: string
  readonly exit: Promise<number | null>
  readonly output: () => string
}

/** Starts the built server with no backends configured, as `npm start` does, and waits for its port. */
async function startEmbedded (t: Test, dataDir: string): Promise<Started> {
  const edge = spawn(process.execPath, [MAIN], {
    // Never the public range API (tests run offline): breached passwords have their own tests with a local corpus.
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', BREACHED_PASSWORDS: 'off', DRAIN_SECONDS: '0' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.teardown(() => { if (edge.exitCode === null) edge.kill('SIGKILL') })
  let output = ''
  edge.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  edge.stderr.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const exit = once(edge, 'exit').then(([code]) => code as number | null)
  let base: string | undefined
  while (base === undefined) {
    if (edge.exitCode !== null) throw new Error(`the server exited early: ${output}`)
    base = edgeListeningAddress(output)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return { edge, base, exit, output: () => output }
}

/** Processes whose parent is `pid` (Linux /proc). */
function childrenOf (pid: number): number[] {
  const children: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      // The parent pid is the fourth field, after "pid (command) state"; the command may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) children.push(Number(entry))
    } catch {
      // The process ended while we looked.
    }
  }
  return children
}

/** Whether the process exists and has not ended (a zombie waiting for a reaper has ended). */
function isRunning (pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

async function waitUntil (condition: () => Promise<boolean> | boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const ready = (base: string) => async () => (await fetch(`${base}/readyz`).catch(() => null))?.status === 200

t.test('with no backend configured, npm start\'s server runs the reference service: a visitor registers, logs in and resets', async (t) => {
  const dataDir = temporaryDataDir(t)
  const { edge, base, exit, output } = await startEmbedded(t, dataDir)
  await waitUntil(ready(base), '/readyz to answer 200')
  const readiness = await (await fetch(`${base}/readyz`)).json()
  t.same(readiness, { status: 'ready', upstreams: { accounts: { state: 'up' }, edgeAuth: { state: 'up' } } })

  const registered = await postJson(base, '/accounts/register', { email: 'visitor@example.com', password: GOOD_PASSWORD, confirm_password: GOOD_PASSWORD })
  t.same([registered.status, registered.body], [200, { success: 'Your account has been created. You can now log in. We have also sent you a link to verify your email address.' }])
  const login = await postJson(base, '/accounts/v2/login', { email: 'visitor@example.com', password: GOOD_PASSWORD })
  t.equal(login.status, 200)
  t.same(Object.keys(login.body).sort(), ['auth', 'refresh'])
  t.equal((await postJson(base, '/accounts/resetPasswordRequest', { email: 'visitor@example.com' })).status, 200)
  await waitForEmail(dataDir, 1, 'reset')
  t.same(readdirSync(dataDir).sort(), ['accounts.sqlite', 'accounts.sqlite-shm', 'accounts.sqlite-wal', 'keys', 'outbox'], 'DATA_DIR holds the database, the keys and the outbox')

  const [reference, ...others] = childrenOf(edge.pid!)
  t.ok(reference !== undefined && others.length === 0, 'the reference services run as one child process')
  edge.kill('SIGTERM')
  t.equal(await exit, 0, 'SIGTERM: the server exits 0')
  t.notOk(isRunning(reference!), 'and the reference process is gone with it')
  t.notOk(output().includes(GOOD_PASSWORD), 'no password in the logs')
  t.notOk(output().includes(login.body.refresh as string), 'no token in the logs')
})

/** A process's environment as it was started (Linux /proc; readable by its own user only). */
function environmentOf (pid: number): Record<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean)
  return Object.fromEntries(entries.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]))
}

t.test('the reference process\'s loopback port answers only the edge: a direct call, with a forged X-Forwarded-For, is refused', async (t) => {
  const { edge, base } = await startEmbedded(t, temporaryDataDir(t))
  await waitUntil(ready(base), '/readyz to answer 200')
  const [reference] = childrenOf(edge.pid!)
  const port = environmentOf(reference!).THRESHOLD_REFERENCE_PORT
  t.match(port, /^\d+$/, 'the port the edge gave it')
  const direct = await fetch(`http://127.0.0.1:${port}/v2/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.23' },
    body: JSON.stringify({ email: 'visitor@example.com', password: 'a guess' })
  })
  t.same([direct.status, await direct.json()], [403, { error: 'This service answers the edge only.' }])
  t.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 403, 'its health route too')
  const throughTheEdge = await postJson(base, '/accounts/v2/login', { email: 'visitor@example.com', password: 'a guess' })
  t.same([throughTheEdge.status, throughTheEdge.body], [401, { error: 'Invalid email or password.' }], 'the edge\'s call reaches it')
})

t.test('the reference process does not outlive a server killed outright', async (t) => {
  const { edge, base, exit } = await startEmbedded(t, temporaryDataDir(t))
  await waitUntil(ready(base), '/readyz to answer 200')
  const [reference] = childrenOf(edge.pid!)
  t.ok(reference !== undefined, 'the reference process runs')
  edge.kill('SIGKILL')
  await exit
  await waitUntil(() => !isRunning(reference!), 'the orphaned reference process to exit')
  t.pass('the reference process stopped once its parent was gone')
})
