import t from 'tap'
import { parsePageFormState, serializePageFormState, viewLinkHref, type PageFormState } from '../../common/page/page-render.js'
import { createPageRenderer } from '../../client/server-render.js'
import type { PageMessages } from '../../common/languages/message-catalogue.js'
import { englishMessages, markedGermanMessages } from '../fixtures/languages/messages.js'
import { TEST_CONFIG } from '../fixtures/page/page.js'

const renderer = createPageRenderer({ ...TEST_CONFIG, secondFactor: true, secondFactorRememberBrowser: true })
const render = (search: string, state: PageFormState | null = null, messages: PageMessages = englishMessages()) =>
  renderer.render({ search, hostname: 'signin.example.com', state, messages, account: null })
const STATE: PageFormState = { view: 'login', email: 'ada@example.com', notice: { kind: 'error', text: 'Invalid email or password.' }, invalid: true, verificationLinkOffered: false, secondFactorChallenge: null }

const forms = (html: string) => [...html.matchAll(/<form([^>]*)>/g)].map((match) => match[1]!)
const formNames = (html: string) => [...html.matchAll(/<input type="hidden" name="form" value="([^"]+)"/g)].map((match) => match[1])

t.test('every view renders its heading and forms that post to the page itself, each named', async (t) => {
  const views: Array<[string, string, string[]]> = [
    ['', 'Log in', ['login', 'sso']],
    ['view=register', 'Create your account', ['register', 'sso']],
    ['view=resetPassword', 'Reset your password', ['resetPassword']],
    ['view=setPassword&token=abc', 'Choose a new password', ['setPassword']]
  ]
  for (const [search, heading, names] of views) {
    const { html, heading: rendered } = render(search)
    t.equal(rendered, heading, `${search || 'login'}: the heading for the title`)
    t.match(html, `<h1 class="card__title">${heading}</h1>`)
    t.same(formNames(html), names, `${search || 'login'}: the forms' names`)
    for (const form of forms(html)) {
      t.match(form, 'method="post"')
      t.notMatch(form, /action=/, 'no action: the page\'s own address, query included')
    }
    t.notMatch(html, /<button type="submit"[^>]*disabled/, 'every submit button works without scripts')
    t.notMatch(html, / style="/, 'no style attribute, which the CSP would refuse')
  }
})

t.test('a form post\'s state: the email kept, the password never rendered, the notice, the marks', async (t) => {
  const { html } = render('view=register', { ...STATE, view: 'login' })
  t.match(html, '<h1 class="card__title">Log in</h1>', 'the state\'s view, not the address\'s')
  t.match(html, 'value="ada@example.com"')
  t.match(html, /<input[^>]*type="password"[^>]*value=""/, 'the password field is empty')
  t.match(html, '<div id="form-notice" class="notice notice--error" role="alert">Invalid email or password.</div>')
  t.match(html, 'aria-invalid="true"')
  t.match(html, 'href="/?view=register"', 'the links come from the state\'s address')
})

t.test('a state that offers a new verification link renders its form with the email', async (t) => {
  const { html } = render('', { ...STATE, invalid: false, verificationLinkOffered: true })
  t.match(html, /<form class="verification-link" method="post"><input type="hidden" name="form" value="verificationLink"\/><input type="hidden" name="email" value="ada@example.com"\/>/)
})

t.test('a state with a challenge renders the code step, the challenge a hidden field, the refusal in the step', async (t) => {
  const { html, heading } = render('redirect=%2Fapp', { ...STATE, notice: { kind: 'error', text: 'Wrong code.' }, secondFactorChallenge: 'ch-1' })
  t.equal(heading, 'Enter your authenticator code')
  t.same(formNames(html), ['secondFactor'])
  t.match(html, '<input type="hidden" name="challenge" value="ch-1"/>')
  t.match(html, /name="code"/)
  t.match(html, /name="remember"/)
  t.match(html, 'Wrong code.')
  t.notMatch(html, /name="password"/, 'no login form under the step')
  t.match(html, '<noscript><p class="links"><a href="/?redirect=%2Fapp">Back to login</a></p></noscript>', 'without scripts, a link back to login')
})

t.test('what needs scripts is wrapped, with a note or a form in <noscript>', async (t) => {
  const { html } = createPageRenderer({ ...TEST_CONFIG, googleClientId: 'abc.apps.googleusercontent.com', passkeyRpId: 'signin.example.com' })
    .render({ search: '', hostname: 'signin.example.com', state: null, messages: englishMessages(), account: null })
  t.match(html, /<div class="needs-script"><button[^>]*><span>Login(<!-- -->)? with Google/)
  t.match(html, '<noscript><p class="script-note">Signing in with Google needs JavaScript.</p></noscript>')
  t.match(html, '<noscript><p class="script-note">Signing in with a passkey needs JavaScript.</p></noscript>')
  t.match(html, /<noscript><details class="sso-fallback"><summary[^>]*>Login(<!-- -->)? with Custom SSO provider<\/summary><form class="form" method="post"><input type="hidden" name="form" value="sso"\/>/)
  t.notMatch(html, /needs JavaScript\. Please turn it on/, 'no page-level note')
  const local = render('local_accounts_host=localhost').html
  t.match(local, 'Signing in on the local network needs JavaScript.', 'local-network mode says it needs scripts')
})

t.test('without scripts, the emailed code is a small form with the address; the code step posts the code and asks for a new one by forms', async (t) => {
  const emailCodes = createPageRenderer({ ...TEST_CONFIG, emailCodes: true })
  const login = emailCodes.render({ search: 'login_hint=ada%40example.com', hostname: 'signin.example.com', state: null, messages: englishMessages(), account: null }).html
  t.match(login, /<div class="needs-script"><button[^>]*><span>Email me a sign-in code<\/span><\/button><\/div><noscript><details class="sso-fallback"><summary[^>]*>Email me a sign-in code<\/summary><form class="form" method="post"><input type="hidden" name="form" value="email-code-request"\/>/)
  t.match(login, /name="email"[^>]*value="ada@example.com"/, 'the address kept in the form')
  const register = emailCodes.render({ search: 'view=register', hostname: 'signin.example.com', state: null, messages: englishMessages(), account: null }).html
  t.match(register, 'Sign up with an emailed code')
  t.notMatch(render('').html, 'Email me a sign-in code', 'not where the service does not answer the calls')
  const state: PageFormState = { view: 'login', email: 'ada@example.com', notice: { kind: 'error', text: 'That code is not right.' }, invalid: false, verificationLinkOffered: false, secondFactorChallenge: null, emailCodeSent: true }
  const { html, heading } = emailCodes.render({ search: '', hostname: 'signin.example.com', state, messages: englishMessages(), account: null })
  t.equal(heading, 'Check your email', 'the <title> says the step')
  t.same(formNames(html), ['email-code', 'email-code-request'])
  t.equal((html.match(/<input type="hidden" name="email" value="ada@example.com"\/>/g) ?? []).length, 2, 'each form carries the address')
  t.match(html, /<input[^>]*name="code"[^>]*autoComplete="one-time-code"|<input[^>]*autocomplete="one-time-code"[^>]*name="code"/i)
  t.match(html, 'That code is not right.', 'the refusal in the step')
  t.match(html, /<noscript><p class="links"><a href="\/[^"]*">Use another address<\/a><\/p><\/noscript>/, 'another address by the login view')
})

/** The texts a visitor reads in rendered markup: text between tags, and the labels screen readers read. */
function visibleTexts (html: string): string[] {
  const between = [...html.replace(/<!-- -->/g, '').matchAll(/>([^<]+)</g)].map((match) => match[1]!.trim())
  const labels = [...html.matchAll(/ (?:aria-label|alt|title|placeholder)="([^"]*)"/g)].map((match) => match[1]!)
  return [...between, ...labels].filter((text) => text !== '')
}

t.test('the renderer speaks the catalogue it is given: every text of every view and step, its <title> heading too', async (t) => {
  const german = markedGermanMessages()
  const everything = createPageRenderer({ ...TEST_CONFIG, googleClientId: 'abc.apps.googleusercontent.com', passkeyRpId: 'signin.example.com', secondFactor: true })
  const renders: Array<[string, PageFormState | null]> = [
    ['', null], ['view=register', null], ['view=resetPassword', null], ['view=setPassword&token=abc', null],
    ['', { ...STATE, invalid: false, verificationLinkOffered: true }], ['', { ...STATE, notice: null, secondFactorChallenge: 'ch-1' }],
    ['local_accounts_host=localhost', null], ['notice=email-verified', null], ['error=GENERIC', null]
  ]
  // Not the catalogue's: the product's and support's names (configuration) and the post's own values.
  const values = new Set([TEST_CONFIG.productName, TEST_CONFIG.supportEmail, STATE.notice!.text])
  for (const [search, state] of renders) {
    const { html, heading } = everything.render({ search, hostname: 'signin.example.com', state, messages: german, account: null })
    t.match(heading, /^\[de\] /, `${search || 'login'}: the heading for the title`)
    const english = visibleTexts(html).filter((text) => !text.startsWith('[de] ') && !values.has(text))
    t.same(english, [], `${search || 'login'}${state === null ? '' : ' after a post'}: no text but the catalogue's`)
  }
  const { html } = everything.render({ search: '', hostname: 'signin.example.com', state: null, messages: german, account: null })
  t.match(html, `<p class="brand__tagline">[de] Sign in to continue to ${TEST_CONFIG.productName}.</p>`, 'placeholders filled')
  t.match(html, '<noscript><p class="script-note">[de] Signing in with Google needs JavaScript.</p></noscript>', 'the no-script notes too')
})

t.test('the markup depends on the request alone: the same request renders the same, another language differently', async (t) => {
  t.equal(render('view=register').html, render('view=register').html)
  t.equal(render('view=register', null, markedGermanMessages()).html, render('view=register', null, markedGermanMessages()).html)
  t.not(render('view=register').html, render('view=register', null, markedGermanMessages()).html)
  t.equal(render('').html, render('', null, englishMessages()).html, 'after a German render, English again')
})

t.test('hostile query values are inert: markup, control characters, 100 KB values', async (t) => {
  const hostile = '"><script>alert(1)</script><img src=x onerror=alert(2)>\u0000\u202e\u0007'
  const huge = 'x'.repeat(100 * 1024)
  const search = new URLSearchParams([
    ['home_page_banner', hostile], ['error', hostile], ['view', hostile], ['login_method', hostile], ['redirect', hostile],
    ['cluster_name', huge], ['home_page_banner', huge]
  ]).toString()
  const started = performance.now()
  const { html } = render(search)
  t.ok(performance.now() - started < 1000, 'rendered in well under a second')
  t.equal(/.{0,60}(<script|<img src=x).{0,40}/.exec(html)?.[0], undefined, 'no markup from the query')
  // eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
  t.notMatch(html, /[\u0000\u0007\u202e]/, 'no control or bidi character')
  t.match(html, '<h1 class="card__title">Log in</h1>', 'an unknown view is the login view')
  t.ok(html.length < 3 * search.length + 10_000, 'the links carry the query, nothing more')
  const banner = /<p class="banner">([^<]*)<\/p>/.exec(html)?.[1] ?? ''
  t.ok(banner.length <= 200 * 6, 'the banner is cut as the client cuts it')
})

t.test('the view links put the view first, then the markup\'s parameters, then the rest as written', async (t) => {
  t.equal(viewLinkHref('', 'login'), '/')
  t.equal(viewLinkHref('?redirect=%2Fa&view=register&home_page_banner=Hi', 'login'), '/?home_page_banner=Hi&redirect=%2Fa')
  t.equal(viewLinkHref('redirect=%2Fa&view=register', 'resetPassword'), '/?view=resetPassword&redirect=%2Fa')
  t.equal(viewLinkHref('%76iew=register&x', 'login'), '/?x', 'an encoded name is still the view')
})

t.test('the embedded state reads back, cannot close its script element, and a bad one is none', async (t) => {
  const state: PageFormState = { ...STATE, email: '</script><script>alert(1)</script>\u2028' }
  const text = serializePageFormState(state)
  t.notMatch(text, /[<>&\u2028\u2029]/)
  t.same(parsePageFormState(text), state)
  for (const bad of [null, undefined, '', 'not json', '[]', 'null', '{"view":"admin","email":"a"}', '{"view":"login"}']) {
    t.equal(parsePageFormState(bad), null, String(bad))
  }
  t.same(parsePageFormState('{"view":"login","email":"a","notice":{"kind":"shout","text":"x"},"secondFactorChallenge":""}'),
    { view: 'login', email: 'a', notice: null, invalid: false, verificationLinkOffered: false, secondFactorChallenge: null })
})

t.test('with social connections, each button is a form posting form=social and its provider, rendered for scripts and without alike', async (t) => {
  const social = createPageRenderer({
    ...TEST_CONFIG,
    socialProviders: [{ id: 'apple', type: 'apple', name: 'Apple', icon: null }, { id: 'gitlab', type: 'oidc', name: 'GitLab', icon: '/social-icons/gitlab.svg' }]
  })
  for (const [search, label] of [['', 'Sign in with Apple'], ['view=register', 'Sign up with Apple']] as const) {
    const { html } = social.render({ search, hostname: 'signin.example.com', state: null, messages: englishMessages(), account: null })
    t.same(formNames(html).filter((name) => name === 'social').length, 2, `${search || 'login'}: a form each`)
    t.match(html, /<form class="social" method="post"><input type="hidden" name="form" value="social"\/><input type="hidden" name="provider" value="apple"\/><button type="submit" class="button social--apple">/)
    t.match(html, label)
    t.match(html, '<img class="social__logo" src="/social-icons/gitlab.svg" alt="" width="20" height="20"/>')
    t.notMatch(html, /<noscript>[^]*value="social"[^]*<\/noscript>/, 'not behind a noscript: the same form works either way')
    t.notMatch(html, / style="/, 'no style attribute, which the CSP would refuse')
    t.notMatch(html, /<style/, 'nor a style element')
  }
})

t.test('the return from single sign-on or a social provider renders no boundary left for the browser, even the first time', async (t) => {
  // A fresh renderer's first return: a part still waiting for its chunk here would be React's error 419 in the browser.
  for (const search of ['social=github&id=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA&login=1', 'oidc=1&email=ada%40example.com&id=one-time-id&login=1']) {
    const { html } = createPageRenderer({ ...TEST_CONFIG, socialProviders: [{ id: 'github', type: 'github', name: 'GitHub', icon: null }] })
      .render({ search, hostname: 'signin.example.com', state: null, messages: englishMessages(), account: null })
    t.notMatch(html, '<!--$!-->', search)
  }
})
