import type { Page } from 'playwright-core'
import t from 'tap'
import { browserSkip, openPage, unexpectedProblems } from '../../fixtures/browsers/chromium.js'
import { startBuiltServer } from '../../fixtures/servers/built-server.js'
import { signInOnPage } from '../../fixtures/sign-in/sign-in-page.js'

/**
 * Hostile query parameters in real Chromium against the built server: the
 * page renders, no console error, no CSP violation, no element or script
 * injected, and a login with a hostile redirect lands on the site origin.
 */

const MARKUP = '"><img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script><svg onload="window.__pwned=1">'
const CONTROL = 'a\u0000b\u001bc\u202ed\u2066e\u200bf\ufeffg'

const q = (params: Array<[string, string]>): string => `?${new URLSearchParams(params).toString()}`

/** What an attack would leave behind, read from the page. */
async function injected (page: Page): Promise<{ pwned: unknown, images: number, foreignScripts: string[], frames: number }> {
  return page.evaluate(() => ({
    pwned: (window as { __pwned?: unknown }).__pwned ?? null,
    images: document.querySelectorAll('img[src="x"], svg[onload], [onerror]').length,
    foreignScripts: [...document.querySelectorAll('script')]
      .filter((script) => !(script.src.startsWith(`${location.origin}/assets/`) || (script.type === 'application/json' && ['threshold-config', 'threshold-messages', 'threshold-state'].includes(script.id))))
      .map((script) => script.outerHTML.slice(0, 80)),
    frames: document.querySelectorAll('iframe, object, embed').length
  }))
}

t.test('hostile query parameters in real Chromium against the built server', { skip: browserSkip }, async (t) => {
  // Passkeys and the second factor off: the hostile-redirect login must end at its landing, not at an offer.
  const server = await startBuiltServer(t, { PASSKEYS: 'false', SECOND_FACTOR: 'false' })
  const { base } = server

  const pages: Array<[string, Array<[string, string]>, string | null, number[]]> = [
    ['markup in error', [['error', MARKUP]], MARKUP, []],
    ['control characters in error', [['error', CONTROL]], 'a b c d e f g', []],
    ['markup in the banner', [['home_page_banner', MARKUP]], null, []],
    ['inherited names everywhere', ['view', 'login_method', 'error', 'redirect', 'allowed_org', 'supports_domain_auth_check']
      .map((name): [string, string] => [name, '__proto__']), '__proto__', []],
    ['markup as the local accounts host', [['local_accounts_host', MARKUP]], 'The local accounts host is not a valid host name.', []],
    ['a hex local accounts port', [['local_accounts_host', 'localhost'], ['local_accounts_port', '0x50']], 'The local accounts port is not a valid port number.', []],
    ['repeated keys', [['view', 'register'], ['view', MARKUP], ['error', 'GENERIC'], ['error', MARKUP]], 'There was a problem. Please try again.', []],
    ['every parameter at once', ['view', 'redirect', 'allowed_org', 'resource_type', 'cluster_name', 'home_page_banner', 'error', 'login_method',
      'local_accounts_port', 'supports_domain_auth_check', 'token', '__proto__', 'constructor']
      .flatMap((name): Array<[string, string]> => [[name, MARKUP], [name, CONTROL]]), MARKUP, []],
    ['an SSO return with markup for email and id', [['saml', '1'], ['email', MARKUP], ['id', MARKUP], ['login', '1']], null, [400, 401, 403]]
  ]
  // One page, navigated from case to case: each navigation is a fresh document (and a fresh window).
  const { page, problems } = await openPage(t)
  for (const [what, params, alert, statuses] of pages) {
    await t.test(what, async (t) => {
      problems.length = 0
      await page.goto(`${base}/${q(params)}`)
      await page.getByRole('heading', { level: 1 }).waitFor()
      if (alert !== null) {
        await page.waitForFunction((text) => document.querySelector('[role=alert]')?.textContent === text, alert)
      } else if (statuses.length > 0) {
        await page.waitForFunction(() => (document.querySelector('[role=alert]')?.textContent ?? '') !== '')
      }
      t.same(await injected(page), { pwned: null, images: 0, foreignScripts: [], frames: 0 }, 'nothing injected, nothing ran')
      t.same(unexpectedProblems(problems, statuses), [], 'no console error and no CSP violation')
    })
  }

  await t.test('a login with a hostile redirect lands on the site origin, and the calls carry only the origin as Referer', async (t) => {
    const register = await fetch(`${base}/accounts/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'hostile@example.test', password: 'correct horse battery', confirm_password: 'correct horse battery' })
    })
    t.equal(register.status, 200, 'an account to log in with')
    problems.length = 0
    const referers: string[] = []
    page.on('request', (request) => {
      if (request.url().includes('/accounts/')) void request.allHeaders().then((headers) => referers.push(headers.referer ?? '(none)'))
    })
    await page.goto(`${base}/${q([['redirect', 'javascript:window.__pwned=1//'], ['cluster_name', MARKUP], ['token', 'tok_secret_value']])}`)
    await signInOnPage(page, 'hostile@example.test', 'correct horse battery')
    await page.waitForURL(`${base}/`)
    t.same(await injected(page), { pwned: null, images: 0, foreignScripts: [], frames: 0 }, 'the javascript: target never ran')
    t.ok(referers.length > 0 && referers.every((referer) => referer === `${base}/`), `Referer is the origin only: ${JSON.stringify(referers)}`)
    t.same(problems, [], 'no console error and no CSP violation')
  })
})
