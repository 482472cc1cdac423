import { useRef } from 'react'
import useSWRMutation from 'swr/mutation'
import type { RuntimeConfig } from '../../common/page/runtime-config.js'
import type { SecondFactorDue } from '../../common/http/accounts-answers.js'
import type { GoogleIntent, GoogleOutcome, GooglePage } from './google-outcome.js'
import { googleSignInAvailable, useGoogleIdentity } from './google-identity-services.js'
import { loadChunk } from '../page/load-chunk.js'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import { usePageHostname } from '../page/page-address.js'
import type { DomainGate } from '../domain-check/useDomainCheck.js'

/**
 * Google login or registration. Our button clicks Google's hidden one; what
 * the credential Google hands back leads to is takeGoogleCredential's
 * (google-outcome.ts), in Google's start chunk: a page that does not offer
 * Google never loads it.
 */
export function useGoogleSignIn (page: GooglePage, config: RuntimeConfig, gate: DomainGate, onSecondFactor: (due: SecondFactorDue) => void) {
  const { trigger, isMutating } = useSWRMutation('threshold/google', async (_key: string, { arg }: { arg: () => Promise<GoogleOutcome> }) => await arg())

  // A ref, not state: Google calls back outside React, after the button that set it was pressed.
  const intent = useRef<GoogleIntent>('login')
  const hostname = usePageHostname()
  const offered = !page.localMode && page.params.loginMethods.has('google') &&
    googleSignInAvailable(config.googleClientId, config.googleDisabledHostnames, hostname)
  const identity = useGoogleIdentity(offered ? config.googleClientId : null, (credential, nonceSecret) => {
    const state = { page, gate, intent: intent.current, trigger, onSecondFactor }
    // The chunk that handed the credential back holds what it leads to: it is here already.
    loadChunk(() => import('./google-start.js')).then(({ takeGoogleCredential }) => takeGoogleCredential(credential, nonceSecret, state))
      .catch(() => page.fail(page.messages.text(intent.current === 'login' ? ERROR_MESSAGE_KEYS.GOOGLE_LOGIN_FAILED : ERROR_MESSAGE_KEYS.GOOGLE_REGISTER_FAILED)))
  })

  return {
    offered,
    ready: identity.ready,
    /** Where Google's own button is rendered, hidden: the page places it. */
    hiddenButtonRef: identity.hiddenButtonRef,
    isMutating,
    start (pressed: GoogleIntent): void {
      intent.current = pressed
      page.clearNotice()
      identity.start()
    }
  }
}
