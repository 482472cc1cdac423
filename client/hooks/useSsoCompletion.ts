import { useEffect, useRef } from 'react'
import useSWRMutation from 'swr/mutation'
import { completeSsoLogin, completeSsoRegister, type LoginContextFields } from '../api/accounts.js'
import type { LoginAnswer, SuccessAnswer } from '../api/answers.js'
import { updateSearchParams } from '../lib/address-bar.js'
import { SUCCESS_MESSAGES } from '../lib/messages.js'
import type { SsoReturn } from '../lib/page-params.js'
import type { PageState } from './usePageState.js'

type SsoCompletion =
  | { readonly intent: 'login', readonly answer: LoginAnswer }
  | { readonly intent: 'register', readonly answer: SuccessAnswer }

/**
 * Completes the sign-on the identity provider sent the visitor back from
 * (the saml or oidc, email, id and login or register parameters), as a login
 * or a registration ends.
 */
export function useSsoCompletion (page: PageState) {
  const { trigger, isMutating } = useSWRMutation('threshold/sso-completion', async (_key: string, { arg }: { arg: { ssoReturn: SsoReturn, context: LoginContextFields } }): Promise<SsoCompletion> => {
    const { ssoReturn, context } = arg
    if (ssoReturn.intent === 'register') {
      return { intent: 'register', answer: await completeSsoRegister({ register_method: ssoReturn.protocol, id: ssoReturn.id }) }
    }
    return {
      intent: 'login',
      answer: await completeSsoLogin({ email: ssoReturn.email, login_method: ssoReturn.protocol, id: ssoReturn.id, ...context })
    }
  })

  // An effect, not a handler: nothing the visitor does starts this; it completes by itself, once, when the page opens.
  const handled = useRef(false)
  useEffect(() => {
    const ssoReturn = page.params.ssoReturn
    if (ssoReturn === null || handled.current) return
    handled.current = true
    updateSearchParams((query) => {
      for (const name of ['id', 'email', 'saml', 'oidc', 'login', 'register']) query.delete(name)
    }, { replace: true })
    void trigger({ ssoReturn, context: page.context }, {
      onSuccess: (completion) => {
        if (completion.intent === 'login') page.finishLogin(completion.answer)
        else page.finishWithSuccess(completion.answer, SUCCESS_MESSAGES.REGISTERED)
      }
    })
  })

  return { isMutating }
}
