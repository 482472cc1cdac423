import { StrictMode } from 'react'
import { flushSync } from 'react-dom'
import { createRoot, hydrateRoot, type RootOptions, type Root } from 'react-dom/client'
import { preloadDomainCheck } from './domain-check/check-domain.js'
import { createMessages, MESSAGES_ELEMENT_ID } from '../common/languages/message-catalogue.js'
import { searchForView } from './page/address-bar.js'
import { parseEmbeddedMessages } from './languages/embedded-messages.js'
import { MessagesContext } from './languages/messages.js'
import { parsePageParams } from './page/page-params.js'
import { PAGE_STATE_ELEMENT_ID, parsePageFormState } from '../common/page/page-render.js'
import { parseRuntimeConfig, RUNTIME_CONFIG_ELEMENT_ID } from '../common/page/runtime-config.js'
import { preloadChunk } from './page/load-chunk.js'
import { startAfreshOnRestore } from './page/back-forward-cache.js'
import './page/shared-view-modules.js'
import { lazySecondFactorSteps, SecondFactorStepsContext, SignInPage, viewParts } from './SignInPage.js'

/**
 * Starts the page from the document the edge sent (client/main.tsx; the
 * hydration tests call it on the edge's own output): reads the embedded
 * configuration, language and form post state, puts the address right, loads the opening
 * view's chunk (which the HTML preloads beside the entry), and then hydrates the rendered
 * view in one pass, or renders into an empty root. The root, or null without one.
 * `replacing`: the page came back from the back/forward cache (client/page/back-forward-cache.ts), and
 * starts afresh in place of that root.
 */
export async function startPage (options: Pick<RootOptions, 'onRecoverableError'> & { readonly replacing?: Root | null } = {}): Promise<Root | null> {
  const { replacing, ...rootOptions } = options
  const config = parseRuntimeConfig(document.getElementById(RUNTIME_CONFIG_ELEMENT_ID)?.textContent)
  // A form post's answer carries the state the server rendered; the page starts from it.
  const formState = parsePageFormState(document.getElementById(PAGE_STATE_ELEMENT_ID)?.textContent)
  // The texts the server rendered with, so that hydration finds the same markup; missing or malformed, keys show.
  const embedded = parseEmbeddedMessages(document.getElementById(MESSAGES_ELEMENT_ID)?.textContent)
  const messages = createMessages(embedded)

  // The state's view can differ from the address's (a registration ends on the login view): the address
  // is put right first, as the server rendered it (client/server-render.tsx), so the hydrated view is the rendered one.
  const params = parsePageParams(location.search, location.hostname, config)
  if (formState !== null && params.view !== formState.view) {
    history.replaceState(history.state, '', `${location.pathname}${searchForView(location.search, formState.view)}${location.hash}`)
  }

  // The gRPC-web chunk is fetched now, while React renders, so the check adds no delay at login.
  if (params.domainCheck) preloadDomainCheck().catch(() => {})
  // A code step in the HTML hydrates once its chunk is here: fetch it at once.
  if (formState?.secondFactorChallenge != null) void import('./second-factor/SecondFactorSteps.js')
  if (formState?.emailCodeSent === true) void import('./email-codes/EmailCodeSteps.js')

  const root = document.getElementById('root')
  if (root === null) return null
  // Hydrated only with the view's code here: a view that suspended would stay the server's markup, and an update before
  // its chunk came (a transition held, an urgent one rendering it afresh) could drop what the visitor typed.
  const viewReady = await preloadChunk(viewParts[formState?.view ?? params.view])
  // Its chunk failed for good: the server's form stays as it is, and posts without scripts (docs/no-script.md),
  // rather than give way to a notice that the part could not load.
  if (!viewReady && replacing === undefined && root.firstElementChild !== null) return null
  const page = (
    <StrictMode>
      <MessagesContext.Provider value={messages}>
        <SecondFactorStepsContext.Provider value={lazySecondFactorSteps(embedded.laterTextsUrl)}>
          <SignInPage config={config} formState={formState} />
        </SecondFactorStepsContext.Provider>
      </MessagesContext.Provider>
    </StrictMode>
  )
  if (replacing !== undefined) {
    // The old page goes and the new one renders in the same task, after the awaits: no frame paints an empty card.
    replacing?.unmount()
    const created = createRoot(root, rootOptions)
    flushSync(() => created.render(page))
    return created
  }
  // The edge renders the view into the page (docs/page.md); an empty root (a render over budget or one that failed) is rendered here.
  if (root.firstElementChild === null) {
    const created = createRoot(root, rootOptions)
    created.render(page)
    return created
  }
  return hydrateRoot(root, page, rootOptions)
}

/**
 * Opens the page (client/main.tsx calls it): starts it, and starts it afresh when it comes back from
 * the back/forward cache (client/page/back-forward-cache.ts). Here rather than in the entry, so that
 * its code compresses with the rest of the first load's chunk (build/first-load-chunk.mjs).
 */
export function openPage (): void {
  startAfreshOnRestore(async (replacing) => await startPage(replacing === undefined ? {} : { replacing }))
}
