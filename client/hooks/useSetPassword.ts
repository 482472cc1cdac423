import useSWRMutation from 'swr/mutation'
import type { SetPasswordPayload } from '../api/payloads.js'
import { setPassword } from '../api/set-password.js'

export function useSetPassword () {
  return useSWRMutation('threshold/set-password', (_key: string, { arg }: { arg: SetPasswordPayload }) => setPassword(arg))
}
