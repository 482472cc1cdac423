import useSWRMutation from 'swr/mutation'
import { setPassword, type SetPasswordPayload } from '../api/accounts.js'

export function useSetPassword () {
  return useSWRMutation('threshold/set-password', (_key: string, { arg }: { arg: SetPasswordPayload }) => setPassword(arg))
}
