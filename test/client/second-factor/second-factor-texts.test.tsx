import '../../fixtures/page/dom.js'
import { cleanup, render, screen } from '@testing-library/react'
import { userEvent } from '@testing-library/user-event'
import { SWRConfig } from 'swr'
import t from 'tap'
import { parseEmbeddedMessages } from '../../../client/languages/embedded-messages.js'
import { MessagesContext } from '../../../client/languages/messages.js'
import { lazySecondFactorSteps, SecondFactorStepsContext, SignInPage } from '../../../client/SignInPage.js'
import { createMessages, MESSAGES_ELEMENT_ID } from '../../../common/languages/message-catalogue.js'
import germanCatalogue from '../../../common/messages/de.json' with { type: 'json' }
import { setPageUrl } from '../../fixtures/page/dom.js'
import { startBackend, TEST_CONFIG } from '../../fixtures/page/page.js'
import { answerByPath, SECOND_FACTOR_TEST_ROUTES } from '../../fixtures/second-factor/second-factor.js'

t.test('a German page that embedded no second-factor texts fetches them with the steps\' chunk and shows the code step in German', async (t) => {
  const { base, upstream } = await startBackend(t, answerByPath({ '/v2/login': [200, { second_factor: 'code', challenge: 'ch', expires_in: 300 }] }),
    { accountsRoutes: SECOND_FACTOR_TEST_ROUTES })
  // The page as the edge serves it in German: its embedded texts, and where the later ones are.
  setPageUrl(`${base}/?ui_locales=de`)
  const html = await (await fetch(`${base}/?ui_locales=de`)).text()
  const element = new RegExp(`<script type="application/json" id="${MESSAGES_ELEMENT_ID}">([^<]*)</script>`).exec(html)
  const embedded = parseEmbeddedMessages(element?.[1])
  t.equal(embedded.locale, 'de')
  t.notOk('secondFactor.codeHeading' in embedded.catalogue, 'the page did not carry the step\'s texts')
  t.ok(embedded.laterTextsUrl?.startsWith('/assets/messages/de-'))

  const user = userEvent.setup()
  render(
    <SWRConfig value={{ provider: () => new Map() }}>
      <MessagesContext.Provider value={createMessages(embedded)}>
        <SecondFactorStepsContext.Provider value={lazySecondFactorSteps(embedded.laterTextsUrl)}>
          <SignInPage config={{ ...TEST_CONFIG, secondFactor: true }} />
        </SecondFactorStepsContext.Provider>
      </MessagesContext.Provider>
    </SWRConfig>
  )
  t.teardown(() => cleanup())
  await user.type(screen.getByLabelText(germanCatalogue['field.email']), 'ada@example.test')
  await user.type(screen.getByLabelText(germanCatalogue['field.password']), 'correct horse')
  await user.click(screen.getByRole('button', { name: germanCatalogue['login.submit'] }))
  t.ok(await screen.findByRole('heading', { name: germanCatalogue['secondFactor.codeHeading'] }), 'the step\'s heading, in German')
  t.ok(screen.getByRole('textbox', { name: germanCatalogue['secondFactor.codeLabel'] }))
  t.ok(screen.getByRole('button', { name: germanCatalogue['secondFactor.verify'] }))
  t.notOk(document.body.textContent?.includes('secondFactor.'), 'no key shows')
  t.ok(upstream.requests.some((request) => request.url === '/v2/login'))
})
