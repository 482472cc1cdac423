import useSWRMutation from 'swr/mutation'
import type { LoginAnswer, SuccessAnswer } from '../api/answers.js'
import { completeSsoLogin, completeSsoRegister, type LoginContextFields } from '../api/accounts.js'
import type { SsoReturn } from '../lib/page-params.js'

export type SsoCompletion =
  | { readonly intent: 'login', readonly answer: LoginAnswer }
  | { readonly intent: 'register', readonly answer: SuccessAnswer }

/** Completes the sign-on the identity provider sent the visitor back from. */
export function useSsoCompletion () {
  return useSWRMutation('threshold/sso-completion', async (_key: string, { arg }: { arg: { ssoReturn: SsoReturn, context: LoginContextFields } }): Promise<SsoCompletion> => {
    const { ssoReturn, context } = arg
    if (ssoReturn.intent === 'register') {
      return { intent: 'register', answer: await completeSsoRegister({ register_method: ssoReturn.protocol, id: ssoReturn.id }) }
    }
    return {
      intent: 'login',
      answer: await completeSsoLogin({ email: ssoReturn.email, login_method: ssoReturn.protocol, id: ssoReturn.id, ...context })
    }
  })
}
