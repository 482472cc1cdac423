import t, { type Test } from 'tap'
import { SOCIAL_ICON_PATH } from '../../../../common/social/social-providers.js'
import { parseRuntimeConfig } from '../../../../common/page/runtime-config.js'
import { SVG_CONTENT_SECURITY_POLICY } from '../../../../server/edge/brand/brand-assets.js'
import { brandFolder, pngOf, SVG_LOGO } from '../../../fixtures/brand/brand-files.js'
import { buildEdge, listen } from '../../../fixtures/servers/edge.js'

/*
 * A generic connection's icon (SOCIAL_CONNECTIONS' `icon`), read at start and served from the page's own
 * origin under SOCIAL_ICON_PATH: the page's img-src stays 'self', and an SVG opened on its own runs nothing.
 */

const files = brandFolder()
const png = pngOf(32, 32)
// An icon with a script in it, as an attacker who got an icon into the operator's folder would write it.
const svgPath = files.write('gitlab.svg', SVG_LOGO)
const pngPath = files.write('forge.png', png)
const IMMUTABLE = 'public, max-age=31536000, immutable'

const CONNECTIONS = JSON.stringify([
  { type: 'oidc', id: 'gitlab', name: 'GitLab', client_id: 'gl', client_secret: 'gl-secret', issuer: 'https://gitlab.example.com', icon: svgPath },
  { type: 'oauth2', id: 'forge', name: 'Forge', client_id: 'fg', client_secret: 'fg-secret', icon: pngPath,
    authorization_endpoint: 'https://forge.example.com/authorize', token_endpoint: 'https://forge.example.com/token', userinfo_endpoint: 'https://forge.example.com/userinfo' },
  { type: 'github', client_id: 'gh', client_secret: 'gh-secret' }
])

const configScript = (html: string): string | undefined => /<script type="application\/json" id="threshold-config">([^<]*)<\/script>/.exec(html)?.[1]

async function iconsEdge (t: Test) {
  const app = await buildEdge(t, { env: { SOCIAL_CONNECTIONS: CONNECTIONS } })
  const page = await app.inject({ url: '/', headers: { host: 'signin.example.com' } })
  const providers = parseRuntimeConfig(configScript(page.body)).socialProviders
  return { app, page, icons: Object.fromEntries(providers.map((provider) => [provider.id, provider.icon])) }
}

t.test('each icon is named on the page under SOCIAL_ICON_PATH, by its bytes, and served with a year\'s cache', async (t) => {
  const { app, icons } = await iconsEdge(t)
  t.match(icons.gitlab, new RegExp(`^${SOCIAL_ICON_PATH}gitlab\\.svg\\?v=[\\w-]{16}$`))
  t.match(icons.forge, new RegExp(`^${SOCIAL_ICON_PATH}forge\\.png\\?v=[\\w-]{16}$`))
  t.equal(icons.github, null, 'a brand connection has its own mark, drawn by the page')

  const served = await app.inject({ url: icons.forge! })
  t.equal(served.statusCode, 200)
  t.equal(served.headers['content-type'], 'image/png')
  t.equal(served.headers['x-content-type-options'], 'nosniff')
  t.equal(served.headers['cache-control'], IMMUTABLE)
  t.ok(served.rawPayload.equals(png), 'the file as it is')
  const again = await app.inject({ url: icons.forge!, headers: { 'if-none-match': String(served.headers.etag) } })
  t.equal(again.statusCode, 304, 'revalidation by ETag')
  const head = await app.inject({ method: 'HEAD', url: icons.forge! })
  t.equal(head.statusCode, 200)
})

t.test('attack: an SVG icon with a script, opened on its own, is served under a policy that runs none', async (t) => {
  const { app, icons } = await iconsEdge(t)
  const served = await app.inject({ url: icons.gitlab! })
  t.equal(served.statusCode, 200)
  t.equal(served.headers['content-type'], 'image/svg+xml')
  t.equal(served.headers['content-security-policy'], SVG_CONTENT_SECURITY_POLICY)
  const policy = String(served.headers['content-security-policy'])
  t.match(policy, /default-src 'none'/)
  t.notMatch(policy, /script-src/, 'no script source: default-src \'none\' governs scripts')
  t.match(policy, /(^|; )sandbox($|;)/, 'sandboxed without allow-scripts')
  t.equal(served.headers['x-content-type-options'], 'nosniff')
  t.equal(served.headers['cross-origin-resource-policy'], 'same-origin')
})

t.test('the page\'s img-src stays its own origin', async (t) => {
  const { page } = await iconsEdge(t)
  const imgSrc = /(?:^|;)\s*img-src ([^;]*)/.exec(String(page.headers['content-security-policy']))?.[1]
  t.equal(imgSrc, "'self' data:")
})

t.test('a name that is not a configured icon is not found', async (t) => {
  const { app } = await iconsEdge(t)
  for (const url of [`${SOCIAL_ICON_PATH}github.svg`, `${SOCIAL_ICON_PATH}gitlab.png`, `${SOCIAL_ICON_PATH}..%2Fpackage.json`, `${SOCIAL_ICON_PATH}`]) {
    const response = await app.inject({ url })
    t.equal(response.statusCode, 404, url)
  }
  const none = await buildEdge(t)
  t.equal((await none.inject({ url: `${SOCIAL_ICON_PATH}gitlab.svg` })).statusCode, 404, 'no connection, no icon route')
})

t.test('over real HTTP too, past the page\'s hot path', async (t) => {
  const { app, icons } = await iconsEdge(t)
  const base = await listen(app)
  const served = await fetch(`${base}${icons.gitlab!}`)
  t.equal(served.status, 200)
  t.equal(served.headers.get('content-type'), 'image/svg+xml')
  t.equal(served.headers.get('content-security-policy'), SVG_CONTENT_SECURITY_POLICY)
  t.equal(await served.text(), SVG_LOGO)
  t.equal((await fetch(`${base}${SOCIAL_ICON_PATH}nothing.svg`)).status, 404)
})
