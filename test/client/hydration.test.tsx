import '../fixtures/page/dom.js'
import t, { type Test } from 'tap'
import { act, StrictMode } from 'react'
import { hydrateRoot, type Root } from 'react-dom/client'
import { PAGE_STATE_ELEMENT_ID, serializePageFormState, type PageFormState } from '../../common/page/page-render.js'
import { RUNTIME_CONFIG_ELEMENT_ID, serializeRuntimeConfig } from '../../common/page/runtime-config.js'
import { MESSAGES_ELEMENT_ID, serializePageMessages, type PageMessages } from '../../common/languages/message-catalogue.js'
import { startPage } from '../../client/start-page.js'
import { createPageRenderer } from '../../client/server-render.js'
import { PageMarkup } from '../../server/edge/page/page-markup.js'
import { SignInPage } from '../../client/SignInPage.js'
import { setPageUrl, setViewportWidth } from '../fixtures/page/dom.js'
import { englishMessages, InLanguage, markedGermanMessages } from '../fixtures/languages/messages.js'
import { eventually, eventuallyOk, lastBody, startBackend, TEST_CONFIG } from '../fixtures/page/page.js'
import { jsonAnswer } from '../fixtures/servers/edge.js'
import type { RuntimeConfig } from '../../common/page/runtime-config.js'
import { ACCOUNT_FEATURES, ACCOUNT_STATE_ELEMENT_ID, type AccountState } from '../../common/account/account-state.js'
import { jsonForScriptElement } from '../../common/page/json-for-script.js'

/**
 * The page as the browser gets it: the edge's markup for an address (a GET's
 * rendering, or a form post's state rendered), in a language, with the
 * configuration, state and catalogue embedded as the edge embeds them (the
 * catalogue's element left out, or given as `embeddedMessages`, to test a
 * broken one), started by
 * client/start-page.tsx as client/main.tsx starts it. Any hydration warning
 * (React's console.error or a recoverable error) fails the test.
 */
async function hydrate (
  t: Test, query: string, state: PageFormState | null = null, config: RuntimeConfig = TEST_CONFIG,
  { origin = 'http://localhost', beforeHydration = () => {}, messages = englishMessages(), embeddedMessages = serializePageMessages(messages), account = null }: {
    origin?: string, beforeHydration?: (container: HTMLElement) => void, messages?: PageMessages, embeddedMessages?: string | null, account?: AccountState | null
  } = {}
) {
  setPageUrl(`${origin}/${query}`)
  const renderer = createPageRenderer(config)
  // What the browser sends: the address as it parsed it (a raw `"` or `<` percent-encoded).
  const search = location.search.replace(/^\?/, '')
  // A GET's markup as the edge serves it: a kept rendering, its view links filled in (server/edge/page/page-markup.ts).
  const { html } = state === null && account === null
    ? new PageMarkup(renderer).forQuery(search, 'localhost', messages)
    : renderer.render({ search, hostname: 'localhost', state, messages, account })
  document.body.innerHTML = `<script type="application/json" id="${RUNTIME_CONFIG_ELEMENT_ID}">${serializeRuntimeConfig(config)}</script>` +
    (embeddedMessages === null ? '' : `<script type="application/json" id="${MESSAGES_ELEMENT_ID}">${embeddedMessages}</script>`) +
    (state === null ? '' : `<script type="application/json" id="${PAGE_STATE_ELEMENT_ID}">${serializePageFormState(state)}</script>`) +
    (account === null ? '' : `<script type="application/json" id="${ACCOUNT_STATE_ELEMENT_ID}">${jsonForScriptElement(account)}</script>`) +
    `<div id="root">${html}</div>`
  const container = document.getElementById('root')!
  beforeHydration(container)
  const complaints: string[] = []
  const originalError = console.error
  console.error = (...args: unknown[]) => { complaints.push(args.map(String).join(' ')) }
  let root: Root | null = null
  try {
    await act(async () => {
      root = await startPage({ onRecoverableError: (error) => { complaints.push(`recoverable: ${String(error)}`) } })
    })
    await act(async () => { await new Promise((resolve) => setTimeout(resolve, 20)) })
  } finally {
    console.error = originalError
  }
  t.teardown(() => { act(() => (root)?.unmount()); document.body.innerHTML = '' })
  return { container, complaints, serverHtml: html }
}

