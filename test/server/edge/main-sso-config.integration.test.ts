import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { makeKeyAndCertificate, opensslSkip } from '../../fixtures/sso/sso-certificates.js'
import { edgeListeningAddress } from '../../fixtures/servers/built-server.js'

// The edge checks the reference services' configuration before it forks
// them, so a bad SSO_CONNECTIONS stops the whole server with one line; a good
// one reaches the forked service, whose SSO paths the edge exposes.
const MAIN = fileURLToPath(new URL('../../../dist/server/main.js', import.meta.url))

async function runEdge (env: Record<string, string>): Promise<{ code: number | null, stdout: string, stderr: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'threshold-sso-main-'))
  try {
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, ...env },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
    const [code] = await once(child, 'exit') as [number | null]
    return { code, stdout, stderr }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}

const cases: Array<[string, string, RegExp]> = [
  ['an http issuer on a public host',
    JSON.stringify([{ domain: 'example.com', type: 'oidc', issuer: 'http://login.example.com', client_id: 'a', client_secret: 'b' }]),
    /^threshold: invalid configuration: SSO_CONNECTIONS entry 1 \(example\.com\): issuer must be https \(plain http is allowed only for loopback hosts\)$/],
  ['an entry without its client secret',
    JSON.stringify([{ domain: 'ok.example', type: 'oidc', issuer: 'https://ok.example', client_id: 'a', client_secret: 'b' },
      { domain: 'example.com', type: 'oidc', issuer: 'https://login.example.com', client_id: 'a' }]),
    /^threshold: invalid configuration: SSO_CONNECTIONS entry 2 \(example\.com\): client_secret is required$/],
  ['text that is not JSON', '[not json', /^threshold: invalid configuration: SSO_CONNECTIONS is not valid JSON$/]
]

for (const [what, value, message] of cases) {
  t.test(`SSO_CONNECTIONS with ${what} stops the server with one line and exit code 1`, async (t) => {
    const { code, stdout, stderr } = await runEdge({ SSO_CONNECTIONS: value })
    t.equal(code, 1)
    const lines = stderr.trim().split('\n')
    t.equal(lines.length, 1, 'one line')
    t.match(lines[0], message)
    t.equal(stdout, '', 'nothing starts')
  })
}

t.test('with a connection configured, the forked reference service starts SSO and serves SP metadata through the edge', { skip: opensslSkip }, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'threshold-sso-main-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const idp = makeKeyAndCertificate(dataDir, 'idp')
  const child = spawn(process.execPath, [MAIN], {
    env: {
      PATH: process.env.PATH,
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      // Stopped at the end with nothing in front to drain for.
      DRAIN_SECONDS: '0',
      PUBLIC_URL: 'https://signin.example.com',
      // The test calls the edge by its address; PUBLIC_URL's host alone would be refused with 421.
      ALLOWED_HOSTS: 'signin.example.com,127.0.0.1',
      SSO_CONNECTIONS: JSON.stringify([{
        domain: 'corp.example', type: 'saml', entry_point: 'https://idp.corp.example/sso', idp_cert: idp.certificate, sp_entity_id: 'https://signin.example.com/sp'
      }])
    },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  const base = await new Promise<string>((resolve, reject) => {
    let seen = ''
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString()
      const match = edgeListeningAddress(seen)
      if (match !== undefined) resolve(match)
    })
    child.once('exit', (code) => reject(new Error(`exited early with ${code}`)))
  })
  const listening = Date.now()
  for (let tries = 0; tries < 100 && (await fetch(`${base}/readyz`)).status !== 200; tries++) await new Promise((resolve) => setTimeout(resolve, 50))
  t.comment(`ready ${Date.now() - listening} ms after listening`)

  const started = await fetch(`${base}/accounts/auth/login/sso`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ email: 'ann@corp.example', source: 'login' })
  })
  t.equal(started.status, 200)
  t.match(await started.json(), { sso_url: /^https:\/\/idp\.corp\.example\/sso\?SAMLRequest=/ })
  t.match(started.headers.getSetCookie()[0], /^sso_state=/)
  const metadata = await fetch(`${base}/accounts/auth/sso/saml/metadata`)
  t.equal(metadata.status, 200)
  t.match(await metadata.text(), 'Location="https://signin.example.com/accounts/auth/sso/saml/acs"')
  child.kill('SIGTERM')
  await once(child, 'exit')
})
