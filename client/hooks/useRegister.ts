import useSWRMutation from 'swr/mutation'
import { register, type RegisterPayload } from '../api/accounts.js'

export function useRegister () {
  return useSWRMutation('threshold/register', (_key: string, { arg }: { arg: RegisterPayload }) => register(arg))
}
