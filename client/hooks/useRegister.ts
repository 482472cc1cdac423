import useSWRMutation from 'swr/mutation'
import type { RegisterPayload } from '../api/payloads.js'
import { register } from '../api/register.js'

export function useRegister () {
  return useSWRMutation('threshold/register', (_key: string, { arg }: { arg: RegisterPayload }) => register(arg))
}