const STATES: Record<string, PageFormState> = {
  'a refused login': { view: 'login', email: 'ada@example.com', notice: { kind: 'error', text: 'Invalid email or password.' }, invalid: true, verificationLinkOffered: false, secondFactorChallenge: null },
  'an unverified address': { view: 'login', email: 'ada@example.com', notice: { kind: 'error', text: 'Please verify your email.' }, invalid: false, verificationLinkOffered: true, secondFactorChallenge: null },
  'a registration ending on login': { view: 'login', email: 'ada@example.com', notice: { kind: 'success', text: 'Check your email.' }, invalid: false, verificationLinkOffered: false, secondFactorChallenge: null }
}

for (const width of [1280, 375]) {
  for (const query of ['', '?view=register', '?view=resetPassword', '?view=setPassword&token=abc', '?home_page_banner=Hello&error=Nope&redirect=https%3A%2F%2Fapp.example.com%2F', '?view=register&redirect=%2Fa%3Fb%3D1%26c&x=%26%27%22%3C%3E&y=\'"<>', '?home_page_banner=%3Fthreshold%2Drest%2Dslot&view=%&note=ANY+TEXT']) {
    t.test(`the ${query === '' ? 'login' : query} view at ${width} px hydrates without a warning`, async (t) => {
      setViewportWidth(width)
      const { complaints } = await hydrate(t, query)
      t.same(complaints, [])
    })
  }
}

for (const [name, state] of Object.entries(STATES)) {
  t.test(`the page after ${name} hydrates into the state without a warning`, async (t) => {
    const { container, complaints } = await hydrate(t, '?view=register&redirect=%2Fhome', state)
    t.same(complaints, [])
    t.equal((container.querySelector('input[name="email"]') as HTMLInputElement).value, 'ada@example.com', 'the email kept')
    t.equal(container.querySelector('#form-notice')?.textContent, state.notice!.text)
  })
}

t.test('a refused post renders autofocus on its first invalid field (the browser focuses it as it parses the HTML) and hydrates without a warning', async (t) => {
  for (const [email, focused] of [['ada@example.com', 'password'], ['', 'email']] as const) {
    const state: PageFormState = { ...STATES['a refused login']!, email }
    const { complaints, serverHtml } = await hydrate(t, '', state)
    t.same(complaints, [])
    t.match(serverHtml.match(new RegExp(`<input[^>]*name="${focused}"[^>]*>`))?.[0], 'autofocus', `${focused}: autofocus in the HTML`)
    t.equal((serverHtml.match(/autofocus/gi) ?? []).length, 1, 'on one field only')
  }
})

t.test('the code step of a form post hydrates without a warning', async (t) => {
  const state: PageFormState = { view: 'login', email: 'ada@example.com', notice: null, invalid: false, verificationLinkOffered: false, secondFactorChallenge: 'challenge-1' }
  const { container, complaints } = await hydrate(t, '', state, { ...TEST_CONFIG, secondFactor: true, secondFactorRememberBrowser: true })
  t.same(complaints, [])
  t.equal((container.querySelector('input[name="challenge"]') as HTMLInputElement).value, 'challenge-1')
})

t.test('the emailed code\'s step of a form post renders on the server and hydrates into that step with its address, once its chunk is here', async (t) => {
  const state: PageFormState = {
    view: 'login', email: 'ada@example.com', notice: { kind: 'success', text: 'A code is on its way.' }, invalid: false,
    verificationLinkOffered: false, secondFactorChallenge: null, emailCodeSent: true
  }
  // Its chunk loaded first (hydration asks for it at once), so that hydration ends, and any warning comes, while warnings are listened for.
  await import('../../client/email-codes/EmailCodeSteps.js')
  const { container, complaints, serverHtml } = await hydrate(t, '', state, { ...TEST_CONFIG, emailCodes: true })
  t.match(serverHtml, 'Check your email', 'the server rendered the code step')
  t.match(serverHtml, 'value="email-code"', 'as the email-code form')
  t.notMatch(serverHtml, 'Last used', 'never the last-used mark')
  const heading = () => container.querySelector('h1')
  await eventuallyOk(t, () => heading()?.textContent === 'Check your email' && Object.keys(heading()!).some((key) => key.startsWith('__reactFiber')), 'hydrated')
  t.equal((container.querySelector('input[name="email"][type="hidden"]') as HTMLInputElement).value, 'ada@example.com', 'its address')
  t.equal(container.querySelector('section [role="status"]')?.textContent, 'A code is on its way.', 'the post\'s notice in the step')
  t.equal(container.querySelector('#form-notice')?.textContent, '', 'and not again below it')
  t.same(complaints, [])
})

