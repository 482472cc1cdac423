import useSWRMutation from 'swr/mutation'
import { register, type RegisterPayload } from '../api/accounts.js'
import { ERROR_MESSAGES, SUCCESS_MESSAGES } from '../lib/messages.js'
import type { PageState } from './usePageState.js'

/** Registration with email and password; the registered email stays for the login that follows (spec §4). */
export function useRegister (page: PageState) {
  const { trigger, isMutating } = useSWRMutation('threshold/register', (_key: string, { arg }: { arg: RegisterPayload }) => register(arg))
  return {
    isMutating,
    submit (payload: RegisterPayload): void {
      page.clearNotice()
      if (page.localMode) {
        page.fail(ERROR_MESSAGES.LOCAL_ACCOUNTS_NOT_SUPPORTED)
        return
      }
      void trigger(payload, {
        onSuccess: (answer) => {
          page.finishWithSuccess(answer, SUCCESS_MESSAGES.REGISTERED)
          if (answer.kind === 'success') page.setEmail(payload.email)
        }
      })
    }
  }
}
