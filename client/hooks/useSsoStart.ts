import useSWRMutation from 'swr/mutation'
import type { SsoStartAnswer } from '../api/answers.js'
import { startSso, type SsoStartPayload } from '../api/accounts.js'
import type { DomainGate } from './useDomainCheck.js'

/** Starts single sign-on, after the domain check when the page asks for one. */
export function useSsoStart (gate: DomainGate) {
  return useSWRMutation('threshold/sso-start', async (_key: string, { arg }: { arg: SsoStartPayload }): Promise<SsoStartAnswer> => {
    const refusal = await gate(arg.email)
    if (refusal !== null) return { kind: 'error', message: refusal }
    return startSso(arg)
  })
}