t.test('the page hydrates in the language the edge embedded, without a warning, and goes on speaking it', async (t) => {
  const { base } = await startBackend(t, (request, response) => jsonAnswer(401, {})(request, response))
  const { container, complaints } = await hydrate(t, '?view=register', null, TEST_CONFIG, {
    origin: base,
    messages: markedGermanMessages(),
    beforeHydration: (container) => {
      typeBeforeHydration(container, 'email', 'ada@example.test')
      typeBeforeHydration(container, 'password', 'correct horse battery')
      typeBeforeHydration(container, 'confirm_password', 'correct horse battery')
    }
  })
  t.same(complaints, [])
  t.equal(container.querySelector('h1')?.textContent, '[de] Create your account')
  // A text chosen after hydration, in a hook: a refusal without a text of its own gets the generic error.
  await act(async () => { (container.querySelector('button[type="submit"]') as HTMLButtonElement).click() })
  await eventually(t, () => container.querySelector('#form-notice')?.textContent, '[de] There was a problem. Please try again.')
})

for (const embedded of [null, '', 'not json', '[]', 'null', '{"locale":"de"}', '{"locale":"xx","catalogue":{"heading.login":42}}']) {
  t.test(`a missing or malformed embedded catalogue (${embedded === null ? 'no element' : JSON.stringify(embedded)}) does not stop the page: it starts, its texts shown as their keys`, async (t) => {
    const { container } = await hydrate(t, '', null, TEST_CONFIG, { embeddedMessages: embedded })
    await eventually(t, () => container.querySelector('h1')?.textContent, 'heading.login', 'the key in place of the text')
    t.ok(container.querySelector('form input[name="password"]'), 'the form is there')
  })
}

/** Types into a server-rendered field as a visitor does before the scripts run: the DOM's value, and an input event nobody listens to yet. */
function typeBeforeHydration (container: HTMLElement, name: string, text: string): void {
  const field = container.querySelector(`input[name="${name}"]`) as HTMLInputElement
  field.value = text
  field.dispatchEvent(new Event('input', { bubbles: true }))
}

t.test('a login typed before hydration is the one submitted after it (no lost input)', async (t) => {
  const { base, upstream } = await startBackend(t, (request, response) => jsonAnswer(200, { auth: 'eyJ.auth', refresh: 'refresh-1' })(request, response))
  const { container, complaints } = await hydrate(t, '?redirect=%2Fapp', null, TEST_CONFIG, {
    origin: base,
    beforeHydration: (container) => {
      typeBeforeHydration(container, 'email', 'ada@example.test')
      typeBeforeHydration(container, 'password', 'correct horse')
    }
  })
  t.same(complaints, [])
  t.equal((container.querySelector('input[name="email"]') as HTMLInputElement).value, 'ada@example.test', 'the typed text stays')
  await act(async () => { (container.querySelector('button[type="submit"]') as HTMLButtonElement).click() })
  await eventually(t, () => window.location.href, `${base}/app`)
  t.match(lastBody(upstream, '/v2/login'), { email: 'ada@example.test', password: 'correct horse' })
})

t.test('a registration typed before hydration is the one submitted after it', async (t) => {
  const { base, upstream } = await startBackend(t, (request, response) => jsonAnswer(200, {})(request, response))
  const { container } = await hydrate(t, '?view=register', null, TEST_CONFIG, {
    origin: base,
    beforeHydration: (container) => {
      typeBeforeHydration(container, 'first_name', 'Ada')
      typeBeforeHydration(container, 'last_name', 'Lovelace')
      typeBeforeHydration(container, 'email', 'ada@example.test')
      typeBeforeHydration(container, 'password', 'correct horse battery')
      typeBeforeHydration(container, 'confirm_password', 'correct horse battery')
    }
  })
  await act(async () => { (container.querySelector('button[type="submit"]') as HTMLButtonElement).click() })
  await eventuallyOk(t, () => upstream.requests.some((request) => request.url.startsWith('/register')), 'the registration is sent')
  t.same(lastBody(upstream, '/register'), { confirm_password: 'correct horse battery', email: 'ada@example.test', password: 'correct horse battery', first_name: 'Ada', last_name: 'Lovelace' })
})

