import { useEffect, useRef } from 'react'
import type { SecondFactorDue } from '../../common/http/accounts-answers.js'
import { loginContextFields } from '../../common/page/page-query.js'
import { SOCIAL_RETURN_PARAMETER } from '../../common/social/social-providers.js'
import type { PageState } from '../page/usePageState.js'
import { contextForReturn } from '../sso/useSsoCompletion.js'
import { completeSocialLogin } from './social-calls.js'

/** What the return from a social provider uses of the page. */
export type SocialCompletionPage = Pick<PageState, 'params' | 'storeLogin' | 'leaveToTarget' | 'noteMethod'>

/**
 * Completes the sign-in a social provider sent the visitor back from
 * (`?social=<id>&id=<single use>&login=1` or `register=1`) with
 * `v2/auth/login` SOCIAL, by itself, once: the parameters leave the address
 * bar first (the id works once), the context is the one kept at the start
 * (contextForReturn), a second factor's challenge hands over to its steps, and
 * tokens end it as any login ends, with `social:<id>` as the method used last.
 * A refusal (the id used or expired, an account to log in to first) is the
 * form's notice. Whether it signs in or creates the account, the call is a
 * login's: the service decides (`registered`).
 */
export function useSocialCompletion (page: SocialCompletionPage, onRunning: (running: boolean) => void, onSecondFactor: (due: SecondFactorDue) => void): void {
  const handled = useRef(false)
  useEffect(() => {
    const socialReturn = page.params.socialReturn
    if (socialReturn === null || handled.current) return
    handled.current = true
    const context = contextForReturn(socialReturn.intent, page.params, [SOCIAL_RETURN_PARAMETER, 'id', 'login', 'register'])
    page.noteMethod(`social:${socialReturn.provider}`)
    onRunning(true)
    void completeSocialLogin({ provider: socialReturn.provider, id: socialReturn.id, ...loginContextFields(context) }).then((answer) => {
      onRunning(false)
      if (answer.kind === 'second-factor') onSecondFactor(answer)
      else if (page.storeLogin(answer)) page.leaveToTarget(context.redirect)
    })
  })
}
