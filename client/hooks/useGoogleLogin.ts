import useSWRMutation from 'swr/mutation'
import type { LoginAnswer, SuccessAnswer } from '../api/answers.js'
import { googleLogin, googleRegister, type LoginContextFields } from '../api/accounts.js'
import { emailFromGoogleCredential } from '../lib/google-credential.js'
import { ERROR_MESSAGES } from '../lib/messages.js'
import type { DomainGate } from './useDomainCheck.js'

export interface GoogleRequest {
  readonly credential: string
  readonly intent: 'login' | 'register'
  readonly context: LoginContextFields
}

export type GoogleOutcome =
  | { readonly intent: 'login', readonly answer: LoginAnswer }
  | { readonly intent: 'register', readonly answer: SuccessAnswer }

/**
 * Google login or registration with the credential Google Identity Services
 * returned. A credential without an email is a failure (spec §5); so is any
 * unreadable answer, which shows the Google-specific message.
 */
export function useGoogleLogin (gate: DomainGate) {
  return useSWRMutation('threshold/google', async (_key: string, { arg }: { arg: GoogleRequest }): Promise<GoogleOutcome> => {
    const email = emailFromGoogleCredential(arg.credential)
    if (arg.intent === 'register') {
      if (email === null) return { intent: 'register', answer: { kind: 'error', message: ERROR_MESSAGES.GOOGLE_REGISTER_FAILED } }
      return { intent: 'register', answer: await googleRegister(arg.credential) }
    }
    if (email === null) return { intent: 'login', answer: { kind: 'error', message: ERROR_MESSAGES.GOOGLE_LOGIN_FAILED } }
    const refusal = await gate(email)
    if (refusal !== null) return { intent: 'login', answer: { kind: 'error', message: refusal } }
    return { intent: 'login', answer: await googleLogin(arg.credential, { email, login_method: 'GOOGLE', ...arg.context }) }
  })
}
