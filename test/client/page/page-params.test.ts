import t from 'tap'
import { ERROR_MESSAGE_KEYS } from '../../../common/languages/error-messages.js'
import { messageForErrorParameter } from '../../../client/languages/messages.js'
import { NOTICE_MESSAGE_KEYS } from '../../../common/page/page-notices.js'
import { english, ENGLISH_MESSAGES, markedGermanMessages } from '../../fixtures/languages/messages.js'
import { createMessages } from '../../../common/languages/message-catalogue.js'
import { parsePageParams } from '../../../client/page/page-params.js'
import { parseRuntimeConfig } from '../../../common/page/runtime-config.js'
import { EMAIL_CODE_LOGIN_METHOD } from '../../../common/email-codes/email-code-format.js'
import { socialLoginMethod } from '../../../common/social/social-providers.js'

const config = parseRuntimeConfig(JSON.stringify({ productName: 'Acme Cloud', passwordResetCompletion: true, localAccountsAllowedHosts: ['nas.lan'] }))
const parse = (query: string, hostname = 'signin.acme.test') => parsePageParams(query, hostname, config)

t.test('view picks the view; anything else is the login view', async (t) => {
  t.equal(parse('').view, 'login')
  t.equal(parse('?view=register').view, 'register')
  t.equal(parse('?view=resetPassword').view, 'resetPassword')
  t.equal(parse('?view=setPassword&token=abc').view, 'setPassword')
  for (const value of ['REGISTER', 'admin', '', '<script>', '__proto__', 'constructor']) {
    t.equal(parse(`?view=${encodeURIComponent(value)}`).view, 'login', value)
  }
  const withoutCompletion = parsePageParams('?view=setPassword', 'x.test', parseRuntimeConfig('{}'))
  t.equal(withoutCompletion.view, 'login', 'setPassword exists only where the accounts service completes resets')
})

t.test('allowed_org may repeat or be a comma-separated list', async (t) => {
  t.same(parse('?allowed_org=a&allowed_org=b,c&allowed_org=%20d%20&allowed_org=').allowedOrgs, ['a', 'b', 'c', 'd'])
  t.same(parse('').allowedOrgs, [])
})

t.test('the context fields are read as given', async (t) => {
  const params = parse('?resource_type=cluster&cluster_name=prod-eu&redirect=%2Fapp')
  t.equal(params.resourceType, 'cluster')
  t.equal(params.clusterName, 'prod-eu')
  t.equal(params.redirect, '/app')
  t.equal(parse('').resourceType, null)
})

t.test('login_method limits the methods shown; the product name stands for email and password', async (t) => {
  const methods = (query: string) => [...parse(query).loginMethods].sort()
  t.same(methods(''), ['email-code', 'google', 'password', 'sso'])
  t.same(methods('?login_method=GOOGLE'), ['google'])
  t.same(methods('?login_method=SAML'), ['sso'])
  t.same(methods('?login_method=CUSTOM_SSO'), ['sso'])
  t.same(methods('?login_method=ACME%20CLOUD'), ['password'])
  t.same(methods('?login_method=acme cloud,google'), ['google', 'password'], 'case does not matter; lists work')
  t.same(methods('?login_method=GOOGLE&login_method=SAML'), ['google', 'sso'])
  t.same(methods('?login_method=THRESHOLD'), ['email-code', 'google', 'password', 'sso'], 'an unknown value alone shows everything rather than nothing')
  t.same(methods(`?login_method=${EMAIL_CODE_LOGIN_METHOD}`), ['email-code'], 'EMAIL_CODE: the emailed code alone')
  t.same(methods('?login_method=email_code,ACME%20CLOUD'), ['email-code', 'password'], 'beside the product\'s own, in any case')
  t.same(methods('?login_method=EMAIL_CODE&local_accounts_host=nas.lan&local_accounts_port=8443'), ['password'], 'local-network mode offers no other method')
})

/** What the page shows for the address's `error` parameter, in English. */
function errorShown (search: string): string | null {
  const value = parse(search).errorParameter
  return value === null ? null : messageForErrorParameter(value, ENGLISH_MESSAGES)
}

