import { useEffect, useRef } from 'react'
import useSWRMutation from 'swr/mutation'
import type { LoginContextFields } from '../sign-in/login-calls.js'
import { completeSsoLogin, completeSsoRegister } from './sso-calls.js'
import type { LoginAnswer, SuccessAnswer } from '../../common/http/accounts-answers.js'
import { updateSearchParams } from '../page/address-bar.js'
import { SUCCESS_MESSAGE_KEYS } from '../../common/languages/page-texts.js'
import type { PageContext, PageParams, SsoReturn } from '../page/page-params.js'
import { takeSsoStartContext } from './take-sso-start-context.js'
import { loginContextFields } from '../../common/page/page-query.js'
import type { PageState } from '../page/usePageState.js'

/** What the return from single sign-on uses of the page. */
export type SsoCompletionPage = Pick<PageState, 'params' | 'messages' | 'finishWithSuccess' | 'storeLogin' | 'leaveToTarget' | 'noteMethod'>

type SsoCompletion =
  | { readonly intent: 'login', readonly answer: LoginAnswer }
  | { readonly intent: 'register', readonly answer: SuccessAnswer }

/** Puts the context back in the address bar, where the page reads it: a later login (after a registration, or a refused completion) carries it too. */
function writeContext (query: URLSearchParams, context: PageContext): void {
  const single: Array<[string, string | null]> = [['redirect', context.redirect], ['resource_type', context.resourceType], ['cluster_name', context.clusterName]]
  for (const [name, value] of single) {
    if (value === null) query.delete(name)
    else query.set(name, value)
  }
  query.delete('allowed_org')
  for (const organization of context.allowedOrgs) query.append('allowed_org', organization)
}

/**
 * The context a return completes with, read once, and the return's own
 * parameters (`names`) taken out of the address bar. What this tab kept at
 * the start (client/sso/sso-start-context.ts) wins over the return URL's
 * values: they are the ones the visitor clicked with, whole (a value absent
 * then is no value to pick up now), while the URL's passed through the
 * backend and the identity provider, which may drop or rewrite them, and a
 * return link can be handed to the visitor by anyone. With nothing kept
 * (another tab, storage refused, over 30 minutes), the URL's values are all
 * there is. Shared by single sign-on's return and the social connections'.
 */
export function contextForReturn (intent: 'login' | 'register', params: PageParams, names: readonly string[]): PageContext {
  const kept = takeSsoStartContext(intent)
  updateSearchParams((query) => {
    for (const name of names) query.delete(name)
    if (kept !== null) writeContext(query, kept)
  }, { replace: true })
  return kept ?? params
}

/**
 * Completes the sign-on the identity provider sent the visitor back from
 * (the saml or oidc, email, id and login or register parameters), as a login
 * or a registration ends, with the target and context kept at the start.
 * In the returns' chunk (client/page/ReturnCompletion.tsx): it runs only on
 * a return. `onRunning` tells the page while the call runs.
 */
export function useSsoCompletion (page: SsoCompletionPage, onRunning: (running: boolean) => void): void {
  const { trigger } = useSWRMutation('threshold/sso-completion', async (_key: string, { arg }: { arg: { ssoReturn: SsoReturn, context: LoginContextFields } }): Promise<SsoCompletion> => {
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
    const context = contextForReturn(ssoReturn.intent, page.params, ['id', 'email', 'saml', 'oidc', 'login', 'register'])
    page.noteMethod('sso')
    onRunning(true)
    void trigger({ ssoReturn, context: loginContextFields(context) }, {
      onSuccess: (completion) => {
        onRunning(false)
        // The kept target, not this render's: the address bar changed above, after `page` was made.
        if (completion.intent === 'register') page.finishWithSuccess(completion.answer, page.messages.text(SUCCESS_MESSAGE_KEYS.REGISTERED))
        else if (page.storeLogin(completion.answer)) page.leaveToTarget(context.redirect)
      }
    })
  })
}
