import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { DEPLOY_FILES, serviceEnvironment } from '../fixtures/deploy/deploy-files.js'
import { buildEdge, jsonAnswer, listen, startUpstream } from '../fixtures/servers/edge.js'
import { findExecutable, freeLoopbackPort, skipUnlessInstalled } from '../fixtures/servers/local-services.js'
import { TEST_PASSWORD_HASH_COST } from '../fixtures/passwords/password-hash-cost.js'
import { GOOD_PASSWORD, temporaryDataDir } from '../fixtures/servers/reference.js'
import { registerAccount } from '../fixtures/registration/registration.js'
import { opensslSkip } from '../fixtures/sso/sso-certificates.js'
import { nginxFrontFiles } from '../../bench/servers/local-servers.mjs'

/**
 * deploy/nginx/threshold.conf, as nginx reads it (`nginx -t`), then running
 * in front of a real edge configured as threshold.service configures it
 * (TRUST_PROXY, HOST) with the example environment file (PUBLIC_URL, hence
 * ALLOWED_HOSTS): what reaches the edge and its backend through it.
 *
 * The site file is included from a minimal nginx.conf in a temporary folder,
 * with the certificate paths pointing at a fresh self-signed pair, and its
 * ports 80 and 443 made free loopback ports (its IPv6 listens dropped): nginx
 * binds them even for `-t`, and only root may bind ports below 1024. The load
 * runs make it so the same way (bench/servers/local-servers.mjs). To run it, its
 * upstream becomes the edge's port. Every other line is the real file's.
 */

const NGINX = findExecutable('nginx', '/usr/sbin/nginx')
const skip = skipUnlessInstalled('nginx', NGINX, 'nginx-light') || opensslSkip
const SITE = readFileSync(DEPLOY_FILES.nginx, 'utf8')
const HOST = 'signin.example.com'

/**
 * How long nginx keeps an idle connection to an instance (the upstream's
 * keepalive_timeout). An instance closes its idle connections when its drain
 * ends, and a POST nginx sent on one just then fails and is not sent again:
 * the drain must outlast this (docs/scale-out.md#rolling-restarts).
 */
const IDLE_KEEPALIVE_SECONDS = Number(/^\s*keepalive_timeout (\d+)s;/m.exec(SITE)?.[1] ?? Number.NaN)

/** nginx 1.25.1 and later warn about `listen … http2`, which the file keeps for the nginx of Debian 12 (its comment says what to write instead). */
const KNOWN_WARNING = /the "listen \.\.\. http2" directive is deprecated/

interface Front {
  readonly dir: string
  readonly conf: string
}

/** The site file on loopback ports, with `change` applied, included from a minimal nginx.conf in a fresh folder. */
async function frontFiles (t: Test, change: (site: string) => string = (site) => site): Promise<Front & { https: number, http: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'threshold-nginx-front-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return { dir, ...await nginxFrontFiles(dir, change(SITE), { host: HOST, workerConnections: 64 }) }
}

function nginxTest (front: Front): { status: number | null, output: string } {
  const result = spawnSync(NGINX!, ['-t', '-q', '-c', front.conf, '-p', front.dir, '-e', 'stderr'], { encoding: 'utf8' })
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() }
}

interface Answer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** One request to nginx on loopback, as a browser at https://signin.example.com (or http) sends it. */
async function ask (port: number, options: { tls: boolean, path?: string, method?: string, headers?: Record<string, string>, body?: string }): Promise<Answer> {
  const request = (options.tls ? httpsRequest : httpRequest)({
    host: '127.0.0.1',
    port,
    path: options.path ?? '/',
    method: options.method ?? 'GET',
    headers: { host: HOST, ...options.headers },
    ...(options.tls ? { servername: HOST, rejectUnauthorized: false } : {})
  })
  request.end(options.body)
  const [response] = await once(request, 'response') as [import('node:http').IncomingMessage]
  let body = ''
  for await (const chunk of response) body += String(chunk)
  return { status: response.statusCode ?? 0, headers: response.headers, body }
}