t.test('every error key shows its catalogue message; other values are shown as plain text', async (t) => {
  for (const [key, messageKey] of Object.entries(ERROR_MESSAGE_KEYS)) {
    t.equal(errorShown(`?error=${key}`), english(messageKey), key)
  }
  t.equal(errorShown('?error=Your+session+expired'), 'Your session expired')
  t.equal(errorShown('?error=%3Cb%3Ebold%3C%2Fb%3E'), '<b>bold</b>', 'markup is kept as text (React renders it as text)')
  t.equal(errorShown('?error=a%00b%1Bc%E2%80%AEd%E2%81%A6e'), 'a b c d e', 'control and bidi characters are removed')
  t.equal(errorShown(`?error=${'x'.repeat(5000)}`)?.length, 300, 'a huge value is cut')
  t.equal(errorShown('?error=hasOwnProperty'), 'hasOwnProperty', 'inherited names are not catalogue keys')
  t.equal(errorShown('?error=__proto__'), '__proto__')
  t.equal(errorShown(''), null)
  t.equal(errorShown('?error=%E2%80%AE%E2%80%8B%00%EF%BB%BF'), null, 'nothing left to show once invisible characters are removed: no error')
  t.equal(errorShown('?error=GENERIC&error=GOOGLE_LOGIN_FAILED'), english('error.GENERIC'), 'the first of repeated keys counts')
})

t.test("an error key shows its message in the page's language; a value that is no key is shown as it came, in any language", async (t) => {
  const german = createMessages(markedGermanMessages())
  t.equal(messageForErrorParameter('GENERIC', german), `[de] ${english('error.GENERIC')}`)
  t.equal(messageForErrorParameter('Sitzung abgelaufen', german), 'Sitzung abgelaufen')
})

t.test('the banner is plain, bounded text', async (t) => {
  t.equal(parse('?home_page_banner=Maintenance%20tonight').banner, 'Maintenance tonight')
  t.equal(parse(`?home_page_banner=${'b'.repeat(1000)}`).banner?.length, 200)
  t.equal(parse('?home_page_banner=%20').banner, null)
  t.equal(parse('?home_page_banner=%E2%80%AE%E2%80%8B%00').banner, null, 'only invisible characters: no banner')
})

t.test('the SSO return needs saml or oidc, email, id, and login or register', async (t) => {
  t.same(parse('?saml=1&email=a%40b.test&id=xyz&login=1').ssoReturn, { protocol: 'SAML', email: 'a@b.test', id: 'xyz', intent: 'login' })
  t.same(parse('?oidc&email=a%40b.test&id=xyz&register').ssoReturn, { protocol: 'OIDC', email: 'a@b.test', id: 'xyz', intent: 'register' })
  t.equal(parse('?saml=1&email=a%40b.test&login=1').ssoReturn, null, 'no id')
  t.equal(parse('?saml=1&id=xyz&login=1').ssoReturn, null, 'no email')
  t.equal(parse('?email=a%40b.test&id=xyz&login=1').ssoReturn, null, 'no protocol')
  t.equal(parse('?oidc=1&email=a%40b.test&id=xyz').ssoReturn, null, 'no intent')
})

t.test('local_accounts_host switches to local-network mode, for allowed hosts only', async (t) => {
  const allowed = parse('?local_accounts_host=nas.lan&login_method=GOOGLE')
  t.same(allowed.localAccounts, { kind: 'allowed', origin: 'https://nas.lan:10064', authenticateUrl: 'https://nas.lan:10064/authenticate' })
  t.same([...allowed.loginMethods], ['password'], 'only the local method is shown')
  t.same(parse('?local_accounts_host=127.0.0.1&local_accounts_port=9000').localAccounts,
    { kind: 'allowed', origin: 'http://127.0.0.1:9000', authenticateUrl: 'http://127.0.0.1:9000/authenticate' })
  t.same(parse('?local_accounts_host=signin.acme.test').localAccounts.kind, 'allowed', 'the page\'s own host')
  t.same(parse('?local_accounts_host=[::1]').localAccounts,
    { kind: 'allowed', origin: 'http://[::1]:10064', authenticateUrl: 'http://[::1]:10064/authenticate' })
  for (const query of ['?local_accounts_host=evil.test', '?local_accounts_host=nas.lan.evil.test', '?local_accounts_host=nas.lan&local_accounts_port=0',
    '?local_accounts_host=nas.lan&local_accounts_port=65536', '?local_accounts_host=nas.lan&local_accounts_port=80a', '?local_accounts_host=a/b',
    '?local_accounts_host=user@nas.lan', '?local_accounts_host=nas.lan:1234', '?local_accounts_host=nas.lan&local_accounts_port=0x50',
    '?local_accounts_host=nas.lan&local_accounts_port=1e3', '?local_accounts_host=nas.lan&local_accounts_port=80.0',
    '?local_accounts_host=nas.lan&local_accounts_port=%2B80', '?local_accounts_host=nas.lan&local_accounts_port=%EF%BC%98%EF%BC%90']) {
    t.equal(parse(query).localAccounts.kind, 'refused', query)
  }
  t.equal(parse('').localAccounts.kind, 'off')
})

t.test('supports_domain_auth_check is on only for "true"', async (t) => {
  t.equal(parse('?supports_domain_auth_check=true').domainCheck, true)
  for (const value of ['1', 'TRUE', 'yes', '']) t.equal(parse(`?supports_domain_auth_check=${value}`).domainCheck, false, value)
})

