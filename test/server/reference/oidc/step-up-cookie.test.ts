import t from 'tap'
import { StepUpCookies } from '../../../../server/reference/oidc/step-up-cookie.js'

const NOW = 1_800_000_000_000
const cookies = new StepUpCookies(Buffer.alloc(32, 7), true)

/** The `name=value` a browser sends back for a Set-Cookie line. */
function sent (setCookie: string): string {
  return setCookie.split(';')[0]!
}

t.test('the mark is HttpOnly, Secure, SameSite=Lax, under /accounts, and read back until it expires', async (t) => {
  const line = cookies.set(NOW)
  t.match(line, /^oidc_step_up=\d+\.[\w-]{43}; Path=\/accounts; Max-Age=600; HttpOnly; SameSite=Lax; Secure$/)
  t.ok(cookies.asked(`other=1; ${sent(line)}`, NOW + 1000))
  t.notOk(cookies.asked(sent(line), NOW + 600_000), 'expired after its ten minutes')
  t.notOk(cookies.asked(undefined, NOW))
  t.match(cookies.clear(), /^oidc_step_up=; Path=\/accounts; Max-Age=0;/)
  t.notOk(new StepUpCookies(Buffer.alloc(32, 7), false).set(NOW).includes('Secure'), 'not Secure behind an http PUBLIC_URL')
})

t.test('a forged or altered mark is not read', async (t) => {
  const value = sent(cookies.set(NOW)).split('=')[1]!
  const [expiresAt, signature] = value.split('.') as [string, string]
  t.notOk(cookies.asked(`oidc_step_up=${Number(expiresAt) + 3600}.${signature}`, NOW), 'a later expiry under the old signature')
  t.notOk(cookies.asked(`oidc_step_up=${expiresAt}.${'A'.repeat(43)}`, NOW))
  t.notOk(new StepUpCookies(Buffer.alloc(32, 8), true).asked(`oidc_step_up=${value}`, NOW), 'another key\'s mark')
  t.notOk(cookies.asked('oidc_step_up=yes', NOW))
})
