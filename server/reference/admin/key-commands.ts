import { EMAIL_PSEUDONYM_PURPOSE, EmailPseudonyms } from '../audit/email-pseudonyms.js'
import { loadOrCreateDerivedSecrets } from '../keys/derived-secrets.js'
import { readStoredKey, signingKeyFile } from '../keys/signing-key.js'
import { rotateSigningKey, RotationRefused } from '../keys/signing-key-rotation.js'
import { CommandError, type KeysCommand } from './command.js'

/** The commands on DATA_DIR/keys: the signing key's rotation, and the audit log's name of an address. */
export const KEYS_COMMANDS: Readonly<Record<string, KeysCommand>> = {
  'rotate-signing-key': {
    parameters: [],
    flags: ['--force'],
    async runOnKeys (dataDir, _args, flags) {
      try {
        const rotation = await rotateSigningKey(dataDir, Date.now(), { force: flags.has('--force') })
        return [
          `new signing key ${rotation.newKid}: in the key set now, signing auth tokens from ${new Date(rotation.signsFrom).toISOString()}`,
          `old signing key ${rotation.oldKid}: signs until then, and stays in the key set until ${new Date(rotation.oldKeyKeptUntil).toISOString()}`,
          'Running servers read the new key within a minute (or at their next start). With several instances and no',
          'shared keys/ folder, copy DATA_DIR/keys to every instance now.'
        ].join('\n')
      } catch (error) {
        if (error instanceof RotationRefused) throw new CommandError(error.message)
        throw error
      }
    }
  },
  'audit-pseudonym': {
    parameters: ['email'],
    async runOnKeys (dataDir, [email]) {
      const key = await readStoredKey(dataDir)
      if (key === null) throw new CommandError(`there is no signing key in ${signingKeyFile(dataDir)} (is DATA_DIR right?)`)
      const secrets = await loadOrCreateDerivedSecrets(dataDir, Buffer.from(String(key.jwk.d), 'base64url'))
      return new EmailPseudonyms(secrets.derive(EMAIL_PSEUDONYM_PURPOSE)).of(email!)
    }
  }
}
