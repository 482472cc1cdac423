import { StrictMode } from 'react'
import { renderToString } from 'react-dom/server'
import { createMessages } from '../common/languages/message-catalogue.js'
import type { PageFormState, PageRenderer, PageRenderRequest, RenderedPage } from '../common/page/page-render.js'
import type { RuntimeConfig } from '../common/page/runtime-config.js'
import { searchForView } from './page/address-bar.js'
import { NoScriptContext } from './no-script/NeedsScript.js'
import { MessagesContext } from './languages/messages.js'
import { PageAddressContext } from './page/page-address.js'
import { parsePageParams } from './page/page-params.js'
import SecondFactorSteps from './second-factor/SecondFactorSteps.js'
import VerificationLinkButton from './registration/VerificationLinkButton.js'
import { LoginView, loginViewParts } from './sign-in/LoginView.js'
import SupportAddressCopy from './sign-in/SupportAddressCopy.js'
import { socialParts } from './sign-in/AlternativeMethods.js'
import SocialButtons from './social/SocialButtons.js'
import { SsoDiscoveryWatch } from './sso/SsoDiscovery.js'
import { discoveryParts, emailCodeParts, returnParts, SecondFactorStepsContext, SignInPage, viewParts } from './SignInPage.js'
import ReturnCompletion from './page/ReturnCompletion.js'
import RegisterView from './registration/RegisterView.js'
import ResetPasswordView from './password-reset/ResetPasswordView.js'
import SetPasswordView from './password-reset/SetPasswordView.js'
import EmailCodeSteps from './email-codes/EmailCodeSteps.js'
import AccountView, { AccountStateContext } from './account/AccountView.js'
import { NO_SCRIPT_CONTENT } from './no-script/no-script-content.js'
import type { MessageKey } from '../common/languages/message-catalogue.js'
import type { View } from './page/page-params.js'

/** Each view's heading's key, for the `<title>` (SignInPage composes the same keys, `heading.<view>`, to keep this table out of the first load). */
const HEADING_KEYS: Readonly<Record<View, MessageKey>> = {
  login: 'heading.login',
  register: 'heading.register',
  resetPassword: 'heading.resetPassword',
  setPassword: 'heading.setPassword',
  account: 'heading.account'
}

// The server has every part at hand: the verification-link button and the views of viewParts render as they are, not as the page's lazy chunks.
loginViewParts.VerificationLinkButton = VerificationLinkButton
loginViewParts.SupportAddressCopy = SupportAddressCopy
viewParts.login = LoginView
viewParts.register = RegisterView
viewParts.resetPassword = ResetPasswordView
viewParts.setPassword = SetPasswordView
viewParts.account = AccountView
emailCodeParts.EmailCodeSteps = EmailCodeSteps
socialParts.SocialButtons = SocialButtons
discoveryParts.SsoDiscoveryWatch = SsoDiscoveryWatch
returnParts.ReturnCompletion = ReturnCompletion

/**
 * The address the page hydrates at: the request's, or, when a form post's
 * state shows another view (a registration ends on the login view), the
 * request's with that view, as client/main.tsx puts the address bar right
 * before it hydrates.
 */
function shownSearch (search: string, hostname: string, state: PageFormState | null, config: RuntimeConfig): string {
  const query = search === '' ? '' : `?${search}`
  if (state === null || parsePageParams(query, hostname, config).view === state.view) return query
  return searchForView(query, state.view)
}

/**
 * The sign-in page rendered on the server (docs/page.md, "Before its
 * JavaScript"): the same components the browser runs, given the address
 * (there is no `window` here) and the second factor's steps imported rather
 * than lazy, so that a code step is in the HTML, what stands in for the
 * scripted parts when scripts are off (NoScriptContext), and the request's
 * language (MessagesContext): the markup depends on the request alone, so
 * the edge can keep it per address and language (but for the account
 * view, which renders the request's AccountState). Bundled by build.mjs into
 * dist/server/page-renderer.cjs, which the edge loads at start.
 */
export function createPageRenderer (config: RuntimeConfig): PageRenderer {
  return {
    render ({ search, hostname, state, messages: pageMessages, account }: PageRenderRequest): RenderedPage {
      const address = { search: shownSearch(search, hostname, state, config), hostname }
      const messages = createMessages(pageMessages)
      const html = renderToString(
        <StrictMode>
          <MessagesContext.Provider value={messages}>
            <PageAddressContext.Provider value={address}>
              <SecondFactorStepsContext.Provider value={SecondFactorSteps}>
                <NoScriptContext.Provider value={NO_SCRIPT_CONTENT}>
                  <AccountStateContext.Provider value={account}>
                    <SignInPage config={config} formState={state} />
                  </AccountStateContext.Provider>
                </NoScriptContext.Provider>
              </SecondFactorStepsContext.Provider>
            </PageAddressContext.Provider>
          </MessagesContext.Provider>
        </StrictMode>
      )
      const heading = messages.text(state?.secondFactorChallenge != null
        ? 'secondFactor.codeHeading'
        : state?.emailCodeSent === true ? 'emailCode.codeHeading' : HEADING_KEYS[parsePageParams(address.search, hostname, config).view])
      return { html, heading }
    }
  }
}
