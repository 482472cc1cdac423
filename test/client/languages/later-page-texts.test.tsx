import '../../fixtures/page/dom.js'
import { cleanup, render, screen, within } from '@testing-library/react'
import { userEvent } from '@testing-library/user-event'
import { SWRConfig } from 'swr'
import t from 'tap'
import { parseEmbeddedMessages } from '../../../client/languages/embedded-messages.js'
import { MessagesContext } from '../../../client/languages/messages.js'
import { SignInPage } from '../../../client/SignInPage.js'
import { createMessages, MESSAGES_ELEMENT_ID } from '../../../common/languages/message-catalogue.js'
import germanCatalogue from '../../../common/messages/de.json' with { type: 'json' }
import { jsonAnswer } from '../../fixtures/servers/edge.js'
import { setPageUrl } from '../../fixtures/page/dom.js'
import { startBackend, TEST_CONFIG } from '../../fixtures/page/page.js'

/**
 * The SSO modal's texts are later texts (common/languages/message-catalogue.ts): the
 * page as the edge serves it leaves them out, and the modal fetches them with
 * its chunk (client/languages/later-page-texts.ts), so it opens in the page's language.
 */

t.test('a German page that embedded no SSO modal texts opens the modal in German, its texts fetched with its chunk', async (t) => {
  const { base } = await startBackend(t, jsonAnswer(404, {}))
  setPageUrl(`${base}/?ui_locales=de`)
  const html = await (await fetch(`${base}/?ui_locales=de`)).text()
  const json = new RegExp(`<script type="application/json" id="${MESSAGES_ELEMENT_ID}">([^<]*)</script>`).exec(html)?.[1]
  const embedded = parseEmbeddedMessages(json)
  for (const key of ['sso.title', 'sso.submitLogin', 'passkey.offerHeading', 'passkey.createFailed']) {
    t.notOk(key in embedded.catalogue, `the page did not carry ${key}`)
  }
  t.equal(embedded.catalogue['sso.continue'], germanCatalogue['sso.continue'], 'nor did it lose what the first view says')
  // Where the lazy parts read the address of their texts, as the page's start reads the catalogue.
  const element = document.createElement('script')
  element.type = 'application/json'
  element.id = MESSAGES_ELEMENT_ID
  element.textContent = json!
  document.head.append(element)
  t.teardown(() => element.remove())

  const user = userEvent.setup()
  render(
    <SWRConfig value={{ provider: () => new Map() }}>
      <MessagesContext.Provider value={createMessages(embedded)}>
        <SignInPage config={TEST_CONFIG} />
      </MessagesContext.Provider>
    </SWRConfig>
  )
  t.teardown(() => cleanup())
  await user.click(screen.getByRole('button', { name: germanCatalogue['methods.loginWithSso'] }))
  const dialog = await screen.findByRole('dialog', { name: germanCatalogue['sso.title'] })
  t.ok(dialog, 'the modal\'s title, in German')
  t.ok(within(dialog).getByRole('button', { name: germanCatalogue['sso.cancel'] }))
  t.ok(within(dialog).getByRole('button', { name: germanCatalogue['sso.submitLogin'] }))
  t.notOk(document.body.textContent?.includes('sso.'), 'no key shows')
})
