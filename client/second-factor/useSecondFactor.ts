import { useState } from 'react'
import type { PageFormState } from '../../common/page/page-render.js'
import type { RuntimeConfig } from '../../common/page/runtime-config.js'
import type { PasswordLoginAnswer, SecondFactorDue, SignedIn } from '../../common/http/accounts-answers.js'
import { rememberSecondFactorNotNow, secondFactorNotNowRemembered } from './not-now.js'
import type { PageState } from '../page/usePageState.js'

/** What the second factor uses of the page. */
type SecondFactorPage = Pick<PageState, 'clearNotice' | 'storeLogin' | 'leaveToRedirect'>

/** What takes the card in place of the login form; null: the form. */
export type SecondFactorStep =
  /** `refusal`: a form post's refused code (PageFormState), shown in the step as its own would be. */
  | { readonly kind: 'code', readonly challenge: string, readonly refusal?: string }
  | { readonly kind: 'enrol', readonly challenge: string }
  /** The offer after a password login; `auth` is the stored login's token, for a voluntary enrolment. */
  | { readonly kind: 'offer', readonly auth: string }
  | { readonly kind: 'enrol-offered', readonly auth: string }

type Tokens = Extract<PasswordLoginAnswer, { kind: 'tokens' }>

/**
 * The second factor on the page (docs/second-factor.md): the code step or
 * the enrolment a login's answer asks for, before any token is stored, and
 * the offer of one after a password login that needed none. This hook holds
 * the step; the steps themselves are lazy chunks (client/second-factor/).
 */
export function useSecondFactor (page: SecondFactorPage, config: RuntimeConfig, formState: PageFormState | null) {
  // A form post's login that asked for a code (PageFormState) starts at the code step, with the post's refusal if any.
  const [step, setStep] = useState<SecondFactorStep | null>(() => {
    const challenge = formState?.secondFactorChallenge ?? null
    if (challenge === null) return null
    return formState?.notice?.kind === 'error' ? { kind: 'code', challenge, refusal: formState.notice.text } : { kind: 'code', challenge }
  })

  /** The offer follows a password login when the service has second factors, the account none yet, and no "Not now" holds on this browser. */
  const offerWanted = (login: SignedIn): boolean => config.secondFactor && login.secondFactorEnrolled !== true && !secondFactorNotNowRemembered()

  return {
    step,
    setStep,
    /** "Not now" on the offer: remembered for 30 days on this browser, then the redirect. Here, not in the chunk, which would split the module off the first load. */
    declineOffer: (): void => {
      rememberSecondFactorNotNow()
      page.leaveToRedirect()
    },
    /** A login answered with a challenge: its step takes the card. */
    begin: (due: SecondFactorDue): void => {
      page.clearNotice()
      setStep({ kind: due.step, challenge: due.challenge })
    },
    /** The login's tokens, after the second factor: stored, then the page leaves; if the browser keeps none, back to the form with the error. */
    finish: (tokens: Tokens): void => {
      if (page.storeLogin(tokens)) page.leaveToRedirect()
      else setStep(null)
    },
    /** Once the tokens are stored and nothing else comes between (no passkey offer shown): the offer, else the redirect. */
    offerOrLeave: (login: SignedIn): void => {
      if (offerWanted(login)) setStep({ kind: 'offer', auth: login.auth })
      else page.leaveToRedirect()
    },
    /** After a password login where passkeys take no part: stores the tokens and shows the offer; false where there is none to show. */
    afterPasswordLogin: (answer: PasswordLoginAnswer): boolean => {
      if (answer.kind !== 'tokens' || !offerWanted(answer)) return false
      if (page.storeLogin(answer)) setStep({ kind: 'offer', auth: answer.auth })
      return true
    }
  }
}

export type SecondFactorFlow = ReturnType<typeof useSecondFactor>
