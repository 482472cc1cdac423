import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { parseRuntimeConfig } from '../../../common/page/runtime-config.js'
import { brandFolder, SVG_LOGO } from '../../fixtures/brand/brand-files.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'

// The edge reads SOCIAL_CONNECTIONS before it forks the reference services, so a bad entry (a key that is no
// key) stops the whole server with one line naming the variable and the entry, and never the secret; a good one
// reaches the page and the icons.
const MAIN = fileURLToPath(new URL('../../../dist/server/main.js', import.meta.url))
const NOT_A_KEY = '-----BEGIN PRIVATE KEY-----\nTHIS-IS-SECRET-KEY-MATERIAL\n-----END PRIVATE KEY-----'

async function runEdge (env: Record<string, string>): Promise<{ code: number | null, stdout: string, stderr: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'threshold-social-main-'))
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

const cases: Array<[string, unknown, RegExp]> = [
  ['an Apple key that is no key',
    [{ type: 'apple', client_id: 'com.example.web', team_id: 'ABCDE12345', key_id: 'KEY1234567', private_key: NOT_A_KEY }],
    /^threshold: invalid configuration: SOCIAL_CONNECTIONS entry 1 \(apple\): private_key must be the unencrypted PEM key/],
  ['an entry without its client secret',
    [{ type: 'github', client_id: 'gh', client_secret: 'gh-secret' }, { type: 'microsoft', client_id: 'ms' }],
    /^threshold: invalid configuration: SOCIAL_CONNECTIONS entry 2 \(microsoft\): client_secret is required$/]
]

for (const [what, value, message] of cases) {
  t.test(`SOCIAL_CONNECTIONS with ${what} stops the server with one line and exit code 1`, async (t) => {
    const { code, stdout, stderr } = await runEdge({ SOCIAL_CONNECTIONS: JSON.stringify(value) })
    t.equal(code, 1)
    const lines = stderr.trim().split('\n')
    t.equal(lines.length, 1, 'one line')
    t.match(lines[0], message)
    t.notMatch(stderr, /SECRET-KEY-MATERIAL|gh-secret/, 'no secret said')
    t.equal(stdout, '', 'nothing starts')
  })
}

t.test('with connections configured, the built server\'s page lists them and serves the icon', async (t) => {
  const icon = brandFolder().write('forge.svg', SVG_LOGO)
  const server = await startBuiltServer(t, {
    SOCIAL_CONNECTIONS: JSON.stringify([
      { type: 'github', client_id: 'gh', client_secret: 'gh-secret' },
      { type: 'oauth2', id: 'forge', name: 'Forge', client_id: 'fg', client_secret: 'fg-secret', icon,
        authorization_endpoint: 'https://forge.example.com/authorize', token_endpoint: 'https://forge.example.com/token', userinfo_endpoint: 'https://forge.example.com/userinfo' }
    ])
  })
  const html = await (await fetch(`${server.base}/`)).text()
  const providers = parseRuntimeConfig(/<script type="application\/json" id="threshold-config">([^<]*)<\/script>/.exec(html)?.[1]).socialProviders
  t.same(providers.map((provider) => [provider.id, provider.name]), [['github', 'GitHub'], ['forge', 'Forge']])
  t.notMatch(html, /gh-secret|fg-secret/)
  const served = await fetch(`${server.base}${providers[1]!.icon!}`)
  t.equal(served.status, 200)
  t.equal(served.headers.get('content-type'), 'image/svg+xml')
})
