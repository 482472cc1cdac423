import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { freeLoopbackPort } from '../../fixtures/local-services.js'
import t, { type Test } from 'tap'
import { buildLocalAccountsServer } from '../../../server/reference/server.js'
import { loggerOptions } from '../../../server/shared/logger.js'
import { hashPassword } from '../../../server/reference/passwords.js'
import { databaseFile } from '../../../server/reference/services.js'
import { SqliteAccountStore } from '../../../server/reference/store/sqlite-store.js'
import { listen } from '../../fixtures/edge.js'
import {
  auditEvents,
  GOOD_PASSWORD,
  logCollector,
  registerAccount,
  startReference,
  temporaryDataDir,
  TEST_PUBLIC_URL,
  type ReferenceOptions
} from '../../fixtures/reference.js'

const REFERENCE_MAIN = fileURLToPath(new URL('../../../dist/server/reference.js', import.meta.url))
const OTHER_PAGE = 'https://console.example.test'
const STRANGER = 'https://evil.example.test'

/** The reference services with local accounts' `/authenticate` on a second loopback listener. */
async function startLocalAccounts (t: Test, options: ReferenceOptions & { perMinute?: number } = {}) {
  const reference = await startReference(t, { ...options, env: { LOCAL_ACCOUNTS_ALLOWED_ORIGINS: `${OTHER_PAGE}/`, ...options.env } })
  await registerAccount(reference.base, 'local@example.com')
  const local = await buildLocalAccountsServer({
    services: reference.services,
    logger: options.logStream === undefined ? false : { ...loggerOptions('info'), stream: options.logStream },
    perMinute: options.perMinute ?? 1000
  })
  t.teardown(() => local.close())
  const url = await listen(local)
  const authenticate = (body: unknown, headers: Record<string, string> = {}) => fetch(`${url}/authenticate`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body)
  })
  return { reference, url, authenticate }
}

t.test('the page\'s origin logs in at /authenticate and may read the answer', async (t) => {
  const { authenticate } = await startLocalAccounts(t)
  const response = await authenticate({ email: 'local@example.com', password: GOOD_PASSWORD }, { origin: TEST_PUBLIC_URL })
  t.equal(response.status, 200)
  t.equal(response.headers.get('access-control-allow-origin'), TEST_PUBLIC_URL)
  t.equal(response.headers.get('vary'), 'Origin')
  t.equal(response.headers.get('cache-control'), 'no-store')
  t.equal(response.headers.get('access-control-allow-credentials'), null, 'no cookies are involved')
  t.same(Object.keys(await response.json() as object).sort(), ['auth', 'refresh'])
})

t.test('a preflight from an allowed origin is answered, Private Network Access included', async (t) => {
  const { url } = await startLocalAccounts(t)
  const response = await fetch(`${url}/authenticate`, {
    method: 'OPTIONS',
    headers: {
      origin: OTHER_PAGE,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
      'access-control-request-private-network': 'true'
    }
  })
  t.equal(response.status, 204)
  t.equal(response.headers.get('access-control-allow-origin'), OTHER_PAGE, 'an origin from LOCAL_ACCOUNTS_ALLOWED_ORIGINS')
  t.equal(response.headers.get('access-control-allow-methods'), 'POST')
  t.equal(response.headers.get('access-control-allow-headers'), 'content-type')
  t.equal(response.headers.get('access-control-allow-private-network'), 'true')
  t.equal(response.headers.get('access-control-max-age'), '600')

  const withoutPna = await fetch(`${url}/authenticate`, { method: 'OPTIONS', headers: { origin: TEST_PUBLIC_URL, 'access-control-request-method': 'POST' } })
  t.equal(withoutPna.status, 204)
  t.equal(withoutPna.headers.get('access-control-allow-private-network'), null, 'only said when asked')
})

