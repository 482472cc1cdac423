import useSWRMutation from 'swr/mutation'
import { ERROR_MESSAGE_KEYS } from '../../common/languages/error-messages.js'
import { endOtherSessions } from './other-sessions-calls.js'
import { refusalText, useMessages } from '../languages/messages.js'

/**
 * "Sign out of all other sessions" for the signed-in account whose auth
 * token is `auth`: the call, whether it runs, and what to say of its answer:
 * the service's text (or the page's own) when it is done, the refusal or the
 * generic failure otherwise.
 */
export function useEndOtherSessions (auth: string) {
  const messages = useMessages()
  const { trigger, isMutating, data } = useSWRMutation(['threshold/end-other-sessions', auth], async () => await endOtherSessions(auth))
  const done = data?.kind === 'success' ? (data.message === '' ? messages.text('otherSessions.ended') : data.message) : null
  const error = data === undefined || data.kind === 'success'
    ? null
    : data.kind === 'error' ? refusalText(data, messages) : messages.text(ERROR_MESSAGE_KEYS.GENERIC)
  return {
    end: (): void => { void trigger() },
    ending: isMutating,
    /** The confirmation, once the other sessions have ended; else null. */
    done,
    /** Why they could not be ended (a session that has ended itself, the service down); else null. */
    error
  }
}
