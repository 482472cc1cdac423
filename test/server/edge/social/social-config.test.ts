import t from 'tap'
import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseRuntimeConfig } from '../../../../common/page/runtime-config.js'
import { ConfigError, loadServerConfig } from '../../../../server/edge/config.js'
import { buildEdge } from '../../../fixtures/servers/edge.js'

/*
 * SOCIAL_CONNECTIONS at the edge (docs/social-sign-in.md): read at start, every field checked in front of the
 * embedded service, the secrets left to an own backend behind ACCOUNTS_URL, and the page told of the buttons.
 */

const GITHUB_SECRET = 'github-secret-never-shown'
const GITHUB = { type: 'github', client_id: 'gh-client', client_secret: GITHUB_SECRET }
const OWN_BACKEND = { ACCOUNTS_URL: 'https://accounts.internal' }

function configErrorFor (env: Record<string, string>): ConfigError {
  try {
    loadServerConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) return error
    throw error
  }
  throw new Error('expected a configuration error')
}

const configScript = (html: string): string | undefined => /<script type="application\/json" id="threshold-config">([^<]*)<\/script>/.exec(html)?.[1]

t.test('without SOCIAL_CONNECTIONS there is no connection', async (t) => {
  t.same(loadServerConfig({}).social, [])
  t.same(loadServerConfig({ SOCIAL_CONNECTIONS: '  ' }).social, [])
})

t.test('a bad entry stops the start naming the variable and the entry, never a secret', async (t) => {
  const missing = configErrorFor({ SOCIAL_CONNECTIONS: JSON.stringify([GITHUB, { type: 'microsoft', client_id: 'ms-client' }]) })
  t.equal(missing.variable, 'SOCIAL_CONNECTIONS')
  t.match(missing.message, /SOCIAL_CONNECTIONS/)
  t.match(missing.message, /entry 2 \(microsoft\): client_secret is required/)

  const badKey = configErrorFor({
    SOCIAL_CONNECTIONS: JSON.stringify([{ type: 'apple', client_id: 'com.example.web', team_id: 'ABCDE12345', key_id: 'KEY1234567', private_key: '-----BEGIN PRIVATE KEY-----\nnot-a-key-secret-material\n-----END PRIVATE KEY-----' }])
  })
  t.match(badKey.message, /entry 1 \(apple\): private_key must be/)
  t.notMatch(badKey.message, /not-a-key-secret-material/, 'the key itself is never said')

  const insecure = configErrorFor({ SOCIAL_CONNECTIONS: JSON.stringify([{ ...GITHUB, base_url: 'http://github.example.com' }]) })
  t.match(insecure.message, /entry 1 \(github\): base_url must be https/)
  t.notMatch(insecure.message, new RegExp(GITHUB_SECRET))

  const unparsable = configErrorFor({ SOCIAL_CONNECTIONS: `[{"type": "github", "client_secret": "${GITHUB_SECRET}",` })
  t.match(unparsable.message, /SOCIAL_CONNECTIONS.*not valid JSON/)
  t.notMatch(unparsable.message, new RegExp(GITHUB_SECRET), 'the JSON, which holds secrets, is not echoed')
})

t.test('with the embedded service every field is checked; behind ACCOUNTS_URL the secrets are the backend\'s', async (t) => {
  const publicOnly = JSON.stringify([{ type: 'apple', client_id: 'com.example.web' }, { type: 'github', client_id: 'gh-client' }])
  t.match(configErrorFor({ SOCIAL_CONNECTIONS: publicOnly }).message, /entry 1 \(apple\): team_id is required/)
  const config = loadServerConfig({ ...OWN_BACKEND, SOCIAL_CONNECTIONS: publicOnly })
  t.same(config.social.map((connection) => [connection.id, connection.type]), [['apple', 'apple'], ['github', 'github']])
  // Not a secret: a connection an own backend serves still names its client.
  t.match(configErrorFor({ ...OWN_BACKEND, SOCIAL_CONNECTIONS: JSON.stringify([{ type: 'github' }]) }).message, /entry 1 \(github\): client_id is required/)

  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const apple = { type: 'apple', client_id: 'com.example.web', team_id: 'ABCDE12345', key_id: 'KEY1234567', private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() }
  t.equal(loadServerConfig({ SOCIAL_CONNECTIONS: JSON.stringify([apple, GITHUB]) }).social.length, 2, 'a whole entry passes')
})

t.test('SOCIAL_CONNECTIONS may name a file', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'threshold-social-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'social.json')
  writeFileSync(file, JSON.stringify([GITHUB]))
  t.same(loadServerConfig({ SOCIAL_CONNECTIONS: file }).social.map((connection) => connection.id), ['github'])
  t.match(configErrorFor({ SOCIAL_CONNECTIONS: join(dir, 'missing.json') }).message, /SOCIAL_CONNECTIONS.*could not be read \(ENOENT\)/)
})

t.test('the page\'s embedded settings list the providers in the operator\'s order, without a secret', async (t) => {
  const connections = [
    { type: 'oidc', id: 'gitlab', name: 'GitLab', client_id: 'gl-client', client_secret: 'gitlab-secret', issuer: 'https://gitlab.example.com' },
    GITHUB,
    { type: 'microsoft', client_id: 'ms-client', client_secret: 'microsoft-secret' }
  ]
  const app = await buildEdge(t, { env: { SOCIAL_CONNECTIONS: JSON.stringify(connections) } })
  const html = (await app.inject({ url: '/', headers: { host: 'signin.example.com' } })).body
  t.same(parseRuntimeConfig(configScript(html)).socialProviders, [
    { id: 'gitlab', type: 'oidc', name: 'GitLab', icon: null },
    { id: 'github', type: 'github', name: 'GitHub', icon: null },
    { id: 'microsoft', type: 'microsoft', name: 'Microsoft', icon: null }
  ])
  for (const secret of ['gitlab-secret', GITHUB_SECRET, 'microsoft-secret', 'gl-client', 'gh-client']) t.notOk(html.includes(secret), `${secret} is not in the page`)
})

t.test('without a connection the page\'s settings say nothing of them: the default page\'s bytes are unchanged', async (t) => {
  const app = await buildEdge(t)
  const script = configScript((await app.inject({ url: '/', headers: { host: 'signin.example.com' } })).body)
  t.ok(script !== undefined)
  t.notMatch(script, /social/i)
  t.same(parseRuntimeConfig(script).socialProviders, [])
})
