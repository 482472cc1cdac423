import t from 'tap'
import { ConfigError } from '../../../server/shared/env-parsing.js'
import { loadReferenceConfig } from '../../../server/reference/config.js'

function configErrorFor (env: Record<string, string>): ConfigError {
  try {
    loadReferenceConfig(env, 8080)
  } catch (error) {
    if (error instanceof ConfigError) return error
    throw error
  }
  throw new Error('expected a configuration error')
}

t.test('without DATABASE_URL the accounts stay in the SQLite file of DATA_DIR', async (t) => {
  t.equal(loadReferenceConfig({}, 8080).databaseUrl, null)
})

t.test('DATABASE_URL takes postgres:// and postgresql:// URLs as written, with their libpq parameters', async (t) => {
  for (const url of [
    'postgres://threshold:s3cret@db.internal:5432/threshold',
    'postgresql://threshold@db.internal/threshold?sslmode=verify-full',
    'postgresql:///threshold?host=/var/run/postgresql'
  ]) {
    t.equal(loadReferenceConfig({ DATABASE_URL: url }, 8080).databaseUrl, url)
  }
})

const badDatabaseUrls = [
  'db.internal:5432/threshold',
  'mysql://threshold:s3cret@db.internal/threshold',
  'http://db.internal/threshold',
  'postgres://threshold:s3cret@db.internal:5432/threshold#x'
]

for (const value of badDatabaseUrls) {
  t.test(`DATABASE_URL=${value} is refused with a message naming DATABASE_URL and not its value`, async (t) => {
    const error = configErrorFor({ DATABASE_URL: value })
    t.equal(error.variable, 'DATABASE_URL')
    t.match(error.message, /^DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL such as postgres:\/\/threshold:secret@db.internal:5432\/threshold/)
    t.notMatch(error.message, /s3cret|db\.internal\/threshold|mysql/)
  })
}

t.test('the reference service serves passkeys by default, for PUBLIC_URL\'s host and the related origins', async (t) => {
  t.same(loadReferenceConfig({ PUBLIC_URL: 'https://signin.example.com' }, 8080).passkeys, { rpId: 'signin.example.com', origins: ['https://signin.example.com'] })
  t.same(loadReferenceConfig({ PUBLIC_URL: 'https://signin.example.com', PASSKEY_RP_ID: 'example.com', PASSKEY_RELATED_ORIGINS: 'https://login.example.org' }, 8080).passkeys,
    { rpId: 'example.com', origins: ['https://signin.example.com', 'https://login.example.org'] })
  t.equal(loadReferenceConfig({ PUBLIC_URL: 'https://signin.example.com', PASSKEYS: 'false' }, 8080).passkeys, null)
  t.same(loadReferenceConfig({}, 8080).passkeys, { rpId: 'localhost', origins: ['http://localhost:8080'] })
  t.equal(configErrorFor({ PUBLIC_URL: 'https://signin.example.com', PASSKEY_RP_ID: 'example.org' }).variable, 'PASSKEY_RP_ID')
  t.equal(configErrorFor({ PUBLIC_URL: 'https://signin.example.com', PASSKEY_RELATED_ORIGINS: 'login.example.org' }).variable, 'PASSKEY_RELATED_ORIGINS')
})
