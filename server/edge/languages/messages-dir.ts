import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import englishCatalogue from '../../../common/messages/en.json' with { type: 'json' }
import { isLocale, LOCALES, type Catalogue, type Locale, type MessageKey, type ShippedLocale } from '../../../common/languages/message-catalogue.js'
import { ConfigError, readString, type Env } from '../../shared/env-parsing.js'
import { supportedLocaleOf } from '../../shared/languages/locale-choice.js'
import { translationProblem } from '../../shared/languages/translation-check.js'

/** The operator's own texts (MESSAGES_DIR), per language: only the keys they replace. */
export type MessageOverrides = Readonly<Partial<Record<ShippedLocale, Partial<Catalogue>>>>

/** A catalogue file larger than this is not a catalogue (English's is a few kilobytes). */
const MAX_CATALOGUE_FILE_BYTES = 1024 * 1024

const ENGLISH: Readonly<Record<string, string>> = englishCatalogue

function refuse (file: string, problem: string): never {
  throw new ConfigError('MESSAGES_DIR', `${file}: ${problem}`)
}

/**
 * One `<locale>.json`: an object of non-empty strings, each for a key English
 * has, with English's placeholders and the plural forms `locale` needs.
 */
function readCatalogueFile (dir: string, file: string, locale: Locale): Partial<Catalogue> {
  const path = join(dir, file)
  let content: string
  try {
    if (statSync(path).size > MAX_CATALOGUE_FILE_BYTES) refuse(path, `is larger than ${MAX_CATALOGUE_FILE_BYTES} bytes`)
    content = readFileSync(path, 'utf8')
  } catch (error) {
    if (error instanceof ConfigError) throw error
    refuse(path, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
  }
  let parsed: unknown
  try {
    // Windows editors may start a UTF-8 file with a byte order mark, which JSON.parse refuses as an invisible character.
    parsed = JSON.parse(content.startsWith('\uFEFF') ? content.slice(1) : content)
  } catch (error) {
    refuse(path, `is not JSON (${(error as Error).message})`)
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    refuse(path, 'must be a JSON object of texts by key, like common/messages/en.json')
  }
  const texts: Partial<Record<MessageKey, string>> = {}
  for (const [key, text] of Object.entries(parsed)) {
    if (!Object.hasOwn(ENGLISH, key)) refuse(path, `key "${key}" is not a key of the catalogue (common/messages/en.json lists them)`)
    if (typeof text !== 'string') refuse(path, `key "${key}" must be a text (a JSON string), not ${Array.isArray(text) ? 'an array' : text === null ? 'null' : typeof text}`)
    if (text.trim() === '') refuse(path, `key "${key}" is empty`)
    const problem = translationProblem(locale, text, ENGLISH[key]!, 'operator')
    if (problem !== null) refuse(path, `key "${key}" ${problem}`)
    texts[key as MessageKey] = text
  }
  return texts
}

/**
 * MESSAGES_DIR (docs/languages.md): a folder of `<locale>.json` files whose
 * texts replace the shipped ones in that language. Read and checked once, at
 * start; the first problem stops the start with a message naming the file,
 * the key and what is wrong. Hidden files and files not ending in `.json`
 * are left alone (a README or a `.gitkeep` beside the catalogues).
 */
export function readMessagesDir (env: Env): MessageOverrides {
  const dir = readString(env, 'MESSAGES_DIR')
  if (dir === undefined) return {}
  let entries: string[]
  try {
    if (!statSync(dir).isDirectory()) throw new ConfigError('MESSAGES_DIR', 'must be a folder', dir)
    entries = readdirSync(dir)
  } catch (error) {
    if (error instanceof ConfigError) throw error
    throw new ConfigError('MESSAGES_DIR', `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, dir)
  }
  const overrides: Partial<Record<Locale, Partial<Catalogue>>> = {}
  for (const file of entries.sort()) {
    if (file.startsWith('.') || !file.endsWith('.json')) continue
    const locale = file.slice(0, -'.json'.length)
    if (!isLocale(locale)) {
      refuse(join(dir, file), `"${locale}" is not a language Threshold ships; the files are named ${LOCALES.map((shipped) => `${shipped}.json`).join(', ')}`)
    }
    overrides[locale] = readCatalogueFile(dir, file, locale)
  }
  return overrides
}

/** DEFAULT_LOCALE: the page's language when neither ui_locales nor Accept-Language names a shipped one; `en` by default. */
export function readDefaultLocale (env: Env): Locale {
  const value = readString(env, 'DEFAULT_LOCALE')
  if (value === undefined) return 'en'
  // Matched as a request's tags are (`de-DE`, `DE` → de), so that what a visitor may send an operator may write.
  const locale = supportedLocaleOf(value)
  if (locale === null) throw new ConfigError('DEFAULT_LOCALE', `must be one of the languages Threshold ships: ${LOCALES.join(', ')}`, value)
  return locale
}
