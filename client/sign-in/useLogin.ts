import useSWRMutation from 'swr/mutation'
import { localLogin, login, type LoginPayload } from './login-calls.js'
import type { PasswordLoginAnswer, SecondFactorDue } from '../../common/http/accounts-answers.js'
import type { DomainGate } from '../domain-check/useDomainCheck.js'
import type { PageState } from '../page/usePageState.js'

/** What a password login uses of the page. */
type LoginPage = Pick<PageState, 'params' | 'messages' | 'context' | 'email' | 'clearNotice' | 'fail' | 'finishLogin' | 'noteMethod'>

/** What a password login through the accounts service may hand to passkeys before the page leaves (usePasskeys). */
type AfterPasswordLogin = (answer: PasswordLoginAnswer) => boolean

interface LoginRequest {
  readonly payload: LoginPayload
  /** Local-network mode's `/authenticate` URL; null for the accounts service. */
  readonly localAuthenticateUrl: string | null
}

/**
 * Email and password login, or local-network login: after the domain check
 * when the page asks for one, then as every login ends (with the passkey
 * upgrade between storing the tokens and leaving, where passkeys are offered).
 */
export function useLogin (page: LoginPage, gate: DomainGate, afterPasswordLogin: AfterPasswordLogin, onSecondFactor: (due: SecondFactorDue) => void) {
  const { trigger, isMutating } = useSWRMutation('threshold/login', async (_key: string, { arg }: { arg: LoginRequest }): Promise<PasswordLoginAnswer> => {
    const refusal = await gate(arg.payload.email)
    if (refusal !== null) return { kind: 'error', message: refusal }
    return arg.localAuthenticateUrl === null ? login(arg.payload) : localLogin(arg.localAuthenticateUrl, arg.payload)
  })
  const { localAccounts } = page.params
  return {
    isMutating,
    submit: (password: string): void => {
      page.clearNotice()
      page.noteMethod('password')
      if (localAccounts.kind === 'refused') {
        page.fail(page.messages.text(localAccounts.reason))
        return
      }
      const localAuthenticateUrl = localAccounts.kind === 'allowed' ? localAccounts.authenticateUrl : null
      void trigger({ payload: { email: page.email, password, ...page.context }, localAuthenticateUrl }, {
        onSuccess: (answer) => {
          // The second factor follows either login (a local-network one's steps call its listener:
          // SecondFactorSteps); the passkey upgrade and the offers only a login through the accounts service.
          if (answer.kind === 'second-factor') {
            onSecondFactor(answer)
            return
          }
          if (localAuthenticateUrl === null && afterPasswordLogin(answer)) return
          page.finishLogin(answer)
        }
      })
    }
  }
}
