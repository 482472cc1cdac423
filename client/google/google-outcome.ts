import type { LoginAnswer, SecondFactorDue, SuccessAnswer } from '../../common/http/accounts-answers.js'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import { SUCCESS_MESSAGE_KEYS } from '../../common/languages/page-texts.js'
import type { DomainGate } from '../domain-check/useDomainCheck.js'
import type { PageState } from '../page/usePageState.js'
import { googleLogin, googleRegister } from './google-calls.js'
import { emailFromGoogleCredential } from './google-credential.js'

/* What a credential Google hands back leads to. A part of Google's start chunk (google-start.ts): Google hands one back only once that chunk has run. */

/** What Google sign-in uses of the page. */
export type GooglePage = Pick<PageState, 'params' | 'messages' | 'context' | 'localMode' | 'clearNotice' | 'fail' | 'finishLogin' | 'finishWithSuccess' | 'noteMethod'>

/** The button that was pressed. */
export type GoogleIntent = 'login' | 'register'

export type GoogleOutcome =
  | { readonly intent: 'login', readonly answer: LoginAnswer }
  | { readonly intent: 'register', readonly answer: SuccessAnswer }

/** The Google mutation's trigger (useGoogleSignIn.ts): it runs the request it is given, and hands its outcome to onSuccess unless a newer one started. */
type GoogleTrigger = (request: () => Promise<GoogleOutcome>, options: { onSuccess: (outcome: GoogleOutcome) => void }) => Promise<unknown>

/** Where a credential arrives: the page of the moment, and the intent of the button pressed. */
export interface GoogleSignInState {
  readonly page: GooglePage
  readonly gate: DomainGate
  readonly intent: GoogleIntent
  readonly trigger: GoogleTrigger
  readonly onSecondFactor: (due: SecondFactorDue) => void
}

/**
 * A credential is sent with the intent of the button that was pressed (a
 * login passes the domain check first), and the answer ends the sign-in. A
 * missing credential, or one without an email, is a failure; so is any
 * unreadable answer, which shows the Google-specific message.
 */
export function takeGoogleCredential (credential: string | null, nonceSecret: string | null, state: GoogleSignInState): void {
  const { page, gate, intent, onSecondFactor } = state
  const { text } = page.messages
  const loginFailed = text(ERROR_MESSAGE_KEYS.GOOGLE_LOGIN_FAILED)
  const registerFailed = text(ERROR_MESSAGE_KEYS.GOOGLE_REGISTER_FAILED)
  if (credential === null) {
    page.fail(intent === 'login' ? loginFailed : registerFailed)
    return
  }
  page.noteMethod('google')
  const context = page.context
  void state.trigger(async (): Promise<GoogleOutcome> => {
    const email = emailFromGoogleCredential(credential)
    if (intent === 'register') {
      if (email === null) return { intent: 'register', answer: { kind: 'error', message: registerFailed } }
      return { intent: 'register', answer: await googleRegister(credential, nonceSecret) }
    }
    if (email === null) return { intent: 'login', answer: { kind: 'error', message: loginFailed } }
    const refusal = await gate(email)
    if (refusal !== null) return { intent: 'login', answer: { kind: 'error', message: refusal } }
    return { intent: 'login', answer: await googleLogin(credential, nonceSecret, { email, login_method: 'GOOGLE', ...context }) }
  }, {
    onSuccess: (outcome) => {
      if (outcome.intent === 'login' && outcome.answer.kind === 'second-factor') onSecondFactor(outcome.answer)
      else if (outcome.intent === 'login') page.finishLogin(outcome.answer, loginFailed)
      else page.finishWithSuccess(outcome.answer, text(SUCCESS_MESSAGE_KEYS.REGISTERED), registerFailed)
    }
  })
}
