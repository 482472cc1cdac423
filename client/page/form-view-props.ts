import type { View } from './page-params.js'
import type { LastUsedMethod } from '../sign-in/last-used-method.js'
import type { SocialProvider } from '../../common/social/social-providers.js'
import type { PageState } from './usePageState.js'
import type { NoticeContent } from '../components/Notice.js'

/** The error or success text above the form, which describes every form. */
export const FORM_NOTICE_ID = 'form-notice'

/**
 * The live region of a step that has taken the card in place of the form (the
 * breached-password notice): where a call made from that step says what it is
 * waiting for (client/challenge/answer-challenge.ts), as the form's calls do
 * after FORM_NOTICE_ID.
 */
export const STEP_NOTICE_ID = 'step-notice'

/** What every form view is told about the page. */
export interface FormState {
  /** A request is running or the page is leaving: every button is disabled. */
  readonly busy: boolean
  /** The last submission was refused: the fields are marked invalid. */
  readonly invalid: boolean
  /** Local-network mode: no view switching and no support link. */
  readonly localMode: boolean
  readonly onShowView: (view: View) => void
}

/** The email field, whose value is kept across views. */
export interface EmailField {
  readonly value: string
  readonly onChange: (email: string) => void
}

/** A view's own request: how to send it, and whether it runs (its button shows the spinner). */
export interface Submission<Args extends unknown[]> {
  readonly submit: (...args: Args) => void
  readonly submitting: boolean
}

/** Login and register: the methods login_method allows, and how to start the two that are buttons. */
export interface SignInMethods {
  readonly password: boolean
  readonly google: boolean
  /** Google's script has loaded. */
  readonly googleReady: boolean
  readonly sso: boolean
  readonly onGoogle: () => void
  readonly onSso: () => void
  /** The emailed code: RuntimeConfig.emailCodes, allowed by login_method, not in local-network mode. */
  readonly emailCode: boolean
  /** Register only: "Sign up with a passkey" (an emailed code, then a passkey), where passkeys are offered too. */
  readonly passkeySignUp: boolean
  /** Opens the emailed code's steps; `passkey`: the passkey sign-up, which creates a passkey once the code signs in. */
  readonly onEmailCode: (passkey: boolean) => void
  /** The method this browser signed in with last (last-used-method.ts), read after hydration; null: none, or not known. */
  readonly lastUsed: LastUsedMethod | null
  readonly onForgetLastUsed: () => void
  /** SSO_DISCOVERY found single sign-on for the typed address's domain: offered in place of the password (client/sso/SsoDiscovery.tsx); else null. */
  readonly discovery: SsoDiscoveryOffer | null
  /** The social connections' buttons (RuntimeConfig.socialProviders), a chunk of their own; null: none configured. */
  readonly social: SocialMethods | null
}

/** What SSO_DISCOVERY found for the typed address's domain. */
export interface SsoDiscovered {
  /** The domain signs in only with single sign-on: nothing else is offered for the address. */
  readonly required: boolean
}

/** "Continue with single sign-on" for the typed address: it starts single sign-on as the modal does (useSsoStart). */
export interface SsoDiscoveryOffer extends SsoDiscovered {
  readonly start: () => void
  readonly starting: boolean
  readonly busy: boolean
  /** Why the start failed (the modal's notice). */
  readonly notice: NoticeContent | null
}

/** The configured social connections, and what their start uses of the page (client/social/SocialButtons.tsx). */
export interface SocialMethods {
  readonly providers: readonly SocialProvider[]
  readonly page: Pick<PageState, 'params' | 'messages' | 'context' | 'leave' | 'fail' | 'clearNotice'>
}
