import t from 'tap'
import { ACCOUNT_FEATURES, ACCOUNT_FORMS, type AccountFeature, type AccountState } from '../../../common/account/account-state.js'
import { createPageRenderer } from '../../../client/server-render.js'
import { englishMessages } from '../../fixtures/languages/messages.js'
import { TEST_CONFIG } from '../../fixtures/page/page.js'
import { english } from '../../fixtures/languages/messages.js'

/*
 * The account view as the server renders it (docs/page.md, "The account
 * view"): from the AccountState the edge gives, every action a form that
 * posts without scripts, the proof those forms carry, and notes where
 * scripts are needed.
 */

const renderer = createPageRenderer({ ...TEST_CONFIG, secondFactor: true, passkeyRpId: 'signin.example.com' })
const NOW = Date.UTC(2026, 10, 28, 14, 0)

function accountState (features: readonly AccountFeature[] = ACCOUNT_FEATURES, hasPassword = true): AccountState {
  return {
    overview: {
      account: { email: 'ada@example.test', firstName: 'Ada', lastName: null, emailVerified: true, hasPassword, google: false },
      secondFactor: { enrolled: true, recoveryCodesLeft: 7, rememberedBrowsers: 1 },
      features
    },
    sessions: [
      { id: 's-here', current: true, browser: 'Firefox on Linux', signedInAt: NOW - 3_600_000, lastUsedAt: NOW, addressRange: '203.0.113.0/24', method: 'password' },
      { id: 's-<phone>', current: false, browser: 'Safari <b>on</b> iOS', signedInAt: NOW - 7_200_000, lastUsedAt: NOW - 60_000, addressRange: '2001:db8:1::/48', method: 'google' }
    ],
    passkeys: [{ id: 'cred-1', name: 'Laptop', createdAt: NOW - 86_400_000, lastUsedAt: null, backedUp: true }],
    activity: [{ at: NOW, kind: 'password-changed', method: null, browser: 'Firefox on Linux', addressRange: '203.0.113.0/24' }]
  }
}

const render = (account: AccountState | null, search = 'view=account') =>
  renderer.render({ search, hostname: 'signin.example.com', state: null, messages: englishMessages(), account })
const formNames = (html: string) => [...html.matchAll(/<input type="hidden" name="form" value="([^"]+)"/g)].map((match) => match[1])
const forms = (html: string) => [...html.matchAll(/<form([^>]*)>/g)].map((match) => match[1]!)

t.test('the view renders its heading, for the title too, and each section\'s forms, each named and posted', async (t) => {
  const { html, heading } = render(accountState())
  t.equal(heading, english('heading.account'))
  t.match(html, `<h1 class="card__title">${english('heading.account')}</h1>`)
  // This browser's own session signs out as the view's Sign out does: the edge then clears the HttpOnly refresh cookie too.
  t.same(formNames(html), ['logout', 'logout', 'account-end-session', 'account-end-others', 'account-password', 'account-email', 'account-delete'])
  t.same([...new Set(formNames(html))].sort(), [...ACCOUNT_FORMS].sort(), 'every form the edge takes (ACCOUNT_FORMS), and no other')
  for (const form of forms(html)) t.match(form, 'method="post"')
  t.match(forms(html)[0], 'action="/?view=logout"', 'sign out posts to the logout view')
  t.match(forms(html)[1], 'action="/?view=logout"', 'so does this browser\'s session')
  t.ok(forms(html).slice(2).every((form) => !form.includes('action=')), 'the others to the page\'s own address')
  t.notMatch(html, / style="/, 'no style attribute, which the CSP would refuse')
})

t.test('each session\'s form names it; what the service wrote is escaped', async (t) => {
  const { html } = render(accountState(['sessions']))
  t.notMatch(html, '<input type="hidden" name="id" value="s-here"/>', 'this browser\'s session signs out through the logout view, naming no id')
  t.match(html, '<input type="hidden" name="id" value="s-&lt;phone&gt;"/>')
  t.match(html, 'Safari &lt;b&gt;on&lt;/b&gt; iOS')
  t.match(html, 'This browser')
})

t.test('times are rendered in UTC, saying so, in the page\'s language', async (t) => {
  const { html } = render(accountState(['sessions']))
  t.match(html, /Last used: Nov 28, 2026, 2:00\s?PM UTC/)
})

t.test('the forms a proof guards carry the current password, only without scripts and only where the account has one', async (t) => {
  const withPassword = render(accountState()).html
  const noscripts = [...withPassword.matchAll(/<noscript>([\s\S]*?)<\/noscript>/g)].map((match) => match[1]!)
  t.equal(noscripts.filter((content) => content.includes('name="currentPassword"')).length, 3, 'password, address, delete')
  t.equal([...withPassword.matchAll(/name="currentPassword"/g)].length, 3, 'none outside a noscript')
  t.notMatch(render(accountState(['password', 'email', 'delete'], false)).html, 'name="currentPassword"', 'none without a password')
})

t.test('passkeys and the second factor say in place that they need scripts', async (t) => {
  const { html } = render(accountState(['passkeys', 'second-factor']))
  t.equal(formNames(html).filter((name) => name !== 'logout').length, 0, 'no form to post')
  t.equal([...html.matchAll(new RegExp(english('account.needsScript'), 'g'))].length, 2)
  t.match(html, 'Laptop')
})

t.test('only the sections the backend serves; none: sign out only', async (t) => {
  const some = render(accountState(['activity'])).html
  t.match(some, english('account.activity.heading'))
  t.notMatch(some, english('account.sessions.heading'))
  const none = render(accountState([])).html
  t.same(formNames(none), ['logout'])
  t.match(none, english('account.nothingOffered'))
})
