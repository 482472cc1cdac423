import '../../fixtures/page/dom.js'
import t from 'tap'
import type { PageContext } from '../../../client/page/page-params.js'
import { keepSsoStartContext, SSO_START_CONTEXT_KEY, SSO_START_CONTEXT_MAX_AGE_MS } from '../../../client/sso/sso-start-context.js'
import { takeSsoStartContext } from '../../../client/sso/take-sso-start-context.js'
import { storageRefusing } from '../../fixtures/page/storage.js'

const CONTEXT: PageContext = { redirect: '/app?tab=1', allowedOrgs: ['acme', 'globex'], resourceType: 'cluster', clusterName: 'prod-eu' }
const NOW = 1_800_000_000_000

/** An entry as keepSsoStartContext writes it, with `change` applied, stored as JSON. */
function storeEntry (change: Record<string, unknown> = {}): void {
  sessionStorage.setItem(SSO_START_CONTEXT_KEY, JSON.stringify({ intent: 'login', savedAt: NOW, ...CONTEXT, ...change }))
}

t.beforeEach(() => sessionStorage.clear())

t.test('a context kept at the start comes back once for a return of the same intent', async (t) => {
  keepSsoStartContext('login', { ...CONTEXT, view: 'login', banner: 'not kept' } as PageContext, NOW)
  t.same(Object.keys(JSON.parse(sessionStorage.getItem(SSO_START_CONTEXT_KEY)!) as object).sort(),
    ['allowedOrgs', 'clusterName', 'intent', 'redirect', 'resourceType', 'savedAt'], 'only the target, the context, the intent and the time')
  t.same(takeSsoStartContext('login', NOW + 60_000), CONTEXT)
  t.equal(sessionStorage.getItem(SSO_START_CONTEXT_KEY), null, 'the entry is gone once read')
  t.equal(takeSsoStartContext('login', NOW + 60_000), null, 'a second return finds nothing')
})

t.test('absent values are kept as absent', async (t) => {
  const empty: PageContext = { redirect: null, allowedOrgs: [], resourceType: null, clusterName: null }
  keepSsoStartContext('register', empty, NOW)
  t.same(takeSsoStartContext('register', NOW), empty)
})

t.test('a context is used for up to 30 minutes, and never from the future', async (t) => {
  const cases: Array<[string, number, boolean]> = [
    ['just now', NOW, true],
    ['30 minutes on', NOW + SSO_START_CONTEXT_MAX_AGE_MS, true],
    ['a millisecond past 30 minutes', NOW + SSO_START_CONTEXT_MAX_AGE_MS + 1, false],
    ['saved after the return (a clock turned back, or a forged time)', NOW - 1, false]
  ]
  for (const [what, now, used] of cases) {
    keepSsoStartContext('login', CONTEXT, NOW)
    t.equal(takeSsoStartContext('login', now) !== null, used, what)
    t.equal(sessionStorage.getItem(SSO_START_CONTEXT_KEY), null, `${what}: deleted either way`)
  }
})

t.test('a context kept for another intent is not used, and is deleted', async (t) => {
  keepSsoStartContext('register', CONTEXT, NOW)
  t.equal(takeSsoStartContext('login', NOW), null)
  t.equal(sessionStorage.getItem(SSO_START_CONTEXT_KEY), null)
})

t.test('unreadable and tampered entries are ignored and deleted, never thrown', async (t) => {
  const raw: Array<[string, string]> = [
    ['not JSON', '{"intent":"login",'],
    ['null', 'null'],
    ['a number', '42'],
    ['a string', '"login"'],
    ['an array', JSON.stringify(['login', NOW, '/app'])],
    ['over 16 KB', JSON.stringify({ intent: 'login', savedAt: NOW, ...CONTEXT, resourceType: 'x'.repeat(16 * 1024) })]
  ]
  const changed: Array<[string, Record<string, unknown>]> = [
    ['no time', { savedAt: undefined }],
    ['a time as text', { savedAt: String(NOW) }],
    ['a time that is no number', { savedAt: null }],
    ['no intent', { intent: undefined }],
    ['an unknown intent', { intent: '__proto__' }],
    ['a redirect as a number', { redirect: 42 }],
    ['a blank redirect', { redirect: '   ' }],
    ['a redirect longer than the page follows', { redirect: `/${'a'.repeat(2048)}` }],
    ['a redirect as an object', { redirect: { href: '/app' } }],
    ['organisations as a string', { allowedOrgs: 'acme' }],
    ['organisations missing', { allowedOrgs: undefined }],
    ['an organisation that is no string', { allowedOrgs: ['acme', 7] }],
    ['an empty organisation', { allowedOrgs: [''] }],
    ['an organisation with a comma (the page splits those)', { allowedOrgs: ['acme,globex'] }],
    ['an organisation with spaces around it', { allowedOrgs: [' acme'] }],
    ['a resource type as a list', { resourceType: ['cluster'] }],
    ['an empty cluster name', { clusterName: '' }],
    ['a cluster name missing', { clusterName: undefined }]
  ]
  for (const [what, value] of raw) {
    sessionStorage.setItem(SSO_START_CONTEXT_KEY, value)
    t.equal(takeSsoStartContext('login', NOW), null, what)
    t.equal(sessionStorage.getItem(SSO_START_CONTEXT_KEY), null, `${what}: deleted`)
  }
  for (const [what, change] of changed) {
    storeEntry(change)
    t.equal(takeSsoStartContext('login', NOW), null, what)
    t.equal(sessionStorage.getItem(SSO_START_CONTEXT_KEY), null, `${what}: deleted`)
  }
})

t.test('extra fields in an entry are not passed on, and nothing is polluted', async (t) => {
  sessionStorage.setItem(SSO_START_CONTEXT_KEY, `{"__proto__":{"polluted":1},"intent":"login","savedAt":${NOW},"redirect":null,"allowedOrgs":[],"resourceType":null,"clusterName":null,"email":"x@y.test"}`)
  t.same(takeSsoStartContext('login', NOW), { redirect: null, allowedOrgs: [], resourceType: null, clusterName: null })
  t.equal(({} as Record<string, unknown>).polluted, undefined)
})

t.test('storage that refuses (private mode, a full quota, blocked storage) neither throws nor keeps anything', async (t) => {
  for (const refusal of ['setItem', 'getItem', 'removeItem', 'access'] as const) {
    const restore = storageRefusing(refusal)
    t.doesNotThrow(() => keepSsoStartContext('login', CONTEXT, NOW), `${refusal} refused: the start goes on`)
    t.doesNotThrow(() => t.equal(takeSsoStartContext('login', NOW), null, `${refusal} refused: nothing comes back`))
    restore()
    if (refusal === 'setItem' || refusal === 'access') t.equal(sessionStorage.getItem(SSO_START_CONTEXT_KEY), null, `${refusal} refused: nothing was written`)
    sessionStorage.clear()
  }
})
