import t from 'tap'
import type { PageFormState } from '../../../common/page/page-render.js'
import type { RuntimeConfig } from '../../../common/page/runtime-config.js'
import { createPageRenderer } from '../../../client/server-render.js'
import { englishMessages } from '../../fixtures/languages/messages.js'
import { TEST_CONFIG } from '../../fixtures/page/page.js'

const render = (config: Partial<RuntimeConfig>, search = '', state: PageFormState | null = null) =>
  createPageRenderer({ ...TEST_CONFIG, secondFactor: true, ...config }).render({ search, hostname: 'signin.example.com', state, messages: englishMessages(), account: null }).html

t.test('the logo is an <img> with its alt text and the size it is shown at, first in the card', async (t) => {
  const html = render({ logo: { src: '/assets/brand/logo-ABC.png', alt: 'Acme "Cloud"', width: 224, height: 56 } })
  t.match(html, '<main class="card"><img class="card__logo" src="/assets/brand/logo-ABC.png" alt="Acme &quot;Cloud&quot;" width="224" height="56"/>')
  t.notMatch(render({}), /card__logo/, 'no logo configured: no image')
})

t.test('the background: the built-in poster, the operator\'s, or none at all', async (t) => {
  t.match(render({}), /<picture><source media="\(max-width: 511.98px\)"[^>]*\/><img class="background__media" src="[^"]*background-desktop-poster[^"]*" alt=""\/><\/picture>/)
  const operator = render({ background: { kind: 'operator', poster: '/assets/brand/poster-P.jpg', video: { src: '/assets/brand/video-V.mp4', type: 'video/mp4' } } })
  t.match(operator, '<picture><img class="background__media" src="/assets/brand/poster-P.jpg" alt=""/></picture>', 'one poster at every width')
  t.notMatch(operator, /background-(desktop|mobile)/)
  const none = render({ background: { kind: 'none' } })
  t.notMatch(none, /class="background|<video|<picture/, 'BACKGROUND=none: no media element at all')
})

t.test('addresses, passwords and codes stay left to right on a right-to-left page', async (t) => {
  const login = render({})
  t.match(login, /<input[^>]*type="email"[^>]*dir="ltr"|<input[^>]*dir="ltr"[^>]*type="email"/, 'the email field')
  t.match(login, /<input[^>]*dir="ltr"[^>]*type="password"|<input[^>]*type="password"[^>]*dir="ltr"/, 'the password field')
  t.notMatch(render({}, 'view=register'), /name="first_name"[^>]*dir=/, 'a name follows the page\'s direction')
  const code = render({}, '', { view: 'login', email: 'ada@example.com', notice: null, invalid: false, verificationLinkOffered: false, secondFactorChallenge: 'c'.repeat(43) })
  const codeInput = /<input[^>]*autoComplete="one-time-code"[^>]*>/i.exec(code)?.[0]
  t.ok(codeInput, 'the code step is rendered')
  t.match(codeInput, 'dir="ltr"', 'the authenticator code')
})