t.test('a notice code names its catalogue text, as a success or an error, on its own view and on no other', async (t) => {
  const places = {
    'email-verified': ['login', 'success'],
    'verify-link-invalid': ['login', 'error'],
    'verify-in-known-browser': ['login', 'error'],
    'sessions-ended': ['setPassword', 'success'],
    'end-sessions': ['setPassword', 'success'],
    'undo-change': ['setPassword', 'success'],
    'end-sessions-link-invalid': ['resetPassword', 'error'],
    'email-changed': ['login', 'success'],
    'email-change-link-invalid': ['login', 'error'],
    'email-change-in-known-browser': ['login', 'error']
  } as const
  t.same(Object.keys(places).sort(), Object.keys(NOTICE_MESSAGE_KEYS).sort(), 'every code of the catalogue is placed here')
  for (const [code, [view, kind]] of Object.entries(places)) {
    for (const other of ['login', 'register', 'resetPassword', 'setPassword']) {
      const viewQuery = other === 'login' ? '' : `view=${other}&`
      const notice = parse(`?${viewQuery}token=tok&notice=${code}`).notice
      t.same(notice, other === view ? { kind, key: NOTICE_MESSAGE_KEYS[code as keyof typeof NOTICE_MESSAGE_KEYS] } : null, `${code} on ${other}`)
    }
  }
  const withoutCompletion = parsePageParams('?view=setPassword&notice=sessions-ended', 'x.test', parseRuntimeConfig('{}'))
  t.equal(withoutCompletion.notice, null, 'no setPassword view where resets are not completed, so no notice for it either')
  t.same(parse('?notice=email-verified&notice=verify-link-invalid').notice?.key, 'notice.emailVerified', 'the first of repeated keys counts')
})

t.test('a notice value that is not a code is ignored, never shown', async (t) => {
  const values = ['', 'EMAIL-VERIFIED', 'email_verified', ' email-verified', 'email-verified ', '\u202eemail-verified', 'email-verified\u200b',
    '<b>email-verified</b>', 'Your account was deleted. Call +1 555 0100.', 'x'.repeat(5000), '__proto__', 'constructor', 'hasOwnProperty', 'toString']
  for (const value of values) {
    t.equal(parse(`?notice=${encodeURIComponent(value)}`).notice, null, JSON.stringify(value.slice(0, 40)))
  }
  t.equal(parse('').notice, null)
})

t.test('login_hint is the email the views start with; empty or blank is none', async (t) => {
  t.equal(parse('?login_hint=ada%40example.test').loginHint, 'ada@example.test')
  t.equal(parse('?login_hint=').loginHint, null)
  t.equal(parse('?login_hint=%20%20').loginHint, null)
  t.equal(parse('').loginHint, null)
})

t.test('login_method names a social connection by its id in capitals (socialLoginMethod), beside the other methods', async (t) => {
  const social = parseRuntimeConfig(JSON.stringify({
    productName: 'Acme Cloud',
    socialProviders: [{ id: 'apple', type: 'apple', name: 'Apple', icon: null }, { id: 'gitlab', type: 'oidc', name: 'GitLab', icon: null }]
  }))
  const methods = (query: string) => [...parsePageParams(query, 'signin.acme.test', social).loginMethods].sort()
  t.same(methods(''), ['email-code', 'google', 'password', 'social:apple', 'social:gitlab', 'sso'], 'every connection when login_method is absent')
  t.same(methods(`?login_method=${socialLoginMethod('apple')}`), ['social:apple'])
  t.same(methods('?login_method=gitlab,GOOGLE'), ['google', 'social:gitlab'], 'in any case, in a list')
  t.same(methods('?login_method=GITHUB'), ['email-code', 'google', 'password', 'social:apple', 'social:gitlab', 'sso'], 'a connection not configured is an unknown value')
  t.same(methods('?login_method=GOOGLE'), ['google'], 'no connection where login_method names none')
})

t.test('the return from a social provider: its id, the single-use id and the intent, all three or none', async (t) => {
  t.same(parse('?social=github&id=abc&login=1').socialReturn, { provider: 'github', id: 'abc', intent: 'login' })
  t.same(parse('?social=apple&id=abc&register=1').socialReturn, { provider: 'apple', id: 'abc', intent: 'register' })
  t.equal(parse('?social=github&login=1').socialReturn, null, 'no id')
  t.equal(parse('?social=github&id=abc').socialReturn, null, 'no intent')
  t.equal(parse('?social=&id=abc&login=1').socialReturn, null, 'no provider')
  t.equal(parse('?social=github&id=abc&login=1').ssoReturn, null, 'not single sign-on\'s')
  t.equal(parse('?oidc=1&email=a%40b.test&id=abc&login=1').socialReturn, null, 'nor is single sign-on\'s a social one')
})