/** nginx serving `front`, stopped when the test ends; resolves once it answers over https. `log()`: what it wrote to stderr. */
async function runNginx (t: Test, front: Front & { https: number }): Promise<{ log: () => string }> {
  const nginx = spawn(NGINX!, ['-c', front.conf, '-p', front.dir, '-e', 'stderr'], { stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  nginx.stderr.on('data', (chunk: Buffer) => { log += chunk.toString() })
  t.teardown(async () => {
    if (nginx.exitCode !== null) return
    nginx.kill('SIGQUIT')
    await once(nginx, 'exit')
  })
  for (let attempt = 0; ; attempt++) {
    try {
      await ask(front.https, { tls: true, path: '/healthz' })
      return { log: () => log }
    } catch (error) {
      if (attempt === 100 || nginx.exitCode !== null) throw new Error(`nginx did not start: ${log}`, { cause: error })
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
}

t.test('nginx -t accepts the site file', { skip }, async (t) => {
  const { status, output } = nginxTest(await frontFiles(t))
  t.equal(status, 0, output)
  t.same(output.split('\n').filter((line) => line !== '' && !KNOWN_WARNING.test(line)), [], 'no warning')
})

t.test('nginx -t does catch a mistake in the site file (the check above can fail)', { skip }, async (t) => {
  const { status, output } = nginxTest(await frontFiles(t, (site) => site.replace('proxy_pass http://threshold;', 'proxy_pass http://threshold')))
  t.not(status, 0)
  t.match(output, /emerg/)
})

t.test('through nginx, the edge serves the page over https, knows the visitor\'s address, scheme and host, and refuses other hosts', { skip }, async (t) => {
  const accounts = await startUpstream(t, jsonAnswer(200, { auth: 'eyJ.a', refresh: 'r' }))
  const edge = await buildEdge(t, { env: serviceEnvironment(), accountsUpstream: accounts.url })
  const edgePort = Number(new URL(await listen(edge)).port)
  const front = await frontFiles(t, (site) => site.replace('server 127.0.0.1:8080 ', `server 127.0.0.1:${edgePort} `))
  const { https, http } = front
  const nginx = await runNginx(t, front)

  const page = await ask(https, { tls: true, path: '/?redirect=%2Fapp' })
  t.equal(page.status, 200)
  t.match(page.headers['content-type'], /^text\/html/)
  t.match(page.headers['strict-transport-security'], /max-age=\d+/, 'the edge\'s HSTS, over https')

  await ask(https, {
    tls: true,
    path: '/accounts/v2/login',
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.66', 'x-forwarded-host': 'evil.test', 'x-request-id': 'forged-id' },
    body: JSON.stringify({ email: 'ada@example.com', password: 'x' })
  })
  const proxied = accounts.requests.at(-1)!
  t.equal(proxied.headers['x-forwarded-for'], '127.0.0.1', 'the address nginx saw, not the one the visitor wrote')
  t.equal(proxied.headers['x-forwarded-proto'], 'https')
  t.equal(proxied.headers['x-forwarded-host'], HOST)
  t.match(proxied.headers['x-request-id'], /^[0-9a-f]{32}$/, 'nginx\'s $request_id, the same id in both logs')

  const otherHost = await ask(https, { tls: true, headers: { host: 'evil.test' } })
  t.equal(otherHost.status, 421, 'a host other than PUBLIC_URL\'s is refused by the edge')

  const plain = await ask(http, { tls: false, path: '/?redirect=%2Fapp' })
  t.equal(plain.status, 301)
  t.equal(plain.headers.location, `https://${HOST}/?redirect=%2Fapp`, 'plain http only sends the visitor to https')
  t.equal(nginx.log().split('\n').filter((line) => line !== '' && !KNOWN_WARNING.test(line)).join('\n'), '', 'nginx logged no problem')
})

const MAIN = fileURLToPath(new URL('../../dist/server/main.js', import.meta.url))

/** The built server with its embedded service, as the unit runs it behind nginx, on `port` with `dataDir`; resolves once /readyz is 200. */
async function startInstance (t: Test, port: number, dataDir: string, nodeOptions = ''): Promise<ChildProcess> {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      NODE_OPTIONS: nodeOptions,
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: String(port),
      TRUST_PROXY: 'loopback',
      DATA_DIR: dataDir,
      PUBLIC_URL: `https://${HOST}`,
      ALLOWED_HOSTS: `${HOST},127.0.0.1`,
      LOG_LEVEL: 'warn',
      PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST,
      BREACHED_PASSWORDS: 'off',
      CHALLENGE: 'off',
      RATE_LIMIT_PER_MINUTE: '1000000',
      // Longer than nginx keeps an idle connection, as docs/scale-out.md asks: by the drain's end, nginx holds
      // none to close under it. A drain of 1 s once failed one POST in a thousand with a 502.
      DRAIN_SECONDS: String(IDLE_KEEPALIVE_SECONDS + 1)
    },
    stdio: ['ignore', 'ignore', 'inherit']
  })
  t.teardown(async () => {
    if (child.exitCode !== null) return
    // SIGINT skips the drain: the test's calls are over by then.
    child.kill('SIGINT')
    await once(child, 'exit')
  })
  for (const deadline = Date.now() + 20_000; ;) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the instance on ${port} did not start`)
    if ((await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status === 200) return child
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

t.test('restarting one of two built instances behind the shipped nginx file fails no sign-in call', { skip }, async (t) => {
  t.ok(IDLE_KEEPALIVE_SECONDS > 0, `the site file's upstream closes idle connections (keepalive_timeout ${IDLE_KEEPALIVE_SECONDS} s)`)
  const ports = [await freeLoopbackPort(), await freeLoopbackPort()] as const
  const dataDirs = ports.map(() => temporaryDataDir(t))
  const instances = await Promise.all(ports.map((port, i) => startInstance(t, port, dataDirs[i]!)))
  // Each instance has its own SQLite file: the same account in both, so that either answers a sign-in alike.
  for (const port of ports) await registerAccount(`http://127.0.0.1:${port}`, 'rolling@example.com')
  const front = await frontFiles(t, (site) => site.replace(/^(\s*)server 127\.0\.0\.1:8080 (.*)$/m,
    `$1server 127.0.0.1:${ports[0]} $2\n$1server 127.0.0.1:${ports[1]} $2`))
  const nginx = await runNginx(t, front)

  const answers = new Map<string, number>()
  let sending = true
  const body = JSON.stringify({ email: 'rolling@example.com', password: GOOD_PASSWORD })
  async function signIns (): Promise<void> {
    while (sending) {
      const outcome = await ask(front.https, { tls: true, path: '/accounts/v2/login', method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then((answer) => `${answer.status}`, (error: Error) => error.message)
      answers.set(outcome, (answers.get(outcome) ?? 0) + 1)
    }
  }
  const workers = [signIns(), signIns(), signIns()]
  await new Promise((resolve) => setTimeout(resolve, 1000))
  const stopped = once(instances[0]!, 'exit') as Promise<[number | null]>
  instances[0]!.kill('SIGTERM')
  const [code] = await stopped
  // Its embedded service comes up 6 s late (a slow migration, say), longer than nginx keeps a refusing instance out (fail_timeout).
  const slowStart = join(dataDirs[0]!, '..', `slow-reference-start-${process.pid}.mjs`)
  writeFileSync(slowStart, 'if (process.send !== undefined) await new Promise((resolve) => setTimeout(resolve, 6000))\n')
  t.teardown(() => rmSync(slowStart, { force: true }))
  await startInstance(t, ports[0], dataDirs[0]!, `--import=${slowStart}`)
  await new Promise((resolve) => setTimeout(resolve, 1000))
  sending = false
  await Promise.all(workers)

  t.equal(code, 0, 'the stopped instance exited 0')
  t.same([...answers.keys()], ['200'], `every sign-in call answered 200: ${JSON.stringify(Object.fromEntries(answers))}`)
  t.ok((answers.get('200') ?? 0) > 20, 'a stream of them')
  t.comment(`sign-in calls through the restart: ${JSON.stringify(Object.fromEntries(answers))}; nginx: ${nginx.log()}`)
})
