import useSWRMutation from 'swr/mutation'
import { localLogin, login, type LoginPayload } from '../api/accounts.js'
import type { PasswordLoginAnswer } from '../api/answers.js'
import type { DomainGate } from './useDomainCheck.js'
import type { PageState } from './usePageState.js'

interface LoginRequest {
  readonly payload: LoginPayload
  /** Local-network mode's `/authenticate` URL; null for the accounts service. */
  readonly localAuthenticateUrl: string | null
}

/**
 * Email and password login, or local-network login: after the domain check
 * when the page asks for one, then as every login ends.
 */
export function useLogin (page: PageState, gate: DomainGate) {
  const { trigger, isMutating } = useSWRMutation('threshold/login', async (_key: string, { arg }: { arg: LoginRequest }): Promise<PasswordLoginAnswer> => {
    const refusal = await gate(arg.payload.email)
    if (refusal !== null) return { kind: 'error', message: refusal }
    return arg.localAuthenticateUrl === null ? login(arg.payload) : localLogin(arg.localAuthenticateUrl, arg.payload)
  })
  const { localAccounts } = page.params
  return {
    isMutating,
    submit (password: string): void {
      page.clearNotice()
      if (localAccounts.kind === 'refused') {
        page.fail(localAccounts.reason)
        return
      }
      void trigger({
        payload: { email: page.email, password, ...page.context },
        localAuthenticateUrl: localAccounts.kind === 'allowed' ? localAccounts.authenticateUrl : null
      }, { onSuccess: (answer) => page.finishLogin(answer) })
    }
  }
}
