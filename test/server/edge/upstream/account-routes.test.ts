import t, { type Test } from 'tap'
import { ACCOUNT_ROUTES, PASSKEY_ROUTES, SECOND_FACTOR_ROUTES } from '../../../../server/shared/accounts-routes.js'
import { buildEdge, jsonAnswer, startUpstream } from '../../../fixtures/servers/edge.js'

/*
 * The account view's calls (docs/account-changes.md) through the edge to an own
 * backend (ACCOUNTS_URL): each reaches it with the account's auth token and
 * this browser's proof cookie, as the account changes do, but the address
 * change's confirmation, which its emailed token alone carries; the passkey
 * and second-factor ones only while those are on.
 */

const ACCOUNT_VIEW_PASSKEY_PATHS = ['passkeys/list', 'passkeys/rename']
const ACCOUNT_VIEW_SECOND_FACTOR_PATHS = ['second-factor/forget-browsers']

/** An own backend's setting, on a host the edge answers. */
const OWN_BACKEND = { PUBLIC_URL: 'https://signin.example.com', ALLOWED_HOSTS: 'signin.example.com' }

async function edgeInFrontOfBackend (t: Test, env: Record<string, string> = {}) {
  const upstream = await startUpstream(t, jsonAnswer(200, { success: 'ok' }))
  const edge = await buildEdge(t, { accountsUpstream: upstream.url, env: { ...OWN_BACKEND, ACCOUNTS_URL: upstream.url, ...env } })
  const post = async (path: string) => await edge.inject({
    method: 'POST',
    url: `/accounts/${path}`,
    headers: {
      host: 'signin.example.com',
      'content-type': 'application/json',
      authorization: 'Bearer a.b.c',
      cookie: 'threshold_proof=proof; auth=the-page-cookie; refresh=r'
    },
    payload: '{}'
  })
  return { upstream, post }
}

t.test('every account view call reaches an own backend with the auth token and the proof cookie, but the address confirmation', async (t) => {
  const { upstream, post } = await edgeInFrontOfBackend(t)
  for (const { path } of ACCOUNT_ROUTES) {
    const answer = await post(path)
    t.equal(answer.statusCode, 200, `${path}: forwarded`)
    const seen = upstream.requests.at(-1)!
    t.equal(seen.url, `/${path}`)
    const cookies = String(seen.headers.cookie ?? '').split('; ').map((pair) => pair.split('=')[0])
    const carriesOwner = path !== 'email/confirm'
    t.equal(seen.headers.authorization, carriesOwner ? 'Bearer a.b.c' : undefined, `${path}: ${carriesOwner ? 'the' : 'no'} auth token`)
    t.equal(cookies.includes('threshold_proof'), carriesOwner, `${path}: ${carriesOwner ? 'the' : 'no'} proof cookie`)
    t.notOk(cookies.includes('auth'), `${path}: never the page's auth cookie`)
  }
})

t.test('the passkey and second-factor calls of the account view are forwarded only while those are on', async (t) => {
  t.ok(ACCOUNT_VIEW_PASSKEY_PATHS.every((path) => PASSKEY_ROUTES.some((route) => route.path === path)), 'with the passkey calls')
  t.ok(ACCOUNT_VIEW_SECOND_FACTOR_PATHS.every((path) => SECOND_FACTOR_ROUTES.some((route) => route.path === path)), 'with the second-factor calls')
  const off = await edgeInFrontOfBackend(t)
  for (const path of [...ACCOUNT_VIEW_PASSKEY_PATHS, ...ACCOUNT_VIEW_SECOND_FACTOR_PATHS]) {
    t.equal((await off.post(path)).statusCode, 404, `${path}: not forwarded while off`)
  }
  t.equal(off.upstream.requests.length, 0, 'the backend was never called')

  const on = await edgeInFrontOfBackend(t, { PASSKEYS: 'true', SECOND_FACTOR: 'true' })
  for (const path of [...ACCOUNT_VIEW_PASSKEY_PATHS, ...ACCOUNT_VIEW_SECOND_FACTOR_PATHS]) {
    t.equal((await on.post(path)).statusCode, 200, `${path}: forwarded while on`)
    t.equal(on.upstream.requests.at(-1)!.headers.authorization, 'Bearer a.b.c')
  }
})
