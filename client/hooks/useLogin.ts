import useSWRMutation from 'swr/mutation'
import type { LoginAnswer } from '../api/answers.js'
import { localLogin, login, type LoginPayload } from '../api/accounts.js'
import type { DomainGate } from './useDomainCheck.js'

export interface LoginRequest {
  readonly payload: LoginPayload
  /** Local-network mode's `/authenticate` URL; null for the accounts service. */
  readonly localAuthenticateUrl: string | null
}

/** Email and password login (or local-network login), after the domain check when the page asks for one. */
export function useLogin (gate: DomainGate) {
  return useSWRMutation('threshold/login', async (_key: string, { arg }: { arg: LoginRequest }): Promise<LoginAnswer> => {
    const refusal = await gate(arg.payload.email)
    if (refusal !== null) return { kind: 'error', message: refusal }
    return arg.localAuthenticateUrl === null ? login(arg.payload) : localLogin(arg.localAuthenticateUrl, arg.payload)
  })
}
