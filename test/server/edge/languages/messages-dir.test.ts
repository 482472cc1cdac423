import t, { type Test } from 'tap'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ConfigError, loadServerConfig } from '../../../../server/edge/config.js'

/** A MESSAGES_DIR holding `files` (name → content), removed when the test ends. */
function messagesDir (t: Test, files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'threshold-messages-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content)
  return dir
}

function startError (env: Record<string, string>): string {
  try {
    loadServerConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) {
      t.equal(error.variable === 'MESSAGES_DIR' || error.variable === 'DEFAULT_LOCALE', true)
      return error.message
    }
    throw error
  }
  throw new Error('expected the start to stop')
}

t.test('DEFAULT_LOCALE is en by default, any shipped locale when set, and stops the start otherwise, listing them', async (t) => {
  t.equal(loadServerConfig({}).defaultLocale, 'en')
  t.equal(loadServerConfig({ DEFAULT_LOCALE: 'ar' }).defaultLocale, 'ar')
  t.match(startError({ DEFAULT_LOCALE: 'sw' }), /^DEFAULT_LOCALE must be one of the languages Threshold ships: en, de, fr, es, ja, ar, pt-BR, pt-PT, .*, zh-Hans, zh-Hant, ms \(got "sw"\)$/)
  t.equal(loadServerConfig({ DEFAULT_LOCALE: 'de-DE' }).defaultLocale, 'de', 'a regional tag is matched as a request\'s is')
  t.equal(loadServerConfig({ DEFAULT_LOCALE: 'DE' }).defaultLocale, 'de', 'case-insensitively')
  t.equal(loadServerConfig({ DEFAULT_LOCALE: 'pt' }).defaultLocale, 'pt-BR', 'a language written two ways falls back as a request\'s does')
  t.equal(loadServerConfig({ DEFAULT_LOCALE: 'zh-TW' }).defaultLocale, 'zh-Hant')
  t.equal(loadServerConfig({ DEFAULT_LOCALE: 'en-XA' }).defaultLocale, 'en', 'a pseudo-locale is never the default: its language is')
})

t.test('MESSAGES_DIR: the operator\'s texts by language; hidden and non-JSON files left alone', async (t) => {
  t.same(loadServerConfig({}).messageOverrides, {})
  const dir = messagesDir(t, {
    'de.json': JSON.stringify({ 'page.title': '{heading} – {product} Anmeldung', 'failure.busy': 'Gerade ist viel los.' }),
    'README.md': '# our texts',
    '.gitkeep': ''
  })
  t.same(loadServerConfig({ MESSAGES_DIR: dir }).messageOverrides, {
    de: { 'page.title': '{heading} – {product} Anmeldung', 'failure.busy': 'Gerade ist viel los.' }
  })
})

t.test('every problem of a MESSAGES_DIR file stops the start, naming the file, the key and what is wrong', async (t) => {
  const cases: Array<[string, string, string, RegExp]> = [
    ['not JSON', 'de.json', '{"page.title": ', /de\.json: is not JSON \(/],
    ['an array', 'de.json', '["a"]', /de\.json: must be a JSON object of texts by key/],
    ['a locale not shipped', 'sw.json', '{}', /sw\.json: "sw" is not a language Threshold ships; the files are named en\.json, de\.json, .*, pt-BR\.json, .*, zh-Hant\.json, ms\.json$/],
    ['a pseudo-locale', 'en-XA.json', '{}', /en-XA\.json: "en-XA" is not a language Threshold ships/],
    ['a plural without the forms its language needs', 'pl.json', '{"field.passwordHint": "{min, plural, one {Co najmniej # znak.} other {Co najmniej # znaków.}}"}', /pl\.json: key "field\.passwordHint" has a plural of \{min\} without few, many \(pl has one, few, many, other\)$/],
    ['a text that does not parse', 'de.json', '{"field.passwordHint": "{min, plural, one {# Zeichen} other {# Zeichen}"}', /de\.json: key "field\.passwordHint" does not parse: the "\{" at character 1 is never closed$/],
    ['an unknown key', 'fr.json', '{"page.titel": "x"}', /fr\.json: key "page\.titel" is not a key of the catalogue/],
    ['a text that is not a string', 'es.json', '{"failure.busy": 3}', /es\.json: key "failure\.busy" must be a text \(a JSON string\), not number$/],
    ['an empty text', 'ja.json', '{"failure.busy": "  "}', /ja\.json: key "failure\.busy" is empty$/],
    ['a placeholder missing', 'ar.json', '{"page.title": "{heading}"}', /ar\.json: key "page\.title" has the placeholders \{heading\} where English has \{heading\}, \{product\}$/],
    ['a placeholder renamed', 'en.json', '{"page.title": "{heading} · {produkt}"}', /en\.json: key "page\.title" has the placeholders \{heading\}, \{produkt\} where English has \{heading\}, \{product\}$/],
    ['a placeholder added', 'de.json', '{"failure.busy": "Warte {seconds} s"}', /de\.json: key "failure\.busy" has the placeholders \{seconds\} where English has none$/]
  ]
  for (const [name, file, content, expected] of cases) {
    const dir = messagesDir(t, { [file]: content })
    const message = startError({ MESSAGES_DIR: dir })
    t.match(message, expected, name)
    t.ok(message.startsWith(`MESSAGES_DIR ${join(dir, file)}: `), `${name}: names the file`)
  }
})

t.test('a text written before its language had plural forms still starts', async (t) => {
  // An upgrade never stops a start that worked: a plain {min} is still a text, said with the number as it is.
  const dir = messagesDir(t, { 'ru.json': '{"field.passwordHint": "Не менее {min} символов."}' })
  t.same(loadServerConfig({ MESSAGES_DIR: dir }).messageOverrides, { ru: { 'field.passwordHint': 'Не менее {min} символов.' } })
})

t.test('a MESSAGES_DIR that is missing or not a folder stops the start', async (t) => {
  const dir = messagesDir(t, { 'de.json': '{}' })
  t.equal(startError({ MESSAGES_DIR: join(dir, 'nowhere') }), `MESSAGES_DIR cannot be read (ENOENT) (got ${JSON.stringify(join(dir, 'nowhere'))})`)
  t.match(startError({ MESSAGES_DIR: join(dir, 'de.json') }), /^MESSAGES_DIR must be a folder/)
  mkdirSync(join(dir, 'sub.json'))
  t.match(startError({ MESSAGES_DIR: dir }), /sub\.json: "sub" is not a language Threshold ships/, 'a folder named like a catalogue is no catalogue')
  rmSync(join(dir, 'sub.json'), { recursive: true })
  mkdirSync(join(dir, 'fr.json'))
  t.match(startError({ MESSAGES_DIR: dir }), /fr\.json: cannot be read \(EISDIR\)$/)
})

t.test('a MESSAGES_DIR file saved with a UTF-8 byte order mark (Windows editors) is read', async (t) => {
  const dir = messagesDir(t, { 'fr.json': '\uFEFF' + JSON.stringify({ 'failure.busy': 'Trop de monde.' }) })
  t.same(loadServerConfig({ MESSAGES_DIR: dir }).messageOverrides, { fr: { 'failure.busy': 'Trop de monde.' } })
})
