import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { PageFormState } from '../../../../common/page/page-render.js'
import { parseRuntimeConfig } from '../../../../common/page/runtime-config.js'
import { loadMessageCatalogues } from '../../../../server/edge/languages/message-catalogues.js'
import { PageTemplate } from '../../../../server/edge/page/page.js'
import { VIEW_PRELOAD_SLOT, VIEW_PRELOADS_FILE } from '../../../../server/edge/page/view-preloads.js'
import { buildEdge, PUBLIC_DIR } from '../../../fixtures/servers/edge.js'

/** The build's list (build/client.mjs), when there is a build: the stand-in for `npm run test:quick` has none. */
const built = (() => {
  try {
    return JSON.parse(readFileSync(join(PUBLIC_DIR, VIEW_PRELOADS_FILE), 'utf8')) as Record<string, string[]>
  } catch {
    return null
  }
})()

const preloadsIn = (html: string): string[] => [...html.matchAll(/<link rel="modulepreload" href="([^"]+)">/g)].map((match) => match[1]!)

t.test('the page names the chunks of the view it renders, for the browser to fetch beside the entry', { skip: built === null && 'no build' }, async (t) => {
  const app = await buildEdge(t, { passwordResetCompletion: true })
  const entryPreloads = preloadsIn(readFileSync(join(PUBLIC_DIR, 'index.html'), 'utf8'))
  for (const [query, view] of [['', 'login'], ['?view=register', 'register'], ['?view=resetPassword&redirect=%2Fapp', 'resetPassword'],
    ['?view=setPassword&token=t1', 'setPassword'], ['?view=nonsense', 'login']] as const) {
    const html = (await app.inject({ url: `/${query}` })).body
    t.ok(built![view]!.length > 0, `${view}: a chunk of its own`)
    t.same(preloadsIn(html), [...entryPreloads, ...built![view]!], `${query || '/'}: the entry's preloads, then the ${view} view's`)
  }
})

t.test('a form post\'s answer names the chunks of the state\'s view, not the address\'s', { skip: built === null && 'no build' }, async (t) => {
  const app = await buildEdge(t)
  await app.ready()
  const state: PageFormState = { view: 'login', email: 'ada@example.com', notice: { kind: 'success', text: 'Check your email.' }, invalid: false, verificationLinkOffered: false, secondFactorChallenge: null }
  const server = createServer((request, response) => app.pageAnswer.pageWithState(request, response, 'view=register', state))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(() => server.close())
  const html = await (await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/?view=register`, { method: 'POST' })).text()
  t.ok(built!.login!.every((url) => preloadsIn(html).includes(url)), 'the login view\'s chunks')
  t.notOk(built!.register!.some((url) => preloadsIn(html).includes(url)), 'not the register view\'s')
})

/** A public folder holding a template with the slot, and `list` as the build's file (none when null). */
function publicDir (t: Test, list: string | null): string {
  const dir = mkdtempSync(join(tmpdir(), 'threshold-view-preloads-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const template = readFileSync(new URL('../../../../client/index.html', import.meta.url), 'utf8')
    .replace('<!--BUILD:HEAD-->', `${VIEW_PRELOAD_SLOT}<script type="module" nonce="__THRESHOLD_NONCE__" src="/assets/main-T.js"></script>`)
  writeFileSync(join(dir, 'index.html'), template)
  if (list !== null) writeFileSync(join(dir, VIEW_PRELOADS_FILE), list)
  return dir
}

async function load (dir: string): Promise<PageTemplate> {
  return await PageTemplate.load(join(dir, 'index.html'), parseRuntimeConfig('{}'), () => null, await loadMessageCatalogues({}, { google: false }))
}

const VALID = JSON.stringify({ login: ['/assets/chunk-L.js'], register: ['/assets/chunk-R.js'], resetPassword: [], setPassword: ['/assets/chunk-S.js', '/assets/chunk-C.js'], account: [] })

t.test('each view\'s preloads are filled in from the build\'s list', async (t) => {
  const page = (await load(publicDir(t, VALID))).forHost('localhost')
  const render = (query: string) => page.render({ locale: 'en', rendered: { html: '', heading: '' }, state: null, query })
  t.same(preloadsIn(render('')), ['/assets/chunk-L.js'])
  t.same(preloadsIn(render('view=register')), ['/assets/chunk-R.js'])
  t.same(preloadsIn(render('view=resetPassword')), [], 'a view with nothing beyond the entry: nothing')
  t.same(preloadsIn(render('view=setPassword')), ['/assets/chunk-L.js'], 'setPassword without the reset\'s completion is the login view')
  t.notMatch(render(''), VIEW_PRELOAD_SLOT, 'the slot never reaches the page')
})

t.test('attack: a list that is not the build\'s stops the start, rather than putting markup into every page', async (t) => {
  const bad = [
    ['missing', null],
    ['not JSON', '{'],
    ['a view left out', JSON.stringify({ login: [] })],
    ['markup in a URL', VALID.replace('/assets/chunk-L.js', '/assets/x.js"><script>alert(1)</script><x y="')],
    ['a URL off the assets', VALID.replace('/assets/chunk-L.js', 'https://evil.example/x.js')],
    ['not a list', VALID.replace('["/assets/chunk-R.js"]', '"/assets/chunk-R.js"')]
  ] as const
  for (const [name, list] of bad) {
    await t.rejects(load(publicDir(t, list)), name)
  }
})
