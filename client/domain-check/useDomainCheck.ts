import useSWRMutation from 'swr/mutation'
import { checkDomain, type DomainCheckOutcome } from './check-domain.js'
import { emailDomain } from '../../common/domain-check/email-domain.js'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import type { MessageKey } from '../../common/languages/message-catalogue.js'
import { useMessages } from '../languages/messages.js'

/** Refuses a login with a message, or lets it go on (null). */
export type DomainGate = (email: string) => Promise<string | null>

/** What the spec asks of a check's outcome: go on for authorized or unspecified only (null), else the refusal's key. */
function domainCheckRefusal (outcome: DomainCheckOutcome): MessageKey | null {
  if (outcome.kind === 'failed') return ERROR_MESSAGE_KEYS.DOMAIN_AUTH_CHECK_FAILED
  switch (outcome.authorization) {
    case 'authorized':
    case 'unspecified':
      return null
    case 'unauthorized':
      return ERROR_MESSAGE_KEYS.DOMAIN_NOT_AUTHORIZED
    default:
      return ERROR_MESSAGE_KEYS.DOMAIN_AUTH_CHECK_FAILED
  }
}

const openGate: DomainGate = async () => null

/**
 * The domain authorization check (docs/accounts-api.md, "The domain check") as a gate the login flows pass
 * before they call the accounts service; a gate that lets every login through
 * on pages that do not ask for the check.
 */
export function useDomainCheck (enabled: boolean, timeoutMs: number | null): DomainGate {
  const messages = useMessages()
  // Called on every page, since hooks cannot be conditional; it only runs when the gate is used.
  const { trigger } = useSWRMutation('threshold/domain-check', (_key: string, { arg }: { arg: string }) =>
    checkDomain(emailDomain(arg), timeoutMs))
  if (!enabled) return openGate
  return async (email) => {
    const refusal = domainCheckRefusal(await trigger(email))
    return refusal === null ? null : messages.text(refusal)
  }
}
