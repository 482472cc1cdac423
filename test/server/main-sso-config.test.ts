import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

// The edge checks the reference services' configuration before it forks
// them, so a bad SSO_CONNECTIONS stops the whole server with one line.
const MAIN = fileURLToPath(new URL('../../dist/server/main.js', import.meta.url))

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