t.test('the check itself catches a mismatch: markup for another product name is reported', async (t) => {
  const { complaints } = await hydrate(t, '', null, TEST_CONFIG)
  t.same(complaints, [], 'the control hydrates cleanly')
  setPageUrl('http://localhost/')
  document.body.innerHTML = `<div id="root">${createPageRenderer({ ...TEST_CONFIG, productName: 'Other' }).render({ search: '', hostname: 'localhost', state: null, messages: englishMessages(), account: null }).html}</div>`
  const seen: string[] = []
  const originalError = console.error
  console.error = (...args: unknown[]) => { seen.push(args.map(String).join(' ')) }
  let root: Root | undefined
  try {
    await act(async () => {
      root = hydrateRoot(document.getElementById('root')!, <StrictMode><InLanguage><SignInPage config={TEST_CONFIG} /></InLanguage></StrictMode>, {
        onRecoverableError: (error) => { seen.push(String(error)) }
      })
    })
  } finally {
    console.error = originalError
  }
  act(() => root?.unmount())
  t.ok(seen.length > 0, 'a hydration mismatch is seen')
})

t.test('the account view hydrates from its embedded state without a warning, once its chunk is here', async (t) => {
  const at = Date.UTC(2026, 10, 28, 14, 0)
  const account: AccountState = {
    overview: {
      account: { email: 'ada@example.com', firstName: null, lastName: null, emailVerified: false, hasPassword: true, google: false },
      secondFactor: { enrolled: true, recoveryCodesLeft: 9, rememberedBrowsers: 0 },
      features: ACCOUNT_FEATURES
    },
    sessions: [{ id: 's-1', current: true, browser: 'Firefox on Linux', signedInAt: at, lastUsedAt: at, addressRange: '203.0.113.0/24', method: 'password' }],
    passkeys: [{ id: 'cred-1', name: null, createdAt: at, lastUsedAt: null, backedUp: false }],
    activity: [{ at, kind: 'sign-in', method: 'password', browser: 'Firefox on Linux', addressRange: '203.0.113.0/24' }]
  }
  // Its chunk loaded first (hydration asks for it at once), so that hydration ends, and any warning comes, while warnings are listened for.
  await import('../../client/account/AccountView.js')
  const { container, complaints, serverHtml } = await hydrate(t, '?view=account', null, TEST_CONFIG, { account })
  t.match(serverHtml, 'Firefox on Linux', 'the server rendered the view')
  const heading = () => container.querySelector('h1')
  await eventuallyOk(t, () => heading()?.textContent === 'Your account' && Object.keys(heading()!).some((key) => key.startsWith('__reactFiber')), 'hydrated')
  t.same(complaints, [])
})

for (const query of ['', '?view=register']) {
  t.test(`with social connections the ${query === '' ? 'login' : 'register'} view renders their buttons on the server and hydrates them without a warning, once their chunk is here`, async (t) => {
    const config: RuntimeConfig = {
      ...TEST_CONFIG,
      // Discovery on too: its part renders nothing on the server, never a boundary waiting for a chunk.
      ssoDiscovery: true,
      socialProviders: [{ id: 'apple', type: 'apple', name: 'Apple', icon: null }, { id: 'gitlab', type: 'oidc', name: 'GitLab', icon: '/social-icons/gitlab.svg' }]
    }
    // Their chunk loaded first (hydration asks for it at once), so that hydration ends, and any warning comes, while warnings are listened for.
    await import('../../client/social/SocialButtons.js')
    const { container, complaints, serverHtml } = await hydrate(t, query, null, config)
    t.match(serverHtml, query === '' ? 'Sign in with Apple' : 'Sign up with Apple', 'the server rendered the buttons')
    t.match(serverHtml, 'value="social"', 'as forms')
    t.notMatch(serverHtml, '<!--$!-->', 'no boundary left for the browser to render')
    const button = () => [...container.querySelectorAll('form.social button')].find((candidate) => candidate.textContent === 'Continue with GitLab')
    await eventuallyOk(t, () => button() !== undefined && Object.keys(button()!).some((key) => key.startsWith('__reactFiber')), 'hydrated')
    t.same(complaints, [])
  })
}
