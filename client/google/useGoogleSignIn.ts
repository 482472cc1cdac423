import { useRef } from 'react'
import useSWRMutation from 'swr/mutation'
import type { RuntimeConfig } from '../../common/page/runtime-config.js'
import type { LoginContextFields } from '../sign-in/login-calls.js'
import { googleLogin, googleRegister } from './google-calls.js'
import type { LoginAnswer, SecondFactorDue, SuccessAnswer } from '../../common/http/accounts-answers.js'
import { emailFromGoogleCredential } from './google-credential.js'
import { googleSignInAvailable, useGoogleIdentity } from './google-identity-services.js'
import { usePageHostname } from '../page/page-address.js'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import { SUCCESS_MESSAGE_KEYS } from '../../common/languages/page-texts.js'
import type { DomainGate } from '../domain-check/useDomainCheck.js'
import type { PageState } from '../page/usePageState.js'

/** What Google sign-in uses of the page. */
type GooglePage = Pick<PageState, 'params' | 'messages' | 'context' | 'localMode' | 'clearNotice' | 'fail' | 'finishLogin' | 'finishWithSuccess' | 'noteMethod'>

type Intent = 'login' | 'register'

interface GoogleRequest {
  readonly credential: string
  /** The secret whose hash the page gave Google as the nonce. */
  readonly nonceSecret: string | null
  readonly intent: Intent
  readonly context: LoginContextFields
}

type GoogleOutcome =
  | { readonly intent: 'login', readonly answer: LoginAnswer }
  | { readonly intent: 'register', readonly answer: SuccessAnswer }

/**
 * Google login or registration. Our button clicks Google's hidden one; the
 * credential Google hands back is sent with the intent of the button that was
 * pressed. A credential without an email is a failure; so is any
 * unreadable answer, which shows the Google-specific message.
 */
export function useGoogleSignIn (page: GooglePage, config: RuntimeConfig, gate: DomainGate, onSecondFactor: (due: SecondFactorDue) => void) {
  const { text } = page.messages
  const loginFailed = text(ERROR_MESSAGE_KEYS.GOOGLE_LOGIN_FAILED)
  const registerFailed = text(ERROR_MESSAGE_KEYS.GOOGLE_REGISTER_FAILED)
  const { trigger, isMutating } = useSWRMutation('threshold/google', async (_key: string, { arg }: { arg: GoogleRequest }): Promise<GoogleOutcome> => {
    const email = emailFromGoogleCredential(arg.credential)
    if (arg.intent === 'register') {
      if (email === null) return { intent: 'register', answer: { kind: 'error', message: registerFailed } }
      return { intent: 'register', answer: await googleRegister(arg.credential, arg.nonceSecret) }
    }
    if (email === null) return { intent: 'login', answer: { kind: 'error', message: loginFailed } }
    const refusal = await gate(email)
    if (refusal !== null) return { intent: 'login', answer: { kind: 'error', message: refusal } }
    return { intent: 'login', answer: await googleLogin(arg.credential, arg.nonceSecret, { email, login_method: 'GOOGLE', ...arg.context }) }
  })

  // A ref, not state: Google calls back outside React, after the button that set it was pressed.
  const intent = useRef<Intent>('login')
  const hostname = usePageHostname()
  const offered = !page.localMode && page.params.loginMethods.has('google') &&
    googleSignInAvailable(config.googleClientId, config.googleDisabledHostnames, hostname)
  const identity = useGoogleIdentity(offered ? config.googleClientId : null, (credential, nonceSecret) => {
    if (credential === null) {
      page.fail(intent.current === 'login' ? loginFailed : registerFailed)
      return
    }
    page.noteMethod('google')
    void trigger({ credential, nonceSecret, intent: intent.current, context: page.context }, {
      onSuccess: (outcome) => {
        if (outcome.intent === 'login' && outcome.answer.kind === 'second-factor') onSecondFactor(outcome.answer)
        else if (outcome.intent === 'login') page.finishLogin(outcome.answer, loginFailed)
        else page.finishWithSuccess(outcome.answer, text(SUCCESS_MESSAGE_KEYS.REGISTERED), registerFailed)
      }
    })
  })

  return {
    offered,
    ready: identity.ready,
    /** Where Google's own button is rendered, hidden: the page places it. */
    hiddenButtonRef: identity.hiddenButtonRef,
    isMutating,
    start (pressed: Intent): void {
      intent.current = pressed
      page.clearNotice()
      identity.start()
    }
  }
}
