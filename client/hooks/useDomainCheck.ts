import useSWRMutation from 'swr/mutation'
import { checkDomain, type DomainCheckOutcome } from '../api/check-domain.js'
import { emailDomain } from '../lib/email-domain.js'
import { ERROR_MESSAGES } from '../lib/messages.js'

/** Refuses a login with a message, or lets it go on (null). */
export type DomainGate = (email: string) => Promise<string | null>

/** What the spec asks of a check's outcome: go on for authorized or unspecified only. */
export function domainCheckRefusal (outcome: DomainCheckOutcome): string | null {
  if (outcome.kind === 'failed') return ERROR_MESSAGES.DOMAIN_AUTH_CHECK_FAILED
  switch (outcome.authorization) {
    case 'authorized':
    case 'unspecified':
      return null
    case 'unauthorized':
      return ERROR_MESSAGES.DOMAIN_NOT_AUTHORIZED
    default:
      return ERROR_MESSAGES.DOMAIN_AUTH_CHECK_FAILED
  }
}

/** A gate that lets every login through, for pages without the check. */
export const openGate: DomainGate = async () => null

/** The domain authorization check as a mutation; `gate` runs it before a login. */
export function useDomainCheck (timeoutMs: number | null) {
  const mutation = useSWRMutation('threshold/domain-check', (_key: string, { arg }: { arg: string }) =>
    checkDomain(emailDomain(arg), timeoutMs))
  const gate: DomainGate = async (email) => domainCheckRefusal(await mutation.trigger(email))
  return { ...mutation, gate }
}