t.test('another origin gets 403 without CORS headers, and no password is checked', async (t) => {
  const logs = logCollector()
  const { reference, url, authenticate } = await startLocalAccounts(t, { logStream: logs.stream })
  for (const origin of [STRANGER, 'null', `${TEST_PUBLIC_URL}.evil.test`, TEST_PUBLIC_URL.replace('https:', 'http:')]) {
    const response = await authenticate({ email: 'local@example.com', password: 'a guess' }, { origin })
    t.equal(response.status, 403, `${origin}: 403`)
    t.same(await response.json(), { error: 'This page may not use these local accounts.' })
    t.equal(response.headers.get('access-control-allow-origin'), null, `${origin}: the browser may not read the answer`)
    const preflight = await fetch(`${url}/authenticate`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } })
    t.equal(preflight.status, 403, `${origin}: preflight refused`)
    t.equal(preflight.headers.get('access-control-allow-origin'), null)
  }
  t.notOk(auditEvents(logs).includes('login.failed'), 'no login was attempted')
  t.same(await reference.services.store.readLoginThrottle('password:local@example.com'), { failures: 0, lockedUntil: 0 })
})

t.test('a client that sends no Origin (not a browser) is answered like any login', async (t) => {
  const { authenticate } = await startLocalAccounts(t)
  const wrong = await authenticate({ email: 'local@example.com', password: 'a guess' })
  t.same([wrong.status, await wrong.json()], [401, { error: 'Invalid email or password.' }])
  t.equal(wrong.headers.get('access-control-allow-origin'), null)
})

t.test('errors come back as {"error": text}: bad JSON, a wrong type, an unknown path', async (t) => {
  const { url } = await startLocalAccounts(t)
  const badJson = await fetch(`${url}/authenticate`, { method: 'POST', headers: { 'content-type': 'application/json', origin: TEST_PUBLIC_URL }, body: '{"email":' })
  t.same([badJson.status, await badJson.json()], [400, { error: 'The request body is not valid JSON.' }])
  t.equal(badJson.headers.get('access-control-allow-origin'), TEST_PUBLIC_URL, 'the page can read the error')
  const wrongType = await fetch(`${url}/authenticate`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<login/>' })
  t.same([wrongType.status, await wrongType.json()], [415, { error: 'The request body must be JSON.' }])
  const unknown = await fetch(`${url}/v2/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
  t.same([unknown.status, await unknown.json()], [404, { error: 'Not found.' }])
})

t.test('posts over the per-minute limit get 429 with a readable error', async (t) => {
  const { authenticate } = await startLocalAccounts(t, { perMinute: 2 })
  for (let post = 1; post <= 2; post++) t.equal((await authenticate({})).status, 400, `post ${post} is answered`)
  const limited = await authenticate({ email: 'local@example.com', password: GOOD_PASSWORD }, { origin: TEST_PUBLIC_URL })
  t.same([limited.status, await limited.json()], [429, { error: 'Too many requests. Please wait a minute and try again.' }])
  t.equal(limited.headers.get('access-control-allow-origin'), TEST_PUBLIC_URL, 'the page can read it')
})


t.test('npm run local-accounts serves /authenticate on LOCAL_ACCOUNTS_PORT from DATA_DIR, and stops on SIGTERM', async (t) => {
  const dataDir = temporaryDataDir(t)
  const store = new SqliteAccountStore(databaseFile(dataDir))
  await store.createAccount({ email: 'lan@example.com', firstName: null, lastName: null, passwordHash: await hashPassword(GOOD_PASSWORD), googleSubject: null })
  await store.close()
  const port = await freeLoopbackPort()
  const child = spawn(process.execPath, [REFERENCE_MAIN, '--local-accounts'], {
    // Never the public range API (tests run offline).
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, LOCAL_ACCOUNTS_PORT: String(port), LOCAL_ACCOUNTS_HOST: '127.0.0.1', PUBLIC_URL: TEST_PUBLIC_URL, BREACHED_PASSWORDS: 'off' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => { output += chunk.toString() })
  child.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString() })
  const exited = once(child, 'exit')
  while (!output.includes(`listening at http://127.0.0.1:${port}`)) {
    if (child.exitCode !== null) throw new Error(`exited early: ${output}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const response = await fetch(`http://127.0.0.1:${port}/authenticate`, {
    method: 'POST', headers: { 'content-type': 'application/json', origin: TEST_PUBLIC_URL }, body: JSON.stringify({ email: 'lan@example.com', password: GOOD_PASSWORD })
  })
  t.equal(response.status, 200)
  t.equal(response.headers.get('access-control-allow-origin'), TEST_PUBLIC_URL)
  child.kill('SIGTERM')
  const [code] = await exited
  t.equal(code, 0)
  t.notOk(output.includes(GOOD_PASSWORD), 'the password is not in the log')
})
