import { ConfigError, readOrigin, type Env } from '../../shared/env-parsing.js'
import { readPasskeySettings, type PasskeySettings } from '../../shared/passkeys/passkey-config.js'
import { isPublicSuffix } from '../sessions/cookie-domain.js'

/**
 * The passkey variables, read as the reference service reads them; here also
 * a relying party ID on a public suffix (co.uk, github.io) is refused: every
 * site under it could then ask for the visitors' passkeys.
 */
export function readPasskeys (env: Env, accountsUrl: string | null, port: number): PasskeySettings | null {
  const publicOrigin = readOrigin(env, 'PUBLIC_URL')?.origin ?? `http://localhost:${port}`
  const settings = readPasskeySettings(env, publicOrigin, accountsUrl === null)
  if (settings !== null && isPublicSuffix(settings.rpId)) {
    throw new ConfigError('PASSKEY_RP_ID', 'must not be a public suffix such as co.uk or github.io, whose sites belong to many owners', settings.rpId)
  }
  return settings
}
